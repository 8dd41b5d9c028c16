"""The public entry points that run a metric on arrays: :func:`evaluate` and
:func:`evaluate_population`."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from metrics._entry import accepts, unchanged_inputs, validated_pair
from metrics.constraints import check_options
from metrics.describe import METADATA_ATTRIBUTE
from metrics.options import check_random_state
from metrics.registry import MetricSpec, get
from metrics.validation import check_discrete, constant_columns

MetricLike = str | MetricSpec | Callable[..., Any]


def metric_name(metric: MetricLike) -> str:
    """The name a metric's single score is reported under.

    A registered name or spec gives the metric's name; a callable its ``__name__``, that
    of the function a :func:`functools.partial` wraps, or else its class's name.
    """
    if isinstance(metric, str):
        return metric
    if isinstance(metric, MetricSpec):
        return metric.name
    while isinstance(metric, functools.partial):
        metric = metric.func
    return getattr(metric, "__name__", type(metric).__name__)


class NotAScoreError(TypeError, ValueError):
    """A metric's result that is no score at all, whatever the data: neither a number nor a mapping of sub-scores to
    numbers (text, a bool, an array, None, an empty mapping).  A ``TypeError`` (and a ``ValueError``, as an empty
    mapping's was), so that callers catching either still catch it."""


def _as_scores(result: Any, name: str, factors: Any, codes: Any) -> dict[str, float]:
    """A metric's result as sub-score -> finite float; a non-finite score names the constant input columns that
    explain it (a correlation or a division by a column's spread is NaN there), else is called a bug in the metric."""
    if isinstance(result, Mapping):
        items = list(result.items())
    else:
        items = [(name, result)]
    if not items:
        raise NotAScoreError(f"metric {name!r} returned no score")
    scores: dict[str, float] = {}
    for key, value in items:
        try:
            if isinstance(value, (str, bytes, bool, np.bool_)):  # float() would read "0.5" and True as numbers
                raise TypeError
            number = float(value)
        except (TypeError, ValueError):
            raise NotAScoreError(f"metric {name!r} returned a non-numeric score for {key!r}: {value!r}") from None
        if not math.isfinite(number):
            raise ValueError(f"metric {name!r} returned a non-finite score for {key!r} ({number}); "
                             + _non_finite_cause(factors, codes))
        scores[str(key)] = number
    return scores


def _non_finite_cause(factors: Any, codes: Any) -> str:
    """What a non-finite score comes from: the constant code and factor columns of the inputs, or a bug in the
    metric when none is constant."""
    constant = [f"{what} column(s) {', '.join(map(str, columns))}"
                for what, array in (("code", codes), ("factor", factors))
                for columns in [constant_columns(np.asarray(array, dtype=np.float64))] if columns]
    if not constant:
        return "this is a bug in the metric"
    return (f"its inputs have {' and '.join(constant)} constant (a correlation or a division by a column's spread is "
            "NaN there): handle it in the metric")


def evaluate(
    metric: MetricLike,
    factors: Any,
    codes: Any,
    *,
    discrete: Sequence[bool] | bool | None = None,
    random_state: int | np.random.Generator | None = None,
    **options: Any,
) -> dict[str, float]:
    """Score a representation with a metric.

    Parameters
    ----------
    metric : str, MetricSpec or callable
        A registered name (see :func:`metrics.available`), a spec, or any plain
        callable ``fn(factors, codes, **options)`` returning a float or a mapping of
        sub-scores.
    factors : array_like
        ``(n, K)`` ground-truth factor values.
    codes : array_like
        ``(n, L)`` codes of the same ``n`` samples.
    discrete : sequence of bool or bool, optional
        Which factors are discrete (categorical).  Default: all continuous.  Passed
        to registered metrics, and to a plain callable that accepts it.
    random_state : int or numpy.random.Generator, optional
        Seed for stochastic metrics.  Passed to registered stochastic metrics, and to
        a plain callable that accepts it.  Given ``None``, they get 0, so that results are reproducible by default
        (a plain callable's own default, ``random_state=None``, drew afresh at every call).  Checked even where no
        metric takes it.
    **options
        Metric options; they override the registered defaults.

    Returns
    -------
    dict[str, float]
        Sub-score name -> finite score.  A metric returning a float comes back as
        ``{name: value}``.

    Raises
    ------
    ValueError, TypeError
        When the inputs are malformed (the message names the argument), an option is
        unknown or breaks its declared constraint (a registered metric's, or the ``constraints`` a plain callable
        declares with :func:`metrics.describe.describe_metric`), or the metric produces a non-finite score.
    metrics._entry.InputModifiedError
        (a ValueError) When the metric tries to write into ``factors`` or ``codes``: it is
        given read-only views of them, so that the caller's arrays never change.
    KeyError
        When ``metric`` names no registered metric.
    """
    if random_state is not None:  # a bad seed is refused whether or not this metric draws (it was ignored)
        check_random_state(random_state)
    spec = get(metric) if isinstance(metric, str) else metric if isinstance(metric, MetricSpec) else None
    if spec is not None:
        if spec.population:
            raise ValueError(f"metric {spec.name!r} scores a population of representations; use metrics.evaluate_population")
        # The registered entry validates factors, codes, discrete, the seed and the option names.
        call_options: dict[str, Any] = {**spec.defaults, **options, "discrete": discrete}
        if spec.stochastic:
            call_options["random_state"] = 0 if random_state is None else random_state
        return _as_scores(spec.function(factors, codes, **call_options), spec.name, factors, codes)
    function = metric
    if not callable(function):
        raise TypeError(f"metric must be a registered name or a callable, got {metric!r}")
    factor_matrix, code_matrix = validated_pair(factors, codes)  # as a registered metric's entry: shared in a scope
    flags = check_discrete(discrete, factor_matrix.shape[1])
    call_options = dict(options)
    if discrete is not None and accepts(function, "discrete"):
        call_options["discrete"] = flags
    if accepts(function, "random_state"):
        call_options["random_state"] = check_random_state(0 if random_state is None else random_state)
    name = metric_name(function)
    check_options(name, options, getattr(function, METADATA_ATTRIBUTE, {}).get("constraints", {}))
    with unchanged_inputs(name):
        result = function(factor_matrix, code_matrix, **call_options)
    return _as_scores(result, name, factor_matrix, code_matrix)


def evaluate_population(
    metric: str | MetricSpec,
    population: Sequence[Any],
    *,
    random_state: int | np.random.Generator | None = None,
    **options: Any,
) -> list[float]:
    """Score each member of a population of representations (e.g. UDR).

    Parameters
    ----------
    metric : str or MetricSpec
        A registered population metric.
    population : sequence of array_like
        ``M >= 2`` code matrices ``(n, L_m)`` of the same ``n`` inputs.
    random_state : int or numpy.random.Generator, optional
        Seed for stochastic population metrics (0 when ``None``).
    **options
        Metric options; they override the registered defaults.

    Returns
    -------
    list[float]
        One finite score per member, in order.

    Raises
    ------
    TypeError
        When ``metric`` is not a registered population metric's name or spec (a plain
        callable included), ``population`` is not a sequence of arrays, a member is not
        numeric, an option is unknown, or ``random_state`` is not an int or Generator.
    ValueError
        When ``metric`` scores single representations, the population has fewer than 2
        members or members of different row counts, a member is malformed (the message
        names ``population[i]``), ``random_state`` is negative, or the metric returns a
        non-finite score.
    KeyError
        When ``metric`` names no registered metric.
    """
    spec = get(metric) if isinstance(metric, str) else metric
    if not isinstance(spec, MetricSpec):
        raise TypeError(f"metric must be a registered population metric name or its MetricSpec, got {metric!r}")
    if not spec.population:
        raise ValueError(f"metric {spec.name!r} scores a single representation; use metrics.evaluate")
    call_options = {**spec.defaults, **options}
    if spec.stochastic:
        call_options["random_state"] = 0 if random_state is None else random_state
    scores = spec.function(population, **call_options)  # the registered entry validates the population
    values = [float(s) for s in scores]
    if len(values) != len(population) or not all(math.isfinite(v) for v in values):
        raise ValueError(f"metric {spec.name!r} must return one finite score per representation")
    return values
