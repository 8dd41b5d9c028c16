"""The estimator report's figure and summary: estimated vs exact mutual information.

Reads the table of :mod:`harness.workflows.estimator_report` (one row per attack, alpha,
quantity and estimator, with the estimate and the exact value) and draws one panel per
attack (rows) and quantity (columns): the exact curve in the ideal trajectory's style of the
other figures (:data:`reports.rendering.style.IDEAL_STYLE`) and each estimator in its own colour,
marker and line style from the shared palette (:func:`estimator_styles`), at the paper
style's sizes.  Two estimators whose curves lie within 1% of a panel's range of each other
are named in that panel ("miller_madow on histogram") and, with their largest gap, in the
figure's notes, so a curve hidden under another (the histogram under Miller-Madow, which
differ by the bias correction only) is still accounted for.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from reports.rendering.figures import Drawn
from reports.rendering.style import FONT_SIZE, IDEAL_STYLE, LINESTYLES, MARKERS, PAGE_WIDTH, PALETTE, Style, paper_style

QUANTITIES = {"code": "I(y_k; z_k)", "rest": "I(y_k; z_\\k)", "total": "I(y_k; z)"}
"""The three informations every PID bound is made of (Tokui and Sato 2022, eq. 7)."""
SINGLE_COLUMN_CELL = "n/a (one code column only)"
"""What the summary shows for a quantity an estimator of one code column cannot estimate."""
OVERLAP_FRACTION = 0.01
"""Two curves closer than this fraction of their panel's value range are named in an overlap note."""
SINGLE_ALPHA_MARKER = {"marker": "_", "markersize": 14, "markeredgewidth": IDEAL_STYLE["linewidth"]}
"""How the exact value is drawn where a panel has one alpha (a line through one point draws nothing)."""


def estimator_styles(estimators: Sequence[str]) -> dict[str, Style]:
    """Colour, marker and line style of each estimator, in the order given: all three distinct between neighbours.

    The ``i``-th estimator takes ``PALETTE[i]``, ``MARKERS[i]`` and ``LINESTYLES[i % 4]``
    of the shared style (:mod:`reports.rendering.style`).
    """
    return {name: Style(PALETTE[rank % len(PALETTE)], MARKERS[rank % len(MARKERS)], LINESTYLES[rank % len(LINESTYLES)])
            for rank, name in enumerate(estimators)}


def _line(style: Style, rank: int) -> dict:
    """Every second estimator hollow and larger, so a curve lying on its predecessor's stays visible."""
    if rank % 2:
        return {**style.line(), "markerfacecolor": "none", "markersize": 4.5}
    return style.line()


def error_summary(table: pd.DataFrame, single_column: Sequence[str] = ()) -> pd.DataFrame:
    """The largest |estimate - exact| per estimator (rows) and quantity (columns), as printed text.

    Values are rounded to 4 decimals; a quantity that an estimator of ``single_column``
    cannot estimate reads :data:`SINGLE_COLUMN_CELL` instead of a missing value.

    Raises
    ------
    ValueError
        When another estimator lacks a quantity the table holds.
    """
    largest = table.assign(abs_error=table["error"].abs()).groupby(["estimator", "quantity"])["abs_error"].max().unstack()
    largest = largest.reindex(columns=[quantity for quantity in QUANTITIES if quantity in set(table["quantity"])])
    text = pd.DataFrame("", index=largest.index, columns=largest.columns)
    for estimator in largest.index:
        for quantity in largest.columns:
            value = largest.loc[estimator, quantity]
            if not np.isnan(value):
                text.loc[estimator, quantity] = f"{value:.4f}"
            elif estimator in single_column:
                text.loc[estimator, quantity] = SINGLE_COLUMN_CELL
            else:
                raise ValueError(f"table has no {quantity!r} rows for estimator {estimator!r}")
    return text


