"""Redundancy attack (Tokui and Sato 2022, section 4.1, eq. 9) on a clean disentangled representation.

``tilde z = [z, alpha U z + eps]`` with ``U = I - (2/L) 1 1^T`` and ``eps ~ N(0, I)``.  The
appended codes carry a rotated, noisy copy of the whole code, so every factor's information
becomes redundant across codes while no information is lost.  :func:`redundancy_attack`
applies the transform to the codes of *any* representation.

The registered scenario attacks a clean disentangled base with exactly computable
information: 8 factors ``v ~ N(0, I_8)`` and one code per factor ``z = v + 0.1 n`` (the base
of the Gaussian toy model with the harness's 8 factors), swept over
``alpha in (0, 0.25, 0.5, 1, 2, 4, 8)``.

Ideal trajectory (exact, see :func:`scenarios.gaussian_toy.ideal_trajectory`):

* explicitness stays 1: the attack is invertible, I(v_k; tilde z) = I(v_k; z);
* compactness falls from 1 towards 0: the share of each factor's information held by its own
  code alone, ``1 - log((1 + a^2 (1 + s^2)) / (1 + a^2 s^2)) / log((1 + s^2) / s^2)``
  (0.95, 0.85, 0.66, 0.42, 0.20 at alpha = 0.5, 1, 2, 4, 8);
* modularity falls from 1 towards 1/2: the appended codes mix all factors and hold an
  increasing share of the representation's information.

This is the paper's central test: UniBound follows the compactness trajectory, MIG does not
(it subtracts one second-best code, which holds little of the redundant information).
"""

from __future__ import annotations

from scenarios._attacks import redundancy_attack
from scenarios.base import register_scenario
from scenarios.gaussian_toy import attacked_gaussian_scenario

N_FACTORS = 8
SIGMA = 0.1

REDUNDANCY_ATTACK = register_scenario(
    attacked_gaussian_scenario(
        "redundancy_attack", "redundancy", n_factors=N_FACTORS, sigma=SIGMA, source="Tokui and Sato 2022, section 4.1, eq. 9"
    )
)

__all__ = ["REDUNDANCY_ATTACK", "redundancy_attack"]
