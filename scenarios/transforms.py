"""Scenario transforms: what a composed scenario applies to the draw of a base scenario.

A :class:`Transform` is a function of a base draw ``(factors, codes, discrete)``, its own
swept value and a random Generator, plus its *ideal rule*: how the base's ideal scores
(at the base's fixed value) become the composed scenario's at the transform's value.  A
rule states a property only where the base and the transform determine it; a property
it leaves out is unknown (absent from the ideal mapping, NaN in results tables).
:func:`scenarios.compose.compose` puts a base scenario and a transform together.

The transforms are named after the registered scenarios that apply the same map to a
perfect code, so a composed name reads as "this scenario's map, on that base":

``redundancy_attack``, ``synergy_attack`` (Tokui and Sato 2022, eqs. 9-10), swept over ``alpha``
    The attacks of :mod:`scenarios._attacks` on the base's codes, each code first centred
    and divided by its standard deviation in the draw: an invertible affine map of each code,
    which changes no property, so that ``alpha`` means what the paper means (codes of unit
    variance; its base ``z | y ~ N(y, 0.1^2)`` has variance 1.01) whatever the base's scale.
    Ideal: explicitness passes through (both attacks are invertible maps of ``(z, eps)``);
    at ``alpha = 0`` every property passes through (the appended codes are pure noise,
    i.e. dead codes, see ``dead_codes``).  Under the synergy attack modularity stays 1 on a
    base of modularity 1 (each original code still depends on its own factor, the appended
    codes on none; the Gaussian toy model's rule).  Compactness under either attack, and
    modularity under the redundancy attack, fall by amounts that depend on the base's
    information quantities: unknown.
``noise`` (Zaidi et al. 2022, section 5.2, eq. 9), swept over ``alpha in [0, 1]``
    ``z' = (1 - alpha) z + alpha n`` with ``n ~ U(0, 1)`` per code, the codes first rescaled
    to ``[0, 1]`` by their minimum and maximum in the draw (the unit range the review's
    noise acts on; affine, so it changes no property).  Ideal: modularity and compactness
    pass through (review 5.2: noise breaks neither, the ``noise`` scenario's convention);
    explicitness passes through at ``alpha = 0``, is 0 at ``alpha = 1`` (pure noise), and
    ``1 - alpha`` on a base of explicitness 1 (the ``noise`` scenario's ideal); unknown
    otherwise.
``nonlinear`` (Zaidi et al. 2022, section 5.5, eq. 10), swept over ``alpha in [0, 1]``
    The review's tan map (:func:`scenarios.nonlinear.tan_map`) on each code rescaled to
    ``[0, 1]`` as for ``noise`` (a constant code stays constant).  A strictly increasing map
    of each code alone: every property passes through (review 5.5), and so do exact
    information quantities (mutual information is invariant under invertible maps of each
    variable).
``partial`` (Zaidi et al. 2022, section 5.6), swept over ``k``
    Only the first ``k`` factors are measured; the codes do not change.  Default grid: the
    base's factor count down to 1.  Ideal: everything passes through at ``k = K``; below, a
    property of ideal 1 stays 1 (review 5.6: the representation does not change), any other
    is unknown.

Joshi et al.'s (2026) encoders (dense mixing with a set condition number, over- and
undercomplete codes, elementwise nonlinearities, circular codes) are registered by
:mod:`scenarios.encoders`, the null encoders by :mod:`scenarios.null_codes`, each through
:func:`register_transform`; their docstrings state their ideal rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from scenarios._attacks import redundancy_attack, synergy_attack
from scenarios._checks import check_integer
from scenarios.base import IDEAL_PROPERTIES, IdealRanges, ParameterValue, check_in_range
from scenarios.gaussian_toy import ALPHAS, MAX_ALPHA
from scenarios.noise import SIGNAL_END
from scenarios.nonlinear import tan_map

Draw = tuple[np.ndarray, np.ndarray, Sequence[bool]]
TransformApply = Callable[[np.ndarray, np.ndarray, tuple[bool, ...], Any, np.random.Generator], Draw]


class BaseShape(NamedTuple):
    """How many factors and codes a base scenario's draws have (what a transform's grid, limit and rule read)."""

    n_factors: int
    n_codes: int


IdealRule = Callable[[Mapping[str, float], Any, BaseShape], Mapping[str, float]]


@dataclass(frozen=True)
class Transform:
    """A map applied to a base scenario's draw, swept over its own parameter.

    Attributes
    ----------
    name : str
        Name written before ``@`` in a composed scenario's name.
    parameter : str
        Name of the swept parameter.
    grid : callable
        ``grid(shape) -> values``: the default grid for a base of ``shape`` (:class:`BaseShape`).
    apply : callable
        ``apply(factors, codes, discrete, value, rng) -> (factors, codes, discrete)``; draws
        its random numbers from ``rng`` only, after the base's draw.
    ideal : callable
        ``ideal(base_ideal, value, shape) -> {property: ideal}``: the properties it
        determines, from the base's ideals at its fixed value and its numbers of factors and codes.
    check_value : callable
        Normalises a value or raises a ValueError naming the valid range.
    source, summary : str
        Paper and section; one-line description.
    criterion : str
        What a composed scenario on a perfect base tests (see :data:`scenarios.base.CRITERIA`).
    criterion_on_any_base : bool
        Whether the criterion holds whatever the base (the null encoders: their codes are
        independent of any base's factors), not only on a perfect one.
    keeps_exact : bool
        Whether the base's exact quantities hold after the transform.
    limit : callable, optional
        ``limit(shape) -> (largest value, what it is)`` where a value may not exceed a count of
        the base (``partial``'s ``k``: ``(shape.n_factors, "the base's 8 factors")``):
        :meth:`check_on` refuses a larger one, so a composed scenario's ``check_value``
        refuses it when a study is planned (``--grid``), not in a worker.
    settings : Mapping[str, ParameterValue]
        Named settings held fixed along the sweep (a shape, a condition number), which a
        sweep over two parameters may vary; shown by ``list``.
    version : str
        Bumped whenever the transform's output changes.
    ideal_ranges : Mapping[str, tuple[float, float]]
        Where its ideals are defined, as :attr:`scenarios.base.Scenario.ideal_ranges` (the composed scenario's).
    """

    name: str
    parameter: str
    grid: Callable[[BaseShape], tuple[ParameterValue, ...]]
    apply: TransformApply
    ideal: IdealRule
    check_value: Callable[[Any], Any]
    source: str
    summary: str
    criterion: str = ""
    criterion_on_any_base: bool = False
    keeps_exact: bool = False
    limit: Callable[[BaseShape], tuple[int, str]] | None = None
    settings: Mapping[str, ParameterValue] = field(default_factory=dict, hash=False)
    version: str = "1"
    ideal_ranges: IdealRanges = field(default_factory=dict, hash=False)

    def check_on(self, value: Any, shape: BaseShape) -> Any:
        """``check_value(value)``, also refusing a value above the base's :attr:`limit`.

        Raises
        ------
        ValueError
            Naming the valid range.
        """
        value = self.check_value(value)
        if self.limit is not None:
            largest, what = self.limit(shape)
            if value > largest:
                raise ValueError(f"{self.parameter} must be at most {what}, got {value!r}")
        return value


def known(base_ideal: Mapping[str, float], properties: Sequence[str] = IDEAL_PROPERTIES) -> dict[str, float]:
    """The finite base ideals among ``properties`` (the ones a rule can pass through)."""
    return {p: float(base_ideal[p]) for p in properties if p in base_ideal and np.isfinite(base_ideal[p])}


def perfect(ideal: Mapping[str, float]) -> bool:
    """Whether an ideal states a perfect code (every property 1)."""
    return all(ideal.get(prop) == 1.0 for prop in IDEAL_PROPERTIES)


def standardized(codes: np.ndarray) -> np.ndarray:
    """Each code centred and divided by its standard deviation in the draw (a constant code becomes 0)."""
    centred = codes - codes.mean(axis=0)
    scale = centred.std(axis=0)
    return np.divide(centred, scale, out=np.zeros_like(centred), where=scale > 0)


def unit_range(codes: np.ndarray) -> np.ndarray:
    """Each code rescaled to ``[0, 1]`` by its minimum and maximum in the draw (a constant code becomes 0.5)."""
    low = codes.min(axis=0)
    span = codes.max(axis=0) - low
    return np.divide(codes - low, span, out=np.full_like(codes, 0.5), where=span > 0)


def fixed_grid(values: tuple[ParameterValue, ...]) -> Callable[[BaseShape], tuple[ParameterValue, ...]]:
    """A grid that does not depend on the base's shape."""
    return lambda shape: values


def _redundancy(factors, codes, discrete, alpha, rng) -> Draw:
    return factors, redundancy_attack(standardized(codes), alpha, rng), discrete


def _synergy(factors, codes, discrete, alpha, rng) -> Draw:
    return factors, synergy_attack(standardized(codes), alpha, rng), discrete


def _redundancy_ideal(base: Mapping[str, float], alpha: float, shape: BaseShape) -> dict[str, float]:
    return known(base) if alpha == 0 else known(base, ("explicitness",))


def _synergy_ideal(base: Mapping[str, float], alpha: float, shape: BaseShape) -> dict[str, float]:
    if alpha == 0:
        return known(base)
    ideal = known(base, ("explicitness",))
    if known(base, ("modularity",)).get("modularity") == 1.0:
        ideal["modularity"] = 1.0
    return ideal


def _noise(factors, codes, discrete, alpha, rng) -> Draw:
    return factors, (1.0 - alpha) * unit_range(codes) + alpha * rng.random(codes.shape), discrete


def _noise_ideal(base: Mapping[str, float], alpha: float, shape: BaseShape) -> dict[str, float]:
    ideal = known(base, ("modularity", "compactness"))
    explicitness = known(base, ("explicitness",)).get("explicitness")
    if alpha == 0 and explicitness is not None:
        ideal["explicitness"] = explicitness
    elif alpha == 1:
        ideal["explicitness"] = 0.0
    elif explicitness == 1.0:
        ideal["explicitness"] = 1.0 - alpha
    return ideal


def _nonlinear(factors, codes, discrete, alpha, rng) -> Draw:
    return factors, tan_map(unit_range(codes), alpha), discrete


def _partial(factors, codes, discrete, k, rng) -> Draw:
    return factors[:, :k], codes, tuple(discrete)[:k]


def _partial_ideal(base: Mapping[str, float], k: int, shape: BaseShape) -> dict[str, float]:
    if k >= shape.n_factors:
        return known(base)
    return {p: 1.0 for p, value in known(base).items() if value == 1.0}


_UNIT_ALPHAS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)

TRANSFORMS: dict[str, Transform] = {
    transform.name: transform
    for transform in (
        Transform(
            name="redundancy_attack", parameter="alpha", grid=fixed_grid(ALPHAS), apply=_redundancy,
            ideal=_redundancy_ideal, check_value=check_in_range("alpha", 0.0, MAX_ALPHA),
            source="Tokui and Sato 2022, section 4.1, eq. 9",
            summary="redundancy attack [z, alpha U z + eps] on the standardised base codes", criterion="attacks",
        ),
        Transform(
            name="synergy_attack", parameter="alpha", grid=fixed_grid(ALPHAS), apply=_synergy,
            ideal=_synergy_ideal, check_value=check_in_range("alpha", 0.0, MAX_ALPHA),
            source="Tokui and Sato 2022, section 4.2, eq. 10",
            summary="synergy attack [z + alpha U eps, eps] on the standardised base codes", criterion="attacks",
        ),
        Transform(
            name="noise", parameter="alpha", grid=fixed_grid(_UNIT_ALPHAS), apply=_noise, ideal=_noise_ideal,
            check_value=check_in_range("alpha", 0.0, 1.0), source="Zaidi et al. 2022, section 5.2, eq. 9",
            summary="(1 - alpha) z + alpha n, n ~ U(0, 1), on the base codes rescaled to [0, 1]", criterion="noise",
            ideal_ranges={"modularity": (0.0, SIGNAL_END), "compactness": (0.0, SIGNAL_END)},
        ),
        Transform(
            name="nonlinear", parameter="alpha", grid=fixed_grid(_UNIT_ALPHAS), apply=_nonlinear,
            ideal=lambda base, alpha, shape: known(base), check_value=check_in_range("alpha", 0.0, 1.0),
            source="Zaidi et al. 2022, section 5.5, eq. 10",
            summary="the review's tan map on each base code rescaled to [0, 1]", criterion="nonlinearity",
            keeps_exact=True,
        ),
        Transform(
            name="partial", parameter="k", grid=lambda shape: tuple(range(shape.n_factors, 0, -1)), apply=_partial,
            ideal=_partial_ideal, check_value=check_integer("k", 1), source="Zaidi et al. 2022, section 5.6",
            summary="only the first k of the base's factors measured", criterion="non_measured_factors",
            limit=lambda shape: (shape.n_factors, f"the base's {shape.n_factors} factors"),
        ),
    )
}
"""The transforms a composed scenario can apply, by name (:func:`register_transform` adds one)."""


def register_transform(transform: Transform) -> Transform:
    """Add ``transform`` to :data:`TRANSFORMS`; names are unique.  Returns it."""
    if not isinstance(transform, Transform):
        raise TypeError(f"a transform must be a Transform, got {type(transform).__name__}")
    if transform.name in TRANSFORMS:
        raise ValueError(f"a transform named {transform.name!r} is already registered")
    TRANSFORMS[transform.name] = transform
    return transform


def available_transforms() -> list[str]:
    """Sorted names of the transforms."""
    return sorted(TRANSFORMS)


def get_transform(name: str) -> Transform:
    """The transform named ``name``; KeyError listing the known ones otherwise."""
    try:
        return TRANSFORMS[name]
    except KeyError:
        raise KeyError(f"unknown transform {name!r}; known transforms: {', '.join(available_transforms())}") from None
