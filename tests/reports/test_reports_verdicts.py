"""Verdicts are decided on unrounded numbers and the printed text agrees with them.

A hand-built table puts values just past the thresholds (0.8987 against ">= 0.9",
0.0504 against "<= 0.05"), a constant score and a lower-is-better score, and every
table that shows them is checked: verdict, number and mark must agree.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports import property_matrix
from reports.analyses.checks import Check, format_against
from reports.report import build_sections
from reports.verdicts.headline import headline, headline_display

ALPHAS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
N_VALUES = (100, 1000, 10000)


def _row(scenario, parameter, criterion, value, seed, n, metric, sub_score, prop, higher, ideal, score):
    return {"study": "edge", "scenario": scenario, "parameter": parameter, "criterion": criterion, "value": float(value),
            "value_label": f"{value:g}", "seed": seed, "n_samples": n, "metric": metric, "family": "custom",
            "sub_score": sub_score, "property": prop, "higher_is_better": higher, "ideal": ideal, "score": float(score),
            "seconds": 0.01, "metric_version": "1", "harness_version": "t"}


def _edge_results() -> pd.DataFrame:
    """``edge``: 0.8987 at the perfect end; ``eff``: |s(1000) - s(10000)| = 0.0504; ``flat``: constant 0.5;
    ``low``: lower-is-better, ``1 - edge``'s scores."""
    rows = []
    for alpha in ALPHAS:
        ideal = 1.0 - alpha
        for seed in (0, 1):
            edge = 0.8987 * ideal  # 0.8987 at alpha = 0, 0 at alpha = 1
            rows += [
                _row("noise", "alpha", "noise", alpha, seed, 1000, "edge", "edge", "explicitness", True, ideal, edge),
                _row("noise", "alpha", "noise", alpha, seed, 1000, "low", "low", "explicitness", False, ideal, 1 - edge),
                _row("noise", "alpha", "noise", alpha, seed, 1000, "flat", "flat", "explicitness", True, ideal, 0.5),
                _row("noise", "alpha", "noise", alpha, seed, 1000, "eff", "eff", "explicitness", True, ideal, ideal),
            ]
    for n in N_VALUES:
        for seed in (0, 1):
            score = 0.7 + (0.0504 if n == 1000 else 0.0)
            rows.append(_row("sample_size", "n", "sample_efficiency", n, seed, n, "eff", "eff", "explicitness", True,
                             np.nan, score))
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def matrix():
    table = property_matrix(_edge_results())
    return {(row.metric, row.characteristic): row for row in table.itertuples()}


def test_format_against_keeps_the_verdict_visible():
    assert format_against(0.8987, ">=", 0.9) == "0.899"  # not "0.90", which would read as passing
    assert format_against(0.0504, "<=", 0.05) == "0.0504"  # not "0.05" nor "0.050"
    assert format_against(0.9, ">=", 0.9) == "0.90"  # on the threshold: shown on it
    # off it, never shown on it: "0.05" against "≤ 0.05" read as the threshold itself, and an interval's end 0.098
    # printed "0.10" made [0.10, 0.12] look wholly above 0.1 for a verdict it left undecided
    assert format_against(0.0496, "<=", 0.05) == "0.0496" and format_against(0.098086, "<=", 0.1) == "0.098"
    assert format_against(0.9004, ">=", 0.9) == "0.9004" and format_against(0.95, ">=", 0.9) == "0.95"
    assert format_against(float("nan"), ">=", 0.9) == "undefined"
    with pytest.raises(ValueError, match="comparison must be"):
        format_against(0.5, ">", 0.9)


def test_check_of_an_undefined_statistic_fails_and_says_why():
    check = Check("R²", float("nan"), ">=", 0.9, "constant score")
    assert not check.passed and check.value_text() == "undefined (constant score)" and np.isnan(check.margin)


def test_just_below_the_calibration_threshold(matrix):
    row = matrix[("edge", "calibrated")]
    assert row.verdict == "no" and row.number == "0.899 / 0.00"
    assert row.value == pytest.approx(0.8987) and row.margin == pytest.approx(-0.0013)


def test_just_above_the_efficiency_tolerance(matrix):
    row = matrix[("eff", "data_efficient")]
    assert row.verdict == "no" and row.number == "0.0504" and row.margin == pytest.approx(-0.0004)


def test_a_constant_score_has_undefined_statistics(matrix):
    row = matrix[("flat", "linear")]
    assert row.verdict == "no" and row.number == "R² undefined (constant score), slope 0.00"
    assert np.isnan(row.value)  # the undefined R² decides
    explicitness = matrix[("flat", "explicitness")]
    assert explicitness.verdict == "no" and explicitness.number.startswith("ρ undefined (constant score)")


def test_a_lower_is_better_score_is_mirrored_the_same_way_everywhere(matrix):
    for characteristic in ("calibrated", "linear", "explicitness"):
        assert matrix[("low", characteristic)].number == matrix[("edge", characteristic)].number, characteristic
        assert matrix[("low", characteristic)].verdict == matrix[("edge", characteristic)].verdict
    display = headline_display(headline(_edge_results())).set_index("Sub-score")
    assert display.loc["low (1 − score)", "Calibrated"] == display.loc["edge", "Calibrated"] == "✗ 0.899 / 0.00"
    sections = {section.key: section for section in build_sections(_edge_results())}
    details = sections["calibration"].details.set_index("Metric")
    assert details.loc["low (1 − score)", "Perfect"] == details.loc["edge", "Perfect"] == "0.899"
    assert details.loc["low (1 − score)", "Calibrated"] == "✗"


def test_headline_marks_agree_with_the_numbers():
    display = headline_display(headline(_edge_results())).set_index("Sub-score")
    assert display.loc["eff", "Data efficient"] == "✗ 0.0504"
    assert display.loc["flat", "Linear"] == "✗ R² undefined (constant score), slope 0.00"
