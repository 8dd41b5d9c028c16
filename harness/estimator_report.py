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

    python -m harness.estimator_report --out reports/estimators

The default run (n = 5000, 7 values of alpha, factor 0) takes well under a minute on one core.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from metrics.estimators import ESTIMATORS, mutual_information
from scenarios._attacks import ATTACKS
from scenarios.gaussian_toy import ALPHAS, N_FACTORS, exact_information, sample

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
        raise ValueError(f"factor must be in 0..{N_FACTORS - 1}, got {factor}")
    unknown = sorted(set(estimators) - set(ESTIMATORS))
    if unknown:
        raise ValueError(f"unknown estimator(s) {unknown}; choose from {ESTIMATORS}")
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m harness.estimator_report",
        description=(
            "Compare the mutual-information estimators of metrics.estimators with the exact values of the "
            "Gaussian toy model of Tokui and Sato (2022) under the redundancy and synergy attacks. "
            "Writes estimator_report.csv, estimator_report.png and estimator_report.svg into --out."
        ),
    )
    parser.add_argument("--out", required=True, type=Path, help="output directory (created if missing)")
    parser.add_argument("--n", type=int, default=5000, help="samples per attack and alpha (default: 5000)")
    parser.add_argument("--seed", type=int, default=0, help="root seed (default: 0)")
    parser.add_argument(
        "--alphas", type=float, nargs="+", default=list(ALPHAS), help=f"attack strengths (default: {' '.join(map(str, ALPHAS))})"
    )
    parser.add_argument(
        "--estimators", nargs="+", default=list(ESTIMATORS), choices=ESTIMATORS, help="estimators to compare (default: all)"
    )
    parser.add_argument("--factor", type=int, default=0, help=f"factor k in 0..{N_FACTORS - 1} (all give the same exact values; default: 0)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    arguments = _parser().parse_args(argv)
    if arguments.n < 10:
        raise SystemExit("--n must be at least 10")
    arguments.out.mkdir(parents=True, exist_ok=True)
    table = run(arguments.n, arguments.seed, arguments.alphas, arguments.estimators, arguments.factor)
    stem = arguments.out / "estimator_report"
    table.to_csv(stem.with_suffix(".csv"), index=False)
    written = [stem.with_suffix(".csv"), *plot(table, stem)]
    summary = table.assign(abs_error=table["error"].abs()).groupby(["estimator", "quantity"])["abs_error"].max().unstack()
    print("largest |estimate - exact| (nats) over attacks and alphas:")
    print(summary.round(4).to_string())
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
