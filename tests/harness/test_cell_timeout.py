"""A per-cell time limit: a metric that runs too long becomes a failed cell, and the study goes on."""

from __future__ import annotations

import time

import pandas as pd
import pytest

from harness.cli import main
from harness.execution.runner import run_study
from reports.results.schema import TIMING_COLUMNS

SLOW_METRIC = """
import time

def slow_on_noise(factors, codes):
    # Sleeps far past the limit where the first code is mostly noise, answers at once elsewhere.
    import numpy as np
    if abs(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1]) < 0.5:
        time.sleep(60)
    return 0.5
"""


@pytest.fixture()
def slow_metric(tmp_path):
    path = tmp_path / "slow.py"
    path.write_text(SLOW_METRIC)
    return f"{path}:slow_on_noise"


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sequential", "loky"])
def test_a_sleeping_metric_times_out_and_the_study_goes_on(slow_metric, tmp_path, backend):
    messages = []
    started = time.perf_counter()
    frame = run_study(preset="quick", scenarios_=["noise"], metrics_=[slow_metric, "mig"], seeds=1, n_samples=300,
                      cell_timeout=1.0, jobs=2, backend=backend, progress=False, out=tmp_path / "run",
                      log=messages.append)
    elapsed = time.perf_counter() - started
    failures = pd.read_csv(tmp_path / "run" / "failures.csv", dtype={"value_label": str})
    assert set(failures["value_label"]) == {"0.8", "1"}  # the two noisiest values have no correlation left
    assert (failures["error"] == "timed out after 1 s").all()
    assert len(frame[frame.metric == "slow_on_noise"]) == 4 and len(frame[frame.metric == "mig"]) == 6
    assert (frame.loc[frame.metric == "slow_on_noise", "score"] == 0.5).all()
    assert elapsed < 30, "the sleeping calls were not stopped"
    assert any(message.startswith("warning: 2 cell(s) failed") for message in messages)


