"""The ideal degree of modularity or compactness of an idealised factor-code pattern.

Shared by the scenarios whose ideal modularity or compactness is neither 1 nor 0
(``modular_not_compact``, ``rotation``).  The degree is the one Eastwood and Williams
(2018) define for completeness and disentanglement, which the review adopts as DCI
compactness and modularity (Zaidi et al. 2022, section 4.3.1): one minus the entropy
of the shares, in base the number of places the shares could spread over::

    concentration(p) = 1 - H(p) / log(S),   H(p) = -sum_s p_s log p_s

It is 1 when everything sits in one place, ``1 - log(m) / log(S)`` when it is split
equally over ``m`` of the ``S`` places, and 0 only when it is spread over all of them.
That last point is the distinction the review asks of a metric (section 5.3: a code
relating to two factors is not as bad as a code relating to all of them; section 6.2:
a factor in four codes is less compact than a factor in two).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def concentration(shares: Sequence[float], places: int) -> float:
    """``1 - H(p) / log(places)`` for shares ``p`` (normalised to sum 1; zeros allowed).

    Parameters
    ----------
    shares : sequence of float
        Non-negative shares of one factor over codes (or of one code over factors);
        at most ``places`` of them, the missing ones being 0.
    places : int
        Number of codes (or factors) the shares could spread over; at least 2.
    """
    p = np.asarray(shares, dtype=np.float64)
    if places < 2 or p.size > places or np.any(p < 0) or p.sum() <= 0:
        raise ValueError(f"need 2 <= places and at most {places} non-negative shares with a positive sum; got {p.tolist()}")
    p = p[p > 0] / p.sum()
    return float(1.0 + np.sum(p * np.log(p)) / np.log(places))
