"""Racing seeds: more draws only where a verdict is still undecided.

A racing study starts every cell with a few seeds, reads every verdict's interval, and adds
seeds to the cells that feed an undecided verdict only, round after round, until each verdict
is decided or its cells reach the cap (:attr:`Racing.max_seeds`) or the run's budget.  It is
the racing of Maron and Moore (1994, "Hoeffding races") and of irace (López-Ibáñez et al.
2016), with the analyses' own intervals as the stopping rule.

Validity under optional stopping
    A verdict read after every round and acted on when decided is a sequential test: reading a
    95% interval at each of ``R`` looks would decide wrongly more often than 5%.  The seed counts
    follow a fixed doubling schedule (:meth:`Racing.schedule`: 3, 6, 12 by default; 12, 24, 48, 100 for the paper
    preset), and a race runs at most ``R = len(schedule)`` rounds, round ``r`` giving the pairs it grows the
    schedule's ``r``-th count: so a verdict is read on at most ``R`` different sets of results, whichever of the
    pairs it reads grew when, and every interval of a racing study is computed at level ``1 − 0.05 / R``
    (:func:`reports.analyses.intervals.level`, the results' ``looks`` column).  By Bonferroni's inequality the chance
    that *any* look's interval excludes the truth, and so the chance of a wrong decision, is at most 5% whatever rule
    stopped the race.  (Until 2026-12-02 a pair grew one step of the schedule a round, so a pair first found
    undecided at a later look, a verdict reading it having moved as other pairs grew, raced on past the ``R``-th
    round: the default study ran 5 rounds, and the verdicts reading those pairs were read on up to 5 sets of
    results at the level of 3, a bound of 8.3%, not 5%.)  A pair first undecided at look ``r`` thus goes straight to
    the count of round ``r + 1`` (from 3 to 12 after the second look); one undecided at the last look short of the cap
    keeps its seeds, and its verdict stays undecided with them (the run's last line and the report say so).
    The split is
    chosen over a confidence sequence (Howard et al. 2021, "Time-uniform, nonparametric,
    nonasymptotic confidence sequences") because the analyses' intervals are Student-t and
    bootstrap-standard-error intervals of statistics of curves (ρ, slopes) and intervals of largest values made from
    their parts' intervals (largest deviations and spreads),
    for which no ready confidence sequence exists, and because with three looks the split
    costs little where seeds are many: t(0.9917, 11) = 2.8 against t(0.975, 11) = 2.2 at 12
    seeds, 3.5 against 2.6 at 6 (7.6 against 4.3 at 3, where only clear verdicts are decided
    anyway).  Doubling keeps the looks few; each round still adds seeds only where needed.

Permutation nulls on the first round's seeds
    A cell's permutation null (:mod:`harness.execution.null_budget`) feeds no verdict's interval: the calibration
    reads it for its chance level and its note on chance-level bias, over the seeds that have one
    (:func:`reports.analyses.calibration.calibration`).  The seeds a race adds are there to narrow the
    intervals of undecided verdicts, so a racing study scores nulls on each cell's first :attr:`Racing.min_seeds`
    seeds only (:func:`first_round_nulls`): in the default study the later rounds' nulls had cost 97 CPU-s (45% of
    its nulls) and informed no decision.

Determinism
    Seeds derive from each cell's identity (:mod:`harness.execution.seeds`), the rounds from the
    verdicts of the results, and the budget from the cost table's estimates (never from a clock),
    so a rerun gives the same seeds, the same rounds and bit-identical results whatever the
    number of workers, and a run stopped between rounds resumes from its store.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from harness.errors import UsageError
from harness.execution.plan import Cell
from harness.execution.provenance import module_provenance
from harness.outputs import atomic_write
from reports.analyses.intervals import MIN_INTERVAL_SEEDS
from reports.results.schema import LOOKS_COLUMN

#: Seeds every cell of a racing study starts with: the fewest for a useful interval (with 2, Student's t quantile
#: of one degree of freedom makes an interval 12.7 standard errors wide on each side; with 3, 4.3), the number below
#: which a figure draws no band.
MIN_SEEDS = MIN_INTERVAL_SEEDS
#: The default cap of a racing study's seeds per cell.
MAX_SEEDS = 12
#: The smallest factor between the last count of a schedule but one and the cap: doubling up to the cap, a count
#: within this factor of it is skipped (:meth:`Racing.schedule`).
LAST_STEP = 1.5

Group = tuple[str, str]
"""What racing adds seeds to: a (scenario, metric) pair as the results name them, every value and sample size of it."""


@dataclass(frozen=True)
class Racing:
    """How a study races its seeds.

    Attributes
    ----------
    min_seeds : int
        Seeds every cell starts with (at least 2).
    max_seeds : int
        The most seeds a cell gets (at least ``min_seeds``).
    budget_seconds : float or None
        The estimated CPU seconds the study may take: a round whose cells would take the study's cells past it is
        not started (the cost table's estimates, :mod:`harness.execution.costs`, so that the rounds do not depend on
        the machine's speed).  None: no budget.
    """

    min_seeds: int = MIN_SEEDS
    max_seeds: int = MAX_SEEDS
    budget_seconds: float | None = None

    def __post_init__(self) -> None:
        for name in ("min_seeds", "max_seeds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise UsageError(f"{name.replace('_', '-')} must be a whole number, got {value!r}")
        if self.min_seeds < 2:
            raise UsageError(f"racing starts with at least 2 seeds (an interval needs 2), got --min-seeds {self.min_seeds}")
        if self.max_seeds < self.min_seeds:
            raise UsageError(f"--max-seeds {self.max_seeds} is below the seeds every cell starts with ({self.min_seeds})")
        if self.budget_seconds is not None and not self.budget_seconds > 0:
            raise UsageError(f"--budget-seconds must be a positive number of CPU seconds, got {self.budget_seconds!r}")

    def schedule(self) -> tuple[int, ...]:
        """The seeds a cell has at each look: doubling from :attr:`min_seeds`, the last one :attr:`max_seeds` (3, 6,
        12).  A doubling that would come within :data:`LAST_STEP` of the cap goes to the cap instead (12, 24, 48, 100,
        not 12, 24, 48, 96, 100): a look that adds a few seeds costs a round and widens every interval (one more
        look to split the error rate over) for little."""
        counts = [self.min_seeds]
        while counts[-1] < self.max_seeds:
            doubled = 2 * counts[-1]
            counts.append(self.max_seeds if doubled * LAST_STEP > self.max_seeds else doubled)
        return tuple(counts)

    @property
    def looks(self) -> int:
        """How many times a verdict can be read: the schedule's length (the intervals' Bonferroni divisor)."""
        return len(self.schedule())


@dataclass
class RaceState:
    """Where a race stands: each group's position in the schedule."""

    racing: Racing
    steps: dict[Group, int]

    def seeds_of(self, group: Group) -> int:
        """The seeds ``group`` has now."""
        return self.racing.schedule()[self.steps[group]]

    def advance(self, undecided: Iterable[Group], look: int) -> set[Group]:
        """After look ``look`` (1 for the first round's), give every group of ``undecided`` the count of the next
        round, the schedule's ``look``-th (0-based): the groups moved, none after the last look (see the module's
        notes: a race runs at most :attr:`Racing.looks` rounds, so that no verdict is read more often than its
        intervals' level allows)."""
        if look >= self.racing.looks:
            return set()
        moved = {group for group in undecided if group in self.steps}  # each below step ``look``: one move per look
        for group in moved:
            self.steps[group] = look
        return moved


