"""The property matrix: the review's Table 2 regenerated from measurements.

Zaidi et al. (2022), Table 2 and section 6.2: "For a metric to possess a characteristic
(✓), it has to be true by design and not disproven experimentally."  Here every ✓ or ✗
is decided by a number measured in the results (by the other analyses of this package)
and a threshold, and both are reported next to the verdict.  The review's columns
"Discretization-free" and "Few hyper-parameters" are measured from option sweeps
(:mod:`reports.sensitivity`) where the results hold them, and are "unmeasured"
otherwise: the review's asserted values are never copied in.  A swept metric's other
columns are judged on its variant at the default options
(:func:`reports.sensitivity.on_default_options`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from reports._format import ABSENT, NO, NOT_APPLICABLE, UNMEASURED, YES
from reports._table import MissingDataError, check_results, family_rank, scenarios_testing
from reports._verdict import Check, worst
from reports.calibration import PERFECT_THRESHOLD, RANDOM_THRESHOLD, calibration
from reports.linearity import MIN_LEVELS, MIN_LINEAR_SLOPE, MIN_R2, linearity
from reports.robustness import JUDGED_PROPERTIES, MAX_DEVIATION, robustness
from reports.sample_efficiency import sample_efficiency
from reports.schema import IDEAL_PROPERTIES
from reports.sensitivity import (
    DISCRETIZATION_OPTIONS, SPREAD_THRESHOLD, hyperparameter_verdicts, on_default_options, parse_variant,
)

#: Characteristic -> column heading, in the review's order, then the additions.
CHARACTERISTICS = {
    "modularity": "Modularity",
    "compactness": "Compactness",
    "explicitness": "Explicitness",
    "calibrated": "Calibrated",
    "linear": "Linear",
    "robust_noise": "Robust to noise",
    "robust_non_measured": "Robust to non-measured factors",
    "nonlinear_relation": "Nonlinear relation",
    "follows_attacks": "Follows entanglement attacks",
    "discretization_free": "Discretization-free",
    "few_hyperparameters": "Few hyper-parameters",
    "data_efficient": "Data efficient",
}
#: Measured characteristic -> evidence of an unmeasured verdict (what sweep would measure it).
_UNSWEPT = {
    "discretization_free": f"no {' or '.join(DISCRETIZATION_OPTIONS)} sweep in the results "
                           "(run --metric-option METRIC:bins=5,10,20,40)",
    "few_hyperparameters": "no option sweep in the results (run --metric-option METRIC:OPTION=V1,V2,...)",
}
#: Default thresholds of the property columns and of data efficiency.
MIN_RANK_CORRELATION, MIN_SLOPE = 0.8, 0.5
DATA_N, DATA_TOLERANCE = 1000, 0.05
#: Verdicts and their symbols in display tables.
SYMBOLS = {"yes": YES, "no": NO, "n/a": NOT_APPLICABLE, "unmeasured": UNMEASURED, "absent": ABSENT}
#: Robustness characteristic -> criterion of the scenarios read; the properties judged there are
#: :data:`reports.robustness.JUDGED_PROPERTIES`'s (modularity and compactness under noise, every
#: sub-score with a known ideal elsewhere).
_ROBUSTNESS = {
    "robust_noise": "noise",
    "robust_non_measured": "non_measured_factors",
    "nonlinear_relation": "nonlinearity",
    "follows_attacks": "attacks",
}
#: Columns of the tidy matrix.
COLUMNS = ["metric", "family", "characteristic", "verdict", "passed", "statistic", "value", "comparison", "limit",
           "margin", "number", "threshold", "evidence"]


def _quietly(analysis: Callable[..., pd.DataFrame], results: pd.DataFrame, **options) -> pd.DataFrame:
    try:
        return analysis(results, **options)
    except MissingDataError:
        return pd.DataFrame()


def _verdict(metric: str, characteristic: str, verdict: str, checks: tuple[Check, ...] = (), evidence: str = "",
             labels: tuple[str, ...] = (), joiners: tuple[str, ...] = ()) -> dict:
    """One row of the tidy matrix.  Numbers are columns (the check closest to failing); texts are for display.

    Without checks the verdict is ``verdict`` (n/a, unmeasured or absent); with checks it
    is yes when every check passes, no otherwise.  ``labels`` prefix each check's text
    (``"ρ "``, ``"slope "``); ``joiners`` separate consecutive checks (``", "`` by default).
    """
    row = {"metric": metric, "characteristic": characteristic, "verdict": verdict, "passed": np.nan,
           "statistic": "", "value": np.nan, "comparison": "", "limit": np.nan, "margin": np.nan,
           "number": "", "threshold": "", "evidence": evidence}
    if checks:
        decisive = worst(list(checks))
        labels = labels or ("",) * len(checks)
        row.update(
            verdict="yes" if all(check.passed for check in checks) else "no",
            passed=all(check.passed for check in checks), statistic=decisive.statistic, value=decisive.value,
            comparison=decisive.comparison, limit=decisive.threshold, margin=decisive.margin,
            number=_joined([f"{label}{check.value_text()}" for label, check in zip(labels, checks)], joiners),
            threshold=_joined([check.rule_text() for check in checks], joiners),
        )
    return row


def _joined(texts: list[str], joiners: tuple[str, ...]) -> str:
    joiners = joiners or (", ",) * (len(texts) - 1)
    return texts[0] + "".join(joiner + text for joiner, text in zip(joiners, texts[1:]))


def _rows_of(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    return table.loc[table["metric"] == metric] if not table.empty else table


def property_matrix(
    results: pd.DataFrame,
    *,
    min_rank_correlation: float = MIN_RANK_CORRELATION,
    min_slope: float = MIN_SLOPE,
    perfect_threshold: float = PERFECT_THRESHOLD,
    random_threshold: float = RANDOM_THRESHOLD,
    min_r2: float = MIN_R2,
    min_linear_slope: float = MIN_LINEAR_SLOPE,
    max_deviation: float = MAX_DEVIATION,
    data_n: int = DATA_N,
    data_tolerance: float = DATA_TOLERANCE,
    max_spread: float = SPREAD_THRESHOLD,
) -> pd.DataFrame:
    """Every metric's characteristics, each with its verdict, deciding number and threshold.

    Characteristics and how they are decided (all thresholds are options):

    * **modularity / compactness / explicitness**: the metric measures property P when
      it has a sub-score for P (or a holistic one) and, in every scenario that
      degrades P (see :func:`reports.linearity.linearity`), that score follows the
      ideal.  Where the ideal is a trajectory (at least
      :data:`reports.linearity.MIN_LEVELS` distinct values: mixing, noise, ...) the
      score must fall with it: Spearman's rho >= ``min_rank_correlation`` and affine
      slope >= ``min_slope`` (it spans at least that fraction of the ideal's range; a
      score stuck near 1, like Z-diff under mixing in the review's section 5.3,
      fails).  Where the scenario only compares a few levels (modular_not_compact,
      review section 5.4 and Table 1) the score must not overstate the property: its
      largest excess over the ideal is at most ``max_deviation`` (DCI-lasso's
      compactness of 1.0 for duplicated codes fails; MIG's 0.0, which understates
      it, passes, as in the review's Table 2).  No sub-score for P: verdict
      ``absent`` (the review's ✗).  The entanglement attacks, which also degrade
      modularity and compactness, are judged in their own column and left out here.
    * **calibrated**: every sub-score passes :func:`reports.calibration.calibration`.
    * **linear**: every sub-score's affine fit to its ideal trajectory (scenarios
      with at least ``MIN_LEVELS`` ideal values) has R² >= ``min_r2`` and slope >=
      ``min_linear_slope`` (a flat line is no linear response; a constant score has
      R² undefined and fails).
    * **robust to noise / non-measured factors / nonlinear relation, follows
      entanglement attacks**: in the scenarios declaring the criterion ``noise``
      (alpha <= 0.5; modularity and compactness only, ``n/a`` for other metrics),
      ``non_measured_factors``, ``nonlinearity`` and ``attacks``, every judged
      sub-score stays within ``max_deviation`` of its ideal
      (:func:`reports.robustness.robustness`).
    * **discretization-free / few hyper-parameters**: from option sweeps
      (:func:`reports.sensitivity.hyperparameter_verdicts`): the largest spread of any
      sub-score across the values of ``bins`` (discretization-free), or of any swept
      option (few hyper-parameters), averaged over seeds, is at most ``max_spread``.
      ``unmeasured`` when the results hold no such sweep of the metric.
    * **data efficient**: every sub-score's mean ``|score(n) - score(n_max)|`` at
      ``n = data_n`` is at most ``data_tolerance`` (review 5.7: "All metrics provide a
      fair estimate of the disentanglement score [with] 1k samples except ...").

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).
    min_rank_correlation, min_slope, perfect_threshold, random_threshold, min_r2, min_linear_slope, max_deviation, data_n, data_tolerance, max_spread
        The thresholds above.

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per (metric, characteristic) with ``family``, ``verdict``
        (yes, no, n/a, unmeasured: the results lack the scenario, absent: the metric
        has no sub-score for the property), ``passed`` (bool, NaN when not judged),
        the numbers of the check closest to failing (``statistic``, ``value``
        unrounded, NaN when undefined, ``comparison``, ``limit``, ``margin``: positive
        when passing), and as text for display ``number`` (every deciding value, with
        enough digits to show its verdict), ``threshold`` and ``evidence`` (which
        sub-score and scenario decided).  Lower-is-better sub-scores are judged as
        ``1 - score``.

    Notes
    -----
    Cost: runs the calibration, linearity, robustness, sample-efficiency and
    sensitivity analyses.  Option-sweep variants (``mig[bins=5]``) are not rows of their
    own: a swept metric is one row, judged on its variant at the default options (see
    :func:`reports.sensitivity.on_default_options`), with the sweeps read by the two
    measured columns.
    """
    results = check_results(results)
    measured = hyperparameter_verdicts(results, threshold=max_spread)
    results = on_default_options(results)
    thresholds = Thresholds(min_rank_correlation, min_slope, perfect_threshold, random_threshold, min_r2,
                            min_linear_slope, max_deviation, data_n, data_tolerance)
    tables = analysis_tables(results, thresholds)
    families = results.groupby("metric")["family"].first()
    properties = results.groupby("metric")["property"].agg(set)
    rows = []
    for metric in sorted(families.index, key=lambda m: (family_rank(families[m]), m)):
        rows += judge(metric, properties[metric], tables, thresholds)
        rows += [_swept(metric, characteristic, measured, max_spread) for characteristic in _UNSWEPT]
    table = pd.DataFrame(rows)
    table.insert(1, "family", table["metric"].map(families))
    return table[COLUMNS]


@dataclass(frozen=True)
class Thresholds:
    """Every threshold of the verdicts (see :func:`property_matrix`)."""

    min_rank_correlation: float = MIN_RANK_CORRELATION
    min_slope: float = MIN_SLOPE
    perfect_threshold: float = PERFECT_THRESHOLD
    random_threshold: float = RANDOM_THRESHOLD
    min_r2: float = MIN_R2
    min_linear_slope: float = MIN_LINEAR_SLOPE
    max_deviation: float = MAX_DEVIATION
    data_n: int = DATA_N
    data_tolerance: float = DATA_TOLERANCE


def analysis_tables(results: pd.DataFrame, thresholds: Thresholds = Thresholds()) -> dict[str, pd.DataFrame]:
    """The analyses the verdicts read (empty tables where the results cannot support one).

    ``linearity`` is :func:`verdict_linearity`'s (no entanglement attacks); ``robustness``
    judges the properties of :data:`reports.robustness.JUDGED_PROPERTIES`.
    """
    return {
        "calibration": _quietly(calibration, results, perfect_threshold=thresholds.perfect_threshold,
                                random_threshold=thresholds.random_threshold),
        "linearity": _quietly(verdict_linearity, results, min_r2=thresholds.min_r2,
                              min_slope=thresholds.min_linear_slope),
        "robustness": _quietly(robustness, results, max_deviation=thresholds.max_deviation),
        "efficiency": _quietly(sample_efficiency, results),
    }


def verdict_linearity(results: pd.DataFrame, **options) -> pd.DataFrame:
    """:func:`reports.linearity.linearity` without the scenarios testing entanglement attacks.

    The fits the verdicts read (and the report card ranks): the attacks have their own
    characteristic, and the property columns follow the review's experiments.
    ``options`` go to :func:`reports.linearity.linearity`, which raises
    :class:`reports.MissingDataError` where the results cannot support it.
    """
    lines = linearity(results, **options)
    return lines.loc[~lines["scenario"].isin(scenarios_testing(results, "attacks"))]


def judge(metric: str, own: set[str], tables: dict[str, pd.DataFrame], thresholds: Thresholds) -> list[dict]:
    """The rows of every characteristic of ``metric``, read from ``tables`` (see :func:`analysis_tables`).

    Pass tables restricted to one sub-score to judge that sub-score alone; ``own`` is the
    set of properties the judged sub-scores measure.
    """
    t = thresholds
    rows = [_property(metric, prop, own, tables["linearity"], t.min_rank_correlation, t.min_slope, t.max_deviation)
            for prop in IDEAL_PROPERTIES]
    rows.append(_calibrated(metric, tables["calibration"], t.perfect_threshold, t.random_threshold))
    rows.append(_linear(metric, tables["linearity"], t.min_r2, t.min_linear_slope))
    for characteristic, criterion in _ROBUSTNESS.items():
        rows.append(_robust(metric, characteristic, criterion, JUDGED_PROPERTIES[criterion], own, tables["robustness"],
                            t.max_deviation))
    rows.append(_efficient(metric, tables["efficiency"], t.data_n, t.data_tolerance))
    return rows


def _property(metric: str, prop: str, own: set[str], lines: pd.DataFrame, min_rho: float, min_slope: float,
              max_excess: float) -> dict:
    if not own & {prop, "holistic"}:
        return _verdict(metric, prop, "absent", evidence=f"no {prop} or holistic sub-score")
    rows = _rows_of(lines, metric)
    rows = rows.loc[rows["against"] == prop] if not rows.empty else rows
    if rows.empty:
        return _verdict(metric, prop, "unmeasured", evidence=f"not scored on a scenario that degrades {prop}")
    trajectory = rows.loc[rows["n_levels"] >= MIN_LEVELS]
    levels = rows.loc[rows["n_levels"] < MIN_LEVELS]
    checks, labels, joiners, evidence = [], [], [], []
    if not trajectory.empty:
        lowest = trajectory.loc[trajectory["spearman"].fillna(-np.inf).idxmin()]
        flattest = trajectory.loc[trajectory["slope"].idxmin()]
        checks += [Check("ρ", float(lowest["spearman"]), ">=", min_rho, lowest["undefined_reason"]),
                   Check("slope", float(flattest["slope"]), ">=", min_slope)]
        labels += ["ρ ", "slope "]
        joiners.append(", ")
        evidence.append(f"lowest ρ: {lowest['sub_score']} in {lowest['scenario']}; "
                        f"lowest slope: {flattest['sub_score']} in {flattest['scenario']}")
    if not levels.empty:
        over = levels.loc[levels["max_excess"].idxmax()]
        if checks:
            joiners.append("; ")
        checks.append(Check("excess", float(over["max_excess"]), "<=", max_excess))
        labels.append("excess ")
        evidence.append(f"largest excess: {over['sub_score']} in {over['scenario']}")
    return _verdict(metric, prop, "", tuple(checks), "; ".join(evidence), tuple(labels), tuple(joiners))


def _calibrated(metric: str, table: pd.DataFrame, perfect_threshold: float, random_threshold: float) -> dict:
    rows = _rows_of(table, metric)
    if rows.empty:
        return _verdict(metric, "calibrated", "unmeasured", evidence="no scenario testing noise, at alpha = 0 and 1")
    low = rows.loc[rows["perfect_oriented"].idxmin()]
    high = rows.loc[rows["random_oriented"].idxmax()]
    checks = (Check("perfect", float(low["perfect_oriented"]), ">=", perfect_threshold),
              Check("random", float(high["random_oriented"]), "<=", random_threshold))
    return _verdict(metric, "calibrated", "", checks,
                    f"worst perfect: {low['sub_score']} in {low['scenario']}; "
                    f"worst random: {high['sub_score']} in {high['scenario']}", ("", ""), (" / ",))


def _linear(metric: str, lines: pd.DataFrame, min_r2: float, min_slope: float) -> dict:
    rows = _rows_of(lines, metric)
    rows = rows.loc[rows["n_levels"] >= MIN_LEVELS] if not rows.empty else rows
    if rows.empty:
        return _verdict(metric, "linear", "unmeasured", evidence="no scenario with a varying ideal trajectory")
    lowest = rows.loc[rows["r2"].fillna(-np.inf).idxmin()]
    flattest = rows.loc[rows["slope"].idxmin()]
    checks = (Check("R²", float(lowest["r2"]), ">=", min_r2, lowest["undefined_reason"]),
              Check("slope", float(flattest["slope"]), ">=", min_slope))
    return _verdict(metric, "linear", "", checks,
                    f"lowest R²: {lowest['sub_score']} in {lowest['scenario']} against {lowest['against']}; "
                    f"lowest slope: {flattest['sub_score']} in {flattest['scenario']}", ("R² ", "slope "))


def _robust(metric: str, characteristic: str, criterion: str, judged: tuple[str, ...], own: set[str],
            table: pd.DataFrame, max_deviation: float) -> dict:
    if characteristic == "robust_noise" and not own & set(judged):
        return _verdict(metric, characteristic, "n/a", evidence="no modularity or compactness sub-score")
    rows = _rows_of(table, metric)
    if not rows.empty:
        rows = rows.loc[(rows["criterion"] == criterion) & rows["property"].isin(judged)]
    if rows.empty:
        return _verdict(metric, characteristic, "unmeasured",
                        evidence=f"no judged sub-score in a scenario testing {criterion} (none, or no ideal)")
    farthest = rows.loc[rows["deviation"].idxmax()]
    return _verdict(metric, characteristic, "", (Check("|score − ideal|", float(farthest["deviation"]), "<=",
                                                       max_deviation),),
                    f"{farthest['sub_score']} in {farthest['scenario']} at {farthest['at_value']}")


def _efficient(metric: str, table: pd.DataFrame, data_n: int, tolerance: float) -> dict:
    rows = _rows_of(table, metric)
    rows = rows.loc[rows["n"] == data_n] if not rows.empty else rows
    if rows.empty:
        return _verdict(metric, "data_efficient", "unmeasured",
                        evidence=f"no sample-efficiency result at n = {data_n}")
    farthest = rows.loc[rows["mean_abs_difference"].idxmax()]
    check = Check(f"mean |s({data_n}) − s(n_max)|", float(farthest["mean_abs_difference"]), "<=", tolerance, digits=3)
    return _verdict(metric, "data_efficient", "", (check,),
                    f"{farthest['sub_score']} in {farthest['scenario']} (n_max = {int(farthest['n_max'])})")


def _swept(metric: str, characteristic: str, verdicts: pd.DataFrame, max_spread: float) -> dict:
    """A measured hyper-parameter column: the largest spread against ``max_spread``, or unmeasured.

    A variant kept as a row of its own (its sweep lacks the defaults) gets its metric's verdict.
    """
    variant = parse_variant(metric)
    swept = variant[0] if variant is not None else metric
    row = verdicts.loc[(verdicts["metric"] == swept) & (verdicts["characteristic"] == characteristic)]
    if row.empty or row["verdict"].iloc[0] == "unmeasured":
        return _verdict(metric, characteristic, "unmeasured", evidence=_UNSWEPT[characteristic])
    found = row.iloc[0]
    return _verdict(metric, characteristic, "", (Check("max spread", float(found["number"]), "<=", max_spread),),
                    str(found["evidence"]))


def property_matrix_display(table: pd.DataFrame, *, numbers: bool = True) -> pd.DataFrame:
    """The tidy matrix as a wide table of text: one row per metric, one column per characteristic.

    Each cell is the verdict's mark and, with ``numbers``, the numbers that decided it;
    without them (a paper's LaTeX table, which must fit a page's line) the mark alone.
    """
    cells = table.assign(cell=[f"{SYMBOLS[v]} {n if numbers else ''}".strip()
                               for v, n in zip(table["verdict"], table["number"])])
    wide = cells.pivot(index=["metric", "family"], columns="characteristic", values="cell")
    wide = wide.reindex(columns=[c for c in CHARACTERISTICS if c in wide.columns])
    order = table[["metric", "family"]].drop_duplicates().apply(tuple, axis=1).tolist()
    wide = wide.reindex(order).rename(columns=CHARACTERISTICS).reset_index()
    return wide.rename(columns={"metric": "Metric", "family": "Family"})
