"""The Gaussian toy model's exact quantities against the closed forms of Tokui and Sato (2022).

Section 5.1, Table 1 and Appendix C (eq. 16).  The scenario computes the informations
numerically by covariance algebra (slogdet); the closed forms below are typed from the paper.
"""

from __future__ import annotations

import numpy as np
import pytest

import scenarios
from scenarios.gaussian_toy import ALPHAS, exact_information, ideal_trajectory, sample

K, SIGMA = 5, 0.1
S2 = SIGMA**2
FULL = 0.5 * np.log((1 + S2) / S2)  # I(y_k; z) of the unattacked code
ALPHA_CHECKS = (0.0, 0.3, 1.0, 2.5, 7.0)
PID_TERMS = ("unique", "redundant", "complementary", "unique_rest")


def half_log(ratio):
    return 0.5 * np.log(ratio)


def eq16(attack: str, alpha: float):
    """The four (K, 2K) / (K,) arrays of eq. 16 for U = I - (2/K) 11^T."""
    a2 = alpha**2
    code, rest = np.zeros((K, 2 * K)), np.zeros((K, 2 * K))
    for k in range(K):
        for l in range(K):
            own = k == l
            if attack == "redundancy":
                code[k, l] = FULL if own else 0.0
                loading = (1 - 2 / K) ** 2 if own else 4 / K**2
                code[k, K + l] = half_log((1 + a2 * (1 + S2)) / (1 + a2 * (1 + S2 - loading)))
                rest[k, l] = half_log((1 + a2 * (1 + S2)) / (1 + a2 * S2)) if own else FULL
                rest[k, K + l] = FULL
            else:
                code[k, l] = half_log((1 + S2 + a2) / (S2 + a2)) if own else 0.0
                code[k, K + l] = 0.0
                rest[k, l] = 0.0 if own else FULL
                loading = (1 - 2 / K) ** 2 if own else 4 / K**2
                rest[k, K + l] = half_log((1 + S2) * (1 + S2 + a2) / (S2 * (1 + S2 + a2) + a2 * loading))
    return code, rest, np.full(K, FULL)


@pytest.mark.parametrize("attack", ["redundancy", "synergy"])
@pytest.mark.parametrize("alpha", ALPHA_CHECKS)
def test_informations_match_eq16(attack, alpha):
    exact = exact_information(attack, alpha)
    code, rest, total = eq16(attack, alpha)
    np.testing.assert_allclose(exact["information_code"], code, rtol=0, atol=1e-9)
    np.testing.assert_allclose(exact["information_rest"], rest, rtol=0, atol=1e-9)
    np.testing.assert_allclose(exact["information_total"], total, rtol=0, atol=1e-9)


