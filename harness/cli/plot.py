"""``python -m harness plot``: a comparison figure from an existing run (drawn by :func:`reports.plot_comparison`)."""

from __future__ import annotations

import argparse
import json
import re
import sys
import warnings
from pathlib import Path

from harness.errors import UsageError, did_you_mean

FORMATS = ("png", "svg", "pdf")
#: Named widths, in inches (those of :data:`reports.rendering.comparison.WIDTHS`, written here so that --help stays light).
WIDTHS = {"column": 3.25, "page": 6.75}
LAYOUTS = ("rows", "columns", "grid")
BANDS = ("ci95", "sd", "none")
#: What a phase diagram's cell shows (those of :data:`reports.analyses.phase.VALUES`).
PHASE_VALUES = ("score", "distance")
#: The widths and font sizes a figure may have, in inches and points (those of :data:`reports.rendering.comparison.WIDTH_RANGE`
#: and :data:`reports.rendering.comparison.FONT_SIZE_RANGE`): checked as the command line is read, never inside the layout code.
WIDTH_RANGE = (1.0, 16.5)
FONT_SIZE_RANGE = (4.0, 24.0)


def add_command(commands: argparse._SubParsersAction) -> None:
    """Add ``plot`` to the command line."""
    from harness.cli._args import COLOURS_HELP, colours, csv_list, positive_int

    parser = commands.add_parser(
        "plot",
        help="draw chosen metrics on chosen scenarios from an existing run (no metric is run)",
        description="Read RUN_DIR/results.parquet (or results.csv) and draw one figure comparing --metrics on "
        "--scenarios: one panel per scenario, the mean score over seeds against the swept parameter with a band "
        "(by default the 95% Student-t interval of the mean over seeds, named in the legend), and the ideal "
        "trajectories (wide grey lines, tagged M, C, E, H by property). Every metric has the colour the run's report "
        "gives it (or --colors), the same in every plot of the run; every line of a panel has its own marker, and lines "
        "of close colours their own line styles. PDFs embed TrueType (Type 42) fonts. Nothing is recomputed.",
    )
    parser.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run directory written by 'run' or 'validate'")
    parser.add_argument("--metrics", type=csv_list, help="comma-separated metrics to draw, each with all its sub-scores, "
                        "or one sub-score as METRIC/SUB_SCORE (dci_lasso/compactness); a swept metric's own name draws "
                        "its variant at the default options, as the report does (mig: mig[bins=10]), a variant's name "
                        "as the results write it that variant (mig[bins=5]) (default: all in the run)")
    parser.add_argument("--scenarios", type=csv_list, help="comma-separated scenarios to draw, one panel each in this order (default: all in the run, "
                        "sorted); a composed or user scenario as the results name it or as given to 'run --scenarios'")
    parser.add_argument("--format", choices=FORMATS, help="figure format (default: from --out's suffix, else png)")
    parser.add_argument("--out", type=Path, help="figure file (default: RUN_DIR/comparison.FORMAT)")
    parser.add_argument("--width", type=_width, default="page", metavar="column|page|INCHES",
                        help="figure width: a column of a two-column paper (3.25 in), a page's text block (6.75 in), "
                        f"or inches from {WIDTH_RANGE[0]:g} to {WIDTH_RANGE[1]:g} (default: page)")
    parser.add_argument("--layout", choices=LAYOUTS,
                        help="panels one per row, all in one row, or in a near-square grid (default: rows; not with "
                        "--phase)")
    parser.add_argument("--ncols", type=positive_int, help="panels per row (overrides --layout)")
    parser.add_argument("--font-size", type=_font_size, default=7.0, metavar="POINTS",
                        help=f"font size of labels and titles, from {FONT_SIZE_RANGE[0]:g} to {FONT_SIZE_RANGE[1]:g} "
                        "points; ticks and legend one point less, lines, markers and the ideal widened in proportion (default: 7)")
    parser.add_argument("--rename", type=_renames, metavar="OLD=NEW,...",
                        help="labels to show instead of the results' names: a metric, a sub-score, a line "
                        "(dci_lasso/compactness), a scenario, a parameter or a property, e.g. "
                        "'dci_lasso=DCI,mig[bins=10]=MIG'; each pair splits at its last '=' outside brackets (a new "
                        "label holding ',' or '=' goes in --rename-file)")
    parser.add_argument("--rename-file", type=Path, metavar="FILE.json",
                        help="the same as a JSON object {\"old\": \"new\", ...}; --rename wins where both name a label")
    parser.add_argument("--panel-letters", action="store_true", help="prefix each panel's title with (a), (b), ...")
    parser.add_argument("--phase", metavar="SWEEP",
                        help="draw the phase diagrams of a two-parameter sweep instead (its name as the results' sweep "
                        "column holds it, e.g. dense_mixing@equicorrelated or null_gaussian): one heat map per "
                        "sub-score of --metrics over both parameters, one colour scale, the ideal's contours where it "
                        "varies; --width, --ncols, --font-size, --rename and --panel-letters apply, --scenarios, "
                        "--layout, --band and --colors do not")
    parser.add_argument("--phase-value", choices=PHASE_VALUES,
                        help="with --phase: colour each cell by the mean score, or by its distance |score - ideal| to "
                        "the ideal (default: score)")
    parser.add_argument("--band", choices=BANDS,
                        help="band around each mean: the 95%% Student-t interval of the mean over seeds, one standard "
                        "deviation over seeds, or none (default: ci95; not with --phase)")
    parser.add_argument("--colors", type=colours, metavar="METRIC=COLOUR,...|FILE", help=COLOURS_HELP)
    parser.set_defaults(handler=_plot)


