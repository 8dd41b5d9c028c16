"""Attribute Predictability Score (Kumar et al. 2018; Zaidi et al. 2022, section 4.3.3, eq. 1)."""

from __future__ import annotations

import warnings

import numpy as np

from metrics._ranks import column_ranks
from metrics._sampling import as_generator, derive_seeds, require_varying_factors, train_test_indices
from metrics.constraints import AT_LEAST_TWO, FLAG, FRACTION, NON_NEGATIVE, UNIT, Options
from metrics.gap import best_and_second
from metrics.information import encode_categories
from metrics.registry import register_metric


def _squared_correlations(factors: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``(K, L)`` R^2 of the least-squares line predicting each factor from each single code.

    For one regressor with an intercept, R^2 is the squared Pearson correlation.  A
    constant code explains nothing: 0.
    """
    centered_factors = factors - factors.mean(axis=0)
    centered_codes = codes - codes.mean(axis=0)
    factor_norms = np.sqrt((centered_factors**2).sum(axis=0))
    code_norms = np.sqrt((centered_codes**2).sum(axis=0))
    products = centered_factors.T @ centered_codes
    denominator = factor_norms[:, None] * code_norms[None, :]
    correlation = np.divide(products, denominator, out=np.zeros_like(products), where=denominator > 0)
    return np.clip(correlation**2, 0.0, 1.0)


def _balanced_accuracies(
    codes: np.ndarray,
    labels: np.ndarray,
    split: tuple[np.ndarray, np.ndarray],
    max_leaves: int,
    adjusted: bool,
    seeds: list[int],
) -> np.ndarray:
    """``(L,)`` held-out balanced accuracy of a decision tree on each single code."""
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.tree import DecisionTreeClassifier
    train, test = split
    scores = np.empty(codes.shape[1])
    with warnings.catch_warnings():
        # A class absent from the held-out part but predicted there is harmless here.
        warnings.filterwarnings("ignore", message="y_pred contains classes not in y_true")
        for j in range(codes.shape[1]):
            tree = DecisionTreeClassifier(max_leaf_nodes=max_leaves, random_state=seeds[j])
            tree.fit(codes[train, j : j + 1], labels[train])
            scores[j] = balanced_accuracy_score(labels[test], tree.predict(codes[test, j : j + 1]), adjusted=adjusted)
    return scores


@register_metric(
    "sap",
    family="predictor",
    properties="holistic",
    stochastic=True,
    version="3",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={"max_leaves": (Options("auto"), AT_LEAST_TWO), "test_size": FRACTION, "chance_adjusted": FLAG,
                 "dead_code_variance": NON_NEGATIVE},
    score_range=UNIT,
)
def sap(
    factors,
    codes,
    *,
    discrete=None,
    random_state=0,
    max_leaves: int | str = "auto",
    test_size: float = 0.25,
    chance_adjusted: bool = False,
    dead_code_variance: float = 0.0,
) -> float:
    """SAP: per factor, the gap between the two codes that predict it best on their own.

    Definition (Kumar et al. 2018; review 4.3.3, eq. 1).  A score ``S_kj`` is given to
    every factor ``v_k`` and code ``z_j``:

    * continuous factor: the R^2 of the least-squares line predicting ``v_k`` from
      ``z_j`` alone, i.e. the squared Pearson correlation, computed on all samples
      (one slope and one intercept cannot overfit);
    * discrete factor: the balanced accuracy, on a held-out part (``test_size``), of
      a small decision tree classifying ``v_k`` from ``z_j`` alone.

    Codes whose variance is at most ``dead_code_variance`` get ``S_kj = 0``.  Then::

        SAP = 1/K sum_k ( S_k* - S_ko )

    with ``S_k*`` and ``S_ko`` the largest and second-largest scores of factor ``v_k``
    (with a single code, ``S_ko = 0``).

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Which factors are categorical (classified); the others are regressed.
    random_state : int or numpy.random.Generator
        Seeds the split and the trees (used only when some factor is discrete).
    max_leaves : int or "auto", default "auto"
        Leaves of each decision tree; ``"auto"`` allows two per class of the factor,
        enough to carve a 1-D code into the class's intervals (a depth limit is not:
        greedy Gini splits need depth 6 for 10 evenly spaced classes).
    test_size : float, default 0.25
        Held-out fraction for the discrete factors.
    chance_adjusted : bool, default False
        Rescale each balanced accuracy so that chance (``1/C`` for ``C`` classes)
        is 0 (scikit-learn's ``adjusted=True``).  The paper uses the raw balanced
        accuracy, whose uninformative runner-up sits at ``1/C``: a perfect code of a
        discrete factor then scores at most ``1 - 1/C`` (0.9 for 10 classes, while
        a continuous factor reaches 1).
    dead_code_variance : float, default 0
        Variance at or below which a code is dead (its scores are 0).

    Returns
    -------
    float
        Score in [0, 1] (continuous factors; up to ``1 - 1/C`` for discrete ones
        unless ``chance_adjusted``).

    Raises
    ------
    ValueError
        For a constant factor or a bad option.

    Notes
    -----
    * Property: holistic (compactness and explicitness in one score), as the review
      counts it: its section 4.3.3 reads a low gap as low explicitness when both
      scores are low and low compactness when both are high, and its Table 2 credits
      SAP with both properties and finds robustness to noise not to apply to it, as
      to the other explicitness metrics.  The measurements agree: under noise SAP
      follows the explicitness ideal ``1 - alpha`` (Spearman 1.00, slope 1.14 in the
      default study), and on codes spread over 2 or 4 copies it drops as
      compactness does (review 5.4, Table 1).  Its text also files SAP with the
      compactness metrics ("SAP and MIG which measure compactness", 5.4); a
      compactness-only registration judged SAP's fall under noise as a lack of
      robustness and left its explicitness unmeasured.  As every holistic score,
      it is judged against the ideal of each property (modularity included, which
      the review does not credit it with).
    * Known failure modes (review 5.3, 5.4, 5.5, Table 1): the gap only sees the two
      best codes, so a factor copied into 2 or 4 codes scores 0 either way; the
      linear R^2 misses nonlinear relations (cos/sin codes of an angle in
      [0, 2 pi): only ``sin`` correlates, ``R^2 = 2 / (pi^2 / 3) = 0.61``, the
      published 0.6); it is not robust to noise (R^2 falls with it).
    * Scores: 1 on ``z = v`` (continuous), about 0 on codes independent of the
      factors (R^2 of order 1/n).
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      A continuous factor's score is a squared correlation, which a code's scale and
      sign leave unchanged; a discrete factor's trees are given the codes' ranks
      (:mod:`metrics._ranks`), the same for any strictly increasing map, so with
      discrete factors only the score is monotone-invariant too.  Not monotone in
      general: the R^2 of a continuous factor follows a code's units.
    * Cost: one ``K x L`` correlation product for continuous factors; ``L`` small
      trees per discrete factor; seconds per call: the cost table of ``metrics/README.md``.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.sap import sap
    >>> round(sap(factors, codes), 2), round(sap(factors, entangled), 2)
    (0.96, 0.37)
    """
    require_varying_factors(factors, "sap")
    flags = np.zeros(factors.shape[1], bool) if discrete is None else np.asarray(discrete, bool)
    scores = np.zeros((factors.shape[1], codes.shape[1]))
    continuous = np.flatnonzero(~flags)
    if continuous.size:
        scores[continuous] = _squared_correlations(factors[:, continuous], codes)
    if flags.any():
        rng = as_generator(random_state)
        split = train_test_indices(factors.shape[0], test_size, rng, "sap")
        ranked = column_ranks(codes)  # what a tree can use of a code: its order (metrics._ranks)
        for k in np.flatnonzero(flags):
            categories = encode_categories(factors[:, k : k + 1])
            leaves = 2 * int(categories.n_bins[0]) if max_leaves == "auto" else int(max_leaves)
            seeds = derive_seeds(rng, codes.shape[1])
            scores[k] = _balanced_accuracies(ranked, categories.codes[:, 0], split, leaves, bool(chance_adjusted), seeds)
    scores[:, codes.var(axis=0) <= dead_code_variance] = 0.0
    best, _, second = best_and_second(scores, axis=1)
    return float(np.mean(best - second))
