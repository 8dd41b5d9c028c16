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
sweep, parameters
    The sweep the row belongs to and every value it sweeps, mirroring the option columns below: ``sweep`` is the
    scenario's name for a one-parameter sweep, and for a two-parameter sweep its name (``dense_mixing@equicorrelated``,
    whose slices ``dense_mixing@equicorrelated=0.5`` are the rows' scenarios; ``null_gaussian`` swept over its
    parameter and the sample size); ``parameters`` is a canonical JSON object of the swept values,
    ``{"width_ratio":2.0}`` or ``{"base.rho":0.5,"kappa":10.0}`` or ``{"n_samples":50,"width_ratio":2.0}``
    (:mod:`harness.execution.sweeps`).  ``parameter``, ``value`` and ``value_label`` stay the scenario's own
    parameter, which every analysis reads; :mod:`reports.results.parameters` expands ``parameters`` into one column per
    parameter and finds the two-parameter sweeps.  A table written before these columns gets them from
    ``scenario``, ``parameter`` and ``value_label`` once, when it is loaded
    (:func:`reports.results.parameters.with_parameter_columns`).
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
    The options a variant of an option sweep sets, and the default value of every option its metric
    takes, as canonical JSON objects (:func:`encode_options`: keys sorted, compact): ``{"bins":5}`` and
    ``{"bins":10,"normalization":"factor"}``.  ``{}`` and ``{}`` for a metric run at its defaults.  An
    option missing from ``default_options`` has no known default (a user's function whose parameter has
    none); a table written before the defaults of every option were recorded holds those of the options
    set only.  JSON keeps
    each value's type (5, 0.1, "knn", true, null) through Parquet and CSV; :mod:`reports.results.options` expands
    the objects into one column per option.  The same encoding serves any mapping a row is parameterised
    by (benchopt's way of storing parameters: data, never parsed out of a name).  A table written before
    these columns gets them from its ``metric`` names once, when it is loaded
    (:func:`reports.results.options.with_option_columns`).
ideal
    The scenario's ideal value of that property at that value (NaN where it states none).
ideal_modularity, ideal_compactness, ideal_explicitness
    The scenario's ideal value of each property at that value, whatever the row's property (NaN where it states
    none, on a population metric's rows and in tables written before them): what a holistic score, which claims all
    three, is judged against, so that its verdicts do not depend on which other metrics ran beside it
    (:func:`reports.results.table.ideal_table`).
score, seconds
    The (always finite) score and the seconds of the metric call.
null_mean, null_q95, p_value, null_permutations, null_seconds
    The score's permutation null on the same representation (the codes' rows permuted ``B`` times,
    :func:`metrics.permutation_null`): the null's mean, its 95% chance level (the 95% quantile for a
    higher-is-better sub-score, the 5% quantile for a lower-is-better one), the permutation p-value
    ``(1 + #{null at least as good}) / (B + 1)``, ``B``, and the seconds the ``B`` calls took (not counted
    in ``seconds``).  NaN, NaN, NaN, 0 and 0 where no null was computed (``run --null-permutations 0``, a
    population metric, a null that failed) and in tables written before them.
exact
    The sub-score's closed-form value, where the scenario knows its information quantities
    exactly (the Gaussian toy model) and the metric states its sub-score from them
    (``register_metric(closed_form=...)``); NaN elsewhere, and in tables written before it.
warnings, first_warning
    How many Python warnings the metric call raised, and the first one's text (``""`` if none).
looks
    How many times the run read its verdicts to decide where to add seeds (racing,
    :mod:`harness.execution.racing`); the verdicts' intervals are at level ``1 − 0.05 / looks``
    (:func:`reports.analyses.intervals.level`).  The same on every row of a run; 1 for a fixed number of seeds and in
    tables written before it.
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

__all__ = ["CRITERIA", "DERIVED_COLUMNS", "FAILURE_COLUMNS", "IDEAL_PROPERTIES", "LOOKS_COLUMN", "NULL_COLUMNS",
           "OPTIONAL_COLUMN_DEFAULTS", "OPTION_COLUMNS", "PARAMETER_COLUMNS", "SCORE_PROPERTIES",
           "RESULT_COLUMNS", "SCENARIO_IDEAL_COLUMNS", "TEXT_COLUMNS", "TIMING_COLUMNS", "decode_options",
           "encode_options"]

#: Column order of the tidy results table.
RESULT_COLUMNS = (
    "study",
    "scenario",
    "parameter",
    "criterion",
    "value",
    "value_label",
    "sweep",
    "parameters",
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
    "ideal_modularity",
    "ideal_compactness",
    "ideal_explicitness",
    "score",
    "exact",
    "seconds",
    "null_mean",
    "null_q95",
    "p_value",
    "null_permutations",
    "null_seconds",
    "warnings",
    "first_warning",
    "looks",
    "metric_version",
    "harness_version",
)

#: The columns holding the scenario's ideal of each property at a row's point, whatever the row's property.
SCENARIO_IDEAL_COLUMNS = tuple(f"ideal_{prop}" for prop in IDEAL_PROPERTIES)

#: The column saying how many looks a run's verdicts had (:func:`reports.analyses.intervals.level`).
LOOKS_COLUMN = "looks"

#: Columns added after the first release, with the value a table written before them gets.
OPTIONAL_COLUMN_DEFAULTS = {"criterion": "", "exact": float("nan"), "warnings": 0, "first_warning": "",
                            "null_mean": float("nan"), "null_q95": float("nan"), "p_value": float("nan"),
                            "null_permutations": 0, "null_seconds": 0.0, "looks": 1,
                            **dict.fromkeys(SCENARIO_IDEAL_COLUMNS, float("nan"))}

#: The columns of a score's permutation null (filled by the harness where it computes one).
NULL_COLUMNS = ("null_mean", "null_q95", "p_value", "null_permutations", "null_seconds")

#: The columns that time the computation: the only ones in which two runs of one study may differ.
TIMING_COLUMNS = ("seconds", "null_seconds")

#: Columns added after the first release that a table written before them gets from its other columns, not from a
#: constant: the option columns (:func:`reports.results.options.with_option_columns`) and the parameter columns
#: (:func:`reports.results.parameters.with_parameter_columns`).
OPTION_COLUMNS = ("metric_base", "options", "default_options")
PARAMETER_COLUMNS = ("sweep", "parameters")
DERIVED_COLUMNS = OPTION_COLUMNS + PARAMETER_COLUMNS

#: Columns holding a canonical JSON object (:func:`encode_options`), or nothing.
JSON_COLUMNS = ("parameters", "options", "default_options")

#: Columns holding text (read from CSV as strings, never as numbers or NaN).
TEXT_COLUMNS = (
    "study",
    "scenario",
    "parameter",
    "criterion",
    "value_label",
    "sweep",
    "parameters",
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
