"""The registry of built-in metrics and the metadata each one carries.

A metric is any callable ``fn(factors, codes, **options)`` returning a float or a
mapping of sub-score names to floats.  Built-in metrics are registered with
:func:`register_metric`, which attaches a :class:`MetricSpec`: the metadata that the
harness and the reports need (family, the property each sub-score measures, whether
higher is better, whether it is stochastic, whether factors must be discrete, and the
transformations of the data its definition leaves the scores unchanged by).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from metrics._entry import CALL_ARGUMENTS, accepts, population_entry, representation_entry
from metrics.constraints import Interval, Rule, check_options, check_range, check_rules, describe
from metrics.options import check_choice

FAMILIES = ("intervention", "predictor", "information", "unsupervised")
SCORE_PROPERTIES = ("modularity", "compactness", "explicitness", "holistic")

#: The transformations a metric can be invariant to (:attr:`MetricSpec.invariances`), each applied to
#: every code the same way, with what it does.  A stochastic metric's claim holds with the same
#: ``random_state`` for the code-wise ones and in distribution for ``sample_permutation`` (its random
#: split then picks other rows).
INVARIANCES = {
    "code_permutation": "reordering the code columns",
    "sample_permutation": "reordering the samples (rows of factors and codes together)",
    "sign_flip": "negating a code",
    "positive_rescaling": "multiplying a code by a positive number",
    "monotone": "a strictly increasing map of each code (each its own)",
}


@dataclass(frozen=True)
class MetricSpec:
    """Metadata of a registered metric.

    Attributes
    ----------
    name : str
        Stable registry name, e.g. ``"mig"``.
    function : callable
        The metric's public, validating entry (:mod:`metrics._entry`):
        ``function(factors, codes, **options)`` returning a float or a mapping of
        sub-scores.  Registered functions always accept ``discrete`` (one bool per
        factor) and, when stochastic, ``random_state``.
    family : str
        One of :data:`FAMILIES`.
    properties : Mapping[str, str]
        Sub-score name -> the property it measures (one of :data:`SCORE_PROPERTIES`).
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
        Default options: the keyword-only parameters of ``function`` and their defaults
        (``discrete`` and ``random_state`` excepted), read from its signature.
    population : bool
        True for metrics that score a *population* of representations (UDR); those
        are called through :func:`metrics.evaluate_population`.
    version : str
        Bumped whenever the metric's scores change, so that cached results computed
        by an older version are not silently reused.
    summary : str
        One-line description for ``python -m harness list``.
    invariances : tuple of str
        The transformations of :data:`INVARIANCES` that the metric's definition leaves its
        scores unchanged by, in that vocabulary's order; its docstring says why for each (and
        why not for the others).  ``tests/metrics/test_invariances.py`` applies every claim.
    closed_form : callable or None
        ``closed_form(exact, discrete=None, **options) -> {sub_score: value}``: what the
        metric's sub-scores are, exactly, on a representation whose scenario knows its
        information quantities in closed form (``exact`` is
        :attr:`scenarios.base.Representation.exact`, e.g. the Gaussian toy model's
        ``information_code``, ``information_rest``, ``information_total`` in nats);
        ``discrete`` is one flag per factor (None: all continuous) and ``options`` the
        metric's options as it is called with them.  It returns only the sub-scores it can
        state (an empty mapping when ``exact`` lacks what it needs or an option makes the
        value depend on the sample).  None: the metric states no closed form.
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
    closed_form: Callable[..., Mapping[str, float]] | None = None
    invariances: tuple[str, ...] = ()
    constraints: Mapping[str, Rule] = field(default_factory=dict)
    ranges: Mapping[str, Interval] = field(default_factory=dict)

    @property
    def sub_scores(self) -> tuple[str, ...]:
        """Names of the sub-scores, in the order the metric reports them."""
        return tuple(self.properties)

    def legal_values(self) -> dict[str, str]:
        """Option -> its legal values in words (:func:`metrics.constraints.describe`; ``"not declared"`` for an option
        without a rule), in the order of :attr:`defaults`: what the catalogues print."""
        return {option: describe(self.constraints[option]) if option in self.constraints else "not declared"
                for option in self.defaults}

    def higher_is_better_for(self, sub_score: str) -> bool:
        """Whether a larger value of ``sub_score`` means a better representation."""
        return self.directions.get(sub_score, self.higher_is_better)

    def exact_scores(self, exact: Mapping[str, Any], discrete: Any = None, **options: Any) -> dict[str, float]:
        """The sub-scores :attr:`closed_form` states for a scenario's ``exact`` quantities.

        Empty when the metric has no closed form or ``exact`` is empty.  ``options`` are
        the metric's options (its defaults for those not given).

        Raises
        ------
        ValueError
            When the closed form names a sub-score the metric does not report.
        """
        if self.closed_form is None or not exact:
            return {}
        check_options(self.name, options, self.constraints)
        values = self.closed_form(exact, discrete, **{**self.defaults, **options})
        unknown = sorted(set(values) - set(self.properties))
        if unknown:
            raise ValueError(f"closed_form of metric {self.name!r} returned unknown sub-scores {unknown}")
        return {sub_score: float(value) for sub_score, value in values.items()}


