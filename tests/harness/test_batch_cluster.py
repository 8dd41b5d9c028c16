"""Workers from a batch system (:mod:`harness.execution.batch`), with no batch system installed.

The fast tier checks the job scripts ``dask_jobqueue`` generates for SLURM and PBS: the resources asked
for, the worker command (one thread per worker process, one process per core) and, by running the
script's lines in ``bash``, that a process started by it has BLAS pinned to one thread and the local
cluster's Dask settings.  The slow tier runs studies for real: on a multi-process ``LocalCluster`` and on
a SLURM cluster whose ``sbatch`` and ``scancel`` are stand-ins that run the job script at once on this
machine (each job a session of its own, as a node's processes are), and there does what batch systems
do: kills a job mid-cell, and kills the run's own process, leaving its worker jobs orphaned.  (Two runs
into one ``--out`` at once: ``test_store.py``, whose store is the one every backend writes through.)
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from dask.distributed import Client, LocalCluster

from harness.errors import UsageError
from harness.execution.backends import LOCAL_CLUSTER_CONFIG, SINGLE_THREAD_ENV
from harness.execution.batch import batch_cluster, run_on_cluster
from harness.execution.runner import plan_study, run_study
from reports.results.schema import TIMING_COLUMNS

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = {"interface": "lo", "scheduler_options": {"dashboard_address": "127.0.0.1:0"}}
"""Scheduler and workers on the loopback interface (a real cluster names its network, ``interface="ib0"``)."""

DIRECTIVES = {
    "slurm": ["#SBATCH -n 1", "#SBATCH --cpus-per-task=8", "#SBATCH --mem=30G", "#SBATCH -t 02:30:00",
              "#SBATCH -p short", "#SBATCH -A lab42"],
    "pbs": ["#PBS -l select=1:ncpus=8:mem=30GB", "#PBS -l walltime=02:30:00", "#PBS -q short", "#PBS -A lab42"],
}
"""What each system's job script must ask for: one task of 8 cores, 32 GB (30 GiB), 2 1/2 hours, queue and account."""

CHECK_WORKER_SETTINGS = """
import json, os
import dask
from distributed.nanny import _get_env_variables
print(json.dumps({
    "threads": [os.environ.get(name) for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")],
    "profiler": dask.config.get("distributed.worker.profile.enabled"),
    "spawn_environment": _get_env_variables("distributed.nanny.pre-spawn-environ"),
    "lab": os.environ.get("LAB_SETTING"),
}))
"""


def _job_script(system: str, **options) -> tuple[str, str]:
    """The job script of a cluster of 8-core jobs, and its scheduler's address."""
    with batch_cluster(system, cores=8, memory="32GB", walltime="02:30:00", queue="short", account="lab42",
                       **LOOPBACK, **options) as cluster:
        return cluster.job_script(), cluster.scheduler_address


@pytest.mark.parametrize("system", ["slurm", "pbs"])
def test_the_job_script_asks_for_the_resources_and_starts_one_single_threaded_worker_per_core(system):
    script, address = _job_script(system)
    lines = [line for line in script.splitlines() if line.strip()]
    assert lines[0] == "#!/usr/bin/env bash"
    prefix = DIRECTIVES[system][0].split()[0]
    directives = [line for line in lines if line.startswith(prefix)]
    assert set(DIRECTIVES[system]) <= set(directives), directives
    commands = [line for line in lines if "distributed.cli.dask_worker" in line]
    assert len(commands) == 1 and commands[0] == lines[-1]
    program, flag, module, scheduler, *arguments = shlex.split(commands[0])
    assert (program, flag, module, scheduler) == (sys.executable, "-m", "distributed.cli.dask_worker", address)
    options = {name: value if not value.startswith("--") else None  # a flag (--nanny) has no value
               for name, value in zip(arguments, [*arguments[1:], "--"]) if name.startswith("--")}
    assert options["--nthreads"] == "1" and options["--nworkers"] == "8"
    assert options["--memory-limit"] == "3.73GiB"  # 32 GB shared by 8 workers
    assert options["--interface"] == "lo" and options["--nanny"] is None
    exports = [line for line in lines if line.startswith("export ")]
    for name, value in SINGLE_THREAD_ENV.items():
        assert f"export {name}={value}" in exports
    assert lines.index(exports[-1]) < lines.index(commands[0])


