"""What a metric call costs: estimates at any sample size and shape, from the measured tables.

The planner orders tasks longest first with these estimates, chooses each cell's permutation null by them
(:mod:`harness.execution.null_budget`), and ``run --dry-run`` prints a study's estimated CPU time per metric before
anything runs.  The tables are measurements, read from the data file :mod:`harness.execution.cost_records` keeps and
:mod:`harness.execution.cost_measurement` writes (``python -m harness.execution.cost_measurement seconds --write``):

- :data:`MEASURED_SECONDS`: median CPU seconds of one call of each built-in metric on the ``noise`` scenario at
  alpha = 0.2 (8 factors, 8 codes) at a few sample sizes, as a task runs them: every metric of a draw in one
  :func:`metrics.shared_estimates` scope, so a metric whose estimates an earlier one computed is charged for what it
  adds.  The variants the presets sweep (``z_diff[batch_size=50]``) have rows of their own where their options change
  the cost; the others (:data:`LIKE_THEIR_METRIC`) are charged their metric's.  A variant row measured after a
  sibling (:data:`FOLLOWER_VARIANTS`) holds only what it adds to that sibling's work, so a variant that runs first on
  a draw is charged at least its metric's cost.
- :data:`MEASURED_ALONE_SECONDS`: the same calls each in a scope of its own, for the metrics whose cost alone exceeds
  their share: run with no earlier metric of its family in the draw, a metric pays for the estimates it shares
  (``rmig`` alone costs about 0.2 s at n = 1000, charged 0.0003 s after ``pid``).
- :data:`MEASURED_WIDTH_FACTORS`: a call's cost on 8 factors and ``L`` codes relative to 8 codes, at the sample
  sizes measured.  Most metrics grow about linearly in ``L`` (``K L`` pairs, or one model per factor on ``L`` codes);
  a few grow faster (MISJED's ``L x L`` code pairs, Do and Tran's ``I(z_i; z_!=i)`` per code over ``L - 1`` codes).
  The wide-code measurement (``cost_measurement wide``: 10 factors, 8 to 4096 codes, n = 1e5) adds its rows at its
  sample size, so a width factor depends on ``n`` where that measurement says it does.
- :data:`MEASURED_WIDE_CALLS`: the wide-code measurement's calls, each with its CPU seconds and the memory it
  allocated above its inputs; :func:`estimated_peak_bytes` reads the memory model from them.

Between and beyond the measured sizes a cost is interpolated linearly in log-log space (extrapolated with the slope of
the two largest sizes, never below linear growth), and a cell is scaled by its representation's shape: ``K / 8`` times
the metric's width factor (:func:`shape_cost`; :func:`harness.execution.plan.shape_factor`; populations are not
scaled).  The estimate is meant to tell minutes from days, not to the second.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from harness.execution import cost_records

_MEASURED = cost_records.read()

#: Median CPU seconds per call, by metric or variant and sample size, in the measuring order.
MEASURED_SECONDS: Mapping[str, Mapping[int, float]] = _MEASURED.seconds

#: Median CPU seconds per call of the metrics that share estimates with others of their family, each with nothing
#: shared, where that differs from their measured share beyond the measuring noise; and of the Gaussian-estimator
#: variants, each measured alone.
MEASURED_ALONE_SECONDS: Mapping[str, Mapping[int, float]] = _MEASURED.alone_seconds

#: Cost of a call on 8 factors and ``L`` codes relative to 8 codes, by metric, sample size and ``L``.
MEASURED_WIDTH_FACTORS: Mapping[str, Mapping[int, Mapping[int, float]]] = _MEASURED.width_factors

#: The wide-code measurement's calls (:class:`harness.execution.cost_records.WideCall`), by metric, sample size and
#: number of codes: CPU seconds, the memory a call allocated above its inputs, the limit it exceeded.
MEASURED_WIDE_CALLS: Mapping[str, Mapping[int, Mapping[int, cost_records.WideCall]]] = _MEASURED.wide_calls

#: CPU seconds of the fixed workload (:mod:`harness.execution.reference_workload`) in the run the tables' speed is
#: that of (:attr:`harness.execution.cost_records.MeasuredCosts.reference_seconds`): what
#: :func:`harness.execution.speed_probe.machine_speed` compares this machine's time with.
MEASURED_REFERENCE_SECONDS: float | None = _MEASURED.reference_seconds

#: The variant rows of :data:`MEASURED_SECONDS` measured after another variant of their metric on the same draw,
#: whose cost therefore assumes that sibling ran first.
FOLLOWER_VARIANTS: frozenset[str] = _MEASURED.after_sibling

#: The variants measured within the measuring tool's tolerance of their metric's cost: charged its row, as measured.
LIKE_THEIR_METRIC: frozenset[str] = _MEASURED.like_their_metric

#: The representation shape (factors, codes) the costs are measured on; a cell on another shape is scaled by
#: ``K / 8`` times :func:`width_factor` (:func:`harness.execution.plan.shape_factor`).
MEASURED_SHAPE = (8, 8)

#: Families whose metrics reuse each other's estimates within a draw (binned tables and k-NN estimates; intervention
#: subsets).
SHARING_FAMILIES = ("information", "intervention")

#: Assumed cost of a metric nobody measured (a user's): this many seconds per call at n = 1000,
#: growing linearly with n.
UNKNOWN_SECONDS_AT_1000 = 0.05


def estimated_seconds(metric: str, n_samples: int, *, registered: bool = True, variant_of: str = "",
                      after_sibling: bool = True, earlier: Sequence[tuple[str, str]] | None = None) -> float:
    """Estimated CPU seconds of one call of ``metric`` on ``n_samples`` samples.

    Parameters
    ----------
    metric : str
        Registered name, or a variant's name (``z_diff[batch_size=50]``).  An unknown
        name gets the default cost of an unmeasured metric.
    n_samples : int
        Samples of the representation.
    registered : bool, default True
        False for a user's metric, which is never in the table.
    variant_of : str, optional
        For a variant, the metric it is a variant of: its cost is used where the variant's
        own is not in the table (only variants whose options change the cost are).
    after_sibling : bool, default True
        Whether another variant of the same metric runs before this one on the same draw.
        A variant row measured after a sibling (:data:`FOLLOWER_VARIANTS`: ``dci_es``'s
        larger capacities reuse the trees the first one grew) holds only what it adds; a
        variant that runs first pays at least its metric's cost.
    earlier : sequence of (name, variant_of), optional
        The metrics of its sharing family that run before it on the same draw.  None: as in the measuring order
        (:data:`MEASURED_SECONDS`).  Otherwise the metric pays what its cost alone (:data:`MEASURED_ALONE_SECONDS`)
        exceeds the earlier ones' costs alone by, at least its measured row: the estimates it shares were computed
        by those only, and cost no more than they did (a study of ``rmig`` alone pays its k-NN estimates; after
        ``pid``, which computes them, only its own work).
    """
    return _estimated(metric, n_samples, registered, variant_of, after_sibling,
                      None if earlier is None else tuple(earlier))


def clear_estimates() -> None:
    """Forget the cached estimates (:func:`estimated_seconds` caches them for the life of the process, from the
    tables as they are at import): call it after changing a table."""
    for cached in (_estimated, _alone_seconds, _charged_seconds):
        cached.cache_clear()


@functools.cache  # a study asks for the same few thousand estimates once per seed: the paper's plan, 100 times
def _estimated(metric: str, n_samples: int, registered: bool, variant_of: str, after_sibling: bool,
               earlier: tuple[tuple[str, str], ...] | None) -> float:
    """:func:`estimated_seconds`, with ``earlier`` a tuple."""
    charged = _charged_seconds(metric, n_samples, registered, variant_of, after_sibling)
    if earlier is None or not registered:
        return charged
    alone = _alone_seconds(metric, variant_of, n_samples) - sum(_alone_seconds(*other, n_samples) for other in earlier)
    return max(charged, alone)


@functools.cache
def _alone_seconds(metric: str, variant_of: str, n_samples: int) -> float:
    """A registered metric's cost with nothing shared (its measured row where sharing does not change it)."""
    own = MEASURED_ALONE_SECONDS.get(metric) or MEASURED_ALONE_SECONDS.get(variant_of)
    return _interpolated(own, n_samples) if own else _charged_seconds(metric, n_samples, True, variant_of, True)


