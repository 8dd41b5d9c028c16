"""The visual vocabulary of every figure: one registry of styles per metric and sub-score.

:class:`StyleRegistry` gives every (metric, sub_score) a colour, a marker and a line
style, assigned over the lines one report or one ``plot`` call draws, so that

* inside any one panel every line has its own colour (while the panel draws at most
  ``len(PALETTE)`` lines; past that a colour comes back in another line style), its own
  marker, and a line style tied to its colour (a second cue in grey-scale print);
* a sub-score has one style in every figure of that report or ``plot`` call, and a
  metric keeps one colour across its sub-scores wherever they never share a panel.

Colours are the Okabe and Ito (2008) palette less its yellow (too pale on white),
followed by three of Paul Tol's "muted" scheme (wine, indigo, olive): ten colours that
stay at least 13 CIE76 units apart under protanopia, deuteranopia and tritanopia
(Machado et al. 2009 simulations), ordered so that the first four, which most panels
use, are the farthest apart.  The ideal trajectory is one distinct style
(:data:`IDEAL_STYLE`: a wide light-grey line), never used by a score.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import matplotlib
import pandas as pd

from reports._table import family_rank

#: Okabe-Ito blue, vermillion, black, reddish purple, bluish green, orange, sky blue; Tol's wine, indigo, olive.
PALETTE = ("#0072B2", "#D55E00", "#000000", "#CC79A7", "#009E73", "#E69F00", "#56B4E9", "#882255", "#332288", "#999933")
LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p")
#: The ideal trajectory: wide, light grey, behind the scores.
IDEAL_STYLE = {"color": "#BBBBBB", "linewidth": 4.0, "linestyle": "-", "solid_capstyle": "butt", "zorder": 0}
#: Width of one column of a two-column paper and of a page's text block, in inches.
COLUMN_WIDTH, PAGE_WIDTH = 3.25, 6.75
FONT_SIZE = 7
#: Longest line of a legend entry, in characters: a longer name is broken (:func:`wrap_label`).
LABEL_CHARACTERS = 36

Line = tuple[str, str]
"""A drawn line: (metric, sub_score)."""


@dataclass(frozen=True)
class Style:
    """How one sub-score is drawn."""

    colour: str
    marker: str
    linestyle: str

    def line(self) -> dict:
        """Keyword arguments of :meth:`matplotlib.axes.Axes.plot`."""
        return {"color": self.colour, "marker": self.marker, "linestyle": self.linestyle}


def slot_style(slot: int, marker: int) -> Style:
    """The style of colour slot ``slot`` with marker number ``marker``.

    Slot ``s`` is colour ``PALETTE[s % 10]``; its line style cycles with the colour and
    moves on by one each time the palette comes round again, so that the first four
    slots of one colour (40 slots in all) never share a line style.
    """
    colour = slot % len(PALETTE)
    linestyle = LINESTYLES[(colour + slot // len(PALETTE)) % len(LINESTYLES)]
    return Style(PALETTE[colour], MARKERS[marker % len(MARKERS)], linestyle)


class StyleRegistry:
    """Colour, marker and line style of every sub-score a report or a ``plot`` call draws.

    Lines sharing a panel are neighbours; they are coloured as a graph, by DSatur
    (Brélaz 1979): the line whose neighbours already hold the most distinct colour
    slots (:func:`slot_style`) goes next (ties: more neighbours, then order by family,
    metric, sub-score) and takes its metric's slot where no neighbour holds it, else
    the first slot none holds; markers likewise.  So the lines of a panel differ in
    colour (while a panel has at most ``len(PALETTE)`` lines, and in practice), marker
    (up to ``len(MARKERS)``) and, where a colour comes back, line style.

    Parameters
    ----------
    results : pandas.DataFrame
        The rows drawn (columns metric, sub_score, family).
    panels : iterable of iterables of (metric, sub_score), optional
        The sets of lines drawn together in one panel.  Default: the report's
        (:func:`report_panels`).  ``plot`` passes one set holding every line it draws.
    """

    def __init__(self, results: pd.DataFrame, *, panels: Iterable[Iterable[Line]] | None = None) -> None:
        families = results.groupby(["metric", "sub_score"])["family"].first()
        lines = sorted(families.index, key=lambda line: (family_rank(families[line]), *line))
        neighbours: dict[Line, set[Line]] = {line: set() for line in lines}
        for panel in report_panels(results) if panels is None else panels:
            panel = set(panel)
            for line in panel:
                if line in neighbours:
                    neighbours[line] |= panel - {line}
        slots: dict[Line, int] = {}
        markers: dict[Line, int] = {}
        rank = {line: position for position, line in enumerate(lines)}
        waiting = set(lines)
        while waiting:  # DSatur: the line whose neighbours already hold the most distinct slots goes next
            line = max(waiting, key=lambda line: (len({slots[other] for other in neighbours[line] if other in slots}),
                                                  len(neighbours[line]), -rank[line]))
            waiting.remove(line)
            sibling = next((other for other in lines if other[0] == line[0] and other in slots), None)
            slots[line] = _first_free(slots, neighbours[line], preferred=slots.get(sibling))
            markers[line] = _first_free(markers, neighbours[line], preferred=markers.get(sibling))
        self._styles = {line: slot_style(slots[line], markers[line]) for line in lines}
        self._metrics = {line[0]: self._styles[line] for line in reversed(lines)}  # a metric: its first sub-score

    def __call__(self, metric: str, sub_score: str) -> Style:
        """The style of one sub-score; :class:`KeyError` naming it if the table lacked it."""
        try:
            return self._styles[(metric, sub_score)]
        except KeyError:
            raise KeyError(f"no style for {metric}/{sub_score}: it is not in the results the registry was built from") from None

    def metric(self, metric: str) -> Style:
        """The style of a metric as a whole: that of its first sub-score in name order."""
        return self._metrics[metric]


def _first_free(taken: dict[Line, int], neighbours: set[Line], *, preferred: int | None) -> int:
    """``preferred`` when no neighbour holds it, else the smallest number no neighbour holds."""
    held = {taken[line] for line in neighbours if line in taken}
    if preferred is not None and preferred not in held:
        return preferred
    return next(number for number in range(len(held) + 1) if number not in held)


def chunks(items: Sequence[str], size: int = len(PALETTE)) -> list[list[str]]:
    """``items`` in consecutive groups of at most ``size``, as even as possible (11 items: 6 and 5, not 10 and 1)."""
    count = -(-len(items) // size) if items else 0
    bounds = [round(i * len(items) / count) for i in range(count + 1)] if count else [0]
    return [list(items[start:stop]) for start, stop in zip(bounds, bounds[1:])]


def report_panels(results: pd.DataFrame) -> list[list[Line]]:
    """The sets of lines the report's figures draw in one panel.

    Per-scenario and sample-efficiency figures draw the sub-scores of one family and
    one property per panel; the cost figure draws one line per metric (its first
    sub-score's style), the metrics of one family in :func:`chunks` of at most
    ``len(PALETTE)``, sorted by name.
    """
    lines = results[["family", "property", "metric", "sub_score"]].drop_duplicates()
    panels = [list(zip(own["metric"], own["sub_score"])) for _, own in lines.groupby(["family", "property"])]
    firsts = lines.sort_values(["metric", "sub_score"]).drop_duplicates("metric")
    for _, own in firsts.groupby("family"):
        representative = dict(zip(own["metric"], own["sub_score"]))
        panels += [[(metric, representative[metric]) for metric in chunk] for chunk in chunks(sorted(representative))]
    return panels


@contextlib.contextmanager
def paper_style(font_size: float = FONT_SIZE) -> Iterator[None]:
    """Matplotlib settings for paper figures at ``font_size`` points, fonts embedded as TrueType (Type 42).

    Journals refuse PDFs with Type 3 fonts (matplotlib's default): ``pdf.fonttype`` and
    ``ps.fonttype`` 42 embed the font itself (they are read when a figure is saved: save inside this context).
    """
    settings = {
        "font.size": font_size,
        "axes.titlesize": font_size + 1,
        "axes.labelsize": font_size,
        "xtick.labelsize": font_size - 1,
        "ytick.labelsize": font_size - 1,
        "legend.fontsize": font_size - 1,
        "lines.linewidth": 1.1,
        "lines.markersize": 3.0,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "pdf.fonttype": 42,
        "ps.fonttype": 42,
        "svg.hashsalt": "reports",
    }
    with matplotlib.rc_context(settings):
        yield


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
