"""Column ranks: average ranks of each column, ties sharing their mean rank."""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from metrics._ranks import column_ranks


def test_ranks_by_hand():
    values = np.array([[3.0, -1.0], [1.0, -1.0], [3.0, -1.0], [2.0, 5.0], [-0.0, -1.0]])
    # column 0: 0 < 1 < 2 < 3 = 3 -> ranks 1, 2, 3, then (4 + 5) / 2; column 1: four ties at ranks 1..4, mean 2.5
    expected = np.array([[4.5, 2.5], [2.0, 2.5], [4.5, 2.5], [3.0, 5.0], [1.0, 2.5]])
    assert np.array_equal(column_ranks(values), expected)
    assert np.array_equal(column_ranks(np.array([[0.0], [-0.0]])), np.array([[1.5], [1.5]]))  # -0 == 0: tied


def test_ranks_agree_with_scipy_on_ties_and_wide_arrays():
    rng = np.random.default_rng(3)
    values = rng.standard_normal((2000, 40))
    values[:, :10] = np.round(values[:, :10])  # heavy ties
    values[:, 10] = 7.0  # one constant column
    ranks = column_ranks(values)
    assert ranks.dtype == np.float64 and ranks.shape == values.shape
    assert np.array_equal(ranks, rankdata(values, axis=0))
