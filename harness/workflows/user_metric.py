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
import os
import sys
from collections.abc import Callable, Collection, Iterator, Mapping
from typing import Any

from harness.errors import UsageError, did_you_mean
from harness.execution.metric_refs import MetricEntry, claim_fields, custom_entry, load_callable, resolve
from metrics._entry import accepts
from metrics.describe import METADATA_ATTRIBUTE

MetricLike = str | Callable[..., Any]


def metric_entry(
    metric: MetricLike,
    *,
    property: str | Mapping[str, str] | None = None,  # noqa: A002 - the word the rest of the project uses
    higher_is_better: bool | Mapping[str, bool] | None = None,
    stochastic: bool | None = None,
    name: str | None = None,
) -> MetricEntry:
    """The harness entry of a metric, with metadata overrides applied.

    Parameters
    ----------
    metric : str or callable
        A registered name, a ``module:function`` / ``file.py:function`` reference, or
        a callable (its ``harness_metadata`` is read when present).
    property, higher_is_better : optional
        Override the metric's claims, as :func:`metrics.describe.describe_metric` takes
        them: one property or direction for every sub-score, or a mapping sub-score ->
        property (unlisted ones holistic) or -> direction (unlisted ones higher-is-better).
        An override replaces the claim, mapping or not.
    stochastic, name : optional
        Override the metric's own metadata.

    Raises
    ------
    harness.errors.UsageError
        For an unknown property, a direction that is not a bool, an empty name, or a
        reference that cannot be loaded.  Sub-score names are checked against what the
        metric returns by :func:`check_claimed_sub_scores`.
    """
    if isinstance(metric, str):
        entry = resolve(metric)
    else:
        entry = custom_entry(metric, getattr(metric, "__name__", type(metric).__name__))
    if name is not None and not name.strip():
        raise UsageError("name must not be empty")
    overrides: dict[str, Any] = {}
    if stochastic is not None:
        overrides["stochastic"] = stochastic
    if property is not None or name is not None or higher_is_better is not None:
        label = (name or entry.name).strip()
        claims = claim_fields(label, property if property is not None else entry.claimed_properties(),
                              higher_is_better if higher_is_better is not None else entry.claimed_directions())
        if property is None and name is None:  # keep a registered metric's own properties
            claims = {key: value for key, value in claims.items() if key in ("higher_is_better", "directions")}
        overrides.update(name=label, **claims)
    return dataclasses.replace(entry, **overrides)


def _claim_text(claim: Any, word: Callable[[Any], str]) -> str:
    """A claim as the command line writes it: ``explicitness``, ``lower``, ``mod=modularity,err=explicitness``."""
    if isinstance(claim, Mapping):
        return ",".join(f"{sub_score}={word(value)}" for sub_score, value in claim.items())
    return word(claim)


def replaced_claims(declared: MetricEntry, entry: MetricEntry) -> list[str]:
    """What the overrides replaced of the decorator's claims, one line per kind, e.g. ``the direction given
    (rho=lower) replaces the decorator's (miss=lower) as a whole``.

    An override replaces the decorator's claim of its kind as a whole (:func:`metric_entry`), so a per-sub-score
    direction given for one sub-score drops the decorator's for another: said, so that it is not a surprise.
    Nothing is said where the decorator claims the default (holistic, higher-is-better) or the override agrees.

    Parameters
    ----------
    declared : MetricEntry
        The metric as its decorator describes it (:func:`metric_entry` without overrides).
    entry : MetricEntry
        The metric with the overrides applied.
    """
    kinds = (("property", declared.claimed_properties(), entry.claimed_properties(), "holistic", str),
             ("direction", declared.claimed_directions(), entry.claimed_directions(), True,
              lambda higher: "higher" if higher else "lower"))
    return [f"the {kind} given ({_claim_text(after, word)}) replaces the decorator's ({_claim_text(before, word)}) "
            "as a whole"
            for kind, before, after, default, word in kinds if before != default and after != before]


def check_seedable(entry: MetricEntry) -> None:
    """Refuse a metric declared stochastic whose function takes no ``random_state``.

    The harness seeds a stochastic metric only through ``random_state``
    (:func:`metrics.evaluate` passes it to a function that accepts it), deriving it from
    the cell's identity.  A function without it draws from a global or fresh generator:
    its scores would change from run to run, and the axiom checks would widen their
    tolerances by a "seed spread" no seed controls.  Refused rather than warned, because
    a card built on such scores would look reproducible and not be.

    Raises
    ------
    harness.errors.UsageError
        When ``entry`` is stochastic and its function takes neither ``random_state`` nor ``**kwargs``.
    """
    if entry.stochastic and not entry.registered and not accepts(load_callable(entry.target), "random_state"):
        raise UsageError(f"{entry.name} is declared stochastic (--stochastic or describe_metric(stochastic=True)) but "
                         "takes no random_state argument, so the harness cannot seed it: add a random_state parameter "
                         "and draw only from it, or declare it deterministic")


def check_claimed_sub_scores(entry: MetricEntry, returned: Collection[str], where: str = "on the probe") -> None:
    """Refuse per-sub-score claims naming a sub-score the metric did not return.

    Parameters
    ----------
    entry : MetricEntry
        The metric as it will be run.
    returned : collection of str
        The sub-scores it returned.
    where : str
        Where it returned them, for the message.

    Raises
    ------
    harness.errors.UsageError
        Naming the unknown sub-scores, those the metric returned and the closest to each unknown one.
    """
    claimed = entry.claimed_properties()
    named = {"property": set(claimed) if isinstance(claimed, dict) else set(), "direction": set(entry.directions)}
    for claim, sub_scores in named.items():
        unknown = sorted(sub_scores - set(returned))
        if unknown:
            raise UsageError(f"the claimed {claim} names sub-score(s) {', '.join(unknown)} that {entry.name} did not "
                             f"return {where}; it returned: {', '.join(sorted(returned))}"
                             f"{did_you_mean(unknown, returned)}")


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
    if source and os.path.isfile(source):
        return f"{source}:{qualname}"
    where = f" (it was defined in {source}, which the workers cannot import)" if source else ""
    raise UsageError(f"cannot find the source file of {qualname!r}{where}; put it in a file and pass it as "
                     "'path/to/file.py:function'")


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
    setattr(function, METADATA_ATTRIBUTE, {"name": entry.name, "property": entry.claimed_properties(),
                                           "higher_is_better": entry.claimed_directions(), "stochastic": entry.stochastic})
    try:
        yield
    finally:
        if had:
            setattr(function, METADATA_ATTRIBUTE, original)
        else:
            delattr(function, METADATA_ATTRIBUTE)
