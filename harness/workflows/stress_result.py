"""What a stress search found: measurements of a metric's departure from the ideal, cases, the result.

See :mod:`harness.workflows.stress` for how the departure and its seed spread are defined.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from harness.execution.metric_refs import MetricEntry
from harness.execution.scenario_refs import scenario_for
from harness.workflows.stress_space import Point
from reports.analyses.intervals import level, t_quantile

#: Confidence level of a departure's seed spread read once (a search without a race of seeds); with ``looks`` reads
#: the level is :func:`reports.analyses.intervals.level` (``1 − 0.05 / looks``).
CONFIDENCE = level(1)
#: The stage of a case's measurement on fresh seeds (:func:`harness.workflows.stress.confirm_cases`).
CONFIRMATION = "confirmation"


@dataclass(frozen=True)
class Measurement:
    """One sub-score of the stressed metric at one point, over the seeds.

    Attributes
    ----------
    point : Point
        Scenario, value and sample size.
    sub_score, property : str
        The sub-score and the property it claims to measure.
    higher_is_better : bool
        Its direction.
    ideal : float
        The ideal score of ``property`` at the point (:func:`ideal_at`), on the
        higher-is-better scale.
    scores : tuple of float
        The raw score of every seed, seed ``first_seed`` first.
    stage : {"exploration", "refinement", "confirmation"}
        Which stage of the search measured it (``"confirmation"``: a case's fresh seeds,
        :func:`harness.workflows.stress.confirm_cases`).
    looks : int
        How many intervals share the error rate: the times the search's race of seeds may read the point (1 without
        one, :mod:`harness.execution.racing`), or the cases confirmed together; the interval is at level
        ``1 − 0.05 / looks``.
    first_seed : int
        The seed index of ``scores[0]``: 0 for the search's measurements, the first fresh seed for a confirmation's.
    """

    point: Point
    sub_score: str
    property: str
    higher_is_better: bool
    ideal: float
    scores: tuple[float, ...]
    stage: str
    looks: int = 1
    first_seed: int = 0

    @property
    def oriented(self) -> np.ndarray:
        """The seeds' scores on the higher-is-better scale."""
        scores = np.asarray(self.scores, dtype=np.float64)
        return scores if self.higher_is_better else 1.0 - scores

    @property
    def departure(self) -> float:
        """Mean oriented score minus the ideal: > 0 over-scores, < 0 under-scores."""
        return float(self.oriented.mean() - self.ideal)

    @property
    def half_width(self) -> float:
        """Half-width of the departure's confidence interval over the seeds (:data:`CONFIDENCE` for one look,
        :func:`reports.analyses.intervals.level` for several)."""
        count = len(self.scores)
        return float(t_quantile(count, self.looks) * self.oriented.std(ddof=1) / math.sqrt(count))

    @property
    def direction(self) -> str:
        """``"over"`` (the metric rates the code better than it is) or ``"under"``."""
        return "over" if self.departure > 0 else "under"

    def margin(self, direction: str | None = None) -> float:
        """The confidence bound nearest zero of the departure in ``direction`` (default: its own)."""
        sign = 1.0 if (direction or self.direction) == "over" else -1.0
        return sign * self.departure - self.half_width

    def beyond_spread(self, min_departure: float) -> bool:
        """Whether the departure is a case: its interval excludes 0 and it is at least ``min_departure``."""
        return self.margin() > 0 and abs(self.departure) >= min_departure

    def record(self) -> dict[str, Any]:
        """A flat row for tables."""
        return {
            "scenario": self.point.scenario,
            "parameter": scenario_for(self.point.scenario).parameter,
            "value": self.point.value,
            "value_label": self.point.label,
            "n_samples": self.point.n_samples,
            "sub_score": self.sub_score,
            "property": self.property,
            "higher_is_better": self.higher_is_better,
            "ideal": self.ideal,
            "mean_score": float(np.mean(self.scores)),
            "departure": self.departure,
            "half_width": self.half_width,
            "margin": self.margin(),
            "direction": self.direction,
            "seeds": len(self.scores),
            "first_seed": self.first_seed,
            "stage": self.stage,
        }


@dataclass
class StressCase:
    """A reported failure: a measurement beyond its seed spread, how to replay it, and the built-ins there.

    Attributes
    ----------
    measurement : Measurement
        The stressed sub-score at the case's point.
    command : str
        The ``python -m harness run`` command line that reproduces its scores exactly.
    contrast : pandas.DataFrame
        The built-in metrics on the same data: metric, sub_score, property, mean_score,
        ideal, departure (one row per sub-score; empty without contrast).
    """

    measurement: Measurement
    command: str
    contrast: pd.DataFrame


@dataclass
class StressResult:
    """What a stress search found.

    Attributes
    ----------
    entry : MetricEntry
        The stressed metric.
    reference : str
        Its name or import reference (what the recipes pass to ``--metrics``).
    settings : dict
        Budget, seeds, seed, sample sizes, scenarios, ``min_departure``, ``top``.
    measurements : list of Measurement
        Every sub-score at every point measured, in the order measured.
    cases : list of StressCase
        The top cases confirmed on fresh seeds, largest confidence bound there first.
    cells : int
        Cells of the stressed metric the search ran (or found in its store) within its budget: the race's and the
        confirmation's are extra.
    failed : int
        Those of ``cells`` that failed (the metric raised or timed out): they have no score.
    seconds : float
        Wall seconds of the search (the race, the confirmation and the contrast included).
    notes : list of str
        Failed cells, points that could not be measured, and candidates the fresh seeds did not confirm.
    confirmations : list of Measurement
        Every candidate case measured on its fresh seeds (stage ``"confirmation"``), confirmed or not.
    """

    entry: MetricEntry
    reference: str
    settings: dict[str, Any]
    measurements: list[Measurement]
    cases: list[StressCase]
    cells: int
    failed: int
    seconds: float
    notes: list[str] = field(default_factory=list)
    confirmations: list[Measurement] = field(default_factory=list)

    def table(self, *, confirmations: bool = False) -> pd.DataFrame:
        """Every measurement of the search as a table (:meth:`Measurement.record` columns); with ``confirmations``,
        the candidates' measurements on fresh seeds after them."""
        measured = self.measurements + (self.confirmations if confirmations else [])
        return pd.DataFrame([measurement.record() for measurement in measured])
