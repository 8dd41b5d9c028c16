"""The DCI framework (Eastwood and Williams 2018; Zaidi et al. 2022, section 4.3.1).

Shared by :mod:`metrics.dci_lasso`, :mod:`metrics.dci_rf` and :mod:`metrics.dci_gbt`,
which differ only in the predictor that yields the importance matrix.

Given an importance matrix ``R`` (``L`` codes x ``K`` factors, non-negative):

* **Modularity** (disentanglement).  ``P_jk = R_jk / sum_k' R_jk'`` and, per code,
  ``D_j = 1 - H_K(P_j.)`` with the entropy in log base ``K``; the score is
  ``sum_j rho_j D_j`` with ``rho_j = sum_k R_jk / sum R`` (review 4.3.1).
* **Compactness** (completeness).  ``P_jk = R_jk / sum_j' R_j'k`` and, per factor,
  ``C_k = 1 - H_L(P_.k)`` in log base ``L``; the score averages ``C_k`` weighted by each
  factor's share of the total importance (``"importance"``, as for modularity), or
  with equal weights (``"uniform"``, the review's text and code).
* With a single factor (``K = 1``) a code cannot mix factors: ``D_j = 1``.  With a
  single code (``L = 1``) a factor cannot be spread: ``C_k = 1``.  (Log base 1 is
  undefined; the review's code fails there.)

Zero importances (Eastwood and Williams 2018 leave them undefined: their code divides
0 by 0) are read as follows:

* **A code no predictor uses** (zero total importance) has ``rho_j = 0`` and does not
  count in modularity, as the paper's weighting intends ("irrelevant" codes are
  weighted down) and disentanglement_lib does; every other code keeps its own score
  (the review's public code stops at the first such code and scores every later one
  0).  In compactness it takes a share 0 of every factor.
* **A factor no code is important for** (its predictor uses no code) is read in one
  of two ways, :data:`UNPREDICTED_READINGS`, each DCI variant's option
  ``unpredicted_factors``:

  - ``"absent"``: left out of every code's distribution over the factors (the formula
    read literally; disentanglement_lib up to its ``1e-11``), compactness 0.  It is
    the limit of a factor whose importances shrink to 0 together, which is how a
    lasso's weights vanish as its penalty grows (DCI-lasso's default until its
    version 2: on noise it too scored 0 or 1 by seed, see :mod:`metrics.dci_lasso`).
  - ``"even"``: spread evenly over the codes, with the mean total importance of the
    other factors (:func:`attributed`): the predictor prefers no code, so none can
    claim the factor.  A random forest's or a boosting's importances are normalised to
    sum to 1 per factor as soon as a tree splits, so they cannot shrink to 0: a factor
    jumps from a total of 1, which on noise its trees spread about evenly, to 0 when
    they do not split at all (at small ``n``, where the largest leaf size wins).  Read
    as absent, that jump made pure noise score 0 or 1 by seed: on codes independent
    of 5 factors at n = 100, a seed where one forest split on noise and the others
    did not gave DCI-RF modularity 1 (every code's importance on that one factor),
    the next seed, with no forest splitting, 0 (0.0 to 1.0, median 0.63, over 20
    seeds).  Read evenly, DCI-RF scores 0 there (0.00 to 0.07, median 0.001, keeping the best forest, version 2), as at large
    ``n``, where every forest splits on noise (0.01 at n = 20000, 8 x 8): the default
    of every DCI variant.  The price: a factor no code encodes lowers the modularity
    of the codes that encode the others, as a forest fitting it to noise always did.

* **No importance at all** (``R = 0``): modularity and compactness are 0 under either
  reading (the value of an importance matrix without structure; disentanglement_lib's
  all-zero matrix becomes all ones, which scores 0 too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits

from metrics._sampling import as_generator, derive_seeds, train_test_indices
from metrics.constraints import COUNT, FRACTION, Options
from metrics.options import check_choice

COMPLETENESS_WEIGHTINGS = ("importance", "uniform")
#: How modularity and compactness read a factor no code is important for (see the module notes).
UNPREDICTED_READINGS = ("even", "absent")
EXPLICITNESS_BASELINES = ("mean", "random_guess")
#: The rules of the options every DCI metric shares (:mod:`metrics.constraints`).
DCI_CONSTRAINTS = {"test_size": FRACTION, "completeness_weighting": Options(*COMPLETENESS_WEIGHTINGS),
                   "unpredicted_factors": Options(*UNPREDICTED_READINGS), "n_jobs": COUNT}

#: ``fit(codes_train, target_train, codes_test, seed) -> (importances (L,), predictions on codes_test)``
FactorFit = Callable[[np.ndarray, np.ndarray, np.ndarray, int], tuple[np.ndarray, np.ndarray]]


def unit_range(values: np.ndarray) -> np.ndarray:
    """Min-max scale each column to [0, 1]; a constant column becomes 0."""
    low = values.min(axis=0)
    span = values.max(axis=0) - low
    scale = np.divide(1.0, span, out=np.zeros_like(span), where=span > 0)
    return (values - low) * scale


def _normalized_entropy(probabilities: np.ndarray, axis: int) -> np.ndarray:
    """Entropy along ``axis`` in log base ``probabilities.shape[axis]`` (0 for a length-1 axis)."""
    size = probabilities.shape[axis]
    if size == 1:
        return np.zeros(np.delete(probabilities.shape, axis))
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(probabilities > 0, -probabilities * np.log(probabilities), 0.0)
    return terms.sum(axis=axis) / np.log(size)


def attributed(importance: np.ndarray) -> np.ndarray:
    """The importance matrix as modularity and compactness read it: each factor of zero total importance spread
    evenly over the codes, with the mean total of the other factors (1 when no factor has any; see the module notes).
    """
    per_factor = importance.sum(axis=0)
    unattributed = per_factor <= 0
    if not unattributed.any():
        return importance
    reference = float(per_factor[~unattributed].mean()) if not unattributed.all() else 1.0
    filled = importance.copy()
    filled[:, unattributed] = reference / importance.shape[0]
    return filled


def _entropy_scores(shares: np.ndarray, axis: int) -> np.ndarray:
    """``1 - H(shares)`` along ``axis`` in log base its length, within [0, 1] (an even spread's rounding kept at 0)."""
    return np.clip(1.0 - _normalized_entropy(shares, axis=axis), 0.0, 1.0)


def _read(importance: np.ndarray, unpredicted: str) -> np.ndarray | None:
    """The importance matrix as modularity and compactness read it under ``unpredicted`` (one of
    :data:`UNPREDICTED_READINGS`); None when there is no importance at all (both scores are then exactly 0, not
    the rounding of an even spread)."""
    check_choice(unpredicted, "unpredicted_factors", UNPREDICTED_READINGS)
    if not importance.any():
        return None
    return attributed(importance) if unpredicted == "even" else importance


def disentanglement(importance: np.ndarray, unpredicted: str = "even") -> float:
    """Importance-weighted mean over codes of ``1 - H_K(P_j.)``; ``unpredicted`` reads a factor of zero importance
    (see the module notes)."""
    importance = _read(importance, unpredicted)
    if importance is None:
        return 0.0
    per_code = importance.sum(axis=1)
    shares = np.divide(importance, per_code[:, None], out=np.zeros_like(importance), where=per_code[:, None] > 0)
    return float(np.sum(per_code / per_code.sum() * _entropy_scores(shares, axis=1)))


def completeness(importance: np.ndarray, weighting: str = "importance", unpredicted: str = "even") -> float:
    """Mean over factors of ``1 - H_L(P_.k)``, weighted as ``weighting`` says; ``unpredicted`` reads a factor of
    zero importance (see the module notes).  Such a factor scores 0 either way where there are several codes; with a
    single code every factor's distribution over the codes is that code (entropy 0), so under ``"even"`` such a factor
    scores 1, as every predicted one does (a single code is as compact as can be).
    """
    if weighting not in COMPLETENESS_WEIGHTINGS:
        raise ValueError(f"completeness_weighting must be one of {COMPLETENESS_WEIGHTINGS}, got {weighting!r}")
    importance = _read(importance, unpredicted)
    if importance is None:
        return 0.0
    per_factor = importance.sum(axis=0)
    shares = np.divide(importance, per_factor[None, :], out=np.zeros_like(importance), where=per_factor[None, :] > 0)
    scores = np.where(per_factor > 0, _entropy_scores(shares, axis=0), 0.0)
    weights = per_factor / per_factor.sum() if weighting == "importance" else np.full(per_factor.size, 1.0 / per_factor.size)
    return float(np.sum(weights * scores))


def simplest_within_one_se(losses: Sequence[float], standard_errors: Sequence[float], simplicity: Sequence[float]) -> int:
    """The one-standard-error rule (Breiman et al. 1984, section 3.4.3; Hastie et al. 2009, section 7.10): the index of
    the simplest candidate (largest ``simplicity``, the first of equal ones) whose loss is at most the least loss plus
    the standard error of that least one (the first of equal least losses).

    Both DCI variants choose their model by it: DCI-RF among forests of several leaf sizes (loss: minus the
    out-of-bag R²; simplicity: the leaf size), DCI-lasso among penalties (loss: the mean cross-validated error;
    simplicity: the penalty).
    """
    losses = np.asarray(losses, dtype=float)
    least = int(np.argmin(losses))
    within = np.flatnonzero(losses <= losses[least] + standard_errors[least])
    return int(within[np.argmax(np.asarray(simplicity, dtype=float)[within])])


def regression_explicitness(baseline: str) -> Callable[[np.ndarray, np.ndarray], float]:
    """The held-out explicitness of one factor from [0, 1]-scaled targets, clipped at 0.

    ``baseline`` is the predictor that scores 0:

    * ``"mean"``: ``1 - MSE / Var(v)``, the held-out coefficient of determination
      (``1 - 12 MSE`` for a uniform factor).  A predictor that learnt nothing
      returns the mean and scores 0; one that explains a fraction ``R^2`` of the
      factor's variance scores ``R^2``.
    * ``"random_guess"``: the review's ``1 - 6 MSE`` (section 4.3.1): 1/6 is
      E[(X - Y)^2] for independent ``X, Y ~ U(0, 1)``, the error of guessing an
      independent uniform value.  A predictor that learnt nothing returns the mean
      of a uniform factor, ``MSE = 1/12``, and scores 0.5; in general this is
      ``0.5 + 0.5 R^2`` for a uniform factor.

    Returns
    -------
    callable
        ``score(targets, predictions) -> float``.
    """
    if baseline not in EXPLICITNESS_BASELINES:
        raise ValueError(f"explicitness_baseline must be one of {EXPLICITNESS_BASELINES}, got {baseline!r}")

    def score(targets: np.ndarray, predictions: np.ndarray) -> float:
        mse = float(np.mean((targets - predictions) ** 2))
        if baseline == "random_guess":
            return max(0.0, 1.0 - 6.0 * mse)
        variance = float(np.var(targets))
        if variance == 0:  # a held-out part where the factor happens not to vary
            return 1.0 if mse == 0 else 0.0
        return max(0.0, 1.0 - mse / variance)

    return score


def _fit_factors(tasks: Sequence[tuple[FactorFit, np.ndarray, int]], codes_train: np.ndarray,
                 codes_test: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Run each task's ``fit(codes_train, target, codes_test, seed)`` with one BLAS thread, so that results do not
    depend on the machine's thread count, and without scikit-learn's checks of its inputs and parameters: every DCI
    variant checks its options, and the codes and targets are finite (validated at the metric's entry).  The limit is
    set once for all the tasks (finding the loaded BLAS libraries costs milliseconds)."""
    from sklearn import config_context
    with threadpool_limits(limits=1, user_api="blas"), config_context(assume_finite=True, skip_parameter_validation=True):
        return [fit(codes_train, target, codes_test, seed) for fit, target, seed in tasks]


def run_dci(
    codes: np.ndarray,
    targets: np.ndarray,
    fit: FactorFit | Sequence[FactorFit],
    explicitness: Callable[[np.ndarray, np.ndarray], float],
    *,
    test_size: float,
    random_state: int | np.random.Generator | None,
    completeness_weighting: str,
    n_jobs: int,
    metric: str,
    unpredicted_factors: str,
    max_train: int | None = None,
) -> dict[str, float]:
    """Fit one predictor per factor on a training split and score DCI.

    Parameters
    ----------
    codes : numpy.ndarray
        ``(n, L)`` predictor inputs.
    targets : numpy.ndarray
        ``(n, K)`` what each predictor must recover (scaled factors or bin labels).
    fit : callable or sequence of callables
        ``fit(codes_train, target_train, codes_test, seed) -> (importances, predictions)``,
        the same for every factor or one per factor.
    explicitness : callable
        ``explicitness(target_test, predictions) -> float`` for one factor; the
        sub-score is the mean over factors.
    test_size : float
        Fraction of the samples held out for explicitness.
    random_state : int or numpy.random.Generator
        Seeds the split and every predictor.
    completeness_weighting : {"importance", "uniform"}
        See :func:`completeness`.
    unpredicted_factors : {"even", "absent"}
        How a factor no code is important for is read (see the module notes).
    n_jobs : int
        Factors fitted in parallel (joblib); 1 fits them one after another.
    metric : str
        Name used in error messages.
    max_train : int, optional
        Cap on the number of training samples (a random ``max_train`` of the
        training split); None uses the whole split.

    Returns
    -------
    dict
        ``{"modularity", "compactness", "explicitness"}``.
    """
    rng = as_generator(random_state)
    train, test = train_test_indices(codes.shape[0], test_size, rng, metric)
    if max_train is not None:
        train = rng.permutation(train)[:max_train]
    seeds = derive_seeds(rng, targets.shape[1])
    codes_train, codes_test = codes[train], codes[test]
    fits = [fit] * targets.shape[1] if callable(fit) else list(fit)
    tasks = [(fits[k], targets[train, k], seeds[k]) for k in range(targets.shape[1])]
    if n_jobs == 1:
        fitted = _fit_factors(tasks, codes_train, codes_test)
    else:
        fitted = [result for results in Parallel(n_jobs=n_jobs)(delayed(_fit_factors)([task], codes_train, codes_test) for task in tasks)
                  for result in results]
    importance = np.column_stack([np.abs(np.asarray(imp, dtype=np.float64)) for imp, _ in fitted])
    scores = [explicitness(targets[test, k], predictions) for k, (_, predictions) in enumerate(fitted)]
    return {
        "modularity": disentanglement(importance, unpredicted_factors),
        "compactness": completeness(importance, completeness_weighting, unpredicted_factors),
        "explicitness": float(np.mean(scores)),
    }