@functools.cache
def _charged_seconds(metric: str, n_samples: int, registered: bool, variant_of: str, after_sibling: bool) -> float:
    """:func:`estimated_seconds` in the measuring order."""
    if registered and not after_sibling and metric in FOLLOWER_VARIANTS and variant_of in MEASURED_SECONDS:
        return max(_interpolated(MEASURED_SECONDS[metric], n_samples), _interpolated(MEASURED_SECONDS[variant_of], n_samples))
    table = (MEASURED_SECONDS.get(metric) or MEASURED_SECONDS.get(variant_of)) if registered else None
    if not table:
        return UNKNOWN_SECONDS_AT_1000 * n_samples / 1000
    return _interpolated(table, n_samples)


def width_factor(metric: str, codes: int, n_samples: int, *, registered: bool = True, variant_of: str = "") -> float:
    """How much more one call of ``metric`` on ``n_samples`` samples costs on ``codes`` codes than on 8.

    The metric's measured factors (:data:`MEASURED_WIDTH_FACTORS`) are interpolated in log-log space in ``codes`` at
    each measured sample size (extrapolated never below linear growth), then geometrically in ``n_samples`` between
    the two measured sizes around it; below the smallest or above the largest measured size, that size's factors hold.
    A metric nobody measured grows linearly.
    """
    rows = (MEASURED_WIDTH_FACTORS.get(metric) or MEASURED_WIDTH_FACTORS.get(variant_of)) if registered else None
    if not rows:
        return codes / MEASURED_SHAPE[1]
    sizes = sorted(rows)
    if n_samples <= sizes[0] or n_samples >= sizes[-1]:
        return _interpolated(rows[sizes[0] if n_samples <= sizes[0] else sizes[-1]], codes)
    high = next(size for size in sizes if size >= n_samples)
    low = sizes[sizes.index(high) - 1]
    weight = math.log(n_samples / low) / math.log(high / low)
    return _interpolated(rows[low], codes) ** (1 - weight) * _interpolated(rows[high], codes) ** weight


