"""MCC, strong and weak (Hyvärinen and Morioka 2016; Khemakhem et al. 2020)."""

from __future__ import annotations

import numpy as np
import pytest

import metrics


def orthonormal_columns(n: int, d: int, seed: int) -> np.ndarray:
    """``d`` centred columns of equal norm with zero sample correlation between any two."""
    rng = np.random.default_rng(seed)
    raw = rng.normal(size=(n, d))
    basis, _ = np.linalg.qr(raw - raw.mean(axis=0))
    return basis * np.sqrt(n)


@pytest.fixture(scope="module")
def basis():
    return orthonormal_columns(4000, 4, seed=1)


def test_hungarian_matching_beats_the_greedy_choice(basis):
    e0, e1, e2, e3 = basis.T
    factors = np.column_stack([e0, e1])
    # |rho| = [[0.7, 0.6], [0.6, 0.0]]: greedy takes 0.7 then 0.0 (mean 0.35); the
    # optimal one-to-one matching takes the two 0.6 (mean 0.6)
    codes = np.column_stack([0.7 * e0 + 0.6 * e1 + np.sqrt(1 - 0.85) * e2, 0.6 * e0 + 0.8 * e3])
    assert metrics.evaluate("mcc", factors, codes)["strong"] == pytest.approx(0.6, abs=1e-9)


def test_fewer_codes_than_factors_leaves_a_factor_at_zero(basis):
    e0, e1, _, _ = basis.T
    scores = metrics.evaluate("mcc", np.column_stack([e0, e1]), e0[:, None])
    assert scores["strong"] == pytest.approx(0.5, abs=1e-9)
    assert scores["weak"] == pytest.approx(0.5, abs=0.01)


def test_identity_and_mixing(rng):
    factors = rng.random((5000, 3))
    mixing = np.array([[1.0, 0.5, 0.0], [0.2, 1.0, 0.3], [0.0, -0.4, 1.0]])
    assert metrics.evaluate("mcc", factors, factors) == pytest.approx({"strong": 1.0, "weak": 1.0}, abs=1e-9)
    mixed = metrics.evaluate("mcc", factors, factors @ mixing)
    assert mixed["strong"] < 0.95
    assert mixed["weak"] == pytest.approx(1.0, abs=1e-9)
    assert metrics.evaluate("mcc", factors, factors @ mixing, alignment="affine")["weak"] == pytest.approx(1.0, abs=1e-9)


def test_independent_codes_score_near_zero(rng):
    factors, codes = rng.random((20_000, 3)), rng.random((20_000, 3))
    scores = metrics.evaluate("mcc", factors, codes)
    # 9 sample correlations of independent columns, sd 1/sqrt(n) = 0.007
    assert scores["strong"] < 0.03
    assert scores["weak"] < 0.04


def test_spearman_sees_through_a_monotone_map(rng):
    factors = rng.random((5000, 2))
    codes = np.exp(4 * factors)
    assert metrics.evaluate("mcc", factors, codes)["strong"] < 0.95
    assert metrics.evaluate("mcc", factors, codes, correlation="spearman")["strong"] == pytest.approx(1.0, abs=1e-12)


def test_sign_and_scale_do_not_matter(rng):
    factors = rng.random((3000, 3))
    codes = factors + 0.3 * rng.normal(size=(3000, 3))
    base = metrics.evaluate("mcc", factors, codes)
    changed = metrics.evaluate("mcc", factors, codes[:, ::-1] * np.array([-2.0, 0.25, 8.0]))
    assert changed == pytest.approx(base, abs=1e-9)


@pytest.mark.parametrize("options, named", [
    ({"correlation": "kendall"}, "correlation"),
    ({"alignment": "procrustes"}, "alignment"),
    ({"matching": "held_out"}, "matching"),
    ({"normalization": "codes"}, "normalization"),
    ({"matching": "cross_fitted", "folds": 1}, "folds"),
    ({"matching": "cross_fitted", "folds": 30}, "2 rows in each of its 30 folds"),
])
def test_bad_options_are_named(rng, options, named):
    values = rng.random((50, 2))
    with pytest.raises(ValueError, match=named):
        metrics.evaluate("mcc", values, values, **options)


# --- the practitioners' variants: correlation, matching, normalisation ---------------------------------------


@pytest.mark.parametrize("correlation", ["pearson", "spearman", "rdc"])
@pytest.mark.parametrize("matching", ["in_sample", "cross_fitted"])
def test_a_permutation_and_sign_flip_of_the_factors_scores_one(rng, correlation, matching):
    factors = rng.normal(size=(2000, 4))
    codes = (factors * np.array([1.0, -1.0, 1.0, -1.0]))[:, [2, 0, 3, 1]]
    scores = metrics.evaluate("mcc", factors, codes, correlation=correlation, matching=matching)
    # RDC's features of a reversed copula span a slightly other space: 1 to about 1e-11 held out
    assert scores == pytest.approx({"strong": 1.0, "weak": 1.0}, abs=1e-9)


def test_a_known_two_by_two_correlation_structure(basis):
    e0, e1, e2, _ = basis.T
    # |rho| = [[0.8, 0.6], [0.0, 0.8]] exactly (the columns are orthonormal in the sample): the matching
    # pairs the diagonal, (0.8 + 0.8) / 2
    factors = np.column_stack([e0, e1])
    codes = np.column_stack([0.8 * e0 + 0.6 * e2, 0.6 * e0 + 0.8 * e1])
    for matching in ("in_sample", "cross_fitted"):
        strong = metrics.evaluate("mcc", factors, codes, matching=matching)["strong"]
        # held out, the folds' correlations differ from the sample's by sampling error (n = 4000, 800 a fold)
        assert strong == pytest.approx(0.8, abs=1e-9 if matching == "in_sample" else 0.02)


