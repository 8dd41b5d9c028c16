"""Mutual information between one variable and a set of codes: metrics.estimators and metrics._knn."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.special import digamma
from threadpoolctl import threadpool_limits

from metrics._knn import count_within, kraskov, standardize
from metrics.estimators import information_denominator, mutual_information, normalized, pairwise_information
from metrics.information import factor_code_information


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(limits=1):
        yield


def gaussian_pair(rho: float, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    return x, rho * x + np.sqrt(1 - rho**2) * rng.standard_normal(n)


def test_gaussian_estimator_is_the_sample_correlation_formula():
    x, z = gaussian_pair(0.7, 500, 0)
    r = np.corrcoef(x, z)[0, 1]
    assert mutual_information(x, z, estimator="gaussian") == pytest.approx(-0.5 * np.log(1 - r**2), rel=1e-10)


def test_gaussian_estimator_is_the_log_determinant_formula_for_several_codes():
    rng = np.random.default_rng(1)
    y = rng.standard_normal(800)
    codes = np.column_stack([y + rng.standard_normal(800), 0.5 * y + rng.standard_normal(800), rng.standard_normal(800)])
    covariance = np.cov(np.column_stack([y, codes]), rowvar=False)
    expected = 0.5 * (np.log(covariance[0, 0]) + np.linalg.slogdet(covariance[1:, 1:])[1] - np.linalg.slogdet(covariance)[1])
    assert mutual_information(y, codes, estimator="gaussian") == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("estimator", ["knn", "knn_full", "gaussian"])
def test_bivariate_gaussian(estimator):
    x, z = gaussian_pair(0.9, 5000, 2)
    assert mutual_information(x, z, estimator=estimator) == pytest.approx(-0.5 * np.log(1 - 0.81), abs=0.03)


def test_kraskov_is_invariant_enough_to_a_monotone_code_map():
    x, z = gaussian_pair(0.8, 5000, 3)
    exact = -0.5 * np.log(1 - 0.64)
    assert mutual_information(x, np.exp(z)) == pytest.approx(exact, abs=0.04)
    assert mutual_information(x, np.exp(z), estimator="gaussian") < exact - 0.05  # linear-only failure mode


def test_ross_on_a_two_class_gaussian_mixture():
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 2, 5000)
    code = np.where(labels == 1, 1.0, -1.0) + rng.standard_normal(5000)

    def density(v):
        return 0.5 * (stats.norm.pdf(v, 1, 1) + stats.norm.pdf(v, -1, 1))

    h_code = integrate.quad(lambda v: -density(v) * np.log(density(v)), -12, 12)[0]
    exact = h_code - 0.5 * np.log(2 * np.pi * np.e)
    assert mutual_information(labels, code, discrete=True) == pytest.approx(exact, abs=0.03)


def test_projection_is_exact_for_linear_gaussian_codes():
    rng = np.random.default_rng(5)
    y = rng.standard_normal(20000)
    loadings = np.array([1.0, 0.5, 0.5, 0.0, 0.0, 0.0])
    codes = y[:, None] * loadings + rng.standard_normal((20000, 6))
    exact = 0.5 * np.log(1 + loadings @ loadings)
    assert mutual_information(y, codes) == pytest.approx(exact, abs=0.02)
    assert mutual_information(y, codes, estimator="gaussian") == pytest.approx(exact, abs=0.02)


def test_discrete_target_with_several_codes_uses_the_discriminant_subspace():
    rng = np.random.default_rng(6)
    labels = rng.integers(0, 3, 3000)
    centres = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    codes = np.hstack([centres[labels] + 0.3 * rng.standard_normal((3000, 2)), rng.standard_normal((3000, 3))])
    sizes = np.bincount(labels)
    separated = digamma(3000) - np.mean(digamma(sizes[labels]))  # Ross's estimate for perfectly separated classes
    assert mutual_information(labels, codes, discrete=True) == pytest.approx(separated, abs=0.01)
    assert separated == pytest.approx(np.log(3), abs=0.01)


def test_ties_follow_the_mixture_rule():
    """A discrete copy: every neighbour distance is 0, so k is the number of duplicates (Gao et al. 2017)."""
    values = np.repeat(np.arange(4.0), 100)
    per_point = digamma(99) + digamma(400) - 2 * digamma(100)
    assert mutual_information(values, values) == pytest.approx(per_point, abs=1e-12)
    assert per_point == pytest.approx(np.log(4), abs=0.02)


def _brute_force_kraskov(x: np.ndarray, y: np.ndarray, k: int) -> float:
    """Kraskov et al. with the tie rule of Gao et al. (2017), every distance computed: the engine's reference."""
    x, y = standardize(x[:, None]), standardize(y[:, None])
    dx, dy = np.abs(x - x.T), np.abs(y - y.T)
    joint = np.maximum(dx, dy)
    n = x.shape[0]
    eps = np.sort(joint, axis=1)[:, k]  # column 0 is the point itself
    k_i = np.where(eps > 0, k, (joint == 0).sum(axis=1) - 1).astype(float)
    def count(d):  # others strictly inside eps, or at distance 0 when eps is 0
        inside = np.where(eps[:, None] > 0, d < eps[:, None], d == 0)
        return inside.sum(axis=1) - 1
    return float(np.mean(digamma(k_i) + digamma(n) - digamma(count(dx) + 1) - digamma(count(dy) + 1)))


