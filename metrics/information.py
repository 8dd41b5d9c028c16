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

Invariances
-----------
Every quantity here is unchanged when the codes are permuted (columns), the samples are
permuted (rows: counts do not depend on their order), a code is negated (its bins are
mirrored) or multiplied by a positive number (its bins over its own range scale with
it), so the metrics built on the engine are invariant to them
(:data:`metrics.registry.INVARIANCES`).  Not to strictly monotone maps: a nonlinear map
moves samples between equal-width bins (the tan map of Zaidi et al. 2022, 5.5).

**Except for values on a bin's edge.**  A continuous code almost never has one, but a code of a few values on a
lattice that matches the bins does: 11 integer values 0 .. 10 in 10 bins put 9 and 10 in the last bin, the same code
negated puts -1 and 0 together instead, and a rescaled one can move its values across edges by rounding.  The bins
are half-open (the edge rule above), so negating or rescaling such a code changes which values share a bin: MIG 0.87
against 0.95 for such a code and its negation (3000 samples of 2 factors of 11 values; the review's eq. 2 binning
behaves the same).  Where it matters, choose ``bins`` so that no value lies on an edge (11 bins for those 11
values), or sweep ``bins``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from metrics._columns import ROWS_PER_FOLD, column_range
from metrics.options import check_choice, check_positive_int
from metrics.shared import memoised, row_permutation

DEFAULT_BINS = 10
"""Bins per continuous column, as in the review's experiments (Zaidi et al. 2022, 5.2)."""

_CHUNK_ROWS = 1 << 13  # rows per binning block: cache-sized


@dataclass(frozen=True)
class Labels:
    """Integer category labels of the columns of a matrix.

    Attributes
    ----------
    codes : numpy.ndarray
        ``(n, d)`` integer array; column ``j`` takes values in ``0 .. n_bins[j] - 1``.
        This module makes it int32 (half the memory of int64: at ``n = 1e5`` and 10
        columns, 4 MB a matrix) and column-major (each column contiguous), the layout
        :func:`joint_counts` reads fastest; any integer dtype and layout give the same
        results.
    n_bins : numpy.ndarray
        ``(d,)`` number of categories of each column.
    """

    codes: np.ndarray
    n_bins: np.ndarray


