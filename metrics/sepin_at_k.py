"""SEPIN@k: mean separability of the k most separable codes (Do and Tran 2020, section 3.2)."""

from __future__ import annotations

from metrics._do_tran import DO_TRAN_CONSTRAINTS, code_information, top_k_mean
from metrics.constraints import COUNT, NONE, UNIT
from metrics.estimators import DEFAULT_ESTIMATOR, DEFAULT_NEIGHBORS
from metrics.information import DEFAULT_BINS
from metrics.registry import register_metric


@register_metric(
    "sepin_at_k",
    family="information",
    properties="holistic",
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={**DO_TRAN_CONSTRAINTS, "top_k": (NONE, COUNT)},
    score_range=UNIT,
)
def sepin_at_k(
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
    """SEPIN@k: the average of the ``k`` largest normalised I(x; z_i | z_!=i).

    Definition (Do and Tran 2020, section 3.2)::

        SEPIN@k = 1/k sum_{i < k} sorted_desc( I(x; z_i | z_!=i) / D_i )

    Averaging only the top ``k`` codes keeps extra noise codes from lowering the score.
    x is the factor matrix (:mod:`metrics._do_tran`).

    Parameters
    ----------
    factors, codes, discrete, estimator, neighbors, bins, normalize
        As in :func:`metrics.wsepin.wsepin`.
    top_k : int or None, default None
        ``k``.  ``None`` uses the number of factors (capped at the number of codes): a
        disentangled representation needs one separable code per factor.  The paper
        reports SEPIN@3 on dSprites.

    Notes
    -----
    * Holistic, like WSEPIN.
    * Raises a ValueError when ``top_k`` exceeds the number of codes.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Those of the estimators (:mod:`metrics.estimators`, "Invariances"); not monotone.
    * Cost: ``3 L`` estimates.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.sepin_at_k import sepin_at_k
    >>> round(sepin_at_k(factors, codes), 2), round(sepin_at_k(factors, entangled), 2)
    (0.76, 0.8)
    """
    terms = code_information(factors, codes, estimator=estimator, neighbors=neighbors, bins=bins, normalize=normalize)
    return top_k_mean(terms.score("separability"), top_k, factors.shape[1])
