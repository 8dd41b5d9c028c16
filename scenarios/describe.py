"""A user's scenario as a plain function, without registering it.

A function ``f(value, n, rng) -> (factors, codes)`` (or ``(factors, codes, discrete)``)
becomes a scenario the harness can run from a file (``run --scenarios my_file.py:f``) once
:func:`describe_scenario` has declared its swept parameter, its grid and its ideal
trajectory.  The declaration is stored as a plain dict in the function's
``harness_scenario`` attribute and the function is returned unchanged, as
:func:`metrics.describe.describe_metric` does for metrics; :func:`scenario_from_function`
builds the :class:`~scenarios.base.Scenario` from it.  A module may instead define a
:class:`~scenarios.base.Scenario` object and refer to it the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from scenarios._checks import check_integer
from scenarios.base import ParameterValue, Scenario, check_ideal, value_label

F = TypeVar("F", bound=Callable[..., Any])

SCENARIO_ATTRIBUTE = "harness_scenario"

IdealLike = Mapping[str, float] | Callable[[Any], Mapping[str, float]] | None


def describe_scenario(
    *,
    parameter: str,
    values: Sequence[ParameterValue],
    ideal: IdealLike = None,
    name: str | None = None,
    summary: str = "",
    source: str = "user scenario",
    criterion: str = "",
    min_samples: int = 2,
    version: str = "1",
) -> Callable[[F], F]:
    """Decorator declaring a plain function as a scenario.

    Parameters
    ----------
    parameter : str
        Name of the swept parameter.
    values : sequence
        Its grid (numbers, or text for a categorical parameter); the only values the
        scenario accepts.
    ideal : mapping or callable, optional
        The ideal trajectory: ``{property: score}`` for every value, or
        ``ideal(value) -> {property: score}``; properties among ``modularity``,
        ``compactness``, ``explicitness``.  A property left out is unknown (no ideal).
    name : str, optional
        Name in the results' ``scenario`` column (default: the function's name).
    summary, source : str
        One-line description and where the scenario comes from (shown by ``list``).
    criterion : str, optional
        What the scenario tests, one of :data:`scenarios.base.CRITERIA`, or ``""``.
    min_samples : int, default 2
        Fewest samples the function can produce.
    version : str, default "1"
        Bump it when the data change; the harness also hashes the source file.

    Raises
    ------
    TypeError
        For a parameter that is not a string, a grid that is not a sequence (a string,
        a number), a grid value that is neither a real number nor text, an ideal score
        that is not a number, or a ``min_samples`` that is not an integer.
    ValueError
        For an empty parameter name, an empty grid, repeated or non-finite values, an
        unknown property, an ideal score outside [0, 1], an empty name or ``min_samples``
        below 2; when decorating, for what the :class:`~scenarios.base.Scenario`
        contract refuses (an unknown criterion).

    Examples
    --------
    >>> @describe_scenario(parameter="alpha", values=(0.0, 0.5, 1.0), ideal={"explicitness": 1.0})
    ... def scaled(alpha, n, rng):
    ...     factors = rng.random((n, 2))
    ...     return factors, factors * (1 + alpha)
    >>> scaled.harness_scenario["parameter"]
    'alpha'
    """
    if not isinstance(parameter, str):
        raise TypeError(f"parameter must be the swept parameter's name (a string), got {parameter!r}")
    if not parameter.strip():
        raise ValueError("parameter must be a non-empty name")
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence | np.ndarray):
        raise TypeError(f"values must be a sequence of parameter values (numbers or text), got {values!r}")
    grid = tuple(values)
    if not grid:
        raise ValueError("values must name at least one parameter value")
    for value in grid:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (str, int, float, np.integer, np.floating)):
            raise TypeError(f"values must be real numbers or text, got {value!r}")
        if not isinstance(value, str) and not np.isfinite(value):
            raise ValueError(f"values must be finite, got {value!r}")
    if len({value_label(v) for v in grid}) != len(grid):
        raise ValueError(f"values must be distinct, got {list(grid)}")
    if isinstance(ideal, Mapping):
        check_ideal(ideal)
    elif ideal is not None and not callable(ideal):
        raise TypeError(f"ideal must be a mapping of property -> score or a function of the value, got {ideal!r}")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    metadata = {"parameter": parameter, "values": grid, "ideal": ideal, "name": name, "summary": summary,
                "source": source, "criterion": criterion, "min_samples": check_integer("min_samples", 2)(min_samples),
                "version": str(version)}

    def decorate(function: F) -> F:
        setattr(function, SCENARIO_ATTRIBUTE, dict(metadata))
        scenario_from_function(function)  # the scenario contract's own checks (criterion, ...) fail here, not in a worker
        return function

    return decorate


def _label_or_none(value: Any) -> str | None:
    try:
        return value_label(value)
    except (TypeError, ValueError):
        return None


def scenario_from_function(function: Callable[..., Any]) -> Scenario:
    """The :class:`Scenario` a :func:`describe_scenario`-decorated function declares.

    Raises
    ------
    TypeError
        When the function was not decorated.
    """
    metadata = getattr(function, SCENARIO_ATTRIBUTE, None)
    if not isinstance(metadata, Mapping):
        raise TypeError(f"{getattr(function, '__name__', function)!r} is not declared as a scenario: decorate it "
                        "with @scenarios.describe_scenario(parameter=..., values=..., ideal=...)")
    grid = tuple(metadata["values"])
    ideal = metadata["ideal"]
    name = metadata["name"] or function.__name__

    def build(value: Any, n: int, rng: np.random.Generator):
        drawn = function(value, n, rng)
        if not isinstance(drawn, tuple) or len(drawn) not in (2, 3):
            raise TypeError(f"scenario {name!r} must return (factors, codes) or (factors, codes, discrete), got {type(drawn).__name__}")
        factors, codes = np.asarray(drawn[0], dtype=np.float64), np.asarray(drawn[1], dtype=np.float64)
        discrete = drawn[2] if len(drawn) == 3 else (False,) * (factors.shape[1] if factors.ndim == 2 else 0)
        return factors, codes, discrete  # Scenario.generate checks shapes, rows and flags

    def ideal_trajectory(value: Any) -> Mapping[str, float]:
        if ideal is None:
            return {}
        stated = ideal(value) if callable(ideal) else ideal
        return check_ideal(stated, f"scenario {name!r} at {metadata['parameter']} = {value_label(value)}: ideal")

    labels = [value_label(v) for v in grid]

    def check_value(value: Any) -> Any:
        for candidate, label in zip(grid, labels):
            if isinstance(value, str) == isinstance(candidate, str) and _label_or_none(value) == label:
                return candidate
        raise ValueError(f"scenario {name!r}: {metadata['parameter']} must be one of {', '.join(labels)}; got {value!r}")

    return Scenario(
        name=name,
        parameter=metadata["parameter"],
        values=grid,
        build=build,
        ideal_trajectory=ideal_trajectory,
        check_value=check_value,
        source=metadata["source"],
        summary=metadata["summary"] or f"user scenario {name}",
        min_samples=metadata["min_samples"],
        version=metadata["version"],
        criterion=metadata["criterion"],
    )
