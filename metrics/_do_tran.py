"""Shared pieces of Do and Tran's (2020) informativeness and separability metrics.

**How the observation x is represented.**  Do and Tran measure codes against the data
``x``: informativeness I(x; z_i) (eq. 1), separability I(x; z_i | z_!=i) (eq. 8) and
independence I(z_i; z_!=i).  In this harness the data are fully explained by the factors,
``x = g(v)`` with ``g`` invertible, so ``x`` is represented by the whole factor matrix ``v``
(all ``K`` columns jointly) and::

    I(x; z_S) = I(v; z_S)        E[z | x] = E[z | v]

Each code row is one draw of the encoder ``q(z | x)`` at that row's ``x``; noise in a
scenario's codes is the encoder's randomness.  The quantities are computed through
:func:`metrics.estimators.mutual_information` with the *code* ``z_i`` as the single
variable, using the exact identities::

    I(x; z_i)           = I(z_i; v)
    I(z_i; z_!=i)        (codes only)
    I(x; z_i | z_!=i)   = I(z_i; (v, z_!=i)) - I(z_i; z_!=i)          (chain rule)
    Î(x; z_i | z_!=i)   = I(x; z_i) - I(z_i; z_!=i)                   (eq. 9)

so at most ``3 L`` estimates serve every metric.  The multivariate side mixes factors and codes,
so the histogram estimators (one column only) do not apply; ``knn`` (default),
``knn_full`` and ``gaussian`` do.  A code that is an exact function of the factors has
infinite information with x; the estimators return their ceiling instead (``knn``:
between ``psi(N) - psi(k + 1)`` and ``psi(N) - psi(k)``, 8.6-9.0 nats at N = 20000;
``gaussian``: 13.8 nats).

**Normalisation** (``normalize``, :func:`metrics.estimators.information_denominator`).
Do and Tran divide by the quantised entropy H(z_i) (section 3.2): ``"entropy"`` uses the
code binned into ``bins`` equal-width bins over its range (the engine of
:mod:`metrics.information`; the paper uses a fixed range [-4, 4], which presumes unit-scale
Gaussian latents).  With continuous estimators a precise code holds more than this binned
entropy and the score exceeds 1.  ``"bounded"`` (default) divides by
``max(H(z_i), I(x; z_i), I(x; z_i | z_!=i))`` (the last only where computed), so every
per-code score is at most 1; ``"none"`` keeps nats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.constraints import Options
from metrics.estimators import (
    ESTIMATOR_CONSTRAINTS,
    binned_entropy,
    estimate_information,
    gaussian_gram,
    information_denominator,
    normalized,
)
from metrics.shared import memoised

#: The estimators of the information between a code and several columns (the factors standing for x), which
#: Do and Tran's metrics need, and the rules of those metrics' estimator options (:mod:`metrics.constraints`).
ESTIMATORS = ("knn", "knn_full", "gaussian")
DO_TRAN_CONSTRAINTS = {**ESTIMATOR_CONSTRAINTS, "estimator": Options(*ESTIMATORS)}


def informativeness_nats(factors: np.ndarray, codes: np.ndarray, *, estimator: str, neighbors: int, bins: int) -> np.ndarray:
    """``(L,)`` I(x; z_i) in nats, with x represented by the factors."""
    return memoised(
        "informativeness",
        (factors, codes),
        (estimator, neighbors),
        lambda: _informativeness(factors, codes, estimator, neighbors),
    )


def _informativeness(factors: np.ndarray, codes: np.ndarray, estimator: str, neighbors: int) -> np.ndarray:
    """``(L,)`` I(z_i; v) in nats (``gaussian``: from the draw's :class:`metrics._gaussian.CodeGram`)."""
    if estimator == "gaussian":
        gram = gaussian_gram(factors, codes)
        return np.array([gram.information(gram.code(i), np.arange(factors.shape[1])) for i in range(codes.shape[1])])
    return np.array([estimate_information(codes[:, i], factors, estimator=estimator, neighbors=neighbors) for i in range(codes.shape[1])])


def _dependence(factors: np.ndarray, codes: np.ndarray, estimator: str, neighbors: int) -> np.ndarray:
    """``(L,)`` I(z_i; z_!=i) in nats (``gaussian``: every code's regression on the others from one Gram matrix)."""
    if estimator == "gaussian":
        gram = gaussian_gram(factors, codes)
        return gram.leave_one_out(gram.code(np.arange(codes.shape[1])), np.arange(0))
    options = {"estimator": estimator, "neighbors": neighbors}
    return np.array([estimate_information(codes[:, i], np.delete(codes, i, axis=1), **options) for i in range(codes.shape[1])])


def _joint_information(factors: np.ndarray, codes: np.ndarray, estimator: str, neighbors: int) -> np.ndarray:
    """``(L,)`` I(z_i; (v, z_!=i)) in nats (``gaussian``: as :func:`_dependence`, the factors among the others)."""
    if estimator == "gaussian":
        gram = gaussian_gram(factors, codes)
        return gram.leave_one_out(gram.code(np.arange(codes.shape[1])), np.arange(factors.shape[1]))
    options = {"estimator": estimator, "neighbors": neighbors}
    return np.array([estimate_information(codes[:, i], np.hstack([factors, np.delete(codes, i, axis=1)]), **options) for i in range(codes.shape[1])])


@dataclass(frozen=True)
class CodeInformation:
    """Per-code information terms of Do and Tran (2020), in nats.

    Attributes
    ----------
    informativeness : numpy.ndarray
        ``(L,)`` I(x; z_i).
    dependence : numpy.ndarray
        ``(L,)`` I(z_i; z_!=i).
    separability : numpy.ndarray or None
        ``(L,)`` I(x; z_i | z_!=i), clipped at 0 (its true value is non-negative; the
        difference of two estimates is not).  None when not requested.
    independence : numpy.ndarray
        ``(L,)`` Î(x; z_i | z_!=i) = I(x; z_i) - I(z_i; z_!=i) (eq. 9; can be negative).
    denominator : numpy.ndarray
        ``(L,)`` divisor of each code's scores under the chosen normalisation.
    """

    informativeness: np.ndarray
    dependence: np.ndarray
    separability: np.ndarray | None
    independence: np.ndarray
    denominator: np.ndarray

    def weights(self) -> np.ndarray:
        """rho_i = I(x; z_i) / sum_j I(x; z_j); all 0 when no code is informative."""
        total = self.informativeness.sum()
        return self.informativeness / total if total > 0 else np.zeros_like(self.informativeness)

    def score(self, name: str) -> np.ndarray:
        """Normalised per-code ``"informativeness"``, ``"separability"`` or ``"independence"``."""
        values = getattr(self, name)
        if values is None:
            raise ValueError(f"{name} was not computed; call code_information(..., {name}=True)")
        return normalized(values, self.denominator)


def code_information(
    factors: np.ndarray,
    codes: np.ndarray,
    *,
    estimator: str,
    neighbors: int,
    bins: int,
    normalize: str,
    separability: bool = True,
) -> CodeInformation:
    """Per-code terms from ``3 L`` calls of :func:`metrics.estimators.mutual_information`
    (``2 L`` when ``separability`` is False: WINDIN and INDIN@k do not need it).

    Inside :func:`metrics.shared_estimates` each of the three ``L``-vectors is computed once
    per ``factors``, ``codes`` and estimator options, and shared by the five metrics of
    Do and Tran."""
    informativeness = informativeness_nats(factors, codes, estimator=estimator, neighbors=neighbors, bins=bins)
    dependence = memoised("code_dependence", (codes,), (estimator, neighbors), lambda: _dependence(factors, codes, estimator, neighbors))
    joint = (
        memoised("code_joint_information", (factors, codes), (estimator, neighbors), lambda: _joint_information(factors, codes, estimator, neighbors))
        if separability
        else None
    )
    return CodeInformation(
        informativeness=informativeness,
        dependence=dependence,
        separability=np.maximum(joint - dependence, 0.0) if separability else None,
        independence=informativeness - dependence,
        denominator=code_denominator(codes, np.maximum(informativeness, joint - dependence) if separability else informativeness, bins, normalize),
    )


def code_denominator(codes: np.ndarray, information: np.ndarray, bins: int, normalize: str) -> np.ndarray:
    """Divisor of each code's scores: 1, H(z_i) or max(H(z_i), information_i).

    ``information`` is the largest information term computed for the code: I(x; z_i), or
    ``max(I(x; z_i), I(x; z_i | z_!=i))`` when separability is computed (it exceeds I(x; z_i)
    under synergy), so that ``"bounded"`` scores never exceed 1.
    """
    return information_denominator(binned_entropy(codes, None, bins), information, normalize)


def top_k_mean(values: np.ndarray, top_k: int | None, n_factors: int) -> float:
    """Mean of the ``top_k`` largest values (SEPIN@k, INDIN@k); ``None`` means ``min(K, L)``.

    Raises
    ------
    ValueError
        When ``top_k`` exceeds the number of codes (the metrics' declarations refuse one that is no positive integer).
    """
    count = values.size
    if top_k is None:
        top_k = min(n_factors, count)
    if top_k > count:
        raise ValueError(f"top_k ({top_k}) exceeds the number of codes ({count})")
    return float(np.mean(np.sort(values)[::-1][:top_k]))
