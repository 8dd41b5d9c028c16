"""A results store that never loses a finished cell.

Each finished cell is appended as one JSON line to ``DIR/cells.jsonl`` under an
exclusive file lock and flushed to disk (``fsync``) before it is reported done.
A run killed at any moment leaves at worst a truncated last line, which the next run
discards (that cell is recomputed); so is any other line that is not a whole cell's record
(a damaged or hand-edited file): a record is reused only when its every row has every
results column with a value of its type and a finite score, and a record without rows
has its failure (:func:`_parsed`).  Two runs writing into the same directory
serialise their appends through the lock, and a cell the other one stored first is not
appended again (both may compute it: each run reads the store once, when it starts).
Cells are keyed by their full identity, including the metric's version and options and the
provenance of the code and libraries that computed them (:mod:`harness.execution.provenance`),
so a changed metric never silently reuses stale rows.  ``DIR/provenance.json`` holds each
provenance a key names (digest -> files and library versions), so a rerun can say why it
recomputes a cell ("labconf.py changed").  A cell's record also holds what its metric and scenario
read as they ran beyond what its key covers (``reads``: the modules imported and data files opened,
:mod:`harness.execution.reads`, with the digest of what they held, itself in ``DIR/provenance.json``):
a run reuses a stored cell only when they hold the same now (:meth:`ResultStore.reusable_records`),
and recomputes it otherwise ("weights.json changed").  A recomputed cell (``run --recompute``) is appended
again; of a key's records the last wins.

The tidy tables ``results.parquet`` and ``results.csv`` are rewritten atomically
(write to a temporary file, then rename) from the store.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from harness.execution.plan import key_parts, null_part
from harness.execution.provenance import Provenance, changes, computed, union
from harness.execution.reads import NOTHING_READ, Reads, reads_provenance
from harness.outputs import atomic_write
from reports.results.schema import (
    DERIVED_COLUMNS,
    FAILURE_COLUMNS,
    OPTIONAL_COLUMN_DEFAULTS,
    RESULT_COLUMNS,
    SCENARIO_IDEAL_COLUMNS,
    TEXT_COLUMNS,
)

CELLS_FILE = "cells.jsonl"
RESULTS_PARQUET = "results.parquet"
RESULTS_CSV = "results.csv"
FAILURES_CSV = "failures.csv"
PROVENANCE_FILE = "provenance.json"
#: How the error of a cell stopped by the time limit starts (:class:`harness.execution.scoring.CellTimeout`'s text).
TIMED_OUT = "timed out after "


def _timed_out(record: dict[str, Any]) -> bool:
    """Whether a stored cell's record is that of a call the cell time limit stopped."""
    failure = record.get("failure")
    return isinstance(failure, dict) and str(failure.get("error", "")).startswith(TIMED_OUT)


