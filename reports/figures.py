"""Figures as small multiples: the atlas, one figure per scenario, efficiency, bounds, cost, agreement.

As in Zaidi et al. (2022), Figures 4, 5, 7, 8 (scores against the swept parameter)
and 9 (estimation error against n).  The atlas puts every sub-score (rows) against
every scenario (columns), one figure per family; a scenario's figure has one panel
per property, each line with its own colour and marker (:class:`reports._style.StyleRegistry`)
and a compact legend beside its panel.  Scores are oriented so that higher is better
(a lower-is-better sub-score is drawn as ``1 - score`` and labelled so), on a fixed
[-0.05, 1.05] axis: a mean outside it is clipped to the edge, drawn with a red
triangle and named in a note.  Bounds bars follow Tokui and Sato (2022), Figure 3b.
Drawing uses matplotlib's object API on the Agg canvas and never touches pyplot's
global state.
"""

from __future__ import annotations

import functools
import io
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from reports._style import (
    COLUMN_WIDTH, IDEAL_STYLE, PAGE_WIDTH, StyleRegistry, legend_columns, paper_style, wrap_label,
)
from reports._table import at_largest_n, check_results, family_rank, ideal_table, score_label, scenarios_testing, seed_summary
from reports.schema import PROPERTIES

#: A numeric parameter spanning at least this ratio is drawn on a log axis.
LOG_AXIS_RATIO = 100.0
#: The score axis; means beyond it are clipped and marked.
SCORE_LIMITS = (-0.05, 1.05)
#: Most sub-score rows in one atlas figure (a family with more is split).
ATLAS_ROWS = 10
#: Atlas geometry in inches: height of a row, room for the titles above, the ticks below, the labels left.
ATLAS_ROW_INCHES, ATLAS_TOP_INCHES, ATLAS_BOTTOM_INCHES, ATLAS_LEFT_INCHES = 0.62, 0.75, 0.25, 1.1
#: Longest line of an atlas row label, in characters (what fits in :data:`ATLAS_LEFT_INCHES` at its font).
ATLAS_LABEL_CHARACTERS = 20
#: Font size (points) of an ideal trajectory's label, and the score distance below which two labels ending at the
#: same value would overlap (a panel of about 1.4 inches spans 1.1 score units: 6 points are about 0.07).
IDEAL_LABEL_SIZE, IDEAL_LABEL_CLOSE = 5, 0.1
#: Right edge of an atlas's panels (a fraction of its width), the gap between its columns (a fraction of a
#: panel's width), the font size of its column titles (points), and the width of their widest characters (ems).
ATLAS_RIGHT, ATLAS_WSPACE, ATLAS_TITLE_SIZE, ATLAS_CHARACTER_EMS = 0.99, 0.18, 4.5, 0.62
CLIP_MARKER = {"color": "#CC3311", "markersize": 4.0, "linestyle": "none", "zorder": 5}
#: Height of one legend row at the paper style's legend font, in inches.
LEGEND_ROW_INCHES = 0.12
#: Width of a legend entry's handle and spacing, and of one character of its label, at that font, in inches.
LEGEND_HANDLE_INCHES, LEGEND_CHARACTER_INCHES = 0.45, 0.05
#: Characters of a 5-point note per inch of figure width.
NOTE_CHARACTERS_PER_INCH = 24
HATCHES = ("", "////", "....", "xxxx", "\\\\\\\\", "++++")


@dataclass
class Drawn:
    """A figure and the notes its caption must carry (clipped values, ...)."""

    figure: Figure
    notes: list[str] = field(default_factory=list)


def save(figure: Figure, directory: Path, key: str) -> bytes:
    """Write ``key.png`` (200 dpi) and ``key.svg`` under ``directory``; return the PNG bytes.

    Both files depend only on the figure: the SVG has no date and its element ids are
    salted with ``key`` (matplotlib salts them with a random uuid otherwise), so a
    report redrawn from the same results is the same byte for byte.
    """
    directory.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=200)
    png = buffer.getvalue()
    figure.set_layout_engine("none")  # keep the layout just computed; the SVG needs no second pass
    (directory / f"{key}.png").write_bytes(png)
    with matplotlib.rc_context({"svg.hashsalt": key}):
        figure.savefig(directory / f"{key}.svg", format="svg", metadata={"Date": None})
    return png


