"""Estimator report: estimated vs exact mutual information on the Gaussian toy model.

Draws samples of the attacked Gaussian toy model of Tokui and Sato (2022, section 5.1;
:mod:`scenarios.gaussian_toy`), estimates the three informations every PID bound is made
of -- I(y_k; z_k), I(y_k; z_\\k) and I(y_k; z) -- with each estimator of
:mod:`metrics.estimators`, and compares them with the exact values from covariance algebra
across the attack strength ``alpha``.  Writes ``estimator_report.csv`` (one row per attack,
alpha, quantity and estimator) and ``estimator_report.png`` / ``.svg`` (one panel per attack
and quantity).  The histogram estimators handle one code column, so they appear only for
I(y_k; z_k); the printed summary (:func:`error_summary`) says so in their other cells instead of
showing a missing value.  Every estimator is drawn with its own marker and line style, and a panel
where two estimators' curves lie within 1% of the panel's range of each other names them in a note,
so a curve hidden under another (the histogram under Miller-Madow, which differ by the bias
correction only) is still visible.

Run::

    python -m harness estimators --out runs/estimators

The default run (n = 5000, 7 values of alpha, factor 0) takes well under a minute on one core.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np
import pandas as pd

from metrics.estimators import ESTIMATORS, mutual_information
from scenarios._attacks import ATTACKS
from scenarios.gaussian_toy import ALPHAS, N_FACTORS, exact_information, sample
from harness.errors import UsageError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

QUANTITIES = {"code": "I(y_k; z_k)", "rest": "I(y_k; z_\\k)", "total": "I(y_k; z)"}
SINGLE_COLUMN = ("histogram", "miller_madow")
SINGLE_COLUMN_CELL = "n/a (one code column only)"
"""What the summary shows for a quantity a single-column estimator cannot estimate."""
STYLES = {
    "knn": {"marker": "o", "linestyle": "-", "markersize": 4.0},
    "knn_full": {"marker": "s", "linestyle": (0, (5, 2)), "markersize": 7.0, "markerfacecolor": "none"},
    "gaussian": {"marker": "^", "linestyle": "-.", "markersize": 4.5},
    "histogram": {"marker": "D", "linestyle": "--", "markersize": 7.0, "markerfacecolor": "none"},
    "miller_madow": {"marker": "x", "linestyle": ":", "markersize": 5.0},
}
"""Marker and line style of each estimator: all distinct, and the second of each pair that can coincide
(k-NN on one column, the two histogram estimators) drawn hollow and larger, so both stay visible."""
OVERLAP_FRACTION = 0.01
"""Two curves closer than this fraction of their panel's value range are named in an overlap note."""
COLUMNS = ["attack", "alpha", "quantity", "estimator", "estimate", "exact", "error", "seconds", "n", "seed", "factor"]


def _columns(quantity: str, factor: int, width: int) -> np.ndarray:
    everything = np.arange(width)
    if quantity == "code":
        return everything[[factor]]
    if quantity == "rest":
        return np.delete(everything, factor)
    return everything


def run(n: int, seed: int, alphas: Sequence[float], estimators: Sequence[str], factor: int = 0) -> pd.DataFrame:
    """The table of estimated vs exact information, one row per (attack, alpha, quantity, estimator).

    Each (attack, alpha) draws its own sample from ``numpy.random.SeedSequence([seed, attack
    index, alpha index])``, so a row does not depend on which other rows are computed.
    """
    if not 0 <= factor < N_FACTORS:
        raise UsageError(f"factor must be in 0..{N_FACTORS - 1}, got {factor}")
    unknown = sorted(set(estimators) - set(ESTIMATORS))
    if unknown:
        raise UsageError(f"unknown estimator(s) {unknown}; choose from {ESTIMATORS}")
    rows = []
    for attack_index, attack in enumerate(ATTACKS):
        for alpha_index, alpha in enumerate(alphas):
            rng = np.random.default_rng(np.random.SeedSequence([seed, attack_index, alpha_index]))
            factors, codes = sample(attack, alpha, n, rng)
            exact = exact_information(attack, alpha)
            truth = {
                "code": exact["information_code"][factor, factor],
                "rest": exact["information_rest"][factor, factor],
                "total": exact["information_total"][factor],
            }
            for quantity in QUANTITIES:
                columns = _columns(quantity, factor, codes.shape[1])
                for estimator in estimators:
                    if estimator in SINGLE_COLUMN and columns.size != 1:
                        continue
                    start = time.perf_counter()
                    estimate = mutual_information(factors[:, factor], codes[:, columns], estimator=estimator)
                    seconds = time.perf_counter() - start
                    rows.append([attack, float(alpha), quantity, estimator, estimate, truth[quantity], estimate - truth[quantity], seconds, n, seed, factor])
    return pd.DataFrame(rows, columns=COLUMNS)


