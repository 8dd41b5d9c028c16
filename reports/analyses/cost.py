"""Cost: wall time per metric call, and how it grows with the number of samples.

Zaidi et al. (2022), sections 5.7 and 6.2 discuss computational cost as a practical
criterion (DCI with random forests is "by far the most computationally expensive").
Each metric call produces all of a metric's sub-scores, which carry the same
``seconds``; a call is counted once.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.results.table import check_results, family_rank, representation_keys

#: Floor on seconds before taking logarithms (a timer can read 0 for a fast call).
MIN_SECONDS = 1e-9
#: The fitted exponent is rounded to this many decimals (a constant cost fits 1e-16, not 0).
EXPONENT_DECIMALS = 3

DISPLAY_COLUMNS = {
    "metric": "Metric",
    "family": "Family",
    "calls": "Calls",
    "median_seconds": "Median s / call",
    "n_min": "n min",
    "n_max": "n max",
    "exponent": "Growth exponent",
}


def calls(results: pd.DataFrame) -> pd.DataFrame:
    """One row per metric call: representation keys, metric, family and seconds."""
    keys = representation_keys() + ["metric", "family"]
    return results.groupby(keys, sort=False)["seconds"].first().reset_index()


def cost_by_n(results: pd.DataFrame) -> pd.DataFrame:
    """Median seconds per call for each metric and sample size (columns metric, family, n, calls, median_seconds)."""
    per_call = calls(check_results(results))
    table = (
        per_call.groupby(["metric", "family", "n_samples"])["seconds"]
        .agg(calls="count", median_seconds="median")
        .reset_index()
        .rename(columns={"n_samples": "n"})
    )
    return table.sort_values(["metric", "n"]).reset_index(drop=True)


def cost(results: pd.DataFrame) -> pd.DataFrame:
    """Median seconds per call of each metric and the exponent of its growth with n.

    The exponent ``b`` is the least-squares slope of ``log(median seconds at n)``
    against ``log(n)`` over the distinct sample sizes the metric ran at: cost grows
    like ``n^b`` (1 for a linear-time metric).

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).

    Returns
    -------
    pandas.DataFrame
        One row per metric: family, ``calls``, ``median_seconds`` (over all calls),
        ``n_min``, ``n_max``, ``exponent`` (rounded to :data:`EXPONENT_DECIMALS`).  ``exponent`` is NaN (shown as '—') when
        the metric ran at a single sample size; ``attrs["notes"]`` says so.

    Notes
    -----
    Wall time depends on the machine and its load; compare ratios between metrics
    of one run rather than seconds across runs.  Seconds below
    :data:`MIN_SECONDS` are raised to it before the logarithm.
    """
    results = check_results(results)
    per_call = calls(results)
    by_n = cost_by_n(results)
    rows, notes = [], []
    for (metric, family), group in by_n.groupby(["metric", "family"]):
        if len(group) >= 2:
            log_n = np.log(group["n"].to_numpy(dtype=np.float64))
            log_seconds = np.log(np.maximum(group["median_seconds"].to_numpy(), MIN_SECONDS))
            exponent = round(float(np.polyfit(log_n, log_seconds, 1)[0]), EXPONENT_DECIMALS) + 0.0
        else:
            exponent = float("nan")
            notes.append(f"{metric}: ran at a single sample size (n = {int(group['n'].iloc[0])}), no growth exponent")
        own = per_call.loc[per_call["metric"] == metric, "seconds"]
        rows.append({
            "metric": metric, "family": family, "calls": int(len(own)), "median_seconds": float(own.median()),
            "n_min": int(group["n"].min()), "n_max": int(group["n"].max()), "exponent": exponent,
        })
    table = pd.DataFrame(rows, columns=["metric", "family", "calls", "median_seconds", "n_min", "n_max", "exponent"])
    table = table.sort_values(["family", "metric"], key=lambda c: c.map(family_rank) if c.name == "family" else c)
    table = table.reset_index(drop=True)
    table.attrs["notes"] = notes
    return table
