"""The space a stress search explores: every scenario's parameter range, and the sample sizes.

A point of the space is ``(scenario, parameter value, sample size)``: exactly what a study's
cell needs besides the seed, so any point can be run by :func:`harness.execution.runner.run_study`
with an explicit grid and replayed by ``python -m harness run --grid``.  A scenario enters the
space through its name alone (resolved by :func:`harness.execution.scenario_refs.scenario_for`:
a registered name, a composition ``TRANSFORM@BASE=VALUE``, a user's ``file.py:name``) and
its ``values`` and ``check_value``, so a composed scenario is just another scenario name.

Where the parameter may range
    The scenario's ``check_value`` is the authority: the range is found by asking it, not by
    reading its code.  From the ends of the scenario's default grid the range is extended by
    one grid width on each side and cut back, by bisection, to the last value ``check_value``
    accepts (the valid values of every registered parameter form an interval).  So ``mixing``'s
    alpha spans ``[0, 0.5]``, ``noise``'s ``[0, 1]``; a parameter valid far beyond its grid
    (the attacks' alpha, valid up to 1000) is searched up to twice its grid's end, where the
    grid's author thought the interesting behaviour lies.  A parameter whose grid holds text
    (``modular_not_compact``'s cases) ranges over the grid's values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import scenarios
from harness.errors import UsageError
from harness.execution.scenario_refs import scenario_for
from scenarios.base import ParameterValue, check_ideal, within_ranges

REAL, INTEGER, CHOICE = "real", "integer", "choice"
#: Bisection steps cutting a real range back to what ``check_value`` accepts (2**-60 of a grid width).
BISECTIONS = 60
#: Significant digits of a searched real value, so that recipes stay readable and replay exactly.
SIGNIFICANT_DIGITS = 4


@dataclass(frozen=True)
class Point:
    """One representation of the space: a scenario at one parameter value and sample size."""

    scenario: str
    value: ParameterValue
    n_samples: int

    @property
    def label(self) -> str:
        """The value as results tables write it (``value_label``)."""
        return scenario_for(self.scenario).label(self.value)

    @property
    def results_name(self) -> str:
        """The scenario as results tables name it: its declared name (``leaky`` for ``my_scenarios.py:leaky``, where
        :attr:`scenario` is the reference the search was given), the reference itself for a built-in."""
        return scenario_for(self.scenario).name


@dataclass(frozen=True)
class ParameterRange:
    """Where one scenario's parameter may range.

    Attributes
    ----------
    scenario, parameter : str
        The scenario's name and its parameter's.
    kind : {"real", "integer", "choice"}
        Whether the parameter is a real number, a whole number, or one of ``choices``.
    low, high : float
        The range's ends (real and integer kinds; both accepted by ``check_value``).
    choices : tuple of str
        The values of a choice parameter.
    """

    scenario: str
    parameter: str
    kind: str
    low: float = math.nan
    high: float = math.nan
    choices: tuple[str, ...] = ()

    @property
    def ends(self) -> tuple[ParameterValue, ...]:
        """The values a search always tries: both ends of a numeric range, every choice."""
        if self.kind == CHOICE:
            return self.choices
        return tuple(dict.fromkeys((self.value(self.low), self.value(self.high))))

    def value(self, x: float) -> ParameterValue:
        """The valid parameter value nearest a raw number ``x`` of the range (rounded, clipped).

        A real value keeps :data:`SIGNIFICANT_DIGITS` significant digits; a whole number is
        rounded; a choice parameter reads ``x`` as an index into ``choices``.
        """
        if self.kind == CHOICE:
            return self.choices[int(np.clip(round(x), 0, len(self.choices) - 1))]
        if self.kind == INTEGER:
            return int(np.clip(round(x), self.low, self.high))
        rounded = float(f"{x:.{SIGNIFICANT_DIGITS}g}")
        return float(min(max(rounded, self.low), self.high))

    def from_unit(self, u: float) -> ParameterValue:
        """The value at fraction ``u`` in [0, 1] of the range (each choice an equal share)."""
        if self.kind == CHOICE:
            return self.choices[min(int(u * len(self.choices)), len(self.choices) - 1)]
        if self.kind == INTEGER:
            return self.value(math.floor(self.low + u * (self.high - self.low + 1)))
        return self.value(self.low + u * (self.high - self.low))


def parameter_range(name: str) -> ParameterRange:
    """The range of scenario ``name``'s parameter, as its ``check_value`` states it (see the module docstring).

    Raises
    ------
    harness.errors.UsageError
        For a scenario whose default grid mixes text and numbers, or whose own grid
        ``check_value`` rejects.
    """
    scenario = scenario_for(name)
    grid = tuple(scenario.values)
    texts = [value for value in grid if isinstance(value, str)]
    if texts:
        if len(texts) != len(grid):
            raise UsageError(f"scenario {name!r}: its grid mixes text and numbers, so its range is unknown")
        return ParameterRange(name, scenario.parameter, CHOICE, choices=grid)
    integer = all(isinstance(value, (int, np.integer)) and not isinstance(value, bool) for value in grid)
    check = scenario.check_value
    low, high = min(grid), max(grid)
    for end in (low, high):
        if not _accepted(check, end):
            raise UsageError(f"scenario {name!r}: check_value rejects its own grid value {end!r}")
    between = _between_grid_values(sorted(set(grid)), integer)
    if between is not None and not _accepted(check, between):  # only its grid's values (a scenario of yours
        return ParameterRange(name, scenario.parameter, CHOICE, choices=grid)  # declaring values and no range)
    width = (high - low) or 1
    return ParameterRange(
        name,
        scenario.parameter,
        INTEGER if integer else REAL,
        low=float(_furthest_accepted(check, low, -width, integer)),
        high=float(_furthest_accepted(check, high, width, integer)),
    )


def _between_grid_values(grid: list, integer: bool) -> float | int | None:
    """A value between the grid's first two (None where there is none: one value, or consecutive integers): a
    scenario whose ``check_value`` refuses it takes its grid's values only, and a search refining between them asked
    for a value it refused (``leak must be one of 0, 0.25, 0.5; got 0.3455``)."""
    if len(grid) < 2:
        return None
    if integer:
        return grid[0] + 1 if grid[1] - grid[0] > 1 else None
    return (grid[0] + grid[1]) / 2


def _accepted(check: Callable[[Any], Any], value: ParameterValue) -> bool:
    try:
        check(value)
    except (TypeError, ValueError):
        return False
    return True


def _furthest_accepted(check: Callable[[Any], Any], inside: float, step: float, integer: bool) -> float:
    """The value furthest from ``inside`` towards ``inside + step`` that ``check`` accepts (``inside`` is)."""
    outside = inside + step
    if _accepted(check, outside):
        return outside
    if integer:
        inside, outside = int(inside), int(outside)
        while abs(outside - inside) > 1:
            middle = (inside + outside) // 2
            inside, outside = (middle, outside) if _accepted(check, middle) else (inside, middle)
        return inside
    for _ in range(BISECTIONS):
        middle = (inside + outside) / 2
        inside, outside = (middle, outside) if _accepted(check, middle) else (inside, middle)
    return _shortest_nearby(check, inside, tolerance=abs(step) * 1e-6)


def _shortest_nearby(check: Callable[[Any], Any], value: float, tolerance: float) -> float:
    """The accepted number with the fewest decimals within ``tolerance`` of ``value`` (0.5, not 0.49999999997).

    Within a millionth of the grid width, a value keeps at most six significant digits: the
    digits of its label in results tables (:func:`scenarios.base.value_label`), which identify a cell.
    """
    for decimals in range(16):
        rounded = round(value, decimals)
        if abs(rounded - value) <= tolerance and _accepted(check, rounded):
            return rounded
    return value


def ideal_at(scenario: str, value: ParameterValue) -> dict[str, float]:
    """The ideal score of each property at ``value``: the scenario's declared ideal, and chance on no information.

    The properties are those the scenario declares at ``value`` (as :meth:`scenarios.base.Scenario.ideal_at`: its
    trajectory within its :attr:`~scenarios.base.Scenario.ideal_ranges`), the one declaration the report's criteria,
    figures and phase diagrams read, so a search finds no case where the report judges none: ``noise`` states
    modularity and compactness only while the code carries more signal than noise (alpha <= 0.5); beyond, a metric
    of them has no ideal to depart from (until 2026-11-30 the search read the whole trajectory, 1 up to alpha < 1,
    and reported MIG's compactness near 0 at alpha 0.95 as its worst case).
    Where the scenario's codes carry no information about the factors (its ideal explicitness is 0, as for ``noise``
    at alpha = 1), every property of its trajectory has the ideal 0: a representation independent of the factors
    should get the minimum score, the calibration criterion of Zaidi et al. (2022, section 3: "the minimum score to a
    completely random ... representation"; tested in 5.2) that :func:`reports.analyses.calibration` measures at that
    end.
    """
    family = scenario_for(scenario)
    checked = family.check_value(value)
    trajectory = check_ideal(family.ideal_trajectory(checked), f"scenario {scenario!r} at {value!r}: ideal")
    if trajectory.get("explicitness") == 0.0:
        return {prop: 0.0 for prop in trajectory}
    return within_ranges(trajectory, family.ideal_ranges, checked)


def searchable_scenarios() -> list[str]:
    """The scenarios a stress search explores by default.

    Every representation scenario except those testing sample efficiency (the sample-size
    sweep has no ideal of its own; the sample size is a dimension of every point instead).
    """
    return [name for name in scenarios.available(kind="representation")
            if scenario_for(name).criterion != "sample_efficiency"]


def check_sample_sizes(sample_sizes: Sequence[int], scenario_names: Sequence[str]) -> tuple[int, ...]:
    """The sample sizes, sorted and checked: whole numbers each scenario can produce.

    Raises
    ------
    harness.errors.UsageError
        For no sample size, one that is not a whole number, or one below a scenario's ``min_samples``.
    """
    sizes = tuple(sorted(set(sample_sizes)))
    if not sizes:
        raise UsageError("sample_sizes must name at least one sample size")
    for size in sizes:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise UsageError(f"sample_sizes must be whole numbers >= 1, got {size!r}")
    for name in scenario_names:
        needed = scenario_for(name).min_samples
        if sizes[0] < needed:
            raise UsageError(f"scenario {name!r} needs at least {needed} samples; sample_sizes has {sizes[0]}")
    return tuple(int(size) for size in sizes)


def exploration_points(
    space: ParameterRange, sample_sizes: Sequence[int], count: int, rng: np.random.Generator
) -> list[Point]:
    """``count`` distinct points of one scenario: its ends first, then a Latin hypercube.

    The ends of the range (every choice of a choice parameter) come first, at the largest
    sample size: known failures sit there (a fully mixed or fully noisy code).  The rest
    is a Latin hypercube (McKay, Beckman and Conover 1979; :class:`scipy.stats.qmc.LatinHypercube`)
    over (value, sample size), the sample size drawn from ``sample_sizes`` in equal shares.
    Points that round to the same representation are kept once, so fewer than ``count``
    may come back.
    """
    from scipy.stats import qmc

    largest = max(sample_sizes)
    points = [Point(space.scenario, value, largest) for value in space.ends][:count]
    remaining = count - len(points)
    if remaining > 0:
        design = qmc.LatinHypercube(d=2, rng=rng).random(remaining)
        for u_value, u_size in design:
            size = sample_sizes[min(int(u_size * len(sample_sizes)), len(sample_sizes) - 1)]
            points.append(Point(space.scenario, space.from_unit(float(u_value)), int(size)))
    return list(dict.fromkeys(points))