def _power_sum(n: int, p: int) -> int:
    return sum(i**p for i in range(1, n + 1))


def test_pearson_and_spearman_on_a_monotone_map_differ_as_computed_by_hand():
    n = 40
    v = np.arange(1.0, n + 1)[:, None]
    # Pearson(i, i^3) over i = 1..n from power sums; Spearman and RDC see the same order: exactly 1
    s1, s2, s3, s4, s6 = (_power_sum(n, p) for p in (1, 2, 3, 4, 6))
    pearson = (n * s4 - s1 * s3) / np.sqrt((n * s2 - s1**2) * (n * s6 - s3**2))
    assert 0.9 < pearson < 0.95
    assert metrics.evaluate("mcc", v, v**3)["strong"] == pytest.approx(pearson, abs=1e-12)
    assert metrics.evaluate("mcc", v, v**3, correlation="spearman")["strong"] == pytest.approx(1.0, abs=1e-12)
    assert metrics.evaluate("mcc", v, v**3, correlation="rdc")["strong"] == pytest.approx(1.0, abs=1e-12)


def test_rdc_sees_a_dependence_pearson_misses(rng):
    v = rng.uniform(-1.0, 1.0, size=(2000, 1))
    z = v**2  # uncorrelated with v (E[v^3] = 0), yet a function of it
    assert metrics.evaluate("mcc", v, z)["strong"] < 0.08  # |rho| of order 1/sqrt(n) = 0.02
    assert metrics.evaluate("mcc", v, z, correlation="spearman")["strong"] < 0.08
    assert metrics.evaluate("mcc", v, z, correlation="rdc")["strong"] > 0.95
    assert metrics.evaluate("mcc", v, rng.uniform(-1.0, 1.0, size=(2000, 1)), correlation="rdc")["strong"] < 0.15


def test_cross_fitting_removes_the_chance_level_of_the_matching():
    in_sample, cross_fitted = [], []
    for seed in range(8):
        rng = np.random.default_rng(seed)
        factors, codes = rng.normal(size=(100, 10)), rng.normal(size=(100, 10))
        in_sample.append(metrics.evaluate("mcc", factors, codes, random_state=seed)["strong"])
        cross_fitted.append(metrics.evaluate("mcc", factors, codes, matching="cross_fitted", random_state=seed)["strong"])
    # in-sample: the best matching of 100 sampling correlations of sd 0.1, below sqrt(2 log L / n) = 0.21;
    # cross-fitted: signed held-out correlations, 0 in expectation (clipped at 0 once, on the average)
    assert 0.12 < np.mean(in_sample) < 0.21
    assert np.mean(cross_fitted) < 0.04
    assert max(cross_fitted) < min(in_sample)


def test_cross_fitting_keeps_a_real_correlation(rng):
    factors = rng.normal(size=(4000, 3))
    codes = factors + 0.5 * rng.normal(size=(4000, 3))  # rho = 1 / sqrt(1.25) for each pair
    expected = 1 / np.sqrt(1.25)
    for correlation in ("pearson", "spearman"):
        scores = [metrics.evaluate("mcc", factors, codes, correlation=correlation, matching=matching)["strong"]
                  for matching in ("in_sample", "cross_fitted")]
        # Spearman's rho of a bivariate normal is (6 / pi) asin(rho / 2), 0.0066 below Pearson's here
        target = expected if correlation == "pearson" else 6 / np.pi * np.arcsin(expected / 2)
        assert scores == pytest.approx([target, target], abs=0.01)


def test_normalization_over_factors_or_matched_pairs(basis):
    e0, e1, e2, e3 = basis.T
    factors = np.column_stack([e0, e1, e2])
    codes = (0.6 * e0 + 0.8 * e3)[:, None]  # one code, |rho| = 0.6 with factor 0 and 0 with the others
    over_factors = metrics.evaluate("mcc", factors, codes)
    over_pairs = metrics.evaluate("mcc", factors, codes, normalization="pairs")
    assert over_factors["strong"] == pytest.approx(0.6 / 3, abs=1e-9)
    assert over_pairs["strong"] == pytest.approx(0.6, abs=1e-9)
    # the weak score's one canonical pair: the same held-out correlation, over 3 factors or over 1 pair
    assert over_pairs["weak"] == pytest.approx(3 * over_factors["weak"], abs=1e-12)
    assert over_pairs["weak"] == pytest.approx(0.6, abs=0.03)
    square = metrics.evaluate("mcc", factors, np.column_stack([e0, e1, e2]), normalization="pairs")
    assert square == metrics.evaluate("mcc", factors, np.column_stack([e0, e1, e2]))


def test_the_default_draws_nothing_for_its_strong_score(rng):
    factors = rng.random((500, 3))
    codes = factors @ rng.random((3, 4)) + 0.2 * rng.random((500, 4))
    default = [metrics.evaluate("mcc", factors, codes, random_state=seed) for seed in (0, 1)]
    assert default[0]["strong"] == default[1]["strong"]  # in-sample Pearson: no randomness
    assert default[0]["weak"] != default[1]["weak"]  # the weak score's split
    # the split is drawn first, so the variants that draw more keep the default's weak score
    assert metrics.evaluate("mcc", factors, codes, matching="cross_fitted")["weak"] == default[0]["weak"]
    rdc = [metrics.evaluate("mcc", factors, codes, correlation="rdc", random_state=seed) for seed in (0, 0, 1)]
    assert rdc[0] == rdc[1]
    assert rdc[0]["strong"] != rdc[2]["strong"]  # its random features
