"""Single-neuron classification (SNC) and neuron knockout (NK) (Mahon, Sha and Lukasiewicz 2024)."""

from __future__ import annotations

import numpy as np

from metrics._linear import standardized_split
from metrics._matching import matched_codes
from metrics._ranks import column_ranks
from metrics._sampling import as_generator, derive_seeds, require_varying_factors, train_test_indices
from metrics.constraints import AT_LEAST_TWO, FRACTION, Interval, Options
from metrics.information import DEFAULT_BINS, factor_code_information, to_labels
from metrics.registry import register_metric

CLASSIFIERS = ("tree", "mlp")


def _single_code_accuracy(code: np.ndarray, labels: np.ndarray, classes: int, train: np.ndarray, test: np.ndarray) -> float:
    """Held-out accuracy of the one-to-one map from quantile bins of ``code`` to classes.

    The code is cut into ``classes`` bins at its training quantiles placed at the
    cumulative training class frequencies (so bin ``c`` holds as many training rows as
    class ``c``), counted from the code's low end, or from its high end when the code
    falls as the class rises (a negative rank correlation on the training rows); bins and
    classes are paired one-to-one to maximise the training agreement (Hungarian
    algorithm).
    """
    if _falls_with_classes(code[train], labels[train]):
        code = -code  # then the bins are sized from the high end, and -code's scores are code's
    frequencies = np.bincount(labels[train], minlength=classes) / train.size
    # rounding can carry the running sum past 1 when the last classes are absent from the training rows
    edges = np.quantile(code[train], np.minimum(np.cumsum(frequencies)[:-1], 1.0))
    bins = np.searchsorted(edges, code, side="right")
    agreement = np.zeros((classes, classes))
    np.add.at(agreement, (labels[train], bins[train]), 1.0)
    class_of_bin = np.empty(classes, dtype=np.int64)
    class_of_bin[matched_codes(agreement)] = np.arange(classes)
    return float(np.mean(class_of_bin[bins[test]] == labels[test]))


def _falls_with_classes(code: np.ndarray, labels: np.ndarray) -> bool:
    """Whether ``code`` falls as the class rises: a negative Spearman correlation (its sign, from the covariance of
    the ranks, ties at their mean rank), exactly reversed when the code is negated; False for a constant code."""
    from scipy.stats import rankdata
    ranks = rankdata(code) - (code.size + 1) / 2.0
    centred = rankdata(labels) - (labels.size + 1) / 2.0
    return bool(ranks @ centred < 0)


def _probe_inputs(classifier: str, codes: np.ndarray, ranked: np.ndarray, train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The training and held-out inputs of NK's classifier: the tree's are the codes' ranks (it splits on order,
    :mod:`metrics._ranks`), the MLP's the codes standardised by the training rows
    (:func:`metrics._linear.standardized_split`)."""
    if classifier == "tree":
        return ranked[train], ranked[test]
    return standardized_split(codes[train], codes[test])


def _classifier_accuracy(
    classifier: str, split: tuple[np.ndarray, np.ndarray], labels: np.ndarray, train: np.ndarray, test: np.ndarray, leaves: int, seed: int
) -> float:
    """Held-out accuracy of a classifier of ``labels`` on the ``split`` codes (see :func:`_probe_inputs`).

    The tree is given its inputs as scikit-learn's checks would convert them (C-contiguous float32: the codes' ranks,
    exact below 2**24 rows) and fitted and read without those checks or its parameters' validation (fixed here, valid
    by construction): the same tree and predictions, about a fifth of the metric's time less at n = 1000 (10 x 10 codes)."""
    from sklearn import config_context
    from sklearn.neural_network import MLPClassifier
    from sklearn.tree import DecisionTreeClassifier
    if classifier == "tree":
        model = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=seed)
        train_rows, test_rows = (np.ascontiguousarray(rows, dtype=np.float32) for rows in split)
        with config_context(skip_parameter_validation=True):
            model.fit(train_rows, labels[train], check_input=False)
            predicted = model.predict(test_rows, check_input=False)
        return float(np.mean(predicted == labels[test]))
    model = MLPClassifier(hidden_layer_sizes=(256,), max_iter=200, early_stopping=True, random_state=seed)
    model.fit(split[0], labels[train])
    return float(np.mean(model.predict(split[1]) == labels[test]))


