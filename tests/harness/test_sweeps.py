"""Two-parameter sweeps: the --grid syntax, the slices a study runs, their seeds and their rows' parameters."""

from __future__ import annotations

import argparse
import json
import re

import numpy as np
import pytest

from harness.cli import main
from harness.cli._args import grid
from harness.errors import UsageError
from harness.execution.runner import plan_study, run_study
from harness.execution.scoring import generate_draw
from harness.execution.sweeps import canonical_name, free_composition, study_slices, sweep_slices

MIXED = "dense_mixing@equicorrelated"


def test_grid_parses_one_parameter_or_two_axes():
    assert grid("mixing=0.1,0.45") == ("mixing", [0.1, 0.45])
    assert grid(f"{MIXED}=kappa:1,10;rho:0,0.5") == (MIXED, {"kappa": [1, 10], "rho": [0, 0.5]})
    assert grid("null_gaussian=n_samples:50,200") == ("null_gaussian", {"n_samples": [50, 200]})


@pytest.mark.parametrize("text, message", [
    ("s=a:1;b:2;c:3", "at most two"),
    ("s=a:1;a:2", "axis a twice"),
    ("s=a:1;:2", "AXIS:V1,V2"),
    ("s=a:", "no values after a:"),
])
def test_grid_refuses_malformed_axes(text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        grid(text)


def test_a_free_composition_is_told_from_a_held_one():
    assert free_composition(MIXED) == ("dense_mixing", "equicorrelated")
    assert free_composition(f"{MIXED}=0.5") is None  # base held: an ordinary scenario
    assert free_composition("noise") is None
    assert canonical_name(f" {MIXED} ") == MIXED


@pytest.mark.parametrize("reference, message", [
    ("dense_mixin@equicorrelated", "unknown transform 'dense_mixin' (did you mean dense_mixing?)"),
    ("dense_mixing@equicorelated", "unknown scenario 'equicorelated' (did you mean equicorrelated"),
    ("dense_mixing@noise@equicorelated=0.5", "unknown scenario 'equicorelated' (did you mean equicorrelated"),
])
def test_a_misspelled_transform_or_base_of_a_free_composition_gets_the_closest_names(reference, message,
                                                                                      one_line_usage_error):
    # issue 40: 'TRANSFORM@BASE' misspelled was told only how a composition is written
    with pytest.raises(UsageError, match=re.escape(message)):
        free_composition(reference)
    argv = ["run", "--preset", "quick", "--no-report", "--no-progress", "--metrics", "mig", "--dry-run"]
    assert main([*argv, "--scenarios", reference]) == 2
    one_line_usage_error(message)
    assert main([*argv, "--grid", f"{reference}=kappa:1,10"]) == 2
    one_line_usage_error(message)


def test_a_composition_sweeps_the_transform_over_each_base_value():
    slices = sweep_slices(MIXED, {"kappa": [1, 10], "rho": [0, 0.5]})
    assert [part.scenario for part in slices] == [f"{MIXED}=0", f"{MIXED}=0.5"]
    assert all(part.values == (1, 10) and part.sweep == MIXED and part.axis == "base.rho" for part in slices)
    assert [part.scenario for part in sweep_slices(MIXED, {"base.rho": [0.9]})] == [f"{MIXED}=0.9"]
    default = sweep_slices(MIXED, None)  # both default grids
    assert len(default) == 7 and default[0].values == (1, 2, 3, 5, 10, 20, 50)


@pytest.mark.parametrize("given, message", [
    ({"theta": [1]}, "unknown axis 'theta'"),
    ({"n_samples": [100]}, "cannot be a third"),
    ([1, 10], "name them"),
    ({"rho": [0, 2]}, "base.rho axis"),
])
def test_a_composition_sweep_refuses_bad_axes(given, message):
    with pytest.raises(UsageError, match=message):
        sweep_slices(MIXED, given)


def test_a_scenario_sweeps_its_parameter_and_the_sample_size():
    (part,) = sweep_slices("null_gaussian", {"width_ratio": [1, 4], "n_samples": [50, 200]})
    assert (part.scenario, part.values, part.sample_sizes, part.axis) == ("null_gaussian", (1, 4), (50, 200), "n_samples")
    with pytest.raises(UsageError, match="lists 50 twice"):
        sweep_slices("null_gaussian", {"n_samples": [50, 50.0]})
    with pytest.raises(UsageError, match="fixes its own sample size"):
        sweep_slices("sample_size", {"n_samples": [100]})


def test_a_scenario_alone_and_in_a_sweep_is_refused():
    with pytest.raises(UsageError, match="on its own and sweep"):
        study_slices([f"{MIXED}=0.5", MIXED], {MIXED: {"rho": [0.5]}})


def test_every_point_of_a_sweep_transforms_one_draw_for_a_seed():
    cells = plan_study(preset="quick", scenarios_=["null_gaussian"], metrics_=["mig"], seeds=2,
                       grids={"null_gaussian": {"width_ratio": [1], "n_samples": [50, 200]}})
    assert sorted((cell.n_samples, cell.seed) for cell in cells) == [(50, 0), (50, 1), (200, 0), (200, 1)]
    by_point = {(cell.n_samples, cell.seed): cell for cell in cells}
    assert by_point[50, 0].seed_identity == by_point[200, 0].seed_identity != by_point[50, 1].seed_identity
    small, large = generate_draw(by_point[50, 0]), generate_draw(by_point[200, 0])
    np.testing.assert_array_equal(small.codes, large.codes[:50])  # the smaller sample is a prefix of the larger
    mixed = plan_study(preset="quick", scenarios_=[MIXED], metrics_=["mig"], seeds=1,
                       grids={MIXED: {"kappa": [1, 10], "rho": [0, 0.5]}})
    assert len({cell.seed_identity for cell in mixed}) == 1 and len({cell.data_identity for cell in mixed}) == 4


def test_rows_carry_the_sweep_and_both_values_and_a_second_run_reuses_them(tmp_path):
    grids = {MIXED: {"kappa": [1, 10], "rho": [0, 0.5]}}
    first = run_study(preset="quick", scenarios_=[MIXED], metrics_=["mig"], seeds=1, n_samples=200, grids=grids,
                      out=tmp_path, log=lambda line: None)
    assert set(first["sweep"]) == {MIXED}
    assert sorted(map(json.loads, set(first["parameters"])), key=lambda p: (p["base.rho"], p["kappa"])) == [
        {"base.rho": 0.0, "kappa": 1.0}, {"base.rho": 0.0, "kappa": 10.0},
        {"base.rho": 0.5, "kappa": 1.0}, {"base.rho": 0.5, "kappa": 10.0}]
    lines = []
    again = run_study(preset="quick", scenarios_=[MIXED], metrics_=["mig"], seeds=1, n_samples=200, grids=grids,
                      out=tmp_path, log=lines.append)
    assert again["score"].tolist() == first["score"].tolist()
    assert any("skipping 4 finished cell(s)" in line and "computing 0" in line for line in lines), lines


def test_cli_reports_a_bad_axis_as_a_usage_error(capsys):
    assert main(["run", "--scenarios", MIXED, "--grid", f"{MIXED}=theta:1", "--dry-run"]) == 2
    assert "unknown axis 'theta'" in capsys.readouterr().err


def test_a_transform_value_refused_on_a_free_base_names_the_scenario_as_given(one_line_usage_error, tmp_path):
    """'dense_mixing@equicorrelated=kappa:0.5,10' blamed the scenario 'dense_mixing@equicorrelated=-0.24', a slice the
    user never named."""
    assert main(["run", "--scenarios", "dense_mixing@equicorrelated", "--grid",
                 "dense_mixing@equicorrelated=kappa:0.5,10", "--metrics", "mig", "--dry-run",
                 "--out", str(tmp_path / "out")]) == 2
    one_line_usage_error("kappa axis of scenario 'dense_mixing@equicorrelated' (at base.rho = -0.24): kappa must be "
                         "in [1, 10000], got 0.5")
