"""A perfect code of equicorrelated factors with a signed correlation (Joshi et al. 2026, DGP D2).

``K = 5`` factors (their default ``d``) with every pair correlated by the same ``rho``,
coded perfectly, ``z = v``.  ``rho`` runs from the most negative value an equicorrelation
matrix allows to 0.99: the matrix ``(1 - rho) I + rho 1 1^T`` has eigenvalues
``1 + (K - 1) rho`` (along ``1``) and ``1 - rho``, so it is a correlation matrix only for
``-1 / (K - 1) < rho < 1``.  The range keeps a margin of 0.01 from the lower end (where the
factors would sum to a constant) and is rounded up to two decimals: ``[-0.24, 0.99]`` for
Gaussian factors at ``K = 5``.  Sweeping the sign is Joshi et al.'s experiment 3: a
metric's score should not depend on whether the factors are correlated positively or
negatively.

Marginals
---------
``equicorrelated``
    Gaussian factors, ``v = S g`` with ``g ~ N(0, I_K)`` and ``S`` the symmetric square root
    of the correlation matrix, ``S = sqrt(1 - rho) I + (sqrt(1 + (K - 1) rho) - sqrt(1 - rho)) 1 1^T / K``
    (exact, treats the factors alike, and the same ``g`` serves every ``rho``).
``equicorrelated_uniform``
    Uniform factors on ``(0, 1)`` through a Gaussian copula: the Gaussian factors above at
    correlation ``r = 2 sin(pi rho / 6)``, each pushed through the normal CDF (as in
    :mod:`scenarios.correlated`), so that each margin is exactly uniform and the factors'
    Pearson correlation, equal to their Spearman correlation, is
    ``(6 / pi) arcsin(r / 2) = rho``.  Because ``r`` must stay above ``-1 / (K - 1)``, the
    lowest ``rho`` is ``(6 / pi) arcsin(-1 / (2 (K - 1))) = -0.2395`` at ``K = 5``, so the
    range is ``[-0.22, 0.99]``.

Ideal trajectory, and where the literature disagrees
----------------------------------------------------
The code is the identity: intervening on ``v_1`` moves ``z_1`` and nothing else, every factor
is read off exactly.  Whether that is *perfectly modular and compact* when the factors are
correlated is where the two readings of the properties part:

* **The encoder's identifiability** (registered ``equicorrelated``, ``equicorrelated_uniform``):
  the ideal is 1 for every property at every ``rho``.  Joshi et al. (2026) argue that a metric
  should report how well the *encoder* recovers the factors (up to the equivalence class of
  the identifiability result), not the dependence in the data: the correlation is a property
  of the DGP, and an elementwise encoder is identifiable whatever it is (their experiment 1
  expects flat curves across DGPs under an elementwise encoder).  Under this ideal, MIG and
  InfoM falling as ``|rho|`` grows (each code then shares information with every factor) is
  a bias of those metrics; so is MCC rising with ``rho`` under a dense mixing (their
  headline false positive, see ``dense_mixing@equicorrelated=RHO``).  This is also the
  convention of :mod:`scenarios.correlated`.
* **The statistical dependence between codes and factors** (``equicorrelated_statistical``):
  the review (Zaidi et al. 2022, section 2.1) warns that "if two factors were to share
  information, parts of the representation relate to both", and a metric built on
  dependence reads ``z_1`` as relating to every factor.  The ideal of this reading is the
  Eastwood and Williams (2018) degree (:func:`scenarios._spread.concentration`) of each
  code's squared correlations with the factors, the share of the code's variance each
  factor explains alone: ``(1, rho^2, ..., rho^2)`` over ``K`` places, the same for every
  code and, by symmetry, for every factor's squared correlations with the codes::

      modularity = compactness = 1 - H(p) / log K,   p = (1, rho^2, ..., rho^2) / (1 + (K - 1) rho^2)

  It is 1 at ``rho = 0``, even in ``rho``, and tends to 0 as ``|rho| -> 1`` (every code
  related equally to every factor).  Explicitness stays 1.

The registered default is the encoder's reading, as Joshi et al. ask; the statistical
reading is the variant for a study that wants a metric to report the dependence.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

from scenarios._spread import concentration
from scenarios.base import Scenario, check_in_range, register_scenario
from scenarios.correlated import copula_correlation

N_FACTORS = 5
MARGINALS = ("gaussian", "uniform")
IDEAL_VIEWS = ("encoder", "statistical")
MAX_RHO = 0.99
#: Distance kept from the lowest valid correlation, before rounding up to two decimals.
MARGIN = 0.01
INNER_GRID = (0.0, 0.25, 0.5, 0.75, 0.9, 0.99)


def lowest_rho(n_factors: int, marginal: str) -> float:
    """The lowest ``rho`` of the range: the smallest valid value plus :data:`MARGIN`, rounded up to two decimals.

    Gaussian factors: ``-1 / (K - 1)``; uniform factors: the Pearson correlation the copula gives
    at that Gaussian correlation, ``(6 / pi) arcsin(-1 / (2 (K - 1)))``.
    """
    bound = -1.0 / (n_factors - 1)
    if marginal == "uniform":
        bound = 6.0 / np.pi * math.asin(bound / 2.0)
    return math.ceil(round((bound + MARGIN) * 100.0, 9)) / 100.0


def equicorrelated_gaussian(gauss: np.ndarray, r: float) -> np.ndarray:
    """``gauss`` (rows of independent standard normals) mapped to equicorrelated normals of correlation ``r``.

    Multiplies each row by the symmetric square root of ``(1 - r) I + r 1 1^T``.
    """
    n_factors = gauss.shape[1]
    along_ones = math.sqrt(1.0 + (n_factors - 1) * r) - math.sqrt(1.0 - r)
    return math.sqrt(1.0 - r) * gauss + along_ones * gauss.mean(axis=1, keepdims=True)


def statistical_degree(rho: float, n_factors: int) -> float:
    """The degree of the shares ``(1, rho^2, ..., rho^2)`` over ``n_factors`` places (see the module docstring)."""
    return concentration([1.0] + [rho * rho] * (n_factors - 1), n_factors)


def equicorrelated_scenario(name: str, *, marginal: str = "gaussian", n_factors: int = N_FACTORS,
                            ideal_view: str = "encoder") -> Scenario:
    """The perfect code of ``n_factors`` equicorrelated factors, swept over ``rho``.

    Parameters
    ----------
    name : str
        The scenario's name.
    marginal : {"gaussian", "uniform"}
        The factors' marginal distribution (uniform through a Gaussian copula).
    n_factors : int, default 5
        ``K``, at least 2; it sets the lowest valid ``rho``.
    ideal_view : {"encoder", "statistical"}
        Which ideal trajectory (see the module docstring).

    Returns
    -------
    Scenario
        Not registered; its ``settings`` name the three choices.
    """
    if marginal not in MARGINALS or ideal_view not in IDEAL_VIEWS or n_factors < 2:
        raise ValueError(f"need marginal in {MARGINALS}, ideal_view in {IDEAL_VIEWS} and n_factors >= 2; "
                         f"got {marginal!r}, {ideal_view!r}, {n_factors!r}")
    low = lowest_rho(n_factors, marginal)

    def build(rho: float, n: int, rng: np.random.Generator):
        gauss = rng.standard_normal((n, n_factors))
        if marginal == "gaussian":
            factors = equicorrelated_gaussian(gauss, rho)
        else:
            factors = ndtr(equicorrelated_gaussian(gauss, copula_correlation(rho)))
        return factors, factors.copy(), (False,) * n_factors

    def ideal(rho: float) -> dict[str, float]:
        if ideal_view == "encoder":
            return {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}
        degree = statistical_degree(rho, n_factors)
        return {"modularity": degree, "compactness": degree, "explicitness": 1.0}

    reading = "ideal 1 (the encoder's identifiability)" if ideal_view == "encoder" else \
        "ideal: the degree of the codes' squared correlations with the factors"
    return Scenario(
        name=name,
        parameter="rho",
        values=(low, *INNER_GRID),
        build=build,
        ideal_trajectory=ideal,
        check_value=check_in_range("rho", low, MAX_RHO),
        source="Joshi et al. 2026, DGP D2 (correlated factors) and experiment 3 (sign of the correlation)",
        summary=f"perfect code z = v of {n_factors} {marginal} factors, every pair correlated by rho; {reading}",
        criterion="dependent_factors",
        settings={"n_factors": n_factors, "marginal": marginal, "ideal_view": ideal_view},
    )


EQUICORRELATED = register_scenario(equicorrelated_scenario("equicorrelated"))
EQUICORRELATED_UNIFORM = register_scenario(equicorrelated_scenario("equicorrelated_uniform", marginal="uniform"))
EQUICORRELATED_STATISTICAL = register_scenario(
    equicorrelated_scenario("equicorrelated_statistical", ideal_view="statistical"))
