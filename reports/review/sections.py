"""The report's sections that set the review's published tables beside the measurements.

* :func:`table_2_sections`: Zaidi et al. (2022) Table 2 cell by cell beside the verdicts measured here
  (:mod:`reports.review.comparison`), and every disagreement with the number that decided it;
* :func:`table_1_sections`: its Table 1 (section 5.4, modular but not compact) beside the scores measured on
  the scenario that reproduces it;
* :func:`agreement_line`: the sentence the report opens with.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.results.display import Section
from reports.results.table import MissingDataError, at_largest_n, provenance, seed_summary
from reports.review.comparison import (
    RULE_DIFFERENCES,
    agreement_counts,
    agreement_sentence,
    compared_rows,
    comparison_display,
    comparison_paper,
    disagreements,
    review_comparison,
)
from reports.review.published import LINES, METRICS, TABLE_1, TABLE_1_CASES, TABLE_1_COLUMN_OF, TABLE_1_COLUMNS, TABLE_1_EXPERIMENT
from reports.verdicts.verdict_table import Bundle, verdict_sources

#: Largest |measured − printed| of a Table 1 cell counted as reproducing it: the printed values are rounded to one
#: decimal (± 0.05), and seeds and sample sizes move the measured means by a few hundredths more.
TABLE_1_TOLERANCE = 0.1
_RULES = " ".join(f"{'; '.join(entry.characteristics).replace('_', ' ')}"
                  f"{' (holistic scores)' if entry.scores == 'holistic' else ''}: {entry.text}."
                  for entry in RULE_DIFFERENCES)
TABLE_2_DESCRIPTION = (
    "Zaidi et al. (2022), Table 2, as printed (✓, ✗, n/a), beside the verdicts measured here (the property matrix's, "
    "each pooled over the metric's sub-scores). Each cell reads published = measured where they agree, published ≠ "
    "measured where they differ, published vs ≈ (undecided: the number's interval straddles its threshold) or vs ? "
    "(not measured by the results). A measured — (the metric has no sub-score for the property) reads as the "
    "review's ✗. The printed row MIG-RMIG is compared with mig and with rmig. The review's rule (section 6.2): a "
    "metric has a characteristic when it is true by design and not disproven experimentally; here every verdict is "
    "decided by a measured number and a threshold (see the property matrix). Followed from the review: SAP measures "
    "compactness and explicitness (registered holistic; under noise it follows the explicitness ideal), and few "
    "hyper-parameters counts options, not spreads. Where the rules differ: " + _RULES +
    " Every cell with its number, threshold and evidence: tables/review_table2.csv; the disagreements are listed in "
    "the next section.")
DISAGREEMENT_DESCRIPTION = (
    "Every cell of the review's Table 2 that the measurements contradict: the printed and the measured mark, the "
    "number and threshold that decided the measured verdict, where it was decided, and this project's rule where it "
    "differs from the review's.")
TABLE_1_DESCRIPTION = (
    f"Zaidi et al. (2022), Table 1 (section 5.4): scores of codes that are modular and explicit but not compact, as "
    f"printed (one decimal) / measured here on the scenario {TABLE_1_EXPERIMENT.scenario} (mean over seeds at its "
    f"largest n; the printed MIG-RMIG column compared with mig and with rmig). A cell within {TABLE_1_TOLERANCE:g} of "
    "the printed value reproduces it. The metric modules' docstrings say where an implementation departs from the "
    "review's code on purpose (e.g. DCI-lasso's modularity of cos/sin codes).")
#: Where the Table 1 section's cells are (:attr:`reports.results.display.Section.where`).
TABLE_1_WHERE = "Each cell with its standard deviation and difference: tables/review_table1.csv."


def _reviewed(bundle: Bundle) -> bool:
    """Whether the results hold any metric of the review's Table 2."""
    held = set(bundle.judged["metric"])
    return any(metric in held for metrics in METRICS.values() for metric in metrics)


def agreement_line(bundle: Bundle) -> str | None:
    """How many cells of the review's Table 2 the measurements agree with (None when the results hold none of its
    metrics): the report's first line."""
    return agreement_sentence(review_comparison(bundle)) if _reviewed(bundle) else None


def table_2_sections(bundle: Bundle) -> list[Section]:
    """The side by side of the review's Table 2 and the list of its disagreements (none when the results hold none
    of the review's metrics: a study of other metrics has nothing to compare)."""
    title = "The review's Table 2 beside the measurements"
    if not _reviewed(bundle):
        return []
    comparison = review_comparison(bundle)
    compared = compared_rows(comparison)  # the metrics the results lack are named once, in the first line
    sources = provenance(bundle.judged, verdict_sources(bundle))
    counts = agreement_counts(comparison)
    by_column = compared.groupby("heading", sort=False)["agreement"].agg(
        lambda marks: f"{int((marks == 'agree').sum())} of {len(marks)}")
    lines = [agreement_sentence(comparison),
             "Agreeing cells per column: " + "; ".join(f"{heading} {count}" for heading, count in by_column.items()) + "."]
    listed = disagreements(comparison)
    side = Section("review_table2", title, TABLE_2_DESCRIPTION, table=compared, display=comparison_display(comparison),
                   lines=lines, paper=comparison_paper(comparison), provenance=sources,
                   paper_note="each cell: printed / measured mark, * where they differ")
    listing = Section("review_disagreements", f"Disagreements with the review's Table 2 ({counts['disagree']})",
                      DISAGREEMENT_DESCRIPTION, table=comparison.loc[comparison["agreement"] == "disagree"],
                      display=listed, provenance=sources,
                      notes=[] if counts["disagree"] else ["No cell disagrees."])
    return [side, listing]


