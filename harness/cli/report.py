"""``python -m harness report DIR``: rebuild a run's report from its results table, running nothing."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_command(commands: argparse._SubParsersAction) -> None:
    """Register the ``report`` command."""
    parser = commands.add_parser(
        "report",
        help="regenerate the report of a run directory from its results, running nothing",
        description="Read DIR/results.parquet (or results.csv) and rewrite report.html, report.md, "
        "tables/*.csv, tables/*.tex and figures/*.png|svg in DIR. No metric is run.",
    )
    parser.add_argument("directory", type=Path, metavar="DIR", help="a run directory written by 'run'")
    parser.set_defaults(handler=report)


def report(args: argparse.Namespace) -> int:
    """Rewrite the report of ``args.directory``."""
    import reports
    from harness.workflows.run_results import load_run_results

    html = reports.write_report(load_run_results(args.directory), args.directory)
    print(f"report: {html}")
    return 0
