"""Labels at a free spot beside their line: never over a line, a marker, a band or another label.

A label is tried at the vertices and quarter points of its line (right end first),
above, below and at the four diagonals of each, one, two then three gaps
(:data:`GAP_POINTS`) away, and last centred on the line itself (as contour labels
are), until one spot lies inside the axes and its box, widened by each line's half
width and marker radius, touches no line of the axes (nor its own, but when centred
on it), no label placed before it and, if any spot allows, no band; a label further
than one gap also needs the stretch between it and its line free of other lines, so
that no line runs between a label and the line it names.
Geometry is measured on the figure as laid out (call
:meth:`matplotlib.figure.Figure.draw_without_rendering` first and keep the layout
fixed afterwards).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from matplotlib.collections import Collection
from matplotlib.lines import Line2D
from matplotlib.path import Path
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox

#: Distance between a label and its line, in points.
GAP_POINTS = 3.0
#: Where a label goes around a point of its line: direction (in gaps), then its alignment.
_DIRECTIONS = ((0, 1, "center", "bottom"), (0, -1, "center", "top"), (1, 1, "left", "bottom"),
               (-1, 1, "right", "bottom"), (1, -1, "left", "top"), (-1, -1, "right", "top"))
#: Distances from the line tried, in gaps; 0 is on the line, centred.
_DISTANCES = (1, 2, 3, 0)


def runs(points: np.ndarray) -> list[np.ndarray]:
    """The stretches of ``points`` (an (m, 2) array) between rows that are not finite."""
    finite = np.isfinite(points).all(axis=1)
    breaks = np.flatnonzero(np.diff(np.r_[0, finite.astype(int), 0]))
    return [points[start:stop] for start, stop in zip(breaks[::2], breaks[1::2])]


def line_points(line: Line2D) -> np.ndarray:
    """``line``'s points in display coordinates (NaN kept: they break the line)."""
    data = np.column_stack([np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)])
    return line.get_transform().transform(data) if len(data) else data.reshape(0, 2)


def line_touches(line: Line2D, box: Bbox) -> bool:
    """Whether ``box``, widened by ``line``'s half width or marker radius (and half a point), touches ``line``."""
    dpi = line.figure.dpi
    marker = line.get_markersize() if line.get_marker() not in (None, "None", "none", "", " ") else 0.0
    pad = (max(line.get_linewidth(), marker) / 2 + 0.5) * dpi / 72
    wide = Bbox.from_extents(box.x0 - pad, box.y0 - pad, box.x1 + pad, box.y1 + pad)
    connected = line.get_linestyle() not in ("None", "none", "", " ")
    for run in runs(line_points(line)):
        if connected and len(run) > 1:
            if Path(run).intersects_bbox(wide, filled=False):
                return True
        elif ((run[:, 0] >= wide.x0) & (run[:, 0] <= wide.x1) & (run[:, 1] >= wide.y0) & (run[:, 1] <= wide.y1)).any():
            return True
    return False


def band_touches(collection: Collection, box: Bbox) -> bool:
    """Whether ``box`` overlaps a filled area of ``collection`` (a band drawn by ``fill_between``)."""
    transform = collection.get_transform()
    return any(transform.transform_path(path).intersects_bbox(box, filled=True) for path in collection.get_paths())


def _candidates(line: Line2D) -> Iterable[np.ndarray]:
    """Points of ``line`` to label it at, in display coordinates: vertices and quarter points, right end first."""
    for run in reversed(runs(line_points(line))):
        if len(run) == 1:
            yield run[0]
            continue
        for start, stop in zip(run[::-1][:-1], run[::-1][1:]):
            for fraction in (0.0, 0.25, 0.5, 0.75):
                yield start + fraction * (stop - start)
        yield run[0]


