"""The Dask backend against a real ``dask.distributed.LocalCluster`` (no mock).

Scores must be bit-identical to a sequential ``--jobs 1`` run whether the runner starts
its own local cluster or is pointed at a running scheduler, workers must run BLAS and
OpenMP single-threaded, and the cluster the runner started must be gone afterwards.
"""

from __future__ import annotations

import multiprocessing
import os

import pandas as pd
import pytest
from dask.distributed import Client

from harness.execution import backends
from harness.execution.backends import dask_client
from harness.cli import main
from harness.execution.runner import execute, run_study

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


def test_local_cluster_workers_are_single_threaded(scheduler):
    assert _worker_environment(scheduler) == {"threads": [1, 1], "omp": ["1", "1"], "blas": ["1", "1"]}


def test_own_local_cluster_gives_bit_identical_scores_and_is_closed_after(sequential):
    children = set(multiprocessing.active_children())
    frame = run_study(**SMALL, jobs=2, backend="dask")
    pd.testing.assert_frame_equal(frame.drop(columns="seconds"), sequential.drop(columns="seconds"), check_exact=True)
    assert set(multiprocessing.active_children()) == children, "the run's local cluster outlived it"


def test_cli_on_a_running_scheduler_matches_jobs_1_bit_for_bit(scheduler, sequential, tmp_path, capsys):
    common = ["run", "--preset", "quick", "--scenarios", "noise,mixing", "--metrics", "mig,modularity", "--seeds", "1",
              "--n-samples", "600", "--no-report", "--no-progress"]  # fmt: skip
    assert main([*common, "--backend", "dask", "--scheduler", scheduler, "--out", str(tmp_path / "dask")]) == 0
    assert main([*common, "--jobs", "1", "--out", str(tmp_path / "one")]) == 0
    assert "24 result rows" in capsys.readouterr().out
    dask_table = pd.read_parquet(tmp_path / "dask" / "results.parquet").drop(columns="seconds")
    one_table = pd.read_parquet(tmp_path / "one" / "results.parquet").drop(columns="seconds")
    pd.testing.assert_frame_equal(dask_table, one_table, check_exact=True)
    pd.testing.assert_frame_equal(one_table, sequential.drop(columns="seconds"), check_exact=True)
    assert _worker_environment(scheduler)["threads"] == [1, 1]  # the cluster the run did not start is still up


def test_a_local_cluster_whose_workers_do_not_start_is_a_clear_error(monkeypatch):
    # the local cluster is handed over once its first worker is up; if none comes up, say so instead of waiting forever
    monkeypatch.setattr(backends, "WORKER_START_TIMEOUT", 0.001)
    with pytest.raises(RuntimeError, match="no worker of the local Dask cluster started within 0.001 s"):
        with dask_client(workers=1):
            pass


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