def error_summary(table: pd.DataFrame) -> pd.DataFrame:
    """The largest |estimate - exact| per estimator (rows) and quantity (columns), as printed text.

    Values are rounded to 4 decimals; a quantity that a single-column estimator (histogram,
    Miller-Madow) cannot estimate reads :data:`SINGLE_COLUMN_CELL` instead of a missing value.
    """
    largest = table.assign(abs_error=table["error"].abs()).groupby(["estimator", "quantity"])["abs_error"].max().unstack()
    largest = largest.reindex(columns=[quantity for quantity in QUANTITIES if quantity in set(table["quantity"])])
    text = pd.DataFrame("", index=largest.index, columns=largest.columns)
    for estimator in largest.index:
        for quantity in largest.columns:
            value = largest.loc[estimator, quantity]
            if not np.isnan(value):
                text.loc[estimator, quantity] = f"{value:.4f}"
            elif estimator in SINGLE_COLUMN:
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


def draw(table: pd.DataFrame) -> Figure:
    """The figure: one panel per attack (rows) and quantity (columns), estimators against the exact curve."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    attacks = list(dict.fromkeys(table["attack"]))
    figure, axes = plt.subplots(len(attacks), len(QUANTITIES), figsize=(4.2 * len(QUANTITIES), 3.4 * len(attacks)), squeeze=False)
    for row, attack in enumerate(attacks):
        for column, (quantity, label) in enumerate(QUANTITIES.items()):
            axis = axes[row, column]
            cell = table[(table["attack"] == attack) & (table["quantity"] == quantity)]
            exact = cell.drop_duplicates("alpha").sort_values("alpha")
            axis.plot(exact["alpha"], exact["exact"], color="black", linewidth=2.5, label="exact")
            for estimator, group in cell.groupby("estimator", sort=False):
                group = group.sort_values("alpha")
                axis.plot(group["alpha"], group["estimate"], linewidth=1.2, label=estimator, **STYLES[estimator])
            notes = [f"{second} overlaps {first} (max gap {gap:.2g} nats)" for first, second, gap in overlapping_curves(cell)]
            if notes:
                # a legend with no entries, for its placement away from the curves (loc="best")
                axis.legend(handles=[], title="\n".join(notes), title_fontsize=6.5, loc="best", framealpha=0.8)
            axis.set_xscale("symlog", linthresh=0.25)
            axis.set_title(f"{attack} attack: {label}", fontsize=10)
            axis.set_xlabel("alpha")
            axis.set_ylabel("nats")
            axis.grid(alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(labels), frameon=False)
    n = int(table["n"].iloc[0])
    figure.suptitle(f"Estimated vs exact mutual information, Gaussian toy model (K = {N_FACTORS}, sigma = 0.1, n = {n})")
    figure.tight_layout(rect=(0, 0.06, 1, 0.95))
    return figure


def plot(table: pd.DataFrame, stem: Path) -> list[Path]:
    """Draw the figure (:func:`draw`); save ``stem.png`` and ``stem.svg``."""
    import matplotlib.pyplot as plt

    figure = draw(table)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for path in paths:
        figure.savefig(path, dpi=120)
    plt.close(figure)
    return paths


def write_estimator_report(out: Path, *, n: int = 5000, seed: int = 0, alphas: Sequence[float] = ALPHAS,
                           estimators: Sequence[str] = ESTIMATORS, factor: int = 0) -> tuple[pd.DataFrame, list[Path]]:
    """Compute the table, write ``out/estimator_report.csv|png|svg``; return the table and the files written."""
    if n < 10:
        raise UsageError(f"n must be at least 10, got {n}")
    table = run(n, seed, alphas, estimators, factor)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "estimator_report"
    table.to_csv(stem.with_suffix(".csv"), index=False)
    return table, [stem.with_suffix(".csv"), *plot(table, stem)]
