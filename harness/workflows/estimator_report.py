"""Estimator report: estimated vs exact mutual information on the Gaussian toy model.

Draws samples of the attacked Gaussian toy model of Tokui and Sato (2022, section 5.1;
:mod:`scenarios.gaussian_toy`), estimates the three informations every PID bound is made
of -- I(y_k; z_k), I(y_k; z_\\k) and I(y_k; z) -- with each estimator of
:mod:`metrics.estimators`, and compares them with the exact values from covariance algebra
across the attack strength ``alpha``.  Writes ``estimator_report.csv`` (one row per attack,
alpha, quantity and estimator) and ``estimator_report.png`` / ``.svg`` (one panel per attack
and quantity).  The histogram estimators handle one code column, so they appear only for
I(y_k; z_k).

Run::

    python -m harness estimators --out runs/estimators

The default run (n = 5000, 7 values of alpha, factor 0) takes well under a minute on one core.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from metrics.estimators import ESTIMATORS, mutual_information
from scenarios._attacks import ATTACKS
from scenarios.gaussian_toy import ALPHAS, N_FACTORS, exact_information, sample
from harness.errors import UsageError

QUANTITIES = {"code": "I(y_k; z_k)", "rest": "I(y_k; z_\\k)", "total": "I(y_k; z)"}
SINGLE_COLUMN = ("histogram", "miller_madow")
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


def plot(table: pd.DataFrame, stem: Path) -> list[Path]:
    """Draw one panel per attack and quantity; save ``stem.png`` and ``stem.svg``."""
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
                axis.plot(group["alpha"], group["estimate"], marker="o", markersize=3.5, linewidth=1.2, label=estimator)
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
