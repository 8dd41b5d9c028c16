"""A user's metric as the harness runs it: its import reference and its metadata.

A user's function needs no registration.  Its metadata come from
:func:`metrics.describe.describe_metric` (the ``harness_metadata`` attribute read by
:mod:`harness.execution.metric_refs`) and may be overridden by arguments (the CLI flags of
``validate``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import sys
from types import MappingProxyType
from typing import Any, Callable, Iterator

import metrics
from harness.execution.metric_refs import CUSTOM_FAMILY, MetricEntry, load_callable, resolve
from metrics.describe import METADATA_ATTRIBUTE
from harness.errors import UsageError

MetricLike = str | Callable[..., Any]


def metric_entry(
    metric: MetricLike,
    *,
    property: str | None = None,  # noqa: A002 - the word the rest of the project uses
    higher_is_better: bool | None = None,
    stochastic: bool | None = None,
    name: str | None = None,
) -> MetricEntry:
    """The harness entry of a metric, with metadata overrides applied.

    Parameters
    ----------
    metric : str or callable
        A registered name, a ``module:function`` / ``file.py:function`` reference, or
        a callable (its ``harness_metadata`` is read when present).
    property, higher_is_better, stochastic, name : optional
        Override the metric's own metadata.

    Raises
    ------
    ValueError
        For an unknown property, an empty name, or a reference that cannot be loaded.
    """
    if isinstance(metric, str):
        entry = resolve(metric)
    else:
        metadata = dict(getattr(metric, METADATA_ATTRIBUTE, {}))
        label = metadata.get("name", getattr(metric, "__name__", type(metric).__name__))
        prop = metadata.get("property", "holistic")
        entry = MetricEntry(name=label, target=label, registered=False, family=CUSTOM_FAMILY,
                            properties=MappingProxyType({label: prop}), default_property=prop,
                            higher_is_better=bool(metadata.get("higher_is_better", True)),
                            stochastic=bool(metadata.get("stochastic", False)))
    if property is not None and property not in metrics.PROPERTIES:
        raise UsageError(f"property must be one of {', '.join(metrics.PROPERTIES)}; got {property!r}")
    if name is not None and not name.strip():
        raise UsageError("name must not be empty")
    overrides: dict[str, Any] = {}
    if higher_is_better is not None:
        overrides["higher_is_better"] = higher_is_better
    if stochastic is not None:
        overrides["stochastic"] = stochastic
    if property is not None or name is not None:
        label, prop = (name or entry.name).strip(), property or entry.default_property
        overrides.update(name=label, properties=MappingProxyType({label: prop}), default_property=prop)
    return dataclasses.replace(entry, **overrides)


def reference_of(metric: MetricLike) -> str:
    """An import reference the harness's workers can load: ``module:function`` or ``file.py:function``.

    A function of a package module is referred to by its module name (so the
    package's relative imports keep working); one of a top-level module or script by
    its file.

    Raises
    ------
    ValueError
        For a registered metric's name, a lambda, a nested function or a method
        (workers import functions by name), or a function whose source is unknown.
    """
    if isinstance(metric, str):
        if ":" not in metric:
            raise UsageError(f"{metric!r} is not a reference to your metric; give it as path/to/file.py:function "
                             "or package.module:function")
        return metric
    qualname = getattr(metric, "__qualname__", "")
    if not qualname or "." in qualname or "<" in qualname:
        raise UsageError(f"cannot run {metric!r} in the harness's workers: put it at the top level of a module or "
                         "file and pass it as 'path/to/file.py:function'")
    module_name = getattr(metric, "__module__", None) or ""
    module = sys.modules.get(module_name)
    spec = getattr(module, "__spec__", None)
    if spec is not None and spec.parent:  # inside a package: import by name, so relative imports work
        with contextlib.suppress(ImportError, ValueError):
            if getattr(importlib.import_module(module_name), qualname, None) is metric:
                return f"{module_name}:{qualname}"
    source = getattr(module, "__file__", None)  # a top-level module or script: load its file
    if source:
        return f"{source}:{qualname}"
    raise UsageError(f"cannot find the source file of {qualname!r}; pass it as 'path/to/file.py:function'")


@contextlib.contextmanager
def metadata_applied(reference: str, entry: MetricEntry) -> Iterator[None]:
    """Temporarily give the referenced function the metadata of ``entry``.

    :func:`harness.execution.runner.run_study` resolves a reference in the calling process and
    labels the rows (name, property, direction) from the function's
    ``harness_metadata``; this makes it use the overridden metadata.  The original
    attribute is restored on exit.
    """
    function = load_callable(reference)
    had = hasattr(function, METADATA_ATTRIBUTE)
    original = getattr(function, METADATA_ATTRIBUTE, None)
    setattr(function, METADATA_ATTRIBUTE, {"name": entry.name, "property": entry.default_property,
                                           "higher_is_better": entry.higher_is_better, "stochastic": entry.stochastic})
    try:
        yield
    finally:
        if had:
            setattr(function, METADATA_ATTRIBUTE, original)
        else:
            delattr(function, METADATA_ATTRIBUTE)
