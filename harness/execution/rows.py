"""One results row: the single place where the tidy table's columns are filled in."""

from __future__ import annotations

from typing import Any

from harness.execution.metric_refs import MetricEntry
from harness.version import __version__


def result_row(
    *,
    study: str,
    scenario: str,
    parameter: str,
    value: Any,
    value_index: int,
    value_label: str,
    seed: int,
    n_samples: int,
    metric: MetricEntry,
    sub_score: str,
    prop: str,
    ideal: float,
    score: float,
    seconds: float,
) -> dict[str, Any]:
    """A row with every column of :data:`harness.execution.store.COLUMNS`.

    ``value`` is written as a float; a categorical value is written as its index in the
    scenario's grid (``value_index``), its text going to ``value_label``.
    """
    return {
        "study": study,
        "scenario": scenario,
        "parameter": parameter,
        "value": float(value_index) if isinstance(value, str) else float(value),
        "value_label": value_label,
        "seed": seed,
        "n_samples": int(n_samples),
        "metric": metric.name,
        "family": metric.family,
        "sub_score": sub_score,
        "property": prop,
        "higher_is_better": metric.higher_is_better_for(sub_score),
        "ideal": float(ideal),
        "score": float(score),
        "seconds": float(seconds),
        "metric_version": metric.version,
        "harness_version": __version__,
    }
