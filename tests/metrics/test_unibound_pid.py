"""UniBound and the PID bounds (Tokui and Sato 2022, eqs. 6-7) against exact values."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import digamma
from threadpoolctl import threadpool_limits

import metrics
import scenarios
from metrics._pid_bounds import bounds_from_information, pid_bounds

EXACT_TERM = {
    "unique_lower": "unique",
    "unique_upper": "unique",
    "redundant_lower": "redundant",
    "redundant_upper": "redundant",
    "complementary_lower": "complementary",
    "complementary_upper": "complementary",
}


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(limits=1):
        yield


def toy(attack: str, alpha: float, n: int):
    return scenarios.get(f"gaussian_toy_{attack}").generate(alpha, n=n, seed=11)


def assert_close_to_exact(scores: dict, exact: dict, tolerance: float) -> None:
    for name, term in EXACT_TERM.items():
        assert scores[name] == pytest.approx(np.mean(exact[term]), abs=tolerance), name
    assert scores["information"] == pytest.approx(np.mean(exact["information_total"]), abs=tolerance)


def test_eq7_by_hand():
    bounds = bounds_from_information(np.array([1.0]), np.array([0.4]), np.array([1.2]))  # II = 0.2
    expected = {
        "unique_lower": 0.6,
        "unique_upper": 0.8,
        "redundant_lower": 0.2,
        "redundant_upper": 0.4,
        "complementary_lower": 0.0,
        "complementary_upper": 0.2,
    }
    for name, value in expected.items():
        assert bounds[name][0] == pytest.approx(value, abs=1e-12), name
    synergy = bounds_from_information(np.array([0.1]), np.array([0.2]), np.array([1.0]))  # II = -0.7
    assert synergy["complementary_lower"][0] == pytest.approx(0.7) and synergy["complementary_upper"][0] == pytest.approx(0.8)
    assert synergy["redundant_lower"][0] == 0.0 and synergy["unique_upper"][0] == pytest.approx(0.1)


@pytest.mark.parametrize("attack", ["redundancy", "synergy"])
@pytest.mark.parametrize("alpha", [0.0, 1.0, 4.0, 8.0])
def test_gaussian_estimator_within_002_nats_of_the_exact_values(attack, alpha):
    rep = toy(attack, alpha, 20000)
    scores = metrics.evaluate("pid", rep.factors, rep.codes, estimator="gaussian", normalize="none")
    assert_close_to_exact(scores, rep.exact, 0.02)
    unibound = metrics.evaluate("unibound", rep.factors, rep.codes, estimator="gaussian", normalize="none")["unibound"]
    assert unibound == pytest.approx(rep.exact["unibound"], abs=0.02)


@pytest.mark.slow
@pytest.mark.parametrize(("attack", "alpha"), [("redundancy", 1.0), ("redundancy", 4.0), ("synergy", 1.0), ("synergy", 4.0)])
def test_knn_estimator_within_005_nats_of_the_exact_values(attack, alpha):
    rep = toy(attack, alpha, 20000)
    scores = metrics.evaluate("pid", rep.factors, rep.codes, normalize="none")  # default estimator: knn
    assert_close_to_exact(scores, rep.exact, 0.05)
    assert scores["unique_lower"] == pytest.approx(rep.exact["unibound"], abs=0.05)


def test_redundancy_fools_mig_but_not_unibound_and_synergy_fools_neither():
    """Tokui and Sato's central claim (section 5.1, Table 1), with the default options."""

    def scores(attack, alpha):
        rep = toy(attack, alpha, 4000)
        return (
            metrics.evaluate("unibound", rep.factors, rep.codes)["unibound"],
            metrics.evaluate("mig", rep.factors, rep.codes)["mig"],
        )

    unibound_clean, mig_clean = scores("redundancy", 0.0)
    assert unibound_clean > 0.95 and mig_clean > 0.6
    unibound_red, mig_red = scores("redundancy", 8.0)
    assert unibound_red / unibound_clean < 0.3  # exact ratio 0.20
    assert mig_red / mig_clean > 0.8  # exact MIG ratio 0.93 (Table 1)
    unibound_syn, mig_syn = scores("synergy", 4.0)
    assert unibound_syn / unibound_clean < 0.05 and mig_syn / mig_clean < 0.1


