"""Estimator report: estimated vs exact mutual information on the Gaussian toy model.

A study that :func:`harness.execution.runner.run_study` executes and
:mod:`reports.estimators` draws.  The study runs the registered scenarios
``gaussian_toy_redundancy`` and ``gaussian_toy_synergy`` (the attacked Gaussian toy model of
Tokui and Sato 2022, section 5.1) at the requested attack strengths ``alpha`` (the study's
grids), with one "metric": :func:`mutual_information_probe`, referenced as
:data:`PROBE`, swept over the estimators of :func:`metrics.estimators.mutual_information`
as a metric option, so each estimator is a variant (``mutual_information_probe[estimator=knn,
factor=0]``).  The probe returns the three informations every PID bound is made of --
I(y_k; z_k), I(y_k; z_\\k) and I(y_k; z) -- as sub-scores; the histogram estimators handle one
code column, so they return I(y_k; z_k) only.

Like every study, the data of a cell are seeded by the cell's identity (scenario, seed index,
sample size; every alpha of a seed index attacks the same draw), and the cells are persisted
under ``DIR/study``, so a rerun into the same directory reuses the finished ones.  The exact
values come from the scenarios' public closed form (``scenarios.get(name).exact(alpha)``)
and are joined onto the study's rows into ``estimator_report.csv`` (one row per attack,
alpha, quantity, estimator and seed index; :data:`COLUMNS`).  Its ``seconds`` are those of
one probe call, which computes all of an estimator's quantities on that draw, so every
quantity of one call shows the same time.  :func:`reports.estimators.estimator_figure` draws
``estimator_report.png`` / ``.svg``.

Run::

    python -m harness estimators --out runs/estimators

The default run (n = 5000, 7 values of alpha, one seed, factor 0) takes well under a minute on one core.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

import scenarios
from harness.errors import UsageError
from harness.execution.metric_refs import resolve, variants
from harness.execution.runner import run_study
from metrics.estimators import ESTIMATORS, mutual_information

ATTACK_SCENARIOS = {"redundancy": "gaussian_toy_redundancy", "synergy": "gaussian_toy_synergy"}
"""The attack each registered scenario applies (Tokui and Sato 2022, eqs. 9 and 10)."""
SINGLE_COLUMN = ("histogram", "miller_madow")
"""Estimators of one code column only."""
QUANTITIES = ("code", "rest", "total")
"""I(y_k; z_k), I(y_k; z_\\k) and I(y_k; z), as the probe's sub-scores."""
PROBE = "harness.workflows.estimator_report:mutual_information_probe"
"""The study's metric reference (``module:function``)."""
STUDY_DIR = "study"
"""Subdirectory of the report's directory holding the study's persisted cells."""
COLUMNS = ["attack", "alpha", "quantity", "estimator", "estimate", "exact", "error", "seconds", "n", "seed", "factor"]
MIN_SAMPLES = 10
ROW_ORDER = {"attack": tuple(ATTACK_SCENARIOS), "quantity": QUANTITIES, "estimator": ESTIMATORS}
"""The order of the table's text columns (the others sort by value)."""


def default_alphas() -> tuple[float, ...]:
    """The attack strengths the scenarios sweep (both share one grid)."""
    return tuple(scenarios.get(ATTACK_SCENARIOS["redundancy"]).values)


def mutual_information_probe(factors: np.ndarray, codes: np.ndarray, *, estimator: str = "knn", factor: int = 0) -> dict[str, float]:
    """I(y_k; z_k), I(y_k; z_\\k) and I(y_k; z) of factor ``k = factor`` by one estimator.

    The factor's own code is column ``k`` of ``codes`` (as in the Gaussian toy model).  An
    estimator of :data:`SINGLE_COLUMN` returns ``{"code": ...}`` only.

    Returns
    -------
    dict[str, float]
        ``{"code": I(y_k; z_k), "rest": I(y_k; z_\\k), "total": I(y_k; z)}`` in nats.

    Raises
    ------
    ValueError
        For a factor or code column the data lack (the estimator checks its own name).
    """
    if not 0 <= factor < min(factors.shape[1], codes.shape[1]):
        raise ValueError(f"factor must be in 0..{min(factors.shape[1], codes.shape[1]) - 1}, got {factor}")
    everything = np.arange(codes.shape[1])
    columns = {"code": everything[[factor]], "rest": np.delete(everything, factor), "total": everything}
    quantities = ("code",) if estimator in SINGLE_COLUMN else QUANTITIES
    return {quantity: mutual_information(factors[:, factor], codes[:, columns[quantity]], estimator=estimator)
            for quantity in quantities}


def _exact(attack: str, alpha: float, quantity: str, factor: int) -> float:
    """The closed form of one quantity (the factor's own code is ``z_k``)."""
    exact = scenarios.get(ATTACK_SCENARIOS[attack]).exact(alpha)
    if quantity == "total":
        return float(exact["information_total"][factor])
    return float(exact[f"information_{quantity}"][factor, factor])


def _rank(column: pd.Series) -> pd.Series:
    """Sort key of a table column: the rank in :data:`ROW_ORDER`, or the values themselves."""
    order = ROW_ORDER.get(column.name)
    return column if order is None else column.map({value: rank for rank, value in enumerate(order)})


