"""Bounds of unique, redundant and complementary information (Tokui and Sato 2022, eq. 7)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from metrics._pid_bounds import BOUND_NAMES, CODE_CHOICES, closed_form_scores, pid_bounds
from metrics.constraints import UNIT, Options
from metrics.estimators import DEFAULT_ESTIMATOR, DEFAULT_NEIGHBORS, ESTIMATOR_CONSTRAINTS
from metrics.information import DEFAULT_BINS
from metrics.registry import register_metric

SUB_SCORE_PROPERTIES = {**{name: "compactness" for name in BOUND_NAMES}, "information": "explicitness"}
DIRECTIONS = {name: name.startswith("unique") for name in BOUND_NAMES}
"""Unique information is better high; redundant and complementary information grow with entanglement."""


def pid_closed_form(
    exact: Mapping[str, Any],
    discrete: Sequence[bool] | None = None,
    *,
    bins: int,
    normalize: str,
    code_choice: str,
    **estimation: Any,
) -> dict[str, float]:
    """The PID bounds of :func:`pid` computed from closed-form informations instead of estimates.

    Eq. 7 of Tokui and Sato (2022) applied to the exact I(v_k; z_l), I(v_k; z_\\l) and
    I(v_k; z) with the same ``code_choice`` and normalisation
    (:func:`metrics._pid_bounds.closed_form_scores`), averaged over factors: the values a consistent
    estimator's bounds converge to as n grows (``knn``, ``knn_full``, and ``gaussian`` on this
    linear-Gaussian model), whatever ``estimation`` (``estimator``, ``neighbors``) is.  Empty where the normalisation depends on the sample.
    """
    scores = closed_form_scores(exact, discrete, bins=bins, normalize=normalize, code_choice=code_choice)
    return {name: float(np.mean(scores[name])) for name in SUB_SCORE_PROPERTIES} if scores else {}


@register_metric(
    "pid",
    family="information",
    properties=SUB_SCORE_PROPERTIES,
    higher_is_better=DIRECTIONS,
    closed_form=pid_closed_form,
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={**ESTIMATOR_CONSTRAINTS, "code_choice": Options(*CODE_CHOICES)},
    score_range=UNIT,
)
def pid(
    factors,
    codes,
    *,
    discrete=None,
    estimator: str = DEFAULT_ESTIMATOR,
    neighbors: int = DEFAULT_NEIGHBORS,
    bins: int = DEFAULT_BINS,
    normalize: str = "bounded",
    code_choice: str = "argmax",
) -> dict[str, float]:
    """Lower and upper bounds of each PID term, averaged over factors.

    For each factor ``v_k`` and a code ``z_l`` (see ``code_choice``), the information I(v_k; z) is decomposed into unique information of ``z_l``
    (U), redundant information shared by ``z_l`` and the rest ``z_\\l`` (R), complementary
    (synergistic) information available only from both together (C), and unique
    information of the rest.  Eq. 7 bounds U, R and C with
    ``II = I(v_k; z_l) + I(v_k; z_\\l) - I(v_k; z)``::

        [I(v_k; z_l) - I(v_k; z_\\l)]_+ <= U <= I(v_k; z_l) - [II]_+
        [II]_+                           <= R <= min(I(v_k; z_l), I(v_k; z_\\l))
        [-II]_+                          <= C <= min(I(v_k; z_l), I(v_k; z_\\l)) - II

    Each bound is divided by the factor's ``D_k`` (see ``normalize``) and averaged over
    factors.  Per-factor values come from :func:`metrics._pid_bounds.pid_bounds`.

    Parameters
    ----------
    factors, codes, discrete, estimator, neighbors, bins, normalize
        As in :func:`metrics.unibound.unibound`.
    code_choice : {"argmax", "per_bound", "lower_bound"}, default "argmax"
        Which code ``l`` each bound is read at (see :mod:`metrics._pid_bounds`):
        ``"argmax"``, the factor's most informative code for all six bounds;
        ``"per_bound"``, each bound maximised over ``l`` separately (Tokui and Sato's
        code); ``"lower_bound"``, each lower bound maximised over ``l`` and its upper
        bound at the same ``l`` (their section 3.4).

    Returns
    -------
    dict[str, float]
        ``unique_lower`` (= UniBound), ``unique_upper``, ``redundant_lower``,
        ``redundant_upper``, ``complementary_lower``, ``complementary_upper`` and
        ``information`` (I(v_k; z) / D_k: how much of the factor the codes hold at all).

    Notes
    -----
    * Properties.  All six bounds are about how one factor's information is spread over
      the codes (one code alone vs the rest), which is compactness in the review's
      taxonomy (Zaidi et al. 2022): U is high for a factor held by one code, R for a factor
      copied into several codes (redundancy attack, eq. 9), C for a factor recoverable only
      from several codes together (synergy attack, eq. 10).  ``information`` is I(v_k; z),
      the explicitness of the whole code.
    * Direction.  U and ``information`` are higher-is-better; R and C grow with
      entanglement, so they are registered lower-is-better (``MetricSpec.directions``).
    * Tokui and Sato's Table 5 reading: a factor is disentangled when ``unique_lower``
      exceeds ``redundant_upper`` and ``complementary_upper``.
    * In the Gaussian toy model under either attack the lower and upper bounds coincide
      (Tokui and Sato, Appendix C), so the PID terms are known exactly there.
    * When no single code carries information about a factor beyond the estimator's noise
      (synergy attack at alpha >= 8: 0.008 nats per code), ``"argmax"`` picks the code ``l``
      by that noise, and that factor's split between U, R and C follows it: in the Gaussian
      toy model at n = 10000 the complementary bounds fall short of the exact 2.30 nats
      for the factors whose ``l`` lands on another factor's code.  ``"per_bound"`` recovers
      the exact terms there (UniBound itself is ~0 for every ``l`` and unaffected).
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Those of the estimators (:mod:`metrics.estimators`, "Invariances"); not monotone.
    * Cost: as UniBound (the same estimates) under ``"argmax"``; ``L + 1`` multi-code
      estimates per factor instead of 2 under the other choices.  Under ``knn`` nearly all
      of it is the estimators' k-d trees and sorted counts (:mod:`metrics._knn`, "Cost"):
      at n = 20000, 8 x 8, 80 two-dimensional estimates of about 25 ms each.

    Examples
    --------
    Every sub-score of a code whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.pid import pid
    >>> for sub, score in pid(factors, entangled).items():
    ...     print(sub, round(score, 2))
    unique_lower 0.27
    unique_upper 0.38
    redundant_lower 0.0
    redundant_upper 0.11
    complementary_lower 0.25
    complementary_upper 0.36
    information 0.75
    """
    scores = pid_bounds(
        factors, codes, discrete, estimator=estimator, neighbors=neighbors, bins=bins, normalize=normalize, code_choice=code_choice
    ).scores()
    return {name: float(np.mean(scores[name])) for name in SUB_SCORE_PROPERTIES}
