"""The table of verdicts, one per metric x sub-score x characteristic, and the views every output takes of it.

:func:`verdict_table` applies :data:`reports.verdicts.characteristics.CHARACTERISTICS` to the analyses of a
:class:`reports.verdicts.bundle.Bundle`.  Everything that shows a verdict reads it:

* :func:`matrix_verdicts`: per metric, each characteristic pooled over its sub-scores (the property
  matrix, the report card's verdicts);
* :func:`headline_verdicts`: per sub-score, the characteristics pooled into the headline's columns;
* :func:`criterion_verdicts`: per metric, the headline's columns pooled over its sub-scores (the report
  card's criteria);
* :func:`rollup`: per metric, the checks of some characteristics (the sections' roll-ups).

Each check's failing side is read from the analyses run again at a stricter level, split over the most checks a
verdict of its metric pools (:func:`pooled_checks`, :attr:`reports.verdicts.bundle.Bundle.failing`), so that every
view's failures, like its passes, are wrong at most 5% of the time, and the views agree.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np
import pandas as pd

from reports.analyses.checks import Check, Verdict, holds, pool_characteristics, pool_scores, worst
from reports.analyses.thresholds import Thresholds
from reports.results.display import SYMBOLS
from reports.results.options import at_defaults, off_defaults
from reports.results.table import family_rank
from reports.verdicts import characteristics
from reports.verdicts.characteristics import ROWS, Characteristic, Rule


class Bundle(Protocol):
    """What the verdicts read: :class:`reports.verdicts.bundle.Bundle` (which imports this module)."""

    results: pd.DataFrame
    judged: pd.DataFrame
    thresholds: Thresholds
    verdicts: pd.DataFrame
    metric_verdicts: pd.DataFrame

    @property
    def pooled_checks(self) -> dict[str, int]:
        """:func:`pooled_checks` of the bundle, computed once."""

    @property
    def failing(self) -> Bundle:
        """The same analyses with each metric's intervals widened for :attr:`pooled_checks` checks."""


#: Columns identifying a verdict's score.
SCORE_COLUMNS = ["metric", "family", "sub_score", "property", "higher_is_better", "metric_base"]
#: Headline column -> heading, in order (each pools the characteristics naming it, see
#: :attr:`reports.verdicts.characteristics.Characteristic.headline`).
HEADLINE_COLUMNS = {
    "follows": "Follows its property's ideal",
    "calibrated": "Calibrated",
    "linear": "Linear",
    "robust": "Robust",
    "follows_attacks": "Follows entanglement attacks",
    "data_efficient": "Data efficient",
}


