"""95% intervals over seeds for the statistics the verdicts read.

Every verdict reads a statistic of mean scores over seeds: a calibration end's mean, the
Spearman ρ, slope or R² of a curve of means against its ideal, the largest deviation or excess
of such a curve, a mean sample-efficiency gap, the largest spread of an option sweep.  The seed
is the unit of replication: seed ``s`` is one random draw that every value of a sweep transforms
(common random numbers, :attr:`harness.execution.plan.Cell.seed_identity`), so the seeds are
independent and the values of one seed are not.  The analyses write each statistic's interval
as ``<column>_low`` and ``<column>_high``, which the verdicts read (:mod:`reports.verdicts.verdict_table`): a
verdict whose interval straddles its threshold is undecided.

Means over seeds (:func:`mean_interval`)
    Student's t interval, ``mean ± t(0.975, S − 1) s / sqrt(S)`` over the ``S`` seeds.

Statistics of a curve of means (:func:`bootstrap_intervals`)
    A bootstrap over seeds: :data:`REPLICATES` resamples of the ``S`` seeds with replacement,
    the same seeds at every point of the curve (each resample keeps the pairing of a draw's
    values), the statistic recomputed on each resample's means.  The interval is the statistic
    ``± t(0.975, S − 1) · sqrt(S / (S − 1)) · sd`` of the resampled statistics: the bootstrap
    standard error with Student's small-sample quantile (Efron and Tibshirani 1993, *An
    Introduction to the Bootstrap*, chapters 6 and 12), which for a mean is the t interval
    above.  A percentile interval is not used: a resampled mean never leaves the range of the
    ``S`` seeds' values, so with 2 seeds the percentile interval of a mean is the range of the
    two, a 50% interval; the t quantile widens the interval as few seeds require (12.7 standard
    errors for 2 seeds, 2.78 for 5, 2.26 for 10).  The interval is clipped to the statistic's
    range (ρ to [−1, 1], R² to [0, 1], a deviation or a spread to [0, ∞)).

Several looks (:func:`level`)
    A study that races seeds (:mod:`harness.execution.racing`) reads its verdicts after each round
    and adds seeds only where one is undecided: up to ``looks`` times.  Its intervals are then at
    level ``1 − 0.05 / looks`` (the results' ``looks`` column, :func:`looks_of`), so that the
    chance that any of a verdict's looks excludes the truth is at most 5% by Bonferroni's
    inequality, whatever the data made the run stop at.  A fixed number of seeds has one look: 95%.
    Each analysis reads the ``looks`` of each metric's own rows (:func:`looks_by_metric`), so that a verdict's failing
    side can be read at a stricter level for one metric than for another (the next paragraph).

Several checks, one failing verdict (:mod:`reports.verdicts.verdict_table`)
    A verdict pooling ``m`` checks passes when every check's interval lies on the passing side, each at the study's
    level: to pass wrongly, the check that truly fails must pass wrongly, at most 5% (an intersection-union test).  It
    fails when one check's interval lies on the failing side, and any of ``m`` checks near its threshold can do so by
    chance: up to ``m`` times 5%.  So the failing side is read from intervals at level ``1 − 0.05 / (looks · m)``
    (Bonferroni), ``m`` the most checks any verdict of the metric pools (:func:`reports.verdicts.verdict_table.pooled_checks`):
    the analyses read with each metric's ``looks`` multiplied by its ``m`` (:attr:`reports.verdicts.bundle.Bundle.failing`;
    an analysis giving a :class:`Leveled` table gives its intervals at those looks without being run again).

The largest of several statistics (:func:`largest_interval`)
    A curve's largest excess or deviation from its ideal, an option's largest spread over the conditions: from the
    largest of the parts' low ends, each at level ``1 − 0.05 / (looks · C)`` for the ``C`` parts (Bonferroni), to the
    largest of their high ends at the study's level.  A bootstrap of the largest value, centred on it, would not hold
    the truth: the largest of several noisy values overstates the largest true one, most where several lie near it,
    and its resamples share the bias.  The parts' intervals are Student's t: of a point's mean, or of the paired
    differences' mean of two of an option's values in one condition (a condition's spread is the largest of those
    distances, so an option's largest spread is the largest over every condition's pairs).

One seed gives no interval (NaN ends): its verdicts are decided by the point value alone, and
the report says so.  The resamples come from ``numpy.random.default_rng(BOOTSTRAP_SEED)``, one
plan per number of seeds shared by every statistic, so an interval is reproducible and does not
depend on the other rows of the table.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from reports.results.schema import LOOKS_COLUMN

#: The fewest seeds for a useful interval: with 2, Student's t quantile of one degree of freedom spans 12.7 standard
#: errors on each side (4.3 with 3).  A racing study starts every cell with this many
#: (:data:`harness.execution.racing.MIN_SEEDS`), and a figure draws no band at a point with fewer
#: (:func:`mean_half_width`).
MIN_INTERVAL_SEEDS = 3
#: Bootstrap resamples per statistic.
REPLICATES = 1000
#: Seed of the resampling plans.
BOOTSTRAP_SEED = 20261126
#: Confidence level of every interval of a study with one look at its verdicts (a fixed number of seeds); with
#: several looks the error rate ``1 − LEVEL`` is split between them (:func:`level`).
LEVEL = 0.95

Statistic = Callable[[np.ndarray], np.ndarray]
"""A statistic of curves of means: ``(R, V)`` means (R curves of V points) -> ``(R,)`` values (NaN where undefined)."""

Bounds = tuple[float, float]
"""A statistic's range (low, high)."""
UNBOUNDED: Bounds = (-np.inf, np.inf)
NO_INTERVAL = (float("nan"), float("nan"))


