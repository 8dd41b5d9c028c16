"""``python -m harness report DIR``: rebuild a run's report from its results table, running nothing."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli._args import jobs


def add_command(commands: argparse._SubParsersAction) -> None:
    """Register the ``report`` command."""
    parser = commands.add_parser(
        "report",
        help="regenerate the report of a run directory from its results, running nothing",
        description="Read DIR/results.parquet (or results.csv) and rewrite report.html, report.md, "
        "tables/*.csv, tables/*.tex and figures/*.png|svg in DIR. No metric is run.",
    )
    parser.add_argument("directory", type=Path, metavar="DIR", help="a run directory written by 'run'")
    parser.add_argument("--jobs", type=jobs, default=-1,
                        help="worker processes drawing the figures, -1 for all cores (default: %(default)s); "
                        "the files do not depend on it")
    parser.set_defaults(handler=report)


def report(args: argparse.Namespace) -> int:
    """Rewrite the report of ``args.directory``."""
    import reports
    from harness.workflows.run_results import load_run_results

    html = reports.write_report(load_run_results(args.directory), args.directory, jobs=args.jobs)
    print(f"report: {html}")
    return 0
