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

import functools
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.errors import UsageError, check_one_source_per_name
from harness.execution.costs import (
    MEASURED_SHAPE,
    SHARING_FAMILIES,
    estimated_peak_bytes,
    estimated_seconds,
    measured_floor_seconds,
    measured_variants,
    shape_cost,
)
from harness.execution.metric_refs import MetricEntry
from harness.execution.provenance import metric_provenance, scenario_provenance
from harness.execution.scenario_refs import scenario_for
from harness.execution.sweeps import N_AXIS, Grid, study_slices
from harness.execution.user_code import user_code
from scenarios.base import ParameterValue

STUDY_FORMAT = "3"  # bump when the meaning of a cell changes for every metric (2: rows gained criterion and warnings; 3: exact)

OWN_TASK_SECONDS = 5.0
"""A cell estimated to take longer than this runs in a task of its own (or of its sharing family's)."""

# SHARING_FAMILIES (harness.execution.costs): their metrics reuse each other's estimates within a draw, and so are
# never split apart (the PID bounds at n = 100000 estimate over 5 s; alone in a task, UniBound, RMIG and the others
# would recompute them).


class cached_property:  # noqa: N801 - named as the functools decorator it replaces
    """``functools.cached_property`` without its lock: Python 3.11's takes a lock on each first access, 4 of the 16
    CPU-s of planning the paper preset at 100 seeds (549200 cells, two cached attributes each).  A plan is built in
    one thread.  A non-data descriptor, as functools': once computed, the value in the object's ``__dict__`` is read
    instead (a frozen dataclass too: the descriptor writes its ``__dict__``, not through ``__setattr__``)."""

    def __init__(self, function: Callable[[Any], Any]) -> None:
        self.function = function
        self.__doc__ = function.__doc__
        self.name = function.__name__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.function(instance)
        return value


