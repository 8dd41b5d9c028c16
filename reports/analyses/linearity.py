"""Linearity: does a score follow the ideal trajectory of the property it measures?

Zaidi et al. (2022), section 3: "a metric score should also evolve linearly with the
quality of the disentanglement properties that it measures.  The worst-case scenario
would be a metric that acts as a step function"; measured against explicitness in
their section 5.2 and against compactness and modularity in section 5.3.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from reports.analyses import intervals
from reports.analyses.thresholds import Thresholds
from reports.results.table import MissingDataError, at_largest_n, check_results, ideal_table, oriented_score, seed_summary

#: The intervals over seeds of the statistics the verdicts read (:mod:`reports.analyses.intervals`).
INTERVAL_COLUMNS = [f"{column}_{end}" for column in ("r2", "slope", "spearman", "max_excess") for end in ("low", "high")]
#: Why R² and rho are undefined for a constant score.
CONSTANT_REASON = "constant score"
#: Fewest distinct parameter values for a fit (two points always fit a line).
MIN_VALUES = 3
#: Fewest distinct ideal values for a trajectory; with fewer (e.g. the three cases of
#: modular_not_compact, two of which share an ideal) a scenario compares levels, and
#: R² and rho say little.
MIN_LEVELS = 3


def degraded_properties(ideals: pd.DataFrame) -> pd.DataFrame:
    """(scenario, property) pairs whose ideal changes across the scenario's values."""
    stated = ideals.loc[ideals["property"] != "holistic"]
    span = stated.groupby(["scenario", "property"])["ideal"].agg(lambda x: x.max() - x.min()).reset_index(name="span")
    return span.loc[span["span"] > 1e-9, ["scenario", "property"]].reset_index(drop=True)


def fit_line(ideal: np.ndarray, score: np.ndarray) -> dict[str, float]:
    """Affine fit ``score ~ intercept + slope * ideal``, its R², and Spearman's rho.

    For a constant score the slope is 0 and R² and rho are undefined (0/0): they are
    NaN, and the caller reports them as undefined (:data:`CONSTANT_REASON`).
    """
    if np.ptp(score) == 0:
        return {"r2": float("nan"), "slope": 0.0, "intercept": float(score[0]), "spearman": float("nan")}
    from scipy.stats import spearmanr  # here: importing scipy.stats takes half a second, in every process of a report

    slope, intercept = np.polyfit(ideal, score, 1)
    r = np.corrcoef(ideal, score)[0, 1]
    return {
        "r2": float(r * r),
        "slope": float(slope),
        "intercept": float(intercept),
        "spearman": float(spearmanr(ideal, score).statistic),
    }


def linearity(results: pd.DataFrame, *, thresholds: Thresholds = Thresholds()) -> pd.DataFrame:
    """R², Spearman's rho and largest deviation of each sub-score against its ideal trajectory.

    For every scenario whose ideal value of a property changes across its values
    (explicitness under ``noise``, modularity and compactness under ``mixing``,
    ``rotation``, ...), each sub-score measuring that property (and each holistic
    sub-score) is compared with the ideal: the mean score over seeds at each value
    (oriented so higher is better) against the ideal value at that value.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).
    thresholds : reports.analyses.thresholds.Thresholds, optional
        ``linear`` is true when the affine fit has ``R² >= thresholds.min_r2`` and a slope of at least
        ``thresholds.min_linear_slope``: a linear response must also move with the ideal, so a flat line
        (slope 0.05) with a high R² is not called linear (a constant score has R² undefined and slope 0).
        ``monotone`` is true when Spearman's rho is at least ``thresholds.min_monotone_rank_correlation``.

    Returns
    -------
    pandas.DataFrame
        One row per (scenario, metric, sub_score, against): family, property,
        ``against`` (the property whose ideal is the reference), ``n_values``,
        ``n_levels`` (distinct ideal values; below :data:`MIN_LEVELS` the scenario
        compares levels rather than a trajectory), ``r2``, ``slope``, ``intercept``,
        ``spearman`` (``r2`` and ``spearman`` NaN for a constant score, with
        ``undefined_reason`` saying so; empty otherwise), ``max_deviation`` (largest ``|mean score - ideal|``) and
        ``at_value`` (its value label), ``max_excess`` (largest ``score - ideal``: how
        far the score overstates the property), the 95% intervals over seeds of the statistics the
        verdicts read, ``r2_low``, ``r2_high``, ``slope_low``, ``slope_high``, ``spearman_low``,
        ``spearman_high``, ``max_excess_low`` and ``max_excess_high`` (:mod:`reports.analyses.intervals`; NaN
        for one seed), the thresholds ``min_r2``, ``min_linear_slope`` and ``min_monotone_rank_correlation`` (named
        as the :class:`~reports.analyses.thresholds.Thresholds` fields they hold), ``linear``, ``monotone``.

    Raises
    ------
    MissingDataError
        When no scenario in the table has a varying ideal trajectory.

    Notes
    -----
    Each scenario is read at its largest sample size.  Scenarios with fewer than
    three values are skipped (two points always lie on a line).  Cost: one fit per
    row, negligible.
    """
    return leveled_linearity(results, thresholds=thresholds).table


