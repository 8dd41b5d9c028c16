"""Permutation nulls in a study: the results' null columns, B in the cell's identity, B chosen by cost, the estimate."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from harness.errors import UsageError
from harness.execution.costs import estimated_seconds
from harness.execution.null_budget import (
    MAX_PERMUTATIONS,
    MIN_PERMUTATIONS,
    metric_permutations,
    permutations_within,
    read_by_a_verdict,
)
from harness.execution.presets import PRESETS
from harness.execution.runner import plan_study, run_study
from harness.workflows.evaluate import evaluate_representation
from reports.analyses.calibration import calibration
from reports.results.schema import NULL_COLUMNS, RESULT_COLUMNS
from reports.verdicts import characteristics

#: noise at its two ends: alpha = 0 (z = v) and alpha = 1 (pure noise).
ENDS = dict(preset="quick", scenarios_=["noise"], metrics_=["mig"], seeds=2, n_samples=300, grids={"noise": [0.0, 1.0]},
            progress=False, backend="sequential")


def test_null_columns_hold_each_cells_permutation_null(tmp_path):
    frame = run_study(**ENDS, null_permutations=19)
    assert list(frame.columns) == list(RESULT_COLUMNS) and set(NULL_COLUMNS) <= set(frame.columns)
    assert frame["null_permutations"].eq(19).all() and (frame["null_seconds"] > 0).all()
    perfect, noise = frame.loc[frame["value"] == 0.0], frame.loc[frame["value"] == 1.0]
    # z = v: no permutation comes near, so the p-value is its floor 1 / (B + 1); the null sits near 0
    assert perfect["p_value"].eq(1 / 20).all() and (perfect["null_q95"] < 0.05).all()
    # pure noise: the score is one more draw of its null (its p-value uniform: tests/metrics test its spread)
    assert ((noise["null_mean"] - noise["score"]).abs() < 0.02).all() and (noise["null_q95"] > noise["null_mean"]).all()
    again = run_study(**{**ENDS, "backend": "threading"}, null_permutations=19, jobs=2)  # the null is seeded by the draw
    timings = ["seconds", "null_seconds"]
    pd.testing.assert_frame_equal(frame.drop(columns=timings), again.drop(columns=timings))


def test_without_nulls_the_columns_say_so():
    frame = run_study(**ENDS, null_permutations=0)
    assert frame["null_permutations"].eq(0).all() and frame[["null_mean", "null_q95", "p_value"]].isna().all().all()


def test_another_b_is_another_cell_and_the_run_says_why(tmp_path):
    messages: list[str] = []
    run_study(**ENDS, out=tmp_path, null_permutations=0)
    frame = run_study(**ENDS, out=tmp_path, null_permutations=19, log=messages.append)
    assert frame["null_permutations"].eq(19).all()
    assert "recomputing 4 stored cell(s) with another permutation null: no null, now 19 permutations (4)" in messages
    keys = {cell.key for cell in plan_study(**{k: v for k, v in ENDS.items() if k not in ("progress", "backend")}, null_permutations=19)}
    assert all("~null19." in key for key in keys)


@pytest.mark.default_nulls
def test_b_is_chosen_by_each_metrics_cost_within_the_presets_budget():
    assert permutations_within(0.001, 0.1) == MAX_PERMUTATIONS  # 100 fit: capped at 100
    assert permutations_within(0.002, 0.1) == 50
    assert permutations_within(0.1 / MIN_PERMUTATIONS, 0.1) == MIN_PERMUTATIONS
    assert permutations_within(0.006, 0.1) == 0  # 16 fit: too few for a p-value of 0.05
    assert permutations_within(0.001, 0.0) == 0
    budget = PRESETS["default"].null_budget_seconds
    cells = plan_study(preset="default", scenarios_=["noise"], metrics_=["mig", "dci_rf"], seeds=1,
                       metric_options={"mig": {"bins": [5, 10]}})
    at_noise = {cell.metric.name: cell.null_permutations for cell in cells if cell.value == 1.0}
    assert at_noise["dci_rf"] == 0  # a forest per factor and leaf size: fewer than 19 calls fit in the budget
    # a histogram metric: as many calls alone (nothing shared on permuted codes) as fit in the budget, within [19, 100]
    alone = estimated_seconds("mig", 1000, after_sibling=False, earlier=())
    chosen = at_noise["mig[bins=10]"]
    assert MIN_PERMUTATIONS <= chosen <= MAX_PERMUTATIONS
    assert chosen * alone <= budget < (chosen + 1) * alone or chosen == MAX_PERMUTATIONS
    cell = next(cell for cell in cells if cell.metric.name == "mig[bins=10]" and cell.value == 1.0)
    assert cell.estimated_seconds == pytest.approx(cell.estimated_call_seconds * (1 + chosen))
    # ten times the samples cost ten times more a call: fewer permutations, never more
    sized = [metric_permutations(cell.metric, rows, 0.1) for rows in (100, 1000, 10000)]
    assert sized[0] >= sized[1] >= sized[2] and sized[0] > sized[2]
    # only where a verdict reads a null: the fully random end of noise (calibration), the metric at its defaults
    assert at_noise["mig[bins=5]"] == 0
    assert all(cell.null_permutations == 0 for cell in cells if cell.value != 1.0)
    assert all(cell.null_permutations == 0
               for cell in plan_study(preset="default", scenarios_=["rotation"], metrics_=["mig"], seeds=1))
    with pytest.raises(UsageError, match="null_permutations must be a whole number >= 0"):
        plan_study(preset="quick", scenarios_=["noise"], metrics_=["mig"], null_permutations=-1)


@pytest.mark.default_nulls
def test_the_default_budget_is_stated_at_the_presets_speed_and_gives_the_costliest_information_metrics_a_null():
    from harness.execution import costs, presets

    # 2 CPU-s at the presets' speed: 28 runs of the fixed workload, in seconds at the cost table's speed
    assert presets.NULL_BUDGET_AT_PRESET_SPEED == 2.0 and presets.BUDGET_WORKLOAD_SECONDS == pytest.approx(2.0 / 28)
    assert PRESETS["default"].null_budget_seconds == presets.NULL_BUDGET_SECONDS == pytest.approx(
        28 * costs.MEASURED_REFERENCE_SECONDS)
    cells = plan_study(preset="default", scenarios_=["noise"], metrics_=["pid", "snc_nk", "dci_rf"], seeds=1)
    at_noise = {cell.metric.name: cell.null_permutations for cell in cells if cell.value == 1.0}
    # PID and SNC/NK (0.1 to 0.25 s a call) keep a null, as they had at the table of 2026-11-22 (21 and 34); DCI-RF
    # (about 1 s a call) has none
    assert at_noise["pid"] >= MIN_PERMUTATIONS and at_noise["snc_nk"] >= MIN_PERMUTATIONS and at_noise["dci_rf"] == 0


def test_the_cells_given_a_null_are_those_a_characteristic_declares(monkeypatch):
    assert read_by_a_verdict("noise", 1.0) and read_by_a_verdict("noise", 1)  # calibration's pure-noise end
    assert not read_by_a_verdict("noise", 0.5) and not read_by_a_verdict("rotation", 1.0)
    calibrated = characteristics.characteristic("calibrated")
    declared = dataclasses.replace(calibrated, key="rotated", nulls=characteristics.NullCells("rotation", (0.5,)))
    undeclared = dataclasses.replace(calibrated, nulls=None)
    monkeypatch.setattr(characteristics, "CHARACTERISTICS", (undeclared, declared))
    assert read_by_a_verdict("rotation", 0.5) and not read_by_a_verdict("noise", 1.0)


def test_a_preset_giving_nulls_somewhere_unknown_is_refused():
    with pytest.raises(ValueError, match="null_cells must be one of every, verdicts, got 'calibration'"):
        dataclasses.replace(PRESETS["quick"], null_cells="calibration")


@pytest.mark.slow  # 3 to 5 s; the fast tier keeps other tests of the same code (issue 37's 5-minute tier)
def test_z_min_var_on_pure_noise_at_n_1000_is_chance_level_bias():
    # the case: z_min_var scores about 0.16 on pure noise at n = 1000, and so do codes independent of the factors
    study = dict(preset="quick", scenarios_=["noise"], metrics_=["z_min_var"], seeds=2, n_samples=1000, progress=False,
                 backend="sequential")
    perfect = run_study(**study, grids={"noise": [0.0]}, null_permutations=0)  # calibration reads the null at the noise end
    noise = run_study(**study, grids={"noise": [1.0]}, null_permutations=19)
    row = calibration(pd.concat([perfect, noise])).iloc[0]
    assert row["random_oriented"] > 0.1 and not row["random_pass"]
    assert row["chance_bias"] and "chance-level bias at n = 1000" in row["chance_note"]


def test_evaluate_prints_each_sub_score_against_its_null():
    rng = np.random.default_rng(0)
    factors = rng.random((300, 3))
    table = evaluate_representation(factors, factors.copy(), metric_names=["mig", "sap"], permutations=19)
    assert list(table.columns[4:9]) == ["score", "null_mean", "null_q95", "p_value", "null_permutations"]
    assert table["p_value"].eq(1 / 20).all() and table["null_permutations"].eq(19).all()
    independent = evaluate_representation(factors, rng.random((300, 3)), metric_names=["mig", "sap"], permutations=19)
    assert (independent["p_value"] > 0.05).all() and (independent["null_q95"] > independent["null_mean"]).all()
    assert "null_mean" not in evaluate_representation(factors, factors, metric_names=["mig"]).columns
    with pytest.raises(UsageError, match="permutations must be a whole number"):
        evaluate_representation(factors, factors, metric_names=["mig"], permutations=-1)
