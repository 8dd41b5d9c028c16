"""``python -m harness estimators``: estimated vs exact mutual information on the Gaussian toy model."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli._args import at_least, csv_list, jobs, positive_int
from harness.outputs import writable_output


def _numbers(text: str) -> list[float]:
    """``"0,0.5"`` -> ``[0.0, 0.5]``: one or several numbers, as ``--sample-sizes`` and ``--grid`` take them."""
    try:
        return [float(item) + 0.0 for item in csv_list(text)]  # -0.0 is 0.0
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by spaces or commas, got {text!r}") from None


def _samples(text: str) -> int:
    """``--n``: a whole number of at least the toy-model comparison's minimum (one message for 0 and for 5)."""
    from harness.workflows.estimator_report import MIN_SAMPLES  # the command's module, loaded only when it is used

    return at_least(MIN_SAMPLES)(text)


def add_command(commands: argparse._SubParsersAction) -> None:
    """Register the ``estimators`` command."""
    from harness.execution.backends import BACKENDS

    parser = commands.add_parser(
        "estimators",
        help="compare the mutual-information estimators with the Gaussian toy model's exact values",
        description=(
            "Compare the mutual-information estimators of metrics.estimators with the exact values of the "
            "Gaussian toy model of Tokui and Sato (2022) under the redundancy and synergy attacks. "
            "Runs as a study (one variant of a probe metric per estimator) whose cells are kept in OUT/study, "
            "so a rerun into the same --out reuses the finished ones; each draw's seed derives from its cell's "
            "identity (scenario, seed index, --n), as in every study. "
            "Writes estimator_report.csv, estimator_report.png and estimator_report.svg into --out; the table's "
            "seconds are those of one probe call, covering all three quantities of an estimator."
        ),
    )
    parser.add_argument("--out", required=True, type=Path, help="output directory (created if missing)")
    parser.add_argument("--n", type=_samples, default=5000, help="samples per attack and alpha, at least 10 (default: %(default)s)")
    parser.add_argument("--seeds", type=positive_int, default=1,
                        help="independent draws per alpha; their seeds derive from each cell's identity, so there "
                        "is no root seed (default: %(default)s)")
    parser.add_argument("--alphas", type=_numbers, nargs="+", action="extend", metavar="ALPHA",
                        help="attack strengths, separated by spaces or commas (default: the toy model's grid)")
    parser.add_argument("--estimators", type=csv_list, nargs="+", action="extend", metavar="ESTIMATOR",
                        help="estimators to compare, separated by spaces or commas (default: all)")
    parser.add_argument("--factor", type=int, default=0, help="factor k (all give the same exact values; default: %(default)s)")
    parser.add_argument("--jobs", type=jobs, default=1,
                        help="parallel worker processes, -1 for all cores (default: %(default)s, so the timings "
                        "are not shared with other workers); estimates do not depend on it")
    parser.add_argument("--backend", choices=BACKENDS, default="loky", help="where cells run, as for 'run' (default: %(default)s)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar (on stderr)")
    parser.set_defaults(handler=estimators)


def estimators(args: argparse.Namespace) -> int:
    """Write the estimator report and print the largest errors."""
    from harness.workflows.estimator_report import SINGLE_COLUMN, write_estimator_report
    from metrics.estimators import ESTIMATORS
    from reports.estimators import error_summary

    table, written, notes = write_estimator_report(
        writable_output(args.out, "--out", directory=True), n=args.n, seeds=args.seeds,
        alphas=[alpha for group in args.alphas for alpha in group] if args.alphas else None,
        estimators=[name for group in args.estimators for name in group] if args.estimators else ESTIMATORS,
        factor=args.factor,
        jobs=args.jobs, backend=args.backend, progress=not args.no_progress,
    )
    over = "attacks, alphas and draws" if args.seeds > 1 else "attacks and alphas"  # any draw's, not the mean's
    print(f"largest |estimate - exact| (nats) over {over}:")
    print(error_summary(table, SINGLE_COLUMN).to_string())
    for note in notes:
        print(f"note: {note}")
    for path in written:
        print(f"wrote {path}")
    return 0
