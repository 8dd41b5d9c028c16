"""Estimator report: estimated vs exact mutual information on the Gaussian toy model.

Draws samples of the attacked Gaussian toy model of Tokui and Sato (2022, section 5.1), the
registered scenarios ``gaussian_toy_redundancy`` and ``gaussian_toy_synergy``, through
their public ``generate``; estimates the three informations every PID bound is made of --
I(y_k; z_k), I(y_k; z_\\k) and I(y_k; z) -- with each estimator of
:func:`metrics.estimators.mutual_information`; and compares them with the exact values the
scenarios carry (``Representation.exact``) across the attack strength ``alpha``.  Writes
``estimator_report.csv`` (one row per attack, alpha, quantity and estimator) and the figure
:func:`reports.estimators.estimator_figure` draws, ``estimator_report.png`` / ``.svg``.  The
histogram estimators handle one code column, so they appear only for I(y_k; z_k).

The comparison is not a study of :func:`harness.execution.runner.run_study`: a study sweeps
a scenario's registered grid with seeds derived from the cell's identity, while this report
takes any ``alphas`` and a root ``seed``, and times each (quantity, estimator) on its own;
the estimators are not metrics and registering them would put them in every default study.

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

import scenarios
from harness.errors import UsageError
from metrics.estimators import ESTIMATORS, mutual_information

ATTACK_SCENARIOS = {"redundancy": "gaussian_toy_redundancy", "synergy": "gaussian_toy_synergy"}
"""The attack each registered scenario applies (Tokui and Sato 2022, eqs. 9 and 10)."""
SINGLE_COLUMN = ("histogram", "miller_madow")
"""Estimators of one code column only."""
COLUMNS = ["attack", "alpha", "quantity", "estimator", "estimate", "exact", "error", "seconds", "n", "seed", "factor"]
MIN_SAMPLES = 10


def default_alphas() -> tuple[float, ...]:
    """The attack strengths the scenarios sweep (both share one grid)."""
    return tuple(scenarios.get(ATTACK_SCENARIOS["redundancy"]).values)


def _columns(quantity: str, factor: int, width: int) -> np.ndarray:
    everything = np.arange(width)
    if quantity == "code":
        return everything[[factor]]
    if quantity == "rest":
        return np.delete(everything, factor)
    return everything


def _exact(exact: dict, quantity: str, factor: int) -> float:
    """The closed form of one quantity from ``Representation.exact`` (the factor's own code is ``z_k``)."""
    if quantity == "total":
        return float(exact["information_total"][factor])
    return float(exact[f"information_{quantity}"][factor, factor])


def run(n: int, seed: int, alphas: Sequence[float], estimators: Sequence[str], factor: int = 0) -> pd.DataFrame:
    """The table of estimated vs exact information, one row per (attack, alpha, quantity, estimator).

    Each (attack, alpha) draws its own sample from ``numpy.random.SeedSequence([seed, attack
    index, alpha index])``, so a row does not depend on which other rows are computed.

    Raises
    ------
    harness.errors.UsageError
        For fewer than 10 samples, an unknown estimator or a factor the model lacks.
    """
    if n < MIN_SAMPLES:
        raise UsageError(f"n must be at least {MIN_SAMPLES}, got {n}")
    unknown = sorted(set(estimators) - set(ESTIMATORS))
    if unknown:
        raise UsageError(f"unknown estimator(s) {', '.join(unknown)}; choose from {', '.join(ESTIMATORS)}")
    rows = []
    for attack_index, (attack, name) in enumerate(ATTACK_SCENARIOS.items()):
        scenario = scenarios.get(name)
        for alpha_index, alpha in enumerate(alphas):
            try:
                drawn = scenario.generate(alpha, n=n, seed=np.random.SeedSequence([seed, attack_index, alpha_index]))
            except (ValueError, TypeError) as error:  # what generate raises for a value outside the scenario's range
                raise UsageError(f"alpha {alpha!r}: {error}") from error
            factors, codes = drawn.factors, drawn.codes
            if not 0 <= factor < factors.shape[1]:
                raise UsageError(f"factor must be in 0..{factors.shape[1] - 1}, got {factor}")
            for quantity in ("code", "rest", "total"):
                columns = _columns(quantity, factor, codes.shape[1])
                truth = _exact(drawn.exact, quantity, factor)
                for estimator in estimators:
                    if estimator in SINGLE_COLUMN and columns.size != 1:
                        continue
                    start = time.perf_counter()
                    estimate = mutual_information(factors[:, factor], codes[:, columns], estimator=estimator)
                    seconds = time.perf_counter() - start
                    rows.append([attack, float(alpha), quantity, estimator, estimate, truth, estimate - truth, seconds, n, seed, factor])
    return pd.DataFrame(rows, columns=COLUMNS)


def write_estimator_report(out: Path, *, n: int = 5000, seed: int = 0, alphas: Sequence[float] | None = None,
                           estimators: Sequence[str] = ESTIMATORS, factor: int = 0) -> tuple[pd.DataFrame, list[Path], list[str]]:
    """Compute the table, write ``out/estimator_report.csv|png|svg``.

    ``alphas`` defaults to the scenarios' grid (:func:`default_alphas`).  Returns the table,
    the files written and the figure's notes (curves hidden under another).
    """
    from reports.estimators import estimator_figure
    from reports.figures import save

    table = run(n, seed, default_alphas() if alphas is None else alphas, estimators, factor)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "estimator_report"
    table.to_csv(stem.with_suffix(".csv"), index=False)
    drawn = estimator_figure(table, [name for name in ESTIMATORS if name in estimators])
    save(drawn.figure, out, stem.name)
    return table, [stem.with_suffix(suffix) for suffix in (".csv", ".png", ".svg")], drawn.notes
