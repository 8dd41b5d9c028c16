"""Break a metric: search the representations the scenarios build for the largest departures from the ideal.

``python -m harness stress METRIC`` (or :func:`stress`) searches the points
``(scenario, parameter value, sample size)`` of :mod:`harness.workflows.stress_space` for
those where the metric's score departs most from the scenario's ideal for the property the
metric claims, in both directions: *over*-scoring (a bad code scored as good) and
*under*-scoring (a good code scored as bad).  Failures of this kind were found by hand so far
(Z-diff's perfect score on the band mixing at alpha = 0.5, Zaidi et al. 2022, 5.3; MIG's
blindness to the redundancy attack, Tokui and Sato 2022, 4.1); the search finds them within a
budget.

The search
    The budget is a number of cells of the stressed metric *per scenario searched* (so a
    search of one scenario costs what the default search spends on each).
    1. *Exploration*: half of each scenario's budget (but at least the ends of its range, or
       every choice of a choice parameter, as far as the scenario's budget goes): the ends of
       its range, then a Latin hypercube over (value, sample size)
       (:func:`harness.workflows.stress_space.exploration_points`).
    2. *Local refinement*: the rest, shared among the most promising explored points of
       numeric scenarios, as many as there are scenarios (one per scenario, sub-score and
       direction; those beyond their seed spread first): bounded Brent minimisation
       (:func:`scipy.optimize.minimize_scalar`, ``method="bounded"``) of the departure's
       confidence bound nearest zero over the value, in a bracket one exploration stratum
       wide on either side of the point, at its sample size.
    Every point is a study's cells (``seeds`` draws) run by
    :func:`harness.execution.runner.run_study` with an explicit grid: the same runner,
    store (``out/search``, so an interrupted or repeated search reuses its cells), backends
    and seeds as a study.  The search is seeded by ``seed`` (the Latin hypercubes) and fully
    reproducible under a cell budget; a budget in seconds stops wherever the clock says.

The departure, across seeds
    At a point, a sub-score's departure is ``mean over seeds of s' - ideal``, where ``s'`` is
    the score oriented so that higher is better (``1 - s`` for a lower-is-better sub-score) and
    ``ideal`` the scenario's ideal for the sub-score's property
    (:func:`harness.workflows.stress_space.ideal_at`).  Its seed
    spread is the half-width of its 95 % Student-t confidence interval over the seeds.  A point
    is a *candidate* only beyond that spread: the interval excludes 0 and the departure is at least
    ``min_departure`` (a systematic departure of 0.01 is no failure worth reporting).  Candidates are
    ranked by the interval's bound nearest zero (``|departure| - half_width``).

Confirmation on fresh seeds
    The search reads hundreds of intervals and keeps the most extreme, so on its own seeds some
    interval excludes 0 by chance and the chosen departures overstate the truth.  Each
    candidate is therefore measured again on as many fresh seeds (seeds the search never read)
    and is a *case* only if, there, its departure lies the same way, reaches ``min_departure``
    and has an interval excluding 0 at level ``1 − 0.05 / k`` for the ``k`` candidates
    (:func:`confirm_cases`); the cases report the fresh seeds' numbers.

What comes back
    The top cases of each direction (one per scenario, sub-score and direction; a metric that
    under-scores grossly somewhere does not hide where it over-scores) that their fresh seeds
    confirmed, each with the recipe that replays it (``python -m harness run --grid ...``
    reproduces its scores exactly, the search's seeds and the fresh ones), the metric's
    per-seed scores on the fresh seeds, the ideal, and the built-in metrics' scores on the same data for
    contrast; with ``out``, a Markdown summary, a JSON record, every measurement as CSV and a
    figure of the worst case (:mod:`reports.stress`, from the tables of
    :mod:`harness.workflows.stress_tables`).
"""

from __future__ import annotations

import math
import shlex
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

import metrics
from harness.errors import UsageError
from harness.execution.metric_refs import MetricEntry, resolve
from harness.execution.presets import PRESETS
from harness.execution.racing import Racing
from harness.execution.runner import run_study
from harness.execution.scenario_refs import NamedWithValueError, scenario_for
from harness.execution.seeds import identity_seed
from harness.execution.store import CELLS_FILE, ResultStore
from harness.execution.sweeps import canonical_name, sweep_slices
from harness.workflows.stress_defaults import (
    DEFAULT_BUDGET,
    DEFAULT_MAX_SEEDS,
    DEFAULT_MIN_DEPARTURE,
    DEFAULT_SAMPLE_SIZES,
    DEFAULT_SEEDS,
    DEFAULT_TOP,
    MIN_SEEDS,
)
from harness.workflows.stress_result import CONFIDENCE, CONFIRMATION, Measurement, StressCase, StressResult
from harness.workflows.stress_space import (
    CHOICE,
    ParameterRange,
    Point,
    check_sample_sizes,
    exploration_points,
    ideal_at,
    parameter_range,
    searchable_scenarios,
)
from harness.workflows.stress_tables import stress_tables
from harness.workflows.user_metric import MetricLike, reference_of
from reports.analyses.intervals import level
from reports.results.schema import FAILURE_COLUMNS
from reports.stress import write_stress
from scenarios.base import IDEAL_PROPERTIES, ParameterValue

