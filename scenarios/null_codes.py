"""Codes independent of the factors: the null encoders (Joshi et al. 2026, encoders E9 and E10).

The codes ignore the factors: ``L`` columns of independent standard normal (``gaussian``,
E9) or ``U(-1, 1)`` (``uniform``, E10) noise.  Their width is swept relative to the
factors, ``width_ratio = L / K`` in ``[1, 64]`` (``L = round(width_ratio K)``; grid 1, 2, 4, 8,
16), because what a metric reaches by chance grows with the number of codes it may pick
from and shrinks with the sample size (Joshi et al., experiments 11 and 15: MCC on null
codes about 0.18 at n = 50, 0.03 at n = 2000; their appendix bounds it by
``sqrt(2 log L / n)``).

Scenarios ``null_gaussian``, ``null_uniform``
    ``K = 8`` independent standard normal factors (Joshi et al.'s D1; eight as in this
    harness's other scenarios, so that a chance level read here is the one a study's
    8-factor scenarios face) and null codes of the named marginal.
Transforms ``null_gaussian``, ``null_uniform`` (``T@BASE=V``)
    The base's factors kept, its codes replaced by null codes, ``L = round(width_ratio K)``
    with ``K`` the base's factors.

Common random numbers
---------------------
Each code column is drawn from its own stream (child ``j`` of one seed sequence), and the
scenarios draw their factors from a stream of their own: for a given seed the codes of a
narrower width are the first columns of a wider one, and the first ``n`` rows of a draw are
the draw at ``n``.  So a sweep of the width shows the same noise growing, and a sweep of
the sample size (:mod:`scenarios.sample_size`'s ``rows`` mechanism, a later two-parameter
sweep) sees nested samples, as the review's sample-efficiency protocol asks.

Ideal trajectory
----------------
0 for every property at every width.  The review's calibration requirement: "the minimum
score to a completely random ... representation" (Zaidi et al. 2022, section 3), measured
by :func:`reports.analyses.calibration` at the pure-noise end of ``noise``.  (A dead-code reading would
call null codes vacuously modular, each relating to no factor, as ``dead_codes`` does for
uninformative codes *beside* a perfect code; with no informative code at all there is
nothing to be modular, and every metric's null is its chance level.)  Criterion ``chance``,
on any base.
"""

from __future__ import annotations

import numpy as np

from scenarios.base import Scenario, check_in_range, register_scenario
from scenarios.transforms import Transform, fixed_grid, register_transform

N_FACTORS = 8
MARGINALS = ("gaussian", "uniform")
MAX_WIDTH_RATIO = 64.0
WIDTH_RATIOS = (1.0, 2.0, 4.0, 8.0, 16.0)
NULL_IDEAL = {"modularity": 0.0, "compactness": 0.0, "explicitness": 0.0}
_SOURCES = {"gaussian": "encoder E9 (random Gaussian)", "uniform": "encoder E10 (random uniform)"}
_DISTRIBUTIONS = {"gaussian": "N(0, 1)", "uniform": "U(-1, 1)"}


def code_width(width_ratio: float, n_factors: int) -> int:
    """``L = round(width_ratio K)``, at least 1."""
    return max(1, int(round(width_ratio * n_factors)))


def independent_codes(root: np.random.SeedSequence, n: int, width: int, marginal: str) -> np.ndarray:
    """``(n, width)`` null codes, column ``j`` drawn from child ``j`` of ``root`` (see the module docstring).

    Parameters
    ----------
    root : numpy.random.SeedSequence
        Seeds the columns; only its entropy is read (children are spawned from a copy).
    n, width : int
        Rows and columns.
    marginal : {"gaussian", "uniform"}
        ``N(0, 1)`` or ``U(-1, 1)``.
    """
    children = np.random.SeedSequence(root.entropy).spawn(width)
    codes = np.empty((n, width))
    for column, child in enumerate(children):
        stream = np.random.default_rng(child)
        codes[:, column] = stream.standard_normal(n) if marginal == "gaussian" else stream.uniform(-1.0, 1.0, n)
    return codes


def _entropy(rng: np.random.Generator) -> np.random.SeedSequence:
    return np.random.SeedSequence(int(rng.integers(2**63)))


def null_scenario(name: str, *, marginal: str, n_factors: int = N_FACTORS) -> Scenario:
    """``n_factors`` independent normal factors and null codes of ``marginal``, swept over ``width_ratio``.

    Returns
    -------
    Scenario
        Not registered; criterion ``chance``, every ideal 0.
    """
    if marginal not in MARGINALS:
        raise ValueError(f"marginal must be one of {', '.join(MARGINALS)}, got {marginal!r}")

    def build(width_ratio: float, n: int, rng: np.random.Generator):
        factor_seed, code_seed = _entropy(rng), _entropy(rng)  # drawn before anything that depends on n
        factors = np.random.default_rng(factor_seed).standard_normal((n, n_factors))
        codes = independent_codes(code_seed, n, code_width(width_ratio, n_factors), marginal)
        return factors, codes, (False,) * n_factors

    return Scenario(
        name=name,
        parameter="width_ratio",
        values=WIDTH_RATIOS,
        build=build,
        ideal_trajectory=lambda width_ratio: dict(NULL_IDEAL),
        check_value=check_in_range("width_ratio", 1.0, MAX_WIDTH_RATIO),
        source=f"Joshi et al. 2026, DGP D1 with {_SOURCES[marginal]}; experiments 11 and 15",
        summary=f"{_DISTRIBUTIONS[marginal]} codes independent of {n_factors} normal factors, "
                "L = width_ratio x K codes; ideal 0 (chance)",
        criterion="chance",
        settings={"n_factors": n_factors, "factors": "gaussian", "codes": marginal},
    )


def null_transform(marginal: str) -> Transform:
    """The transform replacing a base's codes by ``round(width_ratio K)`` null codes of ``marginal``."""

    def apply(factors, codes, discrete, width_ratio, rng):
        return factors, independent_codes(_entropy(rng), factors.shape[0], code_width(width_ratio, factors.shape[1]),
                                          marginal), discrete

    return Transform(
        name=f"null_{marginal}", parameter="width_ratio", grid=fixed_grid(WIDTH_RATIOS), apply=apply,
        ideal=lambda base, width_ratio, shape: dict(NULL_IDEAL),
        check_value=check_in_range("width_ratio", 1.0, MAX_WIDTH_RATIO),
        source=f"Joshi et al. 2026, {_SOURCES[marginal]}",
        summary=f"the base's codes replaced by round(width_ratio K) {_DISTRIBUTIONS[marginal]} codes independent "
                "of its factors; ideal 0", criterion="chance", criterion_on_any_base=True,
        settings={"codes": marginal},
    )


NULL_GAUSSIAN = register_scenario(null_scenario("null_gaussian", marginal="gaussian"))
NULL_UNIFORM = register_scenario(null_scenario("null_uniform", marginal="uniform"))
NULL_TRANSFORMS = tuple(register_transform(null_transform(marginal)) for marginal in MARGINALS)
