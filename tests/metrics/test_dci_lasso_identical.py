"""DCI-lasso's cross-validation without scikit-learn's repeated input checks gives LassoCV's fits, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LassoCV
from sklearn.model_selection import KFold

import metrics
import scenarios
from metrics import dci_lasso as module


@pytest.mark.parametrize("seed", range(4))
def test_the_fits_are_lasso_cvs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    codes = rng.normal(size=(300 + 50 * seed, 6))
    target = codes[:, 0] - 0.5 * codes[:, 3] + rng.normal(scale=0.5 + seed, size=codes.shape[0])
    alphas = np.geomspace(1.0, 1e-3, 20)
    ours = module._cross_validated(codes, target, alphas, KFold(5, shuffle=True, random_state=seed))
    theirs = LassoCV(alphas=alphas, cv=KFold(5, shuffle=True, random_state=seed), max_iter=module._MAX_ITER, selection="cyclic",
                     precompute=True).fit(codes, target)
    assert ours.alpha_ == theirs.alpha_
    np.testing.assert_array_equal(ours.coef_, theirs.coef_)
    np.testing.assert_array_equal(ours.mse_path_, theirs.mse_path_)
    np.testing.assert_array_equal(ours.predict(codes), theirs.predict(codes))


@pytest.mark.parametrize("options", [{}, {"selection_rows": "all", "alpha_grid": "review"}])  # both callers of the fits
@pytest.mark.parametrize(("scenario", "value"), [("noise", 0.4), ("mixing", 0.5), ("nonlinear", 1.0)])
def test_the_scores_are_those_of_lasso_cv(monkeypatch, scenario: str, value: float, options: dict) -> None:
    data = scenarios.get(scenario).generate(value, n=600, seed=3)
    ours = metrics.evaluate("dci_lasso", data.factors, data.codes, random_state=2, **options)
    monkeypatch.setattr(module, "_lasso_cv", lambda: LassoCV)
    assert metrics.evaluate("dci_lasso", data.factors, data.codes, random_state=2, **options) == ours