@pytest.mark.parametrize("system", ["slurm", "pbs"])
def test_a_process_the_job_script_starts_has_one_blas_thread_and_the_local_clusters_dask_settings(system, tmp_path):
    # the script's own lines run in bash, its worker command replaced by a look at what a worker would see
    script, _ = _job_script(system, job_script_prologue=["export LAB_SETTING=on"])
    checked = "\n".join(f"{shlex.quote(sys.executable)} -c {shlex.quote(CHECK_WORKER_SETTINGS)}"
                        if "distributed.cli.dask_worker" in line else line for line in script.splitlines())
    (tmp_path / "job.sh").write_text(checked)
    environment = {name: value for name, value in os.environ.items() if not name.startswith(("DASK_", "OMP_", "MKL_", "OPENBLAS_"))}
    done = subprocess.run(["bash", str(tmp_path / "job.sh")], capture_output=True, text=True, timeout=60, env=environment)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["threads"] == ["1", "1", "1"]
    assert seen["profiler"] is LOCAL_CLUSTER_CONFIG["distributed.worker.profile.enabled"] is False
    assert "MALLOC_TRIM_THRESHOLD_" not in seen["spawn_environment"]  # Dask's nanny would set it to 65536
    assert seen["spawn_environment"]["OMP_NUM_THREADS"] == "1"
    assert seen["lab"] == "on"  # the user's prologue runs too, after the harness's exports


@pytest.mark.parametrize(("arguments", "message"), [
    ({"system": "lsf", "cores": 8}, "batch system must be one of slurm, pbs, got 'lsf'"),
    ({"system": "slurm", "cores": 0}, "cores must be a whole number of at least 1, got 0"),
    ({"system": "pbs", "cores": 2.5}, "cores must be a whole number of at least 1, got 2.5"),
])
def test_a_wrong_system_or_core_count_is_a_usage_error(arguments, message):
    with pytest.raises(UsageError, match=f"^{message}$"):
        batch_cluster(**arguments, memory="4GB", walltime="00:10:00")


def test_without_dask_jobqueue_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask_jobqueue", None)  # what an environment without it imports
    with pytest.raises(UsageError, match=r"needs dask-jobqueue; install it with pip install 'disentanglement-harness\[cluster\]'"):
        batch_cluster("slurm", cores=2, memory="4GB", walltime="00:10:00")


SMALL = dict(preset="quick", scenarios_=["noise", "mixing"], metrics_=["mig", "modularity"], seeds=1, n_samples=600)


@pytest.fixture(scope="module")
def sequential() -> pd.DataFrame:
    return run_study(**SMALL, backend="sequential", progress=False).drop(columns=list(TIMING_COLUMNS))


@pytest.fixture
def nanny_environment() -> Iterator[None]:
    """Put back, after the test, the variables a nanny in this process sets in its environment for its workers (Dask's
    ``distributed.nanny.pre-spawn-environ``), which jobs submitted later would inherit."""
    import dask

    saved = {name: os.environ.get(name) for name in dask.config.get("distributed.nanny.pre-spawn-environ")}
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.mark.slow
def test_a_study_on_a_multi_process_local_cluster_gives_the_sequential_scores(sequential, tmp_path, nanny_environment):
    with LocalCluster(n_workers=0, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                      scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}, env=SINGLE_THREAD_ENV) as cluster:
        frame = run_on_cluster(cluster, workers=2, **SMALL, out=tmp_path, progress=False)
        assert len(cluster.scheduler_info["workers"]) == 2
    pd.testing.assert_frame_equal(frame.drop(columns=list(TIMING_COLUMNS)), sequential, check_exact=True)
    assert len((tmp_path / "cells.jsonl").read_text().splitlines()) == len(plan_study(**SMALL))


