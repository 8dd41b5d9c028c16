"""Held-out coefficient of determination of each factor regressed on all codes."""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.neighbors import KNeighborsRegressor

from metrics._linear import affine_predictions, standardized_split
from metrics._sampling import as_generator, derive_seeds, require_varying_factors, train_test_indices
from metrics.registry import register_metric
from metrics.options import check_choice, check_positive_int

REGRESSORS = ("linear", "knn", "boosting")


def _predictions(regressor: str, codes_train: np.ndarray, targets: np.ndarray, codes_test: np.ndarray, neighbors: int, seeds: list[int]) -> np.ndarray:
    """``(n_test, K)`` held-out predictions of every factor."""
    if regressor == "linear":
        return affine_predictions(codes_train, targets, codes_test)
    train, test = standardized_split(codes_train, codes_test)
    if regressor == "knn":
        return KNeighborsRegressor(n_neighbors=min(neighbors, train.shape[0])).fit(train, targets).predict(test).reshape(test.shape[0], -1)
    return np.column_stack(
        [HistGradientBoostingRegressor(random_state=seeds[k]).fit(train, targets[:, k]).predict(test) for k in range(targets.shape[1])]
    )


@register_metric(
    "r2",
    family="predictor",
    properties="explicitness",
    stochastic=True,
)
def r2(
    factors,
    codes,
    *,
    discrete=None,
    random_state=0,
    regressor: str = "linear",
    test_size: float = 0.25,
    neighbors: int = 10,
) -> float:
    """Held-out R^2 of each factor regressed on all codes, averaged over factors.

    Definition (the coefficient of determination reported by the identifiability
    literature, linear and nonlinear, e.g. von Kügelgen et al. 2021, "Self-Supervised
    Learning with Data Augmentations Provably Isolates Content from Style", NeurIPS,
    section 5).  The rows are split at random into a
    training part and a held-out part (``test_size``); for each factor ``v_k`` a
    regressor fitted on the training rows predicts ``v_k`` from the whole code, and::

        R^2 = 1/K sum_k max(0, 1 - sum_test (v_k - v_k_hat)^2 / sum_test (v_k - mean_test v_k)^2)

    The floor at 0 keeps a regressor worse than the held-out mean from dragging the
    average below the score of an uninformative code.

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Accepted for the common interface; discrete factors are regressed on as numbers.
    random_state : int or numpy.random.Generator
        Seeds the split (and the boosting regressor).
    regressor : {"linear", "knn", "boosting"}, default "linear"
        ``"linear"``: least squares with an intercept (the linear R^2);
        ``"knn"``: ``neighbors``-nearest-neighbour regression on standardised codes;
        ``"boosting"``: scikit-learn's histogram gradient boosting with its defaults
        (the nonlinear R^2 of von Kügelgen et al. uses kernel ridge regression, whose
        ``n^2`` kernel matrix is too costly here; both are universal regressors).
    test_size : float, default 0.25
        Held-out fraction.
    neighbors : int, default 10
        Neighbours of ``regressor="knn"``.

    Returns
    -------
    float
        Score in [0, 1].

    Raises
    ------
    ValueError
        For a constant factor (nothing to predict) or a bad option.

    Notes
    -----
    * Property: explicitness (how much of each factor the whole code holds, linearly
      by default); blind to modularity and compactness: any invertible linear mixing
      of the factors scores 1 with the linear regressor.
    * Invariances: permutation, sign flips and rescaling of codes (the linear fit
      absorbs them exactly; the other regressors standardise the codes); strictly
      monotone maps only approximately, with the nonlinear regressors.
    * Scores: 1 on ``z = v``; about 0 on independent codes (in-sample R^2 would be
      ``L / n``; held out it is floored at 0).
    * Cost (linear): one least-squares solve, O(n L^2).
    """
    check_choice(regressor, "regressor", REGRESSORS)
    check_positive_int(neighbors, "neighbors")
    require_varying_factors(factors, "r2")
    rng = as_generator(random_state)
    train, test = train_test_indices(factors.shape[0], test_size, rng, "r2")
    seeds = derive_seeds(rng, factors.shape[1])
    predicted = _predictions(regressor, codes[train], factors[train], codes[test], neighbors, seeds)
    residual = ((factors[test] - predicted) ** 2).sum(axis=0)
    total = ((factors[test] - factors[test].mean(axis=0)) ** 2).sum(axis=0)
    scores = 1.0 - np.divide(residual, total, out=np.ones_like(residual), where=total > 0)
    return float(np.mean(np.clip(scores, 0.0, 1.0)))
