"""The harness isolates a user's code that misbehaves: metrics that write into their inputs or exit, scenarios that
fail at one value of their grid, and a run under ``--cell-timeout`` stopped by a signal.

Each case is a way a user's code once broke a promise of the README: a metric writing ``codes *= 0`` changed the
scores of the metrics after it on the same draw (silently); ``sys.exit(3)`` in a metric ended the study with status 3
and no results; a scenario raising at a value its load check does not draw ended in a worker's traceback; SIGTERM
during a metric call under ``--cell-timeout`` left the run waiting for the forked call for as long as it took.

(The read-only views :func:`metrics.evaluate` gives a metric, and every registered metric scoring read-only arrays:
``tests/metrics/test_read_only_inputs.py``.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.cli import Terminated, _sigterm_stops_like_ctrl_c, main
from harness.execution.user_code import UserCodeExit, user_code
from harness.workflows.axioms import check_axioms

ROOT = Path(__file__).resolve().parents[2]
RUN = ["run", "--preset", "quick", "--no-report", "--no-progress", "--jobs", "1", "--scenarios", "noise", "--seeds", "1",
       "--n-samples", "60"]

USER_METRICS = """
import sys

def mutates(factors, codes):
    codes *= 0
    return 0.5

def sorts(factors, codes):
    codes.sort(axis=0)
    return 0.5

def exits(factors, codes):
    sys.exit(3)

def interrupts(factors, codes):
    raise KeyboardInterrupt

def exits_quietly(factors, codes):
    raise SystemExit