@pytest.mark.parametrize("case", ["quantised", "partly repeated", "continuous", "one quantised"])
def test_kraskov_counts_ties_as_a_brute_force_count_does(case):
    rng = np.random.default_rng(11)
    x, y = rng.random(400), rng.random(400)
    if case == "quantised":  # most points have more than k identical others: read off the repeated rows
        x, y = np.round(3 * x), np.round(3 * (x + y))
    elif case == "partly repeated":  # some rows repeated fewer than k times, some more
        source = rng.integers(0, 400, 150)
        x[:150], y[:150] = x[source % 20], y[source % 20]
    elif case == "one quantised":
        x = np.round(4 * x)
    for k in (1, 3, 5):
        assert kraskov(x[:, None], y[:, None], k) == _brute_force_kraskov(x, y, k), (case, k)


def test_deterministic_code_reaches_the_kraskov_ceiling():
    x = np.random.default_rng(7).random(2000)
    # identical columns: the k - 1 nearer samples are strictly inside eps in both marginals
    assert mutual_information(x, x) == pytest.approx(digamma(2000) - digamma(3), abs=1e-12)
    # an affine copy differs by rounding, which moves the k-th neighbour inside one marginal
    assert digamma(2000) - digamma(4) - 1e-9 <= mutual_information(x, 3 * x + 1) <= digamma(2000) - digamma(3) + 1e-9


def test_histogram_and_miller_madow_by_hand():
    values = np.repeat([0.0, 1.0], 4)
    assert mutual_information(values, values, estimator="histogram", discrete=True) == pytest.approx(np.log(2), abs=1e-12)
    # m_v = m_z = m_vz = 2 occupied cells: correction (2 + 2 - 2 - 1) / (2 * 8)
    assert mutual_information(values, values, estimator="miller_madow", discrete=True) == pytest.approx(np.log(2) + 1 / 16, abs=1e-12)


def test_miller_madow_removes_the_plug_in_bias_of_independent_columns():
    rng = np.random.default_rng(8)
    x, z = rng.random(2000), rng.random(2000)
    plug_in = mutual_information(x, z, estimator="histogram")
    corrected = mutual_information(x, z, estimator="miller_madow")
    assert plug_in > 0.012  # first-order bias (bins - 1)^2 / 2n = 0.020
    assert corrected < 0.008


def test_pairwise_histogram_is_the_engine_matrix():
    rng = np.random.default_rng(9)
    factors, codes = rng.random((300, 3)), rng.random((300, 4))
    factors[:, 2] = rng.integers(0, 3, 300)
    discrete = (False, False, True)
    np.testing.assert_array_equal(
        pairwise_information(factors, codes, discrete, estimator="histogram"),
        factor_code_information(factors, codes, discrete).mutual_information,
    )
    knn = pairwise_information(factors, codes, discrete, estimator="knn")
    assert knn.shape == (3, 4)
    assert knn[0, 1] == mutual_information(factors[:, 0], codes[:, 1])


def test_projection_misses_a_factor_encoded_on_a_circle():
    rng = np.random.default_rng(10)
    angle = rng.uniform(-np.pi, np.pi, 3000)
    codes = np.column_stack([np.cos(angle), np.sin(angle)]) + 0.05 * rng.standard_normal((3000, 2))
    exact = np.log(2 * np.pi) - 0.5 * np.log(2 * np.pi * np.e * 0.05**2)  # small-noise limit, 3.41 nats
    full = mutual_information(angle, codes, estimator="knn_full")
    assert full == pytest.approx(exact, abs=0.1)
    assert mutual_information(angle, codes) < full - 0.5  # documented failure mode of the projection


def test_degenerate_inputs_give_zero():
    x = np.random.default_rng(11).random(50)
    assert mutual_information(x, np.empty((50, 0))) == 0.0
    assert mutual_information(np.ones(50), x) == 0.0
    assert mutual_information(x, np.ones((50, 3)), estimator="gaussian") == 0.0
    assert mutual_information(x, np.random.default_rng(12).random(50)) >= 0.0


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"estimator": "magic"}, ValueError, "estimator must be one of"),
        ({"estimator": "histogram", "code_columns": np.arange(40.0).reshape(20, 2)}, ValueError, "one code column only"),
        ({"code_columns": np.ones((19, 1))}, ValueError, "same number of rows"),
        ({"factor_column": np.full(20, np.nan)}, ValueError, r"factor_column contains 20 non-finite value\(s\)"),
        ({"factor_column": np.arange(20.0), "discrete": True}, ValueError, "needs repeated values"),
        ({"neighbors": 25}, ValueError, "more samples than neighbors"),
        ({"neighbors": 0}, ValueError, "neighbors must be at least 1"),
        ({"bins": 1}, ValueError, "bins must be at least 2"),
    ],
)
def test_bad_inputs_are_named(kwargs, error, message):
    rng = np.random.default_rng(13)
    arguments = {"factor_column": rng.random(20), "code_columns": rng.random((20, 1)), **kwargs}
    with pytest.raises(error, match=message):
        mutual_information(arguments.pop("factor_column"), arguments.pop("code_columns"), **arguments)


