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
