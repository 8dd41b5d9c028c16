"""A stress search's result as the plain tables :mod:`reports.stress` renders and writes.

The search works with :class:`~harness.workflows.stress_result.StressResult`; the report
reads only tables and mappings of plain values (:class:`reports.stress.StressTables`).
:func:`stress_tables` converts one into the other, computing here what needs the
scenarios: where each measured value sits on the worst case's parameter axis, and the
ideal curve across the parameter's whole range (:func:`~harness.workflows.stress_space.ideal_at`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from harness.workflows.stress_result import StressResult
from harness.workflows.stress_space import CHOICE, ParameterRange, ideal_at, parameter_range
from reports.stress import CASE_COLUMNS, CONTRAST_COLUMNS, StressTables
from scenarios.base import ParameterValue

#: Values at which the ideal curve of a numeric parameter is computed.
IDEAL_CURVE_POINTS = 201


def stress_tables(result: StressResult) -> StressTables:
    """The tables of ``result``: summary, measurements, cases, contrast, and the worst case's curves."""
    summary = {"metric": result.entry.name, "reference": result.reference, "settings": result.settings,
               "cells": result.cells, "failed_cells": result.failed, "seconds": result.seconds, "notes": list(result.notes)}
    rows = [{**case.measurement.record(), "scores": tuple(case.measurement.scores), "command": case.command}
            for case in result.cases]
    cases = pd.DataFrame(rows) if rows else pd.DataFrame(columns=list(CASE_COLUMNS))
    contrasts = [case.contrast.assign(case=rank) for rank, case in enumerate(result.cases, start=1)
                 if not case.contrast.empty]
    contrast = (pd.concat(contrasts, ignore_index=True)[list(CONTRAST_COLUMNS)] if contrasts
                else pd.DataFrame(columns=list(CONTRAST_COLUMNS)))
    measurements = result.table(confirmations=True)
    if not result.cases:
        return StressTables(summary, measurements, cases, contrast, pd.DataFrame(), pd.DataFrame())
    worst = result.cases[0].measurement
    space = parameter_range(worst.point.scenario)
    along = pd.DataFrame([{"position": _position(space, m.point.value), "score": float(m.oriented.mean()),
                           "half_width": m.half_width, "worst": m.point == worst.point}
                          for m in result.measurements if m.point.scenario == worst.point.scenario
                          and m.point.n_samples == worst.point.n_samples and m.sub_score == worst.sub_score])
    return StressTables(summary, measurements, cases, contrast, along, _ideal_curve(space, worst.property),
                        ticks=tuple(map(str, space.choices)) if space.kind == CHOICE else ())


def _position(space: ParameterRange, value: ParameterValue) -> float:
    """Where ``value`` sits on the figure's x axis: itself, or its index among the choices."""
    return float(space.choices.index(value)) if space.kind == CHOICE else float(value)


def _ideal_curve(space: ParameterRange, prop: str) -> pd.DataFrame:
    """The ideal of ``prop`` across the whole range (every choice, or :data:`IDEAL_CURVE_POINTS` values)."""
    if space.kind == CHOICE:
        values = list(space.choices)
    else:
        values = list(dict.fromkeys(space.value(x) for x in np.linspace(space.low, space.high, IDEAL_CURVE_POINTS)))
    return pd.DataFrame({"position": [_position(space, value) for value in values],
                         "ideal": [ideal_at(space.scenario, value).get(prop, np.nan) for value in values]})
