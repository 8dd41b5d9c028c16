"""The information-theory engine shared by every histogram-based metric.

Discretisation, entropies and the factor x code mutual-information matrix live here
and nowhere else, so that a fix or a speed-up reaches MIG, MIG-sup, JEMMIG, the
Modularity score, DCIMIG and every later metric built on them.

Conventions
-----------
* Logarithms are natural: entropies and mutual information are in nats.
* Estimates are the plug-in (maximum-likelihood) ones of Zaidi et al. (2022), eq. 2:
  probabilities are bin frequencies.
* **Discretisation edge rule.**  A continuous column is cut into ``bins`` equal-width
  bins spanning its own ``[min, max]``.  A value ``x`` goes to bin
  ``floor((x - min) / (max - min) * bins)``; the column maximum, which that formula
  would send to bin ``bins``, goes to the last bin (bins are half-open
  ``[lo, hi)`` except the last, which is closed, as in :func:`numpy.histogram`).
  A constant column has all its samples in bin 0, hence zero entropy.
* **Discrete columns** are not binned: each distinct value is its own category
  (the categories are the sorted distinct values).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import sparse

from metrics._columns import ROWS_PER_FOLD, column_range
from metrics.options import check_choice, check_positive_int
from metrics.shared import memoised

DEFAULT_BINS = 10
"""Bins per continuous column, as in the review's experiments (Zaidi et al. 2022, 5.2)."""

_CHUNK_ROWS = 1 << 13  # rows per one-hot block: cache-sized; float32 counts stay exact (< 2**24)


@dataclass(frozen=True)
class Labels:
    """Integer category labels of the columns of a matrix.

    Attributes
    ----------
    codes : numpy.ndarray
        ``(n, d)`` int64 array; column ``j`` takes values in ``0 .. n_bins[j] - 1``.
    n_bins : numpy.ndarray
        ``(d,)`` number of categories of each column.
    """

    codes: np.ndarray
    n_bins: np.ndarray


def discretize(values: np.ndarray, bins: int = DEFAULT_BINS) -> np.ndarray:
    """Equal-width discretisation of each column over its own min-max range.

    Parameters
    ----------
    values : numpy.ndarray
        ``(n, d)`` finite real matrix (validated by the caller).
    bins : int, default 10
        Number of bins per column.

    Returns
    -------
    numpy.ndarray
        ``(n, d)`` int64 bin indices in ``0 .. bins - 1`` (see the module's edge rule).
    """
    bins = check_positive_int(bins, "bins")
    values = np.ascontiguousarray(values, dtype=np.float64)
    low, high = column_range(values)
    span = high - low
    scale = np.divide(bins, span, out=np.zeros_like(span), where=span > 0)
    n, d = values.shape
    wide_low, wide_scale = np.tile(low, ROWS_PER_FOLD), np.tile(scale, ROWS_PER_FOLD)
    index = np.empty(values.shape, dtype=np.int64)
    buffer = np.empty(min(n, _CHUNK_ROWS) * d)
    for start in range(0, n, _CHUNK_ROWS):  # cache-sized blocks, one pass each
        block = values[start : start + _CHUNK_ROWS]
        scaled = buffer[: block.size].reshape(block.shape)
        if block.shape[0] % ROWS_PER_FOLD == 0:  # the same arithmetic on rows folded side by side (faster)
            wide = scaled.reshape(-1, ROWS_PER_FOLD * d)
            np.subtract(block.reshape(wide.shape), wide_low, out=wide)
            np.multiply(wide, wide_scale, out=wide)
        else:
            np.subtract(block, low, out=scaled)
            np.multiply(scaled, scale, out=scaled)
        np.minimum(scaled, bins - 1, out=scaled)  # the column maximum goes to the last bin
        np.copyto(index[start : start + _CHUNK_ROWS], scaled, casting="unsafe")  # truncation is floor: scaled >= 0
    return index


def encode_categories(values: np.ndarray) -> Labels:
    """Label each column's distinct values ``0, 1, ...`` in sorted order."""
    values = np.asarray(values, dtype=np.float64)
    codes = np.empty(values.shape, dtype=np.int64)
    n_bins = np.empty(values.shape[1], dtype=np.int64)
    for j in range(values.shape[1]):
        uniques, codes[:, j] = np.unique(values[:, j], return_inverse=True)
        n_bins[j] = uniques.size
    return Labels(codes, n_bins)