def label_lines(ax, items: Sequence[tuple[Line2D, str]], *, fontsize: float, color: str
                ) -> tuple[list[Annotation], list[tuple[Line2D, str]]]:
    """Write each ``(line, text)`` of ``items`` beside its line at a free spot of ``ax``.

    Returns the labels written and the items for which no spot was free (nothing is
    written for those).
    """
    placed: list[Annotation] = []
    boxes: list[Bbox] = []  # the placed labels' boxes, measured once each
    failed: list[tuple[Line2D, str]] = []
    frame = ax.get_window_extent()
    for line, text in items:
        label = ax.annotate(text, (0, 0), xytext=(0, 0), textcoords="offset points", fontsize=fontsize, color=color)
        extents = _aligned_extents(label, np.array([(frame.x0 + frame.x1) / 2, (frame.y0 + frame.y1) / 2]))
        if any(_first_free_spot(ax, label, extents, line, boxes, avoid_bands) for avoid_bands in (True, False)):
            placed.append(label)
            boxes.append(label.get_window_extent())
        else:
            label.remove()
            failed.append((line, text))
    return placed, failed


def _aligned_extents(label: Annotation, at: np.ndarray) -> dict[tuple[str, str], np.ndarray]:
    """``label``'s box (x0, y0, x1, y1, display units) relative to the point it is anchored at, for each alignment
    of :data:`_DIRECTIONS` and the centred one, measured with the label anchored at the display point ``at`` (inside
    the axes: a logarithmic axis has no data point 0): a label's box moves with its anchor and keeps its size, so
    each spot tried is this box translated (measuring the text at every spot took most of a review figure's
    drawing)."""
    data = label.axes.transData
    label.xy = tuple(data.inverted().transform(at))
    label.set_position((0.0, 0.0))
    origin = data.transform(label.xy)
    extents = {}
    for ha, va in [(ha, va) for _, _, ha, va in _DIRECTIONS] + [("center", "center")]:
        label.set_horizontalalignment(ha)
        label.set_verticalalignment(va)
        extents[ha, va] = label.get_window_extent().extents - np.r_[origin, origin]
    return extents


def _first_free_spot(ax, label: Annotation, extents: dict[tuple[str, str], np.ndarray], line: Line2D,
                     placed: Sequence[Bbox], avoid_bands: bool) -> bool:
    """Move ``label`` (its boxes about its anchor ``extents``: :func:`_aligned_extents`) to the first free spot beside
    ``line`` (:func:`_candidates`, :data:`_DIRECTIONS`, :data:`_DISTANCES`), away from the boxes ``placed`` of the
    labels written before it; whether there was one."""
    frame = ax.get_window_extent()
    to_data = ax.transData.inverted()
    gap = GAP_POINTS * ax.figure.dpi / 72
    for distance in _DISTANCES:
        for point in _candidates(line):
            for dx, dy, ha, va in _DIRECTIONS if distance else [(0, 0, "center", "center")]:
                anchor = point + gap * distance * np.array([dx, dy])
                box = Bbox.from_extents(*(extents[ha, va] + np.r_[anchor, anchor]))
                if not (frame.x0 + 1 <= box.x0 and box.x1 <= frame.x1 - 1 and frame.y0 + 1 <= box.y0
                        and box.y1 <= frame.y1 - 1):
                    continue
                between = Bbox([point + gap * np.array([dx, dy]), anchor])
                stretch = Bbox.union([box, between]) if distance > 1 else box
                if (not any(box.overlaps(done) for done in placed)
                        and not any(line_touches(other, box) for other in ax.get_lines() if distance or other is not line)
                        and not any(line_touches(other, stretch) for other in ax.get_lines() if other is not line)
                        and not (avoid_bands and any(band_touches(band, box) for band in ax.collections))):
                    label.xy = tuple(to_data.transform(point))
                    label.set_position((dx * distance * GAP_POINTS, dy * distance * GAP_POINTS))
                    label.set_horizontalalignment(ha)
                    label.set_verticalalignment(va)
                    return True
    return False
