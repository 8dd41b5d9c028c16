"""Estimates shared by the metrics scored on one data draw, inside an explicit scope.

Several metrics need the same estimates of the same representation: UniBound, the PID
bounds and RMIG the same ``K x L`` single-code k-NN informations, Do and Tran's five
metrics the same per-code terms, the histogram metrics the same factor x code table.
Inside :func:`shared_estimates` each such estimate is computed once and reused, keyed by
the *identity* of the input arrays and by the estimator options; outside it nothing is
shared between metric calls.  (Each registered metric call is a scope of its own when
none encloses it, so within one call validation and binning share their min/max pass.)  A reused estimate is the very result of the
first computation, so scores are bit-identical with and without the scope.

The scope is meant to enclose one data draw: enter it, score every metric on the same
``factors`` and ``codes`` objects, leave it.  An array modified in place between two metric
calls of a scope (a buffer refilled each epoch, ``codes[:] = encode(x)``) keeps its identity, so
a metric's entry keys its validated arrays by the content too (:func:`content_fingerprint`, a
CRC-32 of the bytes: 0.03 ms for 1000 x 15 values, 0.8 ms for 20000 x 20): the modified array is
validated, and every estimate of it computed, afresh (the old estimates were reused, and the
random codes put in scored as the codes before them).  The arrays used as keys are held until
the scope closes, so their identities cannot be reused by new arrays within it.

**Row permutations.**  A permutation null (:mod:`metrics.null_distribution`) scores every
metric of a draw on the same ``B`` row orders of the codes, each materialised afresh for
each metric call so that a scope never holds ``B`` copies of the codes.  Such an array is
declared with :func:`register_row_permutation`; :func:`memoised` then keys it by its base
array and the order's token instead of its identity, so every copy of the same order shares
one estimate (and holds the base, never the copy), and a computation declared
``row_order_free`` (a column's range) reuses the base's own value.
"""

from __future__ import annotations

import copy
import weakref
import zlib
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

_STORE: ContextVar[dict[Hashable, tuple[tuple[Any, ...], Any]] | None] = ContextVar("metrics_shared_estimates", default=None)


_ACROSS_CALLS: ContextVar[bool] = ContextVar("metrics_shared_across_calls", default=False)

_ROW_ORDERS: ContextVar[dict[int, tuple[weakref.ref, Any, Any, Hashable]] | None] = ContextVar("metrics_row_orders", default=None)


@contextmanager
def shared_estimates(*, one_call: bool = False) -> Iterator[None]:
    """Share estimates between the metric calls made inside the ``with`` block.

    Re-entrant: a nested scope uses the enclosing one's store.  The store is local to
    the current thread (a :class:`contextvars.ContextVar`).

    Parameters
    ----------
    one_call : bool, default False
        True for the scope a registered metric call opens for itself when none encloses
        it (:func:`shared_across_calls` is then False inside it).

    Examples
    --------
    Three information metrics on one representation share its discretisation and mutual-information table:

    >>> import metrics
    >>> from metrics.examples import toy_codes
    >>> factors, codes, _ = toy_codes()
    >>> with metrics.shared_estimates():
    ...     scores = {name: metrics.evaluate(name, factors, codes) for name in ("mig", "mig_sup", "modularity")}
    >>> sorted(scores)
    ['mig', 'mig_sup', 'modularity']
    """
    if _STORE.get() is not None:
        yield
        return
    token, across, orders = _STORE.set({}), _ACROSS_CALLS.set(not one_call), _ROW_ORDERS.set({})
    try:
        yield
    finally:
        _ROW_ORDERS.reset(orders)
        _ACROSS_CALLS.reset(across)
        _STORE.reset(token)


#: Bytes of a non-contiguous array copied at once to checksum it (:func:`content_fingerprint`).
_FINGERPRINT_BYTES = 1 << 22


def content_fingerprint(objects: tuple[Any, ...]) -> tuple[Hashable, ...]:
    """Inside a scope, a key of the content of each of ``objects`` (its shape, type and a CRC-32 of its bytes), for
    keying what is computed from them by their content as well as their identity; ``()`` outside one (nothing is
    kept).  An object numpy cannot read as an array (a ragged list) has no fingerprint (None): its validation
    refuses it anyway."""
    if _STORE.get() is None:
        return ()
    return tuple(_fingerprint(item) for item in objects)


