"""Population cells: a population metric (UDR) on one generated population.

A population scenario (:mod:`scenarios.population`) generates ``M`` representations of
the same inputs and says which are disentangled; a population metric scores every
member.  In a study the question is whether the metric ranks the disentangled
members first, so a population cell reports, as tidy rows like any other cell:

``separation``
    The probability that a disentangled member scores above an entangled one
    (the area under the ROC curve of the scores as a detector of disentangled
    members; ties count one half).  Ideal 1.  Only written when the population
    holds both kinds.
``disentangled_mean``, ``entangled_mean``
    Mean score of each kind (no ideal: population metrics are not calibrated on an
    absolute scale).  Only written when that kind is present.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

import metrics
import scenarios
from harness.execution.metric_refs import MetricEntry
from harness.execution.rows import result_row
from harness.execution.seeds import identity_int, identity_seed
from harness.execution.plan import cell_key
from scenarios.base import ParameterValue


@dataclass(frozen=True)
class PopulationCell:
    """One population metric on one generated population."""

    study: str
    scenario: str
    value: ParameterValue
    value_index: int
    seed: int
    n_samples: int
    metric: MetricEntry

    @property
    def data_identity(self) -> tuple[object, ...]:
        """What determines the generated population (and its seed)."""
        scenario = scenarios.get_population(self.scenario)
        return ("population", self.scenario, scenario.version, scenario.label(self.value), self.seed, self.n_samples)

    @property
    def seed_identity(self) -> tuple[object, ...]:
        """What seeds the generated population: the data identity without the value (common random numbers)."""
        scenario = scenarios.get_population(self.scenario)
        return ("population", self.scenario, scenario.version, self.seed, self.n_samples)

    @property
    def key(self) -> str:
        """Stable identity of the cell's computation."""
        return cell_key(self.data_identity, self.metric)


def plan_population_cells(
    *, study: str, scenario_names: Sequence[str], metric_entries: Sequence[MetricEntry], seeds: int, n_samples: int
) -> list[PopulationCell]:
    """Every population cell of a study, data-major."""
    cells: list[PopulationCell] = []
    for name in scenario_names:
        scenario = scenarios.get_population(name)
        n = scenario.default_n if scenario.default_n is not None else n_samples
        if n < scenario.min_samples:
            raise ValueError(f"population scenario {name!r} needs at least {scenario.min_samples} samples; got {n}")
        for index, value in enumerate(scenario.values):
            for seed in range(seeds):
                for entry in metric_entries:
                    cells.append(PopulationCell(study, name, value, index, seed, n, entry))
    return cells


def separation(scores: Sequence[float], disentangled: Sequence[bool]) -> float:
    """P(score of a disentangled member > score of an entangled one), ties counting 1/2."""
    values = np.asarray(scores, dtype=np.float64)
    flags = np.asarray(disentangled, dtype=bool)
    good, bad = values[flags], values[~flags]
    if good.size == 0 or bad.size == 0:
        raise ValueError("separation needs both disentangled and entangled members")
    greater = (good[:, None] > bad[None, :]).mean()
    ties = (good[:, None] == bad[None, :]).mean()
    return float(greater + 0.5 * ties)


def run_population_cell(cell: PopulationCell) -> list[dict[str, Any]]:
    """Generate the population and score it; one row per summary (see the module docstring)."""
    scenario = scenarios.get_population(cell.scenario)
    entry = cell.metric
    with threadpool_limits(limits=1):
        population = scenario.generate(cell.value, n=cell.n_samples, seed=identity_seed("data", *cell.seed_identity))
        started = time.perf_counter()
        scores = metrics.evaluate_population(
            entry.target,
            list(population.members),
            random_state=identity_int("metric", *cell.data_identity, entry.name),
            **dict(entry.options),
        )
        seconds = time.perf_counter() - started
    flags = np.asarray(population.disentangled, dtype=bool)
    values = np.asarray(scores)
    summaries: list[tuple[str, float, float]] = []
    if flags.any() and (~flags).any():
        summaries.append(("separation", separation(values, flags), 1.0))
    if flags.any():
        summaries.append(("disentangled_mean", float(values[flags].mean()), np.nan))
    if (~flags).any():
        summaries.append(("entangled_mean", float(values[~flags].mean()), np.nan))
    return [
        result_row(
            study=cell.study,
            scenario=cell.scenario,
            parameter=scenario.parameter,
            value=cell.value,
            value_index=cell.value_index,
            value_label=scenario.label(cell.value),
            seed=cell.seed,
            n_samples=cell.n_samples,
            metric=entry,
            sub_score=sub_score,
            prop=entry.property_of(entry.name),
            ideal=ideal,
            score=score,
            seconds=seconds,
        )
        for sub_score, score, ideal in summaries
    ]
