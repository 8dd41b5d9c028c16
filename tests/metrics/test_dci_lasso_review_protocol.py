"""DCI lasso with the review's model selection (Zaidi et al. 2022, 4.3.1; their public dci.py)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import Lasso
from sklearn.model_selection import cross_val_score
from threadpoolctl import threadpool_limits

import metrics
import scenarios
from metrics._dci import disentanglement, unit_range
from metrics._sampling import as_generator, train_test_indices
from metrics.dci_lasso import _MAX_ITER, REVIEW_ALPHAS, _penalties_on_all_rows

REVIEW = {"alpha_grid": "review", "selection_rows": "all", "folds": 10, "penalty_selection": "min"}


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(limits=1):
        yield


def reviews_penalty(codes: np.ndarray, target: np.ndarray) -> float:
    """The review's selection, written as its code does it: one lasso per grid value,
    mean squared error of cross_val_score(cv=10) on all rows, the first smallest wins."""
    errors = [-cross_val_score(Lasso(alpha=a, max_iter=5000), codes, target, cv=10, scoring="neg_mean_squared_error").mean()
              for a in REVIEW_ALPHAS]
    return REVIEW_ALPHAS[int(np.argmin(errors))]


@pytest.fixture(scope="module")
def noisy():
    with threadpool_limits(limits=1):
        out = {}
        for alpha in (0.4, 0.8):
            representation = scenarios.get("noise").generate(alpha, n=4000, seed=0)
            codes, targets = unit_range(representation.codes), unit_range(representation.factors)
            out[alpha] = (representation, codes, targets, _penalties_on_all_rows(codes, targets, "review", 20, 1e-4, 10, "min"))
        return out


@pytest.mark.parametrize("alpha", [0.4, 0.8])
def test_the_option_chooses_the_reviews_penalty_for_every_factor(noisy, alpha):
    _, codes, targets, chosen = noisy[alpha]
    assert chosen == [reviews_penalty(codes, targets[:, k]) for k in range(targets.shape[1])]


def test_on_noisy_codes_modularity_hinges_on_the_chosen_penalty(noisy):
    # the review's behaviour: the smallest grid values are within cross-validation noise
    # of each other, so some factors get 1e-4 and others 1e-3, and the two give
    # visibly different modularity (a lasso at 1e-4 keeps small weights on other codes)
    assert {1e-4, 1e-3} == set(noisy[0.4][3]) and set(noisy[0.8][3]) <= {1e-4, 1e-3}
    for alpha, least_jump in ((0.4, 0.03), (0.8, 0.2)):
        _, codes, targets, _ = noisy[alpha]
        d = {a: disentanglement(np.abs(np.column_stack([Lasso(alpha=a, max_iter=10_000).fit(codes, t).coef_ for t in targets.T])))
             for a in (1e-4, 1e-3)}
        assert d[1e-3] - d[1e-4] > least_jump, (alpha, d)


def test_scores_come_from_lassos_at_the_chosen_penalties_on_the_training_part(noisy):
    representation, codes, targets, chosen = noisy[0.8]
    scores = metrics.evaluate("dci_lasso", representation.factors, representation.codes, random_state=5, **REVIEW)
    train, _ = train_test_indices(codes.shape[0], 0.25, as_generator(5), "dci_lasso")
    importance = np.abs(np.column_stack([
        Lasso(alpha=a, max_iter=_MAX_ITER, precompute=True).fit(codes[train], targets[train, k]).coef_ for k, a in enumerate(chosen)
    ]))
    assert scores["modularity"] == pytest.approx(disentanglement(importance), abs=1e-12)
    default = metrics.evaluate("dci_lasso", representation.factors, representation.codes, random_state=5)
    assert default != scores


def test_options_are_checked_and_registered():
    values = np.random.default_rng(1).random((100, 2))
    with pytest.raises(ValueError, match="alpha_grid must be one of"):
        metrics.evaluate("dci_lasso", values, values, alpha_grid="fixed")
    with pytest.raises(ValueError, match="selection_rows must be one of"):
        metrics.evaluate("dci_lasso", values, values, selection_rows="test")
    with pytest.raises(ValueError, match="penalty_selection must be one of"):
        metrics.evaluate("dci_lasso", values, values, penalty_selection="1se")
    defaults = metrics.get("dci_lasso").defaults
    assert defaults["alpha_grid"] == "path" and defaults["selection_rows"] == "train"
    assert defaults["penalty_selection"] == "one_se"
