"""A perfect code of pairwise-correlated factors (review 2.1)."""

from __future__ import annotations

import numpy as np
import pytest

import scenarios
from scenarios.correlated import copula_correlation


def test_same_seed_same_arrays():
    scenario = scenarios.get("correlated")
    first = scenario.generate(0.6, n=300, seed=0)
    again = scenario.generate(0.6, n=300, seed=0)
    other = scenario.generate(0.6, n=300, seed=1)
    assert np.array_equal(first.factors, again.factors) and np.array_equal(first.codes, again.codes)
    assert not np.array_equal(first.factors, other.factors)


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.6, 0.9, 0.95])
def test_copula_correlation_inverts_the_rank_correlation_of_a_gaussian_pair(rho):
    # rank (= Pearson for uniform margins) correlation of a Gaussian pair: (6/pi) arcsin(r/2)
    assert 6 / np.pi * np.arcsin(copula_correlation(rho) / 2) == pytest.approx(rho, abs=1e-12)


@pytest.mark.parametrize("rho", [0.0, 0.4, 0.9])
def test_pairs_have_correlation_rho_uniform_margins_and_a_perfect_code(rho):
    rep = scenarios.get("correlated").generate(rho, n=20000, seed=3)
    np.testing.assert_array_equal(rep.codes, rep.factors)
    assert rep.factors.min() >= 0 and rep.factors.max() <= 1
    np.testing.assert_allclose(rep.factors.mean(axis=0), 0.5, atol=0.01)
    np.testing.assert_allclose(rep.factors.var(axis=0), 1 / 12, atol=0.003)
    corr = np.corrcoef(rep.factors.T)
    for i in range(0, 8, 2):
        assert corr[i, i + 1] == pytest.approx(rho, abs=0.02)
    across = corr[np.kron(np.eye(4), np.ones((2, 2))) == 0]
    assert np.max(np.abs(across)) < 0.03
    assert rep.ideal == {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


def test_identical_factors_are_refused():
    with pytest.raises(ValueError, match=r"rho must be in \[0, 0.95\]"):
        scenarios.get("correlated").generate(1.0, n=10, seed=0)
