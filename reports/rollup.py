"""Per-metric roll-ups of long tables: what the page shows, while the details fold away.

A detail table (one row per sub-score and scenario) is reduced to one row per metric:
how many of its rows pass, and for each check the value closest to failing, with a
mark and enough digits to see the verdict (see :mod:`reports._verdict`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from reports._format import NO, YES
from reports._table import family_rank
from reports._verdict import Check, worst


def rollup(table: pd.DataFrame, *, passed: str, checks: Sequence[tuple[str, str, str, float]],
           where: Sequence[str], reasons: str | None = None, digits: int = 2) -> pd.DataFrame:
    """One display row per metric: passing rows, the worst value of each check, and where it was.

    Parameters
    ----------
    table : pandas.DataFrame
        A detail table with columns ``metric``, ``family``, ``passed`` and those named.
    passed : str
        The boolean column of the row's verdict.
    checks : sequence of (column, heading, comparison, threshold)
        The numbers behind the verdict; ``comparison`` is ``">="`` or ``"<="``.
    where : sequence of str
        Columns naming the worst row (e.g. sub_score, scenario).
    reasons : str, optional
        Column saying why a value is undefined (NaN) on a row.
    digits : int, default 2
        Fewest decimals printed (more where rounding would hide the verdict).

    Returns
    -------
    pandas.DataFrame
        Columns Metric, Family, Passing ("k of n"), one per check (headed by its rule,
        e.g. "R² ≥ 0.9"), and Worst at (the row of the check closest to failing).
    """
    rows = []
    families = table.groupby("metric")["family"].first()
    for metric in sorted(families.index, key=lambda m: (family_rank(families[m]), m)):
        own = table.loc[table["metric"] == metric]
        row = {"Metric": metric, "Family": families[metric],
               "Passing": f"{int(own[passed].astype(bool).sum())} of {len(own)}"}
        decisive = []
        for column, heading, comparison, threshold in checks:
            values = own[column].to_numpy(dtype=float)
            index = int(np.argmax(np.isnan(values))) if np.isnan(values).any() else (
                int(np.argmin(values)) if comparison == ">=" else int(np.argmax(values)))
            reason = str(own[reasons].iloc[index]) if reasons else ""
            check = Check(heading, float(values[index]), comparison, threshold, reason, digits)
            row[check.rule_text()] = f"{YES if check.passed else NO} {check.value_text()}"
            decisive.append((check, index))
        closest = worst([check for check, _ in decisive])
        index = next(index for check, index in decisive if check is closest)
        row["Worst at"] = ", ".join(str(own[column].iloc[index]) for column in where)
        rows.append(row)
    return pd.DataFrame(rows)
