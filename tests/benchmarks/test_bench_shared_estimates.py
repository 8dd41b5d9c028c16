"""Benchmark: the eight k-NN information metrics on one draw, with and without shared estimates.

Target (issue 13, item 2): at N = 20000 with 8 factors x 8 codes, scoring unibound, pid,
rmig, wsepin, windin, sepin_at_k, indin_at_k and informativeness inside
:func:`metrics.shared_estimates` is at least 2.5x faster than scoring them without it
(312 k-NN estimates, of which 104 are distinct), with identical scores.  Both are
measured in the same run as CPU time (``time.process_time``); pin BLAS to one thread.

Run with timing: ``pytest tests/benchmarks/test_bench_shared_estimates.py --benchmark-enable``.
Under the default ``--benchmark-disable`` (CI) the body runs once at N = 2000 as a smoke
test: scores must be identical; the speed ratio, which needs the full size, is not asserted.
"""

from __future__ import annotations

import time

import numpy as np

import metrics

KNN_METRICS = ("unibound", "pid", "rmig", "wsepin", "windin", "sepin_at_k", "indin_at_k", "informativeness")
TIMED_SIZE, SMOKE_SIZE = 20_000, 2_000
N_FACTORS = N_CODES = 8
TARGET_SPEEDUP = 2.5


def _draw(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    factors = rng.random((n, N_FACTORS))
    codes = factors @ (np.eye(N_FACTORS, N_CODES) + 0.1 * rng.random((N_FACTORS, N_CODES))) + 0.05 * rng.random((n, N_CODES))
    return factors, codes


def _score_all(factors: np.ndarray, codes: np.ndarray) -> dict[str, dict[str, float]]:
    return {name: metrics.evaluate(name, factors, codes) for name in KNN_METRICS}


def _score_all_shared(factors: np.ndarray, codes: np.ndarray) -> dict[str, dict[str, float]]:
    with metrics.shared_estimates():
        return _score_all(factors, codes)


def _cpu_seconds(function, *args) -> tuple[float, object]:
    start = time.process_time()
    result = function(*args)
    return time.process_time() - start, result


def test_shared_estimates_speedup(benchmark):
    factors, codes = _draw(SMOKE_SIZE if benchmark.disabled else TIMED_SIZE)
    separate_seconds, separate = _cpu_seconds(_score_all, factors, codes)
    shared_seconds, shared = _cpu_seconds(_score_all_shared, factors, codes)
    assert shared == separate
    assert set(shared) == set(KNN_METRICS)
    benchmark.pedantic(_score_all_shared, args=(factors, codes), rounds=1, iterations=1)
    if benchmark.disabled:
        return  # the smoke run above checked identical scores; the ratio needs the timed size
    ratio = separate_seconds / shared_seconds
    benchmark.extra_info.update(separate_seconds=separate_seconds, shared_seconds=shared_seconds, speedup=ratio)
    assert ratio >= TARGET_SPEEDUP, f"shared estimates only {ratio:.2f}x faster (target {TARGET_SPEEDUP}x)"
