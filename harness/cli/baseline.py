"""``python -m harness baseline save|check``: freeze metric behaviour, detect drift (see :mod:`harness.workflows.baseline`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from harness.cli._args import csv_list, non_negative_float, non_negative_int
from harness.outputs import writable_output

EXIT_DRIFT = 1


def _metric_tolerance(text: str) -> tuple[str, tuple[float, float]]:
    metric, sep, numbers = text.partition("=")
    parts = numbers.split(",")
    if not sep or not metric.strip() or not 1 <= len(parts) <= 2:
        raise argparse.ArgumentTypeError(f"expected METRIC=ATOL or METRIC=ATOL,RTOL such as mig=1e-3,0.01; got {text!r}")
    atol = non_negative_float(parts[0])
    rtol = non_negative_float(parts[1]) if len(parts) == 2 else 0.0
    return metric.strip(), (atol, rtol)


def add_command(commands: argparse._SubParsersAction) -> None:
    """Add ``baseline save`` and ``baseline check`` to the command line."""
    from harness.workflows.baseline_format import DEFAULT_ATOL, DEFAULT_MAX_ROWS, DEFAULT_RTOL

    baseline = commands.add_parser(
        "baseline",
        help="save a run's scores as a baseline, or check a run against one",
        description="Regression-test metric behaviour. 'save' writes a human-readable JSON baseline of a run "
        "(per-cell mean score over seeds, spread, seed count, the harness and metric versions, and the environment: "
        "the git commit of the harness's checkout when there is one, Python's and the numerical libraries' "
        "versions). 'check' compares a run with a baseline and exits with status 1, printing the drifted cells, "
        "when a cell's mean moves by more than ATOL + RTOL * |baseline|; 0 otherwise.",
    )
    actions = baseline.add_subparsers(dest="action", metavar="ACTION", parser_class=type(baseline))
    actions.required = True
    save = actions.add_parser("save", help="write the baseline of a run directory",
                              description="Write the baseline of RUN_DIR (its results.parquet or results.csv) to --to; "
                              "an existing file is kept unless --force.")
    save.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory written by 'run' or 'validate'")
    save.add_argument("--to", type=Path, required=True, metavar="FILE", help="baseline file to write (JSON)")
    save.add_argument("--force", action="store_true", help="overwrite --to when it exists (default: refuse, exit 2)")
    save.set_defaults(handler=_save)
    check = actions.add_parser(
        "check",
        help="compare a run directory with a baseline (exit 1 on drift)",
        description="Compare RUN_DIR with the baseline --against, cell by cell. Exit status 0 when every cell is "
        "within tolerance, 1 when a cell drifted, a baseline cell failed in the run (its metric raised, for some "
        "seed) or a baseline cell is missing from the run (then a line per "
        "failing metric, with its number of drifted cells and its largest drift, and the failing cells, largest "
        "change first, are printed) or when every cell of the run failed (then its first error is printed), 2 for "
        "bad input. A note names what differs between the environment the baseline was saved in and this one "
        "(harness version, git commit, library versions).",
    )
    check.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory written by 'run' or 'validate'")
    check.add_argument("--against", type=Path, required=True, metavar="FILE", help="baseline file written by 'baseline save'")
    check.add_argument("--atol", type=non_negative_float, default=DEFAULT_ATOL, help="absolute tolerance (default: %(default)g)")
    check.add_argument("--rtol", type=non_negative_float, default=DEFAULT_RTOL, help="relative tolerance (default: %(default)g)")
    check.add_argument("--metric-tolerance", type=_metric_tolerance, action="append", default=[], metavar="METRIC=ATOL[,RTOL]",
                       help="tolerance of one metric, overriding --atol/--rtol (repeatable)")
    check.add_argument("--sigmas", type=non_negative_float, default=0.0, metavar="K",
                       help="also tolerate K times each cell's seed-to-seed standard deviation in the baseline, so that a "
                       "change within the scores' own spread over seeds passes (default: %(default)g: a rerun reproduces "
                       "scores bit for bit)")
    check.add_argument("--metrics", type=csv_list, help="compare only these metrics (default: all)")
    check.add_argument("--allow-missing", action="store_true",
                       help="do not fail on baseline cells absent from the run (e.g. a run of fewer scenarios); a "
                       "baseline cell on which the run's metric raised fails all the same (leave its metric out with "
                       "--metrics)")
    check.add_argument("--match-options", action="store_true",
                       help="compare a metric of the baseline with the one of the same base the run has with other "
                       "options instead (mig against mig[bins=20]), cell by cell, naming the options that changed "
                       "(default: their cells read 'option changed' and fail the check unless --allow-missing)")
    check.add_argument("--max-rows", type=non_negative_int, default=DEFAULT_MAX_ROWS, metavar="N",
                       help="failing cells printed before the rest are folded into a count (default: %(default)s; "
                       "0: every one)")
    check.add_argument("--format", choices=("text", "json"), default="text",
                       help="'json' prints the check as one JSON object (passed, summary, metrics, notes and every "
                       "failing cell, numbers as numbers) instead of text (default: %(default)s)")
    check.set_defaults(handler=_check)


def _save(args: argparse.Namespace) -> int:
    from harness.execution.store import FAILURES_CSV
    from harness.workflows.baseline import load_baseline, save_baseline

    path = save_baseline(args.run_dir, writable_output(args.to, "--to"), force=args.force)
    print(f"baseline of {args.run_dir} written to {path}")
    failures = load_baseline(path).failures
    if not failures.empty:
        print(f"note: the run raised on {len(failures)} seed(s) of its cells ({FAILURES_CSV}); the baseline records them, "
              "and its means leave them out: a check fails where a seed that scored raises, not where these do again")
    return 0


def _check(args: argparse.Namespace) -> int:
    from harness.workflows.baseline import check_baseline

    result = check_baseline(
        args.run_dir,
        args.against,
        atol=args.atol,
        rtol=args.rtol,
        per_metric=dict(args.metric_tolerance),
        sigmas=args.sigmas,
        metrics=args.metrics,
        allow_missing=args.allow_missing,
        match_options=args.match_options,
    )
    print(json.dumps(result.to_dict(), indent=1, allow_nan=False) if args.format == "json" else result.report(args.max_rows))
    return 0 if result.passed else EXIT_DRIFT
