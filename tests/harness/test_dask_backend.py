"""The Dask backend against a real ``dask.distributed.LocalCluster`` (no mock).

Scores must be bit-identical to a sequential ``--jobs 1`` run whether the runner starts
its own local cluster or is pointed at a running scheduler, workers must run BLAS and
OpenMP single-threaded, and the cluster the runner started must be gone afterwards.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from dask.distributed import Client

from harness.cli import main
from harness.errors import UsageError
from harness.execution import backends
from harness.execution.backends import check_scheduler, dask_client
from harness.execution.runner import execute, run_study
from reports.results.schema import TIMING_COLUMNS

SMALL = dict(preset="quick", scenarios_=["noise", "mixing"], metrics_=["mig", "modularity"], seeds=1, n_samples=600, progress=False)


@pytest.fixture(scope="module")
def sequential() -> pd.DataFrame:
    return run_study(**SMALL, jobs=1, backend="sequential")


@pytest.fixture(scope="module")
def scheduler():
    """The address of a real LocalCluster started by :func:`dask_client`, as a scheduler
    that a later run did not start and must leave running."""
    with dask_client(workers=2) as client:
        client.wait_for_workers(2, timeout=120)  # dask_client yields once its first worker is up
        yield client.scheduler.address


def _worker_environment(address: str) -> dict[str, list]:
    with Client(address, set_as_default=False) as client:
        threads = sorted(client.nthreads().values())
        omp = sorted(client.run(lambda: os.environ.get("OMP_NUM_THREADS", "unset")).values())
        blas = sorted(client.run(lambda: os.environ.get("OPENBLAS_NUM_THREADS", "unset")).values())
    return {"threads": threads, "omp": omp, "blas": blas}


@pytest.mark.slow
def test_local_cluster_workers_are_single_threaded(scheduler):
    assert _worker_environment(scheduler) == {"threads": [1, 1], "omp": ["1", "1"], "blas": ["1", "1"]}


@pytest.mark.slow
def test_local_cluster_workers_run_without_the_profiler_and_the_malloc_trim_setting(scheduler):
    """Both slowed every metric call on a local cluster (backends.LOCAL_CLUSTER_CONFIG)."""
    with Client(scheduler, set_as_default=False) as client:
        settings = client.run(lambda dask_worker: (os.environ.get("MALLOC_TRIM_THRESHOLD_", "unset"),
                                                   "profile" in dask_worker.periodic_callbacks))
    assert sorted(settings.values()) == [("unset", False), ("unset", False)]


@pytest.mark.slow
def test_own_local_cluster_gives_bit_identical_scores_and_is_closed_after(sequential):
    children = set(multiprocessing.active_children())
    frame = run_study(**SMALL, jobs=2, backend="dask")
    pd.testing.assert_frame_equal(frame.drop(columns=list(TIMING_COLUMNS)), sequential.drop(columns=list(TIMING_COLUMNS)), check_exact=True)
    assert set(multiprocessing.active_children()) == children, "the run's local cluster outlived it"


@pytest.mark.slow
def test_cli_on_a_running_scheduler_matches_jobs_1_bit_for_bit(scheduler, sequential, tmp_path, capsys):
    common = ["run", "--preset", "quick", "--scenarios", "noise,mixing", "--metrics", "mig,modularity", "--seeds", "1",
              "--n-samples", "600", "--no-report", "--no-progress"]  # fmt: skip
    assert main([*common, "--backend", "dask", "--scheduler", scheduler, "--out", str(tmp_path / "dask")]) == 0
    assert main([*common, "--jobs", "1", "--out", str(tmp_path / "one")]) == 0
    assert "24 result rows" in capsys.readouterr().out
    dask_table = pd.read_parquet(tmp_path / "dask" / "results.parquet").drop(columns=list(TIMING_COLUMNS))
    one_table = pd.read_parquet(tmp_path / "one" / "results.parquet").drop(columns=list(TIMING_COLUMNS))
    pd.testing.assert_frame_equal(dask_table, one_table, check_exact=True)
    pd.testing.assert_frame_equal(one_table, sequential.drop(columns=list(TIMING_COLUMNS)), check_exact=True)
    assert _worker_environment(scheduler)["threads"] == [1, 1]  # the cluster the run did not start is still up


def test_a_local_cluster_whose_workers_do_not_start_is_a_clear_error(monkeypatch):
    # the local cluster is handed over once its first worker is up; if none comes up, say so instead of waiting forever
    monkeypatch.setattr(backends, "WORKER_START_TIMEOUT", 0.001)
    with pytest.raises(RuntimeError, match="no worker of the local Dask cluster started within 0.001 s"):
        with dask_client(workers=1):
            pass


@pytest.mark.slow
def test_a_script_without_a_main_guard_is_told_so_at_once(tmp_path):
    # Dask's worker processes import the script again: unguarded, each started the study (and a cluster) again, the
    # run waited 120 s for workers that never came and printed a page of Dask errors with no word of the cause
    script = tmp_path / "unguarded.py"
    script.write_text("from harness import run_study\n"
                      "run_study(preset='quick', scenarios_=['noise'], metrics_=['mig'], seeds=1, n_samples=300, "
                      "backend='dask', progress=False)\n")
    # the timeout stands for "at once": the unguarded run waited 120 s for its workers
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=110, cwd=tmp_path)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: every worker of the local Dask cluster failed to start")
    assert "if __name__ == \"__main__\":" in last


BUSY_METRIC = """
import pathlib, time

