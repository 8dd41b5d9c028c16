"""How many permutations each metric's null takes in a study: ``B`` per metric, chosen by its estimated cost.

A score's permutation null (:func:`metrics.permutation_null`) calls the metric ``B`` more times,
each about as costly as the call itself (measured at n = 1000 on 8 x 8 codes: 0.3 to 1.5 times,
the information metrics sharing each permutation's tables as they share the codes').  A preset
states what one cell's null may cost (:attr:`harness.execution.presets.Preset.null_budget_seconds`);
each metric then gets as many permutations as fit, at most :data:`MAX_PERMUTATIONS`, and none when
fewer than :data:`MIN_PERMUTATIONS` fit: a cheap histogram metric 100, a costlier one fewer, one
whose call alone costs more than the budget / 19 none.  ``run --null-permutations B`` gives every
metric the same ``B`` instead (0: no nulls).
"""

from __future__ import annotations

import math

from harness.execution.costs import estimated_seconds
from harness.execution.metric_refs import MetricEntry

MAX_PERMUTATIONS = 100
"""The most permutations a preset gives a metric: p-values down to 1/101, a 95% quantile between order statistics 95 and 96."""

MIN_PERMUTATIONS = 19
"""The fewest permutations worth computing: the smallest ``B`` whose p-value can reach 0.05 (``1 / (B + 1)``)."""


def permutations_within(call_seconds: float, budget_seconds: float) -> int:
    """How many permutations of a call costing ``call_seconds`` fit in ``budget_seconds``: at most
    :data:`MAX_PERMUTATIONS`, and 0 when fewer than :data:`MIN_PERMUTATIONS` fit (or the budget is 0)."""
    if budget_seconds <= 0:
        return 0
    count = MAX_PERMUTATIONS if call_seconds <= 0 else min(MAX_PERMUTATIONS, math.floor(budget_seconds / call_seconds))
    return count if count >= MIN_PERMUTATIONS else 0


def metric_permutations(metric: MetricEntry, n_samples: int, budget_seconds: float) -> int:
    """``B`` of ``metric``'s null in a study of ``n_samples`` samples whose nulls may cost ``budget_seconds`` a cell.

    The call's cost is the estimate of :func:`harness.execution.costs.estimated_seconds` at ``n_samples`` on the
    8 x 8 codes the costs were measured on (a user's metric: the cost assumed for an unmeasured one), as if it ran
    first on its draw (a sweep's later variant, which reuses its sibling's fits on the codes, pays them in full on
    permuted codes unless the sibling computes the same null).  One ``B`` per
    metric for the whole study, so its nulls are comparable across scenarios; a population metric has no null (0).
    """
    if metric.population:
        return 0
    call = estimated_seconds(metric.name, n_samples, registered=metric.registered, variant_of=metric.variant_of,
                             after_sibling=False)
    return permutations_within(call, budget_seconds)

