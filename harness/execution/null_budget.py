"""How many permutations a cell's null takes in a study: ``B`` per cell, chosen by its call's estimated cost.

A score's permutation null (:func:`metrics.permutation_null`) calls the metric ``B`` more times,
each about as costly as the call itself (measured at n = 1000 on 8 x 8 codes: 0.3 to 1.5 times,
the information metrics sharing each permutation's tables as they share the codes').  A preset
states what one cell's null may cost (:attr:`harness.execution.presets.Preset.null_budget_seconds`);
each cell then gets as many permutations as fit at its own sample size and shape, at most
:data:`MAX_PERMUTATIONS`, and none when fewer than :data:`MIN_PERMUTATIONS` fit: a cheap histogram
metric 100, a costlier one fewer, one whose call alone costs more than the budget / 19 none (so a
metric of the default study has nulls at n = 1000 and, where its calls cost ten times more, none at
n = 10000: one ``B`` per metric, read at the study's n, gave RMIG's k-NN variant 100 permutations of
140 s a cell there).  A preset also says which cells get a null
(:data:`harness.execution.presets.NULL_CELLS`): every one, or only those a verdict of the report reads
a null at (:func:`read_by_a_verdict`, from the characteristics' declarations: no analysis is imported here).
``run --null-permutations B`` gives every metric of every cell the same ``B`` instead (0: no nulls).
"""

from __future__ import annotations

import math

from harness.execution.costs import estimated_seconds
from harness.execution.metric_refs import MetricEntry
from reports.verdicts import characteristics

MAX_PERMUTATIONS = 100
"""The most permutations a preset gives a metric: p-values down to 1/101, a 95% quantile between order statistics 95 and 96."""

MIN_PERMUTATIONS = 19
"""The fewest permutations worth computing: the smallest ``B`` whose p-value can reach 0.05 (``1 / (B + 1)``)."""


def read_by_a_verdict(criterion: str, value: object) -> bool:
    """Whether the report's verdicts read the null of a cell of a scenario declaring ``criterion`` at ``value``, as
    the characteristics declare it (:attr:`reports.verdicts.characteristics.Characteristic.nulls`): calibration's, at the
    fully random end of a ``noise`` scenario (a score within its null there is chance-level bias, not a metric that
    rewards noise); the other verdicts read scores only.  The verdicts read a swept metric at its default options
    alone (the caller's to check)."""
    return any(entry.nulls is not None and entry.nulls.include(criterion, value)
               for entry in characteristics.CHARACTERISTICS)


def permutations_within(call_seconds: float, budget_seconds: float) -> int:
    """How many permutations of a call costing ``call_seconds`` fit in ``budget_seconds``: at most
    :data:`MAX_PERMUTATIONS`, and 0 when fewer than :data:`MIN_PERMUTATIONS` fit (or the budget is 0)."""
    if budget_seconds <= 0:
        return 0
    count = MAX_PERMUTATIONS if call_seconds <= 0 else min(MAX_PERMUTATIONS, math.floor(budget_seconds / call_seconds))
    return count if count >= MIN_PERMUTATIONS else 0


def metric_permutations(metric: MetricEntry, n_samples: int, budget_seconds: float, shape: float = 1.0) -> int:
    """``B`` of ``metric``'s null on ``n_samples`` samples whose null may cost ``budget_seconds``.

    The call's cost is the estimate of :func:`harness.execution.costs.estimated_seconds` at ``n_samples``, times
    ``shape`` (the representation's cost relative to the 8 x 8 codes the costs were measured on,
    :func:`harness.execution.plan.shape_factor`; a user's metric: the cost assumed for an unmeasured one), as if it
    ran alone (nothing shared: a metric that reuses another's estimates on the codes, or a sweep's later variant
    its sibling's fits, pays them in full on permuted codes unless the other computes the same null).  A population
    metric has no null (0).
    """
    if metric.population:
        return 0
    return permutations_within(call_seconds(metric, n_samples, shape), budget_seconds)


def call_seconds(metric: MetricEntry, n_samples: int, shape: float = 1.0) -> float:
    """The estimated CPU seconds of one call of ``metric`` in its null: on ``n_samples`` samples, times ``shape`` (the
    representation's cost relative to the measured 8 x 8 codes), as if it ran alone (:func:`metric_permutations`)."""
    return shape * estimated_seconds(metric.name, n_samples, registered=metric.registered,
                                     variant_of=metric.variant_of, after_sibling=False, earlier=())