def busy(z, v):
    pathlib.Path(__file__).with_name("started").touch()
    end = time.monotonic() + 120
    while time.monotonic() < end:  # a metric call in pure Python: Dask cannot interrupt it
        sum(range(10000))
    return {"busy": 0.5}
"""


@pytest.mark.slow
def test_ctrl_c_while_a_worker_is_busy_in_a_long_cell_still_ends_in_one_line(tmp_path):
    # CI, 2026-11-27: a cell outlasted the 4 s a nanny gives its worker to close, and the nanny's "Worker process
    # still alive after 4.0 seconds, killing" came before the run's one line.  Here the cell never ends by itself.
    (tmp_path / "busy_metric.py").write_text(BUSY_METRIC)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(Path(__file__).resolve().parents[2])])}
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "run", "--preset", "quick", "--scenarios", "noise", "--metrics",
         "busy_metric:busy", "--seeds", "1", "--n-samples", "200", "--jobs", "1", "--backend", "dask",
         "--out", str(tmp_path / "run"), "--no-report", "--no-progress"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    started = tmp_path / "started"
    deadline = time.monotonic() + 100
    try:
        while not started.exists():
            assert process.poll() is None, f"the run ended before its cell started: {process.communicate()[1]}"
            assert time.monotonic() < deadline, "the busy metric did not start within 100 s"
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole foreground group
        stdout, stderr = process.communicate(timeout=60)  # the cell alone would run 120 s
    finally:  # whatever failed above leaves no busy worker behind
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert (process.returncode, stdout, stderr) == (
        130, "", "interrupted; finished cells are saved, rerun the same command to resume\n"
    )


def test_unreachable_scheduler_is_a_clear_error():
    with pytest.raises(ValueError, match=r"cannot connect to the Dask scheduler at 'tcp://127\.0\.0\.1:9'"):
        with dask_client("tcp://127.0.0.1:9", timeout="1s"):
            pass


def test_scheduler_without_dask_backend_is_rejected(capsys):
    with pytest.raises(ValueError, match="only used by backend 'dask'"):
        list(execute([], backend="loky", scheduler="tcp://127.0.0.1:9"))
    assert main(["run", "--scheduler", "tcp://127.0.0.1:9", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "--scheduler is only used with --backend dask" in err and err.count("\n") == 1


@pytest.fixture
def not_a_scheduler():
    """The address of a TCP server that is not Dask: ``silent`` accepts and never answers (a web server waiting for
    its request), ``chatty`` answers every connection with an HTTP response."""
    servers = {}
    for kind in ("silent", "chatty"):
        listener = socket.create_server(("127.0.0.1", 0))
        servers[kind] = listener

        def serve(listener=listener, kind=kind):
            connections = []
            while True:
                try:
                    connection, _ = listener.accept()
                except OSError:  # closed at teardown
                    break
                connections.append(connection)
                if kind == "chatty":
                    connection.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n" * 4)
            for connection in connections:
                connection.close()

        threading.Thread(target=serve, daemon=True).start()
    yield {kind: f"tcp://127.0.0.1:{listener.getsockname()[1]}" for kind, listener in servers.items()}
    for listener in servers.values():
        listener.close()


def _in_thread(call, seconds):
    """``call()``'s exception, or a test failure if it has not returned after ``seconds`` (instead of a hung suite)."""
    outcome = {}

    def run():
        try:
            call()
        except BaseException as error:  # noqa: BLE001
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    return outcome.get("error")