def level(looks: int = 1) -> float:
    """The confidence level of each interval of a study whose verdicts are read ``looks`` times: ``1 − (1 − LEVEL) /
    looks`` (Bonferroni: the error rates of the looks add up to at most ``1 − LEVEL``)."""
    if looks < 1:
        raise ValueError(f"looks must be at least 1, got {looks}")
    return 1.0 - (1.0 - LEVEL) / looks


def looks_of(frame: pd.DataFrame) -> int:
    """How many looks a results table's verdicts had: the largest of its ``looks`` column (1 without one)."""
    if LOOKS_COLUMN not in frame.columns or frame.empty:
        return 1
    return max(1, int(frame[LOOKS_COLUMN].max()))


def looks_by_metric(frame: pd.DataFrame) -> dict[str, int]:
    """:func:`looks_of` the rows of each ``metric`` of ``frame``: the split of the error rate its intervals are read at."""
    if LOOKS_COLUMN not in frame.columns or frame.empty:
        return {str(metric): 1 for metric in frame["metric"].unique()} if "metric" in frame.columns else {}
    return {str(metric): max(1, int(looks)) for metric, looks in frame.groupby("metric", sort=False)[LOOKS_COLUMN].max().items()}


@functools.cache
def _t_quantile(probability: float, degrees: int) -> float:
    """Student's t quantile: ``scipy.special.stdtrit``, what ``scipy.stats.t.ppf`` returns bit for bit, without the
    distribution's argument checks (a tenth of a report's analyses, asked for the same few quantiles thousands of
    times) and without importing ``scipy.stats`` (half a second in every process drawing figures)."""
    return float(special.stdtrit(degrees, probability))


def t_quantile(n_seeds: int, looks: int = 1) -> float:
    """Student's t quantile of :func:`level` with ``S − 1`` degrees of freedom: how many standard errors an interval
    spans on each side with ``S`` seeds (``t(0.975, S − 1)`` for one look)."""
    return float(_t_quantile(0.5 + level(looks) / 2, n_seeds - 1))


