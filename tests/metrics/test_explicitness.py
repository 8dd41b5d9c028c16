"""The Explicitness score (Ridgeway and Mozer 2018; Zaidi et al. 2022, 4.3.2)."""

from __future__ import annotations

import numpy as np
import pytest

import metrics


@pytest.fixture(scope="module")
def uniform_pair():
    rng = np.random.default_rng(21)
    return rng.random((6000, 2)), rng.random((6000, 2))


def test_perfect_code_hits_the_one_vs_rest_ceiling_and_multinomial_lifts_it(uniform_pair):
    factors, _ = uniform_pair
    codes = factors[:, ::-1]
    one_vs_rest = metrics.evaluate("explicitness", factors, codes)["explicitness"]
    # interior bins are intervals of the code: one linear score per class cannot
    # isolate them, so a perfect code stays below 1 (review 5.2 reports about 0.94)
    assert 0.85 < one_vs_rest < 0.97
    multinomial = metrics.evaluate("explicitness", factors, codes, classifier="multinomial")["explicitness"]
    assert multinomial > 0.98


def test_angles_coded_as_cos_sin_are_linearly_separable_sectors():
    angles = np.random.default_rng(3).uniform(0, 2 * np.pi, (4000, 2))
    codes = np.column_stack([np.cos(angles[:, 0]), np.sin(angles[:, 0]), np.cos(angles[:, 1]), np.sin(angles[:, 1])])
    assert metrics.evaluate("explicitness", angles, codes)["explicitness"] > 0.97


def test_codes_independent_of_the_factors_score_about_zero(uniform_pair):
    assert metrics.evaluate("explicitness", *uniform_pair)["explicitness"] < 0.05


def test_a_factor_nothing_encodes_halves_the_score():
    rng = np.random.default_rng(4)
    factors = rng.integers(0, 2, (3000, 2)).astype(float)
    codes = np.column_stack([factors[:, 0] + 0.1 * rng.random(3000), rng.random(3000)])
    # two classes per factor: factor 0 is separated perfectly (AUC 1), factor 1 is chance (AUC 0.5)
    score = metrics.evaluate("explicitness", factors, codes, discrete=True)["explicitness"]
    assert score == pytest.approx(0.5, abs=0.05)


def test_seeded_runs_repeat_exactly(uniform_pair):
    factors, noise = uniform_pair
    codes = factors + noise
    first = metrics.evaluate("explicitness", factors, codes, random_state=9)
    assert first == metrics.evaluate("explicitness", factors, codes, random_state=np.random.default_rng(9))


def test_unscorable_classes_are_an_error_not_a_nan():
    factors = np.zeros((40, 2))
    factors[:, 0] = np.arange(40)  # every class of factor 0 has a single sample
    factors[0, 1] = 1.0  # factor 1: one sample in its second class
    codes = factors.copy()
    # wherever the split puts that sample, no AUC can be computed for factor 1 (a single
    # training class, or a held-out part without it), nor for factor 0
    for seed in range(3):
        with pytest.raises(ValueError, match="single class in the training split|no class has both members"):
            metrics.evaluate("explicitness", factors, codes, discrete=True, random_state=seed, test_size=0.5)


def test_registered_metadata():
    spec = metrics.get("explicitness")
    assert spec.family == "predictor" and dict(spec.properties) == {"explicitness": "explicitness"}
    assert spec.stochastic and spec.needs_discrete_factors
