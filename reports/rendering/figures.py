"""Figures as small multiples: the atlas, one figure per scenario, efficiency, bounds, cost, agreement.

As in Zaidi et al. (2022), Figures 4, 5, 7, 8 (scores against the swept parameter)
and 9 (estimation error against n).  The atlas puts every sub-score (rows) against
every scenario (columns), one figure per family.  A scenario's figure has one panel
per property and family, so that a panel draws a handful of lines, each in its own
colour, marker and line style (:class:`reports.rendering.style.StyleRegistry`), with its
legend below it.  Scores are oriented so that higher is better (a lower-is-better
sub-score is drawn as ``1 - score`` and labelled so), on a fixed [-0.05, 1.05] axis:
a mean outside it is clipped to the edge, drawn with a red triangle and named in a
note.  Lines are means over seeds; their band is a stated interval over seeds
(:data:`BANDS`; by default the 95% Student-t interval of the mean).  Bounds bars
follow Tokui and Sato (2022), Figure 3b.  Drawing uses matplotlib's object API on
the Agg canvas and never touches pyplot's global state.
"""

from __future__ import annotations

import functools
import io
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.layout_engine import LayoutEngine
from matplotlib.lines import Line2D
from matplotlib.markers import TICKDOWN, TICKLEFT
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import Affine2D

from reports.analyses.intervals import MIN_INTERVAL_SEEDS, mean_half_width
from reports.rendering.style import (
    COLUMN_WIDTH,
    EMBEDDED_FONTS,
    IDEAL_STYLE,
    PAGE_WIDTH,
    StyleRegistry,
    chunks,
    ideal_style,
    paper_style,
    wrap_label,
)
from reports.results.schema import SCORE_PROPERTIES
from reports.results.table import at_largest_n, family_rank, ideal_table, scenarios_testing, score_label, seed_summary

#: A numeric parameter spanning at least this ratio is drawn on a log axis.
LOG_AXIS_RATIO = 100.0
#: The score axis; means beyond it are clipped and marked.
SCORE_LIMITS = (-0.05, 1.05)
#: The bands a figure can draw around a mean over seeds: the 95% Student-t interval of the mean, ± one sample
#: standard deviation, or none.
BANDS = ("ci95", "sd", "none")
#: Most sub-score rows in one atlas figure (a family with more is split).
ATLAS_ROWS = 10
#: Atlas geometry in inches: height of a row, room for the titles above, the ticks below, the labels left.
ATLAS_ROW_INCHES, ATLAS_TOP_INCHES, ATLAS_BOTTOM_INCHES, ATLAS_LEFT_INCHES = 0.62, 0.75, 0.25, 1.1
#: Longest line of an atlas row label, in characters (what fits in :data:`ATLAS_LEFT_INCHES` at its font).
ATLAS_LABEL_CHARACTERS = 20
#: Right edge of an atlas's panels (a fraction of its width), the gap between its columns (a fraction of a
#: panel's width), the font size of its column titles (points), and the width of their widest characters (ems).
ATLAS_RIGHT, ATLAS_WSPACE, ATLAS_TITLE_SIZE, ATLAS_CHARACTER_EMS = 0.99, 0.18, 4.5, 0.62
#: The ticks of an atlas panel, set as its axes are made (restyling hundreds of panels' ticks after is a tenth of
#: an atlas's time): small labels, short ticks, tick labels only on the bottom row and the left column (turned on
#: there).
ATLAS_TICKS = {"xtick.labelsize": 4, "ytick.labelsize": 4, "xtick.major.size": 1.5, "ytick.major.size": 1.5,
               "xtick.major.pad": 1, "ytick.major.pad": 1, "xtick.labelbottom": False, "ytick.labelleft": False}
CLIP_MARKER = {"color": "#CC3311", "markersize": 4.0, "linestyle": "none", "zorder": 5, "label": "_clipped"}
#: The legend entry of the clip markers, in a legend whose panels mark a clipped mean (:func:`clip_legend_entry`).
CLIP_LABEL = "mean beyond the axis"
#: Opacity of a line's band, in its colour.
BAND_ALPHA = 0.12
#: Height of one legend row at the paper style's legend font, in inches.
LEGEND_ROW_INCHES = 0.12
#: Width of a legend entry's handle and spacing, and of one character of its label, at that font, in inches.
LEGEND_HANDLE_INCHES, LEGEND_CHARACTER_INCHES = 0.45, 0.05
#: Height of a panel of a report figure's grid (axes, title and ticks), in inches.
PANEL_INCHES = 1.45
#: Characters of a 5-point note per inch of figure width.
NOTE_CHARACTERS_PER_INCH = 24
HATCHES = ("", "////", "....", "xxxx", "\\\\\\\\", "++++")
#: Colours of a figure's PNG: a palette image of line art this size is a quarter of the RGBA one and looks the same.
PNG_COLOURS = 256
#: Resolution of a figure's PNG, in dots per inch.
PNG_DPI = 200
#: zlib level of a figure's PNG: 6 (zlib's default) is a sixth of the time of 9 (or ``optimize``) for files about a
#: tenth larger.
PNG_COMPRESS_LEVEL = 6


#: The shade behind a panel over the range where the scenario defines its property's ideal, when that range stops
#: short of the values drawn, and what a caption says of it.
READ_RANGE_STYLE = {"color": "#EEEEEE", "linewidth": 0, "zorder": -1}  # under the ideal (zorder 0)
READ_RANGE_NOTE = ("shaded: the range where the scenario defines the panel's ideal, which its robustness verdicts read; "
                   "beyond it the scenario states no ideal (under noise: the code carries more noise than signal, and "
                   "calibration asks pure noise for a null score)")


def fill_to_width(text: str, width: float, font_size: float) -> str:
    """``text`` broken into lines that fit ``width`` inches at ``font_size`` points (:data:`NOTE_CHARACTERS_PER_INCH`
    scaled), each line of ``text`` on its own."""
    characters = int(width * NOTE_CHARACTERS_PER_INCH * 5 / font_size)
    return "\n".join(textwrap.fill(line, characters) for line in text.split("\n"))


@dataclass
class Drawn:
    """A figure and the notes its caption must carry (clipped values, ...)."""

    figure: Figure
    notes: list[str] = field(default_factory=list)


#: The formats a report can write its figures in (``png`` always: the HTML and Markdown pages show the PNGs).
FIGURE_FORMATS = ("png", "svg", "pdf")
#: The formats a report writes unless asked for more.
DEFAULT_FIGURE_FORMATS = ("png",)


