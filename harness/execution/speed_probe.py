"""How fast this machine runs metric calls now, against the measured cost table.

``run --dry-run`` prints a study's estimated time at the cost table's speed and at this machine's: a loaded or
slower machine runs every call a few times as long as the table says.  The estimates the planner uses (the cells'
order, the null budget) never read the speed, so a study's cells do not depend on the machine.
"""

from __future__ import annotations

import functools

from harness.execution.cost_measurement import measure_costs
from harness.execution.costs import MEASURED_SECONDS

#: The metric :func:`machine_speed` times: DCI-RF, a predictor metric that shares no estimate with another (its row of
#: :data:`harness.execution.costs.MEASURED_SECONDS` is its whole cost), about 0.6 CPU-second at n = 1000 in the table.
#: The probe compares today's machine with the table's day, so a metric made faster since then makes the machine look
#: faster than it is: DCI-RF's code of 2026-11-29 evening takes 0.50, 0.85 and 0.78 times its table row's code's time at
#: n = 1000, 10000 and 20000 (both timed alternately in one run, twice, on the table's draws), and most other metrics'
#: rows predate speed-ups as large (InfoMEC 0.25, Explicitness 0.15, Z-diff 0.49 at n = 1000), which the probe's
#: reading compensates for: the default study's dry run that evening said about 9 minutes (the probe read 1.6) where
#: the study took 10 min 18 s.  Re-basing DCI-RF's row alone would double the estimates; the table is to be measured
#: again whole, in one run.  (Until 2026-11-29 the Explicitness score and DCI-lasso were timed here.)
SPEED_REFERENCE = ("dci_rf",)


@functools.cache  # measured once a process (about a second): the property tests plan dozens of dry runs
def machine_speed(repeats: int = 2) -> float:
    """How many times its measured cost (:data:`harness.execution.costs.MEASURED_SECONDS`) a metric call takes on this
    machine now.

    Times :data:`SPEED_REFERENCE` as :func:`harness.execution.cost_measurement.measure_costs` measured the table
    (n = 1000, ``noise`` at 0.2, one BLAS thread, the median of ``repeats``), and returns the ratio of its total to
    the table's: about 1 on the machine and day the table was measured, more on a slower or loaded one.
    """
    from harness.execution.metric_refs import registered_entry

    measured = measure_costs([registered_entry(name) for name in SPEED_REFERENCE], sizes=(1000,), population_sizes=(),
                             repeats=repeats)
    return sum(measured[name][1000] for name in SPEED_REFERENCE) / sum(MEASURED_SECONDS[name][1000] for name in SPEED_REFERENCE)