@register_metric(
    "snc_nk",
    family="predictor",
    properties={"snc": "holistic", "nk": "compactness"},
    stochastic=True,
    version="3",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling", "monotone"),
    constraints={"bins": AT_LEAST_TWO, "test_size": FRACTION, "classifier": Options(*CLASSIFIERS),
                 "max_leaves": (Options("auto"), AT_LEAST_TWO)},
    # SNC is chance-adjusted, (a - c) / (1 - c), so below 0 when the held-out accuracy a falls under chance c (as low
    # as -c / (1 - c)); NK's difference of two such shares lies in [-1, 1]
    score_range={"snc": Interval(float, None, 1.0), "nk": Interval(float, -1.0, 1.0)},
)
def snc_nk(
    factors,
    codes,
    *,
    discrete=None,
    random_state=0,
    bins: int = DEFAULT_BINS,
    test_size: float = 0.25,
    classifier: str = "tree",
    max_leaves: int | str = "auto",
) -> dict[str, float]:
    """SNC (each factor read off its own code) and NK (each factor lost without that code).

    Definition (Mahon, Sha and Lukasiewicz 2024, "Correcting Flaws in Common
    Disentanglement Metrics", TMLR, section 4).  Factors are matched one-to-one to
    codes by the Hungarian algorithm on the factor x code mutual information.  Then,
    for each factor ``v_k`` with ``C_k`` classes and matched code ``z_pi(k)``, on
    held-out rows (``test_size``):

    * **SNC** (single-neuron classification): the accuracy ``a_k`` of predicting
      ``v_k`` from ``z_pi(k)`` alone, by cutting the code at its quantiles into ``C_k``
      bins (sized like the classes) paired one-to-one with the classes, adjusted for
      chance ``c_k = sum_c p_c^2`` (the accuracy of that map on an independent code,
      ``1/C_k`` for balanced classes)::

          SNC = 1/K sum_k (a_k - c_k) / (1 - c_k)

    * **NK** (neuron knockout): how much the held-out accuracy of a classifier on all
      codes, ``b_k``, falls when ``z_pi(k)`` is removed, ``b_k^-``, relative to the
      largest possible fall (to the majority-class rate ``m_k``; both accuracies are
      floored at ``m_k``, which any classifier reaches by predicting the majority)::

          NK = 1/K sum_k (max(b_k, m_k) - max(b_k^-, m_k)) / (1 - m_k)

    A factor left unmatched (``L < K``) scores 0 in both.  SNC is high only when a
    single code carries the factor (explicitly, up to a monotone map); NK is high
    only when no other code carries it too (a duplicated code gives NK = 0).

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Discrete factors keep their categories; continuous ones are cut into ``bins``
        equal-width bins, which become the classes.
    random_state : int or numpy.random.Generator
        Seeds the split and the classifiers.
    bins : int, default 10
        Bins of continuous factors and codes (for the mutual information).
    test_size : float, default 0.25
        Held-out fraction.
    classifier : {"tree", "mlp"}, default "tree"
        NK's classifier on all codes: a decision tree with ``max_leaves`` leaves, or the
        authors' one-hidden-layer MLP (256 ReLU units; scikit-learn's Adam with early
        stopping), much slower.
    max_leaves : int or "auto", default "auto"
        Leaves of the tree; ``"auto"`` allows four per class.

    Returns
    -------
    dict
        ``{"snc": ..., "nk": ...}``; 1 and 1 on ``z = v``, about 0 on independent codes
        (chance-adjusted, so small negative values occur).

    Raises
    ------
    ValueError
        For a constant factor, a factor whose training rows all fall in one class (a
        rare class held out), or a bad option.

    Notes
    -----
    * Authors' code (github.com/Lou1sM/snc_nk, ``snc_nk.py``): followed in the
      Hungarian matching, the quantile binning of the matched code into as many bins
      as classes with a one-to-one bin-to-class map, and knocking out the matched code.
      Departures: bin edges at the cumulative class frequencies (theirs: equal-count
      bins, which misclassify about 5 % of a perfect code whose classes are not
      exactly balanced in the sample); the matching uses the plug-in mutual information of
      :mod:`metrics.information` between the factor and the code's quantile bins (the
      equal-width bins of its ranks; theirs: the conditional entropy of the factor given
      quantile bins of the code); both accuracies are chance-adjusted as above (the
      paper reports raw accuracies and their differences); NK's classifier is a tree by
      default (theirs: a PyTorch MLP).
    * Properties: SNC needs one explicit code per factor (holistic); NK measures that
      no other code duplicates it (compactness).
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling,
      monotone.  The matching, SNC and NK's tree read the codes through their ranks only
      (:mod:`metrics._ranks`): SNC's quantile bins are sized from the end of the code
      where the first classes lie, by the sign of its rank correlation with the classes,
      so a decreasing map is read like an increasing one; rescaling and strictly
      increasing maps give the same scores bit for bit, a sign flip or a permutation of
      the codes changes only the order in which the tree scans them (ties between
      equally good splits); permuting the samples changes the random split (in
      distribution).  With ``classifier="mlp"`` NK sees standardised codes and is not
      monotone-invariant.
    * Version 3: version 2 matched on equal-width bins of the codes and gave NK's tree the
      standardised codes, which a heavy-tailed code defeats (``z = sinh(2 v^3)``, 5 x 5,
      n = 1000: NK 0.001 against 0.989 on ``v``; standardising rounds its bulk to one
      value).  Version 2: version 1 sized SNC's bins from the low end only, so a code
      falling as its factor rises lost SNC when the classes were uneven (0.28 against
      0.998 for ``z = -v`` vs ``z = v`` on squared uniform factors, n = 5000).
    * Cost: one MI matrix, ``K`` binnings and ``2K`` trees.

    Examples
    --------
    Every sub-score of the perfect code, then of one whose first two codes mix two factors (300 samples, 3
    factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.snc_nk import snc_nk
    >>> for z in (codes, entangled):
    ...     print({sub: round(score, 2) for sub, score in snc_nk(factors, z).items()})
    {'snc': 0.64, 'nk': 0.45}
    {'snc': 0.24, 'nk': 0.38}
    """
    require_varying_factors(factors, "snc_nk")
    labels = to_labels(factors, discrete, bins)
    ranked = column_ranks(codes)
    # matched on the information with the codes' quantile bins (equal-width bins of their ranks), as the authors do
    matched = matched_codes(factor_code_information(factors, ranked, discrete, bins).mutual_information)
    rng = as_generator(random_state)
    train, test = train_test_indices(factors.shape[0], test_size, rng, "snc_nk")
    seeds = derive_seeds(rng, 2 * factors.shape[1])
    snc, nk = np.zeros(factors.shape[1]), np.zeros(factors.shape[1])
    all_codes = _probe_inputs(classifier, codes, ranked, train, test)  # once for the K classifiers on all codes
    for k in np.flatnonzero(matched >= 0):
        target = np.unique(labels.codes[:, k], return_inverse=True)[1]
        classes = int(target.max()) + 1
        accuracy = _single_code_accuracy(ranked[:, matched[k]], target, classes, train, test)
        chance = float(np.sum((np.bincount(target[train], minlength=classes) / train.size) ** 2))
        if chance == 1.0:  # every training row in one class: no accuracy above chance is defined
            raise ValueError(
                f"snc_nk: factor {k} takes a single class in the training split; "
                "use more samples, fewer bins or a smaller test_size"
            )
        snc[k] = (accuracy - chance) / (1.0 - chance)
        leaves = 4 * classes if max_leaves == "auto" else int(max_leaves)
        majority = np.bincount(target[test], minlength=classes).max() / test.size
        full = max(majority, _classifier_accuracy(classifier, all_codes, target, train, test, leaves, seeds[2 * k]))
        if codes.shape[1] > 1:
            # prepared on their own: standardised columns cut from all_codes, a lone remaining one would differ in
            # its last bits (numpy sums one contiguous column pairwise, the columns of a matrix row by row)
            kept = np.arange(codes.shape[1]) != matched[k]
            split = _probe_inputs(classifier, codes[:, kept], ranked[:, kept], train, test)
            knocked = max(majority, _classifier_accuracy(classifier, split, target, train, test, leaves, seeds[2 * k + 1]))
        else:
            knocked = majority
        nk[k] = (full - knocked) / (1.0 - majority) if majority < 1 else 0.0
    return {"snc": float(snc.mean()), "nk": float(nk.mean())}
