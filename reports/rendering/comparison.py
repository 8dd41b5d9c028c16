"""``plot``'s figure: chosen metrics or sub-scores on chosen scenarios, one panel per scenario, laid out for a paper.

The figure is drawn for the page it goes on: a width (a column, a page, or inches), a
layout of its panels, a font size, the labels an author wants (renames), panel
letters.  Colours are assigned over the lines the figure draws
(:class:`reports.rendering.style.StyleRegistry` with one panel holding them all), so every line
of a panel has its own colour, marker and line style.  The band around a mean is a
stated interval over seeds (:data:`reports.rendering.figures.BANDS`), named in the legend's
title.  Each ideal trajectory is tagged with the initials of its properties (:data:`TAGS`,
spelled out in the legend) at a spot beside its line where the tag covers no score's
line, marker or band (:mod:`reports.rendering.placement`).
PDFs embed TrueType (Type 42) fonts.
"""

from __future__ import annotations

import string
import textwrap
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from reports.analyses.sensitivity import on_default_options
from reports.rendering.figures import (
    BANDS,
    CLIP_LABEL,
    band_text,
    beyond_axis,
    clip_legend_entry,
    draw_scores,
    fill_to_width,
    format_axis,
    ideal_points,
    legend_characters,
    legend_layout,
    plot_ideal,
    score_axis,
    seed_means,
)
from reports.rendering.placement import label_lines
from reports.rendering.style import (
    COLUMN_WIDTH,
    FONT_SIZE,
    IDEAL_STYLE,
    LABEL_CHARACTERS,
    PAGE_WIDTH,
    StyleRegistry,
    ideal_style,
    metric_colours,
    paper_style,
    wrap_label,
)
from reports.results.options import at_defaults
from reports.results.schema import SCORE_PROPERTIES
from reports.results.table import at_largest_n, check_results, ideal_table, scenarios_testing, score_label

#: Named figure widths, in inches: a column of a two-column paper and a page's text block.
WIDTHS = {"column": COLUMN_WIDTH, "page": PAGE_WIDTH}
#: How panels are laid out: one per row, all in one row, or a near-square grid.
LAYOUTS = ("rows", "columns", "grid")
#: The tag of each property on an ideal trajectory (``M,C``: the ideal of modularity and compactness).
TAGS = {"modularity": "M", "compactness": "C", "explicitness": "E", "holistic": "H"}
#: Height of the legend's title (what the lines and bands are), in inches at the default font size.
LEGEND_TITLE_INCHES = 0.15
#: The widths a figure may have, in inches: the narrowest its legend and notes fit in at the largest font size, and an
#: A3 page.
WIDTH_RANGE = (1.0, 16.5)
#: The font sizes a figure may have, in points (ticks, legend and notes are drawn 1 to 2.5 points smaller).
FONT_SIZE_RANGE = (4.0, 24.0)
#: Width of a panel's y tick and axis labels, in inches, and of a title's average character, in ems: how many
#: characters of a panel's title fit its width (:func:`plot_comparison` wraps a longer one).
Y_LABELS_INCHES, TITLE_CHARACTER_EMS = 0.45, 0.6
#: Height of a panel as a fraction of its width, and its bounds in inches.
PANEL_ASPECT, PANEL_HEIGHT_RANGE = 0.75, (1.3, 2.2)


class FigureRequestError(ValueError):
    """A figure that cannot be drawn as asked: an unknown name, a rename that names nothing, nothing to draw."""


def metric_bases(results: pd.DataFrame) -> pd.Series:
    """Each row's metric without its options: the column ``metric_base`` where the table has it, else the
    name up to its ``[`` (``mig[bins=5]`` -> ``mig``)."""
    if "metric_base" in results.columns:
        return results["metric_base"].astype(str)
    return results["metric"].astype(str).str.split("[", n=1).str[0]


