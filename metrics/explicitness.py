"""The Explicitness score (Ridgeway and Mozer 2018; Zaidi et al. 2022, section 4.3.2)."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from metrics._dci import unit_range
from metrics._logistic import fit_binary_logistic, logistic_probabilities
from metrics._sampling import as_generator, require_varying_factors, train_test_indices
from metrics.constraints import AT_LEAST_TWO, FRACTION, POSITIVE, UNIT, Options
from metrics.information import DEFAULT_BINS, to_labels
from metrics.registry import register_metric

CLASSIFIERS = ("one_vs_rest", "multinomial")
SCALINGS = ("standard", "minmax")


def _scaled(codes: np.ndarray, scaling: str) -> np.ndarray:
    """Codes standardised (zero mean, unit variance) or min-max scaled to [0, 1]; a constant code becomes 0."""
    from sklearn.preprocessing import StandardScaler
    return unit_range(codes) if scaling == "minmax" else StandardScaler().fit_transform(codes)


def _balanced_weights(members: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Sample weights ``n / (C n_c)`` of scikit-learn's ``class_weight="balanced"``.

    ``members`` holds each sample's class index, ``counts`` the ``C`` class sizes; the
    arithmetic is scikit-learn's, so a fit with these weights is the same fit, without
    scikit-learn recounting the classes at every call.
    """
    counts = counts.astype(np.float64)
    return (counts.sum() / (counts.size * counts))[members]


def _rank_auc(positives: np.ndarray, scores: np.ndarray) -> float:
    """ROC AUC as the Mann-Whitney statistic: the chance that a positive outscores a negative, ties counting 1/2.

    Equal to the area under the ROC curve (``sklearn.metrics.roc_auc_score``), from one
    ranking: ``(sum of the positives' mid-ranks - n_+ (n_+ + 1) / 2) / (n_+ n_-)``.
    """
    from scipy.stats import rankdata
    n_positive = int(positives.sum())
    n_negative = positives.size - n_positive
    rank_sum = float(rankdata(scores)[positives].sum())
    return (rank_sum - n_positive * (n_positive + 1) / 2) / (n_positive * n_negative)


def _class_scores(
    codes_train: np.ndarray, labels: np.ndarray, codes_test: np.ndarray, classes: np.ndarray, classifier: str, strength: float
) -> np.ndarray:
    """``(n_test, len(classes))`` scores of each class on the held-out codes.

    One-vs-rest: the binary fits of every class are solved together by Newton's method
    (:func:`metrics._logistic.fit_binary_logistic`, scikit-learn's objective); the softmax
    fit uses scikit-learn's L-BFGS, multinomial in every scikit-learn version.  Classes are
    balanced by sample weights (see :func:`_balanced_weights`).
    """
    members = np.searchsorted(classes, labels)
    counts = np.bincount(members, minlength=classes.size)
    if classifier == "multinomial":
        from sklearn.linear_model import LogisticRegression
        model = LogisticRegression(C=strength, solver="lbfgs", max_iter=1000)
        return model.fit(codes_train, labels, sample_weight=_balanced_weights(members, counts)).predict_proba(codes_test)
    in_class = members[:, np.newaxis] == np.arange(classes.size)
    # class c against the rest, balanced as _balanced_weights balances two classes: n / (2 n_c) for its members,
    # n / (2 (n - n_c)) for the others
    weights = np.where(in_class, labels.size / (2.0 * counts), labels.size / (2.0 * (labels.size - counts)))
    coefficients = fit_binary_logistic(codes_train, in_class.astype(np.float64), weights, strength)
    probabilities = logistic_probabilities(codes_test, coefficients)
    return probabilities / probabilities.sum(axis=1, keepdims=True)


