"""One results row: the single place where the tidy table's columns are filled in."""

from __future__ import annotations

from typing import Any, Mapping

import metrics
from harness.execution.metric_refs import MetricEntry
from harness.execution.plan import Cell
from harness.version import __version__


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
    none is known.
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
