"""A perfect code of correlated factors (Zaidi et al. 2022, section 2.1).

8 factors ``v ~ U(0, 1)`` in 4 pairs ``(v_1, v_2), (v_3, v_4), ...``; the two factors of a
pair have correlation ``rho`` (Pearson, which for uniform margins equals Spearman's),
different pairs are independent.  The code is perfect: ``z = v``.

The pairs are drawn through a Gaussian copula: standard normal pairs with correlation
``r = 2 sin(pi rho / 6)`` pushed through the normal CDF.  The CDF makes each margin
exactly uniform, and the rank correlation of a Gaussian pair is
``(6 / pi) arcsin(r / 2) = rho``.  ``rho`` runs over ``{0, 0.2, 0.4, 0.6, 0.8, 0.9}``
(at most 0.95: at 1 the two factors would be one and the same).

Ideal trajectory
----------------
All three properties stay 1 for every ``rho``.  The representation is the identity:
intervening on factor ``v_1`` moves code ``z_1`` and nothing else, so each code depends
on one factor only (modular) and each factor lives in one code (compact), and every
factor is read off exactly (explicit).  The correlation is a property of the data,
not of the representation.  But the review warns (section 2.1) that "dependent factors
impact modularity score. If two factors were to share information, parts of the
representation relate to both": a metric that reads statistical dependence
(``I(z_1; v_2) > 0`` here) charges the code for the data's correlation.  The scenario
measures how much; a score falling with ``rho`` is that bias, not a property of the code.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from scenarios.base import Scenario, check_in_range, register_scenario

N_FACTORS = 8
MAX_RHO = 0.95


def copula_correlation(rho: float) -> float:
    """Gaussian correlation whose normal-CDF transform has correlation ``rho``."""
    return float(2.0 * np.sin(np.pi * rho / 6.0))


def _build(rho: float, n: int, rng: np.random.Generator):
    r = copula_correlation(rho)
    gauss = rng.standard_normal((n, N_FACTORS))
    gauss[:, 1::2] = r * gauss[:, 0::2] + np.sqrt(1.0 - r * r) * gauss[:, 1::2]
    factors = ndtr(gauss)
    return factors, factors.copy(), (False,) * N_FACTORS


def _ideal(rho: float) -> dict[str, float]:
    return {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


CORRELATED = register_scenario(
    Scenario(
        name="correlated",
        parameter="rho",
        values=(0.0, 0.2, 0.4, 0.6, 0.8, 0.9),
        build=_build,
        ideal_trajectory=_ideal,
        check_value=check_in_range("rho", 0.0, MAX_RHO),
        source="Zaidi et al. 2022, section 2.1 (statistically dependent factors)",
        summary="perfect code z = v of factors correlated in pairs with correlation rho",
    )
)
