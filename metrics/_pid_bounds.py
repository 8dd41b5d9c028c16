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

**Choice of the code l** (``code_choice``).  The paper's text (section 3.4) summarises each
lower bound "in a similar way as we did in Eq.6" (its maximum over ``l``) and each upper bound
"using the same l for each k as the lower bound"; the authors' code (beam2d/disen,
``disen/evaluation/mi.py``, which computes the unique bounds ``ulbo`` and ``uubo``) takes the
maximum over ``l`` of each bound separately (``amax`` over the code axis).  Three choices:

* ``"argmax"`` (default): one code for all six bounds, ``l* = argmax_l I(v_k; z_l)``.  By the
  data-processing inequality, I(v_k; z_\\l) >= I(v_k; z_m) for every code ``m`` in the rest,
  so the unique lower bound is positive only at ``l*``: the maximum of eq. 6 equals the bound
  at ``l*`` exactly, with 2 multivariate estimates per factor instead of ``L + 1``.  When no
  code holds more about ``v_k`` than the estimator's noise (synergy attack, alpha >= 8: 0.008
  nats per code), ``l*`` is picked by that noise and the other bounds follow it: in the
  Gaussian toy model at n = 10000 the complementary bounds then fall short of the exact
  2.30 nats for the factors whose ``l*`` is another factor's code.
