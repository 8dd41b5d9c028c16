"""Executing a study: cells in parallel through joblib, each persisted when done."""

from __future__ import annotations

import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
from joblib import Parallel, delayed, parallel_config
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

import metrics
import scenarios
from harness.presets import PRESETS
from harness.seeds import identity_int, identity_seed
from harness.store import ResultStore, to_frame
from harness.study import Cell, metric_entries, plan_cells, resolve_names
from harness.version import __version__
from scenarios.base import Representation

BACKENDS = ("loky", "threading", "sequential")


@lru_cache(maxsize=4)
def _representation(scenario: str, value: Any, seed: int, n_samples: int, seed_identity: tuple[object, ...]) -> Representation:
    return scenarios.get(scenario).generate(value, n=n_samples, seed=identity_seed("data", *seed_identity))


def run_cell(cell: Cell) -> list[dict[str, Any]]:
    """Generate the cell's representation and score it with the cell's metric.

    BLAS and OpenMP threads are pinned to 1 so that scores are bit-identical whatever
    the number of workers or the backend.

    Returns
    -------
    list of dict
        One results row per sub-score (see :data:`harness.store.COLUMNS`).
    """
    with threadpool_limits(limits=1):
        data = _representation(cell.scenario, cell.value, cell.seed, cell.n_samples, cell.data_identity)
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
    rows = []
    for sub_score, score in scores.items():
        prop = entry.property_of(sub_score)
        rows.append(
            {
                "study": cell.study,
                "scenario": cell.scenario,
                "parameter": scenario.parameter,
                "value": float(cell.value_index) if isinstance(cell.value, str) else float(cell.value),
                "value_label": scenario.label(cell.value),
                "seed": cell.seed,
                "n_samples": int(data.factors.shape[0]),
                "metric": entry.name,
                "family": entry.family,
                "sub_score": sub_score,
                "property": prop,
                "higher_is_better": entry.higher_is_better,
                "ideal": float(data.ideal.get(prop, np.nan)),
                "score": score,
                "seconds": seconds,
                "metric_version": entry.version,
                "harness_version": __version__,
            }
        )
    return rows


def _run_one(cell: Cell) -> tuple[str, list[dict[str, Any]]]:
    return cell.key, run_cell(cell)


def execute(cells: Sequence[Cell], *, jobs: int = 1, backend: str = "loky") -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Run cells, yielding ``(key, rows)`` as each finishes (in completion order)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
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
    progress: bool = True,
    log: Any = print,
):
    """Plan and run a study, persisting every cell; return the tidy results table.

    Parameters
    ----------
    preset : str, default "default"
        A name from :data:`harness.presets.PRESETS`; other arguments override it.
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
    backend : {"loky", "threading", "sequential"}
        joblib backend (``loky``: local worker processes).
    progress : bool, default True
        Show a progress bar.
    log : callable
        Where one-line status messages go.

    Returns
    -------
    pandas.DataFrame
        The tidy results table of this study's cells.
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    config = PRESETS[preset]
    scenario_names = resolve_names(scenarios_ if scenarios_ is not None else config.scenarios, scenarios.available(), "scenario")
    for name in scenario_names:
        scenarios.get(name)
    metric_names = resolve_names(metrics_ if metrics_ is not None else config.metrics, metrics.available(), "metric")
    entries = metric_entries(metric_names)
    cells = plan_cells(
        study=config.name,
        scenario_names=scenario_names,
        metric_entries=entries,
        seeds=config.seeds if seeds is None else seeds,
        n_samples=config.n_samples if n_samples is None else n_samples,
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
    bar = tqdm(total=len(pending), desc="cells", unit="cell", disable=not progress or not pending)
    try:
        for key, rows in execute(pending, jobs=jobs, backend=backend):
            if store is not None:
                store.append(key, rows)
            collected[key] = rows
            bar.update(1)
    finally:
        bar.close()
    if store is None:
        return to_frame([row for key in keys for row in collected[key]])
    frame = store.table(keys)
    store.write_tables(frame)
    return frame
