"""What a scenario name or reference resolves to, in the planning process and on every worker.

A study's cells carry scenario *references* (plain strings), never scenario objects, so
workers of any backend rebuild the scenario themselves:

* a registered name: ``noise``;
* a composition ``TRANSFORM@BASE=VALUE`` (:mod:`scenarios.composition`), whose base is
  any reference: ``redundancy_attack@noise=0.2``;
* a user's scenario ``path/to/file.py:name`` or ``package.module:name``: a
  :class:`scenarios.Scenario` (or population scenario) object, or a function declared with
  :func:`scenarios.describe_scenario`, loaded as user metrics are
  (:func:`harness.execution.metric_refs.load_attribute`).

Results rows are written under the scenario's ``name`` (the declared name of a user's
scenario, the canonical ``TRANSFORM@BASE=VALUE`` of a composition), and its data are
seeded from that name (:class:`harness.execution.plan.Cell`), so they do not depend on
where a user's file lies.  A user's scenario's version joins its declared version and a
hash of its source file; a cell's key also covers the modules the file imports
(:mod:`harness.execution.provenance`), so cached cells are not reused after either changes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

import scenarios
from harness.errors import UnknownNameError, UsageError
from harness.execution.metric_refs import load_attribute, source_version
from harness.execution.user_code import user_code
from scenarios.base import KINDS, check_ideal
from scenarios.composition import compose, composed_name, parse_composition, parse_value
from scenarios.describe import SCENARIO_ATTRIBUTE, scenario_from_function
from scenarios.transforms import available_transforms


def scenario_for(reference: str) -> Any:
    """The scenario ``reference`` names (see the module docstring); cached per process.

    A user's file is looked up by its absolute path, so the same relative reference
    read from another directory is another scenario.

    Raises
    ------
    harness.errors.UnknownNameError
        For an unknown scenario or transform name (with suggestions).
    harness.errors.UsageError
        For a malformed composition, a base value out of range, or a user's reference
        that cannot be loaded or is not a scenario.
    """
    try:
        absolute = _with_absolute_files(reference)
    except ValueError as error:  # a malformed composition
        raise UsageError(str(error)) from None
    return _resolved(absolute, _file_versions(absolute))


def _file_versions(reference: str) -> tuple[tuple[int, int], ...]:
    """When and how large the user's ``.py`` files a reference with absolute paths names were last written
    (``os.stat``'s modification time in nanoseconds and size): part of :func:`_resolved`'s cache key, so that an edited
    file is loaded anew in the same process (a notebook's second run drew the scenario its file held at the first),
    at the cost of one ``stat`` a call (``scenario_for`` is called for every cell; hashing the file there took a third
    of a dry run).  The file is loaded by its content (:func:`~harness.execution.metric_refs.load_attribute`), so the
    scenario drawn is the one its version names.  A ``package.module:name`` is not in it: the process keeps the module
    it imported, and its version with it."""
    composition = parse_composition(reference)
    if composition is not None:
        return _file_versions(composition.base)
    module, colon, _ = reference.rpartition(":")
    if not (colon and module.endswith(".py")):
        return ()
    try:
        status = os.stat(module)
    except OSError:  # missing: the resolution says so
        return ((0, -1),)
    return ((status.st_mtime_ns, status.st_size),)


def _with_absolute_files(reference: str) -> str:
    """``reference`` with every ``file.py:name`` part naming its file by absolute path (no file is read)."""
    composition = parse_composition(reference)
    if composition is not None:
        return composed_name(composition.transform, _with_absolute_files(composition.base), composition.value)
    module_part, sep, attribute = reference.rpartition(":")
    if sep and module_part.endswith(".py"):
        return f"{Path(module_part).expanduser().resolve()}:{attribute}"
    return reference


@functools.cache
def _resolved(reference: str, versions: tuple[tuple[int, int], ...]) -> Any:
    """:func:`scenario_for` of a reference whose files are named by absolute paths and hold ``versions`` (the cache's
    key: the resolution reads the files as they are)."""
    composition = parse_composition(reference)
    if composition is not None:
        try:
            base = _resolved(composition.base, versions)
        except UnknownNameError:
            raise
        except UsageError as error:  # say which composition the base belongs to
            raise UsageError(f"in {reference!r}: {error}") from None
        if composition.transform not in available_transforms():
            raise UnknownNameError("transform", composition.transform, available_transforms())
        try:
            return compose(composition.transform, base, parse_value(composition.value))
        except (TypeError, ValueError) as error:
            raise UsageError(f"scenario {reference!r}: {error}") from None
    if ":" in reference:
        return _user_scenario(reference)
    known = scenarios.available(kind=None)
    name, _, value = reference.partition("=")
    if value and name in known:  # noise=0.2: a value where a name was expected
        raise NamedWithValueError(reference, name, value)
    if reference not in known:
        raise UnknownNameError("scenario", reference, known)
    return scenarios.get(reference)


class NamedWithValueError(UsageError):
    """A built-in scenario named with a value (``noise=0.2``) where a name was expected; the message points to
    ``--grid``, where a command reads values from it (``stress`` says its own)."""

    def __init__(self, reference: str, scenario: str, value: str) -> None:
        super().__init__(f"scenario {reference!r}: a scenario is named without a value (NAME, TRANSFORM@BASE=VALUE or "
                         f"FILE.py:NAME) and its values come from --grid, e.g. --grid {scenario}={value}")
        self.reference, self.scenario = reference, scenario


def canonical_reference(reference: str) -> str:
    """The one spelling of ``reference`` a study's cells carry.

    A composition's value is written as its base writes it (``=.2`` becomes ``=0.2``) and
    its base canonically; a user's file is named by its absolute path, so workers started
    in another directory load the same file.  Raises as :func:`scenario_for`.
    """
    reference = reference.strip()
    scenario_for(reference)
    composition = parse_composition(reference)
    if composition is not None:
        base = scenario_for(composition.base)
        label = base.label(base.check_value(parse_value(composition.value)))
        return composed_name(composition.transform, canonical_reference(composition.base), label)
    return _with_absolute_files(reference)


#: Characters a user's scenario name may not hold: '@' separates a composition's parts, ',' the names of a
#: list (``plot --scenarios A,B`` could not name it).
RESERVED_CHARACTERS = ("@", ",")


def _user_scenario(reference: str) -> Any:
    found = load_attribute(reference, "scenario")
    if getattr(found, "kind", None) in KINDS:
        scenario = found
    elif callable(found) and hasattr(found, SCENARIO_ATTRIBUTE):
        scenario = scenario_from_function(found)
    else:
        raise UsageError(f"{reference!r} is neither a scenario nor a function declared with "
                         "@scenarios.describe_scenario(parameter=..., values=..., ideal=...)")
    if scenario.name in scenarios.available(kind=None) or any(c in scenario.name for c in RESERVED_CHARACTERS):
        raise UsageError(f"scenario {reference!r} is named {scenario.name!r}, which is a built-in scenario's name or "
                         f"contains one of {' '.join(RESERVED_CHARACTERS)}; give yours another name")
    _trial_draw(scenario)
    return dataclasses.replace(scenario, version=f"{scenario.version}+{source_version(reference)}")


#: Samples of the trial draw that checks a user's scenario when it is loaded (at least its ``min_samples``).
TRIAL_SAMPLES = 50


def _trial_draw(scenario: Any) -> None:
    """Check a user's scenario where it is loaded, so that a broken one is a usage error, not a crash in a worker.

    Every value of its grid must pass its ``check_value``, its ideal trajectory there must be what
    :func:`scenarios.base.check_ideal` accepts, and two draws at its first value with the same seed (``TRIAL_SAMPLES``
    samples, or its ``default_n``) must succeed and be identical: a scenario drawing from
    ``numpy.random`` instead of the ``rng`` it is given would make scores differ from run to run.

    Raises
    ------
    harness.errors.UsageError
        Naming the scenario, the value and what is wrong.
    """
    where = f"scenario {scenario.name!r}"
    value = scenario.values[0]
    n = scenario.default_n if scenario.default_n is not None else max(scenario.min_samples, TRIAL_SAMPLES)
    for grid_value in scenario.values:
        at = f"{where} at {scenario.parameter} = {scenario.label(grid_value)}"
        with _as_usage_error(at, "checking its grid when loading it"):
            checked = scenario.check_value(grid_value)
            if scenario.kind == "representation":
                check_ideal(scenario.ideal_trajectory(checked), f"{at}: ideal")
    with _as_usage_error(f"{where} at {scenario.parameter} = {scenario.label(value)}, n = {n}", "in a trial draw when loading it"):
        drawn = [scenario.generate(value, n=n, seed=0) for _ in range(2)]
    first, second = (_arrays(draw) for draw in drawn)
    if len(first) != len(second) or not all(np.array_equal(a, b, equal_nan=True) for a, b in zip(first, second)):
        raise UsageError(f"{where} draws different data for the same seed (at {scenario.parameter} = "
                         f"{scenario.label(value)}, n = {n}): draw every random number from the rng argument, "
                         "not from numpy.random or random, so that its cells are reproducible")


@contextlib.contextmanager
def _as_usage_error(where: str, when: str) -> Iterator[None]:
    """Whatever the user's scenario code raises inside, as a one-line :class:`UsageError` starting with ``where``."""
    try:
        with user_code(where.split(" at ")[0]):  # sys.exit() included
            yield
    except Exception as error:  # the user's code: whatever it raises is what they must fix
        message = str(error) if str(error).startswith(where.split(" at ")[0]) else f"{where}: {error}"
        raise UsageError(f"{message} ({type(error).__name__}, {when})") from error


def _arrays(drawn: Any) -> list[np.ndarray]:
    """The arrays of a drawn representation (factors, codes) or population (factors, each member's codes)."""
    members = getattr(drawn, "members", None)
    return [drawn.factors, *(members if members is not None else (drawn.codes,))]
