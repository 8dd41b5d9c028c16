"""The registry of built-in metrics and the metadata each one carries.

A metric is any callable ``fn(factors, codes, **options)`` returning a float or a
mapping of sub-score names to floats.  Built-in metrics are registered with
:func:`register_metric`, which attaches a :class:`MetricSpec`: the metadata that the
harness and the reports need (family, the property each sub-score measures, whether
higher is better, whether it is stochastic, whether factors must be discrete).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping

FAMILIES = ("intervention", "predictor", "information", "unsupervised")
PROPERTIES = ("modularity", "compactness", "explicitness", "holistic")


@dataclass(frozen=True)
class MetricSpec:
    """Metadata of a registered metric.

    Attributes
    ----------
    name : str
        Stable registry name, e.g. ``"mig"``.
    function : callable
        ``function(factors, codes, **options)`` returning a float or a mapping of
        sub-scores.  Registered functions always accept ``discrete`` (one bool per
        factor) and, when stochastic, ``random_state``.
    family : str
        One of :data:`FAMILIES`.
    properties : Mapping[str, str]
        Sub-score name -> the property it measures (one of :data:`PROPERTIES`).
        A metric with a single score has one entry, keyed by its own name.
    higher_is_better : bool
        Whether a larger score means a better representation (for sub-scores not
        listed in ``directions``).
    directions : Mapping[str, bool]
        Per-sub-score exceptions to ``higher_is_better`` (e.g. PID's redundancy bounds,
        where less is better).
    stochastic : bool
        Whether the metric draws random numbers (then it takes ``random_state``).
    needs_discrete_factors : bool
        Whether factors are discretised before use (continuous ones are binned with
        :func:`metrics.information.discretize`).
    defaults : Mapping[str, Any]
        Default options, as accepted by ``function``.
    population : bool
        True for metrics that score a *population* of representations (UDR); those
        are called through :func:`metrics.evaluate_population`.
    version : str
        Bumped whenever the metric's scores change, so that cached results computed
        by an older version are not silently reused.
    summary : str
        One-line description for ``python -m harness list``.
    """

    name: str
    function: Callable[..., Any]
    family: str
    properties: Mapping[str, str]
    higher_is_better: bool = True
    stochastic: bool = False
    needs_discrete_factors: bool = False
    defaults: Mapping[str, Any] = field(default_factory=dict)
    population: bool = False
    version: str = "1"
    summary: str = ""
    directions: Mapping[str, bool] = field(default_factory=dict)

    @property
    def sub_scores(self) -> tuple[str, ...]:
        """Names of the sub-scores, in the order the metric reports them."""
        return tuple(self.properties)

    def higher_is_better_for(self, sub_score: str) -> bool:
        """Whether a larger value of ``sub_score`` means a better representation."""
        return self.directions.get(sub_score, self.higher_is_better)


_REGISTRY: dict[str, MetricSpec] = {}


def register_metric(
    name: str,
    *,
    family: str,
    properties: Mapping[str, str] | str,
    higher_is_better: bool | Mapping[str, bool] = True,
    stochastic: bool = False,
    needs_discrete_factors: bool = False,
    defaults: Mapping[str, Any] | None = None,
    population: bool = False,
    version: str = "1",
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator registering a built-in metric under ``name``.

    Parameters
    ----------
    name : str
        Registry name; must be unique.
    family : str
        One of :data:`FAMILIES`.
    properties : Mapping[str, str] or str
        Sub-score -> property.  A plain string means a single score named ``name``
        that measures that property.
    higher_is_better : bool or Mapping[str, bool]
        One direction for every sub-score, or sub-score -> direction (sub-scores
        missing from the mapping are higher-is-better).
    stochastic, needs_discrete_factors, population, version
        See :class:`MetricSpec`.
    defaults : Mapping[str, Any], optional
        Default options of the metric.

    Returns
    -------
    callable
        The decorator; it returns the function unchanged and records its spec.
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {FAMILIES}, got {family!r}")
    props = {name: properties} if isinstance(properties, str) else dict(properties)
    for sub, prop in props.items():
        if prop not in PROPERTIES:
            raise ValueError(f"property of sub-score {sub!r} must be one of {PROPERTIES}, got {prop!r}")

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        if name in _REGISTRY:
            raise ValueError(f"a metric named {name!r} is already registered")
        summary = (function.__doc__ or "").strip().splitlines()[0] if function.__doc__ else ""
        directions = dict(higher_is_better) if isinstance(higher_is_better, Mapping) else {}
        unknown = set(directions) - set(props)
        if unknown:
            raise ValueError(f"directions given for unknown sub-scores {sorted(unknown)} of metric {name!r}")
        _REGISTRY[name] = MetricSpec(
            name=name,
            function=function,
            family=family,
            properties=MappingProxyType(props),
            higher_is_better=True if isinstance(higher_is_better, Mapping) else bool(higher_is_better),
            directions=MappingProxyType(directions),
            stochastic=stochastic,
            needs_discrete_factors=needs_discrete_factors,
            defaults=MappingProxyType(dict(defaults or {})),
            population=population,
            version=version,
            summary=summary,
        )
        return function

    return decorate


def available(*, population: bool | None = False) -> list[str]:
    """Sorted names of the registered metrics.

    Parameters
    ----------
    population : bool or None, default False
        ``False`` lists the single-representation metrics, ``True`` the population
        metrics (UDR), ``None`` all of them.
    """
    return sorted(n for n, s in _REGISTRY.items() if population is None or s.population == population)


def get(name: str) -> MetricSpec:
    """The :class:`MetricSpec` registered under ``name``.

    Raises
    ------
    KeyError
        With the list of known names, when ``name`` is not registered.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(available(population=None))
        raise KeyError(f"unknown metric {name!r}; known metrics: {known}") from None