def test_a_server_that_is_not_a_scheduler_is_a_clear_error_not_a_hang(not_a_scheduler):
    # a Client on a port that accepts but never speaks Dask (the dashboard's, a web server) waited for ever
    def connect(address):
        with dask_client(address, timeout="1s"):
            pass

    error = _in_thread(lambda: connect(not_a_scheduler["silent"]), 10)
    assert isinstance(error, UsageError), error
    assert str(error) == (f"cannot connect to the Dask scheduler at {not_a_scheduler['silent']!r}: the server there sent "
                          "no Dask answer within 2 s (a scheduler listens on port 8786 by default, its dashboard (http) on 8787)")
    error = _in_thread(lambda: connect(not_a_scheduler["chatty"]), 10)
    assert isinstance(error, UsageError) and "the server there does not speak Dask's protocol" in str(error), error


@pytest.mark.slow
def test_a_worker_address_is_not_taken_for_a_scheduler(scheduler):
    with Client(scheduler, set_as_default=False) as client:
        worker = next(iter(client.scheduler_info()["workers"]))
    def connect(address):
        with dask_client(address, timeout="2s"):
            pass

    error = _in_thread(lambda: connect(worker), 10)
    assert isinstance(error, UsageError), error
    assert str(error) == f"cannot connect to the Dask scheduler at {worker!r}: the server there is a Dask Worker, not a scheduler"
    check_scheduler(scheduler, timeout=2)


@pytest.mark.slow
@pytest.mark.parametrize("address", ["nonsense", "http://127.0.0.1:8787"])
def test_a_malformed_scheduler_address_is_one_line_at_once(address, tmp_path):
    # the error came at once, then the failed Client spent 20 s closing, with a traceback, when it was collected: the
    # one line of stderr is what shows the Client is no longer left to close
    process = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--preset", "quick", "--scenarios", "noise", "--metrics", "mig",
         "--seeds", "1", "--n-samples", "300", "--no-report", "--no-progress", "--backend", "dask",
         "--scheduler", address, "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )  # fmt: skip
    assert process.returncode == 2 and process.stdout == ""
    assert process.stderr.startswith(f"error: cannot connect to the Dask scheduler at {address!r}: ")
    assert process.stderr.count("\n") == 1, process.stderr


@pytest.mark.slow
def test_a_scheduler_without_workers_is_named_not_waited_on_in_silence(scheduler):
    # the run sat at 0 cells with no sign of why
    from dask.distributed import LocalCluster

    messages = []
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}) as bare:
        with dask_client(bare.scheduler_address, timeout="2s", log=messages.append):
            pass
    assert messages == [f"note: the Dask scheduler at {bare.scheduler_address!r} has no workers yet; cells start when "
                        f"workers join it (dask worker {bare.scheduler_address} --nthreads 1)"]
    with dask_client(scheduler, timeout="2s", log=messages.append):  # one with workers: nothing to say
        pass
    assert len(messages) == 1


