"""Calibration: does a metric give a perfect score to a perfect code and a null score to noise?

Zaidi et al. (2022), section 3: "The metric should attribute the minimum score to a
completely random or fully entangled representation and a perfect score to a
perfectly disentangled representation", verified on the noise experiment of their
section 5.2 (eq. 9, ``z = (1 - alpha) v + alpha n``): ``alpha = 0`` is the perfect
end, ``alpha = 1`` the fully random end.  Every scenario whose rows declare the
criterion ``noise`` is read (whatever its name).  The random end asks for a null score of
every sub-score whose ideal the scenario leaves undefined there or states as 0 (the noise
scenario's declaration, :attr:`scenarios.base.Scenario.ideal_ranges`: modularity and
compactness are defined only while the code carries signal, explicitness falls to 0); a
scenario that states a higher ideal at its random end declares that end no null code for
that property, and its sub-scores are not calibrated there.  The null score is asked for on both sides: a score
below the chance end (0 on the oriented scale, as the chance axiom reads it) fails as one above it does, so DCI-ES
explicitness, which its definition sends to -1 on pure noise while every other explicitness scores 0 there, is not
calibrated on the scale every verdict reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.analyses import intervals
from reports.analyses.thresholds import Thresholds
from reports.results.table import MissingDataError, at_largest_n, check_results, ideal_table, oriented, require_criterion

#: Criterion whose scenarios calibration reads.
CRITERION = "noise"
#: The parameter values of a noise scenario's perfect and fully random representations (review eq. 9).
PERFECT_VALUE, RANDOM_VALUE = 0.0, 1.0


def calibration(
    results: pd.DataFrame,
    *,
    perfect_value: float = PERFECT_VALUE,
    random_value: float = RANDOM_VALUE,
    thresholds: Thresholds = Thresholds(),
) -> pd.DataFrame:
    """Each sub-score's mean and spread at the perfect and the fully random end of the noise scenarios.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).
    perfect_value, random_value : float, default 0.0 and 1.0
        The parameter values of the perfect and the fully random representation.
    thresholds : reports.analyses.thresholds.Thresholds, optional
        A sub-score is calibrated when its oriented mean (``1 - score`` for a
        lower-is-better one) is at least ``thresholds.perfect_threshold`` at the perfect end and
        between ``thresholds.min_random`` and ``thresholds.random_threshold`` at the random end (a
        score below the chance end, 0, fails as one above it does), compared unrounded.

    Returns
    -------
    pandas.DataFrame
        One row per (scenario, metric, sub_score): family, property,
        higher_is_better, n_samples, ``perfect_mean``, ``perfect_std``,
        ``random_mean``, ``random_std`` (raw scores; spread is the standard deviation
        over seeds, 0 for one seed), ``n_seeds`` (the fewer of the two ends),
        ``perfect_oriented`` and ``random_oriented`` (the means as judged: ``1 - mean``
        for a lower-is-better sub-score), ``perfect_threshold``, ``random_threshold``, ``min_random``,
        ``perfect_pass``, ``random_pass`` (both sides) and ``calibrated`` (decided on the means),
        ``perfect_oriented_low``/``_high`` and ``random_oriented_low``/``_high`` (Student's t
        95% interval (:func:`reports.analyses.intervals.level` with several looks) of each oriented mean over seeds, clipped to
        [0, 1] for scores in it,
        :func:`reports.analyses.intervals.mean_interval`; NaN for one seed: the verdicts read them),
        and from the permutation nulls at the random end (where the results have them)
        ``random_null_oriented`` (the null's mean, oriented), ``random_null_q95_oriented``
        (its 95% chance level), ``random_within_null`` (the noise score is no better than
        that chance level), ``chance_bias`` (the random end is above its threshold, but within
        its null: a metric biased by chance at this n and code width, not one that rewards
        noise) and ``chance_note`` (that finding as text for the verdict's evidence, empty
        otherwise).  Sub-scores present at only one end, and those whose property's ideal the scenario states
        above 0 at the random end, are left out and listed in ``attrs["notes"]``.

    Raises
    ------
    MissingDataError
        When no scenario declares the criterion ``noise``, or one lacks one of its two ends.

    Notes
    -----
    The scenario is read at its largest sample size.  The thresholds assume scores
    normalised to [0, 1].  Cost: one group-by over the scenario's rows.
    """
    return leveled_calibration(results, perfect_value=perfect_value, random_value=random_value,
                               thresholds=thresholds).table


def leveled_calibration(
    results: pd.DataFrame,
    *,
    perfect_value: float = PERFECT_VALUE,
    random_value: float = RANDOM_VALUE,
    thresholds: Thresholds = Thresholds(),
) -> intervals.Leveled:
    """:func:`calibration`'s table with its intervals at any number of looks (:class:`reports.analyses.intervals.Leveled`)."""
    rows = at_largest_n(require_criterion(check_results(results), CRITERION, "calibration"))
    ends = {}
    for end, target in (("perfect", perfect_value), ("random", random_value)):
        at_end = rows.loc[np.isclose(rows["value"], target)]
        for scenario, own in rows.groupby("scenario"):
            if not np.isclose(own["value"], target).any():
                values = ", ".join(sorted(own["value_label"].unique()))
                raise MissingDataError(f"calibration needs {scenario!r} at its {end} end (value {target:g}); "
                                       f"the results have values {values}")
        ends[end] = (
            at_end.groupby(["scenario", "metric", "sub_score", "family", "property", "higher_is_better", "n_samples"])["score"]
            .agg(mean="mean", std="std", n_seeds="count")
            .add_prefix(f"{end}_")
        )
    table = ends["perfect"].join(ends["random"], how="outer").reset_index()
    incomplete = table["perfect_mean"].isna() | table["random_mean"].isna()
    notes = [
        f"{row.metric}/{row.sub_score} was scored only at the {'random' if np.isnan(row.perfect_mean) else 'perfect'} end"
        for row in table.loc[incomplete].itertuples()
    ]
    table = table.loc[~incomplete]
    random_ideal = ideal_table(rows).loc[lambda t: np.isclose(t["value"], random_value)].drop(columns="value")
    stated = table.merge(random_ideal, on=["scenario", "property"], how="left")["ideal"].to_numpy()
    no_null = stated > 0  # NaN (undefined there) compares False: a null score is asked for
    notes += [f"{row.metric}/{row.sub_score}: {row.scenario!r} states its {row.property} ideal as {ideal:g} at the random "
              "end, no null code for it: not calibrated there"
              for row, ideal in zip(table.loc[no_null].itertuples(), stated[no_null])]
    table = table.loc[~no_null].copy()
    for end in ("perfect", "random"):
        table[f"{end}_std"] = table[f"{end}_std"].fillna(0.0)
    table["n_seeds"] = np.minimum(table.pop("perfect_n_seeds"), table.pop("random_n_seeds")).astype(np.int64)
    higher = table["higher_is_better"].to_numpy(dtype=bool)
    table["perfect_oriented"] = oriented(table["perfect_mean"].to_numpy(dtype=float), higher)
    table["random_oriented"] = oriented(table["random_mean"].to_numpy(dtype=float), higher)
    keys = ["scenario", "metric", "sub_score"]
    seeds_at = {}
    for end, target in (("perfect", perfect_value), ("random", random_value)):
        at_end = rows.loc[np.isclose(rows["value"], target)]
        turned = oriented(at_end["score"].to_numpy(dtype=float), at_end["higher_is_better"].to_numpy(dtype=bool))
        seeds_at[end] = {key: own.to_numpy() for key, own in pd.Series(turned, index=at_end.index).groupby([at_end[k] for k in keys])}
    ends = [_end_intervals({end: seeds.get(key) for end, seeds in seeds_at.items()})
            for key in zip(*(table[k] for k in keys))]
    looks_of = intervals.looks_by_metric(rows)
    spans = pd.DataFrame([row_ends(looks_of[metric]) for row_ends, metric in zip(ends, table["metric"])],
                         index=table.index, columns=list(INTERVAL_COLUMNS), dtype=float)
    table = table.assign(**{column: spans[column] for column in INTERVAL_COLUMNS})
    table["_row"] = np.arange(len(table))
    table = table.merge(_chance_at(rows, random_value), on=keys, how="left")
    table["random_within_null"] = table["random_within_null"].eq(True)
    perfect_threshold, random_threshold = float(thresholds.perfect_threshold), float(thresholds.random_threshold)
    table["perfect_threshold"], table["random_threshold"] = perfect_threshold, random_threshold
    table["min_random"] = float(thresholds.min_random)
    table["perfect_pass"] = table["perfect_oriented"] >= perfect_threshold
    above = table["random_oriented"] > random_threshold
    table["random_pass"] = ~above & (table["random_oriented"] >= table["min_random"])
    table["calibrated"] = table["perfect_pass"] & table["random_pass"]
    table["chance_bias"] = above & table["random_within_null"].eq(True)
    table["chance_note"] = [
        f"; chance-level bias at n = {n}: pure noise scores within its permutation null (null mean {chance:.2g})"
        if bias else "" for bias, n, chance in zip(table["chance_bias"], table["n_samples"], table["random_null_oriented"])]
    table = table.sort_values(["metric", "sub_score", "scenario"]).reset_index(drop=True)
    positions = table.pop("_row").to_numpy()
    table.attrs["notes"] = notes
    return intervals.Leveled(table, tuple(ends[position] for position in positions))


#: The intervals of the calibration's ends, in the table's order.
INTERVAL_COLUMNS = ("perfect_oriented_low", "perfect_oriented_high", "random_oriented_low", "random_oriented_high")


def _end_intervals(seeds: dict[str, np.ndarray | None]) -> intervals.RowEnds:
    """A row's interval columns at any number of looks: the mean interval of its oriented scores over the seeds at each
    end (``seeds``: end -> the scores, None where the row has none there), clipped to [0, 1] for scores in it."""
    bounds = {end: (0.0, 1.0) if values is not None and intervals.unit_scores(values) else intervals.UNBOUNDED
              for end, values in seeds.items()}

    def ends_at(looks: int) -> dict[str, float]:
        found = {}
        for end, values in seeds.items():
            found[f"{end}_oriented_low"], found[f"{end}_oriented_high"] = (
                intervals.NO_INTERVAL if values is None else intervals.mean_interval(values, bounds[end], looks))
        return found

    return ends_at


def _chance_at(rows: pd.DataFrame, random_value: float) -> pd.DataFrame:
    """Per (scenario, metric, sub_score), the permutation null at the random end, oriented: ``random_null_oriented``
    (the null means' mean over seeds), ``random_null_q95_oriented`` (the chance levels' mean) and
    ``random_within_null`` (whether the oriented mean score is at most that chance level); NaN and False where no
    seed has a null."""
    at_end = rows.loc[np.isclose(rows["value"], random_value) & (rows["null_permutations"] > 0)]
    higher = at_end["higher_is_better"].to_numpy(dtype=bool)
    turned = at_end.assign(_score=oriented(at_end["score"].to_numpy(dtype=float), higher),
                           _mean=oriented(at_end["null_mean"].to_numpy(dtype=float), higher),
                           _q95=oriented(at_end["null_q95"].to_numpy(dtype=float), higher))
    chance = (turned.groupby(["scenario", "metric", "sub_score"])[["_score", "_mean", "_q95"]].mean()
              .rename(columns={"_mean": "random_null_oriented", "_q95": "random_null_q95_oriented"}).reset_index())
    chance["random_within_null"] = chance.pop("_score") <= chance["random_null_q95_oriented"]
    return chance