def to_labels(values: np.ndarray, discrete: Sequence[bool] | None = None, bins: int = DEFAULT_BINS) -> Labels:
    """Labels of every column: categories for discrete ones, equal-width bins otherwise.

    Parameters
    ----------
    values : numpy.ndarray
        ``(n, d)`` real matrix.
    discrete : sequence of bool, optional
        One flag per column; ``None`` means all continuous.
    bins : int, default 10
        Bins per continuous column.
    """
    values = np.asarray(values, dtype=np.float64)
    flags = np.zeros(values.shape[1], bool) if discrete is None else np.asarray(discrete, bool)
    codes = discretize(values, bins)
    n_bins = np.full(values.shape[1], bins, dtype=np.int64)
    if flags.any():
        categories = encode_categories(values[:, flags])
        codes[:, flags] = categories.codes
        n_bins[flags] = categories.n_bins
    return Labels(codes, n_bins)


def _offsets(labels: Labels) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(labels.n_bins)[:-1])).astype(np.int64)


def joint_counts(a: Labels, b: Labels) -> np.ndarray:
    """Contingency tables of every column of ``a`` against every column of ``b``.

    All pairs are counted at once as one product of one-hot encodings
    (sparse for ``a``, dense for ``b``), processed in row blocks small enough to
    stay in cache and to keep the float32 partial counts exact.

    Returns
    -------
    numpy.ndarray
        ``(d_a, d_b, max_bins_a, max_bins_b)`` int64 counts; entry ``[i, j, p, q]``
        counts the samples with ``a[:, i] == p`` and ``b[:, j] == q`` (zero-padded
        where a column has fewer categories than the widest).
    """
    n, d_a = a.codes.shape
    width_a, width_b = int(a.n_bins.sum()), int(b.n_bins.sum())
    offsets_a, offsets_b = _offsets(a), _offsets(b)
    total = np.zeros((width_a, width_b), dtype=np.int64)
    block_rows = min(n, _CHUNK_ROWS)
    # Reused for every block: b's dense float32 one-hot buffer (a block sets its ones,
    # multiplies, then resets those same ones, cheaper than zeroing a fresh block), the
    # ones and column pointers of a's transposed one-hot (one column per sample).
    dense = np.zeros(block_rows * width_b, dtype=np.float32)
    dense_starts = np.arange(block_rows, dtype=np.int64)[:, None] * width_b + offsets_b
    ones = np.ones(block_rows * d_a, dtype=np.float32)
    column_starts = np.arange(0, block_rows * d_a + 1, d_a, dtype=np.int32)
    for start in range(0, n, _CHUNK_ROWS):
        rows = slice(start, min(start + _CHUNK_ROWS, n))
        size = rows.stop - rows.start
        hot = (dense_starts[:size] + b.codes[rows]).ravel()
        dense[hot] = 1.0
        categories = (a.codes[rows] + offsets_a).astype(np.int32).ravel()
        transposed = sparse.csc_matrix((ones[: size * d_a], categories, column_starts[: size + 1]), shape=(width_a, size))
        block = transposed @ dense[: size * width_b].reshape(size, width_b)
        dense[hot] = 0.0
        total += block.astype(np.int64)
    da, db = a.n_bins.size, b.n_bins.size
    ma, mb = int(a.n_bins.max()), int(b.n_bins.max())
    if np.all(a.n_bins == ma) and np.all(b.n_bins == mb):
        return total.reshape(da, ma, db, mb).transpose(0, 2, 1, 3)
    out = np.zeros((da, db, ma, mb), dtype=np.int64)
    a_off = np.concatenate(([0], np.cumsum(a.n_bins)))
    b_off = np.concatenate(([0], np.cumsum(b.n_bins)))
    for i in range(da):
        row_block = total[a_off[i] : a_off[i + 1]]
        for j in range(db):
            out[i, j, : a.n_bins[i], : b.n_bins[j]] = row_block[:, b_off[j] : b_off[j + 1]]
    return out


def _plogp_sum(counts: np.ndarray, n: int, axes: tuple[int, ...]) -> np.ndarray:
    """Entropy (nats) of the distributions ``counts / n`` summed over ``axes``."""
    p = counts / n
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log(p), 0.0)
    return terms.sum(axis=axes)


