"""The Modularity score (Ridgeway and Mozer 2018; Zaidi et al. 2022, section 4.4.4, eq. 7)."""

from __future__ import annotations

import numpy as np

from metrics.constraints import AT_LEAST_TWO, UNIT
from metrics.information import DEFAULT_BINS, InformationTable, factor_code_information
from metrics.registry import register_metric


@register_metric(
    "modularity",
    family="information",
    properties="modularity",
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={"bins": AT_LEAST_TWO},
    score_range=UNIT,
)
def modularity(factors, codes, *, discrete=None, bins: int = DEFAULT_BINS) -> float:
    """Modularity score: how much of each code's information is about one factor only.

    Definition (review eq. 7), per code ``z_j`` with best factor ``v_*``::

        m_j = 1 - sum_{k != *} I(v_k; z_j)^2 / ( I(v_*; z_j)^2 (K - 1) )

    averaged over all codes.  Mutual information is the raw plug-in estimate (nats).

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Discrete factors keep their categories.
    bins : int, default 10
        Bins per continuous column (at least 2).

    Notes
    -----
    * A code sharing no information with any factor (all I = 0) scores 0; a constant
      code shares exactly 0 (:func:`metrics.information.information_table`), so the
      rounding of the plug-in MI (about 4e-16 nats at n = 10000) is never divided by itself.
    * With a single factor (K = 1) eq. 7 is 0/0 (the review's code returns NaN).  A
      code then cannot mix factors, so it scores 1 if it carries information about the
      factor and 0 otherwise.  "Carries information" must not mean "plug-in MI > 0":
      the plug-in estimate of an independent pair is always positive (its bias), which
      would score every dead code 1.  Under independence ``2 n I`` is chi-square with
      ``(B_v - 1)(B_z - 1)`` degrees of freedom, so a code counts as informative when
      its MI exceeds that distribution's 99.9% quantile divided by ``2 n``.  On
      ``partial`` with one measured factor of 8 this gives 1/8, in line with MIG-sup,
      rather than jumping back to 1.
    * Known failure mode (review 5.2): the score is normalised by each code's own
      maximum, so codes independent of the factors, whose estimated informations
      are all small plug-in biases of similar size, still get a sizeable score
      (measured 0.36 for 8 x 8 independent uniform columns, n = 20000); dead codes
      and codes of unmeasured factors behave the same way (review 5.6).
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Those of the histogram engine (:mod:`metrics.information`, "Invariances"); not
      monotone.
    * Cost: one MI matrix.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.modularity import modularity
    >>> round(modularity(factors, codes), 2), round(modularity(factors, entangled), 2)
    (0.99, 0.7)
    """
    table = factor_code_information(factors, codes, discrete, bins)
    information = table.mutual_information
    squared = information**2
    best = squared.max(axis=0)
    n_factors = information.shape[0]
    if n_factors == 1:
        per_code = (information[0] > independence_threshold(table, factors.shape[0])).astype(np.float64)
    else:
        deviation = squared.sum(axis=0) - best
        ratio = np.divide(deviation, best * (n_factors - 1), out=np.ones_like(best), where=best > 0)
        per_code = np.where(best > 0, 1.0 - ratio, 0.0)
    # at least 0: equal informations give 0 exactly, which rounding put at -3.7e-17
    return float(np.mean(np.maximum(per_code, 0.0)))


def independence_threshold(table: InformationTable, n_samples: int, level: float = 0.999) -> np.ndarray:
    """Largest plug-in MI (nats) an independent (factor 0, code j) pair reaches with probability ``level``.

    Under independence ``2 n I`` follows a chi-square law with
    ``(B_v - 1)(B_z - 1)`` degrees of freedom (the G-test), so the threshold of code
    ``j`` is that law's ``level`` quantile divided by ``2 n``, with ``B_v`` and ``B_z``
    the factor's and the code's numbers of bins (categories).
    """
    from scipy.stats import chi2
    freedom = (table.factor_bins[0] - 1) * (table.code_bins - 1)
    return chi2.ppf(level, np.maximum(freedom, 1)) / (2.0 * n_samples)
