"""The first two scenarios: noise (review 5.2) and band mixing (review 5.3)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import scenarios
from scenarios.mixing import band_matrix


@pytest.mark.parametrize("name", ["noise", "mixing"])
def test_same_seed_same_arrays_different_seed_different_draw(name):
    scenario = scenarios.get(name)
    first = scenario.generate(scenario.values[2], n=300, seed=5)
    again = scenario.generate(scenario.values[2], n=300, seed=5)
    other = scenario.generate(scenario.values[2], n=300, seed=6)
    assert np.array_equal(first.factors, again.factors) and np.array_equal(first.codes, again.codes)
    assert not np.array_equal(first.factors, other.factors)
    assert first.factors.shape == (300, 8) and first.codes.shape == (300, 8)
    assert first.discrete == (False,) * 8


def test_noise_follows_equation_9():
    scenario = scenarios.get("noise")
    clean = scenario.generate(0.0, n=200, seed=1)
    assert np.array_equal(clean.codes, clean.factors)
    noisy = scenario.generate(0.4, n=200, seed=1)
    residual = (noisy.codes - 0.6 * noisy.factors) / 0.4  # the noise term n
    assert residual.min() >= 0.0 and residual.max() <= 1.0
    assert abs(np.corrcoef(residual[:, 0], noisy.factors[:, 0])[0, 1]) < 0.2


@pytest.mark.parametrize("alpha", [0.0, 0.2, 0.5, 0.6, 1.0])
def test_noise_ideal_trajectory(alpha):
    # modularity and compactness are defined while the code carries at least as much signal as noise (alpha <= 0.5);
    # beyond, up to pure noise, the scenario states no ideal for them (calibration's random end asks a null score)
    ideal = scenarios.get("noise").generate(alpha, n=10, seed=0).ideal
    structure = {"modularity": 1.0, "compactness": 1.0} if alpha <= 0.5 else {}
    assert ideal == {**structure, "explicitness": pytest.approx(1 - alpha)}


def test_ideal_ranges_are_checked():
    noise = scenarios.get("noise")
    with pytest.raises(ValueError, match="unknown property 'holistic'"):
        dataclasses.replace(noise, ideal_ranges={"holistic": (0.0, 1.0)})
    with pytest.raises(ValueError, match=r"low <= high, got \(0.6, 0.2\)"):
        dataclasses.replace(noise, ideal_ranges={"modularity": (0.6, 0.2)})
    with pytest.raises(TypeError, match=r"must be \(low, high\)"):
        dataclasses.replace(noise, ideal_ranges={"modularity": 0.5})


def test_band_matrix_is_the_cyclic_band_of_section_5_3():
    matrix = band_matrix(0.3, size=4)
    expected = np.array([[0.7, 0.3, 0, 0], [0, 0.7, 0.3, 0], [0, 0, 0.7, 0.3], [0.3, 0, 0, 0.7]])
    np.testing.assert_allclose(matrix, expected)
    np.testing.assert_array_equal(band_matrix(0.0), np.eye(8))


def test_mixing_codes_are_v_times_r_and_ideal_falls_linearly():
    scenario = scenarios.get("mixing")
    rep = scenario.generate(0.3, n=100, seed=2)
    np.testing.assert_allclose(rep.codes, rep.factors @ band_matrix(0.3))
    assert rep.ideal["explicitness"] == 1.0
    for alpha in scenario.values:
        ideal = scenario.generate(alpha, n=10, seed=0).ideal
        assert ideal["modularity"] == ideal["compactness"] == pytest.approx(1 - 2 * alpha)


@pytest.mark.parametrize(("name", "value"), [("noise", 1.5), ("noise", -0.1), ("mixing", 0.6)])
def test_out_of_range_values_are_refused(name, value):
    with pytest.raises(ValueError, match="alpha must be in"):
        scenarios.get(name).generate(value, n=10, seed=0)


def test_bad_sample_size_and_seed_are_refused():
    scenario = scenarios.get("noise")
    with pytest.raises(ValueError, match="n >= 2"):
        scenario.generate(0.2, n=1, seed=0)
    with pytest.raises(TypeError, match="seed must be"):
        scenario.generate(0.2, n=10, seed="x")
    with pytest.raises(KeyError, match="unknown scenario 'nope'"):
        scenarios.get("nope")
