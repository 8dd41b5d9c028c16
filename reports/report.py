"""Write the whole report of a results table: HTML, Markdown, CSV and LaTeX tables, figures.

Reads only the results table: it never runs a metric.  An analysis the table cannot
support (no scenario declares its criterion) is replaced by a note saying what is
missing.  The page opens with how many cells of the review's Table 2 the measurements agree
with, then the headline (every sub-score against every criterion), the review's Tables 2 and 1
beside the measurements, the property matrix and the sensitivity to swept options; long tables
show a per-metric roll-up and fold their details away.  Its figures start with the review's
section-5 figures in the paper's arrangement (:mod:`reports.review.figures`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from reports.analyses.agreement import agreement_matrix, agreement_rollup
from reports.analyses.checks import Check, Verdict, worst
from reports.analyses.cost import DISPLAY_COLUMNS as COST_COLUMNS
from reports.analyses.intervals import looks_of
from reports.analyses.linearity import MIN_LEVELS
from reports.analyses.raised_warnings import raised_warnings, warnings_line
from reports.analyses.robustness import ROBUSTNESS_CRITERIA, of_conditions, ranges_read
from reports.analyses.sensitivity import SPREAD_VERDICTS, sensitivity_details, sensitivity_rollup
from reports.analyses.thresholds import Thresholds
from reports.rendering import figures
from reports.rendering.chance import chance_drawers, chance_section
from reports.rendering.comparison import run_colours
from reports.rendering.html import render_html
from reports.rendering.latex import to_latex
from reports.rendering.markdown import render_markdown
from reports.rendering.phase import phase_drawers, phase_section
from reports.rendering.style import StyleRegistry
from reports.results.display import SYMBOLS, FigureFile, Section, display_table
from reports.results.table import MissingDataError, at_largest_n, provenance, scenarios_testing, score_label
from reports.review.figures import paper_figure_drawers
from reports.review.sections import agreement_line, table_1_sections, table_2_sections
from reports.verdicts.bundle import Analysis, Bundle, bundle_for
from reports.verdicts.characteristics import Rule, characteristic, sentences
from reports.verdicts.headline import headline, headline_display, headline_sentences, range_lines
from reports.verdicts.property_matrix import property_matrix, property_matrix_display
from reports.verdicts.seed_decisions import seed_counts_display, seed_decisions, seed_lines, undecided_display
from reports.verdicts.verdict_table import base_verdicts, rollup, row_readings, verdict_sources

MARKS = ("✓ / ✗: passes / fails, with the number that decided, printed with enough digits to show why; "
         "≈: undecided (the number's interval, in brackets, straddles the threshold); a verdict pooling several checks "
         "passes when every check's interval lies on the passing side and fails when one check's lies on the failing "
         "side, each interval at 95% (split over a racing run's looks), a failing one widened for the checks the "
         "metric's verdicts pool (so that a failure too is wrong at most 5% of the time: reports/README.md); "
         "?: not measured (no scenario of the results tests it, or none states an ideal for the sub-score, as for "
         "a holistic score under an attack, or, in a table written before every row stated each property's ideal, no "
         "metric measuring the property a holistic score is judged against); n/a: does not apply; —: no sub-score for it; "
         "undefined: the statistic cannot be computed (the reason follows).")
#: The descriptions below are templates filled from the thresholds of the report (:func:`_prose`): ``{field}`` is a
#: threshold, ``{rule[key]}`` the sentence of the characteristic ``key``, so that no number in the prose can disagree
#: with the verdicts.
HEADLINE_DESCRIPTION = (
    "One row per sub-score, one column per criterion. " + MARKS + " Thresholds: follows its property's ideal: "
    "{rule[modularity]}; calibrated: {rule[calibrated]}; linear: {rule[linear]}; robust (pooled over the scenarios "
    "testing noise, a nonlinear map and non-measured factors) and follows attacks: {rule[robust_noise]} where the "
    "scenario defines the sub-score's ideal (noise: modularity and compactness while the code carries more signal than "
    "noise; the ranges read are in the Robustness section); calibrated reads the noise scenarios' two ends; data "
    "efficient: {rule[data_efficient]}. ⚠ before the sentences: a sub-score with scores outside the range its metric "
    "declares (how many, the most extreme and where). Lower-is-better sub-scores, marked (1 − score), are judged and drawn as "
    "1 − score in every table and figure. Numbers, thresholds and pass flags: tables/headline.csv."
)
MATRIX_DESCRIPTION = (
    "The review's Table 2 regenerated from measurements: one row per metric, each verdict pooled over its "
    "sub-scores (the one closest to failing is shown; which one and where is in tables/property_matrix.csv). "
    + MARKS + " Modularity, compactness, explicitness: on trajectories (at least {min_levels} levels) ρ ≥ "
    "{min_rank_correlation:g} and slope ≥ {min_slope:g} against the ideal; on level comparisons excess ≤ "
    "{max_deviation:g}. Robustness to noise is judged on modularity and compactness scores only, the other "
    "robustness columns and attacks on every sub-score. Discretization-free and few hyper-parameters are measured "
    "from option sweeps (see Sensitivity), each option with the metric's other options at their defaults: "
    "discretization-free when {rule[discretization_free]}; few hyper-parameters when {rule[few_hyperparameters]} (the "
    "review counts a metric's parameters, Table 2 and section 3; here the ones that matter are counted, the binning "
    "once, as the review credits the binned information metrics with few); ? where the results hold no such sweep (the "
    "review's asserted values are not copied). "
    "A swept metric is one row, judged on its variant at the default options (when the sweep includes them; "
    "otherwise each variant is a row of its own); its other variants appear in the sensitivity section only."
)
SENSITIVITY_DESCRIPTION = (
    "How far each metric's scores move across the values of each swept option (run --metric-option "
    "METRIC:OPTION=V1,V2,...; the variants score the same draws with the same random state): the spread (largest "
    "minus smallest) of the mean scores over the seeds, across the option's values, per scenario, value, sample size "
    "and setting of the other swept options, each mean over the seeds scored at every value (a metric's own "
    "seed-to-seed noise then cancels as seeds are added, where a mean of each draw's spread would keep it); the "
    "largest over those conditions is shown, with its interval over seeds in brackets. Insensitive: at most {max_spread:g}{spread_share}, by both ends of the "
    "interval (≈ where they straddle it, or where a spread above it is not above it once its interval is widened for "
    "the checks pooled, as every failure is read; a reading of the sweep, not raced: the verdicts are the property matrix's "
    "two columns, Discretization-free and Few hyper-parameters). Options moving it: how many swept options "
    "move a sub-score by more than that, each with the others at their defaults, its interval in brackets (the options "
    "above the threshold at their intervals' low ends, and at their high ends); few hyper-parameters when at most "
    "{max_sensitive_options} (the property matrix's rule). A racing run adds seeds to a sweep whose verdict is "
    "undecided, on the scenarios where a spread may still pass the threshold."
)
#: Where the sensitivity section's rows are (:attr:`reports.results.display.Section.where`).
SENSITIVITY_WHERE = ("Per metric below; per option and sub-score in the folded table and tables/sensitivity.csv, each "
                     "row marked as the Insensitive column reads it (Low and High: the interval that decided).")
#: How the folded tables of calibration, linearity, robustness and the attacks (and their CSVs) mark each row.
READ_ROWS = (" Each row there is marked as the verdicts read it: by its interval (≈ where it straddles the threshold), a "
             "failure by its interval widened for the checks pooled.")
#: What the per-metric roll-ups of the sections show (their verdicts are the property matrix's).
ROLLUP = ("Per metric below (passing: its sub-scores that pass, of those judged; each statistic at its worst over "
          "them, the rule of the property matrix's {column} column)")
#: What the LaTeX tables of the headline and the property matrix show, after their captions' titles.
HEADLINE_PAPER_NOTE = ("Each cell: the verdict (✓ or ✗; ≈ undecided, ? unmeasured, n/a not applicable) and the "
                       "statistic closest to its threshold, — where no call was timed; tables/headline.csv names each "
                       "statistic and holds every number and threshold")
MATRIX_PAPER_NOTE = ("✓ has the characteristic, ✗ lacks it, ≈ undecided, ? unmeasured, n/a not applicable, — no "
                     "sub-score for it; the number and threshold deciding each verdict are in tables/property_matrix.csv "
                     "and report.html")
#: The characteristics of the Robustness section's roll-up (the headline's Robust column).
ROBUST = ("robust_noise", "nonlinear_relation", "robust_non_measured")
NO_SWEEP_NOTE = ("Not computed: the results hold no option sweep. Run with --metric-option METRIC:OPTION=V1,V2,... "
                 "(e.g. --metric-option mig:bins=5,10,20,40) to measure how far a metric's scores move with it.")


def _section(key: str, title: str, description: str, analysis: Analysis | Callable[[], pd.DataFrame],
             display: Callable[[pd.DataFrame], pd.DataFrame],
             details: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
             paper: Callable[[pd.DataFrame], pd.DataFrame] | None = None, paper_note: str = "",
             sources: Callable[[pd.DataFrame], str] | None = None, where: str = "") -> Section:
    """A section of ``analysis``'s table (or of what the callable returns, which may raise
    :class:`reports.MissingDataError`); ``sources`` says which scenarios, sample sizes and seeds it read, ``where``
    where its rows are (said only when it has them: :attr:`reports.results.display.Section.where`)."""
    try:
        table = analysis.required() if isinstance(analysis, Analysis) else analysis()
    except MissingDataError as missing:
        return Section(key, title, description, notes=[f"Not computed: {missing}"], where=where)
    return Section(key, title, description, where=where, table=table, display=display(table),
                   details=details(table) if details is not None and not table.empty else None,
                   notes=list(table.attrs.get("notes", [])),
                   paper=paper(table) if paper is not None else None, paper_note=paper_note,
                   provenance=sources(table) if sources is not None else "")


def _prose(template: str, thresholds: Thresholds) -> str:
    """``template`` filled from the report's ``thresholds``: ``{field}`` a threshold, ``{rule[key]}`` the sentence of
    the characteristic ``key`` (:func:`reports.verdicts.characteristics.sentences`), ``{min_levels}`` the fewest levels of a
    trajectory and ``{spread_share}`` what the default spread threshold is of the score scale (said at it alone)."""
    share = " (a tenth of the [0, 1] score scale)" if thresholds.max_spread == Thresholds().max_spread else ""
    return thresholds.fill(template, rule=sentences(thresholds), min_levels=MIN_LEVELS, spread_share=share)


#: The linearity section's Monotone column: Spearman's ρ of the fit against its threshold (not a verdict of its own:
#: the property columns read ρ with the slope, at their own threshold).
MONOTONE = Rule("ρ", "spearman", ">=", "min_monotone_rank_correlation", reason="undefined_reason")


Readings = dict[str, list[Verdict]]
"""Flag column -> one reading per row of a table (:func:`_read`)."""


def _read(bundle: Bundle, table: pd.DataFrame, widened: Callable[[], pd.DataFrame],
          flags: Mapping[str, Sequence[Rule]]) -> tuple[pd.DataFrame, Readings]:
    """``table`` (an analysis's rows) with each column of ``flags`` holding its rows' readings by the column's rules,
    as the verdicts read them (yes, no, undecided: :func:`reports.verdicts.verdict_table.row_readings`, a failure from
    the row's interval in ``widened``), in place of the analysis's flags on means, and beside each interval the rules
    read, ``<column>_low`` and ``_high`` at the study's level, the one that decided the reading, ``<column>_decided_low``
    and ``_high`` (a failure's widened interval; of two rules reading one column, the side closer to failing's); and the
    readings themselves, whose checks the folded table prints.  So the folded table and the CSV mark a row as the
    roll-up above them reads it, and the CSV holds the interval each mark was read from (a row marked undecided beside
    a 95% interval wholly on the failing side read as a contradiction)."""
    readings = {flag: row_readings(rules, table, bundle.thresholds, widened, bundle.pooled_checks)
                for flag, rules in flags.items()}
    deciding: dict[str, list[Check | None]] = {}
    for flag, rules in flags.items():
        for index, rule in enumerate(rules):
            checks = deciding.setdefault(rule.column, [None] * len(table))
            for row, reading in enumerate(readings[flag]):
                check = reading.checks[index]
                if checks[row] is None or check.severity() < checks[row].severity():
                    checks[row] = check
    decided = {}
    for column, checks in deciding.items():
        ends = [check.shown_interval if check is not None and check.shown_interval is not None else (np.nan, np.nan)
                for check in checks]
        decided[f"{column}_decided_low"] = [float(low) for low, _ in ends]
        decided[f"{column}_decided_high"] = [float(high) for _, high in ends]
    return table.assign(**{flag: [reading.mark for reading in read] for flag, read in readings.items()},
                        **decided), readings


def _read_section(key: str, title: str, description: str, read: Callable[[], tuple[pd.DataFrame, Readings]],
                  display: Callable[[pd.DataFrame], pd.DataFrame],
                  details: Callable[[pd.DataFrame, Readings], pd.DataFrame],
                  sources: Callable[[pd.DataFrame], str], where: str = "") -> Section:
    """:func:`_section` of a table whose rows ``read`` reads (:func:`_read`), its folded table drawn from the readings."""
    found: Readings = {}

    def table() -> pd.DataFrame:
        frame, readings = read()
        found.update(readings)
        return frame

    return _section(key, title, description, table, display, lambda frame: details(frame, found), sources=sources,
                    where=where)


def _texts(readings: Sequence[Verdict], rule: int) -> list[str]:
    """Each reading's check of rule ``rule`` as its verdict prints it (its value, its deciding interval)."""
    return [reading.checks[rule].value_text() for reading in readings]


def _marks(readings: Sequence[Verdict]) -> list[str]:
    """Each reading's mark as a table shows it (✓, ✗, ≈)."""
    return [SYMBOLS[reading.mark] for reading in readings]


def _calibration_details(table: pd.DataFrame, readings: Readings) -> pd.DataFrame:
    """The calibration rows, each read by the calibrated rules (``readings``: :func:`_read`); the random end printed
    against the side closer to failing (the one it fails, where it fails one)."""
    readings = readings["calibrated"]
    shown = table.assign(
        perfect_text=_texts(readings, 0),
        random_text=[worst(reading.checks[1:]).value_text() for reading in readings],
        calibrated=_marks(readings),
        metric=[score_label(m, m, h) for m, h in zip(table["metric"], table["higher_is_better"])],
    )
    return display_table(shown, {"metric": "Metric", "sub_score": "Sub-score", "scenario": "Scenario",
                                 "property": "Property", "perfect_text": "Perfect", "perfect_std": "± (perfect)",
                                 "random_text": "Random", "random_std": "± (random)", "n_seeds": "Seeds",
                                 "calibrated": "Calibrated"})


def _linearity_details(table: pd.DataFrame, readings: Readings) -> pd.DataFrame:
    linear, monotone = readings["linear"], readings["monotone"]
    shown = table.assign(r2_text=_texts(linear, 0), slope_text=_texts(linear, 1), rho_text=_texts(monotone, 0),
                         linear=_marks(linear), monotone=_marks(monotone))
    return display_table(shown, {"metric": "Metric", "sub_score": "Sub-score", "scenario": "Scenario",
                                 "against": "Ideal of", "n_levels": "Levels", "r2_text": "R²", "slope_text": "Slope",
                                 "rho_text": "Spearman", "max_deviation": "Max |dev.|", "at_value": "at",
                                 "linear": "Linear", "monotone": "Monotone"})


def _robustness_details(table: pd.DataFrame, readings: Readings, flag: str = "robust",
                        heading: str = "Robust") -> pd.DataFrame:
    """The folded table of :func:`_conditions`' rows, their mark in column ``flag`` headed ``heading``."""
    marked = readings[flag]
    shown = table.assign(deviation_text=_texts(marked, 0), **{flag: _marks(marked)})
    return display_table(shown, {"condition": "Condition", "scenario": "Scenario", "metric": "Metric",
                                 "sub_score": "Sub-score", "property": "Property", "largest_drop": "Largest drop",
                                 "largest_excess": "Largest excess", "deviation_text": "|score − ideal|",
                                 "at_value": "at", flag: heading})


def _conditions(bundle: Bundle, criteria: Sequence[str], flag: str = "robust") -> tuple[pd.DataFrame, Readings]:
    """The robustness rows of ``criteria``, each read by the deviation rule (:func:`_read`) into column ``flag``
    (``follows_attacks`` for the attacks, which the analysis's ``robust`` would misname)."""
    def of(table: pd.DataFrame | None) -> pd.DataFrame:
        return of_conditions(table, criteria).rename(columns={"robust": flag})

    return _read(bundle, of(bundle.robustness.table), lambda: of(bundle.failing.robustness.table),
                 {flag: characteristic("robust_noise").rules})


def _sensitivity_section(bundle: Bundle) -> Section:
    """The sensitivity section, or a note on how to get it when the results hold no option sweep."""
    table = bundle.sensitivity.frame
    description = _prose(SENSITIVITY_DESCRIPTION, bundle.thresholds)
    if table.empty:
        return Section("sensitivity", "Sensitivity to options", description, notes=[NO_SWEEP_NOTE])
    decided = {base: verdict.decisive for base, verdict in base_verdicts(bundle, "few_hyperparameters").items()}
    read, readings = _read(bundle, table, lambda: bundle.failing.sensitivity.frame,
                           {"verdict": characteristic("discretization_free").rules})  # a spread against max_spread
    checks = [reading.checks[0] for reading in readings["verdict"]]
    read = read.assign(verdict=[SPREAD_VERDICTS[mark] for mark in read["verdict"]])
    shown = [check.shown_interval or (float("nan"), float("nan")) for check in checks]  # the interval that decided
    return Section("sensitivity", "Sensitivity to options", description, where=SENSITIVITY_WHERE, table=read,
                   display=sensitivity_rollup(table, decided, checks),
                   details=sensitivity_details(read.assign(max_spread_low=[low for low, _ in shown],
                                                           max_spread_high=[high for _, high in shown])),
                   provenance=provenance(bundle.judged, verdict_sources(bundle, ["few_hyperparameters"])))


def _seeds_section(bundle: Bundle) -> Section:
    """How many seeds decided each verdict of the property matrix, and the verdicts still undecided
    (:mod:`reports.verdicts.seed_decisions`)."""
    section = _section(
        "seeds", "Seeds behind the verdicts",
        "Every judged verdict of the property matrix (per sub-score) by the seeds of the row that decided it. A racing "
        "run (run --max-seeds, the default preset's) starts every cell with a few seeds and gives more, doubling, only "
        "to the cells of a verdict whose interval still straddles its threshold (or lies on the failing side while its "
        "interval widened for the checks pooled does not); a verdict undecided with the most "
        "seeds is too close to call at this study's size.",
        lambda: seed_decisions(bundle), seed_counts_display, where="Every verdict with its seeds, value and interval: "
        "tables/seeds.csv.",
        details=lambda table: undecided_display(table) if (table["verdict"] == "undecided").any() else None)
    if section.table is not None:
        section.lines = seed_lines(section.table, looks_of(bundle.results))
    return section


def _read_in(table: pd.DataFrame | None, criteria: Sequence[str]) -> str:
    """``"; ranges read: noise: alpha 0 to 0.5; ..."`` for the scenarios of a robustness table testing ``criteria``
    (:func:`reports.analyses.robustness.ranges_read`); ``""`` where none is judged."""
    rows = None if table is None else table.loc[table["criterion"].isin(criteria)]
    return "" if rows is None or rows.empty else f"; ranges read: {ranges_read(rows)}"


def build_sections(results: pd.DataFrame | Bundle) -> list[Section]:
    """Every analysis of ``results`` (validated), in report order: headline, property matrix, sensitivity, details.

    Each analysis runs once (:class:`reports.verdicts.bundle.Bundle`); every verdict shown, in the headline,
    the property matrix and the sections' roll-ups, is a view of one table of verdicts
    (:func:`reports.verdicts.verdict_table.verdict_table`).  Option-sweep variants are read by the property
    matrix's measured columns and the sensitivity section; every other section sees each swept
    metric at its default options (:func:`reports.analyses.sensitivity.on_default_options`).
    """
    bundle = bundle_for(results)
    thresholds = bundle.thresholds
    verdict_rows = provenance(bundle.judged, verdict_sources(bundle))

    def read(*keys: str) -> Callable[[pd.DataFrame], str]:  # what the verdicts of a section's roll-up read
        return lambda _: provenance(bundle.judged, verdict_sources(bundle, keys))

    headline_section = _section("headline", "Headline: every sub-score against every criterion",
                                _prose(HEADLINE_DESCRIPTION, thresholds),
                                lambda: headline(bundle), headline_display,
                                paper=partial(headline_display, compact=True), paper_note=HEADLINE_PAPER_NOTE,
                                sources=lambda _: verdict_rows)
    if headline_section.table is not None:
        headline_section.lines = [*range_lines(bundle), *headline_sentences(headline_section.table, bundle)]
    return [
        headline_section,
        *table_2_sections(bundle),
        *table_1_sections(bundle),
        _section("property_matrix", "Property matrix (the review's Table 2, from measurements)",
                 _prose(MATRIX_DESCRIPTION, thresholds),
                 lambda: property_matrix(bundle), property_matrix_display,
                 paper=partial(property_matrix_display, numbers=False), paper_note=MATRIX_PAPER_NOTE,
                 sources=lambda _: verdict_rows),
        _sensitivity_section(bundle),
        _seeds_section(bundle),
        _read_section(
            "calibration", "Calibration",
            "Mean score at the perfect (alpha = 0) and fully random (alpha = 1) ends of every scenario testing noise "
            "(Zaidi et al. 2022, sections 3 and 5.2). Calibrated: " + sentences(thresholds)["calibrated"]
            + ", lower-is-better scores read as 1 − score.",
            lambda: _read(bundle, bundle.calibration.required(), lambda: bundle.failing.calibration.frame,
                          {"calibrated": characteristic("calibrated").rules,  # and each end, read as its rules read it
                           "perfect_pass": characteristic("calibrated").rules[:1],
                           "random_pass": characteristic("calibrated").rules[1:]}),
            lambda _: rollup(bundle, ["calibrated"]), _calibration_details,
            sources=read("calibrated"),
            where=ROLLUP.format(column="Calibrated") + "; per sub-score in the folded table and tables/calibration.csv."
            + READ_ROWS,
        ),
        _read_section(
            "linearity", "Linearity",
            "Each sub-score against the ideal trajectory of the property it measures (holistic ones against every "
            "varying ideal), in every scenario where that ideal varies: R² and slope of the affine fit of the mean "
            "score on the ideal, Spearman ρ (Zaidi et al. 2022, section 3). "
            + _prose("Linear: {rule[linear]} (a flat line is no linear response; a constant score has R² and ρ "
                     "undefined). Monotone: ρ ≥ {min_monotone_rank_correlation:g}. Levels: distinct ideal values (below "
                     "{min_levels} a scenario compares levels and R² says little).", thresholds),
            lambda: _read(bundle, bundle.linearity.required(), lambda: bundle.failing.linearity.frame,
                          {"linear": characteristic("linear").rules, "monotone": (MONOTONE,)}),
            lambda _: rollup(bundle, ["linear"]), _linearity_details,
            sources=read("linear"),
            where=ROLLUP.format(column="Linear") + f": trajectories of at least {MIN_LEVELS} levels outside the "
            "entanglement attacks, which have their own section; every fit in the folded table and tables/linearity.csv."
            + READ_ROWS,
        ),
        _read_section(
            "robustness", "Robustness",
            "Largest distance |score − ideal| (the larger of the drop below and the excess above the ideal) of "
            "modularity and compactness scores in every scenario testing noise (robustness to noise does not apply to "
            "explicitness, Zaidi et al. 2022, Table 2), and of every sub-score in every scenario testing a nonlinear "
            "map or non-measured factors, read wherever the scenario defines the sub-score's ideal (the noise scenario "
            "defines modularity and compactness while the code carries more signal than noise)"
            + _read_in(bundle.robustness.table, ROBUSTNESS_CRITERIA) + f". Robust: at most {thresholds.max_deviation:g}, "
            "the rule of the headline's Robust column and the property matrix.",
            lambda: _conditions(bundle, ROBUSTNESS_CRITERIA),
            lambda _: rollup(bundle, ROBUST), _robustness_details,
            sources=read(*ROBUST),
            where=ROLLUP.format(column="robustness") + "; per condition and sub-score in the folded table and "
            "tables/robustness.csv." + READ_ROWS,
        ),
        _read_section(
            "attacks", "Entanglement attacks",
            "Largest distance |score − ideal| of every sub-score in every scenario testing an entanglement attack "
            "(Tokui and Sato 2022, section 4), where the ideal falls as the attack grows: a score that stays high is "
            "blind to it (its excess above the ideal counts)" + _read_in(bundle.robustness.table, ("attacks",))
            + f". Follows the attacks: at most {thresholds.max_deviation:g}, as in "
            "the headline and the property matrix.",
            lambda: _conditions(bundle, ("attacks",), "follows_attacks"),
            lambda _: rollup(bundle, ["follows_attacks"]),
            partial(_robustness_details, flag="follows_attacks", heading="Follows attacks"),
            sources=read("follows_attacks"),
            where=ROLLUP.format(column="Follows entanglement attacks")
            + "; per scenario and sub-score in the folded table and tables/attacks.csv." + READ_ROWS,
        ),
        _section(
            "sample_efficiency", "Sample efficiency",
            f"Mean over seeds of |score(n) − score(n_max)| in every scenario testing sample efficiency (Zaidi et al. "
            f"2022, section 5.7, Figure 9). Data efficient: at most {thresholds.data_tolerance:g} at n = "
            f"{thresholds.data_n}.",
            bundle.efficiency, lambda _: rollup(bundle, ["data_efficient"]),
            lambda t: display_table(t, {"metric": "Metric", "sub_score": "Sub-score", "scenario": "Scenario", "n": "n",
                                        "mean_abs_difference": "Mean |s(n) − s(n_max)|", "std_abs_difference": "±",
                                        "n_seeds": "Seeds"}, digits=4),
            sources=read("data_efficient"),
            where=ROLLUP.format(column="Data efficient") + "; every n in the folded table and tables/sample_efficiency.csv.",
        ),
        chance_section(bundle.judged, levels=bundle.chance.table),
        *[section for section in (phase_section(bundle.judged),) if section is not None],
        _section(
            "cost", "Cost",
            "Median wall-clock seconds per metric call, and the exponent b of its growth with the sample size "
            "(least-squares slope of log seconds on log n: cost ~ n^b). Timings depend on the machine and its load. "
            "The metrics of one data draw share estimates (binned tables, k-NN estimates): the first to need one pays "
            "for it and the others are charged only what they add (UniBound and RMIG after the PID bounds, for "
            "example), so a metric run alone can cost more; a swept metric is charged its dearest variant per draw.",
            bundle.cost, lambda t: display_table(t, COST_COLUMNS, digits=3, scientific=True),
        ),
        _section(
            "agreement", "Agreement",
            "Kendall's τ-b between the rankings that two sub-scores give to the same representations (every "
            "scenario, value, seed and sample size both scored), as in Zaidi et al. 2022, section 5.1, Figure 3. "
            "τ is undefined for a score constant over the common representations.",
            bundle.agreement, agreement_rollup,
            where="Per sub-score below: its median τ with the others and its closest and farthest partners; the full "
            "matrix is drawn in figures/agreement_tau.png, and every pair with its p-value is in tables/agreement.csv.",
        ),
    ]


def _file_stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


class Deferred:
    """A figure's drawing call that needs an analysis the report's sections compute anyway (the agreement heat map's
    Kendall taus, about 0.6 CPU-s with SciPy's import): made by ``make`` in this process when the figures are read,
    after the sections, rather than before the workers get their first figure (:func:`draw_figures`)."""

    def __init__(self, make: Callable[[], Callable[[], figures.Drawn]]) -> None:
        self.make = make


#: A figure to draw: its key (file stem and id), caption, a picklable call drawing it (or the :class:`Deferred` making
#: it), and the key of the section that shows it (None: the Figures section at the end).
Todo = tuple[str, str, "Callable[[], figures.Drawn] | Deferred", "str | None"]


def _seeds_and_band(rows: pd.DataFrame) -> str:
    """What a figure of ``rows`` draws at each point, for its caption: the mean over the seeds its points have and the
    band they allow (:func:`reports.rendering.figures.band_text`: none where too few seeds), at each scenario's
    largest n, as the figures draw them."""
    drawn = at_largest_n(rows)
    seeds = drawn.groupby(["scenario", "value", "metric", "sub_score"], sort=False)["seed"].nunique()
    return figures.band_text("ci95", seeds.to_numpy())


def figure_todo(bundle: Bundle, colours: Mapping[str, str] | None = None) -> list[Todo]:
    """Every figure the results of ``bundle`` support, not drawn yet, in report order.

    Reads the analyses the bundle already computed (sample efficiency, agreement, chance levels), so that no
    analysis runs twice; each call holds only the rows its figure draws.  ``colours`` (metric -> colour, the user's)
    fixes those metrics' colours; every metric keeps one colour in every figure
    (:func:`reports.rendering.comparison.run_colours`, which refuses colours naming a metric the results lack).
    """
    results = bundle.judged
    colours = run_colours(bundle.results, colours, judged=results)  # one colour per metric in every figure and plot
    registry = StyleRegistry(results, colours=colours)
    efficiency = bundle.efficiency.table
    todo: list[Todo] = [(key, caption, draw, None)
                        for key, caption, draw in paper_figure_drawers(results, efficiency, colours)]
    families = set(results["family"])
    atlas_rows = results.loc[~results["scenario"].isin(scenarios_testing(results, "sample_efficiency"))]
    for family, draw in figures.atlas_drawers(results, registry):
        # a family of more rows than an atlas holds is split into FAMILY_1, FAMILY_2, ...; the atlas leaves out the
        # sample-efficiency scenarios, drawn in their own figure
        drawn = atlas_rows.loc[atlas_rows["family"] == (family if family in families else family.rsplit("_", 1)[0])]
        todo.append((f"atlas_{_file_stem(family)}", f"Atlas of the {family} family: rows are sub-scores, columns "
                     f"scenarios; scores against the swept parameter, {_seeds_and_band(drawn)}; the ideal trajectory of "
                     "the sub-score's property is the wide grey line.", draw, None))
    efficiency_scenarios = set(scenarios_testing(results, "sample_efficiency"))
    scenario_of: dict[int, str] = {}  # position in todo -> the scenario a scenario figure draws
    for scenario, rows in results.groupby("scenario", sort=True):
        if scenario in efficiency_scenarios:
            continue
        scenario_of[len(todo)] = scenario
        todo.append((_file_stem(scenario), f"{scenario}: scores against {rows['parameter'].iloc[0]}, "
                     f"{_seeds_and_band(rows)}, one panel per property and family, each line with its own colour, "
                     "marker and line style; the ideal trajectory is the wide grey line.",
                     partial(figures.scenario_figure, rows, scenario, registry=registry), None))
    if efficiency is not None and not efficiency.empty:
        todo.append(("sample_size", "Sample efficiency: |score(n) − score(n_max)|, "
                     f"{figures.band_text('ci95', efficiency['n_seeds'])}, one panel per property and family.",
                     partial(figures.efficiency_figure, efficiency, registry=registry), None))
    for metric in figures.bounded_metrics(results):
        todo.append((f"{_file_stem(metric)}_bars", f"{metric} terms per scenario and value: solid up to the lower bound, "
                     "pale up to the upper bound (means over seeds; terms without bounds: mean and its 95% Student-t "
                     "interval); "
                     "closed-form values, where the results carry them (column exact), as black ticks.",
                     partial(figures.bounds_figure, results.loc[results["metric"] == metric], metric, registry=registry),
                     None))
    for key, caption, draw in phase_drawers(results):
        todo.append((key, caption, draw, "phase_diagrams"))
    if bundle.chance.table is not None:
        for key, draw in chance_drawers(bundle.chance.table):
            todo.append((key, "Chance level of each sub-score on codes independent of the factors against the sample "
                         "size (log scale), one colour per code width (width_ratio = L/K) and one line style per null "
                         f"scenario, {figures.band_text('ci95', bundle.chance.table['n_seeds'])}; dotted lines at 0.05 "
                         "and 0.1.",
                         draw, "chance"))
    by_n = bundle.cost_by_n
    if by_n.groupby("metric")["n"].nunique().max() >= 2:
        todo.append(("cost_growth", "Median seconds per call against the sample size (log-log), one panel per family, "
                     "one colour, marker and line style per metric.", partial(figures.cost_figure, by_n, registry=registry),
                     None))
    if len(results.groupby(["metric", "sub_score"], sort=False)) >= 2:  # agreement's own condition, read at once
        todo.append(("agreement_tau", "Kendall's tau between sub-scores' rankings of the same representations; hatched "
                     "grey cells: undefined (a constant score, or no representation both scored).",
                     Deferred(partial(_agreement_drawer, bundle)), None))
    return _distinct_keys(todo, scenario_of)


def _agreement_drawer(bundle: Bundle) -> Callable[[], figures.Drawn] | None:
    """The agreement heat map's drawing call, None when no pair of sub-scores has a tau (no figure)."""
    table = bundle.agreement.table
    if table is None or table.empty:
        return None
    return partial(figures.agreement_figure, agreement_matrix(table))


def draw_figures(todo: Sequence[Todo], directory: Path, *, jobs: int = 1,
                 formats: Sequence[str] = figures.DEFAULT_FIGURE_FORMATS) -> Iterator[FigureFile]:
    """Draw and write the figures of ``todo``, once per format of ``formats`` (PNG always, SVG and PDF when named:
    :func:`reports.rendering.figures.save`); yield them in the order of ``todo``.

    With ``jobs`` other than 1 the figures are drawn and written by that many worker processes (-1: every core),
    the same joblib workers as the run's cells, and drawing starts at once, in the background: the caller computes
    the analyses meanwhile and reads the figures after.  A :class:`Deferred` figure is drawn in this process, when
    the first figure is asked for, while the workers draw the others (:func:`_in_todo_order`).  The files are the same
    byte for byte whatever ``jobs``.
    """
    formats = figures.figure_formats(formats)
    if jobs == 1 or len(todo) < 2:
        return (_draw_and_save(key, caption, draw, directory, formats) for key, caption, draw in _made(todo))
    from joblib import Parallel, delayed

    directory = Path(directory).absolute()  # reused workers keep the directory they started in, not the caller's
    ready = Parallel(n_jobs=jobs, return_as="generator")(
        delayed(_draw_and_save)(key, caption, draw, directory, formats)
        for key, caption, draw in _made([item for item in todo if not isinstance(item[2], Deferred)]))
    return _in_todo_order(todo, ready, lambda key, caption, draw: _draw_and_save(key, caption, draw, directory, formats))


def _made(todo: Sequence[Todo]) -> Iterator[tuple[str, str, Callable[[], figures.Drawn]]]:
    """Key, caption and drawing call of each figure of ``todo``, a :class:`Deferred` one's made now (skipped when it
    makes none)."""
    for key, caption, draw, _ in todo:
        draw = draw.make() if isinstance(draw, Deferred) else draw
        if draw is not None:
            yield key, caption, draw


def _in_todo_order(todo: Sequence[Todo], ready: Iterator[FigureFile],
                   draw_here: Callable[[str, str, Callable[[], figures.Drawn]], FigureFile]) -> Iterator[FigureFile]:
    """The figures of ``todo`` in its order: those ``ready`` yields (already being drawn by the workers, in order), and
    the :class:`Deferred` ones, made and drawn here (``draw_here``) when the first figure is asked for (after the
    sections, which computed what they need), while the workers draw the others.

    Not a second joblib call beside ``ready``: both shared the one backend that joblib's ``parallel_config`` makes for
    its context (:func:`harness.execution.backends.report_workers`), and the first to finish shut it under the other,
    whose next task could not be sent (``PicklingError``, then an internal error: 2 runs in 8 of a small quick study,
    three metrics, with ``--jobs 2``).
    """
    try:
        drawn = {key: draw_here(key, caption, draw)
                 for key, caption, draw in _made([item for item in todo if isinstance(item[2], Deferred)])}
        for key, _, draw, _ in todo:
            if not isinstance(draw, Deferred):
                yield next(ready)
            elif key in drawn:
                yield drawn[key]
    finally:
        ready.close()


def _list_in_sections(todo: Sequence[Todo], sections: Sequence[Section]) -> None:
    """Each figure's key in the figure list of the section that shows it."""
    own = {section.key: section.figures for section in sections}
    for key, _, _, section in todo:
        if section is not None and section in own:
            own[section].append(key)


def _distinct_keys(todo: list[Todo], scenario_of: dict[int, str]) -> list[Todo]:
    """``todo`` with each figure's key (its file name and id) its own: a scenario figure whose key another figure
    has (``partial@noise=0.2`` beside a scenario of yours named ``partial_noise_0.2``, or one named ``agreement_tau``)
    gets a hash of its scenario's name appended, unless it is the first scenario figure of that key and no other
    figure has it."""
    seen = {item[0] for position, item in enumerate(todo) if position not in scenario_of}
    distinct = []
    for position, (key, *rest) in enumerate(todo):
        if position in scenario_of:
            if key in seen:
                key = f"{key}_{hashlib.sha1(scenario_of[position].encode()).hexdigest()[:8]}"
            seen.add(key)
        distinct.append((key, *rest))
    return distinct


def _draw_and_save(key: str, caption: str, draw: Callable[[], figures.Drawn], directory: Path,
                   formats: tuple[str, ...] = figures.DEFAULT_FIGURE_FORMATS) -> FigureFile:
    drawn = draw()
    notes = (" " + " ".join(drawn.notes)) if drawn.notes else ""
    return FigureFile(key, caption + notes, figures.save(drawn.figure, directory, key, formats), formats)


def report_title(results: pd.DataFrame, out_dir: Path) -> str:
    """The report's title: the name of its directory, and the presets the results were run with where they are not
    that name (a study of chosen scenarios or metrics runs with the default preset: its report is not "default")."""
    name = out_dir.resolve().name
    studies = sorted(map(str, results["study"].unique()))
    return f"Disentanglement metrics report: {name}" + ("" if studies == [name] else f" (preset {', '.join(studies)})")


def _counted(count: int, noun: str) -> str:
    """``1 scenario``, ``3 scenarios``."""
    return f"{count} {noun}{'s' * (count != 1)}"


def _summary(results: pd.DataFrame, warned: pd.DataFrame, warnings_recorded: bool,
             criteria_recorded: bool = True) -> list[str]:
    n = results["n_samples"]
    seeds = results["seed"].nunique()
    lower = sorted({score for score, higher in zip(results["metric"] + "/" + results["sub_score"],
                                                    results["higher_is_better"]) if not higher})
    sizes = f"sample size {n.min()}" if n.min() == n.max() else f"sample sizes {n.min()} to {n.max()}"
    return [
        f"Studies: {', '.join(sorted(results['study'].unique()))}; {_counted(results['scenario'].nunique(), 'scenario')}, "
        f"{_counted(results['metric'].nunique(), 'metric')}, up to {_counted(seeds, 'seed')} per cell, {sizes}; "
        f"harness {', '.join(sorted(results['harness_version'].unique()))}.",
        "Lower-is-better sub-scores, shown as 1 − score everywhere: " + (", ".join(lower) if lower else "none") + ".",
        warnings_line(warned) if warnings_recorded else
        "Warnings inside metric calls were not recorded (a table written before the warnings column).",
    ] + ([_no_criterion_line(criteria_recorded)] if set(results["criterion"]) == {""} else [])


def _no_criterion_line(recorded: bool) -> str:
    """Why no criterion is measured where no row declares one: the scenarios test none (``mixing``, or a user's declaring
    none), or, not ``recorded``, the table predates the criterion column (:func:`reports.check_results` filled it)."""
    why = "they trace the properties' ideals only, as mixing does" if recorded else (
        "a table written before the criterion column")
    return (f"No scenario of the results declares a criterion ({why}): calibration, robustness, the entanglement "
            "attacks, sample efficiency and the chance level are not measured.")


def failures_line(failures: pd.DataFrame, scored: set[str]) -> str:
    """The report's line on a run's failed cells (:data:`reports.results.schema.FAILURE_COLUMNS`, at least one): how
    many, per metric (most first) with its first error, which of those metrics (not in ``scored``, the metrics of the
    results) scored no cell at all, and where they are listed.  Without it a metric whose every cell raised vanished
    from the report, and one that raised on some cells showed only gaps."""
    counts = failures["metric"].value_counts(sort=False)
    order = sorted(counts.index, key=lambda metric: (-counts[metric], str(metric)))
    parts = []
    for metric in order:
        first = failures.loc[failures["metric"] == metric].iloc[0]
        parts.append(f"{metric}, {counts[metric]} (first: {first['scenario']} = {first['value_label']}, seed "
                     f"{first['seed']}: {' '.join(str(first['error']).split())})")
    absent = [str(metric) for metric in order if metric not in scored]
    return (f"{len(failures)} cell(s) failed and have no score, so the analyses read only the cells that scored "
            f"(failures.csv lists each with its error): {'; '.join(parts)}."
            + (f" No cell of {', '.join(absent)} scored: {'it is' if len(absent) == 1 else 'they are'} in no table."
               if absent else ""))


def write_report(results: pd.DataFrame | Bundle, out_dir: str | Path, *, jobs: int = 1,
                 figure_formats: str | Sequence[str] | None = figures.DEFAULT_FIGURE_FORMATS,
                 colours: Mapping[str, str] | None = None, failures: pd.DataFrame | None = None) -> Path:
    """Write the report of ``results`` into ``out_dir`` and return the path of ``report.html``.

    Writes ``report.html`` (opens offline; its figures are the PNGs under ``figures/``), ``report.md``,
    ``tables/<analysis>.csv`` (tidy, full precision: numbers, thresholds and pass
    flags in their own columns), ``tables/<analysis>.tex`` (booktabs; long tables as
    ``longtable``), ``tables/warnings.csv`` and ``figures/<name>.png`` (and ``.svg``, ``.pdf`` when
    ``figure_formats`` names them): the
    review's section-5 figures in its arrangement (``review_figure4_noise``, ...), the
    atlas (one figure per family), one figure per scenario, the sample-efficiency
    curve, bounds bars, cost growth and the agreement heat map when the results
    support them.  The report owns ``tables/`` and ``figures/``: an earlier report's tables and figures there that
    this one does not write (of scenarios or metrics it lacks, in formats it does not draw) are removed, so that none
    shows other results beside the new ones.

    Parameters
    ----------
    results : pandas.DataFrame or reports.verdicts.bundle.Bundle
        A results table (validated here; see :func:`reports.load_results`), or the bundle
        of its analyses.
    out_dir : str or pathlib.Path
        The run directory; created if needed.
    jobs : int, default 1
        Worker processes drawing the figures (-1: every core); the files do not depend on it.
    figure_formats : str or sequence of str, optional
        The figures' formats among :data:`reports.rendering.figures.FIGURE_FORMATS` (``"png,svg,pdf"`` or a sequence); the
        PNG is always written, as the pages show it.
    colours : Mapping[str, str], optional
        Metric -> colour for the figures (:func:`reports.rendering.style.parse_colours` reads ``--colors``); a metric not
        named keeps the colour the run gives it (:func:`reports.rendering.comparison.run_colours`), the same in every
        figure and in ``plot``.
    failures : pandas.DataFrame, optional
        The run's failed cells (:data:`reports.results.schema.FAILURE_COLUMNS`, a run directory's ``failures.csv``):
        the summary says how many failed, of which metrics, and why (:func:`failures_line`); a metric whose every
        cell failed is in no table.

    Raises
    ------
    ValueError
        When ``results`` breaks the results-table contract, ``figure_formats`` names an unknown format (checked
        before anything is computed or written), or ``colours`` a metric the results lack (before anything is
        written).
    """
    formats = figures.figure_formats(figure_formats)
    bundle = bundle_for(results)  # the racing's last look's, when it was
    results, judged = bundle.results, bundle.judged
    warnings_recorded = "warnings" not in results.attrs.get("filled_columns", ())
    todo = figure_todo(bundle, colours)  # first, so that the workers draw while the analyses below are computed
    out_dir = Path(out_dir)
    tables_dir = out_dir / "tables"
    tables_dir.mkdir(parents=True, exist_ok=True)
    drawing = draw_figures(todo, out_dir / "figures", jobs=jobs, formats=formats)
    try:
        sections = build_sections(bundle)
        tables = _write_tables(sections, tables_dir)
        warned = raised_warnings(results)
        warned.to_csv(tables_dir / "warnings.csv", index=False)
        figure_files = list(drawing)
    finally:
        drawing.close()  # stops the workers' queue when an analysis raised before the figures were read
    _remove_earlier_outputs(tables_dir, {*tables, "warnings.csv"}, TABLE_SUFFIXES)
    _remove_earlier_outputs(out_dir / "figures", {f"{figure.key}.{form}" for figure in figure_files
                                                  for form in figure.formats}, FIGURE_SUFFIXES)
    _list_in_sections(todo, sections)
    title = report_title(results, out_dir)
    agreement = agreement_line(bundle)
    summary = (([agreement] if agreement else []) + _summary(judged, warned, warnings_recorded,
                                                             "criterion" not in results.attrs.get("filled_columns", ()))
               + ([failures_line(failures, set(results["metric"]))] if failures is not None and len(failures) else []))
    (out_dir / "report.md").write_text(render_markdown(title, summary, sections, figure_files), encoding="utf-8")
    html_path = out_dir / "report.html"
    html_path.write_text(render_html(title, summary, sections, figure_files), encoding="utf-8")
    return html_path


def _write_tables(sections: Sequence[Section], tables_dir: Path) -> set[str]:
    """Each section's table as ``tables/<key>.csv`` (full precision) and ``.tex`` (what its paper view shows); the
    names of the files written."""
    written = set()
    for section in sections:
        if section.table is None:
            continue
        section.table.to_csv(tables_dir / f"{section.key}.csv", index=False)
        written.add(f"{section.key}.csv")
        paper = section.paper if section.paper is not None else section.display
        if paper is not None and not paper.empty:  # an empty tabular does not compile
            note = ". ".join(text for text in (section.paper_note, section.provenance) if text)
            (tables_dir / f"{section.key}.tex").write_text(
                to_latex(paper, caption=section.title, label=section.key, note=note), encoding="utf-8")
            written.add(f"{section.key}.tex")
    return written


#: What a report writes into ``tables/`` and ``figures/``: an earlier report's such files this one did not write are
#: removed (:func:`_remove_earlier_outputs`).
TABLE_SUFFIXES = (".csv", ".tex")
FIGURE_SUFFIXES = tuple(f".{form}" for form in figures.FIGURE_FORMATS)


def _remove_earlier_outputs(directory: Path, written: set[str], suffixes: Sequence[str]) -> None:
    """Remove the files of ``directory`` with one of ``suffixes`` that are not ``written``: an earlier report's figures
    of a scenario or metric this one lacks, or its SVG and PDF where this one draws PNG only, stayed beside the new
    PNGs, showing other results (``noise.svg`` the metrics of the earlier run beside the new ``noise.png``)."""
    if not directory.is_dir():
        return
    for path in directory.iterdir():
        if path.is_file() and path.suffix in suffixes and path.name not in written:
            path.unlink()
