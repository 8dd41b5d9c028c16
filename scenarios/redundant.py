"""Redundant ground truth: one factor a noisy function of others (Joshi et al. 2026, DGPs D3 and D4).

``K = 5`` factors, all standard normal, coded perfectly (``z = v``).  The factors are
independent except one, the *redundant* factor, which follows the ``m`` factors before it::

    v_m = (f(v_0, ..., v_{m-1}) + sigma g_m) / sqrt(1 + sigma^2),   f = v_0 v_1 ... v_{m-1}

with ``g_m`` standard normal and independent of the rest.  The product of independent
standard normals has mean 0 and variance 1, so every factor keeps unit variance.  The
swept ``sigma`` runs from 0 (the redundant factor is a deterministic function of the others:
it carries no information beyond them) to large (it becomes an independent factor).  For a
given seed the same normals serve every ``sigma``.

``redundant_copy`` (``m = 1``, Joshi et al.'s D3 with a linear map)
    ``v_1`` is a noisy copy of ``v_0``: their correlation is ``1 / sqrt(1 + sigma^2)``, 1 at
    ``sigma = 0`` where the two factors are one variable named twice.
``redundant_function`` (``m = 2``, D4 with its first bivariate function, the product)
    ``v_2`` is a noisy product of ``v_0`` and ``v_1``: uncorrelated with either (a metric that
    reads linear dependence sees nothing) yet, at ``sigma = 0``, a function of both.  The
    product explains a share ``1 / (1 + sigma^2)`` of its variance.

Ideal trajectory
----------------
1 for every property at every ``sigma``, the encoder's reading of :mod:`scenarios.equicorrelated`:
the encoder is the identity, so each code depends on one factor and each factor is read
off exactly from one code; the redundancy is a property of the data (Joshi et al.'s
experiment 1 expects a metric to be invariant across D1-D4 under an elementwise encoder,
their D3 and D4 being noise-free by default).  At ``sigma = 0`` of ``redundant_copy`` nothing in
the data can tell whether ``z_0`` codes ``v_0`` or ``v_1`` (they are equal), so a metric that reads
statistical dependence must charge the code for it; the statistical reading has no
metric-free ideal here (the product is uncorrelated with its sources but not independent
of them), so no variant states one.
"""

from __future__ import annotations

import numpy as np

from scenarios.base import Scenario, check_in_range, register_scenario

N_FACTORS = 5
MAX_SIGMA = 10.0
SIGMAS = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0)


def redundant_scenario(name: str, *, n_sources: int, n_factors: int = N_FACTORS) -> Scenario:
    """The perfect code of ``n_factors`` normal factors, the one at index ``n_sources`` a noisy product of those before it.

    Parameters
    ----------
    name : str
        The scenario's name.
    n_sources : int
        ``m``: how many factors the redundant one follows (1: a noisy copy), at least 1
        and below ``n_factors``.
    n_factors : int, default 5
        ``K``.

    Returns
    -------
    Scenario
        Swept over ``sigma`` in ``[0, 10]``; not registered.
    """
    if not 1 <= n_sources < n_factors:
        raise ValueError(f"need 1 <= n_sources < n_factors, got n_sources = {n_sources}, n_factors = {n_factors}")

    def build(sigma: float, n: int, rng: np.random.Generator):
        factors = rng.standard_normal((n, n_factors))
        source = np.prod(factors[:, :n_sources], axis=1)
        factors[:, n_sources] = (source + sigma * factors[:, n_sources]) / np.sqrt(1.0 + sigma * sigma)
        return factors, factors.copy(), (False,) * n_factors

    relation = "a noisy copy of v_0" if n_sources == 1 else "a noisy product " + " ".join(f"v_{i}" for i in range(n_sources))
    label = "D3 (single-factor redundant)" if n_sources == 1 else "D4 (multi-factor redundant)"
    return Scenario(
        name=name,
        parameter="sigma",
        values=SIGMAS,
        build=build,
        ideal_trajectory=lambda sigma: {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0},
        check_value=check_in_range("sigma", 0.0, MAX_SIGMA),
        source=f"Joshi et al. 2026, DGP {label}",
        summary=f"perfect code z = v of {n_factors} normal factors, v_{n_sources} {relation} "
                "(noise sigma; unit variances); ideal 1 (the encoder's identifiability)",
        criterion="dependent_factors",
        settings={"n_factors": n_factors, "n_sources": n_sources},
    )


REDUNDANT_COPY = register_scenario(redundant_scenario("redundant_copy", n_sources=1))
REDUNDANT_FUNCTION = register_scenario(redundant_scenario("redundant_function", n_sources=2))
