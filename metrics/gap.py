"""The largest and second-largest entries along an axis: the "gap" of MIG-style metrics."""

from __future__ import annotations

import numpy as np


def best_and_second(values: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Largest value, its index, and the second-largest value along ``axis``.

    When the axis has a single entry there is no runner-up; the second-largest value
    is then 0 (no information), so a gap equals the best value.

    Returns
    -------
    best, best_index, second : numpy.ndarray
        Arrays with ``axis`` removed.
    """
    values = np.asarray(values, dtype=np.float64)
    moved = np.moveaxis(values, axis, -1)
    order = np.argsort(-moved, axis=-1, kind="stable")
    best_index = order[..., 0]
    best = np.take_along_axis(moved, order[..., :1], axis=-1)[..., 0]
    if moved.shape[-1] > 1:
        second = np.take_along_axis(moved, order[..., 1:2], axis=-1)[..., 0]
    else:
        second = np.zeros_like(best)
    return best, best_index, second
