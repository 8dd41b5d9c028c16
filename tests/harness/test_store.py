"""The results store under real failures: ``kill -9`` at random moments, and two
concurrent runs writing into one directory.

Each test drives the real command line (``python -m harness run``) in subprocesses, so
what is proved is what a user gets: a rerun after a crash skips the finished cells,
says how many, recomputes none of them, loses none, and ends with the same table as an
uninterrupted run (the ``seconds`` column aside, which is wall-clock time).
"""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.execution.runner import run_study
from reports.results.schema import TIMING_COLUMNS

ROOT = Path(__file__).resolve().parents[2]
METRICS = "mig,jemmig,mig_sup,modularity,explicitness"  # explicitness (~0.2 s a call) keeps the run long enough to interrupt
SCENARIOS = "noise,mixing"
SEEDS = 1
N_SAMPLES = 4000
TOTAL_CELLS = (6 + 6) * SEEDS * 5  # values x seeds x metrics
IDENTITY = ["scenario", "value", "seed", "n_samples", "metric", "sub_score"]
SKIPPED = re.compile(r"skipping (\d+) finished cell\(s\) found in .*; computing (\d+)")


def _command(out: Path, jobs: int = 1, backend: str = "loky") -> list[str]:
    return [
        sys.executable, "-m", "harness", "run", "--preset", "quick",
        "--scenarios", SCENARIOS, "--metrics", METRICS, "--seeds", str(SEEDS),
        "--n-samples", str(N_SAMPLES), "--jobs", str(jobs), "--backend", backend,
        "--out", str(out), "--no-report", "--no-progress",
    ]  # fmt: skip


def _start(out: Path, jobs: int = 1, backend: str = "loky") -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # A new session, so that SIGKILL reaches the run and any worker processes it started (and SIGINT, as Ctrl-C in a
    # terminal does: to the whole foreground process group).
    return subprocess.Popen(
        _command(out, jobs, backend), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )


def _finish(process: subprocess.Popen) -> str:
    stdout, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    return stdout


def _complete_lines(out: Path) -> list[bytes]:
    """The newline-terminated lines of cells.jsonl (read independently of the store's code)."""
    path = out / "cells.jsonl"
    if not path.exists():
        return []
    data = path.read_bytes()
    return data[: data.rfind(b"\n") + 1].splitlines(keepends=True)


def _keys(lines: list[bytes]) -> set[str]:
    return {json.loads(line)["key"] for line in lines}


def _table(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "results.csv").drop(columns=list(TIMING_COLUMNS))


def _kill_when(process: subprocess.Popen, out: Path, *, after_lines: int | None, delay: float) -> None:
    """SIGKILL the run ``delay`` seconds after cells.jsonl holds ``after_lines`` lines (or after start)."""
    deadline = time.monotonic() + 60
    if after_lines is not None:
        while len(_complete_lines(out)) < after_lines and process.poll() is None:
            assert time.monotonic() < deadline, "the run wrote no cells within 60 s"
            time.sleep(0.001)
    time.sleep(delay)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate(timeout=60)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> pd.DataFrame:
    """The table of an uninterrupted run."""
    out = tmp_path_factory.mktemp("uninterrupted")
    stdout = _finish(_start(out))
    assert f"{TOTAL_CELLS} result rows" in stdout  # one sub-score per cell for these metrics
    table = _table(out)
    assert len(table) == TOTAL_CELLS and np.isfinite(table["score"]).all()
    return table


