"""Warnings raised inside metric calls, as the harness recorded them per result row.

The harness counts the Python warnings of each metric call (column ``warnings``) and
keeps the first one's text (``first_warning``).  Every sub-score of one call carries
the same two values, so a call is counted once.
"""

from __future__ import annotations

import pandas as pd

from reports.results.table import check_results, representation_keys

COLUMNS = ["metric", "calls", "calls_with_warnings", "warnings", "first_warning"]


def raised_warnings(results: pd.DataFrame) -> pd.DataFrame:
    """Per metric: calls, calls that warned, warnings raised and the first message.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`; a table written
        before the warning columns existed reads as no warnings).

    Returns
    -------
    pandas.DataFrame
        One row per metric that raised at least one warning, most warnings first,
        columns :data:`COLUMNS`; empty when no call warned.
    """
    results = check_results(results)
    per_call = results.groupby(representation_keys() + ["metric"], sort=False).agg(
        warnings=("warnings", "first"), first_warning=("first_warning", "first")).reset_index()
    per_call["warned"] = per_call["warnings"] > 0

    def first_message(messages: pd.Series) -> str:
        texts = [text for text in messages if text]
        return texts[0] if texts else ""

    table = per_call.groupby("metric").agg(
        calls=("warnings", "size"), calls_with_warnings=("warned", "sum"), warnings=("warnings", "sum"),
        first_warning=("first_warning", first_message)).reset_index()
    table = table.loc[table["warnings"] > 0].sort_values(["warnings", "metric"], ascending=[False, True])
    return table[COLUMNS].reset_index(drop=True).astype({"calls_with_warnings": "int64", "warnings": "int64"})


def warnings_line(table: pd.DataFrame, max_message: int = 90) -> str:
    """One line for the report: per metric, the count and the first message (shortened)."""
    if table.empty:
        return "No warnings were raised inside metric calls."
    parts = []
    for row in table.itertuples(index=False):
        message = row.first_warning if len(row.first_warning) <= max_message else row.first_warning[:max_message - 1] + "…"
        parts.append(f"{row.metric}: {row.warnings} in {row.calls_with_warnings} of {row.calls} calls (first: {message})")
    return "Warnings raised inside metric calls: " + "; ".join(parts) + ". Details: tables/warnings.csv."
