"""Running studies: determinism across workers, the results table, resuming."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from harness.runner import run_study
from harness.store import COLUMNS, ResultStore

SMALL = dict(preset="quick", scenarios_=["noise", "mixing"], metrics_=["mig", "jemmig"], seeds=2, n_samples=400, progress=False)


def test_results_table_is_tidy_and_complete():
    frame = run_study(**SMALL)
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == (6 + 6) * 2 * 2  # values x seeds x metrics, one sub-score each
    assert np.isfinite(frame["score"]).all()
    noise = frame[(frame.scenario == "noise") & (frame.metric == "mig")]
    assert set(noise["property"]) == {"compactness"}
    assert noise["ideal"].eq(1.0).all()
    assert set(frame.loc[frame.metric == "jemmig", "ideal"].isna()) == {True}  # holistic: no ideal
    assert (frame["seconds"] >= 0).all()


def test_worker_count_does_not_change_any_score():
    one = run_study(**SMALL, jobs=1)
    two = run_study(**SMALL, jobs=2)
    pd.testing.assert_frame_equal(one.drop(columns="seconds"), two.drop(columns="seconds"))


def test_rerun_reuses_finished_cells_and_gives_the_same_table(tmp_path):
    messages = []
    first = run_study(**SMALL, out=tmp_path, log=messages.append)
    again = run_study(**SMALL, out=tmp_path, log=messages.append)
    pd.testing.assert_frame_equal(first, again)
    assert messages == [f"skipping 48 finished cell(s) found in {tmp_path}; computing 0"]
    assert (tmp_path / "results.parquet").exists() and (tmp_path / "results.csv").exists()
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "results.parquet"), first)


def test_truncated_last_line_is_recomputed_not_lost(tmp_path):
    complete = run_study(**SMALL, out=tmp_path)
    cells = (tmp_path / "cells.jsonl").read_bytes()
    (tmp_path / "cells.jsonl").write_bytes(cells[: len(cells) - 40])  # a writer killed mid-line
    messages = []
    resumed = run_study(**SMALL, out=tmp_path, log=messages.append)
    assert messages == [f"skipping 47 finished cell(s) found in {tmp_path}; computing 1"]
    pd.testing.assert_frame_equal(complete.drop(columns="seconds"), resumed.drop(columns="seconds"))
    lines = (tmp_path / "cells.jsonl").read_bytes().splitlines()
    assert all(json.loads(line) for line in lines)


def test_a_changed_option_does_not_reuse_stale_cells(tmp_path, monkeypatch):
    run_study(**SMALL, out=tmp_path)
    import harness.metric_refs as refs

    original = refs.registered_entry

    def with_other_bins(name):
        entry = original(name)
        return refs.MetricEntry(**{**entry.__dict__, "options": {**entry.options, "bins": 20}})

    monkeypatch.setattr(refs, "registered_entry", with_other_bins)
    messages = []
    frame = run_study(**SMALL, out=tmp_path, log=messages.append)
    assert messages == []  # nothing reused
    assert len(ResultStore(tmp_path).cells()) == 96


def test_unknown_names_are_clear_errors():
    with pytest.raises(KeyError, match="unknown scenario 'nope'"):
        run_study(**{**SMALL, "scenarios_": ["nope"]})
    with pytest.raises(KeyError, match="unknown metric 'nope'"):
        run_study(**{**SMALL, "metrics_": ["nope"]})
    with pytest.raises(ValueError, match="unknown preset"):
        run_study(**{**SMALL, "preset": "nope"})
