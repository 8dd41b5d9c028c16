"""Benchmark: the factor x code MI matrix at N = 1e6 (8 factors x 8 codes), time and peak memory.

Memory bound (documented here and asserted): :func:`metrics.information.factor_code_information`
allocates, beyond its inputs, two ``n x max(K, L)`` 4-byte arrays (the factors' and the
codes' int32 bin labels; the equal-width binning works in blocks of 8192 rows) and a
constant working set (the binning block, counting blocks of at most 4 MiB of combined
labels and indices, at most 2 MiB of grouped tables, and the ``(K, L, bins, bins)``
contingency tables), so::

    peak <= 2 * n * max(K, L) * 4 bytes + 8 MiB        (64 MB + 8 MiB at n = 1e6, K = L = 8)

(measured: 68.2 MB at n = 1e6, 10.6 MB at n = 1e5; before the int32 labels and grouped
counting, 133.1 MB and 17.9 MB).  Time at N = 1e6: 115 ms a call, median of 5 (215 ms
before), on the shared 2-core machine.

The peak is measured with :mod:`tracemalloc` (numpy reports its allocations to it) in a
separate, untimed call, and recorded in ``benchmark.extra_info``.

Under the default ``--benchmark-disable`` (CI) only the memory bound is checked, at
N = 1e5 (the bound is linear in n); the N = 1e6 timing runs with ``--benchmark-enable``.
"""

from __future__ import annotations

import tracemalloc

import numpy as np

from metrics.information import factor_code_information

N_LARGE, N_SMOKE, K, L = 1_000_000, 100_000, 8, 8
WORKING_SET = 8 * 2**20


def _data(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    factors = rng.random((n, K))
    codes = factors @ (np.eye(K, L) + 0.1 * rng.random((K, L))) + 0.05 * rng.random((n, L))
    return factors, codes


def memory_bound(n: int) -> int:
    """The documented bound on the engine's peak extra memory, in bytes."""
    return 2 * n * max(K, L) * 4 + WORKING_SET


def _peak_bytes(factors: np.ndarray, codes: np.ndarray) -> int:
    tracemalloc.start()
    try:
        factor_code_information(factors, codes)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_mutual_information_matrix_1e6(benchmark):
    n = N_SMOKE if benchmark.disabled else N_LARGE
    factors, codes = _data(n)
    peak = _peak_bytes(factors, codes)
    benchmark.extra_info.update(n_samples=n, factors=K, codes=L, peak_bytes=peak, bound_bytes=memory_bound(n))
    assert peak <= memory_bound(n), f"peak {peak / 1e6:.1f} MB above the documented {memory_bound(n) / 1e6:.1f} MB"
    assert peak >= n * max(K, L) * 4, "tracemalloc saw less than one label matrix: the measurement is broken"
    table = benchmark.pedantic(factor_code_information, args=(factors, codes), rounds=5, iterations=1)  # one untimed call when disabled
    assert table.mutual_information.shape == (K, L)
    # A near-diagonal mixing: each factor shares the most information with its own code.
    assert (table.mutual_information.argmax(axis=1) == np.arange(K)).all()
