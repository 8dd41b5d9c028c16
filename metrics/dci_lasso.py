"""DCI with lasso regressions (Eastwood and Williams 2018; Zaidi et al. 2022, section 4.3.1)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only: scikit-learn is imported where it is called (a process that runs no
    # metric of it, e.g. a report or a listing, does not load it)
    from sklearn.linear_model import LassoCV
    from sklearn.model_selection import KFold

from metrics._dci import (
    DCI_CONSTRAINTS,
    EXPLICITNESS_BASELINES,
    regression_explicitness,
    run_dci,
    simplest_within_one_se,
    unit_range,
)
from metrics._sampling import require_varying_factors, split_sizes
from metrics.constraints import AT_LEAST_TWO, COUNT, FRACTION, UNIT, Options
from metrics.registry import register_metric

REVIEW_ALPHAS = (1e-4, 1e-3, 1e-2, 0.1, 0.2, 0.4, 0.8, 1.0)
"""The fixed penalty grid of the review's public code (``dci.py``, ``_fit_lasso``)."""
ALPHA_GRIDS = ("path", "review")
SELECTION_ROWS = ("train", "all")
#: How a factor's penalty is chosen from the cross-validated errors (see :func:`chosen_penalty`).
PENALTY_SELECTIONS = ("one_se", "min")
#: Coordinate-descent sweeps a lasso fit may take to reach scikit-learn's tolerance (the notes of :func:`dci_lasso`).
_MAX_ITER = 1_000_000


def _path_grid(codes: np.ndarray, target: np.ndarray, n_alphas: int, alpha_ratio: float) -> np.ndarray:
    """``n_alphas`` penalties, log-spaced from ``alpha_max`` (all weights 0) down to ``alpha_ratio * alpha_max``."""
    centered = codes - codes.mean(axis=0)
    alpha_max = float(np.max(np.abs(centered.T @ (target - target.mean())))) / target.size
    if alpha_max <= 0:  # no code correlates with the target at all
        alpha_max = 1.0
    return np.geomspace(alpha_max, alpha_max * alpha_ratio, n_alphas)


@functools.cache
def _lasso_cv() -> type[LassoCV]:
    """scikit-learn's ``LassoCV`` computing each fold's path without checking its inputs again.

    ``LassoCV`` checks a fold's rows and computes their Gram matrix before it calls its path function, then calls it
    with ``check_input=True``, and the path checks the Gram matrix again at every penalty (about 20 ``check_array``
    calls a fold, half of a DCI-lasso call's time at n = 1000).  This subclass passes ``check_input=False``, as
    ``Lasso.fit`` does when it calls the same function: the same arrays reach the same solver, so the fits are bit
    for bit ``LassoCV``'s (``tests/metrics/test_dci_lasso_identical.py``).
    """
    from sklearn.linear_model import LassoCV, lasso_path

    class CheckedOnceLassoCV(LassoCV):
        path = staticmethod(functools.partial(lasso_path, check_input=False))

    return CheckedOnceLassoCV


def _cross_validated(codes: np.ndarray, target: np.ndarray, alphas: np.ndarray, folds: KFold) -> LassoCV:
    """The lasso whose penalty, among ``alphas``, has the least cross-validated error over ``folds``, refitted on all given rows."""
    return _lasso_cv()(alphas=alphas, cv=folds, max_iter=_MAX_ITER, selection="cyclic", precompute=True).fit(codes, target)


def chosen_penalty(search: LassoCV, rule: str) -> float:
    """The penalty a fitted ``LassoCV`` search gives under ``rule``.

    ``"min"``: the one of least mean cross-validated error (``search.alpha_``).  ``"one_se"``: the one-standard-error
    rule (Breiman et al. 1984, section 3.4.3; Hastie et al. 2009, section 7.10; glmnet's ``lambda.1se``): the largest
    penalty whose mean error is at most the least one plus that penalty's standard error over the folds
    (``sd / sqrt(folds)``).
    """
    if rule == "min":
        return float(search.alpha_)
    errors = np.asarray(search.mse_path_)  # (penalties, folds), in the order of search.alphas_
    alphas = np.asarray(search.alphas_)
    return float(alphas[simplest_within_one_se(errors.mean(axis=1), errors.std(axis=1, ddof=1) / np.sqrt(errors.shape[1]),
                                               alphas)])


