"""Calibration on the hand-built table: values derived from the conftest's formulas."""

from __future__ import annotations

import pandas as pd
import pytest

from reports import MissingDataError, Thresholds, calibration


def _by_score(table):
    return {(row.metric, row.sub_score): row for row in table.itertuples()}


def test_classification_of_the_synthetic_metrics(synthetic_results):
    rows = _by_score(calibration(synthetic_results))
    # lin: 0.98 * 1 + 0.01 at alpha = 0 and 0.98 * 0 + 0.01 at alpha = 1, seeds spread by exactly 0.01
    lin = rows[("lin", "explicitness")]
    assert lin.perfect_mean == pytest.approx(0.99, abs=1e-12) and lin.random_mean == pytest.approx(0.01, abs=1e-12)
    assert lin.perfect_std == pytest.approx(0.01, abs=1e-12) and lin.n_seeds == 3
    assert lin.calibrated and rows[("lin", "modularity")].calibrated
    # step: 1 then 0
    step = rows[("step", "step")]
    assert (step.perfect_mean, step.random_mean, step.perfect_std) == (1.0, 0.0, 0.0) and step.calibrated
    # uncal: 0.85 - 0.5 alpha
    uncal = rows[("uncal", "uncal")]
    assert uncal.perfect_mean == pytest.approx(0.85) and uncal.random_mean == pytest.approx(0.35)
    assert not uncal.calibrated
    # holo: mean of the ideals (1, 1, 1 - alpha): 2/3 at the random end
    assert rows[("holo", "holo")].random_mean == pytest.approx(2 / 3) and not rows[("holo", "holo")].calibrated
    assert ("pid", "unique_lower") not in rows  # pid never ran on noise


def test_thresholds_are_options(synthetic_results):
    loose = _by_score(calibration(synthetic_results, thresholds=Thresholds(perfect_threshold=0.85, random_threshold=0.35)))
    assert loose[("uncal", "uncal")].calibrated
    strict = _by_score(calibration(synthetic_results, thresholds=Thresholds(perfect_threshold=0.995)))
    assert not strict[("lin", "explicitness")].calibrated and strict[("step", "step")].calibrated


def test_lower_is_better_scores_are_mirrored(synthetic_results):
    flipped = synthetic_results.copy()
    is_step = flipped["metric"] == "step"
    flipped.loc[is_step, "score"] = 1.0 - flipped.loc[is_step, "score"]
    flipped.loc[is_step, "higher_is_better"] = False
    step = _by_score(calibration(flipped))[("step", "step")]
    assert (step.perfect_mean, step.random_mean) == (0.0, 1.0)  # raw scores are reported
    assert (step.perfect_oriented, step.random_oriented) == (1.0, 0.0)  # and judged as 1 - score
    assert step.calibrated


def test_missing_scenario_or_end_is_reported(synthetic_results):
    with pytest.raises(MissingDataError, match="calibration needs a scenario testing 'noise'; none in the results does"):
        calibration(synthetic_results.loc[synthetic_results["scenario"] != "noise"])
    no_random_end = synthetic_results.loc[~((synthetic_results["scenario"] == "noise") & (synthetic_results["value"] == 1.0))]
    with pytest.raises(MissingDataError, match="random end \\(value 1\\)"):
        calibration(no_random_end)


def test_a_renamed_noise_scenario_is_read(synthetic_results):
    renamed = calibration(synthetic_results.replace({"scenario": {"noise": "my_noise"}}))
    original = calibration(synthetic_results)
    assert set(renamed["scenario"]) == {"my_noise"}
    pd.testing.assert_frame_equal(renamed.drop(columns="scenario"), original.drop(columns="scenario"))


def test_verdicts_are_decided_unrounded():
    rows = []
    for value, score in ((0.0, 0.8987), (1.0, 0.0)):
        rows.append({"study": "s", "scenario": "noise", "parameter": "alpha", "criterion": "noise", "value": value,
                     "value_label": f"{value:g}", "seed": 0, "n_samples": 100, "metric": "m", "family": "custom",
                     "sub_score": "m", "property": "modularity", "higher_is_better": True,
                     "ideal": 1.0 if value == 0.0 else float("nan"),  # undefined at pure noise, as noise declares it
                     "score": score, "seconds": 0.1, "metric_version": "1", "harness_version": "t"})
    row = calibration(pd.DataFrame(rows)).iloc[0]
    assert not row.perfect_pass and not row.calibrated  # 0.8987 < 0.9, though it rounds to 0.90


def test_a_stated_ideal_at_the_random_end_is_no_null_code(synthetic_results):
    # the noise rows leave modularity undefined at pure noise: the random end asks lin/modularity for a null score
    assert ("lin", "modularity") in _by_score(calibration(synthetic_results))
    # rows stating modularity's ideal as 1 there declare that end no null code for it: not calibrated there
    stretched = synthetic_results.copy()
    chosen = (stretched["scenario"] == "noise") & (stretched["property"] == "modularity")
    stretched.loc[chosen, "ideal"] = 1.0
    table = calibration(stretched)
    assert ("lin", "modularity") not in _by_score(table) and ("lin", "compactness") in _by_score(table)
    assert ("lin/modularity: 'noise' states its modularity ideal as 1 at the random end, no null code for it: not "
            "calibrated there") in table.attrs["notes"]


def test_a_sub_score_at_one_end_only_is_noted(synthetic_results):
    partial = synthetic_results.loc[~((synthetic_results["scenario"] == "noise") & (synthetic_results["metric"] == "uncal")
                                      & (synthetic_results["value"] == 0.0))]
    table = calibration(partial)
    assert "uncal" not in set(table["metric"])
    assert table.attrs["notes"] == ["uncal/uncal was scored only at the random end"]


def test_the_largest_sample_size_is_used(synthetic_results):
    small = synthetic_results.loc[synthetic_results["scenario"] == "noise"].assign(n_samples=100, score=0.5)
    table = calibration(pd.concat([synthetic_results, small]))
    assert set(table["n_samples"]) == {2000}
    assert _by_score(table)[("step", "step")].perfect_mean == 1.0


def test_the_folded_table_prints_the_random_end_against_the_side_it_fails():
    """-0.1004 fails ``min_random`` (-0.1): rounded to two decimals it would read -0.10 and seem to pass."""
    from reports.report import _calibration_details
    from reports.verdicts.characteristics import characteristic
    from reports.verdicts.verdict_table import row_readings

    table = pd.DataFrame({"metric": ["m", "m", "m"], "sub_score": ["a", "b", "c"], "higher_is_better": [True] * 3,
                          "scenario": ["noise"] * 3, "property": ["explicitness"] * 3, "perfect_oriented": [1.0] * 3,
                          "perfect_std": [0.0] * 3, "random_oriented": [-0.1004, 0.1004, 0.02], "random_std": [0.0] * 3,
                          "n_seeds": [3] * 3, "calibrated": [False, False, True]})
    readings = row_readings(characteristic("calibrated").rules, table, Thresholds())
    shown = _calibration_details(table, {"calibrated": readings})
    assert list(shown["Random"]) == ["-0.1004", "0.1004", "0.02"]
    assert list(shown["Calibrated"]) == ["✗", "✗", "✓"]  # no interval (one seed's means): read by the values
