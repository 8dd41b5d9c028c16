"""InfoMEC: InfoM, InfoC and InfoE (Hsu, Dorrell, Whittington, Wu and Finn 2023)."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from metrics._multinomial import fit_multinomial_logistic
from metrics.constraints import AT_LEAST_TWO, POSITIVE, UNIT, Interval, Options
from metrics.information import DEFAULT_BINS, factor_code_information, normalized_mutual_information, to_labels
from metrics.registry import register_metric

PRUNINGS = ("information", "range", "none")
#: The most InfoE moves from the score of scikit-learn's default fits (lbfgs stopped at ``tol=1e-4`` or 100 iterations,
#: as in the authors' code and this metric before version 3) to that of the regressions' minimisers (see Notes).
SCIKIT_LEARN_TOLERANCE = 0.04


def _active_codes(codes: np.ndarray, nmi: np.ndarray, pruning: str, threshold: float) -> np.ndarray:
    """``(L,)`` mask of the codes kept by the pruning rule (see :func:`infomec`)."""
    if pruning == "none":
        return np.ptp(codes, axis=0) > 0
    if pruning == "range":
        ranges = np.ptp(codes, axis=0)
        return ranges > ranges.max() * threshold
    return nmi.max(axis=0, initial=0.0) > threshold


def _concentration(nmi: np.ndarray, axis: int) -> np.ndarray:
    """Per slice along ``axis``: ``max / sum`` of the NMI, rescaled from ``[1/m, 1]`` to [0, 1].

    ``m`` is the length of the reduced axis; with ``m = 1`` the ratio is 1 and so is
    the score.  A slice whose NMI sums to 0 carries nothing: 0.
    """
    size = nmi.shape[axis]
    total = nmi.sum(axis=axis)
    ratio = np.divide(nmi.max(axis=axis), total, out=np.full(total.shape, 1.0 / size), where=total > 0)
    if size == 1:
        return np.where(total > 0, 1.0, 0.0)
    return (ratio - 1.0 / size) / (1.0 - 1.0 / size)


def _standardized(codes: np.ndarray) -> np.ndarray:
    """The varying codes centred and divided by their standard deviation.

    A constant code carries no information and is left out of the regressions: a column of
    zeros would only add unknowns that the penalty holds at 0.

    Not :func:`metrics._knn.standardize`, which divides by the deviation of the centred
    codes: equal in exact arithmetic, not bit for bit, and the scores keep these bits.
    """
    varying = codes[:, np.ptp(codes, axis=0) > 0]
    return (varying - varying.mean(axis=0)) / varying.std(axis=0)


def _explicitness(standardized: np.ndarray, labels: np.ndarray, prior_entropy: float, inverse_penalty: float) -> float:
    """``1 - log-loss(logistic regression on standardised codes) / H(v)`` on the same rows, floored at 0.

    The regression is scikit-learn's ``LogisticRegression(C=inverse_penalty)`` at its minimiser
    (:func:`metrics._multinomial.fit_multinomial_logistic`); the log-loss clips the probabilities at 1e-15 as
    ``sklearn.metrics.log_loss`` did.  0 when the factor or every code is constant (no code can lower the factor's
    log-loss).
    """
    if prior_entropy <= 0 or standardized.shape[1] == 0:
        return 0.0
    model = fit_multinomial_logistic(standardized, labels, inverse_penalty)
    log_probabilities = np.maximum(model.log_probabilities(standardized), np.log(1e-15))
    columns = np.searchsorted(model.classes, labels)
    log_loss = -float(np.mean(log_probabilities[np.arange(labels.size), columns]))
    return max(0.0, 1.0 - log_loss / prior_entropy)


@register_metric(
    "infomec",
    family="information",
    properties={"infom": "modularity", "infoc": "compactness", "infoe": "explicitness"},
    version="3",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={"bins": AT_LEAST_TWO, "pruning": Options(*PRUNINGS),
                 "pruning_threshold": Interval(float, 0.0, 1.0, closed="left"), "inverse_penalty": POSITIVE},
    score_range=UNIT,
)
def infomec(
    factors,
    codes,
    *,
    discrete=None,
    bins: int = DEFAULT_BINS,
    pruning: str = "information",
    pruning_threshold: float = 0.05,
    inverse_penalty: float = 1e4,
) -> dict[str, float]:
    """InfoMEC: modularity, compactness and explicitness from normalised mutual information.

    Definition (Hsu et al. 2023, "Disentanglement via Latent Quantization", NeurIPS,
    section 4, "InfoMEC").  With ``NMI_kj = I(v_k; z_j) / H(v_k)`` (``K`` factors, the
    ``L'`` codes left *active* after pruning)::

        InfoM = ( 1/L' sum_j  max_k NMI_kj / sum_k NMI_kj  - 1/K ) / (1 - 1/K)
        InfoC = ( 1/K  sum_k  max_j NMI_kj / sum_j NMI_kj  - 1/L') / (1 - 1/L')
        InfoE = 1/K sum_k ( H(v_k) - CE_k ) / H(v_k)

    where ``CE_k`` is the in-sample log-loss of a multinomial logistic regression
    predicting (the bins of) ``v_k`` from all standardised codes, at its minimiser, and ``H(v_k)`` the log-loss of
    the best constant predictor (the class frequencies).  InfoM and InfoC rescale the
    concentration ``max / sum`` from its range ``[1/m, 1]`` to [0, 1].

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Discrete factors keep their categories; continuous ones are cut into ``bins``
        equal-width bins (the paper's factors are discrete).
    bins : int, default 10
        Bins per continuous column, for the NMI and for the classes of InfoE.
    pruning : {"information", "range", "none"}, default "information"
        Which codes are active.  ``"range"`` is the authors' rule: a code whose range
        exceeds ``pruning_threshold`` times the largest range (they use 1/20); it
        depends on the codes' scales, so rescaling one code changes the score.
        ``"information"`` (default) keeps a code whose largest NMI exceeds
        ``pruning_threshold``: scale-free, and dead or noise codes are dropped alike.
        ``"none"`` keeps every non-constant code.
    pruning_threshold : float, default 0.05
        Threshold of the pruning rule.  With ``"information"``, 0.05 sits well above the
        plug-in bias of an independent code (about ``(bins - 1)^2 / (2 n H)``, 0.009 at
        ``n = 2000``).
    inverse_penalty : float, default 1e4
        Inverse L2 penalty ``C`` of the logistic regressions (the authors use none; a
        weak penalty keeps the fit finite on separable classes at the same scores).

    Returns
    -------
    dict
        ``{"infom": ..., "infoc": ..., "infoe": ...}``, each in [0, 1].  With no active
        code, InfoM and InfoC are 0.

    Notes
    -----
    * Authors' code (github.com/kylehkhsu/latent_quantization,
      ``disentangle/metrics/infomec.py``): followed in the three formulas, the
      in-sample log-loss of an unpenalised-in-effect logistic regression on
      standardised codes, and the NMI normalisation by ``H(v_k)``.  Their regression is
      scikit-learn's lbfgs at its default stopping (``tol=1e-4``, ``max_iter=100``),
      short of the minimiser; this implements the paper's definition, the minimiser
      itself (:mod:`metrics._multinomial`, since version 3).  The difference in InfoE is
      at most :data:`SCIKIT_LEARN_TOLERANCE` = 0.04, the largest measured (over 166
      inputs of noise, mixing, rotation and nonlinear codes, n 500 to 5000, 5 to 20
      bins, C 1 and 1e4): 0.037 on the review's tan map at ``alpha = 1`` with 20 bins,
      whose heavy-tailed codes lbfgs leaves far from the minimiser after 100
      iterations (0.01 to 0.03 there with 10 or 20 bins; below 3e-3 elsewhere); ``tests/metrics/test_multinomial.py``).  Departures: the
      NMI of continuous codes is the plug-in histogram estimate of
      :mod:`metrics.information` (theirs: Kraskov k-NN with 10 neighbours);
      the null model is the closed-form ``H(v_k)`` and classes are not re-weighted
      (theirs: ``class_weight="balanced"`` for both fits); the default pruning rule
      (see ``pruning``); a factor or code with zero total NMI counts 0 instead of NaN.
    * One active code.  With ``L' = 1`` InfoC's rescaling is 0/0 (the authors' code returns NaN); here every
      factor with information in that code counts 1 (all of its information that survives the pruning sits in
      one code), so InfoC jumps from its two-code value to 1 when the pruning keeps one code.  Where the codes'
      information hovers at ``pruning_threshold`` the score is then bimodal across draws: on the ``noise``
      scenario at ``alpha = 0.8`` (8 x 8, n = 1000) the default study's seeds read 0.20, 0.18 and 1.00, the
      last keeping one code (InfoM, whose concentration is over the factors: 0.22, 0.19, 0.20).
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Equal-width bins over each code's own range (which a rescaled code shares and a
      negated one mirrors) for the NMI, standardised codes for InfoE's regressions, the
      information pruning, and counts and fits that do not depend on the order of the
      rows or codes (the regressions' minimisers, to about 1e-9).  With
      ``pruning="range"`` rescaling a code changes which codes are active.  Not
      monotone: the binning and the linear classifier follow a code's units.
    * Scores: on ``z = v``, InfoM and InfoC approach 1 as ``n`` grows but are held below it
      by the plug-in bias of the off-diagonal pairs, whose NMI is not 0 at finite ``n``
      (8 factors, 10 bins: 0.88 at n = 1000, 0.97 at 5000, 0.993 at 20000), InfoE about
      0.98-0.99; on independent codes InfoM = InfoC = 0 (every
      code pruned) and InfoE is the in-sample overfit, about ``(C - 1)(L + 1) / (2 n H)``.
    * Cost: one MI matrix and ``K`` logistic regressions, each solved by Newton's
      method (5 to 15 steps on the inputs measured; :mod:`metrics._multinomial`).

    Examples
    --------
    Every sub-score of the perfect code, then of one whose first two codes mix two factors (300 samples, 3
    factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.infomec import infomec
    >>> for z in (codes, entangled):
    ...     print({sub: round(score, 2) for sub, score in infomec(factors, z).items()})
    {'infom': 0.74, 'infoc': 0.74, 'infoe': 0.69}
    {'infom': 0.36, 'infoc': 0.36, 'infoe': 0.69}
    """
    factor_labels = to_labels(factors, discrete, bins)
    table = factor_code_information(factors, codes, discrete, bins)
    nmi = normalized_mutual_information(table, "factor")
    active = _active_codes(codes, nmi, pruning, pruning_threshold)
    if active.any():
        pruned = nmi[:, active]
        infom = float(np.mean(_concentration(pruned, axis=0)))
        infoc = float(np.mean(_concentration(pruned, axis=1)))
    else:
        infom = infoc = 0.0
    prior = table.factor_entropy  # H(v_k) of the same binned factors
    standardized = _standardized(codes)  # once for the K regressions
    # one BLAS thread: the products are small (n x L), and threads contending on a busy machine made the regression 10x
    # slower (4.3 s against 0.33 s for 3 factors at n = 1500, load 10 on 2 cores); set once for the K regressions
    # (finding the BLAS libraries costs milliseconds)
    with threadpool_limits(limits=1, user_api="blas"):
        infoe = float(np.mean([_explicitness(standardized, factor_labels.codes[:, k], prior[k], inverse_penalty)
                               for k in range(factors.shape[1])]))
    return {"infom": infom, "infoc": infoc, "infoe": infoe}
