"""Executing a study: cells in parallel through joblib, each persisted when done."""

from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, parallel_config
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

import metrics
import scenarios
from harness.execution.backends import BACKENDS, dask_client, local_workers
from harness.execution.presets import PRESETS
from harness.execution.seeds import identity_int, identity_seed
from harness.execution.store import FAILURE_COLUMNS, FAILURES_CSV, ResultStore, to_frame
from harness.execution.population_cells import PopulationCell, plan_population_cells, run_population_cell
from harness.execution.rows import result_row
from harness.execution.plan import Cell, metric_entries, plan_cells, resolve_names
from scenarios.base import Representation, value_label

Outcome = tuple[str, list[dict[str, Any]], dict[str, Any] | None]
"""What a finished cell gives back: its key, its rows, and a failure record or None."""


@lru_cache(maxsize=4)
def _representation(scenario: str, value: Any, n_samples: int, seed_identity: tuple[object, ...]) -> Representation:
    return scenarios.get(scenario).generate(value, n=n_samples, seed=identity_seed("data", *seed_identity))


def run_cell(cell: Cell) -> list[dict[str, Any]]:
    """Generate the cell's representation and score it with the cell's metric.

    BLAS and OpenMP threads are pinned to 1 so that scores are bit-identical whatever
    the number of workers or the backend.

    Returns
    -------
    list of dict
        One results row per sub-score (see :data:`harness.execution.store.COLUMNS`).
    """
    with threadpool_limits(limits=1):
        data = _representation(cell.scenario, cell.value, cell.n_samples, cell.seed_identity)
        entry = cell.metric
        random_state = identity_int("metric", *cell.data_identity, entry.name)
        started = time.perf_counter()
        scores = metrics.evaluate(
            entry.callable(),
            data.factors,
            data.codes,
            discrete=data.discrete,
            random_state=random_state if entry.stochastic or not entry.registered else None,
            **(dict(entry.options) if entry.registered else {}),
        )
        seconds = time.perf_counter() - started
    scenario = scenarios.get(cell.scenario)
    return [
        result_row(
            study=cell.study,
            scenario=cell.scenario,
            parameter=scenario.parameter,
            value=cell.value,
            value_index=cell.value_index,
            value_label=scenario.label(cell.value),
            seed=cell.seed,
            n_samples=data.factors.shape[0],
            metric=entry,
            sub_score=sub_score,
            prop=entry.property_of(sub_score),
            ideal=data.ideal.get(entry.property_of(sub_score), np.nan),
            score=score,
            seconds=seconds,
        )
        for sub_score, score in scores.items()
    ]


def _run_one(cell: Cell | PopulationCell) -> Outcome:
    """Run a cell; a metric that raises makes a failed cell, not a failed study."""
    try:
        rows = run_population_cell(cell) if isinstance(cell, PopulationCell) else run_cell(cell)
    except Exception as error:  # any metric, built-in or the user's, may fail on some data
        failure = {
            "scenario": cell.scenario,
            "value_label": value_label(cell.value),
            "seed": cell.seed,
            "n_samples": cell.n_samples,
            "metric": cell.metric.name,
            "error": f"{type(error).__name__}: {error}",
        }
        return cell.key, [], failure
    return cell.key, rows, None


