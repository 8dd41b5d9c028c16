"""Phase diagrams: the phase tables of a two-parameter sweep (:mod:`reports.analyses.phase`) as heat maps.

As Joshi et al. (2026, experiments 4 and 15) draw them: one panel per sub-score, its horizontal axis the
scenarios' own parameter and its vertical axis the other swept one (a composition's base value, or the sample
size), each cell the mean over seeds of the score oriented so that higher is better (``1 - score`` for a
lower-is-better sub-score, as every figure draws it) or, as an option, its distance ``|score - ideal|`` to the
ideal of the sub-score's property.  All panels of a figure share one colour scale, [0, 1], and one colour bar.
Where the ideal varies over the two parameters its contours are drawn (white, labelled); where it is constant it
is stated in the panel's title (``ideal 1``), and where the scenario states none, so is that (``no ideal stated``).  Cells
no row fills are hatched grey.  Figures are laid out for a paper: a width (a column, 3.25 in, or a page), a
number of columns, a font size, renames and panel letters, as :func:`reports.plot_comparison`; fonts are
embedded as TrueType (Type 42) in PDFs (:func:`reports.rendering.style.paper_style`).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps, patheffects
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from reports.analyses.phase import VALUES, as_matrix, axis_values, phase_table
from reports.rendering.comparison import FigureRequestError, _chosen_lines, _letter, _named_in, _Renames, check_layout
from reports.rendering.figures import Drawn
from reports.rendering.style import COLUMN_WIDTH, FONT_SIZE, PAGE_WIDTH, paper_style, wrap_label
from reports.results.display import Section, display_table
from reports.results.parameters import TwoParameterSweep, sweep_rows, two_parameter_sweeps
from reports.results.table import family_figures, family_rank, score_label


class FigureNote(UserWarning):
    """What a figure drawn alone (not in a report, whose captions carry them) says about itself: a note of its
    :class:`reports.rendering.figures.Drawn`."""


#: The colour map of each: a score (yellow high, perceptually uniform and readable in grey), a distance (dark far).
COLOUR_MAPS = {"score": "viridis", "distance": "magma_r"}
#: Narrowest panel, in inches: sets how many columns a width holds when none is asked for.
PANEL_MIN_INCHES = 1.05
#: Smallest size, in points at the figure's size, of the mean written in a cell: where cells cannot hold it, no cell
#: of the figure gets its number, and a note says so.
NUMBER_POINTS = 8.0
#: Widest panel of a report's figure, in inches (a column of a two-column paper): a figure of one sub-score is not
#: drawn a page wide (its numbers would print at a third of their size in the report's two figures a row).
REPORT_PANEL_INCHES = COLUMN_WIDTH
#: Most panels of one report figure (a family with more sub-scores is split).
PANELS_PER_FIGURE = 12
#: Most tick labels on an axis; more values get every other one labelled.
MAX_TICK_LABELS = 6
#: Width of a tick label's character, in ems (digits and lower-case letters of the paper font).
CHARACTER_EMS = 0.6
#: Height of a heat map as a fraction of its panel's width.
HEAT_ASPECT = 0.7
#: How far outside [0, 1] a mean may be before a note names it (a rounding error of a score of 1 is not news).
OUTSIDE_TOLERANCE = 1e-6
#: Colour of cells no row fills.
MISSING = "#DDDDDD"


def ideal_text(ideal: np.ndarray) -> str:
    """How a panel states its ideal: ``ideal 1`` when constant, ``no ideal stated`` when unknown everywhere (a
    holistic score, a property the scenario does not determine), ``""`` when it
    varies (its contours say it); ``ideal 1 at 3 of 25 points`` when it is known at some points only."""
    known = ideal[np.isfinite(ideal)]
    if known.size == 0:
        return "no ideal stated"
    if np.ptp(known) > 1e-9:
        return ""
    return f"ideal {known[0]:.3g}" + ("" if known.size == ideal.size else f" at {known.size} of {ideal.size} points")


def _ticks(ax, axis: str, labels: list[str], room: float, font_size: float) -> None:
    """Tick labels at every position (every other one blank past :data:`MAX_TICK_LABELS`); on the horizontal axis
    turned upright where side by side they would not fit ``room`` inches."""
    step = 1 if len(labels) <= MAX_TICK_LABELS else 2
    shown = [label if i % step == 0 else "" for i, label in enumerate(labels)]
    if axis == "y":
        ax.set_yticks(range(len(labels)), shown)
        return
    needed = sum(len(label) + 1.5 for label in shown if label) * CHARACTER_EMS * (font_size - 1) / 72
    ax.set_xticks(range(len(labels)), shown, rotation=90 if needed > room else 0)


def _contours(ax, ideal: np.ndarray, points: float) -> None:
    """Labelled contours of a varying ideal (three levels, evenly between its ends): white lines edged in black,
    readable on every colour of the map, labelled at ``points`` (as the cells' numbers)."""
    known = ideal[np.isfinite(ideal)]
    if known.size < 4 or np.ptp(known) <= 1e-9 or min(ideal.shape) < 2:
        return
    levels = np.unique(np.round(np.linspace(known.min(), known.max(), 5)[1:-1], 2))
    halo = [patheffects.withStroke(linewidth=1.5, foreground="black")]
    lines = ax.contour(np.ma.masked_invalid(ideal), levels=levels, colors="white", linewidths=0.7, linestyles="-")
    for line in getattr(lines, "collections", [lines]):
        line.set_path_effects(halo)
    texts = ax.clabel(lines, fontsize=points, fmt="%.2g", inline=True)
    for text in texts:
        text.set_path_effects(halo)


def _fits_numbers(cell_width: float, cell_height: float, texts: Sequence[str], points: float) -> bool:
    """Whether a cell of ``cell_width`` x ``cell_height`` inches holds the longest of ``texts`` at ``points``, with
    a character's room to spare across and half a line up and down."""
    longest = max((len(text) for text in texts), default=0)
    return cell_width >= (longest + 1) * CHARACTER_EMS * points / 72 and cell_height >= 1.5 * points / 72


def _annotate(ax, matrix: np.ndarray, colour_map, points: float) -> None:
    """Each cell's mean at ``points``, dark on light cells and light on dark."""
    for (row, column), value in np.ndenumerate(matrix):
        if not np.isfinite(value):
            continue
        red, green, blue, _ = colour_map(float(np.clip(value, 0, 1)))
        light = 0.299 * red + 0.587 * green + 0.114 * blue > 0.5
        ax.text(column, row, f"{value:.2f}", ha="center", va="center", fontsize=points, color="black" if light else "white")


def phase_figure(
    table: pd.DataFrame,
    sweep: TwoParameterSweep,
    *,
    scores: Sequence[tuple[str, str, bool]] | None = None,
    value: str = "score",
    width: float = PAGE_WIDTH,
    ncols: int | None = None,
    font_size: float = FONT_SIZE,
    rename: Callable[[str], str] | None = None,
    label: Callable[[str, str, bool], str] = score_label,
    panel_letters: bool = False,
    title: str = "",
) -> Drawn:
    """Draw the phase diagrams of ``table`` (:func:`phase_table`): one panel per sub-score, one colour bar.

    Where its ideal does not vary (constant, or stated nowhere), each cell of a panel carries its mean, at
    :data:`NUMBER_POINTS` or the font size less one, whichever is larger (so are a varying ideal's contours
    labelled); where the cells are too small for that, none does, and the figure's notes say so.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`phase_table` of ``sweep``.
    sweep : TwoParameterSweep
        Its axes name the panels' axes.
    scores : sequence of (metric, sub_score, higher_is_better), optional
        The panels, in order (default: every sub-score of ``table``, by family, metric and sub-score).
    value : {"score", "distance"}
        What a cell shows (:data:`VALUES`).
    width : float
        The figure's width in inches.
    ncols : int, optional
        Panels per row (default: as many as fit ``width`` at :data:`PANEL_MIN_INCHES` each).
    font_size : float
        Font size of titles and labels in points.
    rename, label : callable
        An axis name as shown; a sub-score's panel title (``label(metric, sub_score, higher_is_better)``).
    panel_letters : bool
        Prefix each panel's title with ``(a)``, ``(b)``, ...
    title : str
        The figure's title (none when empty).
    """
    if value not in VALUES:
        raise FigureRequestError(f"value must be one of {VALUES}, got {value!r}")
    rename = rename or (lambda text: text)
    if scores is None:
        entries = table[["family", "metric", "sub_score", "higher_is_better"]].drop_duplicates()
        entries = entries.sort_values(["family", "metric", "sub_score"], key=lambda c: c.map(family_rank)
                                      if c.name == "family" else c)
        scores = [tuple(entry) for entry in entries[["metric", "sub_score", "higher_is_better"]].itertuples(index=False)]
    xs, x_labels = axis_values(table, "x")
    ys, y_labels = axis_values(table, "y")
    columns = max(1, min(len(scores), ncols or int(width // PANEL_MIN_INCHES) or 1))
    rows = -(-len(scores) // columns)
    panel = width / columns
    colour_map = colormaps[COLOUR_MAPS[value]].with_extremes(bad=MISSING)
    points = max(NUMBER_POINTS, font_size - 1)
    shown_column = table["mean" if value == "score" else "distance"]
    annotate = _fits_numbers(panel * 0.8 / len(xs), panel * HEAT_ASPECT / len(ys),
                             [f"{number:.2f}" for number in shown_column.dropna()], points)
    numbered = False
    notes: list[str] = []
    with paper_style(font_size):
        row_inches = panel * HEAT_ASPECT + (2 * font_size + 3 * (font_size - 1)) / 72  # heat map, title, ticks, label
        figure = Figure(figsize=(width, rows * row_inches + 0.6 + 0.2 * bool(title)), layout="constrained")
        axes = figure.subplots(rows, columns, squeeze=False, sharex=True, sharey=True)
        image = None
        for index, ax in enumerate(axes.flat):
            if index >= len(scores):
                ax.set_visible(False)
                continue
            metric, sub_score, higher = scores[index]
            own = table.loc[(table["metric"] == metric) & (table["sub_score"] == sub_score)]
            shown = as_matrix(own, "mean" if value == "score" else "distance", xs, ys)
            ideal = as_matrix(own, "ideal", xs, ys)
            outside = np.isfinite(shown) & ((shown < -OUTSIDE_TOLERANCE) | (shown > 1 + OUTSIDE_TOLERANCE))
            if outside.any():
                extreme = shown[outside][np.argmax(np.abs(shown[outside] - 0.5))]
                notes.append(f"{label(metric, sub_score, bool(higher))} reaches {_beyond_the_scale(extreme)} (drawn at "
                             "the scale's end).")
            image = ax.imshow(shown, origin="lower", cmap=colour_map, vmin=0.0, vmax=1.0, aspect="auto",
                              interpolation="nearest")
            for row, column in zip(*np.nonzero(~np.isfinite(shown))):
                ax.add_patch(Rectangle((column - 0.5, row - 0.5), 1, 1, fill=False, hatch="////", edgecolor="#999999",
                                       linewidth=0))
            _contours(ax, ideal, points)
            stated = ideal_text(ideal)
            if annotate and stated:  # where the ideal varies its contour labels hold the cells' room
                _annotate(ax, shown, colour_map, points)
            numbered = numbered or bool(stated)
            name = wrap_label(label(metric, sub_score, bool(higher)), max(12, int(panel * 13)))
            letter = f"({_letter(index)}) " if panel_letters else ""
            ax.set_title(f"{letter}{name}" + (f"\n{stated}" if stated else ""), loc="left",
                         fontsize=font_size - 1)
            _ticks(ax, "x", x_labels, 0.85 * panel, font_size)
            _ticks(ax, "y", y_labels, 0.85 * panel, font_size)
            if index % columns == 0:
                ax.set_ylabel(rename(sweep.y))
            if index // columns == rows - 1 or index + columns >= len(scores):
                ax.set_xlabel(rename(sweep.x))
                ax.tick_params(axis="x", labelbottom=True)
        bar = figure.colorbar(image, ax=axes, location="bottom", shrink=min(1.0, 2.6 / width), aspect=30, pad=0.02)
        bar.set_label("mean score over seeds (1 − score if lower is better)" if value == "score"
                      else "|mean score − ideal| (grey: no ideal stated)")
        if title:
            figure.suptitle(title, fontsize=font_size, x=0.01, ha="left")
    if numbered and not annotate:
        notes.append(f"The cells are too small to print their means at {points:g} pt: the colour bar reads them.")
    return Drawn(figure, notes)


def phase_drawers(results: pd.DataFrame, *, value: str = "score") -> list[tuple[str, str, Callable[[], Drawn]]]:
    """The report's phase diagrams, not drawn yet: ``(key, caption, draw)`` per two-parameter sweep and family
    (split past :data:`PANELS_PER_FIGURE` sub-scores), each call holding only the rows it draws."""
    drawers = []
    for sweep in two_parameter_sweeps(results):
        table = phase_table(results, sweep)
        seeds = sorted(set(table["n_seeds"]))
        counted = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]} to {seeds[-1]}"
        for family, suffix, own, part in family_figures(table, PANELS_PER_FIGURE):
            key = "phase_" + "".join(c if c.isalnum() or c in "._-" else "_" for c in sweep.sweep) + f"_{family}{suffix}"
            caption = (f"Phase diagrams of {sweep.sweep} ({family}{suffix.replace('_', ' part ')}): the mean score over "
                       f"{counted} seeds (1 − score for lower-is-better sub-scores) at each {sweep.x} (across) and "
                       f"{sweep.y} (up), one colour scale [0, 1] for every panel; white contours: the ideal where "
                       "it varies (else stated in each title; 'no ideal stated' where the scenario states none); hatched: not run.")
            width = min(PAGE_WIDTH, len(part) * REPORT_PANEL_INCHES)
            drawers.append((key, caption, functools.partial(phase_figure, own, sweep, scores=part, value=value,
                                                            width=width, title=f"{sweep.sweep}: {family}")))
    return drawers


def plot_phase_diagram(
    results: pd.DataFrame,
    *,
    sweep: str,
    out_file: str | Path,
    metrics: Sequence[str] | None = None,
    value: str = "score",
    format: str | None = None,
    width: float = PAGE_WIDTH,
    ncols: int | None = None,
    font_size: float = FONT_SIZE,
    rename: Mapping[str, str] | None = None,
    panel_letters: bool = False,
) -> Path:
    """Draw the phase diagrams of one two-parameter sweep of ``results`` for a paper (``plot --phase``).

    Parameters
    ----------
    results : pandas.DataFrame
        A results table holding the sweep (see :func:`reports.results.parameters.two_parameter_sweeps`).
    sweep : str
        The sweep's name, as its rows' ``sweep`` column holds it (``dense_mixing@equicorrelated``).
    out_file : str or pathlib.Path
        Where to write the figure; ``format`` (png, svg, pdf, ...) defaults to its suffix.
    metrics : sequence of str, optional
        Metrics (every sub-score) or ``metric/sub_score`` to draw, one panel each (default: all).
    value : {"score", "distance"}
        What a cell shows: the mean score, or its distance to the ideal.
    width, ncols, font_size, rename, panel_letters
        As for :func:`reports.plot_comparison` (``rename`` renames sub-scores, metrics and the axes' parameters).

    Raises
    ------
    reports.rendering.comparison.FigureRequestError
        For a sweep the results do not hold (the message lists those they do), an unknown metric, a width or font
        size out of range (:func:`reports.rendering.comparison.check_layout`), or a rename that names nothing of the figure or the results, or
        gives two lines one label.

    Warns
    -----
    FigureNote
        Each of the figure's notes, which a report prints in its caption: a mean outside [0, 1] drawn at the scale's
        end, cells too small to print their means (``plot --phase`` prints them as ``note:`` lines).
    """
    from reports.results.table import check_results

    results = check_results(results)
    sweeps = {found.sweep: found for found in two_parameter_sweeps(results)}
    if sweep not in sweeps:
        raise FigureRequestError(f"no two-parameter sweep {sweep!r} in the results; they hold "
                                 f"{sorted(sweeps) if sweeps else 'none'}")
    rows = results.loc[results["sweep"] == sweep]
    if metrics is not None:
        rows = rows.loc[_chosen_lines(rows, metrics)]
    check_layout(width, font_size)
    table = phase_table(rows, sweeps[sweep])
    entries = table[["metric", "sub_score", "higher_is_better"]].drop_duplicates()
    if metrics is not None:
        order = {name: position for position, name in enumerate(metrics)}
        entries = entries.assign(_order=[order.get(f"{m}/{s}", order.get(m, 0)) for m, s in
                                         zip(entries["metric"], entries["sub_score"])]).sort_values(["_order", "sub_score"])
    scores = [tuple(entry) for entry in entries[["metric", "sub_score", "higher_is_better"]].itertuples(index=False)]
    renames = _Renames(rename, _named_in(results))
    drawn = phase_figure(table, sweeps[sweep], scores=scores, value=value, width=width, ncols=ncols,
                         font_size=font_size, rename=renames, label=renames.score, panel_letters=panel_letters)
    renames.check()
    out_file = Path(out_file)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    with paper_style(font_size):
        drawn.figure.savefig(out_file, format=format or out_file.suffix.lstrip(".") or "png", dpi=200)
    for note in drawn.notes:
        warnings.warn(note, FigureNote, stacklevel=2)
    return out_file


DESCRIPTION = (
    "Every sweep of two parameters in the results (run --grid SCENARIO=AXIS:V1,V2;AXIS:V1,V2): a composition with "
    "its base value free (TRANSFORM@BASE) swept over the transform's parameter and the base's, or a scenario swept "
    "over its parameter and the sample size. Its phase diagrams below draw, per sub-score, the mean score over seeds "
    "(1 − score for lower-is-better sub-scores) at every point, across the scenario's parameter and up the other, on "
    "one colour scale [0, 1] for every panel; where the ideal varies its contours are drawn (white, labelled), "
    "otherwise each title states it ('no ideal stated' where the scenario states none). A metric that follows its ideal repeats the "
    "ideal's contours; one that moves along an axis the ideal ignores (the correlation of the factors under a fixed "
    "encoder, the sample size on null codes) measures that axis instead. Each slice of a sweep is also a scenario of "
    "its own in every other section. The seeds of a sweep's draws do not depend on either swept value, so each "
    "diagram compares the same random draws. python -m harness plot --phase SWEEP draws one for a paper (a column's width, chosen "
    "metrics, the distance to the ideal).")


def _beyond_the_scale(value: float) -> str:
    """A mean outside the colour scale [0, 1] with two decimals, or as many more as it needs not to read as one of the
    scale's ends (``-0.004``, not ``-0.00``)."""
    decimals = 2
    while round(value, decimals) in (0.0, 1.0) and decimals < 6:
        decimals += 1
    return f"{value:.{decimals}f}"


def phase_section(results: pd.DataFrame) -> Section | None:
    """The report's section listing the two-parameter sweeps (its figures are :func:`phase_drawers`'); None when the
    results hold none."""
    sweeps = two_parameter_sweeps(results)
    if not sweeps:
        return None
    records = []
    for sweep in sweeps:
        rows = sweep_rows(results, sweep)
        xs, ys = (axis_values(rows.drop_duplicates(column), column)[1] for column in ("x", "y"))
        per_cell = rows.groupby(["scenario", "metric", "value", "n_samples"])["seed"].nunique()  # a race varies them
        records.append({"sweep": sweep.sweep, "across": sweep.x, "across_values": ", ".join(xs), "up": sweep.y,
                        "up_values": ", ".join(ys), "slices": rows["scenario"].nunique(),
                        "fewest_seeds": int(per_cell.min()), "seeds": int(per_cell.max()),
                        "sub_scores": len(rows[["metric", "sub_score"]].drop_duplicates())})
    table = pd.DataFrame(records)
    shown = table.assign(seeds=[f"{low} to {high}" if low != high else f"{high}"
                                for low, high in zip(table["fewest_seeds"], table["seeds"])]).drop(columns="fewest_seeds")
    display = display_table(shown, {"sweep": "Sweep", "across": "Across (x)", "across_values": "x values",
                                    "up": "Up (y)", "up_values": "y values", "slices": "Scenarios", "seeds": "Seeds",
                                    "sub_scores": "Sub-scores"})
    return Section("phase_diagrams", "Phase diagrams", DESCRIPTION, table=table, display=display)
