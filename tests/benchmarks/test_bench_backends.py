"""Benchmark: the native Dask path against local loky workers, same number of workers, same study.

Target (issue: scale): the default study's wall time on Dask is within 1.15x of loky's with the
same worker count, both on a ``LocalCluster`` the runner starts (its start-up counts against
Dask) and on a scheduler and workers started from the command line (``dask scheduler``,
``dask worker --nworkers W --nthreads 1``), as a user with a cluster runs it.

Run with timing (a slow-tier test): ``pytest tests/benchmarks/test_bench_backends.py --benchmark-enable -m ""``; the
worker count is the machine's cores (``HARNESS_BENCH_WORKERS`` overrides it).  Each backend
runs the default study twice, alternating, each time as a user runs it (``python -m harness run
--no-report`` in a fresh process, so no backend reuses warm workers), and the best of two counts.
On a machine with few cores the Dask scheduler and the client compete with the workers for
them (on 2 cores: 1.2-1.25x), so the target is meant for a machine of 8 or more.
Under ``--benchmark-disable`` (CI) the body runs a small study on both backends once and
checks the scores are bit-identical; the ratio is not asserted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pandas as pd
import pytest

from harness.execution.runner import run_study
from reports.results.schema import TIMING_COLUMNS

SMOKE = dict(preset="quick", scenarios_=["noise"], metrics_=["mig", "sap"], seeds=1, n_samples=300, progress=False)
TIMED = ["--preset", "default", "--no-report", "--no-progress"]
WORKERS = int(os.environ.get("HARNESS_BENCH_WORKERS", 0)) or os.cpu_count() or 2
PORT = 8797


def _timed_run(**study) -> tuple[pd.DataFrame, float]:
    started = time.perf_counter()
    frame = run_study(**study)
    return frame, time.perf_counter() - started


def _timed_command(*arguments: str) -> float:
    """Wall seconds of ``python -m harness run ARGUMENTS`` (which must succeed)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "harness", "run", *arguments], check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


@contextmanager
def _command_line_cluster(workers: int) -> Iterator[str]:
    """A scheduler and ``workers`` single-threaded workers started with Dask's command line."""
    from dask.distributed import Client

    address = f"tcp://127.0.0.1:{PORT}"
    processes = [subprocess.Popen([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", str(PORT),
                                   "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    processes.append(subprocess.Popen([sys.executable, "-m", "dask", "worker", address, "--nworkers", str(workers),
                                       "--nthreads", "1", "--no-dashboard"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    try:
        with Client(address, timeout="60s", set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(timeout=60)


@pytest.mark.slow
def test_dask_within_115_percent_of_loky(benchmark, tmp_path):
    loky, _ = _timed_run(**SMOKE, jobs=2, backend="loky")
    dask, _ = _timed_run(**SMOKE, jobs=2, backend="dask")
    pd.testing.assert_frame_equal(loky.drop(columns=list(TIMING_COLUMNS)), dask.drop(columns=list(TIMING_COLUMNS)), check_exact=True)
    if benchmark.disabled:
        benchmark(lambda: None)  # the checks above are the smoke test; the timing needs --benchmark-enable
        return
    timings: dict[str, list[float]] = {"loky": [], "dask_local": [], "dask_command_line": []}
    with _command_line_cluster(WORKERS) as address:
        backends = {"loky": ["--backend", "loky"], "dask_local": ["--backend", "dask"],
                    "dask_command_line": ["--backend", "dask", "--scheduler", address]}
        for repeat in range(2):  # alternate, so load drifts hit every backend alike
            for label, options in backends.items():
                out = tmp_path / f"{label}-{repeat}"  # a fresh folder: nothing to resume
                timings[label].append(_timed_command(*TIMED, *options, "--jobs", str(WORKERS), "--out", str(out)))
    best = {label: min(seconds) for label, seconds in timings.items()}
    ratios = {label: best[label] / best["loky"] for label in ("dask_local", "dask_command_line")}
    benchmark.extra_info.update(workers=WORKERS, **{f"{label}_seconds": s for label, s in best.items()},
                                **{f"{label}_ratio": r for label, r in ratios.items()})
    benchmark.pedantic(lambda: None, rounds=1)  # the figures are in extra_info; the fixture records them
    for label, ratio in ratios.items():
        assert ratio <= 1.15, f"{label} took {ratio:.2f}x loky's wall time on {WORKERS} workers ({best})"