def _check(n: int, seeds: int, alphas: Sequence[float], estimators: Sequence[str], factor: int) -> None:
    if n < MIN_SAMPLES:
        raise UsageError(f"n must be at least {MIN_SAMPLES}, got {n}")
    if seeds < 1:
        raise UsageError(f"seeds must be at least 1, got {seeds}")
    unknown = sorted(set(estimators) - set(ESTIMATORS))
    if unknown:
        raise UsageError(f"unknown estimator(s) {', '.join(unknown)}; choose from {', '.join(ESTIMATORS)}")
    if not estimators:
        raise UsageError("no estimator named")
    if len(alphas) == 0:
        raise UsageError("no alpha named")
    for alpha in alphas:  # both scenarios share one range; named as the user named it, not as the study's grid
        try:
            scenarios.get(ATTACK_SCENARIOS["redundancy"]).check_value(float(alpha))
        except ValueError as error:
            raise UsageError(f"alphas: {error}") from None
    for what, values in (("alphas", [f"{float(alpha):g}" for alpha in alphas]), ("estimators", list(estimators))):
        repeated = [value for index, value in enumerate(values) if value in values[:index]]
        if repeated:  # the study would plan the same cells twice
            raise UsageError(f"{what} lists {repeated[0]} twice")
    factors = len(scenarios.get(ATTACK_SCENARIOS["redundancy"]).exact(default_alphas()[0])["information_total"])
    if not 0 <= factor < factors:
        raise UsageError(f"factor must be in 0..{factors - 1}, got {factor}")


def run(n: int, seeds: int, alphas: Sequence[float], estimators: Sequence[str], factor: int = 0, *,
        out: Path | None = None, jobs: int = 1, backend: str = "loky", log: Callable[[str], object] = print,
        progress: bool = False) -> pd.DataFrame:
    """The table of estimated vs exact information (:data:`COLUMNS`), computed as a study.

    Runs :data:`PROBE` through :func:`harness.execution.runner.run_study` on both attack
    scenarios at ``alphas``, ``seeds`` draws of ``n`` samples per alpha, one variant per
    estimator; ``out`` (optional) keeps the study's cells so a rerun resumes.  ``seed`` in
    the table is the study's seed index (0 .. seeds - 1).  ``progress`` shows the study's
    progress bar (one step per probe call).

    Raises
    ------
    harness.errors.UsageError
        For fewer than 10 samples or 1 seed, an unknown estimator, an alpha outside the
        scenarios' range, an alpha or estimator listed twice, or a factor the model lacks.
    RuntimeError
        When a probe call failed (the study records it in ``failures.csv``).
    """
    _check(n, seeds, alphas, estimators, factor)
    sweep = {"estimator": list(estimators), "factor": [factor]}
    estimator_of = {entry.name: entry.options["estimator"] for entry in variants(resolve(PROBE), sweep)}
    attack_of = {name: attack for attack, name in ATTACK_SCENARIOS.items()}
    results = run_study(
        scenarios_=list(attack_of), metrics_=[PROBE], metric_options={PROBE: sweep},
        grids={name: [float(alpha) for alpha in alphas] for name in attack_of},
        seeds=seeds, n_samples=n, out=out, jobs=jobs, backend=backend, progress=progress,
        progress_label="estimator probes", log=log,
    )
    failures = results.attrs.get("failures", [])
    if failures:
        first = failures[0]
        raise RuntimeError(f"{len(failures)} probe call(s) failed; first: {first['metric']} on {first['scenario']} = "
                           f"{first['value_label']}: {first['error']}")
    table = pd.DataFrame({
        "attack": results["scenario"].map(attack_of),
        "alpha": results["value"].astype(float),
        "quantity": results["sub_score"],
        "estimator": results["metric"].map(estimator_of),
        "estimate": results["score"].astype(float),
        "seconds": results["seconds"].astype(float),
        "n": results["n_samples"].astype(int),
        "seed": results["seed"].astype(int),
        "factor": factor,
    })
    table["exact"] = [_exact(attack, alpha, quantity, factor)
                      for attack, alpha, quantity in zip(table["attack"], table["alpha"], table["quantity"])]
    table["error"] = table["estimate"] - table["exact"]
    table = table.sort_values(["attack", "alpha", "quantity", "estimator", "seed"], key=_rank, kind="stable")
    return table[COLUMNS].reset_index(drop=True)


def write_estimator_report(out: Path, *, n: int = 5000, seeds: int = 1, alphas: Sequence[float] | None = None,
                           estimators: Sequence[str] = ESTIMATORS, factor: int = 0, jobs: int = 1,
                           backend: str = "loky", log: Callable[[str], object] = print,
                           progress: bool = False) -> tuple[pd.DataFrame, list[Path], list[str]]:
    """Run the study into ``out/study``, write ``out/estimator_report.csv|png|svg``.

    ``alphas`` defaults to the scenarios' grid (:func:`default_alphas`); the other arguments
    are :func:`run`'s.  Returns the table, the files written and the figure's notes (curves
    hidden under another).
    """
    from reports.estimators import estimator_figure
    from reports.rendering.figures import save

    table = run(n, seeds, default_alphas() if alphas is None else alphas, estimators, factor,
                out=out / STUDY_DIR, jobs=jobs, backend=backend, log=log, progress=progress)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / "estimator_report"
    table.to_csv(stem.with_suffix(".csv"), index=False)
    drawn = estimator_figure(table, [name for name in ESTIMATORS if name in estimators])
    save(drawn.figure, out, stem.name, formats=("png", "svg"))
    return table, [stem.with_suffix(suffix) for suffix in (".csv", ".png", ".svg")], drawn.notes
