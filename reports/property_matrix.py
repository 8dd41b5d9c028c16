"""The property matrix: the review's Table 2 regenerated from measurements.

Zaidi et al. (2022), Table 2 and section 6.2: "For a metric to possess a characteristic
(✓), it has to be true by design and not disproven experimentally."  Here every ✓ or ✗
is decided by a number measured in the results (by the other analyses of this package)
and a threshold, and both are reported next to the verdict.  The review's columns
"Discretization-free" and "Few hyper-parameters" are facts of design, not
measurements, and are not regenerated.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd

from reports._format import ABSENT, NO, NOT_APPLICABLE, UNMEASURED, YES, format_number
from reports._table import IDEAL_PROPERTIES, MissingDataError, check_results, family_rank
from reports.calibration import PERFECT_THRESHOLD, RANDOM_THRESHOLD, calibration
from reports.linearity import MIN_LEVELS, MIN_R2, linearity
from reports.robustness import MAX_DEVIATION, robustness
from reports.sample_efficiency import sample_efficiency

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
    "data_efficient": "Data efficient",
}
#: Default thresholds of the property columns and of data efficiency.
MIN_RANK_CORRELATION, MIN_SLOPE = 0.8, 0.5
DATA_N, DATA_TOLERANCE = 1000, 0.05
#: Verdicts and their symbols in display tables.
SYMBOLS = {"yes": YES, "no": NO, "n/a": NOT_APPLICABLE, "unmeasured": UNMEASURED, "absent": ABSENT}
#: Robustness condition -> (scenarios, properties judged).  Under noise only
#: modularity and compactness are judged (the review: robustness to noise "does not
#: apply to explicitness metrics"), elsewhere every sub-score with a known ideal.
_ROBUSTNESS = {
    "robust_noise": (("noise",), ("modularity", "compactness")),
    "robust_non_measured": (("partial",), IDEAL_PROPERTIES + ("holistic",)),
    "nonlinear_relation": (("nonlinear",), IDEAL_PROPERTIES + ("holistic",)),
    "follows_attacks": (
        ("redundancy_attack", "synergy_attack", "gaussian_toy_redundancy", "gaussian_toy_synergy"),
        IDEAL_PROPERTIES + ("holistic",),
    ),
}


def _quietly(analysis: Callable[..., pd.DataFrame], results: pd.DataFrame, **options) -> pd.DataFrame:
    try:
        return analysis(results, **options)
    except MissingDataError:
        return pd.DataFrame()


def _verdict(metric: str, characteristic: str, verdict: str, number: str = "", threshold: str = "", evidence: str = "") -> dict:
    return {"metric": metric, "characteristic": characteristic, "verdict": verdict, "number": number,
            "threshold": threshold, "evidence": evidence}


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
    max_deviation: float = MAX_DEVIATION,
    data_n: int = DATA_N,
    data_tolerance: float = DATA_TOLERANCE,
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
      with at least ``MIN_LEVELS`` ideal values) has R² >= ``min_r2``.
    * **robust to noise / non-measured factors / nonlinear relation, follows
      entanglement attacks**: in the ``noise`` (alpha <= 0.5; modularity and
      compactness only, ``n/a`` for other metrics), ``partial``, ``nonlinear`` and
      attack scenarios, every judged sub-score stays within ``max_deviation`` of its
      ideal (:func:`reports.robustness.robustness`).
    * **data efficient**: every sub-score's mean ``|score(n) - score(n_max)|`` at
      ``n = data_n`` is at most ``data_tolerance`` (review 5.7: "All metrics provide a
      fair estimate of the disentanglement score [with] 1k samples except ...").

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated by :func:`reports.check_results`).
    min_rank_correlation, min_slope, perfect_threshold, random_threshold, min_r2, max_deviation, data_n, data_tolerance
        The thresholds above.

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per (metric, characteristic) with ``family``, ``verdict``
        (yes, no, n/a, unmeasured: the results lack the scenario, absent: the metric
        has no sub-score for the property), ``number`` (the deciding value(s), as
        text), ``threshold`` and ``evidence`` (which sub-score and scenario decided).

    Notes
    -----
    Cost: runs the calibration, linearity, robustness and sample-efficiency analyses.
    """
    results = check_results(results)
    tables = {
        "calibration": _quietly(calibration, results, perfect_threshold=perfect_threshold, random_threshold=random_threshold),
        "linearity": _quietly(linearity, results, min_r2=min_r2),
        "robustness": _quietly(robustness, results, properties=IDEAL_PROPERTIES + ("holistic",), max_deviation=max_deviation),
        "efficiency": _quietly(sample_efficiency, results),
    }
    lines = tables["linearity"]
    if not lines.empty:  # the attacks have their own column; the property columns follow the review's experiments
        lines = lines.loc[~lines["scenario"].isin(_ROBUSTNESS["follows_attacks"][0])]
    families = results.groupby("metric")["family"].first()
    properties = results.groupby("metric")["property"].agg(set)
    rows = []
    for metric in sorted(families.index, key=lambda m: (family_rank(families[m]), m)):
        for prop in IDEAL_PROPERTIES:
            rows.append(_property(metric, prop, properties[metric], lines, min_rank_correlation, min_slope, max_deviation))
        rows.append(_calibrated(metric, tables["calibration"], perfect_threshold, random_threshold))
        rows.append(_linear(metric, lines, min_r2))
        for characteristic, (scenarios, judged) in _ROBUSTNESS.items():
            rows.append(_robust(metric, characteristic, scenarios, judged, properties[metric], tables["robustness"], max_deviation))
        rows.append(_efficient(metric, tables["efficiency"], data_n, data_tolerance))
    table = pd.DataFrame(rows)
    table.insert(1, "family", table["metric"].map(families))
    return table


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
    numbers, thresholds, evidence, passed = [], [], [], True
    if not trajectory.empty:
        worst = trajectory.loc[trajectory["spearman"].idxmin()]
        flattest = trajectory.loc[trajectory["slope"].idxmin()]
        passed &= bool(worst["spearman"] >= min_rho and flattest["slope"] >= min_slope)
        numbers.append(f"ρ {format_number(worst['spearman'])}, slope {format_number(flattest['slope'])}")
        thresholds.append(f"ρ ≥ {min_rho:g}, slope ≥ {min_slope:g}")
        evidence.append(f"lowest ρ: {worst['sub_score']} in {worst['scenario']}; "
                        f"lowest slope: {flattest['sub_score']} in {flattest['scenario']}")
    if not levels.empty:
        over = levels.loc[levels["max_excess"].idxmax()]
        passed &= bool(over["max_excess"] <= max_excess)
        numbers.append(f"excess {format_number(over['max_excess'])}")
        thresholds.append(f"excess ≤ {max_excess:g}")
        evidence.append(f"largest excess: {over['sub_score']} in {over['scenario']}")
    return _verdict(metric, prop, "yes" if passed else "no", number="; ".join(numbers),
                    threshold="; ".join(thresholds), evidence="; ".join(evidence))