"""


@pytest.fixture()
def user_metrics(tmp_path: Path) -> str:
    path = tmp_path / "user_metrics.py"
    path.write_text(USER_METRICS)
    return str(path)


def _run(tmp_path: Path, name: str, metric_list: str, *extra: str) -> tuple[int, pd.DataFrame, pd.DataFrame]:
    """``run`` in process; its exit status, results and failures (empty when none failed)."""
    out = tmp_path / name
    status = main([*RUN, "--metrics", metric_list, "--out", str(out), *extra])
    failures = out / "failures.csv"
    failed = pd.read_csv(failures, dtype={"value_label": str}) if failures.exists() else pd.DataFrame(columns=["error"])
    return status, pd.read_csv(out / "results.csv"), failed


def _scores(frame: pd.DataFrame, metric: str) -> list[float]:
    return frame.loc[frame["metric"] == metric].sort_values("value")["score"].tolist()


# ----------------------------------------------------------------------------------
# metrics that write into their inputs
# ----------------------------------------------------------------------------------

@pytest.mark.parametrize("limit", [[], ["--cell-timeout", "60"]], ids=["in process", "forked (--cell-timeout)"])
@pytest.mark.parametrize("writer", ["mutates", "sorts"])
def test_a_metric_writing_into_its_inputs_fails_its_cells_and_the_others_scores_do_not_move(
        user_metrics, tmp_path, capsys, writer, limit):
    # `mutates,mig`: the metrics of a draw share its arrays, and mig scored 0.0 on the zeroed codes everywhere.
    status, frame, failed = _run(tmp_path, "both", f"{user_metrics}:{writer},mig", *limit)
    _, alone, _ = _run(tmp_path, "alone", "mig")
    assert status == 1
    assert _scores(frame, "mig") == _scores(alone, "mig") and len(_scores(alone, "mig")) == 6
    assert writer not in set(frame["metric"]) and len(failed) == 6
    assert failed["error"].str.startswith(f"InputModifiedError: metric {writer!r} tried to modify its input arrays").all()
    assert failed["error"].str.contains("metrics must not modify factors or codes").all()
    assert "Traceback" not in capsys.readouterr().err


def test_evaluate_command_scores_the_other_metrics_as_if_the_writer_were_not_there(user_metrics, tmp_path, capsys):
    rng = np.random.default_rng(5)
    factors = rng.random((300, 3))
    np.save(tmp_path / "factors.npy", factors)
    np.save(tmp_path / "codes.npy", factors @ (np.eye(3) + 0.3 * rng.random((3, 3))))
    files = ["--factors", str(tmp_path / "factors.npy"), "--codes", str(tmp_path / "codes.npy")]
    assert main(["evaluate", *files, "--metrics", f"{user_metrics}:mutates,mig", "--out", str(tmp_path / "a.csv")]) == 1
    assert main(["evaluate", *files, "--metrics", "mig", "--out", str(tmp_path / "b.csv")]) == 0
    both, alone = pd.read_csv(tmp_path / "a.csv", keep_default_na=False), pd.read_csv(tmp_path / "b.csv")
    assert both.loc[both["metric"] == "mig", "score"].astype(float).tolist() == alone["score"].tolist()
    assert both.loc[both["metric"] == "mutates", "error"].str.contains("tried to modify its input arrays").all()
    assert "Traceback" not in capsys.readouterr().err


# ----------------------------------------------------------------------------------
# user code that exits
# ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("function", "message"), [
    ("exits", "UserCodeExit: metric 'exits' called sys.exit(3)"),
    ("exits_quietly", "UserCodeExit: metric 'exits_quietly' called sys.exit(None)"),
    ("interrupts", "UserCodeExit: metric 'interrupts' raised KeyboardInterrupt itself (no Ctrl-C or SIGTERM arrived)"),
])
@pytest.mark.parametrize("limit", [[], ["--cell-timeout", "60"]], ids=["in process", "forked (--cell-timeout)"])
def test_a_metric_that_exits_fails_its_cells_and_the_study_goes_on(user_metrics, tmp_path, capsys, function, message,
                                                                   limit):
    # sys.exit(3) in a metric ended the study with status 3, no message and no results; KeyboardInterrupt raised by
    # the metric stopped it as Ctrl-C does (status 130).
    status, frame, failed = _run(tmp_path, "run", f"{user_metrics}:{function},mig", *limit)
    assert status == 1 and len(_scores(frame, "mig")) == 6
    assert len(failed) == 6 and failed["error"].str.startswith(message).all()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("warning: 6 cell(s) failed") and "Traceback" not in err


def test_evaluate_and_the_axiom_checks_record_a_metric_that_exits(user_metrics, tmp_path, capsys):
    factors = np.random.default_rng(0).random((100, 2))
    np.save(tmp_path / "f.npy", factors)
    assert main(["evaluate", "--factors", str(tmp_path / "f.npy"), "--codes", str(tmp_path / "f.npy"),
                 "--metrics", f"{user_metrics}:exits,mig", "--out", str(tmp_path / "s.csv")]) == 1
    table = pd.read_csv(tmp_path / "s.csv", keep_default_na=False)
    assert table.loc[table["metric"] == "exits", "error"].str.startswith("UserCodeExit: metric 'exits' called").all()
    assert table.loc[table["metric"] == "mig", "error"].eq("").all()
    results = check_axioms(f"{user_metrics}:exits")
    assert all(not result.passed and result.detail.startswith("the metric raised UserCodeExit on the probe itself: "
                                                              "metric 'exits' called sys.exit(3)") for result in results)


@pytest.mark.parametrize("option", ["--metrics", "--scenarios"])
def test_a_file_that_exits_while_imported_is_a_one_line_usage_error_naming_it(tmp_path, capsys, option):
    path = tmp_path / "exits_at_import.py"
    path.write_text("import sys\nsys.exit(5)\n")
    assert main([*RUN, option, f"{path}:anything", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: importing ")
    assert f"file '{path}' failed: UserCodeExit: the file called sys.exit(5)" in err


def test_the_guard_passes_a_real_ctrl_c_or_sigterm_on_and_turns_a_raised_one_into_an_error():
    handler = signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C while the user's code runs: the run must stop
        with user_code("metric 'm'"):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
    with pytest.raises(Terminated), _sigterm_stops_like_ctrl_c():  # SIGTERM, as the command line handles it
        with user_code("metric 'm'"):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)
    with pytest.raises(UserCodeExit, match="raised KeyboardInterrupt itself"):
        with user_code("metric 'm'"):
            raise KeyboardInterrupt
    assert signal.getsignal(signal.SIGINT) is handler  # the wrapper is gone again
    caught = []

    def in_a_thread() -> None:  # no signal reaches a thread: any KeyboardInterrupt there is raised by the code
        try:
            with user_code("metric 'm'"):
                raise KeyboardInterrupt
        except UserCodeExit as error:
            caught.append(error)

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert len(caught) == 1


# ----------------------------------------------------------------------------------
# scenarios that fail at one value
# ----------------------------------------------------------------------------------

LATE_SCENARIO = """
from scenarios import describe_scenario

@describe_scenario(parameter="a", values=(0.0, 1.0, 2.0, 3.0), ideal={"explicitness": 1.0})
def late(a, n, rng):
    factors = rng.random((n, 3))
    if a == 1.0:
        return factors, factors[:, 0]  # 1-D codes at this value only
    if a == 2.0:
        raise RuntimeError("no data at 2")
    if a == 3.0:
        raise SystemExit(4)
    return factors, factors