def mean_interval(values: np.ndarray, bounds: Bounds = UNBOUNDED, looks: int = 1) -> tuple[float, float]:
    """Student's t interval of the mean of ``values`` (one per seed) at :func:`level` ``(looks)``, clipped to
    ``bounds``; NaN ends for one seed."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    if values.size < 2:
        return NO_INTERVAL
    half = t_quantile(values.size, looks) * float(np.std(values, ddof=1)) / np.sqrt(values.size)
    mean = float(np.mean(values))
    return float(np.clip(mean - half, *bounds)), float(np.clip(mean + half, *bounds))


def mean_half_width(std: np.ndarray, n_seeds: np.ndarray) -> np.ndarray:
    """Half the width of the 95% Student-t interval of a mean over ``n_seeds`` seeds with sample standard deviation
    ``std``, ``t(0.975, n − 1) std / sqrt(n)``, elementwise; NaN (no interval) where fewer than
    :data:`MIN_INTERVAL_SEEDS` seeds make it, as the racing rule decides: a racing study gives every cell at least
    that many, and a figure draws no band there (12.7 standard errors on each side with 2 seeds)."""
    std = np.asarray(std, dtype=float)
    n = np.asarray(n_seeds, dtype=float)
    useful = n >= MIN_INTERVAL_SEEDS
    quantile = special.stdtrit(np.where(useful, n - 1, 1), 0.975)
    return np.where(useful, quantile * std / np.sqrt(np.maximum(n, 1)), np.nan)


@functools.cache
def resample_counts(n_seeds: int) -> np.ndarray:
    """``(REPLICATES, S)``: how often each of ``S`` seeds is drawn in each bootstrap resample (read-only)."""
    draws = np.random.default_rng(BOOTSTRAP_SEED).integers(0, n_seeds, size=(REPLICATES, n_seeds))
    counts = np.zeros((REPLICATES, n_seeds))
    np.add.at(counts, (np.arange(REPLICATES)[:, None], draws), 1.0)
    counts.flags.writeable = False
    return counts


def resampled_means(matrix: np.ndarray) -> np.ndarray:
    """The bootstrap resamples' means of a ``(S, V)`` matrix of scores (seeds x points, NaN where a seed lacks a point):
    ``(REPLICATES, V)``, NaN where a resample holds no seed with a score at that point."""
    return weighted_means(matrix, resample_counts(matrix.shape[0]))


def weighted_means(matrix: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each row of ``counts`` (``(R, S)``: how often each seed counts) applied to a ``(S, V)`` matrix of scores, NaN
    where a seed lacks a point: ``(R, V)`` means over the seeds that have each point, NaN where none counted has it
    (``numpy.ones((1, S))``: the seeds' means)."""
    present = ~np.isnan(matrix)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ np.where(present, matrix, 0.0)) / (counts @ present)


def bootstrap_intervals(matrix: np.ndarray, statistics: Mapping[str, tuple[Statistic, float, Bounds]],
                        looks: int = 1) -> dict[str, float]:
    """The intervals of statistics of the seeds' mean curve at :func:`level` ``(looks)`` (95% for one look; see the
    module notes), from one set of resamples.

    Parameters
    ----------
    matrix : numpy.ndarray
        ``(S, V)`` scores: one row per seed, one column per point of the curve (NaN where missing).
    statistics : Mapping[str, (callable, float, (float, float))]
        Column name -> the statistic (``(R, V)`` means -> ``(R,)`` values, NaN where undefined), its value on the
        seeds' means (around which the interval lies) and its range (to which the interval is clipped).
    looks : int, default 1
        How many times the study reads its verdicts (:func:`level`).

    Returns
    -------
    dict
        ``<name>_low`` and ``<name>_high`` per statistic: NaN for one seed, an undefined value, or when fewer than
        half of the resamples define the statistic.
    """
    return bootstrap_spreads(matrix, statistics)(looks)


def bootstrap_spreads(matrix: np.ndarray, statistics: Mapping[str, tuple[Statistic, float, Bounds]]) -> RowEnds:
    """:func:`bootstrap_intervals` at any number of looks: the resamples are drawn and each statistic's spread over
    them computed once (what costs), and the returned function gives the intervals at the looks it is asked for, the
    same numbers bit for bit."""
    n_seeds = matrix.shape[0]
    means = resampled_means(matrix) if n_seeds >= 2 else None
    spreads: dict[str, tuple[float, float | None, Bounds]] = {}
    for name, (statistic, point, bounds) in statistics.items():
        spread = None
        if means is not None and np.isfinite(point):
            defined = statistic(means)
            defined = defined[np.isfinite(defined)]
            spread = float(np.std(defined)) if defined.size >= REPLICATES / 2 else None
        spreads[name] = (point, spread, bounds)

    def ends_at(looks: int) -> dict[str, float]:
        ends: dict[str, float] = {}
        for name, (point, spread, bounds) in spreads.items():
            low, high = NO_INTERVAL if spread is None else _interval_about(point, spread, n_seeds, looks, bounds)
            ends[f"{name}_low"], ends[f"{name}_high"] = low, high
        return ends

    return ends_at


