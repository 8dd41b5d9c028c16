"""The results-table contract as the reports read it, and the helpers every analysis shares.

The harness writes one row per (study, scenario, value, seed, n_samples, metric,
sub_score).  This module checks that contract once (:func:`check_results`), and holds
the small pieces of logic that several analyses need: keeping the largest sample size
of a scenario, orienting scores so that higher is better, summarising over seeds, and
the table of ideal values per scenario, value and property.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from metrics.registry import SCORE_PROPERTIES
from reports.results.options import OptionDefaults, with_option_columns
from reports.results.parameters import with_parameter_columns
from reports.results.schema import (
    CRITERIA,
    DERIVED_COLUMNS,
    IDEAL_PROPERTIES,
    JSON_COLUMNS,
    OPTIONAL_COLUMN_DEFAULTS,
    RESULT_COLUMNS,
    SCENARIO_IDEAL_COLUMNS,
    TEXT_COLUMNS,
    decode_options,
)

#: Order of the families in tables and figure facets; unknown families follow, sorted.
FAMILY_ORDER = ("intervention", "predictor", "information", "unsupervised", "custom")

_REPRESENTATION = ["study", "scenario", "value", "seed", "n_samples"]
#: Tolerance under which two ideal values count as equal.
_IDEAL_TOLERANCE = 1e-9


class MissingDataError(ValueError):
    """An analysis cannot run because the results lack what it needs; the message says what."""


def check_results(results: pd.DataFrame, *, allow_empty: bool = False,
                  option_defaults: OptionDefaults | None = None) -> pd.DataFrame:
    """Validate a results table and return a normalised copy.

    Parameters
    ----------
    results : pandas.DataFrame
        The tidy results table (columns: :data:`reports.results.schema.RESULT_COLUMNS`).  A table
        written before a column of :data:`reports.results.schema.OPTIONAL_COLUMN_DEFAULTS` existed
        gets that column filled with its default; one written before the option columns
        (:data:`reports.results.schema.DERIVED_COLUMNS`) gets them from its metric names
        (:func:`reports.results.options.with_option_columns`), and the parameter columns from its scenario and value
        (:func:`reports.results.parameters.with_parameter_columns`).
    allow_empty : bool, default False
        Accept a table with the columns but no rows (a run whose every cell failed), for a
        reader that has something to say about it (``baseline check``); a report has not.
    option_defaults : callable, optional
        Metric name -> its default options, for a table written before the option columns
        (which does not hold them); see :func:`reports.results.options.with_option_columns`.

    Returns
    -------
    pandas.DataFrame
        A copy with canonical dtypes: text columns as ``str``, ``value``, ``ideal``,
        ``score``, ``seconds`` and the null's columns as float64, ``seed``, ``n_samples``, ``warnings`` and
        ``null_permutations`` as int64,
        ``higher_is_better`` as bool.  ``attrs["filled_columns"]`` lists the optional
        columns the table lacked and that were filled with their defaults (absent when it lacked none); no
        other attribute of ``results`` is kept.

    Raises
    ------
    TypeError
        When ``results`` is not a DataFrame.
    ValueError
        When the table is empty (unless ``allow_empty``), lacks required columns, has an
        unknown property or criterion, an unreadable boolean, or a cell out of its column's
        range, checked column by column: text in a number column; a non-finite score, value or
        seconds; negative seconds; a seed, sample size, warning count or number of
        permutations that is not a whole number (at least 1 for the sample size, 0 for the
        others); a p-value outside [0, 1]; a non-finite null mean, chance level or p-value
        where a null was computed; an ``options``, ``default_options`` or ``parameters``
        cell that is not a JSON object.  The message is one line naming the column, how
        many cells are wrong, and the first one's row (its 1-based position in the table,
        metric, scenario, value and seed) and content.
    """
    if not isinstance(results, pd.DataFrame):
        raise TypeError(f"results must be a pandas DataFrame, got {type(results).__name__}")
    missing = [column for column in RESULT_COLUMNS if column not in results.columns
               and column not in OPTIONAL_COLUMN_DEFAULTS and column not in DERIVED_COLUMNS]
    if missing:
        raise ValueError(f"results table lacks required columns: {', '.join(missing)}")
    if results.empty and not allow_empty:
        raise ValueError("results table is empty: there is nothing to report")
    frame = results.copy()
    for column in JSON_COLUMNS:
        if column in frame.columns:
            _check_json_objects(frame, column)
    filled = set(results.attrs.get("filled_columns", ()))
    for column, default in OPTIONAL_COLUMN_DEFAULTS.items():
        if column not in frame.columns:
            frame[column] = default
            filled.add(column)
    filled.update(column for column in DERIVED_COLUMNS if column not in frame.columns)
    frame = with_parameter_columns(with_option_columns(frame, option_defaults))
    # only where a column was filled, and nothing else (a run's failure records, say): pandas deep-copies a frame's
    # attrs into every frame and column derived from it (about a tenth of the verdicts' time on a small table), and a
    # table the harness writes has every column
    frame.attrs = {"filled_columns": sorted(filled)} if filled else {}
    for column in TEXT_COLUMNS:
        if not _is_text(frame[column]):
            frame[column] = frame[column].fillna("").astype(str)
    for column in _REAL_COLUMNS:
        if frame[column].dtype != np.float64:
            frame[column] = _numbers(frame, column)
    for column in _WHOLE_COLUMNS:
        if frame[column].dtype not in (np.int64, np.float64):  # numbers already (whole ones need no NaN filled)
            frame[column] = _numbers(frame, column)
    for column, empty in (("warnings", 0), ("null_permutations", 0), ("looks", 1)):  # a table written before them
        if frame[column].hasnans:
            frame[column] = frame[column].fillna(empty)
    _check_numbers(frame)
    for column in _WHOLE_COLUMNS:
        if frame[column].dtype != np.int64:
            frame[column] = frame[column].astype(np.int64)
    if frame["higher_is_better"].dtype != bool:
        frame["higher_is_better"] = _as_bool(frame["higher_is_better"])
    _refuse_repeated_rows(frame)
    unknown = sorted(set(frame["property"].unique()) - set(SCORE_PROPERTIES))
    if unknown:
        raise ValueError(f"results column 'property' has unknown values {unknown}; expected some of {SCORE_PROPERTIES}")
    unknown = sorted(set(frame["criterion"].unique()) - set(CRITERIA) - {""})
    if unknown:
        raise ValueError(f"results column 'criterion' has unknown values {unknown}; expected some of {CRITERIA} or ''")
    return frame


#: What a results row is the score of: one row each (a two-parameter sweep's slice is a scenario of its own).
ROW_IDENTITY = ("scenario", "value_label", "seed", "n_samples", "metric", "sub_score")


def _refuse_repeated_rows(frame: pd.DataFrame) -> None:
    """Refuse rows scoring the same cell and sub-score as an earlier row: each would be counted as a seed of its own,
    a mean's interval drawn narrower than its seeds give and the seeds over-counted (two runs' tables concatenated
    for a figure, where both ran the same cells)."""
    # rows of two metrics of one name (another family or version: the harness names them, as a clash of names) are
    # not repeats of one another
    identity = [*ROW_IDENTITY, "family", "metric_version"]
    repeated = frame.duplicated(identity).to_numpy()
    if not repeated.any():
        return
    position = int(np.flatnonzero(repeated)[0])
    first = int(np.flatnonzero((frame[identity] == frame[identity].iloc[position]).all(axis=1))[0])
    row = frame.iloc[position]
    raise ValueError(
        f"results table repeats {int(repeated.sum())} row(s) of a cell it already holds (first: row {position + 1}, "
        f"metric {row['metric']!r}/{row['sub_score']!r}, scenario {row['scenario']!r}, value {str(row['value_label'])!r}, "
        f"seed {row['seed']}, n = {row['n_samples']}, as row {first + 1}): each would count as a seed of its own; a "
        f"table of several runs should keep one row of each cell, e.g. "
        f"frame.drop_duplicates(subset={list(ROW_IDENTITY)})")


#: The columns of real numbers: empty (NaN) allowed only where :func:`_check_numbers` allows it.
_REAL_COLUMNS = ("value", "ideal", *SCENARIO_IDEAL_COLUMNS, "exact", "score", "seconds", "null_mean", "null_q95", "p_value", "null_seconds")
#: The columns of whole numbers, with the least value each may hold.
_WHOLE_COLUMNS = {"seed": 0, "n_samples": 1, "warnings": 0, "null_permutations": 0, "looks": 1}
#: The texts of an empty number cell (how pandas writes NaN in a CSV, and the spellings it reads as NaN).
_EMPTY_TEXTS = frozenset({"", "nan", "none", "null", "na", "n/a"})


def _refuse(frame: pd.DataFrame, column: str, bad: Any, problem: str, expected: str,
            values: pd.Series | None = None) -> None:
    """Raise a one-line :class:`ValueError` naming ``column``, how many of its cells are ``bad`` (a boolean mask), and
    the first one's row: its 1-based position in the table (line ``row + 1`` of a CSV, after the header), metric,
    scenario, value and seed, and its content in ``values`` (the column as read, before any conversion; ``frame``'s
    column by default, looked up only to say so); nothing when none is."""
    bad = np.asarray(bad, dtype=bool)
    if not bad.any():
        return
    values = frame[column] if values is None else values
    position = int(np.flatnonzero(bad)[0])
    row = frame.iloc[position]
    count = int(bad.sum())
    content = values.iloc[position]
    content = content.item() if isinstance(content, np.generic) else content  # 1.7, not np.float64(1.7)
    raise ValueError(
        f"results column {column!r} has {count} {problem} entr{'y' if count == 1 else 'ies'} (first: row {position + 1}, "
        f"metric {row['metric']!r}, scenario {row['scenario']!r}, value {str(row['value_label'])!r}, seed {row['seed']}: "
        f"{content!r}); expected {expected}"
    )


def _check_json_objects(frame: pd.DataFrame, column: str) -> None:
    """Refuse a cell of ``column`` (one of :data:`reports.results.schema.JSON_COLUMNS`) that is neither empty nor a JSON
    object (:func:`reports.results.schema.decode_options` reads them); each distinct text is parsed once."""
    texts = frame[column] if _is_text(frame[column]) else frame[column].fillna("").astype(str)
    unreadable = [text for text in texts.unique() if not _is_json_object(text)]
    if unreadable:
        _refuse(frame, column, texts.isin(unreadable).to_numpy(dtype=bool), "unreadable",
                'a JSON object such as {"bins":5} (or an empty cell)', texts)


def _is_json_object(text: str) -> bool:
    """Whether ``text`` reads as a JSON object, or is empty (:func:`reports.results.schema.decode_options`)."""
    try:
        return isinstance(decode_options(text), dict)
    except (ValueError, RecursionError):  # json's errors derive from ValueError; brackets nested too deep
        return False


#: The type ``astype(str)`` gives a column: pandas' default text type.
_TEXT_DTYPE = pd.Series([""]).astype(str).dtype


def _is_text(column: pd.Series) -> bool:
    """Whether ``column`` is already what ``fillna("").astype(str)`` makes of it: text of the default type, no NaN."""
    return column.dtype == _TEXT_DTYPE and not column.hasnans


def _numbers(frame: pd.DataFrame, column: str) -> pd.Series:
    """``column`` as float64 (an empty cell NaN); a cell holding anything but a number is refused (:func:`_refuse`)."""
    raw = frame[column]
    numbers = pd.to_numeric(raw, errors="coerce")
    if not pd.api.types.is_numeric_dtype(raw):
        empty = raw.isna() | raw.astype(str).str.strip().str.lower().isin(_EMPTY_TEXTS)
        _refuse(frame, column, numbers.isna() & ~empty, "non-numeric", "a number", raw)
    return numbers.astype(np.float64)


def _check_numbers(frame: pd.DataFrame) -> None:
    """Refuse a number out of its column's range (:func:`_refuse`): a non-finite score, value or seconds; an infinite
    ideal or exact value; negative seconds; a seed, sample size or count that is not a whole number at least its least
    (:data:`_WHOLE_COLUMNS`); a p-value outside [0, 1]; and, where a null was computed (``null_permutations`` > 0), a
    null mean, chance level or p-value that is not finite."""
    numbers = {column: frame[column].to_numpy() for column in (*_REAL_COLUMNS, *_WHOLE_COLUMNS)}
    refuse = partial(_refuse, frame)
    for column in ("score", "value", "seconds"):
        refuse(column, ~np.isfinite(numbers[column]), "non-finite", "a finite number")
    for column in ("ideal", *SCENARIO_IDEAL_COLUMNS, "exact", "null_seconds"):
        refuse(column, np.isinf(numbers[column]), "infinite", "a finite number or an empty cell")
    for column in ("seconds", "null_seconds"):
        refuse(column, numbers[column] < 0, "negative", "a number of seconds >= 0")
    for column, least in _WHOLE_COLUMNS.items():
        whole = np.isfinite(numbers[column]) & (numbers[column] == np.floor(numbers[column]))
        refuse(column, ~whole | (numbers[column] < least), "invalid", f"a whole number >= {least}")
    p_value = numbers["p_value"]
    refuse("p_value", (p_value < 0) | (p_value > 1) | np.isinf(p_value), "out-of-range",
           "a p-value in [0, 1], or an empty cell where no null was computed")
    has_null = numbers["null_permutations"] > 0
    for column in ("null_mean", "null_q95", "p_value"):
        refuse(column, has_null & ~np.isfinite(numbers[column]), "non-finite",
               "a finite number where null_permutations > 0 (a null was computed)")


def _as_bool(column: pd.Series) -> pd.Series:
    if column.dtype == bool:
        return column
    mapping = {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}
    text = column.astype(str).str.strip().str.lower()
    unknown = sorted(set(text) - set(mapping))
    if unknown:
        raise ValueError(f"results column 'higher_is_better' must hold booleans, got {unknown[:5]}")
    return text.map(mapping).astype(bool)


def load_results(run_dir: str | Path, *, allow_empty: bool = False,
                 option_defaults: OptionDefaults | None = None) -> pd.DataFrame:
    """Read ``run_dir/results.parquet`` (or ``results.csv`` when there is no Parquet file).

    Parameters
    ----------
    run_dir : str or pathlib.Path
        A run directory written by the harness.
    allow_empty : bool, default False
        Accept a table without rows (see :func:`check_results`).
    option_defaults : callable, optional
        Metric name -> its default options, for a table written before the option columns
        (see :func:`check_results`).

    Returns
    -------
    pandas.DataFrame
        The validated table (see :func:`check_results`).

    Raises
    ------
    FileNotFoundError
        When the directory holds neither file.
    ValueError
        When the table breaks the contract (missing columns, non-finite scores, ...).
    """
    run_dir = Path(run_dir)
    parquet, csv = run_dir / "results.parquet", run_dir / "results.csv"
    if parquet.is_file():
        results = pd.read_parquet(parquet)
    elif csv.is_file():
        results = pd.read_csv(csv, dtype={column: str for column in TEXT_COLUMNS}, keep_default_na=False,
                              # the written bits (pandas >= 3.1 parses exactly)
                              na_values=dict.fromkeys(("ideal", *SCENARIO_IDEAL_COLUMNS), ["", "nan", "NaN"]))
    elif not run_dir.exists():
        raise FileNotFoundError(f"no results in {run_dir}: it does not exist (a run directory holds {parquet.name} or "
                                f"{csv.name})")
    else:
        raise FileNotFoundError(f"no results in {run_dir}: expected {parquet.name} or {csv.name}")
    return check_results(results, allow_empty=allow_empty, option_defaults=option_defaults)


def family_rank(family: str) -> str:
    """Sort key putting families in :data:`FAMILY_ORDER`, unknown ones after, by name."""
    index = FAMILY_ORDER.index(family) if family in FAMILY_ORDER else len(FAMILY_ORDER)
    return f"{index:02d} {family}"


def family_figures(table: pd.DataFrame, per_figure: int) -> list[tuple[str, str, pd.DataFrame, list[tuple]]]:
    """How a table's sub-scores are split into figures: one per family (in :func:`family_rank` order), cut into parts
    of at most ``per_figure`` sub-scores.

    Returns
    -------
    list of (family, suffix, rows, scores)
        ``suffix`` is ``""`` for a family in one figure, else ``"_1"``, ``"_2"``, ...; ``rows`` the family's rows of
        ``table``; ``scores`` its part's ``(metric, sub_score, higher_is_better)``, sorted by metric and sub-score.
    """
    figures = []
    for family in sorted(table["family"].unique(), key=family_rank):
        rows = table.loc[table["family"] == family]
        entries = rows[["metric", "sub_score", "higher_is_better"]].drop_duplicates().sort_values(["metric", "sub_score"])
        scores = [tuple(entry) for entry in entries.itertuples(index=False)]
        parts = [scores[i:i + per_figure] for i in range(0, len(scores), per_figure)]
        figures += [(family, "" if len(parts) == 1 else f"_{number}", rows, part)
                    for number, part in enumerate(parts, start=1)]
    return figures


def score_label(metric: str, sub_score: str, higher_is_better: bool = True) -> str:
    """How a sub-score is named in tables and legends: ``mig`` or ``dci_rf/modularity``, and
    ``pid/redundant_lower (1 − score)`` for a lower-is-better one, drawn and judged as 1 − score.

    A variant of an option sweep is named like its metric: ``mig[bins=5]``, not ``mig[bins=5]/mig``.
    """
    sole = sub_score == metric or metric.startswith(f"{sub_score}[")  # the metric's one score, or a variant's
    name = metric if sole else f"{metric}/{sub_score}"
    return name if higher_is_better else f"{name} (1 − score)"


def oriented(score: Any, higher_is_better: Any) -> Any:
    """A score (or an array of them) turned so that higher is better: itself, or ``1 - score`` when lower is better.

    The one orientation rule of the project: the reports, the calibration verdict and the
    chance axiom of ``validate`` (:mod:`harness.workflows.axioms`) all read a
    lower-is-better score as ``1 - score``.  The flip assumes scores normalised to [0, 1],
    as the review's metrics are (Zaidi et al. 2022, section 4); it keeps ranks for any
    range.  ``higher_is_better`` is a bool or an array of them broadcasting against
    ``score``; a float comes back for floats.
    """
    turned = np.where(higher_is_better, score, 1.0 - np.asarray(score, dtype=float))
    return float(turned) if turned.ndim == 0 else turned


def oriented_score(frame: pd.DataFrame) -> pd.Series:
    """The ``score`` column turned so that higher is better (:func:`oriented`)."""
    return pd.Series(oriented(frame["score"].to_numpy(dtype=float), frame["higher_is_better"].to_numpy(dtype=bool)),
                     index=frame.index, name="score")


def at_largest_n(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of each scenario at that scenario's largest ``n_samples``."""
    largest = frame.groupby("scenario")["n_samples"].transform("max")
    return frame.loc[frame["n_samples"] == largest]


