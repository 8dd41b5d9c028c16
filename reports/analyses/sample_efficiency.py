"""Sample efficiency: how far a score computed on n samples is from the score on all of them.

Zaidi et al. (2022), section 5.7 and Figure 9: a representation is scored on the first
100, 1k, 10k and all 100k samples; the quality of the estimate at n is the mean, over
repetitions, of ``|score(n) - score(n_max)|``.  In a scenario declaring the criterion
``sample_efficiency`` the parameter value is n itself and the seed indexes the repetition.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.analyses import intervals
from reports.results.table import check_results, require_criterion

#: Criterion of the scenarios read.
CRITERION = "sample_efficiency"


def sample_efficiency(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread over seeds of ``|score(n) - score(n_max)|``, per sub-score and n.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).

    Returns
    -------
    pandas.DataFrame
        One row per (scenario, metric, sub_score, n) with n below the largest one: family,
        property, ``n_max``, ``mean_abs_difference``, ``std_abs_difference``
        (standard deviation over seeds, 0 for one seed), ``n_seeds``, and
        ``mean_abs_difference_low`` and ``_high`` (Student's t 95% interval of the mean over
        seeds, :func:`reports.analyses.intervals.mean_interval`; NaN for one seed).  A seed
        without a score at ``n_max`` has no reference and is left out (listed in
        ``attrs["notes"]``).

    Raises
    ------
    MissingDataError
        When no scenario declares the criterion ``sample_efficiency``.

    Notes
    -----
    Differences of raw scores: orientation does not change them.  Cost: one merge.
    """
    rows = require_criterion(check_results(results), CRITERION, "sample efficiency")
    rows = rows.assign(n=rows["value"].round().astype(np.int64))
    keys = ["scenario", "metric", "sub_score", "family", "property"]
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
    scores = merged[["score", "reference"]]
    looks_of = intervals.looks_by_metric(rows)
    spans = merged.groupby(keys + ["n", "n_max"])["difference"].apply(  # differences of unit scores: at most 1
        lambda own: intervals.mean_interval(
            own.to_numpy(), (0.0, 1.0 if intervals.unit_scores(scores.loc[own.index].to_numpy()) else np.inf),
            looks_of[own.name[keys.index("metric")]]))
    table["mean_abs_difference_low"] = [low for low, _ in spans]
    table["mean_abs_difference_high"] = [high for _, high in spans]
    table["n_max"] = table["n_max"].astype(np.int64)
    table = table.sort_values(["metric", "sub_score", "scenario", "n"]).reset_index(drop=True)
    table.attrs["notes"] = notes
    return table
