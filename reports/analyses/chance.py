"""Chance levels: what each sub-score reaches on codes independent of the factors, against the sample size.

The scenarios testing ``chance`` (``null_gaussian``, ``null_uniform`` and the null transforms; Joshi et al. 2026,
encoders E9 and E10, experiments 11 and 15) build codes that carry no information about the factors, so every
ideal is 0: a score above 0 there is what the metric reaches by chance at that sample size and code width.  The
chance level of a sub-score is its mean over seeds, oriented as every report orients scores (``1 - score`` for a
lower-is-better sub-score), so that higher is worse: a false positive.  Swept over the sample size (an
``n_samples`` axis, :mod:`harness.execution.sweeps`), it says from which n a score on real codes means more than
chance; across code widths (``width_ratio = L / K``), how much a wide code inflates it.

:func:`chance_levels` is the level at every width and n; :func:`chance_summary` reads, per width and sub-score,
the level at the study's sample size (:func:`study_sample_size`) with its 95% Student-t interval over seeds, and
the smallest swept n from which the level stays below :data:`LOW` at every larger swept n.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.analyses.intervals import mean_half_width
from reports.results.display import display_table
from reports.results.table import check_results, require_criterion, score_label, seed_summary

CRITERION = "chance"
#: A chance level above this at the study's sample size is named: a tenth of the score scale, as the default
#: calibration threshold of the random end (``random_threshold`` of :class:`reports.analyses.thresholds.Thresholds`); the
#: section's own level, drawn in its figures, not a verdict's threshold.
HIGH = 0.1
#: The level a sub-score must stay below, from some n on, for its scores at that n to be read without a null.
LOW = 0.05

_KEYS = ["scenario", "parameter", "value", "value_label", "n_samples", "metric", "sub_score", "family",
         "higher_is_better"]


def chance_levels(results: pd.DataFrame) -> pd.DataFrame:
    """Mean chance level over seeds at every scenario testing chance, width and sample size, per sub-score.

    Returns
    -------
    pandas.DataFrame
        Columns ``scenario``, ``parameter``, ``value`` (the width), ``value_label``, ``n_samples``, ``metric``,
        ``sub_score``, ``family``, ``higher_is_better``, ``mean`` (the oriented score: higher is worse), ``std``,
        ``n_seeds`` and ``half_width`` (of the 95% Student-t interval of the mean; NaN with fewer than
        :data:`reports.analyses.intervals.MIN_INTERVAL_SEEDS` seeds, :func:`reports.analyses.intervals.mean_half_width`).

    Raises
    ------
    reports.MissingDataError
        When no scenario of the results tests chance.
    """
    rows = require_criterion(check_results(results), CRITERION, "the chance level")
    levels = seed_summary(rows, _KEYS)
    levels["half_width"] = mean_half_width(levels["std"].to_numpy(), levels["n_seeds"].to_numpy())
    return levels


def study_sample_size(results: pd.DataFrame) -> int:
    """The study's sample size: the one most rows of the scenarios not testing chance were scored at (the largest
    of those tied); without such rows, the largest sample size of the results."""
    others = results.loc[results["criterion"] != CRITERION, "n_samples"]
    if others.empty:
        return int(results["n_samples"].max())
    counts = others.value_counts()
    return int(max(counts.index[counts == counts.max()]))


def nearest_size(sizes: np.ndarray, n: int) -> int:
    """The swept sample size closest to ``n`` on a log scale (the larger of two as close)."""
    sizes = np.sort(np.asarray(sizes, dtype=float))
    distance = np.abs(np.log(sizes) - np.log(n))
    return int(sizes[np.flatnonzero(np.isclose(distance, distance.min(), rtol=1e-9, atol=1e-12))[-1]])


def below_from(sizes: np.ndarray, means: np.ndarray, level: float = LOW) -> float:
    """The smallest of ``sizes`` from which every mean at it and at every larger size is below ``level``; NaN when
    the mean at the largest size is not."""
    order = np.argsort(sizes)
    sizes, means = np.asarray(sizes, dtype=float)[order], np.asarray(means, dtype=float)[order]
    above = np.flatnonzero(~(means < level))
    if above.size == 0:
        return float(sizes[0])
    return float(sizes[above[-1] + 1]) if above[-1] + 1 < len(sizes) else float("nan")


def chance_summary(levels: pd.DataFrame, study_n: int) -> pd.DataFrame:
    """Per scenario, width and sub-score: the chance level at the swept n nearest ``study_n``, whether it exceeds
    :data:`HIGH`, and the n from which it stays below :data:`LOW` (:func:`below_from`).

    Returns
    -------
    pandas.DataFrame
        Columns ``scenario``, ``parameter``, ``value``, ``value_label``, ``metric``, ``sub_score``, ``family``,
        ``higher_is_better``, ``n`` (the swept n read), ``level``, ``low``, ``high`` (the 95% Student-t interval of the
        mean over seeds, clipped to the scores' range [0, 1] where the level lies in it; NaN with fewer than
        :data:`reports.analyses.intervals.MIN_INTERVAL_SEEDS` seeds; at 95% whatever the racing's looks, as the
        chance level feeds no verdict), ``n_seeds``, ``exceeds``
        (``level > HIGH``), ``below_from`` (a whole sample size, missing (``pd.NA``) where not within the swept n),
        ``n_swept`` (how many sample sizes were swept) and ``n_max``.
    """
    records = []
    keys = [key for key in _KEYS if key != "n_samples"]
    for group, own in levels.groupby(keys, sort=True):
        at = nearest_size(own["n_samples"].to_numpy(), study_n)
        point = own.loc[own["n_samples"] == at].iloc[0]
        record = dict(zip(keys, group))
        mean, half = float(point["mean"]), float(point["half_width"])
        bounds = (0.0, 1.0) if 0.0 <= mean <= 1.0 else (-np.inf, np.inf)  # a level outside [0, 1] keeps its interval
        record.update(n=at, level=mean, low=float(np.clip(mean - half, *bounds)), high=float(np.clip(mean + half, *bounds)),
                      n_seeds=int(point["n_seeds"]),
                      exceeds=bool(point["mean"] > HIGH),
                      below_from=below_from(own["n_samples"].to_numpy(), own["mean"].to_numpy()),
                      n_swept=int(own["n_samples"].nunique()), n_max=int(own["n_samples"].max()))
        records.append(record)
    table = pd.DataFrame(records)
    if "below_from" in table:  # a sample size: whole (chance.csv read "100.0"), missing where never below
        table["below_from"] = table["below_from"].astype("Int64")
    return table


def chance_rollup(summary: pd.DataFrame) -> pd.DataFrame:
    """Per sub-score, its worst width: the highest level at the study's n (with its interval and where), and the
    largest n from which the level stays below :data:`LOW` over every width (``never`` where some width does not
    fall below within the swept n)."""
    shown = []
    for (metric, sub_score, higher), own in summary.groupby(["metric", "sub_score", "higher_is_better"], sort=False):
        worst = own.loc[own["level"].idxmax()]
        never = own["below_from"].isna().any()
        shown.append({
            "score": score_label(metric, sub_score, bool(higher)), "family": worst["family"],
            "level": worst["level"],
            "interval": "—" if np.isnan(worst["low"]) else f"[{worst['low']:.3f}, {worst['high']:.3f}]",
            "where": f"{worst['scenario']}, {worst['parameter']} = {worst['value_label']}",
            "below": (f"never (≤ {int(own['n_max'].max())})" if never else f"{int(own['below_from'].max())}"),
            "within": not bool(worst["level"] > HIGH),
        })
    table = pd.DataFrame(shown)
    table = table.sort_values(["level", "score"], ascending=[False, True], kind="stable")
    n = int(summary["n"].iloc[0]) if summary["n"].nunique() == 1 else None
    at = f"n = {n}" if n is not None else "the study's n"
    return display_table(table, {"score": "Sub-score", "family": "Family", "level": f"Chance at {at} (worst width)",
                                 "interval": "95% interval", "where": "at", "below": f"Below {LOW:g} from n",
                                 "within": f"≤ {HIGH:g}"}, digits=3)


def chance_sentences(summary: pd.DataFrame, study_n: int) -> list[str]:
    """What the section says in words: the sub-scores above :data:`HIGH` at the study's n, and from which n each
    falls below :data:`LOW`."""
    worst = summary.sort_values("level", ascending=False).drop_duplicates(["metric", "sub_score"])
    high = worst.loc[worst["exceeds"]]
    read = sorted(set(summary["n"]))
    at = f"n = {read[0]}" if len(read) == 1 else f"n = {', '.join(map(str, read))}"
    if read != [study_n]:
        at += f", the swept size nearest the study's n = {study_n}"
    if high.empty:
        return [f"At {at} no sub-score's chance level exceeds {HIGH:g} at any width."]
    names = [f"{score_label(m, s, bool(h))} ({level:.2f} at {p} = {label})" for m, s, h, level, p, label in
             high[["metric", "sub_score", "higher_is_better", "level", "parameter", "value_label"]].itertuples(index=False)]
    lines = [f"At {at}, {len(high)} sub-score{'s' * (len(high) != 1)} reach{'es' * (len(high) == 1)} a chance level "
             f"above {HIGH:g} on codes independent of the "
             f"factors (worst width): {'; '.join(names)}."]
    falls = []
    for metric, sub_score, higher in high[["metric", "sub_score", "higher_is_better"]].itertuples(index=False):
        own = summary.loc[(summary["metric"] == metric) & (summary["sub_score"] == sub_score)]
        label = score_label(metric, sub_score, bool(higher))
        if own["below_from"].isna().any():
            falls.append(f"{label}: not within the swept n (up to {int(own['n_max'].max())})")
        else:
            falls.append(f"{label}: from n = {int(own['below_from'].max())}")
    lines.append(f"They fall below {LOW:g} at every width from: " + "; ".join(falls) + ".")
    return lines