def _width(text: str) -> float:
    """``column``, ``page`` or a number of inches in :data:`WIDTH_RANGE`."""
    if text in WIDTHS:
        return WIDTHS[text]
    try:
        inches = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected column, page or a width in inches, got {text!r}") from None
    return _within(inches, text, WIDTH_RANGE, "a width in inches")


def _font_size(text: str) -> float:
    """A number of points in :data:`FONT_SIZE_RANGE`."""
    try:
        points = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a font size in points, got {text!r}") from None
    return _within(points, text, FONT_SIZE_RANGE, "a font size in points")


def _within(number: float, text: str, bounds: tuple[float, float], expected: str) -> float:
    """``number`` when it lies in ``bounds`` (NaN does not); otherwise an argparse error naming the range."""
    low, high = bounds
    if not low <= number <= high:
        raise argparse.ArgumentTypeError(f"expected {expected} from {low:g} to {high:g}, got {text}")
    return number


def _renames(text: str) -> dict[str, str]:
    """``old=new,...`` as a mapping; a comma or '=' inside brackets (``mig[bins=5,normalization=code]``) does not split."""
    from harness.cli._args import csv_list

    mapping = {}
    for pair in csv_list(text):
        cuts = [match.start() for match in re.finditer(r"=(?![^\[\]]*\])", pair)]
        if not cuts or cuts[-1] in (0, len(pair) - 1):
            raise argparse.ArgumentTypeError(f"expected OLD=NEW, got {pair!r}")
        mapping[pair[:cuts[-1]].strip()] = pair[cuts[-1] + 1:].strip()
    return mapping


def _rename_file(path: Path) -> dict[str, str]:
    try:
        mapping = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--rename-file {str(path)!r} cannot be read: {error}") from None
    except json.JSONDecodeError as error:
        raise UsageError(f"--rename-file {str(path)!r} is not JSON: {error}") from None
    if not isinstance(mapping, dict) or not all(isinstance(v, str) for v in mapping.values()):
        raise UsageError(f"--rename-file {str(path)!r} must hold one JSON object of strings, {{\"old\": \"new\", ...}}")
    return mapping