_REGISTRY: dict[str, MetricSpec] = {}
#: Whether the built-in metric modules are imported (registered), and the lock of their import.
_BUILT_INS = {"imported": False, "importing": False}
_BUILT_INS_LOCK = threading.RLock()


def _import_built_ins() -> None:
    """Import every module of the ``metrics`` package whose name does not start with an underscore, once: each
    registers its metrics.

    Called by every lookup and registration, so that the registry is whole before it is read, and a user's metric
    of a built-in's name is refused when it registers (before the built-in registered after it).  Not at the
    package's import: reading a results table (a report's or a plot's process) needs the registry's names
    (:data:`SCORE_PROPERTIES`), not the metrics' code (scikit-learn, scipy.optimize, ...: about 0.2 CPU-s a
    process).  A registration by a built-in module while they are imported (this thread, holding the lock)
    returns at once; another thread waits for the import to end.
    """
    if _BUILT_INS["imported"]:
        return
    with _BUILT_INS_LOCK:
        if _BUILT_INS["imported"] or _BUILT_INS["importing"]:
            return
        _BUILT_INS["importing"] = True
        try:
            package = importlib.import_module(__name__.rpartition(".")[0])
            for module in pkgutil.iter_modules(package.__path__):
                if not module.name.startswith("_"):
                    importlib.import_module(f"{package.__name__}.{module.name}")
            _BUILT_INS["imported"] = True
        finally:
            _BUILT_INS["importing"] = False


