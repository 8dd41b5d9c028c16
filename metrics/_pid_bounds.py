"""Bounds of the partial information decomposition of each factor (Tokui and Sato 2022, eqs. 5-7).

Shared by :mod:`metrics.unibound` and :mod:`metrics.pid`.

For a factor ``v_k``, one code ``z_l`` and the rest of the code ``z_\\l``, the information
I(v_k; z) splits into four non-negative terms (eq. 1)::

    I(v_k; z) = U(v_k; z_l \\ z_\\l) + U(v_k; z_\\l \\ z_l) + R(v_k; z_l, z_\\l) + C(v_k; z_l, z_\\l)

Only three mutual informations are computable, so each term is known up to an interval.
With the interaction information ``II = I(v_k; z_l) + I(v_k; z_\\l) - I(v_k; z)`` (eq. 7)::

    [I(v_k; z_l) - I(v_k; z_\\l)]_+ <= U <= I(v_k; z_l) - [II]_+
    [II]_+                           <= R <= min(I(v_k; z_l), I(v_k; z_\\l))
    [-II]_+                          <= C <= min(I(v_k; z_l), I(v_k; z_\\l)) - II

**Choice of the code l.**  UniBound (eq. 6) takes the maximum of the unique lower bound over
``l``, and the paper summarises the other bounds "using the same l for each k".  By the
data-processing inequality, I(v_k; z_\\l) >= I(v_k; z_m) for every code ``m`` in the rest, so
the lower bound is positive only for ``l* = argmax_l I(v_k; z_l)``; the maximum over ``l``
therefore equals the bound at ``l*`` exactly, and ``l*`` is also the natural choice when the
lower bound is 0 everywhere (then every ``l`` attains the maximum).  Computing at ``l*`` only
is exact, needs 2 multivariate estimates per factor instead of ``L + 1``, and avoids picking
a code through an estimator's violation of the data-processing inequality.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from metrics.estimators import (
    binned_entropy,
    check_estimator_options,
    information_denominator,
    mutual_information,
    normalized,
    pairwise_information,
)
from metrics.shared import memoised

BOUND_NAMES = (
    "unique_lower",
    "unique_upper",
    "redundant_lower",
    "redundant_upper",
    "complementary_lower",
    "complementary_upper",
)


def bounds_from_information(code: np.ndarray, rest: np.ndarray, total: np.ndarray) -> dict[str, np.ndarray]:
    """Eq. 7 of Tokui and Sato (2022) from I(v; z_l), I(v; z_\\l) and I(v; z) (arrays, nats).

    The two upper bounds are written without cancellation, in forms equal to eq. 7 when
    ``total >= max(code, rest)``: ``I(v; z_l) - [II]_+ = min(I(v; z_l), I(v; z) - I(v; z_\\l))``
    and ``min(I(v; z_l), I(v; z_\\l)) - II = I(v; z) - max(I(v; z_l), I(v; z_\\l))``, so they
    are never negative through rounding.
    """
    code, rest, total = (np.asarray(a, dtype=np.float64) for a in (code, rest, total))
    interaction = code + rest - total
    return {
        "unique_lower": np.maximum(code - rest, 0.0),
        "unique_upper": np.minimum(code, total - rest),
        "redundant_lower": np.maximum(interaction, 0.0),
        "redundant_upper": np.minimum(code, rest),
        "complementary_lower": np.maximum(-interaction, 0.0),
        "complementary_upper": total - np.maximum(code, rest),
    }


@dataclass(frozen=True)
class PIDBounds:
    """Per-factor PID bounds (nats) and the normalisation that turns them into scores.

    Attributes
    ----------
    code_index : numpy.ndarray
        ``(K,)`` the code ``l*`` of each factor (its most informative code).
    information_code, information_rest, information_total : numpy.ndarray
        ``(K,)`` I(v_k; z_l*), I(v_k; z_\\l*) and I(v_k; z).
    bounds : dict[str, numpy.ndarray]
        :data:`BOUND_NAMES` -> ``(K,)`` bounds in nats (eq. 7).
    denominator : numpy.ndarray
        ``(K,)`` divisor of each factor's bounds under the chosen normalisation.
    """

    code_index: np.ndarray
    information_code: np.ndarray
    information_rest: np.ndarray
    information_total: np.ndarray
    bounds: dict[str, np.ndarray]
    denominator: np.ndarray

    def scores(self) -> dict[str, np.ndarray]:
        """Normalised per-factor bounds, plus ``"information"``: I(v_k; z) normalised the same way."""
        out = {name: normalized(values, self.denominator) for name, values in self.bounds.items()}
        out["information"] = normalized(self.information_total, self.denominator)
        return out


def pid_bounds(
    factors: np.ndarray,
    codes: np.ndarray,
    discrete: Sequence[bool] | None = None,
    *,
    estimator: str,
    neighbors: int,
    bins: int,
    normalize: str,
) -> PIDBounds:
    """PID bounds of every factor against its most informative code and the rest of the code.

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Which factors are categorical.
    estimator, neighbors, bins
        Options of :func:`metrics.estimators.mutual_information`.  ``bins`` also sets the
        binned entropy H(v_k) of continuous factors used by the normalisation.
    normalize : {"bounded", "entropy", "none"}
        See :func:`metrics.estimators.information_denominator`; the information that
        bounds the scores of factor ``k`` is I(v_k; z).

    Notes
    -----
    Estimates need not respect the data-processing inequality I(v_k; z) >= I(v_k; z_l),
    I(v_k; z_\\l); a violation would put an upper bound below its lower bound.  The
    estimate of I(v_k; z) is therefore raised to ``max(I(v_k; z), I(v_k; z_l*), I(v_k; z_\\l*))``
    (a correction of the order of the estimator's noise, ~0.01 nats for ``knn``).

    Cost: ``K L`` single-code estimates and ``2 K`` multi-code estimates.  Inside
    :func:`metrics.shared_estimates` the bounds are computed once per ``factors``, ``codes``
    and options (UniBound and the PID bounds share them, RMIG the single-code estimates).
    """
    check_estimator_options(estimator, neighbors, bins)
    flags = tuple(bool(flag) for flag in discrete) if discrete is not None else (False,) * factors.shape[1]
    return memoised(
        "pid_bounds",
        (factors, codes),
        (flags, estimator, neighbors, bins, normalize),
        lambda: _pid_bounds(factors, codes, flags, estimator=estimator, neighbors=neighbors, bins=bins, normalize=normalize),
    )


def _pid_bounds(factors: np.ndarray, codes: np.ndarray, flags: tuple[bool, ...], *, estimator: str, neighbors: int, bins: int, normalize: str) -> PIDBounds:
    """The body of :func:`pid_bounds` (checked options, one flag per factor)."""
    options = {"estimator": estimator, "neighbors": neighbors, "bins": bins}
    pairwise = pairwise_information(factors, codes, flags, **options)
    best = np.argmax(pairwise, axis=1)
    rows = np.arange(factors.shape[1])
    rest = np.array([mutual_information(factors[:, k], np.delete(codes, best[k], axis=1), discrete=flags[k], **options) for k in rows])
    total = np.array([mutual_information(factors[:, k], codes, discrete=flags[k], **options) for k in rows])
    code = pairwise[rows, best]
    total = np.maximum(total, np.maximum(code, rest))
    denominator = information_denominator(binned_entropy(factors, flags, bins), total, normalize)
    return PIDBounds(best, code, rest, total, bounds_from_information(code, rest, total), denominator)