@dataclass(frozen=True)
class Cell:
    """One unit of result: a metric on one generated representation or population.

    Its identities, key and estimate are computed once per object (a plan holds many
    cells; the paper preset 705,200).

    ``kind`` is the scenario's: ``"representation"`` (one code matrix, any metric but
    population ones) or ``"population"`` (several code matrices, population metrics).
    ``scenario`` is a reference that every worker resolves
    (:func:`harness.execution.scenario_refs.scenario_for`): a registered name, a
    composition or a user's ``file.py:name``.  ``sweep`` and ``sweep_axis`` name the
    two-parameter sweep the cell belongs to and its second axis (:mod:`harness.execution.sweeps`);
    empty for a cell of a one-parameter sweep.
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
    sweep: str = ""
    sweep_axis: str = ""
    null_permutations: int = 0  # B of the score's permutation null (0: none); part of the key
    earlier_family: tuple[tuple[str, str], ...] = ()  # (name, variant_of) of the metrics of its sharing family before it
    # The estimates of the calls of the cells of one plan, by what they read (:attr:`_cost_identity`): shared by the
    # plan's cells, so that a call's estimate is computed once for all its seeds (the paper preset: 100 of them).
    estimates: dict[tuple[object, ...], float] | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def _prefix(self) -> tuple[object, ...]:
        return ("population",) if self.kind == "population" else ()

    @property
    def definition(self) -> Any:
        """The scenario the reference resolves to (cached per process)."""
        return scenario_for(self.scenario)

    @cached_property
    def data_identity(self) -> tuple[object, ...]:
        """What determines the generated data: the scenario's name (not where a user's file lies), version, value;
        and the two-parameter sweep that seeds it, where one does (:attr:`seed_identity`)."""
        scenario = self.definition
        own = (*self._prefix, scenario.name, scenario.version, scenario.label(self.value), self.seed, self.n_samples)
        return (*own, "sweep", self.sweep, self.sweep_axis) if self.sweep else own

    @property
    def seed_identity(self) -> tuple[object, ...]:
        """What seeds the generated data: the data identity *without* the parameter value.

        For a given seed index every value of the swept parameter transforms the same
        random draw (common random numbers, as in the review's protocol where one set
        of factor samples is reused along each sweep).  Curves are then smooth in the
        parameter, ``partial`` keeps its codes as ``k`` falls, and ``sample_size``'s
        smaller samples are prefixes of the largest.  In a two-parameter sweep neither swept value seeds the draw:
        the sweep's name replaces the scenario's (a slice's name holds its base value), and a swept sample size is
        left out (:mod:`harness.execution.sweeps`).
        """
        scenario = self.definition
        if self.sweep:
            size = () if self.sweep_axis == N_AXIS else (self.n_samples,)
            return (*self._prefix, "sweep", self.sweep, scenario.version, self.seed, *size)
        return (*self._prefix, scenario.name, scenario.version, self.seed, self.n_samples)

    @cached_property
    def key(self) -> str:
        """Stable identity of the cell's computation, code and libraries included (:func:`cell_key`)."""
        return cell_key(self.data_identity, self.metric, self.scenario, self.null_permutations)

    @cached_property
    def estimated_call_seconds(self) -> float:
        """The estimated CPU seconds of the metric call (see :mod:`harness.execution.costs`): what its metric adds to
        the estimates of the metrics of its family before it on the draw, scaled by its representation's shape
        (:func:`shape_factor`).  The same for every seed: the cells of one plan share it through :attr:`estimates`."""
        if self.estimates is None:
            return self._call_seconds()
        identity = self._cost_identity
        if identity not in self.estimates:
            self.estimates[identity] = self._call_seconds()
        return self.estimates[identity]

    @property
    def _cost_identity(self) -> tuple[object, ...]:
        """What the estimate of the call reads: everything of the cell but its seed, its study and its null."""
        return (self.kind, self.scenario, self.definition.label(self.value), self.n_samples, self.metric.name,
                self.metric.fingerprint(), self.after_sibling, self.earlier_family)

    def _call_seconds(self) -> float:
        rows = self.definition.rows_at(self.value, self.n_samples)
        shared = self.metric.registered and self.metric.family in SHARING_FAMILIES
        seconds = estimated_seconds(self.metric.name, rows, registered=self.metric.registered,
                                    variant_of=self.metric.variant_of, after_sibling=self.after_sibling,
                                    earlier=self.earlier_family if shared else None)
        if self.kind != "representation":
            return seconds
        return seconds * shape_factor(self.definition, self.value, rows, self.metric)

    @property
    def estimated_null_seconds(self) -> float:
        """The estimated CPU seconds of the permutation null: ``B`` calls on permuted codes, each about the cost of
        the call (measured: 0.3 to 1.5 times, the information metrics sharing each permutation's tables as they share
        the codes')."""
        return self.null_permutations * self.estimated_call_seconds

    @property
    def estimated_seconds(self) -> float:
        """The cell's estimated CPU seconds: the call and its permutation null."""
        return self.estimated_call_seconds + self.estimated_null_seconds


@dataclass(frozen=True)
class Task:
    """Cells sharing one data draw, run together by one worker."""

    cells: tuple[Cell, ...]

    @cached_property
    def estimated_seconds(self) -> float:
        """Estimated CPU seconds of all the task's cells."""
        return sum(cell.estimated_seconds for cell in self.cells)


_SHAPES: dict[tuple[object, ...], tuple[int, int]] = {}


def representation_shape(scenario: Any, value: ParameterValue) -> tuple[int, int]:
    """``(K, L)``, factors and codes of ``scenario`` at ``value``, read from a small draw (once per scenario and value); a
    scenario that cannot draw one reads as the measured 8 x 8 (its run reports the error)."""
    identity = (scenario.name, scenario.version, scenario.label(value))
    if identity not in _SHAPES:
        try:
            with user_code(f"scenario {scenario.name!r}"):  # sys.exit() included
                drawn = scenario.generate(value, n=max(scenario.min_samples, 100), seed=0)
            _SHAPES[identity] = (drawn.factors.shape[1], drawn.codes.shape[1])
        except Exception:  # noqa: BLE001 - an estimate must never stop a plan; running the cell reports the error
            _SHAPES[identity] = MEASURED_SHAPE
    return _SHAPES[identity]


def shape_factor(scenario: Any, value: ParameterValue, n_samples: int, metric: MetricEntry | None = None) -> float:
    """The cost of a call of ``metric`` on ``n_samples`` samples of ``scenario`` at ``value`` relative to the 8 factors x
    8 codes its cost was measured on (:data:`harness.execution.costs.MEASURED_SHAPE`): ``K / 8`` times the metric's
    measured growth with the number of codes at that sample size (:func:`harness.execution.costs.width_factor`; linear
    without a metric).

    Most metrics compare every factor with every code (MI matrices, k-NN estimates per pair) or fit one model per
    factor on every code, so their cost grows about with ``K L``: one seed of the paper preset measured 1.7x its
    8 x 8 estimate on the attacks (8 x 16) and 0.3x on ``categorical`` (4 x 4), 0.64 to 1.30x with ``K L / 64``.
    Some grow faster in ``L`` (MISJED, Do and Tran's metrics), some slower (a fixed cost per call), as measured.
    """
    factors, codes = representation_shape(scenario, value)
    if metric is None:
        return factors * codes / (MEASURED_SHAPE[0] * MEASURED_SHAPE[1])
    return shape_cost(metric.name, factors, codes, n_samples, registered=metric.registered, variant_of=metric.variant_of)


SLOW_CELL_SECONDS = 3600.0
"""A cell estimated to take longer than this gets its metric named at plan time (:func:`slow_metric_warnings`)."""


def slow_metric_warnings(cells: Sequence[Cell], threshold: float = SLOW_CELL_SECONDS) -> list[str]:
    """One line per metric with a cell estimated above ``threshold`` CPU seconds: its costliest cell, its estimated
    CPU-hours, and the ``--metrics`` that leave it (and the other slow ones) out.

    Checked before anything runs, so that a study of wide codes at large ``n`` does not start hours of k-NN estimates
    unannounced (rmig on 10 factors x 512 codes at n = 100000: 5120 Kraskov estimates).
    """
    worst: dict[str, Cell] = {}
    for cell in cells:
        name = cell.metric.name
        if cell.estimated_seconds > threshold and (name not in worst or cell.estimated_seconds > worst[name].estimated_seconds):
            worst[name] = cell
    if not worst:
        return []
    slow_targets = {cell.metric.target for cell in worst.values()}
    kept = list(dict.fromkeys(cell.metric.target for cell in cells if cell.metric.target not in slow_targets))
    leave_out = f"--metrics {','.join(kept)}" if kept else "other --metrics"
    lines = []
    for name, cell in sorted(worst.items(), key=lambda item: -item[1].estimated_seconds):
        factors, codes = representation_shape(cell.definition, cell.value) if cell.kind == "representation" else (0, 0)
        shape = f", {factors} factors x {codes} codes" if factors else ""
        where = f"({cell.scenario} = {cell.definition.label(cell.value)}, n = {cell.n_samples}{shape})"
        if cell.estimated_null_seconds > cell.estimated_call_seconds:  # B is what makes it costly, not the metric
            lines.append(f"warning: {name}'s permutation null of {cell.null_permutations} permutations is estimated at "
                         f"{cell.estimated_null_seconds / 3600:.1f} CPU-hours a cell {where}, the call itself "
                         f"{cell.estimated_call_seconds:.1f} CPU-s; give fewer with --null-permutations B (0: none)")
        else:
            lines.append(f"warning: {name} is estimated at {cell.estimated_seconds / 3600:.1f} CPU-hours a cell "
                         f"{where}; leave it out with {leave_out}")
    return lines


@dataclass(frozen=True)
class CellLimits:
    """The most one metric call of a study may be estimated to take, checked when it is planned
    (:func:`refuse_over_limits`).

    Attributes
    ----------
    seconds : float or None
        CPU seconds of the call (its permutation null aside); None: no limit.
    memory_bytes : float or None
        Bytes the call allocates above its inputs (the draw, which the metrics of a draw share; float64, ``8 n (K + L)``
        bytes); None: no limit.
    """

    seconds: float | None = None
    memory_bytes: float | None = None


DEFAULT_CELL_LIMITS = CellLimits(seconds=None, memory_bytes=4 * 2**30)
"""No limit on a call's estimated time (a slow call is announced, :func:`slow_metric_warnings`: the user may mean it)
and 4 GiB on its estimated memory above its inputs (a worker past the machine's memory dies, which nobody means).
``run --max-cell-seconds S --max-cell-memory GIB`` and ``plan_study``'s and ``run_study``'s ``cell_limits`` set
others."""

#: The command-line options that set the limits, named by a refusal.
LIMIT_OPTIONS = "--max-cell-seconds S, --max-cell-memory GIB"


def refuse_over_limits(cells: Sequence[Cell], limits: CellLimits) -> None:
    """Refuse, in one line, a study with a metric call estimated above ``limits``.

    Only registered metrics on representations are checked, the calls alone (a permutation null is ``B`` calls the
    user asked for): their time as :attr:`Cell.estimated_call_seconds` or, where more, the wide-code measurement's
    floor (:func:`harness.execution.costs.measured_floor_seconds`), their memory above their inputs as
    :func:`harness.execution.costs.estimated_peak_bytes` (the wide-code measurement's model; a metric it lacks is not
    checked for memory).  The line names each metric over a limit at its costliest cell, with its estimated CPU time
    and memory, and the cheapest measured variant of it that fits both limits there, where one does
    (:func:`harness.execution.costs.measured_variants`: the Gaussian estimator for the k-NN information metrics).

    Raises
    ------
    harness.errors.UsageError
        For a call estimated over a limit.
    """
    if limits.seconds is None and limits.memory_bytes is None:
        return
    worst: dict[str, tuple[float, Cell, float, float | None]] = {}
    for cell in cells:
        if cell.kind != "representation" or not cell.metric.registered:
            continue
        over, seconds, peak = _over_limits(cell, limits)
        if over > 1 and over > worst.get(cell.metric.name, (0.0,))[0]:
            worst[cell.metric.name] = (over, cell, seconds, peak)
    if worst:
        refused = "; ".join(_refusal(cell, seconds, peak, limits)
                            for _, cell, seconds, peak in sorted(worst.values(), key=lambda item: -item[0]))
        raise UsageError(f"metric calls estimated over the limits of a call ({_limits_text(limits)}; raise them with "
                         f"{LIMIT_OPTIONS}): {refused}")


def _over_limits(cell: Cell, limits: CellLimits) -> tuple[float, float, float | None]:
    """How far the cell's call is over ``limits`` (its largest ratio to a limit; over 1 when over one), its
    estimated CPU seconds and its estimated bytes above its inputs (None: not measured)."""
    rows = cell.definition.rows_at(cell.value, cell.n_samples)
    factors, codes = representation_shape(cell.definition, cell.value)
    metric = cell.metric
    peak = estimated_peak_bytes(metric.name, codes, rows, variant_of=metric.variant_of)
    over = peak / limits.memory_bytes if peak is not None and limits.memory_bytes is not None else 0.0
    if limits.seconds is None and over <= 1:
        return over, 0.0, peak  # its time is not asked for
    seconds = max(cell.estimated_call_seconds,
                  measured_floor_seconds(metric.name, factors, codes, rows, variant_of=metric.variant_of))
    return max(over, seconds / limits.seconds if limits.seconds is not None else 0.0), seconds, peak


def _refusal(cell: Cell, seconds: float, peak: float | None, limits: CellLimits) -> str:
    """One metric's part of a refusal: its estimate at its costliest cell and the cheapest measured variant that
    fits there."""
    factors, codes = representation_shape(cell.definition, cell.value)
    rows = cell.definition.rows_at(cell.value, cell.n_samples)
    where = (f"{cell.scenario} = {cell.definition.label(cell.value)}, n = {rows}, {factors} factors x {codes} codes")
    text = f"{cell.metric.name} {_cost_text(seconds, peak)} ({where})"
    metric = cell.metric.variant_of or cell.metric.name
    fitting = fitting_variant(metric, factors, codes, rows, limits, besides=cell.metric.name)
    if fitting is None:
        return f"{text}, no measured variant of it fits"
    variant, variant_seconds, variant_peak = fitting
    return f"{text}, {variant} fits ({_cost_text(variant_seconds, variant_peak)}: {variant_options(metric, variant)})"


def call_estimate(metric: str, factors: int, codes: int, rows: int, *, variant_of: str = "") -> tuple[float, float | None]:
    """A registered metric's (or measured variant's) call alone, nothing shared, on ``factors`` x ``codes`` codes of
    ``rows`` samples: estimated CPU seconds (at least a measured call's, :func:`harness.execution.costs.
    measured_floor_seconds`) and bytes above its inputs (None: not measured)."""
    seconds = max(estimated_seconds(metric, rows, variant_of=variant_of, earlier=())
                  * shape_cost(metric, factors, codes, rows, variant_of=variant_of),
                  measured_floor_seconds(metric, factors, codes, rows, variant_of=variant_of))
    return seconds, estimated_peak_bytes(metric, codes, rows, variant_of=variant_of)


def fitting_variant(metric: str, factors: int, codes: int, rows: int, limits: CellLimits,
                    besides: str = "") -> tuple[str, float, float] | None:
    """The measured variant of ``metric`` (:func:`harness.execution.costs.measured_variants`, but ``besides``) that is
    estimated cheapest among those within both ``limits`` on that shape, with its estimated CPU seconds and bytes; None
    where none fits (a variant whose memory nobody measured is not known to)."""
    fitting = []
    for variant in measured_variants(metric):
        seconds, peak = call_estimate(variant, factors, codes, rows, variant_of=metric)
        if (variant != besides and peak is not None and (limits.seconds is None or seconds <= limits.seconds)
                and (limits.memory_bytes is None or peak <= limits.memory_bytes)):
            fitting.append((seconds, variant, peak))
    if not fitting:
        return None
    seconds, variant, peak = min(fitting)
    return variant, seconds, peak


def variant_options(metric: str, variant: str) -> str:
    """The ``--metric-option`` flags that run ``variant`` (``pid[estimator=gaussian]``) of ``metric``."""
    return " ".join(f"--metric-option {metric}:{option}" for option in variant[len(metric) + 1:-1].split(","))


def _cost_text(seconds: float, peak: float | None) -> str:
    """An estimated call as a refusal states it: ``5.2 CPU-hours, 0.8 GiB``."""
    memory = f"{peak / 2**30:.2g} GiB" if peak is not None else "memory not measured"
    return f"{cpu_time_text(seconds)}, {memory}"


def cpu_time_text(seconds: float) -> str:
    """CPU seconds as a refusal states them: ``12 CPU-s``, ``40 CPU-min``, ``5.2 CPU-hours``."""
    if seconds < 120:
        return f"{seconds:.2g} CPU-s" if seconds < 10 else f"{seconds:.0f} CPU-s"
    return f"{seconds / 60:.0f} CPU-min" if seconds < 7200 else f"{seconds / 3600:.1f} CPU-hours"


def _limits_text(limits: CellLimits) -> str:
    parts = ([cpu_time_text(limits.seconds)] if limits.seconds is not None else []) + (
        [f"{limits.memory_bytes / 2**30:g} GiB above its inputs"] if limits.memory_bytes is not None else [])
    return " and ".join(parts)


KEY_SEPARATOR = "."
#: Between a key's identity hash and the number of permutations of its null (``~null100``; none without a null).
NULL_MARK = "~null"


def cell_key(data_identity: tuple[object, ...], metric: MetricEntry, scenario: str, null_permutations: int = 0) -> str:
    """``IDENTITY.METRIC_CODE.SCENARIO_CODE``: a hash of what a cell computes (its data identity, the metric, its
    version and options), followed by ``~nullB`` when the cell computes a permutation null of ``B`` permutations (so
    a cell stored with another ``B`` is computed again, and one stored without a null keeps its key), then the digests
    of the metric's and of the scenario reference's provenance (:func:`harness.execution.provenance.metric_provenance`,
    :func:`~harness.execution.provenance.scenario_provenance`; each computed once per process)."""
    payload = f"{_identity_json(data_identity)}, {_metric_json(metric.name, metric.fingerprint())}]"
    identity = hashlib.sha256(payload.encode()).hexdigest()[:24] + (f"{NULL_MARK}{null_permutations}" if null_permutations else "")
    code = (metric_provenance(metric.target, metric.registered, metric.environment).digest,
            scenario_provenance(scenario).digest)
    return KEY_SEPARATOR.join((identity, *code))


@functools.lru_cache(maxsize=1 << 16)
def _identity_json(data_identity: tuple[object, ...]) -> str:
    """The opening of a cell key's JSON payload, up to its metric: shared by every metric of a draw."""
    return json.dumps([STUDY_FORMAT, *map(str, data_identity)])[:-1]


@functools.lru_cache(maxsize=1 << 12)
def _metric_json(name: str, fingerprint: str) -> str:
    """The metric's part of a cell key's JSON payload, without the brackets (``json.dumps`` of a list joins its items
    with ``", "``, so the payload is the one JSON list it always was)."""
    return json.dumps([name, fingerprint])[1:-1]


def null_part(identity: str) -> tuple[str, int]:
    """A key's identity (:func:`key_parts`) without its null's mark, and the null's ``B`` (0 for none)."""
    bare, _, permutations = identity.partition(NULL_MARK)
    return bare, int(permutations) if permutations else 0


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
    grids: Mapping[str, Grid] | None = None,
    sample_sizes: Mapping[str, int] | None = None,
    scenario_seeds: Mapping[str, int] | None = None,
    only_on: Mapping[str, frozenset[str]] | None = None,
    limits: CellLimits = DEFAULT_CELL_LIMITS,
) -> list[Cell]:
    """Every cell of the study, data-major (cells sharing data are adjacent); a study with a metric call estimated
    over ``limits`` is refused (:func:`refuse_over_limits`).

    Population metrics run on population scenarios and every other metric on the
    representation scenarios.  ``scenario_names`` are references
    (:func:`harness.execution.scenario_refs.canonical_reference`), or free compositions ``TRANSFORM@BASE``.
    ``grids`` replaces the default parameter grid of the scenarios it names, or sweeps two parameters
    (:func:`harness.execution.sweeps.study_slices`); ``sample_sizes`` (scenario name -> samples) replaces
    ``n_samples`` for the scenarios it names, a sweep's ``n_samples`` axis for its scenario; a scenario that fixes its
    own sample size (``default_n``) keeps it.  ``scenario_seeds`` (scenario name -> seeds) replaces ``seeds`` for the
    scenarios it names.  ``only_on`` (metric entry name -> scenario names) runs the entries it
    names on those scenarios only (a preset's sweep restricted to where it decides).
    """
    for count in (seeds, *(scenario_seeds or {}).values()):
        if count < 1:
            raise UsageError(f"seeds must be at least 1, got {count}")
    cells: list[Cell] = []
    estimates: dict[tuple[object, ...], float] = {}
    slices = study_slices(scenario_names, grids)
    check_one_source_per_name("scenario", [(scenario_for(part.scenario).name, part.scenario) for part in slices])
    for part in slices:
        scenario = scenario_for(part.scenario)
        population = scenario.kind == "population"
        entries = [entry for entry in metric_entries if entry.population == population
                   and scenario.name in (only_on or {}).get(entry.name, {scenario.name})]
        n = scenario.default_n if scenario.default_n is not None else (sample_sizes or {}).get(scenario.name, n_samples)
        if n < scenario.min_samples and not part.sample_sizes:
            raise UsageError(f"scenario {part.scenario!r} needs at least {scenario.min_samples} samples; got --n-samples {n}")
        variants_seen = [entry.variant_of for entry in entries]
        after_sibling = [bool(own) and own in variants_seen[:position] for position, own in enumerate(variants_seen)]
        earlier = [tuple((other.name, other.variant_of) for other in entries[:position] if other.registered
                         and other.family == entry.family) for position, entry in enumerate(entries)]
        for value in part.values:
            scenario.check_value(value)
        for index, value in enumerate(part.values):
            for size in part.sample_sizes or (n,):
                for seed in range((scenario_seeds or {}).get(scenario.name, seeds)):
                    cells.extend(Cell(study, part.scenario, value, index, seed, size, entry, scenario.kind, follows,
                                      part.sweep, part.axis, earlier_family=before, estimates=estimates)
                                 for entry, follows, before in zip(entries, after_sibling, earlier))
    refuse_over_limits([cell for cell in cells if cell.seed == 0], limits)  # a call's estimate: any seed's
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
