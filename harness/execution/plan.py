"""Planning a study: the grid of independent cells.

A cell is one metric on one representation: (scenario, parameter value, seed index,
sample size, metric).  Its key is a hash of that identity plus the scenario's and
the metric's versions and options, so cached results are reused only when the
computation would be identical.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Mapping, Sequence

import scenarios
from harness.execution.metric_refs import MetricEntry, resolve
from scenarios.base import ParameterValue

STUDY_FORMAT = "1"  # bump when the meaning of a cell changes for every metric


@dataclass(frozen=True)
class Cell:
    """One unit of work: a metric on one generated representation."""

    study: str
    scenario: str
    value: ParameterValue
    value_index: int
    seed: int
    n_samples: int
    metric: MetricEntry

    @property
    def data_identity(self) -> tuple[object, ...]:
        """What determines the generated data (and its seed)."""
        scenario = scenarios.get(self.scenario)
        return (self.scenario, scenario.version, scenario.label(self.value), self.seed, self.n_samples)

    @property
    def seed_identity(self) -> tuple[object, ...]:
        """What seeds the generated data: the data identity *without* the parameter value.

        For a given seed index every value of the swept parameter transforms the same
        random draw (common random numbers, as in the review's protocol where one set
        of factor samples is reused along each sweep).  Curves are then smooth in the
        parameter, ``partial`` keeps its codes as ``k`` falls, and ``sample_size``'s
        smaller samples are prefixes of the largest.
        """
        scenario = scenarios.get(self.scenario)
        return (self.scenario, scenario.version, self.seed, self.n_samples)

    @property
    def key(self) -> str:
        """Stable identity of the cell's computation."""
        return cell_key(self.data_identity, self.metric)


def cell_key(data_identity: tuple[object, ...], metric: MetricEntry) -> str:
    """Hash of what a cell computes: its data identity, the metric, its version and options."""
    payload = json.dumps([STUDY_FORMAT, *map(str, data_identity), metric.name, metric.fingerprint()])
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def resolve_names(requested: Sequence[str] | None, known: list[str], kind: str) -> list[str]:
    """Validate requested scenario or metric names (None means all known)."""
    if requested is None:
        return list(known)
    names = [name.strip() for name in requested if name.strip()]
    if not names:
        raise ValueError(f"no {kind} named; known {kind}s: {', '.join(known)}")
    return names


def plan_cells(
    *,
    study: str,
    scenario_names: Sequence[str],
    metric_entries: Sequence[MetricEntry],
    seeds: int,
    n_samples: int,
    grids: Mapping[str, Sequence[ParameterValue]] | None = None,
) -> list[Cell]:
    """Every cell of the study, data-major (cells sharing data are adjacent).

    ``grids`` replaces the default parameter grid of the scenarios it names.
    """
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1, got {seeds}")
    cells: list[Cell] = []
    for name in scenario_names:
        scenario = scenarios.get(name)
        n = scenario.default_n if scenario.default_n is not None else n_samples
        if n < scenario.min_samples:
            raise ValueError(f"scenario {name!r} needs at least {scenario.min_samples} samples; got --n-samples {n}")
        grid = tuple(grids[name]) if grids and name in grids else scenario.values
        for value in grid:
            scenario.check_value(value)
        for index, value in enumerate(grid):
            for seed in range(seeds):
                for entry in metric_entries:
                    cells.append(Cell(study, name, value, index, seed, n, entry))
    return cells


def metric_entries(names: Sequence[str]) -> list[MetricEntry]:
    """Entries for registry names and ``module:function`` references."""
    return [resolve(name) for name in names]