def shape_cost(metric: str, factors: int, codes: int, n_samples: int, *, registered: bool = True,
               variant_of: str = "") -> float:
    """How much more one call of ``metric`` on ``n_samples`` samples costs on ``factors`` factors x ``codes`` codes than
    on the 8 x 8 its cost was measured on (:data:`MEASURED_SHAPE`): ``K / 8`` times its measured growth with the number
    of codes (:func:`width_factor`).  :func:`harness.execution.plan.shape_factor` reads a scenario's shape into it."""
    return factors / MEASURED_SHAPE[0] * width_factor(metric, codes, n_samples, registered=registered,
                                                      variant_of=variant_of)


def estimated_peak_bytes(metric: str, codes: int, n_samples: int, *, registered: bool = True,
                         variant_of: str = "") -> float | None:
    """Estimated bytes one call of ``metric`` allocates above its inputs on ``codes`` codes and ``n_samples`` samples;
    None where nobody measured it (a user's metric, one whose every wide call ran out of time).

    Read from the wide-code measurement (:data:`MEASURED_WIDE_CALLS`; a variant without calls of its own reads its
    metric's) at the measured sample size nearest ``n_samples``: its calls' peaks, interpolated in log-log space in
    ``codes`` (extrapolated never below linear growth), scaled linearly in ``n_samples``.  A call that ran out of time
    counts with what it held when stopped (a lower bound, but a better guide than 8 codes' fixed overhead scaled up);
    one that ran out of memory with what it needed at least (:attr:`harness.execution.cost_records.WideCall.needed_bytes`:
    over its limit, so that what exceeded the limit is estimated above it).  Not scaled with the number of factors (measured
    at 10): what a wide call holds is mostly ``n x L`` (a copy of the codes, their ranks or bins).
    """
    calls = (MEASURED_WIDE_CALLS.get(metric) or MEASURED_WIDE_CALLS.get(variant_of)) if registered else None
    peaks = {size: row for size, row in (
        (size, {width: call.needed_bytes for width, call in by_width.items() if call.needed_bytes})
        for size, by_width in (calls or {}).items()) if row}
    if not peaks:
        return None
    size = min(peaks, key=lambda measured: abs(math.log(measured / n_samples)))
    return _interpolated(peaks[size], codes) * n_samples / size


def measured_floor_seconds(metric: str, factors: int, codes: int, n_samples: int, *, registered: bool = True,
                           variant_of: str = "") -> float:
    """The least one call of ``metric`` can take on ``factors`` x ``codes`` codes of ``n_samples`` samples, as the
    wide-code measurement saw it (0 where it has no call at or below that shape): the largest of its calls at no more
    codes and samples, each its CPU seconds (its time limit for a call stopped by it), times ``factors`` over the
    factors measured where fewer.  A call costs no less on more codes or samples, so where the model's extrapolation
    (:func:`estimated_seconds` times :func:`shape_cost`) falls below a measured call, the measured call holds: the
    Gaussian estimators' ``L x L`` Gram matrices and regressions, extrapolated linearly from 512 codes, ran out of
    time at 4096."""
    calls = (MEASURED_WIDE_CALLS.get(metric) or MEASURED_WIDE_CALLS.get(variant_of)) if registered else None
    return max((min(1.0, factors / call.n_factors)
                * (call.cpu_limit_seconds if call.exceeded == "time" else call.cpu_seconds or 0.0)
                for size, by_width in (calls or {}).items() if size <= n_samples
                for width, call in by_width.items() if width <= codes), default=0.0)