def discretize(values: np.ndarray, bins: int = DEFAULT_BINS, value_range: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Equal-width discretisation of each column over its own min-max range.

    Parameters
    ----------
    values : numpy.ndarray
        ``(n, d)`` finite real matrix (validated by the caller).
    bins : int, default 10
        Number of bins per column.
    value_range : tuple of numpy.ndarray, optional
        ``(low, high)`` per column to bin over instead of the column's own (which they must contain): two matrices
        binned over their joint range give the labels of the two stacked, without the stacked copy.

    Returns
    -------
    numpy.ndarray
        ``(n, d)`` int32 bin indices in ``0 .. bins - 1`` (see the module's edge rule),
        column-major.
    """
    bins = check_positive_int(bins, "bins")
    values = np.ascontiguousarray(values, dtype=np.float64)
    low, high = column_range(values) if value_range is None else value_range
    span = high - low
    scale = np.divide(bins, span, out=np.zeros_like(span), where=span > 0)
    n, d = values.shape
    wide_low, wide_scale = np.tile(low, ROWS_PER_FOLD), np.tile(scale, ROWS_PER_FOLD)
    index = np.empty((d, n), dtype=np.int32).T  # column-major: the counting reads whole columns
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
    codes = np.empty(values.shape[::-1], dtype=np.int32).T  # column-major, as discretize's
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


def shared_labels(values: np.ndarray, discrete: tuple[bool, ...] | None = None, bins: int = DEFAULT_BINS) -> Labels:
    """:func:`to_labels`, once per matrix and options inside :func:`metrics.shared_estimates`.

    A declared row permutation of a matrix (:func:`metrics.shared.register_row_permutation`)
    gets that matrix's labels in its order: equal, since a value's bin depends on its
    column's range and categories only, which a permutation keeps.  The labels are shared:
    callers must not modify them.
    """
    origin = row_permutation(values)
    if origin is None:
        return memoised("labels", (values,), (discrete, bins), lambda: to_labels(values, discrete, bins), private_copy=False)
    base, rows, _ = origin
    labels = shared_labels(base, discrete, bins)
    permuted = np.empty(labels.codes.shape[::-1], dtype=labels.codes.dtype).T  # column-major, as to_labels gives
    for j in range(permuted.shape[1]):  # one contiguous column at a time: 8x faster than a take of the whole matrix
        np.take(labels.codes[:, j], rows, out=permuted[:, j])
    return Labels(permuted, labels.n_bins)


_GROUP_CELLS = 128
"""Most joint categories of a group of columns counted as one combined column (two 10-bin
columns: 100; three 4-bin columns: 64)."""

_TABLE_CELLS = 1 << 18
"""Most counts of grouped tables held at once (2 MiB of int64; one group of ``a`` at least)."""

_COUNT_VALUES = 1 << 19
"""Most values of one counting block's buffers (combined labels in int32, indices in int64): at most 4 MiB."""

MAX_TABLE_COUNTS = 1 << 26
"""Most counts of the contingency tables of one :func:`joint_counts` call (512 MiB of int64; the entropies
computed from them hold a few float copies more): 8 x 8 columns of up to 1024 bins.  Beyond it a study's worker
would be killed by the system for memory (bins = 10000 on 3 x 3 columns asks for 7 GiB) instead of the cell
failing with a reason."""


def _column_groups(n_bins: np.ndarray) -> list[list[int]]:
    """Runs of neighbouring columns whose product of category counts is at most :data:`_GROUP_CELLS`.

    A column with more categories than that is a group of its own.
    """
    groups: list[list[int]] = []
    cells = _GROUP_CELLS + 1
    for column, size in enumerate(n_bins.tolist()):
        if cells * size > _GROUP_CELLS:
            groups.append([])
            cells = 1
        groups[-1].append(column)
        cells *= size
    return groups


def _group_cells(labels: Labels, groups: list[list[int]]) -> list[int]:
    """Number of combined labels of each group: the product of its columns' category counts."""
    return [int(np.prod(labels.n_bins[group])) for group in groups]


def _group_code(labels: Labels, group: list[int], rows: slice, out: np.ndarray) -> np.ndarray:
    """The combined labels of a group of columns in ``rows``: mixed-radix digits, the group's first column most significant.

    A single column is its own combined label (a view of it; ``out`` is then unused).
    """
    codes = labels.codes[rows]
    if len(group) == 1:
        return codes[:, group[0]]
    np.multiply(codes[:, group[0]], int(labels.n_bins[group[1]]), out=out, casting="same_kind")
    out += codes[:, group[1]]
    for column in group[2:]:
        out *= int(labels.n_bins[column])
        out += codes[:, column]
    return out


def _ungroup(table: np.ndarray, n_bins: np.ndarray, groups: list[list[int]]) -> np.ndarray:
    """Sum the columns of ``table``, one per combined label of each group, into one per category of each group member."""
    parts = []
    start = 0
    for group in groups:
        sizes = n_bins[group].tolist()
        cells = int(np.prod(sizes))
        block = table[:, start : start + cells].reshape(-1, *sizes)
        start += cells
        for member in range(len(sizes)):
            parts.append(block.sum(axis=tuple(1 + other for other in range(len(sizes)) if other != member)))
    return np.concatenate(parts, axis=1)


def _grouped_counts(a: Labels, groups_a: list[list[int]], b: Labels, groups_b: list[list[int]]) -> np.ndarray:
    """Joint counts of the combined labels of every group of ``a`` with those of every group of ``b``.

    Rows follow ``a``'s groups, columns ``b``'s, each group spanning its combined labels.  One
    :func:`numpy.bincount` per pair of groups and block of rows.  Per block, the side with fewer groups
    (``a``, after swapping if need be) holds its combined labels, scaled by each group size of the other
    side, and the other side's groups are labelled one at a time: the blocks stay long whatever the number
    of codes (512 codes in blocks of 2000 rows spent their time clearing bincounts' 10000 cells, 5.8x slower).
    """
    cells_a, cells_b = _group_cells(a, groups_a), _group_cells(b, groups_b)
    sizes_a, sizes_b = sorted(set(cells_a)), sorted(set(cells_b))
    if len(groups_a) * len(sizes_b) > len(groups_b) * len(sizes_a):
        return _grouped_counts(b, groups_b, a, groups_a).T
    n = a.codes.shape[0]
    table = np.zeros((sum(cells_a), sum(cells_b)), dtype=np.int64)
    # Reused by every block of rows: a's combined labels scaled by each group size of b, per group of a (int64,
    # as bincount takes), one group's combined labels of each side (int32: at most _GROUP_CELLS) and the index.
    block_rows = max(1, min(n, _COUNT_VALUES // (len(groups_a) * len(sizes_b) + 2)))
    scaled_out = np.empty((len(groups_a), len(sizes_b), block_rows), dtype=np.int64)
    combined = np.empty((2, block_rows), dtype=np.int32)
    index = np.empty(block_rows, dtype=np.int64)
    row_starts = np.cumsum([0, *cells_a])[:-1].tolist()
    column_starts = np.cumsum([0, *cells_b])[:-1].tolist()
    for start in range(0, n, block_rows):
        rows = slice(start, min(start + block_rows, n))
        count = rows.stop - rows.start
        scaled = []
        for group, out in zip(groups_a, scaled_out):
            a_code = _group_code(a, group, rows, combined[0, :count])
            scaled.append({size: np.multiply(a_code, size, out=row[:count], dtype=np.int64) for size, row in zip(sizes_b, out)})
        for group, size, column in zip(groups_b, cells_b, column_starts):
            b_code = _group_code(b, group, rows, combined[1, :count])
            for a_scaled, cells, row in zip(scaled, cells_a, row_starts):
                np.add(a_scaled[size], b_code, out=index[:count], dtype=np.int64)
                table[row : row + cells, column : column + size] += np.bincount(index[:count], minlength=cells * size).reshape(cells, size)
    return table


def _check_table_size(n_bins_a: np.ndarray, n_bins_b: np.ndarray) -> None:
    """Refuse contingency tables of more than :data:`MAX_TABLE_COUNTS` counts, saying how many bins would fit."""
    da, db, ma, mb = n_bins_a.size, n_bins_b.size, int(n_bins_a.max()), int(n_bins_b.max())
    counts = da * db * ma * mb
    if counts > MAX_TABLE_COUNTS:
        fits = math.isqrt(MAX_TABLE_COUNTS // (da * db))
        raise ValueError(
            f"{da} x {db} columns of up to {ma} and {mb} categories (bins, or distinct values of a discrete column) "
            f"need contingency tables of {counts:,} counts ({counts * 8 / 2**30:.1f} GiB), more than the "
            f"{MAX_TABLE_COUNTS:,} allowed: use at most {fits} bins for these columns")


def joint_counts(a: Labels, b: Labels) -> np.ndarray:
    """Contingency tables of every column of ``a`` against every column of ``b``.

    Neighbouring columns of each side are grouped while their joint categories number
    at most :data:`_GROUP_CELLS` (pairs of 10-bin columns) and counted as one combined
    column: one :func:`numpy.bincount` over the samples per pair of groups, in blocks
    of rows, gives the joint table of up to four columns (with pairs, a quarter of the
    passes of one count per column pair), and the table of two single columns is the
    sum of their groups' table over the other members.  Counts are integers
    throughout, so the tables are exact.  Working memory beyond the labels: at most
    :data:`_COUNT_VALUES` values of combined labels and :data:`_TABLE_CELLS` grouped
    counts (``a``'s groups are counted in chunks; a single group may exceed it).

    Cost: 25 bincounts of ``n`` values for 10 x 10 columns of 10 bins (in two blocks of
    rows), about a third of a sparse one-hot product's; columns of more than
    :data:`_GROUP_CELLS` categories (bins > 11) are counted one pair at a time, about half
    a one-hot product's (``tests/benchmarks/test_bench_mutual_information.py``).

    Returns
    -------
    numpy.ndarray
        ``(d_a, d_b, max_bins_a, max_bins_b)`` int64 counts; entry ``[i, j, p, q]``
        counts the samples with ``a[:, i] == p`` and ``b[:, j] == q`` (zero-padded
        where a column has fewer categories than the widest).
    """
    _check_table_size(a.n_bins, b.n_bins)
    groups_a, groups_b = _column_groups(a.n_bins), _column_groups(b.n_bins)
    cells_a, width = _group_cells(a, groups_a), sum(_group_cells(b, groups_b))
    pieces = []
    first = 0
    while first < len(groups_a):  # chunks of a's groups whose grouped tables fit in _TABLE_CELLS
        last = first + 1
        while last < len(groups_a) and sum(cells_a[first : last + 1]) * width <= _TABLE_CELLS:
            last += 1
        chunk = groups_a[first:last]
        table = _grouped_counts(a, chunk, b, groups_b)
        pieces.append(_ungroup(_ungroup(table.T, a.n_bins, chunk).T, b.n_bins, groups_b))
        first = last
    total = np.concatenate(pieces)
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
    contingency tables.  Rounding is kept inside the bounds the exact quantities obey:
    the joint entropy is clipped to ``[max(H(a_i), H(b_j)), H(a_i) + H(b_j)]`` and the
    mutual information to ``[0, min(H(a_i), H(b_j))]``.  So a constant column, whose
    entropy is exactly 0, has a joint entropy equal to the other column's entropy and
    exactly zero information with every column: summed in another order, the joint
    table's terms left about 4e-16 nats of information with a constant code at
    n = 10000, enough to turn a ratio of two such roundings into a score of 1.
    """
    n = a.codes.shape[0]
    counts = joint_counts(a, b)
    h_a = _plogp_sum(counts[:, 0].sum(axis=2), n, (1,))[:, None]
    h_b = _plogp_sum(counts[0].sum(axis=1), n, (1,))[None, :]
    joint = np.clip(_plogp_sum(counts, n, (2, 3)), np.maximum(h_a, h_b), h_a + h_b)
    mi = np.clip(h_a + h_b - joint, 0.0, np.minimum(h_a, h_b))
    return InformationTable(mi, joint, h_a[:, 0], h_b[0], b.n_bins.copy(), a.n_bins.copy())


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
    Modularity and DCIMIG share it), each matrix is binned once (:func:`shared_labels`),
    and on a row permutation of the codes only the joint counts are computed again.
    Binning each matrix (its column ranges shared with validation) costs about a third of
    counting (:func:`joint_counts`), and the two are most of a ``metrics.mig.mig`` call.
    """
    flags = None if discrete is None else tuple(bool(flag) for flag in discrete)
    return memoised(
        "factor_code_information",
        (factors, codes),
        (flags, bins),
        lambda: information_table(shared_labels(factors, flags, bins), shared_labels(codes, None, bins)),
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
    ratios = np.divide(mi, denominator, out=np.zeros_like(mi), where=denominator > 0)
    return np.minimum(ratios, 1.0, out=ratios)  # I(v; z) <= H(v): a ratio above 1 is rounding (1 + 2e-16 on copies)
