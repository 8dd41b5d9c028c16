"""Benchmarks: every registered metric at N = 1e3, 1e4 and 1e5 samples, 8 factors x 8 codes.

The data are the review's (Zaidi et al. 2022, 5.2): factors ``v ~ U(0, 1)``; the codes a
mildly noisy mixing of them, ``z = v (I + 0.1 A) + 0.05 e`` with ``A, e ~ U(0, 1)``, so
that every metric has some structure to find.  Intervention metrics (Z-diff, Z-min-var,
Z-max-var, IRS) need a factorial design, samples that share all factors but one, which
8 continuous factors never provide; for them the factors are uniform on the grid
``{0, 1}^8`` (flagged discrete), the other metrics get the continuous ones.
Population metrics (UDR) score a population of three representations (different
mixings of the same factors).

Run with timing (several minutes; the slowest metrics dominate)::

    python -m pytest tests/benchmarks --benchmark-enable --benchmark-json=bench.json -m ""

Under the default ``--benchmark-disable`` (CI) a body runs once, as a smoke test, and
only at N = 1e3, with tree ensembles cut to 5 trees (dci_gbt's defaults alone take
30 to 50 s at N = 1e3); the larger sizes are not collected, so CI stays fast and no
untimed case counts as passed without running.  Timed runs always
use every metric's defaults.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

import metrics

SIZES = (1_000, 10_000, 100_000)
SMOKE_SIZE = 1_000
"""The only size collected (and run once, untimed) when benchmarking is disabled."""
SMOKE_OPTIONS = {"n_estimators": 5}
"""Cheaper settings for the untimed smoke run (tree ensembles: 5 trees)."""
ROUNDS = {1_000: 3, 10_000: 1, 100_000: 1}
"""Timed rounds per size: a few at 1e3, one at the sizes where a round takes seconds to minutes."""
N_FACTORS = N_CODES = 8



def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every size when timing (``--benchmark-enable``); only :data:`SMOKE_SIZE` when benchmarks run once, untimed."""
    if "n" in metafunc.fixturenames:
        config = metafunc.config
        timed = config.getoption("benchmark_enable") or not config.getoption("benchmark_disable")
        metafunc.parametrize("n", SIZES if timed else (SMOKE_SIZE,))


FACTORIAL_LEVELS = 2
"""Levels per factor of the factorial design given to intervention metrics."""


@lru_cache(maxsize=4)
def representation(n: int, factorial: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Uniform factors (continuous, or on the factorial grid) and a mildly noisy mixing of them (``(n, 8)`` each)."""
    rng = np.random.default_rng(0)
    factors = rng.random((n, N_FACTORS))
    if factorial:
        factors = np.floor(factors * FACTORIAL_LEVELS) / (FACTORIAL_LEVELS - 1)
    codes = factors @ (np.eye(N_FACTORS, N_CODES) + 0.1 * rng.random((N_FACTORS, N_CODES))) + 0.05 * rng.random((n, N_CODES))
    return factors, codes


@lru_cache(maxsize=1)
def population(n: int) -> list[np.ndarray]:
    factors, _ = representation(n)
    rng = np.random.default_rng(1)
    return [factors @ (np.eye(N_FACTORS, N_CODES) + 0.1 * rng.random((N_FACTORS, N_CODES))) + 0.05 * rng.random((n, N_CODES)) for _ in range(3)]


@pytest.mark.parametrize("name", metrics.available())
def test_metric(benchmark, name, n):
    spec = metrics.get(name)
    factorial = spec.family == "intervention"
    factors, codes = representation(n, factorial)
    options = {"discrete": factorial} | ({"random_state": 0} if spec.stochastic else {})
    if benchmark.disabled:
        options |= {option: value for option, value in SMOKE_OPTIONS.items() if option in spec.defaults}
    benchmark.extra_info.update(metric=name, n_samples=n, factors=N_FACTORS, codes=N_CODES, factorial=factorial)
    scores = benchmark.pedantic(metrics.evaluate, args=(name, factors, codes), kwargs=options, rounds=ROUNDS[n], iterations=1)
    assert set(scores) == set(spec.sub_scores)
    assert all(np.isfinite(value) for value in scores.values())


@pytest.mark.parametrize("name", metrics.available(population=True))
def test_population_metric(benchmark, name, n):
    members = population(n)
    benchmark.extra_info.update(metric=name, n_samples=n, factors=N_FACTORS, codes=N_CODES, members=len(members))
    scores = benchmark.pedantic(metrics.evaluate_population, args=(name, members), rounds=ROUNDS[n], iterations=1)
    assert len(scores) == len(members) and all(np.isfinite(scores))
