"""WINDIN: informativeness-weighted independence (Do and Tran 2020, section 3.2, eq. 9)."""

from __future__ import annotations

import numpy as np

from metrics._do_tran import DO_TRAN_CONSTRAINTS, code_information
from metrics.constraints import Interval
from metrics.estimators import DEFAULT_ESTIMATOR, DEFAULT_NEIGHBORS
from metrics.information import DEFAULT_BINS
from metrics.registry import register_metric


@register_metric(
    "windin",
    family="information",
    properties="holistic",
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={**DO_TRAN_CONSTRAINTS},
    # under the default "bounded" normalisation at most 1; negative when codes share more than they carry
    score_range=Interval(float, None, 1.0),
)
def windin(
    factors,
    codes,
    *,
    discrete=None,
    estimator: str = DEFAULT_ESTIMATOR,
    neighbors: int = DEFAULT_NEIGHBORS,
    bins: int = DEFAULT_BINS,
    normalize: str = "bounded",
) -> float:
    """WINDIN: each code's information about x minus what it shares with the other codes.

    Definition (Do and Tran 2020, eq. 9 and section 3.2)::

        WINDIN = sum_i rho_i [ I(x; z_i) - I(z_i; z_!=i) ] / D_i,   rho_i = I(x; z_i) / sum_j I(x; z_j)

    The bracket is Î(x; z_i | z_!=i), "informative and independent": it drops the term
    I(z_i; z_!=i | x) of eq. 8, so unlike WSEPIN it can be negative.  x is the factor matrix
    (:mod:`metrics._do_tran`).

    Parameters
    ----------
    factors, codes, discrete, estimator, neighbors, bins, normalize
        As in :func:`metrics.wsepin.wsepin`.

    Notes
    -----
    * Holistic (explicitness and independence of the codes).  Codes sharing their
      information (redundancy) or depending on common factors (mixing) are penalised;
      a code that depends on the others only through the encoder noise is penalised too.
    * Range: at most 1 under ``"bounded"``; negative when codes share more than they carry.
    * Every code uninformative: 0.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Those of the estimators (:mod:`metrics.estimators`, "Invariances"); not monotone.
    * Cost: ``2 L`` estimates; seconds per call: the cost table of ``metrics/README.md``.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.windin import windin
    >>> round(windin(factors, codes), 2), round(windin(factors, entangled), 2)
    (0.77, 0.81)
    """
    terms = code_information(factors, codes, estimator=estimator, neighbors=neighbors, bins=bins, normalize=normalize, separability=False)
    return float(np.sum(terms.weights() * terms.score("independence")))
