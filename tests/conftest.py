"""Shared fixtures: seeded generators and the representations many tests use."""

from __future__ import annotations

import dataclasses
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


@pytest.fixture(autouse=True)
def default_preset_without_nulls(request, monkeypatch):
    """The default preset without its permutation nulls, unless a test is marked ``default_nulls``.

    Up to 100 metric calls more per cell, which tripled the suite's time; the tests that are about nulls pass
    ``null_permutations`` themselves or carry the mark, and commands run in a subprocess (the README's examples) keep
    the preset as users get it.
    """
    if request.node.get_closest_marker("default_nulls") is None:
        from harness.execution.presets import PRESETS

        monkeypatch.setitem(PRESETS, "default", dataclasses.replace(PRESETS["default"], null_budget_seconds=0.0))


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
