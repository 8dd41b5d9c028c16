"""The ``gaussian`` estimator of :mod:`metrics.estimators` for many estimates on one pair of factors and codes.

``I(y; x_S) = -1/2 log(1 - R^2)``, with ``R^2`` that of the least-squares regression of a column ``y`` on the columns
``x_S``, needs of the rows only the centred cross products of the columns involved.  A metric asking for many such
estimates on the same factors and codes reads them from one :class:`CodeGram`, built in one pass over the rows,
instead of one pass (and an ``n x |S|^2`` product) per estimate:

* the PID bounds and UniBound: every factor with every code, then with all codes and with all codes but one (at
  10 factors x 512 codes, 5120 calls and 20 products of ``n x 511^2``);
* Do and Tran's metrics: every code with the factors, with the other codes, and with the factors and the other codes
  (``L`` regressions on ``L - 1`` or more columns each: hours at 512 codes and n = 100000), the last two read from the
  inverse of one Gram matrix where it is well conditioned.

Each estimate equals :func:`metrics.estimators.mutual_information`'s to rounding (``tests/metrics/test_gaussian.py``):
the same regression on standardised columns (the same minimum-norm ``lstsq`` of the normal equations, so collinear
and constant columns are handled alike), the residual read from the cross products, ``T - 2 b.g + b.G b``, instead of
summed over the rows, and the same floor of the residual fraction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_RESIDUAL_FRACTION = 1e-12
"""Floor of the residual fraction ``1 - R^2``: an exactly linear relation scores 13.8 nats, not infinity."""

_BLOCK_BYTES = 32 * 2**20
"""Most bytes of standardised rows held at once while the cross products are summed."""

WELL_CONDITIONED = 1e-8
"""Smallest ratio of a Gram matrix's smallest eigenvalue to its largest for :meth:`CodeGram.leave_one_out` to read
every regression from its inverse (rounding then moves a residual fraction by about 1e-8 of itself); below it, a
regression each, as ``lstsq`` solves them."""


def column_scales(columns: np.ndarray) -> np.ndarray:
    """Each column's standard deviation, 1 for a constant one (which then standardises to zeros).

    Columns are divided by it before a regression is solved, so that the solution does not depend on their units (a
    code times a power of two gives the same bits); :mod:`metrics.estimators` standardises its projections with it too.
    """
    scale = columns.std(axis=0)
    return np.where(scale > 0, scale, 1.0)


def information_from_fraction(fraction: np.ndarray | float) -> np.ndarray:
    """``-1/2 log`` of the residual fraction, floored at :data:`MIN_RESIDUAL_FRACTION`, clipped at 0 nats."""
    return np.maximum(-0.5 * np.log(np.maximum(fraction, MIN_RESIDUAL_FRACTION)), 0.0)


@dataclass(frozen=True)
class CodeGram:
    """Cross products of the standardised factors and codes, from which every Gaussian estimate is read.

    The columns are the factors' then the codes': column ``k`` is factor ``k`` and column ``K + l`` is code ``l``
    (:meth:`code`).  A constant column standardises to zeros (its products are 0).

    Attributes
    ----------
    products : numpy.ndarray
        ``(K + L, K + L)`` products of the standardised columns, summed over the rows (each diagonal entry ``n``, or 0).
    n_factors : int
        ``K``.
    """

    products: np.ndarray
    n_factors: int

    @classmethod
    def of(cls, factors: np.ndarray, codes: np.ndarray) -> CodeGram:
        """Sum the products over blocks of rows (at most :data:`_BLOCK_BYTES` of them standardised at once)."""
        n, n_factors = factors.shape
        width = n_factors + codes.shape[1]
        mean = np.concatenate([factors.mean(axis=0), codes.mean(axis=0)])
        scale = np.concatenate([column_scales(factors), column_scales(codes)])
        products = np.zeros((width, width))
        rows = max(1, _BLOCK_BYTES // (8 * width))
        for start in range(0, n, rows):
            block = slice(start, start + rows)
            columns = (np.hstack([factors[block], codes[block]]) - mean) / scale
            products += columns.T @ columns
        return cls(products, n_factors)

    def code(self, codes: np.ndarray | int) -> np.ndarray | int:
        """The columns of codes ``codes`` (indices among the codes)."""
        return self.n_factors + codes

    def pairwise(self) -> np.ndarray:
        """``(K, L)`` I(v_k; z_l) of every factor with every single code: ``R^2`` is their squared correlation."""
        k = self.n_factors
        totals = np.diag(self.products)
        spread = np.sqrt(np.outer(totals[:k], totals[k:]))
        cross = self.products[:k, k:]
        correlation = np.divide(cross, spread, out=np.zeros_like(cross), where=spread > 0)
        return information_from_fraction(1.0 - correlation**2)

    def information(self, target: int, predictors: np.ndarray) -> float:
        """I(x_target; x_predictors) for a column and an index array of other columns (0 for none or a constant one)."""
        total = self.products[target, target]
        if predictors.size == 0 or total == 0.0:
            return 0.0
        gram = self.products[np.ix_(predictors, predictors)]
        products = self.products[predictors, target]
        coefficients = np.linalg.lstsq(gram, products, rcond=None)[0]
        residual = total - 2.0 * coefficients @ products + coefficients @ gram @ coefficients
        return float(information_from_fraction(residual / total))

    def leave_one_out(self, targets: np.ndarray, others: np.ndarray) -> np.ndarray:
        """``(len(targets),)`` I(x_t; every other column of ``targets`` and ``others``) for each column ``t`` of ``targets``.

        Where the Gram matrix of those columns is well conditioned (:data:`WELL_CONDITIONED`), all are read from its
        inverse (the residual of ``x_t`` on the others is ``1 / inverse_tt``); otherwise (constant, duplicated or
        collinear columns) each is its own minimum-norm regression (:meth:`information`).
        """
        members = np.concatenate([others, targets])
        gram = self.products[np.ix_(members, members)]
        eigenvalues = np.linalg.eigvalsh(gram)
        if members.size > 1 and eigenvalues[0] > WELL_CONDITIONED * eigenvalues[-1]:
            at = others.size + np.arange(targets.size)
            return information_from_fraction(1.0 / (np.diag(gram)[at] * np.diag(np.linalg.inv(gram))[at]))
        return np.array([self.information(target, members[members != target]) for target in targets])
