"""The characteristics the reports judge, as one declarative table: adding a characteristic is one entry.

Each :class:`Characteristic` names the analysis it reads (a table of :class:`reports.verdicts.bundle.Bundle`),
the scenario criterion and the ideal its rows come from, the properties whose sub-scores it judges,
the headline column it pools into, and its :class:`Rule` s: a statistic (a column of the analysis),
a comparison and a threshold (a field of :class:`reports.analyses.thresholds.Thresholds`).  :mod:`reports.verdicts.verdict_table`
turns the table into verdicts, one per metric x sub-score x characteristic; the headline, the property
matrix, the sections' roll-ups and the report card are views of those verdicts.  Each characteristic also
carries its rule in words, a template the report fills from the thresholds it was built with
(:func:`sentences`), and the cells whose permutation null its verdicts read (:class:`NullCells`), which the
harness reads to give those cells a null (:func:`harness.execution.null_budget.read_by_a_verdict`).

Zaidi et al. (2022), Table 2 and section 6.2: "For a metric to possess a characteristic (✓), it has
to be true by design and not disproven experimentally."  Here every ✓ or ✗ is decided by a number
measured in the results and a threshold, both reported next to the verdict.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from reports.analyses.calibration import CRITERION as CALIBRATION_CRITERION
from reports.analyses.calibration import PERFECT_VALUE, RANDOM_VALUE
from reports.analyses.linearity import MIN_LEVELS
from reports.analyses.robustness import JUDGED_PROPERTIES, MIN_VALUES
from reports.analyses.sensitivity import DISCRETIZATION_OPTIONS
from reports.analyses.thresholds import Thresholds
from reports.results.schema import IDEAL_PROPERTIES

#: Which rows of an analysis a characteristic or a rule reads (by name, so that entries stay data).
ROWS: dict[str, Callable[[pd.DataFrame, Thresholds], pd.Series]] = {
    "trajectory": lambda table, _: table["n_levels"] >= MIN_LEVELS,  # ideals with at least MIN_LEVELS values
    "levels": lambda table, _: table["n_levels"] < MIN_LEVELS,  # a few levels compared (modular_not_compact)
    "at_data_n": lambda table, thresholds: table["n"] == thresholds.data_n,
}


@dataclass(frozen=True)
class Rule:
    """One statistic of a characteristic against its threshold.

    Attributes
    ----------
    statistic : str
        Its name in the rule text (``ρ``); ``{field}`` takes a threshold's value (``s({data_n})``).
    column : str
        The analysis column holding it.  Where the analysis also has ``<column>_low`` and
        ``<column>_high``, they are its interval.
    comparison : {">=", "<="}
        The passing side; the worst row of a score is the one whose check is closest to failing (one failing
        by its interval, then one it leaves undecided, then one passing; within each, the smallest (``>=``) or
        largest value), an undefined one first.
    threshold : str
        The :class:`reports.analyses.thresholds.Thresholds` field it is compared with.
    label : str
        What precedes the value in the verdict's text.
    joiner : str
        What separates it from the rule before it there.
    where : str
        The evidence, formatted with the deciding row's columns.
    at : tuple of str
        The deciding row's columns the roll-ups name.
    reason : str
        The analysis column saying why the statistic is undefined, if it can be.
    rows : str
        Which of the characteristic's rows it reads (a key of :data:`ROWS`; all when empty).
    digits : int
        Fewest decimals printed.
    """

    statistic: str
    column: str
    comparison: str
    threshold: str
    label: str = ""
    joiner: str = ", "
    where: str = "{sub_score} in {scenario}"
    at: tuple[str, ...] = ("sub_score", "scenario")
    reason: str = ""
    rows: str = ""
    digits: int = 2


@dataclass(frozen=True)
class NullCells:
    """The cells whose permutation null a characteristic's verdicts read (of every other cell they read the score only).

    Attributes
    ----------
    criterion : str
        The criterion the cells' scenario declares.
    values : tuple of float
        The parameter values of those cells.
    """

    criterion: str
    values: tuple[float, ...]

    def include(self, criterion: str, value: object) -> bool:
        """Whether the cell of a scenario declaring ``criterion`` at the parameter value ``value`` is one of them."""
        return (criterion == self.criterion and isinstance(value, (int, float))
                and any(math.isclose(float(value), own) for own in self.values))


@dataclass(frozen=True)
class Characteristic:
    """One column of the property matrix.

    Attributes
    ----------
    key, heading : str
        Its name in tables and files, and its column heading.
    analysis : str
        The :class:`reports.verdicts.bundle.Bundle` table it reads.
    rules : tuple of Rule
        What decides it: every rule must pass.
    unmeasured : str
        The evidence when no row of the analysis judges the score (``{field}``: a threshold).
    sentence : str
        Its rule in words, as the report states it: a template whose ``{field}`` (``{field:g}``) is a threshold,
        naming every threshold its rules compare with (checked here), filled from the report's thresholds.
    criterion : str
        The scenario criterion its rows come from (``""``: every scenario the analysis reads; an
        analysis without a ``criterion`` column reads that criterion's scenarios alone).
    against : bool
        Whether it reads the rows fitted against the ideal of the property it is named after
        (the property columns).
    properties : tuple of str, optional
        The properties whose sub-scores it judges; None: every one.
    outside : str
        The mark of a sub-score it does not judge (``absent``: the metric lacks the property;
        ``n/a``: the characteristic does not apply).
    outside_evidence : str
        The evidence then.
    rows : str
        Which rows of the analysis it reads (a key of :data:`ROWS`; all when empty).
    by_base : bool
        Whether the analysis is per metric base (an option sweep's, the sensitivity), not per
        metric as judged.
    headline : str
        The headline column it pools into (empty: none).
    reads : str
        The values of its scenarios it reads, as the criteria table of ``reports/README.md`` says it.
    nulls : NullCells, optional
        The cells whose permutation null its verdicts read (None: it reads scores only).

    Raises
    ------
    ValueError
        When ``sentence`` names no threshold one of its rules compares with, or a field that is no threshold.
    """

    key: str
    heading: str
    analysis: str
    rules: tuple[Rule, ...]
    unmeasured: str
    sentence: str
    criterion: str = ""
    against: bool = False
    properties: tuple[str, ...] | None = None
    outside: str = "absent"
    outside_evidence: str = ""
    rows: str = ""
    by_base: bool = False
    headline: str = ""
    reads: str = "every value of each scenario, at its largest n"
    nulls: NullCells | None = None

    def __post_init__(self) -> None:
        named = {field for _, field, _, _ in string.Formatter().parse(self.sentence) if field is not None}
        if unknown := sorted(named - set(Thresholds.__dataclass_fields__)):
            raise ValueError(f"characteristic {self.key!r}: its sentence names {unknown[0]!r}, which is no threshold")
        if missing := [rule for rule in self.rules if rule.threshold not in named]:
            raise ValueError(f"characteristic {self.key!r}: its sentence does not state {missing[0].threshold!r}, "
                             f"the threshold of its rule {missing[0].statistic!r}")


def _follows(prop: str) -> Characteristic:
    """Modularity, compactness, explicitness: the score follows its property's ideal (review section 6.2).

    Where the ideal is a trajectory (at least MIN_LEVELS values: mixing, noise, ...) the score must
    fall with it: Spearman's rho and the affine slope (it spans at least that fraction of the ideal's
    range; a score stuck near 1, like Z-diff under mixing in review section 5.3, fails).  Where the
    scenario only compares a few levels (modular_not_compact, review 5.4 and Table 1) the score must not
    overstate the property (DCI-lasso's compactness of 1.0 for duplicated codes fails; MIG's 0.0, which
    understates it, passes, as in the review's Table 2).  Entanglement attacks have their own column.
    """
    return Characteristic(
        key=prop, heading=prop.capitalize(), analysis="verdict_linearity", against=True,
        properties=(prop, "holistic"), outside_evidence=f"no {prop} or holistic sub-score",
        reads="every value where the scenario states the property's ideal, at its largest n",
        unmeasured=f"not scored on a scenario that degrades {prop} (or, for a holistic score in a table written before "
                   f"every row stated each property's ideal, no metric measuring {prop} in it)", headline="follows",
        sentence="Spearman ρ ≥ {min_rank_correlation:g} and slope ≥ {min_slope:g} on trajectories (excess ≤ "
                 "{max_deviation:g} on level comparisons)",
        rules=(Rule("ρ", "spearman", ">=", "min_rank_correlation", "ρ ", where="lowest ρ: {sub_score} in {scenario}",
                    reason="undefined_reason", rows="trajectory"),
               Rule("slope", "slope", ">=", "min_slope", "slope ", where="lowest slope: {sub_score} in {scenario}",
                    rows="trajectory"),
               Rule("excess", "max_excess", "<=", "max_deviation", "excess ", joiner="; ",
                    where="largest excess: {sub_score} in {scenario}", rows="levels")))


def _deviation(key: str, heading: str, criterion: str, headline: str) -> Characteristic:
    """Robust to a condition, or follows the attacks: every sub-score judged there
    (:data:`reports.analyses.robustness.JUDGED_PROPERTIES`: modularity and compactness under noise, where the review's
    Table 2 says robustness does not apply to explicitness, every one elsewhere) stays within max_deviation of
    its ideal in the scenarios declaring ``criterion`` (:func:`reports.analyses.robustness.robustness`)."""
    judged = JUDGED_PROPERTIES[criterion]
    return Characteristic(
        key=key, heading=heading, analysis="robustness", criterion=criterion, properties=judged, outside="n/a",
        outside_evidence=f"no {' or '.join(judged)} sub-score", headline=headline,
        reads=f"every value where the scenario defines the judged property's ideal (at least {MIN_VALUES}), at its "
              "largest n",
        unmeasured=f"no judged sub-score in a scenario testing {criterion} (none, or no ideal)",
        sentence="|score − ideal| ≤ {max_deviation:g}",
        rules=(Rule("|score − ideal|", "deviation", "<=", "max_deviation", where="{sub_score} in {scenario} at {at_value}",
                    at=("sub_score", "scenario", "at_value")),))


def _swept(key: str, heading: str, analysis: str, rule: Rule, unmeasured: str, sentence: str) -> Characteristic:
    """Measured from option sweeps, per metric base (:mod:`reports.analyses.hyperparameters`): discretization-free when no
    binning can move the metric (none by design, or a bins sweep moves no score by more than max_spread); few
    hyper-parameters when at most max_sensitive_options swept options move a score by more than max_spread (the
    binning counted once there too, as the review's Table 2 counts it)."""
    return Characteristic(key=key, heading=heading, analysis=analysis, by_base=True, unmeasured=unmeasured,
                          sentence=sentence, rules=(rule,))


#: Every characteristic, in the order of the property matrix's columns: the review's Table 2, then the additions.
CHARACTERISTICS: tuple[Characteristic, ...] = (
    *(_follows(prop) for prop in IDEAL_PROPERTIES),
    Characteristic(
        key="calibrated", heading="Calibrated", analysis="calibration", criterion=CALIBRATION_CRITERION,
        headline="calibrated", sentence="perfect ≥ {perfect_threshold:g} and {min_random:g} ≤ random ≤ {random_threshold:g}",
        nulls=NullCells(CALIBRATION_CRITERION, (RANDOM_VALUE,)),  # chance-level bias at the pure-noise end
        unmeasured=f"no scenario testing noise scored at both alpha = {PERFECT_VALUE:g} and {RANDOM_VALUE:g} (the "
                   "calibration section says which end is missing)",
        reads=f"alpha = {PERFECT_VALUE:g} (perfect) and {RANDOM_VALUE:g} (pure noise: a null score from every "
              "sub-score whose ideal the scenario leaves undefined or states as 0 there), at the largest n",
        rules=(Rule("perfect", "perfect_oriented", ">=", "perfect_threshold", where="worst perfect: {sub_score} in {scenario}"),
               Rule("random", "random_oriented", "<=", "random_threshold", joiner=" / ",
                    where="worst random: {sub_score} in {scenario}{chance_note}"),
               Rule("random", "random_oriented", ">=", "min_random", joiner=" / ",  # below chance is a finding too
                    where="worst random: {sub_score} in {scenario}"))),
    Characteristic(
        key="linear", heading="Linear", analysis="verdict_linearity", rows="trajectory", headline="linear",
        unmeasured="no scenario with a varying ideal trajectory",
        sentence="R² ≥ {min_r2:g} and slope ≥ {min_linear_slope:g}",
        rules=(Rule("R²", "r2", ">=", "min_r2", "R² ", where="lowest R²: {sub_score} in {scenario} against {against}",
                    reason="undefined_reason"),
               Rule("slope", "slope", ">=", "min_linear_slope", "slope ", where="lowest slope: {sub_score} in {scenario}"))),
    _deviation("robust_noise", "Robust to noise", "noise", "robust"),
    _deviation("robust_non_measured", "Robust to non-measured factors", "non_measured_factors", "robust"),
    _deviation("nonlinear_relation", "Nonlinear relation", "nonlinearity", "robust"),
    _deviation("follows_attacks", "Follows entanglement attacks", "attacks", "follows_attacks"),
    _swept("discretization_free", "Discretization-free", "discretization",
           Rule("max spread", "max_spread", "<=", "max_spread", where="{detail}", at=("option", "sub_score", "worst_condition")),
           f"no {' or '.join(DISCRETIZATION_OPTIONS)} sweep in the results, nor a sweep leaving one of the metric's options "
           "at its default (which shows the record names them all; a sweep of a metric's only option cannot tell whether "
           "it bins); for a binned metric, run --metric-option METRIC:bins=5,10,20,40",
           "no binning can move the metric (its options include none: by design) or a bins sweep moves no sub-score "
           "by more than {max_spread:g}"),
    _swept("few_hyperparameters", "Few hyper-parameters", "hyperparameters",
           Rule("sensitive options", "sensitive_options", "<=", "max_sensitive_options", where="{detail}",
                at=("sensitive", "sub_score"), digits=0),
           "no option sweep in the results (run --metric-option METRIC:OPTION=V1,V2,...)",
           "at most {max_sensitive_options} of its swept options moves a sub-score by more than {max_spread:g}"),
    Characteristic(
        key="data_efficient", heading="Data efficient", analysis="efficiency", rows="at_data_n", headline="data_efficient",
        unmeasured="no sample-efficiency result at n = {data_n}", reads="n = {data_n} and the largest n",
        sentence="mean |s({data_n}) − s(n_max)| ≤ {data_tolerance:g}",
        rules=(Rule("mean |s({data_n}) − s(n_max)|", "mean_abs_difference", "<=", "data_tolerance",
                    where="{sub_score} in {scenario} (n_max = {n_max})", digits=3),)),
)



def headings() -> dict[str, str]:
    """Characteristic key -> column heading, in the order of :data:`CHARACTERISTICS` (as it is when called)."""
    return {characteristic.key: characteristic.heading for characteristic in CHARACTERISTICS}


def characteristic(key: str) -> Characteristic:
    """The entry of :data:`CHARACTERISTICS` named ``key``."""
    return next(entry for entry in CHARACTERISTICS if entry.key == key)


def sentences(thresholds: Thresholds) -> dict[str, str]:
    """Characteristic key -> its sentence filled from ``thresholds`` (:attr:`Characteristic.sentence`), in the order of
    :data:`CHARACTERISTICS` (as it is when called)."""
    return {entry.key: thresholds.fill(entry.sentence) for entry in CHARACTERISTICS}


#: Characteristic key -> column heading, in order.
HEADINGS = headings()
