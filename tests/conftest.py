"""Shared fixtures: seeded generators and the representations many tests use."""

from __future__ import annotations

import signal

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C raises KeyboardInterrupt, as in a user's shell, also in pytest-xdist's workers (which ignore SIGINT, and
    whose subprocesses would inherit that): the tests of the harness's Ctrl-C handling send it themselves."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def uniform_factors_20k() -> np.ndarray:
    """8 factors U(0, 1), N = 20000: the review's protocol (Zaidi et al. 2022, 5.2)."""
    return np.random.default_rng(2022).random((20000, 8))


@pytest.fixture
def fresh_provenance():
    """Provenances of code and libraries computed anew, as by another process (each is cached for the life of a
    process: :mod:`harness.execution.provenance`); call it to clear them again mid-test."""
    from harness.execution import provenance

    def clear() -> None:
        for value in vars(provenance).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()

    clear()
    yield clear
    clear()
