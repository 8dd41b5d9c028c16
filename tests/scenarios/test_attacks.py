"""Entanglement attacks (Tokui and Sato 2022, eqs. 9-10) and the registered attack scenarios."""

from __future__ import annotations

import numpy as np
import pytest

import scenarios
from scenarios._attacks import mixing_matrix
from scenarios.redundancy_attack import redundancy_attack
from scenarios.synergy_attack import synergy_attack

GRID = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)


@pytest.mark.parametrize("size", [1, 2, 5, 8])
def test_mixing_matrix_is_a_symmetric_orthonormal_reflection(size):
    u = mixing_matrix(size)
    np.testing.assert_allclose(u, u.T)
    np.testing.assert_allclose(u @ u.T, np.eye(size), atol=1e-12)
    np.testing.assert_allclose(np.diag(u), 1 - 2 / size)
    if size > 1:
        np.testing.assert_allclose(u[0, 1], -2 / size)


def test_redundancy_attack_appends_a_rotated_noisy_copy():
    rng = np.random.default_rng(0)
    codes = rng.random((4000, 6))
    alpha = 1.7
    attacked = redundancy_attack(codes, alpha, np.random.default_rng(1))
    assert attacked.shape == (4000, 12)
    np.testing.assert_array_equal(attacked[:, :6], codes)
    noise = attacked[:, 6:] - alpha * codes @ mixing_matrix(6).T
    np.testing.assert_allclose(noise, np.random.default_rng(1).standard_normal((4000, 6)), atol=1e-12)
    np.testing.assert_array_equal(attacked, redundancy_attack(codes, alpha, np.random.default_rng(1)))


def test_alpha_zero_appends_pure_noise():
    codes = np.arange(20.0).reshape(10, 2)
    for attack in (redundancy_attack, synergy_attack):
        attacked = attack(codes, 0.0, np.random.default_rng(2))
        np.testing.assert_array_equal(attacked[:, :2], codes)
        np.testing.assert_allclose(attacked[:, 2:], np.random.default_rng(2).standard_normal((10, 2)))


def test_synergy_attack_is_exactly_invertible():
    codes = np.random.default_rng(3).standard_normal((500, 5))
    alpha = 3.0
    attacked = synergy_attack(codes, alpha, np.random.default_rng(4))
    recovered = attacked[:, :5] - alpha * attacked[:, 5:] @ mixing_matrix(5).T
    np.testing.assert_allclose(recovered, codes, atol=1e-12)


def test_attacks_apply_to_any_base_representation():
    base = scenarios.get("noise").generate(0.3, n=200, seed=0)
    attacked = synergy_attack(base.codes, 1.0, np.random.default_rng(0))
    assert attacked.shape == (200, 2 * base.codes.shape[1])


def test_attack_arguments_are_checked():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="alpha must be a finite non-negative"):
        redundancy_attack(np.ones((5, 2)), -1.0, rng)
    with pytest.raises(ValueError, match=r"codes must be an \(n, L\) array"):
        synergy_attack(np.ones(5), 1.0, rng)
    with pytest.raises(TypeError, match="rng must be a numpy Generator"):
        synergy_attack(np.ones((5, 2)), 1.0, 0)


@pytest.mark.parametrize("name", ["redundancy_attack", "synergy_attack"])
def test_scenarios_sweep_alpha_with_eight_factors(name):
    scenario = scenarios.get(name)
    assert scenario.parameter == "alpha" and scenario.values == GRID
    rep = scenario.generate(1.0, n=50, seed=7)
    assert rep.factors.shape == (50, 8) and rep.codes.shape == (50, 16)
    np.testing.assert_array_equal(rep.codes, scenario.generate(1.0, n=50, seed=7).codes)
    assert dict(rep.ideal) == scenario.ideal_trajectory(1.0)
    assert set(rep.exact) >= {"information_code", "information_rest", "information_total", "unibound"}


def _unique_share_redundancy(alpha, s2=0.01):
    a2 = alpha**2
    return 1 - np.log((1 + a2 * (1 + s2)) / (1 + a2 * s2)) / np.log((1 + s2) / s2)


def _unique_share_synergy(alpha, s2=0.01):
    a2 = alpha**2
    return np.log((1 + s2 + a2) / (s2 + a2)) / np.log((1 + s2) / s2)


def test_redundancy_ideal_trajectory():
    scenario = scenarios.get("redundancy_attack")
    ideals = [scenario.ideal_trajectory(alpha) for alpha in GRID]
    assert ideals[0] == pytest.approx({"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0})
    for alpha, ideal in zip(GRID, ideals):
        assert ideal["explicitness"] == pytest.approx(1.0, abs=1e-12)
        assert ideal["compactness"] == pytest.approx(_unique_share_redundancy(alpha), abs=1e-9)
        # appended codes mix all 8 factors; weights are each code's information about y
        full = 0.5 * np.log(101.0)
        appended = 0.5 * np.log((1 + alpha**2 * 1.01) / (1 + alpha**2 * 0.01))
        assert ideal["modularity"] == pytest.approx(full / (full + appended), abs=1e-9)
    compactness = [ideal["compactness"] for ideal in ideals]
    modularity = [ideal["modularity"] for ideal in ideals]
    assert np.all(np.diff(compactness) < 0) and compactness[-1] < 0.25
    assert np.all(np.diff(modularity) < 0) and modularity[-1] > 0.5


def test_synergy_ideal_trajectory():
    scenario = scenarios.get("synergy_attack")
    for alpha in GRID:
        ideal = scenario.ideal_trajectory(alpha)
        assert ideal["explicitness"] == pytest.approx(1.0, abs=1e-12)
        assert ideal["modularity"] == 1.0
        assert ideal["compactness"] == pytest.approx(_unique_share_synergy(alpha), abs=1e-9)
    assert scenario.ideal_trajectory(8.0)["compactness"] < 0.01
