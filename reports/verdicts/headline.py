"""The headline: one row per sub-score, one column per criterion, sentences naming the clearest pass and the worst, and
a flag on every sub-score with a score outside the range its metric declares.

A view of the verdict table (:mod:`reports.verdicts.verdict_table`): each cell pools a sub-score's verdicts on
the characteristics of one column (the same rules and thresholds as the property matrix, which
pools whole metrics), plus the metric's median cost per call.  Lower-is-better sub-scores are
judged as ``1 - score``, as everywhere in the report.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.analyses.checks import JUDGED, UNDEFINED, Check, format_against
from reports.analyses.score_ranges import outside_ranges, range_flag
from reports.analyses.thresholds import Thresholds
from reports.results.display import ABSENT, SYMBOLS
from reports.results.table import check_results, score_label
from reports.verdicts.bundle import Bundle, bundle_for
from reports.verdicts.characteristics import HEADINGS
from reports.verdicts.verdict_table import HEADLINE_COLUMNS, headline_verdicts

#: Criterion -> column heading of the headline, in order.
CRITERIA = {**HEADLINE_COLUMNS, "cost": "Seconds per call"}
COLUMNS = ["metric", "sub_score", "family", "property", "higher_is_better", "criterion", "verdict", "passed",
           "statistic", "value", "comparison", "limit", "margin", "interval_low", "interval_high", "number", "threshold",
           "evidence"]


def headline(results: pd.DataFrame | Bundle, thresholds: Thresholds = Thresholds()) -> pd.DataFrame:
    """Every sub-score's verdict per criterion: the table of the report's first section.

    Parameters
    ----------
    results : pandas.DataFrame or reports.verdicts.bundle.Bundle
        A results table (validated by :func:`reports.check_results`; each swept metric is judged
        at its default options), or the bundle of its analyses.
    thresholds : Thresholds, optional
        The verdicts' thresholds (those of :func:`reports.verdicts.property_matrix` by default; a
        bundle's own are used for a bundle).

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per (metric, sub_score, criterion of :data:`CRITERIA`) with the
        columns of the property matrix (``verdict``, ``passed``, ``statistic``,
        ``value``, ``comparison``, ``limit``, ``margin``, ``interval_low``, ``interval_high``,
        ``number``, ``threshold``, ``evidence``).  ``follows`` judges the sub-score against the
        ideal of the property it measures (all three for a holistic score); ``robust`` pools
        the noise, nonlinear-map and non-measured-factor conditions; ``cost`` has the
        metric's median seconds per call in ``value`` and no verdict.
    """
    bundle = bundle_for(results, thresholds)
    seconds = bundle.cost.frame.set_index("metric")["median_seconds"] if bundle.cost.table is not None else pd.Series()
    rows = []
    for _score, cells in headline_verdicts(bundle).groupby(["metric", "sub_score"], sort=False):
        first = cells.iloc[0]
        key = {"metric": first["metric"], "sub_score": first["sub_score"], "family": first["family"],
               "property": first["property"], "higher_is_better": bool(first["higher_is_better"])}
        rows += [{**key, "criterion": criterion, **verdict.record()}
                 for criterion, verdict in zip(cells["criterion"], cells["verdict"])]
        median = float(seconds.get(first["metric"], np.nan))
        rows.append({**key, "criterion": "cost", "verdict": "", "passed": np.nan, "statistic": "median seconds per call",
                     "value": median, "comparison": "", "limit": np.nan, "margin": np.nan, "interval_low": np.nan,
                     "interval_high": np.nan, "number": _seconds(median), "threshold": "",
                     "evidence": "whole metric call"})
    return pd.DataFrame(rows, columns=COLUMNS)


def _seconds(value: float, unit: str = " s") -> str:
    """Two significant digits below 10 (0.14 s, 2.3 s; 0.1359 read "0.1 s" while 0.095 read "0.095 s"), whole
    seconds above."""
    if not np.isfinite(value):
        return ABSENT
    return f"{value:.2g}{unit}" if value < 10 else f"{value:.0f}{unit}"


def _decisive(row: dict) -> Check:
    """The check closest to failing of a tidy headline row (as :meth:`reports.analyses.checks.Verdict.record` wrote it)."""
    interval = (row["interval_low"], row["interval_high"])
    return Check(row["statistic"], row["value"], row["comparison"], row["limit"],
                 interval=interval if np.isfinite(interval).all() else None)


def _compact(row: dict) -> str:
    """A cell of the compact headline: the mark and the statistic closest to its threshold (seconds bare)."""
    if row["criterion"] == "cost":
        return _seconds(row["value"], unit="")
    if row["verdict"] not in JUDGED:
        return SYMBOLS[row["verdict"]]
    number = format_against(row["value"], row["comparison"], row["limit"])
    return f"{SYMBOLS[row['verdict']]} {'undef.' if number == UNDEFINED else number}"


def headline_display(table: pd.DataFrame, *, compact: bool = False) -> pd.DataFrame:
    """The headline as text: one row per sub-score, a mark and the deciding numbers per criterion.

    ``compact`` (a paper's LaTeX table, which must fit a page's line) shows one number per
    cell: the statistic closest to its threshold (``undef.`` when undefined), and the
    seconds without their unit.
    """
    texts = ([_compact(row) for row in table.to_dict("records")] if compact else
             [f"{SYMBOLS.get(v, '')} {n}".strip() for v, n in zip(table["verdict"], table["number"])])  # cost: no mark
    cells = table.assign(cell=texts)
    labels = [score_label(m, s, h) for m, s, h in zip(cells["metric"], cells["sub_score"], cells["higher_is_better"])]
    cells = cells.assign(score=labels)
    order = list(dict.fromkeys(labels))
    wide = cells.pivot(index="score", columns="criterion", values="cell").reindex(order)
    properties = cells.drop_duplicates("score").set_index("score")["property"].reindex(order)
    wide = wide.reindex(columns=list(CRITERIA)).rename(columns=CRITERIA)
    wide.insert(0, "Measures", properties)
    return wide.reset_index().rename(columns={"score": "Sub-score"})


def range_lines(results: pd.DataFrame | Bundle) -> list[str]:
    """The headline's flags, before its sentences: one line per sub-score with a score outside the range its metric
    declares (:func:`reports.analyses.score_ranges.outside_ranges`: a built-in's registration; option variants included), the
    extreme score and where it was scored."""
    table = results.results if isinstance(results, Bundle) else check_results(results)
    return [f"⚠ {range_flag(row)}" for row in outside_ranges(table).to_dict("records")]


def headline_sentences(table: pd.DataFrame, bundle: Bundle | None = None) -> list[str]:
    """Per criterion: how many sub-scores pass, and the clearest pass and the worst, with their numbers.

    The clearest pass is the sub-score farthest past its thresholds, which is not the one closest to its ideal: a slope
    of 2 (a score falling twice as fast as its ideal) passes "slope ≥ 0.5" more clearly than a slope of 1 (where no
    sub-score passes, the one closest to passing).  Sub-scores are ranked by their check closest to failing, then, on equal ones, by their next checks (with
    ``bundle``, the Bundle ``table`` is the headline of, which holds every check; without it, by that check alone): where
    every ρ is 1.00, the worst is the one of lowest slope, not the last in the table.
    """
    pooled = ({(row.metric, row.sub_score, row.criterion): row.verdict for row in headline_verdicts(bundle).itertuples()}
              if bundle is not None else {})

    def rank(row: dict) -> list[tuple[int, bool, float]]:  # ascending: closest to failing first
        verdict = pooled.get((row["metric"], row["sub_score"], row["criterion"]))
        checks = verdict.checks if verdict is not None and verdict.checks else (_decisive(row),)
        return sorted(check.severity() for check in checks)

    sentences = []
    labels = {**HEADINGS, **CRITERIA}
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
        judged = rows.loc[rows["verdict"].isin(JUDGED)]
        if judged.empty:
            sentences.append(f"{labels[criterion]}: not measured ({rows['evidence'].iloc[0] if len(rows) else 'no rows'}).")
            continue
        ranked = sorted(judged.to_dict("records"), key=rank)
        worst_row, best = ranked[0], ranked[-1]
        passing = int((judged["verdict"] == "yes").sum())
        undecided = int((judged["verdict"] == "undecided").sum())
        leader = "clearest pass" if best["verdict"] == "yes" else "closest to passing"
        sentences.append(
            f"{labels[criterion]} ({judged['threshold'].iloc[0]}): {passing} of {len(judged)} sub-scores pass"
            f"{f' ({undecided} undecided)' if undecided else ''}; "
            f"{leader} {best['label']} ({best['number']}), worst {worst_row['label']} ({worst_row['number']})."
        )
    return sentences + unmeasured_sentences(table, bundle)


def unmeasured_sentences(table: pd.DataFrame, bundle: Bundle | None = None) -> list[str]:
    """A sentence naming the sub-scores that no criterion of the headline measures (a row of "?" but for its cost, which
    a reader would otherwise take for a gap in the table), with the scenarios they were scored on (with ``bundle``):
    UDR's, in the default study, scored on populations of models (``udr_population``), which no criterion reads."""
    criteria = table.loc[table["criterion"] != "cost"]
    if criteria.empty:
        return []
    measured = criteria["verdict"].isin(JUDGED).groupby([criteria["metric"], criteria["sub_score"]], sort=False).any()
    never = [(metric, sub_score) for (metric, sub_score), any_judged in measured.items() if not any_judged]
    if not never:
        return []
    where = ""
    if bundle is not None:
        results = bundle.results
        scored = results.loc[pd.MultiIndex.from_frame(results[["metric_base", "sub_score"]]).isin(never), "scenario"]
        if len(scored):
            where = f", scored on {', '.join(sorted(scored.astype(str).unique()))} only"
    names = ", ".join(score_label(metric, sub_score) for metric, sub_score in never)
    return [f"Measured by no criterion: {names}{where} (each criterion's reason: the evidence column of "
            "tables/headline.csv)."]
