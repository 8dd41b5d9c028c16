"""One results row: the single place where the tidy table's columns are filled in."""

from __future__ import annotations

from typing import Any

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
) -> dict[str, Any]:
    """A row with every column of :data:`reports.schema.RESULT_COLUMNS`.

    ``value`` is written as a float; a categorical value is written as its index in the
    scenario's grid, its text going to ``value_label``.  ``n_samples`` is the number of
    rows the metric saw (the sample-size sweep scores prefixes of a larger draw).
    ``warnings`` is the number of warnings the metric call raised and the first one's text.
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
        "seconds": float(seconds),
        "warnings": int(warnings[0]),
        "first_warning": warnings[1],
        "metric_version": metric.version,
        "harness_version": __version__,
    }
