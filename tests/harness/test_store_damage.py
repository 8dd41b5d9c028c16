"""The results store given damaged lines of ``cells.jsonl`` that look whole.

Each case is a way such a line once broke a promise of the README: a line that looked whole (``"rows": [1, 2]``, a
NaN score, no rows and no failure) gave a traceback, a NaN in ``results.csv`` or a vanished cell.  A damaged line is
not reused: the rerun recomputes its cell, says so, and ends with the table of the undamaged run.  A line nested deeper
than the JSON parser allows is damaged, not fatal.

(``kill -9`` and concurrent writers: ``test_store.py``; damage drawn at random: ``test_parsers_and_loaders.py``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from harness.cli import main
from harness.execution.store import ResultStore
from reports.results.schema import TIMING_COLUMNS


def _damaged(run: Path, tmp_path: Path, damage) -> Path:
    out = tmp_path / "damaged"
    out.mkdir()
    lines = (run / "cells.jsonl").read_text().splitlines()
    record = json.loads(lines[2])
    damage(record)
    lines[2] = json.dumps(record)
    (out / "cells.jsonl").write_text("\n".join(lines) + "\n")
    return out


def _set(field, value):
    return lambda record: record["rows"][0].__setitem__(field, value)


DAMAGES = [
    ("rows of numbers", lambda record: record.__setitem__("rows", [1, 2])),
    ("a NaN score", _set("score", float("nan"))),
    ("an infinite score", _set("score", float("inf"))),
    ("a text score", _set("score", "0.5")),
    ("no rows and no failure", lambda record: record.__setitem__("rows", [])),
    ("a row missing its score", lambda record: record["rows"][0].pop("score")),
    ("a fractional seed", _set("seed", 0.5)),
    ("a boolean seed", _set("seed", False)),
    ("a numeric metric name", _set("metric", 7)),
    ("a direction in words", _set("higher_is_better", "yes")),
    ("rows and a failure", lambda record: record.__setitem__("failure", {"error": "x"})),
    ("a failure missing its error", lambda record: record.update(rows=[], failure={"metric": "mig"})),
    ("a null failure", lambda record: record.__setitem__("failure", None)),
]


@pytest.mark.parametrize("damage", [d[1] for d in DAMAGES], ids=[d[0] for d in DAMAGES])
def test_a_damaged_line_that_looks_whole_is_recomputed(tiny_run_command, tiny_run, tmp_path, capsys, damage):
    out = _damaged(tiny_run, tmp_path, damage)
    assert len(ResultStore(out).records()) == 5  # the damaged line is not reused
    capsys.readouterr()
    assert main([*tiny_run_command, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "skipping 5 finished cell(s)" in captured.out and "computing 1" in captured.out
    assert f"note: 1 damaged line(s) of {out / 'cells.jsonl'} were ignored" in captured.out
    assert "Traceback" not in captured.err + captured.out
    expected = pd.read_csv(tiny_run / "results.csv").drop(columns=list(TIMING_COLUMNS))
    pd.testing.assert_frame_equal(pd.read_csv(out / "results.csv").drop(columns=list(TIMING_COLUMNS)), expected)


def test_a_line_nested_deeper_than_the_parser_allows_is_damaged_not_fatal(tiny_run, tmp_path):
    out = tmp_path / "deep"
    out.mkdir()
    lines = (tiny_run / "cells.jsonl").read_bytes().splitlines(keepends=True)
    (out / "cells.jsonl").write_bytes(b"".join(lines[:3]) + b"[" * 100_000 + b"]" * 100_000 + b"\n" + b"".join(lines[3:]))
    assert len(ResultStore(out).records()) == 6
