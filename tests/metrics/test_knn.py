"""The optimised k-NN paths give the scores of the straightforward computation.

``pairwise_information`` prepares each factor and code once and reuses them for every
pair (:class:`metrics._knn.Column`, :func:`metrics._knn.kraskov_prepared`), builds
unbalanced k-d trees and counts ties on the joint tree it already has.  These tests
check it against (a) a brute-force Kraskov et al. (2004) estimator written here from the
definition, with Gao et al.'s (2017) tie rule, and (b) the per-pair public
:func:`metrics.estimators.mutual_information`, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import digamma

from metrics._knn import Column, _count_sorted
from metrics.estimators import mutual_information, pairwise_information

N = 300
NEIGHBORS = 3


def standardized(column: np.ndarray) -> np.ndarray:
    centred = column - column.mean()
    scale = centred.std()
    return centred / scale if scale > 0 else centred


def brute_force_kraskov(x: np.ndarray, y: np.ndarray, neighbors: int) -> float:
    """KSG algorithm 1 (max-norm) on two 1-D columns from the full distance matrices."""
    x, y = standardized(x), standardized(y)
    dx = np.abs(x[:, None] - x[None, :])
    dy = np.abs(y[:, None] - y[None, :])
    joint = np.maximum(dx, dy)
    n = x.size
    off_diagonal = joint + np.diag(np.full(n, np.inf))
    eps = np.sort(off_diagonal, axis=1)[:, neighbors - 1]  # k-th neighbour, self excluded
    k_i = np.where(eps == 0, (off_diagonal == 0).sum(axis=1), neighbors).astype(np.float64)
    # strict '<' eps for eps > 0 (Kraskov), '<= 0' for ties (Gao et al.); self excluded
    inside_x = np.where(eps[:, None] > 0, dx < eps[:, None], dx == 0)
    inside_y = np.where(eps[:, None] > 0, dy < eps[:, None], dy == 0)
    n_x, n_y = inside_x.sum(axis=1) - 1, inside_y.sum(axis=1) - 1
    return float(np.mean(digamma(k_i) + digamma(n) - digamma(n_x + 1) - digamma(n_y + 1)))


def brute_force_ross(labels: np.ndarray, y: np.ndarray, neighbors: int) -> float:
    """Ross (2014) with Gao et al.'s tie rule, every class having at least 2 samples."""
    y = standardized(y)
    n = y.size
    distance = np.abs(y[:, None] - y[None, :])
    same = labels[:, None] == labels[None, :]
    sizes = same.sum(axis=1)
    k = np.minimum(neighbors, sizes - 1)
    own = np.where(same, distance, np.inf) + np.diag(np.full(n, np.inf))
    d = np.sort(own, axis=1)[np.arange(n), k - 1]
    k = np.where(d == 0, (own == 0).sum(axis=1), k)
    m = (distance <= d[:, None]).sum(axis=1) - 1
    return float(np.mean(digamma(n) - digamma(sizes) + digamma(k) - digamma(m)))


def sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Three factors and four codes: a noisy copy, a mixture, a quantised code (ties) and noise."""
    rng = np.random.default_rng(seed)
    factors = rng.random((N, 3))
    codes = np.column_stack(
        [
            factors[:, 0] + 0.05 * rng.standard_normal(N),
            factors[:, 1] - 0.5 * factors[:, 2] + 0.1 * rng.standard_normal(N),
            np.round(4 * factors[:, 2]) / 4,
            rng.standard_normal(N),
        ]
    )
    return factors, codes


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batched_pairs_match_a_brute_force_kraskov(seed):
    factors, codes = sample(seed)
    table = pairwise_information(factors, codes, estimator="knn", neighbors=NEIGHBORS)
    expected = np.array([[max(brute_force_kraskov(f, c, NEIGHBORS), 0.0) for c in codes.T] for f in factors.T])
    np.testing.assert_allclose(table, expected, rtol=0, atol=1e-12)
    assert table[0, 0] > 1.0 and table[2, 2] > 0.8  # the copies are found, so the check is not vacuous


@pytest.mark.parametrize("estimator", ["knn", "knn_full"])
def test_batched_pairs_equal_the_per_pair_estimator_bit_for_bit(estimator):
    factors, codes = sample(3)
    factors[:, 1] = np.floor(3 * factors[:, 1])  # a discrete factor takes Ross's estimator
    codes = np.column_stack([codes, np.full(N, 2.0)])  # a constant code carries nothing
    flags = (False, True, False)
    table = pairwise_information(factors, codes, flags, estimator=estimator, neighbors=NEIGHBORS)
    expected = [[mutual_information(f, c, estimator=estimator, discrete=flag, neighbors=NEIGHBORS) for c in codes.T] for f, flag in zip(factors.T, flags)]
    np.testing.assert_array_equal(table, np.array(expected))
    assert np.all(table[:, -1] == 0.0) and table[1, 1] > 0.1


def test_discrete_factor_matches_a_brute_force_ross():
    factors, codes = sample(6)
    factors[:, 0] = np.floor(4 * factors[:, 0])
    table = pairwise_information(factors[:, :1], codes, (True,), neighbors=NEIGHBORS)
    expected = [max(brute_force_ross(factors[:, 0], c, NEIGHBORS), 0.0) for c in codes.T]
    np.testing.assert_allclose(table[0], expected, rtol=0, atol=1e-12)
    assert table[0, 0] > 1.0  # code 0 is a noisy copy of the factor


def test_constant_factor_row_is_zero_and_bad_inputs_are_named():
    factors, codes = sample(4)
    factors[:, 2] = 0.5
    assert np.all(pairwise_information(factors, codes)[2] == 0.0)
    with pytest.raises(ValueError, match="more samples than neighbors"):
        pairwise_information(factors[:3], codes[:3], neighbors=NEIGHBORS)
    codes[7, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pairwise_information(factors, codes)


def test_sorted_count_with_a_precomputed_order_matches_brute_force_on_ties():
    rng = np.random.default_rng(5)
    for values in (rng.standard_normal(N), np.round(rng.standard_normal(N), 1)):
        column = Column(values[:, None])
        standard = column.values[:, 0]
        radius = np.abs(standard[rng.integers(0, N, N)] - standard)  # radii landing exactly on samples
        brute = (np.abs(standard[None, :] - standard[:, None]) <= radius[:, None]).sum(axis=1) - 1
        np.testing.assert_array_equal(_count_sorted(standard, radius, column.order), brute)
        np.testing.assert_array_equal(column.count_within(radius), brute)
