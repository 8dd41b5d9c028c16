"""The k-NN estimates behind PID (and UniBound, RMIG, WINDIN, WSEPIN) are those of the plain computation, bit for bit.

:func:`metrics._knn.kraskov_prepared` and :func:`metrics._knn.ross` find neighbours in k-d trees, count in sorted
columns and read their digammas from a table (:func:`metrics._knn._digamma_table`).  The references below compute the
same estimators from the full distance matrices of the same standardised values (:func:`metrics._knn.standardize`),
with the same comparisons (Kraskov's strict radius as the largest float below it, Gao et al.'s tie rule) and
``scipy.special.digamma`` of every count: the same integers enter the same formula, so the estimates must agree to the
last bit, and so must every PID score built on them.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import digamma

import metrics.estimators
from metrics._knn import Column, kraskov_prepared, ross, standardize
from metrics.pid import pid

NEIGHBORS = 3


def _max_norm(values: np.ndarray) -> np.ndarray:
    """``(n, n)`` max-norm distances between the rows of ``values``."""
    return np.max(np.abs(values[:, None, :] - values[None, :, :]), axis=2)


def reference_kraskov(x: Column, y: Column, neighbors: int) -> float:
    """Kraskov et al.'s algorithm 1 from the distance matrices, with Gao et al.'s rule for a k-th distance of 0."""
    dx, dy = _max_norm(x.values), _max_norm(y.values)
    joint = np.maximum(dx, dy)
    n = joint.shape[0]
    others = ~np.eye(n, dtype=bool)
    eps = np.sort(joint, axis=1)[:, neighbors]  # the k-th other sample (each row's own 0 comes first)
    k_i = np.where(eps == 0, ((joint == 0) & others).sum(axis=1), neighbors)
    radius = np.where(eps > 0, np.nextafter(eps, 0.0), 0.0)[:, None]  # '< eps', or '<= 0' for ties
    n_x, n_y = ((dx <= radius) & others).sum(axis=1), ((dy <= radius) & others).sum(axis=1)
    return float(np.mean(digamma(k_i) + digamma(n) - digamma(n_x + 1) - digamma(n_y + 1)))


def reference_ross(labels: np.ndarray, y: np.ndarray, neighbors: int) -> float:
    """Ross's estimator from the distance matrix, classes of one sample left out, Gao et al.'s rule for ties."""
    _, inverse, class_sizes = np.unique(labels, return_inverse=True, return_counts=True)
    keep = class_sizes[inverse] >= 2
    distance = _max_norm(standardize(y[keep]))
    classes = inverse[keep]
    n = classes.size
    sizes = class_sizes[classes]
    others = ~np.eye(n, dtype=bool)
    same = (classes[:, None] == classes[None, :]) & others
    k = np.minimum(neighbors, sizes - 1)
    within = np.sort(np.where(same, distance, np.inf), axis=1)[np.arange(n), k - 1]
    k = np.where(within == 0, ((distance == 0) & same).sum(axis=1), k)
    m = ((distance <= within[:, None]) & others).sum(axis=1)
    return float(np.mean(digamma(n) - digamma(sizes) + digamma(k) - digamma(m)))


def _draw(seed: int, n: int = 240) -> tuple[np.ndarray, np.ndarray]:
    """4 factors (the last discrete, with a class of one sample) and 6 codes: noisy copies, a mixture, a quantised
    code whose rows repeat (ties, and points with more than ``NEIGHBORS`` copies), a redundant copy, pure noise."""
    rng = np.random.default_rng(seed)
    factors = rng.random((n, 4))
    factors[:, 3] = np.floor(3 * factors[:, 3])
    factors[0, 3] = 7.0
    codes = np.column_stack([factors[:, 0] + 0.05 * rng.standard_normal(n),
                             factors[:, 1] - 0.5 * factors[:, 2] + 0.1 * rng.standard_normal(n),
                             np.round(4 * factors[:, 2]) / 4,
                             factors[:, 0] + 0.05 * rng.standard_normal(n),
                             factors[:, 3] + 0.2 * rng.standard_normal(n),
                             rng.standard_normal(n)])
    return factors, codes


def test_kraskov_is_the_plain_computation_bit_for_bit():
    factors, codes = _draw(0)
    quantised = Column(np.round(2 * codes[:, [2]]))  # 3 values: every point has more than NEIGHBORS copies
    for x in (Column(factors[:, [0]]), Column(factors[:, [2]]), quantised, Column(codes[:, :2])):
        for y in (Column(codes[:, [0]]), Column(codes[:, [2]]), quantised, Column(codes[:, [5]])):
            assert kraskov_prepared(x, y, NEIGHBORS) == reference_kraskov(x, y, NEIGHBORS)


def test_ross_is_the_plain_computation_bit_for_bit():
    factors, codes = _draw(1)
    for y in (codes[:, [4]], codes[:, [2]], codes[:, [0, 5]]):
        assert ross(factors[:, 3], y, NEIGHBORS) == reference_ross(factors[:, 3], y, NEIGHBORS)


@pytest.mark.parametrize("code_choice", ["argmax", "per_bound"])
def test_pid_scores_are_those_of_the_plain_estimators_bit_for_bit(monkeypatch, code_choice):
    factors, codes = _draw(2)
    discrete = (False, False, False, True)
    scores = pid(factors, codes, discrete=discrete, code_choice=code_choice)
    monkeypatch.setattr(metrics.estimators, "kraskov_prepared", reference_kraskov)
    monkeypatch.setattr(metrics.estimators, "kraskov", lambda x, y, neighbors: reference_kraskov(Column(x), Column(y), neighbors))
    monkeypatch.setattr(metrics.estimators, "ross", reference_ross)
    assert scores == pid(factors, codes, discrete=discrete, code_choice=code_choice)
    assert scores["unique_lower"] > 0.1 and scores["redundant_upper"] > 0.05  # not a comparison of zeros
