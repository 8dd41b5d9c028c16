"""Sample efficiency: how far a score computed on n samples is from the score on all of them.

Zaidi et al. (2022), section 5.7 and Figure 9: a representation is scored on the first
100, 1k, 10k and all 100k samples; the quality of the estimate at n is the mean, over
repetitions, of ``|score(n) - score(n_max)|``.  In the ``sample_size`` scenario the
parameter value is n itself and the seed indexes the repetition.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports._table import check_results, require_scenario

DISPLAY_COLUMNS = {
    "metric": "Metric",
    "sub_score": "Sub-score",
    "n": "n",
    "mean_abs_difference": "Mean |s(n) − s(n_max)|",
    "std_abs_difference": "±",
    "n_seeds": "Seeds",
}


def sample_efficiency(results: pd.DataFrame, *, scenario: str = "sample_size") -> pd.DataFrame:
    """Mean and spread over seeds of ``|score(n) - score(n_max)|``, per sub-score and n.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).
    scenario : str, default "sample_size"
        The scenario whose parameter value is the sample size n.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, sub_score, n) with n below the largest one: family,
        property, ``n_max``, ``mean_abs_difference``, ``std_abs_difference``
        (standard deviation over seeds, 0 for one seed) and ``n_seeds``.  A seed
        without a score at ``n_max`` has no reference and is left out (listed in
        ``attrs["notes"]``).

    Raises
    ------
    MissingDataError
        When the scenario is absent.

    Notes
    -----
    Differences of raw scores: orientation does not change them.  Cost: one merge.
    """
    rows = require_scenario(check_results(results), scenario, "sample efficiency").assign(n=lambda f: f["value"].round().astype(np.int64))
    keys = ["metric", "sub_score", "family", "property"]
    n_max = rows.groupby(keys)["n"].transform("max")
    reference = rows.loc[rows["n"] == n_max, keys + ["seed", "n", "score"]].rename(columns={"n": "n_max", "score": "reference"})
    merged = rows.loc[rows["n"] < n_max].merge(reference, on=keys + ["seed"], how="left")
    orphans = merged.loc[merged["reference"].isna(), ["metric", "sub_score", "seed"]].drop_duplicates()
    notes = [f"{m}/{s} seed {seed}: no score at the largest n, left out" for m, s, seed in orphans.itertuples(index=False)]
    merged = merged.loc[merged["reference"].notna()].assign(difference=lambda f: (f["score"] - f["reference"]).abs())
    table = (
        merged.groupby(keys + ["n", "n_max"])["difference"]
        .agg(mean_abs_difference="mean", std_abs_difference="std", n_seeds="count")
        .reset_index()
    )
    table["std_abs_difference"] = table["std_abs_difference"].fillna(0.0)
    table["n_max"] = table["n_max"].astype(np.int64)
    table = table.sort_values(["metric", "sub_score", "n"]).reset_index(drop=True)
    table.attrs["notes"] = notes
    return table
