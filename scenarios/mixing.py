"""Decreasing compactness and modularity by band mixing (Zaidi et al. 2022, section 5.3).

``z = v R`` with 8 factors ``v ~ U(0, 1)`` and the cyclic band matrix ``R``:
``1 - alpha`` on the diagonal, ``alpha`` on the next column, wrapping around (the last
row's ``alpha`` is in the first column).  At ``alpha = 0`` the code is perfect; at
``alpha = 0.5`` every factor is spread equally over two codes and every code mixes two
factors.  ``R`` is invertible for ``alpha < 0.5``; at ``alpha = 0.5`` with an even
number of factors ``det R = (1 - alpha)^8 - alpha^8 = 0`` and one direction of the
factor space (the alternating sum) is lost, which a predictor sees as a small drop in
explicitness at that single end point.

Ideal trajectory (the degradation axis linearity is measured against): modularity
and compactness fall linearly, ``1 - 2 alpha``, from 1 at ``alpha = 0`` to 0 at
``alpha = 0.5`` (the review expects scores "to linearly decrease as alpha
increases"); explicitness stays 1 (review: "the representation allows for complete
recovery of factor values").
"""

from __future__ import annotations

import numpy as np

from scenarios.base import Scenario, check_in_range, register_scenario

N_FACTORS = 8


def band_matrix(alpha: float, size: int = N_FACTORS) -> np.ndarray:
    """The cyclic band matrix of review section 5.3."""
    eye = np.eye(size)
    return (1.0 - alpha) * eye + alpha * np.roll(eye, 1, axis=1)


def _build(alpha: float, n: int, rng: np.random.Generator):
    factors = rng.random((n, N_FACTORS))
    return factors, factors @ band_matrix(alpha), (False,) * N_FACTORS


def _ideal(alpha: float) -> dict[str, float]:
    degraded = 1.0 - 2.0 * alpha
    return {"modularity": degraded, "compactness": degraded, "explicitness": 1.0}


MIXING = register_scenario(
    Scenario(
        name="mixing",
        parameter="alpha",
        values=(0.0, 0.1, 0.2, 0.3, 0.4, 0.5),
        build=_build,
        ideal_trajectory=_ideal,
        check_value=check_in_range("alpha", 0.0, 0.5),
        source="Zaidi et al. 2022, section 5.3",
        summary="z = v R, cyclic band matrix: each factor leaks alpha into the next code",
    )
)