@pytest.mark.parametrize("alpha", ALPHA_CHECKS)
def test_table1_mig_and_unibound(alpha):
    a2 = alpha**2
    red, syn = exact_information("redundancy", alpha), exact_information("synergy", alpha)
    mig_red = half_log((1 + S2) * (1 + a2 * (1 + S2 - (1 - 2 / K) ** 2)) / (S2 * (1 + a2 * (1 + S2))))
    unibound_red = half_log((1 + S2) * (1 + a2 * S2) / (S2 * (1 + a2 * (1 + S2))))
    both_syn = half_log(1 + 1 / (a2 + S2))
    assert red["mig"] == pytest.approx(mig_red, abs=1e-9)
    assert red["unibound"] == pytest.approx(unibound_red, abs=1e-9)
    assert syn["mig"] == pytest.approx(both_syn, abs=1e-9)
    assert syn["unibound"] == pytest.approx(both_syn, abs=1e-9)
    # Table 1's "U upper bound" row equals the UniBound row; eq. 7 from the exact informations:
    for exact, expected in ((red, unibound_red), (syn, both_syn)):
        own = np.arange(K)
        code, rest, total = exact["information_code"][own, own], exact["information_rest"][own, own], exact["information_total"]
        upper = code - np.maximum(code + rest - total, 0.0)
        np.testing.assert_allclose(upper, expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("alpha", ALPHA_CHECKS)
def test_section_5_1_normalised_scores(alpha):
    """MIG = log(101 (1 + 0.65 a^2) / (1 + 1.01 a^2)) / c etc., c = log(2 pi e), for K = 5, sigma = 0.1."""
    c = np.log(2 * np.pi * np.e)
    a2 = alpha**2
    red, syn = exact_information("redundancy", alpha), exact_information("synergy", alpha)
    assert red["mig"] / red["factor_entropy"] == pytest.approx(np.log(101 * (1 + 0.65 * a2) / (1 + 1.01 * a2)) / c, abs=1e-9)
    assert red["unibound"] / red["factor_entropy"] == pytest.approx(np.log(101 * (1 + 0.01 * a2) / (1 + 1.01 * a2)) / c, abs=1e-9)
    expected_syn = np.log(1 + 1 / (a2 + 0.01)) / c
    assert syn["mig"] / syn["factor_entropy"] == pytest.approx(expected_syn, abs=1e-9)
    assert syn["unibound"] / syn["factor_entropy"] == pytest.approx(expected_syn, abs=1e-9)


def test_limits_of_table1():
    c = np.log(2 * np.pi * np.e)
    red = exact_information("redundancy", 1000.0)
    assert red["mig"] / red["factor_entropy"] == pytest.approx(np.log(65) / c, abs=1e-5)
    assert red["unibound"] == pytest.approx(0.0, abs=1e-4)
    assert exact_information("synergy", 1000.0)["unibound"] == pytest.approx(0.0, abs=1e-5)


@pytest.mark.parametrize("alpha", ALPHA_CHECKS)
def test_appendix_c_redundant_and_complementary(alpha):
    a2 = alpha**2
    red, syn = exact_information("redundancy", alpha), exact_information("synergy", alpha)
    np.testing.assert_allclose(red["redundant"], half_log((1 + a2 * (1 + S2)) / (1 + a2 * S2)), rtol=0, atol=1e-9)
    np.testing.assert_allclose(red["complementary"], 0.0, atol=1e-12)
    np.testing.assert_allclose(syn["redundant"], 0.0, atol=1e-12)
    np.testing.assert_allclose(syn["complementary"], half_log((1 + S2) * (S2 + a2) / (S2 * (1 + S2 + a2))), rtol=0, atol=1e-9)


@pytest.mark.parametrize("attack", ["redundancy", "synergy"])
@pytest.mark.parametrize("alpha", ALPHAS + (16.0,))
def test_pid_identity_and_tight_bounds(attack, alpha):
    exact = exact_information(attack, alpha)
    total = exact["information_total"]
    np.testing.assert_allclose(exact["unique"] + exact["redundant"] + exact["complementary"], total, rtol=0, atol=1e-9)
    np.testing.assert_allclose(exact["unique_rest"], 0.0, atol=1e-9)
    assert all(np.all(exact[term] >= -1e-12) for term in PID_TERMS)
    # Eq. 7 evaluated on the exact informations pins every term (lower == upper bound).
    own = np.arange(K)
    code, rest = exact["information_code"][own, own], exact["information_rest"][own, own]
    interaction = code + rest - total
    pairs = {
        "unique": (np.maximum(code - rest, 0), code - np.maximum(interaction, 0)),
        "redundant": (np.maximum(interaction, 0), np.minimum(code, rest)),
        "complementary": (np.maximum(-interaction, 0), np.minimum(code, rest) - interaction),
    }
    for term, (lower, upper) in pairs.items():
        np.testing.assert_allclose(lower, exact[term], rtol=0, atol=1e-9)
        np.testing.assert_allclose(upper, exact[term], rtol=0, atol=1e-9)


def test_samples_follow_the_model_covariance():
    alpha = 1.5
    factors, codes = sample("redundancy", alpha, 20000, np.random.default_rng(3))
    assert factors.shape == (20000, K) and codes.shape == (20000, 2 * K)
    u = np.eye(K) - 2 / K
    z_cov = (1 + S2) * np.eye(K)
    expected = np.block([[z_cov, alpha * z_cov @ u.T], [alpha * u @ z_cov, np.eye(K) + alpha**2 * u @ z_cov @ u.T]])
    np.testing.assert_allclose(np.cov(codes, rowvar=False), expected, atol=0.08)
    np.testing.assert_allclose(np.cov(factors.T, codes.T)[:K, K:], np.hstack([np.eye(K), alpha * u.T]), atol=0.05)


def test_registered_scenarios_expose_exact_values_and_ideals():
    for attack in ("redundancy", "synergy"):
        scenario = scenarios.get(f"gaussian_toy_{attack}")
        assert scenario.parameter == "alpha" and scenario.values == ALPHAS
        rep = scenario.generate(2.0, n=64, seed=5)
        again = scenario.generate(2.0, n=64, seed=5)
        np.testing.assert_array_equal(rep.codes, again.codes)
        assert rep.codes.shape == (64, 2 * K) and rep.discrete == (False,) * K
        assert rep.exact["unibound"] == exact_information(attack, 2.0)["unibound"]
        assert dict(rep.ideal) == ideal_trajectory(attack, 2.0)
    with pytest.raises(ValueError, match="alpha must be in"):
        scenarios.get("gaussian_toy_synergy").generate(-1.0, n=10, seed=0)


def test_model_arguments_are_checked():
    with pytest.raises(ValueError, match="attack must be one of"):
        exact_information("rotation", 1.0)
    with pytest.raises(ValueError, match="sigma must be a positive"):
        exact_information("synergy", 1.0, sigma=0.0)
    with pytest.raises(ValueError, match="alpha must be a finite non-negative"):
        exact_information("synergy", -2.0)