def _fit_selecting_on_train(alpha_grid: str, n_alphas: int, alpha_ratio: float, folds: int, rule: str):
    """Per-factor fit that chooses the penalty by cross-validation on the training part."""

    def fit(codes_train: np.ndarray, target: np.ndarray, codes_test: np.ndarray, seed: int):
        from sklearn.model_selection import KFold
        alphas = np.array(REVIEW_ALPHAS) if alpha_grid == "review" else _path_grid(codes_train, target, n_alphas, alpha_ratio)
        model = _cross_validated(codes_train, target, alphas, KFold(folds, shuffle=True, random_state=seed))
        penalty = chosen_penalty(model, rule)
        if alpha_grid == "path" and penalty == alphas[0]:  # alpha_max of these rows: every weight is 0 (see the notes)
            return np.zeros(codes_train.shape[1]), np.full(codes_test.shape[0], float(np.mean(target)))
        if penalty != model.alpha_:  # LassoCV refitted at its own choice; refit at this one on the same rows
            return _fit_at(penalty)(codes_train, target, codes_test, seed)
        return model.coef_, model.predict(codes_test)

    return fit


def _fit_at(alpha: float):
    """Per-factor fit with a penalty chosen beforehand."""

    def fit(codes_train: np.ndarray, target: np.ndarray, codes_test: np.ndarray, seed: int):
        from sklearn.linear_model import Lasso
        model = Lasso(alpha=alpha, max_iter=_MAX_ITER, selection="cyclic", precompute=True).fit(codes_train, target)
        return model.coef_, model.predict(codes_test)

    return fit


def _penalties_on_all_rows(codes: np.ndarray, targets: np.ndarray, alpha_grid: str, n_alphas: int, alpha_ratio: float,
                           folds: int, rule: str) -> list[float]:
    """Each factor's penalty, chosen by cross-validation on every row in consecutive folds (the review's code)."""
    from sklearn.model_selection import KFold
    chosen = []
    for target in targets.T:
        alphas = np.array(REVIEW_ALPHAS) if alpha_grid == "review" else _path_grid(codes, target, n_alphas, alpha_ratio)
        chosen.append(chosen_penalty(_cross_validated(codes, target, alphas, KFold(folds)), rule))
    return chosen