@pytest.mark.slow
def test_kill_9_at_random_moments_then_rerun_gives_the_uninterrupted_table(tmp_path, reference):
    rng = np.random.default_rng(20221)  # the kill moments are drawn, but reproducibly
    moments = [
        (None, float(rng.uniform(0.0, 2.5))),  # anywhere from interpreter start-up on
        (float(rng.uniform(0.05, 0.4)), float(rng.uniform(0.0, 0.02))),  # after this share of the remaining cells
        (float(rng.uniform(0.5, 0.95)), float(rng.uniform(0.0, 0.02))),
    ]
    killed_mid_run = 0
    for share, delay in moments:
        before = _complete_lines(tmp_path)
        remaining = TOTAL_CELLS - len(_keys(before))
        after_lines = None if share is None else len(before) + max(1, int(share * remaining))
        _kill_when(_start(tmp_path), tmp_path, after_lines=after_lines, delay=delay)
        after = _complete_lines(tmp_path)
        assert after[: len(before)] == before, "a kill lost or rewrote cells that were already finished"
        killed_mid_run += len(after) > len(before) and len(_keys(after)) < TOTAL_CELLS
    assert killed_mid_run >= 2, "the kills did not interrupt the computation; the test proved nothing"

    on_disk = _complete_lines(tmp_path)
    finished = len(_keys(on_disk))
    stdout = _finish(_start(tmp_path))
    match = SKIPPED.search(stdout)
    assert match is not None, stdout
    assert (int(match[1]), int(match[2])) == (finished, TOTAL_CELLS - finished)

    final_lines = _complete_lines(tmp_path)
    assert final_lines[: len(on_disk)] == on_disk  # nothing finished was recomputed or lost
    assert len(final_lines) == TOTAL_CELLS and len(_keys(final_lines)) == TOTAL_CELLS
    assert (tmp_path / "cells.jsonl").read_bytes().endswith(b"\n")  # the killed tail was repaired
    pd.testing.assert_frame_equal(_table(tmp_path), reference)


@pytest.mark.slow
@pytest.mark.parametrize(("backend", "stop"), [("loky", "ctrl-c"), ("dask", "ctrl-c"), ("loky", "kill")])
def test_ctrl_c_or_kill_says_how_to_resume_in_one_line_and_the_rerun_finishes_the_table(tmp_path, reference, backend, stop):
    # Ctrl-C with a local Dask cluster: each worker process printed a KeyboardInterrupt traceback and the cancelled
    # tasks' warnings over the run's message.  kill PID (SIGTERM) ended the run at once, silently, and left its loky
    # workers running, orphaned, for minutes.
    process = _start(tmp_path, jobs=2, backend=backend)
    deadline = time.monotonic() + 60
    while len(_complete_lines(tmp_path)) < 2 and process.poll() is None:
        assert time.monotonic() < deadline, "the run wrote no cells within 60 s"
        time.sleep(0.01)
    if stop == "ctrl-c":
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: to the whole foreground group
    else:
        os.kill(process.pid, signal.SIGTERM)  # what kill PID does: to the run process alone
    stdout, stderr = process.communicate(timeout=60)
    finished = len(_keys(_complete_lines(tmp_path)))
    assert finished < TOTAL_CELLS, "the run ended before it was stopped; the test proved nothing"
    status, word = (130, "interrupted") if stop == "ctrl-c" else (143, "terminated")
    first, *rest = stderr.splitlines()
    assert (process.returncode, stdout, first) == (status, "", f"{word}; finished cells are saved, rerun the same command to resume")
    # loky's resource tracker, a process of its own, may warn of the semaphores of the workers joblib killed (a race
    # in loky, rare): nothing else may follow
    assert all("resource_tracker" in line or line.strip() == "warnings.warn(" for line in rest), stderr
    while time.monotonic() < deadline:  # the workers go with the run
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("processes of the interrupted run are still running")

    match = SKIPPED.search(_finish(_start(tmp_path, jobs=2, backend=backend)))
    assert match is not None and (int(match[1]), int(match[2])) == (finished, TOTAL_CELLS - finished)
    assert len(_complete_lines(tmp_path)) == TOTAL_CELLS
    pd.testing.assert_frame_equal(_table(tmp_path), reference)


@pytest.mark.slow
def test_two_concurrent_runs_into_one_directory_do_not_corrupt_it(tmp_path, reference):
    first, second = _start(tmp_path), _start(tmp_path)
    outputs = [_finish(first), _finish(second)]
    for stdout in outputs:
        assert f"{TOTAL_CELLS} result rows" in stdout
    lines = _complete_lines(tmp_path)
    assert (tmp_path / "cells.jsonl").read_bytes() == b"".join(lines)  # no partial or torn line
    assert all(json.loads(line)["rows"] for line in lines)
    assert len(_keys(lines)) == len(lines) == TOTAL_CELLS  # a cell both runs finished is stored once
    table = _table(tmp_path)
    assert not table.duplicated(IDENTITY).any()
    pd.testing.assert_frame_equal(table, reference)
    parquet = pd.read_parquet(tmp_path / "results.parquet").drop(columns=list(TIMING_COLUMNS))
    assert len(parquet) == TOTAL_CELLS and not parquet.duplicated(IDENTITY).any()


