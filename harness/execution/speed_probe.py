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
#: faster than it is: DCI-RF's last speed-up (2026-11-29) took about a tenth off, where the Explicitness score and
#: DCI-lasso, timed here until then, became 5 and 1.8 times faster that day.  (Measured on 2026-11-29 under a load of
#: 3, the unchanged-looking metrics ran 2.0 to 2.5 times their table's cost: DCI-RF 2.0, PID 2.2, InfoMEC 2.1.)
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
