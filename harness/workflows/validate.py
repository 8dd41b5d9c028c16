"""Validate a new metric: the scenario battery next to the built-ins, and axiom checks.

``python -m harness validate my_metric.py:my_metric`` (or :func:`validate` from Python)
runs a user's function through the scenario battery of a preset (``validate`` by default:
every criterion's scenarios, seeds raced until each verdict is decided) next to the built-in
metrics, on exactly the same data (every cell's data derive from its identity,
:mod:`harness.execution.seeds`), and writes a **report card**:

* one overall line: the criteria it fails, passes or leaves undecided, and those the battery
  does not measure;
* the metric's calibration, linearity, robustness, entanglement attacks, sample efficiency and
  cost, each with its verdict (✓/✗, the deciding numbers and the rule: the property matrix's,
  pooled over its sub-scores), the number it is ranked by, its rank among all the metrics of the
  battery and the best built-in;
* the closest established metric (the highest Kendall tau between the battery's cells' scores)
  and a warning for scores outside [0, 1] (which every threshold assumes) or the declared range;
* its row of the property matrix (:func:`reports.verdicts.property_matrix`): the ✓/✗ verdicts
  and their thresholds, with how many built-ins pass each;
* **axiom checks** (:func:`harness.workflows.axioms.check_axioms`), each with the measured number, the
  tolerance and pass/fail;
* with ``stress=True`` (``--stress``), the cases of a stress search
  (:func:`harness.workflows.stress.stress`): where the metric departs most from its ideal.

The user's function needs no registration.  Its metadata (the property it claims to
measure, whether higher is better, whether it is stochastic, its name) come from
:func:`metrics.describe.describe_metric` or from the arguments of :func:`validate`
(the CLI flags), which take precedence.

The checks and their tolerances are documented in :mod:`harness.workflows.axioms`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import metrics
from harness.errors import UnknownNameError, UsageError
from harness.execution.metric_refs import (
    MetricEntry,
    OptionSweep,
    check_required_options,
    check_user_metric_name,
    declared_score_range,
    variants,
)
from harness.execution.presets import PRESETS
from harness.execution.runner import run_study
from harness.execution.scoring import check_time_limit
from harness.execution.store import FAILURES_CSV, ResultStore
from harness.workflows import stress as stress_search
from harness.workflows.axioms import (
    DEFAULT_PROBE,
    PROBE_SAMPLES,
    STATEMENTS,
    AxiomResult,
    axiom_calls,
    check_axioms,
    make_probe,
    probe_sub_scores,
    seed_dependence,
)
from harness.workflows.stress_defaults import DEFAULT_BUDGET
from harness.workflows.stress_result import StressResult
from harness.workflows.stress_tables import stress_tables
from harness.workflows.user_metric import MetricLike, check_claimed_sub_scores, check_seedable, metadata_applied, metric_entry, reference_of, replaced_claims
from reports.analyses.checks import Verdict
from reports.report_card import (
    FAIL_ON,
    RANKING_COLUMNS,
    VERDICT_COLUMNS,
    closest_metric,
    constant_warnings,
    criterion_rankings,
    is_own,
    metric_verdicts,
    overall_line,
    range_warnings,
    report_card_markdown,
    verdict_rows,
)
from reports.results.schema import FAILURE_COLUMNS
from reports.stress import stress_record, stress_section
from reports.verdicts.bundle import Bundle

#: The default battery: the default study's scenarios with its race of seeds, without its option sweeps.
DEFAULT_PRESET = "validate"


#: ``--fail-on`` names of the axioms (:data:`harness.workflows.axioms.STATEMENTS`), beside the criteria of
#: :data:`reports.report_card.FAIL_ON`: each to the axioms it requires to pass.
FAIL_ON_AXIOMS = {"axioms": tuple(STATEMENTS), **{f"{axiom}_axiom": (axiom,) for axiom in STATEMENTS}}


@dataclass
class ReportCard:
    """Everything ``validate`` measured about one metric.

    Attributes
    ----------
    entry : MetricEntry
        The metric as it was run (name, claimed property, direction, stochasticity).
    reference : str
        Its import reference.
    battery : dict
        Preset, scenarios, built-in metrics, seeds and sample size of the run.
    results : pandas.DataFrame
        The tidy results table (built-ins and the metric).
    rankings : pandas.DataFrame
        Per criterion: the metric's value, its rank among all metrics, the best built-in.
    verdicts : pandas.DataFrame
        The metric's property-matrix row: characteristic, verdict, number, threshold,
        and how many built-ins pass.
    axioms : list of AxiomResult
        The axiom checks.
    notes : list of str
        What could not be measured, and why.
    marks : dict of str to Verdict
        The metric's verdict per card criterion and per property-matrix characteristic
        (:func:`reports.report_card.metric_verdicts`): what the card's marks show and
        :meth:`not_passed` reads.
    closest : str or None
        The card's line naming the closest established metric.
    warnings : list of str
        The card's warnings on the metric's scores (outside [0, 1] or its declared range).
    failures : pandas.DataFrame
        The battery's failed cells (columns :data:`reports.results.schema.FAILURE_COLUMNS`), the
        metric's and the built-ins'; written to ``failures.csv`` and listed in the card.
    stress : StressResult, optional
        The stress search's findings (``validate(stress=True)``).
    """

    entry: MetricEntry
    reference: str
    battery: dict[str, Any]
    results: pd.DataFrame
    rankings: pd.DataFrame
    verdicts: pd.DataFrame
    axioms: list[AxiomResult]
    probe: str
    notes: list[str] = field(default_factory=list)
    marks: dict[str, Verdict] = field(default_factory=dict)
    closest: str | None = None
    warnings: list[str] = field(default_factory=list)
    failures: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=list(FAILURE_COLUMNS)))
    stress: StressResult | None = None

    def not_passed(self, names: Sequence[str]) -> list[str]:
        """Of the criteria or characteristics ``names`` (keys of :data:`reports.report_card.FAIL_ON`, or of
        :data:`FAIL_ON_AXIOMS`), those the metric does not pass (failed, undecided or not measured; an axiom: failed),
        each as ``name: mark numbers (rule)``."""
        lines = []
        failed_axioms = {axiom.axiom: axiom for axiom in self.axioms if not axiom.passed}
        for name in names:
            if name in FAIL_ON_AXIOMS:
                failing = [failed_axioms[axiom] for axiom in FAIL_ON_AXIOMS[name] if axiom in failed_axioms]
                lines += [f"{name}: {axiom.axiom} fails ({axiom.detail})" for axiom in failing]
                continue
            verdict = self.marks.get(FAIL_ON[name], Verdict("unmeasured", evidence="no verdict"))
            if verdict.mark == "yes":
                continue
            shown = (f"{verdict.mark} {verdict.number_text()} ({verdict.threshold_text()})" if verdict.judged
                     else f"{verdict.mark} ({verdict.evidence_text()})")
            lines.append(f"{name}: {shown}")
        return lines

    @property
    def own_failures(self) -> pd.DataFrame:
        """The failed cells of the validated metric and of its option-sweep variants (``NAME[OPTION=V]``);
        the command line exits with status 1 when there are any."""
        return self.failures.loc[is_own(self.failures["metric"], self.entry.name)]

    @property
    def failed_axioms(self) -> list[str]:
        """The axioms the metric failed, for the card's overall line (:func:`reports.report_card.overall_line`)."""
        return [axiom.axiom for axiom in self.axioms if not axiom.passed]

    @property
    def overall(self) -> str:
        """The card's first line (:func:`reports.report_card.overall_line`); where no criterion could be judged (every
        cell of the metric failed) it says so, after the axioms that failed."""
        if self.marks:
            return overall_line(self.marks, self.failed_axioms)
        failed = len(self.own_failures)
        reason = (f"every one of its {failed} cells of the battery failed ({FAILURES_CSV})" if failed else
                  "the battery scored it on no cell")
        return (f"{overall_line({}, self.failed_axioms)}; " if self.failed_axioms else "") + f"nothing measured: {reason}"

    @property
    def axiom_table(self) -> pd.DataFrame:
        """The axiom checks as a table (result: pass or FAIL)."""
        return pd.DataFrame([
            {"axiom": a.axiom, "statement": a.statement, "measured": a.measured, "tolerance": a.tolerance,
             "result": "pass" if a.passed else "FAIL", "detail": a.detail}
            for a in self.axioms
        ])

    def to_markdown(self) -> str:
        """The report card as Markdown (rendered by :func:`reports.report_card.report_card_markdown`), with the
        stress search's section (:func:`reports.stress.stress_section`) when there is one."""
        entry = self.entry
        return report_card_markdown(
            name=entry.name,
            reference=self.reference,
            version=entry.version,
            claims={"property": entry.claimed_properties(), "higher_is_better": entry.claimed_directions(),
                    "stochastic": entry.stochastic},
            battery=self.battery,
            rankings=self.rankings,
            verdicts=self.verdicts,
            axioms=self.axiom_table,
            probe=self.probe,
            notes=self.notes,
            extra_sections=[stress_section(stress_tables(self.stress))] if self.stress is not None else [],
            failures=self.failures,
            results=self.results,
            overall=self.overall,
            closest=self.closest,
            warnings=self.warnings,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready content of the card (without the full results table)."""
        return {
            "metric": self.entry.name,
            "reference": self.reference,
            "version": self.entry.version,
            "property": self.entry.claimed_properties(),
            "higher_is_better": self.entry.claimed_directions(),
            "stochastic": self.entry.stochastic,
            "battery": self.battery,
            "overall": self.overall,
            "closest": self.closest,
            "warnings": self.warnings,
            "rankings": self.rankings.to_dict(orient="records"),
            "verdicts": self.verdicts.to_dict(orient="records"),
            "axioms": [{**dataclasses.asdict(a), "measured": a.measured if np.isfinite(a.measured) else None}
                       for a in self.axioms],
            "probe": self.probe,
            "notes": self.notes,
            "failures": self.failures.to_dict(orient="records"),
            "stress": stress_record(stress_tables(self.stress)) if self.stress is not None else None,
        }

    def write(self, out: str | Path) -> Path:
        """Write ``report_card.md``, ``report_card.json``, the results table and, when cells failed,
        ``failures.csv`` into ``out``; return the Markdown path."""
        from reports.report_card import write_report_card

        directory = Path(out)
        ResultStore(directory).write_tables(self.results, self.failures)
        return write_report_card(directory, self.to_markdown(), self.to_dict())


def _uneven_sub_scores(results: pd.DataFrame, metric: str, on_probe: Sequence[str] | None) -> str:
    """A warning when the metric returned some sub-scores on some calls only: on the probe but on no cell of the
    battery, or on fewer cells than its others (the card judges each on the cells that have it); "" otherwise."""
    own = results.loc[results["metric"] == metric] if len(results) else results
    cells = own.groupby("sub_score")[["scenario", "value", "seed", "n_samples"]].apply(
        lambda rows: len(rows.drop_duplicates())) if len(own) else pd.Series(dtype=int)
    absent = sorted(set(on_probe or ()) - set(cells.index))
    fewer = sorted(cells.index[cells < cells.max()]) if len(cells) else []
    if not absent and not fewer:
        return ""
    parts = ([f"{', '.join(absent)} on the probe but on no cell of the battery"] if absent else []) + (
        [", ".join(f"{sub} on {cells[sub]} of {cells.max()} cells" for sub in fewer)] if fewer else [])
    return (f"warning: {metric} returns some sub-scores on some calls only ({'; '.join(parts)}): each is judged on the "
            "cells that have it, and their ranks and verdicts compare different cells: return every sub-score on every call")


def _seed_range(cells: pd.DataFrame) -> dict[str, int]:
    """The fewest and the most seeds per scenario and sample size of the battery's cells (``seeds``, ``most_seeds``:
    racing gives the cells of an undecided verdict more)."""
    counts = cells.groupby(["scenario", "n_samples"])["seed"].nunique()
    low, high = (int(counts.min()), int(counts.max())) if len(counts) else (0, 0)
    return {"seeds": low, "most_seeds": high}


def is_plain_file_name(name: str) -> bool:
    """Whether ``name`` names a file inside a directory, not a path: no separator (``/``, ``\\``), no NUL, and
    not ``.`` or ``..``."""
    return bool(name) and name not in (".", "..") and not any(mark in name for mark in ("/", "\\", "\0"))


def validate(
    metric: MetricLike,
    *,
    property: str | Mapping[str, str] | None = None,  # noqa: A002
    higher_is_better: bool | Mapping[str, bool] | None = None,
    stochastic: bool | None = None,
    name: str | None = None,
    preset: str | None = None,
    scenarios_: Sequence[str] | None = None,
    builtins: Sequence[str] | None = None,
    seeds: int | None = None,
    min_seeds: int | None = None,
    max_seeds: int | None = None,
    budget_seconds: float | None = None,
    n_samples: int | None = None,
    out: str | Path | None = None,
    builtins_dir: str | Path | None = None,
    jobs: int = 1,
    cell_timeout: float | None = None,
    metric_options: Mapping[str, OptionSweep] | None = None,
    grids: Mapping[str, Sequence[Any]] | None = None,
    score_range: tuple[float, float] | None = None,
    progress: bool = True,
    probe: tuple[str, Any] = DEFAULT_PROBE,
    probe_samples: int = PROBE_SAMPLES,
    seed: int = 0,
    stress: bool = False,
    stress_budget: int = DEFAULT_BUDGET,
    log: Callable[[str], Any] = print,
) -> ReportCard:
    """Run a user's metric through the scenario battery next to the built-ins, and check its axioms.

    Parameters
    ----------
    metric : str or callable
        ``path/to/file.py:function`` or ``package.module:function``, or a top-level
        function (its reference is found with :func:`reference_of`).  It needs no
        registration: ``fn(factors, codes)`` returning a float or a mapping of
        sub-scores is enough (it may accept ``discrete`` and ``random_state``).
    property, higher_is_better, stochastic, name : optional
        Metadata overriding the function's :func:`describe_metric` decorator
        (defaults: holistic, True, False, the function's name).  ``property`` and
        ``higher_is_better`` may map sub-scores to their own property and direction,
        as the decorator takes them, e.g. ``{"mod": "modularity", "comp":
        "compactness", "expl": "explicitness"}``: each sub-score is then judged against
        its own property's ideal.  A mapping naming a sub-score the metric does not
        return on the probe is refused before the battery runs.
    preset : str, optional
        The battery (:data:`harness.execution.presets.PRESETS`); the next arguments override it.
        Default: :data:`DEFAULT_PRESET`, every scenario the default study runs, seeds raced from 3 to 12 (see
        :mod:`harness.execution.racing`), so that every verdict of the card carries an interval and a close one
        gets the seeds it needs.  The built-ins' cells are cached in ``builtins_dir`` and computed once.
    scenarios_ : sequence of str, optional
        Scenarios of the battery: names, compositions (``redundancy_attack@noise=0.2``) or
        references to your own (``path/to/file.py:name``), as in :func:`harness.run_study`.
    builtins : sequence of str, optional
        Registered metrics to compare with (default: the preset's, i.e. every one but
        those it excludes, ``dci_gbt``).  An empty sequence compares with none.
    seeds, n_samples : int, optional
        Seeds per value (fixed, no race) and sample size of the battery.
    min_seeds, max_seeds, budget_seconds : optional
        The race of seeds (see :func:`harness.run_study`); default: the preset's.
    out : path, optional
        Directory for ``report_card.md``, ``report_card.json`` and ``results.parquet``
        / ``.csv`` (the combined table, readable by ``report``, ``plot`` and
        ``baseline``).  Without it no card is written.
    builtins_dir : path, optional
        Run directory caching the built-ins' cells (default: ``out/builtins``, or
        nothing when ``out`` is None).  Cells found there are reused, so sharing one
        directory between validations computes the built-ins once.
    jobs : int, default 1
        Parallel workers.
    cell_timeout : float, optional
        Seconds one call of a metric may take: in the battery, a call that runs longer
        is stopped and its cell recorded as failed (see :func:`harness.run_study`); on
        the probe, each call of the axiom checks (and the one reading the sub-scores) is
        stopped too, and its check fails with "timed out after S s" (see
        :func:`harness.workflows.axioms.check_axioms`).  None: no limit.
    metric_options : mapping, optional
        Option sweeps, metric -> option -> values (see :func:`harness.run_study`); a
        sweep of your metric (named by its name or reference) runs variants of it next
        to it, which the results hold and the card does not rank.
    grids : mapping, optional
        Scenario -> parameter values run instead of its grid (see :func:`harness.run_study`).
    score_range : (float, float), optional
        The range the metric's scores are declared to lie in: the card warns about scores
        outside it (and, whatever it is, outside [0, 1], which every verdict's threshold assumes).
        Default: the ``score_range`` the metric declares with :func:`metrics.describe.describe_metric`, if any.
    progress : bool, default True
        Show progress bars.
    probe : (scenario, value), default ("mixing", 0.2)
        The representation the axioms are checked on.
    probe_samples : int, default 2000
        Its sample size.
    seed : int, default 0
        Seed of the probe, its transformations and the metric's ``random_state`` there.
    stress : bool, default False
        Also run a stress search (:func:`harness.workflows.stress.stress`) over ``scenarios_``
        (default: every searchable scenario), with the compared built-ins as contrast; its
        outputs go to ``out/stress``, its cases into the card.
    stress_budget : int
        Its budget in cells per scenario.
    log : callable
        Where status lines go.

    Returns
    -------
    ReportCard

    Raises
    ------
    ValueError
        For a bad reference or metadata (a per-sub-score claim naming a sub-score the
        metric does not return; a stochastic metric taking no ``random_state``), a name that collides with a built-in, an unknown
        preset, a bad probe or a ``cell_timeout`` that is not a finite number of seconds > 0
        (all before the battery runs); the user's metric's own
        exceptions propagate unchanged.

    Notes
    -----
    Cost: the battery's cells (the built-ins' are reused from ``builtins_dir``) plus
    9 to 13 calls of the metric on the probe for the axioms
    (:func:`harness.workflows.axioms.axiom_calls`), one more before the battery (a result that is no score is
    refused then; its sub-scores are read for per-sub-score claims), and two more for a metric declared
    deterministic that takes ``random_state`` (:func:`harness.workflows.axioms.seed_dependence`: whether its scores
    move with it).  The user's metric is always recomputed (it is what is being developed).
    """
    reference = reference_of(metric)
    entry = metric_entry(reference, property=property, higher_is_better=higher_is_better, stochastic=stochastic, name=name)
    if preset is None:
        preset = DEFAULT_PRESET
    if preset not in PRESETS:
        raise UnknownNameError("preset", preset, PRESETS)
    config = PRESETS[preset]
    compared = (list(builtins) if builtins is not None else list(config.metrics) if config.metrics
                else [name for name in metrics.available() if name not in config.excluded_metrics])
    check_user_metric_name(entry, "the metric is named", "with --name")
    if not is_plain_file_name(entry.name):  # the command line writes the card into validation/NAME
        raise UsageError(f"metric name {entry.name!r} is not a plain file name (it names the card's directory, "
                         "validation/NAME): give it another with --name, with no '/' or '\\' and not '.' or '..'")
    check_seedable(entry)
    check_time_limit(cell_timeout)
    check_required_options(entry)  # validate scores the metric at its defaults first: a required parameter fails it
    checked_on = make_probe(*probe, n=probe_samples, seed=seed)  # a bad probe is said before the battery runs
    per_sub_score = isinstance(entry.claimed_properties(), dict) or bool(entry.directions)
    with metadata_applied(reference, entry):  # a result that is no score at all is said now, not after the battery
        returned = probe_sub_scores(reference, checked_on, seed, timeout=cell_timeout)
    if returned is not None and per_sub_score:  # per-sub-score claims: do the named sub-scores exist?
        check_claimed_sub_scores(entry, returned)
    for replaced in replaced_claims(metric_entry(reference), entry):  # once the claims are known to be valid
        log(f"note: {replaced}")
    if score_range is not None and not (np.isfinite(score_range).all() and score_range[0] < score_range[1]):
        raise UsageError(f"score range must be two finite numbers LOW < HIGH, got {tuple(score_range)}")
    study = dict(preset=preset, scenarios_=scenarios_, seeds=seeds, min_seeds=min_seeds, max_seeds=max_seeds,
                 budget_seconds=budget_seconds, n_samples=n_samples, jobs=jobs,
                 cell_timeout=cell_timeout, progress=progress, log=log, grids=grids)
    own_keys = {reference, entry.name}
    own_options = {key: sweep for key, sweep in (metric_options or {}).items() if key in own_keys}
    builtin_options = {key: sweep for key, sweep in (metric_options or {}).items() if key not in own_keys}
    own_sweep = {option: values for own in own_options.values() for option, values in own.items()}
    variants(entry, own_sweep)  # a value your declaration refuses, said before the battery runs
    frames = []
    if compared:
        cache = builtins_dir if builtins_dir is not None else Path(out) / "builtins" if out is not None else None
        frames.append(run_study(metrics_=compared, out=cache, metric_options=builtin_options,
                                progress_label="built-in metrics' cells", **study))
    elif builtin_options:
        raise UsageError(f"option sweeps name metric(s) not in the study: {', '.join(sorted(builtin_options))}")
    with metadata_applied(reference, entry):
        frames.append(run_study(metrics_=[reference], progress_label=f"{entry.name}'s cells", **study))
        if own_sweep:
            frames.append(run_study(metrics_=[reference], metric_options={reference: own_sweep},
                                    progress_label=f"{entry.name}'s option variants' cells", **study))
    failures = pd.DataFrame([failure for frame in frames for failure in frame.attrs.get("failures", [])],
                            columns=list(FAILURE_COLUMNS))
    results = pd.concat(frames, ignore_index=True)
    cells = pd.concat([frame[["scenario", "seed", "n_samples"]] for frame in (results, failures)], ignore_index=True)
    cells["n_samples"] = cells["n_samples"].astype(int)  # the battery: scored and failed cells alike
    marks, closest, warnings = {}, None, []
    if results.empty:  # every cell failed (no built-in to compare with): the card says so, with the failures
        rankings, verdicts = pd.DataFrame(columns=list(RANKING_COLUMNS)), pd.DataFrame(columns=list(VERDICT_COLUMNS))
        notes = ["no cell was scored: every cell of the battery failed (see Failed cells), so no criterion or verdict "
                 "is measured"]
    else:
        bundle = Bundle(results)  # every analysis once: the card's marks are views of its verdicts
        rankings, notes = criterion_rankings(bundle, entry.name, failures)
        verdicts = verdict_rows(bundle, entry.name)
        marks = metric_verdicts(bundle, entry.name)
        closest = closest_metric(bundle, entry.name)
        declared = score_range if score_range is not None else declared_score_range(entry)
        warnings = range_warnings(bundle.results, entry.name, declared) + constant_warnings(bundle.results, entry.name)
        for warning in warnings:
            log(warning)
    scored = set(results.loc[results["metric"] == entry.name, "sub_score"]) if len(results) else set()
    uneven = _uneven_sub_scores(results, entry.name, returned)
    if uneven:
        warnings.append(uneven)
        log(uneven)
    hidden = "" if entry.stochastic else seed_dependence(reference, checked_on, seed, timeout=cell_timeout)
    if hidden:
        notes.append(hidden)
        log(f"warning: {hidden}")
    if per_sub_score and returned is None and scored:  # the probe's call failed: check the claims on the battery's
        try:
            check_claimed_sub_scores(entry, scored, where="in the battery")
        except UsageError as error:
            notes.append(f"{error}; it failed on the probe, so this was not checked before the battery: that claim "
                         "was not applied")
            log(f"warning: {notes[-1]}")
    limit = f", each stopped after {cell_timeout:g} s" if cell_timeout is not None else ""
    log(f"axiom checks: {axiom_calls(entry.stochastic)} calls of {entry.name} on the probe ({checked_on.label}){limit}")
    card = ReportCard(
        entry=entry,
        reference=reference,
        battery={"preset": preset, "scenarios": sorted(cells["scenario"].unique()), "builtins": compared,
                 **_seed_range(cells),
                 "n_samples": ", ".join(str(n) for n in sorted(cells["n_samples"].unique()))},
        results=results,
        rankings=rankings,
        verdicts=verdicts,
        axioms=check_axioms(reference, higher_is_better=entry.claimed_directions(), stochastic=entry.stochastic,
                            probe=checked_on, seed=seed, timeout=cell_timeout),
        probe=checked_on.label,
        notes=notes,
        marks=marks,
        closest=closest,
        warnings=warnings,
        failures=failures,
    )
    if stress:
        with metadata_applied(reference, entry):
            card.stress = stress_search.stress(
                reference, scenarios_=scenarios_, budget=stress_budget,
                contrast=[name for name in compared if name in metrics.available()],
                out=Path(out) / "stress" if out is not None else None, jobs=jobs, cell_timeout=cell_timeout, log=log)
    if out is not None:
        card.write(out)
    return card
