"""SAP (Kumar et al. 2018; Zaidi et al. 2022, 4.3.3, eq. 1)."""

from __future__ import annotations

import numpy as np
import pytest

import metrics


@pytest.fixture(scope="module")
def uniform():
    rng = np.random.default_rng(31)
    return rng.random((20_000, 2)), rng.random((20_000, 2))


def test_gap_of_known_squared_correlations(uniform):
    factors, noise = uniform
    # z0 = v0 + e0 explains half of v0's variance (equal variances); z1 = v1 exactly
    codes = np.column_stack([factors[:, 0] + noise[:, 0], factors[:, 1]])
    # factor 0: 0.5 - 0 ; factor 1: 1 - 0
    assert metrics.evaluate("sap", factors, codes)["sap"] == pytest.approx(0.75, abs=0.02)


def test_angle_coded_as_cos_sin_gives_the_linear_r2_of_sin():
    angles = np.random.default_rng(5).uniform(0, 2 * np.pi, (20_000, 2))
    codes = np.column_stack([np.cos(angles[:, 0]), np.sin(angles[:, 0]), np.cos(angles[:, 1]), np.sin(angles[:, 1])])
    # R^2(theta, sin theta) = Cov^2 / (Var theta Var sin) = 1 / ((pi^2 / 3) (1/2)) = 6 / pi^2; cos: 0
    assert metrics.evaluate("sap", angles, codes)["sap"] == pytest.approx(6 / np.pi**2, abs=0.015)


def test_a_factor_copied_into_two_codes_has_no_gap(uniform):
    factors, _ = uniform
    assert metrics.evaluate("sap", factors, np.repeat(factors, 2, axis=1))["sap"] == pytest.approx(0.0, abs=1e-12)


def test_a_single_code_has_no_runner_up(uniform):
    factors, _ = uniform
    assert metrics.evaluate("sap", factors[:, :1], factors[:, :1])["sap"] == pytest.approx(1.0)


def test_dead_codes_score_zero(uniform):
    factors, noise = uniform
    codes = np.column_stack([1e-3 * factors[:, 0], factors[:, 1]])  # code 0: variance 8e-8
    # runner-ups are the spurious correlations of independent columns, of order 1/n
    assert metrics.evaluate("sap", factors, codes)["sap"] == pytest.approx(1.0, abs=1e-3)
    assert metrics.evaluate("sap", factors, codes, dead_code_variance=1e-6)["sap"] == pytest.approx(0.5, abs=1e-3)


@pytest.fixture(scope="module")
def four_classes():
    rng = np.random.default_rng(6)
    factors = rng.integers(0, 4, (4000, 2)).astype(float)
    codes = factors + 0.2 * rng.random((4000, 2))
    return factors, codes


def test_discrete_factors_use_balanced_accuracy_whose_chance_level_caps_the_gap(four_classes):
    # perfect codes: best balanced accuracy 1, runner-up (an unrelated code) 1/4
    raw = metrics.evaluate("sap", *four_classes, discrete=True)["sap"]
    assert raw == pytest.approx(0.75, abs=0.03)
    adjusted = metrics.evaluate("sap", *four_classes, discrete=True, chance_adjusted=True)["sap"]
    assert adjusted == pytest.approx(1.0, abs=0.03)


def test_a_two_leaf_tree_separates_four_classes_into_two_pairs(four_classes):
    # balanced accuracy 1/2 for the code, 1/4 for the other one
    score = metrics.evaluate("sap", *four_classes, discrete=True, max_leaves=2)["sap"]
    assert score == pytest.approx(0.25, abs=0.03)


def test_seeded_runs_repeat_exactly(four_classes):
    factors, codes = four_classes
    first = metrics.evaluate("sap", factors, codes + 0.5, discrete=[True, False], random_state=2)
    assert first == metrics.evaluate("sap", factors, codes + 0.5, discrete=[True, False], random_state=np.random.default_rng(2))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_leaves": 1}, "max_leaves"),
        ({"dead_code_variance": -1.0}, "dead_code_variance"),
        ({"chance_adjusted": "yes"}, "chance_adjusted"),
        ({"test_size": 2}, "test_size"),
    ],
)
def test_bad_options_are_named(options, message, four_classes):
    with pytest.raises((ValueError, TypeError), match=message):
        metrics.evaluate("sap", *four_classes, **options)


def test_registered_metadata():
    spec = metrics.get("sap")
    assert spec.family == "predictor" and dict(spec.properties) == {"sap": "holistic"}