def figure_formats(formats: str | Sequence[str] | None) -> tuple[str, ...]:
    """``formats`` checked, in :data:`FIGURE_FORMATS` order with ``png`` first: ``"svg"`` -> ``("png", "svg")``.

    A string is a comma-separated list (``"png,svg,pdf"``); None is :data:`DEFAULT_FIGURE_FORMATS`.  The PNG is
    always drawn: the HTML and Markdown pages show it.

    Raises
    ------
    ValueError
        For a format not in :data:`FIGURE_FORMATS` (naming the legal ones), or an empty list.
    """
    if formats is None:
        return DEFAULT_FIGURE_FORMATS
    items = formats.split(",") if isinstance(formats, str) else list(formats)
    if not all(isinstance(item, str) for item in items):
        raise ValueError(f"figure formats must be names among {', '.join(FIGURE_FORMATS)}; got {formats!r}")
    names = [item.strip().lower().lstrip(".") for item in items if item.strip()]
    unknown = [name for name in names if name not in FIGURE_FORMATS]
    if unknown or not names:
        what = f"unknown figure format {', '.join(repr(name) for name in unknown)}" if unknown else "no figure format named"
        raise ValueError(f"{what}: choose among {', '.join(FIGURE_FORMATS)} (comma-separated; png is always written)")
    return tuple(name for name in FIGURE_FORMATS if name == "png" or name in names)


