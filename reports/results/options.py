"""Options as data: the ``metric_base``, ``options`` and ``default_options`` columns of a results table.

A variant of an option sweep is a row whose ``metric`` (its display name, ``mig[bins=5]``) differs from
its ``metric_base`` (``mig``); the options it sets and their defaults are JSON objects in their own
columns (:func:`reports.results.schema.encode_options`).  The reports read these columns, never the names.
The one exception is a table written before the columns existed: :func:`with_option_columns` derives
them from its names once, when the table is loaded.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from reports.results.schema import OPTION_COLUMNS, decode_options, encode_options

#: What an option-sweep variant's name looked like in a table written before the option columns:
#: ``NAME[OPTION=VALUE,...]`` (read only by :func:`with_option_columns`).
_LEGACY_VARIANT = re.compile(r"(?P<metric>[^\[\]]+)\[(?P<options>[^\[\]]+)\]")
#: How a value was written in a variant's name, read back (``True`` -> True, ``5`` -> 5, ``0.1`` -> 0.1).
_WORDS = {"True": True, "False": False, "None": None}

OptionDefaults = Callable[[str], "Mapping[str, Any] | None"]
"""Metric name -> its default options, or None when unknown."""


def _typed(text: str) -> Any:
    """An option value read back from a name: a boolean or None, a whole number, another number, or the text."""
    if text in _WORDS:
        return _WORDS[text]
    try:
        number = float(text)
    except ValueError:
        return text
    return int(text) if text.lstrip("-").isdigit() else number


def _legacy_columns(name: str, option_defaults: OptionDefaults | None) -> tuple[str, str, str]:
    """``metric_base``, ``options`` and ``default_options`` of a metric name written before those columns."""
    match = _LEGACY_VARIANT.fullmatch(name)
    pairs = [part.split("=", 1) for part in match["options"].split(",") if "=" in part] if match else []
    if not pairs:
        return name, encode_options({}), encode_options({})
    options = {option: _typed(text) for option, text in pairs}
    known = (option_defaults(match["metric"]) if option_defaults is not None else None) or {}
    return match["metric"], encode_options(options), encode_options(known)


def with_empty_columns(frame: pd.DataFrame, columns: tuple[str, ...]) -> tuple[pd.DataFrame, pd.Series]:
    """``frame`` with ``columns`` added empty (``""``) where it has none, and which rows lack them: every row when
    one is missing, else the rows whose first column is empty or null (rows of a table written before them).

    Returns
    -------
    (pandas.DataFrame, pandas.Series)
        ``frame`` itself when no row lacks the columns, else a copy with the missing ones added; the boolean mask.
    """
    missing = [column for column in columns if column not in frame.columns]
    lacking = (pd.Series(True, index=frame.index) if missing
               else frame[columns[0]].isna() | frame[columns[0]].astype(str).eq(""))
    if not lacking.any():
        return frame, lacking
    frame = frame.copy()
    for column in missing:
        frame[column] = ""
    return frame, lacking


def with_option_columns(frame: pd.DataFrame, option_defaults: OptionDefaults | None = None) -> pd.DataFrame:
    """``frame`` with ``metric_base``, ``options`` and ``default_options`` filled on every row that lacks them.

    A row written before these columns existed gets them from its ``metric`` name: ``mig[bins=5]`` is
    the variant of ``mig`` setting ``{"bins":5}`` (values read back as numbers, booleans, None or text).
    Its defaults are not in such a table: ``option_defaults`` (metric -> default options, or None) gives
    them where the caller knows them (the harness passes the registry's); without it they are unknown
    (``{}``), and a sweep's default variant cannot be told apart.

    Parameters
    ----------
    frame : pandas.DataFrame
        A results table; the columns may be missing, or empty (``""``) on some rows.
    option_defaults : callable, optional
        Metric name -> its default options (None when unknown), for the rows derived here.

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself when no row lacks the columns, else a copy with them filled.
    """
    frame, lacking = with_empty_columns(frame, OPTION_COLUMNS)
    if not lacking.any():
        return frame
    derived = {name: _legacy_columns(name, option_defaults) for name in frame.loc[lacking, "metric"].astype(str).unique()}
    names = frame.loc[lacking, "metric"].astype(str)
    for position, column in enumerate(OPTION_COLUMNS):
        frame.loc[lacking, column] = names.map(lambda name, at=position: derived[name][at])
    return frame


def is_variant(frame: pd.DataFrame) -> pd.Series:
    """Which rows are variants of an option sweep (their ``metric`` is not their ``metric_base``)."""
    return frame["metric"] != frame["metric_base"]


def option_columns(texts: pd.Series, prefix: str = "option:", *,
                   convert: Callable[[Any], Any] | None = None) -> pd.DataFrame:
    """JSON objects (a column such as ``options``) expanded into one column per key, named ``prefix + key``.

    Values keep their types (5, 0.1, "knn", True, None), or become ``convert(value)`` (NaN stays NaN); a key a row
    does not set is NaN there.  Rows keep ``texts``'s index, so the result can be joined to its table.  Each distinct
    text is decoded, and converted, once, then spread over its rows (a racing look expanded the 14000 variant rows of
    the default study's table eleven times, a Python call per row and key: 40% of the look).
    """
    codes, uniques = pd.factorize(texts, use_na_sentinel=False)
    decoded = [decode_options(text) for text in uniques]
    keys = list(dict.fromkeys(key for options in decoded for key in options))
    columns = {}
    for key in keys:
        values = pd.Series([options.get(key, np.nan) for options in decoded])  # typed as a column of rows would be
        if convert is not None:
            values = values.map(convert, na_action="ignore")
        columns[f"{prefix}{key}"] = values.take(codes).set_axis(texts.index)
    return pd.DataFrame(columns, index=texts.index)


def option_text(value: Any) -> str:
    """An option value as a variant's name writes it: ``5``, ``0.1``, ``knn``, ``True``."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _same(value: Any, default: Any) -> bool:
    """Whether an option value equals its default: numbers by value (10 and 10.0), booleans only as booleans."""
    if isinstance(value, bool) or isinstance(default, bool):
        return isinstance(value, bool) and isinstance(default, bool) and value == default
    if isinstance(value, (int, float)) and isinstance(default, (int, float)):
        return float(value) == float(default)
    return value == default


def options_off_defaults(chosen: Mapping[str, Any], known: Mapping[str, Any]) -> frozenset[str]:
    """The options of ``chosen`` set to a value other than their default in ``known`` (one without a default counts
    as off it)."""
    return frozenset(key for key, value in chosen.items() if key not in known or not _same(value, known[key]))


def off_defaults(frame: pd.DataFrame) -> pd.Series:
    """Per row, the options it sets to a value other than their default (an option without a recorded default
    counts as off it); an empty set on plain rows."""
    pairs = frame[["options", "default_options"]].drop_duplicates()
    off = {}
    for options, defaults in pairs.itertuples(index=False):
        off[(options, defaults)] = options_off_defaults(decode_options(options), decode_options(defaults))
    return pd.Series(list(zip(frame["options"], frame["default_options"])), index=frame.index).map(off)


def at_defaults(frame: pd.DataFrame) -> pd.Series:
    """Which variant rows set every option to its default (False where a default is unknown, and on plain rows)."""
    return is_variant(frame) & (frame["options"] != encode_options({})) & off_defaults(frame).map(len).eq(0)
