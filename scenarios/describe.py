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

from typing import Any, Callable, Mapping, Sequence, TypeVar

import numpy as np

from scenarios.base import PROPERTIES, ParameterValue, Scenario, value_label

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
    ValueError
        For an empty grid, repeated values, an unknown property or an empty name; when
        decorating, for what the :class:`~scenarios.base.Scenario` contract refuses (an
        unknown criterion).

    Examples
    --------
    >>> @describe_scenario(parameter="alpha", values=(0.0, 0.5, 1.0), ideal={"explicitness": 1.0})
    ... def scaled(alpha, n, rng):
    ...     factors = rng.random((n, 2))
    ...     return factors, factors * (1 + alpha)
    >>> scaled.harness_scenario["parameter"]
    'alpha'
    """
    grid = tuple(values)
    if not grid:
        raise ValueError("values must name at least one parameter value")
    if len({value_label(v) for v in grid}) != len(grid):
        raise ValueError(f"values must be distinct, got {list(grid)}")
    if isinstance(ideal, Mapping):
        _check_ideal(ideal)
    elif ideal is not None and not callable(ideal):
        raise TypeError(f"ideal must be a mapping of property -> score or a function of the value, got {ideal!r}")
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    metadata = {"parameter": parameter, "values": grid, "ideal": ideal, "name": name, "summary": summary,
                "source": source, "criterion": criterion, "min_samples": int(min_samples), "version": str(version)}

    def decorate(function: F) -> F:
        setattr(function, SCENARIO_ATTRIBUTE, dict(metadata))
        scenario_from_function(function)  # the scenario contract's own checks (criterion, ...) fail here, not in a worker
        return function

    return decorate


def _check_ideal(ideal: Mapping[str, float]) -> Mapping[str, float]:
    unknown = set(ideal) - set(PROPERTIES)
    if unknown:
        raise ValueError(f"ideal names unknown properties {sorted(unknown)}; expected some of {', '.join(PROPERTIES)}")
    return ideal


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
        if factors.ndim != 2:
            raise ValueError(f"scenario {name!r} returned factors of shape {factors.shape}; expected (n, K)")
        discrete = drawn[2] if len(drawn) == 3 else (False,) * factors.shape[1]
        return factors, codes, discrete

    def ideal_trajectory(value: Any) -> Mapping[str, float]:
        if ideal is None:
            return {}
        return _check_ideal(ideal(value) if callable(ideal) else ideal)

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