@register_metric(
    "dci_lasso",
    family="predictor",
    properties={"modularity": "modularity", "compactness": "compactness", "explicitness": "explicitness"},
    stochastic=True,
    version="5",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={**DCI_CONSTRAINTS, "n_alphas": COUNT, "alpha_ratio": FRACTION, "folds": AT_LEAST_TWO,
                 "explicitness_baseline": Options(*EXPLICITNESS_BASELINES), "alpha_grid": Options(*ALPHA_GRIDS),
                 "selection_rows": Options(*SELECTION_ROWS), "penalty_selection": Options(*PENALTY_SELECTIONS)},
    score_range=UNIT,
)
def dci_lasso(
    factors,
    codes,
    *,
    discrete=None,
    random_state=0,
    n_alphas: int = 20,
    alpha_ratio: float = 1e-4,
    folds: int = 5,
    test_size: float = 0.25,
    explicitness_baseline: str = "mean",
    completeness_weighting: str = "importance",
    unpredicted_factors: str = "even",
    alpha_grid: str = "path",
    selection_rows: str = "train",
    penalty_selection: str = "one_se",
    n_jobs: int = 1,
) -> dict[str, float]:
    """DCI with lasso coefficient magnitudes: modularity, compactness, explicitness.

    Definition (Eastwood and Williams 2018; review 4.3.1).  Factors and codes are
    min-max scaled to [0, 1] and split at random into a training part and a held-out
    part (``test_size``).  For each factor ``v_k`` a lasso regression predicts ``v_k``
    from the whole code; the importance of code ``z_j`` is ``R_jk = |w_jk|``, the
    magnitude of its coefficient.  Then (see :mod:`metrics._dci`)::

        modularity   = sum_j rho_j (1 - H_K(P_j.)),  P_jk = R_jk / sum_k R_jk,  rho_j = sum_k R_jk / sum R
        compactness  = sum_k w_k (1 - H_L(P_.k)),   P_jk = R_jk / sum_j R_jk
        explicitness = 1/K sum_k max(0, 1 - MSE_k / Var(v_k))   (held-out, on [0, 1] factors)

    Model selection (review 6.2).  The penalty of each factor's lasso is chosen by
    ``folds``-fold cross-validation (scikit-learn ``LassoCV``) over ``n_alphas``
    values log-spaced from ``alpha_max`` (the smallest penalty that zeroes every
    coefficient) down to ``alpha_ratio * alpha_max``, and the penalty kept is the
    largest whose mean cross-validated error is within one standard error of the
    least one (the one-standard-error rule: Breiman et al. 1984, section 3.4.3;
    Hastie et al. 2009, section 7.10; glmnet's ``lambda.1se``; see the notes;
    ``penalty_selection="min"`` keeps the least error, as version 3 did); the model is
    then refitted on the whole training part.  The coordinate descent runs on the
    precomputed Gram matrix (``L x L``), so the search costs little more than one fit.

    The review's protocol (its public code, ``dci.py``) differs on three counts, all
    available as options: a fixed grid ``1e-4, 1e-3, 1e-2, 0.1, 0.2, 0.4, 0.8, 1``
    (``alpha_grid="review"``), 10-fold cross-validation on all rows in
    consecutive folds, scikit-learn's ``cross_val_score(cv=10)``
    (``selection_rows="all"``, ``folds=10``), and the least error
    (``penalty_selection="min"``).  With the four together the penalty
    chosen for each factor is the review's on the same rows; the lasso is then
    refitted at that penalty on the training part, as here, for the importances and
    the held-out explicitness (the review refits on all rows and scores in-sample).
    On noisy codes that choice decides modularity: on the noise scenario at
    ``alpha = 0.8`` (n = 10000), a lasso at 1e-4 gives D = 0.65 and one at 1e-3
    gives 0.96, and 10-fold cross-validation picks 1e-4 for some factors and 1e-3
    for others (measured 0.93 against 1.00 at ``alpha = 0.4``).  A grid scaled to
    each factor's ``alpha_max`` with 20 steps, the default, moves smoothly instead.

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Accepted for the common interface; discrete factors are regressed on their
        (scaled) values like continuous ones.
    random_state : int or numpy.random.Generator
        Seeds the split and the cross-validation folds; scores are bit-for-bit
        reproducible.
    n_alphas : int, default 20
        Penalties in the cross-validated grid.
    alpha_ratio : float, default 1e-4
        Smallest penalty of the grid, relative to ``alpha_max``.
    folds : int, default 5
        Cross-validation folds (at least 2).
    test_size : float, default 0.25
        Held-out fraction for explicitness.
    explicitness_baseline : {"mean", "random_guess"}, default "mean"
        What scores 0 in explicitness: a predictor returning the mean,
        ``1 - MSE / Var(v_k)`` (held-out R^2); or an independent uniform guess, the
        review's ``1 - 6 MSE``.  See the notes.
    completeness_weighting : {"importance", "uniform"}, default "importance"
        Factor weights of compactness: each factor's share of the total importance
        (as modularity weights codes), or equal weights (the review's code).
    unpredicted_factors : {"even", "absent"}, default "even"
        How modularity and compactness read a factor whose every weight the penalty
        zeroes: spread evenly over the codes with the mean total weight of the other
        factors, or left out of every code's distribution (the formula read literally,
        the limit of weights shrinking to 0; the review's reading).  See the notes.
    alpha_grid : {"path", "review"}, default "path"
        Penalties searched: ``n_alphas`` values down from each factor's
        ``alpha_max`` (``n_alphas`` and ``alpha_ratio`` apply), or the review's fixed
        grid :data:`REVIEW_ALPHAS`.
    selection_rows : {"train", "all"}, default "train"
        Rows the penalty is cross-validated on: the training part, in shuffled folds
        seeded by ``random_state``; or all rows including the held-out part, in
        consecutive folds, as the review's code does.
    penalty_selection : {"one_se", "min"}, default "one_se"
        Which penalty the cross-validated errors choose: the largest within one
        standard error of the least error (:func:`chosen_penalty`), or the least error
        (version 3, the review's).  See the notes.
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
    * Properties: modularity, compactness, explicitness respectively.  Review
      Table 2 credits DCI-lasso with modularity and explicitness but not
      compactness (see the duplicated codes below).
    * Known failure modes (review 5.2, 5.4, 5.5).  The L1 penalty keeps one of
      several redundant codes and zeroes the others, so a factor copied into 2 or 4
      codes gets compactness 1 (Table 1).  On codes independent of the factors the
      penalty still leaves a few isolated non-zero weights, so modularity and
      compactness stay high when a factor whose weights are all zeroed is read as
      absent (review: above 0.3; measured in version 5 with the review's protocol, ``alpha_grid="review"``,
      ``selection_rows="all"``, ``folds=10``, ``penalty_selection="min"``, ``unpredicted_factors="absent"``: 0.95 to
      1.00 and 0.16 to 1.00 (median 0.45) at n = 20000, K = L = 8, 5 seeds; with this grid and the least-error
      penalty read as absent, 0.63 to 1.00 and 0.30 to 1.00; read evenly, 0.10 to 0.21 and 0.11 to 0.25).  The
      defaults, the one-standard-error penalty read evenly, score 0 and 0 on every one of those seeds (see the
      notes).  A linear model cannot follow nonlinear relations: on
      cos/sin codes only ``sin`` correlates with an angle in [0, 2 pi), so the best
      linear prediction explains ``R^2 = 2 / (pi^2 / 3) = 0.61`` of its variance:
      explicitness 0.61 (review Table 1: 0.6).
    * Explicitness calibration.  The review writes ``1 - 6 MSE`` (section 4.3.1),
      which maps a *random guess* (MSE 1/6) to 0; a model that learnt nothing
      predicts the mean (MSE 1/12 for a uniform factor) and would score 0.5, and
      the cos/sin case above would score ``0.5 + 0.5 R^2 = 0.80``.  The review's
      published numbers (0.6 on cos/sin; near 0 on noise, 5.2) follow the
      mean-predictor baseline, ``1 - MSE / Var(v_k)``, the default here;
      ``explicitness_baseline="random_guess"`` gives the formula as written.
    * Zero importances (:mod:`metrics._dci`): a factor whose every weight the penalty
      zeroes (no code predicts it) is spread evenly over the codes by default
      (``unpredicted_factors="even"``), as DCI-RF and DCI-GBT read a factor no tree
      splits on: the penalty prefers no code, so none can claim the factor.  Read as
      absent (the formula literally, and the limit of weights shrinking to 0 as the
      penalty grows; ``"absent"``), pure noise scored 0 or 1 by seed: on codes
      independent of 5 Gaussian factors (5 codes, 20 seeds) modularity was 0.00 to
      1.00, median 0.87 at n = 100 and 1.00 at n = 200 and 1000, 1 where an isolated
      weight, the other factors zeroed, made every code look modular, 0 where the
      penalty zeroed everything.  Read evenly (version 3's least-error penalty): 0.00 to
      0.51 (median 0.15) at n = 100, 0.00 to 0.37 (0.16) at n = 200, 0.00 to 0.89 (0.31)
      at n = 1000, 0.07 to 0.42 (0.14) at n = 20000, 8 x 8: the lasso's isolated weights
      on noise still made a few seeds look modular, which the permutation null of a
      study shows; with the one-standard-error penalty, fewer (next note).  The price:
      the review's "above 0.3" on noise (5.2) holds only under ``"absent"`` and the
      least-error penalty.  A code with no weight for any factor does not count in
      modularity; no weight at all gives modularity and compactness 0 under either reading.
    * Penalty selection (version 4).  Penalties near the least cross-validated error
      predict about equally well, but the smaller ones keep small weights on codes
      of other factors, which modularity and compactness read as entanglement.  On the
      ``noise`` scenario (n = 1000, 6 seeds) the least-error penalty (version 3,
      ``penalty_selection="min"``) gave modularity 0.93 ± 0.04, 0.88 ± 0.05 and
      0.69 ± 0.11 at alpha = 0.4, 0.6 and 0.8 (mean ± standard deviation), where each
      code still holds one factor (ideal 1); the one-standard-error penalty gives
      1.00 ± 0.00, 1.00 ± 0.00 and 0.89 ± 0.08, with explicitness 0.685, 0.291, 0.031
      against 0.692, 0.306, 0.051 (the larger penalty predicts a little worse, within
      the cross-validation's noise).  On codes independent of 5 standard normal
      factors (5 codes, 20 seeds) modularity goes from 0.00 to 0.59 (median 0.18) to
      0.00 to 0.36 (median 0) at n = 100, 0.00 to 0.59 (0.25) to 0.00 to 0.33 (0.08) at
      n = 1000; on the ``null_gaussian`` scenario at n = 100 (6 seeds) from 0.20 ± 0.12
      to 0.04 ± 0.09 (version 4's figures; in version 5, next note, 0.01 ± 0.03, and 0 on codes independent of
      Gaussian factors).  On the default study's grid (its 90 points, seeds 0 and 1) 42% of
      the calls keep version 3's scores bit for bit (every call on ``correlated``,
      ``dead_codes``, ``partial`` and ``rotation``); modularity rises by up to 0.14 on
      ``noise``, 0.10 on ``nonlinear``, 0.05 on the attacks, falls by up to 0.35 on
      ``null_gaussian``; on ``categorical`` (a factor the lasso barely predicts at 6 or 8
      categories, explicitness 0.01 to 0.05) it moves by up to 0.46 either way, towards
      1 on average (0.82 to 1.00 at 3 categories, 0.56 to 0.68 at 8; 4 seeds).
    * The top of the path (version 5).  At ``alpha_max`` of the training rows, the largest penalty of the default
      grid, every weight is 0: the code most correlated with the factor sits exactly at the threshold, a tie that
      the coordinate descent's rounding may break, and did by CPU: on ``null_gaussian`` at n = 100, seed 0, with
      OpenBLAS's Haswell and Zen kernels it left a weight of 3e-17 on one code, which the normalised importances read
      as the whole factor (modularity 0.10 and compactness 0.13 where the Sandybridge kernel gave 0 and 0).  A factor
      whose chosen penalty is that top one is therefore given zero weights and the training mean as its prediction,
      what the exact minimiser gives (version 4 read the solver's weights; the scores are the same wherever those were
      exactly 0).  The review's fixed grid and penalties chosen on all rows have no such tie.  Those rounding weights
      were much of what the defaults scored on noise: on codes independent of 5 standard normal factors (5 codes, 20
      seeds, the factors and codes drawn from seed ``s``, ``random_state=s``) modularity was 0.00 to 0.16, 0.33 and
      0.52 at n = 100, 200 and 1000 in version 4 (medians 0, 0, 0.16) and is 0 on every seed, and read as absent
      (``unpredicted_factors="absent"``) 0 or 1 by seed (medians 0, 0, 1.00) and now 0; at n = 20000, 8 x 8 (5
      seeds) 0.00 to 0.30 (compactness 0.00 to 0.38) and now 0; on ``null_gaussian`` at n = 100 (6 seeds) 0.07 ±
      0.09 and now 0.01 ± 0.03.  The least-error penalty stops at the top less often: read evenly, 0.00 to 0.89
      (median 0.31) at n = 1000 in version 4, 0.00 to 0.44 (0.15) now.
    * Codes are min-max scaled in float64: a linear probe uses a code's values in
      proportion to their size, so what the scaling rounds away on a heavy-tailed code
      (the bulk of ``sinh(2 v^3)`` against its 1e23 extremes) is what a linear
      prediction in float64 cannot use either.  On that code explicitness is 0: the
      best linear prediction of ``v`` from it explains nothing, as the definition says.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Min-max scaling maps a rescaled code to the same values and a negated one to
      ``1 -`` them, whose weight is the same up to its sign; permuting the codes changes
      only the order of the coordinate descent (scores agree to its tolerance: 1e-5 to
      1e-4, 1.3e-4 measured on a noisy linear code at n = 200, 3 x 4; up to 2.6e-3 of modularity and
      compactness where that order tips the cross-validated penalty's choice, 1 draw of 8 of a noisy linear code
      of 3 four-valued factors at n = 300); permuting the samples changes the random split and folds (in
      distribution).  Not monotone: a linear probe follows a code's units.
    * Differences from the review's public code (defects there): a code of zero
      total importance is skipped instead of zeroing every later code's modularity
      (hence modularity 0.99 here against the published 0.8 on cos/sin, where the
      ``cos`` codes get no weight); held-out explicitness; 1 instead of a log-base-1
      failure for a single factor or code.
    * Convergence (version 3).  Every lasso, the cross-validation's paths included, runs to scikit-learn's
      tolerance (``tol=1e-4`` on the duality gap), up to a million coordinate-descent sweeps: a well-conditioned fit
      stops long before, so the bound costs only where a fit needs it.  Version 2 stopped at ``10000``, short of the
      tolerance on correlated codes, and the scores then depended on where it stopped: on ``sample_size``'s codes at
      n = 100 (seed 7) compactness 0.27 where the minimiser gives 0.40, explicitness 0.84 against 0.88 (the
      cross-validation's errors, hence its chosen penalty, moved too); in the default study 8 of 441 cells warned
      (725 ConvergenceWarnings a run, scores within 0.003 of the converged ones), none does now, at the same cost
      (its 270 default-variant cells of the first 3 seeds: 29.3 CPU-s against 30.5).
    * Cost: ``K x (folds + 1)`` lasso paths of ``n_alphas`` penalties on the Gram
      matrix, O(n L^2 K folds) (seconds per call: the cost table of ``metrics/README.md``).  With
      ``selection_rows="all"``, one more lasso per factor.  The paths skip
      scikit-learn's second check of each fold's inputs (:func:`_lasso_cv`): the
      same fits, 1.8 times faster at n = 1000, 10 x 10.

    Examples
    --------
    Every sub-score of the perfect code, then of one whose first two codes mix two factors (300 samples, 3
    factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.dci_lasso import dci_lasso
    >>> for z in (codes, entangled):
    ...     print({sub: round(score, 2) for sub, score in dci_lasso(factors, z).items()})
    {'modularity': 1.0, 'compactness': 1.0, 'explicitness': 0.96}
    {'modularity': 0.5, 'compactness': 0.5, 'explicitness': 0.96}
    """
    require_varying_factors(factors, "dci_lasso")
    codes, targets = unit_range(codes), unit_range(factors)
    if selection_rows == "all":
        if codes.shape[0] < folds:
            raise ValueError(f"dci_lasso: {folds}-fold cross-validation needs at least {folds} samples, got {codes.shape[0]}")
        fit = [_fit_at(alpha) for alpha in _penalties_on_all_rows(codes, targets, alpha_grid, n_alphas, alpha_ratio, folds,
                                                                   penalty_selection)]
    else:
        n_train = split_sizes(codes.shape[0], test_size)[0]
        if 2 <= n_train < folds:  # fewer than 2: the split itself says so (run_dci)
            raise ValueError(
                f"dci_lasso: {folds}-fold cross-validation on the training part needs at least {folds} training "
                f"samples; got {n_train} (n = {codes.shape[0]}, test_size = {float(test_size):g})"
            )
        fit = _fit_selecting_on_train(alpha_grid, n_alphas, alpha_ratio, folds, penalty_selection)
    return run_dci(
        codes,
        targets,
        fit,
        regression_explicitness(explicitness_baseline),
        test_size=test_size,
        random_state=random_state,
        completeness_weighting=completeness_weighting,
        unpredicted_factors=unpredicted_factors,
        n_jobs=n_jobs,
        metric="dci_lasso",
    )
