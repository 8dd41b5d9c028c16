"""The report card of one metric: its criteria ranked among a battery's metrics, its property-matrix verdicts,
and its axiom checks, as Markdown.

``python -m harness validate`` runs the battery and the axiom checks and hands the results
here (:mod:`harness.workflows.validate`); everything measured about the results table is
computed by the analyses of this package, so a card and a full report never disagree.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Callable, Collection, Mapping, Sequence

import numpy as np
import pandas as pd

from reports._table import MissingDataError
from reports.calibration import calibration
from reports.cost import cost
from reports.linearity import MIN_LEVELS
from reports.property_matrix import property_matrix, verdict_linearity
from reports.robustness import CONDITIONS, ROBUSTNESS_CRITERIA, robustness
from reports.sample_efficiency import sample_efficiency
from reports.sensitivity import on_default_options
from reports.markdown import markdown_table

#: Sample size at which the card reads sample efficiency (the review's "1k samples", 5.7).
EFFICIENCY_N = 1000

#: Criterion -> how the card's number is computed from the analyses.
MEASURES = {
    "calibration": "max(1 − score of a perfect code, score of pure noise), at the ends of the noise scenario",
    "linearity": "lowest R² of the affine fit to the ideal trajectory (0 if the slope ≤ 0 or R² is undefined)",
    "robustness": "largest |score − ideal| under noise (modularity, compactness), a nonlinear map and "
                  "non-measured factors (every sub-score)",
    "entanglement attacks": "largest |score − ideal| under entanglement attacks (the ideal falls with the attack)",
    "sample efficiency": f"largest mean |s(n) − s(n_max)| at n = {EFFICIENCY_N} (sample-size sweep)",
    "cost": "median seconds per call",
}


def criterion_values(results: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """One number per (criterion, metric), from the analyses of :mod:`reports`.

    * calibration: ``max(1 - perfect, random)`` over sub-scores, oriented scores at the
      ends of the scenario declaring the ``noise`` criterion (lower is better);
    * linearity: lowest R² over sub-scores and the scenarios the Linear verdict reads
      (ideal trajectories of at least ``MIN_LEVELS`` values, no entanglement attacks), 0
      where the slope is not positive or R² is undefined (a constant score is not a
      linear response; higher is better);
    * robustness: largest ``max(drop, excess)`` from the ideal under noise, a nonlinear
      map and non-measured factors, judging the properties of
      :data:`reports.robustness.JUDGED_PROPERTIES` (lower is better);
    * entanglement attacks: the same under the attacks, whose ideal falls with the
      attack (lower is better);
    * sample efficiency: largest mean ``|s(n) - s(n_max)|`` at ``n = 1000`` (lower is better);
    * cost: median seconds per call (lower is better).

    A metric swept over options is judged on its variant at its default options, as in
    the property matrix (:func:`reports.sensitivity.on_default_options`).

    Returns
    -------
    (pandas.DataFrame, list of str)
        Columns ``criterion``, ``metric``, ``value``, ``higher_is_better``; and the
        criteria that could not be measured, with the reason.
    """
    results = on_default_options(results)
    values: list[pd.DataFrame] = []
    notes: list[str] = []

    def add(criterion: str, higher_is_better: bool, compute: Callable[[], pd.Series]) -> None:
        try:
            series = compute()
        except MissingDataError as error:
            notes.append(f"{criterion}: not measured ({error})")
            return
        if series.empty:
            notes.append(f"{criterion}: not measured (no sub-score qualifies)")
            return
        values.append(pd.DataFrame({"criterion": criterion, "metric": series.index, "value": series.to_numpy(),
                                    "higher_is_better": higher_is_better}))

    def calibration_error() -> pd.Series:
        table = calibration(results)
        error = np.maximum(1.0 - table["perfect_oriented"], table["random_oriented"])
        return error.groupby(table["metric"]).max()

    def lowest_r2() -> pd.Series:
        table = verdict_linearity(results)
        table = table.loc[table["n_levels"] >= MIN_LEVELS]  # trajectories, as the Linear verdict reads them
        return table["r2"].where(table["slope"] > 0, 0.0).fillna(0.0).groupby(table["metric"]).min()

    @functools.cache
    def deviations() -> pd.DataFrame:  # one robustness table for both criteria
        return robustness(results)

    def largest_deviation(criteria: Sequence[str]) -> pd.Series:
        if not results["criterion"].isin(criteria).any():
            raise MissingDataError("no scenario of the results tests " + ", ".join(CONDITIONS[c] for c in criteria))
        table = deviations()
        table = table.loc[table["criterion"].isin(criteria)]
        return table["deviation"].groupby(table["metric"]).max()

    def efficiency() -> pd.Series:
        table = sample_efficiency(results)
        table = table.loc[table["n"] == EFFICIENCY_N]
        return table["mean_abs_difference"].groupby(table["metric"]).max()

    add("calibration", False, calibration_error)
    add("linearity", True, lowest_r2)
    add("robustness", False, lambda: largest_deviation(ROBUSTNESS_CRITERIA))
    add("entanglement attacks", False, lambda: largest_deviation(("attacks",)))
    add("sample efficiency", False, efficiency)
    add("cost", False, lambda: cost(results).set_index("metric")["median_seconds"])
    columns = ["criterion", "metric", "value", "higher_is_better"]
    return (pd.concat(values, ignore_index=True) if values else pd.DataFrame(columns=columns)), notes


#: Columns of the card's criteria table.
RANKING_COLUMNS = ("criterion", "measure", "value", "rank", "best built-in")
#: Columns of the card's property-matrix verdicts.
VERDICT_COLUMNS = ("characteristic", "verdict", "number", "threshold", "evidence", "built-ins passing")


def rank_metric(values: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The metric's value, rank (1 = best, ties share the best rank) and the best other metric, per criterion."""
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
            "measure": MEASURES[criterion],
            "value": own,
            "rank": f"{int(ranks[metric])} of {len(group)}",
            "best built-in": f"{others['metric'].iloc[0]} ({others['value'].iloc[0]:.3g})" if len(others) else "-",
        })
    return pd.DataFrame(rows, columns=list(RANKING_COLUMNS))