def undecided_groups(frame: pd.DataFrame) -> set[Group]:
    """The (scenario, metric) pairs where more seeds can decide an undecided verdict of ``frame``'s report
    (:func:`reports.verdicts.verdict_table.undecided_sources`, at the default thresholds); the analyses of the last
    look are kept for the report drawn after it (:func:`reports.verdicts.bundle.bundle_of`)."""
    from reports.verdicts.bundle import bundle_of
    from reports.verdicts.verdict_table import undecided_sources

    return undecided_sources(bundle_of(frame))


Decide = Callable[[pd.DataFrame], set[Group]]
"""Results table -> the groups whose verdicts need more seeds (:func:`undecided_groups`)."""


def racing_rule(min_seeds: int | None, max_seeds: int | None, budget_seconds: float | None, *, fixed_seeds: int | None,
                preset_seeds: int, preset_max_seeds: int) -> Racing | None:
    """The race a study runs, or None for a fixed number of seeds.

    A preset races when it sets a cap (``preset_max_seeds`` > 0), from ``preset_seeds``; ``min_seeds``,
    ``max_seeds`` (``--min-seeds``, ``--max-seeds``) race any study, from :data:`MIN_SEEDS` up to :data:`MAX_SEEDS`
    unless they say otherwise.  ``fixed_seeds`` (``--seeds N``) runs N seeds everywhere, as without racing.

    Raises
    ------
    harness.errors.UsageError
        For ``fixed_seeds`` with a racing option, a budget without racing, and the values :class:`Racing` refuses.
    """
    asked = [flag for flag, value in (("--min-seeds", min_seeds), ("--max-seeds", max_seeds),
                                      ("--budget-seconds", budget_seconds)) if value is not None]
    if fixed_seeds is not None:
        if asked:
            raise UsageError(f"--seeds {fixed_seeds} fixes every cell's seeds; {asked[0]} races them (seeds added where "
                             "a verdict is undecided): give one or the other")
        return None
    if not preset_max_seeds and min_seeds is None and max_seeds is None:
        if budget_seconds is not None:
            raise UsageError("--budget-seconds bounds a race of seeds; this preset runs a fixed number of seeds: "
                             "add --max-seeds M to race them")
        return None
    start = min_seeds if min_seeds is not None else preset_seeds if preset_max_seeds else MIN_SEEDS
    cap = max_seeds if max_seeds is not None else preset_max_seeds or max(MAX_SEEDS, start)
    if max_seeds is None and start > cap:  # the cap is the preset's, not one the user gave
        raise UsageError(f"--min-seeds {start} is above this preset's cap of {cap} seeds: add --max-seeds M (at least "
                         f"{start}) to race from {start}")
    return Racing(start, cap, budget_seconds)


