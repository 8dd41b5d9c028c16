"""The ``gaussian`` estimator of :mod:`metrics.estimators` for many estimates on one pair of factors and codes.

``I(v; z_S) = -1/2 log(1 - R^2)``, with ``R^2`` that of the least-squares regression of ``v`` on the codes ``z_S``, needs
of the rows only the centred cross products of the columns involved.  A metric asking for many such estimates on the
same factors and codes (the PID bounds and UniBound: every factor with every code, then with all codes and with all
codes but one) reads them from one :class:`CodeGram`, built in one pass over the rows, instead of one pass (and an
``n x |S|^2`` product) per estimate: at 10 factors x 512 codes that pass was 20 products of ``n x 511^2`` and 5120 calls.

Each estimate equals :func:`metrics.estimators.mutual_information`'s to rounding (``tests/metrics/test_gaussian.py``):
the same regression on standardised columns (the same minimum-norm ``lstsq`` of the normal equations, so collinear
and constant codes are handled alike), the residual read from the cross products, ``T - 2 b.g + b.G b``, instead of
summed over the rows, and the same floor of the residual fraction.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_RESIDUAL_FRACTION = 1e-12
"""Floor of the residual fraction ``1 - R^2``: an exactly linear relation scores 13.8 nats, not infinity."""

_BLOCK_BYTES = 32 * 2**20
"""Most bytes of standardised rows held at once while the cross products are summed."""


def _scales(columns: np.ndarray) -> np.ndarray:
    """Each column's standard deviation, 1 for a constant one (which then standardises to zeros)."""
    scale = columns.std(axis=0)
    return np.where(scale > 0, scale, 1.0)


def information_from_fraction(fraction: np.ndarray | float) -> np.ndarray:
    """``-1/2 log`` of the residual fraction, floored at :data:`MIN_RESIDUAL_FRACTION`, clipped at 0 nats."""
    return np.maximum(-0.5 * np.log(np.maximum(fraction, MIN_RESIDUAL_FRACTION)), 0.0)


@dataclass(frozen=True)
class CodeGram:
    """Cross products of the standardised factors and codes, from which every Gaussian estimate is read.

    Attributes
    ----------
    codes : numpy.ndarray
        ``(L, L)`` products of the standardised codes with each other.
    cross : numpy.ndarray
        ``(K, L)`` products of each standardised factor with each standardised code.
    totals : numpy.ndarray
        ``(K,)`` each standardised factor's sum of squares (``n``; 0 for a constant factor).
    """

    codes: np.ndarray
    cross: np.ndarray
    totals: np.ndarray

    @classmethod
    def of(cls, factors: np.ndarray, codes: np.ndarray) -> CodeGram:
        """Sum the products over blocks of rows (at most :data:`_BLOCK_BYTES` of them standardised at once)."""
        n, n_factors = factors.shape
        n_codes = codes.shape[1]
        factor_mean, factor_scale = factors.mean(axis=0), _scales(factors)
        code_mean, code_scale = codes.mean(axis=0), _scales(codes)
        gram = np.zeros((n_codes, n_codes))
        cross = np.zeros((n_factors, n_codes))
        totals = np.zeros(n_factors)
        rows = max(1, _BLOCK_BYTES // (8 * (n_factors + n_codes)))
        for start in range(0, n, rows):
            block = slice(start, start + rows)
            z = (codes[block] - code_mean) / code_scale
            v = (factors[block] - factor_mean) / factor_scale
            gram += z.T @ z
            cross += v.T @ z
            totals += np.einsum("ij,ij->j", v, v)
        return cls(gram, cross, totals)

    def pairwise(self) -> np.ndarray:
        """``(K, L)`` I(v_k; z_l) of every factor with every single code: ``R^2`` is their squared correlation."""
        spread = np.sqrt(np.outer(self.totals, np.diag(self.codes)))
        correlation = np.divide(self.cross, spread, out=np.zeros_like(self.cross), where=spread > 0)
        return information_from_fraction(1.0 - correlation**2)

    def information(self, factor: int, columns: np.ndarray) -> float:
        """I(v_factor; z_columns) for an index array of code columns (0 for none, a constant factor or constant codes)."""
        total = self.totals[factor]
        if columns.size == 0 or total == 0.0:
            return 0.0
        gram = self.codes[np.ix_(columns, columns)]
        products = self.cross[factor, columns]
        coefficients = np.linalg.lstsq(gram, products, rcond=None)[0]
        residual = total - 2.0 * coefficients @ products + coefficients @ gram @ coefficients
        return float(information_from_fraction(residual / total))