def test_a_copied_discrete_factor_is_pure_redundancy():
    values = np.repeat(np.arange(4.0), 250)[:, None]
    codes = np.hstack([values, values])
    each = digamma(1000) - digamma(250)  # Ross's estimate when every tie is in the same class
    bounds = pid_bounds(values, codes, (True,), estimator="knn", neighbors=3, bins=10, normalize="none").bounds
    for name, value in {"unique_lower": 0, "unique_upper": 0, "redundant_lower": each, "redundant_upper": each, "complementary_upper": 0}.items():
        assert bounds[name][0] == pytest.approx(value, abs=1e-12), name
    scores = metrics.evaluate("pid", values, codes, discrete=True, normalize="entropy")
    assert scores["redundant_lower"] == pytest.approx(each / np.log(4), abs=1e-12)
    assert metrics.evaluate("unibound", values, codes, discrete=True)["unibound"] == 0.0


def test_xor_is_pure_synergy_with_the_full_neighbour_estimator():
    bits = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 100, dtype=float)
    factor = (bits[:, 0] != bits[:, 1]).astype(float)[:, None]
    single = max(0.0, digamma(400) - digamma(200) + digamma(99) - digamma(199))  # one bit says nothing about the XOR
    both = digamma(400) - digamma(200)  # the two bits determine it
    bounds = pid_bounds(factor, bits, (True,), estimator="knn_full", neighbors=3, bins=10, normalize="none").bounds
    assert bounds["complementary_lower"][0] == pytest.approx(both - 2 * single, abs=1e-12)
    assert bounds["complementary_upper"][0] == pytest.approx(both - single, abs=1e-12)
    assert bounds["unique_upper"][0] == pytest.approx(single, abs=1e-12) and single < 0.01


def test_unibound_is_the_unique_lower_bound_of_pid_and_single_codes_are_unique():
    rng = np.random.default_rng(0)
    factors = rng.random((1500, 3))
    codes = np.column_stack([factors[:, 0] + 0.05 * rng.standard_normal(1500), factors[:, 1] + factors[:, 2], factors[:, 2]])
    for estimator in ("knn", "gaussian"):
        pid = metrics.evaluate("pid", factors, codes, estimator=estimator)
        assert metrics.evaluate("unibound", factors, codes, estimator=estimator)["unibound"] == pid["unique_lower"]
        assert all(0.0 <= value <= 1.0 for value in pid.values())
    single = metrics.evaluate("pid", factors[:, :1], codes[:, :1])
    assert single["unique_lower"] == single["information"] and single["redundant_upper"] == 0.0


def test_normalisations_relate_as_documented():
    rep = toy("redundancy", 2.0, 3000)
    raw = pid_bounds(rep.factors, rep.codes, rep.discrete, estimator="gaussian", neighbors=3, bins=10, normalize="none")
    bounded = metrics.evaluate("unibound", rep.factors, rep.codes, estimator="gaussian")["unibound"]
    entropy = metrics.evaluate("unibound", rep.factors, rep.codes, estimator="gaussian", normalize="entropy")["unibound"]
    binned = metrics.estimators.binned_entropy(rep.factors)
    lower = raw.bounds["unique_lower"]
    assert entropy == pytest.approx(np.mean(lower / binned), rel=1e-12)
    assert bounded == pytest.approx(np.mean(lower / np.maximum(binned, raw.information_total)), rel=1e-12)
    assert np.all(raw.information_total > binned)  # 2.31 nats held, > the ~1.6 nats of 10 bins


def test_options_are_checked():
    values = np.random.default_rng(1).random((100, 3))
    with pytest.raises(ValueError, match="normalize must be one of"):
        metrics.evaluate("unibound", values, values, normalize="max")
    with pytest.raises(ValueError, match="one code column only"):
        metrics.evaluate("pid", values, values, estimator="histogram")
    one_code = metrics.evaluate("pid", values[:, :1], values[:, :1], estimator="histogram", normalize="entropy")
    assert one_code["unique_lower"] == pytest.approx(1.0, abs=1e-12)  # plug-in I(v; v) = H(v), nothing else to share
    with pytest.raises(TypeError, match="unknown option"):
        metrics.evaluate("pid", values, values, k=3)


def test_registration():
    unibound, pid = metrics.get("unibound"), metrics.get("pid")
    assert unibound.properties == {"unibound": "compactness"} and unibound.higher_is_better
    assert set(pid.properties) == set(EXACT_TERM) | {"information"}
    assert pid.properties["information"] == "explicitness"
    assert dict(pid.defaults) == {"estimator": "knn", "neighbors": 3, "bins": 10, "normalize": "bounded", "code_choice": "argmax"}
    assert not pid.stochastic and not pid.needs_discrete_factors
