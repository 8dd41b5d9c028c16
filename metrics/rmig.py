"""Robust MIG (Do and Tran 2020, section 3.3, eq. 10)."""

from __future__ import annotations

import numpy as np

from metrics.constraints import UNIT
from metrics.estimators import (
    DEFAULT_ESTIMATOR,
    DEFAULT_NEIGHBORS,
    ESTIMATOR_CONSTRAINTS,
    binned_entropy,
    information_denominator,
    normalized,
    pairwise_information,
)
from metrics.gap import best_and_second
from metrics.information import DEFAULT_BINS
from metrics.registry import register_metric


@register_metric(
    "rmig",
    family="information",
    properties="compactness",
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={**ESTIMATOR_CONSTRAINTS},
    score_range=UNIT,
)
def rmig(
    factors,
    codes,
    *,
    discrete=None,
    estimator: str = DEFAULT_ESTIMATOR,
    neighbors: int = DEFAULT_NEIGHBORS,
    bins: int = DEFAULT_BINS,
    normalize: str = "bounded",
) -> float:
    """RMIG: per factor, the gap between the information of its two most informative codes.

    Definition (Do and Tran 2020, eq. 10)::

        RMIG = 1/K sum_k [ I(z_i*; v_k) - I(z_j°; v_k) ] / D_k

    where ``z_i*`` and ``z_j°`` share the most and second-most information with ``v_k``.
    RMIG differs from MIG (Chen et al. 2018) in its probabilistic assumption:
    ``p(z_i, v_k, x) = q(z_i | x) p(v_k | x) p(x)`` instead of conditioning x on v_k.  In this
    harness x is represented by the factors (:mod:`metrics._do_tran`), ``p(v_k | x)`` is a
    Dirac and each row is one draw of ``(v_k, z_i)``, so the two assumptions give the same
    joint sample; what sets RMIG apart from the registered ``mig`` is that continuous
    factors and codes need not be binned (``estimator``) and that the paper's RMIG is
    unnormalised (``normalize="none"``).

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Categorical factors.
    estimator : {"knn", "knn_full", "gaussian", "histogram", "miller_madow"}, default "knn"
        Estimator of each I(v_k; z_i) (:mod:`metrics.estimators`); the paper quantises (our
        ``"histogram"``, with ``bins`` bins over each column's range instead of [-4, 4]) or
        samples the encoder density (closest here: ``"knn"``).
    neighbors : int, default 3
        ``k`` of the k-NN estimators.
    bins : int, default 10
        Bins of continuous columns (histogram estimators and H(v_k)).
    normalize : {"bounded", "entropy", "none"}, default "bounded"
        ``D_k``: ``"entropy"`` is H(v_k) (binned when continuous), which the paper notes
        favours factors of low entropy; ``"bounded"`` is ``max(H(v_k), I(z_i*; v_k))`` so each
        gap lies in [0, 1]; ``"none"`` is 1 (nats, eq. 10).

    Notes
    -----
    * Measures compactness, like MIG: a factor copied into two codes has a gap of 0.
    * With a single code the runner-up information is 0.  A constant factor contributes 0.
    * Do and Tran's JEMMIG is the registered ``jemmig`` read as ``1 - score``.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Those of the estimators (:mod:`metrics.estimators`, "Invariances"); not monotone.
    * Cost: ``K L`` single-code estimates (:func:`metrics.estimators.pairwise_information`);
      seconds per call: the cost table of ``metrics/README.md``.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.rmig import rmig
    >>> round(rmig(factors, codes), 2), round(rmig(factors, entangled), 2)
    (0.73, 0.28)
    """
    flags = tuple(discrete) if discrete is not None else (False,) * factors.shape[1]
    information = pairwise_information(factors, codes, flags, estimator=estimator, neighbors=neighbors, bins=bins)
    best, _, second = best_and_second(information, axis=1)
    denominator = information_denominator(binned_entropy(factors, flags, bins), best, normalize)
    return float(np.mean(normalized(best - second, denominator)))
