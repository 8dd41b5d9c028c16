"""``python -m harness plot``: a comparison figure from an existing run (drawn by :func:`reports.plot_comparison`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.errors import UsageError, did_you_mean

FORMATS = ("png", "svg", "pdf")


def add_command(commands: argparse._SubParsersAction) -> None:
    """Add ``plot`` to the command line."""
    from harness.cli._args import csv_list

    parser = commands.add_parser(
        "plot",
        help="draw chosen metrics on chosen scenarios from an existing run (no metric is run)",
        description="Read RUN_DIR/results.parquet (or results.csv) and draw one figure comparing --metrics on "
        "--scenarios: one panel per scenario, the mean score over seeds against the swept parameter with a band "
        "of one standard deviation, and the ideal trajectory. Nothing is recomputed.",
    )
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory written by 'run' or 'validate'")
    parser.add_argument("--metrics", type=csv_list, help="comma-separated metrics to draw (default: all in the run)")
    parser.add_argument("--scenarios", type=csv_list, help="comma-separated scenarios to draw, one panel each in this order (default: all in the run, "
                        "sorted); a composed or user scenario as the results name it or as given to 'run --scenarios'")
    parser.add_argument("--format", choices=FORMATS, help="figure format (default: from --out's suffix, else png)")
    parser.add_argument("--out", type=Path, help="figure file (default: RUN_DIR/comparison.FORMAT)")
    parser.set_defaults(handler=_plot)


def _plot(args: argparse.Namespace) -> int:
    import reports
    from harness.outputs import writable_output
    from harness.workflows.run_results import load_run_results

    suffix = args.out.suffix.lower().lstrip(".") if args.out is not None else ""
    if args.format is None and args.out is not None and suffix not in FORMATS:
        raise UsageError(f"cannot tell the format of {str(args.out)!r}: end it in .png, .svg or .pdf, or pass --format")
    if args.format is not None and suffix in FORMATS and suffix != args.format:
        raise UsageError(f"--format {args.format} contradicts --out {str(args.out)!r}: a {args.format.upper()} file "
                         f"would be named .{suffix}; change one of them")
    fmt = args.format or suffix or "png"
    out = writable_output(args.out, "--out") if args.out is not None else args.run_dir / f"comparison.{fmt}"
    results = load_run_results(args.run_dir)
    scenarios = _as_written(args.scenarios, set(results["scenario"])) if args.scenarios is not None else None
    for column, requested in (("metric", args.metrics), ("scenario", scenarios)):
        known = sorted(results[column].unique())
        unknown = sorted(set(requested or ()) - set(known))
        if unknown:
            raise UsageError(f"unknown {column}(s) {unknown}{did_you_mean(unknown, known)}; the results have {known}")
    path = reports.plot_comparison(results, metrics=args.metrics, scenarios=scenarios, out_file=out, format=fmt)
    print(f"figure written to {path}")
    return 0


def _as_written(requested: list[str], known: set[str]) -> list[str]:
    """Each requested scenario as the results name it, where it is a reference ``run`` accepts for one of them.

    ``run --scenarios`` takes ``redundancy_attack@noise=.1`` and ``nonlinear@my_file.py:leaky=0.25`` and writes
    their rows as ``redundancy_attack@noise=0.1`` and ``nonlinear@leaky=0.25``; ``plot`` takes the same
    spellings.  A name the results hold, or a reference that does not resolve, is kept as given (and
    reported as unknown with the closest names when the results lack it).
    """
    from harness.execution.scenario_refs import scenario_for

    written = []
    for name in requested:
        if name not in known:
            try:
                name = scenario_for(name).name
            except UsageError:  # an unknown name among them
                pass
        written.append(name)
    return written
