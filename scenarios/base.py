"""The scenario contract: a :class:`Scenario` generates a :class:`Representation`.

A scenario builds codes ``z = f(v)`` with exactly known properties for a value of its
swept parameter, a sample size and a seed, and states the *ideal* score of each
property at that value (its ideal trajectory), with the paper section it comes from.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

IDEAL_PROPERTIES = ("modularity", "compactness", "explicitness")
#: How far apart the three properties' ideals may be and still be one holistic ideal (rounding).
HOLISTIC_TOLERANCE = 1e-9


def holistic_ideal(ideals: Mapping[str, float]) -> float:
    """The ideal of a holistic score where a scenario states one: the common ideal of the three properties when it
    states all three and they agree (1 under a nonlinear map, 0 on codes independent of the factors); NaN elsewhere.

    A holistic score claims all three properties, so it has an ideal only where they share one.  Written in a
    holistic row's ``ideal``, so that a study without a metric of each property (``mcc`` on ``null_gaussian``) still
    draws and judges it against that ideal (the reports read the rows' ideals: with no modularity row, it had none).
    """
    values = [ideals.get(prop, math.nan) for prop in IDEAL_PROPERTIES]
    if not all(math.isfinite(value) for value in values) or max(values) - min(values) > HOLISTIC_TOLERANCE:
        return math.nan
    return float(values[0])

CRITERIA = ("noise", "nonlinearity", "non_measured_factors", "attacks", "sample_efficiency", "dependent_factors",
            "chance")
"""What a scenario can declare it tests, beyond the ideal trajectories of the properties.

``noise``: additive noise (calibration at its ends, robustness at low noise);
``nonlinearity``: a nonlinear but invertible map; ``non_measured_factors``: factors that do
not reach the code; ``attacks``: entanglement attacks that should lower modularity scores;
``sample_efficiency``: a sample-size sweep of a fixed representation;
``dependent_factors``: correlated or redundant factors under a fixed encoder (a score that moves
with the dependence charges the code for the data); ``chance``: codes independent of the
factors (every ideal 0: what a score reaches by chance).
"""

ParameterValue = float | int | str
IdealRanges = Mapping[str, tuple[float, float]]
"""Property -> the inclusive range of a scenario's parameter where its ideal is defined (see :class:`Scenario`)."""
SeedLike = int | np.random.SeedSequence | np.random.Generator


@dataclass(frozen=True)
class Representation:
    """Factors, codes and what an ideal metric should say about them.

    Attributes
    ----------
    factors : numpy.ndarray
        ``(n, K)`` ground-truth factor values.
    codes : numpy.ndarray
        ``(n, L)`` codes.
    discrete : tuple of bool
        One flag per factor: True when the factor is categorical.
    ideal : Mapping[str, float]
        Property (modularity, compactness, explicitness) -> ideal score in [0, 1] (read-only; a score
        within :data:`IDEAL_TOLERANCE` of the range is clipped into it).
    exact : Mapping[str, Any]
        Exact information-theoretic quantities, where the scenario has them in
        closed form (the Gaussian toy model); empty otherwise.
    """

    factors: np.ndarray
    codes: np.ndarray
    discrete: tuple[bool, ...]
    ideal: Mapping[str, float]
    exact: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for array, what in ((self.factors, "factors"), (self.codes, "codes")):
            if not isinstance(array, np.ndarray):  # .ndim below failed with an AttributeError
                raise TypeError(f"{what} must be a numpy array, got {type(array).__name__}")
        if self.factors.ndim != 2 or self.codes.ndim != 2:
            raise ValueError("factors and codes must be 2-D")
        if self.factors.shape[0] != self.codes.shape[0]:
            raise ValueError("factors and codes must have the same number of rows")
        if len(self.discrete) != self.factors.shape[1]:
            raise ValueError("discrete needs one flag per factor")
        object.__setattr__(self, "ideal", MappingProxyType(check_ideal(self.ideal)))  # frozen: set once, here


IDEAL_TOLERANCE = 1e-6
"""How far outside [0, 1] an ideal may fall and still be read as the end it rounds to: ideals computed in floating
point (a ratio of log-determinants, ``1 - x`` of a computed ``x``) land near an end they equal exactly, the further
the larger the parameter (the synergy attack's explicitness, 1, came out 1.000000000001 at alpha = 14.02 and
1.0000000017 at alpha = 817.6 under the circular transform); an ideal further out than this is a bug."""


def check_ideal(ideal: Mapping[str, Any], context: str = "ideal") -> dict[str, float]:
    """``ideal`` as property -> score in [0, 1], or raise.

    A score within :data:`IDEAL_TOLERANCE` of [0, 1] is clipped into it (a rounding error of the computation);
    one further out is an error.

    Parameters
    ----------
    ideal : Mapping[str, float]
        Property -> ideal score.
    context : str
        What holds it, for messages (``"ideal"``, ``"scenario 'leaky' at leak = 0.5: ideal"``).

    Returns
    -------
    dict
        Property -> the score as a float in [0, 1].

    Raises
    ------
    TypeError
        When ``ideal`` is not a mapping or a score is not a real number (text, a bool, None).
    ValueError
        For an unknown property, or a score that is not finite or outside [0, 1] by more than
        :data:`IDEAL_TOLERANCE`.
    """
    if not isinstance(ideal, Mapping):
        raise TypeError(f"{context} must map properties to scores, got {type(ideal).__name__}")
    unknown = set(ideal) - set(IDEAL_PROPERTIES)
    if unknown:
        raise ValueError(f"{context} names unknown properties {sorted(unknown, key=str)}; expected some of {', '.join(IDEAL_PROPERTIES)}")
    checked = {}
    for prop, score in ideal.items():
        if isinstance(score, (bool, np.bool_)) or not isinstance(score, (int, float, np.integer, np.floating)):
            raise TypeError(f"{context} of {prop} must be a number in [0, 1], got {score!r}")
        if not -IDEAL_TOLERANCE <= score <= 1.0 + IDEAL_TOLERANCE:  # NaN fails too
            raise ValueError(f"{context} of {prop} must be a number in [0, 1], got {score!r}")
        checked[prop] = min(max(float(score), 0.0), 1.0)
    return checked


def check_ideal_ranges(ranges: Mapping[str, Any], scenario: str) -> dict[str, tuple[float, float]]:
    """``ranges`` (a scenario's :attr:`Scenario.ideal_ranges`) as property -> ``(low, high)`` floats, or raise.

    Raises
    ------
    TypeError
        When ``ranges`` is not a mapping or a range is not two real numbers.
    ValueError
        For an unknown property, or a range whose ends are not finite or out of order.
    """
    if not isinstance(ranges, Mapping):
        raise TypeError(f"scenario {scenario!r}: ideal_ranges must map properties to (low, high), got {type(ranges).__name__}")
    checked = {}
    for prop, span in ranges.items():
        if prop not in IDEAL_PROPERTIES:
            raise ValueError(f"scenario {scenario!r}: ideal_ranges names unknown property {prop!r}; expected some of "
                             f"{', '.join(IDEAL_PROPERTIES)}")
        if (not isinstance(span, Sequence) or isinstance(span, str) or len(span) != 2
                or not all(isinstance(end, (int, float, np.integer, np.floating)) and not isinstance(end, (bool, np.bool_))
                           for end in span)):
            raise TypeError(f"scenario {scenario!r}: ideal_ranges[{prop!r}] must be (low, high), got {span!r}")
        low, high = float(span[0]), float(span[1])
        if not (np.isfinite(low) and np.isfinite(high) and low <= high):
            raise ValueError(f"scenario {scenario!r}: ideal_ranges[{prop!r}] must be finite with low <= high, got {span!r}")
        checked[prop] = (low, high)
    return checked


def within_ranges(ideal: Mapping[str, float], ranges: IdealRanges, value: ParameterValue) -> dict[str, float]:
    """``ideal`` without the properties whose range in ``ranges`` does not hold ``value`` (a text value is no
    number: every property is kept)."""
    return {prop: score for prop, score in ideal.items()
            if isinstance(value, str) or prop not in ranges or ranges[prop][0] <= value <= ranges[prop][1]}


Builder = Callable[[Any, int, np.random.Generator], tuple[np.ndarray, np.ndarray, Sequence[bool]]]
IdealTrajectory = Callable[[Any], Mapping[str, float]]


def value_label(value: ParameterValue) -> str:
    """A parameter value as it is written in results tables and figures (``"0.2"``, ``"cos_sin"``); ``-0.0`` is
    written ``0``, as the same value (adding ``0.0`` turns ``-0.0`` into ``0.0`` and leaves every other number as is)."""
    return value if isinstance(value, str) else f"{float(value) + 0.0:g}"


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A numpy Generator from an int, a SeedSequence or a Generator (returned as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, a numpy SeedSequence or a Generator, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return np.random.default_rng(int(seed))


@dataclass(frozen=True, kw_only=True)
class ScenarioFamily:
    """What every kind of scenario is: a family of generated data indexed by one swept parameter.

    :class:`Scenario` (one representation per draw) and
    :class:`scenarios.population.PopulationScenario` (a population of them, for UDR)
    add their builder's contract and ``generate``; both live in the one registry
    (:func:`register_scenario`), told apart by ``kind``.

    Attributes
    ----------
    name : str
        Registry name, e.g. ``"noise"``.
    parameter : str
        Name of the swept parameter, e.g. ``"alpha"``.
    values : tuple
        Default grid of the parameter.
    build : callable
        ``build(value, n, rng) -> ...``: what it returns is the kind's contract.
    check_value : callable
        ``check_value(value)`` raises a ValueError naming the valid range when the
        value is out of range; returns the value normalised.
    source : str
        Paper and section the scenario comes from.
    summary : str
        One-line description.
    min_samples : int
        Fewest samples the scenario can produce meaningfully.
    default_n : int, optional
        Sample size a study runs the scenario at, whatever the study's own (the
        sample-size sweep; population metrics, whose cost grows fast with n); None to
        use the study's.
    version : str
        Bumped whenever the generated data change, so that cached results computed on
        older data are not silently reused.
    rows : callable, optional
        ``rows(value, n) -> int``: how many rows :meth:`generate` returns at ``value``
        when asked for ``n`` (the sample-size sweep returns ``value`` rows); None means
        ``n``.  Lets a planner estimate a cell's cost without generating its data.
    criterion : str
        What the scenario tests beyond the ideal trajectories of the properties, one of
        :data:`CRITERIA` (``noise``, ``dependent_factors``, ``chance``, ...), or ``""``.  Written into every results row, so
        reports decide what a scenario measures from this, never from its name.
    settings : Mapping[str, ParameterValue]
        The named settings held fixed along the sweep (``{"n_factors": 5, "marginal":
        "gaussian"}``), which a sweep over two parameters may vary; shown by ``list``.
    environment : tuple of str
        The environment variables its builder reads (``("NOISE_SCALE",)``): no audit can see them, so a scenario
        declares them and their values are part of its cells' identity, as a metric's
        ``describe_metric(env=...)`` are.
    """

    kind: ClassVar[str]
    """``"representation"`` or ``"population"``."""

    name: str
    parameter: str
    values: tuple[ParameterValue, ...]
    build: Callable[..., Any]
    check_value: Callable[[Any], Any]
    source: str
    summary: str
    min_samples: int = 2
    default_n: int | None = None
    version: str = "1"
    rows: Callable[[Any, int], int] | None = None
    criterion: str = ""
    settings: Mapping[str, ParameterValue] = field(default_factory=dict, hash=False)
    environment: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.environment, str) or not all(isinstance(name, str) and name for name in self.environment):
            raise ValueError(f"scenario {self.name!r}: environment must be a tuple of variable names, "
                             f"got {self.environment!r}")
        if self.criterion and self.criterion not in CRITERIA:
            raise ValueError(
                f"scenario {self.name!r}: criterion must be one of {', '.join(CRITERIA)} or empty, got {self.criterion!r}"
            )
        if self.criterion == "sample_efficiency" and self.rows is None:
            raise ValueError(
                f"scenario {self.name!r}: criterion 'sample_efficiency' reads the swept parameter as the number of rows "
                "each metric sees (the built-in sample_size returns `value` rows, rows=lambda value, n: value); this "
                f"scenario returns n rows at every value of {self.parameter!r}, so the report would read its values as "
                "sample sizes: leave the criterion out (sample efficiency is measured on the built-in sample_size, "
                "whose parameter is the sample size)"
            )

    def rows_at(self, value: ParameterValue, n: int) -> int:
        """How many rows :meth:`generate` returns at ``value`` for ``n`` requested samples."""
        return int(self.rows(value, n)) if self.rows is not None else int(n)

    def label(self, value: ParameterValue) -> str:
        """The value as it is written in results tables and figures (see :func:`value_label`)."""
        return value_label(value)

    def _checked(self, value: ParameterValue, n: int) -> tuple[Any, int]:
        """``value`` normalised and ``n`` as an int, or the error that says what is valid."""
        value = self.check_value(value)
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"n must be an integer number of samples, got {n!r}")
        if n < self.min_samples:
            raise ValueError(f"scenario {self.name!r} needs n >= {self.min_samples} samples, got {n}")
        return value, int(n)


