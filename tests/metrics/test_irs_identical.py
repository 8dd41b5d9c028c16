"""IRS grouped at once (segment reductions) gives the scores of one subset at a time, within the 1e-12 its docstring
states (the means sum in another order)."""

from __future__ import annotations

import numpy as np
import pytest

from metrics._interventions import subsets_of
from metrics.information import to_labels
from metrics.irs import _deviation, _largest_deviations, irs


def _one_subset_at_a_time(factors: np.ndarray, codes: np.ndarray, bins: int, quantile: float) -> float:
    """IRS as its docstring defines it, a subset at a time (the implementation before the segment reductions)."""
    labels = to_labels(factors, None, bins).codes
    spread = _deviation(codes, codes.mean(axis=0), quantile)
    active = spread > 0
    if not active.any():
        return 0.0
    expected = np.zeros((labels.shape[1], codes.shape[1]))
    for k in range(labels.shape[1]):
        subsets = subsets_of(labels[:, k])
        for subset in range(subsets.sizes.size):
            members = codes[subsets.rows(subset)]
            expected[k] += members.shape[0] / labels.shape[0] * _deviation(members, members.mean(axis=0), quantile)
    return float(np.mean(np.clip(1.0 - expected[:, active] / spread[active], 0.0, None).max(axis=0)))


#: The scores' stated tolerance (:func:`metrics.irs._largest_deviations`).
TOLERANCE = 1e-12

CASES = [(n, k, l, bins, seed) for n, k, l, bins, seed in (
    (50, 1, 1, 10, 0), (200, 3, 1, 5, 1), (1000, 10, 10, 10, 2), (997, 4, 7, 40, 3), (3000, 8, 8, 20, 4),
    (120, 2, 16, 2, 5), (2000, 5, 1, 40, 6))]


@pytest.mark.parametrize("n, k, l, bins, seed", CASES)
@pytest.mark.parametrize("quantile", [1.0, 0.99])
def test_grouped_irs_equals_a_subset_at_a_time(n: int, k: int, l: int, bins: int, seed: int, quantile: float) -> None:
    rng = np.random.default_rng(seed)
    factors = rng.uniform(size=(n, k))
    codes = factors @ rng.normal(size=(k, l)) + 0.3 * rng.standard_t(3, size=(n, l))
    assert irs(factors, codes, bins=bins, diff_quantile=quantile) == pytest.approx(
        _one_subset_at_a_time(factors, codes, bins, quantile), abs=TOLERANCE, rel=0)


def test_largest_deviations_are_each_values_own() -> None:
    rng = np.random.default_rng(7)
    codes = rng.normal(size=(500, 6))
    labels = rng.choice([0, 2, 3, 8], size=500)  # values 1, 4 .. 7 taken by no sample
    shares, deviations = _largest_deviations(np.ascontiguousarray(codes.T), labels)
    for row, value in enumerate([0, 2, 3, 8]):
        members = codes[labels == value]
        assert shares[row] == members.shape[0] / 500
        np.testing.assert_allclose(deviations[row], np.abs(members - members.mean(axis=0)).max(axis=0), rtol=1e-13, atol=0)
    assert shares.size == 4
    assert np.array_equal(codes, np.random.default_rng(7).normal(size=(500, 6)))  # the codes are not written to
