"""Robustness: how far a score falls from its ideal under conditions that should not move it.

Zaidi et al. (2022), section 3: "Metrics that measure compactness or modularity should
be tolerant to noise" (experiment 5.2), should capture nonlinear relations (5.5, the
tan map of eq. 10) and tolerate non-measured factors (5.6).  Tokui and Sato (2022),
section 4: entanglement attacks (eqs. 9 and 10), where a modularity score should follow
the injected entanglement rather than stay high.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from reports.analyses import intervals
from reports.analyses.thresholds import Thresholds
from reports.results.schema import IDEAL_PROPERTIES
from reports.results.table import MissingDataError, at_largest_n, check_results, ideal_table, oriented_score, seed_summary

#: Criterion -> the condition it tests, in report order.  A scenario is judged under
#: the condition its rows declare in the ``criterion`` column, whatever its name.
CONDITIONS = {
    "noise": "noise",
    "nonlinearity": "nonlinear map",
    "non_measured_factors": "non-measured factors",
    "attacks": "entanglement attack",
}
_EVERY_PROPERTY = IDEAL_PROPERTIES + ("holistic",)
#: Criterion -> the properties whose sub-scores are judged there: the one rule of the Robustness section,
#: the property matrix, the headline and the report card.  Under noise only modularity and compactness
#: (review section 3: "metrics that measure compactness or modularity should be tolerant to noise, while
#: explicitness metrics should reflect the amount of noise"; Table 2: robustness to noise "does not apply
#: to explicitness metrics"); elsewhere every sub-score whose ideal the scenario states.
JUDGED_PROPERTIES = {
    "noise": ("modularity", "compactness"),
    "nonlinearity": _EVERY_PROPERTY,
    "non_measured_factors": _EVERY_PROPERTY,
    "attacks": _EVERY_PROPERTY,
}
#: The criteria of being robust (the score stays at its ideal while the condition varies).  Under an
#: entanglement attack the ideal itself falls and a score must follow it: a verdict of its own
#: ("Follows entanglement attacks"), reported beside robustness, never pooled into it.
ROBUSTNESS_CRITERIA = ("noise", "nonlinearity", "non_measured_factors")
#: Fewest values a sub-score's curve must have an ideal at to be judged: at one value alone (a holistic score under
#: an attack, whose three ideals agree only where there is no attack) a verdict would say nothing of the condition.
MIN_VALUES = 2


def robustness(
    results: pd.DataFrame,
    *,
    properties: tuple[str, ...] | None = None,
    thresholds: Thresholds = Thresholds(),
    conditions: Mapping[str, str] = CONDITIONS,
) -> pd.DataFrame:
    """Largest drop of each sub-score below its ideal, per condition.

    For each scenario whose ``criterion`` is one of ``conditions``, each sub-score whose property is
    judged there, the mean score over seeds (oriented so higher is better) is compared with the ideal
    at every value where the scenario defines it: ``drop = ideal - score``.  The range read is the
    scenario's own declaration (:attr:`scenarios.base.Scenario.ideal_ranges`, carried by the rows'
    ``ideal``: the noise scenario defines modularity and compactness on alpha <= 0.5, where the code
    carries more signal than noise), the one calibration, the figures and the phase diagrams read.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).
    properties : tuple of str, optional
        Which sub-scores to judge under every condition.  By default the rule of
        :data:`JUDGED_PROPERTIES`: modularity and compactness under noise, every
        property elsewhere.  Holistic sub-scores can be judged only where the
        scenario's three ideals agree (see :func:`reports.results.table.ideal_table`).
    thresholds : reports.analyses.thresholds.Thresholds, optional
        ``robust`` is true when the score stays within ``thresholds.max_deviation`` of its ideal
        at every value: the largest drop and the largest excess (``score - ideal``,
        which matters under attacks, where the ideal falls) are both at most this.
    conditions : Mapping[str, str], default :data:`CONDITIONS`
        Criterion -> condition label.

    Returns
    -------
    pandas.DataFrame
        One row per (scenario, metric, sub_score): criterion, condition, family, property,
        ``n_values``, ``largest_drop`` (negative when the score never falls below
        the ideal), ``values_read`` (the range read: ``"alpha 0 to 0.5"``), ``at_value`` (label of the value
        farthest from the ideal, where ``deviation`` is read: the drop's or the excess's), ``score_at`` and
        ``ideal_at`` there, ``largest_excess``, ``deviation`` (the larger of
        drop and excess: the largest ``|score - ideal|``), ``deviation_low`` and ``deviation_high``
        (its 95% interval over seeds, :mod:`reports.analyses.intervals`; NaN for one seed), ``max_deviation``
        (the threshold) and ``robust``.
        ``attrs["notes"]`` lists the conditions no scenario of the results tests.

    Raises
    ------
    MissingDataError
        When no scenario of the results tests one of the conditions.

    Notes
    -----
    A sub-score is judged in a scenario only where the scenario states its ideal at
    :data:`MIN_VALUES` values or more (``attrs["notes"]`` names the others): a holistic score's
    ideal exists where the three ideals agree, which under an entanglement attack is only the
    unattacked point, and a verdict from that point alone would say nothing about the attack.
    A score that is not calibrated at the perfect end carries that offset into every
    drop.  Each scenario is read at its largest sample size.  Cost: one group-by.
    """
    return leveled_robustness(results, properties=properties, thresholds=thresholds, conditions=conditions).table


def leveled_robustness(
    results: pd.DataFrame,
    *,
    properties: tuple[str, ...] | None = None,
    thresholds: Thresholds = Thresholds(),
    conditions: Mapping[str, str] = CONDITIONS,
) -> intervals.Leveled:
    """:func:`robustness`'s table with its intervals at any number of looks (:class:`reports.analyses.intervals.Leveled`)."""
    frame = at_largest_n(check_results(results))
    max_deviation = float(thresholds.max_deviation)
    tested = frame.loc[frame["criterion"].isin(list(conditions))]
    if tested.empty:
        raise MissingDataError(_untested(conditions))
    declared = set(tested["criterion"])
    notes = [(criterion, f"condition {label!r} not measured: no scenario of the results tests {criterion!r}")
             for criterion, label in conditions.items() if criterion not in declared]
    criterion_of = tested.groupby("scenario")["criterion"].first()
    parameter_of = tested.groupby("scenario")["parameter"].first()
    judged = pd.Series(False, index=tested.index)
    for criterion, rows in tested.groupby("criterion"):
        judged[rows.index] = rows["property"].isin(properties or JUDGED_PROPERTIES.get(criterion, _EVERY_PROPERTY))
    read = tested.loc[judged]
    summary = seed_summary(read, ["scenario", "value", "value_label", "metric", "sub_score", "family", "property"])
    seeds = intervals.seed_matrices(read.assign(_oriented=oriented_score(read)), ["scenario", "metric", "sub_score"],
                                    "value", "_oriented")
    # the values read are those where the scenario defines the property's ideal; a curve with fewer than
    # MIN_VALUES of them (a holistic score under an attack: its three ideals agree only where there is no attack)
    # is not judged
    summary = summary.merge(ideal_table(frame), on=["scenario", "value", "property"], how="left")
    summary = summary.loc[summary["ideal"].notna()]
    keys = ["scenario", "metric", "sub_score"]
    every = read[[*keys, "property"]].drop_duplicates(keys)
    counts = summary.groupby(keys).size().rename("_values").reset_index()
    unjudged = every.merge(counts, on=keys, how="left")
    unjudged = unjudged.loc[unjudged["_values"].fillna(0) < MIN_VALUES, [*keys, "property"]].sort_values(keys)
    notes += [(criterion_of[scenario],
               f"{scenario!r} states an ideal for {', '.join(rows['metric'] + '/' + rows['sub_score'])} at fewer "
               f"than {MIN_VALUES} of its values"
               + (" (a holistic score needs the three ideals to agree)" if rows["property"].eq("holistic").any() else "")
               + ": not judged there")
              for scenario, rows in unjudged.groupby("scenario", sort=False)]
    judged = summary.merge(unjudged[keys], on=keys, how="left", indicator=True)["_merge"].eq("left_only").to_numpy()
    summary = summary.loc[judged]
    rows, ends = [], []
    for (scenario, metric, sub_score, family, prop), curve in summary.groupby(["scenario", "metric", "sub_score", "family", "property"]):
        drop = (curve["ideal"] - curve["mean"]).to_numpy()
        worst = int(np.argmax(drop))
        farthest = int(np.argmax(np.abs(drop)))  # where |score - ideal| is largest: the deviation's value
        excess = float(np.max(-drop)) + 0.0  # + 0.0: a score on its ideal everywhere has excess 0, never -0.0
        criterion = criterion_of[scenario]
        deviation = max(float(drop[worst]), excess)
        matrix = intervals.of_points(seeds, (scenario, metric, sub_score), curve["value"])
        ideal = curve["ideal"].to_numpy()
        ceiling = max(intervals.deviation_ceiling(ideal, matrix), deviation)
        ends.append(_deviation_ends(matrix, ideal, ceiling, np.abs(drop)))
        rows.append({
            "scenario": scenario, "criterion": criterion, "condition": conditions[criterion], "metric": metric,
            "sub_score": sub_score, "family": family, "property": prop, "n_values": len(curve),
            "largest_drop": float(drop[worst]), "values_read": values_read(parameter_of[scenario], curve["value_label"]),
            "at_value": curve["value_label"].iloc[farthest],
            "score_at": float(curve["mean"].iloc[farthest]), "ideal_at": float(curve["ideal"].iloc[farthest]),
            "largest_excess": excess, "deviation": deviation, "max_deviation": max_deviation,
            "robust": bool(deviation <= max_deviation), "n_seeds": matrix.shape[0],
        })
    columns = ["scenario", "criterion", "condition", "metric", "sub_score", "family", "property", "n_values",
               "largest_drop", "values_read", "at_value", "score_at", "ideal_at", "largest_excess", "deviation", "deviation_low",
               "deviation_high", "max_deviation", "robust", "n_seeds"]
    order = {criterion: rank for rank, criterion in enumerate(conditions)}
    leveled = intervals.leveled_table(
        rows, ends, intervals.looks_by_metric(frame), columns,
        lambda table: (table.assign(_order=table["criterion"].map(order))
                       .sort_values(["_order", "scenario", "metric", "sub_score"]).drop(columns="_order")
                       .reset_index(drop=True)))
    table = leveled.table
    table.attrs["notes"] = [note for _, note in notes]
    table.attrs["criteria_noted"] = [criterion for criterion, _ in notes]
    table.attrs["declared"] = sorted(declared)
    return leveled


