"""Phase tables: the mean score of every sub-score over a two-parameter sweep, and its distance to the ideal.

As Joshi et al. (2026, experiments 4 and 15) read them: per point of the sweep (the scenarios' own parameter across,
the other swept one up: a composition's base value, or the sample size) and sub-score, the mean over seeds of the
score oriented so that higher is better (``1 - score`` for a lower-is-better sub-score) and its distance
``|score - ideal|`` to the ideal of the sub-score's property.  :mod:`reports.rendering.phase` draws them as heat maps.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.results.parameters import TwoParameterSweep, sweep_rows
from reports.results.table import at_largest_n, ideal_table, seed_summary

#: What a cell shows: the mean oriented score, or its distance to the ideal.
VALUES = ("score", "distance")


def phase_table(results: pd.DataFrame, sweep: TwoParameterSweep) -> pd.DataFrame:
    """Per point of ``sweep`` and sub-score: the mean oriented score over seeds, its spread, and the ideal.

    A sweep over a composition's base value is read at each slice's largest sample size, as every figure reads a
    scenario; a sweep over the sample size reads them all.

    Returns
    -------
    pandas.DataFrame
        Columns ``x``, ``y``, ``x_label``, ``y_label``, ``metric``, ``sub_score``, ``family``, ``property``,
        ``higher_is_better``, ``mean``, ``std``, ``n_seeds``, ``ideal`` (NaN where the scenario states none) and
        ``distance`` (``|mean - ideal|``).
    """
    rows = sweep_rows(results, sweep)
    if sweep.y != "n_samples":
        rows = at_largest_n(rows)
    keys = ["x", "y", "x_label", "y_label", "scenario", "value", "metric", "sub_score", "family", "property"]
    summary = seed_summary(rows, keys + ["higher_is_better"])
    ideals = ideal_table(rows)
    summary = summary.merge(ideals, on=["scenario", "value", "property"], how="left")
    return summary.drop(columns=["scenario", "value"]).assign(distance=lambda t: (t["mean"] - t["ideal"]).abs())


def axis_values(table: pd.DataFrame, column: str) -> tuple[list, list[str]]:
    """The sorted values of an axis and their labels."""
    pairs = table[[column, f"{column}_label"]].drop_duplicates(column)
    order = sorted(pairs.itertuples(index=False), key=lambda pair: (isinstance(pair[0], str), pair[0]))
    return [value for value, _ in order], [label for _, label in order]


def as_matrix(table: pd.DataFrame, column: str, xs: list, ys: list) -> np.ndarray:
    """``column`` of ``table`` as a ``len(ys) x len(xs)`` matrix (NaN where no row is)."""
    wide = table.pivot_table(index="y", columns="x", values=column, aggfunc="mean", dropna=False)
    return wide.reindex(index=ys, columns=xs).to_numpy(dtype=float)
