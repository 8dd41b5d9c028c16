"""Planning a study: the grid of independent cells, grouped into tasks of one data draw.

A cell is one metric on one generated representation (or population):
(scenario, parameter value, seed index, sample size, metric).  Its key is a hash of that
identity plus the scenario's and the metric's versions and options, followed by the digests of
the metric's and the scenario's provenance (the source code that computes them and the versions of
the libraries they run on, :mod:`harness.execution.provenance`), so cached results are reused only
when the computation would be identical.

A task is the unit of work handed to a backend: the pending cells of one data draw, so
the draw is generated once and estimates shared between metrics are computed once
(:func:`harness.execution.scoring.run_task`).  A metric whose estimated cost exceeds
:data:`OWN_TASK_SECONDS` gets a task of its own, so one slow metric does not hold the
cheap ones of its draw back; in a family whose metrics share estimates
(:data:`SHARING_FAMILIES`) the whole family of the draw goes with it instead, so that the
others still reuse what it computes.  Tasks are ordered longest first.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from harness.errors import UsageError, check_one_source_per_name
from harness.execution.costs import MEASURED_SHAPE, estimated_seconds
from harness.execution.metric_refs import MetricEntry
from harness.execution.provenance import metric_provenance, scenario_provenance
from harness.execution.scenario_refs import scenario_for
from harness.execution.user_code import user_code
from scenarios.base import ParameterValue

STUDY_FORMAT = "3"  # bump when the meaning of a cell changes for every metric (2: rows gained criterion and warnings; 3: exact)

OWN_TASK_SECONDS = 5.0
"""A cell estimated to take longer than this runs in a task of its own (or of its sharing family's)."""

SHARING_FAMILIES = ("information", "intervention")
"""Families whose metrics reuse each other's estimates within a draw (binned tables and k-NN
estimates; intervention subsets), and so are never split apart (the PID bounds at n = 100000
estimate over 5 s; alone in a task, UniBound, RMIG and the others would recompute them)."""


@dataclass(frozen=True)
class Cell:
    """One unit of result: a metric on one generated representation or population.

    Its identities, key and estimate are computed once per object (a plan holds many
    cells; the paper preset 705,200).

    ``kind`` is the scenario's: ``"representation"`` (one code matrix, any metric but
    population ones) or ``"population"`` (several code matrices, population metrics).
    ``scenario`` is a reference that every worker resolves
    (:func:`harness.execution.scenario_refs.scenario_for`): a registered name, a
    composition or a user's ``file.py:name``.
    """

    study: str
    scenario: str
    value: ParameterValue
    value_index: int
    seed: int
    n_samples: int
    metric: MetricEntry
    kind: str = "representation"
    after_sibling: bool = True  # another variant of the same metric runs before it on the draw (for the estimate)

    @property
    def _prefix(self) -> tuple[object, ...]:
        return ("population",) if self.kind == "population" else ()

    @property
    def definition(self) -> Any:
        """The scenario the reference resolves to (cached per process)."""
        return scenario_for(self.scenario)

    @cached_property
    def data_identity(self) -> tuple[object, ...]:
        """What determines the generated data: the scenario's name (not where a user's file lies), version, value."""
        scenario = self.definition
        return (*self._prefix, scenario.name, scenario.version, scenario.label(self.value), self.seed, self.n_samples)

    @property
    def seed_identity(self) -> tuple[object, ...]:
        """What seeds the generated data: the data identity *without* the parameter value.

        For a given seed index every value of the swept parameter transforms the same
        random draw (common random numbers, as in the review's protocol where one set
        of factor samples is reused along each sweep).  Curves are then smooth in the
        parameter, ``partial`` keeps its codes as ``k`` falls, and ``sample_size``'s
        smaller samples are prefixes of the largest.
        """
        scenario = self.definition
        return (*self._prefix, scenario.name, scenario.version, self.seed, self.n_samples)

    @cached_property
    def key(self) -> str:
        """Stable identity of the cell's computation, code and libraries included (:func:`cell_key`)."""
        return cell_key(self.data_identity, self.metric, self.scenario)

    @cached_property
    def estimated_seconds(self) -> float:
        """The cell's estimated CPU seconds (see :mod:`harness.execution.costs`), scaled by its representation's
        shape (:func:`shape_factor`)."""
        rows = self.definition.rows_at(self.value, self.n_samples)
        seconds = estimated_seconds(self.metric.name, rows, registered=self.metric.registered,
                                    variant_of=self.metric.variant_of, after_sibling=self.after_sibling)
        return seconds * (shape_factor(self.definition, self.value) if self.kind == "representation" else 1.0)


@dataclass(frozen=True)
class Task:
    """Cells sharing one data draw, run together by one worker."""

    cells: tuple[Cell, ...]

    @cached_property
    def estimated_seconds(self) -> float:
        """Estimated CPU seconds of all the task's cells."""
        return sum(cell.estimated_seconds for cell in self.cells)


_SHAPE_FACTORS: dict[tuple[object, ...], float] = {}


def shape_factor(scenario: Any, value: ParameterValue) -> float:
    """``K L / 64``: the cost of a call on ``scenario`` at ``value`` relative to the 8 factors x 8 codes its metric's
    cost was measured on (:data:`harness.execution.costs.MEASURED_SHAPE`).

    Most metrics compare every factor with every code (MI matrices, k-NN estimates per pair) or fit one model per
    factor on every code, so their cost grows about with ``K L``: one seed of the paper preset measured 1.7x its
    8 x 8 estimate on the attacks (8 x 16) and 0.3x on ``categorical`` (4 x 4), 0.64 to 1.30x with this factor.
    ``K`` and ``L`` are read from a small draw (once per scenario and value); a scenario that cannot draw one is
    estimated as 8 x 8 (its run reports the error).
    """
    identity = (scenario.name, scenario.version, scenario.label(value))
    if identity not in _SHAPE_FACTORS:
        try:
            with user_code(f"scenario {scenario.name!r}"):  # sys.exit() included
                drawn = scenario.generate(value, n=max(scenario.min_samples, 100), seed=0)
            factors, codes = drawn.factors.shape[1], drawn.codes.shape[1]
        except Exception:  # noqa: BLE001 - an estimate must never stop a plan; running the cell reports the error
            factors, codes = MEASURED_SHAPE
        _SHAPE_FACTORS[identity] = factors * codes / (MEASURED_SHAPE[0] * MEASURED_SHAPE[1])
    return _SHAPE_FACTORS[identity]


KEY_SEPARATOR = "."


def cell_key(data_identity: tuple[object, ...], metric: MetricEntry, scenario: str) -> str:
    """``IDENTITY.METRIC_CODE.SCENARIO_CODE``: a hash of what a cell computes (its data identity, the metric, its
    version and options), then the digests of the metric's and of the scenario reference's provenance
    (:func:`harness.execution.provenance.metric_provenance`, :func:`~harness.execution.provenance.scenario_provenance`;
    each computed once per process)."""
    payload = json.dumps([STUDY_FORMAT, *map(str, data_identity), metric.name, metric.fingerprint()])
    identity = hashlib.sha256(payload.encode()).hexdigest()[:24]
    code = (metric_provenance(metric.target, metric.registered).digest, scenario_provenance(scenario).digest)
    return KEY_SEPARATOR.join((identity, *code))


def key_parts(key: str) -> tuple[str, tuple[str, str] | None]:
    """A key's identity and its (metric, scenario) provenance digests; None for the key of a cell stored before keys
    held them."""
    identity, *code = key.split(KEY_SEPARATOR)
    return identity, (code[0], code[1]) if len(code) == 2 else None


def plan_cells(
    *,
    study: str,
    scenario_names: Sequence[str],
    metric_entries: Sequence[MetricEntry],
    seeds: int,
    n_samples: int,
    grids: Mapping[str, Sequence[ParameterValue]] | None = None,
    sample_sizes: Mapping[str, int] | None = None,
) -> list[Cell]:
    """Every cell of the study, data-major (cells sharing data are adjacent).

    Population metrics run on population scenarios and every other metric on the
    representation scenarios.  ``scenario_names`` are references
    (:func:`harness.execution.scenario_refs.canonical_reference`).  ``grids`` replaces the default parameter grid of the
    scenarios it names, ``sample_sizes`` (scenario name -> samples) ``n_samples`` for the scenarios it names; a
    scenario that fixes its own sample size (``default_n``) keeps it.
    """
    if seeds < 1:
        raise UsageError(f"seeds must be at least 1, got {seeds}")
    cells: list[Cell] = []
    check_one_source_per_name("scenario", [(scenario_for(name).name, name) for name in scenario_names])
    for name in scenario_names:
        scenario = scenario_for(name)
        population = scenario.kind == "population"
        entries = [entry for entry in metric_entries if entry.population == population]
        n = scenario.default_n if scenario.default_n is not None else (sample_sizes or {}).get(scenario.name, n_samples)
        if n < scenario.min_samples:
            raise UsageError(f"scenario {name!r} needs at least {scenario.min_samples} samples; got --n-samples {n}")
        variants_seen = [entry.variant_of for entry in entries]
        after_sibling = [bool(own) and own in variants_seen[:position] for position, own in enumerate(variants_seen)]
        grid = tuple(grids[name]) if grids and name in grids else scenario.values
        for value in grid:
            scenario.check_value(value)
        for index, value in enumerate(grid):
            for seed in range(seeds):
                cells.extend(Cell(study, name, value, index, seed, n, entry, scenario.kind, follows)
                             for entry, follows in zip(entries, after_sibling))
    return cells


def plan_tasks(cells: Sequence[Cell]) -> list[Task]:
    """Group cells by data draw (expensive cells apart), longest task first.

    The order among tasks of equal estimated cost is the cells' order, so a plan is
    deterministic; scores never depend on it.
    """
    draws: dict[tuple[Any, ...], list[Cell]] = {}
    for cell in cells:
        draws.setdefault(cell.data_identity, []).append(cell)
    tasks: list[Task] = []
    for draw in draws.values():
        apart = {_split_group(cell) for cell in draw if cell.estimated_seconds > OWN_TASK_SECONDS}
        groups: dict[Any, list[Cell]] = {}
        for cell in draw:  # in the draw's order, so each task runs its metrics in the study's order
            group = _split_group(cell)
            groups.setdefault(group if group in apart else None, []).append(cell)
        tasks.extend(Task(tuple(group)) for group in groups.values())
    return sorted(tasks, key=lambda task: -task.estimated_seconds)


def _split_group(cell: Cell) -> str:
    """What goes into a task with ``cell`` when one of them is expensive: its sharing family, or itself."""
    return f"family:{cell.metric.family}" if cell.metric.family in SHARING_FAMILIES else f"cell:{cell.key}"
