"""Robustness: how far a score falls from its ideal under conditions that should not move it.

Zaidi et al. (2022), section 3: "Metrics that measure compactness or modularity should
be tolerant to noise" (experiment 5.2), should capture nonlinear relations (5.5, the
tan map of eq. 10) and tolerate non-measured factors (5.6).  Tokui and Sato (2022),
section 4: entanglement attacks (eqs. 9 and 10), where a modularity score should follow
the injected entanglement rather than stay high.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from reports._table import MissingDataError, check_results, at_largest_n, ideal_table, seed_summary

#: Scenario -> the condition it tests, in report order.
CONDITIONS = {
    "noise": "noise",
    "nonlinear": "nonlinear tan map",
    "partial": "partial factors",
    "redundancy_attack": "redundancy attack",
    "synergy_attack": "synergy attack",
    "gaussian_toy_redundancy": "redundancy attack (Gaussian toy)",
    "gaussian_toy_synergy": "synergy attack (Gaussian toy)",
}
#: Parameter range read per scenario.  Under noise, beyond alpha = 0.5 the noise
#: variance exceeds the signal's and the code is mostly noise: calibration wants a
#: null score there (review section 3), so robustness is judged on alpha <= 0.5.
DEFAULT_VALUE_RANGES = {"noise": (0.0, 0.5)}

#: Default largest tolerated |score - ideal|.
MAX_DEVIATION = 0.2

DISPLAY_COLUMNS = {
    "condition": "Condition",
    "metric": "Metric",
    "sub_score": "Sub-score",
    "property": "Property",
    "largest_drop": "Largest drop",
    "at_value": "at",
    "largest_excess": "Largest excess",
    "robust": "Robust",
}


def robustness(
    results: pd.DataFrame,
    *,
    properties: tuple[str, ...] = ("modularity", "compactness"),
    max_deviation: float = MAX_DEVIATION,
    conditions: Mapping[str, str] = CONDITIONS,
    value_ranges: Mapping[str, tuple[float, float]] = DEFAULT_VALUE_RANGES,
) -> pd.DataFrame:
    """Largest drop of each sub-score below its ideal, per condition.

    For each condition scenario present, each sub-score whose property is in
    ``properties`` and whose ideal is known, the mean score over seeds (oriented so
    higher is better) is compared with the ideal at every value in range:
    ``drop = ideal - score``.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).
    properties : tuple of str, default ("modularity", "compactness")
        Which sub-scores to judge.  Holistic sub-scores can be judged only where the
        scenario's three ideals agree (see :func:`reports._table.ideal_table`).
    max_deviation : float, default 0.2
        ``robust`` is true when the score stays within ``max_deviation`` of its ideal
        at every value: the largest drop and the largest excess (``score - ideal``,
        which matters under attacks, where the ideal falls) are both at most this.
    conditions : Mapping[str, str], default :data:`CONDITIONS`
        Scenario name -> condition label.
    value_ranges : Mapping[str, tuple[float, float]], default ``{"noise": (0, 0.5)}``
        Inclusive parameter range read per scenario; the others are read entirely.

    Returns
    -------
    pandas.DataFrame
        One row per (scenario, metric, sub_score): condition, family, property,
        ``n_values``, ``largest_drop`` (negative when the score never falls below
        the ideal), ``at_value`` (label of the worst value), ``score_at`` and
        ``ideal_at`` there, ``largest_excess`` and ``robust``.  ``attrs["notes"]``
        lists the conditions absent from the results.

    Raises
    ------
    MissingDataError
        When none of the conditions is in the results.

    Notes
    -----
    A score that is not calibrated at the perfect end carries that offset into every
    drop.  Each scenario is read at its largest sample size.  Cost: one group-by.
    """
    frame = at_largest_n(check_results(results))
    present = [scenario for scenario in conditions if scenario in set(frame["scenario"])]
    if not present:
        raise MissingDataError(f"robustness needs at least one of the scenarios {', '.join(conditions)}; none is in the results")
    notes = [f"condition {conditions[s]!r} not measured: no {s!r} scenario in the results" for s in conditions if s not in present]
    rows_in = frame.loc[frame["scenario"].isin(present) & frame["property"].isin(properties)]
    ranged = []
    for scenario, rows in rows_in.groupby("scenario"):
        low, high = value_ranges.get(scenario, (-np.inf, np.inf))
        ranged.append(rows.loc[(rows["value"] >= low - 1e-12) & (rows["value"] <= high + 1e-12)])
    summary = seed_summary(pd.concat(ranged) if ranged else rows_in,
                           ["scenario", "value", "value_label", "metric", "sub_score", "family", "property"])
    summary = summary.merge(ideal_table(frame), on=["scenario", "value", "property"], how="left")
    unjudged = summary.loc[summary["ideal"].isna(), ["scenario", "metric", "sub_score"]].drop_duplicates()
    notes += [f"{m}/{s} under {conditions[c]!r}: the scenario states no ideal for it" for c, m, s in unjudged.itertuples(index=False)]
    summary = summary.loc[summary["ideal"].notna()]
    rows = []
    for (scenario, metric, sub_score, family, prop), curve in summary.groupby(["scenario", "metric", "sub_score", "family", "property"]):
        drop = (curve["ideal"] - curve["mean"]).to_numpy()
        worst = int(np.argmax(drop))
        excess = float(np.max(-drop))
        rows.append({
            "scenario": scenario, "condition": conditions[scenario], "metric": metric, "sub_score": sub_score,
            "family": family, "property": prop, "n_values": len(curve), "largest_drop": float(drop[worst]),
            "at_value": curve["value_label"].iloc[worst], "score_at": float(curve["mean"].iloc[worst]),
            "ideal_at": float(curve["ideal"].iloc[worst]), "largest_excess": excess,
            "robust": bool(max(drop[worst], excess) <= max_deviation),
        })
    columns = ["scenario", "condition", "metric", "sub_score", "family", "property", "n_values", "largest_drop",
               "at_value", "score_at", "ideal_at", "largest_excess", "robust"]
    table = pd.DataFrame(rows, columns=columns)
    order = {scenario: rank for rank, scenario in enumerate(conditions)}
    table = table.sort_values(["scenario", "metric", "sub_score"], key=lambda c: c.map(order) if c.name == "scenario" else c)
    table = table.reset_index(drop=True)
    table.attrs["notes"] = notes
    return table
