"""Equicorrelated factors (Joshi et al. 2026, DGP D2): their correlation matrix, marginals, range and ideals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import metrics
import scenarios
from scenarios.composition import compose
from scenarios.equicorrelated import equicorrelated_gaussian, equicorrelated_scenario, lowest_rho

N = 200_000  # the standard error of a correlation is (1 - rho^2) / sqrt(N): 0.0017 at rho = 0.5
NAMES = ("equicorrelated", "equicorrelated_uniform")


def _off_diagonal(factors: np.ndarray) -> np.ndarray:
    correlation = np.corrcoef(factors.T)
    return correlation[~np.eye(len(correlation), dtype=bool)]


@pytest.mark.parametrize("name", NAMES)
def test_every_pair_has_correlation_rho_within_sampling_error(name):
    """A wrong copula map (r instead of rho) would be off by 0.017 at rho = 0.5: ten standard errors."""
    scenario = scenarios.get(name)
    for rho in scenario.values:
        pairs = _off_diagonal(scenario.generate(rho, n=N, seed=0).factors)
        assert pairs.size == 20
        np.testing.assert_allclose(pairs, rho, atol=4.5 * (1 - rho**2) / math.sqrt(N), rtol=0, err_msg=f"rho = {rho}")


def test_the_margins_are_standard_normal_or_uniform():
    gaussian = scenarios.get("equicorrelated").generate(0.75, n=20_000, seed=1).factors
    uniform = scenarios.get("equicorrelated_uniform").generate(0.75, n=20_000, seed=1).factors
    assert 0.0 < uniform.min() and uniform.max() < 1.0
    for column in range(5):
        assert stats.kstest(gaussian[:, column], "norm").pvalue > 1e-3
        assert stats.kstest(uniform[:, column], "uniform").pvalue > 1e-3
    # a non-uniform margin is seen: the Gaussian factors are not uniform once squashed linearly into (0, 1)
    squashed = (gaussian[:, 0] - gaussian[:, 0].min()) / np.ptp(gaussian[:, 0])
    assert stats.kstest(squashed, "uniform").pvalue < 1e-6


def test_the_range_runs_from_just_above_the_lowest_valid_correlation_to_099():
    # -1/(K - 1) = -0.25 at K = 5; the uniform factors' lowest is (6/pi) asin(-1/8) = -0.2394
    assert lowest_rho(5, "gaussian") == -0.24 and lowest_rho(5, "uniform") == -0.22 and lowest_rho(2, "gaussian") == -0.99
    assert (6 / math.pi) * math.asin(-1 / 8) < -0.23 < -0.22
    gaussian, uniform = scenarios.get("equicorrelated"), scenarios.get("equicorrelated_uniform")
    assert gaussian.values[0] == -0.24 and uniform.values[0] == -0.22 and gaussian.values[-1] == 0.99
    for scenario, refused in ((gaussian, (-0.25, -0.241, 0.995, 1.0)), (uniform, (-0.23, 0.995))):
        for rho in refused:
            with pytest.raises(ValueError, match=r"rho must be in \[-0.2[24], 0.99\]"):
                scenario.generate(rho, n=10, seed=0)
    # at the lower end the correlation matrix is still positive definite: smallest eigenvalue 1 + 4 rho = 0.04
    factors = gaussian.generate(-0.24, n=N, seed=2).factors
    assert np.linalg.eigvalsh(np.corrcoef(factors.T)).min() == pytest.approx(0.04, abs=0.005)


def test_the_symmetric_square_root_reuses_the_same_normals_for_every_rho():
    scenario = scenarios.get("equicorrelated")
    independent = scenario.generate(0.0, n=300, seed=3).factors  # rho = 0: the normals themselves
    for rho in (-0.24, 0.5, 0.99):
        np.testing.assert_allclose(scenario.generate(rho, n=300, seed=3).factors,
                                   equicorrelated_gaussian(independent, rho), rtol=0, atol=1e-12)
    # S^2 is the correlation matrix: applied to the identity's rows, S S^T = (1 - r) I + r 1 1^T
    root = equicorrelated_gaussian(np.eye(5), 0.3)
    np.testing.assert_allclose(root @ root.T, 0.7 * np.eye(5) + 0.3, atol=1e-12)


def test_the_code_is_the_factors_and_draws_are_deterministic():
    scenario = scenarios.get("equicorrelated_uniform")
    first, again, other = (scenario.generate(0.5, n=200, seed=s) for s in (4, 4, 5))
    np.testing.assert_array_equal(first.codes, first.factors)
    np.testing.assert_array_equal(first.factors, again.factors)
    assert not np.array_equal(first.factors, other.factors)
    assert first.discrete == (False,) * 5


@pytest.mark.parametrize("name", NAMES)
def test_the_encoder_reading_keeps_every_ideal_at_1(name):
    scenario = scenarios.get(name)
    assert scenario.criterion == "dependent_factors" and scenario.settings["ideal_view"] == "encoder"
    for rho in scenario.values:
        assert dict(scenario.generate(rho, n=10, seed=0).ideal) == {"modularity": 1.0, "compactness": 1.0,
                                                                     "explicitness": 1.0}


def test_the_statistical_reading_is_the_degree_of_the_squared_correlations():
    scenario = scenarios.get("equicorrelated_statistical")
    # rho = 0.5, K = 5: shares (1, 1/4, 1/4, 1/4, 1/4) / 2 = (1/2, 1/8 x 4): H = ln 2 / 2 + ln 8 / 2 = 2 ln 2
    half = dict(scenario.generate(0.5, n=10, seed=0).ideal)
    assert half["modularity"] == half["compactness"] == pytest.approx(1 - 2 * math.log(2) / math.log(5), abs=1e-12)
    assert half["explicitness"] == 1.0
    assert scenario.ideal_trajectory(0.0)["modularity"] == 1.0
    assert scenario.ideal_trajectory(-0.24) == pytest.approx(scenario.ideal_trajectory(0.24))  # even in rho
    degrees = [scenario.ideal_trajectory(rho)["modularity"] for rho in (0.0, 0.25, 0.5, 0.75, 0.9, 0.99)]
    assert all(b < a for a, b in zip(degrees, degrees[1:])) and degrees[-1] < 1e-3


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="marginal in"):
        equicorrelated_scenario("x", marginal="laplace")
    with pytest.raises(ValueError, match="n_factors >= 2"):
        equicorrelated_scenario("x", n_factors=1)
    assert equicorrelated_scenario("x", n_factors=2).values[0] == -0.99


def test_a_perfect_code_of_correlated_factors_loses_mig_but_not_dci_explicitness():
    """Joshi et al.'s finding under a perfect encoder: correlation lowers the information metrics.

    Measured (n = 2000, seed 0): MIG 0.99 at rho = 0, 0.60 at rho = 0.9 (0.29 at 0.99); DCI
    lasso explicitness stays 1.00.
    """
    scenario = scenarios.get("equicorrelated")
    independent, correlated = (scenario.generate(rho, n=2000, seed=0) for rho in (0.0, 0.9))
    mig = [metrics.evaluate("mig", d.factors, d.codes)["mig"] for d in (independent, correlated)]
    assert mig[0] > 0.9 and mig[1] < mig[0] - 0.25
    for data in (independent, correlated):
        assert metrics.evaluate("dci_lasso", data.factors, data.codes)["explicitness"] > 0.95


def test_mcc_rises_with_the_correlation_under_a_dense_mixing():
    """Joshi et al.'s headline false positive: the same dense mixing scores a higher MCC as rho grows.

    Measured (n = 2000, kappa = 10, seed 0): strong MCC 0.66 at rho = 0, 0.73 at 0.5, 0.93 at
    0.9 and 0.99 at 0.99, while the mixed code's ideal does not depend on rho.
    """
    scores = {}
    for rho in (0.0, 0.99):
        data = compose("dense_mixing", "equicorrelated", rho).generate(10.0, n=2000, seed=0)
        scores[rho] = metrics.evaluate("mcc", data.factors, data.codes, random_state=0)["strong"]
    assert scores[0.0] < 0.8 and scores[0.99] > 0.95
