"""One results row: the single place where the tidy table's columns are filled in."""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Mapping
from typing import Any

import metrics
from harness.execution.metric_refs import MetricEntry, load_callable
from harness.execution.plan import Cell
from harness.execution.sweeps import swept_parameters
from harness.version import __version__
from reports.results.options import options_off_defaults
from reports.results.schema import (
    IDEAL_PROPERTIES,
    NULL_COLUMNS,
    OPTIONAL_COLUMN_DEFAULTS,
    SCENARIO_IDEAL_COLUMNS,
    encode_options,
)

#: The null columns of a score without a permutation null.
NO_NULL = {column: OPTIONAL_COLUMN_DEFAULTS[column] for column in NULL_COLUMNS}


def result_row(
    cell: Cell,
    *,
    n_samples: int,
    sub_score: str,
    ideal: float,
    score: float,
    seconds: float,
    warnings: tuple[int, str] = (0, ""),
    exact: float = float("nan"),
    null: Mapping[str, float | int] = NO_NULL,
    scenario_ideals: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """A row with every column of :data:`reports.results.schema.RESULT_COLUMNS`.

    ``value`` is written as a float; a categorical value is written as its index in the
    scenario's grid, its text going to ``value_label``.  ``n_samples`` is the number of
    rows the metric saw (the sample-size sweep scores prefixes of a larger draw).
    ``warnings`` is the number of warnings the metric call raised and the first one's text.
    ``exact`` is the sub-score's closed-form value (:func:`closed_form_values`), NaN where
    none is known.  ``metric_base``, ``options`` and ``default_options`` say which metric a
    variant of an option sweep is of, the options it sets and the defaults of all its metric's options
    (:func:`option_defaults`).  ``sweep`` and ``parameters`` name the sweep the row belongs to and the values it
    sweeps (:func:`harness.execution.sweeps.swept_parameters`).  ``null`` holds the sub-score's permutation null
    (:data:`reports.results.schema.NULL_COLUMNS`), :data:`NO_NULL` without one.  ``scenario_ideals`` is the
    scenario's ideal of each property at the cell's point (:attr:`scenarios.base.Representation.ideal`), written to
    :data:`reports.results.schema.SCENARIO_IDEAL_COLUMNS` whatever the row's property (NaN for one it does not state,
    and for all without it: a population metric's rows).
    """
    scenario = cell.definition
    metric = cell.metric
    prop = metric.property_of(metric.name if cell.kind == "population" else sub_score)
    return {
        "study": cell.study,
        "scenario": scenario.name,
        "parameter": scenario.parameter,
        "criterion": scenario.criterion,
        "value": float(cell.value_index) if isinstance(cell.value, str) else float(cell.value),
        "value_label": scenario.label(cell.value),
        "sweep": cell.sweep or scenario.name,
        "parameters": encode_options(swept_parameters(scenario, cell.value, cell.n_samples, cell.sweep_axis)),
        "seed": cell.seed,
        "n_samples": int(n_samples),
        "metric": metric.name,
        "metric_base": metric.variant_of or metric.name,
        "options": encode_options(metric.variant_options),
        "default_options": encode_options(option_defaults(metric)),
        "family": metric.family,
        "sub_score": sub_score,
        "property": prop,
        "higher_is_better": metric.higher_is_better_for(sub_score),
        "ideal": float(ideal),
        **{column: float((scenario_ideals or {}).get(prop, math.nan))
           for column, prop in zip(SCENARIO_IDEAL_COLUMNS, IDEAL_PROPERTIES)},
        "score": float(score),
        "exact": float(exact),
        "seconds": float(seconds),
        "null_mean": float(null["null_mean"]),
        "null_q95": float(null["null_q95"]),
        "p_value": float(null["p_value"]),
        "null_permutations": int(null["null_permutations"]),
        "null_seconds": float(null["null_seconds"]),
        "warnings": int(warnings[0]),
        "first_warning": warnings[1],
        "metric_version": metric.version,
        "harness_version": __version__,
    }


def closed_form_values(metric: MetricEntry, exact: Mapping[str, Any], discrete: Any) -> Mapping[str, float]:
    """The metric's closed-form sub-scores for a scenario's ``exact`` quantities, with the cell's options.

    Only a registered metric can state them (:meth:`metrics.MetricSpec.exact_scores`); a
    user's metric, or a scenario without closed forms, gets an empty mapping.
    """
    if not metric.registered or metric.population or not exact:
        return {}
    return metrics.get(metric.target).exact_scores(exact, discrete, **metric.options)


def registered_option_defaults(metric: str) -> Mapping[str, Any] | None:
    """A registered metric's default options; None for a name the registry does not know (a user's metric)."""
    return metrics.get(metric).defaults if metric in metrics.available(population=None) else None


#: Keyword parameters of a metric function that are no options: the data's description and the random state.
NOT_OPTIONS = ("discrete", "random_state")


@functools.cache
def _signature_defaults(target: str) -> dict[str, Any]:
    """The keyword defaults of a user's metric function (its parameters with a default value)."""
    parameters = inspect.signature(load_callable(target)).parameters.values()
    return {parameter.name: parameter.default for parameter in parameters
            if parameter.default is not inspect.Parameter.empty}


def at_defaults(metric: MetricEntry) -> bool:
    """Whether ``metric`` runs at its defaults: no variant, or the variant of a sweep that sets every swept option to
    its default value (the variant that stands for the metric in the report's verdicts, by the report's own rule,
    :func:`reports.results.options.options_off_defaults`)."""
    return not options_off_defaults(metric.variant_options, option_defaults(metric))


def option_defaults(metric: MetricEntry) -> dict[str, Any]:
    """A variant's record of its metric's options: the default value of every option the metric takes (a registered
    metric's registered defaults, a user function's keyword defaults), so that a report knows the options a swept
    metric has (:mod:`reports.analyses.hyperparameters`: one without a discretisation option is discretization-free by
    design) and which variant is at the defaults; empty for no variant."""
    if not metric.variant_options:
        return {}
    known = metrics.get(metric.target).defaults if metric.registered else _signature_defaults(metric.target)
    return {option: value for option, value in known.items() if option not in NOT_OPTIONS}
