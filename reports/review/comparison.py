"""The review's Table 2 beside the verdicts measured here: cell by cell, agreement, and every disagreement's evidence.

A view of the verdict table (:mod:`reports.verdicts.verdict_table`): each published cell of
:func:`reports.review.published.published_table` is set beside the measured verdict of the same metric
and characteristic (the property matrix's, pooled over the metric's sub-scores).  A cell

* **agrees** when the marks are the same (a measured "—", no sub-score for the property, reads as the
  review's ✗: the metric does not measure it);
* **disagrees** when they differ: the disagreement carries the number that decided the measured verdict,
  its threshold and where it was decided, and, where this project's rule differs from the review's
  (:data:`RULE_DIFFERENCES`), that rule;
* is **undecided** when the measured verdict is (its interval straddles the threshold), **unmeasured** when the
  results cannot judge it, **missing** when the results lack the metric.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from reports.results.display import SYMBOLS
from reports.review.published import COLUMNS, METRICS, published_table
from reports.verdicts.verdict_table import Bundle

#: Agreement of a cell, in the order the summary counts them.
AGREEMENTS = ("agree", "disagree", "undecided", "unmeasured", "missing")
#: What a cell shows between the published and the measured mark.
SIGNS = {"agree": "=", "disagree": "≠"}
#: A measured mark as the review would print it ("absent": the metric has no sub-score for the property, ✗).
AS_PRINTED = {"yes": "✓", "no": "✗", "absent": "✗", "n/a": "n/a"}
_PROPERTY_KEYS = ("modularity", "compactness", "explicitness")


@dataclass(frozen=True)
class RuleDifference:
    """Where this project's rule for a characteristic differs from the review's, and for which metrics.

    Attributes
    ----------
    characteristics : tuple of str
        The characteristics it concerns.
    scores : {"holistic", "any"}
        The metrics it concerns: those whose sub-scores are all holistic, or every one.
    text : str
        The project's rule, against the review's.
    """

    characteristics: tuple[str, ...]
    scores: str
    text: str


#: The characteristics whose rule here differs from the review's (section 6.2: "it has to be true by design
#: and not disproven experimentally"), each stated once.
RULE_DIFFERENCES = (
    RuleDifference(_PROPERTY_KEYS, "holistic",
                   "a holistic score is judged against the ideal of every property (ρ and slope on each trajectory, "
                   "excess on level comparisons); the review credits a holistic metric with the properties it is "
                   "designed to capture"),
    RuleDifference(("robust_noise",), "holistic",
                   "kept: a holistic score is n/a under noise: its explicitness part should fall with the noise (review "
                   "section 3: explicitness metrics should reflect the amount of noise), so the scenario states no "
                   "single ideal for it and its fall is no evidence against robustness; the review judges JEMMIG and "
                   "DCIMIG ✗ there, but robustness n/a for IRS and SAP, which mix explicitness in too; the binning's "
                   "part of their fall is judged by Discretization-free"),
    RuleDifference(("discretization_free",), "any",
                   "measured: a metric whose options include no discretisation is discretization-free by design, and "
                   "a binned metric is discretization-free when a bins sweep moves no score by more than 0.1; the "
                   "review marks every binned metric ✗ by design"),
    RuleDifference(("few_hyperparameters",), "any",
                   "counted on the sweeps: at most one swept option moves a score by more than 0.1 (the binning counts "
                   "as one option, and is judged again only by Discretization-free); the review counts the parameters "
                   "a metric's design asks for"),
)
#: Columns of :func:`review_comparison`.
COMPARISON_COLUMNS = ["review_metric", "references", "metric", "heading", "characteristic", "published", "measured",
                      "agreement", "verdict", "number", "threshold", "evidence", "rule"]


def _holistic(bundle: Bundle) -> set[str]:
    """The metrics whose every sub-score is holistic."""
    properties = bundle.verdicts.drop_duplicates(["metric", "sub_score"]).groupby("metric")["property"].agg(set)
    return {metric for metric, held in properties.items() if held == {"holistic"}}


def rule_difference(characteristic: str, holistic: bool) -> str:
    """This project's rule for ``characteristic`` where it differs from the review's for such a metric ("" where not)."""
    return "; ".join(entry.text for entry in RULE_DIFFERENCES
                     if characteristic in entry.characteristics and (entry.scores == "any" or holistic))


def review_comparison(bundle: Bundle) -> pd.DataFrame:
    """Every published cell of the review's Table 2 beside the measured verdict.

    Parameters
    ----------
    bundle : reports.verdicts.bundle.Bundle
        The analyses and verdicts of a results table.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COMPARISON_COLUMNS`, one row per published cell and project metric (the MIG-RMIG row
        twice: ``mig`` and ``rmig``), in the printed order: the printed ``published`` mark, the ``measured`` one
        as the review would print it (✓, ✗, n/a; ≈ undecided, ? unmeasured, empty when the metric is missing),
        ``agreement`` (one of :data:`AGREEMENTS`), the measured ``verdict`` (:mod:`reports.analyses.checks`'s mark), the
        ``number`` and ``threshold`` that decided it, its ``evidence``, and ``rule``: this project's rule where it
        differs from the review's for that metric and characteristic (:data:`RULE_DIFFERENCES`).
    """
    published = published_table()
    measured = {(metric, key): verdict for metric, _, key, verdict in bundle.metric_verdicts.itertuples(index=False)}
    holistic = _holistic(bundle)
    records = []
    for row in published.itertuples(index=False):
        verdict = measured.get((row.metric, row.characteristic))
        record = {column: getattr(row, column) for column in ("review_metric", "references", "metric", "heading",
                                                               "characteristic", "published")}
        if verdict is None:
            record.update(measured="", agreement="missing", verdict="", number="", threshold="",
                          evidence=f"{row.metric} is not in the results", rule="")
        else:
            printed = AS_PRINTED.get(verdict.mark)
            agreement = ("undecided" if verdict.mark == "undecided" else "unmeasured" if printed is None
                         else "agree" if printed == row.published else "disagree")
            text = verdict.record()
            record.update(measured=printed or SYMBOLS[verdict.mark], agreement=agreement, verdict=verdict.mark,
                          number=text["number"], threshold=text["threshold"], evidence=text["evidence"],
                          rule=rule_difference(row.characteristic, row.metric in holistic))
        records.append(record)
    return pd.DataFrame(records, columns=COMPARISON_COLUMNS)


def agreement_counts(comparison: pd.DataFrame) -> dict[str, int]:
    """How many cells of a :func:`review_comparison` table fall in each of :data:`AGREEMENTS`."""
    counts = comparison["agreement"].value_counts()
    return {agreement: int(counts.get(agreement, 0)) for agreement in AGREEMENTS}


def agreement_sentence(comparison: pd.DataFrame) -> str:
    """The summary's line: how many of the compared cells agree, and how many differ, are undecided or unmeasured
    (cells of metrics the results lack are not compared, and named)."""
    counts = agreement_counts(comparison)
    compared = len(comparison) - counts["missing"]
    others = ", ".join(f"{counts[name]} {name}" for name in AGREEMENTS[1:-1] if counts[name])
    lacking = sorted(set(comparison.loc[comparison["agreement"] == "missing", "metric"]))
    as_measured = [name for name in ("mig", "rmig") if name in set(compared_rows(comparison)["metric"])]
    notes = ([others] if others else []) + (
        [f"MIG-RMIG compared as {' and as '.join(as_measured)}"] if as_measured else [])  # not as a metric not run
    return (f"The review's Table 2 (Zaidi et al. 2022): {counts['agree']} of {compared} cells agree with the "
            f"measurements" + (f" ({'; '.join(notes)})" if notes else "")
            + (f"; the review's metrics this run did not include, not compared: {', '.join(lacking)}" if lacking else "")
            + ".")


def compared_rows(comparison: pd.DataFrame) -> pd.DataFrame:
    """The cells of a :func:`review_comparison` table that are compared: those of the metrics the results hold (the
    others are named once, by :func:`agreement_sentence`, not listed against a missing measurement)."""
    return comparison.loc[comparison["agreement"] != "missing"]


def _row_label(review_metric: str, references: str, metric: str) -> str:
    return f"{review_metric} [{references}]" + (f" ({metric})" if len(METRICS[review_metric]) > 1 else "")


def _cell(published: str, measured: str, agreement: str) -> str:
    """``✓ = ✓`` (agree), ``✓ ≠ ✗`` (disagree), ``✓ vs ≈`` (undecided), ``✓ vs ?`` (unmeasured)."""
    return f"{published} {SIGNS.get(agreement, 'vs')} {measured}"


def comparison_display(comparison: pd.DataFrame) -> pd.DataFrame:
    """The side by side as text: one row per printed row and project metric the results hold
    (:func:`compared_rows`), one column per printed heading, each cell ``published sign measured`` (:func:`_cell`),
    with the project's metric name and the row's agreement count."""
    comparison = compared_rows(comparison)
    cells = comparison.assign(
        row=[_row_label(r, ref, m) for r, ref, m in zip(comparison["review_metric"], comparison["references"],
                                                         comparison["metric"])],
        cell=[_cell(p, m, a) for p, m, a in zip(comparison["published"], comparison["measured"], comparison["agreement"])],
    )
    order = list(dict.fromkeys(cells["row"]))
    wide = cells.pivot(index="row", columns="heading", values="cell").reindex(order)[list(COLUMNS)]
    agree = cells.groupby("row", sort=False)["agreement"].agg(lambda marks: f"{(marks == 'agree').sum()} of {len(marks)}")
    metric = cells.drop_duplicates("row").set_index("row")["metric"]
    wide.insert(0, "Metric", metric.reindex(order))
    wide["Agree"] = agree.reindex(order)
    return wide.reset_index().rename(columns={"row": "Review (Table 2)"})


def comparison_paper(comparison: pd.DataFrame) -> pd.DataFrame:
    """The side by side for a paper's LaTeX table, of the metrics the results hold (:func:`compared_rows`): each cell
    the published and the measured mark (``✓/✗``), the disagreeing ones starred."""
    comparison = compared_rows(comparison)
    shown = comparison.assign(cell=[f"{p}/{m}{'*' if a == 'disagree' else ''}" for p, m, a in
                                    zip(comparison["published"], comparison["measured"], comparison["agreement"])])
    shown = shown.assign(row=[_row_label(r, ref, m) for r, ref, m in zip(shown["review_metric"], shown["references"],
                                                                          shown["metric"])])
    order = list(dict.fromkeys(shown["row"]))
    wide = shown.pivot(index="row", columns="heading", values="cell").reindex(order)[list(COLUMNS)]
    return wide.reset_index().rename(columns={"row": "Metric"})


def disagreements(comparison: pd.DataFrame) -> pd.DataFrame:
    """Every disagreeing cell as display text: the review's row, the metric, the characteristic, both marks, the
    number and threshold that decided the measurement, where, and the project's rule where it differs."""
    rows = comparison.loc[comparison["agreement"] == "disagree"]
    shown = rows.assign(decided=[f"{n} ({t})" if n else "" for n, t in zip(rows["number"], rows["threshold"])])
    return shown[["review_metric", "metric", "heading", "published", "measured", "decided", "evidence", "rule"]].rename(
        columns={"review_metric": "Review row", "metric": "Metric", "heading": "Characteristic",
                 "published": "Published", "measured": "Measured", "decided": "Decided by", "evidence": "Where",
                 "rule": "Our rule, where it differs"}).reset_index(drop=True)
