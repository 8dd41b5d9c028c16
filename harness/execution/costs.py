"""What a metric call costs: measured CPU seconds per call, and estimates at any sample size.

The planner orders tasks longest first with these estimates, and ``run --dry-run``
prints a study's estimated CPU time per metric before anything runs.

:data:`MEASURED_SECONDS` holds median CPU seconds (``time.process_time``, one BLAS
thread) of one call of each built-in metric on the ``noise`` scenario at alpha = 0.2
(8 factors, 8 codes) for a few sample sizes, as :func:`measure_costs` measures them::

    python -m harness.execution.costs            # prints a fresh table to paste here

Between and beyond the measured sizes the cost is interpolated linearly in log-log
space (extrapolated with the slope of the two largest sizes, never below linear
growth).  Scenarios with other shapes (8 x 8 attacks, 3 x 3 populations) cost about the
same order; the estimate is meant to tell minutes from days, not to the second.
"""

from __future__ import annotations

import math
import time
from typing import Any, Mapping, Sequence

#: Median CPU seconds per call, by metric and sample size (measured by :func:`measure_costs` on
#: 2026-11-22, one BLAS thread, every metric of a draw in one :func:`metrics.shared_estimates`
#: scope in registry order, as a task runs them; ``dci_gbt`` once, at n = 1000 only; ``udr`` on
#: ``udr_population``).  The predictor and intervention metrics, whose cost does not depend on that
#: scope, were also measured at n = 20000 (the paper's size), after the intervention speed-ups;
#: ``dci_es``, ``infomec``, ``snc_nk`` and ``z_diff`` again after their own (7 repeats).  ``dci_es`` is
#: one call at the default 8 doublings: a lone call with fewer costs the same, and within one scope
#: the variants of a sweep up to 8 doublings share that call's trees (the others cost ~0).
MEASURED_SECONDS: Mapping[str, Mapping[int, float]] = {
    'dci_es': {1000: 0.02566, 10000: 0.2493, 20000: 0.5545},
    'dci_gbt': {1000: 10.92},
    'dci_lasso': {1000: 0.1187, 10000: 0.1586, 20000: 0.2055},
    'dci_rf': {1000: 0.953, 10000: 3.439, 20000: 4.108},
    'dcimig': {1000: 0.00132, 10000: 0.004347},
    'explicitness': {1000: 0.1545, 10000: 0.3719, 20000: 0.6062},
    'indin_at_k': {1000: 0.02848, 10000: 0.2714},
    'infomec': {1000: 0.09515, 10000: 0.5163, 20000: 1.097},
    'informativeness': {1000: 0.0003009, 10000: 0.0008155},
    'irs': {1000: 0.002042, 10000: 0.01144, 20000: 0.02461},
    'jemmig': {1000: 0.0001782, 10000: 0.0003548},
    'mcc': {1000: 0.001083, 10000: 0.005768},
    'mig': {1000: 0.0002654, 10000: 0.0002446},
    'mig_sup': {1000: 0.000103, 10000: 8.887e-05},
    'minimality_sufficiency': {1000: 7.6e-05, 10000: 7.679e-05},
    'misjed': {1000: 0.007444, 10000: 0.1834},
    'modularity': {1000: 0.0001784, 10000: 0.0001577},
    'pid': {1000: 0.1122, 10000: 1.184},
    'r2': {1000: 0.0006325, 10000: 0.003249},
    'rmig': {1000: 0.0003531, 10000: 0.0008175},
    'sap': {1000: 0.0003483, 10000: 0.002405},
    'sepin_at_k': {1000: 0.01547, 10000: 0.1422},
    'snc_nk': {1000: 0.05355, 10000: 0.5133, 20000: 1.063},
    'udr': {1000: 4.31, 10000: 34.25},
    'unibound': {1000: 0.0003842, 10000: 0.000252},
    'windin': {1000: 0.0002949, 10000: 0.0007173},
    'wsepin': {1000: 0.0001466, 10000: 0.0005036},
    'z_diff': {1000: 0.1984, 10000: 0.2262, 20000: 0.1872},
    'z_max_var': {1000: 0.02251, 10000: 0.04126, 20000: 0.06868},
    'z_min_var': {1000: 0.02534, 10000: 0.05635, 20000: 0.06816},
}

