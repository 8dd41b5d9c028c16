"""How fast this machine runs now, against the measured cost table.

``run --dry-run`` prints a study's estimated time at the cost table's speed and at this machine's: a loaded or
slower machine runs every call a few times as long as the table says.  The estimates the planner uses (the cells'
order, the null budget) never read the speed, so a study's cells do not depend on the machine.
"""

from __future__ import annotations

import functools

from harness.execution.costs import MEASURED_REFERENCE_SECONDS
from harness.execution.reference_workload import reference_seconds


@functools.cache  # measured once a process (about a second): the property tests plan dozens of dry runs
def machine_speed(repeats: int = 5) -> float:
    """How many times its measured cost (:data:`harness.execution.costs.MEASURED_SECONDS`) a metric call takes on this
    machine now: the fixed workload's CPU time now (:func:`harness.execution.reference_workload.reference_seconds`,
    the median of ``repeats``) over its time in the run the table's speed is that of
    (:data:`harness.execution.costs.MEASURED_REFERENCE_SECONDS`); about 1 on the machine and day the table was
    measured, more on a slower or loaded one.

    The workload is none of the project's code, so a metric made faster since the table was measured leaves the
    reading alone (its row then overstates it).  Until 2026-11-30 this timed DCI-RF against its row, and its
    speed-ups read as a faster machine: the default study's dry run on 2026-11-29 read 1.6 where the machine ran
    DCI-RF's row's code about 3 times as long as the table.

    Raises
    ------
    ValueError
        When the cost table's ``seconds`` runs record no reference time (a data file from before 2026-11-30).
    """
    if MEASURED_REFERENCE_SECONDS is None:
        raise ValueError("the cost table records no reference time: measure it again with "
                         "`python -m harness.execution.cost_measurement seconds --write`")
    return reference_seconds(repeats) / MEASURED_REFERENCE_SECONDS