def test_results_files_get_the_users_normal_permissions(tmp_path):
    # tempfile.mkstemp creates 0600 files; the tables must be readable like every other output (0666 less the umask).
    previous = os.umask(0o022)
    try:
        run_study(preset="quick", scenarios_=["noise"], metrics_=["mig"], seeds=1, n_samples=200, progress=False,
                  out=tmp_path / "run")
        plain = tmp_path / "plain.txt"
        plain.write_text("x")
    finally:
        os.umask(previous)
    expected = stat.S_IMODE(plain.stat().st_mode)
    assert expected == 0o644
    for name in ("results.parquet", "results.csv", "cells.jsonl"):
        assert stat.S_IMODE((tmp_path / "run" / name).stat().st_mode) == expected, name


def test_a_run_reads_its_cells_file_once(tmp_path, monkeypatch):
    from harness.execution.runner import plan_study, run_study
    from harness.execution.store import ResultStore

    reads = []
    original = ResultStore.records
    monkeypatch.setattr(ResultStore, "records", lambda self: reads.append(1) or original(self))
    study = dict(preset="quick", scenarios_=["noise"], seeds=1, n_samples=300)
    half = run_study(metrics_=["mig"], out=tmp_path, progress=False, **study)
    frame = run_study(metrics_=["mig", "sap"], out=tmp_path, progress=False, **study)  # resumes mig, computes sap
    assert len(reads) == 2 and len(half) > 0
    # the table built from what was on disk and what was computed is the one the file holds, in plan order
    keys = [cell.key for cell in plan_study(metrics_=["mig", "sap"], **study)]
    on_disk, failed = ResultStore(tmp_path).results(keys)
    assert on_disk.equals(frame) and failed.empty and set(frame["metric"]) == {"mig", "sap"}
    assert frame.loc[frame["metric"] == "mig"].reset_index(drop=True).equals(half)


def test_a_task_is_persisted_with_one_sync_and_every_cell_is_read_back(tmp_path, monkeypatch):
    from harness.execution.plan import plan_tasks
    from harness.execution.runner import plan_study, run_study
    from harness.execution.store import ResultStore

    study = dict(preset="quick", scenarios_=["noise"], metrics_=["mig", "sap"], seeds=1, n_samples=300)
    syncs = []
    original = os.fsync
    def counted(fd):  # the syncs of the cells file (the tables are synced when written too)
        if os.readlink(f"/proc/self/fd/{fd}").endswith("cells.jsonl"):
            syncs.append(fd)
        original(fd)

    monkeypatch.setattr(os, "fsync", counted)
    frame = run_study(**study, out=tmp_path, progress=False)
    cells = plan_study(**study)
    assert len(syncs) == len(plan_tasks(cells)) < len(cells)
    assert set(ResultStore(tmp_path).cells()) == {cell.key for cell in cells}
    assert ResultStore(tmp_path).results()[0].equals(frame)


def test_a_cell_another_writer_stored_first_is_not_appended_again(tmp_path):
    from harness.execution.store import ResultStore

    first, second = ResultStore(tmp_path), ResultStore(tmp_path)
    assert first.records() == second.records() == {}  # two runs start on an empty store
    frame = run_study(preset="quick", scenarios_=["noise"], metrics_=["mig"], seeds=1, n_samples=50, progress=False)
    row = frame.iloc[0].to_dict()  # a whole row (every column, of its type): a line is reused only when it is one
    row = {**{key: value.item() if hasattr(value, "item") else value for key, value in row.items()}, "exact": 0.5,
           "null_mean": 0.25, "null_q95": 0.5, "p_value": 0.5}  # no NaN, which a line read back never equals
    first.append_many([("a", [row], None), ("b", [row], None)])
    second.append_many([("b", [{**row, "score": 2.0}], None), ("c", [row], None)])  # b: the first writer's is kept
    first.append_many([("c", [row], None), ("d", [row], None)])
    lines = [json.loads(line) for line in (tmp_path / "cells.jsonl").read_bytes().splitlines()]
    assert [(line["key"], line["rows"]) for line in lines] == [("a", [row]), ("b", [row]), ("c", [row]), ("d", [row])]
    assert set(ResultStore(tmp_path).records()) == {"a", "b", "c", "d"}
