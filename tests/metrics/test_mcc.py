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


def test_bad_options_are_named(rng):
    values = rng.random((50, 2))
    with pytest.raises(ValueError, match="correlation"):
        metrics.evaluate("mcc", values, values, correlation="kendall")
    with pytest.raises(ValueError, match="alignment"):
        metrics.evaluate("mcc", values, values, alignment="procrustes")
