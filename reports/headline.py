"""The headline: one row per sub-score, one column per criterion, and sentences naming the best and worst.

Every cell is a verdict of :mod:`reports.property_matrix` restricted to one sub-score
(the same rules and thresholds as the property matrix, which judges whole metrics),
plus the metric's median cost per call.  Lower-is-better sub-scores are judged as
``1 - score``, as everywhere in the report.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports._format import ABSENT
from reports._table import check_results, family_rank, score_label
from reports.cost import cost
from reports.property_matrix import CHARACTERISTICS, SYMBOLS, Thresholds, analysis_tables, judge
from reports._verdict import UNDEFINED, format_against
from reports.schema import IDEAL_PROPERTIES

#: Criterion -> column heading of the headline, in order.
CRITERIA = {
    "follows": "Follows its property's ideal",
    "calibrated": "Calibrated",
    "linear": "Linear",
    "robust": "Robust",
    "follows_attacks": "Follows entanglement attacks",
    "data_efficient": "Data efficient",
    "cost": "Seconds per call",
}
#: Characteristics of the property matrix pooled into the ``robust`` column.
_ROBUST_PARTS = ("robust_noise", "nonlinear_relation", "robust_non_measured")
COLUMNS = ["metric", "sub_score", "family", "property", "higher_is_better", "criterion", "verdict", "passed",
           "statistic", "value", "comparison", "limit", "margin", "number", "threshold", "evidence"]


def _pooled(rows: list[dict], criterion: str) -> dict:
    """One verdict from several: the judged ones must all pass; the one closest to failing is shown."""
    judged = [row for row in rows if row["verdict"] in ("yes", "no")]
    if not judged:
        verdicts = {row["verdict"] for row in rows}
        verdict = "n/a" if verdicts == {"n/a"} else "unmeasured"
        return {**rows[0], "characteristic": criterion, "verdict": verdict,
                "evidence": "; ".join(row["evidence"] for row in rows if row["evidence"])}
    decisive = min(judged, key=_margin_key)
    return {**decisive, "characteristic": criterion, "verdict": "yes" if all(r["passed"] for r in judged) else "no",
            "passed": all(row["passed"] for row in judged)}


def _margin_key(row: dict) -> tuple[bool, float]:
    """Sort key: undefined first, then the smallest margin relative to its threshold."""
    margin = row["margin"]
    if not np.isfinite(margin):
        return (False, 0.0)
    return (True, margin / max(abs(row["limit"]), 1e-12))


def headline(results: pd.DataFrame, thresholds: Thresholds = Thresholds()) -> pd.DataFrame:
    """Every sub-score's verdict per criterion: the table of the report's first section.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).
    thresholds : Thresholds, optional
        The verdicts' thresholds (those of :func:`reports.property_matrix` by default).

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per (metric, sub_score, criterion of :data:`CRITERIA`) with the
        columns of the property matrix (``verdict``, ``passed``, ``statistic``,
        ``value``, ``comparison``, ``limit``, ``margin``, ``number``, ``threshold``,
        ``evidence``).  ``follows`` judges the sub-score against the ideal of the
        property it measures (all three for a holistic score); ``robust`` pools the
        noise, nonlinear-map and non-measured-factor conditions; ``cost`` has the
        metric's median seconds per call in ``value`` and no verdict.
    """
    results = check_results(results)
    tables = analysis_tables(results, thresholds)
    seconds = cost(results).set_index("metric")["median_seconds"]
    keys = results[["metric", "sub_score", "family", "property", "higher_is_better"]].drop_duplicates(["metric", "sub_score"])
    keys = keys.assign(_rank=keys["family"].map(family_rank)).sort_values(["_rank", "metric", "sub_score"])
    rows = []
    for metric, sub_score, family, prop, higher in keys[["metric", "sub_score", "family", "property",
                                                         "higher_is_better"]].itertuples(index=False):
        own_tables = {name: table.loc[table["sub_score"] == sub_score] if not table.empty else table
                      for name, table in tables.items()}
        own_tables = {name: table.loc[table["metric"] == metric] if not table.empty else table
                      for name, table in own_tables.items()}
        judged = {row["characteristic"]: row for row in judge(metric, {prop}, own_tables, thresholds)}
        properties = IDEAL_PROPERTIES if prop == "holistic" else (prop,)
        verdicts = {
            "follows": _pooled([judged[p] for p in properties], "follows"),
            "calibrated": judged["calibrated"],
            "linear": judged["linear"],
            "robust": _pooled([judged[part] for part in _ROBUST_PARTS], "robust"),
            "follows_attacks": judged["follows_attacks"],
            "data_efficient": judged["data_efficient"],
        }
        for criterion, row in verdicts.items():
            rows.append({**row, "criterion": criterion, "sub_score": sub_score, "family": family, "property": prop,
                         "higher_is_better": bool(higher)})
        median = float(seconds.get(metric, np.nan))
        rows.append({"metric": metric, "sub_score": sub_score, "family": family, "property": prop,
                     "higher_is_better": bool(higher), "criterion": "cost", "verdict": "", "passed": np.nan,
                     "statistic": "median seconds per call", "value": median, "comparison": "", "limit": np.nan,
                     "margin": np.nan, "number": _seconds(median), "threshold": "", "evidence": "whole metric call"})
    return pd.DataFrame(rows)[COLUMNS]


def _seconds(value: float, unit: str = " s") -> str:
    if not np.isfinite(value):
        return ABSENT
    return f"{value:.2g}{unit}" if value < 0.1 else f"{value:.1f}{unit}"


def _compact(row: dict) -> str:
    """A cell of the compact headline: the mark and the statistic closest to its threshold (seconds bare)."""
    if row["criterion"] == "cost":
        return _seconds(row["value"], unit="")
    if row["verdict"] not in ("yes", "no"):
        return _SYMBOLS[row["verdict"]]
    number = format_against(row["value"], row["comparison"], row["limit"])
    return f"{_SYMBOLS[row['verdict']]} {'undef.' if number == UNDEFINED else number}"


_SYMBOLS = {**SYMBOLS, "": ""}  # the cost column has no verdict


def headline_display(table: pd.DataFrame, *, compact: bool = False) -> pd.DataFrame:
    """The headline as text: one row per sub-score, a mark and the deciding numbers per criterion.

    ``compact`` (a paper's LaTeX table, which must fit a page's line) shows one number per
    cell: the statistic closest to its threshold (``undef.`` when undefined), and the
    seconds without their unit.
    """
    texts = ([_compact(row) for row in table.to_dict("records")] if compact else
             [f"{_SYMBOLS[v]} {n}".strip() for v, n in zip(table["verdict"], table["number"])])
    cells = table.assign(cell=texts)
    labels = [score_label(m, s, h) for m, s, h in zip(cells["metric"], cells["sub_score"], cells["higher_is_better"])]
    cells = cells.assign(score=labels)
    order = list(dict.fromkeys(labels))
    wide = cells.pivot(index="score", columns="criterion", values="cell").reindex(order)
    properties = cells.drop_duplicates("score").set_index("score")["property"].reindex(order)
    wide = wide.reindex(columns=list(CRITERIA)).rename(columns=CRITERIA)
    wide.insert(0, "Measures", properties)
    return wide.reset_index().rename(columns={"score": "Sub-score"})


def headline_sentences(table: pd.DataFrame) -> list[str]:
    """Per criterion: how many sub-scores pass, and the best and worst, with their numbers."""
    sentences = []
    labels = {**CHARACTERISTICS, **CRITERIA}
    for criterion, heading in CRITERIA.items():
        rows = table.loc[table["criterion"] == criterion]
        names = [score_label(m, s) for m, s in zip(rows["metric"], rows["sub_score"])]
        rows = rows.assign(label=names)
        if criterion == "cost":
            timed = rows.loc[np.isfinite(rows["value"])].drop_duplicates("metric").sort_values("value")
            if len(timed) >= 2:
                fast, slow = timed.iloc[0], timed.iloc[-1]
                sentences.append(f"{heading}: fastest {fast['metric']} ({fast['number']}), slowest {slow['metric']} "
                                 f"({slow['number']}, {slow['value'] / max(fast['value'], 1e-12):.0f}× slower).")
            continue
        judged = rows.loc[rows["verdict"].isin(["yes", "no"])]
        if judged.empty:
            sentences.append(f"{labels[criterion]}: not measured ({rows['evidence'].iloc[0] if len(rows) else 'no rows'}).")
            continue
        keys = [_margin_key(row) for row in judged.to_dict("records")]
        ranked = judged.assign(_defined=[k[0] for k in keys], _margin=[k[1] for k in keys])
        ranked = ranked.sort_values(["_defined", "_margin"], ascending=[False, False])
        best, worst_row = ranked.iloc[0], ranked.iloc[-1]
        passing = int(judged["passed"].astype(bool).sum())
        sentences.append(
            f"{labels[criterion]} ({judged['threshold'].iloc[0]}): {passing} of {len(judged)} sub-scores pass; "
            f"best {best['label']} ({best['number']}), worst {worst_row['label']} ({worst_row['number']})."
        )
    return sentences
