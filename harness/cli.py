"""The command line: ``python -m harness COMMAND``.

Every command has ``--help``.  Errors in what the user typed or supplied (unknown
names, bad values, missing files) print one line and exit with status 2, without a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Sequence

import metrics
import scenarios
from harness import cli_baseline, cli_evaluate, cli_plot, cli_validate
from harness.presets import PRESETS

EXIT_USAGE = 2
EXIT_FAILED_CELLS = 1
"""``run`` finished and wrote its results, but some cells failed (see DIR/failures.csv)."""


class UsageError(Exception):
    """A problem with the user's input, reported in one line with exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def _csv_list(text: str) -> list[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list of names")
    return items


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of workers, got {text!r}") from None
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(f"expected a number of workers >= 1, or -1 for all cores; got {value}")
    return value


def _add_run(commands: argparse._SubParsersAction) -> None:
    from harness.backends import BACKENDS

    presets = "; ".join(f"{p.name}: {p.description}" for p in PRESETS.values())
    run = commands.add_parser(
        "run",
        help="run a study and write its results, figures and report",
        description=(
            "Run every selected metric on every selected scenario (each parameter value x seed), "
            "write the tidy results table (results.parquet and results.csv) into --out, then the report "
            "(report.html, report.md, tables/, figures/). Finished cells already in --out are reused, so an "
            "interrupted run resumes where it stopped. A metric that fails on some representation does not stop "
            "the study: its cells are listed in failures.csv and the command exits with status 1. "
            f"Presets: {presets}."
        ),
    )
    run.add_argument("--preset", choices=sorted(PRESETS), default="default", help="study preset (default: %(default)s)")
    run.add_argument("--scenarios", type=_csv_list, help="comma-separated scenario names (default: the preset's)")
    run.add_argument(
        "--metrics",
        type=_csv_list,
        help="comma-separated metric names, or module:function / file.py:function for your own (default: the preset's)",
    )
    run.add_argument("--seeds", type=_positive_int, help="independent draws per parameter value (default: the preset's)")
    run.add_argument("--n-samples", type=_positive_int, help="samples per representation (default: the preset's)")
    run.add_argument("--jobs", type=_jobs, default=-1, help="parallel worker processes, -1 for all cores (default: %(default)s); scores do not depend on it")
    run.add_argument(
        "--backend",
        choices=BACKENDS,
        default="loky",
        help="where cells run: loky (local worker processes), threading, sequential, or dask (a Dask cluster: "
        "--scheduler's, or a local one of --jobs workers) (default: %(default)s); scores do not depend on it",
    )
    run.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="address of a running Dask scheduler, e.g. tcp://10.0.0.5:8786 (with --backend dask; its workers need "
        "this package installed)",
    )
    run.add_argument("--out", type=Path, help="run directory (default: runs/PRESET)")
    run.add_argument("--no-report", action="store_true", help="write the results table only, no figures or report")
    run.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    run.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from harness.runner import run_study

    if args.scheduler is not None and args.backend != "dask":
        raise UsageError(f"--scheduler is only used with --backend dask, not --backend {args.backend}")
    out = args.out or Path("runs") / args.preset
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a directory")
    frame = run_study(
        preset=args.preset,
        scenarios_=args.scenarios,
        metrics_=args.metrics,
        seeds=args.seeds,
        n_samples=args.n_samples,
        out=out,
        jobs=args.jobs,
        backend=args.backend,
        scheduler=args.scheduler,
        progress=not args.no_progress,
        log=_status,
    )
    print(f"{len(frame)} result rows written to {out / 'results.parquet'} and {out / 'results.csv'}")
    if not args.no_report:
        import reports

        html = reports.write_report(frame, out)
        print(f"report: {html} (also report.md, tables/, figures/)")
    return EXIT_FAILED_CELLS if frame.attrs.get("failures") else 0


def _status(message: str) -> None:
    """Status lines go to stdout, warnings (failed cells) to stderr."""
    print(message, file=sys.stderr if message.startswith("warning:") else sys.stdout)


def _add_list(commands: argparse._SubParsersAction) -> None:
    listing = commands.add_parser(
        "list",
        help="list the metrics and scenarios with their metadata",
        description="Print every registered metric (family, sub-scores and the property each measures, "
        "direction, stochasticity, discrete factors, default options) and every scenario (swept parameter, "
        "default grid, source).",
    )
    listing.set_defaults(handler=_list)


def _list(args: argparse.Namespace) -> int:
    print("METRICS")
    for name in metrics.available(population=None):
        spec = metrics.get(name)
        subs = ", ".join(f"{sub}->{prop}" for sub, prop in spec.properties.items())
        flags = [
            "higher is better" if spec.higher_is_better else "lower is better",
            *(f"{sub}: {'higher' if up else 'lower'} is better" for sub, up in spec.directions.items() if up != spec.higher_is_better),
            "stochastic" if spec.stochastic else "deterministic",
        ]
        if spec.needs_discrete_factors:
            flags.append("bins continuous factors")
        if spec.population:
            flags.append("population metric")
        options = ", ".join(f"{k}={v!r}" for k, v in spec.defaults.items()) or "none"
        print(f"  {name:<14} [{spec.family}] {subs}")
        print(f"  {'':<14} {'; '.join(flags)}; options: {options}")
        if spec.summary:
            print(f"  {'':<14} {spec.summary}")
    print()
    print("SCENARIOS")
    for name in scenarios.available():
        scenario = scenarios.get(name)
        grid = ", ".join(scenario.label(v) for v in scenario.values)
        print(f"  {name:<20} {scenario.parameter} in {{{grid}}}")
        print(f"  {'':<20} {scenario.summary} ({scenario.source})")
    return 0


def _add_report(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser(
        "report",
        help="regenerate the report of a run directory from its results, running nothing",
        description="Read DIR/results.parquet (or results.csv) and rewrite report.html, report.md, "
        "tables/*.csv, tables/*.tex and figures/*.png|svg in DIR. No metric is run.",
    )
    report.add_argument("directory", type=Path, metavar="DIR", help="a run directory written by 'run'")
    report.set_defaults(handler=_report)


def _report(args: argparse.Namespace) -> int:
    import reports

    html = reports.write_report(reports.load_results(args.directory), args.directory)
    print(f"report: {html}")
    return 0


COMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_run, _add_list, _add_report, cli_validate.add_command, cli_baseline.add_command, cli_evaluate.add_command,
    cli_plot.add_command,
]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    parser = _Parser(
        prog="python -m harness",
        description="A benchmark harness for disentanglement metrics: scenarios with exactly known properties, "
        "every metric, and reports of calibration, linearity, robustness and cost.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for add in COMMANDS:
        add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return args.handler(args)
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, KeyError, FileNotFoundError, PermissionError, IsADirectoryError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        print(f"error: {' '.join(str(message).split())}", file=sys.stderr)  # always one line
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted; finished cells are saved, rerun the same command to resume", file=sys.stderr)
        return 130