def _plot(args: argparse.Namespace) -> int:
    import reports
    from harness.outputs import writable_output
    from harness.workflows.run_results import load_run_results
    from reports.rendering.comparison import FigureRequestError

    if args.out is not None and args.out.is_dir():
        raise UsageError(f"--out {str(args.out)!r} is a directory: name the figure's file ({args.out / 'comparison.png'})")
    suffix = args.out.suffix.lower().lstrip(".") if args.out is not None else ""
    if args.format is None and args.out is not None and suffix not in FORMATS:
        raise UsageError(f"cannot tell the format of {str(args.out)!r}: end it in .png, .svg or .pdf, or pass --format")
    if args.format is not None and suffix in FORMATS and suffix != args.format:
        raise UsageError(f"--format {args.format} contradicts --out {str(args.out)!r}: a {args.format.upper()} file "
                         f"would be named .{suffix}; change one of them")
    fmt = args.format or suffix or "png"
    renames = {**(_rename_file(args.rename_file) if args.rename_file is not None else {}), **(args.rename or {})}
    out = writable_output(args.out, "--out") if args.out is not None else args.run_dir / f"comparison.{fmt}"
    results = load_run_results(args.run_dir)
    if args.phase is not None:
        return _phase(args, results, out, fmt, renames)
    if args.phase_value is not None:
        raise UsageError("--phase-value colours a phase diagram's cells: it needs --phase SWEEP")
    scenarios = _as_written(args.scenarios, set(results["scenario"])) if args.scenarios is not None else None
    _check_names(results, args.metrics, scenarios)
    try:
        path = reports.plot_comparison(
            results, metrics=args.metrics, scenarios=scenarios, out_file=out, format=fmt, width=args.width,
            layout=args.layout or "rows", ncols=args.ncols, font_size=args.font_size, rename=renames,
            panel_letters=args.panel_letters, band=args.band or "ci95", colours=args.colors)
    except FigureRequestError as error:
        raise UsageError(str(error)) from None
    print(f"figure written to {path}")
    return 0


def _phase(args: argparse.Namespace, results, out: Path, fmt: str, renames: dict[str, str]) -> int:
    """``plot --phase``: the phase diagrams of one two-parameter sweep."""
    from reports.rendering.comparison import FigureRequestError
    from reports.rendering.phase import FigureNote, plot_phase_diagram

    if args.scenarios is not None:
        raise UsageError("--phase draws one sweep, named by --phase; leave out --scenarios")
    ignored = [option for option, value in (("--layout", args.layout), ("--band", args.band), ("--colors", args.colors))
               if value is not None]
    if ignored:
        one = len(ignored) == 1
        raise UsageError(f"--phase draws heat maps, one per sub-score: {' and '.join(ignored)} "
                         f"{'does' if one else 'do'} not apply to them; leave {'it' if one else 'them'} out (--ncols "
                         "sets the panels per row)")
    _check_names(results, args.metrics, None)
    try:
        with warnings.catch_warnings(record=True) as notes:
            warnings.simplefilter("always", FigureNote)
            path = plot_phase_diagram(results, sweep=args.phase, out_file=out, metrics=args.metrics,
                                      value=args.phase_value or "score", format=fmt, width=args.width, ncols=args.ncols,
                                      font_size=args.font_size, rename=renames, panel_letters=args.panel_letters)
    except FigureRequestError as error:
        raise UsageError(str(error)) from None
    for note in notes:
        if issubclass(note.category, FigureNote):
            print(f"note: {note.message}", file=sys.stderr)
        else:
            warnings.warn_explicit(note.message, note.category, note.filename, note.lineno)
    print(f"figure written to {path}")
    return 0


def _check_names(results, metrics: list[str] | None, scenarios: list[str] | None) -> None:
    """Unknown metrics or scenarios as one usage error, with the names meant: a swept metric's variants where none is
    at its defaults (a swept metric's own name otherwise names that one: :func:`reports.rendering.comparison.nameable`),
    else the closest names; the metrics listed once each, not per variant or sub-score."""
    from reports.rendering.comparison import metric_bases, nameable, selectable, variants_of

    named = nameable(results)
    for kind, requested, known in (("metric", metrics, selectable(named)),
                                   ("scenario", scenarios, sorted(results["scenario"].unique()))):
        unknown = sorted(set(requested or ()) - set(known))
        if not unknown:
            continue
        swept = {name: variants_of(results, name) for name in unknown} if kind == "metric" else {}
        if any(swept.values()):  # mig swept over bins 5 and 20: it names none of its rows ("unknown metric 'mig'" said)
            raise UsageError("; ".join(f"metric {name!r} was swept without its default options, so it names none of "
                                       f"its variants: name one or more of {', '.join(variants)}"
                                       for name, variants in swept.items() if variants))
        hint = did_you_mean(unknown, known)
        listing = ", ".join(sorted(set(metric_bases(named))) if kind == "metric" else known)
        if kind == "metric" and len(known) > named["metric"].nunique():  # one name per metric, not per sub-score
            listing += "; a metric of several sub-scores also as metric/sub_score"
        if kind == "metric" and (named["metric"] != metric_bases(named)).any():  # one name per metric, not per variant
            listing += "; a swept metric also by its variants' names (mig[bins=5]), as the results' metric column writes them"
        raise UsageError(f"unknown {kind}(s) {unknown}{hint}; the results have {listing}")


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
