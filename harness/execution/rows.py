"""One results row: the single place where the tidy table's columns are filled in."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Any

import metrics
from harness.execution.metric_refs import MetricEntry, load_callable
from harness.execution.plan import Cell
from harness.version import __version__
from reports.schema import encode_options


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
) -> dict[str, Any]:
    """A row with every column of :data:`reports.schema.RESULT_COLUMNS`.

    ``value`` is written as a float; a categorical value is written as its index in the
    scenario's grid, its text going to ``value_label``.  ``n_samples`` is the number of
    rows the metric saw (the sample-size sweep scores prefixes of a larger draw).
    ``warnings`` is the number of warnings the metric call raised and the first one's text.
    ``exact`` is the sub-score's closed-form value (:func:`closed_form_values`), NaN where
    none is known.  ``metric_base``, ``options`` and ``default_options`` say which metric a
    variant of an option sweep is of, the options it sets and their defaults (:func:`option_defaults`).
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
        "score": float(score),
        "exact": float(exact),
        "seconds": float(seconds),
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


@functools.cache
def _signature_defaults(target: str) -> dict[str, Any]:
    """The keyword defaults of a user's metric function (its parameters with a default value)."""
    parameters = inspect.signature(load_callable(target)).parameters.values()
    return {parameter.name: parameter.default for parameter in parameters
            if parameter.default is not inspect.Parameter.empty}


def option_defaults(metric: MetricEntry) -> dict[str, Any]:
    """The default value of each option a variant sets (:attr:`MetricEntry.variant_options`), where the metric has
    one: a registered metric's registered defaults, a user function's keyword defaults; empty for no variant."""
    if not metric.variant_options:
        return {}
    known = metrics.get(metric.target).defaults if metric.registered else _signature_defaults(metric.target)
    return {option: known[option] for option in metric.variant_options if option in known}