#: Assumed cost of a metric nobody measured (a user's): this many seconds per call at n = 1000,
#: growing linearly with n.
UNKNOWN_SECONDS_AT_1000 = 0.05


def estimated_seconds(metric: str, n_samples: int, *, registered: bool = True) -> float:
    """Estimated CPU seconds of one call of ``metric`` on ``n_samples`` samples.

    Parameters
    ----------
    metric : str
        Registered name (an unknown name gets the default cost of an unmeasured metric).
    n_samples : int
        Samples of the representation.
    registered : bool, default True
        False for a user's metric, which is never in the table.
    """
    table = MEASURED_SECONDS.get(metric) if registered else None
    if not table:
        return UNKNOWN_SECONDS_AT_1000 * n_samples / 1000
    sizes = sorted(table)
    if len(sizes) == 1:
        return table[sizes[0]] * n_samples / sizes[0]
    if n_samples <= sizes[0]:
        low, high = sizes[0], sizes[1]
    elif n_samples >= sizes[-1]:
        low, high = sizes[-2], sizes[-1]
    else:
        high = next(size for size in sizes if size >= n_samples)
        low = sizes[sizes.index(high) - 1]
    slope = math.log(table[high] / table[low]) / math.log(high / low)
    if n_samples > high:  # extrapolate from the largest measured size, never below linear growth
        return float(table[high] * (n_samples / high) ** max(slope, 1.0))
    return float(table[low] * (n_samples / low) ** slope)


def study_estimate(cells: Sequence[Any]) -> list[dict[str, Any]]:
    """Estimated CPU cost of a planned study, one record per metric, most expensive first.

    Parameters
    ----------
    cells : sequence of harness.execution.plan.Cell
        The planned cells (:func:`harness.execution.runner.plan_study`).

    Returns
    -------
    list of dict
        ``metric``, ``cells``, ``cpu_hours`` (the sum of the cells' estimates) and
        ``measured`` (whether the metric's cost was measured or assumed).
    """
    totals: dict[str, dict[str, Any]] = {}
    for cell in cells:
        record = totals.setdefault(cell.metric.name, {
            "metric": cell.metric.name, "cells": 0, "cpu_hours": 0.0,
            "measured": cell.metric.registered and (cell.metric.variant_of or cell.metric.name) in MEASURED_SECONDS,
        })
        record["cells"] += 1
        record["cpu_hours"] += cell.estimated_seconds / 3600
    return sorted(totals.values(), key=lambda record: -record["cpu_hours"])


def measure_costs(metric_names: Sequence[str], sizes: Sequence[int] = (1000, 10000), repeats: int = 3) -> dict[str, dict[int, float]]:
    """Measure median CPU seconds per call of each metric at each sample size.

    Parameters
    ----------
    metric_names : sequence of str
        Registered representation metrics (population metrics are measured on the
        ``udr_population`` scenario instead).
    sizes : sequence of int
        Sample sizes.
    repeats : int
        Calls per (metric, size); the median is kept.
    """
    import numpy as np
    from threadpoolctl import threadpool_limits

    import metrics
    import scenarios

    table: dict[str, dict[int, float]] = {}
    with threadpool_limits(limits=1):
        for size in sizes:
            data = scenarios.get("noise").generate(0.2, n=size, seed=0)
            population = scenarios.get("udr_population").generate(0.5, n=size, seed=0)
            for name in metric_names:
                spec = metrics.get(name)
                timings = []
                for repeat in range(repeats):
                    started = time.process_time()
                    if spec.population:
                        metrics.evaluate_population(name, list(population.members), random_state=repeat)
                    else:
                        metrics.evaluate(name, data.factors, data.codes, discrete=data.discrete,
                                         random_state=repeat if spec.stochastic else None)
                    timings.append(time.process_time() - started)
                table.setdefault(name, {})[size] = float(np.median(timings))
    return table


if __name__ == "__main__":  # pragma: no cover - a measuring tool, run by hand
    import metrics as _metrics

    measured = measure_costs(_metrics.available(population=None))
    print("MEASURED_SECONDS: Mapping[str, Mapping[int, float]] = {")
    for _name, _row in sorted(measured.items()):
        print(f"    {_name!r}: {{{', '.join(f'{n}: {s:.4g}' for n, s in sorted(_row.items()))}}},")
    print("}")
