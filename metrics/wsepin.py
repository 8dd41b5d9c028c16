"""WSEPIN: informativeness-weighted separability (Do and Tran 2020, section 3.2, eq. 8)."""

from __future__ import annotations

import numpy as np

from metrics._do_tran import DO_TRAN_CONSTRAINTS, code_information
from metrics.constraints import UNIT
from metrics.estimators import DEFAULT_ESTIMATOR, DEFAULT_NEIGHBORS
from metrics.information import DEFAULT_BINS
from metrics.registry import register_metric


@register_metric(
    "wsepin",
    family="information",
    properties="holistic",
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={**DO_TRAN_CONSTRAINTS},
    score_range=UNIT,
)
def wsepin(
    factors,
    codes,
    *,
    discrete=None,
    estimator: str = DEFAULT_ESTIMATOR,
    neighbors: int = DEFAULT_NEIGHBORS,
    bins: int = DEFAULT_BINS,
    normalize: str = "bounded",
) -> float:
    """WSEPIN: the information about x that each code holds and the other codes do not.

    Definition (Do and Tran 2020, eq. 8 and section 3.2)::

        WSEPIN = sum_i rho_i I(x; z_i | z_!=i) / D_i,   rho_i = I(x; z_i) / sum_j I(x; z_j)

    with I(x; z_i | z_!=i) = I(x; z) - I(x; z_!=i).  The weights make noise codes
    (I(x; z_i) ~ 0) count for nothing.  x is the factor matrix (:mod:`metrics._do_tran`).

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Unused (x is the joint factor vector).
    estimator : {"knn", "knn_full", "gaussian"}, default "knn"
        Estimator of the informations (:mod:`metrics.estimators`).
    neighbors : int, default 3
        ``k`` of the k-NN estimators.
    bins : int, default 10
        Bins of the quantised H(z_i) used by the normalisation.
    normalize : {"bounded", "entropy", "none"}, default "bounded"
        ``D_i``: H(z_i) (the paper), ``max(H(z_i), I(x; z_i), I(x; z_i | z_!=i))``, or 1
        (nats); see :mod:`metrics._do_tran`.

    Notes
    -----
    * Holistic: it needs codes that are informative (explicitness) and that do not share
      their information (a factor copied into two codes gives both 0: compactness).  It
      does not penalise a code mixing factors if the mixture can be undone with the other
      codes (z_1 = v_1 + v_2, z_2 = v_2 gives z_1 its full information).
    * Under synergy I(x; z_i | z_!=i) exceeds I(x; z_i) (the other codes unlock z_i's
      information); ``"bounded"`` then divides by it and the code scores 1, ``"entropy"``
      can exceed 1.
    * Every code uninformative: 0.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Those of the estimators (:mod:`metrics.estimators`, "Invariances"); not monotone.
    * Cost: ``3 L`` estimates; seconds per call: the cost table of ``metrics/README.md``.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.wsepin import wsepin
    >>> round(wsepin(factors, codes), 2), round(wsepin(factors, entangled), 2)
    (0.76, 0.8)
    """
    terms = code_information(factors, codes, estimator=estimator, neighbors=neighbors, bins=bins, normalize=normalize)
    return float(np.sum(terms.weights() * terms.score("separability")))
