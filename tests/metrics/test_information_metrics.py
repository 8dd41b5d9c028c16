"""MIG, MIG-sup, JEMMIG, the Modularity score and DCIMIG against values derived by hand
and against the review's Table 1 (Zaidi et al. 2022, section 5.4)."""

from __future__ import annotations

import numpy as np
import pytest

import metrics

INFORMATION_METRICS = ["mig", "mig_sup", "jemmig", "modularity", "dcimig"]


def _score(name, factors, codes, **options):
    return metrics.evaluate(name, factors, codes, **options)[name]


@pytest.mark.parametrize("name", ["mig", "mig_sup", "dcimig", "modularity"])
def test_perfect_code_scores_one(name, uniform_factors_20k):
    assert _score(name, uniform_factors_20k, uniform_factors_20k) == pytest.approx(1.0, abs=0.01)


def test_jemmig_on_a_perfect_code_is_one_minus_the_runner_up_bias(uniform_factors_20k):
    # With z = v the joint-entropy term vanishes; what is left is the plug-in MI of the best
    # *independent* code, I(v; z_o).  For B x B bins and N samples, 2N * I is chi-square with
    # (B-1)^2 = 81 degrees of freedom (mean 81, sd 12.7); the largest of 7 independent ones sits
    # about 1.35 sd above the mean: 98 / (2N) nats.  JEMMIG divides by H(v) + log B = 2 log 10.
    n = uniform_factors_20k.shape[0]
    expected = 1.0 - (98.0 / (2 * n)) / (2 * np.log(10))
    assert _score("jemmig", uniform_factors_20k, uniform_factors_20k) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize("name", ["mig", "mig_sup", "jemmig", "dcimig"])
def test_independent_codes_score_near_zero(name, uniform_factors_20k):
    codes = np.random.default_rng(7).random(uniform_factors_20k.shape)
    assert 0.0 <= _score(name, uniform_factors_20k, codes) <= 0.05


def test_modularity_score_is_optimistic_on_independent_codes(uniform_factors_20k):
    # Review 5.2: each code's deviation is normalised by its own largest MI, and for independent
    # codes all 8 MIs are plug-in biases of similar size, so the ratio sum(others^2) / (7 max^2)
    # stays well below 1: measured 0.36 here, far from the 0 an ideal metric would give.
    codes = np.random.default_rng(7).random(uniform_factors_20k.shape)
    assert 0.2 <= _score("modularity", uniform_factors_20k, codes) <= 0.6


def _table1_case(case: str, n: int = 20000, seed: int = 0):
    rng = np.random.default_rng(seed)
    if case == "cos_sin":
        angles = rng.random((n, 4)) * 2 * np.pi
        codes = np.stack([f(angles[:, i]) for i in range(4) for f in (np.cos, np.sin)], axis=1)
        return angles, codes
    factors = rng.random((n, 4 if case == "duplicate_2" else 2)) * 2 * np.pi
    return factors, np.repeat(factors, 2 if case == "duplicate_2" else 4, axis=1)


# Zaidi et al. 2022, Table 1: MIG-RMIG, MIG-sup, JEMMIG, Modularity Score, DCIMIG
TABLE_1 = {
    "cos_sin": {"mig": 0.0, "mig_sup": 0.7, "jemmig": 0.4, "modularity": 1.0, "dcimig": 0.6},
    "duplicate_2": {"mig": 0.0, "mig_sup": 1.0, "jemmig": 0.5, "modularity": 1.0, "dcimig": 1.0},
    "duplicate_4": {"mig": 0.0, "mig_sup": 1.0, "jemmig": 0.5, "modularity": 1.0, "dcimig": 1.0},
}


@pytest.mark.parametrize("case", sorted(TABLE_1))
def test_review_table_1(case):
    factors, codes = _table1_case(case)
    for name, published in TABLE_1[case].items():
        assert _score(name, factors, codes) == pytest.approx(published, abs=0.1), name


