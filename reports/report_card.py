"""The report card of one metric: its criteria, each with its verdict and its rank among a battery's metrics, its
property-matrix verdicts, and its axiom checks, as Markdown.

``python -m harness validate`` runs the battery and the axiom checks and hands the results
here (:mod:`harness.workflows.validate`).  Every mark on the card is a view of the report's one
table of verdicts (:func:`reports.verdicts.verdict_table.verdict_table`), so a card and a full report never
disagree: the criteria are the headline's columns pooled over the metric's sub-scores, the
verdicts its row of the property matrix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from reports.analyses.agreement import kendall
from reports.analyses.checks import Verdict
from reports.analyses.robustness import ROBUSTNESS_CRITERIA, of_conditions
from reports.analyses.score_ranges import Declared, declared_range, outside_ranges, range_flag
from reports.analyses.thresholds import Thresholds
from reports.rendering.markdown import markdown_table
from reports.results.table import MissingDataError, oriented_score, representation_keys, score_label
from reports.verdicts.bundle import Bundle, bundle_for
from reports.verdicts.characteristics import HEADINGS
from reports.verdicts.property_matrix import property_matrix
from reports.verdicts.verdict_table import symbol


def _undefined_is_zero(verdict: Verdict) -> float:
    r2, slope = verdict.checks
    return 0.0 if not r2.defined or slope.value <= 0 else r2.value


@dataclass(frozen=True)
class Criterion:
    """A row of the card's criteria table.

    Attributes
    ----------
    name : str
        How the card names it (``--fail-on`` takes it with ``_`` for spaces).
    verdict : str
        The headline column whose verdict it shows (:data:`reports.verdicts.verdict_table.HEADLINE_COLUMNS`); empty: none.
    measure : str
        How the number it ranks the metrics by is computed from that verdict's checks (``{field}``: a threshold).
    value : callable
        That number, from the metric's pooled verdict (the whole metric's for cost).
    higher_is_better : bool
        How the number ranks.
    reads : tuple of str, optional
        The scenario criteria whose cells it reads (None: every scenario).
    """

    name: str
    verdict: str
    measure: str
    value: Callable[[Verdict], float] | None
    higher_is_better: bool
    reads: tuple[str, ...] | None


#: The card's criteria, in order.
CRITERIA = (
    Criterion("calibration", "calibrated",
              "max(1 − score of a perfect code, |score of pure noise|), at the ends of the noise scenario",
              lambda verdict: max(1.0 - verdict.checks[0].value, *(abs(check.value) for check in verdict.checks[1:])),
              False, ("noise",)),
    Criterion("linearity", "linear",
              "lowest R² of the affine fit to the ideal trajectory (0 if the slope ≤ 0 or R² is undefined)",
              _undefined_is_zero, True, None),
    Criterion("robustness", "robust", "largest |score − ideal| under noise (modularity, compactness), a nonlinear map "
              "and non-measured factors (every sub-score)", lambda verdict: verdict.checks[0].value, False,
              ROBUSTNESS_CRITERIA),
    Criterion("entanglement attacks", "follows_attacks",
              "largest |score − ideal| under entanglement attacks (the ideal falls with the attack)",
              lambda verdict: verdict.checks[0].value, False, ("attacks",)),
    Criterion("sample efficiency", "data_efficient", "largest mean |s(n) − s(n_max)| at n = {data_n} (sample-size sweep)",
              lambda verdict: verdict.checks[0].value, False, ("sample_efficiency",)),
    Criterion("cost", "", "median seconds per call", None, False, None),
)
#: What ``validate --fail-on`` takes -> the key of :func:`metric_verdicts`: a card criterion (``_`` for its spaces)
#: or a characteristic of the property matrix.
FAIL_ON = {**{criterion.name.replace(" ", "_"): criterion.name for criterion in CRITERIA if criterion.verdict},
           **{key: key for key in HEADINGS}}


def _missing(bundle: Bundle, criterion: Criterion) -> str:
    """Why the results cannot measure ``criterion`` at all (``""`` when they can)."""
    try:
        if criterion.reads in (ROBUSTNESS_CRITERIA, ("attacks",)):
            of_conditions(bundle.robustness.table, criterion.reads)
        else:
            {"calibration": bundle.calibration, "linearity": bundle.verdict_linearity,
             "sample efficiency": bundle.efficiency, "cost": bundle.cost}[criterion.name].required()
    except MissingDataError as missing:
        return str(missing)
    return ""


def criterion_values(results: pd.DataFrame | Bundle) -> tuple[pd.DataFrame, list[str]]:
    """One number per (criterion, metric), read from the metric's verdicts (:data:`CRITERIA`).

    * calibration: ``max(1 - perfect, |random|)``, the worst ends over sub-scores of the verdict
      Calibrated (oriented scores at the ends of the scenarios declaring the ``noise``
      criterion, pure noise's distance from the chance end 0 on either side; lower is better);
    * linearity: the lowest R² of the verdict Linear (ideal trajectories of at least
      ``MIN_LEVELS`` values, no entanglement attacks), 0 where its lowest slope is not positive
      or R² is undefined (a constant score is not a linear response; higher is better);
    * robustness: the largest ``max(drop, excess)`` from the ideal of the verdict Robust (noise,
      a nonlinear map, non-measured factors; lower is better);
    * entanglement attacks: the same under the attacks (lower is better);
    * sample efficiency: the largest mean ``|s(n) - s(n_max)|`` at ``n = data_n`` of the thresholds (lower is better);
    * cost: median seconds per call (lower is better).

    A metric swept over options is judged on its variant at its default options, as in
    the property matrix (:func:`reports.analyses.sensitivity.on_default_options`).

    Returns
    -------
    (pandas.DataFrame, list of str)
        Columns ``criterion``, ``metric``, ``value``, ``higher_is_better``; and the
        criteria that could not be measured, with the reason.
    """
    bundle = bundle_for(results)
    verdicts = bundle.criterion_verdicts.set_index(["criterion", "metric"])["verdict"]
    metrics = list(dict.fromkeys(bundle.verdicts["metric"]))
    values: list[pd.DataFrame] = []
    notes: list[str] = []
    for criterion in CRITERIA:
        missing = _missing(bundle, criterion)
        if missing:
            notes.append(f"{criterion.name}: not measured ({missing})")
            continue
        if criterion.value is None:  # cost: the whole metric's
            series = bundle.cost.frame.set_index("metric")["median_seconds"]
        else:
            own = {metric: verdicts[(criterion.verdict, metric)] for metric in metrics}
            series = pd.Series({metric: criterion.value(verdict) for metric, verdict in own.items() if verdict.judged},
                               dtype=float)
        if series.empty:
            notes.append(f"{criterion.name}: not measured (no sub-score qualifies)")
            continue
        values.append(pd.DataFrame({"criterion": criterion.name, "metric": series.index, "value": series.to_numpy(),
                                    "higher_is_better": criterion.higher_is_better}))
    columns = ["criterion", "metric", "value", "higher_is_better"]
    return (pd.concat(values, ignore_index=True) if values else pd.DataFrame(columns=columns)), notes


#: Columns of the card's criteria table.
RANKING_COLUMNS = ("criterion", "verdict", "threshold", "measure", "value", "rank", "best built-in")
#: Columns of the card's property-matrix verdicts.
VERDICT_COLUMNS = ("characteristic", "verdict", "number", "threshold", "evidence", "built-ins passing")


def rank_metric(values: pd.DataFrame, metric: str, thresholds: Thresholds = Thresholds()) -> pd.DataFrame:
    """The metric's value, rank (1 = best, ties share the best rank) and the best other metric, per criterion, with how
    the value is computed (:attr:`Criterion.measure`, filled from ``thresholds``)."""
    measures = {criterion.name: thresholds.fill(criterion.measure) for criterion in CRITERIA}
    rows = []
    for criterion, group in values.groupby("criterion", sort=False):
        if metric not in set(group["metric"]):
            continue
        higher = bool(group["higher_is_better"].iloc[0])
        ranks = group.set_index("metric")["value"].rank(ascending=not higher, method="min")
        others = group.loc[group["metric"] != metric].sort_values("value", ascending=not higher)
        own = float(group.loc[group["metric"] == metric, "value"].iloc[0])
        rows.append({
            "criterion": criterion,
            "measure": measures[criterion],
            "value": own,
            "rank": f"{int(ranks[metric])} of {len(group)}",
            "best built-in": f"{others['metric'].iloc[0]} ({others['value'].iloc[0]:.3g})" if len(others) else "-",
        })
    return pd.DataFrame(rows, columns=["criterion", "measure", "value", "rank", "best built-in"])


def metric_verdicts(results: pd.DataFrame | Bundle, metric: str) -> dict[str, Verdict]:
    """The metric's verdict per card criterion (those with one) and per characteristic of the property matrix:
    what its card's marks say and what ``validate --fail-on`` checks."""
    bundle = bundle_for(results)
    pooled = bundle.criterion_verdicts
    own = pooled.loc[pooled["metric"] == metric].set_index("criterion")["verdict"]
    matrix = bundle.metric_verdicts
    characteristics = matrix.loc[matrix["metric"] == metric].set_index("characteristic")["verdict"]
    by_name = {criterion.name: own[criterion.verdict] for criterion in CRITERIA if criterion.verdict and len(own)}
    return {**by_name, **characteristics.to_dict()}


def criterion_rankings(
    results: pd.DataFrame | Bundle, metric: str, failures: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """The card's criteria table for ``metric`` and the notes on what was not measured or not ranked.

    Each row: the criterion, the metric's verdict on it (its mark and deciding numbers, as the
    headline and the property matrix print them, pooled over its sub-scores; empty for cost),
    the rule, how the ranking number is computed, the number, its rank and the best other
    metric.  ``failures`` (records of :data:`reports.results.schema.FAILURE_COLUMNS`): a criterion not
    ranked for ``metric`` has its note say how many of the metric's cells failed in the
    scenarios it reads, since those cells have no score to judge.
    """
    bundle = bundle_for(results)
    values, notes = criterion_values(bundle)
    ranked = rank_metric(values, metric, bundle.thresholds)
    verdicts = metric_verdicts(bundle, metric)
    shown = [verdicts.get(name) for name in ranked["criterion"]]
    ranked.insert(1, "verdict", [f"{symbol(v.mark)} {v.number_text()}".strip() if v is not None else "" for v in shown])
    ranked.insert(2, "threshold", [v.threshold_text() if v is not None else "" for v in shown])
    measured = set(values["criterion"])
    own_failed = failures.loc[failures["metric"] == metric] if failures is not None else pd.DataFrame(columns=["scenario"])
    criterion_of = bundle.results.drop_duplicates("scenario").set_index("scenario")["criterion"]
    for criterion in CRITERIA:
        if criterion.name not in measured or criterion.name in set(ranked["criterion"]):
            continue
        note = f"{criterion.name}: no sub-score of {metric} is judged by it in this battery"
        read = criterion.reads
        failed = own_failed if read is None else own_failed.loc[own_failed["scenario"].map(criterion_of).isin(read)]
        if len(failed):
            note += f" ({len(failed)} of its cells in the scenarios it reads failed: see Failed cells)"
        notes.append(note)
    return ranked[list(RANKING_COLUMNS)], notes


def verdict_rows(results: pd.DataFrame | Bundle, metric: str) -> pd.DataFrame:
    """The metric's row of the property matrix, with how many of the other metrics pass each characteristic."""
    matrix = property_matrix(bundle_for(results))
    others = matrix.loc[matrix["metric"] != metric]
    passing = others.loc[others["verdict"] == "yes"].groupby("characteristic").size()
    judged = others.loc[others["verdict"].isin(["yes", "no", "undecided"])].groupby("characteristic").size()
    own = matrix.loc[matrix["metric"] == metric, ["characteristic", "verdict", "number", "threshold", "evidence"]].copy()
    own["built-ins passing"] = [f"{int(passing.get(c, 0))} of {int(judged.get(c, 0))}" for c in own["characteristic"]]
    return own.reset_index(drop=True)[list(VERDICT_COLUMNS)]


def overall_line(verdicts: Mapping[str, Verdict], failed_axioms: Sequence[str] = ()) -> str:
    """One line judging the metric on the card's criteria, the truth first: which fail, are undecided, pass (decided
    ✓ only), and are not measured (``✗ fails calibration, chance axiom, linearity; ✓ passes robustness; not
    measured: sample efficiency``).

    ``failed_axioms`` (the axiom checks the metric failed, :mod:`harness.workflows.axioms`) join the failures right
    after calibration, before the other criteria: a score that rewards noise or independent codes is what a reader
    must learn first, whatever else passes.
    """
    named = [(criterion.name, verdicts[criterion.name]) for criterion in CRITERIA if criterion.name in verdicts]
    groups = {mark: [name for name, verdict in named if verdict.mark == mark] for mark in ("no", "undecided", "yes")}
    axioms = [f"{axiom} axiom" for axiom in sorted(failed_axioms, key=lambda axiom: axiom != "chance")]
    at = 1 if groups["no"][:1] == ["calibration"] else 0
    groups["no"][at:at] = axioms
    unjudged = [name for name, verdict in named if not verdict.judged]
    parts = [f"{symbol(mark)} {word} {', '.join(groups[mark])}" for mark, word in
             (("no", "fails"), ("undecided", "undecided on"), ("yes", "passes")) if groups[mark]]
    parts += [f"not measured: {', '.join(unjudged)}"] if unjudged else []
    return "; ".join(parts) if parts else "nothing measured"


def closest_metric(results: pd.DataFrame | Bundle, metric: str) -> str | None:
    """The other metric whose sub-score ranks the battery's cells most like one of ``metric``'s, as a card line.

    Rank agreement is Kendall's tau-b over the cells both scored (:func:`reports.analyses.agreement.kendall`,
    oriented scores, each metric at its default options); None when no pair has a defined tau.
    """
    bundle = bundle_for(results)
    judged = bundle.judged
    data = judged.assign(label=[score_label(m, s) for m, s in zip(judged["metric"], judged["sub_score"])],
                         oriented=oriented_score(judged))
    wide = data.pivot_table(index=representation_keys(), columns="label", values="oriented", aggfunc="mean")
    own = sorted(set(data.loc[data["metric"] == metric, "label"]))
    others = sorted(set(data.loc[data["metric"] != metric, "label"]))
    best = None
    for mine in own:
        for other in others:
            pair = wide[[mine, other]].dropna()
            found = kendall(pair[mine].to_numpy(), pair[other].to_numpy())
            if found is not None and np.isfinite(found[0]) and (best is None or found[0] > best[0]):
                best = (found[0], len(pair), mine, other)
    if best is None:
        return None
    tau, cells, mine, other = best
    return f"closest established metric: `{other}` (Kendall τ {tau:.2f} with `{mine}` over {cells} cells of the battery)"


#: What [0, 1] is to a score, as a range warning says it.
UNIT_ASSUMED = "the range the verdicts' thresholds assume"


def range_warnings(results: pd.DataFrame, metric: str, declared: Declared | None = None) -> list[str]:
    """Warnings on the scores of ``metric`` (its option variants included) outside the range it declares, and outside
    [0, 1], which every verdict's threshold assumes, for its sub-scores declared no range within [0, 1].

    ``declared`` is one ``(low, high)`` for every sub-score, or sub-score -> ``(low, high)`` (an infinite bound for an
    unbounded side); by default a built-in's registered ranges (:func:`reports.analyses.score_ranges.declared_range`).  Each
    warning is the headline's flag (:func:`reports.analyses.score_ranges.range_flag`) of one sub-score.
    """
    own = results.loc[results["metric_base"] == metric]
    given = {metric: declared} if declared is not None else None
    unit = (0.0, 1.0)
    assumed = {sub: unit for sub in own["sub_score"].unique() if not _within(declared_range(metric, sub, given), unit)}
    flags = [range_flag(row) for row in outside_ranges(own, given).to_dict("records")]
    flags += [range_flag(row, UNIT_ASSUMED) for row in outside_ranges(own, {metric: assumed}).to_dict("records")]
    return [f"warning: {flag}" for flag in flags]


def constant_warnings(results: pd.DataFrame, metric: str) -> list[str]:
    """A warning for each sub-score of ``metric`` that scored one value on every cell of the battery (at least two):
    such a score passes the criteria that ask a score to stay put (robustness, sample efficiency) by never moving, and
    fails those that ask it to follow its ideal, so the card's marks say little about the metric."""
    own = results.loc[results["metric"] == metric]
    warnings = []
    for sub_score, scores in own.groupby("sub_score", sort=True)["score"]:
        if len(scores) >= 2 and scores.min() == scores.max():
            warnings.append(f"warning: {score_label(metric, sub_score)} scored {scores.iloc[0]:.4g} on every one of its "
                            f"{len(scores)} "
                            "cells: a score that never moves passes robustness and sample efficiency by not moving, "
                            "and fails what asks it to follow its ideal")
    return warnings


def _within(bounds: tuple[float, float] | None, outer: tuple[float, float]) -> bool:
    """Whether the range ``bounds`` (None: none declared) lies within ``outer``."""
    return bounds is not None and outer[0] <= bounds[0] and bounds[1] <= outer[1]


#: Failed cells listed in the card (every one is in ``failures.csv``).
SHOWN_FAILURES = 20


def is_own(names: pd.Series, metric: str) -> pd.Series:
    """Which of the metric ``names`` are ``metric`` or a variant of its option sweeps (``metric[OPTION=V]``)."""
    names = names.astype(str)
    return (names == metric) | names.str.startswith(f"{metric}[")


def failure_summary(failures: pd.DataFrame, results: pd.DataFrame | None, metric: str) -> str | None:
    """One line: how many of ``metric``'s cells, its option variants' included (and of the others'), failed; None when
    none did.

    ``failures`` holds the records of :data:`reports.results.schema.FAILURE_COLUMNS`; a cell is one
    (scenario, value, seed, sample size) of a metric, scored or failed.  With ``results``,
    the line also says out of how many cells.
    """
    if failures.empty:
        return None
    own_failed = int(is_own(failures["metric"], metric).sum())
    out_of = ""
    if results is not None:
        scored = results.loc[is_own(results["metric"], metric)].drop_duplicates(["scenario", "value", "seed", "n_samples", "metric"])
        out_of = f" of {own_failed + len(scored)}"
    others = len(failures) - own_failed
    line = f"{own_failed}{out_of} cells of `{metric}`" if own_failed else f"none of `{metric}`'s cells"
    if others:
        line += f", {others} cell(s) of the other metrics"
    return (f"failed cells: {line} (raised or timed out, so no score; listed under *Failed cells*); "
            "criteria and verdicts read only the cells scored")


def failure_section(failures: pd.DataFrame, metric: str) -> str:
    """The *Failed cells* section: ``metric``'s failures (its variants' included) first, at most :data:`SHOWN_FAILURES` rows."""
    own = is_own(failures["metric"], metric)
    ordered = pd.concat([failures.loc[own], failures.loc[~own]])
    lines = ["## Failed cells", "", markdown_table(ordered.head(SHOWN_FAILURES))]
    if len(ordered) > SHOWN_FAILURES:
        lines += ["", f"... and {len(ordered) - SHOWN_FAILURES} more (every one in `failures.csv`)."]
    return "\n".join(lines)


#: How the card says a lower-is-better score is read.
_READ_FLIPPED = "criteria, verdicts and the chance axiom read 1 − score, as the reports do"


def claims_text(claims: Mapping[str, Any], sub_scores: Collection[str] | None = None) -> str:
    """The card's line of claims: ``explicitness; higher is better; deterministic``.

    ``property`` is one property or a mapping sub-score -> property; ``higher_is_better`` one
    bool or a mapping sub-score -> bool (unlisted sub-scores higher-is-better), as
    :func:`metrics.describe.describe_metric` takes them; ``stochastic`` a bool.  ``sub_scores``,
    when known, are those the metric returned: what a mapping says of the others ("other
    sub-scores holistic", "higher for the others") is left out when it lists them all.
    """
    claimed, direction = claims["property"], claims["higher_is_better"]

    def others(mapping: Mapping[str, Any]) -> bool:
        return sub_scores is None or bool(set(sub_scores) - set(mapping))

    properties = (", ".join(f"{sub}: {prop}" for sub, prop in claimed.items())
                  + (" (other sub-scores holistic)" if others(claimed) else "")
                  if isinstance(claimed, Mapping) else str(claimed))
    if isinstance(direction, Mapping):
        lower = [sub for sub, higher in direction.items() if not higher]
        rest = ", higher for the others" if others(direction) else ""
        direction_text = f"lower is better for {', '.join(lower)} ({_READ_FLIPPED}){rest}" if lower else "higher is better"
    else:
        direction_text = "higher is better" if direction else f"lower is better ({_READ_FLIPPED})"
    return f"{properties}; {direction_text}; {'stochastic' if claims['stochastic'] else 'deterministic'}"


def _seeds_text(battery: Mapping[str, Any]) -> str:
    """The battery's seeds: ``3 seed(s)``, or ``3 to 12 seeds (raced: more where a verdict was undecided)``."""
    low, high = battery["seeds"], battery.get("most_seeds", battery["seeds"])
    return f"{low} seed(s)" if low == high else f"{low} to {high} seeds (raced: more where a verdict was undecided)"


def report_card_markdown(
    *,
    name: str,
    reference: str,
    version: str,
    claims: Mapping[str, Any],
    battery: Mapping[str, Any],
    rankings: pd.DataFrame,
    verdicts: pd.DataFrame,
    axioms: pd.DataFrame,
    probe: str,
    notes: Sequence[str] = (),
    extra_sections: Sequence[str] = (),
    failures: pd.DataFrame | None = None,
    results: pd.DataFrame | None = None,
    overall: str = "",
    closest: str | None = None,
    warnings: Sequence[str] = (),
) -> str:
    """The report card as Markdown.

    Parameters
    ----------
    name, reference, version : str
        The metric's name, import reference and source version.
    claims : Mapping
        ``property``, ``higher_is_better`` and ``stochastic``, as :func:`claims_text` reads them.
    battery : Mapping
        ``preset``, ``scenarios``, ``builtins``, ``seeds``, ``n_samples`` of the run.
    rankings, verdicts : pandas.DataFrame
        :func:`criterion_rankings` and :func:`verdict_rows`.
    axioms : pandas.DataFrame
        One row per axiom check, with a ``result`` column (``pass`` or ``FAIL``).
    probe : str
        The representation the axioms were checked on.
    notes : sequence of str
        What could not be measured, and why.
    extra_sections : sequence of str
        Further Markdown sections appended before the notes (e.g. a stress search).
    failures, results : pandas.DataFrame, optional
        The battery's failed cells (:data:`reports.results.schema.FAILURE_COLUMNS`) and its results
        table: when cells failed, a header line counts them (:func:`failure_summary`) and a
        *Failed cells* section lists them; the sub-scores ``name`` returned there shorten the
        claims line (:func:`claims_text`).
    overall : str
        The line judging the metric on its criteria (:func:`overall_line`), first on the card.
    closest : str, optional
        The line naming the closest established metric (:func:`closest_metric`).
    warnings : sequence of str
        Lines warning about its scores (:func:`range_warnings`).
    """
    passed = int((axioms["result"] == "pass").sum()) if len(axioms) else 0
    scored = results.loc[results["metric"] == name, "sub_score"] if results is not None else pd.Series(dtype=object)
    own_sub_scores = set(scored) if len(scored) else None  # unknown when no cell of the metric was scored
    lines = [
        f"# Report card: `{name}`",
        "",
        *([f"- overall: {overall}"] if overall else []),
        f"- reference: `{reference}` (source version {version})",
        f"- claims: {claims_text(claims, own_sub_scores)}",
        f"- battery: preset `{battery['preset']}`; scenarios {', '.join(battery['scenarios'])}; "
        f"{_seeds_text(battery)}; n = {battery['n_samples']}",
        f"- compared with {len(battery['builtins'])} built-in metric(s): {', '.join(battery['builtins']) or 'none'}",
        f"- axioms: {passed} of {len(axioms)} checks pass",
        *([f"- {closest}"] if closest else []),
        *(f"- {warning}" for warning in warnings),
    ]
    failed = failures if failures is not None else pd.DataFrame()
    summary = failure_summary(failed, results, name)
    lines += [f"- {summary}"] if summary else []
    lines += [
        "",
        "## Criteria (rank 1 = best, among every metric of the battery)",
        "",
        markdown_table(rankings) if not rankings.empty else "Nothing could be ranked (see notes).",
        "",
        "## Property-matrix verdicts (reports.verdicts.property_matrix)",
        "",
        markdown_table(verdicts) if not verdicts.empty else "No verdicts.",
        "",
        f"## Axiom checks (probe: {probe})",
        "",
        markdown_table(axioms, digits=4),
    ]
    if not failed.empty:
        lines += ["", failure_section(failed, name)]
    for section in extra_sections:
        lines += ["", section.rstrip("\n")]
    if notes:
        lines += ["", "## Notes", "", *(f"- {note}" for note in notes)]
    return "\n".join(lines) + "\n"


def write_report_card(directory: Path, markdown: str, record: Mapping[str, Any]) -> Path:
    """Write ``report_card.md`` and ``report_card.json`` (``record``, JSON-ready, its counts as numbers:
    :func:`_counts_as_numbers`) into ``directory``; return the Markdown path."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "report_card.json").write_text(json.dumps(_counts_as_numbers(record), indent=1, default=str) + "\n")
    card = directory / "report_card.md"
    card.write_text(markdown)
    return card


#: Fields of the card's tables written as "X of Y", and the JSON key that takes Y.
_COUNTED = {"rank": "rank_of", "built-ins passing": "built-ins judged"}


def _counts_as_numbers(record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` with the counts its tables hold as text as JSON numbers: a ranking's ``"rank": "4 of 6"`` as
    ``"rank": 4, "rank_of": 6``, a verdict's ``"built-ins passing": "3 of 5"`` as ``3`` and ``"built-ins judged": 5``,
    the battery's ``"n_samples": "250, 1000"`` as ``[250, 1000]``."""
    def counted(row: Mapping[str, Any]) -> dict[str, Any]:
        row = dict(row)
        for key, total in _COUNTED.items():
            if isinstance(row.get(key), str) and " of " in row[key]:
                count, _, of = row[key].partition(" of ")
                row[key], row[total] = int(count), int(of)
        return row

    converted = dict(record)
    for table in ("rankings", "verdicts"):
        converted[table] = [counted(row) for row in record.get(table, [])]
    battery = dict(record.get("battery") or {})
    if isinstance(battery.get("n_samples"), str):
        battery["n_samples"] = [int(size) for size in battery["n_samples"].split(",")]
    converted["battery"] = battery
    return converted
