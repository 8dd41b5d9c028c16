"""Synergy attack (Tokui and Sato 2022, section 4.2, eq. 10) on a clean disentangled representation.

``tilde z = [z + alpha U eps, eps]`` with ``U = I - (2/L) 1 1^T`` and ``eps ~ N(0, I)``.  The
noise drowns each original code but is published in the appended codes, so each factor can
still be recovered exactly, but only from several codes together (complementary, synergistic
information).  :func:`synergy_attack` applies the transform to the codes of *any*
representation.

The registered scenario attacks the same clean base as ``redundancy_attack``: 8 factors
``v ~ N(0, I_8)``, ``z = v + 0.1 n``, ``alpha in (0, 0.25, 0.5, 1, 2, 4, 8)``.

Ideal trajectory (exact, see :func:`scenarios.gaussian_toy.ideal_trajectory`):

* explicitness stays 1: ``z = tilde z_{1:L} - alpha U tilde z_{L+1:2L}`` recovers the code linearly;
* compactness falls from 1 towards 0: the share of each factor's information held by its own
  code alone, ``log((1 + s^2 + a^2) / (s^2 + a^2)) / log((1 + s^2) / s^2)``
  (0.58, 0.34, 0.05 at alpha = 0.25, 0.5, 2);
* modularity stays 1: each original code depends on one factor, the appended codes on none.

Most single-code metrics (MIG, UniBound) react to this attack correctly (Tokui and Sato,
section 4.2); it is the control for the redundancy attack.
"""

from __future__ import annotations

from scenarios._attacks import synergy_attack
from scenarios.base import register_scenario
from scenarios.gaussian_toy import attacked_gaussian_scenario

N_FACTORS = 8
SIGMA = 0.1

SYNERGY_ATTACK = register_scenario(
    attacked_gaussian_scenario(
        "synergy_attack", "synergy", n_factors=N_FACTORS, sigma=SIGMA, source="Tokui and Sato 2022, section 4.2, eq. 10"
    )
)

__all__ = ["SYNERGY_ATTACK", "synergy_attack"]
