"""What the harness needs to know about a metric to run it in a worker and label its rows.

A :class:`MetricEntry` is plain, picklable data: a registered metric is referred to by
its registry name; a user's metric by an import path (``package.module:function`` or
``path/to/file.py:function``) that each worker loads itself.  An option sweep turns one
entry into labelled variants (:func:`variants`: ``mig[bins=5]``, ``mig[bins=20]``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.util
import inspect
import itertools
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

import metrics
from harness.errors import UnknownNameError, UsageError, check_one_source_per_name, did_you_mean
from harness.execution.option_values import variant_label
from harness.execution.read_audit import recording
from harness.execution.user_code import user_code
from metrics._entry import CALL_ARGUMENTS
from metrics.constraints import Interval, InvalidOptionError, Rule, check_option
from metrics.describe import METADATA_ATTRIBUTE, option_parameters
from metrics.registry import check_directions, check_property_claim

CUSTOM_FAMILY = "custom"


@dataclass(frozen=True)
class MetricEntry:
    """A metric as the harness runs it.

    Attributes
    ----------
    name : str
        Name written in the results' ``metric`` column.
    target : str
        Registry name, or import path ``module:function`` / ``file.py:function``.
    registered : bool
        Whether ``target`` is a registry name.
    family : str
        The registered family, or ``"custom"``.
    properties : Mapping[str, str]
        Sub-score -> property.  Sub-scores a custom metric returns that are not listed
        get ``default_property``.
    default_property : str
        Property of unlisted sub-scores.
    higher_is_better, stochastic : bool
        As in :class:`metrics.MetricSpec`.
    directions : Mapping[str, bool]
        Per-sub-score exceptions to ``higher_is_better``.
    version : str
        Registered version, or a hash of the user's source file.
    options : Mapping[str, Any]
        Options passed to the metric (JSON-serialisable).
    variant_of : str
        For a variant of an option sweep (``mig[bins=5]``), the name of the metric it is a
        variant of; ``""`` otherwise.  Variants of one metric share its random state, so
        their scores differ by the options alone.
    variant_options : Mapping[str, Any]
        The options the variant sets (``{"bins": 5}``), in the sweep's order; empty for a
        metric that is no variant.  The results store them as data (``options``).
    environment : tuple of str
        The environment variables a user's metric declares it reads (``describe_metric(env=...)``): their values
        are part of its cells' identity (:func:`harness.execution.provenance.metric_provenance`).
    """

    name: str
    target: str
    registered: bool
    family: str
    properties: Mapping[str, str]
    default_property: str = "holistic"
    higher_is_better: bool = True
    stochastic: bool = False
    version: str = "1"
    options: Mapping[str, Any] = field(default_factory=dict)
    directions: Mapping[str, bool] = field(default_factory=dict)
    population: bool = False
    variant_of: str = ""
    variant_options: Mapping[str, Any] = field(default_factory=dict)
    environment: tuple[str, ...] = ()

    def higher_is_better_for(self, sub_score: str) -> bool:
        """Whether a larger value of ``sub_score`` is better."""
        return self.directions.get(sub_score, self.higher_is_better)

    def property_of(self, sub_score: str) -> str:
        """The property a sub-score measures."""
        return self.properties.get(sub_score, self.default_property)

    def claimed_properties(self) -> str | dict[str, str]:
        """The property claim as :func:`metrics.describe.describe_metric` takes it: one property when every
        sub-score measures the same (then unlisted ones do too), else sub-score -> property (inverse of
        :func:`claim_fields`)."""
        if set(self.properties.values()) <= {self.default_property}:
            return self.default_property
        return dict(self.properties)

    def claimed_directions(self) -> bool | dict[str, bool]:
        """The direction claim as :func:`metrics.describe.describe_metric` takes it: one bool, or sub-score ->
        bool when sub-scores differ (inverse of :func:`claim_fields`)."""
        return dict(self.directions) if self.directions else self.higher_is_better

    def fingerprint(self) -> str:
        """Identity of the computation: changes when the version or an option changes."""
        return self._fingerprint

    @cached_property
    def _fingerprint(self) -> str:  # computed once per entry: every cell of a plan asks for it
        payload = json.dumps([self.target, self.version, dict(self.options)], sort_keys=True, default=repr)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def callable(self) -> str | Callable[..., Any]:
        """What :func:`metrics.evaluate` takes: the registry name or the loaded function."""
        return self.target if self.registered else load_callable(self.target)


def registered_entry(name: str) -> MetricEntry:
    """The entry of a registered metric (:class:`~harness.errors.UnknownNameError` suggesting close names otherwise)."""
    known = metrics.available(population=None)
    if name not in known:
        raise UnknownNameError("metric", name, known)
    spec = metrics.get(name)
    return MetricEntry(
        name=spec.name,
        target=spec.name,
        registered=True,
        family=spec.family,
        properties=MappingProxyType(dict(spec.properties)),
        default_property=next(iter(spec.properties.values())),
        higher_is_better=spec.higher_is_better,
        stochastic=spec.stochastic,
        version=spec.version,
        options=MappingProxyType(dict(spec.defaults)),
        directions=MappingProxyType(dict(spec.directions)),
        population=spec.population,
    )


def load_callable(target: str, what: str = "metric") -> Callable[..., Any]:
    """Load ``module:function`` or ``path/to/file.py:function`` (``what`` names it in errors).

    Raises
    ------
    harness.errors.UsageError
        When the reference is malformed, the file or module cannot be imported, or
        the attribute is missing or not callable.
    """
    function = load_attribute(target, what)
    if not callable(function):
        raise UsageError(f"{target!r} is not callable")
    return function


def load_attribute(target: str, what: str = "metric") -> Any:
    """The object ``module:name`` or ``path/to/file.py:name`` refers to (a function, a scenario, ...).

    A file is imported once per process under a name derived from its absolute path and its content, so
    every worker that loads the same reference gets the same module, and an edited file is imported again.  What importing it reads is recorded under
    its module part (:func:`harness.execution.read_audit.recording`).

    Raises
    ------
    harness.errors.UsageError
        When the reference is malformed, the file or module cannot be imported, or the
        attribute is missing; the message names ``what`` was being loaded.
    """
    module_part, sep, attribute = target.rpartition(":")
    if not sep or not module_part or not attribute:
        raise UsageError(f"{what} reference {target!r} must look like package.module:name or path/to/file.py:name")
    if module_part.endswith(".py"):
        path = Path(module_part).expanduser().resolve()
        if not path.is_file():
            raise UsageError(f"{what} file {module_part!r} does not exist")
        # named by its path and its content: an edit imports it anew (a notebook's second run used the old code, and
        # stored its scores under the new version's keys)
        module_name = ("harness_user_metric_" + hashlib.sha256(str(path).encode()).hexdigest()[:12] + "_"
                       + hashlib.sha256(path.read_bytes()).hexdigest()[:12])
        module = sys.modules.get(module_name)
        if module is None:
            spec = importlib.util.spec_from_file_location(module_name, path)
            if spec is None or spec.loader is None:
                raise UsageError(f"cannot import {what} file {module_part!r}")
            module = importlib.util.module_from_spec(spec)
            try:
                with user_code("the file"), recording(module_part):  # sys.exit() at import included
                    spec.loader.exec_module(module)
            except Exception as error:  # a user's file may fail in any way; report it in one line
                raise UsageError(f"importing {what} file {module_part!r} failed: {type(error).__name__}: {error}") from error
            sys.modules[module_name] = module
    else:
        try:
            with user_code("the module"), recording(module_part):
                module = importlib.import_module(module_part)
        except ImportError as error:
            raise UsageError(f"cannot import module {module_part!r} for {what} {target!r}: {error}") from error
        except Exception as error:  # the module's own code failed while importing
            raise UsageError(f"importing {what} module {module_part!r} failed: {type(error).__name__}: {error}") from error
    found = getattr(module, attribute, None)
    if found is None:
        public = [name for name, value in vars(module).items() if callable(value) and not name.startswith("_")]
        raise UsageError(f"{module_part!r} has no attribute {attribute!r}{did_you_mean([attribute], public)}")
    return found


def source_version(target: str) -> str:
    """A short hash of a user's metric or scenario source file: its version in the results (``metric_version``).

    What a cached cell is reused on also covers the modules the file imports and the libraries' versions
    (:mod:`harness.execution.provenance`)."""
    module_part = target.rpartition(":")[0]
    if module_part.endswith(".py"):
        path = Path(module_part).expanduser()
    else:
        spec = importlib.util.find_spec(module_part)
        path = Path(spec.origin) if spec is not None and spec.origin else None
    if path is None or not path.is_file():
        return "unknown"
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def claim_fields(
    name: str, property: str | Mapping[str, str] = "holistic",  # noqa: A002
    higher_is_better: bool | Mapping[str, bool] = True,
) -> dict[str, Any]:
    """The :class:`MetricEntry` fields (``properties``, ``default_property``, ``higher_is_better``,
    ``directions``) of a user's claims, as :func:`metrics.describe.describe_metric` takes them.

    One property: every sub-score measures it (``properties`` is ``{name: property}``, the
    default the same).  A mapping sub-score -> property: the registry's representation
    (:attr:`metrics.MetricSpec.properties`), unlisted sub-scores holistic.  Directions as
    :func:`metrics.registry.check_directions` reads them.

    Raises
    ------
    harness.errors.UsageError
        For a property not in :data:`metrics.SCORE_PROPERTIES`, an empty mapping or sub-score
        name, or a direction that is not a bool.
    """
    try:
        claimed = check_property_claim(property)
        properties, default = (claimed, "holistic") if isinstance(claimed, dict) else ({name: claimed}, claimed)
        higher, directions = check_directions(higher_is_better)
    except (TypeError, ValueError) as error:
        raise UsageError(str(error)) from None
    return {"properties": MappingProxyType(properties), "default_property": default,
            "higher_is_better": higher, "directions": MappingProxyType(directions)}


def resolve(reference: str) -> MetricEntry:
    """An entry for a registry name, an import path of a user's function, or a variant's label as the results name it
    (``mig[bins=5]``, ``mine.py:gap[power=3]``: the metric with those options, :func:`variants`' entry of that name)."""
    module, colon, attribute = reference.rpartition(":")  # brackets name a variant after the last ':' only
    labelled = variant_label(attribute)  # (a directory 'proj[v2]/' is part of a path)
    if labelled is not None:
        base, options = labelled
        (variant,) = variants(resolve(module + colon + base), {option: [value] for option, value in options.items()})
        return variant
    if ":" not in reference:
        return registered_entry(reference)
    return custom_entry(load_callable(reference), reference, version=source_version(reference))


def resolve_all(references: Sequence[str]) -> list[MetricEntry]:
    """:func:`resolve` of each reference, refusing two metrics of one name (``a.py:mine,b.py:mine``) or one listed twice
    (:func:`harness.errors.check_one_source_per_name`): results are keyed by a metric's name."""
    entries, unknown = [], []
    for reference in references:
        try:
            entries.append(resolve(reference))
        except UnknownNameError as error:  # every misspelled name at once, not the first only
            unknown.append(error)
    if len(unknown) == 1:
        raise unknown[0]
    if unknown:
        known = metrics.available(population=None)
        raise UsageError("unknown metrics " + ", ".join(f"{error.name!r}{did_you_mean([error.name], known)}"
                                                        for error in unknown) + f"; known metrics: {', '.join(known)}")
    for entry, reference in zip(entries, references):
        if not entry.registered:
            check_user_metric_name(entry, f"metric {reference!r} is named", "its function's, or describe_metric(name=...)")
    check_one_source_per_name("metric", [(entry.name, reference) for entry, reference in zip(entries, references)])
    return entries


def check_user_metric_name(entry: MetricEntry, subject: str, remedy: str) -> None:
    """Refuse a user's metric named as a built-in one (its rows would be read as the built-in's: the review's Table 2
    compared a user's 'mig' with MIG, a baseline called it mig at another version) or holding ``[``, ``]`` or ``,``
    (which name an option sweep's variants and separate a list of names); a variant of a user's metric
    (``mine.py:gap[power=3]``) is judged by the name of the metric it is a variant of.  ``subject`` starts the message
    (``metric 'x.py:mig' is named``), ``remedy`` says how to name it otherwise.

    Raises
    ------
    harness.errors.UsageError
        For such a name, checked where its final name is known (after ``validate --name``).
    """
    name = entry.variant_of or entry.name
    if name in metrics.available(population=None):
        raise UsageError(f"{subject} {name!r}, which is a built-in metric's name; give yours another ({remedy})")
    if any(mark in name for mark in "[],"):
        raise UsageError(f"{subject} {name!r}, which holds '[', ']' or ',': they name option-sweep variants and "
                         f"separate lists of names; give yours another ({remedy})")


def custom_entry(function: Callable[..., Any], target: str, *, version: str = "1") -> MetricEntry:
    """The entry of a user's function, labelled from its ``harness_metadata`` (:func:`metrics.describe.describe_metric`).

    Raises
    ------
    harness.errors.UsageError
        When ``function`` cannot be called as ``function(factors, codes)`` (:func:`check_metric_signature`).
    """
    check_metric_signature(function, target)
    metadata = dict(getattr(function, METADATA_ATTRIBUTE, {}))
    name = metadata.get("name", getattr(function, "__name__", target))
    return MetricEntry(
        name=name,
        target=target,
        registered=False,
        family=CUSTOM_FAMILY,
        **claim_fields(name, metadata.get("property", "holistic"), metadata.get("higher_is_better", True)),
        stochastic=bool(metadata.get("stochastic", False)),
        version=version,
        environment=tuple(metadata.get("env", ())),
    )


def check_metric_signature(function: Callable[..., Any], target: str) -> None:
    """Refuse, before anything runs, a function that cannot take a metric's two arguments, ``(factors, codes)``, as its
    first two: every cell would fail with the same ``TypeError``.  Further parameters without a default are allowed
    (``--metric-option`` may give them); a callable whose signature Python cannot read is left to its calls.

    Raises
    ------
    harness.errors.UsageError
        Naming ``target`` and what its signature lacks or requires besides the two arrays.
    """
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # some compiled callables have none
        return
    try:
        signature.bind_partial(None, None)
    except TypeError as error:
        raise UsageError(f"metric {target!r} cannot be called as fn(factors, codes), the (n, K) factors and (n, L) codes "
                         f"every metric is given: its signature is {target.rpartition(':')[2] or target}{signature} "
                         f"({error})") from None


def check_required_options(entry: MetricEntry) -> None:
    """Refuse, before anything runs, a user's metric whose function requires a parameter beyond ``(factors, codes)``
    that neither the harness (``discrete``, ``random_state``: :data:`metrics._entry.CALL_ARGUMENTS`) nor the entry's
    options give: every one of its cells would fail with the same ``TypeError``.

    Raises
    ------
    harness.errors.UsageError
        Naming the metric and the parameters nothing gives, and how to give them.
    """
    if entry.registered:
        return
    try:
        parameters = list(inspect.signature(load_callable(entry.target)).parameters.values())[2:]
    except (TypeError, ValueError):  # some compiled callables have no signature: left to their calls
        return
    given = {*CALL_ARGUMENTS, *entry.options}
    lacking = [p.name for p in parameters if p.default is inspect.Parameter.empty and p.name not in given
               and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    if lacking:
        raise UsageError(f"metric {entry.name!r} ({entry.target}) requires {', '.join(lacking)}, which nothing gives it: "
                         f"give {'it a default' if len(lacking) == 1 else 'them defaults'} in its signature (validate "
                         f"judges a metric at its defaults), or, to run it, a value with --metric-option "
                         f"{entry.name}:{lacking[0]}=V")


OptionSweep = Mapping[str, Sequence[Any]]
"""Option name -> the values to run a metric at (``{"bins": [5, 20]}``)."""


def option_label(value: Any) -> str:
    """An option value as written in a variant's name: ``5``, ``0.1``, ``knn``, ``True``."""
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def options_label(options: Mapping[str, Any]) -> str:
    """Options as a variant's name writes them: ``bins=5,estimator=knn``."""
    return ",".join(f"{name}={option_label(value)}" for name, value in options.items())


def variants(entry: MetricEntry, sweep: OptionSweep, *, axial: bool = False) -> list[MetricEntry]:
    """One entry per combination of the swept option values, named ``NAME[OPTION=VALUE,...]``.

    With ``axial``, only the combinations that set at most one option off its default (``entry``'s options): each
    option is varied with the others at their defaults, the spreads the reports' verdicts read
    (:mod:`reports.analyses.hyperparameters`), at the cost of the sum of the options' values rather than their product.

    Each variant keeps the metric's other options (its defaults) and records the
    metric it is a variant of.  Options are checked by name (a registered metric's
    defaults, a user function's parameters) and their values by the metric's declaration
    (:func:`option_rules`), so a value the metric can never take is refused here, when the
    study is planned, before any cell runs.  What a declaration cannot say (a value legal
    for some data only, an option of a user's function that declares no rule) is the
    metric's to check when its cells call it.  Nothing is learnt by calling the metric: a
    probe call would run user code while planning, cost a call per variant, and could
    only guess from how the call failed whether the value or the probe's data was at
    fault; a user who wants a bad value refused before the study declares the rule
    (:func:`metrics.describe.describe_metric`'s ``constraints``).

    Raises
    ------
    harness.errors.UsageError
        For an option the metric does not take, an option with no values, a value
        that cannot be stored in a results table's cache key (not JSON-serialisable), or a
        value its rule refuses (``metric 'mig' does not take bins=0: bins must be an
        integer >= 2``).
    """
    if not sweep:
        return [entry]
    accepted = _accepted_options(entry)
    rules = option_rules(entry)
    for option, values in sweep.items():
        if accepted is not None and option not in accepted:
            raise UsageError(f"metric {entry.name!r} has no option {option!r}; its options: {', '.join(sorted(accepted)) or 'none'}")
        if not values:
            raise UsageError(f"option {option!r} of metric {entry.name!r} needs at least one value")
        for value in values:
            if not isinstance(value, (str, int, float, bool, type(None))):
                raise UsageError(f"option {option!r} of metric {entry.name!r}: values must be numbers, text, booleans or "
                                 f"None, got {value!r}")
            if option in rules:
                try:
                    check_option(entry.name, option, value, rules[option])
                except InvalidOptionError as error:
                    raise UsageError(str(error)) from None
    names = list(sweep)
    entries = []
    for combination in itertools.product(*(sweep[name] for name in names)):
        chosen = dict(zip(names, combination))
        if axial and sum(name not in entry.options or entry.options[name] != value for name, value in chosen.items()) > 1:
            continue
        entries.append(dataclasses.replace(
            entry,
            name=f"{entry.name}[{options_label(chosen)}]",
            options=MappingProxyType({**entry.options, **chosen}),
            variant_of=entry.name,
            variant_options=MappingProxyType(chosen),
        ))
    return entries


def _accepted_options(entry: MetricEntry) -> set[str] | None:
    """The option names a metric takes (None: any, for a function taking ``**kwargs``)."""
    if entry.registered:
        return set(entry.options)
    function = load_callable(entry.target)
    if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in inspect.signature(function).parameters.values()):
        return None
    return set(option_parameters(function))


def option_rules(entry: MetricEntry) -> Mapping[str, Rule]:
    """Option -> the rule of its legal values (:mod:`metrics.constraints`): a registered metric's
    (:attr:`metrics.MetricSpec.constraints`), or those a user's function declares with
    :func:`metrics.describe.describe_metric` (none when it declares none)."""
    if entry.registered:
        return metrics.get(entry.target).constraints
    return dict(getattr(load_callable(entry.target), METADATA_ATTRIBUTE, {})).get("constraints", {})


def declared_score_range(entry: MetricEntry) -> dict[str, tuple[float, float]] | tuple[float, float] | None:
    """The score range a metric declares, as ``(low, high)`` with an infinite bound for an unbounded side: a registered
    metric's sub-score -> range (:attr:`metrics.MetricSpec.ranges`), a user's function's ``score_range``
    (:func:`metrics.describe.describe_metric`: one range, or sub-score -> range), None when it declares none."""
    declared = (metrics.get(entry.target).ranges if entry.registered
                else dict(getattr(load_callable(entry.target), METADATA_ATTRIBUTE, {})).get("score_range"))
    if not declared:
        return None
    if isinstance(declared, Interval):
        return declared.bounds()
    return {sub: interval.bounds() for sub, interval in declared.items()}