def _interval_about(point: float, spread: float, n_seeds: int, looks: int, bounds: Bounds) -> tuple[float, float]:
    """``point ± t · sqrt(S / (S − 1)) · spread``, ``spread`` the standard deviation of the resampled statistic (see
    the module notes), clipped to ``bounds``."""
    half = t_quantile(n_seeds, looks) * np.sqrt(n_seeds / (n_seeds - 1)) * spread
    return float(np.clip(point - half, *bounds)), float(np.clip(point + half, *bounds))


RowEnds = Callable[[int], dict[str, float]]
"""``looks`` -> a table row's interval columns (``<statistic>_low``, ``<statistic>_high``) at :func:`level` ``(looks)``."""


@dataclass(frozen=True)
class Leveled:
    """An analysis's table with, for each row, how to compute its intervals at any number of looks.

    A verdict's failing side is read from intervals at a stricter level than its passing side (the module notes):
    the same statistics, spreads and rows, other quantiles.  :meth:`at` gives the table at other looks without
    computing the analysis again (its group-bys, fits and resamples: most of its time), bit for bit what the analysis
    gives on the same results with those looks.

    Attributes
    ----------
    table : pandas.DataFrame
        The analysis's table, its intervals at the looks of the results it was computed from.
    ends : tuple of RowEnds
        One per row of ``table``, in its order: the row's interval columns at a number of looks.
    """

    table: pd.DataFrame
    ends: tuple[RowEnds, ...]

    def at(self, looks_of: Mapping[str, int]) -> pd.DataFrame:
        """:attr:`table` with each row's intervals at ``looks_of[metric]`` looks (metric -> looks, as
        :func:`looks_by_metric` gives them)."""
        if self.table.empty:
            return self.table.copy()
        columns = pd.DataFrame([ends(looks_of[metric]) for ends, metric in zip(self.ends, self.table["metric"])],
                               index=self.table.index)
        return self.table.assign(**{str(column): columns[column] for column in columns.columns})

    def subset(self, keep: np.ndarray) -> Leveled:
        """The rows where ``keep`` (a boolean array over the table's rows) holds, with their ends."""
        keep = np.asarray(keep, dtype=bool)
        return Leveled(self.table.loc[keep], tuple(ends for ends, kept in zip(self.ends, keep) if kept))


def concatenated(parts: Sequence[Leveled], columns: Sequence[str], keys: list[str]) -> Leveled:
    """``parts`` end to end (those with rows), sorted by ``keys`` (stable) with a fresh index; an empty table of
    ``columns`` without any."""
    parts = [part for part in parts if not part.table.empty]
    if not parts:
        return Leveled(pd.DataFrame(columns=list(columns)), ())
    table = pd.concat([part.table for part in parts], ignore_index=True)
    ends = [ends for part in parts for ends in part.ends]
    order = table.sort_values(keys, kind="stable").index.to_numpy()
    return Leveled(table.loc[order].reset_index(drop=True), tuple(ends[position] for position in order))


def leveled_table(rows: Sequence[dict], ends: Sequence[RowEnds], looks_of: Mapping[str, int], columns: Sequence[str],
                  order: Callable[[pd.DataFrame], pd.DataFrame]) -> Leveled:
    """The :class:`Leveled` table of ``rows`` (dicts, each with its ``metric``, without its interval columns) and their
    ``ends``: each row's intervals at ``looks_of[metric]``, the table made with ``columns`` in that order and sorted by
    ``order`` (a table -> the table sorted, its index reset), the ends following the rows."""
    filled = [{**row, **row_ends(looks_of[row["metric"]])} for row, row_ends in zip(rows, ends)]
    table = pd.DataFrame(filled, columns=list(columns))
    table["_row"] = np.arange(len(table))
    table = order(table)
    positions = table.pop("_row").to_numpy()
    return Leveled(table, tuple(ends[position] for position in positions))


ComponentEnds = Callable[[int], tuple[np.ndarray, np.ndarray]]
"""``looks`` -> the low and high ends of each component's interval at :func:`level` ``(looks)`` (NaN where it has
none): the intervals :func:`largest_interval` combines."""


