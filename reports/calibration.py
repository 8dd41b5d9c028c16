"""Calibration: does a metric give a perfect score to a perfect code and a null score to noise?

Zaidi et al. (2022), section 3: "The metric should attribute the minimum score to a
completely random or fully entangled representation and a perfect score to a
perfectly disentangled representation", verified on the noise experiment of their
section 5.2 (eq. 9, ``z = (1 - alpha) v + alpha n``): ``alpha = 0`` is the perfect
end, ``alpha = 1`` the fully random end.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports._table import MissingDataError, check_results, at_largest_n, require_scenario

#: Default thresholds: calibrated when perfect >= 0.9 and random <= 0.1.
PERFECT_THRESHOLD, RANDOM_THRESHOLD = 0.9, 0.1
#: Display columns (name -> heading) of the calibration table.
DISPLAY_COLUMNS = {
    "metric": "Metric",
    "sub_score": "Sub-score",
    "property": "Property",
    "perfect_mean": "Perfect",
    "perfect_std": "± (perfect)",
    "random_mean": "Random",
    "random_std": "± (random)",
    "n_seeds": "Seeds",
    "calibrated": "Calibrated",
}


def calibration(
    results: pd.DataFrame,
    *,
    scenario: str = "noise",
    perfect_value: float = 0.0,
    random_value: float = 1.0,
    perfect_threshold: float = PERFECT_THRESHOLD,
    random_threshold: float = RANDOM_THRESHOLD,
) -> pd.DataFrame:
    """Each sub-score's mean and spread at the perfect and the fully random end of ``noise``.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).
    scenario : str, default "noise"
        The scenario whose two ends are compared.
    perfect_value, random_value : float, default 0.0 and 1.0
        The parameter values of the perfect and the fully random representation.
    perfect_threshold, random_threshold : float, default 0.9 and 0.1
        A higher-is-better sub-score is calibrated when its mean is at least
        ``perfect_threshold`` at the perfect end and at most ``random_threshold`` at
        the random end.  For a lower-is-better sub-score the roles mirror: at most
        ``1 - perfect_threshold`` and at least ``1 - random_threshold``.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, sub_score): family, property, higher_is_better,
        n_samples, ``perfect_mean``, ``perfect_std``, ``random_mean``, ``random_std``
        (raw scores; spread is the standard deviation over seeds, 0 for one seed),
        ``n_seeds`` (the fewer of the two ends) and ``calibrated``.  Sub-scores present
        at only one end are left out and listed in ``attrs["notes"]``.

    Raises
    ------
    MissingDataError
        When the scenario or one of its two ends is absent.

    Notes
    -----
    The scenario is read at its largest sample size.  The thresholds assume scores
    normalised to [0, 1].  Cost: one group-by over the scenario's rows.
    """
    rows = at_largest_n(require_scenario(check_results(results), scenario, "calibration"))
    ends = {}
    for end, target in (("perfect", perfect_value), ("random", random_value)):
        at_end = rows.loc[np.isclose(rows["value"], target)]
        if at_end.empty:
            values = ", ".join(sorted(rows["value_label"].unique()))
            raise MissingDataError(
                f"calibration needs {scenario!r} at its {end} end (value {target:g}); the results have values {values}"
            )
        ends[end] = (
            at_end.groupby(["metric", "sub_score", "family", "property", "higher_is_better", "n_samples"])["score"]
            .agg(mean="mean", std="std", n_seeds="count")
            .add_prefix(f"{end}_")
        )
    table = ends["perfect"].join(ends["random"], how="outer").reset_index()
    incomplete = table["perfect_mean"].isna() | table["random_mean"].isna()
    notes = [
        f"{row.metric}/{row.sub_score} was scored only at the {'random' if np.isnan(row.perfect_mean) else 'perfect'} end"
        for row in table.loc[incomplete].itertuples()
    ]
    table = table.loc[~incomplete].copy()
    for end in ("perfect", "random"):
        table[f"{end}_std"] = table[f"{end}_std"].fillna(0.0)
    table["n_seeds"] = np.minimum(table.pop("perfect_n_seeds"), table.pop("random_n_seeds")).astype(np.int64)
    higher = table["higher_is_better"].to_numpy(dtype=bool)
    perfect = np.where(higher, table["perfect_mean"], 1.0 - table["perfect_mean"])
    random = np.where(higher, table["random_mean"], 1.0 - table["random_mean"])
    table["calibrated"] = (perfect >= perfect_threshold) & (random <= random_threshold)
    table = table.sort_values(["metric", "sub_score"]).reset_index(drop=True)
    table.attrs["notes"] = notes
    return table
