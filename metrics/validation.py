"""Validation of the arrays a metric is given, run once at the public boundary.

Every check raises a :class:`ValueError` or :class:`TypeError` whose message names the
argument and what is wrong with it, so that a bad input never surfaces as a
traceback from deep inside numpy or as a silent NaN score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy import sparse

from metrics._columns import column_range

#: Largest absolute value accepted in factors or codes.  Beyond it, differences and
#: squares overflow float64 in the metrics' arithmetic (variances, regressions).
MAX_ABS_VALUE = 1e150

#: Smallest spread (max - min) accepted in a column that is not constant.  Below it,
#: squared deviations underflow float64 to 0 and variance-based metrics silently see
#: a constant column (the mirror image of :data:`MAX_ABS_VALUE`).
MIN_SPREAD = 1e-150


def constant_columns(array: np.ndarray) -> list[int]:
    """Indices of the columns of an ``(n, d)`` matrix holding a single value.

    A constant factor has nothing to disentangle (some metrics score it 0 and average it in, as MIG; others refuse
    it, as DCI and SAP), and a constant code makes a correlation or a division by a column's spread NaN.

    Examples
    --------
    >>> constant_columns(np.array([[1.0, 2.0, 3.0], [1.0, 5.0, 3.0]]))
    [0, 2]
    """
    return [int(index) for index in np.flatnonzero(np.all(array == array[0], axis=0))]


def as_real_matrix(array: Any, name: str, *, min_rows: int = 2, writeable: bool = True) -> np.ndarray:
    """Return ``array`` as a C-contiguous float64 ``(n, d)`` matrix, or raise.

    Parameters
    ----------
    array : array_like
        Numeric data.  Boolean arrays are accepted and read as 0/1.  Object arrays are
        accepted when every element converts to a real number.  Masked arrays are
        accepted only without masked entries; sparse matrices are refused.
    name : str
        The argument's name, used in error messages (``"factors"``, ``"codes"``).
    min_rows : int, default 2
        Fewest samples accepted.
    writeable : bool, default True
        False: return a read-only view (:func:`read_only`), of ``array`` itself when it
        already is a C-contiguous float64 matrix (no copy), else of its converted copy.

    Raises
    ------
    TypeError
        For strings, complex numbers, objects that are not real numbers, or a
        scipy sparse matrix.
    ValueError
        For a ragged nested sequence, masked entries, a shape other than 2-D, fewer
        than ``min_rows`` rows, no columns, NaN, infinite values, magnitudes above
        :data:`MAX_ABS_VALUE`, or a non-constant column whose spread is below
        :data:`MIN_SPREAD`.
    """
    if array is None:
        raise TypeError(f"{name} is None; pass an (n, d) array of numbers")
    if sparse.issparse(array):
        raise TypeError(f"{name} is a scipy sparse matrix; pass a dense array ({name}.toarray())")
    if np.ma.isMaskedArray(array) and np.ma.getmaskarray(array).any():
        raise ValueError(f"{name} has {int(np.ma.getmaskarray(array).sum())} masked value(s); fill or drop them first")
    try:
        raw = np.asarray(array)
    except ValueError:
        raise ValueError(f"{name} must be a rectangular array; got a ragged nested sequence (rows of different lengths)") from None
    if raw.dtype.kind in "USa":
        raise TypeError(f"{name} must be numeric, got an array of strings (dtype {raw.dtype})")
    if raw.dtype.kind == "c":
        raise TypeError(f"{name} must be real-valued, got complex numbers (dtype {raw.dtype})")
    if raw.dtype.kind in "mM":
        raise TypeError(f"{name} must be numeric, got dates or durations (dtype {raw.dtype})")
    if raw.dtype.kind == "V":
        raise TypeError(f"{name} must be a plain numeric array, got a structured array")
    try:
        matrix = np.asarray(raw, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must contain only real numbers; found {_first_non_number(raw)}") from None
    if matrix.ndim != 2:
        hint = " (reshape a single column with x.reshape(-1, 1))" if matrix.ndim == 1 else ""
        raise ValueError(f"{name} must be a 2-D array (samples x columns), got {matrix.ndim}-D shape {matrix.shape}{hint}")
    matrix = np.ascontiguousarray(matrix)
    if not writeable:  # before its column ranges are computed: they are shared by the view's identity
        matrix = read_only(matrix)
    n, d = matrix.shape
    if d < 1:
        raise ValueError(f"{name} must have at least 1 column, got shape {matrix.shape}")
    if n < min_rows:
        raise ValueError(f"{name} must have at least {min_rows} samples (rows), got {n}")
    # One min and one max pass: NaN and infinities propagate to them, so the full
    # element-wise finiteness test runs only to describe an error.
    low, high = column_range(matrix)
    if not (np.isfinite(low).all() and np.isfinite(high).all()):
        finite = np.isfinite(matrix)
        bad = np.argwhere(~finite)[0]
        kind = "NaN" if np.isnan(matrix[tuple(bad)]) else "infinite"
        count = int((~finite).sum())
        raise ValueError(f"{name} contains {count} non-finite value(s); first {kind} at row {bad[0]}, column {bad[1]}")
    largest = float(max(np.abs(low).max(), np.abs(high).max()))
    if largest > MAX_ABS_VALUE:
        raise ValueError(f"{name} contains values of magnitude {largest:.3g}, above the supported {MAX_ABS_VALUE:.0e}; rescale the data")
    spread = high - low
    tiny = np.flatnonzero((spread > 0) & (spread < MIN_SPREAD))
    if tiny.size:
        column = int(tiny[0])
        raise ValueError(
            f"{name} column {column} varies by only {spread[column]:.3g}, below the supported {MIN_SPREAD:.0e}; rescale the data"
        )
    return matrix


def read_only(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that cannot be written through (``array`` itself, and its flags, unchanged).

    Writing into it raises numpy's ``ValueError`` ("assignment destination is read-only");
    :func:`metrics._entry.unchanged_inputs` names the metric that tried.
    """
    view = array.view()
    view.flags.writeable = False
    return view