def nameable(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` with each swept metric also under its own name as the report draws it: its variant at the
    metric's default options (:func:`reports.analyses.sensitivity.on_default_options`), so that ``mig`` names what the
    report's figures call mig where the results hold only ``mig[bins=5]``, ``mig[bins=10]``, ...  The same table
    where no sweep has its default value."""
    judged = on_default_options(results)
    added = judged.loc[~judged["metric"].isin(set(results["metric"]))]
    return results if added.empty else pd.concat([results, added], ignore_index=True)


def run_colours(results: pd.DataFrame, colours: Mapping[str, str] | None = None, *,
                judged: pd.DataFrame | None = None) -> dict[str, str]:
    """Metric -> colour for every name :func:`nameable` gives the metrics of ``results``: the colour its report draws
    each metric in (:func:`reports.rendering.style.metric_colours` of what the report reads, ``judged``:
    :func:`reports.analyses.sensitivity.on_default_options` of ``results``, computed here when not given), the variant
    at a swept metric's defaults in its metric's (``mig[bins=10]`` as ``mig``).

    Raises
    ------
    FigureRequestError
        When ``colours`` names a metric neither in the results nor registered (:func:`check_colour_names`).
    """
    check_colour_names(colours, metric_bases(results))
    run = metric_colours(on_default_options(results) if judged is None else judged, colours)
    defaults = results.loc[at_defaults(results)].drop_duplicates("metric")
    return {**{label: run[base] for label, base in zip(defaults["metric"], defaults["metric_base"]) if base in run}, **run}


def check_colour_names(colours: Mapping[str, str] | None, metrics: Iterable[str]) -> None:
    """Refuse ``colours`` (metric -> colour) naming a metric neither among ``metrics`` (a run's) nor registered: a typo
    would change no colour, silently.  A name counts by its metric (``mig[bins=5]`` as ``mig``), so that a paper's
    palette may name metrics a run lacks.

    Raises
    ------
    FigureRequestError
        Naming the unknown metrics.
    """
    run = set(metrics)
    unknown = sorted(name for name in colours or {} if name.split("[", 1)[0] not in run)
    if unknown:  # the registry only then: its first lookup imports every metric's code
        from metrics.registry import available

        registered = set(available(population=None))
        unknown = [name for name in unknown if name.split("[", 1)[0] not in registered]
    if unknown:
        raise FigureRequestError(f"colours name metric(s) {unknown}, neither registered nor the run's (python -m "
                                 "harness list names the registered ones)")


def variants_of(results: pd.DataFrame, name: str) -> list[str]:
    """The metrics of ``results`` that are variants of ``name`` (an option sweep's ``mig[bins=5]``, ... for ``mig``)."""
    return sorted(set(results.loc[(metric_bases(results) == name) & (results["metric"] != name), "metric"]))


def selectable(results: pd.DataFrame) -> list[str]:
    """What ``metrics`` may name: every metric, and ``metric/sub_score`` for each sub-score of a metric with several."""
    pairs = results[["metric", "sub_score"]].drop_duplicates()
    several = pairs["metric"].duplicated(keep=False)
    return sorted(set(pairs["metric"]) | {f"{m}/{s}" for m, s in pairs.loc[several].itertuples(index=False)})


def _chosen_lines(results: pd.DataFrame, names: Sequence[str]) -> pd.Series:
    """Which rows ``names`` choose: a metric's every sub-score, or one ``metric/sub_score``."""
    known = set(selectable(results))
    unknown = [name for name in names if name not in known]
    if unknown:
        raise FigureRequestError(f"unknown metric(s) {unknown}; the results have {sorted(known)}")
    whole = [name for name in names if name in set(results["metric"])]
    chosen = results["metric"].isin(whole)
    for name in set(names) - set(whole):
        metric, sub_score = name.rsplit("/", 1)
        chosen |= (results["metric"] == metric) & (results["sub_score"] == sub_score)
    return chosen


def _named_in(results: pd.DataFrame) -> set[str]:
    """Every text of ``results`` a rename may name: its metrics, sub-scores, lines (``dci_lasso/compactness``),
    scenarios, parameters and properties."""
    lines = results[["metric", "sub_score"]].drop_duplicates().itertuples(index=False, name=None)
    return ({score_label(metric, sub_score) for metric, sub_score in lines}
            | set().union(*(set(results[column].astype(str)) for column in
                            ("metric", "sub_score", "scenario", "parameter", "property"))) | set(TAGS))


class _Renames:
    """An author's labels for the figure's texts; remembers which were offered, to refuse one that names nothing, and
    which line each line label went to, to refuse one label for two lines (their legend entries would read as one).

    A rename naming a text of the results (``known``) that this figure does not show is kept, unused: one rename file
    serves every figure of a paper.  One naming nothing of the results is refused (a typo, most likely)."""

    def __init__(self, mapping: Mapping[str, str] | None, known: set[str] | frozenset[str] = frozenset()) -> None:
        self.mapping = dict(mapping or {})
        bad = {old: new for old, new in self.mapping.items() if not (isinstance(new, str) and new.strip())}
        if bad:  # {"mig": ""} drew an empty legend entry; {"mig": 3} raised a TypeError while drawing
            raise FigureRequestError(f"rename gives {bad}: each label must be a text that is not empty")
        self.known = known
        self.offered: set[str] = set()
        self.lines: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        self.offered.add(text)
        return self.mapping.get(text, text)

    def score(self, metric: str, sub_score: str, higher_is_better: bool) -> str:
        """A line's label: its whole name renamed (``dci_lasso/compactness``), else its metric and sub-score each.

        Raises
        ------
        FigureRequestError
            When the renames give this line the label of another line.
        """
        line = score_label(metric, sub_score)
        self.offered.add(line)
        if line in self.mapping:
            name = self.mapping[line]
        elif "/" in line:
            name = f"{self(metric)}/{self(sub_score)}"
        else:
            name = self(metric)
        label = name if higher_is_better else f"{name} (1 − score)"
        other = self.lines.setdefault(label, line)
        if other != line:
            raise FigureRequestError(f"rename gives the lines {other} and {line} one label, {label!r}: their legend "
                                     "entries would read as one line; give each its own label")
        return label

    def check(self) -> None:
        unknown = sorted(set(self.mapping) - self.offered - set(self.known))
        if unknown:
            raise FigureRequestError(f"rename {unknown} names no label of the figure and nothing of the results; the "
                                     f"figure's labels are {sorted(self.offered)}")


def check_layout(width: float, font_size: float) -> None:
    """Refuse a ``width`` outside :data:`WIDTH_RANGE` or a ``font_size`` outside :data:`FONT_SIZE_RANGE`, or either
    not a number, naming the range (:class:`FigureRequestError`): beyond them the legend, notes and tick labels do not
    fit the figure (``width="column"`` raised a ``TypeError`` from the comparison: the names are ``WIDTHS``' keys)."""
    for name, given, (low, high), unit in (("width", width, WIDTH_RANGE, "inches"),
                                           ("font_size", font_size, FONT_SIZE_RANGE, "points")):
        number = isinstance(given, (int, float, np.integer, np.floating)) and not isinstance(given, (bool, np.bool_))
        if not number or not low <= given <= high:  # NaN too
            named = (f" (a name such as {given!r} is the command line's: pass reports.rendering.comparison.WIDTHS[{given!r}])"
                     if name == "width" and isinstance(given, str) else "")
            raise FigureRequestError(f"{name} must be a number from {low:g} to {high:g} {unit}, got {given!r}{named}")


def _names(given: Sequence[str] | None, argument: str) -> list[str] | None:
    """``given`` as a list of names, None as None; a lone string (``metrics="mig"`` was read as ``['m', 'i', 'g']``)
    or a name that is not text is refused (:class:`FigureRequestError`)."""
    if given is None:
        return None
    if isinstance(given, str) or not all(isinstance(name, str) for name in given):
        raise FigureRequestError(f"{argument} must be a list of names such as ['mig'], got {given!r}")
    return list(given)


def _columns(panels: int, layout: str, ncols: int | None) -> int:
    if ncols is not None:
        if ncols < 1:
            raise FigureRequestError(f"ncols must be at least 1, got {ncols}")
        return min(ncols, panels)
    if layout not in LAYOUTS:
        raise FigureRequestError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    return {"rows": 1, "columns": panels, "grid": int(np.ceil(np.sqrt(panels)))}[layout]


def _letter(index: int) -> str:
    """``a``, ``b``, ..., ``z``, ``aa``, ``ab``, ...: the letter of the ``index``-th panel."""
    letters = string.ascii_lowercase
    return letters[index] if index < len(letters) else _letter(index // len(letters) - 1) + letters[index % len(letters)]


def plot_comparison(
    results: pd.DataFrame,
    *,
    metrics: Sequence[str] | None = None,
    scenarios: Sequence[str] | None = None,
    out_file: str | Path,
    format: str | None = None,
    width: float = PAGE_WIDTH,
    layout: str = "rows",
    ncols: int | None = None,
    font_size: float = FONT_SIZE,
    rename: Mapping[str, str] | None = None,
    panel_letters: bool = False,
    band: str = "ci95",
    colours: Mapping[str, str] | None = None,
) -> Path:
    """Compare chosen metrics on chosen scenarios in one figure, one panel per scenario.

    One legend below the panels, in as many columns as fit the width, serves them all;
    its title says what the lines and bands are.  Notes on clipped means sit above the
    panels.  A scenario is drawn at its largest sample size, except one testing sample
    efficiency, whose values are sample sizes.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table.
    metrics : sequence of str, optional
        Metrics to draw (every sub-score of each), or single sub-scores as
        ``metric/sub_score`` (``dci_lasso/compactness``); default all.  A swept metric's own name draws its variant at
        the metric's default options, as the report does (:func:`nameable`); a variant's name (``mig[bins=5]``) draws
        that variant.
    scenarios : sequence of str, optional
        Scenarios to draw, one panel each in this order; default all, sorted by name.
    out_file : str or pathlib.Path
        Where to write the figure.
    format : str, optional
        Any format matplotlib writes (png, svg, pdf, ...); default from the suffix of
        ``out_file``.  PDF and PostScript embed TrueType (Type 42) fonts.
    width : float, default :data:`reports.rendering.style.PAGE_WIDTH`
        The figure's width in inches, within :data:`WIDTH_RANGE` (:data:`WIDTHS` names a column's and a page's).
    layout : {"rows", "columns", "grid"}, default "rows"
        One panel per row, all panels in one row, or a near-square grid.
    ncols : int, optional
        Panels per row (overrides ``layout``).
    font_size : float, default :data:`reports.rendering.style.FONT_SIZE`
        Font size of labels and titles in points, within :data:`FONT_SIZE_RANGE` (ticks and legend one point less).
    rename : mapping of str to str, optional
        Labels to show instead of the results' names: a metric, a sub-score, a whole line
        label (``dci_lasso/compactness``), a scenario, a parameter or a property.
    panel_letters : bool, default False
        Prefix each panel's title with ``(a)``, ``(b)``, ...
    band : {"ci95", "sd", "none"}, default "ci95"
        The band around each mean: the 95% Student-t interval of the mean over seeds,
        ± one standard deviation over seeds, or none.
    colours : Mapping[str, str], optional
        Metric -> colour (:func:`reports.rendering.style.parse_colours` reads ``--colors``).  A metric not named keeps the
        colour the whole of ``results`` gives it in its report, whichever metrics a call draws (:func:`run_colours`; the
        variant at a swept metric's defaults takes its metric's).

    Returns
    -------
    pathlib.Path
        ``out_file``.

    Raises
    ------
    FigureRequestError
        For a metric or scenario absent from the results (the message lists those
        present), colours naming a metric absent from them, a rename that names nothing of the figure or the results or gives two lines one label, a
        width or font size out of range (:func:`check_layout`), a bad layout or band, or
        when the selection leaves nothing to draw.
    """
    results = check_results(results)
    if band not in BANDS:
        raise FigureRequestError(f"band must be one of {BANDS}, got {band!r}")
    check_layout(width, font_size)
    rows, shown = _selected(results, _names(metrics, "metrics"), _names(scenarios, "scenarios"))
    columns = _columns(len(shown), layout, ncols)
    grid_rows = -(-len(shown) // columns)
    scale = font_size / FONT_SIZE
    panel_height = float(np.clip(PANEL_ASPECT * width / columns, *PANEL_HEIGHT_RANGE)) * scale
    lines = list(rows[["metric", "sub_score"]].drop_duplicates().itertuples(index=False, name=None))
    registry = StyleRegistry(rows, panels=[lines], colours=run_colours(results, colours))
    renames = _Renames(rename, _named_in(results))
    entries = rows[["metric", "sub_score", "higher_is_better"]].drop_duplicates()
    characters = min(LABEL_CHARACTERS, legend_characters(width / scale))  # a narrow figure wraps its labels shorter
    labels = [wrap_label(renames.score(*entry), characters) for entry in entries.itertuples(index=False)]
    summaries = {scenario: seed_means(rows.loc[rows["scenario"] == scenario],
                                      ["value", "value_label", "metric", "sub_score", "property"]) for scenario in shown}
    clipped = [CLIP_LABEL] if any(beyond_axis(summary["mean"].to_numpy()) for summary in summaries.values()) else []
    legend_columns, legend_height = legend_layout(labels + ["ideal"] + clipped, width / scale)
    title = band_text(band, np.concatenate([summary["n_seeds"].to_numpy() for summary in summaries.values()]))
    notes: list[str] = []
    with paper_style(font_size):
        height = panel_height * grid_rows + 0.3 + (legend_height + 2 * LEGEND_TITLE_INCHES) * scale
        figure = Figure(figsize=(width, height), layout="constrained")
        axes = list(figure.subplots(grid_rows, columns, squeeze=False).flat)
        for unused in axes[len(shown):]:
            unused.set_visible(False)
        tags: dict = {}
        # a title as wide as its panel, less the y axis's labels (a long scenario name was cut at the figure's edge)
        title_characters = max(8, int((width / columns - Y_LABELS_INCHES) * 72 / (TITLE_CHARACTER_EMS * (font_size + 1))))
        for index, (ax, scenario) in enumerate(zip(axes, shown)):
            own = rows.loc[rows["scenario"] == scenario]
            tags[ax] = draw_ideals(ax, ideal_table(results.loc[results["scenario"] == scenario]),
                                    [p for p in SCORE_PROPERTIES if p in set(own["property"])], own["value"].unique())
            notes += [f"{renames(scenario)}: {note}"
                      for note in draw_scores(ax, summaries[scenario], "value", registry, band=band, label=renames.score)]
            format_axis(ax, own, renames(own["parameter"].iloc[0]))
            score_axis(ax)
            ax.set_title(wrap_label((f"({_letter(index)}) " if panel_letters else "") + renames(scenario),
                                    title_characters, breaks="/_,[ "), loc="left")
            if index % columns == 0:
                ax.set_ylabel("score")
        used = [tag for tag in TAGS.values() if any(tag in text.split(",") for items in tags.values() for _, text in items)]
        key = ", ".join(f"{TAGS[prop]} {renames(prop)}" for prop in TAGS if TAGS[prop] in used)
        renames.check()
        _legend(figure, axes[:len(shown)], legend_columns, [title] + ([f"ideal tags: {key}"] if key else []), width,
                font_size, characters)
        label_ideals(figure, tags, notes, height, font_size)
    out_file = Path(out_file)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    with paper_style(font_size):
        figure.savefig(out_file, format=format or out_file.suffix.lstrip(".") or "png", dpi=200)
    return out_file


def _selected(results: pd.DataFrame, metrics: Sequence[str] | None, scenarios: Sequence[str] | None
              ) -> tuple[pd.DataFrame, list[str]]:
    """The rows to draw (each scenario at its largest n, but one testing sample efficiency) and the scenarios shown."""
    unknown = sorted(set(scenarios or ()) - set(results["scenario"]))
    if unknown:
        raise FigureRequestError(f"unknown scenario(s) {unknown}; the results have {sorted(results['scenario'].unique())}")
    if metrics is not None:
        named = nameable(results)
        rows = named.loc[_chosen_lines(named, metrics)]
    else:
        rows = results
    if scenarios is not None:
        rows = rows.loc[rows["scenario"].isin(scenarios)]
    sweeps_n = rows["scenario"].isin(scenarios_testing(rows, "sample_efficiency"))  # its values are the sample sizes
    rows = pd.concat([at_largest_n(rows.loc[~sweeps_n]), rows.loc[sweeps_n]])
    if rows.empty:
        raise FigureRequestError("the chosen metrics were not run on the chosen scenarios: nothing to draw")
    present = set(rows["scenario"])
    return rows, [s for s in (dict.fromkeys(scenarios) if scenarios is not None else sorted(present)) if s in present]


def draw_ideals(ax, ideals: pd.DataFrame, properties: Sequence[str], values: Sequence[float]
                ) -> list[tuple[Line2D, str]]:
    """Each distinct ideal trajectory once, unlabelled; (its line, its tag) for :func:`label_lines`.

    A trajectory stated only at points of another (the holistic ideal, stated where the three others agree)
    joins that one's tag, or is left out where it lies on several.  A panel whose one trajectory is the
    ideal of every property it draws needs no tag (none is returned).
    """
    trajectories: dict[tuple, list[str]] = {}
    for prop in properties:
        x, y = ideal_points(ideals, prop, values)
        if np.isfinite(y).any():
            key = tuple((round(a, 9), round(b, 9) if np.isfinite(b) else None) for a, b in zip(x, y))
            trajectories.setdefault(key, []).append(prop)
    for points in sorted(trajectories, key=lambda key: sum(b is not None for _, b in key)):
        stated = {(a, b) for a, b in points if b is not None}
        hosts = [other for other in trajectories if other != points and stated <= set(other)]
        if hosts:  # a part of another trajectory (the holistic ideal where the three others agree): not drawn again
            names = trajectories.pop(points)
            if len(hosts) == 1:
                trajectories[hosts[0]] += names
    drawn = []
    for points, names in trajectories.items():
        x = np.array([a for a, _ in points])
        y = np.array([np.nan if b is None else b for _, b in points])
        drawn.append((plot_ideal(ax, x, y, None), ",".join(TAGS[prop] for prop in SCORE_PROPERTIES if prop in names)))
    if len(trajectories) == 1 and sorted(list(trajectories.values())[0]) == sorted(properties):
        return []
    return drawn


def label_ideals(figure: Figure, trajectories: Mapping[object, list[tuple[Line2D, str]]], notes: list[str],
                 height: float, font_size: float, heading: str = "") -> None:
    """Tag each panel's ideal trajectories at free spots (:func:`reports.rendering.placement.label_lines`).

    The spots are measured on the figure as laid out, and the layout is then kept.  A
    trajectory with no free spot is described in the notes above the panels instead;
    the figure grows by the notes' height (its panels keep their size) and is laid out
    again, and every tag is placed anew.  ``heading``: the figure's title, kept above the notes.
    """
    described: set[str] = set()
    while True:
        figure.set_size_inches(figure.get_figwidth(), height + _write_notes(figure, notes, font_size, heading))
        figure.set_layout_engine("constrained")
        _lay_out_or_refuse(figure, font_size)
        figure.set_layout_engine("none")  # the tags are placed on this layout: keep it
        placed, failed = [], []
        for ax, items in trajectories.items():
            done, missed = label_lines(ax, items, fontsize=font_size - 1.5, color="#555555")
            placed += done
            failed += [f"{ax.get_title(loc='left')}: {_described(line, text)}" for line, text in missed]
        if set(failed) <= described:
            return
        for label in placed:
            label.remove()
        notes += [note for note in failed if note not in described]
        described |= set(failed)


def _described(line: Line2D, text: str) -> str:
    """An ideal trajectory in words, for a note: ``ideal E: grey line from 1 at 0 to 0 at 1``."""
    x, y = np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)
    known = np.flatnonzero(np.isfinite(y))
    first, last = known[0], known[-1]
    return f"ideal {text}: grey line from {y[first]:.3g} at {x[first]:g} to {y[last]:.3g} at {x[last]:g}."


def _write_notes(figure: Figure, notes: Sequence[str], font_size: float, heading: str = "") -> float:
    """The notes above the panels, in the layout (a note drawn over the panels or the legend would hide them), below
    the figure's ``heading`` (its title, which the notes' place would replace otherwise) and in its style (its size,
    centred: a figure's title looks the same with notes or without); without one, small and from the left; their
    height in inches."""
    if not notes:
        return 0.0
    text = fill_to_width(" ".join(notes), figure.get_figwidth(), font_size)
    size = font_size if heading else font_size - 2
    figure.suptitle("\n".join(part for part in (heading, text) if part), fontsize=size,
                    **({} if heading else {"x": 0.01, "ha": "left"}))
    return (text.count("\n") + 1) * size * 1.25 / 72


#: What matplotlib warns when a figure's texts leave its panels no room.
_COLLAPSED = "axes sizes collapsed to zero"


def _lay_out_or_refuse(figure: Figure, font_size: float) -> None:
    """Lay ``figure`` out (constrained); refuse it (:class:`FigureRequestError`) where its texts leave the panels no
    room: a legal width and font size together (1 inch, 24 points) gave matplotlib's warning and a figure of
    overlapping texts, 200 x 13884 pixels."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure.draw_without_rendering()
    for warning in caught:
        if _COLLAPSED in str(warning.message):
            raise FigureRequestError(f"a font of {font_size:g} points leaves the panels of a figure "
                                     f"{figure.get_figwidth():g} inches wide no room: give a wider figure, a smaller "
                                     "font, or fewer metrics (each adds a legend entry)")
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)


def _legend(figure: Figure, axes: Sequence, columns: int, title: Sequence[str], width: float, font_size: float,
            characters: int = LABEL_CHARACTERS) -> None:
    """One legend below every panel (a sub-score looks the same in each), the ideal last where one is drawn, titled
    with the band and the ideal's tags; its labels wrapped to lines of ``characters``."""
    shown: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            shown.setdefault(label, handle)
    labels = [wrap_label(label, characters) for label in shown]
    handles = list(shown.values())
    if any(line.get_color() == IDEAL_STYLE["color"] for ax in axes for line in ax.get_lines()):
        labels.append("ideal")
        ideal = ideal_style()
        handles.append(Line2D([], [], **{**ideal, "linewidth": ideal["linewidth"] * 0.75}))
    for handle, label in clip_legend_entry(axes):
        labels.append(label)
        handles.append(handle)
    characters = int(width * 72 / (0.55 * (font_size - 1)))  # a line of the title fits the width
    figure.legend(handles, labels, loc="outside lower center", frameon=False, ncol=columns, handlelength=2.2,
                  columnspacing=1.2, labelspacing=0.25, title="\n".join(textwrap.fill(line, characters) for line in title),
                  title_fontsize=font_size - 1)
