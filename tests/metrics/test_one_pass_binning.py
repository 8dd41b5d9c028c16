"""The one-pass column ranges and blocked binning give exactly the textbook results (issue 13, item 4)."""

from __future__ import annotations

import numpy as np
import pytest

from metrics._columns import column_range
from metrics.information import _CHUNK_ROWS, discretize


@pytest.mark.parametrize("n", [1, 127, 128, 1000, 2 * _CHUNK_ROWS + 5])
def test_column_range_equals_min_and_max(n):
    values = np.random.default_rng(n).normal(size=(n, 7))
    low, high = column_range(values)
    np.testing.assert_array_equal(low, values.min(axis=0))
    np.testing.assert_array_equal(high, values.max(axis=0))


def test_column_range_propagates_nan_and_infinity():
    values = np.random.default_rng(0).random((300, 3))
    values[17, 1] = np.nan
    values[250, 2] = np.inf
    low, high = column_range(values)
    assert np.isnan(low[1]) and np.isnan(high[1])
    assert high[2] == np.inf and np.isfinite(low[2])
    assert np.isfinite(low[0]) and np.isfinite(high[0])


@pytest.mark.parametrize("n", [100, 3 * _CHUNK_ROWS + 11])
@pytest.mark.parametrize("bins", [2, 10, 37])
def test_discretize_matches_the_edge_rule_across_blocks(bins, n):
    rng = np.random.default_rng(bins)
    values = np.column_stack([rng.normal(size=n), np.full(n, 4.0), rng.integers(0, 5, n)])
    low, span = values.min(axis=0), np.ptp(values, axis=0)
    scale = np.divide(bins, span, out=np.zeros_like(span), where=span > 0)
    expected = np.clip(np.floor((values - low) * scale), 0, bins - 1).astype(np.int64)
    result = discretize(values, bins)
    np.testing.assert_array_equal(result, expected)
    assert result[np.argmax(values[:, 0]), 0] == bins - 1  # the column maximum goes to the last bin
    assert not result[:, 1].any()  # a constant column is all in bin 0


@pytest.mark.parametrize("n", [7, _CHUNK_ROWS + 3])
def test_two_matrices_binned_over_their_joint_range_are_the_two_stacked(n):
    rng = np.random.default_rng(n)
    first, second = rng.normal(size=(n, 4)), 3.0 * rng.normal(size=(n + 1, 4)) + 1.0  # each reaching past the other
    (low_a, high_a), (low_b, high_b) = column_range(first), column_range(second)
    joint = (np.minimum(low_a, low_b), np.maximum(high_a, high_b))
    stacked = discretize(np.vstack([first, second]), 10)
    np.testing.assert_array_equal(discretize(first, 10, joint), stacked[:n])
    np.testing.assert_array_equal(discretize(second, 10, joint), stacked[n:])
    assert not np.array_equal(discretize(first, 10), stacked[:n])  # its own range bins it otherwise