def scores(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (metric, sub_score) of ``results``, in report order (family, metric, sub-score)."""
    keys = results[SCORE_COLUMNS].drop_duplicates(["metric", "sub_score"])
    keys = keys.assign(_rank=keys["family"].map(family_rank)).sort_values(["_rank", "metric", "sub_score"])
    return keys.drop(columns="_rank").reset_index(drop=True)


def _rows(characteristic: Characteristic, table: pd.DataFrame, thresholds: Thresholds) -> pd.DataFrame:
    """The rows of an analysis's table that ``characteristic`` reads."""
    if table.empty:
        return table
    keep = pd.Series(True, index=table.index)
    if characteristic.criterion and "criterion" in table.columns:  # calibration reads no other scenario anyway
        keep &= table["criterion"] == characteristic.criterion
    if characteristic.against:
        keep &= table["against"] == characteristic.key
    if characteristic.rows:
        keep &= ROWS[characteristic.rows](table, thresholds)
    return table.loc[keep]


class _RuleRows:
    """A rule's rows of one characteristic, grouped by score, for picking each score's worst row.

    ``widened`` gives the characteristic's rows of the analysis run with each metric's intervals widened for the checks
    its verdicts pool, and ``pooled`` those counts by metric (:func:`pooled_checks`): read once, when some row's
    interval lies on the failing side, for the interval a failure is decided on (:attr:`Check.widened`).  Without
    them, the interval decides both ways.
    """

    def __init__(self, rule: Rule, rows: pd.DataFrame, thresholds: Thresholds,
                 widened: Callable[[], pd.DataFrame] | None = None, pooled: Mapping[str, int] | None = None) -> None:
        self.rule, self.thresholds = rule, thresholds
        self.rows = rows.loc[ROWS[rule.rows](rows, thresholds)] if rule.rows and not rows.empty else rows
        self.groups = self.rows.groupby(["metric", "sub_score"], sort=False).indices if not self.rows.empty else {}
        self.values = self.rows[rule.column].to_numpy(dtype=float) if not self.rows.empty else np.empty(0)
        low, high = f"{rule.column}_low", f"{rule.column}_high"
        #: each row's interval, ``(rows, 2)``; None where the analysis gives none (or reads no row)
        self.interval = (self.rows[[low, high]].to_numpy(dtype=float)
                         if {low, high} <= set(self.rows.columns) and not self.rows.empty else None)
        #: each row's widened interval, ``(rows, 2)``, None when no row's interval lies on the failing side (nothing
        #: to read it for) or nothing widens; and how many checks each was widened for
        self.widened: np.ndarray | None = None
        self.pooled = np.ones(len(self.rows), dtype=np.int64)
        if self.interval is not None and widened is not None and pooled and self._failing().any():
            self.pooled = np.array([pooled.get(metric, 1) for metric in self.rows["metric"]], dtype=np.int64)
            self.widened = self._aligned(widened())[[low, high]].to_numpy(dtype=float)

    def _sides(self, interval: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each row of ``interval``: whether both its ends are finite, and whether its low and its high end lie on
        the passing side of the threshold (a NaN end on neither)."""
        threshold = float(getattr(self.thresholds, self.rule.threshold))
        low, high = interval.T
        return (np.isfinite(low) & np.isfinite(high), holds(low, self.rule.comparison, threshold),
                holds(high, self.rule.comparison, threshold))

    def _failing(self) -> np.ndarray:
        """Whether each row's interval lies wholly on the failing side of the threshold."""
        finite, low, high = self._sides(self.interval)
        return finite & ~low & ~high

    def _aligned(self, widened: pd.DataFrame) -> pd.DataFrame:
        """The rows of ``widened`` that are this rule's rows (the same rows of the same analysis, by index)."""
        found = widened.reindex(self.rows.index)
        if not (found[["metric", "sub_score"]].to_numpy() == self.rows[["metric", "sub_score"]].to_numpy()).all():
            raise ValueError(f"the widened analysis's {self.rule.column!r} rows are not the analysis's own rows")
        return found

    def check(self, key: tuple[str, str]) -> Check | None:
        """The check of the score's worst row, or None when the rule reads none of its rows.

        The worst row is the one whose own check is closest to failing (:meth:`Check.severity`: a row that fails by its
        interval before one left undecided by it, before one that passes; then the smaller margin; of equals, the
        first), not merely the row of the worst value: the score passes only if every row's interval lies on the
        passing side, and fails as soon as one row's does on the failing side.  Read by value alone, a noisy row of a
        slightly better value whose interval straddles the threshold was passed over for a worse, decided one (a pass
        claimed for a row not shown to pass), and a decided failure was hidden behind a worse value still undecided (a
        race then spent seeds on a verdict already settled).
        """
        positions = self.groups.get(key)
        if positions is None:
            return None
        at = min(positions, key=lambda position: self._check_at(position).severity())  # of equals, the first
        return self._check_at(at, full=True)

    def _check_at(self, at: int, *, full: bool = False) -> Check:
        """The check of row ``at``: its statistic, value and interval (enough to rank it); with ``full``, also what the
        report says of it (the row's reason, place and seeds)."""
        rule = self.rule
        interval = (float(self.interval[at, 0]), float(self.interval[at, 1])) if self.interval is not None else None
        widened = (float(self.widened[at, 0]), float(self.widened[at, 1])) if self.widened is not None else None
        check = Check(statistic=self.thresholds.fill(rule.statistic), value=float(self.values[at]),
                      comparison=rule.comparison, threshold=float(getattr(self.thresholds, rule.threshold)),
                      digits=rule.digits, interval=interval, label=rule.label, joiner=rule.joiner,
                      position=int(self.rows.index[at]), widened=widened, pooled=int(self.pooled[at]))
        if not full:
            return check
        row = self.rows.iloc[at]
        return replace(check, reason=str(row[rule.reason]) if rule.reason else "", where=rule.where.format(**row),
                       at=tuple(str(row[c]) for c in rule.at),
                       seeds=int(row["n_seeds"]) if "n_seeds" in row.index else 0)

    def straddling(self, keys: set[tuple[str, str]]) -> pd.DataFrame:
        """The rows of the scores ``keys`` whose own check is undecided: their interval has its two ends on different
        sides of the threshold, or lies on the failing side while their widened interval does not."""
        if self.interval is None:
            return self.rows.iloc[:0]
        split = self._split(self.interval)
        if self.widened is not None:
            split |= self._failing() & self._split(self.widened)
        owned = np.array([key in keys for key in zip(self.rows["metric"], self.rows["sub_score"])], dtype=bool)
        return self.rows.loc[split & owned]

    def _split(self, interval: np.ndarray) -> np.ndarray:
        """Whether each row of ``interval`` has its two (finite) ends on different sides of the threshold."""
        finite, low, high = self._sides(interval)
        return finite & (low != high)


def _rule_rows(bundle: Bundle, characteristic: Characteristic, table: pd.DataFrame) -> list[_RuleRows]:
    """The rows each rule of ``characteristic`` reads of ``table`` (its rows of the bundle's analysis), failures read
    from the bundle's widened analyses (:attr:`Bundle.failing`)."""

    def widened() -> pd.DataFrame:
        return _rows(characteristic, getattr(bundle.failing, characteristic.analysis).frame, bundle.thresholds)

    return [_RuleRows(rule, table, bundle.thresholds, widened, bundle.pooled_checks) for rule in characteristic.rules]


def row_readings(rules: Sequence[Rule], table: pd.DataFrame, thresholds: Thresholds,
                 widened: Callable[[], pd.DataFrame] | None = None,
                 pooled: Mapping[str, int] | None = None) -> list[Verdict]:
    """Each row of ``table`` read by ``rules`` as a verdict reads the checks it pools: one check per rule, decided by
    the row's interval (``<column>_low``, ``<column>_high`` where the table has them), a failure only where the row's
    interval in ``widened`` (the same rows of the analysis run at the level failures are read at,
    :attr:`reports.verdicts.bundle.Bundle.failing`; ``pooled`` the checks each metric's intervals were widened for,
    :func:`pooled_checks`) lies on the failing side too.

    The sections' folded tables and their CSVs mark every row so, with the marks of the verdicts: a row reads there as
    the roll-up above it reads it (on means alone, a calibration row of DCI-RF read ✗ at 0.11 where its verdict, 0.11
    [0.09, 0.12] against ≤ 0.1, was undecided).

    Parameters
    ----------
    rules : sequence of Rule
        What each row is read against; each reads every row (no ``rows`` filter).
    table : pandas.DataFrame
        An analysis's rows.
    thresholds : Thresholds
        The thresholds the rules compare with.
    widened : callable, optional
        Gives the same rows widened, called only when some row's interval lies on the failing side (None: the row's
        interval decides both ways).
    pooled : mapping, optional
        Metric -> how many checks its widened intervals were widened for (the checks' ``pooled``).

    Returns
    -------
    list of Verdict
        One per row of ``table``, in order: :meth:`Verdict.of` its checks, one per rule.
    """
    if any(rule.rows for rule in rules):
        raise ValueError("row_readings reads every row of the table: a rule with a rows filter would skip some")
    if table.empty:
        return []
    readers = [_RuleRows(rule, table, thresholds, widened, pooled) for rule in rules]
    return [Verdict.of([reader._check_at(at) for reader in readers]) for at in range(len(table))]


def pooled_checks(bundle: Bundle) -> dict[str, int]:
    """Per metric, the most checks one of its verdicts pools: for each headline column (a characteristic outside the
    headline alone), the rows every rule of its characteristics reads over all the metric's sub-scores.

    A verdict fails as soon as one of its checks does, so each check's failing side is read at the level split over
    that many checks (Bonferroni, :mod:`reports.analyses.intervals`).  The largest such verdict, the metric's verdict
    on a headline column (:func:`criterion_verdicts`), holds every other view's verdicts of the metric (a score's, a
    characteristic's): reading each at its level keeps every view's failures at 5% and the views in agreement.  The
    metric is named as the analyses name it (its base for a sweep's verdicts).
    """
    families: dict[tuple[str, str], int] = {}
    for characteristic in characteristics.CHARACTERISTICS:
        table = _rows(characteristic, getattr(bundle, characteristic.analysis).frame, bundle.thresholds)
        family = characteristic.headline or characteristic.key
        for rule in characteristic.rules:
            for (metric, _), positions in _RuleRows(rule, table, bundle.thresholds).groups.items():
                families[(metric, family)] = families.get((metric, family), 0) + len(positions)
    pooled: dict[str, int] = {}
    for (metric, _), count in families.items():
        pooled[metric] = max(pooled.get(metric, 1), count)
    return pooled


def verdict_table(bundle: Bundle) -> pd.DataFrame:
    """Every score's verdict on every characteristic: the finest-grained table every output is a view of.

    Parameters
    ----------
    bundle : reports.verdicts.bundle.Bundle
        The analyses of a results table.

    Returns
    -------
    pandas.DataFrame
        One row per (metric, sub_score, characteristic of :data:`reports.verdicts.characteristics.CHARACTERISTICS`),
        in report order: the score's ``metric``, ``family``, ``sub_score``, ``property``,
        ``higher_is_better``, ``metric_base``, the ``characteristic`` and its ``verdict``
        (a :class:`reports.analyses.checks.Verdict`).  A sub-score whose property the characteristic does not
        judge gets its ``outside`` mark (absent or n/a); one no row of the analysis judges, ``unmeasured``.
    """
    keys = scores(bundle.judged)
    thresholds = bundle.thresholds
    records = []
    for characteristic in characteristics.CHARACTERISTICS:
        table = _rows(characteristic, getattr(bundle, characteristic.analysis).frame, thresholds)
        read = set(table.groupby(["metric", "sub_score"]).indices) if not table.empty else set()
        rules = _rule_rows(bundle, characteristic, table)
        unmeasured = Verdict("unmeasured", evidence=thresholds.fill(characteristic.unmeasured))
        outside = Verdict(characteristic.outside, evidence=characteristic.outside_evidence)
        for score in keys.itertuples(index=False):
            key = (score.metric_base if characteristic.by_base else score.metric, score.sub_score)
            if characteristic.properties is not None and score.property not in characteristic.properties:
                verdict = outside
            elif key not in read:
                verdict = unmeasured
            else:
                checks = [check for check in (rule.check(key) for rule in rules) if check is not None]
                verdict = Verdict.of(checks) if checks else unmeasured
            records.append((*score, characteristic.key, verdict))
    table = pd.DataFrame(records, columns=[*SCORE_COLUMNS, "characteristic", "verdict"])
    order = {key: position for position, key in enumerate(zip(keys["metric"], keys["sub_score"]))}
    table["_order"] = [order[key] for key in zip(table["metric"], table["sub_score"])]
    return table.sort_values("_order", kind="stable").drop(columns="_order").reset_index(drop=True)


def undecided_sources(bundle: Bundle) -> set[tuple[str, str]]:
    """Where more seeds can decide an undecided verdict: the ``(scenario, metric)`` of every row of an analysis whose
    interval straddles its rule's threshold, for each score whose verdict on that rule's characteristic is undecided
    (a verdict already failing on another row needs no more seeds, nor does a row whose interval lies on one side).

    ``metric`` is as the results name it: a verdict per metric base (an option sweep's) names the variants of the
    base that sweep the row's options (its ``option``, or the ``straddling`` ones of a count; every variant otherwise:
    :func:`_sweeping`) on the scenarios where the sweep ran and a spread may still exceed the threshold
    (:func:`_swept_scenarios`), not the scenarios its default variant alone scores; another row without a ``scenario``
    column names every scenario of its metric's rows.  Racing (:mod:`harness.execution.racing`) adds seeds to these
    cells only.
    """
    table = bundle.verdicts
    undecided = table.loc[[verdict.mark == "undecided" for verdict in table["verdict"]]]
    found: set[tuple[str, str]] = set()
    results = bundle.results
    for characteristic in characteristics.CHARACTERISTICS:
        own = undecided.loc[undecided["characteristic"] == characteristic.key]
        if own.empty:
            continue
        column = "metric_base" if characteristic.by_base else "metric"
        keys = set(zip(own[column], own["sub_score"]))
        rows = _rows(characteristic, getattr(bundle, characteristic.analysis).frame, bundle.thresholds)
        for rule_rows in _rule_rows(bundle, characteristic, rows):
            for row in rule_rows.straddling(keys).to_dict("records"):
                if characteristic.by_base:
                    variants = _sweeping(results.loc[results["metric_base"] == row["metric"]], row)
                    found.update((str(scenario), str(name)) for name in variants["metric"].unique()
                                 for scenario in _swept_scenarios(variants, row))
                    continue
                for name in _results_names(results, row["metric"]):
                    scenarios = ([row["scenario"]] if "scenario" in row
                                 else results.loc[results["metric"] == name, "scenario"].unique())
                    found.update((str(scenario), str(name)) for scenario in scenarios)
    return found


def _sweeping(variants: pd.DataFrame, row: Mapping[str, object]) -> pd.DataFrame:
    """The rows of ``variants`` that sweep the options a sweep's verdict row names (``option``, or ``straddling``: a
    comma-separated list): those setting no other option off its default, the default variant included."""
    named = row.get("option", row.get("straddling"))
    if not isinstance(named, str) or not named:
        return variants
    options = [{option} for option in named.split(", ")]
    return variants.loc[off_defaults(variants).map(lambda off: any(off <= option for option in options))]


def _swept_scenarios(variants: pd.DataFrame, row: Mapping[str, object]) -> list[str]:
    """The scenarios where two variants of one metric or more were scored (a sweep's spread is read there alone), of
    those the sweep's verdict row names as open (``open_scenarios``: where a spread may exceed the threshold,
    :func:`reports.analyses.sensitivity.option_sensitivity`), or all of them when it names none."""
    names = variants.groupby("scenario", sort=True)["metric"].nunique()
    swept = list(names.index[names >= 2])
    named = row.get("open_scenarios")
    opened = set(named.split(", ")) & set(swept) if isinstance(named, str) and named else set()
    return [scenario for scenario in swept if scenario in opened] or swept


def _results_names(results: pd.DataFrame, name: str) -> list[str]:
    """The results' names of a metric as the analyses name it: itself, or for a swept metric its variant at the default
    options, which the analyses read under the metric's name (:func:`reports.analyses.sensitivity.on_default_options`)."""
    if (results["metric"] == name).any():
        return [name]
    variants = results.loc[results["metric_base"] == name]
    return list(variants.loc[at_defaults(variants), "metric"].unique())


#: The analyses that read every sample size of a scenario (the others read its largest).
_EVERY_N = ("efficiency", "sensitivity", "discretization", "hyperparameters")


def verdict_sources(bundle: Bundle, keys: Sequence[str] | None = None) -> dict[str, bool]:
    """The scenarios the verdicts on the characteristics ``keys`` (all when None) read, each with whether every
    sample size of it was read (for :func:`reports.results.table.provenance`)."""
    sources: dict[str, bool] = {}
    for characteristic in characteristics.CHARACTERISTICS:
        if keys is not None and characteristic.key not in keys:
            continue
        table = _rows(characteristic, getattr(bundle, characteristic.analysis).frame, bundle.thresholds)
        if table.empty:
            continue
        if characteristic.by_base:  # a sweep's rows: the variants of the metrics it moved
            results = bundle.results
            swept = results["metric_base"].isin(table["metric"]) & (results["metric"] != results["metric_base"])
            scenarios = results.loc[swept, "scenario"].unique()
        else:
            scenarios = table["scenario"].unique()
        for scenario in scenarios:
            sources[scenario] = sources.get(scenario, False) or characteristic.analysis in _EVERY_N
    return sources


def _statistics(characteristics: Sequence[Characteristic], thresholds: Thresholds) -> list[str]:
    return list(dict.fromkeys(thresholds.fill(rule.statistic) for c in characteristics for rule in c.rules))


def matrix_verdicts(bundle: Bundle) -> pd.DataFrame:
    """Per metric and characteristic, its sub-scores' verdicts pooled (:func:`reports.analyses.checks.pool_scores`).

    Returns columns ``metric``, ``family``, ``characteristic``, ``verdict``, one row per metric and
    characteristic, metrics in report order, characteristics in the matrix's.
    """
    table = bundle.verdicts
    records = []
    for metric, rows in table.groupby("metric", sort=False):
        for characteristic in characteristics.CHARACTERISTICS:
            own = rows.loc[rows["characteristic"] == characteristic.key, "verdict"].tolist()
            pooled = pool_scores(own, _statistics([characteristic], bundle.thresholds),
                                 bundle.thresholds.fill(characteristic.unmeasured))
            records.append((metric, rows["family"].iloc[0], characteristic.key, pooled))
    return pd.DataFrame(records, columns=["metric", "family", "characteristic", "verdict"])


def _headline_parts(rows: pd.DataFrame, column: str) -> list[Verdict]:
    """A score's verdicts pooled into headline ``column``, less those of properties it does not measure."""
    parts = rows.loc[rows["characteristic"].map(lambda key: characteristics.characteristic(key).headline == column),
                     "verdict"]
    return [verdict for verdict in parts if verdict.mark != "absent"]


def headline_verdicts(bundle: Bundle) -> pd.DataFrame:
    """Per sub-score and headline column (:data:`HEADLINE_COLUMNS`), its characteristics' verdicts pooled
    (:func:`reports.analyses.checks.pool_characteristics`): ``follows`` the ideal of the property it measures (all
    three for a holistic score), ``robust`` to noise, a nonlinear map and non-measured factors.

    Returns the columns of :data:`SCORE_COLUMNS`, ``criterion`` and ``verdict``.
    """
    records = []
    for _, rows in bundle.verdicts.groupby(["metric", "sub_score"], sort=False):
        score = rows.iloc[0]
        records += [(*score[SCORE_COLUMNS], column, pool_characteristics(_headline_parts(rows, column)))
                    for column in HEADLINE_COLUMNS]
    return pd.DataFrame(records, columns=[*SCORE_COLUMNS, "criterion", "verdict"])


def criterion_verdicts(bundle: Bundle) -> pd.DataFrame:
    """Per metric and headline column, the verdicts of every sub-score pooled: a metric passes a criterion when
    each of its sub-scores does.  Returns columns ``metric``, ``criterion``, ``verdict``."""
    records = []
    for metric, rows in bundle.metric_verdicts.groupby("metric", sort=False):
        for column in HEADLINE_COLUMNS:
            records.append((metric, column, pool_characteristics(_headline_parts(rows, column))))
    return pd.DataFrame(records, columns=["metric", "criterion", "verdict"])


def base_verdicts(bundle: Bundle, key: str) -> dict[str, Verdict]:
    """Per metric base (the metric an option sweep's variants are of), its verdict on the characteristic ``key``
    pooled over every score of its variants judged (they share a sweep's verdict: the sensitivity section's)."""
    rows = bundle.verdicts.loc[bundle.verdicts["characteristic"] == key]
    statistics = _statistics([characteristics.characteristic(key)], bundle.thresholds)
    return {base: pool_scores(list(own), statistics, "") for base, own in rows.groupby("metric_base")["verdict"]}


def symbol(mark: str) -> str:
    """A verdict's mark as tables print it (✓, ✗, ≈, n/a, ?, —)."""
    return SYMBOLS[mark]


def rollup(bundle: Bundle, keys: Sequence[str]) -> pd.DataFrame:
    """One display row per metric with a judged verdict on the characteristics ``keys`` (a section's roll-up).

    Columns: Metric, Family, Passing (``k of n``: the sub-scores whose verdicts on ``keys`` all pass, of
    those judged), one column per statistic headed by its rule (:meth:`reports.analyses.checks.Verdict.statistics`: the
    worst value over the metric's sub-scores, with its mark and the digits that decide it) and Worst at (where the check closest to
    failing was found).
    """
    statistics = _statistics([characteristics.characteristic(key) for key in keys], bundle.thresholds)
    table = bundle.verdicts.loc[bundle.verdicts["characteristic"].isin(keys)]
    records = []
    for metric, rows in table.groupby("metric", sort=False):
        by_score = [pool_characteristics(list(own)) for _, own in rows.groupby("sub_score", sort=False)["verdict"]]
        judged = [verdict for verdict in by_score if verdict.judged]
        if not judged:
            continue
        pooled = pool_scores([verdict for verdict in rows["verdict"] if verdict.judged], statistics, "")
        record = {"Metric": metric, "Family": rows["family"].iloc[0],
                  "Passing": f"{sum(verdict.mark == 'yes' for verdict in judged)} of {len(judged)}"}
        record.update({rule: f"{symbol(check.mark)} {check.value_text()}" for rule, check in pooled.statistics()})
        record["Worst at"] = ", ".join(worst(pooled.checks).at)
        records.append(record)
    return pd.DataFrame(records)
