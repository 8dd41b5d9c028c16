"""The property matrix classifies the hand-built metrics as their formulas say it should."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports import Thresholds, property_matrix, property_matrix_display


def _verdicts(table):
    return {(row.metric, row.characteristic): row for row in table.itertuples()}


@pytest.fixture(scope="module")
def matrix(synthetic_results):
    return _verdicts(property_matrix(synthetic_results))


def test_perfectly_linear_metric_has_every_characteristic(matrix):
    for characteristic in ("modularity", "compactness", "explicitness", "calibrated", "linear", "robust_noise",
                           "robust_non_measured", "nonlinear_relation", "data_efficient"):
        assert matrix[("lin", characteristic)].verdict == "yes", characteristic
    # seeds 0.98, 0.99, 1.00 (0.00, 0.01, 0.02 at noise): 95% t intervals 0.99 ± 4.303 x 0.01 / sqrt(3), clipped to [0, 1]
    assert matrix[("lin", "calibrated")].number == "0.99 [0.97, 1.00] / 0.01 [0.00, 0.03]"
    assert matrix[("lin", "compactness")].number.startswith("ρ 1.00, slope 0.98; excess ")  # excess 0.005
    # gaps 10 (seed + 1) (1/1000 - 1/100000): mean 0.0198, t interval 0.0198 ± 4.303 x 0.0099 / sqrt(3), clipped at 0
    assert matrix[("lin", "data_efficient")].number == "0.020 [0.000, 0.044]"
    assert matrix[("lin", "follows_attacks")].verdict == "unmeasured"  # no attack scenario in the table


def test_step_function_is_calibrated_but_not_linear(matrix):
    assert matrix[("step", "calibrated")].verdict == "yes"
    assert matrix[("step", "linear")].verdict == "no" and matrix[("step", "linear")].number == "R² 0.77, slope 1.29"
    # it still responds to explicitness: rho 0.88 >= 0.8 and slope 1.29 >= 0.5
    assert matrix[("step", "explicitness")].verdict == "yes"
    assert matrix[("step", "explicitness")].number == "ρ 0.88, slope 1.29"
    assert matrix[("step", "modularity")].verdict == "absent"
    assert matrix[("step", "robust_noise")].verdict == "n/a"  # an explicitness score: the review's n/a


def test_uncalibrated_metric(matrix):
    assert matrix[("uncal", "calibrated")].verdict == "no" and matrix[("uncal", "calibrated")].number == "0.85 / 0.35"
    assert matrix[("uncal", "calibrated")].threshold == "perfect ≥ 0.9 / -0.1 ≤ random ≤ 0.1"
    assert matrix[("uncal", "linear")].verdict == "yes"
    assert matrix[("uncal", "modularity")].verdict == "yes"  # slope 0.6 >= 0.5
    assert matrix[("uncal", "robust_noise")].verdict == "no" and matrix[("uncal", "robust_noise")].number == "0.35"
    assert matrix[("uncal", "robust_non_measured")].number == "0.80"
    assert matrix[("uncal", "nonlinear_relation")].verdict == "no"
    # gaps 0.099 (seed + 1): mean 0.198, but three seeds that far apart put its t interval at [0, 0.198 + 0.246]
    assert matrix[("uncal", "data_efficient")].verdict == "undecided"
    assert matrix[("uncal", "data_efficient")].number == "0.198 [0.000, 0.444]"


def test_holistic_metric(matrix):
    # (2 + ideal) / 3 spans a third of the ideal's range: the slope 1/3 < 0.5 fails explicitness
    assert matrix[("holo", "explicitness")].verdict == "no" and matrix[("holo", "explicitness")].number == "ρ 1.00, slope 0.33"
    assert matrix[("holo", "modularity")].verdict == "yes"  # under mixing two of the three ideals fall: slope 2/3
    # compactness: it follows the mixing trajectory (slope 2/3) but overstates the modular_not_compact levels:
    # (1 + 0.25 + 1) / 3 = 0.75 where the ideal is 0.25, an excess of 0.5 > 0.2
    compactness = matrix[("holo", "compactness")]
    assert compactness.verdict == "no" and compactness.number == "ρ 1.00, slope 0.67; excess 0.50"
    assert compactness.threshold == "ρ ≥ 0.8, slope ≥ 0.5; excess ≤ 0.2"
    assert matrix[("holo", "robust_noise")].verdict == "n/a"
    assert matrix[("holo", "robust_non_measured")].verdict == "yes"


def test_metric_without_the_scenarios_is_unmeasured(matrix):
    assert {matrix[("pid", c)].verdict for c in ("modularity", "calibrated", "linear", "data_efficient")} == {"unmeasured"}


@pytest.mark.slow
def test_thresholds_are_options(synthetic_results):
    loose = _verdicts(property_matrix(synthetic_results, Thresholds(perfect_threshold=0.8, random_threshold=0.4, min_r2=0.7,
                                                                    max_deviation=0.9, data_tolerance=0.5, min_slope=0.3)))  # uncal's gap: [0, 0.444]
    for characteristic in ("calibrated", "robust_noise", "robust_non_measured", "nonlinear_relation", "data_efficient"):
        assert loose[("uncal", characteristic)].verdict == "yes", characteristic
    assert loose[("step", "linear")].verdict == "yes" and loose[("holo", "explicitness")].verdict == "yes"
    strict = _verdicts(property_matrix(synthetic_results, Thresholds(min_rank_correlation=0.9)))
    assert strict[("step", "explicitness")].verdict == "no"


def test_partial_table_marks_what_is_missing(synthetic_results):
    only_mixing = _verdicts(property_matrix(synthetic_results.loc[synthetic_results["scenario"] == "mixing"]))
    assert only_mixing[("lin", "modularity")].verdict == "yes"
    assert only_mixing[("lin", "explicitness")].verdict == "unmeasured"
    assert only_mixing[("lin", "calibrated")].verdict == "unmeasured"
    assert only_mixing[("lin", "robust_noise")].verdict == "unmeasured"


def test_display_has_one_row_per_metric_with_symbols(synthetic_results):
    display = property_matrix_display(property_matrix(synthetic_results))
    assert list(display["Metric"]) == ["uncal", "lin", "pid", "step", "holo"]
    assert list(display.columns[:5]) == ["Metric", "Family", "Modularity", "Compactness", "Explicitness"]
    row = display.set_index("Metric").loc["step"]
    assert row["Calibrated"] == "✓ 1.00 / 0.00" and row["Linear"] == "✗ R² 0.77, slope 1.29" and row["Modularity"] == "—"
    assert row["Robust to noise"] == "n/a" and row["Follows entanglement attacks"] == "?"


def test_attacks_have_their_own_column(synthetic_results):
    # lin ignores a redundancy attack whose ideal modularity falls from 1 to 0.2: that fails the attack column
    # only; the modularity column keeps following the review's experiments (mixing)
    attack = synthetic_results.loc[(synthetic_results["scenario"] == "mixing") & (synthetic_results["metric"] == "lin")].copy()
    attack["scenario"], attack["criterion"] = "redundancy_attack", "attacks"
    attack["ideal"] = np.where(attack["property"] == "explicitness", 1.0, 1.0 - 1.6 * attack["value"])
    attack = attack.assign(ideal_modularity=1.0 - 1.6 * attack["value"], ideal_compactness=1.0 - 1.6 * attack["value"],
                           ideal_explicitness=1.0)  # as every row states them
    attack["score"] = 1.0
    verdicts = _verdicts(property_matrix(pd.concat([synthetic_results, attack], ignore_index=True)))
    assert verdicts[("lin", "modularity")].verdict == "yes"
    assert verdicts[("lin", "follows_attacks")].verdict == "no"
    assert verdicts[("lin", "follows_attacks")].number == "0.80"  # 1 - (1 - 1.6 * 0.5)
