"""InfoMEC (Hsu et al. 2023)."""

from __future__ import annotations

import numpy as np
import pytest

import metrics


def test_two_binary_factors_hand_computed():
    bits = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 250, dtype=float)
    codes = np.column_stack([bits[:, 0] + 2 * bits[:, 1], bits[:, 0]])
    scores = metrics.evaluate("infomec", bits, codes, discrete=[True, True], bins=4)
    # NMI = [[1, 1], [1, 0]] (rows: factors; z0 holds both bits, z1 = v0)
    # InfoM: z0 max/sum = 1/2 -> (1/2 - 1/2) / (1/2) = 0; z1: 1 -> 1; mean 1/2
    # InfoC: v0 max/sum = 1/2 -> 0; v1: 1 -> 1; mean 1/2
    assert scores["infom"] == pytest.approx(0.5, abs=1e-12)
    assert scores["infoc"] == pytest.approx(0.5, abs=1e-12)
    # both bits are read off the codes without error: log-loss near 0
    assert scores["infoe"] > 0.95


def test_identity_scores_one_and_independent_codes_zero(rng):
    factors = rng.random((20_000, 3))
    ideal = metrics.evaluate("infomec", factors, factors)
    # off-diagonal plug-in bias about 0.0009 per entry: max/sum >= 1/(1 + 2 * 0.002)
    assert ideal["infom"] > 0.99 and ideal["infoc"] > 0.99
    assert ideal["infoe"] > 0.95
    floor = metrics.evaluate("infomec", factors, rng.random((20_000, 3)))
    assert floor["infom"] == 0.0 and floor["infoc"] == 0.0  # every code pruned
    # in-sample overfit of 9 x 4 logistic parameters: about 36 / (2 n H) = 0.0004
    assert floor["infoe"] < 0.005


def test_a_duplicated_code_lowers_compactness_only(rng):
    factors = rng.random((20_000, 2))
    scores = metrics.evaluate("infomec", factors, np.column_stack([factors, factors[:, 0]]))
    # factor 0 spread evenly over two codes: max/sum = 1/2 -> (1/2 - 1/3) / (2/3) = 1/4; factor 1: 1
    assert scores["infoc"] == pytest.approx((0.25 + 1.0) / 2, abs=0.01)
    assert scores["infom"] > 0.99


def test_range_pruning_follows_the_authors_rule(rng):
    factors = rng.random((5000, 2))
    codes = np.column_stack([factors, 0.01 * rng.random(5000)])  # a code with 1/100 of the range
    kept = metrics.evaluate("infomec", factors, codes, pruning="none")
    pruned = metrics.evaluate("infomec", factors, codes, pruning="range")
    assert pruned["infoc"] > kept["infoc"]
    assert pruned["infoc"] == pytest.approx(metrics.evaluate("infomec", factors, factors)["infoc"], abs=1e-12)


def test_bad_pruning_is_named(rng):
    values = rng.random((50, 2))
    with pytest.raises(ValueError, match="pruning"):
        metrics.evaluate("infomec", values, values, pruning="variance")


def test_identity_of_eight_factors_is_held_below_one_by_the_plug_in_bias_at_small_n():
    # the docstring's figures: off-diagonal pairs of independent factors keep a plug-in NMI of about
    # (bins - 1)^2 / (2 n H) each, so a code's max / sum concentration falls short of 1 at n = 1000
    factors = np.random.default_rng(0).random((1000, 8))
    small = metrics.evaluate("infomec", factors, factors)
    assert 0.85 < small["infom"] < 0.91 and 0.85 < small["infoc"] < 0.91
    larger = np.random.default_rng(0).random((5000, 8))
    assert metrics.evaluate("infomec", larger, larger)["infom"] > 0.96
