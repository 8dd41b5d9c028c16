"""Two-parameter sweeps: a scenario's parameter crossed with its base's value or with the sample size.

A study's grid for a scenario is a list of values of its parameter (a one-parameter sweep) or a mapping of
*axes* to values (a two-parameter sweep, :func:`study_slices`):

* ``TRANSFORM@BASE``, a composition whose base value is left free, crossed over the transform's parameter and
  the base's, whose axis is named ``base.<parameter>`` as in the composed scenario's settings
  (:func:`scenarios.composition.composed_settings`); the bare name (``rho``) is accepted where the transform's
  parameter is named otherwise: ``{"kappa": [1, 10, 100], "base.rho": [0, 0.5, 0.9]}``;
* any scenario crossed over its parameter and the sample size, axis :data:`N_AXIS` (``n_samples``, the results
  column it fills): ``{"width_ratio": [1, 16], "n_samples": [50, 1000, 20000]}``.

An axis the grid leaves out runs its default grid (the transform's, the base's); the sample size is swept only
where the grid names it.  ``TRANSFORM@BASE`` needs no grid at all (both default grids).  Why these two: a
composition's base value is the one parameter a scenario reference holds fixed, and the sample size the one every
scenario shares; a sweep of two parameters of one scenario would need a parameter the scenario contract does not
have (it sweeps one).

Slices
------
A two-parameter sweep runs as *slices*, each a one-parameter sweep of a scenario every worker resolves by its
reference: ``dense_mixing@equicorrelated=0.5`` over kappa for each rho; ``null_gaussian`` over width_ratio at
each n.  Every analysis that reads one-parameter sweeps reads the slices as they are (a row's ``scenario``,
``parameter`` and ``value`` are its slice's; one at several n is read at its largest, as any scenario); the rows
also carry the sweep's name (``sweep``) and both swept values (``parameters``), from which the phase diagrams
are drawn (:mod:`reports.results.parameters`).

Seeds
-----
A sweep's draws are seeded by the sweep's name, the scenario's version, the seed index and, unless the sample
size is swept, the sample size: never by a swept value (:attr:`harness.execution.plan.Cell.seed_identity`).  For
a given seed every point of the sweep transforms one draw of random numbers (common random numbers, as along a
one-parameter sweep), so a phase diagram is smooth in both directions and the null codes' smaller samples are
prefixes of the larger (:mod:`scenarios.null_codes`).  A sweep's cell is seeded otherwise than the same point run
alone, so its identity names the sweep (:attr:`~harness.execution.plan.Cell.data_identity`), and a study may not
hold both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from harness.errors import UnknownNameError, UsageError, listed
from harness.execution.scenario_refs import canonical_reference, scenario_for
from harness.execution.user_code import user_code
from scenarios.base import ParameterValue
from scenarios.composition import SEPARATOR, composed_name
from scenarios.transforms import available_transforms, get_transform

#: The axis of a two-parameter sweep that sweeps the sample size (named as the results column it fills).
N_AXIS = "n_samples"
#: How the axis sweeping a composition's base value is named: ``base.`` and the base's parameter.
BASE_PREFIX = "base."

Grid = Sequence[ParameterValue] | Mapping[str, Sequence[ParameterValue]]
"""A scenario's grid: its parameter's values, or axis -> values (a two-parameter sweep)."""


@dataclass(frozen=True)
class SweepSlice:
    """A one-parameter sweep a study runs: a whole scenario, or one slice of a two-parameter sweep.

    Attributes
    ----------
    scenario : str
        The reference the cells carry (a slice of a base sweep: ``TRANSFORM@BASE=VALUE``).
    values : tuple
        The values of its parameter.
    sample_sizes : tuple of int
        The sample sizes of a sweep over :data:`N_AXIS`; empty: the study's.
    sweep : str
        The two-parameter sweep's name (the scenario's, or ``TRANSFORM@BASE``); ``""`` for none.
    axis : str
        The sweep's second axis (:data:`N_AXIS` or ``base.<parameter>``); ``""`` for none.
    """

    scenario: str
    values: tuple[ParameterValue, ...]
    sample_sizes: tuple[int, ...] = ()
    sweep: str = ""
    axis: str = ""


def free_composition(reference: str) -> tuple[str, str] | None:
    """``(transform, base)`` of ``TRANSFORM@BASE``, a composition whose base value is left free; None otherwise.

    A held composition has one ``=VALUE`` per ``@`` (``partial@noise@rotation=0.3927=0.2``); with one fewer, the
    reference names a transform and a complete base reference (``dense_mixing@noise@equicorrelated=0.5``: dense
    mixing on ``noise@equicorrelated=0.5``, noise's alpha free).  A reference that resolves as it is is not free.

    Raises
    ------
    harness.errors.UnknownNameError
        For a reference of that shape whose transform or base is not registered, with the closest names
        (``dense_mixin@equicorrelated``: did you mean dense_mixing?); and whatever else makes its base unusable
        (:func:`harness.execution.scenario_refs.scenario_for`).
    """
    if SEPARATOR not in reference:
        return None
    try:
        scenario_for(reference)
        return None
    except UsageError:
        if reference.count("=") >= reference.count(SEPARATOR):  # a held composition: scenario_for says what is wrong
            return None
    transform, _, base = (part.strip() for part in reference.partition(SEPARATOR))
    if transform not in available_transforms():
        raise UnknownNameError("transform", transform, available_transforms())
    return (transform, base) if scenario_for(base).kind == "representation" else None


def canonical_name(reference: str) -> str:
    """The one spelling of a scenario reference or of a free composition ``TRANSFORM@BASE`` (its base canonical);
    raises as :func:`harness.execution.scenario_refs.canonical_reference` for anything else."""
    reference = reference.strip()
    free = free_composition(reference)
    if free is None:
        return canonical_reference(reference)
    return f"{free[0]}{SEPARATOR}{canonical_reference(free[1])}"


def checked_grid(given: Any, argument: str) -> list[Any] | dict[str, list[Any]]:
    """A grid of the Python API as a list of values, or as axis -> list of values; a UsageError naming ``argument``
    for anything else."""
    if isinstance(given, Mapping):
        if not given:
            raise UsageError(f"{argument} names no axis; give it values, or axis -> values")
        return {str(axis): listed(values, f"{argument}[{axis!r}]") for axis, values in given.items()}
    return listed(given, argument)


def check_values(scenario: str, values: Sequence[ParameterValue], what: str = "grid") -> None:
    """A grid of ``scenario``'s parameter: at least one value, each in the range its ``check_value`` states, no two
    written alike in the results (``0`` and ``-0.0``; two numbers equal to 6 significant digits)."""
    if len(values) == 0:
        raise UsageError(f"the {what} of scenario {scenario!r} has no values")
    labels: dict[str, Any] = {}
    for value in values:
        try:
            with user_code(f"scenario {scenario!r}"):  # a user's check_value may fail in any way
                label = scenario_for(scenario).label(scenario_for(scenario).check_value(value))
        except Exception as error:
            raise UsageError(f"{what} of scenario {scenario!r}: {error}") from None
        if label in labels:
            raise UsageError(f"{what} of scenario {scenario!r}: {labels[label]!r} and {value!r} are both written {label} "
                             "in the results (to 6 significant digits), so their cells would be one; give each value once")
        labels[label] = value


def _sample_sizes(reference: str, sizes: Sequence[Any]) -> tuple[int, ...]:
    """The values of an :data:`N_AXIS` axis: distinct whole numbers the scenario can draw."""
    scenario = scenario_for(reference)
    if scenario.default_n is not None:
        raise UsageError(f"scenario {reference!r} fixes its own sample size ({scenario.default_n}); it cannot be swept "
                         f"over {N_AXIS}")
    if len(sizes) == 0:
        raise UsageError(f"the {N_AXIS} axis of scenario {reference!r} has no values")
    checked: list[int] = []
    for size in sizes:
        whole = isinstance(size, (int, np.integer)) or (isinstance(size, (float, np.floating)) and float(size).is_integer())
        if isinstance(size, (bool, np.bool_)) or not whole or size < scenario.min_samples:
            raise UsageError(f"the {N_AXIS} axis of scenario {reference!r} takes whole numbers >= "
                             f"{scenario.min_samples}, got {size!r}")
        if int(size) in checked:
            raise UsageError(f"the {N_AXIS} axis of scenario {reference!r} lists {int(size)} twice")
        checked.append(int(size))
    return tuple(checked)


def _axes(reference: str, given: Mapping[str, Sequence[Any]], names: Mapping[str, str]) -> dict[str, Sequence[Any]]:
    """``given`` keyed by canonical axis names (``names``: every accepted spelling -> its axis), or a UsageError."""
    axes: dict[str, Sequence[Any]] = {}
    for name, values in given.items():
        axis = names.get(name.strip())
        if axis is None:
            spelled = ", ".join(dict.fromkeys(names))
            raise UsageError(f"grid of {reference!r}: unknown axis {name!r}; its axes are {spelled}")
        if axis in axes:
            raise UsageError(f"grid of {reference!r}: axis {axis} given twice")
        axes[axis] = values
    return axes


def sweep_slices(reference: str, grid: Grid | None) -> list[SweepSlice]:
    """The slices a study runs for one scenario reference (canonical, :func:`canonical_name`) and its grid.

    Raises
    ------
    harness.errors.UsageError
        For an unknown axis, an axis given twice, the sample size as a third axis, a sample-size axis on a
        scenario that fixes its own, an empty axis, or values a scenario refuses (:func:`check_values`).
    """
    free = free_composition(reference)
    if free is None:
        return [_scenario_slice(reference, grid)]
    transform, base_reference = free
    base = scenario_for(base_reference)
    parameter, base_axis = get_transform(transform).parameter, BASE_PREFIX + base.parameter
    names = {parameter: parameter, base_axis: base_axis}
    if base.parameter != parameter:
        names[base.parameter] = base_axis
    if isinstance(grid, Mapping) and N_AXIS in grid:
        raise UsageError(f"grid of {reference!r}: a sweep has two axes, {parameter} and {base_axis}; the sample size "
                         f"cannot be a third (sweep {N_AXIS} on a slice {composed_name(transform, base_reference, 'VALUE')})")
    if grid is not None and not isinstance(grid, Mapping):
        raise UsageError(f"grid of {reference!r}: a composition with its base value free sweeps two axes; name them, "
                         f"e.g. {parameter}:V1,V2;{base_axis}:V1,V2 (an axis left out runs its default grid)")
    axes = _axes(reference, grid or {}, names)
    base_values = axes.get(base_axis, base.values)
    check_values(base_reference, base_values, f"{base_axis} axis")
    sweep = f"{transform}{SEPARATOR}{base.name}"
    slices = []
    for value in base_values:
        scenario = composed_name(transform, base_reference, base.label(base.check_value(value)))
        values = axes.get(parameter)
        if values is not None:
            try:
                check_values(scenario, values, f"{parameter} axis")
            except UsageError as error:  # named as given, and where: the slice's name was never typed
                raise UsageError(str(error).replace(
                    f"scenario {scenario!r}", f"scenario {reference!r} (at {base_axis} = {base.label(value)})", 1)
                ) from None
        slices.append(SweepSlice(scenario, tuple(values if values is not None else scenario_for(scenario).values),
                                 sweep=sweep, axis=base_axis))
    return slices


def _scenario_slice(reference: str, grid: Grid | None) -> SweepSlice:
    """The slice of a scenario that is not a free composition: its grid, and the sample sizes of an ``n_samples`` axis."""
    scenario = scenario_for(reference)
    if grid is None:
        return SweepSlice(reference, tuple(scenario.values))
    if not isinstance(grid, Mapping):
        check_values(reference, grid)
        return SweepSlice(reference, tuple(grid))
    axes = _axes(reference, grid, {scenario.parameter: scenario.parameter, N_AXIS: N_AXIS})
    values = axes.get(scenario.parameter, scenario.values)
    check_values(reference, values, f"{scenario.parameter} axis")
    if N_AXIS not in axes:
        return SweepSlice(reference, tuple(values))
    return SweepSlice(reference, tuple(values), _sample_sizes(reference, axes[N_AXIS]), sweep=scenario.name, axis=N_AXIS)


def study_slices(references: Sequence[str], grids: Mapping[str, Grid] | None) -> list[SweepSlice]:
    """Every slice of a study's scenarios (canonical references, each with its grid where ``grids`` has one).

    Raises
    ------
    harness.errors.UsageError
        As :func:`sweep_slices`; and for a scenario run both alone and as a slice of a sweep (its rows would be
        two draws of one point under one name), or a slice of two sweeps.
    """
    slices = [part for reference in references for part in sweep_slices(reference, (grids or {}).get(reference))]
    owner: dict[str, str] = {}
    for part in slices:
        name = scenario_for(part.scenario).name
        source = f"sweep {part.sweep!r}" if part.sweep else "on its own"
        if name in owner and owner[name] != source:
            raise UsageError(f"the study runs scenario {name!r} {owner[name]} and {source}: their rows would mix two "
                             "draws of one point; keep one of them")
        owner[name] = source
    return slices


def swept_parameters(scenario: Any, value: ParameterValue, n_samples: int, axis: str) -> dict[str, Any]:
    """The values a cell sweeps, as its row's ``parameters`` holds them: the scenario's parameter (normalised by its
    ``check_value``) and, in a two-parameter sweep, the second axis's (the sample size, or the base value the
    composed ``scenario`` holds in its settings)."""
    swept = {scenario.parameter: _plain(scenario.check_value(value))}
    if axis == N_AXIS:
        swept[N_AXIS] = int(n_samples)
    elif axis:
        swept[axis] = _plain(scenario.settings[axis])
    return swept


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python number it holds (JSON writes those); anything else as it is."""
    return value.item() if isinstance(value, np.generic) else value
