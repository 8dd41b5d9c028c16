"""Shared fixtures: seeded generators and the representations many tests use."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def uniform_factors_20k() -> np.ndarray:
    """8 factors U(0, 1), N = 20000: the review's protocol (Zaidi et al. 2022, 5.2)."""
    return np.random.default_rng(2022).random((20000, 8))
