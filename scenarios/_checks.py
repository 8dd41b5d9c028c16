"""Parameter checks for scenarios swept over integers (counts, sizes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def check_integer(name: str, low: int, high: int | None = None) -> Callable[[Any], int]:
    """A ``check_value`` accepting whole numbers in ``[low, high]`` (no upper bound if None).

    Integral floats (``8.0``) are accepted and returned as int; booleans, fractions and
    non-numbers are rejected with a message naming ``name`` and the valid range.
    """
    valid = f"an integer in {low}..{high}" if high is not None else f"an integer >= {low}"

    def check(value: Any) -> int:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, float, np.floating)):
            raise TypeError(f"{name} must be {valid}, got {value!r}")
        fractional = isinstance(value, (float, np.floating)) and not (np.isfinite(value) and value == int(value))
        if fractional or int(value) < low or (high is not None and int(value) > high):  # int(): any size, exactly
            raise ValueError(f"{name} must be {valid}, got {value!r}")
        return int(value)

    return check
