"""CPU timing shared by the benchmarks: the median process time of repeated calls, never a wall-clock time."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

Value = TypeVar("Value")


def median_cpu_seconds(function: Callable[[], Value], repeats: int) -> tuple[float, Value]:
    """The median ``time.process_time`` of ``repeats`` calls of ``function`` (at least one), and its last value."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    times = []
    for _ in range(repeats):
        start = time.process_time()
        value = function()
        times.append(time.process_time() - start)
    return float(np.median(times)), value