def overlapping_curves(cell: pd.DataFrame, fraction: float = OVERLAP_FRACTION) -> list[tuple[str, str, float]]:
    """Pairs of estimators whose curves in one panel lie within ``fraction`` of the panel's value range.

    ``cell`` holds the rows of one attack and quantity.  Returns ``(first, second, largest gap)`` in
    the order the estimators appear.
    """
    if cell.empty:
        return []
    curves = {estimator: group.set_index("alpha")["estimate"].sort_index() for estimator, group in cell.groupby("estimator", sort=False)}
    values = np.concatenate([cell["estimate"].to_numpy(), cell["exact"].to_numpy()])
    tolerance = fraction * max(float(values.max() - values.min()), 1e-12)
    names = list(curves)
    pairs = []
    for index, first in enumerate(names):
        for second in names[index + 1:]:
            if not curves[first].index.equals(curves[second].index):
                continue
            gap = float((curves[first] - curves[second]).abs().max())
            if gap <= tolerance:
                pairs.append((first, second, gap))
    return pairs


def mean_over_draws(table: pd.DataFrame) -> pd.DataFrame:
    """One row per attack, quantity, estimator and alpha: the estimate averaged over the draws (seeds), in table order."""
    return table.groupby(["attack", "quantity", "estimator", "alpha"], sort=False, as_index=False).agg(
        estimate=("estimate", "mean"), exact=("exact", "first"), n=("n", "first"))


def estimator_figure(table: pd.DataFrame, estimators: Sequence[str] | None = None) -> Drawn:
    """One panel per attack (rows) and quantity the table holds (columns): each estimator against the exact curve.

    ``estimators`` fixes the styles' order (default: as the table lists them), so an
    estimator looks the same whichever others a run compares.  The overlap notes go in the
    figure's ``notes`` as well as in their panels.  Several draws (seeds) of one alpha are
    drawn as their mean estimate (:func:`mean_over_draws`).  A quantity no estimator of the
    table estimates (I(y_k; z_\\k) and I(y_k; z) of the histogram estimators, which read one
    code column) gets no panel; with one alpha, the exact value is a wide grey tick.
    """
    draws = table["seed"].nunique() if "seed" in table else 1
    table = mean_over_draws(table)
    order = list(estimators) if estimators is not None else list(dict.fromkeys(table["estimator"]))
    styles = estimator_styles(order)
    attacks = list(dict.fromkeys(table["attack"]))
    notes: list[str] = []
    with paper_style():
        quantities = {quantity: label for quantity, label in QUANTITIES.items() if quantity in set(table["quantity"])}
        width = PAGE_WIDTH * max(len(quantities), 2) / len(QUANTITIES)
        figure = Figure(figsize=(width, 1.9 * len(attacks) + 0.5), layout="constrained")
        axes = figure.subplots(len(attacks), len(quantities), squeeze=False)
        for row, attack in enumerate(attacks):
            for column, (quantity, label) in enumerate(quantities.items()):
                axis = axes[row, column]
                cell = table[(table["attack"] == attack) & (table["quantity"] == quantity)]
                exact = cell.drop_duplicates("alpha").sort_values("alpha")
                axis.plot(exact["alpha"], exact["exact"], label="exact",
                          **{**IDEAL_STYLE, **(SINGLE_ALPHA_MARKER if len(exact) == 1 else {})})
                for estimator, group in cell.groupby("estimator", sort=False):
                    group = group.sort_values("alpha")
                    axis.plot(group["alpha"], group["estimate"], label=estimator, **_line(styles[estimator], order.index(estimator)))
                overlaps = overlapping_curves(cell)
                if overlaps:
                    # a legend with no entries, for its placement away from the curves (loc="best")
                    marks = "\n".join(f"{second} on {first}" for first, second, _ in overlaps)
                    axis.legend(handles=[], title=marks, title_fontsize=FONT_SIZE - 2, loc="best", framealpha=0.8)
                    notes.extend(f"{attack} attack, {label}: {second} overlaps {first} (max gap {gap:.2g} nats)"
                                 for first, second, gap in overlaps)
                axis.set_xscale("symlog", linthresh=0.25)
                axis.set_title(f"{attack} attack: {label}", loc="left")
                axis.set_xlabel("alpha")
                axis.set_ylabel("nats")
        handles, labels = axes[0, 0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="outside lower center", ncol=len(labels), frameon=False)
        n = int(table["n"].iloc[0])
        of_draws = f", mean of {draws} draws" if draws > 1 else ""
        figure.suptitle(f"Estimated vs exact mutual information, Gaussian toy model (n = {n}{of_draws})")
    return Drawn(figure, notes)
