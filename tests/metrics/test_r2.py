"""Held-out R^2 of each factor regressed on all codes."""

from __future__ import annotations

import numpy as np
import pytest

import metrics


@pytest.fixture(scope="module")
def uniform():
    rng = np.random.default_rng(7)
    return rng.random((20_000, 2)), rng.random((20_000, 2))


def test_half_explained_variance(uniform):
    factors, noise = uniform
    # z0 = v0 + e0 with Var(e0) = Var(v0): R^2 = 1/2; z1 = v1: R^2 = 1
    codes = np.column_stack([factors[:, 0] + noise[:, 0], factors[:, 1]])
    assert metrics.evaluate("r2", factors, codes)["r2"] == pytest.approx(0.75, abs=0.015)


def test_identity_mixing_and_independent_codes(uniform):
    factors, noise = uniform
    assert metrics.evaluate("r2", factors, factors)["r2"] == pytest.approx(1.0, abs=1e-12)
    assert metrics.evaluate("r2", factors, factors @ np.array([[1.0, 2.0], [-1.0, 0.5]]))["r2"] == pytest.approx(1.0, abs=1e-12)
    assert metrics.evaluate("r2", factors, noise)["r2"] < 0.005


def test_a_symmetric_square_holds_nothing_to_regress():
    factors = np.random.default_rng(3).uniform(-1, 1, (10_000, 1))
    codes = factors**2
    # v^2 loses the sign of v: the best predictor E[v | v^2] = 0, so every regressor gets R^2 = 0
    assert metrics.evaluate("r2", factors, codes)["r2"] < 0.01
    assert metrics.evaluate("r2", factors, codes, regressor="knn")["r2"] < 0.05


def test_nonlinear_regressors_invert_a_cube():
    factors = np.random.default_rng(3).uniform(-1, 1, (10_000, 1))
    cubed = factors**3
    # linear: rho^2(v, v^3) = (E v^4)^2 / (E v^2 E v^6) = (1/5)^2 / ((1/3)(1/7)) = 21/25 for v ~ U(-1, 1)
    assert metrics.evaluate("r2", factors, cubed)["r2"] == pytest.approx(21 / 25, abs=0.01)
    assert metrics.evaluate("r2", factors, cubed, regressor="knn")["r2"] > 0.99
    assert metrics.evaluate("r2", factors, cubed, regressor="boosting")["r2"] > 0.99


def test_bad_regressor_is_named(uniform):
    factors, _ = uniform
    with pytest.raises(ValueError, match="regressor"):
        metrics.evaluate("r2", factors, factors, regressor="svm")


def test_a_factor_constant_over_the_held_out_rows_is_refused_not_scored_zero():
    """z = v scored 0.5 on 5 of 6 seeds with a factor that is 1 on 2 of 100 rows: held out, it was constant, and its
    R^2, 0/0, was read as 0; at n = 5 (one held-out row) z = v scored 0."""
    rng = np.random.default_rng(0)
    factors = np.c_[rng.random(100), (np.arange(100) < 2).astype(float)]
    refused = 0
    for seed in range(6):
        try:
            score = metrics.evaluate("r2", factors, factors.copy(), random_state=seed)["r2"]
        except ValueError as error:
            assert "r2: factor 1 takes a single value in the held-out part (25 of 100 samples)" in str(error)
            refused += 1
        else:  # a 1 held out: explained (1), or not (0.5) where training saw no 1 to learn from
            assert min(abs(score - 1.0), abs(score - 0.5)) < 1e-9, score
    assert refused >= 3
    small = rng.random((5, 2))
    with pytest.raises(ValueError, match=r"factor 0 takes a single value in the held-out part \(1 of 5 samples\)"):
        metrics.evaluate("r2", small, small.copy())


@pytest.mark.parametrize(("name", "options", "message"), [
    ("r2", {"regressor": "knn", "neighbors": 600}, r"r2: neighbors \(600\) must be at most the training part's size \(38 of 50"),
    ("misjed", {"neighbors": 600}, r"misjed: neighbors \(600\) must be at most the number of samples \(50\)"),
])
def test_more_neighbours_than_samples_are_refused(name, options, message):
    """Clamped to the samples there were, every sample's neighbours were all of them: r2's k-NN predicted the mean
    (score 0), misjed's conditional mean was the codes' mean (0.96 for good codes), with no word."""
    rng = np.random.default_rng(1)
    factors = rng.random((50, 2))
    with pytest.raises(ValueError, match=message):
        metrics.evaluate(name, factors, factors + 0.01 * rng.random((50, 2)), **options)