#: Criterion -> the scenario criteria (``criterion`` column) whose cells it reads; None: every scenario.
READS = {
    "calibration": ("noise",),
    "linearity": None,
    "robustness": ROBUSTNESS_CRITERIA,
    "entanglement attacks": ("attacks",),
    "sample efficiency": ("sample_efficiency",),
    "cost": None,
}


def criterion_rankings(
    results: pd.DataFrame, metric: str, failures: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """The card's criteria table for ``metric`` and the notes on what was not measured or not ranked.

    ``failures`` (records of :data:`reports.schema.FAILURE_COLUMNS`): a criterion not ranked
    for ``metric`` has its note say how many of the metric's cells failed in the scenarios
    it reads, since those cells have no score to judge.
    """
    values, notes = criterion_values(results)
    rankings = rank_metric(values, metric)
    measured = set(values["criterion"])
    own_failed = failures.loc[failures["metric"] == metric] if failures is not None else pd.DataFrame(columns=["scenario"])
    criterion_of = results.drop_duplicates("scenario").set_index("scenario")["criterion"]
    for criterion in MEASURES:
        if criterion not in measured or criterion in set(rankings["criterion"]):
            continue
        note = f"{criterion}: no sub-score of {metric} is judged by it in this battery"
        read = READS[criterion]
        failed = own_failed if read is None else own_failed.loc[own_failed["scenario"].map(criterion_of).isin(read)]
        if len(failed):
            note += f" ({len(failed)} of its cells in the scenarios it reads failed: see Failed cells)"
        notes.append(note)
    return rankings, notes


def verdict_rows(results: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The metric's row of the property matrix, with how many of the other metrics pass each characteristic."""
    matrix = property_matrix(results)
    others = matrix.loc[matrix["metric"] != metric]
    passing = others.loc[others["verdict"] == "yes"].groupby("characteristic").size()
    judged = others.loc[others["verdict"].isin(["yes", "no"])].groupby("characteristic").size()
    own = matrix.loc[matrix["metric"] == metric, ["characteristic", "verdict", "number", "threshold", "evidence"]].copy()
    own["built-ins passing"] = [f"{int(passing.get(c, 0))} of {int(judged.get(c, 0))}" for c in own["characteristic"]]
    return own.reset_index(drop=True)[list(VERDICT_COLUMNS)]


#: Failed cells listed in the card (every one is in ``failures.csv``).
SHOWN_FAILURES = 20


def is_own(names: pd.Series, metric: str) -> pd.Series:
    """Which of the metric ``names`` are ``metric`` or a variant of its option sweeps (``metric[OPTION=V]``)."""
    names = names.astype(str)
    return (names == metric) | names.str.startswith(f"{metric}[")


def failure_summary(failures: pd.DataFrame, results: pd.DataFrame | None, metric: str) -> str | None:
    """One line: how many of ``metric``'s cells, its option variants' included (and of the others'), failed; None when
    none did.

    ``failures`` holds the records of :data:`reports.schema.FAILURE_COLUMNS`; a cell is one
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
        The battery's failed cells (:data:`reports.schema.FAILURE_COLUMNS`) and its results
        table: when cells failed, a header line counts them (:func:`failure_summary`) and a
        *Failed cells* section lists them; the sub-scores ``name`` returned there shorten the
        claims line (:func:`claims_text`).
    """
    passed = int((axioms["result"] == "pass").sum()) if len(axioms) else 0
    scored = results.loc[results["metric"] == name, "sub_score"] if results is not None else pd.Series(dtype=object)
    own_sub_scores = set(scored) if len(scored) else None  # unknown when no cell of the metric was scored
    lines = [
        f"# Report card: `{name}`",
        "",
        f"- reference: `{reference}` (source version {version})",
        f"- claims: {claims_text(claims, own_sub_scores)}",
        f"- battery: preset `{battery['preset']}`; scenarios {', '.join(battery['scenarios'])}; "
        f"{battery['seeds']} seed(s); n = {battery['n_samples']}",
        f"- compared with {len(battery['builtins'])} built-in metric(s): {', '.join(battery['builtins']) or 'none'}",
        f"- axioms: {passed} of {len(axioms)} checks pass",
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
        "## Property-matrix verdicts (reports.property_matrix)",
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