def largest_interval(ends_at: ComponentEnds, points: np.ndarray, looks: int = 1) -> tuple[float, float]:
    """The interval of the largest of ``C`` statistics (a curve's points, a sweep's conditions), from their own intervals.

    An interval about the largest value itself (a bootstrap of the maximum) would not cover the truth: the largest of
    several noisy values overstates the largest true value, the more so the more of them lie near it, and its
    resamples share that bias, so their spread does not widen the interval to make up for it (simulated: 12
    conditions whose spreads all equal the threshold, 12 seeds, one look: the interval about the largest spread lay
    above the threshold in 50% of the draws; ``tests/reports/test_intervals.py``).  Here, instead (Bonferroni's
    inequality; the union-intersection and intersection-union tests of Berger 1982, *Technometrics* 24(4)):

    * the high end is the largest of the components' high ends at :func:`level` ``(looks)``: the component whose true
      value is the largest lies below its high end with the interval's confidence, and so below the largest high end;
    * the low end is the largest of their low ends at :func:`level` ``(looks x C)``: the largest low end exceeds the
      largest true value only if some component's low end exceeds that component's own true value, which for each of
      the ``C`` happens with at most ``1 / C`` of the error rate.

    So the interval covers the largest true value at :func:`level` ``(looks)``, however many components lie near it;
    a "smaller than the threshold" decision needs every component's interval below the threshold, a "larger" one a
    component whose interval, widened for the ``C`` of them, lies above it.

    Parameters
    ----------
    ends_at : callable
        :data:`ComponentEnds` of the ``C`` components.
    points : numpy.ndarray
        ``(C,)``: each component's value (NaN where undefined); the components of a finite value are those counted.
    looks : int, default 1
        How many times the study reads its verdicts.

    Returns
    -------
    (float, float)
        NaN ends when some counted component has no interval (one seed).
    """
    counted = np.isfinite(np.asarray(points, dtype=float))
    if not counted.any():
        return NO_INTERVAL
    _, highs = ends_at(looks)
    lows, _ = ends_at(looks * int(counted.sum()))
    lows, highs = np.asarray(lows, dtype=float)[counted], np.asarray(highs, dtype=float)[counted]
    if not (np.isfinite(lows).all() and np.isfinite(highs).all()):
        return NO_INTERVAL
    return float(lows.max()), float(highs.max())


def column_mean_intervals(matrix: np.ndarray, looks: int = 1, bounds: Bounds = UNBOUNDED) -> tuple[np.ndarray, np.ndarray]:
    """:func:`mean_interval` of each column of a ``(S, V)`` matrix (NaN where a seed lacks a point), over the seeds
    that have it: the ``V`` low ends and the ``V`` high ends (NaN where fewer than two seeds have the point)."""
    matrix = np.asarray(matrix, dtype=float)
    low, high = np.full(matrix.shape[1], np.nan), np.full(matrix.shape[1], np.nan)
    complete = ~np.isnan(matrix).any(axis=0)
    n_seeds = matrix.shape[0]
    if n_seeds >= 2 and complete.any():
        # every seed present: all columns at once, each a contiguous row, so that numpy sums it pairwise as it sums the
        # 1-D column in mean_interval (the same ends bit for bit; tests/reports/test_intervals.py)
        columns = np.ascontiguousarray(matrix[:, complete].T)
        means = columns.mean(axis=1)
        half = t_quantile(n_seeds, looks) * columns.std(axis=1, ddof=1) / np.sqrt(n_seeds)
        low[complete], high[complete] = np.clip(means - half, *bounds), np.clip(means + half, *bounds)
    for column in np.flatnonzero(~complete):  # a seed lacks the point: over the seeds that have it
        low[column], high[column] = mean_interval(matrix[:, column], bounds, looks)
    return low, high


def distance_ends(low: np.ndarray, high: np.ndarray, target: np.ndarray, bounds: Bounds = UNBOUNDED) -> tuple[np.ndarray, np.ndarray]:
    """The interval of ``|mean − target|`` from the interval ``[low, high]`` of each mean: from 0 (when the interval
    holds ``target``) or the nearer end's distance, to the farther end's distance; clipped to ``bounds``."""
    below, above = np.abs(np.asarray(low) - target), np.abs(np.asarray(high) - target)
    holds = (np.asarray(low) <= target) & (target <= np.asarray(high))
    near = np.where(holds, 0.0, np.minimum(below, above))
    return np.clip(near, *bounds), np.clip(np.maximum(below, above), *bounds)