def _first_non_number(raw: np.ndarray) -> str:
    """The first element of an object array that is not a real number, with its position (for messages).

    A missing value of pandas' nullable types (``pd.NA``) is named as missing.
    """
    for position, value in np.ndenumerate(raw):
        try:
            float(value)
        except (TypeError, ValueError):
            where = ", ".join(f"{axis} {index}" for axis, index in zip(("row", "column"), position)) if raw.ndim <= 2 else f"index {position}"
            missing = " (a missing value: fill or drop it first)" if type(value).__name__ == "NAType" else ""
            return f"{value!r} ({type(value).__name__}) at {where}{missing}"
    return "non-numeric objects"


def check_pair(factors: Any, codes: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate factors and codes together; return them as read-only float64 matrices.

    Each is a read-only view (:func:`as_real_matrix` with ``writeable=False``): a metric given
    them cannot change the caller's data, nor the data the next metric of the same draw is given.

    Raises
    ------
    ValueError
        When either is malformed (see :func:`as_real_matrix`) or their row counts differ.
    """
    factor_matrix = as_real_matrix(factors, "factors", writeable=False)
    code_matrix = as_real_matrix(codes, "codes", writeable=False)
    if factor_matrix.shape[0] != code_matrix.shape[0]:
        raise ValueError(
            f"factors and codes must have the same number of rows (samples); "
            f"got {factor_matrix.shape[0]} factor rows and {code_matrix.shape[0]} code rows"
        )
    return factor_matrix, code_matrix


def check_discrete(discrete: Sequence[bool] | None, n_factors: int) -> tuple[bool, ...]:
    """Normalise the per-factor ``discrete`` flags.

    ``None`` means every factor is continuous.  A single bool applies to all factors.
    Each flag must be a bool (or the integer 0 or 1).

    Raises
    ------
    TypeError
        For a flag that is not a bool, 0 or 1 (e.g. a string).
    ValueError
        When the number of flags differs from ``n_factors``.
    """
    if discrete is None:
        return (False,) * n_factors
    if isinstance(discrete, (bool, np.bool_)):
        return (bool(discrete),) * n_factors
    values = np.asarray(discrete, dtype=object).ravel()
    for value in values:
        if not isinstance(value, (bool, np.bool_)) and not (isinstance(value, (int, np.integer)) and value in (0, 1)):
            raise TypeError(f"discrete must hold one bool per factor, got {value!r}")
    flags = tuple(bool(x) for x in values)
    if len(flags) != n_factors:
        raise ValueError(f"discrete must have one flag per factor ({n_factors}), got {len(flags)}")
    return flags


def check_population(population: Any) -> list[np.ndarray]:
    """Validate the input of a population metric: ``M >= 2`` code matrices of the same ``n`` rows, returned as
    read-only float64 matrices (:func:`read_only`, as :func:`check_pair`'s).

    Raises
    ------
    TypeError
        When ``population`` is not a sequence of arrays (a string, a mapping, a scalar).
    ValueError
        When it is a numpy array that is not 3-D, holds fewer than 2 members, a member
        is malformed (see :func:`as_real_matrix`), or the members' row counts differ.
    """
    if isinstance(population, (str, bytes, Mapping)) or not isinstance(population, (Sequence, np.ndarray)):
        raise TypeError(f"population must be a sequence of 2-D code arrays, got {type(population).__name__}")
    if isinstance(population, np.ndarray) and population.ndim != 3:
        raise ValueError("population must be a sequence of 2-D code arrays")
    members = [as_real_matrix(codes, f"population[{i}]", writeable=False) for i, codes in enumerate(population)]
    if len(members) < 2:
        raise ValueError(f"population must hold at least 2 representations, got {len(members)}")
    rows = {m.shape[0] for m in members}
    if len(rows) != 1:
        raise ValueError(f"every representation in population must have the same number of rows; got {sorted(rows)}")
    return members
