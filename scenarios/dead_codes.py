"""A perfect code with a growing number of dead codes (Zaidi et al. 2022, sections 5.6 and 6.2).

8 factors ``v ~ U(0, 1)`` coded perfectly, ``z[:, :8] = v``, followed by ``d`` dead
codes: independent ``U(0, 1)`` columns that inform on no factor (a dead code is "a code
dimension that does not inform on any factor", review 5.6, after Eastwood and
Williams 2018).  They share the scale of the live codes, so a histogram sees them as
it sees a live code.  ``d`` runs over ``{0, 1, 2, 4, 8, 16}``.  The live codes are
drawn first, so for a given seed they are the same array for every ``d``.

Ideal trajectory
----------------
All three properties stay 1 for every ``d``.  Every factor is still read off exactly
from one code (explicit, compact), and no code mixes factors: a dead code relates to
none, so it breaks no factor's isolation (modular).  The review recommends metrics
that "implement a mechanism to discard dead-codes" (5.6); one that averages over all
codes without such a mechanism (MIG-sup, the Modularity score) falls with ``d``.  Unlike
``partial``, where the extra codes carry unmeasured factors, here they carry nothing.
"""

from __future__ import annotations

import numpy as np

from scenarios._checks import check_integer
from scenarios.base import Scenario, register_scenario

N_FACTORS = 8
MAX_DEAD = 64


def _build(n_dead: int, n: int, rng: np.random.Generator):
    factors = rng.random((n, N_FACTORS))
    dead = rng.random((n, n_dead))
    return factors, np.hstack([factors, dead]), (False,) * N_FACTORS


def _ideal(n_dead: int) -> dict[str, float]:
    return {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


DEAD_CODES = register_scenario(
    Scenario(
        name="dead_codes",
        parameter="n_dead",
        values=(0, 1, 2, 4, 8, 16),
        build=_build,
        ideal_trajectory=_ideal,
        check_value=check_integer("n_dead", 0, MAX_DEAD),
        source="Zaidi et al. 2022, sections 5.6 and 6.2 (dead codes)",
        summary="perfect code of 8 factors followed by n_dead uninformative codes",
    )
)
