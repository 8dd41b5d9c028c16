"""The visual vocabulary of every figure: one registry of styles per metric and sub-score.

:class:`StyleRegistry` gives every (metric, sub_score) a colour, a marker and a line
style, so that

* a metric has one colour in every figure of a run's report and every ``plot`` call on the
  run: the user's (``--colors mig=#000000,...`` or a file of such pairs, :func:`parse_colours`),
  else one chosen over the run's report panels (:func:`metric_colours`), for a paper to keep;
* inside any one panel every line has its own marker, and lines of close colours (two
  sub-scores of one metric, two metrics of one colour) their own line styles;
* a sub-score has one style in every figure of one report or ``plot`` call.

Colours are the Okabe and Ito (2008) palette less its yellow (too pale on white),
followed by three of Paul Tol's "muted" scheme (wine, indigo, olive): ten colours that
stay at least 13 CIE76 units apart under protanopia, deuteranopia and tritanopia
(Machado et al. 2009 simulations), ordered so that the first four, which most panels
use, are the farthest apart.  The ideal trajectory is one distinct style
(:data:`IDEAL_STYLE`: a wide light-grey line), never used by a score.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import matplotlib.colors as mcolors
import pandas as pd

from reports.results.table import family_rank

#: Okabe-Ito blue, vermillion, black, reddish purple, bluish green, orange, sky blue; Tol's wine, indigo, olive.
PALETTE = ("#0072B2", "#D55E00", "#000000", "#CC79A7", "#009E73", "#E69F00", "#56B4E9", "#882255", "#332288", "#999933")
LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p")
#: Two colours closer than this in sRGB (a unit cube) are drawn in different line styles when they share a panel.
CLOSE_COLOUR_DISTANCE = 0.25
#: The ideal trajectory: wide, light grey, behind the scores.
IDEAL_STYLE = {"color": "#BBBBBB", "linewidth": 4.0, "linestyle": "-", "solid_capstyle": "butt", "zorder": 0}
#: A score's line width, in points, at :data:`FONT_SIZE` (:func:`paper_style` scales it with the font size).
LINE_WIDTH = 1.1


def ideal_style() -> dict[str, object]:
    """:data:`IDEAL_STYLE`, its width scaled as the score lines' are now (:func:`paper_style`: a larger font, wider
    lines), so that the ideal stays as much wider than them."""
    return {**IDEAL_STYLE, "linewidth": IDEAL_STYLE["linewidth"] * matplotlib.rcParams["lines.linewidth"] / LINE_WIDTH}
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


def metric_colours(run: pd.DataFrame, colours: Mapping[str, str] | None = None, *,
                   panels: Iterable[Iterable[Line]] | None = None) -> dict[str, str]:
    """Metric -> its colour in every figure of a run: the one ``colours`` gives it, else a :data:`PALETTE` colour
    chosen over the whole run, so that every figure of its report and every ``plot`` call on it draws it alike.

    Metrics whose sub-scores share a panel (``panels``; by default the report's, :func:`report_panels`) are
    neighbours, coloured by DSatur (Brélaz 1979): the metric whose neighbours already hold the most distinct
    colours goes next (ties: more neighbours, then family and name order) and takes, of the palette colours not
    close (:func:`close_colours`) to any neighbour's, the one fewest metrics hold so far, so that metrics a ``plot``
    draws together from different panels differ too where the palette allows; where none is left (a panel of more
    metrics than colours) the palette comes round again and line styles tell them apart (:class:`StyleRegistry`).

    A metric ``colours`` does not name keeps the colour the run gives it without ``colours``, unless that colour is
    close to one ``colours`` gives a neighbour: it then takes a free one as above.  So fixing one metric's colour
    recolours only the metrics whose colour it takes, and every other figure already drawn stays true.
    """
    given = dict(colours or {})
    families = run.groupby("metric")["family"].first()
    names = sorted(families.index, key=lambda metric: (family_rank(families[metric]), metric))
    neighbours: dict[str, set[str]] = {metric: set() for metric in names}
    for panel in report_panels(run) if panels is None else panels:
        metrics = {metric for metric, _ in panel} & set(neighbours)
        for metric in metrics:
            neighbours[metric] |= metrics - {metric}
    fixed = {metric: given[metric] for metric in names if metric in given}
    if len(fixed) == len(names):  # the run's colours handed to a figure's registry: nothing to choose
        return fixed
    own = _coloured(names, neighbours, {})
    if not fixed:
        return own
    kept = {metric: colour for metric, colour in own.items() if metric not in fixed
            and not any(close_colours(colour, fixed[other]) for other in neighbours[metric] if other in fixed)}
    return _coloured(names, neighbours, {**fixed, **kept})


def _coloured(names: Sequence[str], neighbours: Mapping[str, set[str]], chosen: Mapping[str, str]) -> dict[str, str]:
    """:func:`metric_colours`' DSatur: ``chosen`` (metric -> colour) and a colour for each other metric of ``names``
    (in their order of precedence)."""
    chosen = dict(chosen)
    rank = {metric: position for position, metric in enumerate(names)}
    waiting = [metric for metric in names if metric not in chosen]
    while waiting:
        metric = max(waiting, key=lambda metric: (len({chosen[other] for other in neighbours[metric] if other in chosen}),
                                                  len(neighbours[metric]), -rank[metric]))
        waiting.remove(metric)
        held = [chosen[other] for other in neighbours[metric] if other in chosen]
        free = [colour for colour in PALETTE if not any(close_colours(colour, other) for other in held)]
        uses = list(chosen.values())
        chosen[metric] = min(free, key=uses.count) if free else PALETTE[len(held) % len(PALETTE)]
    return {metric: chosen[metric] for metric in names}


def close_colours(first: str, second: str) -> bool:
    """Whether two colours are too close to tell two lines apart by colour alone: their sRGB points lie within
    :data:`CLOSE_COLOUR_DISTANCE` (the same colour, or a user's near-black beside black)."""
    return math.dist(mcolors.to_rgb(first), mcolors.to_rgb(second)) < CLOSE_COLOUR_DISTANCE


def parse_colours(text: str) -> dict[str, str]:
    """``--colors``'s value as metric -> hex colour: ``mig=#000000,dci_lasso=tab:orange``, or the path of a file
    holding such pairs (comma- or line-separated; blank lines and comment lines, whose first character other than a
    space is ``#``, ignored).

    Raises
    ------
    ValueError
        For a pair without ``=``, an empty metric, a metric named twice, a colour matplotlib does not know (the
        message names it), or a value holding no pair that is no file.
    """
    path = Path(text)
    if "=" not in text and not path.is_file():
        raise ValueError(f"colours must be METRIC=COLOUR pairs (mig=#000000,dci_lasso=#E69F00) or a file of them; "
                         f"{text!r} is no pair, and " + ("a directory" if path.is_dir() else "no file by that name exists"))
    if "=" in text:
        pairs = text
    else:  # a file: its comment lines are no pairs (a colour's own '#' follows its '=')
        pairs = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines() if not line.lstrip().startswith("#"))
    colours: dict[str, str] = {}
    for item in re.split(r"[,\n]", pairs):
        if not item.strip():
            continue
        metric, equals, colour = item.partition("=")
        metric, colour = metric.strip(), colour.strip()
        if not equals or not metric:
            raise ValueError("colours must be METRIC=COLOUR pairs (mig=#000000,dci_lasso=#E69F00) or a file of them; "
                             f"got {item.strip()!r}")
        if metric in colours:
            raise ValueError(f"colours name metric {metric!r} twice")
        if not mcolors.is_color_like(colour):
            raise ValueError(f"colour {colour!r} of {metric!r} is not a colour (#RRGGBB, or a name such as 'black' or "
                             "'tab:blue')")
        colours[metric] = mcolors.to_hex(colour)
    return colours


class StyleRegistry:
    """Colour, marker and line style of every sub-score a report or a ``plot`` call draws.

    A metric's colour is the run's (:func:`metric_colours`: the user's, or a palette colour chosen over the whole
    run), the same in every figure of the run and every ``plot`` call on it.  Lines sharing a panel are neighbours; markers and line styles
    are coloured as a graph, by DSatur (Brélaz 1979): the line whose neighbours already hold the most distinct
    markers goes next (ties: more neighbours, then order by family, metric, sub-score) and takes its metric's marker
    where no neighbour holds it, else the first none holds; its line style is the first that no neighbour of a
    close colour (:func:`close_colours`) holds.  So the lines of a panel differ in marker (up to
    ``len(MARKERS)``) and, where two colours are close (two sub-scores of one metric, two metrics of a run that
    never share a panel of its report drawn together by ``plot``), in line style too.

    Parameters
    ----------
    results : pandas.DataFrame
        The rows drawn (columns metric, sub_score, family).
    panels : iterable of iterables of (metric, sub_score), optional
        The sets of lines drawn together in one panel.  Default: the report's
        (:func:`report_panels`).  ``plot`` passes one set holding every line it draws.
    colours : Mapping[str, str], optional
        Metric -> colour: the user's (:func:`parse_colours` reads ``--colors``), or the run's
        (:func:`metric_colours` of the whole run, which a figure of some of a run's metrics passes, so that they keep
        the report's colours); the others are chosen over ``results`` (:func:`metric_colours`).
    """

    def __init__(self, results: pd.DataFrame, *, panels: Iterable[Iterable[Line]] | None = None,
                 colours: Mapping[str, str] | None = None) -> None:
        families = results.groupby(["metric", "sub_score"])["family"].first()
        lines = sorted(families.index, key=lambda line: (family_rank(families[line]), *line))
        neighbours: dict[Line, set[Line]] = {line: set() for line in lines}
        panels = [set(panel) for panel in (report_panels(results) if panels is None else panels)]
        for panel in panels:
            for line in panel:
                if line in neighbours:
                    neighbours[line] |= panel - {line}
        of_metric = metric_colours(results, colours, panels=panels)
        colour = {line: of_metric[line[0]] for line in lines}
        markers: dict[Line, int] = {}
        linestyles: dict[Line, int] = {}
        rank = {line: position for position, line in enumerate(lines)}
        waiting = set(lines)
        while waiting:  # DSatur: the line whose neighbours already hold the most distinct markers goes next
            line = max(waiting, key=lambda line: (len({markers[other] for other in neighbours[line] if other in markers}),
                                                  len(neighbours[line]), -rank[line]))
            waiting.remove(line)
            sibling = next((other for other in lines if other[0] == line[0] and other in markers), None)
            markers[line] = _first_free(markers, neighbours[line], preferred=markers.get(sibling))
            alike = {other for other in neighbours[line] if close_colours(colour[line], colour[other])}
            linestyles[line] = _first_free(linestyles, alike, preferred=linestyles.get(sibling))
            # past the markers and line styles (a panel of dozens of lines) the first style no look-alike draws
            drawn = {(markers[other] % len(MARKERS), linestyles[other] % len(LINESTYLES)) for other in alike
                     if other in linestyles}
            if (markers[line] % len(MARKERS), linestyles[line] % len(LINESTYLES)) in drawn:
                linestyles[line] = next((style for style in range(len(LINESTYLES))
                                         if (markers[line] % len(MARKERS), style) not in drawn), linestyles[line])
        self._styles = {line: Style(colour[line], MARKERS[markers[line] % len(MARKERS)],
                                    LINESTYLES[linestyles[line] % len(LINESTYLES)]) for line in lines}
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


#: Matplotlib settings embedding the fonts themselves (TrueType, Type 42) in a PDF or PostScript file: journals refuse
#: the Type 3 fonts matplotlib writes by default.  Read when a figure is saved.
EMBEDDED_FONTS = {"pdf.fonttype": 42, "ps.fonttype": 42}


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
        "lines.linewidth": LINE_WIDTH * font_size / FONT_SIZE,  # lines and markers grow with the text, as it is read
        "lines.markersize": 3.0 * font_size / FONT_SIZE,
        "axes.spines.top": False,
        "axes.spines.right": False,
        **EMBEDDED_FONTS,
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