def measured_variants(metric: str) -> list[str]:
    """The variants of ``metric`` with a measured cost row of their own (``pid[estimator=gaussian]``,
    ``z_diff[batch_size=50]``): the candidates a refusal names as cheaper (:func:`harness.execution.plan.refuse_over_limits`)."""
    return sorted(name for name in MEASURED_SECONDS if name.startswith(f"{metric}["))


def _interpolated(row: Mapping[int, float], at: int) -> float:
    """A measured row (by sample size or number of codes) at ``at``: log-log interpolation, extrapolated never below
    linear growth."""
    sizes = sorted(row)
    if len(sizes) == 1:
        return row[sizes[0]] * at / sizes[0]
    if at <= sizes[0]:
        low, high = sizes[0], sizes[1]
    elif at >= sizes[-1]:
        low, high = sizes[-2], sizes[-1]
    else:
        high = next(size for size in sizes if size >= at)
        low = sizes[sizes.index(high) - 1]
    slope = math.log(row[high] / row[low]) / math.log(high / low)
    if at > high:  # extrapolate from the largest measured size, never below linear growth
        return float(row[high] * (at / high) ** max(slope, 1.0))
    return float(row[low] * (at / low) ** slope)


#: Where a metric's per-call estimate comes from (:func:`cost_source`): its own measured row, or its metric's row for a
#: variant measured like it (:data:`LIKE_THEIR_METRIC`); its metric's row for a variant nobody measured (a
#: ``--metric-option`` no preset sweeps: ``dci_rf[n_estimators=100]`` grows five times the trees of ``dci_rf``); or
#: :data:`UNKNOWN_SECONDS_AT_1000` (a user's metric).
COST_SOURCES = ("measured", "its metric's (variant not measured)", "assumed (not measured)")


def cost_source(entry: Any) -> str:
    """Where :func:`estimated_seconds` takes the cost of ``entry`` (a :class:`harness.execution.metric_refs.MetricEntry`)
    from: one of :data:`COST_SOURCES`.  A variant that sets every option to its default (``pid[estimator=knn]``) is its
    metric, measured."""
    from harness.execution.metric_refs import registered_entry

    name, metric = entry.name, entry.variant_of or entry.name
    if not entry.registered or metric not in MEASURED_SECONDS:
        return COST_SOURCES[2]
    if (entry.variant_of and name not in MEASURED_SECONDS and name not in LIKE_THEIR_METRIC
            and dict(entry.options) != dict(registered_entry(metric).options)):
        return COST_SOURCES[1]
    return COST_SOURCES[0]


def study_estimate(cells: Sequence[Any]) -> list[dict[str, Any]]:
    """Estimated CPU cost of a planned study, one record per metric, most expensive first.

    Parameters
    ----------
    cells : sequence of harness.execution.plan.Cell
        The planned cells (:func:`harness.execution.runner.plan_study`).

    Returns
    -------
    list of dict
        ``metric``, ``cells``, ``null_permutations`` (the largest ``B`` of its cells' nulls), ``cpu_hours`` (the
        sum of the cells' estimates, nulls included), ``null_cpu_hours`` (the nulls' share) and ``per_call_cost``: where
        its per-call cost comes from (:data:`COST_SOURCES`).
    """
    totals: dict[str, dict[str, Any]] = {}
    for cell in cells:
        record = totals.get(cell.metric.name)
        if record is None:  # once a metric: a plan holds its cells by the thousand
            record = totals[cell.metric.name] = {
                "metric": cell.metric.name, "cells": 0, "null_permutations": 0, "cpu_hours": 0.0, "null_cpu_hours": 0.0,
                "per_call_cost": cost_source(cell.metric),
            }
        record["cells"] += 1
        record["null_permutations"] = max(record["null_permutations"], cell.null_permutations)
        record["cpu_hours"] += cell.estimated_seconds / 3600
        record["null_cpu_hours"] += cell.estimated_null_seconds / 3600
    return sorted(totals.values(), key=lambda record: -record["cpu_hours"])