@pytest.mark.parametrize(("logger_name", "message"), [
    # Ctrl-C during a run on a local cluster: closing it cancelled the task whose result the client was gathering,
    # and the scheduler (in the run's process) logged "Couldn't gather keys" over the run's one-line message
    ("distributed.scheduler", "Couldn't gather keys: {'run_task-1': 'forgotten'}"),
    # a worker busy in a metric call when the run stopped: its nanny (in the run's process) killed it after 4 s and
    # said so, also over the run's one line (CI, 2026-11-27, on a machine slow enough for a cell to outlast the 4 s)
    ("distributed.nanny", "Worker process still alive after 4.0 seconds, killing"),
])
def test_the_clusters_lines_about_its_stop_are_dropped_only_once_the_run_is_stopping(caplog, logger_name, message):
    log = logging.getLogger(logger_name)
    with caplog.at_level(logging.WARNING, logger=logger_name):
        with backends._quiet_once_stopped() as stopping:
            log.warning(message)  # while the run goes on: a real error, kept
            stopping.set()
            log.warning(message)  # once it is stopping: dropped
            log.warning("another warning")  # any other line: kept
        log.warning(message)  # after the run: kept (the filter is gone)
    assert [record.getMessage() for record in caplog.records] == [message, "another warning", message]


def test_the_clients_failed_cancel_of_an_interrupted_wait_is_dropped_even_before_the_run_marks_itself_stopping(caplog):
    # Ctrl-C with the dask backend: distributed's sync() schedules its cancel callback, which failed, and tornado logged
    # "Exception in callback functools.partial(<function sync.<locals>.cancel ...>)" over the run's one line (CI,
    # 2026-11-30), before the run had set its stopping event
    message = "Exception in callback functools.partial(<function sync.<locals>.cancel at 0x7f8ce06bbce0>)"
    log = logging.getLogger("tornado.application")
    with caplog.at_level(logging.ERROR, logger="tornado.application"):
        with backends._quiet_once_stopped():
            log.error(message)  # dropped although the run is not (yet) marked stopping
            log.error("Exception in callback functools.partial(<function other at 0x1>)")  # another callback's: kept
        log.error(message)  # outside a dask run: kept
    assert [record.getMessage() for record in caplog.records] == [
        "Exception in callback functools.partial(<function other at 0x1>)", message]


def test_a_local_workers_heartbeat_error_is_dropped_only_while_it_is_closing(caplog, monkeypatch):
    # Ctrl-C: about one stop in six, a worker's heartbeat was cut short by the scheduler letting the worker go, and
    # the worker printed the error with a traceback over the run's one line (CI, 2026-11-27, after the nanny's line)
    from distributed.core import Status

    monkeypatch.setattr(backends.signal, "signal", lambda *arguments: None)  # not this test process's Ctrl-C
    worker = SimpleNamespace(status=Status.running)
    loggers = [logging.getLogger(name) for name in ("distributed.worker", "distributed.worker.state_machine")]
    filters = [list(logger.filters) for logger in loggers]
    log = loggers[0]
    try:
        backends.dask_setup(worker)
        with caplog.at_level(logging.ERROR, logger="distributed.worker"):
            log.error(backends._HEARTBEAT_FAILED)  # while the worker runs: a real error, kept
            worker.status = Status.closing
            log.error(backends._HEARTBEAT_FAILED)  # while it closes: dropped
            log.error("another error")  # any other line: kept
    finally:
        for logger, kept in zip(loggers, filters, strict=True):
            logger.filters[:] = kept
    assert [record.getMessage() for record in caplog.records] == [backends._HEARTBEAT_FAILED, "another error"]