def save(figure: Figure, directory: Path, key: str, formats: Sequence[str] = DEFAULT_FIGURE_FORMATS) -> bytes:
    """Write ``key.png`` (200 dpi, 256 colours) under ``directory``, and ``key.svg`` / ``key.pdf`` when ``formats``
    names them; return the PNG bytes.

    The PNG is quantised to :data:`PNG_COLOURS` colours without dithering: a line
    figure has few colours besides the edges' anti-aliasing, and the file (compressed at
    :data:`PNG_COMPRESS_LEVEL`) is under a third of the full-colour one.  Every file depends only on the figure: the SVG and
    the PDF have no date, and the SVG's element ids are salted with ``key`` (matplotlib
    salts them with a random uuid otherwise), so a report redrawn from the same results
    is the same byte for byte; the PDF embeds TrueType fonts (:data:`reports.rendering.style.EMBEDDED_FONTS`), as
    journals ask.  The layout is computed once, at the PNG's resolution
    (:func:`_lay_out`), and each format is drawn once on it.
    """
    from PIL import Image

    formats = figure_formats(formats)
    directory.mkdir(parents=True, exist_ok=True)
    canvas = FigureCanvasAgg(figure)
    _lay_out(figure, PNG_DPI)
    figure.savefig(io.BytesIO(), format="rgba", dpi=PNG_DPI)  # raw pixels: no full-colour PNG compressed, then decoded
    image = Image.fromarray(np.asarray(canvas.buffer_rgba()))  # RGBA: the pixels just drawn, at PNG_DPI
    image = image.convert("RGB").quantize(PNG_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    compressed = io.BytesIO()
    image.save(compressed, format="png", compress_level=PNG_COMPRESS_LEVEL, dpi=(PNG_DPI, PNG_DPI))
    png = compressed.getvalue()
    (directory / f"{key}.png").write_bytes(png)
    if "svg" in formats:
        with matplotlib.rc_context({"svg.hashsalt": key}):
            figure.savefig(directory / f"{key}.svg", format="svg", metadata={"Date": None})
    if "pdf" in formats:
        with matplotlib.rc_context(EMBEDDED_FONTS):
            figure.savefig(directory / f"{key}.pdf", format="pdf", metadata={"CreationDate": None})
    return png



def _lay_out(figure: Figure, dpi: float) -> None:
    """Run ``figure``'s layout engine once, at ``dpi``, and keep its result: the figure is then drawn once per format.

    ``savefig`` on a figure with a layout engine (a placeholder one included) first draws every artist without
    rendering, to lay it out, then draws again: that first pass is a third of a drawing's time.  Running the engine
    directly lays the figure out as that pass would (at the resolution it is saved at), without it.
    """
    engine = figure.get_layout_engine()
    if engine is not None:
        own_dpi = figure.dpi
        figure.set_dpi(dpi)
        try:
            engine.execute(figure)
        finally:
            figure.set_dpi(own_dpi)
    with matplotlib.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
        figure.set_layout_engine(None)  # no engine at all: "none" leaves a placeholder, and savefig its first pass

def band_half_width(std: np.ndarray, n_seeds: np.ndarray, band: str) -> np.ndarray | None:
    """Half the width of the band around a mean over ``n_seeds`` seeds with sample standard deviation ``std``.

    ``ci95``: the 95% Student-t interval of the mean (:func:`reports.analyses.intervals.mean_half_width`: NaN, no
    band, at a point with fewer than :data:`reports.analyses.intervals.MIN_INTERVAL_SEEDS` seeds); ``sd``: ``std``
    (0 for a single seed); ``none``: ``None``.
    """
    if band not in BANDS:
        raise ValueError(f"band must be one of {BANDS}, got {band!r}")
    if band == "none":
        return None
    if band == "sd":
        return np.asarray(std, dtype=float)
    return mean_half_width(std, n_seeds)


def band_text(band: str, n_seeds: Sequence[int] | np.ndarray) -> str:
    """What a figure's lines and bands are, for its legend or caption: ``mean over 2 seeds; band: 95% ...``."""
    counts = sorted({int(n) for n in np.asarray(n_seeds).ravel()})
    low, high = counts[0], counts[-1]
    seeds = f"{low} seed{'s' * (low != 1)}" if low == high else f"{low} to {high} seeds"
    if band == "none" or high < 2 or (band == "ci95" and high < MIN_INTERVAL_SEEDS):
        return f"mean over {seeds}" + ("; no band" if band != "none" else "") + (
            f" (fewer than {MIN_INTERVAL_SEEDS} seeds)" if band == "ci95" and high >= 2 else "")
    if band == "sd":
        return f"mean over {seeds}; band: ± one standard deviation"
    return f"mean over {seeds}; band: 95% Student-t interval of the mean" + (
        f" (none where fewer than {MIN_INTERVAL_SEEDS} seeds)" if low < MIN_INTERVAL_SEEDS else "")


def _is_categorical(rows: pd.DataFrame) -> bool:
    """Whether some value of ``rows`` is labelled other than by the number itself (a categorical parameter)."""
    pairs = set(zip(rows["value"].tolist(), rows["value_label"].tolist()))
    return any(label != f"{value:g}" for value, label in pairs)


def _log_axis(rows: pd.DataFrame) -> bool:
    """Whether a numeric parameter's values span :data:`LOG_AXIS_RATIO` or more: its axis is logarithmic (in a
    scenario figure, and in every panel of an atlas column)."""
    if _is_categorical(rows):
        return False
    values = rows["value"].to_numpy(dtype=float)
    return bool(values.min() > 0 and values.max() / values.min() >= LOG_AXIS_RATIO)


def format_axis(ax, rows: pd.DataFrame, parameter: str, *, label: bool = True) -> None:
    """The parameter axis of ``rows``: categorical labels, a log axis for wide ranges, integer ticks for integer
    parameters, labelled ``parameter``."""
    values = np.sort(rows["value"].unique())
    if _is_categorical(rows):
        labels = rows.drop_duplicates("value").set_index("value")["value_label"]
        ax.set_xticks(values, [labels[v] for v in values], rotation=30, ha="right")
    elif _log_axis(rows):
        ax.set_xscale("log")
    elif np.allclose(values, np.round(values)):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if label:
        ax.set_xlabel(parameter)


def clip_means(ax, x: np.ndarray, mean: np.ndarray, label: str, where: Sequence,
               limits: tuple[float, float] = SCORE_LIMITS, *, transform=None) -> tuple[np.ndarray, list[str]]:
    """Means clipped to ``limits`` (the axis), clipped points marked with a red triangle; a note per clipped curve.

    ``transform`` (default: the axes' data) places the marks, as :func:`draw_scores` places a row of an atlas column.
    """
    low, high = limits
    outside = (mean < low) | (mean > high)
    if not outside.any():
        return mean, []
    clipped = np.clip(mean, low, high)
    placed = {} if transform is None else {"transform": transform}
    ax.plot(x[mean > high], clipped[mean > high], marker="^", **CLIP_MARKER, **placed)
    ax.plot(x[mean < low], clipped[mean < low], marker="v", **CLIP_MARKER, **placed)
    extreme = int(np.argmax(np.abs(mean - clipped)))
    return clipped, [f"{label} reaches {mean[extreme]:.2f} at {where[extreme]} (clipped, red triangle)."]


def beyond_axis(means: np.ndarray, limits: tuple[float, float] = SCORE_LIMITS) -> bool:
    """Whether any of ``means`` lies beyond the score axis, so that :func:`clip_means` marks it (and a legend made
    before drawing makes room for :data:`CLIP_LABEL`)."""
    values = np.asarray(means, dtype=float)
    return bool(np.any((values < limits[0]) | (values > limits[1])))


def clip_legend_entry(axes: Sequence) -> list[tuple[Line2D, str]]:
    """The clip markers' legend entry (a red triangle, :data:`CLIP_LABEL`) where one of ``axes`` marks a clipped mean
    (:func:`clip_means`; the first one's triangle, up or down); none elsewhere."""
    marks = [line.get_marker() for ax in axes for line in ax.get_lines()  # a label starting "_" is in no legend
             if line.get_label() == CLIP_MARKER["label"] and len(line.get_xdata())]
    if not marks:
        return []
    style = {key: value for key, value in CLIP_MARKER.items() if key != "label"}
    return [(Line2D([], [], marker=marks[0], **style), CLIP_LABEL)]


def draw_scores(ax, summary: pd.DataFrame, x: str, registry: StyleRegistry, *, band: str = "ci95", clip: bool = True,
                markers: bool = True, label: Callable[[str, str, bool], str] = score_label, transform=None) -> list[str]:
    """One line (mean) and one band (:func:`band_half_width`) per sub-score of ``summary``; the clipping notes.

    ``summary`` holds ``x``, metric, sub_score, higher_is_better, mean, std and
    n_seeds; ``label(metric, sub_score, higher_is_better)`` names a line.  Each line's ``gid`` (its id in an SVG) is
    :func:`line_id`, so that a reader of the file finds a metric's line and colour.  ``transform`` (default: the axes'
    data) places what is drawn: an atlas draws each row of a column in one axes, shifted up (:func:`_row_transform`).
    """
    placed = {} if transform is None else {"transform": transform}
    notes = []
    columns = {name: summary[name].to_numpy() for name in (x, "mean", "std", "n_seeds")}
    where = summary["value_label"].to_numpy() if "value_label" in summary else columns[x]
    bands: list[Band] = []
    for (metric, sub_score, higher), rows in _curves(summary, x):
        style = registry(metric, sub_score)
        name = label(metric, sub_score, bool(higher))
        xs, mean, std, seeds = (columns[column][rows] for column in (x, "mean", "std", "n_seeds"))
        half = band_half_width(std, seeds, band)
        shown = mean
        if clip:
            shown, clipped = clip_means(ax, xs, mean, name, where[rows], transform=transform)
            notes += clipped
        line = style.line() if markers else {**style.line(), "marker": None}
        ax.plot(xs, shown, label=name, gid=line_id(ax, metric, sub_score), **line, **placed)
        if half is not None and np.any(half > 0):  # NaN where a point has too few seeds: no band there
            low, high = mean - half, mean + half
            if clip:
                notes += _wide_band(name, half, where[rows], seeds, std, band)
                low, high = np.clip(low, *SCORE_LIMITS), np.clip(high, *SCORE_LIMITS)
            bands.append((xs, low, high, style.colour))
    add_bands(ax, bands, transform=transform)
    return notes


Band = tuple[np.ndarray, np.ndarray, np.ndarray, str]
"""A line's band: its x values, the band's low and high ends at each (NaN: no band there) and the line's colour."""


def add_bands(ax, bands: Sequence[Band], *, transform=None) -> None:
    """Fill ``bands`` in ``ax``, each in its colour at :data:`BAND_ALPHA`, as one collection: what a
    ``fill_between`` per band fills (a band stops where a point has no interval), at about a tenth of a report's
    figure drawing less.  ``transform``: as :func:`draw_scores`'s."""
    outlines, colours = [], []
    for x, low, high, colour in bands:
        for outline in _band_outlines(np.asarray(x, dtype=float), np.asarray(low, dtype=float),
                                      np.asarray(high, dtype=float)):
            outlines.append(outline)
            colours.append(to_rgba(colour, BAND_ALPHA))
    if outlines:
        placed = {} if transform is None else {"transform": transform}
        ax.add_collection(PolyCollection(outlines, facecolors=colours, linewidths=0, **placed))


def _band_outlines(x: np.ndarray, low: np.ndarray, high: np.ndarray) -> list[np.ndarray]:
    """The outline of the band between ``low`` and ``high`` over ``x``, one closed polygon (``(m, 2)`` vertices) per
    run of two or more points where both are finite."""
    finite = np.isfinite(low) & np.isfinite(high)
    edges = np.flatnonzero(np.diff(np.r_[0, finite.astype(np.int8), 0]))
    outlines = []
    for start, stop in zip(edges[::2], edges[1::2]):
        if stop - start >= 2:
            run = slice(start, stop)
            outlines.append(np.column_stack([np.r_[x[run], x[run][::-1]], np.r_[low[run], high[run][::-1]]]))
    return outlines


def _curves(summary: pd.DataFrame, x: str) -> list[tuple[tuple[str, str, bool], np.ndarray]]:
    """The positions of ``summary``'s rows per (metric, sub_score, higher_is_better), in that order, each sorted by
    ``x``: what ``groupby`` then ``sort_values`` give, without grouping a handful of rows through pandas for every
    panel."""
    positions: dict[tuple, list[int]] = {}
    keys = zip(summary["metric"].tolist(), summary["sub_score"].tolist(), summary["higher_is_better"].tolist())
    for position, key in enumerate(keys):
        positions.setdefault(key, []).append(position)
    xs = summary[x].to_numpy()
    curves = []
    for key in sorted(positions):
        rows = np.asarray(positions[key])
        curves.append((key, rows[np.argsort(xs[rows], kind="stable")]))
    return curves


def line_id(ax, metric: str, sub_score: str) -> str:
    """The SVG id of a sub-score's line in ``ax``: ``score:mig/mig:panel2`` (the panel's position in its figure,
    so that a line drawn in several panels has one id in each)."""
    return f"score:{metric}/{sub_score}:panel{ax.figure.axes.index(ax)}"


#: A band wider than this share of the score axis gets a note saying why it is so wide.
WIDE_BAND_SHARE = 0.5


def _wide_band(name: str, half: np.ndarray, where: np.ndarray, seeds: np.ndarray, std: np.ndarray, band: str
               ) -> list[str]:
    """A note for a line whose band spans more than :data:`WIDE_BAND_SHARE` of the score axis somewhere: where (its
    point of ``where``), and why (its seeds and their standard deviation), so that a band filling its panel is never
    left unexplained."""
    width = 2 * np.nan_to_num(half, nan=0.0)
    if not (width > WIDE_BAND_SHARE * (SCORE_LIMITS[1] - SCORE_LIMITS[0])).any():
        return []
    at = int(np.argmax(width))
    what = "95% interval" if band == "ci95" else "± one standard deviation"
    return [f"{name}'s band ({what}) spans {width[at]:.2f} at {where[at]}: its {int(seeds[at])} seeds "
            f"disagree (standard deviation {float(std[at]):.2f}); clipped to the axis."]


def ideal_points(ideals: pd.DataFrame, prop: str, values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The ideal of ``prop`` at every one of ``values`` (NaN where the scenario states none), sorted by value.

    A composed scenario may state an ideal at some values only (``redundancy_attack@leaky=0.25``: modularity
    at alpha = 0); the NaN between them breaks the line instead of joining values the scenario says nothing of.
    """
    line = ideals.loc[ideals["property"] == prop].set_index("value")["ideal"]
    line = line.reindex(sorted(set(values) | set(line.index)))
    return line.index.to_numpy(dtype=float), line.to_numpy(dtype=float)


def plot_ideal(ax, x: np.ndarray, y: np.ndarray, label: str | None, *, transform=None) -> Line2D:
    """The ideal in :data:`IDEAL_STYLE`, returned; a value whose neighbours have no ideal is also a square (a line of
    one point is invisible).  ``transform``: as :func:`draw_scores`'s."""
    placed = {} if transform is None else {"transform": transform}
    (line,) = ax.plot(x, y, label=label, **ideal_style(), **placed)
    known = np.isfinite(y)
    isolated = known & ~np.r_[False, known[:-1]] & ~np.r_[known[1:], False]
    if isolated.any():
        ax.plot(x[isolated], y[isolated], linestyle="none", marker="s", markersize=5, markeredgewidth=0,
                color=IDEAL_STYLE["color"], zorder=IDEAL_STYLE["zorder"], **placed)
    return line


def _draw_ideal(ax, ideals: pd.DataFrame, prop: str, values: Sequence[float], *, label: bool = True) -> bool:
    """The ideal of ``prop`` where the scenario defines it and, where that stops short of ``values`` (the noise
    scenario's modularity beyond alpha = 0.5), that range shaded (:data:`READ_RANGE_STYLE`): the range the verdicts
    read.  Returns whether it shaded."""
    return _draw_ideal_points(ax, *ideal_points(ideals, prop, values), label=label)


def _draw_ideal_points(ax, x: np.ndarray, y: np.ndarray, *, label: bool = True, transform=None) -> bool:
    """:func:`_draw_ideal` of the points :func:`ideal_points` gave (an atlas reads them once per scenario and
    property, for every panel of that pair); ``transform``: as :func:`draw_scores`'s (the shade then spans the
    score axis :data:`SCORE_LIMITS` of its row, not the whole axes)."""
    known = np.isfinite(y)
    if not known.any():
        return False
    plot_ideal(ax, x, y, "ideal" if label else None, transform=transform)
    if known.all() or known.sum() < 2:  # one point: a stated end (an attack's unattacked point), no range
        return False
    low, high = x[known].min(), x[known].max()
    if transform is None:
        ax.axvspan(low, high, **READ_RANGE_STYLE)
    else:
        ax.add_patch(Rectangle((low, SCORE_LIMITS[0]), high - low, SCORE_LIMITS[1] - SCORE_LIMITS[0],
                               transform=transform, **READ_RANGE_STYLE))
    return True


def score_axis(ax) -> None:
    """The fixed score axis :data:`SCORE_LIMITS`, ticks at 0, 0.5 and 1."""
    ax.set_ylim(*SCORE_LIMITS)
    ax.set_yticks([0.0, 0.5, 1.0])


def seed_means(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean, std and count over seeds of the oriented score per ``keys`` (higher_is_better kept)."""
    return seed_summary(rows, keys + ["higher_is_better"])


def legend_characters(width: float) -> int:
    """The characters of a legend entry's line that fit ``width`` inches beside its handle (at the default font size;
    at least 8): the line a label is wrapped to where the figure is narrower than one label of
    :data:`reports.rendering.style.LABEL_CHARACTERS` (a comparison plot 1 inch wide, or at 24 points)."""
    return max(8, int((width - LEGEND_HANDLE_INCHES) / LEGEND_CHARACTER_INCHES))


def legend_layout(labels: Sequence[str], width: float) -> tuple[int, float]:
    """Columns of a legend of ``labels`` spanning ``width`` inches, and its height in inches."""
    longest = max((len(line) for label in labels for line in label.split("\n")), default=1)
    columns = max(1, min(len(labels), int(width / (LEGEND_HANDLE_INCHES + LEGEND_CHARACTER_INCHES * longest))))
    rows = [0] * columns  # lines of each column, filled column after column as matplotlib does
    per_column = -(-len(labels) // columns)
    for i, label in enumerate(labels):
        rows[i // per_column] += label.count("\n") + 1
    return columns, LEGEND_ROW_INCHES * (max(rows) + 1)


@dataclass
class _Panel:
    """One panel of a report figure's grid: its title and the legend labels it will show."""

    title: str
    labels: list[str]


def _panel_grid(panels: Sequence[_Panel | None], title: str, *, columns: int = 2, width: float = PAGE_WIDTH
                ) -> tuple[Figure, list]:
    """A figure of ``panels`` in rows of ``columns``, each with room for its legend in a row of its own below it
    (:func:`_legend_below` writes it there).

    ``None`` leaves a cell empty (a property starts a new row).  Returns the figure and the panels' axes, in the
    order of ``panels``.  The figure is laid out by :class:`_GridLayout`: each panel's cell is
    :data:`PANEL_INCHES` high and each legend's row as high as its longest legend needs (:func:`legend_layout`).
    """
    rows = -(-len(panels) // columns)
    cell = width / columns
    legend_heights = []
    for row in range(rows):
        shown = [panel for panel in panels[row * columns:(row + 1) * columns] if panel is not None]
        legend_heights.append(max(legend_layout([wrap_label(label) for label in panel.labels], cell)[1]
                                  for panel in shown))
    layout = _GridLayout(columns, legend_heights)
    figure = Figure(figsize=(width, rows * PANEL_INCHES + sum(legend_heights) + 0.35), layout=layout)
    axes = []
    for i, panel in enumerate(panels):
        if panel is None:
            continue
        ax = figure.add_axes(layout.cell(figure, *divmod(i, columns)))
        ax.set_title(panel.title, loc="left")
        layout.panels.append((ax, *divmod(i, columns)))
        axes.append(ax)
    figure.suptitle(title, fontsize=8)
    return figure, axes


class _GridLayout(LayoutEngine):
    """The layout of :func:`_panel_grid`'s figures, computed in one pass: rows of panels, each followed by a row
    of their legends.

    As constrained layout would lay them out (which measured every panel's decorations twice, then the figure was
    drawn, and gave each legend an axes of its own): each panel is first placed in its cell with typical margins
    (:data:`GRID_MARGINS`, so that its tick locators see about its final size), its decorations (title, tick
    labels, axis labels; not its legend) are measured once, and every panel of a row gets the row's largest top and
    bottom margins, every panel of a column the column's largest left and right ones, :data:`GRID_PAD` inside its
    cell.  The suptitle takes a band at the top; the rows share the rest in the ratio of their heights (a panel's
    cell :data:`PANEL_INCHES`, its legends' row the height :func:`legend_layout` gives); each legend hangs from
    the top of its row, centred on its column.  Each run starts again from the typical margins, so that running it
    twice (as ``savefig`` does) lays a figure out the same way.
    """

    _adjust_compatible = False
    _colorbar_gridspec = False

    def __init__(self, columns: int, legend_heights: Sequence[float]) -> None:
        super().__init__()
        self.columns = columns
        self.legend_heights = list(legend_heights)
        #: (axes, row, column) of every panel.
        self.panels: list[tuple[object, int, int]] = []

    def _cells(self, figure: Figure, top_band: float) -> list[tuple[float, float, float]]:
        """Top and bottom (inches from the figure's bottom) of each row's panel cell, below ``top_band``, and the
        bottom of its legends' row after them: (panel top, panel bottom, legend bottom) per row."""
        height = figure.get_size_inches()[1]
        wanted = [PANEL_INCHES + legend for legend in self.legend_heights]
        scale = (height - top_band) / sum(wanted)
        cells, top = [], height - top_band
        for legend in self.legend_heights:
            panel_bottom = top - scale * PANEL_INCHES
            cells.append((top, panel_bottom, panel_bottom - scale * legend))
            top = panel_bottom - scale * legend
        return cells

    def cell(self, figure: Figure, row: int, column: int, margins=None) -> list[float]:
        """The position (figure fractions) of the panel in ``row``, ``column`` with ``margins`` (left, right,
        bottom, top, in inches; default :data:`GRID_MARGINS`) around it inside its cell, below a typical
        suptitle's band."""
        return self._position(figure, row, column, GRID_MARGINS if margins is None else margins, GRID_TOP_BAND)

    def _position(self, figure: Figure, row: int, column: int, margins, top_band: float) -> list[float]:
        width, height = figure.get_size_inches()
        left, right, bottom, top = margins
        panel_top, panel_bottom, _ = self._cells(figure, top_band)[row]
        cell = width / self.columns
        x0, x1 = column * cell + GRID_PAD + left, (column + 1) * cell - GRID_PAD - right
        y0, y1 = panel_bottom + GRID_PAD + bottom, panel_top - GRID_PAD - top
        return [x0 / width, y0 / height, max(x1 - x0, 0.1) / width, max(y1 - y0, 0.1) / height]

    def execute(self, figure: Figure) -> None:
        renderer = figure._get_renderer()
        dpi = figure.dpi
        width, height = figure.get_size_inches()
        top_band = 2 * GRID_PAD
        if figure._suptitle is not None and figure._suptitle.get_text():
            figure._suptitle.set_y(1 - GRID_PAD / height)
            figure._suptitle.set_verticalalignment("top")
            top_band += figure._suptitle.get_window_extent(renderer).height / dpi
        measured = {}
        for ax, row, column in self.panels:
            ax.set_position(self._position(figure, row, column, GRID_MARGINS, top_band))
            if ax.get_legend() is not None:
                ax.get_legend().set_in_layout(False)  # placed below, in its own row
            frame = ax.get_window_extent(renderer)
            box = ax.get_tightbbox(renderer, for_layout_only=True)
            measured[ax] = (max(frame.x0 - box.x0, 0) / dpi, max(box.x1 - frame.x1, 0) / dpi,
                            max(frame.y0 - box.y0, 0) / dpi, max(box.y1 - frame.y1, 0) / dpi)
        left = {column: max(measured[ax][0] for ax, _, c in self.panels if c == column) for _, _, column in self.panels}
        right = {column: max(measured[ax][1] for ax, _, c in self.panels if c == column) for _, _, column in self.panels}
        bottom = {row: max(measured[ax][2] for ax, r, _ in self.panels if r == row) for _, row, _ in self.panels}
        top = {row: max(measured[ax][3] for ax, r, _ in self.panels if r == row) for _, row, _ in self.panels}
        cells = self._cells(figure, top_band)
        for ax, row, column in self.panels:
            ax.set_position(self._position(figure, row, column, (left[column], right[column], bottom[row], top[row]),
                                           top_band))
            if ax.get_legend() is not None:
                anchor = ((column + 0.5) / self.columns, (cells[row][1] - GRID_PAD) / height)
                ax.get_legend().set_bbox_to_anchor(anchor, transform=figure.transFigure)


#: Margin around each panel of :func:`_panel_grid` inside its cell, in inches (constrained layout's default pad).
GRID_PAD = 0.04
#: Typical margins of a panel (left, right, bottom, top; inches: tick labels and an axis label left and below, a
#: title above) and a suptitle's band: where :class:`_GridLayout` places panels before it measures them.
GRID_MARGINS, GRID_TOP_BAND = (0.5, 0.05, 0.4, 0.2), 0.25


def _legend_below(ax, width: float) -> None:
    """``ax``'s legend (the ideal first), in as many columns as fit ``width`` inches, in the row below it
    (:class:`_GridLayout` hangs it from the top of that row)."""
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i] != "ideal")
    handles = [handles[i] for i in order]
    labels = [labels[i] for i in order]
    for handle, label in clip_legend_entry([ax]):
        handles.append(handle)
        labels.append(label)
    labels = [wrap_label(label) for label in labels]
    columns, _ = legend_layout(labels, width)
    legend = ax.legend(handles, labels, loc="upper center", frameon=False, ncol=columns,
                       handlelength=2.2, columnspacing=1.0, labelspacing=0.25, borderaxespad=0.0,
                       bbox_to_anchor=(0.5, 0.0))
    legend.set_in_layout(False)


def _by_property_and_family(summary: pd.DataFrame) -> list[tuple[str, str] | None]:
    """(property, family) of each panel, properties in :data:`SCORE_PROPERTIES` order each starting a row of two."""
    cells: list[tuple[str, str] | None] = []
    for prop in [p for p in SCORE_PROPERTIES if p in set(summary["property"])]:
        families = sorted(summary.loc[summary["property"] == prop, "family"].unique(), key=family_rank)
        cells += [(prop, family) for family in families] + [None] * (len(families) % 2)
    return cells


def scenario_figure(results: pd.DataFrame, scenario: str, *, registry: StyleRegistry | None = None,
                    band: str = "ci95") -> Drawn:
    """Scores against the parameter of ``scenario``: one panel per property and family, each with its legend below.

    The scenario is drawn at its largest sample size.  A panel holds the sub-scores
    of one family that measure one property, so it draws a handful of lines, each in
    a colour of its own; the panel's ideal trajectory is the wide grey line.
    """
    rows = at_largest_n(results.loc[results["scenario"] == scenario])
    if rows.empty:
        raise ValueError(f"no rows for scenario {scenario!r}")
    registry = registry or StyleRegistry(rows)
    summary = seed_means(rows, ["value", "value_label", "metric", "sub_score", "family", "property"])
    ideals = ideal_table(rows)
    cells = _by_property_and_family(summary)
    notes: list[str] = []
    title = (f"{scenario} (n = {int(rows['n_samples'].max())}; "
             f"{band_text(band, summary['n_seeds'])})")
    axis_rows, parameter = rows[["value", "value_label"]].drop_duplicates(), rows["parameter"].iloc[0]  # once, not per panel
    with paper_style():
        panels = [None if cell is None else _Panel(f"{cell[0]} · {cell[1]}", _labels(summary, *cell)) for cell in cells]
        figure, axes = _panel_grid(panels, title)
        for ax, (prop, family) in zip(axes, [cell for cell in cells if cell is not None]):
            own = summary.loc[(summary["property"] == prop) & (summary["family"] == family)]
            if _draw_ideal(ax, ideals, prop, rows["value"].unique()) and READ_RANGE_NOTE not in notes:
                notes.append(READ_RANGE_NOTE)
            notes += draw_scores(ax, own, "value", registry, band=band)
            format_axis(ax, axis_rows, parameter)
            score_axis(ax)
            ax.set_ylabel("score")
            _legend_below(ax, PAGE_WIDTH / 2)
    return Drawn(figure, notes)


def _labels(summary: pd.DataFrame, prop: str, family: str) -> list[str]:
    """The legend labels of a (property, family) panel: the ideal, then its sub-scores, then the clip markers' where a
    mean lies beyond the axis."""
    own = summary.loc[(summary["property"] == prop) & (summary["family"] == family)]
    entries = own[["metric", "sub_score", "higher_is_better"]].drop_duplicates()
    clipped = [CLIP_LABEL] if beyond_axis(own["mean"].to_numpy()) else []
    return ["ideal"] + [score_label(*entry) for entry in entries.itertuples(index=False)] + clipped


def atlas_figures(results: pd.DataFrame, registry: StyleRegistry, *, band: str = "ci95") -> list[tuple[str, Drawn]]:
    """Small multiples: rows = sub-scores, columns = scenarios, one figure per family (split past :data:`ATLAS_ROWS`).

    Each panel: the mean score over seeds and its band (:func:`band_half_width`) against
    the scenario's parameter at its largest n, and the ideal trajectory of the
    sub-score's property.  Scenarios testing sample efficiency are left out (their
    figure is the efficiency curve).
    """
    return [(name, draw()) for name, draw in atlas_drawers(results, registry, band=band)]


def atlas_drawers(results: pd.DataFrame, registry: StyleRegistry, *, band: str = "ci95"
                  ) -> list[tuple[str, Callable[[], Drawn]]]:
    """:func:`atlas_figures` not drawn yet: (name, a picklable call that draws it), holding only the rows it draws; none
    where every scenario tests sample efficiency."""
    shown = results.loc[~results["scenario"].isin(scenarios_testing(results, "sample_efficiency"))]
    if shown.empty:  # every scenario tests sample efficiency: its own figure draws them, no atlas
        return []
    shown = pd.concat([at_largest_n(own) for _, own in shown.groupby("scenario")])
    scenarios = sorted(shown["scenario"].unique())
    summary = seed_means(shown, ["scenario", "value", "value_label", "metric", "sub_score", "family", "property"])
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
            drawers.append((name, functools.partial(_atlas, own, chunk, columns, ideals, axis_values, registry, name, band)))
    return drawers


def _atlas(summary: pd.DataFrame, scores: pd.DataFrame, scenarios: list[str], ideals: pd.DataFrame,
           rows: pd.DataFrame, registry: StyleRegistry, title: str, band: str) -> Drawn:
    """One atlas figure: one axes per column (scenario), its rows (sub-scores) drawn in it one above the other.

    Every panel of a column shares its x axis and the score axis, so a column is one axes whose y axis holds a score
    axis per row (:func:`_row_transform`), each with its frame, ticks and label drawn as in a grid of panels
    (:func:`_atlas_frames`): a grid of hundreds of axes spent most of its time making, laying out and drawing their
    ticks.  Margins are fixed in inches (no layout engine).
    """
    notes: list[str] = []
    curves = dict(tuple(summary.groupby(["scenario", "metric", "sub_score"])))
    ideals_of = dict(tuple(ideals.groupby("scenario")))
    rows_of = dict(tuple(rows.groupby("scenario")))
    ideal_lines = {(scenario, prop): ideal_points(ideals_of[scenario], prop, rows_of[scenario]["value"].unique())
                   for scenario in scenarios if scenario in ideals_of for prop in set(scores["property"])}
    height = ATLAS_ROW_INCHES * len(scores) + ATLAS_TOP_INCHES + ATLAS_BOTTOM_INCHES
    offsets = _row_offsets(len(scores))
    panel_notes: dict[tuple[int, int], list[str]] = {}  # (row, column) -> its notes
    with paper_style():
        figure = Figure(figsize=(PAGE_WIDTH, height))
        figure.subplots_adjust(left=ATLAS_LEFT_INCHES / PAGE_WIDTH, right=ATLAS_RIGHT, top=1 - ATLAS_TOP_INCHES / height,
                               bottom=ATLAS_BOTTOM_INCHES / height, wspace=ATLAS_WSPACE)
        with matplotlib.rc_context(ATLAS_TICKS):  # the columns' ticks made as drawn, not made then restyled
            columns = figure.subplots(1, len(scenarios), squeeze=False)[0]
        for j, (ax, scenario) in enumerate(zip(columns, scenarios)):
            ax.set_autoscale_on(False)
            ax.set_ylim(SCORE_LIMITS[0], offsets[0] + SCORE_LIMITS[1])
            ax.tick_params(axis="x", labelbottom=True)
            _atlas_axis(ax, rows_of[scenario])
            ax.set_xlim(*_span(rows_of[scenario]["value"]))  # after the scale and the ticks: neither moves it
            ax.set_title(_wrapped(scenario, len(scenarios)), fontsize=ATLAS_TITLE_SIZE)
            for i, ((metric, sub_score, prop, _higher), offset) in enumerate(zip(scores.itertuples(index=False), offsets)):
                shift = _row_transform(ax, offset)
                shaded = ((scenario, prop) in ideal_lines
                          and _draw_ideal_points(ax, *ideal_lines[scenario, prop], label=False, transform=shift))
                curve = curves.get((scenario, metric, sub_score))
                panel_notes[i, j] = [READ_RANGE_NOTE] * shaded + (
                    [] if curve is None else [f"{scenario}: {note}" for note in draw_scores(
                        ax, curve, "value", registry, band=band, markers=False, transform=shift)])
            _atlas_frames(ax, offsets, labelled=j == 0)
        for cell in sorted(panel_notes):  # the notes read row by row, as the panels are
            notes += [note for note in panel_notes[cell] if note != READ_RANGE_NOTE or READ_RANGE_NOTE not in notes]
        for (metric, sub_score, _prop, higher), offset in zip(scores.itertuples(index=False), offsets):
            label = score_label(metric, sub_score, bool(higher)).replace("/", "/\n").replace(" (", "\n(")
            columns[0].annotate("\n".join(wrap_label(line, ATLAS_LABEL_CHARACTERS) for line in label.split("\n")),
                                (0, offset + sum(SCORE_LIMITS) / 2), xycoords=columns[0].get_yaxis_transform(),
                                xytext=(-_atlas_label_points(), 0), textcoords="offset points", ha="right",
                                va="center", fontsize=5, color=registry(metric, sub_score).colour, annotation_clip=False,
                                gid="atlas-row-label")
        figure.suptitle(f"atlas: {title} ({band_text(band, summary['n_seeds'])})", fontsize=8, y=1 - 0.08 / height)
    return Drawn(figure, notes)


#: The gap between an atlas's rows, a fraction of a row's score axis (as a grid of panels with ``hspace`` 0.2 had).
ATLAS_HSPACE = 0.2


def _row_offsets(rows: int) -> list[float]:
    """Where each row of an atlas column (top first) has its score 0, in the column's y units: the score axis
    :data:`SCORE_LIMITS` of each row, :data:`ATLAS_HSPACE` of it apart."""
    step = (SCORE_LIMITS[1] - SCORE_LIMITS[0]) * (1 + ATLAS_HSPACE)
    return [(rows - 1 - row) * step for row in range(rows)]


def _row_transform(ax, offset: float):
    """Data coordinates of one row of an atlas column: the score ``y`` drawn at ``y + offset``."""
    return Affine2D().translate(0, offset) + ax.transData


def _atlas_frames(ax, offsets: Sequence[float], *, labelled: bool) -> None:
    """Each row of an atlas column framed as a panel of :func:`paper_style` is: a left and a bottom edge, ticks at
    0, 0.5 and 1 on the left (labelled in the first column, ``labelled``) and ticks under every row where the
    bottom row's x axis has them.

    The bottom row's x ticks, and the first column's score ticks, are the axes' own; the others are marks in the
    ticks' style (:data:`ATLAS_TICKS`), one line of them per column.
    """
    ax.spines[:].set_visible(False)
    low, high = SCORE_LIMITS
    edge = {"color": matplotlib.rcParams["axes.edgecolor"], "linewidth": matplotlib.rcParams["axes.linewidth"],
            "clip_on": False, "zorder": 2.5, "solid_capstyle": "projecting", "solid_joinstyle": "miter"}
    frame_x = np.tile([0.0, 0.0, 1.0, np.nan], len(offsets))
    frame_y = np.concatenate([[offset + high, offset + low, offset + low, np.nan] for offset in offsets])
    ax.plot(frame_x, frame_y, transform=ax.get_yaxis_transform(), **edge)
    scores = [offset + tick for offset in offsets for tick in (0.0, 0.5, 1.0)]
    mark = {"linestyle": "none", "clip_on": False, "zorder": 2.5}
    if labelled:
        ax.set_yticks(scores, [f"{tick:.1f}" for _ in offsets for tick in (0.0, 0.5, 1.0)])
        ax.tick_params(axis="y", labelleft=True)
    else:
        ax.set_yticks([])
        ax.plot(np.zeros(len(scores)), scores, transform=ax.get_yaxis_transform(), marker=TICKLEFT,
                markersize=ATLAS_TICKS["ytick.major.size"], markeredgewidth=matplotlib.rcParams["ytick.major.width"],
                color=matplotlib.rcParams["ytick.color"], **mark)
    left, right = sorted(ax.get_xlim())
    ticks = [tick for tick in ax.get_xticks() if left <= tick <= right]
    ax.plot(np.tile(ticks, len(offsets) - 1), np.repeat([offset + low for offset in offsets[:-1]], len(ticks)),
            marker=TICKDOWN, markersize=ATLAS_TICKS["xtick.major.size"],
            markeredgewidth=matplotlib.rcParams["xtick.major.width"], color=matplotlib.rcParams["xtick.color"], **mark)


def _atlas_label_points() -> float:
    """How far left of its column an atlas row's label ends, in points: past the score ticks and their labels, as
    far as an axis label would be (its pad, ``axes.labelpad``)."""
    return (ATLAS_TICKS["ytick.major.size"] + ATLAS_TICKS["ytick.major.pad"]
            + _text_points("1.0", ATLAS_TICKS["ytick.labelsize"]) + matplotlib.rcParams["axes.labelpad"])


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
def _text_points(text: str, size: float = ATLAS_TITLE_SIZE) -> float:
    """Width (points) of ``text`` at ``size`` points (by default in an atlas column title's font)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    return TextToPath().get_text_width_height_descent(text, FontProperties(size=size), ismath=False)[0]


def _atlas_axis(ax, rows: pd.DataFrame) -> None:
    """The x axis of an atlas panel: at most three ticks; categorical values unlabelled (their names do not fit)."""
    values = np.sort(rows["value"].unique())
    if _is_categorical(rows):
        ax.set_xticks(values, [""] * len(values))
        return
    if _log_axis(rows):
        ax.set_xscale("log")
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=3, integer=bool(np.allclose(values, np.round(values)))))
    ax.tick_params(axis="x", labelsize=3.5)


def efficiency_figure(efficiency: pd.DataFrame, *, registry: StyleRegistry, band: str = "ci95") -> Drawn:
    """Mean ``|score(n) - score(n_max)|`` against n, one panel per property and family (review Figure 9).

    A panel's axis spans 0 to a little above its largest mean: a band wider than that
    (a t interval over two seeds is 9 standard deviations wide) runs off the panel
    instead of squeezing the means flat.
    """
    summary = efficiency.rename(columns={"mean_abs_difference": "mean", "std_abs_difference": "std"}).assign(
        higher_is_better=True)
    cells = _by_property_and_family(summary)
    sizes = sorted(summary["n"].unique())
    title = f"sample efficiency (n_max = {int(summary['n_max'].max())}; {band_text(band, summary['n_seeds'])})"
    with paper_style():
        panels = [None if cell is None else _Panel(f"{cell[0]} · {cell[1]}",  # no ideal, nothing clipped
                                                   [label for label in _labels(summary, *cell)[1:] if label != CLIP_LABEL])
                  for cell in cells]
        figure, axes = _panel_grid(panels, title)
        for ax, (prop, family) in zip(axes, [cell for cell in cells if cell is not None]):
            own = summary.loc[(summary["property"] == prop) & (summary["family"] == family)]
            draw_scores(ax, own, "n", registry, band=band, clip=False)
            ax.set_ylim(0, 1.15 * max(float(own["mean"].max()), 1e-3))
            ax.set_xscale("log")
            ax.set_xticks(sizes, [str(int(n)) for n in sizes])
            ax.set_xlabel("n")
            ax.set_ylabel("mean |s(n) − s(n_max)|")
            _legend_below(ax, PAGE_WIDTH / 2)
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


def bounds_figure(results: pd.DataFrame, metric: str, *, registry: StyleRegistry, band: str = "ci95") -> Drawn:
    """A bounded metric's terms per scenario and value, with the span between each term's bounds.

    As in Tokui and Sato (2022), Figure 3b: a term's bar is solid up to the mean (over
    seeds) of its lower bound and pale from there up to the mean of its upper bound.
    A sub-score without bounds is a solid bar with the band (:func:`band_half_width`)
    as error bar.  Only scenarios testing entanglement attacks are drawn when the metric has
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
    summary = rows.groupby(keys)["score"].agg(mean="mean", std="std", n_seeds="count").reset_index().fillna(
        {"std": 0.0})
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
                    spread = band_half_width(shown["std"].reindex([(upper, v) for v in values]).to_numpy(),
                                             shown["n_seeds"].reindex([(upper, v) for v in values]).to_numpy(), band)
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
        figure.suptitle(f"{metric} ({band_text(band, summary['n_seeds'])}; error bars on terms without bounds)",
                        fontsize=8)
    return Drawn(figure)


