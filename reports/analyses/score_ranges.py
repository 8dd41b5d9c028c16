"""Scores outside the range their metric declares: what the headline and the report card flag.

Every built-in declares the range of each sub-score (:attr:`metrics.registry.MetricSpec.ranges`: most [0, 1], DCI-ES
explicitness [-1, 1], SNC (-inf, 1]), and a user's function may (``@describe_metric(score_range=...)``).  The ranges
reach the reports from the registry, not from a column of the results table.  The reports may read
:mod:`metrics.registry` (the metric contract), so a built-in's scores are checked in every table, a run's, one
``report`` reloads, one written before the ranges were declared, with nothing added to each row, to the schema or to
the baselines; a column would have carried a user's declaration too, but only a caller that loads the user's function
can read it, and ``validate``, the one that does, passes it in (``declared``; ``--score-range`` overrides it).  So a
user's function is checked against its declaration on its card, not in the headline of ``run``'s report (whose
``report`` could not reload it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from metrics.registry import available, get
from reports.results.table import score_label

#: A score range: ``(low, high)``, an infinite bound for an unbounded side.
Bounds = tuple[float, float]
#: A metric's declaration: one range for every sub-score, or sub-score -> range.
Declared = Bounds | Mapping[str, Bounds]
#: How far past a bound a score may lie by floating-point rounding (1 + 2e-16 from a ratio of sums), not a finding.
ROUNDING = 1e-9
#: Columns of :func:`outside_ranges`.
COLUMNS = ["metric", "sub_score", "low", "high", "outside", "scores", "below", "above", "extreme", "scenario",
           "parameter", "value_label", "seed", "n_samples"]


def declared_range(metric_base: str, sub_score: str, declared: Mapping[str, Declared] | None = None) -> Bounds | None:
    """The range of ``metric_base``'s ``sub_score``: ``declared``'s for that metric (a user's function, or an override)
    where it names it, else the registered metric's (:attr:`metrics.registry.MetricSpec.ranges`); None when neither
    declares one."""
    if declared is not None and metric_base in declared:
        own = declared[metric_base]
        return own.get(sub_score) if isinstance(own, Mapping) else own
    if metric_base in available(population=None):
        interval = get(metric_base).ranges.get(sub_score)
        return interval.bounds() if interval is not None else None
    return None


def notation(bounds: Bounds) -> str:
    """A range as mathematics writes it: ``[0, 1]``, ``(-inf, 1]``."""
    low, high = bounds
    return f"{'(' if math.isinf(low) else '['}{low:g}, {high:g}{')' if math.isinf(high) else ']'}"


def outside_ranges(results: pd.DataFrame, declared: Mapping[str, Declared] | None = None) -> pd.DataFrame:
    """Every (metric, sub_score) of ``results`` with a score outside its declared range (:func:`declared_range`).

    Parameters
    ----------
    results : pandas.DataFrame
        A checked results table; every row is read, an option-sweep variant's against its metric's range (the
        ``metric_base`` column).
    declared : Mapping, optional
        Metric base -> its declaration (one ``(low, high)``, or sub-score -> ``(low, high)``), for a metric the
        registry does not hold or to override its registration.

    Returns
    -------
    pandas.DataFrame
        One row per flagged (metric, sub_score), in the order of ``results``: the range (``low``, ``high``), how many
        scores lie ``outside`` it (by more than :data:`ROUNDING`) of how many ``scores``, how many ``below`` and
        ``above``, the ``extreme`` score
        (the farthest outside) and where it was scored (``scenario``, ``parameter``, ``value_label``, ``seed``,
        ``n_samples``).
    """
    keys = results[["metric_base", "sub_score"]].drop_duplicates()
    bounds = {key: declared_range(*key, declared) for key in zip(keys["metric_base"], keys["sub_score"])}
    ranged = results.loc[[bounds[key] is not None for key in zip(results["metric_base"], results["sub_score"])]]
    declared_bounds = [bounds[key] for key in zip(ranged["metric_base"], ranged["sub_score"])]
    ranged = ranged.assign(low=[low for low, _ in declared_bounds], high=[high for _, high in declared_bounds])
    ranged = ranged.assign(_beyond=np.maximum(ranged["low"] - ranged["score"], ranged["score"] - ranged["high"]))
    scores = ranged.groupby(["metric", "sub_score"], sort=False).size()  # in the order of results
    outside = ranged.loc[ranged["_beyond"] > ROUNDING]  # few rows, if any: only their sub-scores are grouped
    flagged = dict(iter(outside.groupby(["metric", "sub_score"], sort=False)))
    rows = []
    for (metric, sub_score), count in scores.items():
        beyond = flagged.get((metric, sub_score))
        if beyond is None:
            continue
        at = beyond.loc[beyond["_beyond"].idxmax()]
        rows.append({"metric": metric, "sub_score": sub_score, "low": at["low"], "high": at["high"],
                     "outside": len(beyond), "scores": int(count), "below": int((beyond["score"] < at["low"]).sum()),
                     "above": int((beyond["score"] > at["high"]).sum()), "extreme": float(at["score"]),
                     **{column: at[column] for column in COLUMNS[-5:]}})
    return pd.DataFrame(rows, columns=COLUMNS)


def range_flag(row: Mapping[str, object], range_is: str = "its declared range") -> str:
    """One row of :func:`outside_ranges` as a sentence: the sub-score, how many of its scores lie outside the range
    (``range_is`` says which range it is), the extreme one and where it was scored."""
    sides = ", ".join(f"{row[side]} {side}" for side in ("below", "above") if row[side])
    return (f"{score_label(str(row['metric']), str(row['sub_score']))}: {row['outside']} of {row['scores']} scores "
            f"outside {notation((row['low'], row['high']))}, {range_is} ({sides}; most extreme {row['extreme']:.4g} in "
            f"{row['scenario']} at {row['parameter']} = {row['value_label']}, seed {row['seed']}, n = {row['n_samples']})")
