"""The results-table schema: written once, imported by the harness (the writer) and the reports (the reader).

A results table is tidy: one row per (study, scenario, value, seed, n_samples, metric,
sub_score).  This module holds only names and plain constants (it imports neither pandas nor
matplotlib), so the harness's run workers can import it without paying for the plotting stack.
The properties are the metric contract's (:data:`metrics.registry.SCORE_PROPERTIES`), the criteria the
scenario contract's (:data:`scenarios.base.CRITERIA`).

Columns
-------
study
    The preset or study name.
scenario, parameter, value, value_label
    The swept parameter; ``value`` is numeric (a categorical parameter's index in the grid),
    ``value_label`` the value as written.
criterion
    The criterion the scenario declares it tests (one of :data:`CRITERIA`), or ``""`` when it
    tests none beyond the property trajectories (e.g. ``mixing``).  Reports decide what a
    scenario measures from this column, never from the scenario's name.
seed, n_samples
    Seed index and number of samples.
metric, family, sub_score, property, higher_is_better
    What was measured; ``property`` is one of :data:`SCORE_PROPERTIES`.  ``metric`` is the display name,
    a variant of an option sweep's included (``mig[bins=5]``): a label, never parsed.
metric_base
    The metric the row's variant is of (``mig`` for ``mig[bins=5]``); the same as ``metric`` for a
    metric run without a sweep.
options, default_options
    The options a variant of an option sweep sets, and the metric's default value of each of them, as
    canonical JSON objects (:func:`encode_options`: keys sorted, compact): ``{"bins":5}`` and
    ``{"bins":10}``.  ``{}`` and ``{}`` for a metric run at its defaults.  An option missing from
    ``default_options`` has no known default (a user's function whose parameter has none).  JSON keeps
    each value's type (5, 0.1, "knn", true, null) through Parquet and CSV; :mod:`reports.options` expands
    the objects into one column per option.  The same encoding serves any mapping a row is parameterised
    by (benchopt's way of storing parameters: data, never parsed out of a name).  A table written before
    these columns gets them from its ``metric`` names once, when it is loaded
    (:func:`reports.options.with_option_columns`).
ideal
    The scenario's ideal value of that property at that value (NaN where it states none).
score, seconds
    The (always finite) score and the seconds of the metric call.
exact
    The sub-score's closed-form value, where the scenario knows its information quantities
    exactly (the Gaussian toy model) and the metric states its sub-score from them
    (``register_metric(closed_form=...)``); NaN elsewhere, and in tables written before it.
warnings, first_warning
    How many Python warnings the metric call raised, and the first one's text (``""`` if none).
metric_version, harness_version
    What produced the row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from metrics.registry import SCORE_PROPERTIES
from scenarios.base import (
    CRITERIA,
    IDEAL_PROPERTIES,  # a scenario states ideals for these (holistic has none)
)

__all__ = ["CRITERIA", "DERIVED_COLUMNS", "FAILURE_COLUMNS", "IDEAL_PROPERTIES", "OPTIONAL_COLUMN_DEFAULTS", "SCORE_PROPERTIES",
           "RESULT_COLUMNS", "TEXT_COLUMNS", "decode_options", "encode_options"]

#: Column order of the tidy results table.
RESULT_COLUMNS = (
    "study",
    "scenario",
    "parameter",
    "criterion",
    "value",
    "value_label",
    "seed",
    "n_samples",
    "metric",
    "metric_base",
    "options",
    "default_options",
    "family",
    "sub_score",
    "property",
    "higher_is_better",
    "ideal",
    "score",
    "exact",
    "seconds",
    "warnings",
    "first_warning",
    "metric_version",
    "harness_version",
)

#: Columns added after the first release, with the value a table written before them gets.
OPTIONAL_COLUMN_DEFAULTS = {"criterion": "", "exact": float("nan"), "warnings": 0, "first_warning": ""}

#: Columns added after the first release that a table written before them gets from its other columns
#: (:func:`reports.options.with_option_columns`), not from a constant.
DERIVED_COLUMNS = ("metric_base", "options", "default_options")

#: Columns holding text (read from CSV as strings, never as numbers or NaN).
TEXT_COLUMNS = (
    "study",
    "scenario",
    "parameter",
    "criterion",
    "value_label",
    "metric",
    "metric_base",
    "options",
    "default_options",
    "family",
    "sub_score",
    "property",
    "first_warning",
    "metric_version",
    "harness_version",
)

#: Columns of ``failures.csv``: which cell failed and why.
FAILURE_COLUMNS = ("scenario", "value_label", "seed", "n_samples", "metric", "error")


def encode_options(options: Mapping[str, Any]) -> str:
    """A mapping of option (or parameter) names to values as the table stores it: canonical JSON, keys sorted,
    no spaces (``{"bins":5,"estimator":"knn"}``), so that equal mappings are equal texts.

    A value JSON cannot hold (a tuple is written as a list) is written as its ``repr``.
    """
    return json.dumps(dict(options), sort_keys=True, separators=(",", ":"), default=repr)


def decode_options(text: str) -> dict[str, Any]:
    """The mapping :func:`encode_options` wrote (``{}`` for an empty text)."""
    return json.loads(text) if text else {}