* ``"per_bound"``: each of the six bounds is maximised over ``l`` on its own (the authors'
  code).  In the Gaussian toy model under either attack the maxima equal the exact PID terms
  (attained at the factor's own code), whatever the estimator's noise among codes that hold
  nothing; with estimates, the maximum of noisy values leans upwards by about the noise.
* ``"lower_bound"``: each lower bound maximised over ``l``, its upper bound taken at the code
  that maximises it (the paper's text).  Exact in the toy model too, but where a lower bound
  is 0 for every code (no redundancy under the synergy attack) its upper bound is read at a
  code picked by the estimator's noise.

With exact informations the unique lower bound (UniBound) is the same under all three; with
estimates that break the data-processing inequality by their noise the last two can pick it
up at another code (a few 0.001 nats in the toy model).  The last two cost ``L + 1``
multivariate estimates per factor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics.estimators import (
    binned_entropy,
    estimate_information,
    estimate_options,
    gaussian_gram,
    information_denominator,
    normalized,
    pairwise_information,
)
from metrics.shared import memoised

CODE_CHOICES = ("argmax", "per_bound", "lower_bound")

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
    information_code, information_rest : numpy.ndarray
        ``(K,)`` I(v_k; z_l*) and I(v_k; z_\\l*).
    information_total : numpy.ndarray
        ``(K,)`` I(v_k; z).
    bounds : dict[str, numpy.ndarray]
        :data:`BOUND_NAMES` -> ``(K,)`` bounds in nats (eq. 7), at ``l*`` or each maximised
        over ``l`` (see the module notes).
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


def _candidates(information_code: np.ndarray, code_choice: str) -> np.ndarray:
    """``(K, candidates)`` codes each factor's bounds are read at: its most informative code, or every code."""
    if code_choice == "argmax":
        return np.argmax(information_code, axis=1)[:, None]
    return np.tile(np.arange(information_code.shape[1]), (information_code.shape[0], 1))


def _summarise(per_code: dict[str, np.ndarray], code_choice: str) -> dict[str, np.ndarray]:
    """``(K,)`` bounds from ``(K, candidates)`` ones, as ``code_choice`` says (see the module notes)."""
    if code_choice != "lower_bound":  # "argmax" has a single candidate
        return {name: values.max(axis=1) for name, values in per_code.items()}
    out: dict[str, np.ndarray] = {}
    for term in ("unique", "redundant", "complementary"):
        lower = per_code[f"{term}_lower"]
        at = np.argmax(lower, axis=1)[:, None]
        out[f"{term}_lower"] = np.take_along_axis(lower, at, axis=1)[:, 0]
        out[f"{term}_upper"] = np.take_along_axis(per_code[f"{term}_upper"], at, axis=1)[:, 0]
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
    code_choice: str = "argmax",
) -> PIDBounds:
    """PID bounds of every factor against one code and the rest of the code.

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
    code_choice : {"argmax", "per_bound", "lower_bound"}, default "argmax"
        Bounds at the most informative code, each maximised over the codes, or each lower
        bound maximised and its upper bound at the same code (see the module notes).

    Notes
    -----
    Estimates need not respect the data-processing inequality I(v_k; z) >= I(v_k; z_l),
    I(v_k; z_\\l); a violation would put an upper bound below its lower bound.  The
    estimate of I(v_k; z) is therefore raised to the largest I(v_k; z_l), I(v_k; z_\\l)
    over the codes ``l`` used (a correction of the order of the estimator's noise, ~0.01
    nats for ``knn``).

    Cost: ``K L`` single-code estimates and ``2 K`` multi-code estimates (``"argmax"``) or
    ``K (L + 1)`` (the other choices).  Inside :func:`metrics.shared_estimates` the bounds are
    computed once per ``factors``, ``codes`` and options (UniBound and the PID bounds share
    them, RMIG the single-code estimates), and the estimates once per the options they depend
    on (:func:`metrics.estimators.estimate_options` and ``code_choice``: not ``normalize``,
    nor ``bins`` under ``knn``).
    """
    flags = tuple(bool(flag) for flag in discrete) if discrete is not None else (False,) * factors.shape[1]
    return memoised(
        "pid_bounds",
        (factors, codes),
        (flags, estimator, neighbors, bins, normalize, code_choice),
        lambda: _pid_bounds(factors, codes, flags, estimator=estimator, neighbors=neighbors, bins=bins,
                            normalize=normalize, code_choice=code_choice),
    )


def _pid_bounds(factors: np.ndarray, codes: np.ndarray, flags: tuple[bool, ...], *, estimator: str, neighbors: int,
                bins: int, normalize: str, code_choice: str) -> PIDBounds:
    """The body of :func:`pid_bounds` (checked options, one flag per factor)."""
    best, candidates, code, rest, total = memoised(
        "pid_information",
        (factors, codes),
        (flags, estimate_options(estimator, neighbors, bins), code_choice),
        lambda: _pid_information(factors, codes, flags, estimator=estimator, neighbors=neighbors, bins=bins, code_choice=code_choice),
    )
    bounds = _summarise(bounds_from_information(code, rest, np.broadcast_to(total[:, None], code.shape)), code_choice)
    at_best = candidates == best[:, None]
    denominator = information_denominator(binned_entropy(factors, flags, bins), total, normalize)
    return PIDBounds(best, code[at_best], rest[at_best], total, bounds, denominator)


def _pid_information(factors: np.ndarray, codes: np.ndarray, flags: tuple[bool, ...], *, estimator: str, neighbors: int,
                     bins: int, code_choice: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The estimates behind :func:`pid_bounds`, which do not depend on its normalisation.

    Returns
    -------
    tuple of numpy.ndarray
        ``(K,)`` most informative code of each factor, ``(K, candidates)`` codes the bounds
        are read at, ``(K, candidates)`` I(v_k; z_l) and I(v_k; z_\\l) at those codes, and
        ``(K,)`` I(v_k; z) raised to the largest of them (see :func:`pid_bounds`).
    """
    options = {"estimator": estimator, "neighbors": neighbors, "bins": bins}
    pairwise = pairwise_information(factors, codes, flags, **options)
    best = np.argmax(pairwise, axis=1)
    rows = np.arange(factors.shape[1])
    candidates = _candidates(pairwise, code_choice)
    if estimator == "gaussian":  # every estimate from one pass over the rows
        gram = gaussian_gram(factors, codes)
        every = gram.code(np.arange(codes.shape[1]))
        rest = np.array([[gram.information(k, np.delete(every, l)) for l in candidates[k]] for k in rows])
        total = np.array([gram.information(k, every) for k in rows])
    else:
        rest = np.array(
            [
                [estimate_information(factors[:, k], np.delete(codes, l, axis=1), discrete=flags[k], **options) for l in candidates[k]]
                for k in rows
            ]
        )
        total = np.array([estimate_information(factors[:, k], codes, discrete=flags[k], **options) for k in rows])
    code = pairwise[rows[:, None], candidates]
    total = np.maximum(total, np.maximum(code.max(axis=1), rest.max(axis=1)))
    return best, candidates, code, rest, total


def closed_form_scores(
    exact: Mapping[str, Any], discrete: Sequence[bool] | None, *, bins: int, normalize: str, code_choice: str = "argmax"
) -> dict[str, np.ndarray]:
    """The per-factor normalised bounds :meth:`PIDBounds.scores` converges to, from closed-form informations.

    Parameters
    ----------
    exact : Mapping
        A scenario's closed-form quantities (:attr:`scenarios.base.Representation.exact`):
        ``information_code`` and ``information_rest`` ``(K, L)``, I(v_k; z_l) and
        I(v_k; z_\\l), and ``information_total`` ``(K,)``, I(v_k; z), in nats.
    discrete : sequence of bool or None
        Which factors are categorical (None: none).
    bins, normalize, code_choice
        The metric's options (see :func:`pid_bounds`).

    Returns
    -------
    dict[str, numpy.ndarray]
        :data:`BOUND_NAMES` and ``"information"`` -> ``(K,)`` values, exactly as
        :meth:`PIDBounds.scores` defines them (the same code choice, eq. 7, normalisation);
        empty when ``exact`` lacks the three informations or the divisor depends on the
        sample.  The divisor is known in closed form under ``"none"`` (1) and under
        ``"bounded"`` when every factor is continuous and I(v_k; z) >= log(bins): the
        plug-in entropy of a factor binned into ``bins`` bins is at most log(bins), so
        ``max(H(v_k), I(v_k; z)) = I(v_k; z)`` whatever the sample (the Gaussian toy model
        holds I(v_k; z) = 2.308 nats > log 10 = 2.303).  ``"entropy"`` of a continuous
        factor is its binned entropy, which depends on the sample's range: no closed form.
    """
    names = ("information_code", "information_rest", "information_total")
    if any(name not in exact for name in names):
        return {}
    code, rest, total = (np.asarray(exact[name], dtype=np.float64) for name in names)
    continuous = discrete is None or not any(bool(flag) for flag in discrete)
    if normalize == "none":
        denominator = np.ones_like(total)
    elif normalize == "bounded" and continuous and bool(np.all(total >= np.log(bins))):
        denominator = total
    else:
        return {}
    candidates = _candidates(code, code_choice)
    rows = np.arange(code.shape[0])[:, None]
    at_code, at_rest = code[rows, candidates], rest[rows, candidates]
    bounds = _summarise(bounds_from_information(at_code, at_rest, np.broadcast_to(total[:, None], at_code.shape)), code_choice)
    out = {name: normalized(values, denominator) for name, values in bounds.items()}
    out["information"] = normalized(total, denominator)
    return out
