"""Factors that only partially describe the data (Zaidi et al. 2022, section 5.6).

A perfect code of 8 factors, ``z = v`` with ``v ~ U(0, 1)``, of which only the first
``k`` are given to the metrics: factors are ``v[:, :k]``, codes are all 8 columns of
``v``.  ``k`` runs from 8 down to 1 (the review's Figure 8).  For a given seed the codes
are the same array for every ``k``; only the measured factors shrink.

Ideal trajectory
----------------
All three properties stay 1 for every ``k``: the representation does not change as
fewer factors are measured (review 5.6: metrics "should maintain that maximal value
as the proportion of measured factors decreases because the representation does not
change").  The codes of the unmeasured factors are, from a metric's point of view,
dead codes; a metric that judges from the codes' side without discarding them (MIG-sup,
the Modularity score) falls as ``k`` falls.

With one factor left (``k = 1``) the metrics that compare factors with one another
(MIG-sup, the Modularity score) return NaN in the review's code.  Ours stay defined
(see their docstrings): MIG-sup takes the runner-up factor's information as 0, so
each code scores its own normalised information with the single factor, and the
average over the 8 codes is about 1/8; the Modularity score scores each code 1 when
its estimated information with the factor exceeds what independence would produce
(a G-test at the 99.9% level) and 0 otherwise, so it gives exactly 1/8 at ``k = 1``
(measured in tests/scenarios/test_partial.py), continuing the falling trend it shows
from ``k = 8`` to ``k = 2``.
"""

from __future__ import annotations

import numpy as np

from scenarios._checks import check_integer
from scenarios.base import Scenario, register_scenario

N_FACTORS = 8


def _build(k: int, n: int, rng: np.random.Generator):
    codes = rng.random((n, N_FACTORS))
    return codes[:, :k], codes, (False,) * k


def _ideal(k: int) -> dict[str, float]:
    return {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


PARTIAL = register_scenario(
    Scenario(
        name="partial",
        parameter="k",
        values=tuple(range(N_FACTORS, 0, -1)),
        build=_build,
        ideal_trajectory=_ideal,
        check_value=check_integer("k", 1, N_FACTORS),
        source="Zaidi et al. 2022, section 5.6, Figure 8",
        summary="perfect code z = v of 8 factors, only the first k measured",
        criterion="non_measured_factors",
    )
)