@dataclass(frozen=True, kw_only=True)
class Scenario(ScenarioFamily):
    """A family of representations indexed by one swept parameter.

    Attributes (beside those of :class:`ScenarioFamily`)
    ----------------------------------------------------
    build : callable
        ``build(value, n, rng) -> (factors, codes, discrete)``.
    ideal_trajectory : callable
        ``ideal_trajectory(value) -> {property: ideal score}``.
    ideal_ranges : Mapping[str, tuple[float, float]]
        Property -> the inclusive range of the parameter where its ideal is defined, for a property whose ideal
        stops somewhere inside the parameter's range (the noise scenario's modularity and compactness: defined
        while the code carries more signal than noise, undefined at pure noise); a property not named is defined
        wherever the trajectory states it.  The one declaration every criterion reads: :meth:`ideal_at` leaves
        the property out beyond its range, so the results carry no ideal there, and robustness, calibration's
        random end, the figures' ideal lines and the phase diagrams' distance all read the rows' ideal.
    exact : callable, optional
        ``exact(value) -> mapping`` of closed-form quantities.
    """

    kind: ClassVar[str] = "representation"

    build: Builder
    ideal_trajectory: IdealTrajectory
    ideal_ranges: IdealRanges = field(default_factory=dict, hash=False)
    exact: Callable[[Any], Mapping[str, Any]] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "ideal_ranges", MappingProxyType(check_ideal_ranges(self.ideal_ranges, self.name)))

    def ideal_at(self, value: ParameterValue) -> dict[str, float]:
        """The ideal at ``value`` (already checked): the trajectory's properties whose :attr:`ideal_ranges` hold it.

        Raises
        ------
        ValueError, TypeError
            For a trajectory :func:`check_ideal` refuses; the message names the scenario and the value.
        """
        where = f"scenario {self.name!r} at {self.parameter} = {self.label(value)}: ideal"
        return within_ranges(check_ideal(self.ideal_trajectory(value), where), self.ideal_ranges, value)

    def generate(self, value: ParameterValue, *, n: int, seed: SeedLike) -> Representation:
        """Generate the representation at ``value`` with ``n`` samples.

        The same ``(value, n, seed)`` always gives identical arrays.

        Raises
        ------
        ValueError, TypeError
            For an out-of-range value or too few samples; the message says what is valid.
            For a builder that returns arrays other than 2-D or with a non-finite value, other than :meth:`rows_at`
            rows, not one discrete flag per factor, or an ideal trajectory
            :func:`check_ideal` refuses; the message names the scenario and the value.
        """
        value, n = self._checked(value, n)
        factors, codes, discrete = self.build(value, n, as_generator(seed))
        where = f"scenario {self.name!r} at {self.parameter} = {self.label(value)}"
        factors = np.ascontiguousarray(factors, dtype=np.float64)
        codes = np.ascontiguousarray(codes, dtype=np.float64)
        for array, what in ((factors, "factors"), (codes, "codes")):
            if array.ndim != 2:
                raise ValueError(f"{where} returned {what} of shape {array.shape}; expected a 2-D array (samples x columns)")
            if not np.isfinite(array).all():  # else every metric of the cell failed on it, the scenario unnamed
                raise ValueError(f"{where} returned {what} with {int(np.size(array) - np.isfinite(array).sum())} "
                                 "non-finite value(s) (NaN or infinite); expected finite numbers")
        rows = self.rows_at(value, n)
        if factors.shape[0] != rows or codes.shape[0] != rows:
            raise ValueError(f"{where} returned {factors.shape[0]} factor rows and {codes.shape[0]} code rows for n = {n}; expected {rows} of each")
        discrete = tuple(bool(d) for d in discrete)
        if len(discrete) != factors.shape[1]:
            raise ValueError(f"{where} returned {len(discrete)} discrete flag(s) for {factors.shape[1]} factors; expected one per factor")
        return Representation(
            factors=factors,
            codes=codes,
            discrete=discrete,
            ideal=self.ideal_at(value),
            exact=MappingProxyType(dict(self.exact(value))) if self.exact is not None else MappingProxyType({}),
        )


