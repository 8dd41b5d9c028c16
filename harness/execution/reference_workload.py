"""A fixed piece of work that tells how fast this machine runs now, whatever the project's code has become.

The cost table (:mod:`harness.execution.costs`) holds what each metric call cost on the day and machine it was
measured.  To scale it to this machine now, :func:`harness.execution.speed_probe.machine_speed` times this workload
and compares it with the time the measuring run recorded for it (``settings["reference_seconds"]``).  Until
2026-11-30 the probe timed a metric (DCI-RF) instead: every speed-up of that metric then read as a faster machine
(its code of 2026-11-29 took half its table row's time at n = 1000, and the estimates read it as a machine twice as
fast).  The workload is the project's own code of none: numpy's sorts, joint bin counts and a small least-squares solve
(what the metrics' cores do: ranks, histograms, regressions) and an interpreter loop (their Python around them), in
proportions that keep each a sizeable part of its time.  Its code must not change: a change would break the
comparison with the times the data file records (change it only together with a new measurement of every table).
"""

from __future__ import annotations

import time

import numpy as np

#: Repetitions of each part of the workload, chosen so that each takes a sizeable share of its time on this project's
#: machine (sorting, counting pairs of bins, least squares, the interpreter loop).
_SORTS, _COUNTS, _SOLVES, _LOOP = 10, 300, 40, 160_000


def _workload() -> float:
    """The fixed work: about 0.16 CPU-second on this project's 2-core machine.  Returns a number computed from all of
    it, so that nothing is skipped."""
    rng = np.random.default_rng(20261130)
    values = rng.standard_normal((4000, 16))
    total = 0.0
    for _ in range(_SORTS):
        order = np.argsort(values, axis=0, kind="stable")
        total += float(order[0, 0])
    bins = np.minimum((order * 16) // values.shape[0], 15)
    for column in range(_COUNTS):
        pairs = bins[:, column % 16] * 16 + bins[:, (column + 1) % 16]
        total += float(np.unique(pairs, return_counts=True)[1][0])
    for column in range(_SOLVES):
        total += float(np.linalg.lstsq(values[:, :12], values[:, 12 + column % 4], rcond=None)[0].sum())
    table: dict[int, float] = {}
    for index in range(_LOOP):
        table[index % 997] = table.get(index % 991, 0.0) + index * 0.5
    return total + sum(table.values())


def reference_seconds(repeats: int = 3) -> float:
    """The median CPU seconds (``time.process_time``) of ``repeats`` runs of the fixed workload, with one BLAS
    thread, as the cost table's calls are timed."""
    from threadpoolctl import threadpool_limits

    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    timings = []
    with threadpool_limits(limits=1):
        for _ in range(repeats):
            started = time.process_time()
            _workload()
            timings.append(time.process_time() - started)
    return float(np.median(timings))
