"""Perfect representation with increasing noise (Zaidi et al. 2022, section 5.2, eq. 9).

``z = (1 - alpha) v + alpha n`` with 8 factors ``v ~ U(0, 1)`` and noise
``n ~ U(0, 1)``, one code per factor.  At ``alpha = 0`` the code is perfect; at
``alpha = 1`` it is pure noise.

Ideal trajectory: explicitness ``1 - alpha`` (the review's Figure 4 expectation: an
explicitness score "should steadily decrease as the noise level increases") over the whole
range; modularity and compactness 1 while the code carries signal, because each code still
depends on one factor only and each factor on one code (review 5.2: these metrics "should
recognize these disentanglement properties, even in noisy representations").  They are
declared only up to :data:`SIGNAL_END` (``ideal_ranges``): beyond it the noise's variance
``alpha^2 / 12`` exceeds the signal's ``(1 - alpha)^2 / 12`` and the code is mostly noise,
and at ``alpha = 1`` it is pure noise, where a code has no structure to be modular or compact
about and calibration asks for a null score instead (review section 3: "the minimum score to
a completely random ... representation").  Robustness reads them on ``alpha <= 0.5``, the
figures draw their ideal there, and the phase diagrams measure a distance only there.
"""

from __future__ import annotations

import numpy as np

from scenarios.base import Scenario, check_in_range, register_scenario

N_FACTORS = 8
#: The largest alpha at which the code carries at least as much signal as noise (variances ``(1 - alpha)^2 / 12``
#: and ``alpha^2 / 12``): the end of the range where modularity and compactness have an ideal.
SIGNAL_END = 0.5


def _build(alpha: float, n: int, rng: np.random.Generator):
    factors = rng.random((n, N_FACTORS))
    noise = rng.random((n, N_FACTORS))
    codes = (1.0 - alpha) * factors + alpha * noise
    return factors, codes, (False,) * N_FACTORS


def _ideal(alpha: float) -> dict[str, float]:
    return {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0 - alpha}


NOISE = register_scenario(
    Scenario(
        name="noise",
        parameter="alpha",
        values=(0.0, 0.2, 0.4, 0.6, 0.8, 1.0),
        build=_build,
        ideal_trajectory=_ideal,
        ideal_ranges={"modularity": (0.0, SIGNAL_END), "compactness": (0.0, SIGNAL_END)},
        check_value=check_in_range("alpha", 0.0, 1.0),
        source="Zaidi et al. 2022, section 5.2, eq. 9",
        summary="z = (1 - alpha) v + alpha n: a perfect code drowned in uniform noise",
        criterion="noise",
    )
)
