"""Checks of scalar arguments (counts, numbers, choices, seeds) of the metrics' helper functions, in one place.

A metric's options are declared as data instead (:mod:`metrics.constraints`) and checked by its entry.  Every check
returns the value in its canonical type or raises a :class:`TypeError` or
:class:`ValueError` whose message names the option and what is wrong with it, so a bad
option never surfaces as a traceback from deep inside numpy or scikit-learn.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def check_positive_int(value: Any, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int >= ``minimum`` (and <= ``maximum`` when given), or raise naming ``name``.

    Raises
    ------
    TypeError
        For a bool or anything that is not an integer.
    ValueError
        For an integer below ``minimum`` or above ``maximum``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {value}")
    return int(value)


def _is_real(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def check_real(value: Any, name: str) -> float:
    """Return ``value`` as a finite float, or raise naming ``name``.

    Raises
    ------
    TypeError
        For a bool or anything that is not a real number.
    ValueError
        For NaN or an infinity.
    """
    if not _is_real(value):
        raise TypeError(f"{name} must be a real number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return float(value)


def check_choice(value: Any, name: str, choices: Sequence[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``, or raise a ValueError listing them."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def check_random_state(random_state: Any) -> int | np.random.Generator:
    """Return ``random_state`` if it is a non-negative int or a numpy Generator, or raise.

    Raises
    ------
    TypeError
        For anything else (floats, strings, bools, legacy ``RandomState`` objects).
    ValueError
        For a negative integer.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, (int, np.integer)):
        raise TypeError(f"random_state must be a non-negative int or a numpy.random.Generator, got {random_state!r}")
    if random_state < 0:
        raise ValueError(f"random_state must be non-negative, got {random_state}")
    return int(random_state)
