"""Score any representation: the user's own factors and codes, every metric.

This is how a trained model's codes are scored: save the ground-truth factors and the
codes of the same samples as ``.npy``, ``.npz`` or ``.csv`` files, then::

    python -m harness evaluate --factors factors.npy --codes codes.npy

Loading is strict: each file must hold one 2-D numeric array (a 1-D array is read as
a single column); anything else (an empty or damaged file included) is a one-line
:class:`~harness.errors.UsageError` naming the file and the problem.  A CSV may begin with
a UTF-8 byte-order mark, as spreadsheet programs write it.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

import metrics
from harness.errors import UsageError, listed_names
from harness.execution.costs import shape_cost
from harness.execution.metric_refs import MetricEntry, declared_score_range, resolve_all
from harness.execution.null_budget import call_seconds
from harness.execution.plan import SLOW_CELL_SECONDS
from harness.execution.scoring import error_text
from harness.execution.user_code import user_code
from metrics.options import check_random_state
from metrics.validation import as_real_matrix, check_discrete, check_pair
from reports.rendering.markdown import markdown_table

FORMATS = (".npy", ".npz", ".csv")
#: UTF-8, skipping a byte-order mark (which spreadsheet programs write first): read as text, it made the first row a
#: header and lost it.
CSV_ENCODING = "utf-8-sig"
SCORE_FORMATS = (".csv", ".json", ".md")

#: Columns of the score table returned by :func:`evaluate_representation`.
SCORE_COLUMNS = ("metric", "sub_score", "property", "higher_is_better", "score", "seconds", "error")
#: Columns it gains with a permutation null (``permutations`` > 0), after ``score``.
NULL_SCORE_COLUMNS = ("null_mean", "null_q95", "p_value", "null_permutations")


def load_array(reference: str | Path, role: str, notes: list[str] | None = None) -> np.ndarray:
    """Load one numeric matrix from a ``.npy``, ``.npz`` or ``.csv`` file.

    Parameters
    ----------
    reference : str or path
        ``FILE.npy``; ``FILE.csv`` (comma-separated, UTF-8 with or without a byte-order
        mark; a first row that is not all numbers is read as a header and dropped, and so is
        pandas' default header ``0,1,...,K-1`` above values that are not all whole numbers; a first column
        of no name holding ``0 .. n-1``, pandas' row index, is dropped: :func:`_read_csv`);
        ``FILE.npz`` holding a single array, or an array named ``role``, or
        ``FILE.npz:KEY`` to pick the array ``KEY``.
    notes : list of str, optional
        Gets a sentence for each such reading of a CSV (a header, an index dropped, a first row ``0,1,...`` kept as
        data) and of a 1-D array (read as one column), for the caller to print.
    role : str
        ``"factors"`` or ``"codes"``: used in messages and as the default ``.npz`` key.

    Returns
    -------
    numpy.ndarray
        ``(n, d)`` float64 matrix (a 1-D array becomes one column).

    Raises
    ------
    harness.errors.UsageError
        (a ValueError) Missing or empty file, unknown extension, unreadable or damaged
        content, missing ``.npz`` key, non-numeric CSV cells, arrays of strings or complex
        numbers, arrays that are not 1-D or 2-D, NaN or infinite values.
    """
    text = str(reference)
    key = None
    if ".npz:" in text:
        text, key = text.rsplit(":", 1)
    path = Path(text).expanduser()
    if not path.is_file():
        raise UsageError(f"{role} file {str(path)!r} {'is a directory' if path.is_dir() else 'does not exist'}")
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise UsageError(f"{role} file {str(path)!r} must end in {', '.join(FORMATS)}; got {suffix or 'no extension'!r}")
    if path.stat().st_size == 0:
        raise UsageError(f"{role} file {str(path)!r} is empty (0 bytes)")
    try:
        if suffix == ".csv":
            array = _read_csv(path, role, notes if notes is not None else [])
        else:
            _check_numpy_file(path, role)
            loaded = np.load(path, allow_pickle=False)  # an array or an archive, by the file's content
            if isinstance(loaded, np.ndarray) != (suffix == ".npy"):
                found = "a single array (.npy)" if isinstance(loaded, np.ndarray) else "an archive of arrays (.npz)"
                if not isinstance(loaded, np.ndarray):
                    loaded.close()
                raise UsageError(f"{role} file {str(path)!r} holds {found}, not what its name ends in says")
            array = _pick_npz(loaded, path, role, key) if suffix == ".npz" else loaded
    except UsageError:
        raise
    except Exception as error:  # a damaged file fails numpy's, zipfile's or pandas' readers in many ways
        raise UsageError(f"cannot read {role} file {str(path)!r}: {type(error).__name__}: {error}") from None
    if array.ndim == 1:
        array = array.reshape(-1, 1)
        if notes is not None:  # else one factor or code was taken silently, which a row saved flat would be too
            notes.append(f"{role} file {path.name!r} holds a 1-D array of {array.shape[0]} values: read as one "
                         f"column ({array.shape[0]} samples of one {role[:-1]}); save an (n, d) array for more")
    try:
        return as_real_matrix(array, f"{role} ({path.name})")
    except (TypeError, ValueError) as error:  # the user's file holds something other than a finite real matrix
        raise UsageError(str(error)) from None


def _pick_npz(archive: np.lib.npyio.NpzFile, path: Path, role: str, key: str | None) -> np.ndarray:
    with archive:
        names = list(archive.files)
        if key is None:
            if role in names:
                key = role
            elif len(names) == 1:
                key = names[0]
            else:
                listed = ", ".join(names) or "none"
                raise UsageError(f"{role} file {str(path)!r} holds several arrays ({listed}); pick one with {path.name}:KEY")
        if key not in names:
            raise UsageError(f"{role} file {str(path)!r} has no array {key!r}; it holds: {', '.join(names) or 'none'}")
        return archive[key]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


#: The first bytes of a ``.npy`` file and of a ``.npz`` (zip) archive.
_NUMPY_MAGIC = {".npy": b"\x93NUMPY", ".npz": b"PK"}


def _check_numpy_file(path: Path, role: str) -> None:
    """Refuse a ``.npy`` or ``.npz`` file that does not start as one: numpy read any other content as a pickle and
    advised loading it unsafely (``allow_pickle=True``), for a file merely damaged or of another format."""
    magic = _NUMPY_MAGIC[path.suffix.lower()]
    with open(path, "rb") as handle:
        start = handle.read(len(magic))
    if start != magic:
        kind = "NumPy array (.npy)" if path.suffix.lower() == ".npy" else "NumPy archive (.npz, a zip file)"
        raise UsageError(f"{role} file {str(path)!r} is not a {kind}: it does not start as one (damaged, or another "
                         "format under that name)")


def _read_csv(path: Path, role: str, notes: list[str]) -> np.ndarray:
    """The numbers of a CSV file, its header and pandas' row index dropped (``notes`` says so).

    A first row that is not all numbers is a header.  So is pandas' default one (``DataFrame(array).to_csv``
    writes the columns' names ``0,1,...,K-1`` first), when some value below it is not a whole number: read as a
    sample, it shifted every score with no error; above whole numbers only (discrete factors) it is as likely a sample
    and is kept, with a note.  A first column whose header is empty and whose values are ``0 .. n-1`` is pandas' row
    index (``to_csv`` without ``index=False``): read as a factor, it was one more factor of every score.
    """
    with open(path, newline="", encoding=CSV_ENCODING) as handle:
        first = next(csv.reader(handle), None)
    if not first:
        raise UsageError(f"{role} file {str(path)!r} is empty")
    numbers = all(_is_number(cell) for cell in first)
    default_names = numbers and len(first) >= 2 and [cell.strip() for cell in first] == [str(i) for i in range(len(first))]
    # every number the nearest double to its digits: pandas' default parser since 3.1 (before it, 19 of 60 values of a
    # CSV written with 18 digits were an ulp off; hence the pandas floor in pyproject.toml)
    frame = pd.read_csv(path, header=None if numbers else 0, encoding=CSV_ENCODING)
    if frame.empty:
        raise UsageError(f"{role} file {str(path)!r} has a header row but no data rows")
    if frame.isna().to_numpy().any():  # a short row (read again only then) or a missing value
        _check_row_lengths(path, role, len(first))
    shown = ",".join(cell.strip() for cell in first)
    if default_names:
        below = frame.iloc[1:].to_numpy(dtype=float)
        if np.isfinite(below).all() and not np.equal(np.round(below), below).all():
            frame = frame.iloc[1:].reset_index(drop=True)
            notes.append(f"{role} file {path.name}: first row {shown} read as column names (pandas' default header), "
                         "not as a sample")
        else:
            notes.append(f"{role} file {path.name}: first row {shown} read as a sample, as every value is a whole "
                         "number; if it names the columns (pandas' default header), write the CSV with header=False")
    if not numbers and not str(first[0]).strip() and len(frame.columns) >= 2:
        index = pd.to_numeric(frame.iloc[:, 0], errors="coerce").to_numpy(dtype=float)
        if np.array_equal(index, np.arange(len(frame))):
            frame = frame.iloc[:, 1:]
            notes.append(f"{role} file {path.name}: its first column, of no name and holding 0 to {len(index) - 1}, "
                         "read as pandas' row index and dropped (to_csv writes it unless index=False)")
    bad = [column for column in frame.columns if not pd.api.types.is_numeric_dtype(frame[column])]
    if bad:
        column = frame[bad[0]]
        row = int(pd.to_numeric(column, errors="coerce").isna().to_numpy().argmax())
        position = list(frame.columns).index(bad[0])
        raise UsageError(
            f"{role} file {str(path)!r} has a non-numeric value {column.iloc[row]!r} in column {position} "
            f"(data row {row}); only numbers are accepted"
        )
    return frame.to_numpy(dtype=np.float64)


def _check_row_lengths(path: Path, role: str, width: int) -> None:
    """Refuse a row of fewer fields than the first (pandas fills the missing ones with NaN, which was reported as a
    non-finite value rather than as a short row)."""
    with open(path, newline="", encoding=CSV_ENCODING) as handle:
        for row, fields in enumerate(csv.reader(handle)):
            if fields and len(fields) < width:
                raise UsageError(f"{role} file {str(path)!r}: line {row + 1} has {len(fields)} field(s), the first line "
                                 f"{width}")


def parse_discrete(text: str | None, n_factors: int) -> tuple[bool, ...]:
    """Discrete flags from ``"all"``, ``"none"`` or comma-separated factor indices (``"0,2"``).

    Raises
    ------
    UsageError
        For an index that is not a whole number, is out of ``0 .. n_factors - 1`` or is given twice (``0,0``: a typo
        for another index, most likely).
    """
    if text is None or text.strip().lower() == "none":
        return (False,) * n_factors
    if text.strip().lower() == "all":
        return (True,) * n_factors
    flags = [False] * n_factors
    for item in (part.strip() for part in text.split(",") if part.strip()):
        try:
            index = int(item)
        except ValueError:
            raise UsageError(f"discrete factors must be indices like 0,2 (or all / none); got {item!r}") from None
        if not 0 <= index < n_factors:
            raise UsageError(f"discrete factor index {index} is out of range: there are {n_factors} factors (0 .. {n_factors - 1})")
        if flags[index]:
            raise UsageError(f"discrete factor index {index} is given twice in {text!r}: list each discrete factor once")
        flags[index] = True
    return tuple(flags)


def categorical_looking(factors: np.ndarray, discrete: Sequence[bool], max_categories: int = 20) -> list[int]:
    """Indices of continuous-flagged factor columns holding 2 to ``max_categories`` integer values.

    Such columns are probably categorical; the CLI suggests marking them discrete.
    """
    found = []
    for index in range(factors.shape[1]):
        column = factors[:, index]
        if not discrete[index] and np.all(column == np.round(column)) and 2 <= np.unique(column).size <= max_categories:
            found.append(index)
    return found


def continuous_looking(factors: np.ndarray, discrete: Sequence[bool], max_categories: int = 20) -> list[int]:
    """Indices of discrete-flagged factor columns holding more than ``max_categories`` values, not all whole numbers.

    Such columns are probably continuous: read as categories, each value is a class of its own (about one sample a
    class), which drives the information metrics to about 0 (MIG 0.0025 where it scored 0.55 unflagged); the CLI
    suggests leaving them out of ``--discrete``.
    """
    return [index for index in range(factors.shape[1])
            if discrete[index] and not np.all(factors[:, index] == np.round(factors[:, index]))
            and np.unique(factors[:, index]).size > max_categories]


def evaluate_representation(
    factors: np.ndarray,
    codes: np.ndarray,
    *,
    metric_names: Sequence[str] | None = None,
    discrete: Sequence[bool] | None = None,
    random_state: int = 0,
    permutations: int = 0,
    log: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """Run metrics on one representation and return the score table.

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` ground-truth factors and ``(n, L)`` codes of the same samples.
    metric_names : sequence of str, optional
        Registered metric names and/or ``module:function`` / ``file.py:function``
        references.  Default: every registered single-representation metric.
    discrete : sequence of bool, optional
        One flag per factor (default: all continuous).
    random_state : int, default 0
        Seed given to every stochastic metric (and to user functions that accept it),
        so the table is reproducible.
    permutations : int, default 0
        ``B``: also score every metric on ``B`` row permutations of the codes, its
        permutation null (:func:`metrics.permutation_null`, the row orders seeded by
        ``random_state`` and shared by every metric): what codes of the same shape and
        marginals, independent of the factors, score by chance.  0: no null.
    log : callable, optional
        Where a warning goes before any metric runs (default: standard error): that the null's
        ``permutations`` are estimated to cost more than :data:`~harness.execution.plan.SLOW_CELL_SECONDS`
        CPU seconds (:func:`null_cost_warning`).

    Returns
    -------
    pandas.DataFrame
        One row per sub-score, columns :data:`SCORE_COLUMNS`; with ``permutations`` > 0 also
        :data:`NULL_SCORE_COLUMNS` after ``score``: the null's mean, its 95% chance level
        (the 5% quantile for a lower-is-better sub-score), the p-value
        ``(1 + #{null at least as good}) / (B + 1)`` and ``B``.  Where a metric's null
        fails (it raises on some permutation) they are NaN and 0, and
        ``attrs["null_failures"]`` maps the metric to the error; ``attrs["sub_score_notes"]`` says where a metric
        claiming a property per sub-score returned one its mapping does not name, or left out one it names
        (:func:`_sub_score_notes`), or a score outside its declared range (:func:`_range_notes`).  A metric that raises
        on these data gets the same rows, each with its sub-score's property, ``score``
        NaN and the error message in ``error`` (the others still run); ``error`` is empty
        otherwise.  A user's function, whose sub-scores are known only from what it
        returns, fails in one row per sub-score it claims a property for
        (:func:`metrics.describe.describe_metric`), or in one row named after it when it
        claims one property for all.

    Raises
    ------
    harness.errors.UsageError
        Malformed arrays, ``discrete`` flags or ``random_state``, a lone string or an
        empty list as ``metric_names`` (all checked once, before any metric runs), two
        metrics of one name (``["mig", "clash.py:mig"]``) or one listed twice, or
        unknown metric names (then also a KeyError).
    """
    try:
        factors, codes = check_pair(factors, codes)
        if discrete is not None:
            discrete = check_discrete(discrete, factors.shape[1])
        check_random_state(random_state)
        if isinstance(permutations, bool) or not isinstance(permutations, (int, np.integer)) or permutations < 0:
            raise ValueError(f"permutations must be a whole number >= 0 (0: no null), got {permutations!r}")
    except (TypeError, ValueError) as error:  # the user's arrays or flags do not fit together; a bad seed
        raise UsageError(str(error)) from None
    names = listed_names(metric_names, "metric_names") if metric_names is not None else metrics.available()
    if not names:  # an empty table would read as "every metric passed"
        raise UsageError(f"no metric named; known metrics: {', '.join(metrics.available())}")
    entries = resolve_all(names)
    warning = null_cost_warning(entries, codes.shape[0], factors.shape[1], codes.shape[1], int(permutations))
    if warning:
        (log or _to_stderr)(warning)
    rows, failures, notes = [], {}, []
    with metrics.shared_estimates():  # one representation: its k-NN and binned estimates are computed once
        for entry in entries:
            scored = _score_rows(entry, factors, codes, discrete, random_state)
            notes += _sub_score_notes(entry, [row["sub_score"] for row in scored if not row["error"]])
            notes += _range_notes(entry, scored)
            if permutations:
                failure = _add_null(entry, scored, factors, codes, discrete, random_state, int(permutations))
                if failure:
                    failures[entry.name] = failure
            rows.extend(scored)
    columns = list(SCORE_COLUMNS)
    if permutations:
        columns[columns.index("score") + 1:columns.index("score") + 1] = NULL_SCORE_COLUMNS
    table = pd.DataFrame(rows, columns=columns)
    if permutations:
        table["null_permutations"] = table["null_permutations"].astype(np.int64)
        table.attrs["null_failures"] = failures
    table.attrs["sub_score_notes"] = notes
    return table


def _range_notes(entry: MetricEntry, rows: Sequence[dict]) -> list[str]:
    """A score outside the range its metric declares (``describe_metric(score_range=...)``, a built-in's), said: it
    passed with no word (a run's report flags it too)."""
    declared = declared_score_range(entry)
    notes = []
    for row in rows:
        bounds = declared.get(row["sub_score"]) if isinstance(declared, dict) else declared
        score = row["score"]
        if bounds is not None and np.isfinite(score) and not bounds[0] <= score <= bounds[1]:
            notes.append(f"metric {entry.name!r}: {row['sub_score']} = {score:.6g} lies outside the range it declares "
                         f"[{bounds[0]:g}, {bounds[1]:g}]")
    return notes


def _sub_score_notes(entry: MetricEntry, returned: Sequence[str]) -> list[str]:
    """What a metric claiming a property per sub-score returned beside its claim: a sub-score its mapping does not
    name (holistic, as documented, but a typo of a declared one reads the same) and a declared one it did not return
    (its row was simply absent)."""
    if not returned or (len(entry.properties) == 1 and next(iter(entry.properties.values())) == entry.default_property):
        return []  # failed, or one property claimed for every sub-score
    unnamed = [sub_score for sub_score in returned if sub_score not in entry.properties]
    missing = [sub_score for sub_score in entry.properties if sub_score not in returned]
    notes = [f"metric {entry.name!r} returned sub-score {sub_score!r}, which its property mapping does not name "
             f"(declared: {', '.join(entry.properties)}): scored as {entry.default_property}" for sub_score in unnamed]
    if missing:
        notes.append(f"metric {entry.name!r} did not return the sub-score(s) it declares: {', '.join(missing)}")
    return notes


def null_cost_warning(entries: Sequence[MetricEntry], n_samples: int, factors: int, codes: int, permutations: int) -> str:
    """``warning: ...`` when the permutation null of ``entries`` on an ``(n_samples, factors)`` and ``(n_samples,
    codes)`` pair is estimated above :data:`~harness.execution.plan.SLOW_CELL_SECONDS` CPU seconds, naming the
    permutations as the cause (each is one more call of every metric: :func:`harness.execution.null_budget.call_seconds`
    at this shape, :func:`harness.execution.costs.shape_cost`) and the metrics' own cost; "" otherwise."""
    calls = sum(call_seconds(entry, n_samples, shape_cost(entry.name, factors, codes, n_samples, registered=entry.registered,
                                                          variant_of=entry.variant_of))
                for entry in entries if not entry.population)
    null = permutations * calls
    if null <= SLOW_CELL_SECONDS:
        return ""
    return (f"warning: {permutations} permutations make the permutation null an estimated {null / 3600:.3g} CPU-hours "
            f"({permutations} more calls of each metric, whose calls take an estimated {calls:.2g} CPU-s together on "
            f"{n_samples} samples x {codes} codes); B = 99 reaches p = 0.01 in about {99 * calls:.2g} CPU-s")


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)


def _add_null(entry: MetricEntry, rows: list[dict], factors, codes, discrete, random_state: int, permutations: int) -> str:
    """Fill the null columns of a metric's ``rows`` from its permutation null; the error when the null fails ("" else).
    A metric that failed on the codes has no null either."""
    empty = {"null_mean": float("nan"), "null_q95": float("nan"), "p_value": float("nan"), "null_permutations": 0}
    if any(row["error"] for row in rows):
        for row in rows:
            row.update(empty)
        return ""
    observed = {row["sub_score"]: row["score"] for row in rows}
    try:
        with user_code(f"the permutation null of metric {entry.name!r}"):
            null = metrics.permutation_null(
                entry.callable(), factors, codes, permutations=permutations, seed=random_state, observed=observed,
                higher_is_better={sub: entry.higher_is_better_for(sub) for sub in observed}, discrete=discrete,
                random_state=random_state, **dict(entry.options))
    except Exception as error:  # the score stands without its null
        for row in rows:
            row.update(empty)
        return error_text(error)
    for row in rows:
        row.update(null.columns(row["sub_score"]))
    return ""


def _score_rows(entry: MetricEntry, factors, codes, discrete, random_state) -> list[dict]:
    started = time.perf_counter()
    try:
        with user_code(f"metric {entry.name!r}"):
            scores = metrics.evaluate(entry.callable(), factors, codes, discrete=discrete, random_state=random_state,
                                      **dict(entry.options))  # a variant's (mig[bins=5]); a built-in's defaults
    except Exception as error:  # one metric failing on these data (or exiting) must not stop the others
        seconds = time.perf_counter() - started
        message = error_text(error)
        return [_row(entry, sub, float("nan"), seconds, message) for sub in entry.properties]
    seconds = time.perf_counter() - started
    return [_row(entry, sub, score, seconds, "") for sub, score in scores.items()]


def _row(entry: MetricEntry, sub_score: str, score: float, seconds: float, error: str) -> dict:
    return {
        "metric": entry.name,
        "sub_score": sub_score,
        "property": entry.property_of(sub_score),
        "higher_is_better": entry.higher_is_better_for(sub_score),
        "score": score,
        "seconds": seconds,
        "error": error,
    }


def check_score_file(out: str | Path) -> Path:
    """``out`` as a path, if it ends in a supported score-table format (:data:`SCORE_FORMATS`)."""
    path = Path(out)
    if path.suffix.lower() not in SCORE_FORMATS:
        raise UsageError(f"--out must end in {', '.join(SCORE_FORMATS)}; got {str(path)!r}")
    return path


def write_scores(table: pd.DataFrame, out: str | Path) -> Path:
    """Write the score table as ``.csv``, ``.json`` (records) or ``.md`` (a Markdown table)."""
    path = check_score_file(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix.lower()
    if suffix == ".csv":
        table.to_csv(path, index=False)
    elif suffix == ".json":  # every float as Python writes it, which reads back bit for bit (pandas' to_json keeps
        records = table.astype(object).where(table.notna(), None).to_dict("records")  # 10 digits at most)
        path.write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")
    else:
        path.write_text(format_scores(table) + "\n")
    return path


def format_scores(table: pd.DataFrame) -> str:
    """The score table as aligned Markdown; a failed metric shows ``FAILED`` and its error."""
    shown = table.assign(
        higher_is_better=["higher" if flag else "lower" for flag in table["higher_is_better"]],
        score=[f"{score:.4f}" if not error else "FAILED" for score, error in zip(table["score"], table["error"])],
    ).rename(columns={"higher_is_better": "better"})
    if "p_value" in table.columns:  # the null's columns: p-values as small as 1 / (B + 1) keep their digits
        shown = shown.assign(
            null_mean=[f"{value:.4f}" for value in table["null_mean"]], null_q95=[f"{value:.4f}" for value in table["null_q95"]],
            p_value=[f"{value:.3g}" for value in table["p_value"]],
        ).rename(columns={"null_mean": "null mean", "null_q95": "null 95%", "p_value": "p", "null_permutations": "B"})
    if not table["error"].astype(bool).any():
        shown = shown.drop(columns="error")
    return markdown_table(shown, digits=3)