#: Share of the budget spent exploring; the rest refines.
EXPLORATION_SHARE = 0.5
#: The preset a stress search's cells belong to (``run``'s default, so that replays hit the same cells).
PRESET = "default"
#: A search scores no permutation nulls: it looks for departures from ideals, and nulls would multiply each cell's
#: cost by up to 100 (its replay command says so too, to hit the same cells).
NULL_PERMUTATIONS = 0
#: Sub-directory of ``out`` holding the search's run store.
SEARCH_DIR = "search"


class _BudgetSpent(Exception):
    """The search has no cells (or seconds) left."""


class _Search:
    """The search's state: what was measured, the budget spent, and how to run a point."""

    def __init__(self, reference: str, entry: MetricEntry, *, seeds: int, budget: int,
                 budget_seconds: float | None, study: Mapping[str, Any], progress: bool = False, looks: int = 1) -> None:
        self.reference, self.entry, self.seeds, self.looks = reference, entry, seeds, looks
        self.budget, self.budget_seconds, self.study = budget, budget_seconds, dict(study)
        self.progress, self.log = progress, self.study.pop("log", print)
        # one bar over the whole budget: the search runs many small studies, each without a bar of its own
        self.bar = tqdm(total=budget, desc=f"stress {entry.name}", unit="cell", disable=not progress)
        self.started = time.monotonic()
        self.measured: dict[Point, list[Measurement]] = {}
        self.frames: list[pd.DataFrame] = []
        self.cells = 0
        self.without_ideal: list[Point] = []  # points proposed where the scenario states no ideal the metric claims
        self.failures: dict[tuple[Any, ...], Mapping[str, Any]] = {}  # failed cells, by identity
        self.notes: list[str] = []

    def out_of_time(self) -> bool:
        return self.budget_seconds is not None and time.monotonic() - self.started >= self.budget_seconds

    def measure(self, points: Sequence[Point], stage: str) -> None:
        """Run the points not measured yet, as many as the budget affords; :class:`_BudgetSpent` when it ran out."""
        new = [point for point in dict.fromkeys(points) if point not in self.measured]
        claimed = _claimed(self.entry)
        for point in [point for point in new if not claimed & set(ideal_at(point.scenario, point.value))]:
            self.measured[point] = []  # no cell run: nothing to measure there (noise beyond alpha 0.5 for modularity)
            self.without_ideal.append(point)
            new.remove(point)
        if not new:
            return
        affordable = (self.budget - self.cells) // self.seeds
        spent = affordable < len(new)
        new = new[:max(affordable, 0)]
        batches: dict[tuple[int, str], list[Point]] = {}  # one study per sample size and scenario: the bar moves
        for point in sorted(new, key=lambda point: point.n_samples):  # stable: a scenario's points keep their order
            batches.setdefault((point.n_samples, point.scenario), []).append(point)
        for (size, _), group in batches.items():
            if self.out_of_time():
                raise _BudgetSpent
            frame = self.run(group, size, [self.reference])
            self.cells += len(group) * self.seeds
            self.bar.update(len(group) * self.seeds)
            for point in group:
                self.measured[point] = self._measurements(frame, point, stage)
        if spent:
            raise _BudgetSpent

    def remeasure(self, points: Sequence[Point], seeds: int) -> None:
        """Measure ``points`` again on ``seeds`` draws (their first ones are stored: only the new ones run), keeping
        each measurement's stage; cells beyond the search's budget, as the contrast's are."""
        by_size: dict[int, list[Point]] = {}
        for point in dict.fromkeys(points):
            by_size.setdefault(point.n_samples, []).append(point)
        for size, group in by_size.items():
            frame = self.run(group, size, [self.reference], seeds=seeds)
            for point in group:
                stage = self.measured[point][0].stage if self.measured.get(point) else "refinement"
                self.measured[point] = self._measurements(frame, point, stage)

    def run(self, points: Sequence[Point], size: int, metric_names: Sequence[str], *,
            progress_label: str | None = None, seeds: int | None = None) -> pd.DataFrame:
        """The points' cells of ``metric_names`` at sample size ``size`` on ``seeds`` draws (default: the search's),
        through the study runner.

        With ``progress_label`` (and the search's progress on), the study shows its own bar.
        """
        grids: dict[str, list[ParameterValue]] = {}
        for point in points:
            grids.setdefault(point.scenario, []).append(point.value)
        frame = run_study(preset=PRESET, scenarios_=list(grids), metrics_=list(metric_names), seeds=seeds or self.seeds,
                          n_samples=size, grids=grids, null_permutations=NULL_PERMUTATIONS,
                          progress=self.progress and progress_label is not None,
                          progress_label=progress_label or "cells", log=self._study_log, **self.study)
        for failure in frame.attrs.get("failures", []):
            key = tuple(failure[column] for column in ("metric", "scenario", "value_label", "seed", "n_samples"))
            self.failures.setdefault(key, failure)
        self.frames.append(frame)
        return frame

    @property
    def failed(self) -> int:
        """Failed cells of the stressed metric."""
        return sum(failure["metric"] == self.entry.name for failure in self.failures.values())

    def failure_notes(self) -> list[str]:
        """One line per metric and error: the failed cells' count, where they were, and the error."""
        groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
        for failure in self.failures.values():
            groups.setdefault((failure["metric"], failure["error"]), []).append(failure)
        notes = []
        for (metric, error), failed in groups.items():
            if len(failed) == 1:
                (one,) = failed
                notes.append(f"{metric} failed on {one['scenario']} = {one['value_label']} (seed {one['seed']}, "
                             f"n = {one['n_samples']}): {error}")
                continue
            labels: dict[str, dict[str, None]] = {}
            for failure in failed:
                labels.setdefault(failure["scenario"], {})[str(failure["value_label"])] = None
            where = "; ".join(f"{scenario} = {', '.join(values)}" for scenario, values in labels.items())
            sizes = ", ".join(map(str, sorted({int(failure["n_samples"]) for failure in failed})))
            notes.append(f"{metric} failed in {len(failed)} cells ({where}; n = {sizes}): {error}")
        return notes

    def _study_log(self, line: str) -> None:
        """A status line of one of the search's studies, less those the search says once for all of them: the
        cells reused from the store (before it starts) and the failed cells (its notes and the command's exit)."""
        if not line.startswith(("skipping ", "warning: ")):
            self.log(line)

    def _measurements(self, frame: pd.DataFrame, point: Point, stage: str, *, looks: int | None = None,
                      first_seed: int = 0) -> list[Measurement]:
        """Each sub-score with an ideal at ``point``, over the seeds of ``frame`` from ``first_seed`` on, its interval
        at level ``1 − 0.05 / looks`` (default: the search's looks)."""
        rows = frame.loc[(frame["scenario"] == point.results_name) & (frame["value_label"] == point.label)
                         & (frame["n_samples"] == point.n_samples) & (frame["metric"] == self.entry.name)
                         & (frame["seed"] >= first_seed)]
        ideal = ideal_at(point.scenario, point.value)
        found = []
        for sub_score, group in rows.sort_values("seed").groupby("sub_score", sort=True):
            prop = self.entry.property_of(sub_score)
            if prop not in ideal or not np.isfinite(ideal[prop]):
                continue
            if len(group) < 2:
                self.notes.append(f"{sub_score} at {point.scenario} = {point.label} (n = {point.n_samples}): "
                                  f"fewer than 2 seeds scored, no spread to measure")
                continue
            found.append(Measurement(point, sub_score, prop, self.entry.higher_is_better_for(sub_score),
                                     ideal[prop], tuple(float(score) for score in group["score"]), stage,
                                     self.looks if looks is None else looks, first_seed))
        return found

    def fresh_measurements(self, chosen: Sequence[Measurement]) -> dict[tuple[Point, str], Measurement]:
        """Each of ``chosen`` measured again on as many fresh seeds as it had (seeds ``s`` to ``2 s − 1`` of its point,
        never read by the search), each interval at level ``1 − 0.05 / len(chosen)`` (see :func:`confirm_cases`);
        cells beyond the search's budget, as the contrast's.  By (point, sub-score)."""
        fresh: dict[tuple[Point, str], Measurement] = {}
        groups: dict[tuple[int, int], list[Point]] = {}
        for measurement in chosen:
            point = measurement.point
            groups.setdefault((len(measurement.scores), point.n_samples), []).append(point)
        for (used, size), points in groups.items():
            points = list(dict.fromkeys(points))
            frame = self.run(points, size, [self.reference], seeds=2 * used,
                             progress_label=f"confirmation at n = {size}")
            for point in points:
                for measurement in self._measurements(frame, point, CONFIRMATION, looks=max(len(chosen), 1),
                                                      first_seed=used):
                    fresh[(point, measurement.sub_score)] = measurement
        return fresh

    def all_measurements(self) -> list[Measurement]:
        return [measurement for found in self.measured.values() for measurement in found]


