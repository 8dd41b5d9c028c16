"""A results store that never loses a finished cell.

Each finished cell is appended as one JSON line to ``DIR/cells.jsonl`` under an
exclusive file lock and flushed to disk (``fsync``) before it is reported done.
A run killed at any moment leaves at worst a truncated last line, which the next run
discards (that cell is recomputed).  Two runs writing into the same directory
serialise their appends through the lock; a cell finished by both is kept once.
Cells are keyed by their full identity, including the metric's version and options,
so a changed metric never silently reuses stale rows.

The tidy tables ``results.parquet`` and ``results.csv`` are rewritten atomically
(write to a temporary file, then rename) from the store.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

CELLS_FILE = "cells.jsonl"
RESULTS_PARQUET = "results.parquet"
RESULTS_CSV = "results.csv"

#: Column order of the tidy results table (see the README's "Results table").
COLUMNS = (
    "study",
    "scenario",
    "parameter",
    "value",
    "value_label",
    "seed",
    "n_samples",
    "metric",
    "family",
    "sub_score",
    "property",
    "higher_is_better",
    "ideal",
    "score",
    "seconds",
    "metric_version",
    "harness_version",
)


class ResultStore:
    """Append-only, crash-safe storage of finished cells in a run directory."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / CELLS_FILE

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

    def append(self, key: str, rows: list[dict[str, Any]]) -> None:
        """Persist one finished cell durably (returns after fsync)."""
        line = (json.dumps({"key": key, "rows": rows}, allow_nan=True) + "\n").encode()
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._repair_tail(fd)
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    def cells(self) -> dict[str, list[dict[str, Any]]]:
        """Every complete cell on disk, by key (first occurrence wins)."""
        if not self.path.exists():
            return {}
        found: dict[str, list[dict[str, Any]]] = {}
        with open(self.path, "rb") as handle:
            for raw in handle:
                if not raw.endswith(b"\n"):
                    break  # a partial line from a killed writer: that cell is recomputed
                try:
                    record = json.loads(raw)
                except json.JSONDecodeError:
                    continue
                found.setdefault(record["key"], record["rows"])
        return found

    def table(self, keys: Iterable[str] | None = None) -> pd.DataFrame:
        """The tidy table of the given cells (all cells when ``keys`` is None), in order."""
        cells = self.cells()
        selected = cells.values() if keys is None else (cells[k] for k in keys if k in cells)
        rows = [row for cell_rows in selected for row in cell_rows]
        return to_frame(rows)

    def write_tables(self, frame: pd.DataFrame) -> tuple[Path, Path]:
        """Atomically (re)write ``results.parquet`` and ``results.csv``."""
        parquet = self.directory / RESULTS_PARQUET
        csv = self.directory / RESULTS_CSV
        _atomic_write(parquet, lambda path: frame.to_parquet(path, index=False))
        _atomic_write(csv, lambda path: frame.to_csv(path, index=False))
        return parquet, csv


def to_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows as a DataFrame with the canonical columns and dtypes."""
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return frame.astype(
        {
            "study": str,
            "scenario": str,
            "parameter": str,
            "value": float,
            "value_label": str,
            "seed": "int64",
            "n_samples": "int64",
            "metric": str,
            "family": str,
            "sub_score": str,
            "property": str,
            "higher_is_better": bool,
            "ideal": float,
            "score": float,
            "seconds": float,
            "metric_version": str,
            "harness_version": str,
        }
    )


def _atomic_write(target: Path, write: Any) -> None:
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(temporary)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