def _imported_again(entry: Callable[..., Any], function: Callable[..., Any]) -> bool:
    """Whether ``function`` is the registered ``entry``'s own function, its module imported a second time (the same
    file and qualified name), as ``pytest metrics/mig.py`` imports a metric's file for its doctests beside the package
    that registered it: the registration is then replaced by the same definition, not refused."""
    registered = getattr(entry, "__wrapped__", None)
    code, again = getattr(registered, "__code__", None), getattr(function, "__code__", None)
    return (code is not None and again is not None and code.co_filename == again.co_filename
            and registered.__qualname__ == function.__qualname__)


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
    closed_form: Callable[..., Mapping[str, float]] | None = None,
    invariances: Collection[str] = (),
    constraints: Mapping[str, Rule] | None = None,
    score_range: Interval | Mapping[str, Interval] | None = None,
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
        See :class:`MetricSpec`.  A stochastic metric's function must take ``random_state``;
        ``discrete`` is optional (the registered entry takes it either way).
    defaults : Mapping[str, Any], optional
        Deprecated: the options are read from the function's signature.  When given, it
        must agree with the signature (a ValueError otherwise).
    closed_form : callable, optional
        ``closed_form(exact, discrete=None, **options) -> {sub_score: value}``, the metric's
        exact sub-scores from a scenario's closed-form quantities (see
        :attr:`MetricSpec.closed_form`).  The harness writes them in the results' ``exact``
        column.  Every sub-score it returns must be one of ``properties``.
    invariances : collection of str, default ()
        The transformations of :data:`INVARIANCES` the metric's definition leaves its scores
        unchanged by (see :attr:`MetricSpec.invariances`).
    constraints : Mapping[str, Rule], optional
        Option -> the rule of its legal values (:mod:`metrics.constraints`: ``{"bins": Interval(int, 2, None)}``);
        the metric's entry refuses a value its rule refuses, in one line naming the legal values.
    score_range : Interval or Mapping[str, Interval], optional
        The range of every sub-score (an ``Interval(float, low, high)``), or sub-score -> its range: what the
        metric's definition gives at its default options (see :attr:`MetricSpec.ranges`).

    Raises
    ------
    ValueError
        When decorating: a name already registered, ``defaults`` disagreeing with the
        signature, an option without a default, a constraint of an unknown option or one its
        default breaks, or a stochastic metric whose function takes no ``random_state``.  At
        once: an unknown family, property, invariance or sub-score of ``score_range``.
    TypeError
        For a constraint that is not a :class:`metrics.constraints.Constraint` (or a tuple of them), or a range
        that is not an ``Interval`` of float.

    Returns
    -------
    callable
        The decorator.  It records the spec and returns the metric's validating entry
        (:mod:`metrics._entry`), which keeps the function's name, docstring and
        signature, so ``metrics.mig.mig(factors, codes)`` checks its inputs as
        :func:`metrics.evaluate` does.
    """
    check_choice(family, "family", FAMILIES)
    props = check_properties({name: properties} if isinstance(properties, str) else properties)
    claimed = check_invariances(invariances, name)
    ranges = score_ranges(name, score_range, props)

    if closed_form is not None and not callable(closed_form):
        raise TypeError(f"closed_form of metric {name!r} must be callable, got {type(closed_form).__name__}")

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        # a user's metric: the built-ins first, so that a clash of names is refused here; a built-in's registration
        # never waits on their lock (its thread holds that module's import lock, which the thread holding this lock
        # may be waiting for: a deadlock)
        if not function.__module__.startswith(f"{__package__}."):
            _import_built_ins()
        if name in _REGISTRY and not _imported_again(_REGISTRY[name].function, function):
            raise ValueError(f"a metric named {name!r} is already registered")
        summary = (function.__doc__ or "").strip().splitlines()[0] if function.__doc__ else ""
        default_direction, directions = check_directions(higher_is_better, props, name)
        options = signature_options(function, name)
        if stochastic and not accepts(function, "random_state"):
            raise ValueError(f"metric {name!r} is registered as stochastic but its function takes no random_state; "
                             "add a keyword parameter random_state and draw only from it")
        for option, value in (defaults or {}).items():
            if option not in options or options[option] != value:
                stated = f"{options[option]!r}" if option in options else "no such keyword-only parameter"
                raise ValueError(f"defaults of metric {name!r} disagree with its signature: {option}={value!r} given, signature has {stated}")
        rules = check_rules(name, constraints or {}, options, options)
        entry = (population_entry if population else representation_entry)(function, name, options, rules)
        _REGISTRY[name] = MetricSpec(
            name=name,
            function=entry,
            family=family,
            properties=MappingProxyType(props),
            higher_is_better=default_direction,
            directions=MappingProxyType(directions),
            stochastic=stochastic,
            needs_discrete_factors=needs_discrete_factors,
            defaults=MappingProxyType(options),
            population=population,
            version=version,
            summary=summary,
            closed_form=closed_form,
            invariances=claimed,
            constraints=MappingProxyType(rules),
            ranges=MappingProxyType(ranges),
        )
        return entry

    return decorate


def score_ranges(
    name: str, declared: Interval | Mapping[str, Interval] | None, sub_scores: Collection[str]
) -> dict[str, Interval]:
    """Sub-score -> declared range (:attr:`MetricSpec.ranges`) of a ``score_range`` declaration: one interval for every
    sub-score, or a mapping that names some of them (see :func:`metrics.constraints.check_range`); empty for None."""
    if declared is None:
        return {}
    checked = check_range(name, declared, list(sub_scores))
    return dict(checked) if isinstance(checked, dict) else dict.fromkeys(sub_scores, checked)


def check_properties(properties: Mapping[str, str]) -> dict[str, str]:
    """Sub-score -> property as a dict, checked: the representation of :attr:`MetricSpec.properties`, shared by
    :func:`register_metric` and :func:`metrics.describe.describe_metric`.

    Raises
    ------
    ValueError
        When ``properties`` is empty, a sub-score is not a non-empty string, or a property is not one of
        :data:`SCORE_PROPERTIES` (the message names the sub-score).
    """
    if not isinstance(properties, Mapping) or not properties:
        raise ValueError(f"properties must map sub-score names to properties, got {properties!r}")
    for sub, prop in properties.items():
        if not isinstance(sub, str) or not sub.strip():
            raise ValueError(f"sub-score names must be non-empty strings, got {sub!r}")
        if prop not in SCORE_PROPERTIES:
            raise ValueError(f"property of sub-score {sub!r} must be one of {', '.join(SCORE_PROPERTIES)}; got {prop!r}")
    return dict(properties)


def check_invariances(invariances: Collection[str], name: str = "metric") -> tuple[str, ...]:
    """A metric's invariance claim as :class:`MetricSpec` holds it: the names of :data:`INVARIANCES`, in its order.

    Raises
    ------
    TypeError
        When ``invariances`` is a string (one name must still be given as a collection).
    ValueError
        For a name not in :data:`INVARIANCES`, or one given twice.
    """
    if isinstance(invariances, str):
        raise TypeError(f"invariances of metric {name!r} must be a collection of names, got the string {invariances!r}")
    given = list(invariances)
    unknown = sorted(set(given) - set(INVARIANCES))
    if unknown:
        raise ValueError(f"unknown invariances {unknown} of metric {name!r}; known: {', '.join(INVARIANCES)}")
    if len(set(given)) != len(given):
        raise ValueError(f"invariances of metric {name!r} name one twice: {given}")
    return tuple(known for known in INVARIANCES if known in given)


def check_property_claim(claim: str | Mapping[str, str]) -> str | dict[str, str]:
    """A metric's property claim, checked: one of :data:`SCORE_PROPERTIES` for every score, or sub-score -> property
    (:func:`check_properties`), as :func:`metrics.describe.describe_metric` and the harness's user metrics take it.

    Raises
    ------
    ValueError
        For a property not in :data:`SCORE_PROPERTIES`, or a mapping :func:`check_properties` refuses.
    """
    if isinstance(claim, Mapping):
        return check_properties(claim)
    if claim in SCORE_PROPERTIES:
        return claim
    raise ValueError(f"property must be one of {', '.join(SCORE_PROPERTIES)} (or map sub-scores to them); got {claim!r}")


def check_directions(
    higher_is_better: bool | Mapping[str, bool], sub_scores: Collection[str] | None = None, name: str = "metric"
) -> tuple[bool, dict[str, bool]]:
    """``higher_is_better`` as :class:`MetricSpec` holds it: (the direction of unlisted sub-scores, exceptions).

    One bool gives every sub-score that direction; a mapping sub-score -> bool gives the listed ones theirs and
    the others higher-is-better.

    Parameters
    ----------
    higher_is_better : bool or Mapping[str, bool]
        The claim.
    sub_scores : collection of str, optional
        The metric's sub-scores, when known: a mapping may name only these.
    name : str
        The metric, for messages.

    Raises
    ------
    TypeError
        When a direction is not a bool.
    ValueError
        When the mapping names a sub-score not in ``sub_scores``.
    """
    if not isinstance(higher_is_better, Mapping):
        if not isinstance(higher_is_better, bool):
            raise TypeError(f"higher_is_better must be True or False (or map sub-scores to them), got {higher_is_better!r}")
        return higher_is_better, {}
    for sub, direction in higher_is_better.items():
        if not isinstance(direction, bool):
            raise TypeError(f"higher_is_better of sub-score {sub!r} must be True or False, got {direction!r}")
    unknown = set(higher_is_better) - set(sub_scores) if sub_scores is not None else set()
    if unknown:
        raise ValueError(f"directions given for unknown sub-scores {sorted(unknown)} of metric {name!r}")
    return True, dict(higher_is_better)


def signature_options(function: Callable[..., Any], name: str) -> dict[str, Any]:
    """The options of a metric: its keyword-only parameters (``discrete`` and ``random_state`` excepted) and their defaults.

    Raises
    ------
    ValueError
        When a keyword-only option has no default (every option must have one).
    """
    options = {}
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY or parameter.name in CALL_ARGUMENTS:
            continue
        if parameter.default is inspect.Parameter.empty:
            raise ValueError(f"option {parameter.name!r} of metric {name!r} has no default; every keyword-only option needs one")
        options[parameter.name] = parameter.default
    return options


def available(*, population: bool | None = False) -> list[str]:
    """Sorted names of the registered metrics.

    Parameters
    ----------
    population : bool or None, default False
        ``False`` lists the single-representation metrics, ``True`` the population
        metrics (UDR), ``None`` all of them.

    Raises
    ------
    TypeError
        For any other ``population`` (a string such as ``"yes"`` listed nothing).
    """
    if population is not None and not isinstance(population, bool):
        raise TypeError(f"population must be True, False or None, got {population!r}")
    _import_built_ins()
    return sorted(n for n, s in _REGISTRY.items() if population is None or s.population == population)


def get(name: str) -> MetricSpec:
    """The :class:`MetricSpec` registered under ``name``.

    Raises
    ------
    KeyError
        With the list of known names, when ``name`` is not registered.
    """
    _import_built_ins()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(available(population=None))
        raise KeyError(f"unknown metric {name!r}; known metrics: {known}") from None
