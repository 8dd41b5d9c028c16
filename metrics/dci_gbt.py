"""DCI with gradient-boosted classifiers, as in disentanglement_lib (Locatello et al. 2019)."""

from __future__ import annotations

import numpy as np

from metrics._dci import DCI_CONSTRAINTS, run_dci
from metrics._ranks import column_ranks
from metrics._sampling import require_varying_factors
from metrics.constraints import AT_LEAST_TWO, COUNT, POSITIVE, UNIT
from metrics.information import DEFAULT_BINS, to_labels
from metrics.registry import register_metric


def _fit_boosting(n_estimators: int, max_depth: int, learning_rate: float):
    def fit(codes_train: np.ndarray, labels: np.ndarray, codes_test: np.ndarray, seed: int):
        from sklearn.ensemble import GradientBoostingClassifier
        if np.unique(labels).size == 1:  # one class in the training part: nothing to learn, no importance
            return np.zeros(codes_train.shape[1]), np.full(codes_test.shape[0], labels[0])
        model = GradientBoostingClassifier(
            n_estimators=n_estimators, max_depth=max_depth, learning_rate=learning_rate, random_state=seed
        ).fit(codes_train, labels)
        return model.feature_importances_, model.predict(codes_test)

    return fit


def _accuracy(labels: np.ndarray, predictions: np.ndarray) -> float:
    return float(np.mean(labels == predictions))


@register_metric(
    "dci_gbt",
    family="predictor",
    properties={"modularity": "modularity", "compactness": "compactness", "explicitness": "explicitness"},
    stochastic=True,
    needs_discrete_factors=True,
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling", "monotone"),
    constraints={**DCI_CONSTRAINTS, "bins": AT_LEAST_TWO, "max_train": AT_LEAST_TWO, "n_estimators": COUNT, "max_depth": COUNT,
                 "learning_rate": POSITIVE},
    score_range=UNIT,
)
def dci_gbt(
    factors,
    codes,
    *,
    discrete=None,
    random_state=0,
    bins: int = DEFAULT_BINS,
    max_train: int = 10_000,
    test_size: float = 0.25,
    n_estimators: int = 100,
    max_depth: int = 3,
    learning_rate: float = 0.1,
    completeness_weighting: str = "importance",
    unpredicted_factors: str = "even",
    n_jobs: int = 1,
) -> dict[str, float]:
    """DCI with gradient-boosted-tree importances, the disentanglement_lib protocol.

    The variant of DCI used by disentanglement_lib (Locatello et al. 2019), registered
    so that scores can be compared with numbers published with that library.  Each
    factor is turned into class labels (continuous factors: ``bins`` equal-width
    bins; discrete ones: their categories) and a gradient-boosted classifier
    (scikit-learn ``GradientBoostingClassifier``, the library's settings by default:
    100 stages of depth-3 trees, learning rate 0.1) predicts it from the codes' ranks
    (see the notes).
    The importance ``R_jk`` is the classifier's impurity importance of code ``z_j``.
    Modularity and compactness are as in :mod:`metrics._dci`::

        modularity   = sum_j rho_j (1 - H_K(P_j.)),   compactness = sum_k w_k (1 - H_L(P_.k))
        explicitness = 1/K sum_k accuracy_k            (held-out classification accuracy)

    The training part is a random ``1 - test_size`` of the samples, capped at
    ``max_train`` (the library trains on 10000 points and tests on 5000: the defaults
    reproduce that split at n = 20000).

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Discrete factors keep their categories.
    random_state : int or numpy.random.Generator
        Seeds the split and the classifiers; scores are bit-for-bit reproducible.
    bins : int, default 10
        Bins per continuous factor.
    max_train : int, default 10000
        Most training samples used.
    test_size : float, default 0.25
        Held-out fraction.
    n_estimators, max_depth, learning_rate : default 100, 3, 0.1
        Boosting settings (scikit-learn's defaults, as in the library; no tuning).
    completeness_weighting : {"importance", "uniform"}, default "importance"
        Factor weights of compactness: each factor's share of the total importance
        (the library's choice), or equal weights.
    unpredicted_factors : {"even", "absent"}, default "even"
        How modularity and compactness read a factor no code is important for: spread
        evenly over the codes, or left out of every code's distribution (the library's
        reading, up to its ``1e-11``).  See the notes.
    n_jobs : int, default 1
        Factors fitted in parallel (joblib processes).

    Returns
    -------
    dict
        ``{"modularity", "compactness", "explicitness"}``, each in [0, 1].

    Raises
    ------
    ValueError
        For a constant factor, a bad option, or too few samples to split.

    Notes
    -----
    * Properties: modularity, compactness, explicitness respectively.
    * Explicitness is the library's raw accuracy, not rescaled: codes independent
      of the factors score the chance level, about ``1/bins`` (0.10 measured for
      uniform factors), and a perfect code loses a little at bin edges (0.999 for
      2 factors at n = 20000).
    * Codes as ranks (:mod:`metrics._ranks`): the trees only compare a code with
      thresholds, so they are given each code's ranks over all rows, exact in their
      float32, and the scores are the same, bit for bit, for any strictly increasing map
      of a code.  Version 1 min-max scaled the codes, and in float32 heavy-tailed codes
      (``sinh(2 v^3)``) kept a handful of distinct values.
    * Zero importances (:mod:`metrics._dci`): a factor whose training labels hold a
      single class gets zero importance from every code (and is predicted as that
      class); by default (``unpredicted_factors="even"``) it is spread evenly over the
      codes, since importances are normalised per classifier: a factor that no code
      predicts but whose trees split on noise spreads an importance of 1 about evenly
      over the codes, and reading the no-split case as absent would jump from that to
      nothing.  A code no classifier uses does not count in modularity; no importance at
      all gives modularity and compactness 0.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling,
      monotone.  As for :func:`metrics.dci_rf.dci_rf`: the boosted trees see only the
      codes' ranks.
    * Cost: the slowest metric of the package.  Boosting is sequential: each factor
      needs ``n_estimators x (classes)`` trees (1000 for 10 bins), so 8000 trees
      for K = 8, on up to ``max_train`` points (seconds per call: the cost table of ``metrics/README.md``).  ``n_jobs`` spreads the
      factors over cores; ``n_estimators`` and ``max_train`` trade fidelity to the
      library for speed.

    Examples
    --------
    Every sub-score of the perfect code, then of one whose first two codes mix two factors (300 samples, 3
    factors), with 10 boosting stages instead of 100 to keep the example fast:

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.dci_gbt import dci_gbt
    >>> for z in (codes, entangled):
    ...     print({sub: round(score, 2) for sub, score in dci_gbt(factors, z, n_estimators=10).items()})
    {'modularity': 0.57, 'compactness': 0.57, 'explicitness': 0.57}
    {'modularity': 0.28, 'compactness': 0.29, 'explicitness': 0.52}
    """
    require_varying_factors(factors, "dci_gbt")
    return run_dci(
        column_ranks(codes),
        to_labels(factors, discrete, bins).codes,
        _fit_boosting(n_estimators, max_depth, learning_rate),
        _accuracy,
        test_size=test_size,
        random_state=random_state,
        completeness_weighting=completeness_weighting,
        unpredicted_factors=unpredicted_factors,
        n_jobs=n_jobs,
        metric="dci_gbt",
        max_train=max_train,
    )
