"""Fixtures shared by the harness's tests."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def arrays(tmp_path):
    """Factors and codes files (``factors.npy``, ``codes.npy``: 200 x 3, the codes a noisy copy of the factors) and a
    user metric file (``metric.py:first``) in ``tmp_path``, for commands that would run metrics."""
    rng = np.random.default_rng(0)
    factors = rng.random((200, 3))
    np.save(tmp_path / "factors.npy", factors)
    np.save(tmp_path / "codes.npy", factors + 0.1 * rng.standard_normal((200, 3)))
    (tmp_path / "metric.py").write_text("def first(factors, codes):\n    return float(abs(codes[0, 0]))\n")
    return tmp_path