def first_round_nulls(cells: Sequence[Cell], racing: Racing) -> list[Cell]:
    """``cells`` with their permutation nulls on the first :attr:`Racing.min_seeds` seeds of each only (see the module's
    notes): a cell of a later seed keeps its draw, metric and seed, and scores no null.  A function of each cell's own
    seed, so a rerun and a resumed race plan the same cells."""
    return [replace(cell, null_permutations=0) if cell.seed >= racing.min_seeds and cell.null_permutations else cell
            for cell in cells]


def group_of(cell: Cell) -> Group:
    """The (scenario, metric) pair a cell's seeds race with, as the results name them."""
    return cell.definition.name, cell.metric.name


Compute = Callable[[Sequence[Cell]], tuple[pd.DataFrame, pd.DataFrame]]
"""Cells -> the results and failure tables of those cells, computing those not yet stored."""


#: The file of a run directory that records its race's decisions (:class:`RaceRecord`).
RACE_FILE = "racing.json"


class RaceRecord:
    """The groups each round of a race found undecided, kept in ``DIR/racing.json`` with what they depend on.

    A round's decision is a function of its cells' results, which are a function of the cells' keys (data, metric,
    options, code and libraries: :func:`harness.execution.plan.cell_key`), and of the code that judges the verdicts.
    A rerun whose plan, race and judging code have the same digest reads the recorded decisions instead of
    computing every analysis again (about 10 CPU-s a round on the default study); any change computes them anew.
    """

    def __init__(self, path: Path | None, digest: str) -> None:
        self.path, self.digest = path, digest
        self.rounds: list[list[list[str]]] = []
        if path is not None and path.is_file():
            try:
                stored = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):  # a damaged record is computed again
                stored = {}
            if isinstance(stored, dict) and stored.get("digest") == digest and isinstance(stored.get("rounds"), list):
                self.rounds = stored["rounds"]
        self.known = len(self.rounds)

    def decided(self, look: int, frame: pd.DataFrame, decide: Decide) -> set[Group]:
        """Round ``look``'s undecided groups: as recorded, or computed by ``decide`` and recorded."""
        if look <= self.known:
            return {(str(scenario), str(metric)) for scenario, metric in self.rounds[look - 1]}
        undecided = decide(frame)
        del self.rounds[look - 1:]
        self.rounds.append(sorted([scenario, metric] for scenario, metric in undecided))
        if self.path is not None:
            record = json.dumps({"digest": self.digest, "rounds": self.rounds})
            atomic_write(self.path, lambda path: Path(path).write_text(record, encoding="utf-8"))
        return undecided


