"""Dependence between every factor and every code, as MCC computes it: Pearson, Spearman or RDC, in-sample or cross-fitted.

Every correlation here is the largest canonical correlation between two blocks of features, one block per
column: a column's own values (``pearson``: the block is the column, and the canonical correlation of two
single columns is their absolute Pearson correlation), its ranks (``spearman``), or ``k`` random sine
features of its empirical copula (``rdc``, the randomised dependence coefficient of Lopez-Paz, Hennig and
Schölkopf 2013, "The Randomized Dependence Coefficient", NeurIPS, section 3).  What a canonical correlation
needs of the rows is their count, sums, and the sums of products within and between blocks
(:class:`RowStatistics`), so that the statistics of a training part are those of all rows less those of its
held-out fold: cross-fitting (:func:`cross_fitted_mean`) costs one pass over the rows, whatever the folds.

Memory: the code columns are turned into features a chunk at a time (:data:`_CHUNK_BYTES`, at least
:data:`_MIN_CHUNK_COLUMNS` columns), so beyond its inputs a call holds one chunk, the factors' features and the
``K x L`` blocks of statistics per fold (``k^2`` numbers a pair: 16 MiB a fold for RDC at 10 x 512).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from metrics._matching import matched_codes
from metrics._ranks import column_ranks

CORRELATIONS = ("pearson", "spearman", "rdc")

RDC_FEATURES = 20
"""Random features per column of the RDC (Lopez-Paz et al. 2013, section 5: k = 20)."""

RDC_SCALE = 1.0 / 6.0
"""The RDC's ``s`` (Lopez-Paz et al. 2013: 1/6).  As in the authors' R code, the random weights of a scalar's
copula value and of its constant have standard deviation ``s / 2`` (``s`` over the two columns)."""

RANK_TOLERANCE = 1e-10
"""Directions whose variance is below this fraction of the block's largest are dropped when whitening (collinear or
duplicated columns; for MCC's weak score, of the factors or the codes).
A column's sine features are nearly collinear (their arguments span about 0.3 radians), so all but three or
four directions are rounding: kept, a canonical correlation fits them, and two independent columns scored
0.9995 at n = 2000 (0.04 with the tolerance).  Also what makes a constant column's block empty (correlation 0)."""

_CHUNK_BYTES = 32 * 2**20
"""Bytes of code features made at once, unless that is fewer than :data:`_MIN_CHUNK_COLUMNS` columns."""

_MIN_CHUNK_COLUMNS = 8
"""Fewest code columns turned into features at once.  Each chunk's cross products read the factors' features again
(``K k`` columns of ``n`` rows), so a chunk of :data:`_CHUNK_BYTES` alone, 2 columns at n = 100000 and k = 20
against 20 at n = 10000, made those reads grow as ``n^2``: RDC's MCC took 13.9 times as long for 10 times the rows
at 10 x 512.  At this floor a chunk holds at most ``8 n k`` floats (128 MiB at n = 100000, k = 20)."""


@dataclass(frozen=True)
class FeatureMap:
    """How a column becomes its block of features: ``correlation`` and, for ``rdc``, the ``(2, k)`` random weights
    (row 0 multiplies the copula value, row 1 is the offset), one draw for every column."""

    correlation: str
    weights: np.ndarray | None = None

    @property
    def width(self) -> int:
        """Features per column (``k``)."""
        return 1 if self.weights is None else self.weights.shape[1]

    def features(self, columns: np.ndarray) -> np.ndarray:
        """``(n, d, k)`` features of the ``(n, d)`` columns, each centred on its mean over the rows."""
        if self.correlation == "pearson":
            return (columns - columns.mean(axis=0))[:, :, None]
        ranks = column_ranks(columns)
        if self.correlation == "spearman":
            return (ranks - ranks.mean(axis=0))[:, :, None]
        block = np.multiply((ranks / columns.shape[0])[:, :, None], self.weights[0])  # the copula times the weights
        block += self.weights[1]
        np.sin(block, out=block)  # in place: one (n, d, k) array at a time
        block -= block.mean(axis=0)
        return block


def feature_map(correlation: str, rng: np.random.Generator) -> FeatureMap:
    """The :class:`FeatureMap` of ``correlation``; RDC's weights are drawn from ``rng`` (nothing is drawn otherwise)."""
    if correlation != "rdc":
        return FeatureMap(correlation)
    return FeatureMap(correlation, rng.normal(0.0, RDC_SCALE / 2, size=(2, RDC_FEATURES)))


