"""Per-column minimum and maximum in one fast pass, shared by validation and binning.

Every metric call is a :func:`metrics.shared_estimates` scope (:mod:`metrics._entry`), so
the ranges that validation computes for a matrix are the ones binning reuses for it.
"""

from __future__ import annotations

import numpy as np

from metrics.shared import memoised

ROWS_PER_FOLD = 128
"""Rows folded side by side into one wide row: numpy's loops over a narrow matrix
(``n x 10``) run on 10 values at a time, so a column reduction runs about 8x slower,
and a column-wise affine map about 2x slower, than on wide rows of ``128 x 10`` values."""


def _column_reduce(values: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
    n, d = values.shape
    head = n - n % ROWS_PER_FOLD
    parts = [ufunc.reduce(values[:head].reshape(-1, ROWS_PER_FOLD * d), axis=0).reshape(ROWS_PER_FOLD, d)] if head else []
    if head < n:
        parts.append(values[head:])
    return ufunc.reduce(np.concatenate(parts), axis=0)


def column_range(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(min, max)`` of each column of a C-contiguous ``(n, d)`` float matrix with ``n >= 1``.

    Exactly ``values.min(axis=0)`` and ``values.max(axis=0)``, NaN included (a column
    holding a NaN gets NaN for both), computed on the matrix folded into wide rows, once
    per matrix inside a :func:`metrics.shared_estimates` scope (a declared row permutation
    of a matrix reuses that matrix's ranges, which is what validating it costs).
    """
    return memoised("column_range", (values,), (), lambda: (_column_reduce(values, np.minimum), _column_reduce(values, np.maximum)),
                    row_order_free=True)
