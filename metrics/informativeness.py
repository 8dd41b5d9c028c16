"""Informativeness I(x; z_i) of each code (Do and Tran 2020, section 3.1, eq. 1)."""

from __future__ import annotations

import numpy as np

from metrics._do_tran import DO_TRAN_CONSTRAINTS, code_denominator, informativeness_nats
from metrics.constraints import UNIT
from metrics.estimators import DEFAULT_ESTIMATOR, DEFAULT_NEIGHBORS, normalized
from metrics.information import DEFAULT_BINS
from metrics.registry import register_metric


@register_metric(
    "informativeness",
    family="information",
    properties="explicitness",
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={**DO_TRAN_CONSTRAINTS},
    score_range=UNIT,
)
def informativeness(
    factors,
    codes,
    *,
    discrete=None,
    estimator: str = DEFAULT_ESTIMATOR,
    neighbors: int = DEFAULT_NEIGHBORS,
    bins: int = DEFAULT_BINS,
    normalize: str = "bounded",
) -> float:
    """Mean informativeness of the codes about the data: 1/L sum_i I(x; z_i) / D_i.

    Definition (Do and Tran 2020, eq. 1): I(x; z_i) = H(z_i) - H(z_i | x), large when the
    code varies with the data and little given it.  Here x is represented by the whole
    factor matrix, I(x; z_i) = I(v; z_i) (see :mod:`metrics._do_tran`).

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Unused: x is the joint factor vector whatever the factor types.
    estimator : {"knn", "knn_full", "gaussian"}, default "knn"
        Estimator of I(z_i; v) (:mod:`metrics.estimators`; ``knn`` projects the factors on
        the code's best linear predictor, exact for codes that are linear in the factors or
        monotone in one factor).
    neighbors : int, default 3
        ``k`` of the k-NN estimators.
    bins : int, default 10
        Bins of the quantised H(z_i) used by the normalisation.
    normalize : {"bounded", "entropy", "none"}, default "bounded"
        ``D_i``: ``"entropy"`` is the paper's H(z_i) (quantised); ``"bounded"`` is
        ``max(H(z_i), I(x; z_i))``, which keeps each term in [0, 1]; ``"none"`` is 1 (nats).
        The paper also suggests dividing by ``log(bins)`` instead of H(z_i); with the
        engine's per-column binning H(z_i) <= log(bins), so ``"entropy"`` is the larger score.

    Notes
    -----
    * Measures explicitness: how much of the data each code captures.  Unlike the
      review's explicitness it averages single codes, so a code mixing two factors is as
      informative as one carrying one factor (I(v; v_1 + v_2) is infinite).
    * Averaging over codes penalises extra noise codes (Do and Tran, section 3.2).
    * A deterministic code reaches the estimator's ceiling, and scores 1 under ``"bounded"``, where the estimator sees
      the relation: any monotone function of the factors with the default ``knn`` (which reads the code's best linear
      predictor from the factors), any function with ``knn_full``.  With ``knn``, a code that is not monotone in the
      factors scores near 0 (v_1**2 of a centred factor: 0.04; abs(v_1): 0.0), as its best linear predictor is
      about constant.
    * A discrete code's information is read through a least-squares predictor whose rounding splits its few values
      into more (26 for a four-valued code beside 5 others), so the estimate can stray from H(z_i) by about 1%
      (1.392 nats against log 4 = 1.386 for an exact copy of a four-valued factor among 6).
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Those of the estimators (:mod:`metrics.estimators`, "Invariances"); not monotone.
    * Cost: ``L`` estimates.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.informativeness import informativeness
    >>> round(informativeness(factors, codes), 2), round(informativeness(factors, entangled), 2)
    (0.77, 0.81)
    """
    information = informativeness_nats(factors, codes, estimator=estimator, neighbors=neighbors, bins=bins)
    return float(np.mean(normalized(information, code_denominator(codes, information, bins, normalize))))
