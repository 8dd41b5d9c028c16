"""A perfect code rotated in pairs of axes: axis misalignment (Zaidi et al. 2022, section 6.1).

8 independent factors ``v ~ U(0, 1)``, paired ``(v_1, v_2), (v_3, v_4), ...``; each pair
is rotated about the centre of the unit square by the same angle ``theta``::

    z_{2i-1} = 0.5 + cos(theta) (v_{2i-1} - 0.5) - sin(theta) (v_{2i} - 0.5)
    z_{2i}   = 0.5 + sin(theta) (v_{2i-1} - 0.5) + cos(theta) (v_{2i} - 0.5)

``theta`` runs from 0 (the perfect code) to ``pi / 4`` (every code an equal mixture of
two factors) in steps of ``pi / 20``.  This is the review's thought experiment of
section 6.1: rotating a perfectly disentangled representation keeps all the
information and keeps the factors independent (they are drawn independently, the map
is orthogonal, and pairs never interact), yet "existing metrics will fail to capture
perfect modularity or compactness because variations in one factor will cause variation
on several dimensions of the code space and vice versa".

Ideal trajectory
----------------
* Explicitness 1: the rotation is invertible (orthogonal), every factor is recovered
  exactly, even linearly.
* Modularity and compactness, measured in the given axes, fall as ``theta -> pi / 4``.
  Because the factors are independent with equal variance, factor ``v_{2i-1}`` puts a
  share ``cos^2 theta`` of its variance in code ``z_{2i-1}`` and ``sin^2 theta`` in
  ``z_{2i}``, and each code draws the same shares from its two factors.  The ideal is
  the Eastwood and Williams (2018) degree of those shares over the 8 places they could
  spread to (see ``scenarios/_spread.py``)::

      ideal(theta) = 1 - H(cos^2 theta, sin^2 theta) / log 8

  It is 1 at ``theta = 0`` and ``1 - log 2 / log 8 = 2/3`` at ``pi / 4``, where each
  factor sits in two of the eight codes; 0 is reserved for a factor spread over all
  codes (review 5.3 asks metrics to tell "relates to two" from "relates to all").
  The curve is steep at small angles (the entropy's slope is infinite at 0): a slight
  misalignment already costs the most, which is what an entropy-based degree says.
  A metric robust to misalignment, which the review wishes for, would stay at 1; the
  ideal here follows the axis-aligned definitions that all reviewed metrics share.
"""

from __future__ import annotations

import numpy as np

from scenarios._spread import concentration
from scenarios.base import Scenario, check_in_range, register_scenario

N_FACTORS = 8


def rotation_matrix(theta: float, size: int = N_FACTORS) -> np.ndarray:
    """Block-diagonal matrix rotating each consecutive pair of axes by ``theta``."""
    block = np.array([[np.cos(theta), np.sin(theta)], [-np.sin(theta), np.cos(theta)]])
    return np.kron(np.eye(size // 2), block)


def _build(theta: float, n: int, rng: np.random.Generator):
    factors = rng.random((n, N_FACTORS))
    codes = 0.5 + (factors - 0.5) @ rotation_matrix(theta)
    return factors, codes, (False,) * N_FACTORS


def _ideal(theta: float) -> dict[str, float]:
    degree = concentration([np.cos(theta) ** 2, np.sin(theta) ** 2], N_FACTORS)
    return {"modularity": degree, "compactness": degree, "explicitness": 1.0}


ROTATION = register_scenario(
    Scenario(
        name="rotation",
        parameter="theta",
        values=tuple(float(np.pi * i / 20) for i in range(6)),
        build=_build,
        ideal_trajectory=_ideal,
        check_value=check_in_range("theta", 0.0, float(np.pi / 4)),
        source="Zaidi et al. 2022, section 6.1 (thought experiment on axis misalignment)",
        summary="perfect code with each pair of axes rotated by theta in [0, pi/4]",
    )
)
