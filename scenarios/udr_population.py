"""A population of disentangled and entangled "models" of the same inputs (Duan et al. 2020, section 4).

UDR rests on one assumption (Duan et al. 2020, section 4, after Rolinek et al. 2019):
disentangled models agree with one another up to *permutation*, *sign* and *subsetting*
of their latents, while "every entangled representation is entangled in its own way",
differing at least by a rotation.  This scenario builds exactly that population.

* Inputs: ``n`` samples of 5 independent standard-normal factors (the scale of a VAE's
  unit-Gaussian prior, so UDR's informativeness threshold of 0.01 is on its own scale).
* Every member has 10 latents; latents it does not use are "switched off": small
  independent noise of standard deviation 0.01 (variance 1e-4), as a VAE's
  collapsed latents are.  The same small noise is added to every latent.
* A *disentangled* member keeps a random subset of 4 or 5 of the factors, puts each in
  a random latent with a random sign: ``z[:, p_k] = s_k v_k``.
* An *entangled* member puts a random rotation of all 5 factors (Haar-distributed,
  determinant +1, drawn independently for each member) in 5 random latents:
  ``z[:, p] = v Q``.  It has as many informative latents as a full disentangled member;
  only the rotation differs.

The swept parameter is the proportion of disentangled members among the 8,
``{0, 0.25, 0.5, 0.75, 1}``; ``round(proportion * 8)`` members are disentangled (Python's
rounding, half to even), at random positions in the population.

What an ideal population metric does: rank every disentangled member above every
entangled one.  UDR can do so only when disentangled members are numerous enough for
the median of their pairwise comparisons to fall on another disentangled member, i.e.
more than half of the others (its "herd effect", Duan et al. 2020, section 4); below
that, all members look alike to it.
"""

from __future__ import annotations

import numpy as np

from scenarios.base import check_in_range
from scenarios.population import PopulationScenario, register_population

N_FACTORS = 5
N_LATENTS = 10
N_MEMBERS = 8
MIN_SUBSET = 4
SWITCHED_OFF_SCALE = 0.01


def random_rotation(size: int, rng: np.random.Generator) -> np.ndarray:
    """A Haar-distributed rotation matrix (orthogonal, determinant +1)."""
    q, r = np.linalg.qr(rng.standard_normal((size, size)))
    q = q * np.sign(np.diag(r))
    if np.linalg.det(q) < 0:
        q[:, 0] = -q[:, 0]
    return q


def disentangled_member(factors: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Codes holding a random subset of the factors, permuted and sign-flipped, among switched-off latents."""
    n, n_factors = factors.shape
    codes = SWITCHED_OFF_SCALE * rng.standard_normal((n, N_LATENTS))
    size = int(rng.integers(MIN_SUBSET, n_factors + 1))
    kept = rng.choice(n_factors, size=size, replace=False)
    places = rng.choice(N_LATENTS, size=size, replace=False)
    signs = rng.choice([-1.0, 1.0], size=size)
    codes[:, places] += factors[:, kept] * signs
    return codes


def entangled_member(factors: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Codes holding a random rotation of all factors, among switched-off latents."""
    n, n_factors = factors.shape
    codes = SWITCHED_OFF_SCALE * rng.standard_normal((n, N_LATENTS))
    places = rng.choice(N_LATENTS, size=n_factors, replace=False)
    codes[:, places] += factors @ random_rotation(n_factors, rng)
    return codes


def _build(proportion: float, n: int, rng: np.random.Generator):
    factors = rng.standard_normal((n, N_FACTORS))
    flags = np.zeros(N_MEMBERS, dtype=bool)
    flags[: round(proportion * N_MEMBERS)] = True
    rng.shuffle(flags)
    members = [disentangled_member(factors, rng) if flag else entangled_member(factors, rng) for flag in flags]
    return factors, members, tuple(flags)


UDR_POPULATION = register_population(
    PopulationScenario(
        name="udr_population",
        parameter="proportion",
        values=(0.0, 0.25, 0.5, 0.75, 1.0),
        build=_build,
        check_value=check_in_range("proportion", 0.0, 1.0),
        source="Duan et al. 2020, section 4 (disentangled models agree up to permutation, sign and subsetting)",
        summary="8 models of the same inputs: disentangled (signed, permuted subsets of the factors) or randomly rotated",
        default_n=500,
    )
)
