"""The visual vocabulary of every figure: one registry of styles per metric and sub-score.

:class:`StyleRegistry` gives every (metric, sub_score) of a results table a colour,
a marker and a line style, and every figure of the report and of ``plot`` asks it,
so a sub-score looks the same everywhere.  Colours are Paul Tol's "muted"
qualitative scheme (distinct under the common colour-vision deficiencies) extended
by black.  Every metric of the metric registry (:mod:`metrics.registry`) has a fixed
style: the registered metrics are sorted by family then name and coloured in turn,
whatever a results table holds, so ``mig`` has the same colour in every run and
figure; a registered metric's line style says which round of the palette it is in
(solid for the first ten, dashed for the next ten, ...).  Metrics the registry does
not know (a user's function, a variant of an option sweep such as ``mig[bins=5]``)
come after them, sorted the same way, each in the colour the table's metrics use
least.  Markers are handed out so that no two sub-scores share both colour and marker.  The ideal trajectory is one distinct style
(:data:`IDEAL_STYLE`: a wide light-grey line, labelled), never used by a score.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Iterator

import matplotlib
import pandas as pd

from metrics.registry import available, get
from reports._table import family_rank

PALETTE = ("#332288", "#117733", "#CC6677", "#882255", "#44AA99", "#AA4499", "#999933", "#88CCEE", "#DDCC77", "#000000")
LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p")
#: The ideal trajectory: wide, light grey, behind the scores.
IDEAL_STYLE = {"color": "#BBBBBB", "linewidth": 4.0, "linestyle": "-", "solid_capstyle": "butt", "zorder": 0}
#: Width of one column of a two-column paper and of an A4 text block, in inches.
COLUMN_WIDTH, PAGE_WIDTH = 3.5, 7.0
FONT_SIZE = 7
#: Longest line of a legend entry, in characters: a longer name is broken (:func:`wrap_label`).
LABEL_CHARACTERS = 36


@dataclass(frozen=True)
class Style:
    """How one sub-score is drawn."""

    colour: str
    marker: str
    linestyle: str

    def line(self) -> dict:
        """Keyword arguments of :meth:`matplotlib.axes.Axes.plot`."""
        return {"color": self.colour, "marker": self.marker, "linestyle": self.linestyle}


class StyleRegistry:
    """Colour, marker and line style of every metric and sub-score of a results table.

    A registered metric's rank in :func:`registered_order` gives its colour
    (``PALETTE[rank % 10]``) and line style (``LINESTYLES[rank // 10]``), whatever else
    the table holds, so it looks the same in results tables with different metric sets.
    The table's other metrics (a user's, variants such as ``mig[bins=5]``), sorted by
    family then name after them, each take the colour drawn least so far by the
    table's metrics (the first in palette order on a tie) and the first line style no
    metric of the table draws in that colour.  The sub-scores, in that order and each metric's sorted, take the
    first markers not yet used by another sub-score of the same colour (a registered
    metric missing from the table keeps its markers reserved).
    """

    def __init__(self, results: pd.DataFrame) -> None:
        families = results.groupby("metric")["family"].first()
        sub_scores = {metric: set(scores) for metric, scores in results.groupby("metric")["sub_score"].unique().items()}
        registered = registered_order()
        others = sorted(set(families.index) - set(registered), key=lambda metric: (family_rank(families[metric]), metric))
        drawn = {colour: 0 for colour in PALETTE}  # metrics of the table drawn in each colour so far
        lines: dict[str, set[str]] = {colour: set() for colour in PALETTE}  # their line styles, by colour
        used: dict[str, list[str]] = {}
        self._styles: dict[tuple[str, str], Style] = {}
        self._metrics: dict[str, Style] = {}
        for rank, metric in enumerate(registered + others):
            if rank < len(registered):
                colour = PALETTE[rank % len(PALETTE)]
                linestyle = LINESTYLES[(rank // len(PALETTE)) % len(LINESTYLES)]
            else:  # the colour least drawn so far, so that a few metrics of a figure never share one
                colour = min(PALETTE, key=lambda candidate: drawn[candidate])
                free_lines = [line for line in LINESTYLES if line not in lines[colour]]
                linestyle = free_lines[0] if free_lines else LINESTYLES[drawn[colour] % len(LINESTYLES)]
            own = sub_scores.get(metric, set())
            drawn[colour] += bool(own)
            if own:
                lines[colour].add(linestyle)
            taken = used.setdefault(colour, [])
            scores = sorted(own | set(get(metric).sub_scores)) if rank < len(registered) else sorted(own)
            for sub_score in scores:  # a registered metric absent from the table still holds its markers
                free = [marker for marker in MARKERS if marker not in taken] or list(MARKERS)
                taken.append(free[0])
                if own:
                    self._styles[(metric, sub_score)] = Style(colour, free[0], linestyle)
            if own:
                self._metrics[metric] = self._styles[(metric, scores[0])]

    def __call__(self, metric: str, sub_score: str) -> Style:
        """The style of one sub-score; :class:`KeyError` naming it if the table lacked it."""
        try:
            return self._styles[(metric, sub_score)]
        except KeyError:
            raise KeyError(f"no style for {metric}/{sub_score}: it is not in the results the registry was built from") from None

    def metric(self, metric: str) -> Style:
        """The style of a metric as a whole (that of its first sub-score in name order)."""
        return self._metrics[metric]


def registered_order() -> list[str]:
    """Every registered metric (population metrics included), sorted by family then name: the order of the styles."""
    return sorted(available(population=None), key=lambda metric: (family_rank(get(metric).family), metric))


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


def legend_columns(entries: int, rows_available: int) -> int:
    """Legend columns so that ``entries`` fit in ``rows_available`` rows (at least one column)."""
    return max(1, -(-entries // max(1, rows_available)))


def wrap_label(label: str, width: int = LABEL_CHARACTERS, breaks: str = "/_,[") -> str:
    """``label`` broken into lines of at most ``width`` characters after any of ``breaks``, or before `` (``.

    A user metric's or a variant's name can be longer than a figure is wide; unbroken, it
    pushes the legend or the axis labels off the figure.  A piece longer than ``width``
    (no break inside it) keeps a line of its own.  No character is dropped or replaced:
    joining the lines gives ``label`` back (less the spaces at their ends).
    """
    if len(label) <= width:
        return label
    lines = [""]
    for piece in re.split(rf"(?<=[{re.escape(breaks)}])|(?= \()", label):
        if lines[-1] and len(lines[-1]) + len(piece.rstrip()) > width:
            lines.append(piece.lstrip())
        else:
            lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)