def _deviation_ends(matrix: np.ndarray, ideal: np.ndarray, ceiling: float, distances: np.ndarray) -> intervals.RowEnds:
    """A curve's ``deviation_low`` and ``deviation_high`` at any number of looks: the interval of its largest distance
    from the ideal, from each point's (:func:`reports.analyses.intervals.largest_interval`)."""
    def ends_at(looks: int) -> dict[str, float]:
        low, high = intervals.largest_interval(
            lambda looks_read: intervals.distance_ends(*intervals.column_mean_intervals(matrix, looks_read), ideal,
                                                       (0.0, ceiling)),
            distances, looks)
        return {"deviation_low": low, "deviation_high": high}

    return ends_at


def values_read(parameter: str, labels: pd.Series) -> str:
    """The range of a curve's values read, from its first to its last label (in value order): ``"alpha 0 to 0.5"``."""
    return f"{parameter} {labels.iloc[0]} to {labels.iloc[-1]}"


def ranges_read(table: pd.DataFrame) -> str:
    """Each scenario of a :func:`robustness` table with the ranges its verdicts read, per range, as a caption says it:
    ``"noise: alpha 0 to 0.5; nonlinear: alpha 0 to 1"`` (the properties named where a scenario's ranges differ);
    ``""`` for an empty table."""
    parts = []
    for scenario, rows in table.groupby("scenario", sort=False):
        spans = rows.groupby("values_read", sort=False)["property"].unique()
        parts.append(f"{scenario}: " + (spans.index[0] if len(spans) == 1 else ", ".join(
            f"{span} ({', '.join(sorted(props))})" for span, props in spans.items())))
    return "; ".join(parts)


def _untested(criteria: Sequence[str]) -> str:
    """Why the analysis of ``criteria`` is not computed, named as its section is (the attacks have their own)."""
    tested = criteria[0] if len(criteria) == 1 else f"one of {', '.join(criteria)}"
    analysis = "following entanglement attacks" if list(criteria) == ["attacks"] else "robustness"
    return f"{analysis} needs a scenario testing {tested}; no scenario of the results declares one"


def of_conditions(table: pd.DataFrame | None, criteria: Sequence[str]) -> pd.DataFrame:
    """The rows and notes of a :func:`robustness` table of every condition that concern ``criteria`` alone: the
    table :func:`robustness` gives with those conditions, without computing it again.

    Raises
    ------
    MissingDataError
        When no scenario tests one of ``criteria`` (``table`` None: none tests any condition).
    """
    if table is None or not set(table.attrs["declared"]) & set(criteria):
        raise MissingDataError(_untested(criteria))
    rows = table.loc[table["criterion"].isin(criteria)].reset_index(drop=True)
    rows.attrs = {"notes": [note for criterion, note in zip(table.attrs["criteria_noted"], table.attrs["notes"])
                            if criterion in criteria]}
    return rows
