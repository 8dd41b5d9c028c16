"""The tan map of review 5.5, eq. 10."""

from __future__ import annotations

import numpy as np
import pytest

import scenarios
from scenarios.nonlinear import tan_map

ALPHAS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def test_grid_is_the_reviews():
    assert scenarios.get("nonlinear").values == ALPHAS


def test_same_seed_same_arrays():
    scenario = scenarios.get("nonlinear")
    first = scenario.generate(0.6, n=300, seed=8)
    again = scenario.generate(0.6, n=300, seed=8)
    other = scenario.generate(0.6, n=300, seed=9)
    assert np.array_equal(first.factors, again.factors) and np.array_equal(first.codes, again.codes)
    assert not np.array_equal(first.codes, other.codes)
    assert first.codes.shape == (300, 8) and first.discrete == (False,) * 8


@pytest.mark.parametrize("alpha", ALPHAS)
def test_map_fixes_the_end_points_and_the_centre(alpha):
    # tan(-w/2) = -1000^(alpha - 0.25)/2 by the choice of w, so z(0) = 0, z(1) = 1.
    np.testing.assert_allclose(tan_map(np.array([0.0, 0.5, 1.0]), alpha), [0.0, 0.5, 1.0], atol=1e-12)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_every_code_is_strictly_increasing_in_its_own_factor(alpha):
    rep = scenarios.get("nonlinear").generate(alpha, n=2000, seed=0)
    np.testing.assert_array_equal(rep.codes, tan_map(rep.factors, alpha))
    for j in range(8):
        order = np.argsort(rep.factors[:, j])
        assert np.all(np.diff(rep.codes[order, j]) > 0)
    assert rep.ideal == {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


def test_alpha_0_is_practically_linear_and_alpha_1_is_not():
    v = np.linspace(0, 1, 1001)
    assert np.max(np.abs(tan_map(v, 0.0) - v)) < 0.005
    assert np.max(np.abs(tan_map(v, 1.0) - v)) > 0.2


def test_equal_width_bins_crowd_the_middle_at_alpha_1():
    # z in [0.4, 0.6] (the two middle bins) iff |tan(w (v - .5))| < 0.1 * 1000^0.75,
    # i.e. a fraction 2 arctan(0.1 * 1000^0.75) / w of uniform v (review Figure 6b).
    omega = 2 * np.arctan(1000**0.75 / 2)
    expected = 2 * np.arctan(0.1 * 1000**0.75) / omega
    rep = scenarios.get("nonlinear").generate(1.0, n=20000, seed=0)
    middle = np.mean((rep.codes >= 0.4) & (rep.codes <= 0.6))
    assert expected > 0.95
    assert abs(middle - expected) < 3 * np.sqrt(expected * (1 - expected) / rep.codes.size) + 1e-3


@pytest.mark.parametrize("alpha", [-0.1, 1.2])
def test_out_of_range_alpha_is_refused(alpha):
    with pytest.raises(ValueError, match=r"alpha must be in \[0, 1\]"):
        scenarios.get("nonlinear").generate(alpha, n=10, seed=0)
