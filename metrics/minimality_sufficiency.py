"""Minimality and sufficiency (Almudévar and Ortega 2024)."""

from __future__ import annotations

from metrics.constraints import AT_LEAST_TWO, UNIT
from metrics.information import DEFAULT_BINS, factor_code_information, normalized_mutual_information
from metrics.registry import register_metric


@register_metric(
    "minimality_sufficiency",
    family="information",
    properties={"minimality": "modularity", "sufficiency": "compactness"},
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={"bins": AT_LEAST_TWO},
    score_range=UNIT,
)
def minimality_sufficiency(factors, codes, *, discrete=None, bins: int = DEFAULT_BINS) -> dict[str, float]:
    """Minimality (each code holds one factor only) and sufficiency (each factor is held by one code).

    Definition (Almudévar and Ortega 2024, "Defining and Measuring Disentanglement
    for non-Independent Factors of Variation", arXiv 2408.07016, the metrics of
    minimality and sufficiency; the authors' code computes exactly these ratios)::

        minimality  = 1/L sum_j max_k I(v_k; z_j) / H(z_j)
        sufficiency = 1/K sum_k max_j I(v_k; z_j) / H(v_k)

    A code is minimal when it carries nothing but (a function of) one factor, and
    sufficient when it carries all of it.  Unlike gap or entropy-of-importance
    metrics, neither compares one factor with another, so neither penalises factors
    that are *statistically dependent* (a code equal to ``v_1`` also shares information
    with a correlated ``v_2``, but only the maximum counts): they are meant for
    dependent factors (the ``correlated`` scenario).

    Entropies and mutual information are the plug-in estimates of
    :mod:`metrics.information`: continuous factors and all codes in ``bins``
    equal-width bins, discrete factors in their categories (nats; the ratios do not
    depend on the base).

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Discrete factors keep their categories instead of being binned.
    bins : int, default 10
        Bins per continuous column (at least 2).

    Returns
    -------
    dict
        ``{"minimality": ..., "sufficiency": ...}``, both in [0, 1].

    Notes
    -----
    * Authors' code (github.com/antonioalmudevar/dependent_disentanglement,
      ``src/metrics/min_suf.py``): followed in the two formulas and the equal-width
      binning of the codes; departures: 10 bins by default (the authors use 15, exposed
      as ``bins``), continuous factors are binned too (the authors' factors are
      discrete), and a constant code or factor (entropy 0) contributes 0 instead of NaN.
    * Properties: minimality is the code-side (modularity) view, sufficiency the
      factor-side (compactness) view.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Those of the histogram engine (:mod:`metrics.information`, "Invariances"); not
      monotone.
    * Scores: 1 and 1 on ``z = v``; on independent codes, the plug-in bias only, about
      ``(bins - 1)^2 / (2 n H)``.
    * Cost: one factor x code MI matrix, O(n K L).

    Examples
    --------
    Every sub-score of the perfect code, then of one whose first two codes mix two factors (300 samples, 3
    factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.minimality_sufficiency import minimality_sufficiency
    >>> for z in (codes, entangled):
    ...     print({sub: round(score, 2) for sub, score in minimality_sufficiency(factors, z).items()})
    {'minimality': 0.64, 'sufficiency': 0.62}
    {'minimality': 0.36, 'sufficiency': 0.35}
    """
    table = factor_code_information(factors, codes, discrete, bins)
    per_code = normalized_mutual_information(table, "code").max(axis=0)
    per_factor = normalized_mutual_information(table, "factor").max(axis=1)
    return {"minimality": float(per_code.mean()), "sufficiency": float(per_factor.mean())}