@register_metric(
    "explicitness",
    family="predictor",
    properties="explicitness",
    stochastic=True,
    needs_discrete_factors=True,
    version="3",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={"bins": AT_LEAST_TWO, "test_size": FRACTION, "classifier": Options(*CLASSIFIERS), "C": POSITIVE,
                 "scaling": Options(*SCALINGS)},
    score_range=UNIT,
)
def explicitness(
    factors,
    codes,
    *,
    discrete=None,
    random_state=0,
    bins: int = DEFAULT_BINS,
    test_size: float = 0.25,
    classifier: str = "one_vs_rest",
    C: float = 1.0,
    scaling: str = "standard",
) -> float:
    """Explicitness score: how well a linear classifier on the whole code recovers each factor's class.

    Definition (Ridgeway and Mozer 2018; review 4.3.2).  Each factor is turned into
    classes (continuous factors: ``bins`` equal-width bins; discrete ones: their
    categories).  Codes are standardised (see ``scaling``) and split at random into
    a training and a held-out part (``test_size``).  For each factor, one-vs-rest logistic regressions
    with class-balanced weights are trained on the whole code, one per class ``c``;
    on the held-out part, the score of class ``c`` is its probability normalised over
    the classes, ``p_c / sum_c' p_c'`` (how one-vs-rest probabilities are read as a
    multi-class prediction), and ``AUC_kc`` is the ROC AUC of that score for "class
    ``c`` against the rest".  The score is the mean AUC over all classes of all
    factors, rescaled so that 0.5 (chance) maps to 0 and 1 to 1::

        explicitness = max(0, 2 * mean_{k, c} AUC_kc - 1)

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Discrete factors keep their categories.
    random_state : int or numpy.random.Generator
        Seeds the split; the score is bit-for-bit reproducible given it.
    bins : int, default 10
        Bins per continuous factor (review 5.2).
    test_size : float, default 0.25
        Held-out fraction.
    classifier : {"one_vs_rest", "multinomial"}, default "one_vs_rest"
        ``"one_vs_rest"`` is the paper's.  ``"multinomial"`` fits one softmax
        logistic regression per factor and uses its class probabilities: each
        class then wins on an interval of a code, which lifts the ceiling on a
        perfect code from about 0.93 to 1.00 (measured at n = 20000), at a similar
        cost.
    C : float, default 1.0
        Inverse L2 regularisation strength of the logistic regressions.
    scaling : {"standard", "minmax"}, default "standard"
        How codes are put on a common scale before the fits: standardised (zero
        mean, unit variance), or min-max scaled to [0, 1] as the review's public code
        does (``explicitness.py``: ``minmax_scale``).  See the notes.

    Returns
    -------
    float
        Score in [0, 1].

    Raises
    ------
    ValueError
        For a constant factor, a factor with one class in the training part, or no
        class scorable on the held-out part.

    Notes
    -----
    * Property: explicitness (review Table 2).
    * Ceiling below 1 on a perfect code (review 5.2).  An interior bin of a factor
      is an interval of its code: no single linear score separates it from the bins
      on both sides.  Each binary classifier's own score is monotonic in the code,
      so its AUC for interior bin ``b`` of 10 is only ``max(b, 9 - b) / 9``
      (mean rescaled score 0.56); the normalisation over classes recovers most of
      the rest, but not all: 0.93 measured on ``z = v`` at n = 20000 (the review
      reports about 0.94).  Angles coded as cos/sin reach 1: a sector of the circle
      is cut off by a line.
    * Classes absent from the training part cannot be scored, and neither can
      classes with no member (or only members) in the held-out part; they are left
      out of the mean.  This makes the score unstable with few samples per class
      (review 5.7).
    * Scaling and the penalty.  Both scalings are affine per code, and the
      intercept is not penalised, so min-max scaling is standardisation followed by
      a factor ``s_j / range_j`` on code ``j``; with a common factor ``a`` it is the
      same as standardising with ``C a^2`` instead of ``C``.  The review's ``C = 1``
      on min-max scaled codes therefore penalises codes with long tails (a large
      range for their spread) much more: on the tan map of review 5.5 at
      ``alpha = 1`` (n = 20000, 3 draws) the score is 0.66 standardised and 0.51
      min-max scaled; on its nearly linear ``alpha = 0`` end, 0.925 and 0.93.  The
      default keeps the score independent of how a code's tails happen to stretch
      its range.
    * Scores: about 0 on codes independent of the factors (0.002 measured).
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      The logistic regressions see standardised (or min-max scaled) codes: the same
      inputs for a rescaled code, negated ones (and weights) for a negated code;
      permuting the codes reorders the same fit; permuting the samples changes the
      random split (in distribution).  Not monotone: a linear classifier follows a
      code's units.
    * Cost: ``K x classes`` logistic regressions (``L + 1`` unknowns) on the
      training part and as many AUCs.  A factor's one-vs-rest fits are solved
      together by Newton's method (:mod:`metrics._logistic`: one matrix product for
      all their gradients, another for their Hessians from the codes' pairwise
      products formed once, a batched solve; version 3, whose Hessians sum in
      another order than version 2's: the same minimisers to rounding), with the
      balanced class weights as sample weights, and each AUC comes from one ranking
      (:func:`_rank_auc`).  The fits reach scikit-learn's minimisers (its
      ``LogisticRegression(class_weight="balanced")`` run to a tight tolerance gives
      the same scores to rounding); at scikit-learn's default tolerance (``tol =
      1e-4``), which stops its fits short, the scores differ by at most 1e-3 (2.1e-4
      measured over 324 inputs: noise, mixing, the tan map and rotations, 5 to 40
      bins, ``C`` 0.1 to 10).  About 5 times faster than one scikit-learn fit at a
      time at n = 1000, 10 x 10 (``tests/benchmarks/test_bench_explicitness.py``;
      seconds per call: the cost table of ``metrics/README.md``).

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.explicitness import explicitness
    >>> round(explicitness(factors, codes), 2), round(explicitness(factors, entangled), 2)
    (0.76, 0.76)
    """
    from sklearn import config_context
    require_varying_factors(factors, "explicitness")
    rng = as_generator(random_state)
    labels = to_labels(factors, discrete, bins).codes
    scaled = _scaled(codes, scaling)
    train, test = train_test_indices(labels.shape[0], test_size, rng, "explicitness")
    codes_train, codes_test = scaled[train], scaled[test]
    aucs: list[float] = []
    # the options are checked above and the codes are finite (validated at the entry): scikit-learn need not check
    # them again at each of the K x classes fits
    with threadpool_limits(limits=1, user_api="blas"), config_context(assume_finite=True, skip_parameter_validation=True):
        for k in range(labels.shape[1]):
            classes = np.unique(labels[train, k])
            if classes.size < 2:
                raise ValueError(
                    f"explicitness: factor {k} takes a single class in the training split; "
                    "use more samples, fewer bins or a smaller test_size"
                )
            scores = _class_scores(codes_train, labels[train, k], codes_test, classes, classifier, float(C))
            for column, c in enumerate(classes):
                positives = labels[test, k] == c
                if 0 < positives.sum() < positives.size:
                    aucs.append(_rank_auc(positives, scores[:, column]))
    if not aucs:
        raise ValueError("explicitness: no class has both members and non-members in the held-out split; use more samples")
    return max(0.0, 2.0 * float(np.mean(aucs)) - 1.0)