def _calibrated(metric: str, table: pd.DataFrame, perfect_threshold: float, random_threshold: float) -> dict:
    rows = _rows_of(table, metric)
    if rows.empty:
        return _verdict(metric, "calibrated", "unmeasured", evidence="no noise scenario at alpha = 0 and 1")
    higher = rows["higher_is_better"].to_numpy(dtype=bool)
    perfect = np.where(higher, rows["perfect_mean"], 1.0 - rows["perfect_mean"])
    random = np.where(higher, rows["random_mean"], 1.0 - rows["random_mean"])
    return _verdict(metric, "calibrated", "yes" if rows["calibrated"].all() else "no",
                    number=f"{format_number(perfect.min())} / {format_number(random.max())}",
                    threshold=f"perfect ≥ {perfect_threshold:g} / random ≤ {random_threshold:g}",
                    evidence=f"worst perfect: {rows['sub_score'].iloc[int(perfect.argmin())]}; "
                             f"worst random: {rows['sub_score'].iloc[int(random.argmax())]} (noise)")


def _linear(metric: str, lines: pd.DataFrame, min_r2: float) -> dict:
    rows = _rows_of(lines, metric)
    rows = rows.loc[rows["n_levels"] >= MIN_LEVELS] if not rows.empty else rows
    if rows.empty:
        return _verdict(metric, "linear", "unmeasured", evidence="no scenario with a varying ideal trajectory")
    worst = rows.loc[rows["r2"].idxmin()]
    return _verdict(metric, "linear", "yes" if rows["linear"].all() else "no",
                    number=f"R² {format_number(worst['r2'])}", threshold=f"R² ≥ {min_r2:g}, slope > 0",
                    evidence=f"{worst['sub_score']} in {worst['scenario']} against {worst['against']}")


def _robust(metric: str, characteristic: str, scenarios: tuple[str, ...], judged: tuple[str, ...], own: set[str],
            table: pd.DataFrame, max_deviation: float) -> dict:
    if characteristic == "robust_noise" and not own & set(judged):
        return _verdict(metric, characteristic, "n/a", evidence="no modularity or compactness sub-score")
    rows = _rows_of(table, metric)
    if not rows.empty:
        rows = rows.loc[rows["scenario"].isin(scenarios) & rows["property"].isin(judged)]
    if rows.empty:
        return _verdict(metric, characteristic, "unmeasured",
                        evidence=f"no judged sub-score in {', '.join(scenarios)} (scenario absent or no ideal)")
    deviation = np.maximum(rows["largest_drop"], rows["largest_excess"])  # the largest |score - ideal|
    worst = rows.loc[deviation.idxmax()]
    return _verdict(metric, characteristic, "yes" if rows["robust"].all() else "no",
                    number=format_number(deviation.max()), threshold=f"|score − ideal| ≤ {max_deviation:g}",
                    evidence=f"{worst['sub_score']} in {worst['scenario']} at {worst['at_value']}")


def _efficient(metric: str, table: pd.DataFrame, data_n: int, tolerance: float) -> dict:
    rows = _rows_of(table, metric)
    rows = rows.loc[rows["n"] == data_n] if not rows.empty else rows
    if rows.empty:
        return _verdict(metric, "data_efficient", "unmeasured", evidence=f"no sample_size result at n = {data_n}")
    worst = rows.loc[rows["mean_abs_difference"].idxmax()]
    return _verdict(metric, "data_efficient", "yes" if worst["mean_abs_difference"] <= tolerance else "no",
                    number=format_number(worst["mean_abs_difference"], 3),
                    threshold=f"mean |s(n) − s(n_max)| ≤ {tolerance:g} at n = {data_n}",
                    evidence=f"{worst['sub_score']} (n_max = {int(worst['n_max'])})")


def property_matrix_display(table: pd.DataFrame) -> pd.DataFrame:
    """The tidy matrix as a wide table of text: one row per metric, one column per characteristic."""
    cells = table.assign(cell=[f"{SYMBOLS[v]} {n}".strip() for v, n in zip(table["verdict"], table["number"])])
    wide = cells.pivot(index=["metric", "family"], columns="characteristic", values="cell")
    wide = wide.reindex(columns=[c for c in CHARACTERISTICS if c in wide.columns])
    order = table[["metric", "family"]].drop_duplicates().apply(tuple, axis=1).tolist()
    wide = wide.reindex(order).rename(columns=CHARACTERISTICS).reset_index()
    return wide.rename(columns={"metric": "Metric", "family": "Family"})
