"""Minimality and sufficiency (Almudévar and Ortega 2024)."""

from __future__ import annotations

import numpy as np
import pytest

import metrics


def test_two_binary_factors_in_one_code():
    # every combination of two balanced bits, 250 times
    bits = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 250, dtype=float)
    codes = np.column_stack([bits[:, 0] + 2 * bits[:, 1], bits[:, 0]])
    scores = metrics.evaluate("minimality_sufficiency", bits, codes, discrete=[True, True], bins=4)
    # z0 holds both bits: max_k I(v_k; z0) / H(z0) = 1 bit / 2 bits; z1 = v0: 1
    # each bit is held whole by some code: sufficiency 1
    assert scores["minimality"] == pytest.approx(0.75, abs=1e-12)
    assert scores["sufficiency"] == pytest.approx(1.0, abs=1e-12)


def test_identity_and_independent_codes(rng):
    factors = rng.random((20_000, 3))
    assert metrics.evaluate("minimality_sufficiency", factors, factors) == pytest.approx({"minimality": 1.0, "sufficiency": 1.0})
    scores = metrics.evaluate("minimality_sufficiency", factors, rng.random((20_000, 3)))
    # plug-in bias (bins - 1)^2 / (2 n H) = 81 / (40000 * 2.3) = 0.0009
    assert max(scores.values()) < 0.005


def test_a_dependent_factor_does_not_lower_the_scores(rng):
    base = rng.random((20_000, 1))
    factors = np.column_stack([base[:, 0], base[:, 0] + 0.1 * rng.random(20_000)])  # strongly dependent
    scores = metrics.evaluate("minimality_sufficiency", factors, factors)
    assert scores["minimality"] == pytest.approx(1.0)
    assert scores["sufficiency"] == pytest.approx(1.0)


@pytest.mark.parametrize("metric", ["minimality_sufficiency", "mig_sup", "mig", "dcimig"])
def test_copies_of_a_factor_never_score_above_one(metric):
    # I(v; z) = H(v) for a copy, but the plug-in I can exceed H by an ulp: 1.0000000000000002 before the ratio was capped
    factors = np.random.default_rng(3).random((530, 1))
    scores = metrics.evaluate(metric, factors, np.repeat(factors, 4, axis=1))
    assert all(0.0 <= score <= 1.0 for score in scores.values())