def check_in_range(name: str, low: float, high: float) -> Callable[[Any], float]:
    """A ``check_value`` accepting real numbers in ``[low, high]``."""

    def check(value: Any) -> float:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be a number in [{low:g}, {high:g}], got {value!r}")
        try:
            number = float(value)
        except OverflowError:  # an int beyond float64's range
            number = float("inf")
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a number in [{low:g}, {high:g}], got {value!r}") from None
        if not np.isfinite(number) or not low <= number <= high:
            raise ValueError(f"{name} must be in [{low:g}, {high:g}], got {value!r}")
        return number + 0.0  # -0.0 is 0.0, the same value (see value_label)

    return check


def choice_checker(name: str, choices: Sequence[str]) -> Callable[[Any], str]:
    """A ``check_value`` accepting one of ``choices``."""

    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}; got {value!r}")
        return value

    return check


KINDS = ("representation", "population")
"""The kinds of scenario: one representation per draw, or a population of them (for UDR)."""

_REGISTRY: dict[str, Any] = {}


def register_scenario(scenario: Any) -> Any:
    """Add a scenario of any kind (:class:`Scenario` or a population scenario) to the registry.

    Names are unique across kinds; returns the scenario.
    """
    if getattr(scenario, "kind", None) not in KINDS:
        raise TypeError(f"a scenario must have a kind in {KINDS}, got {type(scenario).__name__}")
    if scenario.name in _REGISTRY:
        raise ValueError(f"a scenario named {scenario.name!r} is already registered")
    _REGISTRY[scenario.name] = scenario
    return scenario


def available(kind: str | None = "representation") -> list[str]:
    """Sorted names of the registered scenarios of ``kind`` (None: every kind)."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} or None, got {kind!r}")
    return sorted(name for name, scenario in _REGISTRY.items() if kind is None or scenario.kind == kind)


def get(name: str) -> Any:
    """The scenario registered under ``name``, of any kind; KeyError listing the known names otherwise."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; known scenarios: {', '.join(available(None))}") from None
