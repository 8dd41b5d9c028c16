"""DCI with random forests (Eastwood and Williams 2018; Zaidi et al. 2022, section 4.3.1)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from metrics._dci import (
    DCI_CONSTRAINTS,
    EXPLICITNESS_BASELINES,
    regression_explicitness,
    run_dci,
    simplest_within_one_se,
    unit_range,
)
from metrics._forest import Forest, grow_forests
from metrics._ranks import column_ranks
from metrics._sampling import require_varying_factors
from metrics.constraints import AT_LEAST_TWO, COUNT, UNIT, Options, SequenceOf
from metrics.registry import register_metric

DEFAULT_LEAF_SIZES = (1, 10, 100)
#: How a factor's forest is chosen among the leaf sizes (see :func:`selected_forest`).
LEAF_SELECTIONS = ("one_se", "best")


def selected_forest(forests: Sequence[Forest], leaf_sizes: Sequence[int], rule: str) -> Forest:
    """The forest DCI-RF keeps among ``forests``, grown with minimum leaf sizes ``leaf_sizes``.

    ``"best"``: the one of highest out-of-bag R² (the first of equal ones).  ``"one_se"``: the one-standard-error rule
    (Breiman et al. 1984, section 3.4.3; Hastie et al. 2009, section 7.10): the simplest forest, the one of largest
    leaf size, whose out-of-bag R² is at least the best one's minus the best one's standard error
    (:attr:`metrics._forest.Forest.oob_score_se`).
    """
    if rule == "best":
        return max(forests, key=lambda forest: forest.oob_score)  # the first of equal scores
    return forests[simplest_within_one_se([-forest.oob_score for forest in forests],
                                          [forest.oob_score_se for forest in forests], leaf_sizes)]


def _fit_forest(n_estimators: int, leaf_sizes: tuple[int, ...], tree_samples: int, leaf_selection: str):
    """A factor fit that grows one forest per leaf size and keeps the one :func:`selected_forest` selects."""

    def fit(codes_train: np.ndarray, target: np.ndarray, codes_test: np.ndarray, seed: int):
        forests = grow_forests(codes_train, target, n_estimators=n_estimators, leaf_sizes=leaf_sizes,
                               bootstrap_size=min(tree_samples, target.size), seed=seed)
        kept = selected_forest(forests, leaf_sizes, leaf_selection)
        return kept.importances(), kept.predict(codes_test)

    return fit


@register_metric(
    "dci_rf",
    family="predictor",
    properties={"modularity": "modularity", "compactness": "compactness", "explicitness": "explicitness"},
    stochastic=True,
    version="3",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling", "monotone"),
    constraints={**DCI_CONSTRAINTS, "n_estimators": COUNT, "leaf_sizes": SequenceOf(COUNT), "tree_samples": AT_LEAST_TWO,
                 "leaf_selection": Options(*LEAF_SELECTIONS), "explicitness_baseline": Options(*EXPLICITNESS_BASELINES)},
    score_range=UNIT,
)
def dci_rf(
    factors,
    codes,
    *,
    discrete=None,
    random_state=0,
    n_estimators: int = 20,
    leaf_sizes: Sequence[int] = DEFAULT_LEAF_SIZES,
    tree_samples: int = 2000,
    leaf_selection: str = "one_se",
    test_size: float = 0.25,
    explicitness_baseline: str = "mean",
    completeness_weighting: str = "importance",
    unpredicted_factors: str = "even",
    n_jobs: int = 1,
) -> dict[str, float]:
    """DCI with random-forest impurity importances: modularity, compactness, explicitness.

    Definition (Eastwood and Williams 2018; review 4.3.1).  Factors are min-max scaled
    to [0, 1], the forests are given the codes' ranks (see the notes), and the rows are
    split at random into a training part and a held-out part (``test_size``).  For each factor ``v_k`` a random-forest regressor predicts
    ``v_k`` from the whole code; the importance ``R_jk`` of code ``z_j`` is the forest's
    impurity (Gini / variance-reduction) importance, normalised by scikit-learn to
    sum to 1 per forest.  Then (see :mod:`metrics._dci`)::

        modularity   = sum_j rho_j (1 - H_K(P_j.)),  P_jk = R_jk / sum_k R_jk,  rho_j = sum_k R_jk / sum R
        compactness  = sum_k w_k (1 - H_L(P_.k)),   P_jk = R_jk / sum_j R_jk
        explicitness = 1/K sum_k max(0, 1 - MSE_k / Var(v_k))   (held-out, on [0, 1] factors)

    Model selection (review 6.2: "the hyper-parameters must be tuned using an
    appropriate cross-validation procedure").  Instead of the k-fold grid of the
    review's code, each factor gets one forest per minimum leaf size in
    ``leaf_sizes``, scored by its *out-of-bag* R^2: out-of-bag error is a free
    cross-validation estimate (each tree is scored on the samples it did not see), so
    selection costs no refits.  The forest kept is chosen by the one-standard-error
    rule (Breiman et al. 1984, section 3.4.3; Hastie et al. 2009, section 7.10): the
    simplest one, of largest leaf size, whose out-of-bag R^2 is within one standard
    error of the best one's (see the notes; ``leaf_selection="best"`` keeps the best,
    as version 2 did).  The kept forest, already trained on the whole training part,
    gives the importances and the held-out predictions.  Each tree is grown on a
    bootstrap sample of ``min(tree_samples, n_train)`` points with all codes
    considered at every split.

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Accepted for the common interface; discrete factors are regressed on their
        (scaled) values like continuous ones, which suits ordinal factors.
    random_state : int or numpy.random.Generator
        Seeds the split and the forests; the scores are bit-for-bit reproducible.
    n_estimators : int, default 20
        Trees per forest.  A forest of one leaf size gives about the same importances
        with 10 or 40 trees; which leaf size is kept can depend on it (see the notes:
        on noisy codes at n = 1000, modularity 0.92, 0.92, 0.88 with 10, 20, 40 trees,
        against 0.89, 0.67, 0.47 with ``leaf_selection="best"``).
    leaf_sizes : sequence of int, default (1, 10, 100)
        The bounded grid of ``min_samples_leaf`` values searched by out-of-bag R^2:
        1 fits deterministic relations exactly, larger leaves regularise noisy ones.
    tree_samples : int, default 2000
        Bootstrap sample size per tree (capped at the training size).  Bounds the
        cost at large ``n``; each point is still seen by some trees.
    leaf_selection : {"one_se", "best"}, default "one_se"
        Which leaf size's forest is kept for a factor: the simplest whose out-of-bag
        R^2 is within one standard error of the best (:func:`selected_forest`), or the
        best (version 2).  See the notes.
    test_size : float, default 0.25
        Held-out fraction for explicitness.
    explicitness_baseline : {"mean", "random_guess"}, default "mean"
        What scores 0 in explicitness: a predictor returning the mean,
        ``1 - MSE / Var(v_k)`` (held-out R^2); or an independent uniform guess, the
        review's ``1 - 6 MSE``.  See the notes.
    completeness_weighting : {"importance", "uniform"}, default "importance"
        Factor weights ``w_k`` of compactness: each factor's share of the total
        importance (as modularity weights codes), or equal weights (the review's
        code).  Equal here, since every forest's importances sum to 1.
    unpredicted_factors : {"even", "absent"}, default "even"
        How modularity and compactness read a factor whose selected forest never splits
        (no code is important for it): spread evenly over the codes, or left out of every
        code's distribution (the formula read literally).  See the notes.
    n_jobs : int, default 1
        Factors fitted in parallel (joblib processes).  The harness already runs
        cells in parallel, so 1 is usually right.

    Returns
    -------
    dict
        ``{"modularity", "compactness", "explicitness"}``, each in [0, 1].

    Raises
    ------
    ValueError
        For a constant factor (nothing to predict), or too few samples to split.

    Notes
    -----
    * Properties: modularity, compactness and explicitness respectively (review
      Table 2: DCI-RF measures all three and is the best all-round metric, 6.2).
    * Codes as ranks (:mod:`metrics._ranks`).  A forest only compares a code with
      thresholds, so it is given each code's ranks over all rows, exact in the float32
      that scikit-learn's trees work in: the scores are the same, bit for bit, for any
      strictly increasing map of a code.  A held-out value between two training values
      goes to the side of the threshold halfway between their ranks (not halfway in the
      code's units).  Version 1 min-max scaled the codes, and in float32 heavy-tailed
      codes lost their distinct values: ``z = sinh(2 v^3)``, ``v ~ N(0, 1)``, 5 x 5,
      n = 1000, kept 3 to 56 of 1000 per code and scored explicitness 0.017
      (0.9995 now, as on ``v`` itself).
    * Zero importances (:mod:`metrics._dci`): a factor whose selected forest never
      splits (no code predicts it) is spread evenly over the codes by default
      (``unpredicted_factors="even"``): a forest's importances sum to 1 as soon as one of
      its trees splits, so read as absent such a factor jumps from an about even spread
      (trees fitting noise) to nothing.  A code no forest uses does not count in
      modularity; no importance at all gives modularity and compactness 0.  On codes
      independent of 5 Gaussian factors at n = 100, modularity over 20 seeds is 0 (0.00 to
      0.07 with version 2's best-forest selection; ``"absent"``, version 1's reading: 0.0 to
      1.0, median 0.63, as one noise forest split or none did); 0.01 at n = 20000, 8 x 8.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling,
      monotone.  Rescaling and strictly increasing maps leave the ranks, hence the
      scores, unchanged bit for bit; a sign flip reverses a code's order, which the
      trees split on equally well (up to ties between equally good thresholds, about
      1e-3 at n = 400); permuting the codes changes the order in which the trees try
      them, which decides only between equally good splits; permuting the samples
      changes the random split, so the scores agree in distribution.
    * Differences from the review's public code, which are defects there: a code of
      zero total importance is skipped instead of zeroing every later code's
      modularity; explicitness is measured on held-out data (a deep forest scores
      well on pure noise when scored on its training data); a single factor or a
      single code gives 1 instead of a log-base-1 failure.  A choice, not a defect:
      the review's code grows forests of 10 trees in a 10-fold cross-validated grid
      over ``max_depth`` and ``max_features``, keeping the best; here 20 trees per forest and the
      out-of-bag selection above (with version 2's best-forest selection, ``n_estimators=10``
      halved the cost and moved scores by 0.004 on average, at most 0.055 at n = 20000, over every
      scenario's grid; two seeds differ by up to 0.022 there; at n = 1000 on noisy codes, by up to 0.3: the next note).
    * Leaf-size selection (version 3).  Forests of different leaf sizes often predict a
      noisy factor about equally well (on the default study's grid, seeds 0 and 1, the
      best and second-best out-of-bag R^2 of half of the 1204 factor fits are within
      0.0023) while spreading their importances very differently: a deep forest (leaf
      size 1) fits the noise with splits on every code, a shallow one (100) splits on the
      informative code alone.  On the ``noise`` scenario at alpha = 0.6 (n = 1000, 4
      seeds), modularity is 0.14 with leaf size 1, 0.35 with 10 and 0.92 with 100, each
      within 0.005 from 10 to 40 trees, so keeping the best forest made the score a
      near coin flip between them, moved by the forest's size: 0.89 ± 0.07, 0.67 ±
      0.12 and 0.47 ± 0.10 with 10, 20 and 40 trees (mean ± standard deviation over 6
      seeds; 0.96, 0.85, 0.77 at alpha = 0.4; 0.47, 0.25, 0.13 at 0.8), as more trees
      let the deeper forests win by a hair.  The one-standard-error rule keeps the
      simplest forest that predicts as well as the best within the out-of-bag
      estimate's own uncertainty: 0.92 ± 0.01, 0.92 ± 0.01, 0.88 ± 0.06 at alpha =
      0.6 (0.98, 0.98, 0.93 at 0.4; 0.50, 0.44, 0.33 at 0.8).  On the default study's
      grid (its 90 points, seeds 0 and 1) 61% of the calls keep version 2's scores bit
      for bit (every call on ``nonlinear``, ``rotation``, ``partial``, ``correlated`` and
      ``dead_codes``); the largest changes are on ``noise`` (modularity up to 0.37
      higher), the synergy attacks (up to 0.33 higher) and ``null_gaussian`` at n = 100
      (up to 0.10 lower, towards 0).  Explicitness is that of the kept forest, whose
      out-of-bag R^2 is at most one standard error below the best one's: 0.04 lower at
      most on that grid.  The standard error counts the rows some tree left out only
      (:attr:`metrics._forest.Forest.oob_score_se`).
    * Explicitness calibration.  The review writes ``1 - 6 MSE`` (section 4.3.1),
      which maps a *random guess* (an independent uniform draw, MSE 1/6) to 0; but
      a forest that learns nothing predicts the mean (MSE 1/12), so codes
      independent of the factors would score about 0.5 (0.49 measured at
      n = 20000), while the review reports explicitness scores near 0 on pure
      noise (5.2).  The default baseline is therefore the mean predictor
      (``1 - 12 MSE`` for a uniform factor): 0 on noise, 1 on a perfect code, and
      the review's published numbers (Table 1: 0.6 for lasso on cos/sin, where
      ``1 - 6 MSE`` gives 0.80).  ``explicitness_baseline="random_guess"`` gives
      the formula as written.
    * Table 1 of the review (n = 20000): modularity 1, explicitness 1; compactness
      follows the importance split over a factor's codes: ``1 - log_8 2 = 0.67`` for
      a factor copied into 2 codes, ``1 - log_8 4 = 0.33`` for 4 copies (ties between
      identical codes are broken at random at each split); about 0.75 for cos/sin,
      whose importances split unevenly.
    * Impurity importances are normalised per forest, so a factor that no code
      predicts still spreads a total importance of 1 over the codes its trees split
      on (fitting noise), lowering their modularity: a single code ``z = v_1`` with
      a second, unencoded factor ``v_2`` scores modularity 0 at n = 2000, as DCI-lasso
      does since its version 4, whose penalty zeroes the useless weight and so reads
      ``v_2`` evenly (0.71 with the least-error penalty, which leaves a small weight).
    * Impurity importances favour codes a deep tree can split on repeatedly; with
      noisy codes, deeper forests spread some importance onto unrelated codes
      (lowering modularity), which the leaf-size selection limits.
    * Cost: ``K x len(leaf_sizes) x n_estimators`` trees on ``tree_samples`` points,
      plus out-of-bag and held-out predictions, about O(K n_estimators
      tree_samples log(tree_samples) L).  Once ``n_train`` exceeds ``tree_samples``
      only the out-of-bag predictions grow with ``n`` (about 10 % of the call at
      n = 20000); growing the trees is the rest, scikit-learn's tree builder alone
      about four fifths of the call there (the leaf-size-1 forests half of it, the
      size-100 ones a fifth).  Halving ``n_estimators`` or
      ``tree_samples``, or dropping leaf size 1, about halves the call (seconds per call: the cost table of ``metrics/README.md``).  The
      review's implementation (a 10-fold cross-validated grid) costs a hundred to two hundred times more.  The
      forests are scikit-learn's ``RandomForestRegressor`` bit for bit, grown tree by tree
      (:mod:`metrics._forest`): scikit-learn's work around each small tree (estimator cloning and checks, the
      bootstrap drawn again for the out-of-bag score) took about a third of the call at n = 1000, growing
      each tree on its bootstrap's rows alone, with predictions read off the fitted trees, about 7 % of the rest at
      n = 20000, and calling the compiled tree builder without the tree estimator's checks a further fifth at
      n = 1000 (1.9 to 1.55 CPU-s on 10 x 10 codes), 5 % at n = 20000.

    Examples
    --------
    Every sub-score of the perfect code, then of one whose first two codes mix two factors (300 samples, 3
    factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.dci_rf import dci_rf
    >>> for z in (codes, entangled):
    ...     print({sub: round(score, 2) for sub, score in dci_rf(factors, z).items()})
    {'modularity': 1.0, 'compactness': 1.0, 'explicitness': 0.96}
    {'modularity': 0.55, 'compactness': 0.55, 'explicitness': 0.96}
    """
    fit = _fit_forest(int(n_estimators), tuple(int(size) for size in leaf_sizes), int(tree_samples), leaf_selection)
    require_varying_factors(factors, "dci_rf")
    return run_dci(
        column_ranks(codes),
        unit_range(factors),
        fit,
        regression_explicitness(explicitness_baseline),
        test_size=test_size,
        random_state=random_state,
        completeness_weighting=completeness_weighting,
        unpredicted_factors=unpredicted_factors,
        n_jobs=n_jobs,
        metric="dci_rf",
    )
