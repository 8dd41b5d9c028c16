"""The visual vocabulary of every figure: one colour per metric, one line style per property.

Colours are Paul Tol's "muted" qualitative scheme (designed to stay distinct under
the common colour-vision deficiencies), extended by black: simulated protanopia,
deuteranopia and tritanopia (Machado et al. 2009) keep every pair at least 15 CIELAB
units apart (a dark grey would fall to 1.4 under deuteranopia against the wine).
Metrics are sorted by family then name and coloured in turn, so the metrics of one
family (one facet) get distinct colours as long as a family has at most ten; beyond
ten metrics in a table, colours repeat, and the later metrics get other, hollow
markers.  Line style
encodes the property a sub-score measures, marker the sub-score within its metric, and
the ideal trajectory is a wide light-grey line in the property's style.
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Sequence

import matplotlib
import pandas as pd
from matplotlib.figure import Figure

from reports._table import family_rank

PALETTE = ("#332288", "#117733", "#CC6677", "#882255", "#44AA99", "#AA4499", "#999933", "#88CCEE", "#DDCC77", "#000000")
LINESTYLES = {"modularity": "-", "compactness": "--", "explicitness": ":", "holistic": "-."}
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
IDEAL_COLOUR = "#BBBBBB"
#: Width of one column of a two-column paper, in inches; figures are drawn at this width.
COLUMN_WIDTH = 3.5
PANEL_HEIGHT = 1.55
FONT_SIZE = 7


def _ranked_metrics(results: pd.DataFrame) -> list[str]:
    families = results.groupby("metric")["family"].first()
    return sorted(families.index, key=lambda metric: (family_rank(families[metric]), metric))


def metric_colours(results: pd.DataFrame) -> dict[str, str]:
    """Metric name -> colour, from every metric of ``results`` (so subsets keep their colours)."""
    return {metric: PALETTE[rank % len(PALETTE)] for rank, metric in enumerate(_ranked_metrics(results))}


def sub_score_markers(results: pd.DataFrame) -> dict[tuple[str, str], tuple[str, str]]:
    """(metric, sub_score) -> (marker, fill style).

    Markers cycle over each metric's sub-scores.  Metrics past the first
    ``len(PALETTE)``, whose colour repeats an earlier metric's, start further along
    the marker cycle and are drawn hollow, so two metrics never share colour, line
    style and marker.
    """
    repeat = {metric: rank // len(PALETTE) for rank, metric in enumerate(_ranked_metrics(results))}
    markers = {}
    for metric, sub_scores in results.groupby("metric")["sub_score"].unique().items():
        for rank, sub_score in enumerate(sorted(sub_scores)):
            marker = MARKERS[(3 * repeat[metric] + rank) % len(MARKERS)]
            markers[(metric, sub_score)] = (marker, "none" if repeat[metric] % 2 else "full")
    return markers


@contextlib.contextmanager
def paper_style() -> Iterator[None]:
    """Matplotlib settings for figures printed at :data:`COLUMN_WIDTH`."""
    settings = {
        "font.size": FONT_SIZE,
        "axes.titlesize": FONT_SIZE + 1,
        "axes.labelsize": FONT_SIZE,
        "xtick.labelsize": FONT_SIZE - 1,
        "ytick.labelsize": FONT_SIZE - 1,
        "legend.fontsize": FONT_SIZE - 1,
        "lines.linewidth": 1.1,
        "lines.markersize": 3.0,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "svg.fonttype": "none",
        "svg.hashsalt": "reports",
    }
    with matplotlib.rc_context(settings):
        yield


def legend_columns(labels: Sequence[str]) -> int:
    """How many legend columns fit in :data:`COLUMN_WIDTH` for these labels (1 to 3)."""
    if not labels:
        return 1
    points_per_char = 0.55 * (FONT_SIZE - 1)
    column_points = max(len(label) for label in labels) * points_per_char + 32  # handle and spacing
    return max(1, min(3, int(COLUMN_WIDTH * 72 // column_points)))


def new_figure(panels: int, *, legend_labels: Sequence[str] = (), columns: int = 2) -> tuple[Figure, list]:
    """A figure of ``panels`` axes in a grid ``columns`` wide, with room for a legend below."""
    columns = max(1, min(columns, panels))
    rows = -(-panels // columns)
    legend_rows = -(-len(legend_labels) // legend_columns(legend_labels))
    height = rows * PANEL_HEIGHT + 0.35 + 0.13 * legend_rows
    figure = Figure(figsize=(COLUMN_WIDTH, height), layout="constrained")
    grid = figure.subplots(rows, columns, squeeze=False)
    axes = list(grid.flat)
    for unused in axes[panels:]:
        unused.set_visible(False)
    return figure, axes[:panels]


def add_legend(figure: Figure, axes: list) -> None:
    """One legend below all panels, each entry once, ideal trajectories last."""
    entries: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    entries = dict(sorted(entries.items(), key=lambda item: item[0].startswith("ideal ")))
    if entries:
        figure.legend(list(entries.values()), list(entries), loc="outside lower center", frameon=False,
                      ncol=legend_columns(list(entries)), handlelength=3.0, columnspacing=1.0)