def table_1(results: pd.DataFrame) -> pd.DataFrame:
    """The review's Table 1 beside the scores measured on its scenario.

    Parameters
    ----------
    results : pandas.DataFrame
        A checked results table, swept metrics at their defaults.

    Returns
    -------
    pandas.DataFrame
        One row per (case, review metric's curve): ``case`` (the scenario's value), ``printed_case``, ``column`` (Table 1's
        heading), ``metric``, ``sub_score``, ``published``, ``measured`` (mean over seeds at the largest n; NaN when the
        results lack the metric), ``std``, ``n_seeds``, ``difference`` (measured − published) and ``reproduced``
        (|difference| ≤ :data:`TABLE_1_TOLERANCE`; None where the metric is missing: it read False, a failure).

    Raises
    ------
    reports.MissingDataError
        When the results lack the scenario or every metric of the table.
    """
    rows = at_largest_n(results.loc[results["scenario"] == TABLE_1_EXPERIMENT.scenario])
    if rows.empty:
        raise MissingDataError(f"no {TABLE_1_EXPERIMENT.scenario} scenario in the results")
    summary = seed_summary(rows, ["value_label", "metric", "sub_score"]).set_index(["value_label", "metric", "sub_score"])
    records = []
    for case, printed in TABLE_1.items():
        for line in LINES:
            column = TABLE_1_COLUMN_OF[line]
            key = (case, line.metric, line.sub_score)
            measured = summary.loc[key] if key in summary.index else None
            published = printed[TABLE_1_COLUMNS.index(column)]
            mean = float(measured["mean"]) if measured is not None else np.nan
            records.append({"case": case, "printed_case": TABLE_1_CASES[case], "column": column, "metric": line.metric,
                            "sub_score": line.sub_score, "published": published, "measured": mean,
                            "std": float(measured["std"]) if measured is not None else np.nan,
                            "n_seeds": int(measured["n_seeds"]) if measured is not None else 0,
                            "difference": mean - published,  # not measured: neither reproduced nor not
                            "reproduced": bool(abs(mean - published) <= TABLE_1_TOLERANCE) if measured is not None
                            else None})
    table = pd.DataFrame(records)
    if table["measured"].isna().all():
        raise MissingDataError(f"no metric of the review's Table 1 in scenario {TABLE_1_EXPERIMENT.scenario}")
    return table


def table_1_display(table: pd.DataFrame) -> pd.DataFrame:
    """Table 1 as printed / measured, turned a quarter: one row per printed heading (MIG-RMIG's split into its two
    metrics), one column per case, each cell ``1.0 / 0.98`` (— where the results lack the metric); the printed
    table's seventeen headings side by side overflow a page, its few cases do not."""
    heading = [column if column != "MIG-RMIG" else f"MIG-RMIG ({metric})"
               for column, metric in zip(table["column"], table["metric"])]
    cells = table.assign(heading=heading, cell=[f"{p:.1f} / {'—' if np.isnan(m) else f'{m:.2f}'}"
                                                for p, m in zip(table["published"], table["measured"])])
    wide = cells.pivot(index="heading", columns="printed_case", values="cell")
    wide = wide.reindex(index=list(dict.fromkeys(heading)), columns=list(dict.fromkeys(cells["printed_case"])))
    return wide.reset_index().rename(columns={"heading": "Metric (printed / measured)"}).rename_axis(columns=None)


def table_1_sections(bundle: Bundle) -> list[Section]:
    """The Table 1 section, or a note saying what the results lack (none when the results hold none of the review's
    metrics)."""
    title = "The review's Table 1 beside the measurements (section 5.4)"
    if not _reviewed(bundle):
        return []
    try:
        table = table_1(bundle.judged)
    except MissingDataError as missing:
        return [Section("review_table1", title, TABLE_1_DESCRIPTION, notes=[f"Not computed: {missing}"])]
    measured = table.dropna(subset=["measured"])
    measured = measured.assign(reproduced=measured["reproduced"].astype(bool))
    line = (f"{int(measured['reproduced'].sum())} of {len(measured)} measured cells within {TABLE_1_TOLERANCE:g} of the "
            "printed value" + ("; furthest: " + ", ".join(
                f"{row.column} ({row.metric}) on {row.printed_case}: {row.published:.1f} printed, {row.measured:.2f} "
                f"measured" for row in measured.loc[~measured["reproduced"]].assign(gap=measured["difference"].abs())
                .sort_values("gap", ascending=False).head(3).itertuples()) if not measured["reproduced"].all() else "")
            + ".")
    return [Section("review_table1", title, TABLE_1_DESCRIPTION, where=TABLE_1_WHERE, table=table, display=table_1_display(table),
                    lines=[line], provenance=provenance(bundle.judged, {TABLE_1_EXPERIMENT.scenario: False}))]