def race_digest(cells: Sequence[Cell], racing: Racing) -> str:
    """What a race's decisions depend on: every planned cell's key, the race's settings and the provenance of the code
    that judges the verdicts (:func:`undecided_groups`)."""
    judges = module_provenance("reports.verdicts.bundle", "reports.verdicts.verdict_table", __name__).digest
    payload = json.dumps([sorted(cell.key for cell in cells), [racing.min_seeds, racing.max_seeds], judges])
    return hashlib.sha256(payload.encode()).hexdigest()


def race(cells: Sequence[Cell], racing: Racing, compute: Compute, *, decide: Decide,
         log: Callable[[str], None], record: Path | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run ``cells`` (planned up to :attr:`Racing.max_seeds` seeds) in at most :attr:`Racing.looks` rounds: every
    cell's first :attr:`Racing.min_seeds` seeds, then, round ``r + 1`` after look ``r``, the schedule's next count
    (:meth:`Racing.schedule`) for the groups ``decide`` names, until it names none, the last look is read or the
    budget would be passed.  ``record``: the file keeping the rounds' decisions (:class:`RaceRecord`; None: none kept).

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The results of every cell run (``looks`` column: :attr:`Racing.looks`) and the failures.
    """
    state = RaceState(racing, {group_of(cell): 0 for cell in cells})
    decisions = RaceRecord(record, race_digest(cells, racing) if record is not None else "")

    def active() -> list[Cell]:
        return [cell for cell in cells if cell.seed < state.seeds_of(group_of(cell))]

    running = active()
    look = 0
    judged = racing.looks > 1  # a schedule of the cap alone has no verdict to read for more seeds
    while True:
        frame, failed = compute(running)
        frame[LOOKS_COLUMN] = racing.looks
        look += 1
        undecided = decisions.decided(look, frame, decide) if judged else set()
        moved = state.advance(undecided, look)
        if not moved:
            log(f"racing: {_settled(look, len(running), undecided, state, judged=judged)}")
            return frame, failed
        following = active()
        estimate = sum(cell.estimated_seconds for cell in following)
        if racing.budget_seconds is not None and estimate > racing.budget_seconds:
            log(f"racing: round {look + 1} would take the study to an estimated {estimate:.3g} CPU-s, past the budget "
                f"of {racing.budget_seconds:g} (--budget-seconds); stopping with {len(undecided)} scenario x metric "
                "pair(s) still feeding an undecided verdict")
            return frame, failed
        counts = sorted({state.seeds_of(group) for group in moved})
        log(f"racing: round {look} ({len(running)} cells): {len(undecided)} scenario x metric pair(s) feed an undecided "
            f"verdict; {len(moved)} get more seeds ({', '.join(map(str, counts))}), "
            f"{len(following) - len(running)} more cells")
        running = following


def _settled(look: int, cells: int, undecided: set[Group], state: RaceState, *, judged: bool = True) -> str:
    """The race's last line: after how many rounds it stopped, and what stayed undecided, at the cap or short of it
    at the last look; ``judged``: whether the verdicts were read (not when the schedule is the cap alone)."""
    racing = state.racing
    text = f"stopped after {look} round(s) and {cells} cells"
    if not judged:
        return (text + f": every scenario x metric pair has the cap of {racing.max_seeds} seeds, so no verdict was read "
                "for more (a verdict still undecided is shown ≈)")
    if not undecided:
        return text + ": every verdict decided"
    at_cap = sum(state.steps.get(group) == racing.looks - 1 for group in undecided)
    parts = [f"{at_cap} scenario x metric pair(s) at the cap of {racing.max_seeds} seeds, still undecided (too close to "
             "call at this cap)"] if at_cap else []
    if len(undecided) > at_cap:
        parts.append(f"{len(undecided) - at_cap} scenario x metric pair(s) found undecided at the last of the race's "
                     f"{racing.looks} looks with fewer seeds (no round is left: a race reads its verdicts "
                     f"{racing.looks} times at most)")
    return text + f": every verdict decided but those of {', and of '.join(parts)}; shown ≈"