def leveled_linearity(results: pd.DataFrame, *, thresholds: Thresholds = Thresholds()) -> intervals.Leveled:
    """:func:`linearity`'s table with its intervals at any number of looks (:class:`reports.analyses.intervals.Leveled`)."""
    frame = at_largest_n(check_results(results))
    min_r2, min_slope = float(thresholds.min_r2), float(thresholds.min_linear_slope)
    min_rank_correlation = float(thresholds.min_monotone_rank_correlation)
    ideals = ideal_table(frame)
    degraded = degraded_properties(ideals)
    if degraded.empty:
        raise MissingDataError("linearity needs a scenario whose ideal trajectory varies (noise, mixing, ...); none is in the results")
    summary = seed_summary(frame, ["scenario", "value", "value_label", "metric", "sub_score", "family", "property"])
    seeds = intervals.seed_matrices(frame.assign(_oriented=oriented_score(frame)), ["scenario", "metric", "sub_score"],
                                    "value", "_oriented")
    rows, ends, notes = [], [], []
    for scenario, against in degraded.itertuples(index=False):
        reference = ideals.loc[(ideals["scenario"] == scenario) & (ideals["property"] == against), ["value", "ideal"]]
        measured = summary.loc[(summary["scenario"] == scenario) & summary["property"].isin([against, "holistic"])]
        measured = measured.merge(reference, on="value")
        for (metric, sub_score, family, prop), curve in measured.groupby(["metric", "sub_score", "family", "property"]):
            if len(curve) < MIN_VALUES:
                notes.append(f"{metric}/{sub_score} has only {len(curve)} value{'s' * (len(curve) != 1)} of {scenario!r}; "
                             "no fit")
                continue
            ideal, score = curve["ideal"].to_numpy(), curve["mean"].to_numpy()
            deviation = np.abs(score - ideal)
            worst = int(np.argmax(deviation))
            fit = fit_line(ideal, score)
            matrix = intervals.of_points(seeds, (scenario, metric, sub_score), curve["value"])
            ends.append(_curve_ends(matrix, ideal, score, fit))
            rows.append({
                "scenario": scenario, "metric": metric, "sub_score": sub_score, "family": family, "property": prop,
                "against": against, "n_values": len(curve), "n_levels": int(np.unique(ideal).size), **fit,
                "max_deviation": float(deviation[worst]), "at_value": curve["value_label"].iloc[worst],
                "max_excess": float(np.max(score - ideal)),
                "undefined_reason": CONSTANT_REASON if np.isnan(fit["r2"]) else "",
                "min_r2": min_r2, "min_linear_slope": min_slope,
                "min_monotone_rank_correlation": min_rank_correlation,
                "linear": bool(fit["r2"] >= min_r2 and fit["slope"] >= min_slope), "n_seeds": matrix.shape[0],
                "monotone": bool(fit["spearman"] >= min_rank_correlation),
            })
    leveled = intervals.leveled_table(
        rows, ends, intervals.looks_by_metric(frame),
        ["scenario", "metric", "sub_score", "family", "property", "against", "n_values", "n_levels", "r2", "slope",
         "intercept", "spearman", "max_deviation", "at_value", "max_excess", "undefined_reason", "min_r2",
         "min_linear_slope", "min_monotone_rank_correlation", "linear", "monotone", "n_seeds", *INTERVAL_COLUMNS],
        lambda table: table.sort_values(["scenario", "metric", "sub_score", "against"]).reset_index(drop=True))
    leveled.table.attrs["notes"] = notes
    return leveled


def _curve_ends(matrix: np.ndarray, ideal: np.ndarray, score: np.ndarray, fit: dict[str, float]) -> intervals.RowEnds:
    """A curve's interval columns at any number of looks: the bootstrap intervals of its R², slope and ρ, and the
    interval of its largest excess over the ideal (from each point's)."""
    spreads = intervals.bootstrap_spreads(matrix, {
        "r2": (partial(intervals.r_squared, ideal), fit["r2"], (0.0, 1.0)),
        "slope": (partial(intervals.slopes, ideal), fit["slope"], intervals.UNBOUNDED),
        "spearman": (partial(intervals.spearman, ideal), fit["spearman"], (-1.0, 1.0)),
    })
    excess = matrix - ideal

    def ends_at(looks: int) -> dict[str, float]:
        low, high = intervals.largest_interval(
            lambda looks_read: intervals.column_mean_intervals(excess, looks_read), score - ideal, looks)
        return {**spreads(looks), "max_excess_low": low, "max_excess_high": high}

    return ends_at
