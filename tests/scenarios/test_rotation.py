"""Axis misalignment: a perfect code rotated in pairs of axes (review 6.1)."""

from __future__ import annotations

import numpy as np
import pytest

import scenarios
from scenarios.rotation import rotation_matrix


def test_grid_runs_from_0_to_a_quarter_turn():
    values = scenarios.get("rotation").values
    np.testing.assert_allclose(values, np.arange(6) * np.pi / 20)
    assert values[-1] == np.pi / 4


def test_same_seed_same_arrays():
    scenario = scenarios.get("rotation")
    first = scenario.generate(np.pi / 10, n=300, seed=1)
    again = scenario.generate(np.pi / 10, n=300, seed=1)
    other = scenario.generate(np.pi / 10, n=300, seed=2)
    assert np.array_equal(first.factors, again.factors) and np.array_equal(first.codes, again.codes)
    assert not np.array_equal(first.codes, other.codes)


def test_rotation_is_orthogonal_block_diagonal_in_pairs():
    matrix = rotation_matrix(0.3)
    np.testing.assert_allclose(matrix @ matrix.T, np.eye(8), atol=1e-12)
    assert np.linalg.det(matrix) == pytest.approx(1.0)
    mask = np.kron(np.eye(4), np.ones((2, 2))) > 0
    assert np.all(matrix[~mask] == 0)
    np.testing.assert_array_equal(rotation_matrix(0.0), np.eye(8))


def test_codes_rotate_and_the_factors_come_back_exactly():
    scenario = scenarios.get("rotation")
    perfect = scenario.generate(0.0, n=200, seed=3)
    np.testing.assert_allclose(perfect.codes, perfect.factors, atol=1e-15)
    rep = scenario.generate(np.pi / 4, n=200, seed=3)
    c = s = np.sqrt(0.5)
    np.testing.assert_allclose(rep.codes[:, 0], 0.5 + c * (rep.factors[:, 0] - 0.5) - s * (rep.factors[:, 1] - 0.5), atol=1e-12)
    back = 0.5 + (rep.codes - 0.5) @ rotation_matrix(np.pi / 4).T
    np.testing.assert_allclose(back, rep.factors, atol=1e-12)


def test_variance_shares_are_cos2_and_sin2_and_pairs_do_not_interact():
    theta = np.pi / 8
    rep = scenarios.get("rotation").generate(theta, n=20000, seed=0)
    corr = np.corrcoef(rep.factors.T, rep.codes.T)[:8, 8:]  # factor x code
    # share of code z_1's variance due to v_1 (R^2 of the regression on v_1): cos^2 theta
    assert corr[0, 0] ** 2 == pytest.approx(np.cos(theta) ** 2, abs=0.01)
    assert corr[1, 0] ** 2 == pytest.approx(np.sin(theta) ** 2, abs=0.01)
    assert np.max(np.abs(corr[2:, :2])) < 0.03
    factor_corr = np.corrcoef(rep.factors.T) - np.eye(8)
    assert np.max(np.abs(factor_corr)) < 0.03


def test_ideal_modularity_and_compactness_follow_the_entropy_of_the_shares():
    scenario = scenarios.get("rotation")
    assert scenario.generate(0.0, n=10, seed=0).ideal == {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}
    end = scenario.generate(np.pi / 4, n=10, seed=0).ideal
    assert end["modularity"] == end["compactness"] == pytest.approx(1 - np.log(2) / np.log(8)) == pytest.approx(2 / 3)
    p = np.cos(np.pi / 8) ** 2
    by_hand = 1 + (p * np.log(p) + (1 - p) * np.log(1 - p)) / np.log(8)
    assert scenario.generate(np.pi / 8, n=10, seed=0).ideal["compactness"] == pytest.approx(by_hand, abs=1e-12)
    assert by_hand == pytest.approx(0.7997, abs=1e-4)
    trajectory = [scenario.generate(t, n=10, seed=0).ideal["modularity"] for t in scenario.values]
    assert np.all(np.diff(trajectory) < 0)
    assert all(scenario.generate(t, n=10, seed=0).ideal["explicitness"] == 1.0 for t in scenario.values)


def test_angle_beyond_a_quarter_turn_is_refused():
    with pytest.raises(ValueError, match="theta must be in"):
        scenarios.get("rotation").generate(1.0, n=10, seed=0)
