"""UniBound (Tokui and Sato 2022, eq. 6): the unique-information lower bound of each factor."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from metrics._pid_bounds import closed_form_scores, pid_bounds
from metrics.constraints import UNIT
from metrics.estimators import DEFAULT_ESTIMATOR, DEFAULT_NEIGHBORS, ESTIMATOR_CONSTRAINTS
from metrics.information import DEFAULT_BINS
from metrics.registry import register_metric


def unibound_closed_form(
    exact: Mapping[str, Any], discrete: Sequence[bool] | None = None, *, bins: int, normalize: str, **estimation: Any
) -> dict[str, float]:
    """:func:`unibound` computed from closed-form informations instead of estimates.

    Eq. 6 of Tokui and Sato (2022) on the exact I(v_k; z_l) and I(v_k; z_\\l), normalised
    as :func:`unibound` does (:func:`metrics._pid_bounds.closed_form_scores`): the value a
    consistent estimator's score converges to as n grows, whatever ``estimation``
    (``estimator``, ``neighbors``) is.  Empty where the normalisation depends on the sample.
    """
    scores = closed_form_scores(exact, discrete, bins=bins, normalize=normalize)
    return {"unibound": float(np.mean(scores["unique_lower"]))} if scores else {}


@register_metric(
    "unibound",
    family="information",
    properties="compactness",
    closed_form=unibound_closed_form,
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={**ESTIMATOR_CONSTRAINTS},
    score_range=UNIT,
)
def unibound(
    factors,
    codes,
    *,
    discrete=None,
    estimator: str = DEFAULT_ESTIMATOR,
    neighbors: int = DEFAULT_NEIGHBORS,
    bins: int = DEFAULT_BINS,
    normalize: str = "bounded",
) -> float:
    """UniBound: how much of each factor's information one code holds and no other code does.

    Definition (Tokui and Sato 2022, eq. 6)::

        UNIBOUND = 1/K sum_k 1/D_k max_l [ I(v_k; z_l) - I(v_k; z_\\l) ]_+

    where ``z_\\l`` is every code but ``z_l``.  The bracket is a lower bound of the unique
    information U(v_k; z_l \\ z_\\l) under any partial information decomposition (eq. 5).
    Unlike MIG, which subtracts the single second-best code, it subtracts the information of
    *all* other codes together, so information spread redundantly over several codes (the
    redundancy attack, eq. 9) is not counted as disentangled.  The maximum over ``l`` is
    attained at the factor's most informative code (see :mod:`metrics._pid_bounds`).

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Categorical factors (Ross's estimator under ``knn``; categories in the histogram
        estimators and in H(v_k)).
    estimator : {"knn", "knn_full", "gaussian", "histogram", "miller_madow"}, default "knn"
        Estimator of the mutual informations (:mod:`metrics.estimators`).  ``knn`` is
        accurate to 0.02 nats per factor on the Gaussian toy model at N = 20000 and
        costs 4 s of CPU for 8 factors x 10 codes at N = 20000; ``gaussian`` is exact for linear-Gaussian codes,
        blind to nonlinear ones and nearly free.  The histogram estimators handle one code
        column, so they apply only when ``L = 1`` (I(v_k; z) needs every code).
    neighbors : int, default 3
        ``k`` of the k-NN estimators.
    bins : int, default 10
        Bins of continuous columns for the histogram estimators and for H(v_k).
    normalize : {"bounded", "entropy", "none"}, default "bounded"
        The divisor ``D_k``.  ``"none"``: raw nats (the paper's Table 1).  ``"entropy"``:
        H(v_k) as in eq. 6, the plug-in entropy of the factor's categories, or of the factor
        binned into ``bins`` equal-width bins when it is continuous.  For a continuous factor
        this binned entropy is the information needed to place the factor in one of the
        bins; its differential entropy is not used because it depends on the factor's units
        and can be negative.  A precise code carries more than the binned entropy, so the
        score can exceed 1 (1.37 on the unattacked Gaussian toy model of Tokui and Sato).
        ``"bounded"`` (default): ``max(H(v_k), I(v_k; z))``: the paper's normalisation
        whenever the codes hold less than H(v_k) (always for discrete factors), otherwise the
        share of the captured information that is unique, so the score lies in [0, 1] and
        is comparable with the other metrics in reports.

    Notes
    -----
    * Measures compactness: it falls when a factor's information is held redundantly or
      synergistically by several codes.  Under ``"bounded"`` normalisation a single code holding a noisy copy of a
      continuous factor scores 1 only where the code carries at least the factor's binned entropy (the divisor is then
      the information captured, all of it unique); a noisier copy carries less, the divisor is H(v_k), and the score
      is the share I(v_k; z) / H(v_k) (0.175 for a copy with noise of the factor's own variance, n = 3000).
    * A constant factor contributes 0.  With a single code, I(v_k; z_\\l) = 0 and the score
      is the factor's normalised information.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Those of the estimators (:mod:`metrics.estimators`, "Invariances"); not monotone.
    * Cost: ``K L`` single-code and ``2 K`` multi-code estimates of
      :func:`metrics.estimators.mutual_information` (the single-code ones batched by
      :func:`metrics.estimators.pairwise_information`), nearly all of it k-d tree queries under
      ``knn``; seconds per call: the cost table of ``metrics/README.md``.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.unibound import unibound
    >>> round(unibound(factors, codes), 2), round(unibound(factors, entangled), 2)
    (0.73, 0.27)
    """
    result = pid_bounds(factors, codes, discrete, estimator=estimator, neighbors=neighbors, bins=bins, normalize=normalize)
    return float(np.mean(result.scores()["unique_lower"]))
