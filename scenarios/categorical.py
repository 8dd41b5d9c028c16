"""Categorical factors, each category a separate region of its code (Zaidi et al. 2022, section 2.2).

4 factors, each uniform over ``C`` categories ``0 .. C-1`` (flagged discrete), one code
per factor.  Category ``c`` is coded as a uniform draw in its own interval
``[s(c), s(c) + 0.5)`` of the code axis, where the slot ``s`` is a fixed *zigzag*
permutation of ``0 .. C-1`` (``0, C-1, 1, C-2, 2, ...``: category 0 goes to slot 0,
category 1 to slot ``C-1``, category 2 to slot 1, ...).  The code distribution is
multi-modal (``C`` separated blocks, gaps of 0.5 between them) and non-ordinal: for
``C >= 3`` neighbouring categories are not neighbours in the code, so a metric that
assumes an ordinal or linear factor-code relation sees a poor code where there is a
perfect one.  This is the review's section 2.2 situation: "the learning model must
partition the representation space in regions corresponding to each category ...
Measuring disentanglement with categorical factors necessitates metrics that do not
make assumptions on the nature of the factor-code relation."

The swept parameter is the number of categories, ``C in {2, 3, 4, 6, 8}``.  With ``C = 2``
any coding is monotonic; as ``C`` grows the zigzag departs further from any line.

Ideal trajectory
----------------
All three properties stay 1 for every ``C``: each code depends on one factor only and
each factor on one code (modularity and compactness 1), and the category is read off
exactly from the interval the code falls in (explicitness 1).
"""

from __future__ import annotations

import numpy as np

from scenarios._checks import check_integer
from scenarios.base import Scenario, register_scenario

N_FACTORS = 4
REGION_WIDTH = 0.5
MAX_CATEGORIES = 10


def zigzag_slots(n_categories: int) -> np.ndarray:
    """Slot of each category: ``0, C-1, 1, C-2, ...`` (slot of category ``c`` at index ``c``)."""
    c = np.arange(n_categories)
    return np.where(c % 2 == 0, c // 2, n_categories - 1 - c // 2)


def _build(n_categories: int, n: int, rng: np.random.Generator):
    factors = rng.integers(0, n_categories, size=(n, N_FACTORS))
    codes = zigzag_slots(n_categories)[factors] + rng.uniform(0.0, REGION_WIDTH, size=(n, N_FACTORS))
    return factors.astype(np.float64), codes, (True,) * N_FACTORS


def _ideal(n_categories: int) -> dict[str, float]:
    return {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


CATEGORICAL = register_scenario(
    Scenario(
        name="categorical",
        parameter="n_categories",
        values=(2, 3, 4, 6, 8),
        build=_build,
        ideal_trajectory=_ideal,
        check_value=check_integer("n_categories", 2, MAX_CATEGORIES),
        source="Zaidi et al. 2022, section 2.2 (categorical factors, multi-modal codes)",
        summary="categorical factors, each category coded in its own interval, in zigzag (non-ordinal) order",
    )
)
