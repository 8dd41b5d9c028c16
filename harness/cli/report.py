"""``python -m harness report DIR``: rebuild a run's report from its results table, running nothing."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from harness.cli._args import COLOURS_HELP, FIGURE_FORMATS_HELP, REPORT_IMPORTS, colours, csv_list, figure_formats, jobs
from harness.errors import UsageError

if TYPE_CHECKING:  # annotations only: pandas is imported where the report is drawn
    import pandas as pd


def add_command(commands: argparse._SubParsersAction) -> None:
    """Register the ``report`` command."""
    parser = commands.add_parser(
        "report",
        help="regenerate the report of a run directory from its results, running nothing",
        description="Read DIR/results.parquet (or results.csv) and rewrite report.html, report.md, "
        "tables/*.csv, tables/*.tex and figures/*.png (with --figure-formats, also .svg or .pdf) in DIR, or in --out. With --metrics or --scenarios, "
        "the report of those rows alone (written, with their results table, into --out). No metric is run.",
    )
    parser.add_argument("directory", type=Path, metavar="DIR", help="a run directory written by 'run' or 'validate'")
    parser.add_argument("--metrics", type=csv_list,
                        help="comma-separated metrics to report (default: all in the results); a metric's own name "
                        "takes every variant of its option sweeps (mig: mig[bins=5], mig[bins=10], ...)")
    parser.add_argument("--scenarios", type=csv_list,
                        help="comma-separated scenarios to report (default: all in the results), as the results name "
                        "them or as given to 'run --scenarios'")
    parser.add_argument("--out", type=Path,
                        help="directory of the report (default: DIR; needed with --metrics or --scenarios, so that a "
                        "subset's report never replaces the full one)")
    parser.add_argument("--force", action="store_true",
                        help="write into an --out that holds another run (its cells.jsonl) or, for the full report, "
                        "results of its own (default: refuse, exit 2: its results table, or the report of its results, "
                        "would be replaced)")
    parser.add_argument("--jobs", type=jobs, default=-1,
                        help="worker processes drawing the figures, -1 for all cores, or none where a few small "
                        "figures would not repay starting them (default: %(default)s); the files do not depend on it")
    parser.add_argument("--figure-formats", type=figure_formats, metavar="png,svg,pdf", help=FIGURE_FORMATS_HELP)
    parser.add_argument("--colors", type=colours, metavar="METRIC=COLOUR,...|FILE", help=COLOURS_HELP)
    parser.set_defaults(handler=report)


def report(args: argparse.Namespace) -> int:
    """Rewrite the report of ``args.directory`` (or write that of a subset of it into ``args.out``)."""
    subset = args.metrics is not None or args.scenarios is not None
    if subset and (args.out is None or args.out.resolve() == args.directory.resolve()):
        raise UsageError("--metrics and --scenarios make the report of a subset: name another directory with --out "
                         f"(it would replace the full report and results in {args.directory})")
    if args.out is not None and args.out.resolve() != args.directory.resolve() and not args.force:
        _refuse_another_run(args.out, subset)
    import reports
    from harness.execution.backends import figure_jobs, report_workers
    from harness.execution.store import ResultStore
    from harness.outputs import writable_output
    from harness.workflows.run_results import load_run_failures, load_run_results, select_results
    from reports.rendering.comparison import FigureRequestError

    # the results first, then the workers: a wrong name or a directory without results is said at once, not after
    # the workers' imports (about 3 s), and a report of a few small figures starts none (figure_jobs)
    results, failures = load_run_results(args.directory), load_run_failures(args.directory)
    colours = args.colors
    if subset:
        whole = results
        results = select_results(results, metrics=args.metrics, scenarios=args.scenarios)
        failures = _failures_of(failures, results, args.metrics, args.scenarios)
        colours = _colours_of_the_run(whole, results, args.colors)
    out = writable_output(args.out, "--out", directory=True) if args.out is not None else args.directory
    if subset:  # the subset's own results table, so that OUT is a run directory 'report' and 'plot' read
        ResultStore(out).write_tables(results)
    jobs = figure_jobs(results, args.jobs)
    with report_workers(jobs, REPORT_IMPORTS):
        try:
            html = reports.write_report(results, out, jobs=jobs, figure_formats=args.figure_formats,
                                        colours=colours, failures=failures)
        except FigureRequestError as error:  # colours naming no metric, refused before anything is written
            raise UsageError(str(error)) from None
    print(f"report: {html}")
    return 0


def _colours_of_the_run(whole: pd.DataFrame, subset: pd.DataFrame, colours: dict[str, str] | None) -> dict[str, str]:
    """The colour of each metric of a subset's report: the whole run's (its report's and ``plot``'s, ``colours``
    applied), so that a paper's figures drawn from the subset match the run's; a subset coloured on its own drew MIG
    in another colour."""
    from reports.rendering.comparison import FigureRequestError, run_colours

    try:
        run = run_colours(whole, colours)
    except FigureRequestError as error:  # colours naming no metric
        raise UsageError(str(error)) from None
    return {metric: run[metric] for metric in subset["metric_base"].unique() if metric in run}


def _refuse_another_run(out: Path, subset: bool) -> None:
    """Refuse an ``--out`` holding another run: its store (``cells.jsonl``), whose results table a subset's would
    replace; for the full report, also results of its own, whose report this one would replace (a subset's
    ``--out`` holding results and no store is that subset's earlier report, rewritten)."""
    from harness.execution.store import CELLS_FILE, RESULTS_CSV, RESULTS_PARQUET

    held = [name for name in (CELLS_FILE, *(() if subset else (RESULTS_PARQUET, RESULTS_CSV))) if (out / name).is_file()]
    if held:
        replaced = "its results table" if subset else "the report of its results"
        raise UsageError(f"--out {str(out)!r} holds another run ({held[0]}): {replaced} would be replaced; name a new "
                         "directory, or pass --force")


def _failures_of(failures: pd.DataFrame, results: pd.DataFrame, metrics: Sequence[str] | None,
                 scenarios: Sequence[str] | None) -> pd.DataFrame:
    """The failed cells of a subset's report: those of its scenarios (``scenarios``, None for all) and of its metrics
    (those of its results, and the names ``metrics`` gives: a metric whose every cell failed has no result)."""
    keep = failures["metric"].isin(set(results["metric"]) | set(metrics or ()))
    if scenarios is not None:
        keep &= failures["scenario"].isin(set(results["scenario"]) | set(scenarios))
    return failures.loc[keep]

