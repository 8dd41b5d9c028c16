"""A perfect code bent by an increasingly nonlinear monotonic map (Zaidi et al. 2022, section 5.5, eq. 10).

8 factors ``v ~ U(0, 1)``, one code per factor::

    z = 1000^(0.25 - alpha) tan(w (v - 0.5)) + 0.5,   w = 2 arctan(1000^(alpha - 0.25) / 2)

The choice of ``w`` pins the end points: ``z(0) = 0`` and ``z(1) = 1`` for every
``alpha``, so only the shape changes.  At ``alpha = 0`` the map is practically linear
(``w`` is about 0.18, where tan is nearly straight); as ``alpha`` grows towards 1 it
takes the shape of a tangent, flat in the middle and steep at both ends, so that
equal-width code bins hold most samples in the middle (review Figure 6b).  The grid is
the review's, ``alpha in {0, 0.2, ..., 1}``.

Ideal trajectory
----------------
All three properties stay 1 for every ``alpha``: each code is a strictly increasing
function of its own factor only, so the code is perfectly modular and compact, and the
factor is recovered exactly by inverting the map (review 5.5: "kept perfectly compact and
modular and should receive a perfect score from all metrics").  A metric that falls
here assumes a linear relation (DCI lasso, SAP) or loses information in its
discretisation (the information-based metrics), which is what the scenario exposes.
"""

from __future__ import annotations

import numpy as np

from scenarios.base import Scenario, check_in_range, register_scenario

N_FACTORS = 8


def tan_map(v: np.ndarray, alpha: float) -> np.ndarray:
    """The review's eq. 10, mapping ``[0, 1]`` onto ``[0, 1]`` monotonically."""
    omega = 2.0 * np.arctan(1000.0 ** (alpha - 0.25) / 2.0)
    return 1000.0 ** (0.25 - alpha) * np.tan(omega * (v - 0.5)) + 0.5


def _build(alpha: float, n: int, rng: np.random.Generator):
    factors = rng.random((n, N_FACTORS))
    return factors, tan_map(factors, alpha), (False,) * N_FACTORS


def _ideal(alpha: float) -> dict[str, float]:
    return {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


NONLINEAR = register_scenario(
    Scenario(
        name="nonlinear",
        parameter="alpha",
        values=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
        build=_build,
        ideal_trajectory=_ideal,
        check_value=check_in_range("alpha", 0.0, 1.0),
        source="Zaidi et al. 2022, section 5.5, eq. 10",
        summary="z = 1000^(0.25 - alpha) tan(w (v - 0.5)) + 0.5: a perfect code, increasingly nonlinear",
        criterion="nonlinearity",
    )
)