def execute(
    cells: Sequence[Cell | PopulationCell], *, jobs: int = 1, backend: str = "loky", scheduler: str | None = None
) -> Iterator[Outcome]:
    """Run cells, yielding ``(key, rows, failure)`` as each finishes (in completion order).

    Parameters
    ----------
    cells : sequence of Cell or PopulationCell
        The cells to run.
    jobs : int, default 1
        Local workers (``-1``: all cores).  With ``backend="dask"`` and a
        ``scheduler``, the cluster's own workers are used and ``jobs`` is ignored.
    backend : {"loky", "threading", "sequential", "dask"}
        See :mod:`harness.execution.backends`.
    scheduler : str, optional
        Dask scheduler address (``backend="dask"`` only); without it a local cluster
        of ``jobs`` worker processes is started and closed afterwards.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise ValueError(f"a scheduler address is only used by backend 'dask', not {backend!r}")
    if backend == "dask":
        if cells:
            with dask_client(scheduler, workers=local_workers(jobs, len(cells))) as client:
                with parallel_config(backend="dask", client=client):
                    yield from Parallel(return_as="generator_unordered", batch_size=1)(delayed(_run_one)(cell) for cell in cells)
        return
    if jobs == 1 or backend == "sequential" or len(cells) <= 1:
        for cell in cells:
            yield _run_one(cell)
        return
    with parallel_config(backend=backend, n_jobs=jobs):
        yield from Parallel(return_as="generator_unordered", batch_size=1)(delayed(_run_one)(cell) for cell in cells)


def run_study(
    *,
    preset: str = "default",
    scenarios_: Sequence[str] | None = None,
    metrics_: Sequence[str] | None = None,
    seeds: int | None = None,
    n_samples: int | None = None,
    out: str | Path | None = None,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: bool = True,
    log: Any = print,
):
    """Plan and run a study, persisting every cell; return the tidy results table.

    Parameters
    ----------
    preset : str, default "default"
        A name from :data:`harness.execution.presets.PRESETS`; other arguments override it.
    scenarios_, metrics_ : sequence of str, optional
        Scenario names and metric names (or ``module:function`` / ``file.py:function``
        references to user metrics).  Default: the preset's, or all registered.
    seeds : int, optional
        Independent draws per parameter value.
    n_samples : int, optional
        Samples per representation.
    out : path, optional
        Run directory.  Finished cells found there are reused, not recomputed.
        Without it, nothing is written.
    jobs : int, default 1
        Parallel workers (``-1``: all cores).
    backend : {"loky", "threading", "sequential", "dask"}
        joblib backend (``loky``: local worker processes; ``dask``: a Dask
        distributed cluster, see :mod:`harness.execution.backends`).
    scheduler : str, optional
        Address of a running Dask scheduler (``backend="dask"`` only).  Without it
        the ``dask`` backend starts a local cluster of ``jobs`` workers.
    progress : bool, default True
        Show a progress bar.
    log : callable
        Where one-line status messages go.

    Returns
    -------
    pandas.DataFrame
        The tidy results table of this study's cells.  Cells whose metric raised have
        no rows; they are listed in ``frame.attrs["failures"]`` (records of
        :data:`harness.execution.store.FAILURE_COLUMNS`, also written to ``DIR/failures.csv``)
        and announced through ``log``.
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    config = PRESETS[preset]
    known_scenarios = scenarios.available() + scenarios.available_populations()
    scenario_names = resolve_names(scenarios_ if scenarios_ is not None else config.scenarios, known_scenarios, "scenario")
    unknown = [name for name in scenario_names if name not in known_scenarios]
    if unknown:
        raise KeyError(f"unknown scenario {unknown[0]!r}; known scenarios: {', '.join(known_scenarios)}")
    default_metrics = [m for m in metrics.available(population=None) if m not in config.excluded_metrics]
    metric_names = resolve_names(metrics_ if metrics_ is not None else config.metrics, default_metrics, "metric")
    entries = metric_entries(metric_names)
    population_metrics = {m for m in metrics.available(population=True)}
    plan = dict(
        study=config.name,
        seeds=config.seeds if seeds is None else seeds,
        n_samples=config.n_samples if n_samples is None else n_samples,
    )
    cells: list[Cell | PopulationCell] = [
        *plan_cells(
            scenario_names=[s for s in scenario_names if s in scenarios.available()],
            metric_entries=[e for e in entries if e.target not in population_metrics],
            grids=config.grids,
            **plan,
        ),
        *plan_population_cells(
            scenario_names=[s for s in scenario_names if s not in scenarios.available()],
            metric_entries=[e for e in entries if e.target in population_metrics],
            **plan,
        ),
    ]
    if not cells:
        raise ValueError(
            "the study has no cells: population metrics (e.g. udr) run only on population scenarios "
            f"({', '.join(scenarios.available_populations())}) and the other metrics only on the other scenarios"
        )
    keys = [cell.key for cell in cells]
    if len(set(keys)) != len(keys):
        raise ValueError("the study plans the same cell twice; check for repeated scenario or metric names")
    store = ResultStore(out) if out is not None else None
    done = set(store.cells()) if store is not None else set()
    pending = [cell for cell in cells if cell.key not in done]
    finished = len(cells) - len(pending)
    if finished:
        log(f"skipping {finished} finished cell(s) found in {out}; computing {len(pending)}")
    collected: dict[str, list[dict[str, Any]]] = {}
    failures: list[dict[str, Any]] = []
    bar = tqdm(total=len(pending), desc="cells", unit="cell", disable=not progress or not pending)
    try:
        for key, rows, failure in execute(pending, jobs=jobs, backend=backend, scheduler=scheduler):
            if store is not None:
                store.append(key, rows, failure)
            collected[key] = rows
            if failure is not None:
                failures.append(failure)
            bar.update(1)
    finally:
        bar.close()
    if store is None:
        frame = to_frame([row for key in keys for row in collected[key]])
        failed = pd.DataFrame(failures, columns=list(FAILURE_COLUMNS))
    else:
        frame = store.table(keys)
        failed = store.failures(keys)
        store.write_tables(frame, failed)
    if len(failed):
        where = f"; see {Path(out) / FAILURES_CSV}" if out is not None else ""
        first = failed.iloc[0]
        log(
            f"warning: {len(failed)} cell(s) failed and have no scores{where}. First: {first.metric} on "
            f"{first.scenario} = {first.value_label} (seed {first.seed}, n = {first.n_samples}): {first.error}"
        )
    frame.attrs["failures"] = failed.to_dict("records")
    return frame