def test_metric_errors_cross_the_time_limit_unchanged(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def broken(factors, codes):\n    raise ArithmeticError('no answer here')\n")
    frame = run_study(preset="quick", scenarios_=["noise"], metrics_=[f"{path}:broken", "mig"], seeds=1,
                      n_samples=200, cell_timeout=30.0, backend="sequential", progress=False)
    # the same text as in this process, the line that raised included (a traceback is not pickled with its error)
    assert {failure["error"] for failure in frame.attrs["failures"]} == {
        "ArithmeticError: no answer here (at broken.py:2 in broken)"}
    in_process = run_study(preset="quick", scenarios_=["noise"], metrics_=[f"{path}:broken"], seeds=1, n_samples=200,
                           backend="sequential", progress=False)
    assert {failure["error"] for failure in in_process.attrs["failures"]} == {
        "ArithmeticError: no answer here (at broken.py:2 in broken)"}
    without_limit = run_study(preset="quick", scenarios_=["noise"], metrics_=["mig"], seeds=1, n_samples=200,
                              backend="sequential", progress=False)
    pd.testing.assert_frame_equal(frame.drop(columns=list(TIMING_COLUMNS)), without_limit.drop(columns=list(TIMING_COLUMNS)))


def test_cell_timeout_on_the_command_line(slow_metric, tmp_path, capsys):
    status = main(["run", "--preset", "quick", "--scenarios", "noise", "--metrics", slow_metric, "--seeds", "1",
                   "--n-samples", "300", "--cell-timeout", "1", "--jobs", "1", "--no-report", "--no-progress",
                   "--out", str(tmp_path / "cli")])
    assert status == 1  # cells failed
    assert "timed out after 1 s" in capsys.readouterr().err
    assert main(["run", "--cell-timeout", "0", "--no-report"]) == 2
    assert main(["run", "--cell-timeout", "soon", "--no-report"]) == 2


def test_a_cell_time_limit_is_refused_on_the_threading_backend():
    with pytest.raises(ValueError, match="unsafe from threads"):
        run_study(preset="quick", scenarios_=["noise"], metrics_=["mig"], seeds=1, n_samples=200, cell_timeout=5.0,
                  backend="threading", jobs=2, progress=False)


def test_a_worker_imports_the_metrics_once_before_forking_not_in_every_timed_child(tmp_path, fresh_python):
    """A process worker receives its cells pickled and has looked no metric up: the registry's first lookup, which
    imports every built-in metric's module, ran in each forked child and was discarded with it (0.5 CPU-s a cell, a
    second or more of a 1 s limit on a busy machine: every cell timed out).  Here a fresh process, as a worker, gets a
    pickled task and scores it under a limit: the built-ins are imported in it, before the forks."""
    import cloudpickle  # as loky sends a task to its workers (a dependency of joblib)

    from harness.execution.metric_refs import resolve_all
    from harness.execution.plan import plan_cells, plan_tasks

    cells = plan_cells(study="t", scenario_names=["noise"], metric_entries=resolve_all(["mig"]), seeds=1, n_samples=200)
    (tmp_path / "task.pickle").write_bytes(cloudpickle.dumps(plan_tasks(cells)[0]))
    probe = ("import pickle, sys\n"
             "import harness.execution.scoring as scoring\n"
             "forks, limited = [], scoring.call_with_time_limit\n"
             "def spy(call, seconds):\n"  # whether the built-ins are imported when a cell's child is forked
             "    forks.append('metrics.dci_rf' in sys.modules)\n"
             "    return limited(call, seconds)\n"
             "scoring.call_with_time_limit = spy\n"
             f"task = pickle.loads(open({str(tmp_path / 'task.pickle')!r}, 'rb').read())\n"
             "before = 'metrics.dci_rf' in sys.modules\n"
             "outcomes = scoring.run_task(task, cell_timeout=60.0)\n"
             "print(before, len(forks), all(forks), all(failure is None for _, _, failure, _ in outcomes))")
    assert fresh_python(probe).split() == ["False", "1", "True", "True"]


def _timed_in_a_daemon(answers) -> None:
    """A daemonic process (as a Dask worker is) calling two metric calls under a time limit: one answering, one not."""
    from harness.execution.scoring import CellTimeout, call_with_time_limit

    try:
        answers.put(call_with_time_limit(lambda: 42, 10))
        call_with_time_limit(lambda: time.sleep(30), 0.5)
    except CellTimeout as error:
        answers.put(str(error))
    except BaseException as error:  # noqa: BLE001 - what the parent must see
        answers.put(f"{type(error).__name__}: {error}")


def test_a_time_limited_call_runs_in_a_daemonic_worker():
    # every cell of --backend dask --cell-timeout failed: "daemonic processes are not allowed to have children"
    import multiprocessing

    context = multiprocessing.get_context("fork")
    answers = context.Queue()
    worker = context.Process(target=_timed_in_a_daemon, args=(answers,), daemon=True)
    worker.start()
    received = [answers.get(timeout=60), answers.get(timeout=60)]
    worker.join(timeout=60)
    assert received == [42, "timed out after 0.5 s"]


def test_a_timed_out_cell_is_computed_again_by_the_next_run(tmp_path):
    # stored as a finished cell, it was skipped by every rerun, whatever the limit: "timed out after 1 s" even with
    # no --cell-timeout at all
    path = tmp_path / "nap.py"
    path.write_text("import time\n\ndef nap(factors, codes):\n    time.sleep(0.2)\n    return 0.5\n")
    study = dict(preset="quick", scenarios_=["noise"], metrics_=[f"{path}:nap"], seeds=1, n_samples=100,
                 progress=False, out=tmp_path / "run", backend="sequential")
    first = run_study(**study, cell_timeout=0.05, log=lambda _: None)
    assert first.empty and len(pd.read_csv(tmp_path / "run" / "failures.csv")) == 6
    messages: list[str] = []
    again = run_study(**study, log=messages.append)  # no limit now
    assert (again["score"] == 0.5).all() and len(again) == 6
    assert "computing again 6 cell(s) that timed out before (a time limit is the run's, not the metric's)" in messages
    assert not (tmp_path / "run" / "failures.csv").exists()
