"""How many seeds decided each verdict, and which stayed undecided: the report's account of its seeds.

A racing study (:mod:`harness.execution.racing`) gives a cell more seeds only while a verdict that reads
it is undecided, so the seeds behind verdicts differ: a clear verdict is decided on the first round's,
a close one on more, and one still undecided at the cap is too close to call at this study's size (one found
undecided at the race's last look short of the cap keeps its seeds: a race reads its verdicts at most as often as it has
looks).
Every judged verdict of :func:`reports.verdicts.verdict_table.verdict_table` is listed with the seeds of the row
that decided it (:attr:`reports.analyses.checks.Check.seeds`) and its interval's level
(:func:`reports.analyses.intervals.level`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.analyses import intervals
from reports.verdicts.verdict_table import Bundle

#: Columns of :func:`seed_decisions`.
SEED_DECISION_COLUMNS = ("metric", "sub_score", "characteristic", "verdict", "seeds", "at_cap", "statistic", "value",
                         "interval_low", "interval_high", "limit", "level")


def seed_decisions(bundle: Bundle) -> pd.DataFrame:
    """Every judged verdict with the seeds that decided it.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SEED_DECISION_COLUMNS`: the score, the characteristic, its mark (yes, no, undecided), the
        seeds of its deciding row, ``at_cap`` (those seeds are the race's last look, :func:`at_last_look`, or with
        fixed seeds the most any cell of the results has: more seeds were not available to decide it), the deciding
        statistic, its value, interval and threshold, and the level of its interval (stricter where a failure was read
        from an interval widened for the checks its metric's verdicts pool:
        :attr:`reports.analyses.checks.Check.widened`; NaN where the statistic has no interval).
    """
    table = bundle.verdicts
    looks = intervals.looks_of(bundle.results)
    per_cell = bundle.results.groupby(["scenario", "metric", "value", "n_samples"])["seed"].nunique()
    first, most = (int(per_cell.min()), int(per_cell.max())) if len(per_cell) else (0, 0)
    records = []
    for row in table.itertuples(index=False):
        verdict = row.verdict
        if not verdict.judged:
            continue
        record = verdict.record()
        records.append({"metric": row.metric, "sub_score": row.sub_score, "characteristic": row.characteristic,
                        "verdict": verdict.mark, "seeds": int(record["seeds"]),
                        "at_cap": at_last_look(int(record["seeds"]), first, looks) if looks > 1
                        else int(record["seeds"]) >= most,
                        "statistic": record["statistic"], "value": record["value"],
                        "interval_low": record["interval_low"], "interval_high": record["interval_high"],
                        "limit": record["limit"],
                        "level": intervals.level(looks * int(record["pooled"]))
                        if np.isfinite(record["interval_low"]) and np.isfinite(record["interval_high"]) else np.nan})
    return pd.DataFrame(records, columns=list(SEED_DECISION_COLUMNS))


def at_last_look(seeds: int, first: int, looks: int) -> bool:
    """Whether ``seeds`` are a race's last look, its cap: not one of the doublings of the ``first`` count every cell
    starts with (:meth:`harness.execution.racing.Racing.schedule`: ``first``, twice it, ... for the ``looks − 1``
    looks before the last, whose count is the cap).  A race stopped by its budget left verdicts at an earlier look:
    read by the most seeds any cell had, they were all "at the cap", too close to call, where more seeds could have
    decided them."""
    return seeds not in {first * 2 ** step for step in range(looks - 1)}


def seed_counts_display(table: pd.DataFrame) -> pd.DataFrame:
    """Verdicts per number of deciding seeds and mark: the section's table."""
    if table.empty:
        return pd.DataFrame(columns=["Seeds", "✓ yes", "✗ no", "≈ undecided"])
    counts = table.groupby(["seeds", "verdict"]).size().unstack(fill_value=0)
    shown = pd.DataFrame({"Seeds": [str(seeds) for seeds in counts.index]})
    for mark, heading in (("yes", "✓ yes"), ("no", "✗ no"), ("undecided", "≈ undecided")):
        shown[heading] = [str(int(counts.at[seeds, mark])) if mark in counts.columns else "0" for seeds in counts.index]
    return shown


def undecided_display(table: pd.DataFrame) -> pd.DataFrame:
    """The verdicts still undecided, with their seeds and whether those were the cap, and their interval's level
    (stricter where the interval is a failure's, widened for the checks pooled): the section's details."""
    undecided = table.loc[table["verdict"] == "undecided"]
    return pd.DataFrame({
        "Metric": undecided["metric"], "Sub-score": undecided["sub_score"], "Characteristic": undecided["characteristic"],
        "Statistic": undecided["statistic"],
        "Value [interval]": [f"{value:.3g} [{low:.3g}, {high:.3g}]" for value, low, high in
                             zip(undecided["value"], undecided["interval_low"], undecided["interval_high"])],
        "Threshold": [f"{limit:g}" for limit in undecided["limit"]],
        "Level": [f"{100 * level:.2f}%" for level in undecided["level"]],
        "Seeds": [f"{seeds} (cap)" if cap else f"{seeds}" for seeds, cap in zip(undecided["seeds"], undecided["at_cap"])],
    }).reset_index(drop=True)


def seed_lines(table: pd.DataFrame, looks: int) -> list[str]:
    """The section's sentences: the intervals' level, how many verdicts were decided, and what stayed undecided."""
    if table.empty:
        return []
    level = 100 * intervals.level(looks)
    decided = int((table["verdict"] != "undecided").sum())
    undecided = table.loc[table["verdict"] == "undecided"]
    at_cap = int(undecided["at_cap"].sum())
    how = (f"Seeds were raced over {looks} looks: each interval is at {level:.1f}% so that a verdict's error rate "
           "stays at most 5% whichever look decided it" if looks > 1 else
           "Every cell had the same seeds: each interval is at 95%")
    widened = table.loc[table["level"] > intervals.level(looks) + 1e-12]
    low, high = (f"{100 * widened['level'].min():.2f}%", f"{100 * widened['level'].max():.2f}%") if len(widened) else ("", "")
    read = (f" A failure is read from its check's interval widened for the checks its metric's verdicts pool "
            f"(Bonferroni), so that it too is wrong at most 5% of the time: {len(widened)} "
            f"{'verdict was' if len(widened) == 1 else 'verdicts were'} decided or left undecided so, at "
            f"{low if low == high else f'{low} to {high}'}." if len(widened) else "")
    lines = [f"{how}. {decided} of {len(table)} judged verdicts are decided.{read}"]
    if len(undecided):
        lines.append(f"{len(undecided)} stayed undecided: {at_cap} at the cap of seeds (too close to call at this "
                     f"study's size), {len(undecided) - at_cap} with fewer (found undecided at the race's last look, "
                     "or stopped by a budget or a fixed seed count); they are listed in the folded table below "
                     "(tables/seeds.csv has every verdict).")
    return lines
