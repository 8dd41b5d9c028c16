"""How fast this machine runs metric calls now, against the measured cost table.

``run --dry-run`` prints a study's estimated time at the cost table's speed and at this machine's: a loaded or
slower machine runs every call a few times as long as the table says.  The estimates the planner uses (the cells'
order, the null budget) never read the speed, so a study's cells do not depend on the machine.
"""

from __future__ import annotations

import functools

from harness.execution.cost_measurement import measure_costs
from harness.execution.costs import MEASURED_SECONDS

#: The metrics :func:`machine_speed` times: a predictor metric that shares no estimate with another (its row of
#: :data:`harness.execution.costs.MEASURED_SECONDS` is its whole cost), about a tenth of a CPU-second at n = 1000, and
#: whose code has not changed since the table was measured (the probe compares today's machine with the table's day:
#: a metric made faster since then would make the machine look faster; the Explicitness score, timed here until
#: 2026-11-29, became five times faster that day).
SPEED_REFERENCE = ("dci_lasso",)


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