def entropy(labels: Labels) -> np.ndarray:
    """Plug-in entropy (nats) of each labelled column.

    Returns
    -------
    numpy.ndarray
        ``(d,)`` entropies; 0 for a constant column.
    """
    n = labels.codes.shape[0]
    width = int(labels.n_bins.max())
    counts = np.zeros((labels.codes.shape[1], width), dtype=np.int64)
    for j in range(labels.codes.shape[1]):
        counts[j] = np.bincount(labels.codes[:, j], minlength=width)
    return _plogp_sum(counts, n, (1,))


@dataclass(frozen=True)
class InformationTable:
    """Pairwise information quantities between factors and codes (all in nats).

    Attributes
    ----------
    mutual_information : numpy.ndarray
        ``(K, L)`` matrix of I(v_k; z_j).
    joint_entropy : numpy.ndarray
        ``(K, L)`` matrix of H(v_k, z_j).
    factor_entropy : numpy.ndarray
        ``(K,)`` H(v_k).
    code_entropy : numpy.ndarray
        ``(L,)`` H(z_j).
    code_bins : numpy.ndarray
        ``(L,)`` number of bins (categories) of each code.
    factor_bins : numpy.ndarray
        ``(K,)`` number of bins (categories) of each factor.
    """

    mutual_information: np.ndarray
    joint_entropy: np.ndarray
    factor_entropy: np.ndarray
    code_entropy: np.ndarray
    code_bins: np.ndarray
    factor_bins: np.ndarray


def information_table(a: Labels, b: Labels) -> InformationTable:
    """Entropies and mutual information of every column of ``a`` with every column of ``b``.

    Mutual information is computed as H(a_i) + H(b_j) - H(a_i, b_j) from the same
    contingency tables, and clipped at 0 against rounding.
    """
    n = a.codes.shape[0]
    counts = joint_counts(a, b)
    joint = _plogp_sum(counts, n, (2, 3))
    h_a = _plogp_sum(counts[:, 0].sum(axis=2), n, (1,))
    h_b = _plogp_sum(counts[0].sum(axis=1), n, (1,))
    mi = np.clip(h_a[:, None] + h_b[None, :] - joint, 0.0, None)
    return InformationTable(mi, joint, h_a, h_b, b.n_bins.copy(), a.n_bins.copy())


def mutual_information_matrix(a: Labels, b: Labels) -> np.ndarray:
    """``(d_a, d_b)`` plug-in mutual information (nats) between all column pairs."""
    return information_table(a, b).mutual_information


def factor_code_information(
    factors: np.ndarray,
    codes: np.ndarray,
    discrete: Sequence[bool] | None = None,
    bins: int = DEFAULT_BINS,
) -> InformationTable:
    """The :class:`InformationTable` of factors (rows) against codes (columns).

    Continuous factors and all codes are discretised into ``bins`` equal-width bins;
    discrete factors keep their categories.  Inside :func:`metrics.shared_estimates` the
    table is computed once per ``factors``, ``codes`` and options (MIG, MIG-sup, JEMMIG,
    Modularity and DCIMIG share it).
    """
    flags = None if discrete is None else tuple(bool(flag) for flag in discrete)
    return memoised(
        "factor_code_information",
        (factors, codes),
        (flags, bins),
        lambda: information_table(to_labels(factors, flags, bins), to_labels(codes, None, bins)),
    )


NORMALIZATIONS = ("factor", "code")


def normalized_mutual_information(table: InformationTable, normalization: str = "factor") -> np.ndarray:
    """Mutual information divided by an entropy, for gap-based metrics.

    Parameters
    ----------
    table : InformationTable
        Factor x code information quantities.
    normalization : {"factor", "code"}
        ``"factor"`` divides I(v_k; z_j) by H(v_k), as the papers do (Chen et al.
        2018, eq. 6; Zaidi et al. 2022, eqs. 3 and 6).  ``"code"`` divides it by
        H(z_j), as the review's public code does in several metrics; the two agree
        when codes are spread like the factors (uniform codes) and part ways when a
        code is skewed (the tan map of section 5.5 piles samples into the middle bins,
        lowering H(z_j)).

    Returns
    -------
    numpy.ndarray
        ``(K, L)`` ratios in [0, 1].  A zero entropy (constant column) gives 0: a
        column that carries no information cannot be said to share any.
    """
    check_choice(normalization, "normalization", NORMALIZATIONS)
    mi = table.mutual_information
    denominator = table.factor_entropy[:, None] if normalization == "factor" else table.code_entropy[None, :]
    denominator = np.broadcast_to(denominator, mi.shape)
    return np.divide(mi, denominator, out=np.zeros_like(mi), where=denominator > 0)