def seed_matrices(frame: pd.DataFrame, keys: list[str], position: str, column: str) -> dict[tuple, tuple[np.ndarray, dict]]:
    """Per group of ``keys``, its ``(S, V)`` matrix of ``column``: its seeds x the values of ``position`` it has (NaN
    where a seed lacks one), with where each value's column is.

    Returns
    -------
    dict
        Group key (a tuple) -> (matrix, ``position`` value -> its column in the matrix).
    """
    wide = frame.groupby([*keys, position, "seed"], sort=True)[column].mean().unstack("seed")
    found: dict[tuple, tuple[np.ndarray, dict]] = {}
    for key, block in wide.groupby(level=list(range(len(keys))), sort=False):
        matrix = block.to_numpy(dtype=float).T
        points = {point: column for column, point in enumerate(block.index.get_level_values(-1))}  # no tuples built
        found[key if isinstance(key, tuple) else (key,)] = (matrix[~np.isnan(matrix).all(axis=1)], points)
    return found


def of_points(matrices: Mapping[tuple, tuple[np.ndarray, dict]], key: tuple, points: Sequence) -> np.ndarray:
    """Group ``key``'s matrix (:func:`seed_matrices`) restricted to ``points``, in their order."""
    matrix, where = matrices[key]
    return matrix[:, [where[point] for point in points]]


# Statistics of curves of means against an ideal (the linearity and robustness analyses).

def slopes(ideal: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Least-squares slope of each row of ``means`` (R, V) against ``ideal`` (V,)."""
    centred = ideal - ideal.mean()
    return (means - means.mean(axis=1, keepdims=True)) @ centred / float(centred @ centred)


def _constant(means: np.ndarray) -> np.ndarray:
    return np.ptp(means, axis=1) == 0


def pearson(x: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Pearson's r of each row of ``means`` with ``x``; NaN for a constant row (0/0)."""
    x_centred = x - x.mean()
    centred = means - means.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = centred @ x_centred / (np.sqrt((centred ** 2).sum(axis=1)) * np.sqrt(float(x_centred @ x_centred)))
    return np.where(_constant(means), np.nan, r)


def r_squared(ideal: np.ndarray, means: np.ndarray) -> np.ndarray:
    """R² of the affine fit of each row against ``ideal`` (the square of Pearson's r); NaN for a constant row."""
    return pearson(ideal, means) ** 2


def spearman(ideal: np.ndarray, means: np.ndarray) -> np.ndarray:
    """Spearman's ρ of each row with ``ideal`` (Pearson's r of average ranks, as :func:`scipy.stats.spearmanr`);
    NaN for a constant row."""
    from scipy.stats import rankdata  # here: a process drawing figures never ranks

    return pearson(rankdata(ideal), rankdata(means, axis=1))


def unit_scores(scores: np.ndarray) -> bool:
    """Whether the scores ``scores`` (NaN aside; at least one) all lie in [0, 1]: a mean of them does too, and so does
    a difference of two, hence an interval of either is clipped to [0, 1] (for such a metric, an end beyond 1 is no
    possible value, only the Student-t interval's symmetry about a mean near a bound)."""
    finite = np.asarray(scores, dtype=float)
    finite = finite[np.isfinite(finite)]
    return bool(finite.size) and bool(((finite >= 0.0) & (finite <= 1.0)).all())


def deviation_ceiling(ideal: np.ndarray, scores: np.ndarray) -> float:
    """The largest ``max |mean − ideal|`` from ``ideal`` that means of ``scores`` can reach: ``max(ideal, 1 −
    ideal)`` over the points when every score lies in [0, 1] (:func:`unit_scores`), unbounded otherwise."""
    ideal = np.asarray(ideal, dtype=float)
    if not unit_scores(scores) or not np.isfinite(ideal).all():
        return np.inf
    return float(np.max(np.maximum(ideal, 1.0 - ideal)))