def test_one_dimensional_counts_agree_with_brute_force_on_ties():
    rng = np.random.default_rng(14)
    for values in (rng.standard_normal(200), np.round(rng.standard_normal(200), 1), 0.1 * rng.integers(0, 4, 200)):
        on_samples = np.abs(values[rng.integers(0, 200, 200)] - values)  # radii that land exactly on samples
        # and one ulp inside or outside them (the strict radius of the Kraskov estimator)
        for radius in (on_samples, np.nextafter(on_samples, 0.0), np.nextafter(on_samples, np.inf)):
            brute = (np.abs(values[None, :] - values[:, None]) <= radius[:, None]).sum(axis=1) - 1
            np.testing.assert_array_equal(count_within(values[:, None], radius), brute)
            two = np.column_stack([values, np.zeros(200)])
            np.testing.assert_array_equal(count_within(two, radius), brute)


def test_normalisations():
    entropies, information = np.array([2.0, 1.0, 0.0]), np.array([1.0, 3.0, 0.0])
    np.testing.assert_array_equal(information_denominator(entropies, information, "none"), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(information_denominator(entropies, information, "entropy"), [2.0, 1.0, 0.0])
    bounded = information_denominator(entropies, information, "bounded")
    np.testing.assert_array_equal(bounded, [2.0, 3.0, 0.0])
    np.testing.assert_array_equal(normalized(information, bounded), [0.5, 1.0, 0.0])
    with pytest.raises(ValueError, match="normalize must be one of"):
        information_denominator(entropies, information, "max")


@pytest.mark.parametrize(("factor", "codes", "error", "message"), [
    # each was a silent number (strings parsed, overflow to 0, one sample scored 0) or an error from inside
    # numpy (LinAlgError, "zero-size array", "float() argument"); the arrays are now validated as evaluate's
    (np.array(["0.1", "0.5", "0.9"]), np.ones((3, 1)), TypeError, r"factor_column must be numeric, got an array of strings"),
    (np.linspace(0, 1, 50) * 1e300, np.linspace(0, 1, 50), ValueError, r"factor_column contains values of magnitude .* above the supported"),
    (np.linspace(0, 1, 50), np.linspace(0, 1, 50) * 1e300, ValueError, r"code_columns contains values of magnitude"),
    (np.array([0.5]), np.array([[0.5]]), ValueError, r"factor_column must have at least 2 samples \(rows\), got 1"),
    (np.empty(0), np.empty((0, 1)), ValueError, r"factor_column must have at least 2 samples"),
    (np.array([object()] * 4), np.ones((4, 1)), TypeError, r"factor_column must contain only real numbers"),
    (None, np.ones((4, 1)), TypeError, r"factor_column is None"),
    (np.linspace(0, 1, 50), np.ones((49, 2)), ValueError, r"same number of rows \(samples\); got 50 and 49"),
    (np.linspace(0, 1, 50), np.ones((49, 0)), ValueError, r"same number of rows \(samples\); got 50 and 49"),
    (np.ones((50, 2)), np.ones((50, 2)), ValueError, r"factor_column must be one column, got shape \(50, 2\)"),
    (np.linspace(0, 1, 50), np.ones((50, 2, 1)), ValueError, r"code_columns must be a 2-D array"),
], ids=["strings", "huge factor", "huge codes", "one sample", "no sample", "objects", "None", "rows differ", "rows differ, d = 0",
        "two factor columns", "3-D codes"])
def test_bad_arrays_are_named(factor, codes, error, message):
    with pytest.raises(error, match=message):
        mutual_information(factor, codes)


def test_discrete_must_be_a_flag():
    values = np.repeat([0.0, 1.0], 20)
    with pytest.raises(TypeError, match="discrete must hold one bool"):
        mutual_information(values, values, discrete="yes")


def test_lists_and_one_column_matrices_estimate_what_arrays_do(rng):
    x = rng.random(300)
    codes = np.column_stack([x + 0.1 * rng.random(300), rng.random(300)])
    expected = mutual_information(x, codes)
    assert mutual_information(x.tolist(), codes.tolist()) == expected
    assert mutual_information(x[:, None], codes) == expected
    assert mutual_information(x, np.empty((300, 0))) == 0.0  # d = 0: no code carries no information
