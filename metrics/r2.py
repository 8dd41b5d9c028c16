"""Held-out coefficient of determination of each factor regressed on all codes."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from metrics._linear import affine_predictions, standardized_split
from metrics._ranks import column_ranks
from metrics._sampling import as_generator, derive_seeds, require_varying_factors, train_test_indices
from metrics.constraints import COUNT, FRACTION, UNIT, Options
from metrics.registry import register_metric

REGRESSORS = ("linear", "knn", "boosting")


def _predictions(regressor: str, codes: np.ndarray, split: tuple[np.ndarray, np.ndarray], targets: np.ndarray, neighbors: int, seeds: list[int]) -> np.ndarray:
    """``(n_test, K)`` held-out predictions of every factor (``targets``: the training rows' factors)."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.neighbors import KNeighborsRegressor
    train, test = split
    if regressor == "linear":
        return affine_predictions(codes[train], targets, codes[test])
    if regressor == "knn":
        inputs, held_out = standardized_split(codes[train], codes[test])
        if neighbors > train.size:  # clamped before: every prediction the training mean, scored 0 with no word
            raise ValueError(f"r2: neighbors ({neighbors}) must be at most the training part's size ({train.size} of "
                             f"{train.size + test.size} samples)")
        return KNeighborsRegressor(n_neighbors=neighbors).fit(inputs, targets).predict(held_out).reshape(test.size, -1)
    ranked = column_ranks(codes)  # the trees split on order: the codes' ranks, exact in their float32 (metrics._ranks)
    # one OpenMP thread: the boosting's threads spin while they wait, and on a busy machine one fit of 7500 rows took
    # 65 CPU-s with every core's thread against 0.2 with one (load 4 on 2 cores; the same bits either way)
    with threadpool_limits(limits=1, user_api="openmp"):
        return np.column_stack(
            [HistGradientBoostingRegressor(random_state=seeds[k]).fit(ranked[train], targets[:, k]).predict(ranked[test])
             for k in range(targets.shape[1])]
        )


@register_metric(
    "r2",
    family="predictor",
    properties="explicitness",
    stochastic=True,
    version="3",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={"regressor": Options(*REGRESSORS), "test_size": FRACTION, "neighbors": COUNT},
    score_range=UNIT,
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
        ``"boosting"``: scikit-learn's histogram gradient boosting with its defaults,
        on the codes' ranks (its trees split on order; see :mod:`metrics._ranks`).  The
        nonlinear R^2 of von Kügelgen et al. uses kernel ridge regression, whose ``n^2``
        kernel matrix is too costly here; both are universal regressors.
    test_size : float, default 0.25
        Held-out fraction.
    neighbors : int, default 10
        Neighbours of ``regressor="knn"``, at most the training part's size (a ValueError otherwise).

    Returns
    -------
    float
        Score in [0, 1].

    Raises
    ------
    ValueError
        For a constant factor (nothing to predict), a factor constant over the held-out rows (its R^2 is 0/0: a rare
        category at small ``n``; one held-out row at ``n <= 5``), or a bad option.

    Notes
    -----
    * Property: explicitness (how much of each factor the whole code holds, linearly
      by default); blind to modularity and compactness: any invertible linear mixing
      of the factors scores 1 with the linear regressor.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      The linear fit absorbs a code's scale and sign exactly, the k-NN regressor
      standardises the codes and the boosting is given their ranks
      (:mod:`metrics._ranks`); permuting the samples changes the random split (in
      distribution).  Strictly monotone maps leave the boosting's score unchanged, bit
      for bit, but not the default linear one, so the registry does not claim them.
    * Scores: 1 on ``z = v``; about 0 on independent codes (in-sample R^2 would be
      ``L / n``; held out it is floored at 0).
    * Cost (linear): one least-squares solve, O(n L^2).

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.r2 import r2
    >>> round(r2(factors, codes), 2), round(r2(factors, entangled), 2)
    (0.97, 0.97)
    """
    require_varying_factors(factors, "r2")
    rng = as_generator(random_state)
    train, test = train_test_indices(factors.shape[0], test_size, rng, "r2")
    seeds = derive_seeds(rng, factors.shape[1])
    predicted = _predictions(regressor, codes, (train, test), factors[train], neighbors, seeds)
    residual = ((factors[test] - predicted) ** 2).sum(axis=0)
    total = ((factors[test] - factors[test].mean(axis=0)) ** 2).sum(axis=0)
    constant = np.flatnonzero(total == 0)
    if constant.size:  # 0/0: scored 0 before, so that z = v scored 0.5 with a rare binary factor
        raise ValueError(f"r2: factor {int(constant[0])} takes a single value in the held-out part ({len(test)} of "
                         f"{factors.shape[0]} samples), so its R^2 is undefined; give more samples or a larger test_size")
    scores = 1.0 - residual / total
    return float(np.mean(np.clip(scores, 0.0, 1.0)))
