"""Executing a study: plan its cells, group them into tasks of one data draw, run them, persist each cell."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import metrics
import scenarios
from harness.errors import UnknownNameError, UsageError, listed, listed_names
from harness.execution.backends import check_backend, execute
from harness.execution.metric_refs import MetricEntry, OptionSweep, check_required_options, resolve_all, variants
from harness.execution.null_budget import metric_permutations, read_by_a_verdict
from harness.execution.plan import DEFAULT_CELL_LIMITS, Cell, CellLimits, plan_cells, plan_tasks, shape_factor, slow_metric_warnings
from harness.execution.presets import PRESETS, Preset
from harness.execution.progress import WorkBar
from harness.execution.racing import RACE_FILE, first_round_nulls, race, racing_rule, undecided_groups
from harness.execution.recompute import cell_provenances, recompute_reasons
from harness.execution.rows import at_defaults
from harness.execution.scoring import check_time_limit
from harness.execution.store import FAILURES_CSV, RESULTS_CSV, RESULTS_PARQUET, ResultStore, record_of, tables_of
from harness.execution.sweeps import Grid, canonical_name, checked_grid
from harness.outputs import writable_output


def plan_study(
    *,
    preset: str = "default",
    scenarios_: Sequence[str] | None = None,
    metrics_: Sequence[str] | None = None,
    seeds: int | None = None,
    n_samples: int | None = None,
    metric_options: Mapping[str, OptionSweep] | None = None,
    grids: Mapping[str, Grid] | None = None,
    add_metrics: Sequence[str] | None = None,
    null_permutations: int | None = None,
    cell_limits: CellLimits = DEFAULT_CELL_LIMITS,
) -> list[Cell]:
    """Every cell a study would run, without running anything (arguments as :func:`run_study`).

    Raises
    ------
    harness.errors.UnknownNameError
        For an unknown preset, scenario or metric (the message suggests close names).
    harness.errors.UsageError
        For an empty selection, ``add_metrics`` with ``metrics_`` or naming one of the preset's metrics, a study
        with no cells, a cell planned twice, a grid that is empty, out of
        its scenario's range or for a scenario the study does not run, or an option value of
        ``metric_options`` that its metric's declaration refuses (:func:`harness.execution.metric_refs.variants`);
        for arguments of the wrong type (a string or a number where a list of names or values goes, a function in ``metrics_``, ``seeds`` or
        ``n_samples`` that is not a whole number, ``null_permutations`` that is not a whole number >= 0); for a
        metric call estimated over ``cell_limits`` (:func:`harness.execution.plan.refuse_over_limits`).
    """
    scenarios_, metrics_, seeds, n_samples, metric_options, grids = _checked_arguments(
        scenarios_, metrics_, seeds, n_samples, metric_options, grids
    )
    null_permutations = _count(null_permutations, "null_permutations")
    if null_permutations is not None and null_permutations < 0:
        raise UsageError(f"null_permutations must be a whole number >= 0 (0: no nulls), got {null_permutations}")
    added = listed_names(add_metrics, "add_metrics")
    if preset not in PRESETS:
        raise UnknownNameError("preset", preset, PRESETS)
    config: Preset = PRESETS[preset]
    known_scenarios = [name for name in scenarios.available(kind=None) if name not in config.excluded_scenarios]
    scenario_names = _selected(scenarios_ if scenarios_ is not None else config.scenarios, known_scenarios, "scenario")
    scenario_names = [canonical_name(name) for name in scenario_names]
    grids = {canonical_name(name): values for name, values in (grids or {}).items()}
    unselected = sorted(set(grids) - set(scenario_names))
    if unselected:
        raise UsageError(f"grids given for scenario(s) the study does not run: {', '.join(unselected)}; "
                         f"it runs {', '.join(scenario_names)}")
    default_metrics = [m for m in metrics.available(population=None) if m not in config.excluded_metrics]
    metric_names = _selected(metrics_ if metrics_ is not None else config.metrics, default_metrics, "metric")
    metric_names += _additions(added, metric_names, preset, metrics_ is not None)
    preset_sweeps = config.metric_options if metrics_ is None else {}
    sweeps = metric_options or {name: sweep for name, sweep in preset_sweeps.items() if name in metric_names}
    bases = list(zip(metric_names, resolve_all(metric_names)))
    entries = _swept(bases, sweeps, axial=config.axial_sweeps and not metric_options)
    only_on = {} if metric_options else sweep_restrictions([entry for _, entry in bases], entries, config.sweep_scenarios)
    cells = plan_cells(
        study=config.name,
        scenario_names=scenario_names,
        metric_entries=entries,
        seeds=config.seeds if seeds is None else seeds,
        n_samples=config.n_samples if n_samples is None else n_samples,
        grids={**config.grids, **grids},
        sample_sizes=config.sample_sizes if n_samples is None else None,
        scenario_seeds=config.scenario_seeds if seeds is None else None,
        only_on=only_on,
        limits=cell_limits,
    )
    if not cells:
        raise UsageError(
            "the study has no cells: population metrics (e.g. udr) run only on population scenarios "
            f"({', '.join(scenarios.available(kind='population'))}) and the other metrics only on the other scenarios"
        )
    cells = _with_nulls(cells, config, null_permutations)
    keys = [cell.key for cell in cells]
    if len(set(keys)) != len(keys):
        raise UsageError("the study plans the same cell twice; check for repeated scenario or metric names")
    return cells


def _with_nulls(cells: list[Cell], config: Preset, null_permutations: int | None) -> list[Cell]:
    """The cells with their permutation nulls: ``null_permutations`` for every cell, or the preset's choice by each
    cell's estimated call cost (:func:`harness.execution.null_budget.metric_permutations` at the cell's sample size
    and shape) on the cells it gives nulls (:attr:`Preset.null_cells`); none for a population metric."""
    if null_permutations is None and config.null_budget_seconds <= 0:
        return cells
    chosen: dict[tuple[object, ...], int] = {}

    def permutations(cell: Cell) -> int:
        if null_permutations is not None:
            return 0 if cell.metric.population else null_permutations
        if config.null_cells == "verdicts" and not (read_by_a_verdict(cell.definition.criterion, cell.value)
                                                     and at_defaults(cell.metric)):
            return 0
        key = (cell.metric.name, cell.n_samples, cell.scenario, cell.value_index)
        if key not in chosen:
            rows = cell.definition.rows_at(cell.value, cell.n_samples)  # sample_size draws more than it scores
            shape = shape_factor(cell.definition, cell.value, rows, cell.metric) if cell.kind == "representation" else 1.0
            chosen[key] = metric_permutations(cell.metric, rows, config.null_budget_seconds, shape)
        return chosen[key]

    return [dataclasses.replace(cell, null_permutations=count) if (count := permutations(cell)) else cell
            for cell in cells]


def _swept(entries: Sequence[tuple[str, MetricEntry]], metric_options: Mapping[str, OptionSweep], *,
           axial: bool = False) -> list[MetricEntry]:
    """The entries with each swept metric replaced by its variants (a metric is named as selected or by its name;
    ``axial``: one option off its default at a time, :func:`harness.execution.metric_refs.variants`)."""
    unmatched = set(metric_options)
    swept: list[MetricEntry] = []
    for requested, entry in entries:
        key = requested if requested in metric_options else entry.name
        unmatched.discard(key)
        swept.extend(variants(entry, metric_options.get(key, {}), axial=axial))
    if unmatched:
        raise UsageError(f"option sweeps name metric(s) not in the study: {', '.join(sorted(unmatched))}; "
                         f"the study's metrics: {', '.join(entry.name for _, entry in entries)}")
    for entry in swept:  # a parameter nothing gives would fail every cell of the metric
        check_required_options(entry)
    return swept


def sweep_restrictions(bases: Sequence[MetricEntry], entries: Sequence[MetricEntry],
                       scenarios: Mapping[str, Sequence[str]]) -> dict[str, frozenset[str]]:
    """Variant name -> the only scenarios it runs on (:attr:`Preset.sweep_scenarios`): every variant of a metric
    named in ``scenarios`` but its default one (each option at the metric's default, as ``bases`` hold them), which
    runs on every scenario and stands for the metric there."""
    defaults = {entry.name: entry.options for entry in bases}
    restricted = {}
    for entry in entries:
        listed = scenarios.get(entry.variant_of)
        options = defaults.get(entry.variant_of, {})
        if listed is None or all(option in options and options[option] == value
                                 for option, value in entry.variant_options.items()):
            continue
        restricted[entry.name] = frozenset(listed)
    return restricted


def _count(value: Any, argument: str) -> int | None:
    """``value`` (None or a whole number) as an int; anything else is a UsageError naming ``argument``."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise UsageError(f"{argument} must be a whole number, got {value!r}")
    return int(value)


def _checked_arguments(
    scenarios_: Any, metrics_: Any, seeds: Any, n_samples: Any, metric_options: Any, grids: Any
) -> tuple[list[str] | None, list[str] | None, int | None, int | None, dict[str, dict[str, list[Any]]], dict[str, Any]]:
    """The Python arguments of :func:`plan_study` in the types it plans with, or a UsageError naming the argument."""
    names = {argument: listed_names(given, argument) for argument, given in (("scenarios_", scenarios_), ("metrics_", metrics_))}
    for argument, given in (("metric_options", metric_options), ("grids", grids)):
        if given is not None and not isinstance(given, Mapping):
            raise UsageError(f"{argument} must be a mapping, got {given!r}")
    sweeps = {}
    for metric, sweep in (metric_options or {}).items():
        if not isinstance(sweep, Mapping):
            raise UsageError(f"metric_options[{metric!r}] must map option names to lists of values, got {sweep!r}")
        sweeps[metric] = {option: listed(values, f"metric_options[{metric!r}][{option!r}]") for option, values in sweep.items()}
    checked_grids = {name: checked_grid(values, f"grids[{name!r}]") for name, values in (grids or {}).items()}
    return (names["scenarios_"], names["metrics_"], _count(seeds, "seeds"), _count(n_samples, "n_samples"), sweeps,
            checked_grids)


def _additions(added: list[str] | None, metric_names: list[str], preset: str, named: bool) -> list[str]:
    """The metrics ``add_metrics`` adds to the preset's (stripped), refused with ``metrics_`` or when already there."""
    if not added:
        return []
    if named:
        raise UsageError("--add-metrics (add_metrics=) adds metrics to the preset's; with --metrics (metrics_=) name "
                         "every metric there")
    additions = [name.strip() for name in added if name.strip()]
    repeated = sorted({name for name in additions if name in metric_names or additions.count(name) > 1})
    if repeated:
        raise UsageError(f"--add-metrics (add_metrics=): {', '.join(repeated)} "
                         + ("already among the preset's metrics" if set(repeated) & set(metric_names) else "named twice")
                         + f"; preset {preset!r} leaves out {', '.join(PRESETS[preset].excluded_metrics) or 'none'}")
    return additions


def _selected(requested: Sequence[str] | None, known: Sequence[str], kind: str) -> list[str]:
    """The requested names (None: all of ``known``), stripped; an empty selection is an error."""
    if requested is None:
        return list(known)
    names = [name.strip() for name in requested if name.strip()]
    if not names:
        raise UsageError(f"no {kind} named; known {kind}s: {', '.join(known)}")
    return names


def run_study(
    *,
    preset: str = "default",
    scenarios_: Sequence[str] | None = None,
    metrics_: Sequence[str] | None = None,
    seeds: int | None = None,
    min_seeds: int | None = None,
    max_seeds: int | None = None,
    budget_seconds: float | None = None,
    n_samples: int | None = None,
    grids: Mapping[str, Grid] | None = None,
    out: str | Path | None = None,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    cell_timeout: float | None = None,
    metric_options: Mapping[str, OptionSweep] | None = None,
    add_metrics: Sequence[str] | None = None,
    null_permutations: int | None = None,
    cell_limits: CellLimits = DEFAULT_CELL_LIMITS,
    recompute: bool = False,
    progress: bool = True,
    progress_label: str = "cells",
    log: Any = print,
) -> pd.DataFrame:
    """Plan and run a study, persisting every cell; return the tidy results table.

    Parameters
    ----------
    preset : str, default "default"
        A name from :data:`harness.execution.presets.PRESETS`; other arguments override it.
    scenarios_, metrics_ : sequence of str, optional
        Scenario names (any kind), compositions ``TRANSFORM@BASE=VALUE`` (e.g.
        ``redundancy_attack@noise=0.2``) or ``module:name`` / ``file.py:name`` references
        to a user's scenario (see :mod:`harness.execution.scenario_refs`), and metric names
        (or ``module:function`` / ``file.py:function`` references to user metrics).
        Default: the preset's, or all registered.  Population metrics run on population
        scenarios only.
    seeds : int, optional
        Independent draws per parameter value, for every scenario, fixed (default: the preset's, with its
        per-scenario :attr:`Preset.scenario_seeds`; a preset with :attr:`Preset.max_seeds` races them instead).
    min_seeds, max_seeds : int, optional
        Race the seeds (:mod:`harness.execution.racing`): every cell starts with ``min_seeds`` draws, and cells
        feeding a verdict that is still undecided get more, doubling, up to ``max_seeds``.  Default: the preset's
        race (:attr:`Preset.max_seeds`; the default preset 3 to 12), or 3 and 12 when only one of them is given.
        Not with ``seeds``.
    budget_seconds : float, optional
        A racing study's estimated CPU seconds (the cost table's estimates, so that the rounds do not depend on
        the machine): a round that would pass it is not started.  None: no budget.
    n_samples : int, optional
        Samples per representation, for every scenario (default: the preset's, with its
        per-scenario :attr:`Preset.sample_sizes`; a scenario that fixes its own keeps it).
    grids : Mapping[str, sequence or mapping], optional
        Scenario name -> parameter values to run instead of its grid in the preset (or
        its default grid); each value is checked by the scenario's ``check_value``.  Or
        scenario -> axis -> values, a two-parameter sweep (:mod:`harness.execution.sweeps`):
        ``{"dense_mixing@equicorrelated": {"kappa": [1, 10, 100], "rho": [0, 0.5, 0.9]}}`` (the
        composition named with its base value free, in ``scenarios_`` too), or
        ``{"null_gaussian": {"width_ratio": [1, 16], "n_samples": [50, 1000, 20000]}}``.
    out : path, optional
        Run directory.  Finished cells found there are reused, not recomputed, when their
        identity matches: scenario, value, seed, sample size, metric, options, versions, and
        the provenance of the code and libraries that compute them
        (:mod:`harness.execution.provenance`); a cell stored with other code is recomputed and
        ``log`` says why ("labconf.py changed", "scikit-learn 1.8.0 -> 1.9.1").
        Without it, nothing is written.  Checked before any work: an existing file, or a
        folder where nothing can be created, is a UsageError naming it.
    jobs : int, default 1
        Parallel workers, at least 1 (``-1``: all cores).
    backend : {"loky", "threading", "sequential", "dask"}
        Where tasks run (see :mod:`harness.execution.backends`).
    scheduler : str, optional
        Address of a running Dask scheduler (``backend="dask"`` only).  Without it
        the ``dask`` backend starts a local cluster of ``jobs`` workers.
    cell_timeout : float, optional
        Seconds one metric call may take; a call that runs longer is stopped and its
        cell recorded as failed ("timed out after S s").  None: no limit.  A cell's null
        runs after its call under a limit of its own, as long, for its ``B`` calls together;
        past it the score is kept without a null (see :mod:`harness.execution.scoring`).
    metric_options : mapping, optional
        Option sweeps: metric (as named in ``metrics_``, or its name) -> option ->
        values, e.g. ``{"mig": {"bins": [5, 20]}}``.  The metric runs once per
        combination, as variants named ``mig[bins=5]``, ``mig[bins=20]`` in the results.
        None or empty: the preset's sweeps (:attr:`Preset.metric_options`) when the preset
        also chooses the metrics (``metrics_`` not given); a study of named metrics runs
        them plain.
    add_metrics : sequence of str, optional
        Metrics to run besides the preset's (names or references, as in ``metrics_``), with the
        preset's sweeps: the ones a preset leaves out for cost (:attr:`Preset.excluded_metrics`,
        e.g. ``["dci_gbt"]``), or your own.  Not with ``metrics_``, nor naming one the preset runs.
    null_permutations : int, optional
        ``B``, the permutations of every score's null (:func:`metrics.permutation_null`, seeded by the data draw): the
        columns ``null_mean``, ``null_q95``, ``p_value``, ``null_permutations`` and ``null_seconds``; 0: no nulls.
        None: the preset's choice by each metric's estimated cost (:attr:`Preset.null_budget_seconds`).  ``B`` is
        part of a cell's identity: a cell stored with another ``B`` is computed again.  Population metrics have no
        null.
    cell_limits : harness.execution.plan.CellLimits, default ``DEFAULT_CELL_LIMITS``
        The most one metric call may be estimated to take, in CPU seconds (no limit by default) and memory above its
        inputs (4 GiB by default); a study with a call estimated over either is refused before anything runs, naming
        the cheapest measured variant that fits (``CellLimits(seconds=60)``: the wide-code target of issue 42).
    recompute : bool, default False
        Recompute every cell of the study even where ``out`` holds it; the new records replace
        the stored ones.
    progress : bool, default True
        Show a progress bar per round: the cells done, and the share of the estimated work done and the time left
        (:class:`harness.execution.progress.WorkBar`).
    progress_label : str, default "cells"
        The bar's label (``validate`` tells its two studies apart: the built-ins', then the user's metric's).
    log : callable
        Where one-line status messages go.

    Returns
    -------
    pandas.DataFrame
        The tidy results table of this study's cells (columns
        :data:`reports.results.schema.RESULT_COLUMNS`).  Cells whose metric raised have no rows;
        they are listed in ``frame.attrs["failures"]`` (records of
        :data:`reports.results.schema.FAILURE_COLUMNS`, also written to ``DIR/failures.csv``)
        and announced through ``log``, as is a count of the warnings metric calls raised.

    Raises
    ------
    harness.errors.UsageError
        Before any work, for what :func:`plan_study` refuses, for ``jobs``, ``cell_timeout``, ``backend`` or
        ``scheduler`` values it cannot use, and for an ``out`` that cannot be written (an existing file, a
        plain file on the way, a folder where nothing can be created); when the Dask scheduler cannot be
        reached or is not a scheduler.
    """
    if isinstance(jobs, (bool, np.bool_)) or not isinstance(jobs, (int, np.integer)) or not (jobs >= 1 or jobs == -1):
        raise UsageError(f"jobs must be a number of workers >= 1, or -1 for all cores; got {jobs!r}")
    check_execution(backend, scheduler, cell_timeout)
    if out is not None:
        if not isinstance(out, (str, os.PathLike)):
            raise UsageError(f"out must be a path to a run directory, got {out!r}")
        out = writable_output(out, "out", directory=True)
    if preset not in PRESETS:
        raise UnknownNameError("preset", preset, PRESETS)
    racing = racing_rule(_count(min_seeds, "min_seeds"), _count(max_seeds, "max_seeds"), budget_seconds,
                         fixed_seeds=_count(seeds, "seeds"), preset_seeds=PRESETS[preset].seeds,
                         preset_max_seeds=PRESETS[preset].max_seeds)
    cells = plan_study(preset=preset, scenarios_=scenarios_, metrics_=metrics_,
                       seeds=racing.max_seeds if racing is not None else seeds, n_samples=n_samples,
                       metric_options=metric_options, grids=grids, add_metrics=add_metrics,
                       null_permutations=null_permutations, cell_limits=cell_limits)
    if racing is not None:
        cells = first_round_nulls(cells, racing)
    store = ResultStore(out) if out is not None else None
    records = store.reusable_records() if store is not None else {}  # read once: to resume here, for the tables below
    retried = store.timed_out if store is not None else set()  # computed again: the time limit is this run's
    damage = ([f"note: {store.damaged} damaged line(s) of {store.path} were ignored; their cells are computed again"]
              if store is not None and store.damaged else [])  # said once, after what the first round skips
    computed: set[str] = set()  # keys computed by this run (a racing round does not recompute an earlier one's)
    studies = sorted({cell.study for cell in cells})
    rounds: list[int] = []  # the cells of each call of compute: a racing study's rounds

    def compute(active: Sequence[Cell]) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Run the cells of ``active`` that are not stored (all of them not yet computed with ``recompute``); the
        tables of ``active``."""
        keys = [cell.key for cell in active]
        pending = [cell for cell, key in zip(active, keys)
                   if key not in computed and (recompute or key not in records)]
        finished = len(active) - len(pending) - sum(key in computed for key in keys)
        if finished:
            log(f"skipping {finished} finished cell(s) found in {out}; computing {len(pending)}")
        again = sum(cell.key in retried and cell.key not in computed for cell in pending)
        if again:
            log(f"computing again {again} cell(s) that timed out before (a time limit is the run's, not the metric's)")
        while damage:
            log(damage.pop())
        if store is not None and pending:
            store.record_provenances(cell_provenances(pending))  # before any cell naming them is stored
            reasons = recompute_reasons(pending, records, store.provenances(), store.stale)
            if reasons:
                log(reasons)
        for line in slow_metric_warnings(pending):
            log(line)
        rounds.append(len(active))
        label = progress_label if len(rounds) == 1 else f"{progress_label}, round {len(rounds)}"
        with WorkBar(pending, label, enabled=progress and bool(pending)) as bar:
            for outcomes in execute(plan_tasks(pending), jobs=jobs, backend=backend, scheduler=scheduler,
                                    cell_timeout=cell_timeout, log=log):
                if store is not None:
                    store.append_many(outcomes, replace=recompute)  # one lock and one fsync per task
                for outcome in outcomes:
                    records[outcome[0]] = record_of(*outcome)  # as on disk, a key's last record wins
                bar.update(outcome[0] for outcome in outcomes)
        computed.update(keys)
        frame, failed = tables_of(records, keys)
        # a cell's key leaves its study out, so that another preset's run reuses it: its rows are this study's now
        return (frame.assign(study=studies[0]) if len(studies) == 1 and len(frame) else frame), failed

    if racing is None:
        frame, failed = compute(cells)
    else:
        record = Path(out) / RACE_FILE if out is not None and not recompute else None
        named = log if progress_label == "cells" else (  # validate races the built-ins' cells, then yours: say which
            lambda message: log(message.replace("racing:", f"racing ({progress_label}):", 1)))
        frame, failed = race(cells, racing, compute, decide=undecided_groups, log=named, record=record)
    if store is not None:
        note = _replaced_study(Path(out), frame)
        if note:
            log(note)
        store.write_tables(frame, failed)
    _announce_warnings(frame, log)
    _announce_uneven_sub_scores(frame, {cell.metric.name for cell in cells if cell.metric.population}, log)
    if len(failed):
        where = f"; see {Path(out) / FAILURES_CSV}" if out is not None else ""
        first = failed.iloc[0]
        log(
            f"warning: {len(failed)} cell(s) failed and have no scores{where}. First: {first.metric} on "
            f"{first.scenario} = {first.value_label} (seed {first.seed}, n = {first.n_samples}): {first.error}"
        )
    frame.attrs["failures"] = failed.to_dict("records")
    return frame


def _replaced_study(out: Path, frame: pd.DataFrame) -> str:
    """A note when ``out``'s results tables hold another study than ``frame`` (another preset's run there): they are
    rewritten with this one's rows, while the store keeps the cells of both; "" otherwise."""
    path = out / RESULTS_PARQUET
    try:
        before = set(map(str, pd.read_parquet(path, columns=["study"])["study"])) if path.is_file() else set()
    except (OSError, ValueError, KeyError):  # a damaged or foreign table: rewritten without a word about it
        return ""
    now = set(map(str, frame["study"]))
    if not before or not now or before == now:
        return ""
    return (f"note: {out} held the results of study {', '.join(sorted(before))}; {RESULTS_PARQUET} and {RESULTS_CSV} now "
            f"hold study {', '.join(sorted(now))}'s (the cells of both stay stored: rerun the other to rewrite them)")