def _fingerprint(item: Any) -> Hashable:
    import numpy as np

    try:
        array = item if isinstance(item, np.ndarray) else np.asarray(item)
        if array.dtype.hasobject:
            return None
        if array.flags.c_contiguous or array.ndim == 0:
            return array.shape, array.dtype.str, zlib.crc32(memoryview(array).cast("B")) if array.size else 0
        checksum, rows = 0, max(1, _FINGERPRINT_BYTES // max(1, array[0].nbytes))  # a copy of a block of rows at a
        for start in range(0, array.shape[0], rows):  # time, not of the whole (a Fortran-ordered 3 GB array)
            checksum = zlib.crc32(memoryview(np.ascontiguousarray(array[start:start + rows])).cast("B"), checksum)
        return array.shape, array.dtype.str, checksum
    except (TypeError, ValueError, BufferError, IndexError):  # no buffer of plain values (datetimes, ...): refused by
        return None  # validation


def shared_across_calls() -> bool:
    """Whether what is computed now may be reused by later metric calls (a scope opened
    with :func:`shared_estimates` encloses this call), so computing more than this call
    needs can pay off."""
    return _STORE.get() is not None and _ACROSS_CALLS.get()


def register_row_permutation(derived: Any, base: Any, rows: Any, token: Hashable) -> None:
    """Declare, until the scope closes, that ``derived`` is ``base[rows]`` and ``token`` names the order ``rows``.

    ``base`` is a validated matrix (:func:`metrics.validation.check_pair`) and ``derived`` a
    new array of its dtype and layout, so the metrics' entries take it as valid.  Every
    array declared with the same ``base`` and ``token`` must hold the same values (the
    caller derives them the same way), and none may be modified.  The scope holds
    ``base`` and ``rows``, and ``derived`` only weakly.

    Raises
    ------
    RuntimeError
        Outside a :func:`shared_estimates` scope.
    """
    orders = _ROW_ORDERS.get()
    if orders is None:
        raise RuntimeError("register_row_permutation needs an open metrics.shared_estimates() scope")
    orders[id(derived)] = (weakref.ref(derived), base, rows, token)


def row_permutation(array: Any) -> tuple[Any, Any, Hashable] | None:
    """``(base, rows, token)`` when ``array`` was declared a row permutation in this scope, else None."""
    orders = _ROW_ORDERS.get()
    entry = None if orders is None else orders.get(id(array))
    if entry is None or entry[0]() is not array:  # a dead entry whose identity a new object reuses
        return None
    return entry[1], entry[2], entry[3]


def memoised(
    kind: str,
    arrays: tuple[Any, ...],
    options: Hashable,
    compute: Callable[[], T],
    *,
    private_copy: bool = True,
    row_order_free: bool = False,
) -> T:
    """``compute()``, computed once per scope for the same ``kind``, input objects and ``options``.

    Parameters
    ----------
    kind : str
        What is computed (one name per computing function).
    arrays : tuple
        The input objects; the key holds their identities, the store holds the objects.
    options : hashable
        Every other input of the computation (flags, estimator, neighbours, bins...).
    compute : callable
        Computes the value; called once per key inside a scope, every time outside.
    private_copy : bool, default True
        Hand each caller its own deep copy, so that a caller modifying its result cannot
        change what later callers get.  False hands out the stored object itself (for
        values whose identity matters, such as validated arrays); such a value is not
        kept for a declared row permutation (it would keep that copy alive).
    row_order_free : bool, default False
        The value does not depend on the order of the rows (a column's range): a declared
        row permutation gets its base's value.
    """
    store = _STORE.get()
    if store is None:
        return compute()
    identities, held = [], []
    for array in arrays:
        origin = row_permutation(array)
        if origin is None:
            identities.append(id(array))
            held.append(array)
            continue
        if not private_copy:
            return compute()
        base, _, token = origin
        identities.append(id(base) if row_order_free else (id(base), token))
        held.append(base)
    key = (kind, tuple(identities), options)
    if key not in store:
        store[key] = (tuple(held), compute())
    value = store[key][1]
    return copy.deepcopy(value) if private_copy else value
