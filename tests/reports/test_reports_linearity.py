"""Linearity on the hand-built table, against values worked out by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports import MissingDataError, Thresholds, linearity
from reports.analyses.linearity import fit_line


def _rows(table):
    return {(row.scenario, row.metric, row.sub_score, row.against): row for row in table.itertuples()}


def test_perfectly_linear_metric(synthetic_results):
    rows = _rows(linearity(synthetic_results))
    for key in [("noise", "lin", "explicitness", "explicitness"), ("mixing", "lin", "modularity", "modularity"),
                ("mixing", "lin", "compactness", "compactness"), ("modular_not_compact", "lin", "compactness", "compactness")]:
        row = rows[key]
        assert row.r2 == pytest.approx(1.0, abs=1e-12)
        assert row.slope == pytest.approx(0.98, abs=1e-12) and row.intercept == pytest.approx(0.01, abs=1e-12)
        assert row.spearman == pytest.approx(1.0)
        assert row.linear and row.monotone
    # |0.98 x + 0.01 - x| = |0.01 - 0.02 x| is largest, 0.01, at both ends (alpha = 0 and 0.5)
    row = rows[("mixing", "lin", "modularity", "modularity")]
    assert row.max_deviation == pytest.approx(0.01, abs=1e-12) and row.at_value in ("0", "0.5")


def test_step_function_is_not_linear(synthetic_results):
    row = _rows(linearity(synthetic_results))[("noise", "step", "step", "explicitness")]
    # ideal x = 1, .8, .6, .4, .2, 0 and score y = 1, 1, 1, 0, 0, 0.  Centred: x' = (.5, .3, .1, -.1, -.3, -.5),
    # y' = (.5, .5, .5, -.5, -.5, -.5); sum x'y' = 0.9, sum x'^2 = 0.7, sum y'^2 = 1.5.
    assert row.r2 == pytest.approx(0.9**2 / (0.7 * 1.5), abs=1e-12)  # 0.7714
    assert row.slope == pytest.approx(0.9 / 0.7, abs=1e-12)
    # Spearman: the ranks of x (6..1) and of y (5, 5, 5, 2, 2, 2) are affine in x and y, so rho = r = 0.878
    assert row.spearman == pytest.approx(np.sqrt(0.9**2 / (0.7 * 1.5)), abs=1e-12)
    # worst |y - x| is 0.4, first reached at alpha = 0.4 (x = 0.6, y = 1)
    assert row.max_deviation == pytest.approx(0.4, abs=1e-12) and row.at_value == "0.4"
    assert not row.linear and not row.monotone


def test_uncalibrated_but_linear_metric(synthetic_results):
    row = _rows(linearity(synthetic_results))[("mixing", "uncal", "uncal", "modularity")]
    assert row.r2 == pytest.approx(1.0, abs=1e-12) and row.linear
    assert row.slope == pytest.approx(0.6, abs=1e-12) and row.intercept == pytest.approx(0.25, abs=1e-12)
    assert row.max_deviation == pytest.approx(0.25, abs=1e-12) and row.at_value == "0.5"


def test_only_degraded_properties_and_holistic_scores_are_fitted(synthetic_results):
    table = linearity(synthetic_results)
    assert set(zip(table["scenario"], table["against"])) == {
        ("noise", "explicitness"), ("mixing", "modularity"), ("mixing", "compactness"), ("modular_not_compact", "compactness")}
    # noise keeps modularity and compactness at 1: lin's modularity is not judged there
    assert not ((table["scenario"] == "noise") & (table["sub_score"] == "modularity")).any()
    # the holistic score is compared with each degraded property: (2 + (1 - alpha)) / 3 against 1 - alpha
    holo = _rows(table)[("noise", "holo", "holo", "explicitness")]
    assert holo.slope == pytest.approx(1 / 3) and holo.r2 == pytest.approx(1.0)
    assert not ((table["metric"] == "pid") | table["scenario"].isin(["nonlinear", "partial", "sample_size"])).any()


def test_threshold_options(synthetic_results):
    loose = Thresholds(min_r2=0.75, min_monotone_rank_correlation=0.85)
    row = _rows(linearity(synthetic_results, thresholds=loose))[("noise", "step", "step", "explicitness")]
    assert row.linear and row.monotone


def test_constant_and_decreasing_scores():
    ideal = np.array([1.0, 0.5, 0.0])
    constant = fit_line(ideal, np.array([0.7, 0.7, 0.7]))  # R² and rho are 0/0: undefined, the slope is 0
    assert np.isnan(constant["r2"]) and np.isnan(constant["spearman"])
    assert (constant["slope"], constant["intercept"]) == (0.0, 0.7)
    reversed_fit = fit_line(ideal, 1.0 - ideal)
    assert reversed_fit["r2"] == pytest.approx(1.0) and reversed_fit["slope"] == pytest.approx(-1.0)


def test_a_decreasing_score_is_not_linear(synthetic_results):
    flipped = synthetic_results.copy()
    is_mixing = (flipped["scenario"] == "mixing") & (flipped["metric"] == "uncal")
    flipped.loc[is_mixing, "score"] = 1.0 - flipped.loc[is_mixing, "score"]
    row = _rows(linearity(flipped))[("mixing", "uncal", "uncal", "modularity")]
    assert row.r2 == pytest.approx(1.0) and row.slope == pytest.approx(-0.6) and not row.linear and not row.monotone


def test_without_a_varying_ideal_it_says_so(synthetic_results):
    flat = synthetic_results.loc[synthetic_results["scenario"].isin(["nonlinear", "partial"])]
    with pytest.raises(MissingDataError, match="ideal trajectory varies"):
        linearity(flat)


def test_too_few_values_are_noted(synthetic_results):
    two = synthetic_results.loc[(synthetic_results["scenario"] == "mixing") & (synthetic_results["value"] <= 0.1)]
    three = synthetic_results.loc[(synthetic_results["scenario"] == "noise")]
    table = linearity(pd.concat([two, three]))
    assert set(table["scenario"]) == {"noise"}
    assert any("only 2 values of 'mixing'" in note for note in table.attrs["notes"])


def test_levels_and_excess(synthetic_results):
    rows = _rows(linearity(synthetic_results))
    # modular_not_compact states compactness 0.5, 0.5, 0.25: three values but two levels
    assert rows[("modular_not_compact", "lin", "compactness", "compactness")].n_levels == 2
    assert rows[("noise", "step", "step", "explicitness")].n_levels == 6
    # uncal under mixing: 0.25 + 0.6 x - x is largest, 0.25, at x = 0
    assert rows[("mixing", "uncal", "uncal", "modularity")].max_excess == pytest.approx(0.25)
    # lin on modular_not_compact: 0.01 - 0.02 x is largest at x = 0.25
    assert rows[("modular_not_compact", "lin", "compactness", "compactness")].max_excess == pytest.approx(0.005)