class ResultStore:
    """Append-only, crash-safe storage of finished cells in a run directory."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / CELLS_FILE
        self._stored: set[str] = set()  # keys of the whole cells in the file's first ``_read_up_to`` bytes
        self._read_up_to = 0
        self.damaged = 0
        """How many whole lines the last :meth:`records` found damaged (their cells are recomputed)."""
        self.stale: dict[str, str] = {}
        """The keys :meth:`reusable_records` left out, each with what its cell read that changed since."""
        self.timed_out: set[str] = set()
        """The keys :meth:`reusable_records` left out as a time limit stopped their calls."""

    def _catch_up(self, fd: int) -> None:
        """Note the keys of the cells other writers appended since this store last read or wrote (caller holds the lock)."""
        size = os.fstat(fd).st_size
        if size < self._read_up_to:  # the file was cut shorter by someone else: read it all again
            self._stored, self._read_up_to = set(), 0
        data = os.pread(fd, size - self._read_up_to, self._read_up_to)
        for raw in data.splitlines():  # whole lines only: the lock holder repaired the tail
            record = _parsed(raw)
            if record is not None:
                self._stored.add(record["key"])
        self._read_up_to = size

    def _repair_tail(self, fd: int) -> None:
        """Drop a partial last line left by a killed writer (caller holds the lock)."""
        size = os.fstat(fd).st_size
        if size == 0:
            return
        os.lseek(fd, size - 1, os.SEEK_SET)
        if os.read(fd, 1) == b"\n":
            return
        with open(self.path, "rb") as handle:
            data = handle.read()
        os.ftruncate(fd, data.rfind(b"\n") + 1)

    def append(self, key: str, rows: list[dict[str, Any]], failure: dict[str, Any] | None = None,
               reads: Reads = NOTHING_READ) -> None:
        """Persist one finished cell durably (returns after fsync).

        A cell whose metric raised is finished too: it has no rows and a ``failure``
        record (the cell's identity and the error), so it is reported, not retried
        until its metric's version, options or code, or what it read, change.
        """
        self.append_many([(key, rows, failure, reads)])

    def append_many(self, outcomes: Sequence[tuple[Any, ...]], *, replace: bool = False) -> None:
        """Persist finished cells ``(key, rows, failure[, reads])`` durably, one line each, with one
        lock, one write and one fsync (a task's cells; a write cut short leaves a partial
        last line, which is dropped on reading, so only whole cells are ever read back);
        what their reads held goes to ``DIR/provenance.json`` first.

        A cell already stored (by another run) is not appended again, unless ``replace``
        (a recomputed cell, which then wins over the earlier record)."""
        if not outcomes:
            return
        held = [read_record(outcome[0], outcome[3])[1] for outcome in outcomes if len(outcome) > 3 and outcome[3]]
        self.record_provenances(provenance for provenance in held if provenance is not None)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._repair_tail(fd)
            self._catch_up(fd)
            fresh = [outcome for outcome in outcomes if replace or outcome[0] not in self._stored]
            data = "".join(json.dumps(record_of(*outcome), allow_nan=True) + "\n" for outcome in fresh).encode()
            written = 0
            while written < len(data):  # a regular-file write may be short (full disk, signal)
                written += os.write(fd, data[written:])
            if data:
                os.fsync(fd)
            self._stored.update(outcome[0] for outcome in fresh)
            self._read_up_to += len(data)
        finally:
            os.close(fd)

    def records(self) -> dict[str, dict[str, Any]]:
        """Every complete cell's record on disk (``key``, ``rows``, and ``failure`` for a failed cell), by key, in the
        order they were first stored; the last of a key's records wins (a recomputed cell)."""
        if not self.path.exists():
            return {}
        found: dict[str, dict[str, Any]] = {}
        read = self.damaged = 0
        with open(self.path, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    break  # a partial line from a killed writer: that cell is recomputed
                read += len(raw)
                record = _parsed(raw)  # None for a damaged line: that cell is recomputed
                if record is not None:
                    found[record["key"]] = record  # the last of a key's records wins (a recomputed cell)
                elif raw.strip():
                    self.damaged += 1
        self._stored, self._read_up_to = set(found), read  # what a later append need not read again
        return found

    def reusable_records(self) -> dict[str, dict[str, Any]]:
        """:meth:`records`, less the cells whose recorded reads hold something else now (a data file or a module
        loaded at run time changed, was added or is gone): those are listed in :attr:`stale` with what changed, and
        a later :meth:`append_many` stores them again; and less the cells a time limit stopped (listed in
        :attr:`timed_out`): the limit, or its absence, and the machine's load are the run's, not the metric's result.
        Only the records whose keys this process planned (:func:`harness.execution.provenance.computed` knows their
        digests) are checked for reads: no other can be reused."""
        found = self.records()
        self.stale = {}
        held: dict[tuple[Any, ...], Provenance | None] = {}  # what each recorded set holds now, under each key's code
        known: dict[str, Provenance] | None = None
        for key, record in found.items():
            stored = record.get("reads")
            if stored is None:
                continue
            question = (key_parts(key)[1], tuple(stored["modules"]), tuple(stored["paths"]))
            if question not in held:
                covered = _covered(key)
                held[question] = None if covered is None else reads_provenance(Reads.from_json(stored), covered)[1]
            now = held[question]
            if now is not None and now.digest != stored["digest"]:
                known = self.provenances() if known is None else known  # read once, and only when something changed
                before = known.get(stored["digest"])
                changed = changes(before, now) if before is not None else []
                self.stale[key] = ", ".join(changed) or "what it read changed (provenance.json lacks the earlier record)"
        self._stored -= set(self.stale)
        self.timed_out = {key for key, record in found.items() if _timed_out(record)}
        self._stored -= self.timed_out
        return {key: record for key, record in found.items() if key not in self.stale and key not in self.timed_out}

    def cells(self) -> dict[str, list[dict[str, Any]]]:
        """Every complete cell on disk, by key (last occurrence wins); failed cells have no rows."""
        return {key: record["rows"] for key, record in self.records().items()}

    def failures(self, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """The failed cells (all, or those among ``keys``): their identity and the error."""
        return self.results(keys)[1]

    def table(self, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """The tidy table of the given cells (all cells when ``keys`` is None), in order."""
        return self.results(keys)[0]

    def results(self, keys: Iterable[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
        """:meth:`table` and :meth:`failures` of the same cells, from one read of the file
        (a study of the paper preset appends hundreds of thousands of cells)."""
        return tables_of(self.records(), keys)

    def provenances(self) -> dict[str, Provenance]:
        """The provenances the keys of the stored cells name, by digest (``DIR/provenance.json``; empty when it is
        missing or damaged, and without an entry that is damaged)."""
        try:
            data = json.loads((self.directory / PROVENANCE_FILE).read_text())
        except (OSError, ValueError):
            return {}
        found = {digest: Provenance.from_json(entry) for digest, entry in data.items()} if isinstance(data, dict) else {}
        return {digest: provenance for digest, provenance in found.items() if provenance is not None}

    def metric_provenances(self) -> dict[str, Provenance]:
        """Metric name -> what its latest stored cells were computed from: the provenances their keys name and what
        their recorded reads held, together (as ``DIR/provenance.json`` holds them; a digest it lacks is left out).
        Of the records of one cell (its identity, whatever the code) the last stored counts."""
        known = self.provenances()
        latest: dict[tuple[str, str], list[str]] = {}
        for key, record in self.records().items():
            identity, digests = key_parts(key)
            metric = record["rows"][0]["metric"] if record["rows"] else record["failure"]["metric"]
            reads = [record["reads"]["digest"]] if "reads" in record else []
            latest[metric, null_part(identity)[0]] = [*(digests or ()), *reads]
        found: dict[str, list[Provenance]] = {}
        for (metric, _), digests in latest.items():
            found.setdefault(metric, []).extend(known[digest] for digest in digests if digest in known)
        return {metric: union(*parts) for metric, parts in sorted(found.items())}

    def record_provenances(self, provenances: Iterable[Provenance]) -> None:
        """Add ``provenances`` to ``DIR/provenance.json`` (atomically, under the cells' lock, so that two runs
        adding theirs at once keep both); call before appending the cells whose keys name them."""
        new = {provenance.digest: provenance for provenance in provenances}
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            known = self.provenances()
            if new.keys() <= known.keys():
                return
            merged = {digest: provenance.to_json() for digest, provenance in sorted({**known, **new}.items())}
            atomic_write(self.directory / PROVENANCE_FILE,
                          lambda path: Path(path).write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n"))
        finally:
            os.close(fd)

    def write_tables(self, frame: pd.DataFrame, failures: pd.DataFrame | None = None) -> tuple[Path, Path]:
        """Atomically (re)write ``results.parquet`` and ``results.csv``, and ``failures.csv``
        when cells failed (removing a stale one when none did)."""
        parquet = self.directory / RESULTS_PARQUET
        csv = self.directory / RESULTS_CSV
        atomic_write(parquet, lambda path: frame.to_parquet(path, index=False))
        atomic_write(csv, lambda path: frame.to_csv(path, index=False))
        failed = self.directory / FAILURES_CSV
        if failures is not None and len(failures):
            atomic_write(failed, lambda path: failures.to_csv(path, index=False))
        elif failed.exists():
            failed.unlink()
        return parquet, csv


#: The kind of value each results column that is not text holds, checked on reading a record
#: (:func:`_parsed`) and giving its dtype in the tidy table (:func:`to_frame`):
#: ``finite`` a finite number, ``number`` a number or NaN (unknown), ``count`` a whole number from 0 to
#: 2**63 - 1 (an int64), ``flag`` true or false.
NUMERIC_COLUMNS = {"value": "finite", "seed": "count", "n_samples": "count", "higher_is_better": "flag",
                   "ideal": "number", "exact": "number", "score": "finite", "seconds": "finite", "warnings": "count",
                   "null_mean": "number", "null_q95": "number", "p_value": "number", "null_permutations": "count",
                   "null_seconds": "finite", "looks": "count",
                   **dict.fromkeys(SCENARIO_IDEAL_COLUMNS, "number")}

#: The same for a failure record's columns that are not text.
_FAILURE_NUMBERS = {"seed": "count", "n_samples": "count"}

_DTYPES = {"finite": float, "number": float, "count": "int64", "flag": bool}


def _is(kind: str, value: Any) -> bool:
    """Whether ``value`` (as JSON gives it) is of ``kind`` (see :data:`NUMERIC_COLUMNS`; ``text``: a string)."""
    if kind == "text":
        return isinstance(value, str)
    if kind == "flag":
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if kind == "count":
        return isinstance(value, int) and 0 <= value < 2**63
    return kind == "number" or math.isfinite(value)


#: Results columns a stored row may lack (it was stored before they existed): the table gets their defaults.
_ADDED_COLUMNS = frozenset(OPTIONAL_COLUMN_DEFAULTS) | frozenset(DERIVED_COLUMNS)


def _whole(fields: Any, numbers: Mapping[str, str], columns: Sequence[str], optional: frozenset[str] = frozenset()) -> bool:
    """Whether ``fields`` is a dict with every one of ``columns`` (those of ``optional`` where present), each of its
    kind (``numbers``, else text)."""
    return isinstance(fields, dict) and all(_is(numbers.get(column, "text"), fields.get(column)) for column in columns
                                            if column not in optional or column in fields)


def _parsed(line: bytes) -> dict[str, Any] | None:
    """A line of the cells file as the cell's record :func:`record_of` wrote, or None for a damaged line.

    A damaged file may hold anything: a line that is not JSON or not UTF-8, nests deeper than the parser
    allows, or is JSON of another shape is damaged; so is a record whose rows miss a results column or hold
    a value of the wrong type there (a NaN or text score, a fractional seed), and one with neither rows nor
    a well-formed failure (that cell would vanish from the table).  Its cell is recomputed.
    """
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):  # ValueError: not JSON (JSONDecodeError), not UTF-8 (UnicodeDecodeError)
        return None
    if not isinstance(record, dict) or not isinstance(record.get("key"), str) or not isinstance(record.get("rows"), list):
        return None
    rows, failure = record["rows"], record.get("failure")
    if "reads" in record and not (Reads.from_json(record["reads"]) and isinstance(record["reads"].get("digest"), str)):
        return None
    if failure is None:
        whole = bool(rows) and "failure" not in record and all(
            _whole(row, NUMERIC_COLUMNS, RESULT_COLUMNS, _ADDED_COLUMNS) for row in rows)
    else:
        whole = not rows and _whole(failure, _FAILURE_NUMBERS, FAILURE_COLUMNS)
    return record if whole else None


def record_of(key: str, rows: list[dict[str, Any]], failure: dict[str, Any] | None = None,
              reads: Reads = NOTHING_READ) -> dict[str, Any]:
    """A finished cell as the store keeps it: its key, its rows, the failure record of a failed cell, and what it
    read beyond what its key covers (:func:`read_record`), when it read anything."""
    record = {"key": key, "rows": rows} if failure is None else {"key": key, "rows": rows, "failure": failure}
    stored = read_record(key, reads)[0] if reads else None
    return {**record, "reads": stored} if stored else record


def read_record(key: str, reads: Reads) -> tuple[dict[str, Any] | None, Provenance | None]:
    """The ``reads`` of a cell's record (the recorded modules and paths that add to what the key covers, and the
    digest of what they hold) and what they hold; None and None when they add nothing."""
    covered = _covered(key)
    kept, held = reads_provenance(reads, covered if covered is not None else union())
    if not kept:
        return None, None
    return {**kept.to_json(), "digest": held.digest}, held


def _covered(key: str) -> Provenance | None:
    """What a key's metric and scenario provenance cover, as this process computed them; None when it did not."""
    digests = key_parts(key)[1]
    found = [computed(digest) for digest in digests or ()]
    return union(*found) if found and all(provenance is not None for provenance in found) else None


def tables_of(records: Mapping[str, dict[str, Any]], keys: Iterable[str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tidy table and the failure table of the ``keys`` among ``records`` (all when None), in order."""
    selected = list(records.values()) if keys is None else [records[key] for key in keys if key in records]
    failed = pd.DataFrame([record["failure"] for record in selected if "failure" in record], columns=list(FAILURE_COLUMNS))
    return to_frame([row for record in selected for row in record["rows"]]), failed


def to_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows as a DataFrame with the canonical columns (:data:`reports.results.schema.RESULT_COLUMNS`) and dtypes."""
    frame = pd.DataFrame(rows, columns=list(RESULT_COLUMNS))
    # a row stored before a column existed lacks it: its default (text: empty, derived at load by the reports)
    frame = frame.fillna({**{column: "" for column in TEXT_COLUMNS}, **OPTIONAL_COLUMN_DEFAULTS})
    numeric = {column: _DTYPES[kind] for column, kind in NUMERIC_COLUMNS.items()}
    return frame.astype({**{column: str for column in TEXT_COLUMNS}, **numeric})