def stress(
    metric: MetricLike,
    *,
    scenarios_: Sequence[str] | None = None,
    budget: int = DEFAULT_BUDGET,
    budget_seconds: float | None = None,
    seeds: int = DEFAULT_SEEDS,
    max_seeds: int | None = DEFAULT_MAX_SEEDS,
    seed: int = 0,
    sample_sizes: Sequence[int] = DEFAULT_SAMPLE_SIZES,
    min_departure: float = DEFAULT_MIN_DEPARTURE,
    top: int = DEFAULT_TOP,
    contrast: Sequence[str] | None = None,
    out: str | Path | None = None,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    cell_timeout: float | None = None,
    log: Callable[[str], Any] = print,
    progress: bool = False,
) -> StressResult:
    """Search for the representations where ``metric`` departs most from its ideal (see the module docstring).

    Parameters
    ----------
    metric : str or callable
        A registered metric's name, a ``module:function`` / ``file.py:function``
        reference, or a top-level function (its metadata from
        :func:`metrics.describe.describe_metric`).  It must claim modularity,
        compactness or explicitness for at least one sub-score: those have ideals.
    scenarios_ : sequence of str, optional
        Scenarios to search (default: :func:`~harness.workflows.stress_space.searchable_scenarios`); a composition
        with its base value free, ``TRANSFORM@BASE``, is searched as one scenario per value of the base's grid.
    budget : int, default 30
        Cells of ``metric`` to run per scenario searched (points x ``seeds``), half
        exploring, half refining.  Contrast cells are extra: up to 2 ``top`` points x ``seeds`` x
        the contrast metrics.
    budget_seconds : float, optional
        Also stop once this many wall seconds have passed (then the search is not
        reproducible: where it stops depends on the machine).
    seeds : int, default 3
        Draws of every point (at least 2: the seed spread needs them).
    max_seeds : int or None, default 12
        Race the seeds of the candidate cases too close to call (:mod:`harness.execution.racing`): the best point of
        each scenario, sub-score and direction whose departure is at least ``min_departure`` but within its seed
        spread is measured again on twice the seeds, up to ``max_seeds``, and every spread is at level
        ``1 − 0.05 / looks`` for the race's looks.  These cells are extra, as the contrast's.  None (or ``seeds``):
        no race, every point on ``seeds`` draws.
    seed : int, default 0
        Seed of the Latin hypercubes (a scenario's draw depends on it and the scenario's name).
    sample_sizes : sequence of int, default (250, 500, 1000)
        The sample sizes searched.
    min_departure : float, default 0.1
        Smallest departure reported as a case.
    top : int, default 3
        Most cases returned in each direction.
    contrast : sequence of str, optional
        Built-in metrics scored on the cases' data (default: the ``default`` preset's,
        i.e. every built-in but dci_gbt, less ``metric``); empty for none.
    out : path, optional
        Directory of the run store (``out/search``) and the outputs of
        :func:`reports.stress.write_stress`.  Without it nothing is written.
    jobs, backend, scheduler, cell_timeout
        As for :func:`harness.execution.runner.run_study`.
    log : callable
        Where status lines go.
    progress : bool, default False
        Show a progress bar over the budget's cells (and one over the contrast's).

    Returns
    -------
    StressResult

    Raises
    ------
    harness.errors.UsageError
        For a bad budget, seed count, sample size, threshold or name, a metric that
        claims no property with an ideal, or a scenario whose ideal states none of the
        properties the metric claims (``sample_size``).
    """
    started = time.monotonic()
    reference = metric if isinstance(metric, str) else reference_of(metric)
    entry = resolve(reference)
    _check_settings(entry, budget=budget, budget_seconds=budget_seconds, seeds=seeds, min_departure=min_departure,
                    top=top)
    racing = Racing(seeds, max_seeds) if max_seeds is not None and max_seeds != seeds else None
    names = _searched(scenarios_) if scenarios_ is not None else searchable_scenarios()
    if not names:
        raise UsageError("no scenario named to search")
    _named_once(names, "scenarios")
    _named_once(contrast or [], "contrast")
    names = _with_ideals(names, scenarios_ or [], entry, log)
    sizes = check_sample_sizes(sample_sizes, names)
    ranges = {name: parameter_range(name) for name in names}
    compared = _contrast_metrics(contrast, entry)
    store = Path(out) / SEARCH_DIR if out is not None else None
    search = _Search(reference, entry, seeds=seeds, budget=budget * len(names), budget_seconds=budget_seconds,
                     study=dict(out=store, jobs=jobs, backend=backend, scheduler=scheduler, cell_timeout=cell_timeout,
                                log=log), progress=progress, looks=racing.looks if racing is not None else 1)
    if store is not None and (store / CELLS_FILE).exists():
        log(f"stress {entry.name}: {len(ResultStore(store).records())} finished cell(s) found in {store} are reused "
            "where the search needs them")
    per_scenario = max(1, int(budget // seeds * EXPLORATION_SHARE))
    try:
        explored = [point for name in names for point in exploration_points(
            ranges[name], sizes, _explored_count(ranges[name], per_scenario, budget // seeds),
            np.random.default_rng(identity_seed("stress", seed, name)))]
        log(f"stress {entry.name}: exploring {len(explored)} points of {len(names)} scenario(s), {seeds} seeds each")
        search.measure(explored, "exploration")
        _refine(search, ranges, per_scenario, len(names), log)
    except _BudgetSpent:
        log(f"stress {entry.name}: " + (f"time budget of {budget_seconds:g} s spent" if search.out_of_time()
                                        else "budget spent") + f" after {search.cells} cells")
    finally:
        search.bar.total = search.bar.n  # a search that converged early is done, not cut short
        search.bar.close()
    if racing is not None:
        _race_candidates(search, racing, min_departure=min_departure, top=top, log=log)
    measurements = search.all_measurements()
    chosen = top_cases(measurements, min_departure=min_departure, top=top)
    if chosen:
        log(f"stress {entry.name}: confirming {len(chosen)} candidate case(s) on fresh seeds")
    fresh = search.fresh_measurements(chosen)
    confirmed, unconfirmed = confirm_cases(chosen, fresh, min_departure=min_departure)
    search.notes += unconfirmed
    scores = np.array([score for measurement in measurements for score in measurement.oriented], dtype=float)
    scores = scores[np.isfinite(scores)]
    if scores.size and (scores.min() < -1e-9 or scores.max() > 1 + 1e-9):  # the ideals lie in [0, 1]
        search.notes.append(f"{entry.name}'s oriented scores range from {scores.min():.4g} to {scores.max():.4g}, beyond "
                            "the [0, 1] its ideals lie in: a departure then measures its scale as much as its error "
                            "(map its scores to [0, 1] to compare them with the ideals)")
    if search.without_ideal:
        where = sorted({f"{point.scenario} = {point.label}" for point in search.without_ideal})
        search.notes.append(f"{len(search.without_ideal)} point(s) proposed where the scenario states no ideal "
                            f"{_ideal_claims(entry)} score were not run (no "
                            f"cell spent): {', '.join(where[:6])}{', ...' if len(where) > 6 else ''}")
    contrasts = _contrasts(search, [measurement.point for measurement in confirmed], compared)
    cases = [StressCase(measurement, replay_command(measurement.point, reference,
                                                    measurement.first_seed + len(measurement.scores)),
                        contrasts[measurement.point])
             for measurement in confirmed]
    result = StressResult(
        entry=entry,
        reference=reference,
        settings={"budget": budget, "budget_seconds": budget_seconds, "seeds": seeds,
                  "max_seeds": racing.max_seeds if racing is not None else seeds, "seed": seed,
                  "sample_sizes": list(sizes), "scenarios": names, "min_departure": min_departure, "top": top,
                  "contrast": compared, "search_confidence": level(racing.looks) if racing is not None else CONFIDENCE,
                  "confidence": level(max(len(chosen), 1)), "candidates": len(chosen)},
        measurements=measurements,
        cases=cases,
        confirmations=list(fresh.values()),
        cells=search.cells,
        failed=search.failed,
        seconds=time.monotonic() - started,
        notes=search.failure_notes() + list(dict.fromkeys(search.notes)),
    )
    if store is not None and search.frames:
        failures = pd.DataFrame([failure for frame in search.frames for failure in frame.attrs.get("failures", [])],
                                columns=list(FAILURE_COLUMNS))
        ResultStore(store).write_tables(pd.concat(search.frames, ignore_index=True), failures)
    if out is not None:
        write_stress(stress_tables(result), out)
    return result


def _searched(names: Sequence[str]) -> list[str]:
    """The scenarios named, canonical; a composition with its base value free (``TRANSFORM@BASE``) as one scenario per
    value of the base's grid (the slices of its two-parameter sweep, :mod:`harness.execution.sweeps`), so that the
    search covers both parameters: the transform's by its search, the base's by its grid."""
    try:
        return [part.scenario for name in names for part in sweep_slices(canonical_name(name), None)]
    except NamedWithValueError as error:  # its message points to run's --grid, which stress has not
        raise UsageError(f"scenario {error.reference!r}: stress searches a scenario's parameter itself; name the "
                         f"scenario alone ({error.scenario}), not one of its values") from None


def _with_ideals(names: Sequence[str], named: Sequence[str], entry: MetricEntry, log: Callable[[str], None]
                 ) -> list[str]:
    """``names`` that :func:`_check_scenario` accepts; a slice of a composition named with its base free
    (``redundancy_attack@noise=0.6`` of ``redundancy_attack@noise``) that states no ideal is left out, and said so
    (the whole composition was refused for one such slice, under a name the user never typed)."""
    typed = {canonical_name(name) for name in named}
    kept, skipped = [], []
    for name in names:
        try:
            _check_scenario(name, entry)
        except _NoIdeal:
            if name in typed:
                raise
            skipped.append(name)
            continue
        kept.append(name)
    if skipped:
        if not kept:
            raise UsageError(f"no slice of {', '.join(named)} states an ideal {_ideal_claims(entry)} "
                             f"score: stress has nothing to measure {entry.name} against there")
        log(f"stress {entry.name}: {len(skipped)} slice(s) with no ideal score for it left out: {', '.join(skipped)}")
    return kept


class _NoIdeal(UsageError):
    """A scenario that states no ideal score of the properties a metric claims."""


def _check_settings(entry: MetricEntry, *, budget: int, budget_seconds: float | None, seeds: int,
                    min_departure: float, top: int) -> None:
    if entry.population:
        raise UsageError(f"{entry.name} is a population metric; stress searches single representations")
    claimed = _claimed(entry)
    if not claimed & set(IDEAL_PROPERTIES):
        how = ("" if entry.registered else "; say what your function measures with the decorator "
               "metrics.describe.describe_metric(property=...)")
        raise UsageError(f"{entry.name} claims {', '.join(sorted(claimed))}; stress needs a metric claiming one of "
                         f"{', '.join(IDEAL_PROPERTIES)} (the scenarios' ideals){how}")
    if isinstance(seeds, bool) or not isinstance(seeds, (int, np.integer)) or seeds < MIN_SEEDS:
        raise UsageError(f"seeds must be a whole number >= {MIN_SEEDS} (the seed spread needs two draws), "
                         f"got {seeds!r}")
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < seeds:
        raise UsageError(f"budget must be a whole number of cells >= seeds ({seeds}), got {budget!r}")
    if budget_seconds is not None and not budget_seconds > 0:
        raise UsageError(f"budget_seconds must be a number of seconds > 0, got {budget_seconds!r}")
    if not (isinstance(min_departure, (int, float)) and 0 <= min_departure <= 1):
        raise UsageError(f"min_departure must be a number in [0, 1], got {min_departure!r}")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise UsageError(f"top must be a whole number >= 1, got {top!r}")


def _named_once(names: Sequence[str], what: str) -> None:
    """Refuse a name listed twice (a scenario searched twice would double its budget and be reported twice)."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise UsageError(f"{what} lists {name!r} twice")
        seen.add(name)


def _claimed(entry: MetricEntry) -> set[str]:
    """The properties ``entry``'s sub-scores claim (with the property of sub-scores it does not list)."""
    return set(entry.properties.values()) | {entry.default_property}


def _ideal_claims(entry: MetricEntry) -> str:
    """The properties with an ideal that ``entry`` claims, in words (``compactness or modularity``)."""
    return " or ".join(sorted(_claimed(entry) & set(IDEAL_PROPERTIES)))


def _check_scenario(name: str, entry: MetricEntry) -> None:
    """A scenario the search can measure ``entry`` on: a representation scenario with an ideal for a claimed property."""
    scenario = scenario_for(name)
    if scenario.kind != "representation":
        raise UsageError(f"scenario {name!r} is a {scenario.kind} scenario; stress searches representation scenarios")
    claimed = _claimed(entry) & set(IDEAL_PROPERTIES)
    if not any(claimed & set(ideal_at(name, value)) for value in scenario.values):
        instead = ("; the sample size is searched on every scenario instead (--sample-sizes)"
                   if scenario.criterion == "sample_efficiency" else "")
        raise _NoIdeal(f"scenario {name!r} states no ideal {_ideal_claims(entry)} score, so stress has "
                       f"nothing to measure {entry.name} against there{instead}")


def _contrast_metrics(contrast: Sequence[str] | None, entry: MetricEntry) -> list[str]:
    if contrast is None:
        excluded = set(PRESETS[PRESET].excluded_metrics) | {entry.name}
        return [name for name in metrics.available() if name not in excluded]
    for name in contrast:
        compared = resolve(name)  # a variant (mig[bins=5]) as run takes it
        if not compared.registered or compared.population:
            raise UsageError(f"contrast metric {name!r} is not a built-in single-representation metric (or a variant "
                             "of one, such as mig[bins=5])")
    return [name for name in contrast if name != entry.name]


def _explored_count(space: ParameterRange, share: int, affordable: int) -> int:
    """Points to explore in one scenario: its exploration ``share`` of the budget, but at least the range's ends (every
    choice of a choice parameter) where the scenario's ``affordable`` points allow: the known failures sit there."""
    return max(share, min(len(space.ends), affordable))


def _refine(search: _Search, ranges: Mapping[str, ParameterRange], per_scenario: int, count: int,
            log: Callable[[str], Any]) -> None:
    """Bounded Brent searches around the ``count`` most promising explored points (see the module docstring)."""
    from scipy.optimize import minimize_scalar

    numeric = [m for m in search.all_measurements() if ranges[m.point.scenario].kind != CHOICE]
    candidates = _distinct_best([m for m in numeric if m.margin() > 0], count)
    candidates += _distinct_best([m for m in numeric if m.margin() <= 0], count - len(candidates))
    if not candidates:
        return
    affordable = (search.budget - search.cells) // search.seeds
    if affordable < 1:  # it said "refining 7 point(s), up to 1 more points each", then "budget spent" at once
        log(f"stress {search.entry.name}: the exploration spent the budget; no point refined")
        return
    share = max(1, affordable // len(candidates))
    log(f"stress {search.entry.name}: refining {len(candidates)} point(s), up to {share} more point(s) each")
    for candidate in candidates:
        space = ranges[candidate.point.scenario]
        stratum = (space.high - space.low) / per_scenario
        centre = float(candidate.point.value)
        bracket = (max(space.low, centre - stratum), min(space.high, centre + stratum))
        if bracket[1] - bracket[0] <= 0:
            continue

        def loss(x: float, candidate: Measurement = candidate, space: ParameterRange = space) -> float:
            point = Point(candidate.point.scenario, space.value(x), candidate.point.n_samples)
            search.measure([point], "refinement")
            same = [m for m in search.measured[point] if m.sub_score == candidate.sub_score]
            return -same[0].margin(candidate.direction) if same else math.inf

        minimize_scalar(loss, bounds=bracket, method="bounded",
                        options={"maxiter": share, "xatol": (bracket[1] - bracket[0]) * 1e-3})


def _distinct_best(measurements: Sequence[Measurement], count: int) -> list[Measurement]:
    """The ``count`` largest margins, one per (scenario, sub-score, direction)."""
    best: dict[tuple[str, str, str], Measurement] = {}
    for measurement in sorted(measurements, key=lambda m: -m.margin()):
        best.setdefault((measurement.point.scenario, measurement.sub_score, measurement.direction), measurement)
    return list(best.values())[:count]


def _race_candidates(search: _Search, racing: Racing, *, min_departure: float, top: int, log: Callable[[str], Any]) -> None:
    """Give the candidate cases too close to call more seeds, round after round (:mod:`harness.execution.racing`).

    A candidate is the best measurement (largest margin) of a scenario, sub-score and direction among the ``top`` of
    its direction whose departure reaches ``min_departure``; it is undecided while its interval still holds 0
    (margin <= 0).  Its point is measured again on the next seed count of the race's schedule until it is decided
    or at the cap.  The departures' intervals are at the race's level throughout (the search's measurements carry
    its looks), so a case confirmed at any round keeps the 5% error rate.
    """
    for seeds in racing.schedule()[1:]:
        candidates = [m for direction in ("over", "under")
                      for m in _distinct_best([m for m in search.all_measurements()
                                               if m.direction == direction and abs(m.departure) >= min_departure], top)]
        undecided = list(dict.fromkeys(m.point for m in candidates if m.margin() <= 0 and len(m.scores) < seeds))
        if not undecided:
            return
        log(f"stress {search.entry.name}: {len(undecided)} candidate point(s) within their seed spread get {seeds} seeds")
        search.remeasure(undecided, seeds)


def top_cases(measurements: Sequence[Measurement], *, min_departure: float, top: int) -> list[Measurement]:
    """The ``top`` measurements beyond their seed spread in each direction, one per (scenario, sub-score, direction).

    Largest margin first, whatever the direction.
    """
    beyond = [m for m in measurements if m.beyond_spread(min_departure)]
    chosen = [m for direction in ("over", "under")
              for m in _distinct_best([m for m in beyond if m.direction == direction], top)]
    return sorted(chosen, key=lambda m: -m.margin())


def confirm_cases(chosen: Sequence[Measurement], fresh: Mapping[tuple[Point, str], Measurement], *,
                  min_departure: float) -> tuple[list[Measurement], list[str]]:
    """The candidate cases ``chosen`` that their fresh seeds confirm, and a note for each of the others.

    The search picks its cases as the largest of many noisy departures, so the seeds that picked one overstate it
    (the winner's curse) and, over hundreds of points, some interval excludes 0 by chance: a metric whose every
    departure is 0 in truth would break at some point.  A case is therefore judged on seeds the search never read
    (:meth:`_Search.fresh_measurements`): its departure there must lie in the same direction, reach
    ``min_departure``, and have an interval excluding 0 at level ``1 − 0.05 / k`` for the ``k`` candidates
    (Bonferroni: the chance that any candidate whose true departure is 0 is confirmed is at most 5%, whatever the
    search did; ``tests/harness/test_stress.py`` simulates it).

    Parameters
    ----------
    chosen : sequence of Measurement
        The candidates (:func:`top_cases` of the search's measurements).
    fresh : mapping
        (point, sub-score) -> the candidate's measurement on fresh seeds (missing where every fresh cell failed).
    min_departure : float
        The smallest departure a case may have.

    Returns
    -------
    (list of Measurement, list of str)
        The confirmed cases' fresh measurements, largest margin first; one note per candidate not confirmed.
    """
    confirmed, notes = [], []
    for candidate in chosen:
        again = fresh.get((candidate.point, candidate.sub_score))
        if again is not None and again.direction == candidate.direction and again.beyond_spread(min_departure):
            confirmed.append(again)
            continue
        where = (f"{candidate.sub_score} at {candidate.point.scenario} = {candidate.point.label} "
                 f"(n = {candidate.point.n_samples})")
        found = (f"{again.departure:+.3f} ± {again.half_width:.3f} on seeds {again.first_seed} to "
                 f"{again.first_seed + len(again.scores) - 1}" if again is not None else "no score on fresh seeds")
        notes.append(f"not confirmed: {where}, departure {candidate.departure:+.3f} ± {candidate.half_width:.3f} on "
                     f"the search's seeds, {found}")
    return sorted(confirmed, key=lambda measurement: -measurement.margin()), notes


def replay_command(point: Point, reference: str, seeds: int, out: str = "runs/stress-replay") -> str:
    """The ``python -m harness run`` command line whose cells are exactly the point's, from any directory: a user's
    file is named by its absolute path, the metric's as the scenario's (a relative metric path beside an absolute
    scenario path failed from any other directory)."""
    value = point.value if isinstance(point.value, str) else repr(point.value)
    module, colon, attribute = reference.rpartition(":")
    if colon and module.endswith(".py"):
        reference = f"{Path(module).expanduser().resolve()}:{attribute}"
    return (f"python -m harness run --scenarios {shlex.quote(point.scenario)} "
            f"--grid {shlex.quote(f'{point.scenario}={value}')} "
            f"--metrics {shlex.quote(reference)} --seeds {seeds} --n-samples {point.n_samples} "
            f"--null-permutations {NULL_PERMUTATIONS} --out {shlex.quote(out)} --no-report")


_CONTRAST_COLUMNS = ["metric", "sub_score", "property", "higher_is_better", "mean_score", "ideal", "departure"]


def _contrasts(search: _Search, points: Sequence[Point], compared: Sequence[str]) -> dict[Point, pd.DataFrame]:
    """The contrast metrics' mean scores at each of ``points``, with their ideals and departures.

    One study run per sample size scores every point (a point shared by two cases is scored once).
    """
    distinct = list(dict.fromkeys(points))
    if not compared:
        return {point: pd.DataFrame(columns=_CONTRAST_COLUMNS) for point in distinct}
    by_size: dict[int, list[Point]] = {}
    for point in distinct:
        by_size.setdefault(point.n_samples, []).append(point)
    frames = {size: search.run(group, size, compared, progress_label=f"contrast at n = {size}")
              for size, group in by_size.items()}
    return {point: _contrast_at(frames[point.n_samples], point) for point in distinct}


def _contrast_at(frame: pd.DataFrame, point: Point) -> pd.DataFrame:
    rows_at = frame.loc[(frame["scenario"] == point.results_name) & (frame["value_label"] == point.label)
                        & (frame["n_samples"] == point.n_samples)]
    ideal = ideal_at(point.scenario, point.value)
    rows = []
    for (metric, sub_score), group in rows_at.groupby(["metric", "sub_score"], sort=True):
        prop, higher = group["property"].iloc[0], bool(group["higher_is_better"].iloc[0])
        mean = float(group["score"].mean())
        target = ideal.get(prop, math.nan)
        rows.append({"metric": metric, "sub_score": sub_score, "property": prop, "higher_is_better": higher,
                     "mean_score": mean,
                     "ideal": target, "departure": (mean if higher else 1.0 - mean) - target})
    return pd.DataFrame(rows, columns=_CONTRAST_COLUMNS)