"""


def test_a_scenario_failing_at_values_its_load_check_does_not_draw_fails_those_cells(tmp_path, capsys):
    # The load check draws the first value only; the others ended in a worker's traceback (exit status 1, no results).
    path = tmp_path / "late.py"
    path.write_text(LATE_SCENARIO)
    out = tmp_path / "run"
    assert main([*RUN, "--scenarios", f"{path}:late", "--metrics", "mig,modularity", "--out", str(out)]) == 1
    frame = pd.read_csv(out / "results.csv", dtype={"value_label": str})
    failed = pd.read_csv(out / "failures.csv", dtype={"value_label": str}).set_index(["value_label", "metric"])
    assert set(frame["value_label"]) == {"0"} and len(frame) == 2
    assert set(failed.index) == {(value, metric) for value in ("1", "2", "3") for metric in ("mig", "modularity")}
    errors = failed["error"].groupby(level=0).unique().map(list).to_dict()
    assert errors == {
        "1": ["ValueError: scenario 'late' at a = 1 returned codes of shape (60,); expected a 2-D array (samples x "
              "columns)"],
        "2": ["scenario 'late' at a = 2 failed: RuntimeError: no data at 2 (at late.py:10 in late)"],
        "3": ["UserCodeExit: scenario 'late' at a = 3 called sys.exit(4) (code the harness runs must not end the "
              "process: raise an exception instead)"],
    }
    err = capsys.readouterr().err
    assert err.startswith("warning: 6 cell(s) failed") and "Traceback" not in err


@pytest.mark.parametrize(("value", "message"), [
    ("2", "probe {path}:late:2.0: RuntimeError: no data at 2"),
    ("3", "probe {path}:late:3.0: UserCodeExit: scenario '{path}:late' called sys.exit(4)"),
])
def test_validating_on_a_probe_where_the_scenario_fails_is_a_one_line_usage_error(user_metrics, tmp_path, capsys,
                                                                                  value, message):
    path = tmp_path / "late.py"
    path.write_text(LATE_SCENARIO)
    assert main(["validate", f"{user_metrics}:mutates", "--probe", f"{path}:late:{value}", "--metrics", "mig",
                 "--out", str(tmp_path / "card")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {message.format(path=path)}"), err


# ----------------------------------------------------------------------------------
# --cell-timeout and signals: the forked call goes with the run
# ----------------------------------------------------------------------------------

HANGING_METRIC = """
import os, time

def hangs(factors, codes, pause=600):
    with open(os.environ["HANG_MARK"], "a") as mark:
        mark.write(f"{os.getpid()}\\n")
    time.sleep(pause)
    return 1.0
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize(("stop", "status", "word"), [
    ("SIGTERM during a cell", 143, "terminated"),
    ("Ctrl-C during a cell", 130, "interrupted"),
    ("SIGTERM during the option check", 143, "terminated"),
])
@pytest.mark.slow
def test_a_run_under_cell_timeout_stops_at_once_on_a_signal_and_its_forked_call_goes_with_it(tmp_path, stop, status,
                                                                                             word):
    # The run waited for the forked call (join) after SIGTERM: a hanging metric made it unstoppable short of SIGKILL.
    path = tmp_path / "hang.py"
    path.write_text(HANGING_METRIC)
    mark = tmp_path / "mark"
    option = ["--metric-option", f"{path}:hangs:pause=500,600"] if "option" in stop else []
    command = [sys.executable, "-m", "harness", *RUN, "--metrics", f"{path}:hangs", *option, "--cell-timeout", "300",
               "--out", str(tmp_path / "run")]
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "HANG_MARK": str(mark)}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not (mark.exists() and mark.read_text().endswith("\n")):
            assert process.poll() is None and time.monotonic() < deadline, "the metric was never called"
            time.sleep(0.05)
        child = int(mark.read_text().split()[0])
        assert child != process.pid  # the call runs in a forked child
        if stop.startswith("Ctrl-C"):
            os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: to the whole foreground group
        else:
            os.kill(process.pid, signal.SIGTERM)  # what kill PID does: to the run process alone
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert (process.returncode, stderr) == (status, f"{word}; finished cells are saved, rerun the same command to resume\n")
    deadline = time.monotonic() + 10
    while _alive(child):
        assert time.monotonic() < deadline, "the forked metric call outlived the run"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal is Linux's")
def test_a_forked_call_dies_with_a_worker_killed_outright(tmp_path):
    # A worker stopped with its run (joblib, Dask) may be killed with SIGKILL: its forked call must not run on, orphaned.
    script = textwrap.dedent(f"""
        import os, time
        from harness.execution.scoring import call_with_time_limit

        def hang():
            with open({str(tmp_path / 'mark')!r}, "w") as mark:
                mark.write(f"{{os.getpid()}}\\n")
            time.sleep(600)

        call_with_time_limit(hang, 300)
    """)
    worker = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    mark = tmp_path / "mark"
    try:
        deadline = time.monotonic() + 60
        while not (mark.exists() and mark.read_text().endswith("\n")):
            assert worker.poll() is None and time.monotonic() < deadline, "the call was never made"
            time.sleep(0.05)
        child = int(mark.read_text())
        worker.kill()
        worker.wait(timeout=30)
        deadline = time.monotonic() + 10
        while _alive(child) and not _zombie(child):
            assert time.monotonic() < deadline, "the forked call outlived its killed parent"
            time.sleep(0.05)
    finally:
        if worker.poll() is None:
            worker.kill()


def _zombie(pid: int) -> bool:
    """Whether ``pid`` has exited and waits to be reaped (by init, once orphaned)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except FileNotFoundError:
        return False
