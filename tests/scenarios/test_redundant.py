"""Redundant ground truth (Joshi et al. 2026, DGPs D3 and D4): the noisy copy and the noisy product."""

from __future__ import annotations

import math

import numpy as np
import pytest

import scenarios
from scenarios.redundant import redundant_scenario

N = 200_000
SE = 1 / math.sqrt(N)  # standard error of a correlation near 0; (1 - r^2) / sqrt(N) elsewhere


def test_the_copy_has_correlation_one_over_sqrt_1_plus_sigma_squared_with_its_source():
    scenario = scenarios.get("redundant_copy")
    for sigma in scenario.values:
        factors = scenario.generate(sigma, n=N, seed=0).factors
        correlation = np.corrcoef(factors.T)
        expected = 1 / math.sqrt(1 + sigma**2)
        assert correlation[0, 1] == pytest.approx(expected, abs=4.5 * (1 - expected**2) * SE + 1e-12), sigma
        others = correlation[np.triu_indices(5, 1)][1:]  # every pair but (0, 1) is independent
        assert np.abs(others).max() < 4.5 * SE, sigma
        np.testing.assert_allclose(factors.std(axis=0), 1.0, atol=0.01)
    exact = scenario.generate(0.0, n=100, seed=1).factors
    np.testing.assert_array_equal(exact[:, 1], exact[:, 0])  # sigma = 0: one variable named twice


def test_the_product_is_uncorrelated_with_its_sources_yet_explains_a_share_one_over_1_plus_sigma_squared():
    scenario = scenarios.get("redundant_function")
    for sigma in scenario.values:
        factors = scenario.generate(sigma, n=N, seed=0).factors
        product = factors[:, 0] * factors[:, 1]
        share = np.corrcoef(product, factors[:, 2])[0, 1] ** 2  # R^2 of the redundant factor on the product
        assert share == pytest.approx(1 / (1 + sigma**2), abs=0.01), sigma
        correlation = np.corrcoef(factors.T)
        assert abs(correlation[0, 2]) < 4.5 * SE and abs(correlation[1, 2]) < 4.5 * SE, sigma
        assert factors[:, 2].std() == pytest.approx(1.0, abs=0.02)
    exact = scenario.generate(0.0, n=100, seed=1).factors
    np.testing.assert_allclose(exact[:, 2], exact[:, 0] * exact[:, 1], rtol=0, atol=1e-15)


def test_the_sources_and_the_other_factors_are_the_same_draw_for_every_sigma():
    scenario = scenarios.get("redundant_function")
    low, high = (scenario.generate(sigma, n=300, seed=2).factors for sigma in (0.1, 4.0))
    np.testing.assert_array_equal(np.delete(low, 2, axis=1), np.delete(high, 2, axis=1))
    # the noise is one normal per row, shared by every sigma: solving both draws for it gives the same values
    product = low[:, 0] * low[:, 1]
    noise_low = (low[:, 2] * math.sqrt(1 + 0.1**2) - product) / 0.1
    noise_high = (high[:, 2] * math.sqrt(1 + 4.0**2) - product) / 4.0
    np.testing.assert_allclose(noise_low, noise_high, rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", ["redundant_copy", "redundant_function"])
def test_the_ideal_is_1_everywhere_and_the_draw_is_deterministic(name):
    scenario = scenarios.get(name)
    assert scenario.criterion == "dependent_factors" and scenario.parameter == "sigma"
    for sigma in scenario.values:
        data = scenario.generate(sigma, n=50, seed=3)
        assert dict(data.ideal) == {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}
        np.testing.assert_array_equal(data.codes, data.factors)
        np.testing.assert_array_equal(scenario.generate(sigma, n=50, seed=3).codes, data.codes)
    with pytest.raises(ValueError, match=r"sigma must be in \[0, 10\]"):
        scenario.generate(-0.1, n=50, seed=0)


def test_the_number_of_sources_is_checked():
    assert redundant_scenario("x", n_sources=4).settings == {"n_factors": 5, "n_sources": 4}
    for bad in (0, 5):
        with pytest.raises(ValueError, match="1 <= n_sources < n_factors"):
            redundant_scenario("x", n_sources=bad)
