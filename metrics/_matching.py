"""One-to-one matching of factors to codes, shared by MCC and SNC/NK.

Both metrics pair each factor with at most one code and each code with at most one
factor so that the total score of the pairs is largest: the linear assignment
problem, solved exactly by the Hungarian algorithm (Kuhn 1955) as implemented in
:func:`scipy.optimize.linear_sum_assignment`, which also handles rectangular
``K x L`` score matrices (``min(K, L)`` pairs).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment


def matched_codes(scores: np.ndarray) -> np.ndarray:
    """The code matched to each factor by a maximum-score one-to-one assignment.

    Parameters
    ----------
    scores : numpy.ndarray
        ``(K, L)`` non-negative factor x code scores (correlations, mutual information).

    Returns
    -------
    numpy.ndarray
        ``(K,)`` int64 code index per factor; ``-1`` for a factor left unmatched
        (only when ``L < K``).
    """
    rows, columns = linear_sum_assignment(np.asarray(scores, dtype=np.float64), maximize=True)
    matched = np.full(scores.shape[0], -1, dtype=np.int64)
    matched[rows] = columns
    return matched


def matched_mean(scores: np.ndarray) -> float:
    """Mean over factors of the score of each factor's matched code (0 when unmatched).

    Dividing by ``K`` rather than by the number of pairs means that a code with fewer
    columns than factors cannot reach 1 by matching only some of them.
    """
    matched = matched_codes(scores)
    values = np.where(matched >= 0, scores[np.arange(scores.shape[0]), np.maximum(matched, 0)], 0.0)
    return float(values.mean())