@dataclass(frozen=True)
class RowStatistics:
    """Sums over the rows of each group (a fold, or all rows) of the factors' and codes' feature blocks.

    Shapes, for ``G`` groups, ``K`` factors, ``L`` codes and ``k`` features a column: ``counts`` ``(G,)``;
    ``x_sums`` ``(G, K, k)``, ``y_sums`` ``(G, L, k)``; ``x_products`` ``(G, K, k, k)`` and ``y_products``
    ``(G, L, k, k)`` (each column's features with themselves); ``cross`` ``(G, K, L, k, k)``.
    """

    counts: np.ndarray
    x_sums: np.ndarray
    y_sums: np.ndarray
    x_products: np.ndarray
    y_products: np.ndarray
    cross: np.ndarray

    def _arrays(self) -> list[np.ndarray]:
        return [getattr(self, field.name) for field in fields(self)]

    def all_but(self, group: int) -> RowStatistics:
        """The statistics of every row but those of ``group``, as one group."""
        return RowStatistics(*(values.sum(axis=0, keepdims=True) - values[group : group + 1] for values in self._arrays()))

    def group(self, group: int) -> RowStatistics:
        """The statistics of ``group`` alone."""
        return RowStatistics(*(values[group : group + 1] for values in self._arrays()))

    def covariances(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Of the first group: the factors' ``(K, k, k)``, the codes' ``(L, k, k)`` and the cross ``(K, L, k, k)``
        covariances of their features."""
        count = self.counts[0]
        x_mean, y_mean = self.x_sums[0] / count, self.y_sums[0] / count
        x_cov = self.x_products[0] / count - x_mean[:, :, None] * x_mean[:, None, :]
        y_cov = self.y_products[0] / count - y_mean[:, :, None] * y_mean[:, None, :]
        cross = self.cross[0] / count - x_mean[:, None, :, None] * y_mean[None, :, None, :]
        return x_cov, y_cov, cross


def _block_statistics(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sums ``(d, k)`` and products ``(d, k, k)`` of an ``(m, d, k)`` block over its rows."""
    products = np.einsum("nci,ncj->cij", features, features, optimize=features.shape[2] > 1)  # the faster path for each k
    return features.sum(axis=0), products


def row_statistics(factors: np.ndarray, codes: np.ndarray, features: FeatureMap,
                   groups: list[np.ndarray] | None = None) -> RowStatistics:
    """:class:`RowStatistics` of ``factors`` and ``codes`` over each group of rows (None: one group, all rows).

    Features are made over all rows (ranks and copulas read every row, and no factor), then summed per group.
    """
    n, n_factors, n_codes, k = factors.shape[0], factors.shape[1], codes.shape[1], features.width
    groups = [slice(None)] if groups is None else groups
    counts = np.array([n if isinstance(rows, slice) else rows.size for rows in groups], dtype=np.float64)
    x_features = features.features(factors)
    x_blocks = [x_features[rows] for rows in groups]
    x_parts = [_block_statistics(block) for block in x_blocks]
    y_sums = np.empty((len(groups), n_codes, k))
    y_products = np.empty((len(groups), n_codes, k, k))
    cross = np.empty((len(groups), n_factors, n_codes, k, k))
    chunk = max(_MIN_CHUNK_COLUMNS, _CHUNK_BYTES // (8 * n * k))
    for start in range(0, n_codes, chunk):
        columns = slice(start, min(start + chunk, n_codes))
        y_features = features.features(codes[:, columns])
        for index, (rows, x_block) in enumerate(zip(groups, x_blocks)):
            y_block = y_features[rows]
            y_sums[index, columns], y_products[index, columns] = _block_statistics(y_block)
            m, width = y_block.shape[0], y_block.shape[1]
            product = x_block.reshape(m, n_factors * k).T @ y_block.reshape(m, width * k)
            cross[index, :, columns] = product.reshape(n_factors, k, width, k).transpose(0, 2, 1, 3)
    return RowStatistics(counts, np.stack([part[0] for part in x_parts]), y_sums,
                         np.stack([part[1] for part in x_parts]), y_products, cross)


def whitening(covariances: np.ndarray) -> np.ndarray:
    """``(d, k, k)`` maps ``W`` with ``W.T C W`` the identity on each block's kept directions (:data:`RANK_TOLERANCE`)
    and zero columns for the dropped ones."""
    eigenvalues, eigenvectors = np.linalg.eigh(covariances)
    largest = np.maximum(eigenvalues.max(axis=1, keepdims=True), 0.0)
    keep = eigenvalues > RANK_TOLERANCE * largest
    scale = np.divide(1.0, np.sqrt(np.where(keep, eigenvalues, 1.0)), out=np.zeros_like(eigenvalues), where=keep)
    return eigenvectors * scale[:, None, :]


@dataclass(frozen=True)
class CanonicalPairs:
    """The largest canonical correlation of every factor x code pair of blocks, and how to find its directions."""

    correlations: np.ndarray  # (K, L) in [0, 1]
    whitened: np.ndarray  # (K, L, k, k): W_x^T C_xy W_y, whose largest singular value is the correlation
    x_whitening: np.ndarray  # (K, k, k)
    y_whitening: np.ndarray  # (L, k, k)

    def directions(self, factor: int, code: int) -> tuple[np.ndarray, np.ndarray]:
        """Feature weights ``(a, b)`` of the pair's first canonical variates (``a^T C_xy b`` the correlation, >= 0)."""
        left, _, right = np.linalg.svd(self.whitened[factor, code])
        return self.x_whitening[factor] @ left[:, 0], self.y_whitening[code] @ right[0]


def canonical_pairs(statistics: RowStatistics) -> CanonicalPairs:
    """:class:`CanonicalPairs` from the statistics of one group of rows."""
    x_cov, y_cov, cross = statistics.covariances()
    x_whitening, y_whitening = whitening(x_cov), whitening(y_cov)
    whitened = np.einsum("iab,ijac,jcd->ijbd", x_whitening, cross, y_whitening, optimize=True)
    if whitened.shape[-1] == 1:
        correlations = np.abs(whitened[..., 0, 0])
    else:
        correlations = np.linalg.svd(whitened, compute_uv=False)[..., 0]
    return CanonicalPairs(np.clip(correlations, 0.0, 1.0), whitened, x_whitening, y_whitening)


def dependence_matrix(factors: np.ndarray, codes: np.ndarray, features: FeatureMap) -> np.ndarray:
    """``(K, L)`` in-sample dependence of every factor with every code, in [0, 1] (0 for a constant column)."""
    return canonical_pairs(row_statistics(factors, codes, features)).correlations


def paired_dependence(a: np.ndarray, b: np.ndarray, features: FeatureMap) -> np.ndarray:
    """Dependence of column ``i`` of ``a`` with column ``i`` of ``b``, in-sample."""
    return np.diag(dependence_matrix(a, b, features))


def _held_out_correlation(held_out: RowStatistics, factor: int, code: int, a: np.ndarray, b: np.ndarray) -> float:
    """Signed correlation on the held-out rows of the canonical variates ``x a`` and ``y b`` fitted on the others."""
    x_cov, y_cov, cross = held_out.covariances()
    spread = float(a @ x_cov[factor] @ a) * float(b @ y_cov[code] @ b)
    return float(a @ cross[factor, code] @ b) / np.sqrt(spread) if spread > 0 else 0.0


def cross_fitted_mean(factors: np.ndarray, codes: np.ndarray, features: FeatureMap, folds: int,
                      rng: np.random.Generator, pairs_only: bool) -> float:
    """Cross-fitted matched dependence: each fold scored on the matching and canonical directions of the others.

    The rows are split at random into ``folds`` folds.  For each fold, the factor x code dependences of the
    other rows give a one-to-one matching (Hungarian) and, for each matched pair, its canonical directions
    (Pearson and Spearman: the sign of the correlation); the fold's score is the sum over matched pairs of
    the held-out correlation of those variates, signed (independent columns score 0 in expectation, not the
    ``|rho|`` of chance), divided by the number of pairs (``pairs_only``) or of factors.  The score is the
    mean of the folds' scores weighted by their rows, clipped to [0, 1].
    """
    n, n_factors = factors.shape
    folds_rows = [np.sort(part) for part in np.array_split(rng.permutation(n), folds)]
    statistics = row_statistics(factors, codes, features, folds_rows)
    total = 0.0
    for fold, rows in enumerate(folds_rows):
        fitted = canonical_pairs(statistics.all_but(fold))
        held_out = statistics.group(fold)
        matched = matched_codes(fitted.correlations)
        pairs = [(factor, int(code)) for factor, code in enumerate(matched) if code >= 0]
        score = sum(_held_out_correlation(held_out, factor, code, *fitted.directions(factor, code))
                    for factor, code in pairs)
        total += rows.size * score / (len(pairs) if pairs_only else n_factors)
    return float(np.clip(total / n, 0.0, 1.0))
