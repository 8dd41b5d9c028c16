"""DCI-lasso's choice of penalty: the one-standard-error rule (version 4) against the least cross-validated error."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import scenarios
from metrics.dci_lasso import chosen_penalty, dci_lasso


def _search(errors: list[list[float]], alphas: list[float]) -> SimpleNamespace:
    """A fitted search as ``LassoCV`` leaves it: errors per penalty and fold, penalties largest first."""
    mse = np.array(errors)
    return SimpleNamespace(mse_path_=mse, alphas_=np.array(alphas), alpha_=alphas[int(np.argmin(mse.mean(axis=1)))])


def test_one_se_takes_the_largest_penalty_within_one_standard_error_of_the_least_error():
    # mean errors 1.3, 1.05, 1.0; the least one's folds 0.9 and 1.1: sd 0.1414, standard error 0.1
    search = _search([[1.2, 1.4], [1.0, 1.1], [0.9, 1.1]], [1.0, 0.1, 0.01])
    assert chosen_penalty(search, "min") == 0.01
    assert chosen_penalty(search, "one_se") == 0.1  # 1.05 <= 1.0 + 0.1 < 1.3
    tight = _search([[1.2, 1.4], [1.0, 1.1], [0.99, 1.01]], [1.0, 0.1, 0.01])  # standard error 0.01
    assert chosen_penalty(tight, "one_se") == 0.01


def test_the_largest_penalty_wins_wherever_the_grid_lists_it():
    search = _search([[0.9, 1.1], [1.0, 1.02], [1.5, 1.5]], [0.01, 0.5, 0.1])  # within 1.0 + 0.1: 0.01 and 0.5
    assert chosen_penalty(search, "one_se") == 0.5
    assert chosen_penalty(search, "min") == 0.01


def _scores(scenario: str, value: float, n: int, rule: str, seeds=(0, 1)) -> np.ndarray:
    rows = []
    for seed in seeds:
        draw = scenarios.get(scenario).generate(value, n=n, seed=seed)
        scores = dci_lasso(draw.factors, draw.codes, random_state=seed, penalty_selection=rule)
        rows.append([scores["modularity"], scores["compactness"], scores["explicitness"]])
    return np.array(rows)


def test_noise_no_longer_leaves_small_weights_on_other_codes():
    """On the noise scenario at alpha = 0.6 (n = 1000) the least-error penalty keeps small weights on codes of other
    factors (modularity 0.89 over 4 seeds, where each code holds one factor: ideal 1); the one-standard-error penalty,
    within the cross-validation's own noise of it, zeroes them (1.00) and predicts as well (explicitness 0.28 against
    0.30)."""
    least, one_se = _scores("noise", 0.6, 1000, "min"), _scores("noise", 0.6, 1000, "one_se")
    assert least[:, 0].mean() < 0.95
    assert one_se[:, 0].min() > 0.98 and one_se[:, 1].min() > 0.98
    assert one_se[:, 2].mean() == pytest.approx(least[:, 2].mean(), abs=0.03)


def test_codes_independent_of_the_factors_score_near_zero():
    """On null Gaussian codes at n = 100 the least-error penalty leaves isolated weights (modularity 0.18 over 4
    seeds); with the one-standard-error penalty every weight goes and the factors spread evenly: 0."""
    assert _scores("null_gaussian", 1.0, 100, "min")[:, 0].max() > 0.05
    assert _scores("null_gaussian", 1.0, 100, "one_se")[:, 0].max() < 0.02


def test_a_factor_fitted_at_the_top_of_the_path_has_no_weight_whatever_the_solver_rounds():
    """At the grid's largest penalty, alpha_max of the training rows, the exact minimiser has every weight 0; the
    coordinate descent, exactly at that threshold, left 3e-17 on one code with some CPUs' BLAS kernels (modularity
    0.10 on null codes, seed 0, instead of 0).  A factor whose chosen penalty is the top one gets zero weights and
    the training mean as its prediction, what scikit-learn predicts with zero weights."""
    from sklearn.linear_model import Lasso
    from sklearn.model_selection import KFold

    from metrics.dci_lasso import _cross_validated, _fit_selecting_on_train, _path_grid

    draw = scenarios.get("null_gaussian").generate(1.0, n=100, seed=0)
    scaled = (draw.codes - draw.codes.min(axis=0)) / np.ptp(draw.codes, axis=0)  # min-max, as the metric scales
    factor = draw.factors[:, 3]
    rows = np.random.default_rng(1).permutation(100)  # rows whose tie the Haswell and Zen kernels break (3e-17 weight)
    codes, target, held_out = scaled[rows[:75]], (factor[rows[:75]] - factor.min()) / np.ptp(factor), scaled[rows[75:]]
    alphas = _path_grid(codes, target, 20, 1e-4)
    assert chosen_penalty(_cross_validated(codes, target, alphas, KFold(5, shuffle=True, random_state=0)), "one_se") == alphas[0]
    solver = Lasso(alpha=alphas[0], max_iter=1_000_000, precompute=True).fit(codes, target)
    assert np.abs(solver.coef_).max() < 1e-12  # zero, or a rounding error away from it
    coef, predictions = _fit_selecting_on_train("path", 20, 1e-4, 5, "one_se")(codes, target, held_out, 0)
    assert np.array_equal(coef, np.zeros(codes.shape[1]))
    assert np.array_equal(predictions, np.full(len(held_out), np.mean(target)))
    np.testing.assert_allclose(predictions, solver.predict(held_out), rtol=0, atol=1e-12)