def _is_categorical(rows: pd.DataFrame) -> bool:
    pairs = rows[["value", "value_label"]].drop_duplicates()
    return any(label != f"{value:g}" for value, label in pairs.itertuples(index=False))


def _format_axis(ax, rows: pd.DataFrame, parameter: str, *, label: bool = True) -> None:
    """Categorical labels, a log axis for wide ranges, integer ticks for integer parameters."""
    values = np.sort(rows["value"].unique())
    if _is_categorical(rows):
        labels = rows.drop_duplicates("value").set_index("value")["value_label"]
        ax.set_xticks(values, [labels[v] for v in values], rotation=30, ha="right")
    elif values.min() > 0 and values.max() / values.min() >= LOG_AXIS_RATIO:
        ax.set_xscale("log")
    elif np.allclose(values, np.round(values)):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if label:
        ax.set_xlabel(parameter)


def _clip(ax, x: np.ndarray, mean: np.ndarray, label: str, where: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Means clipped to :data:`SCORE_LIMITS`, clipped points marked; a note per clipped curve."""
    low, high = SCORE_LIMITS
    outside = (mean < low) | (mean > high)
    if not outside.any():
        return mean, []
    clipped = np.clip(mean, low, high)
    ax.plot(x[mean > high], clipped[mean > high], marker="^", **CLIP_MARKER)
    ax.plot(x[mean < low], clipped[mean < low], marker="v", **CLIP_MARKER)
    extreme = int(np.argmax(np.abs(mean - clipped)))
    return clipped, [f"{label} reaches {mean[extreme]:.2f} at {where.iloc[extreme]} (clipped, red triangle)."]


def _draw_scores(ax, summary: pd.DataFrame, x: str, registry: StyleRegistry, *, clip: bool = True,
                 markers: bool = True) -> list[str]:
    """One line (mean) and band (± std) per sub-score; returns the clipping notes."""
    notes = []
    for (metric, sub_score, higher), curve in summary.groupby(["metric", "sub_score", "higher_is_better"]):
        curve = curve.sort_values(x)
        style = registry(metric, sub_score)
        label = score_label(metric, sub_score, bool(higher))
        xs, mean, std = curve[x].to_numpy(), curve["mean"].to_numpy(), curve["std"].to_numpy()
        if clip:
            shown, clipped = _clip(ax, xs, mean, label, curve.get("value_label", curve[x]))
            notes += clipped
            low, high = np.clip(mean - std, *SCORE_LIMITS), np.clip(mean + std, *SCORE_LIMITS)
        else:
            shown, low, high = mean, mean - std, mean + std
        line = style.line() if markers else {**style.line(), "marker": None}
        ax.plot(xs, shown, label=label, **line)
        ax.fill_between(xs, low, high, color=style.colour, alpha=0.12, linewidth=0)
    return notes


def _ideal_points(ideals: pd.DataFrame, prop: str, values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The ideal of ``prop`` at every one of ``values`` (NaN where the scenario states none), sorted by value.

    A composed scenario may state an ideal at some values only (``redundancy_attack@leaky=0.25``: modularity
    at alpha = 0); the NaN between them breaks the line instead of joining values the scenario says nothing of.
    """
    line = ideals.loc[ideals["property"] == prop].set_index("value")["ideal"]
    line = line.reindex(sorted(set(values) | set(line.index)))
    return line.index.to_numpy(dtype=float), line.to_numpy(dtype=float)


def _plot_ideal(ax, x: np.ndarray, y: np.ndarray, label: str | None) -> None:
    """The ideal in :data:`IDEAL_STYLE`; a value whose neighbours have no ideal is a square (a line of one point is invisible)."""
    ax.plot(x, y, label=label, **IDEAL_STYLE)
    known = np.isfinite(y)
    isolated = known & ~np.r_[False, known[:-1]] & ~np.r_[known[1:], False]
    if isolated.any():
        ax.plot(x[isolated], y[isolated], linestyle="none", marker="s", markersize=5, markeredgewidth=0,
                color=IDEAL_STYLE["color"], zorder=IDEAL_STYLE["zorder"])


def _draw_ideal(ax, ideals: pd.DataFrame, prop: str, values: Sequence[float], *, label: bool = True) -> None:
    x, y = _ideal_points(ideals, prop, values)
    if np.isfinite(y).any():
        _plot_ideal(ax, x, y, "ideal" if label else None)


def _score_axis(ax) -> None:
    ax.set_ylim(*SCORE_LIMITS)
    ax.set_yticks([0.0, 0.5, 1.0])


def _side_legend(ax, panel_height: float) -> None:
    """A legend beside the panel, in as many columns as it takes to stay within the panel's height."""
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    order = sorted(range(len(labels)), key=lambda i: labels[i] != "ideal")  # the ideal first
    labels = [wrap_label(label) for label in labels]  # a long name would push the legend off the figure
    rows = max(1, int((panel_height - 0.6) / LEGEND_ROW_INCHES))  # the axes is the panel less its title and ticks
    lines = sum(label.count("\n") + 1 for label in labels)
    ax.legend([handles[i] for i in order], [labels[i] for i in order], loc="center left", bbox_to_anchor=(1.01, 0.5),
              frameon=False, ncol=legend_columns(lines, rows), handlelength=2.2, columnspacing=0.8,
              borderaxespad=0.2, labelspacing=0.25)


def _summary(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean and std over seeds of the oriented score per ``keys`` (higher_is_better kept)."""
    return seed_summary(rows, keys + ["higher_is_better"])


def scenario_figure(results: pd.DataFrame, scenario: str, *, registry: StyleRegistry | None = None) -> Drawn:
    """Scores against the parameter of ``scenario``: one panel per property, legends beside the panels.

    The scenario is drawn at its largest sample size.
    """
    registry = registry or StyleRegistry(results)
    rows = at_largest_n(results.loc[results["scenario"] == scenario])
    if rows.empty:
        raise ValueError(f"no rows for scenario {scenario!r}")
    summary = _summary(rows, ["value", "value_label", "metric", "sub_score", "property"])
    ideals = ideal_table(rows)
    properties = [p for p in PROPERTIES if p in set(summary["property"])]
    panel_height = 1.7
    notes: list[str] = []
    with paper_style():
        figure = Figure(figsize=(PAGE_WIDTH, panel_height * len(properties) + 0.5), layout="constrained")
        axes = figure.subplots(len(properties), 1, squeeze=False, sharex=True)[:, 0]
        for ax, prop in zip(axes, properties):
            _draw_ideal(ax, ideals, prop, rows["value"].unique())
            notes += _draw_scores(ax, summary.loc[summary["property"] == prop], "value", registry)
            _format_axis(ax, rows, rows["parameter"].iloc[0], label=ax is axes[-1])
            _score_axis(ax)
            ax.set_title(prop, loc="left")
            ax.set_ylabel("score")
            _side_legend(ax, panel_height)
        seeds = int(rows["seed"].nunique())
        figure.suptitle(f"{scenario} (n = {int(rows['n_samples'].max())}, {seeds} seed{'s' if seeds != 1 else ''})",
                        fontsize=8)
    return Drawn(figure, notes)


def atlas_figures(results: pd.DataFrame, registry: StyleRegistry) -> list[tuple[str, Drawn]]:
    """Small multiples: rows = sub-scores, columns = scenarios, one figure per family (split past :data:`ATLAS_ROWS`).

    Each panel: mean score ± one standard deviation over seeds against the scenario's
    parameter at its largest n, and the ideal trajectory of the sub-score's property.
    Scenarios testing sample efficiency are left out (their figure is the efficiency curve).
    """
    return [(name, draw()) for name, draw in atlas_drawers(results, registry)]


def atlas_drawers(results: pd.DataFrame, registry: StyleRegistry) -> list[tuple[str, Callable[[], Drawn]]]:
    """:func:`atlas_figures` not drawn yet: (name, a picklable call that draws it), holding only the rows it draws."""
    shown = results.loc[~results["scenario"].isin(scenarios_testing(results, "sample_efficiency"))]
    shown = pd.concat([at_largest_n(own) for _, own in shown.groupby("scenario")])
    scenarios = sorted(shown["scenario"].unique())
    summary = _summary(shown, ["scenario", "value", "value_label", "metric", "sub_score", "family", "property"])
    ideals = ideal_table(shown)
    axis_values = shown[["scenario", "value", "value_label"]].drop_duplicates()  # all an atlas axis reads
    drawers = []
    for family in sorted(summary["family"].unique(), key=family_rank):
        own = summary.loc[summary["family"] == family]
        columns = [scenario for scenario in scenarios if scenario in set(own["scenario"])]  # no empty column
        scores = own[["metric", "sub_score", "property", "higher_is_better"]].drop_duplicates().sort_values(["metric", "sub_score"])
        chunks = [scores.iloc[i:i + ATLAS_ROWS] for i in range(0, len(scores), ATLAS_ROWS)]
        for number, chunk in enumerate(chunks, start=1):
            name = family if len(chunks) == 1 else f"{family}_{number}"
            drawers.append((name, functools.partial(_atlas, own, chunk, columns, ideals, axis_values, registry, name)))
    return drawers


def _atlas(summary: pd.DataFrame, scores: pd.DataFrame, scenarios: list[str], ideals: pd.DataFrame,
           rows: pd.DataFrame, registry: StyleRegistry, title: str) -> Drawn:
    """One atlas figure.  Margins are fixed in inches (no layout engine: hundreds of panels would take it minutes)."""
    notes: list[str] = []
    curves = dict(tuple(summary.groupby(["scenario", "metric", "sub_score"])))
    ideals_of = dict(tuple(ideals.groupby("scenario")))
    rows_of = dict(tuple(rows.groupby("scenario")))
    height = ATLAS_ROW_INCHES * len(scores) + ATLAS_TOP_INCHES + ATLAS_BOTTOM_INCHES
    with paper_style():
        figure = Figure(figsize=(PAGE_WIDTH, height))
        figure.subplots_adjust(left=ATLAS_LEFT_INCHES / PAGE_WIDTH, right=ATLAS_RIGHT, top=1 - ATLAS_TOP_INCHES / height,
                               bottom=ATLAS_BOTTOM_INCHES / height, wspace=ATLAS_WSPACE, hspace=0.2)
        # no sharex/sharey: with hundreds of panels every shared draw re-reads every sibling; limits are set instead
        grid = figure.subplots(len(scores), len(scenarios), squeeze=False)
        spans = {scenario: _span(rows_of[scenario]["value"]) for scenario in scenarios}
        for i, (metric, sub_score, prop, higher) in enumerate(scores.itertuples(index=False)):
            for j, scenario in enumerate(scenarios):
                ax = grid[i, j]
                _score_axis(ax)
                ax.set_autoscale_on(False)
                ax.set_xlim(*spans[scenario])
                curve = curves.get((scenario, metric, sub_score))
                if scenario in ideals_of:
                    _draw_ideal(ax, ideals_of[scenario], prop, rows_of[scenario]["value"].unique(), label=False)
                if curve is not None:
                    notes += [f"{scenario}: {note}" for note in _draw_scores(ax, curve, "value", registry, markers=False)]
                ax.tick_params(labelsize=4, length=1.5, pad=1)
                if i == 0:
                    ax.set_title(_wrapped(scenario, len(scenarios)), fontsize=ATLAS_TITLE_SIZE)
                if i == len(scores) - 1:
                    _atlas_axis(ax, rows_of[scenario])
                else:
                    ax.tick_params(axis="x", labelbottom=False)
                if j == 0:
                    label = score_label(metric, sub_score, bool(higher)).replace("/", "/\n").replace(" (", "\n(")
                    ax.set_ylabel("\n".join(wrap_label(line, ATLAS_LABEL_CHARACTERS) for line in label.split("\n")),
                                  rotation=0, ha="right", va="center", fontsize=5,
                                  color=registry(metric, sub_score).colour)
                else:
                    ax.tick_params(axis="y", labelleft=False)
        figure.suptitle(f"atlas: {title}", fontsize=8, y=1 - 0.08 / height)
    return Drawn(figure, notes)


def _span(values: pd.Series) -> tuple[float, float]:
    """The x range of a panel: the values with a 5 % margin (multiplicative on a log axis)."""
    low, high = float(values.min()), float(values.max())
    if low > 0 and high / low >= LOG_AXIS_RATIO:
        return low / 1.3, high * 1.3
    pad = 0.05 * (high - low) if high > low else 0.5
    return low - pad, high + pad


def _wrapped(name: str, columns: int) -> str:
    """A scenario name as written, in lines that fit an atlas column title of ``columns`` columns.

    Broken after ``_``, ``@`` and ``=`` (``synergy_attack@partial@noise=0.2=4``) at about as many characters as fit
    (:func:`_title_characters`); a piece still wider than the column and its gap, measured in the title's font, is
    cut where it fits (``categorical`` and ``redundancy_`` keep their lines at 14 columns).
    """
    room = _title_points(columns)
    lines = []
    for line in wrap_label(name, _title_characters(columns), breaks="_@=").split("\n"):
        while len(line) > 1 and _text_points(line) > room:
            fits = max([1] + [size for size in range(1, len(line)) if _text_points(line[:size]) <= room])
            lines.append(line[:fits])
            line = line[fits:]
        lines.append(line)
    return "\n".join(lines)


def _title_points(columns: int) -> float:
    """Width (points) an atlas column title may take: its column and the gap beside it."""
    panels = PAGE_WIDTH * (ATLAS_RIGHT - ATLAS_LEFT_INCHES / PAGE_WIDTH)
    return 72 * panels / (columns + ATLAS_WSPACE * (columns - 1)) * (1 + ATLAS_WSPACE)


def _title_characters(columns: int) -> int:
    """Characters of an atlas column title's line: about what fits :func:`_title_points` at :data:`ATLAS_TITLE_SIZE` points."""
    return max(4, int(_title_points(columns) / (ATLAS_CHARACTER_EMS * ATLAS_TITLE_SIZE)))


@functools.lru_cache(maxsize=4096)
def _text_points(text: str) -> float:
    """Width (points) of ``text`` in an atlas column title's font."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    return TextToPath().get_text_width_height_descent(text, FontProperties(size=ATLAS_TITLE_SIZE), ismath=False)[0]


def _atlas_axis(ax, rows: pd.DataFrame) -> None:
    """The x axis of an atlas panel: at most three ticks; categorical values unlabelled (their names do not fit)."""
    values = np.sort(rows["value"].unique())
    if _is_categorical(rows):
        ax.set_xticks(values, [""] * len(values))
        return
    if values.min() > 0 and values.max() / values.min() >= LOG_AXIS_RATIO:
        ax.set_xscale("log")
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=3, integer=bool(np.allclose(values, np.round(values)))))
    ax.tick_params(axis="x", labelsize=3.5)


def efficiency_figure(efficiency: pd.DataFrame, *, registry: StyleRegistry) -> Drawn:
    """Mean ``|score(n) - score(n_max)|`` against n, one panel per family (review Figure 9)."""
    summary = efficiency.rename(columns={"mean_abs_difference": "mean", "std_abs_difference": "std"}).assign(
        higher_is_better=True)
    families = sorted(summary["family"].unique(), key=family_rank)
    panel_height = 1.7
    with paper_style():
        figure = Figure(figsize=(PAGE_WIDTH, panel_height * len(families) + 0.5), layout="constrained")
        axes = figure.subplots(len(families), 1, squeeze=False, sharex=True)[:, 0]
        for ax, family in zip(axes, families):
            _draw_scores(ax, summary.loc[summary["family"] == family], "n", registry, clip=False)
            ax.set_xscale("log")
            ax.set_xticks(sorted(summary["n"].unique()), [str(int(n)) for n in sorted(summary["n"].unique())])
            ax.set_ylabel("mean |s(n) − s(n_max)|")
            ax.set_title(family, loc="left")
            _side_legend(ax, panel_height)
        axes[-1].set_xlabel("n")
        figure.suptitle(f"sample efficiency (n_max = {int(summary['n_max'].max())})", fontsize=8)
    return Drawn(figure)


def _bound_terms(sub_scores: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Term -> (lower sub-score, upper sub-score); a term without bounds maps to itself twice."""
    terms: dict[str, tuple[str, str]] = {}
    for name in sorted(sub_scores):
        base = name.rsplit("_", 1)[0]
        if name.endswith(("_lower", "_upper")) and {f"{base}_lower", f"{base}_upper"} <= set(sub_scores):
            terms[base] = (f"{base}_lower", f"{base}_upper")
        else:
            terms[name] = (name, name)
    return terms


def bounded_metrics(results: pd.DataFrame) -> list[str]:
    """Metrics whose sub-scores come in ``<term>_lower`` / ``<term>_upper`` pairs (PID estimates)."""
    sub_scores = results.groupby("metric")["sub_score"].unique()
    return sorted(metric for metric, names in sub_scores.items()
                  if any(lower != upper for lower, upper in _bound_terms(list(names)).values()))


def bounds_figure(results: pd.DataFrame, metric: str, *, registry: StyleRegistry) -> Drawn:
    """A bounded metric's terms per scenario and value, with the span between each term's bounds.

    As in Tokui and Sato (2022), Figure 3b: a term's bar is solid up to the mean (over
    seeds) of its lower bound and pale from there up to the mean of its upper bound.
    A sub-score without bounds is a solid bar with one standard deviation as error
    bar.  Only scenarios testing entanglement attacks are drawn when the metric has
    them.  Where the results' column ``exact`` holds closed-form values (NaN where
    unknown), they are drawn as black ticks on the bars.  Raw scores (no
    orientation: the terms are information quantities).
    """
    rows = at_largest_n(results.loc[results["metric"] == metric])
    if rows.empty:
        raise ValueError(f"no rows for metric {metric!r}")
    attacks = rows["scenario"].isin(scenarios_testing(results, "attacks"))
    rows = rows.loc[attacks] if attacks.any() else rows
    keys = ["scenario", "value", "value_label", "sub_score"]
    summary = rows.groupby(keys)["score"].agg(mean="mean", std="std").reset_index().fillna({"std": 0.0})
    closed_form = "exact" in rows.columns and bool(rows["exact"].notna().any())
    if closed_form:
        summary = summary.merge(rows.groupby(keys)["exact"].mean().reset_index(), on=keys, how="left")
    scenarios = sorted(summary["scenario"].unique())
    terms = _bound_terms(list(summary["sub_score"].unique()))
    width = 0.8 / len(terms)
    colour = registry.metric(metric).colour
    with paper_style():
        figure = Figure(figsize=(PAGE_WIDTH, 1.6 * -(-len(scenarios) // 2) + 0.6), layout="constrained")
        axes = list(figure.subplots(-(-len(scenarios) // 2), min(2, len(scenarios)), squeeze=False).flat)
        for unused in axes[len(scenarios):]:
            unused.set_visible(False)
        for ax, scenario in zip(axes, scenarios):
            shown = summary.loc[summary["scenario"] == scenario].set_index(["sub_score", "value"])
            values = np.sort(shown.index.get_level_values("value").unique())
            labels = shown.reset_index().drop_duplicates("value").set_index("value")["value_label"]
            for rank, (term, (lower, upper)) in enumerate(terms.items()):
                x = np.arange(len(values)) + (rank - (len(terms) - 1) / 2) * width
                low = shown["mean"].reindex([(lower, v) for v in values]).to_numpy()
                high = shown["mean"].reindex([(upper, v) for v in values]).to_numpy()
                style = {"color": colour, "hatch": HATCHES[rank % len(HATCHES)], "edgecolor": "white", "linewidth": 0.3}
                if lower == upper:
                    spread = shown["std"].reindex([(upper, v) for v in values]).to_numpy()
                    ax.bar(x, high, width, yerr=spread, label=term, error_kw={"linewidth": 0.6}, **style)
                else:
                    ax.bar(x, low, width, label=term, **style)
                    ax.bar(x, high - low, width, bottom=low, alpha=0.35, **style)
                if closed_form:
                    exact = shown["exact"].reindex([(lower, v) for v in values]).to_numpy()
                    ax.plot(x, exact, marker="_", markersize=7, color="black", linestyle="none",
                            label="closed form" if rank == 0 else None)
            ax.set_xticks(np.arange(len(values)), [labels[v] for v in values])
            ax.set_xlabel(rows.loc[rows["scenario"] == scenario, "parameter"].iloc[0])
            ax.set_ylabel(metric)
            ax.set_title(scenario, loc="left")
        handles, names = axes[0].get_legend_handles_labels()
        figure.legend(handles, names, loc="outside lower center", frameon=False, ncol=min(len(names), 6))
    return Drawn(figure)


def cost_figure(by_n: pd.DataFrame, *, registry: StyleRegistry) -> Drawn:
    """Median seconds per call against n on log-log axes, one line per metric in its registry style."""
    metrics = sorted(by_n["metric"].unique())
    height = 3.2
    with paper_style():
        figure = Figure(figsize=(PAGE_WIDTH, height), layout="constrained")
        ax = figure.subplots()
        for metric in metrics:
            curve = by_n.loc[by_n["metric"] == metric]
            ax.plot(curve["n"], curve["median_seconds"], label=metric, **registry.metric(metric).line())
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("median seconds per call")
        ax.set_title("cost growth", loc="left")
        _side_legend(ax, height - 0.6)
    return Drawn(figure)


def agreement_figure(matrix: pd.DataFrame) -> Drawn:
    """Kendall's tau between sub-scores as a heat map, as the review's Figure 3 (x100 in the cells); undefined ones hatched grey."""
    size = len(matrix)
    side = min(PAGE_WIDTH, max(COLUMN_WIDTH, 0.2 * size + 1.6))
    values = matrix.to_numpy(dtype=float)
    with paper_style():
        figure = Figure(figsize=(side, side), layout="constrained")
        ax = figure.subplots()
        image = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=-1, vmax=1)
        for i, j in zip(*np.nonzero(~np.isfinite(values))):
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="#DDDDDD", edgecolor="#888888",
                                   hatch="////", linewidth=0))
        ax.set_xticks(range(size), [wrap_label(label) for label in matrix.columns], rotation=90, fontsize=5)
        ax.set_yticks(range(size), [wrap_label(label) for label in matrix.index], fontsize=5)
        if size <= 24:
            for i, j in zip(*np.nonzero(np.isfinite(values))):
                ax.text(j, i, f"{100 * values[i, j]:.0f}", ha="center", va="center", fontsize=3.5,
                        color="white" if abs(values[i, j]) > 0.6 else "black")
        title = ("Agreement: Kendall's τ-b between sub-scores' rankings; hatched grey: undefined (a constant score, "
                 "or no representation both scored)")
        # above the figure, not the axes: long tick labels push the axes right and a left-aligned title off the figure
        figure.suptitle(textwrap.fill(title, width=int(side * 14)), fontsize=7, x=0.02, ha="left")
        figure.colorbar(image, ax=ax, shrink=0.6, label="Kendall's τ-b")
    return Drawn(figure)


def _label_ideals(ax, ideals: pd.DataFrame, properties: Sequence[str], values: Sequence[float]) -> None:
    """Each distinct ideal trajectory once, in :data:`IDEAL_STYLE`, labelled at its end with the properties it is the ideal of."""
    trajectories: dict[tuple, list[str]] = {}
    for prop in properties:
        x, y = _ideal_points(ideals, prop, values)
        if np.isfinite(y).any():
            key = tuple((round(a, 9), round(b, 9) if np.isfinite(b) else None) for a, b in zip(x, y))
            trajectories.setdefault(key, []).append(prop)
    anchors = []
    for points, names in trajectories.items():
        x = np.array([a for a, _ in points])
        y = np.array([np.nan if b is None else b for _, b in points])
        _plot_ideal(ax, x, y, None)
        last = np.flatnonzero(np.isfinite(y))[-1]
        anchors.append((x[last], y[last], "ideal " + ", ".join(names)))
    for (x_end, y_end, text), offset in zip(anchors, _spread_offsets([(x, y) for x, y, _ in anchors])):
        ax.annotate(text, (x_end, y_end), fontsize=IDEAL_LABEL_SIZE, color="#777777", xytext=(2, offset),
                    textcoords="offset points", va="center")


def _spread_offsets(anchors: Sequence[tuple[float, float]]) -> list[float]:
    """Vertical offsets (points) of labels at ``anchors`` (x, score) so that none overlaps another.

    Labels ending at the same x whose scores lie within :data:`IDEAL_LABEL_CLOSE` of each other
    (0.7997 and 0.8: two ideals that differ in the fourth digit) form a group, spread
    :data:`IDEAL_LABEL_SIZE` + 1 points apart about their anchors' middle, highest score on top.
    """
    offsets = [0.0] * len(anchors)
    by_end: dict[float, list[int]] = {}
    for i, (x, _) in enumerate(anchors):
        by_end.setdefault(round(float(x), 9), []).append(i)
    for members in by_end.values():
        members.sort(key=lambda i: anchors[i][1])
        groups = [[members[0]]] if members else []
        for i in members[1:]:
            if anchors[i][1] - anchors[groups[-1][-1]][1] < IDEAL_LABEL_CLOSE:
                groups[-1].append(i)
            else:
                groups.append([i])
        for group in groups:
            for rank, i in enumerate(group):
                offsets[i] = (rank - (len(group) - 1) / 2) * (IDEAL_LABEL_SIZE + 1)
    return offsets


def _legend_grid(labels: Sequence[str]) -> tuple[int, float]:
    """Columns of a legend of ``labels`` spanning :data:`PAGE_WIDTH`, and its height in inches."""
    longest = max((len(line) for label in labels for line in label.split("\n")), default=1)
    columns = max(1, min(len(labels), int(PAGE_WIDTH / (LEGEND_HANDLE_INCHES + LEGEND_CHARACTER_INCHES * longest))))
    lines = sum(label.count("\n") + 1 for label in labels)
    return columns, LEGEND_ROW_INCHES * (-(-lines // columns) + 1)


def plot_comparison(
    results: pd.DataFrame,
    *,
    metrics: Sequence[str] | None = None,
    scenarios: Sequence[str] | None = None,
    out_file: str | Path,
    format: str | None = None,
) -> Path:
    """Compare chosen metrics on chosen scenarios in one figure, one panel per scenario.

    One legend below the panels, in as many columns as fit the width, serves them all;
    notes on clipped means sit above the panels.  A scenario is drawn at its largest
    sample size, except one testing sample efficiency, whose values are sample sizes.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table.  Styles come from the registry of all its metrics
        (:class:`reports._style.StyleRegistry`), so a sub-score looks as in the report.
    metrics, scenarios : sequence of str, optional
        Which to draw; default all.  The panels follow the order of ``scenarios``
        (default: sorted by name).
    out_file : str or pathlib.Path
        Where to write the figure.
    format : str, optional
        Any format matplotlib writes (png, svg, pdf, ...); default from the suffix
        of ``out_file``.

    Returns
    -------
    pathlib.Path
        ``out_file``.

    Raises
    ------
    ValueError
        For a metric or scenario absent from the results (the message lists those
        present), or when the selection leaves nothing to draw.
    """
    results = check_results(results)
    registry = StyleRegistry(results)
    for name, chosen, column in (("metric", metrics, "metric"), ("scenario", scenarios, "scenario")):
        unknown = sorted(set(chosen or ()) - set(results[column]))
        if unknown:
            raise ValueError(f"unknown {name}(s) {unknown}; the results have {sorted(results[column].unique())}")
    rows = results
    if metrics is not None:
        rows = rows.loc[rows["metric"].isin(metrics)]
    if scenarios is not None:
        rows = rows.loc[rows["scenario"].isin(scenarios)]
    sweeps_n = rows["scenario"].isin(scenarios_testing(rows, "sample_efficiency"))  # its values are the sample sizes
    rows = pd.concat([at_largest_n(rows.loc[~sweeps_n]), rows.loc[sweeps_n]])
    if rows.empty:
        raise ValueError("the chosen metrics were not run on the chosen scenarios: nothing to draw")
    present = set(rows["scenario"])
    shown_scenarios = list(dict.fromkeys(scenarios)) if scenarios is not None else sorted(present)
    shown_scenarios = [scenario for scenario in shown_scenarios if scenario in present]
    panel_height = 1.9
    entries = rows[["metric", "sub_score", "higher_is_better"]].drop_duplicates()
    labels = [wrap_label(score_label(*entry)) for entry in entries.itertuples(index=False)]
    columns, legend_height = _legend_grid(labels)
    notes: list[str] = []
    with paper_style():
        figure = Figure(figsize=(PAGE_WIDTH, panel_height * len(shown_scenarios) + 0.4 + legend_height),
                        layout="constrained")
        axes = figure.subplots(len(shown_scenarios), 1, squeeze=False)[:, 0]
        for ax, scenario in zip(axes, shown_scenarios):
            own = rows.loc[rows["scenario"] == scenario]
            summary = _summary(own, ["value", "value_label", "metric", "sub_score", "property"])
            ideals = ideal_table(results.loc[results["scenario"] == scenario])
            _label_ideals(ax, ideals, [p for p in PROPERTIES if p in set(summary["property"])], own["value"].unique())
            notes += [f"{scenario}: {note}" for note in _draw_scores(ax, summary, "value", registry)]
            _format_axis(ax, own, own["parameter"].iloc[0])
            _score_axis(ax)
            ax.set_title(scenario, loc="left")
            ax.set_ylabel("score")
        # one legend for every panel, below them (a sub-score looks the same in each), as many columns as fit the width
        shown = {}
        for ax in axes:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                shown.setdefault(label, handle)
        figure.legend(list(shown.values()), [wrap_label(label) for label in shown], loc="outside lower center",
                      frameon=False, ncol=columns, handlelength=2.2, columnspacing=1.2, labelspacing=0.25)
        if notes:  # above the panels, in the layout: a note drawn over the panels or the legend would hide them
            figure.suptitle(textwrap.fill(" ".join(notes), width=int(PAGE_WIDTH * NOTE_CHARACTERS_PER_INCH)),
                            fontsize=5, x=0.01, ha="left")
    out_file = Path(out_file)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out_file, format=format or out_file.suffix.lstrip(".") or "png", dpi=200)
    return out_file
