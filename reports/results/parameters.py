"""Parameters as data: the ``sweep`` and ``parameters`` columns of a results table.

Every row names the sweep it belongs to and carries every value it sweeps as a JSON object
(:func:`reports.results.schema.encode_options`, the encoding of the option columns): ``{"alpha":0.2}`` along a
one-parameter sweep, ``{"base.rho":0.5,"kappa":10.0}`` or ``{"n_samples":50,"width_ratio":2.0}`` in a
two-parameter sweep (:mod:`harness.execution.sweeps`).  The reports read these columns, never the scenarios'
names: :func:`parameter_columns` expands them, :func:`two_parameter_sweeps` finds the phase diagrams' sweeps.
A table written before the columns gets them from its ``scenario``, ``parameter`` and ``value_label`` once, when
it is loaded (:func:`with_parameter_columns`): every sweep of such a table has one parameter.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reports.results.options import option_columns, with_empty_columns
from reports.results.schema import PARAMETER_COLUMNS, decode_options, encode_options

#: The prefix of a parameter's column in :func:`parameter_columns`'s table.
PREFIX = "parameter:"


def _read_back(label: str) -> Any:
    """A value as ``value_label`` wrote it, read back: a number where it reads as one, the text otherwise."""
    try:
        return float(label)
    except ValueError:
        return label


def with_parameter_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``sweep`` and ``parameters`` filled on every row that lacks them.

    Such a row was written before the columns existed: its sweep is its scenario and its one swept value its
    ``parameter`` at ``value_label`` (a number where the label reads as one, the text of a categorical value).

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself when no row lacks the columns, else a copy with them filled.
    """
    frame, lacking = with_empty_columns(frame, PARAMETER_COLUMNS)
    if not lacking.any():
        return frame
    old = frame.loc[lacking, ["scenario", "parameter", "value_label"]].astype(str)
    frame.loc[lacking, "sweep"] = old["scenario"]
    encoded = {pair: encode_options({pair[0]: _read_back(pair[1])})
               for pair in zip(old["parameter"], old["value_label"])}
    frame.loc[lacking, "parameters"] = [encoded[pair] for pair in zip(old["parameter"], old["value_label"])]
    return frame


def parameter_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """The ``parameters`` column expanded into one column per parameter, named ``parameter:<name>``
    (``parameter:kappa``, ``parameter:base.rho``, ``parameter:n_samples``); NaN where a row does not sweep it.
    Rows keep ``frame``'s index."""
    return option_columns(frame["parameters"], prefix=PREFIX)


@dataclass(frozen=True)
class TwoParameterSweep:
    """A sweep of two parameters found in a results table.

    Attributes
    ----------
    sweep : str
        Its name (the rows' ``sweep``).
    x : str
        The scenarios' own parameter (the rows' ``parameter``): the phase diagram's horizontal axis.
    y : str
        The other swept parameter (``base.rho``, ``n_samples``): the vertical axis.
    """

    sweep: str
    x: str
    y: str


def two_parameter_sweeps(frame: pd.DataFrame) -> list[TwoParameterSweep]:
    """The sweeps of ``frame`` whose rows sweep two parameters, sorted by name.

    Raises
    ------
    ValueError
        For a sweep whose rows do not all sweep the same two parameters (a table mixing incompatible runs).
    """
    pairs = frame[["sweep", "parameter", "parameters"]].drop_duplicates()
    found: dict[str, set[tuple[str, str]]] = {}
    for sweep, parameter, text in pairs.itertuples(index=False):
        names = list(decode_options(text))
        if len(names) == 2 and parameter in names:
            found.setdefault(sweep, set()).add((parameter, next(name for name in names if name != parameter)))
    sweeps = []
    for sweep, axes in sorted(found.items()):
        if len(axes) != 1:
            raise ValueError(f"the rows of sweep {sweep!r} sweep different parameters: {sorted(axes)}")
        (x, y), = axes
        sweeps.append(TwoParameterSweep(sweep, x, y))
    return sweeps


def sweep_rows(frame: pd.DataFrame, sweep: TwoParameterSweep) -> pd.DataFrame:
    """The rows of ``sweep`` with its two axes as columns ``x`` and ``y`` (numbers; a categorical value's text is
    kept, with ``x_label`` and ``y_label`` the values as written)."""
    rows = frame.loc[frame["sweep"] == sweep.sweep]
    values = parameter_columns(rows)
    x, y = values[PREFIX + sweep.x], values[PREFIX + sweep.y]
    return rows.assign(x=x, y=y, x_label=x.map(value_text), y_label=y.map(value_text))


def value_text(value: Any) -> str:
    """A swept value as axes and tables write it: ``0.5``, ``1000``, ``cos_sin``."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return f"{float(value) + 0.0:g}"
    return str(value)