def test_duplicated_code_gives_jemmig_one_half_exactly_in_the_limit():
    # z = [v, v]: H(v, z*) = I(v, z*) = I(v, z_o) = H(v), so JEMMIG = 1 - H / (H + log B) = 0.5
    # whenever H(v) = log B, i.e. uniform bins; here every bin holds exactly n / 10 samples.
    factors = (np.arange(1000) % 10 + 0.5)[:, None] / 10.0
    assert _score("jemmig", factors, np.repeat(factors, 2, axis=1)) == pytest.approx(0.5, abs=1e-12)


def test_code_normalisation_differs_on_skewed_codes(uniform_factors_20k):
    factors = uniform_factors_20k[:, :4]
    # uniform codes: H(z) = H(v), so the two normalisations agree
    same = [_score("mig", factors, factors, normalization=k) for k in ("factor", "code")]
    assert same[0] == pytest.approx(same[1], abs=0.01)
    # the review's tan map at alpha = 1 (section 5.5): monotonic, so a perfect code, but equal-width
    # bins pile samples into the middle bins and H(z) << H(v).  Dividing by H(z) hides that loss.
    w = 2 * np.arctan(1000 ** 0.75 / 2)
    skewed = 1000 ** -0.75 * np.tan(w * (factors - 0.5)) + 0.5
    by_factor = _score("mig", factors, skewed, normalization="factor")
    by_code = _score("mig", factors, skewed, normalization="code")
    assert by_factor < 0.5
    assert by_code > by_factor + 0.3
    for name in ("mig_sup", "dcimig"):
        assert _score(name, factors, skewed, normalization="code") > _score(name, factors, skewed) + 0.2


def test_mig_by_hand_on_a_two_factor_example():
    # v1 uniform over 4 bins, v2 independent; z1 = v1, z2 = v1 coarsened to 2 bins -> I(v1; z2) = log 2
    v1 = np.repeat(np.arange(4), 256).astype(float)
    v2 = np.tile(np.arange(4), 256).astype(float)
    factors = np.c_[v1, v2]
    codes = np.c_[v1, (v1 >= 2).astype(float), v2]
    score = _score("mig", factors, codes, discrete=[True, True], bins=4)
    # factor 1: gap (log 4 - log 2) / log 4 = 0.5; factor 2: gap log 4 / log 4 = 1
    assert score == pytest.approx(0.75, abs=1e-12)


def test_single_factor_and_single_code_are_defined(rng):
    values = rng.random((2000, 1))
    for name in INFORMATION_METRICS:
        assert _score(name, values, values) == pytest.approx(1.0, abs=0.01), name
    # one factor, several codes: MIG-sup and the Modularity score compare factors; with one
    # factor MIG-sup takes the runner-up as 0 and the Modularity score counts a code only
    # when its MI beats the independence quantile (documented), so the noise code scores 0
    codes = np.c_[values, rng.random((2000, 1))]
    assert _score("mig_sup", values, codes) == pytest.approx(0.5, abs=0.01)
    assert _score("modularity", values, codes) == 0.5


def test_scores_are_deterministic(uniform_factors_20k):
    codes = uniform_factors_20k + 0.1 * np.random.default_rng(1).random(uniform_factors_20k.shape)
    for name in INFORMATION_METRICS:
        assert _score(name, uniform_factors_20k, codes) == _score(name, uniform_factors_20k, codes)


def test_bins_must_be_at_least_two(rng):
    values = rng.random((20, 2))
    with pytest.raises(ValueError, match="bins must be an integer >= 2"):
        _score("mig", values, values, bins=1)


def test_modularity_of_equally_informative_factors_is_not_below_0():
    # three copies of one factor, each as informative for the first code: eq. 7 gives 0 exactly, rounding gave -3.7e-17
    rng = np.random.default_rng(0)
    v = rng.normal(size=(400, 1))
    score = metrics.evaluate("modularity", np.repeat(v, 3, 1), np.c_[v, rng.normal(size=(400, 2))])["modularity"]
    assert 0.0 <= score < 1e-12
