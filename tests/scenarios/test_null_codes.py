"""Null codes (Joshi et al. 2026, encoders E9 and E10): independent of the factors, nested in width and sample size."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import scenarios
from scenarios.composition import compose
from scenarios.null_codes import code_width, independent_codes


def _independence_statistic(factors: np.ndarray, codes: np.ndarray) -> tuple[float, int]:
    """``n`` times the sum of the squared factor-code correlations, chi-square with ``K L`` degrees under independence."""
    n = len(factors)
    standardise = lambda a: (a - a.mean(axis=0)) / a.std(axis=0)  # noqa: E731
    correlation = standardise(factors).T @ standardise(codes) / n
    return float(n * np.sum(correlation**2)), correlation.size


def _within_chance(factors: np.ndarray, codes: np.ndarray) -> bool:
    statistic, degrees = _independence_statistic(factors, codes)
    return stats.chi2.ppf(0.0005, degrees) < statistic < stats.chi2.ppf(0.9995, degrees)


@pytest.mark.parametrize("name", ["null_gaussian", "null_uniform"])
def test_the_codes_are_independent_of_the_factors_within_sampling_error(name):
    scenario = scenarios.get(name)
    for ratio in scenario.values:
        data = scenario.generate(ratio, n=5000, seed=0)
        assert data.codes.shape == (5000, code_width(ratio, 8)) and data.factors.shape == (5000, 8)
        assert _within_chance(data.factors, data.codes), ratio
        assert _within_chance(np.abs(data.factors), np.abs(data.codes)), ratio  # and not only linearly
    # the statistic can fail: codes that leak a little of the factors (correlation 0.05) are caught
    leaky = data.codes[:, :8] + 0.05 * data.factors
    assert not _within_chance(data.factors, leaky)


def test_the_marginals_are_standard_normal_and_uniform_on_minus_one_one():
    gaussian = scenarios.get("null_gaussian").generate(2.0, n=5000, seed=1)
    uniform = scenarios.get("null_uniform").generate(2.0, n=5000, seed=1)
    for column in range(16):
        assert stats.kstest(gaussian.codes[:, column], "norm").pvalue > 1e-3
        assert stats.kstest(uniform.codes[:, column], stats.uniform(-1, 2).cdf).pvalue > 1e-3
    assert -1 <= uniform.codes.min() and uniform.codes.max() <= 1
    for column in range(8):
        assert stats.kstest(gaussian.factors[:, column], "norm").pvalue > 1e-3
    np.testing.assert_array_equal(gaussian.factors, uniform.factors)  # the same factors, only the codes differ


def test_a_narrower_code_is_the_first_columns_of_a_wider_one_and_a_smaller_sample_the_first_rows():
    scenario = scenarios.get("null_uniform")
    wide = scenario.generate(16.0, n=2000, seed=2)
    narrow = scenario.generate(2.0, n=2000, seed=2)
    small = scenario.generate(16.0, n=50, seed=2)
    np.testing.assert_array_equal(narrow.codes, wide.codes[:, :16])
    np.testing.assert_array_equal(narrow.factors, wide.factors)
    np.testing.assert_array_equal(small.codes, wide.codes[:50])
    np.testing.assert_array_equal(small.factors, wide.factors[:50])
    assert not np.array_equal(scenario.generate(16.0, n=2000, seed=3).codes, wide.codes)
    # the columns are distinct streams, not copies
    assert np.abs(np.corrcoef(wide.codes.T)[np.triu_indices(128, 1)]).max() < 0.15


def test_the_width_is_the_ratio_times_the_factors_rounded():
    assert [code_width(r, 8) for r in (1, 1.3, 2.5, 16, 64)] == [8, 10, 20, 128, 512]
    assert code_width(1.0, 1) == 1
    codes = independent_codes(np.random.SeedSequence(7), 10, 3, "gaussian")
    np.testing.assert_array_equal(codes, independent_codes(np.random.SeedSequence(7), 10, 3, "gaussian"))
    with pytest.raises(ValueError, match=r"width_ratio must be in \[1, 64\]"):
        scenarios.get("null_gaussian").generate(0.5, n=10, seed=0)


@pytest.mark.parametrize("name", ["null_gaussian", "null_uniform"])
def test_every_ideal_is_0_and_the_criterion_is_chance(name):
    scenario = scenarios.get(name)
    assert scenario.criterion == "chance" and scenario.parameter == "width_ratio"
    for ratio in scenario.values:
        assert dict(scenario.generate(ratio, n=20, seed=0).ideal) == {"modularity": 0.0, "compactness": 0.0,
                                                                       "explicitness": 0.0}


def test_the_null_transform_keeps_the_base_factors_and_its_criterion_on_any_base():
    for base, value in (("mixing", 0.2), ("equicorrelated", 0.9), ("noise", 0.4)):
        scenario = compose("null_gaussian", base, value)
        assert scenario.criterion == "chance"  # mixing and noise at 0.4 are not perfect bases
        data = scenario.generate(4.0, n=3000, seed=5)
        base_data = scenarios.get(base).generate(value, n=3000, seed=5)
        np.testing.assert_array_equal(data.factors, base_data.factors)
        assert data.codes.shape[1] == 4 * base_data.factors.shape[1]
        assert _within_chance(data.factors, data.codes), base
        assert dict(data.ideal) == {"modularity": 0.0, "compactness": 0.0, "explicitness": 0.0}
    uniform = compose("null_uniform", "equicorrelated", 0.5).generate(1.0, n=3000, seed=5).codes
    assert -1 <= uniform.min() and uniform.max() <= 1 and stats.kstest(uniform[:, 0], stats.uniform(-1, 2).cdf).pvalue > 1e-3