def cost_figure(by_n: pd.DataFrame, *, registry: StyleRegistry) -> Drawn:
    """Median seconds per call against n on log-log axes: one panel per family, one line per metric in its style.

    A family of more metrics than the palette has colours is drawn in several panels
    (:func:`reports.rendering.style.chunks`), as the registry assumed when it coloured them.
    """
    cells: list[tuple[str, list[str]]] = []
    for family in sorted(by_n["family"].unique(), key=family_rank):
        parts = chunks(sorted(by_n.loc[by_n["family"] == family, "metric"].unique()))
        cells += [(family if len(parts) == 1 else f"{family} ({i} of {len(parts)})", part)
                  for i, part in enumerate(parts, start=1)]
    with paper_style():
        figure, axes = _panel_grid([_Panel(title, metrics) for title, metrics in cells],
                                            "cost growth: median seconds per call")
        for ax, (_title, metrics) in zip(axes, cells):
            for metric in metrics:
                curve = by_n.loc[by_n["metric"] == metric]
                ax.plot(curve["n"], curve["median_seconds"], label=metric, **registry.metric(metric).line())
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("n")
            ax.set_ylabel("seconds")
            _legend_below(ax, PAGE_WIDTH / 2)
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
        title = ("Agreement: Kendall's τ-b between sub-scores' rankings" + (", × 100 in the cells" if size <= 24 else "")
                 + "; hatched grey: undefined (a constant score, or no representation both scored)")
        # above the figure, not the axes: long tick labels push the axes right and a left-aligned title off the figure
        figure.suptitle(textwrap.fill(title, width=int(side * 14)), fontsize=7, x=0.02, ha="left")
        figure.colorbar(image, ax=ax, shrink=0.6, label="Kendall's τ-b")
    return Drawn(figure)
