"""``python -m harness.execution.cost_measurement MODE [--write]``: measure one table and print it, or add it to the
cost model's data file (:mod:`harness.execution.cost_measurement`, :mod:`harness.execution.cost_measurement.wide`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from harness.execution import cost_records
from harness.execution.cost_measurement import (
    POPULATION_SIZES,
    SIZES,
    WIDTH_SAMPLES,
    WIDTHS,
    alone_run,
    seconds_run,
    widths_run,
)
from harness.execution.cost_measurement.wide import (
    WIDE_CPU_SECONDS,
    WIDE_DATA_DIR,
    WIDE_MEMORY_BYTES,
    WIDE_SAMPLES,
    WIDE_WIDTHS,
    wide_main,
)

#: Each mode of the tool and the table it measures.
MODES = {"seconds": "seconds", "alone": "alone_seconds", "widths": "width_factors", "wide": "wide_codes"}


#: The tables a run of every metric (no ``--metrics``) at every default sample size replaces whole: their rows are
#: measured at every sample size at once (``width_factors`` and ``wide_codes`` rows at other sample sizes stay).
WHOLE_TABLES = ("seconds", "alone_seconds")


def replaces_whole(table: str, args: argparse.Namespace) -> bool:
    """Whether the run of ``table`` that ``args`` asked for replaces the table whole: a ``seconds`` or ``alone`` run of
    every metric (no ``--metrics``) at every default sample size (``--sizes``, ``--population-sizes``: more are
    fine).  A run of fewer metrics or sizes replaces the rows it measured, and the rest of the table stays (a run of
    every metric at ``--sizes 300`` alone replaced every row at 1000 to 20000 with its rows at 300)."""
    every_size = set(args.sizes) >= set(SIZES) and (table != "seconds" or
                                                    set(args.population_sizes) >= set(POPULATION_SIZES))
    return table in WHOLE_TABLES and args.metrics is None and every_size


def main(argv: Sequence[str] | None = None) -> int:
    """Measure one table (``seconds``, ``alone``, ``widths``; ``wide``: the wide codes' calls and their width factors)
    and print its run, or add it to the data file."""
    parser = argparse.ArgumentParser(prog="python -m harness.execution.cost_measurement", description=main.__doc__)
    parser.add_argument("mode", choices=tuple(MODES))
    parser.add_argument("--write", action="store_true", help="add the run to the data file (default: print it)")
    parser.add_argument("--file", type=Path, default=cost_records.DATA_FILE, help="the data file (default: the package's)")
    parser.add_argument("--metrics", type=_names, default=None,
                        help="only these metrics and variants (A,B; in 'seconds' their variants too); a metric of a "
                             "sharing family is then charged what it adds to the named ones")
    parser.add_argument("--sizes", type=_integers, default=SIZES,
                        help=f"sample sizes ('seconds', 'alone'; default {_listed(SIZES)}); with --write, a run of every "
                             "metric at every default size replaces its table, a run of fewer only the rows it measured")
    parser.add_argument("--population-sizes", type=_integers, default=POPULATION_SIZES, help="of the population metrics")
    parser.add_argument("--widths", type=_integers, default=None,
                        help=f"numbers of codes, the first the base ('widths': default {_listed(WIDTHS)}; "
                             f"'wide': {_listed(WIDE_WIDTHS)})")
    parser.add_argument("--n-samples", type=int, default=None,
                        help=f"sample size ('widths': default {WIDTH_SAMPLES}; 'wide': {WIDE_SAMPLES})")
    parser.add_argument("--repeats", type=int, default=3, help="calls per measurement; the median is kept")
    parser.add_argument("--data-dir", type=Path, default=WIDE_DATA_DIR,
                        help="'wide': where the draw is written once and memory-mapped, and the calls' log")
    parser.add_argument("--max-cpu-seconds", type=float, default=WIDE_CPU_SECONDS, help="'wide': CPU limit of a call")
    parser.add_argument("--max-memory-gib", type=float, default=WIDE_MEMORY_BYTES / 2**30,
                        help="'wide': limit of a call's own allocation above its inputs")
    args = parser.parse_args(argv)
    wide = args.mode == "wide"
    args.widths = args.widths or (WIDE_WIDTHS if wide else WIDTHS)
    args.n_samples = args.n_samples or (WIDE_SAMPLES if wide else WIDTH_SAMPLES)
    if args.mode == "seconds":
        runs = {"seconds": seconds_run(args.metrics, args.sizes, args.population_sizes, args.repeats)}
    elif args.mode == "alone":
        runs = {"alone_seconds": alone_run(args.metrics, args.sizes, args.repeats)}
    elif wide:
        runs = wide_main(args)
    else:
        runs = {"width_factors": widths_run(args.metrics, args.widths, args.n_samples, args.repeats)}
    for table, run in runs.items():
        if args.write:
            cost_records.add_run(table, run, args.file, whole=replaces_whole(table, args))
            print(f"{len(run['rows'])} rows of {table} written to {args.file}")
        else:
            json.dump(run, sys.stdout, indent=1)
            print()
    return 0


def _listed(values: Sequence[int]) -> str:
    return ",".join(map(str, values))


def _names(text: str) -> set[str]:
    return {name.strip() for name in text.split(",") if name.strip()}


def _integers(text: str) -> tuple[int, ...]:
    return tuple(int(value) for value in text.split(","))


if __name__ == "__main__":  # pragma: no cover - a measuring tool, run by hand
    sys.exit(main())
