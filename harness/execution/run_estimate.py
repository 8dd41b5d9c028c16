"""What a run costs beyond its cells: starting its processes and writing its report, for ``run --dry-run``'s time.

The cost table (:mod:`harness.execution.costs`) prices metric calls.  A run also starts processes (the harness's and
each worker's imports, planning, the data draws) and ends with the report (the analyses in the main process, the
figures on the workers).  Both were measured on this project's 2-core machine on 2026-11-29, when it ran the speed
probe's reference call (:mod:`harness.execution.speed_probe`) 2.4 to 2.5 times as long as the cost table; the constants
below are those measurements divided by that speed, so that, like the table, they are scaled by the machine's speed
at the time of the dry run:

- ``--preset quick`` (336 cells, 2 workers): the cells took 27.3 s of wall time where the table, at the probe's speed,
  gave 22 s: 5.3 s of starting and drawing; its report took 34 CPU-s (20.4 s of wall time: its analyses run in one
  process, about a fifth of it);
- the default study (15315 cells): its report took 155 CPU-s (the median of two runs); later that day, with atlas
  columns of one Axes and the scenario figures laid out in one pass, 91 CPU-s where the previous code took 127 in the
  same hour (two alternating pairs each): the report's constants below are the first measurements times 91 / 127;
- a racing study's later rounds: 891 cells after a first round of 14424 in the default study (6.2%), 396 after 3132
  with the default preset on three scenarios (12.6%).

Checked against runs measured the same way: the section "The cost estimate" of ``harness/README.md`` gives the errors.
"""

from __future__ import annotations

#: Wall seconds, at the cost table's speed, a run spends starting (imports, planning, workers) beside its cells.
START_SECONDS = 2.1
#: A report's CPU seconds at the cost table's speed: a fixed part (its analyses and the figures every study draws) ...
REPORT_FIXED_SECONDS = 9.3
#: ... and a part per cell (more scenarios and metrics: more panels and curves).
REPORT_SECONDS_PER_CELL = 0.0024
#: The cells a racing study's later rounds add, as a share of its first round's (measured 6.2 and 12.6%, above).
RACE_ROUNDS_SHARE = 0.1
#: The share of a report's CPU time that runs in one process whatever the workers (its analyses, writing the pages).
REPORT_SERIAL_SHARE = 0.2


def report_seconds(cells: int) -> float:
    """A report's CPU seconds at the cost table's speed, for a study of ``cells`` cells."""
    return REPORT_FIXED_SECONDS + REPORT_SECONDS_PER_CELL * cells


def report_wall_seconds(cells: int, workers: int) -> float:
    """A report's wall seconds at the cost table's speed on ``workers`` workers (Amdahl: its serial share, then the
    rest spread over the workers)."""
    return report_seconds(cells) * (REPORT_SERIAL_SHARE + (1 - REPORT_SERIAL_SHARE) / max(1, workers))
