"""Permutation nulls: what a metric scores on a representation by chance alone.

The null of a metric on ``(factors, codes)`` is its score on the same factors with the rows
of the codes permuted: each code's values, and the codes' joint distribution, are kept
exactly; only their dependence on the factors is destroyed.  ``B`` permutations give the
null's mean, its 95% chance level and the permutation p-value of the observed score.

Seeding
-------
Permutation ``b`` of ``n`` rows is drawn by the generator of child ``b`` of the
:class:`numpy.random.SeedSequence` ``seed`` (spawn key ``seed.spawn_key + (b,)``, the child
``seed.spawn(...)`` would give), so it depends on ``seed``, ``n`` and ``b`` only: the first
20 permutations of ``B = 100`` are those of ``B = 20``, and every metric given the same seed
(the harness derives it from the data draw, not from the metric) is scored on the same
row orders.

Shared work
-----------
Inside :func:`metrics.shared_estimates` (the harness opens one per data draw; a call of
:func:`permutation_null` opens its own when none encloses it), each permuted code matrix is
declared a row permutation of the codes (:func:`metrics.shared.register_row_permutation`).
Every estimate keyed by the codes is then shared by all the copies of one row order, so the
metrics of a draw pay for each permutation's estimates once, whatever the number of metrics:
the histogram metrics (MIG, MIG-sup, JEMMIG, Modularity, DCIMIG, minimality/sufficiency,
InfoMEC's NMI, RMIG's histogram estimators) one joint table per permutation, binned from the
codes' labels in the new order (the labels, column ranges and entropies of the codes are
those of the unpermuted codes); the k-NN information metrics one pairwise matrix per
permutation.  Validating a permuted matrix reuses the codes' column ranges.  Everything else
is the metric called on the permuted codes.  A permuted matrix is materialised for each metric
call and dropped after it (the scope holds the row orders, ``B`` integer vectors of ``n``,
not ``B`` copies of the codes), and it is read-only.  Scores are bit-identical with and
without the sharing.

P-values
--------
The p-value counts the permutations scoring at least as well as the observed score, in the
sub-score's better direction, with the observed one itself (Phipson and Smyth 2010,
"Permutation p-values should never be zero")::

    p = (1 + #{b : null_b at least as good as observed}) / (B + 1)

so it lies in ``[1 / (B + 1), 1]`` and ``P(p <= a) <= a`` on codes independent of the
factors.  Differences within rounding (100 machine epsilons of the observed score, as
:func:`scipy.stats.permutation_test` allows) count as ties, and ties count as "at least as
good": a sub-score that reaches its bound on the representation *and* on permuted codes (a
redundancy that is 0 with or without dependence) gets a large p-value, as it should: that
score does not tell the representation from chance.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from metrics._entry import validated_pair
from metrics.evaluation import MetricLike, evaluate, metric_name
from metrics.options import check_positive_int, check_random_state, check_real
from metrics.registry import MetricSpec, check_directions, get
from metrics.shared import memoised, register_row_permutation, shared_estimates

CHANCE_LEVEL = 0.95
"""Level of :meth:`NullDistribution.null_q95`: the share of null scores no better than it."""

_TIE_EPSILONS = 100
"""Machine epsilons of the observed score within which a null score counts as a tie (as SciPy's permutation test)."""


@dataclass(frozen=True)
class NullDistribution:
    """A metric's permutation null on one representation.

    Attributes
    ----------
    observed : Mapping[str, float]
        Sub-score -> the score on the codes as given.
    scores : Mapping[str, numpy.ndarray]
        Sub-score -> ``(B,)`` read-only scores on the permuted codes, in permutation order
        (for bands and figures).
    higher_is_better : Mapping[str, bool]
        Sub-score -> its better direction, which the chance level and the p-value read.
    """

    observed: Mapping[str, float]
    scores: Mapping[str, np.ndarray]
    higher_is_better: Mapping[str, bool]

    @property
    def sub_scores(self) -> tuple[str, ...]:
        """The sub-scores, in the order the metric reports them."""
        return tuple(self.observed)

    @property
    def permutations(self) -> int:
        """``B``, the number of permutations."""
        return int(next(iter(self.scores.values())).size)

    def _known(self, sub_score: str) -> str:
        """``sub_score``, or a KeyError naming the sub-scores there are (a bare ``KeyError: 'mgi'`` said neither)."""
        if sub_score not in self.scores:
            raise KeyError(f"no sub-score {sub_score!r} in this null; its sub-scores: {', '.join(self.sub_scores)}")
        return sub_score

    def null_mean(self, sub_score: str) -> float:
        """Mean of the null scores of ``sub_score``: the score expected by chance at this ``n`` and code width."""
        return float(np.mean(self.scores[self._known(sub_score)]))

    def null_q95(self, sub_score: str) -> float:
        """The 95% chance level of ``sub_score``: the null's 95% quantile for a higher-is-better
        sub-score, its 5% quantile for a lower-is-better one (linearly interpolated), so that 95%
        of the null scores are no better than it."""
        level = CHANCE_LEVEL if self.higher_is_better[self._known(sub_score)] else 1.0 - CHANCE_LEVEL
        return float(np.quantile(self.scores[sub_score], level))

    def p_value(self, sub_score: str) -> float:
        """Permutation p-value of the observed ``sub_score``, ``(1 + #{null at least as good}) / (B + 1)``
        (see the module notes for ties)."""
        observed, null = self.observed[self._known(sub_score)], self.scores[sub_score]
        tolerance = _TIE_EPSILONS * np.finfo(np.float64).eps * abs(observed)
        as_good = null >= observed - tolerance if self.higher_is_better[sub_score] else null <= observed + tolerance
        return (1 + int(np.count_nonzero(as_good))) / (null.size + 1)

    def columns(self, sub_score: str) -> dict[str, float | int]:
        """The null's summary of ``sub_score`` as results columns: ``null_mean``, ``null_q95``,
        ``p_value`` and ``null_permutations``."""
        return {
            "null_mean": self.null_mean(sub_score),
            "null_q95": self.null_q95(sub_score),
            "p_value": self.p_value(sub_score),
            "null_permutations": self.permutations,
        }

    def summary(self) -> dict[str, dict[str, float | int]]:
        """Sub-score -> :meth:`columns`, with the observed ``score`` first."""
        return {sub_score: {"score": self.observed[sub_score], **self.columns(sub_score)} for sub_score in self.sub_scores}


def seed_sequence(seed: int | np.random.SeedSequence) -> np.random.SeedSequence:
    """``seed`` as a SeedSequence: an int >= 0 seeds a new one, a SeedSequence is used as given.

    Raises
    ------
    TypeError
        For anything else (a Generator, whose draws depend on its past, included).
    ValueError
        For a negative integer.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):  # check_positive_int said "must be an integer", beside "or a SeedSequence"
        raise TypeError("seed must be an int >= 0 or a numpy.random.SeedSequence, not a Generator (its draws depend on "
                        "its past calls; the permutations must depend on the seed alone)")
    return np.random.SeedSequence(check_positive_int(seed, "seed (an int or a numpy.random.SeedSequence)", minimum=0))


def _order_token(seed: np.random.SeedSequence, index: int) -> Hashable:
    entropy = seed.entropy if isinstance(seed.entropy, int) else tuple(int(value) for value in np.ravel(seed.entropy))
    return (entropy, tuple(int(key) for key in seed.spawn_key), seed.pool_size, index)


def permutation_rows(n: int, seed: int | np.random.SeedSequence, index: int) -> np.ndarray:
    """The row order of permutation ``index`` of ``n`` rows under ``seed`` (see the module notes).

    Returns
    -------
    numpy.ndarray
        ``(n,)`` indices: the permuted codes are ``codes[rows]``.
    """
    parent = seed_sequence(seed)
    child = np.random.SeedSequence(parent.entropy, spawn_key=(*parent.spawn_key, index), pool_size=parent.pool_size)
    return np.random.default_rng(child).permutation(n)


def _permuted_codes(codes: np.ndarray, seed: np.random.SeedSequence, index: int) -> np.ndarray:
    """``codes[rows]`` for permutation ``index``, read-only and declared a row permutation of ``codes``.

    The row order is drawn once per scope; the matrix afresh for each call.
    """
    token = _order_token(seed, index)
    rows = memoised("permutation_rows", (), (codes.shape[0], token), lambda: _read_only(permutation_rows(codes.shape[0], seed, index)),
                    private_copy=False)
    permuted = _read_only(np.take(codes, rows, axis=0))
    register_row_permutation(permuted, codes, rows, token)
    return permuted


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _directions(metric: MetricLike, given: bool | Mapping[str, bool] | None, sub_scores: Sequence[str]) -> dict[str, bool]:
    spec = get(metric) if isinstance(metric, str) else metric if isinstance(metric, MetricSpec) else None
    if given is None:
        return {sub: spec.higher_is_better_for(sub) if spec is not None else True for sub in sub_scores}
    default, exceptions = check_directions(given, sub_scores, metric_name(metric))
    return {sub: exceptions.get(sub, default) for sub in sub_scores}


def _checked_observed(observed: Any, name: str) -> dict[str, float]:
    if not isinstance(observed, Mapping) or not observed:
        raise TypeError(f"observed must map the sub-scores of metric {name!r} to their scores, got {observed!r}")
    return {str(sub_score): check_real(value, f"observed score of {sub_score!r}") for sub_score, value in observed.items()}


def permutation_null(
    metric: MetricLike,
    factors: Any,
    codes: Any,
    *,
    permutations: int,
    seed: int | np.random.SeedSequence,
    observed: Mapping[str, float] | None = None,
    higher_is_better: bool | Mapping[str, bool] | None = None,
    discrete: Sequence[bool] | bool | None = None,
    random_state: int | None = None,
    **options: Any,
) -> NullDistribution:
    """Score a metric on ``permutations`` row permutations of the codes: its null on this representation.

    Parameters
    ----------
    metric : str, MetricSpec or callable
        What :func:`metrics.evaluate` takes: a registered single-representation metric or a
        plain callable ``fn(factors, codes, **options)``.
    factors, codes : array_like
        ``(n, K)`` factors and ``(n, L)`` codes, validated as :func:`metrics.evaluate` does.
    permutations : int
        ``B >= 1``.  The p-value cannot fall below ``1 / (B + 1)``: ``B = 19`` can reach
        0.05, ``B = 99`` 0.01.
    seed : int or numpy.random.SeedSequence
        Seeds the row orders (see the module notes): give every metric of a data draw the
        same seed so that they share the permutations' estimates.
    observed : Mapping[str, float], optional
        The metric's scores on ``(factors, codes)`` with the same options, when already
        computed (they are then not computed again); their sub-scores must be the metric's.
    higher_is_better : bool or Mapping[str, bool], optional
        The sub-scores' better directions, as :func:`metrics.register_metric` takes them
        (a mapping lists exceptions to higher-is-better).  Default: the registry's for a
        registered metric, higher-is-better for a callable.
    discrete : sequence of bool or bool, optional
        Which factors are discrete, as :func:`metrics.evaluate` takes it.
    random_state : int, optional
        Seed of a stochastic metric, the same for the observed score and every permutation
        (so the null reflects the lost dependence alone, not new random splits or fits).
        ``None``: what :func:`metrics.evaluate` does (0 for registered metrics).  A
        Generator is refused: its state moves on between calls.
    **options
        The metric's options.

    Returns
    -------
    NullDistribution
        The observed scores, the ``B`` null scores of each sub-score and their directions.

    Raises
    ------
    TypeError, ValueError
        For a bad ``permutations``, ``seed``, ``random_state``, ``observed`` or
        ``higher_is_better``, a metric that reports other sub-scores on permuted codes,
        and whatever :func:`metrics.evaluate` raises for the metric and its inputs.
    KeyError
        When ``metric`` names no registered metric.
    """
    count = check_positive_int(permutations, "permutations")
    seeds = seed_sequence(seed)
    if random_state is not None and not isinstance(check_random_state(random_state), int):
        raise TypeError("random_state of a permutation null must be an int (the same seed scores every permutation); "
                        f"a Generator's state moves on between calls, got {random_state!r}")
    name = metric_name(metric)
    with shared_estimates():
        factor_matrix, code_matrix = validated_pair(factors, codes)  # the views the draw's metrics share
        arguments: dict[str, Any] = {"discrete": discrete, "random_state": random_state, **options}
        scores = _checked_observed(observed, name) if observed is not None else evaluate(metric, factor_matrix, code_matrix, **arguments)
        directions = _directions(metric, higher_is_better, list(scores))
        null = np.empty((count, len(scores)))
        for index in range(count):
            permuted = evaluate(metric, factor_matrix, _permuted_codes(code_matrix, seeds, index), **arguments)
            if set(permuted) != set(scores):
                source = "given as observed" if observed is not None else "on the codes"
                raise ValueError(f"metric {name!r} reported sub-scores {sorted(permuted)} on permuted codes but {sorted(scores)} {source}")
            null[index] = [permuted[sub] for sub in scores]
    _read_only(null)
    return NullDistribution(
        observed=MappingProxyType(scores),
        scores=MappingProxyType({sub: null[:, column] for column, sub in enumerate(scores)}),
        higher_is_better=MappingProxyType(directions),
    )