def seed_summary(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Mean, spread and count over seeds of the oriented score, per ``keys``.

    Returns columns ``keys + [mean, std, n_seeds]``.  ``std`` is the sample standard
    deviation (ddof = 1) over seeds, and 0 when there is a single seed.
    """
    data = frame.assign(_oriented=oriented_score(frame))
    grouped = data.groupby(keys, sort=True)["_oriented"]
    summary = grouped.agg(mean="mean", std="std", n_seeds="count").reset_index()
    summary["std"] = summary["std"].fillna(0.0)
    return summary


def ideal_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The scenarios' ideal value per (scenario, value, property), holistic included.

    The ideal of modularity, compactness and explicitness is read from every row's
    :data:`~reports.results.schema.SCENARIO_IDEAL_COLUMNS` (the scenario's ideal of each property, whatever the row's
    property) and from the ``ideal`` of the rows of sub-scores measuring that property (all a table written before
    those columns holds: there a property no metric of the study measured had no ideal, and a holistic score was not
    judged against it).  A holistic score has an ideal only where the
    scenario's three ideals are all present and equal (e.g. 1 everywhere under the
    nonlinear map or partial factors); then any holistic score should reach it too.  It is read from the holistic
    rows themselves where they state it (:func:`scenarios.base.holistic_ideal`), and else from the three properties'
    ideals.

    Rows are grouped on their keys' codes with numpy (the table pandas' groupby and reshape made, bit for bit, in a
    third of the time: about 10 ms instead of 30 whatever the table's size, a fixed cost each analysis paid).

    Raises
    ------
    ValueError
        When two rows disagree on the ideal of one property at one value, which
        would mean the table mixes incompatible scenario versions.
    """
    scenario_codes, scenarios = pd.factorize(frame["scenario"], sort=True)
    value_codes, _ = pd.factorize(frame["value"].to_numpy(dtype=float), sort=True)
    located = (scenario_codes >= 0) & (value_codes >= 0)
    named = frame["property"].to_numpy(dtype=object)
    own = frame["ideal"].to_numpy(dtype=float)
    properties = sorted(IDEAL_PROPERTIES)  # in the order a groupby on the property sorts them
    # each property's stated ideals: its own rows' ideal, and every row's column of the scenario's ideal of it
    stated = [(code, (named == prop) & located, own) for code, prop in enumerate(properties)]
    stated += [(code, located, frame[f"ideal_{prop}"].to_numpy(dtype=float))
               for code, prop in enumerate(properties) if f"ideal_{prop}" in frame.columns]
    picked = [(code, np.flatnonzero(where & ~np.isnan(values)), values) for code, where, values in stated]
    rows = np.concatenate([index for _, index, _ in picked]).astype(np.intp)
    property_codes = np.concatenate([np.full(index.size, code) for code, index, _ in picked]).astype(np.int64)
    ideal = np.concatenate([values[index] for _, index, values in picked])
    sizes = (len(scenarios), int(value_codes.max(initial=-1)) + 1, len(properties))
    # the stated ideals: min and max per (scenario, value, property), sorted as a groupby sorts them
    inverse, first = _sorted_groups([scenario_codes[rows], value_codes[rows], property_codes], sizes)
    low, high = _group_extremes(inverse, first.size, ideal)
    heads, head_properties = rows[first], np.asarray(properties, dtype=object)[property_codes[first]]
    conflict = np.flatnonzero(high - low > _IDEAL_TOLERANCE)
    if conflict.size:
        at = heads[conflict[0]]
        raise ValueError(
            f"results disagree on the ideal {head_properties[conflict[0]]} of scenario {frame['scenario'].iloc[at]!r} "
            f"at value {frame['value'].iloc[at]:g} ({low[conflict[0]]:g} vs {high[conflict[0]]:g})"
        )
    ideals = frame[["scenario", "value"]].iloc[heads].reset_index(drop=True)
    ideals["property"] = pd.Series(head_properties, dtype=frame["property"].dtype)
    ideals["ideal"] = low
    # holistic: the holistic rows' own ideal per (scenario, value), else the three properties' where all are stated
    # and agree (read from modularity's)
    point_inverse, point_first = _sorted_groups([scenario_codes[heads], value_codes[heads]], sizes[:2])
    point_low, point_high = _group_extremes(point_inverse, point_first.size, low)
    modularity = np.full(point_first.size, np.nan)
    is_modularity = head_properties == "modularity"
    modularity[point_inverse[is_modularity]] = low[is_modularity]
    agreed = ((np.bincount(point_inverse, minlength=point_first.size) == len(IDEAL_PROPERTIES))
              & (point_high - point_low <= _IDEAL_TOLERANCE))
    own_rows = np.flatnonzero(located & (named == "holistic") & ~np.isnan(own))
    own_inverse, own_first = _sorted_groups([scenario_codes[own_rows], value_codes[own_rows]], sizes[:2])
    own_low, _ = _group_extremes(own_inverse, own_first.size, own[own_rows])
    own_heads, point_heads = own_rows[own_first], heads[point_first]
    agreed &= ~np.isin(scenario_codes[point_heads] * sizes[1] + value_codes[point_heads],
                       scenario_codes[own_heads] * sizes[1] + value_codes[own_heads])
    holistic = frame[["scenario", "value"]].iloc[np.concatenate([own_heads, point_heads[agreed]])].reset_index(drop=True)
    holistic["property"] = pd.Series(["holistic"] * len(holistic), dtype=frame["property"].dtype)
    holistic["ideal"] = np.concatenate([own_low, modularity[agreed]])
    return pd.concat([ideals, holistic[ideals.columns]], ignore_index=True)


def _sorted_groups(codes: list[np.ndarray], sizes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The groups of rows sharing their ``codes`` (one array per key, each code below its ``sizes``), in the order the
    codes sort lexicographically: each row's group and each group's first row."""
    combined = np.zeros(codes[0].shape, dtype=np.int64)
    for code, size in zip(codes, sizes):
        combined = combined * size + code
    _, first, inverse = np.unique(combined, return_index=True, return_inverse=True)
    return inverse, first


def _group_extremes(inverse: np.ndarray, groups: int, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The smallest and the largest of ``values`` in each of ``groups`` groups (``inverse``: each value's group)."""
    low, high = np.full(groups, np.inf), np.full(groups, -np.inf)
    np.minimum.at(low, inverse, values)
    np.maximum.at(high, inverse, values)
    return low, high


def representation_keys() -> list[str]:
    """Columns that identify one representation (one cell's data) in the table."""
    return list(_REPRESENTATION)


def scenarios_testing(frame: pd.DataFrame, criterion: str) -> list[str]:
    """The scenarios whose rows declare that they test ``criterion`` (one of :data:`reports.results.schema.CRITERIA`)."""
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    return sorted(frame.loc[frame["criterion"] == criterion, "scenario"].unique())


def require_criterion(frame: pd.DataFrame, criterion: str, purpose: str) -> pd.DataFrame:
    """The rows of every scenario testing ``criterion``; :class:`MissingDataError` naming ``purpose`` if none.

    A scenario is chosen by the ``criterion`` its rows declare, never by its name, so a
    renamed or user-added scenario is measured.
    """
    scenarios = scenarios_testing(frame, criterion)
    if not scenarios:
        declared = sorted(set(frame["criterion"]) - {""})
        raise MissingDataError(
            f"{purpose} needs a scenario testing {criterion!r}; none in the results does "
            f"(criteria present: {', '.join(declared) if declared else 'none'})"
        )
    return frame.loc[frame["scenario"].isin(scenarios)]


def _sample_sizes(n_values: np.ndarray) -> str:
    low, high = int(n_values.min()), int(n_values.max())
    return f"n = {low}" if low == high else f"n = {low} to {high}"


def _seeds(rows: pd.DataFrame) -> str:
    """How many seeds each cell (metric x value x sample size) of ``rows`` has: ``2 seeds``, or ``3 to 12 seeds`` where
    a race gave some cells more."""
    per_cell = rows.groupby(["metric", "value", "n_samples"], sort=False)["seed"].nunique()
    low, high = int(per_cell.min()), int(per_cell.max())
    return f"{low} seed{'s' * (low != 1)}" if low == high else f"{low} to {high} seeds"


def provenance(frame: pd.DataFrame, sources: Mapping[str, bool]) -> str:
    """The scenarios, sample sizes and seeds behind some verdicts, as a caption says it.

    Parameters
    ----------
    frame : pandas.DataFrame
        The results rows the verdicts were read from.
    sources : Mapping[str, bool]
        Scenario -> whether every sample size of it was read (the sample-size sweep, an option's
        sensitivity); otherwise only its largest, as the calibration, linearity and robustness
        analyses read it (:func:`at_largest_n`).

    Returns
    -------
    str
        ``"Scenarios behind the verdicts: mixing, noise (n = 1000, 2 seeds); sample_size (n = 100 to
        10000, 3 to 12 seeds)"`` (the fewest and most seeds of a cell; scenarios sharing sample sizes and seeds
        grouped, names sorted); ``""`` when there is none.
    """
    groups: dict[str, list[str]] = {}
    for scenario in sorted(sources):
        rows = frame.loc[frame["scenario"] == scenario]
        if rows.empty:
            continue
        if not sources[scenario]:
            rows = rows.loc[rows["n_samples"] == rows["n_samples"].max()]
        groups.setdefault(f"{_sample_sizes(rows['n_samples'].to_numpy())}, {_seeds(rows)}", []).append(scenario)
    if not groups:
        return ""
    return "Scenarios behind the verdicts: " + "; ".join(f"{', '.join(names)} ({read})" for read, names in groups.items())
