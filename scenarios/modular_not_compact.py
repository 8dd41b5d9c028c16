"""Modular but not compact: each factor held by several codes (Zaidi et al. 2022, section 5.4).

Three cases, swept by the ``case`` parameter, each with 8 codes:

``"cos_sin"``
    4 angles ``theta_k`` in ``[0, 2 pi)``, each coded as ``(cos theta_k, sin theta_k)``:
    ``z = [cos theta_1, sin theta_1, ..., cos theta_4, sin theta_4]``.
``"duplicate_2"``
    the same 4 angles, each copied linearly into 2 codes: ``z = [theta_1, theta_1, ..., theta_4, theta_4]``.
``"duplicate_4"``
    2 angles, each copied into 4 codes: ``z = [theta_1 x 4, theta_2 x 4]``.

Continuous or quantised angles
------------------------------
The review's text says the angles are discretised to 10 values
(``{0, pi/5, ..., 9 pi/5}``).  Run through the review's own code, its published
Table 1 cells come out when the angles are drawn *continuously* (uniform on
``[0, 2 pi)``) and binned into 10 bins by the metrics, and not when they are quantised
beforehand: with quantised angles each of the 10 values has its own bin, every
``cos theta`` value is a deterministic function of the bin, and MIG-sup with the
code-entropy normalisation of that code gives 1.0 instead of the published 0.7.  So the
registered ``modular_not_compact`` scenario draws continuous angles (it reproduces
Table 1), and ``modular_not_compact_quantized`` follows the text literally (angles
``k pi / 5`` with ``k`` uniform on ``0..9``).  Equal-width binning of the quantised angles
puts each of the 10 values in its own bin, so the factors are left continuous-flagged
in both variants.

Ideal trajectory
----------------
* Modularity 1: every code depends on exactly one factor.
* Explicitness 1: every factor is recovered exactly from its codes (an angle from its
  cosine and sine together, a copy from any of its copies).
* Compactness: each factor is spread equally over ``m`` of the 8 codes (``m = 2`` for
  ``cos_sin`` and ``duplicate_2``, ``m = 4`` for ``duplicate_4``).  The review asks that
  a metric express *to what degree* a representation is not compact (section 5.4 and
  6.2: MIG gives 0.0 to both the 2-copy and the 4-copy case), so the ideal is the
  Eastwood and Williams (2018) degree of an equal split, ``1 - log(m) / log(8)``:
  2/3 for two codes and 1/3 for four.  (The review's DCI random forest compactness,
  0.7, 0.7 and 0.4 in Table 1, is the metric the review credits with measuring it.)
"""

from __future__ import annotations

import numpy as np

from scenarios._spread import concentration
from scenarios.base import Scenario, choice_checker, register_scenario

CASES = ("cos_sin", "duplicate_2", "duplicate_4")
N_CODES = 8
QUANTIZED_LEVELS = 10
_LAYOUT = {"cos_sin": (4, 2), "duplicate_2": (4, 2), "duplicate_4": (2, 4)}  # case -> (factors, codes per factor)


def build(case: str, n: int, rng: np.random.Generator, *, quantized: bool = False):
    """Factors, codes and discrete flags of one case.

    Parameters
    ----------
    case : {"cos_sin", "duplicate_2", "duplicate_4"}
        Which representation.
    n : int
        Number of samples.
    rng : numpy.random.Generator
        Source of the angles.
    quantized : bool, default False
        False draws angles uniformly on ``[0, 2 pi)`` (reproduces the review's Table 1);
        True draws them from the 10 values ``k pi / 5`` (the review's text).
    """
    n_factors, copies = _LAYOUT[case]
    if quantized:
        angles = rng.integers(0, QUANTIZED_LEVELS, size=(n, n_factors)) * (2.0 * np.pi / QUANTIZED_LEVELS)
    else:
        angles = rng.uniform(0.0, 2.0 * np.pi, size=(n, n_factors))
    if case == "cos_sin":
        codes = np.stack([np.cos(angles), np.sin(angles)], axis=2).reshape(n, N_CODES)
    else:
        codes = np.repeat(angles, copies, axis=1)
    return angles, codes, (False,) * n_factors


def _build_quantized(case: str, n: int, rng: np.random.Generator):
    return build(case, n, rng, quantized=True)


def ideal(case: str) -> dict[str, float]:
    """Ideal scores of a case (see the module docstring)."""
    copies = _LAYOUT[case][1]
    return {"modularity": 1.0, "compactness": concentration([1.0] * copies, N_CODES), "explicitness": 1.0}


MODULAR_NOT_COMPACT = register_scenario(
    Scenario(
        name="modular_not_compact",
        parameter="case",
        values=CASES,
        build=build,
        ideal_trajectory=ideal,
        check_value=choice_checker("case", CASES),
        source="Zaidi et al. 2022, section 5.4, Table 1 (continuous angles, as the published cells require)",
        summary="each factor held by 2 or 4 codes (cos/sin of an angle, or copies): modular, explicit, not compact",
    )
)

MODULAR_NOT_COMPACT_QUANTIZED = register_scenario(
    Scenario(
        name="modular_not_compact_quantized",
        parameter="case",
        values=CASES,
        build=_build_quantized,
        ideal_trajectory=ideal,
        check_value=choice_checker("case", CASES),
        source="Zaidi et al. 2022, section 5.4 (angles quantised to 10 values, as the text says)",
        summary="modular_not_compact with angles quantised to k pi / 5 before coding",
    )
)
