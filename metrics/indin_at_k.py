"""INDIN@k: mean independence-and-informativeness of the top k codes (Do and Tran 2020, section 3.2)."""

from __future__ import annotations

from metrics._do_tran import DO_TRAN_CONSTRAINTS, code_information, top_k_mean
from metrics.constraints import COUNT, NONE, Interval
from metrics.estimators import DEFAULT_ESTIMATOR, DEFAULT_NEIGHBORS
from metrics.information import DEFAULT_BINS
from metrics.registry import register_metric


@register_metric(
    "indin_at_k",
    family="information",
    properties="holistic",
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={**DO_TRAN_CONSTRAINTS, "top_k": (NONE, COUNT)},
    # under the default "bounded" normalisation at most 1; negative when codes share more than they carry
    score_range=Interval(float, None, 1.0),
)
def indin_at_k(
    factors,
    codes,
    *,
    discrete=None,
    estimator: str = DEFAULT_ESTIMATOR,
    neighbors: int = DEFAULT_NEIGHBORS,
    bins: int = DEFAULT_BINS,
    normalize: str = "bounded",
    top_k: int | None = None,
) -> float:
    """INDIN@k: the average of the ``k`` largest normalised I(x; z_i) - I(z_i; z_!=i).

    Definition (Do and Tran 2020, eq. 9 and section 3.2)::

        INDIN@k = 1/k sum_{i < k} sorted_desc( [I(x; z_i) - I(z_i; z_!=i)] / D_i )

    x is the factor matrix (:mod:`metrics._do_tran`).

    Parameters
    ----------
    factors, codes, discrete, estimator, neighbors, bins, normalize
        As in :func:`metrics.wsepin.wsepin`.
    top_k : int or None, default None
        ``k``; ``None`` uses the number of factors (capped at the number of codes).

    Notes
    -----
    * Holistic, like WINDIN; can be negative.
    * Raises a ValueError when ``top_k`` exceeds the number of codes.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Those of the estimators (:mod:`metrics.estimators`, "Invariances"); not monotone.
    * Cost: ``2 L`` estimates.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.indin_at_k import indin_at_k
    >>> round(indin_at_k(factors, codes), 2), round(indin_at_k(factors, entangled), 2)
    (0.77, 0.81)
    """
    terms = code_information(factors, codes, estimator=estimator, neighbors=neighbors, bins=bins, normalize=normalize, separability=False)
    return top_k_mean(terms.score("independence"), top_k, factors.shape[1])
