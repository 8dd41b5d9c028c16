"""Benchmark: the vectorised MI matrix and the whole ``mig`` call against a pair-by-pair
``mutual_info_score`` loop.

Targets, at N = 100000 with 10 factors x 10 codes, all measured in the same run on the
same discretised data: the MI matrix at least 50x faster than the loop (issue:
foundation); the whole ``metrics.mig.mig`` call, validation and binning included, at
least 40x faster than the loop (issue 13, item 4).  The review's own code takes about
12 s for one MIG at that size.

Measured (CPU seconds, BLAS on one thread, the shared 2-core machine at load ~2):
whole ``mig`` call 13.5 ms against a 0.73 s loop, 54x (before the grouped bincount
counting and int32 column-major labels: 32 ms against 0.99 s, 31x; the loop itself got
faster because sklearn reads the new labels faster); MI matrix 6.5 ms, 112x.  On a
quiet 16-core Sapphire Rapids VM the whole call took 14 to 25 ms against a 1.36 to
1.48 s loop, 60x to 97x (before: 43 to 46 ms against 1.54 to 1.59 s, 34x to 36x).

Run with timing: ``pytest tests/benchmarks --benchmark-enable``.  Under the default
``--benchmark-disable`` (CI) the bodies run once as correctness smoke tests and the
speed ratio, which needs repeated timings, is not asserted.
"""

from __future__ import annotations

import time
import timeit

import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

import metrics
from metrics.information import entropy, mutual_information_matrix, to_labels

N, K, L = 100_000, 10, 10


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    factors = rng.random((N, K))
    codes = factors @ rng.random((K, L)) + 0.3 * rng.random((N, L))
    return factors, codes


@pytest.fixture(scope="module")
def labels(data):
    factors, codes = data
    return to_labels(factors), to_labels(codes)


def _median_cpu_seconds(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return float(np.median(times))


def _pairwise_loop(a, b):
    return np.array([[mutual_info_score(a.codes[:, i], b.codes[:, j]) for j in range(L)] for i in range(K)])


def test_mutual_information_matrix_speedup(benchmark, labels):
    a, b = labels
    result = benchmark(mutual_information_matrix, a, b)
    np.testing.assert_allclose(result, _pairwise_loop(a, b), atol=1e-9)
    if benchmark.disabled:
        return
    vectorised = min(timeit.repeat(lambda: mutual_information_matrix(a, b), number=1, repeat=15))
    loop = min(timeit.repeat(lambda: _pairwise_loop(a, b), number=1, repeat=3))
    ratio = loop / vectorised
    benchmark.extra_info.update(loop_seconds=loop, matrix_seconds=vectorised, speedup=ratio)
    assert ratio >= 50, f"MI matrix only {ratio:.1f}x faster than the pair-by-pair loop (target 50x)"


def test_whole_mig_call_speedup(benchmark, data, labels):
    factors, codes = data
    a, b = labels
    score = benchmark(metrics.mig.mig, factors, codes)
    # MIG by hand from the loop's matrix: per factor, (best - second best MI) / H(v_k).
    loop_information = np.sort(_pairwise_loop(a, b), axis=1)
    expected = np.mean((loop_information[:, -1] - loop_information[:, -2]) / entropy(a))
    assert score == pytest.approx(expected, abs=1e-9)
    if benchmark.disabled:
        return  # the smoke run above checked the score; the ratio needs repeated timings
    whole = _median_cpu_seconds(lambda: metrics.mig.mig(factors, codes), repeats=15)
    loop = _median_cpu_seconds(lambda: _pairwise_loop(a, b), repeats=3)
    ratio = loop / whole
    benchmark.extra_info.update(loop_seconds=loop, mig_seconds=whole, speedup=ratio)
    assert ratio >= 40, f"whole mig call only {ratio:.1f}x faster than the pair-by-pair loop (target 40x)"