FAKE_SBATCH = """#!/bin/sh
# sbatch's stand-in: run the job script now, in a session of its own (a node), and print its id as sbatch does
job="$FAKE_BATCH_JOBS/job-$$.sh"
cp "$1" "$job"
setsid bash "$job" > "$job.log" 2>&1 < /dev/null &
echo "$!" >> "$FAKE_BATCH_JOBS/ids"
echo "Submitted batch job $!"
"""
FAKE_SCANCEL = """#!/bin/sh
# scancel's stand-in: end the job's session, as scancel signals every process of a job
kill -TERM -- "-$1" 2>/dev/null || true
"""


@pytest.fixture
def fake_slurm(tmp_path, monkeypatch) -> Path:
    """``sbatch`` and ``scancel`` on ``PATH`` that run job scripts on this machine; yields the jobs' folder, whose
    ``ids`` lists the jobs (session ids) submitted.  Every job still running at the end is killed."""
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    for name, text in (("sbatch", FAKE_SBATCH), ("scancel", FAKE_SCANCEL)):
        (jobs / name).write_text(text)
        (jobs / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{jobs}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_BATCH_JOBS", str(jobs))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the workers import this checkout's harness
    yield jobs
    for job in _job_ids(jobs):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(job, signal.SIGKILL)


def _job_ids(jobs: Path) -> list[int]:
    ids = jobs / "ids"
    return [int(line) for line in ids.read_text().split()] if ids.exists() else []


def _running(job: int) -> bool:
    try:
        os.killpg(job, 0)
    except ProcessLookupError:
        return False
    return True


def _wait(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {seconds} s"
        time.sleep(0.05)


@pytest.mark.slow
def test_a_slurm_cluster_runs_the_study_on_its_jobs_workers_and_cancels_them_after(fake_slurm, sequential, tmp_path):
    with batch_cluster("slurm", cores=1, memory="2GB", walltime="00:10:00", **LOOPBACK) as cluster:
        frame = run_on_cluster(cluster, workers=2, **SMALL, out=tmp_path / "run", progress=False)
        jobs = _job_ids(fake_slurm)
        assert len(jobs) == 2 and all(map(_running, jobs))  # two jobs of one worker each
        with Client(cluster.scheduler_address, set_as_default=False) as client:
            seen = client.run(lambda dask_worker: (os.environ.get("OPENBLAS_NUM_THREADS"), os.environ.get("MALLOC_TRIM_THRESHOLD_"),
                                                   "profile" in dask_worker.periodic_callbacks))
        assert sorted(seen.values()) == [("1", None, False)] * 2
    pd.testing.assert_frame_equal(frame.drop(columns=list(TIMING_COLUMNS)), sequential, check_exact=True)
    _wait(lambda: not any(map(_running, jobs)), 30, "the jobs were not cancelled with the cluster")


PACED_METRIC = """
import hashlib, os, pathlib, time

def paced(factors, codes):
    # a cell that takes a second and says, as it starts, which cell (its codes' hash) and which process
    cell = hashlib.sha1(codes.tobytes()).hexdigest()[:12]
    pathlib.Path(__file__).with_name("started").joinpath(f"{cell}-{os.getpid()}").touch()
    time.sleep(1.0)
    return float(abs(codes).mean())
"""


def _paced_study(folder: Path) -> dict:
    (folder / "paced_metric.py").write_text(PACED_METRIC)
    (folder / "started").mkdir()
    return dict(preset="quick", scenarios_=["noise"], metrics_=[f"{folder / 'paced_metric.py'}:paced"], seeds=1, n_samples=300)


def _stored(out: Path) -> list[str]:
    """The keys of the whole lines of ``out/cells.jsonl``, in order (read independently of the store's code)."""
    path = out / "cells.jsonl"
    data = path.read_bytes() if path.exists() else b""
    return [json.loads(line)["key"] for line in data[: data.rfind(b"\n") + 1].splitlines()]


def _starts(folder: Path) -> list[tuple[str, int]]:
    return [(cell, int(pid)) for cell, pid in (path.name.split("-") for path in (folder / "started").iterdir())]


@pytest.mark.slow
def test_a_job_killed_mid_cell_has_its_cell_run_again_on_another_and_stored_once(fake_slurm, tmp_path):
    study = _paced_study(tmp_path)
    planned = [cell.key for cell in plan_study(**study)]
    with batch_cluster("slurm", cores=1, memory="2GB", walltime="00:10:00", **LOOPBACK) as cluster:
        cluster.scale(2)
        killed: list[tuple[str, int]] = []

        def kill_the_first_busy_job() -> None:  # the node of the first cell to start is lost (SIGKILL, no goodbye)
            _wait(lambda: _starts(tmp_path), 120, "no cell started")
            cell, pid = _starts(tmp_path)[0]
            os.killpg(os.getpgid(pid), signal.SIGKILL)
            killed.append((cell, pid))

        killer = threading.Thread(target=kill_the_first_busy_job, daemon=True)
        killer.start()
        frame = run_on_cluster(cluster, workers=2, **study, out=tmp_path / "run", progress=False)
        killer.join(5)
    assert killed, "no job was killed; the test proved nothing"
    cell, pid = killed[0]
    again = [other for started, other in _starts(tmp_path) if started == cell and other != pid]
    assert again, "the killed job's cell was not run again on another worker"
    stored = _stored(tmp_path / "run")
    assert sorted(stored) == sorted(planned)  # every cell once: none lost, none doubled
    assert len(frame) == len(planned) and frame["score"].notna().all()


DRIVER = """
import sys
from harness.execution.batch import batch_cluster, run_on_cluster

if __name__ == "__main__":
    study = dict(preset="quick", scenarios_=["noise"], metrics_=[sys.argv[2]], seeds=1, n_samples=300)
    with batch_cluster("slurm", cores=1, memory="2GB", walltime="00:10:00", interface="lo",
                       scheduler_options={"dashboard_address": "127.0.0.1:0"}, death_timeout=5) as cluster:
        run_on_cluster(cluster, workers=2, **study, out=sys.argv[1], progress=False)
"""


@pytest.mark.slow
def test_when_the_allocation_ends_mid_run_its_workers_leave_and_the_next_run_resumes(fake_slurm, tmp_path):
    # the run's own process killed without warning (its job's time limit, a login node's reaper): the worker jobs,
    # orphaned, leave on their own once the scheduler is gone (death_timeout), and the same command resumes
    study = _paced_study(tmp_path)
    planned = [cell.key for cell in plan_study(**study)]
    (tmp_path / "driver.py").write_text(DRIVER)
    out = tmp_path / "run"
    command = [sys.executable, str(tmp_path / "driver.py"), str(out), study["metrics_"][0]]
    run = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           start_new_session=True)
    try:
        _wait(lambda: len(_stored(out)) >= 2 or run.poll() is not None, 120, "the run stored no cells")
        os.killpg(run.pid, signal.SIGKILL)
        run.communicate(timeout=30)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
    before = _stored(out)
    assert 2 <= len(before) < len(planned), "the run was not killed mid-way; the test proved nothing"
    jobs = _job_ids(fake_slurm)
    assert len(jobs) == 2
    _wait(lambda: not any(map(_running, jobs)), 60, "the orphaned worker jobs did not leave")

    rerun = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert f"skipping {len(before)} finished cell(s)" in rerun.stdout, rerun.stdout
    after = _stored(out)
    assert after[: len(before)] == before  # nothing finished was recomputed or lost
    assert sorted(after) == sorted(planned)  # and every cell is stored once


def test_importing_dask_jobqueue_leaves_ctrl_c_as_it_was(fresh_python):
    # dask_jobqueue's runner module sets SIGINT to sys.exit() when imported: Ctrl-C would have ended a batch run with
    # status 0 and no word of its saved cells (and it broke a later test of Ctrl-C in the same pytest worker)
    probe = ("import signal, sys\n"
             "from harness.execution.batch import _import_keeping_ctrl_c\n"
             "before = signal.getsignal(signal.SIGINT)\n"
             "_import_keeping_ctrl_c()\n"
             "assert 'dask_jobqueue.runner' in sys.modules, 'the module that sets the handler was not imported'\n"
             "print(signal.getsignal(signal.SIGINT) is before)")
    assert fresh_python(probe).strip() == "True"
