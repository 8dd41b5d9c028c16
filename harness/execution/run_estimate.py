"""What a run costs beyond its cells: starting its processes, a race's looks and later rounds, and writing its report,
for ``run --dry-run``'s time.

The cost table (:mod:`harness.execution.costs`) prices metric calls.  A run also starts processes (the harness's and
each worker's imports, planning, the data draws), a racing run looks at its results between rounds (every analysis, in
the main process, while the workers wait) and adds seeds where a verdict is undecided, and the run ends with the report
(the analyses in the main process, the figures on the workers).  All were measured on this project's 2-core machine on
2026-11-30, half an hour after the cost table was measured on it (the fixed workload's time then reading 0.8 to 1.1
of the table's, and the cells taking 0.96 (``--preset quick``) and 1.08 (the default study's first round) times the
table's estimate): the constants below are such measurements at the table's speed (the start's and the report's from
a later measurement, below), so that, like the table, they are scaled by the machine's speed at the time of the dry
run.

- ``--preset quick --no-report`` (336 cells, 2 workers, one round): 21.1 s of wall time, where its cells' estimate on
  2 workers is 14 s: 7 s of starting and drawing;
- ``--preset quick`` with its report: 12.5 s and 21.7 CPU-s more; the default study's report (``python -m harness
  report`` of its run: 100 CPU-s, 55 s of wall time in a process of its own; about 8 CPU-s less when drawn after the
  race, which hands it its last look): the report's fixed part and part per cell solve these two (21.7 CPU-s at 336
  cells, 92 at 14424);
- the default study's race (``--no-report``: 10 min 2 s, 1145 CPU-s): the later rounds' cells (891 after a first round
  of 14424) took 207 CPU-s, 23% of the first round's 898 (the cells a verdict leaves undecided are the costlier
  metrics: DCI-RF, PID); each look took 7.4 to 7.9 CPU-s (every analysis of the 21111 result rows).  Once a race
  scored permutation nulls on the first round's seeds only (:func:`harness.execution.racing.first_round_nulls`), the
  later rounds' calls took 154 CPU-s (the results' ``seconds``) against 968 of the first round's calls and nulls: 15%
  (the whole run 1253 CPU-s and 10 min 50 s, where the dry run just after it said about 10 min).  With DCI-RF's and
  DCI-lasso's one-standard-error versions (commit b72fa27) the later rounds took 23% (110 CPU-s of calls against 472),
  and once the option sweeps' verdicts were raced too (commit 73b8d39: seeds for Z-diff's, DCI-lasso's, MIG-sup's, IRS's
  and Z-max's sweeps where a spread may pass its threshold) 36% (176 against 492; ``tests/benchmarks/back_to_back.py``'s
  candidate runs, 2026-11-30 09:50 and 11:43).

Measured again at 15:30 the same day, once the report was drawn on warm workers and the analyses had faster interval
quantiles (commits 6aa3d0d to 9a200fc; the fixed workload reading 0.7 of the table's time in every dry run between the
runs; medians of three, ``/usr/bin/time``): a one-cell study (``--scenarios noise --metrics mig --seeds 1
--no-report``) 2.4 s of wall time, all of it starting; ``--preset quick`` 10.8 s without its report and 15.6 s (8.0
CPU-s more) with it; the default study's report, in a process of its own, 19.5 s and 36.2 CPU-s (about 3 CPU-s less
after the race: its last look, 2.9 CPU-s at the first round's 14424 cells, is handed to it).  Scaled to the table's
speed (divided by 0.7), the report's fixed part and part per cell solve 11.4 CPU-s at 336 cells and 47 at 14424, and
its wall time on 2 workers (19.5 s of 36.2 CPU-s) leaves a tenth of it serial: the constants below.  The figures of the
earlier measurement (start 7 s; report 20 CPU-s plus 0.0047 a cell, a fifth serial; a look 0.0005 CPU-s a cell) made
the dry run say 35 s for the default study's report and 5 s to start, where it took 19 s and 2 s.

Checked against runs measured the same way: the section "The cost estimate" of ``harness/README.md`` gives the errors.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Wall seconds, at the cost table's speed, a run spends starting (imports, planning, workers) beside its cells.
START_SECONDS = 3.5
#: Wall seconds, at the cost table's speed, a local pool of worker processes takes to start: each worker imports the
#: harness, the metrics and scikit-learn (about 2.6 CPU-s), the workers side by side.  A run of ``--jobs -1`` (the
#: default) starts none where its cells would not repay it (:func:`pool_pays`).
POOL_START_SECONDS = 2.6
#: A report's CPU seconds at the cost table's speed: a fixed part (its analyses and the figures every study draws) ...
REPORT_FIXED_SECONDS = 10.5
#: ... and a part per cell (more scenarios and metrics: more panels and curves).
REPORT_SECONDS_PER_CELL = 0.0025
#: The CPU time a racing study's later rounds add, as a share of its first round's (measured 23%, above, with nulls
#: on every seed; 15% once the later rounds scored none: :func:`harness.execution.racing.first_round_nulls`; 36% once
#: the option sweeps' verdicts were raced as well).
RACE_ROUNDS_SHARE = 0.36
#: CPU seconds, at the cost table's speed, of one racing look per cell of the first round (4.2 s a look at 14424).
LOOK_SECONDS_PER_CELL = 0.0003
#: The share of a report's CPU time that runs in one process whatever the workers (its analyses, writing the pages).
REPORT_SERIAL_SHARE = 0.1


def pool_pays(estimates: Sequence[float], workers: int) -> bool:
    """Whether a pool of ``workers`` local worker processes finishes tasks of ``estimates`` seconds (at the cost
    table's speed) sooner than the calling process alone: :data:`POOL_START_SECONDS`, then the tasks spread over the
    workers (no sooner than the longest ends), against the tasks one after another.  A study of a few cheap cells
    (``run --scenarios noise --metrics mig``, a test's) does not: its imports are then taken once, not once more in
    each worker."""
    total = float(sum(estimates))
    return workers > 1 and POOL_START_SECONDS + max(total / workers, max(estimates, default=0.0)) < total


#: CPU seconds, at the cost table's speed, of drawing a report's figures: a part per scenario (its figure and its
#: review figure, its share of the atlases and the chance and phase figures) ...
FIGURE_SECONDS_PER_SCENARIO = 1.1
#: ... and a part per line (a sub-score in a scenario), drawn in the scenario's figure, an atlas and the others.
#: Measured with ``time.process_time`` around each figure's drawing (2026-12-02, this project's 2-core machine at
#: 1.01 times the table's speed; ``--seeds 1`` or 2, ``--n-samples`` 200 or 300): 2.4 CPU-s for 2 scenarios and 4
#: lines (7 figures), 5.4 for 3 scenarios and 21 lines (8), 11.6 for ``--preset quick`` (2 and 88, 12 figures);
#: the default study's 70 (17 and 1154, 42 figures) is overestimated twice over, which decides nothing: its figures
#: repay workers either way.
FIGURE_SECONDS_PER_LINE = 0.11


def figure_estimates(lines_per_scenario: Sequence[int]) -> list[float]:
    """A report's figures as tasks of :data:`FIGURE_SECONDS_PER_SCENARIO` (one per scenario) and
    :data:`FIGURE_SECONDS_PER_LINE` (one per line), for :func:`pool_pays`: the drawing spreads over the figures, so
    finely that no one figure bounds it."""
    return [FIGURE_SECONDS_PER_SCENARIO] * len(lines_per_scenario) + [FIGURE_SECONDS_PER_LINE] * int(sum(lines_per_scenario))


def report_seconds(cells: int) -> float:
    """A report's CPU seconds at the cost table's speed, for a study of ``cells`` cells."""
    return REPORT_FIXED_SECONDS + REPORT_SECONDS_PER_CELL * cells


def report_wall_seconds(cells: int, workers: int) -> float:
    """A report's wall seconds at the cost table's speed on ``workers`` workers (Amdahl: its serial share, then the
    rest spread over the workers)."""
    return report_seconds(cells) * (REPORT_SERIAL_SHARE + (1 - REPORT_SERIAL_SHARE) / max(1, workers))


def race_wall_seconds(cells_wall_seconds: float, cells: int, looks: int) -> float:
    """A race's wall seconds beyond its first round, at the cost table's speed: its later rounds (on the workers, a
    share of the first round's ``cells_wall_seconds``) and its ``looks`` at the results of ``cells`` first-round cells
    (in the main process, the workers waiting)."""
    return RACE_ROUNDS_SHARE * cells_wall_seconds + looks * LOOK_SECONDS_PER_CELL * cells
