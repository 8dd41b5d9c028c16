"""``python -m harness stress``: where a metric departs most from its ideal (:mod:`harness.workflows.stress`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.cli._args import at_least, csv_list, fraction, jobs, non_negative_int, positive_float, positive_int
from harness.outputs import writable_output

EXIT_FAILED_CELLS = 1
"""The search finished and wrote its outputs, but cells of the stressed metric failed (see OUT/search/failures.csv)."""


def _sample_sizes(text: str) -> list[int]:
    """``"250,1000"`` -> ``[250, 1000]``: whole numbers >= 1."""
    if not text.strip(" ,"):  # csv_list's message spoke of names
        raise argparse.ArgumentTypeError("expected comma-separated sample sizes such as 300,1000, got none")
    return [positive_int(item) for item in csv_list(text)]


def add_command(commands: argparse._SubParsersAction) -> None:
    """Register the ``stress`` command."""
    from harness.execution.backends import BACKENDS
    from harness.workflows.stress_defaults import (
        DEFAULT_BUDGET,
        DEFAULT_MAX_SEEDS,
        DEFAULT_MIN_DEPARTURE,
        DEFAULT_SAMPLE_SIZES,
        DEFAULT_SEEDS,
        DEFAULT_TOP,
        MIN_SEEDS,
    )

    parser = commands.add_parser(
        "stress",
        help="break a metric: search the scenarios for where its score departs most from the ideal",
        description=(
            "Search the representations the scenarios build (scenario, parameter value within its valid range, "
            "sample size) for those where METRIC's score departs most from the scenario's ideal for the property "
            "it claims, over-scoring a worse code or under-scoring a better one. Each scenario gets --budget cells: "
            "half explore (the range's ends, then a Latin hypercube), half refine the most promising points "
            "(bounded Brent search). Every point is scored on --seeds draws; a candidate case is a departure beyond "
            "its seed spread (95% interval over seeds) of at least --min-departure, and it is kept only when as many "
            "fresh draws, never read by the search, confirm it (the same direction, at least --min-departure, an "
            "interval excluding 0 with the 5% error rate split over the candidates). Writes into --out: "
            "stress.md, stress.json, measurements.csv, figures/worst_case.png and .svg, and the run store search/ "
            "(rerunning the same command reuses its cells). Each case comes with the 'run --grid' command line "
            "that reproduces its scores exactly. Exit status 1 when cells of METRIC failed (raised or timed out: listed "
            "in stress.md's notes and search/failures.csv), as for 'run'."
        ),
    )
    parser.add_argument("metric", metavar="METRIC",
                        help="a registered metric (or its variant as the results name it, mig[bins=5]), or "
                        "package.module:function / path/to/file.py:function")
    parser.add_argument("--scenarios", type=csv_list,
                        help="comma-separated scenarios to search, composed ('T@BASE=V') and your own "
                        "(FILE.py:NAME) included; 'T@BASE' (the base's value left free) searches one scenario per value of the "
                        "base's grid, T's parameter by the search (default: every registered representation scenario "
                        "but sample_size)")
    parser.add_argument("--budget", type=positive_int, default=DEFAULT_BUDGET, metavar="CELLS",
                        help="cells of METRIC per scenario searched (default: %(default)s)")
    parser.add_argument("--budget-seconds", type=positive_float, metavar="SECONDS",
                        help="also stop the search after this many seconds (it is then not reproducible); the "
                        "contrast of the cases found then runs to its end")
    parser.add_argument("--seeds", type=at_least(MIN_SEEDS),
                        help=f"draws of every point, at least {MIN_SEEDS} (default: {DEFAULT_SEEDS}); alone, the same for "
                        "every point (no race)")
    parser.add_argument("--max-seeds", type=at_least(MIN_SEEDS), metavar="M",
                        help="race the seeds: the candidate cases whose departure is still within its seed spread are "
                        "measured again on twice the seeds, up to M, with intervals widened for the repeated looks "
                        f"(default: {DEFAULT_MAX_SEEDS} unless --seeds is given)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="seed of the search (default: %(default)s)")
    parser.add_argument("--sample-sizes", type=_sample_sizes, default=list(DEFAULT_SAMPLE_SIZES),
                        metavar="N1,N2,...",
                        help=f"sample sizes searched (default: {','.join(map(str, DEFAULT_SAMPLE_SIZES))})")
    parser.add_argument("--min-departure", type=fraction, default=DEFAULT_MIN_DEPARTURE,
                        help="smallest departure reported (default: %(default)s)")
    parser.add_argument("--top", type=positive_int, default=DEFAULT_TOP,
                        help="cases reported in each direction, over- and under-scoring (default: %(default)s)")
    contrast = parser.add_mutually_exclusive_group()
    contrast.add_argument("--contrast", type=csv_list,
                          help="built-in metrics scored on the cases' data (default: every built-in but dci_gbt)")
    contrast.add_argument("--no-contrast", action="store_true", help="score no built-in on the cases' data")
    parser.add_argument("--out", type=Path, help="output directory (default: stress/METRIC)")
    parser.add_argument("--jobs", type=jobs, default=-1,
                        help="parallel worker processes, -1 for all cores (default: %(default)s); scores do not "
                        "depend on it")
    parser.add_argument("--backend", choices=BACKENDS, default="loky",
                        help="where cells run, as for 'run' (default: %(default)s)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="address of a running Dask scheduler (with --backend dask)")
    parser.add_argument("--cell-timeout", type=positive_float, metavar="SECONDS",
                        help="stop a metric call that runs longer than this and record its cell as failed")
    parser.add_argument("--no-progress", action="store_true",
                        help="hide the progress bars (the search's cells, then the contrast's)")
    parser.set_defaults(handler=_stress)


def _status(line: str) -> None:
    """A status line goes to stderr, above the progress bars, so that stdout is the cases' Markdown alone."""
    from tqdm.auto import tqdm

    tqdm.write(line, file=sys.stderr)


def _stress(args: argparse.Namespace) -> int:
    from harness.execution.metric_refs import resolve
    from harness.workflows.stress import SEARCH_DIR, stress
    from harness.workflows.stress_defaults import DEFAULT_MAX_SEEDS, DEFAULT_SEEDS
    from reports.stress import FIGURE_KEY, MARKDOWN

    out = writable_output(args.out or Path("stress") / resolve(args.metric).name, "--out", directory=True)
    result = stress(
        args.metric,
        scenarios_=args.scenarios,
        budget=args.budget,
        budget_seconds=args.budget_seconds,
        seeds=DEFAULT_SEEDS if args.seeds is None else args.seeds,
        max_seeds=args.max_seeds if args.max_seeds is not None else DEFAULT_MAX_SEEDS if args.seeds is None else None,
        seed=args.seed,
        sample_sizes=args.sample_sizes,
        min_departure=args.min_departure,
        top=args.top,
        contrast=[] if args.no_contrast else args.contrast,
        out=out,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        cell_timeout=args.cell_timeout,
        progress=not args.no_progress,
        log=_status,
    )
    print((Path(out) / MARKDOWN).read_text(), end="")
    figure = f", figures/{FIGURE_KEY}.png and .svg" if result.cases else ""
    print(f"written to {out}: stress.md, stress.json, measurements.csv{figure}")
    if result.failed:  # as `run` and `validate` do: a failing metric must not read as one that held up
        print(f"{result.failed} of {result.cells} cell(s) of {result.entry.name} failed (see "
              f"{Path(out) / SEARCH_DIR / 'failures.csv'}): exit status {EXIT_FAILED_CELLS}", file=sys.stderr)
        return EXIT_FAILED_CELLS
    return 0