def check_execution(backend: str, scheduler: str | None, cell_timeout: float | None) -> None:
    """Refuse a backend, scheduler or cell time limit a run cannot use, or cannot use together (a time limit forks a
    process per metric call, unsafe from threads): what :func:`run_study` and ``run --dry-run`` both refuse.

    Raises
    ------
    harness.errors.UsageError
        Naming the problem.
    """
    check_time_limit(cell_timeout)
    check_backend(backend, scheduler)
    if cell_timeout is not None and backend == "threading":
        raise UsageError("a cell time limit forks a process per metric call, which is unsafe from threads: "
                         "use --backend loky, sequential or dask with --cell-timeout")


def _announce_uneven_sub_scores(frame: pd.DataFrame, population: set[str], log: Any) -> None:
    """A warning per metric whose calls returned different sub-scores ({a, b} on some cells, {a, c} on others): each
    sub-score's analyses then read only the cells that returned it, and the report shows gaps without a cause.  A
    population metric (UDR), whose sub-scores follow the population's composition by design, is left out."""
    calls = frame.groupby(["metric", "scenario", "value", "seed", "n_samples"], sort=False).size()
    expected = frame.groupby("metric", sort=False)["sub_score"].nunique()
    short = calls.to_numpy() != expected.reindex(calls.index.get_level_values("metric")).to_numpy()
    for metric in dict.fromkeys(calls.index.get_level_values("metric")[short]):
        if metric in population:
            continue
        rows = frame.loc[frame["metric"] == metric]
        sets = rows.groupby(["scenario", "value", "seed", "n_samples"], sort=False)["sub_score"].agg(
            lambda names: ", ".join(sorted(names)))
        counts = sorted(sets.value_counts().items(), key=lambda pair: (-pair[1], pair[0]))  # most calls first
        described = "; ".join(f"{{{names}}} on {count} call(s)" for names, count in counts)
        log(f"warning: metric {metric!r} returned different sub-scores from one call to another: {described}; each "
            "sub-score's analyses read only the calls that returned it (return the same keys from every call)")


def _announce_warnings(frame: pd.DataFrame, log: Any) -> None:
    """One line: how many metric calls raised warnings, from which metrics, and the first message."""
    warned = frame.loc[frame["warnings"] > 0].drop_duplicates(["scenario", "value", "seed", "n_samples", "metric"])
    if warned.empty:
        return
    by_metric = warned.groupby("metric")["warnings"].sum().sort_values(ascending=False)
    names = ", ".join(f"{metric} ({int(count)})" for metric, count in by_metric.items())
    log(f"note: {int(by_metric.sum())} warning(s) raised inside metric calls were recorded with their cells "
        f"(columns warnings, first_warning): {names}. First: {warned.iloc[0]['first_warning']}")
