"""Values given to ``--grid``: one value, one spelling; a declared range is a range that can be drawn.

Each case is a way such a value once broke a promise of the README: ``--grid noise=-0.0,0`` made two cells of one
value, and ``--grid sample_size=200000`` passed the range check, then failed inside the scenario.

(The ``--grid`` syntax and two-parameter sweeps: ``test_sweeps.py``; every scenario drawn at both ends of its stated
range: ``tests/scenarios/test_range_ends.py``.)
"""

from __future__ import annotations

import pandas as pd
import pytest

import scenarios
from harness.cli import main


@pytest.mark.parametrize(("values", "shown"), [("-0.0,0", "-0.0 and 0"), ("0,0.0", "0 and 0.0"), ("0,-0", "0 and -0"),
                                               ("0.5,5e-1", "0.5 and 5e-1")])
def test_a_grid_value_written_two_ways_is_refused_as_given_twice(one_line_usage_error, tiny_run_command, tmp_path, values, shown):
    # -0.0,0 made two cells labelled -0 and 0 of the same data, while 0,0.0 was refused.
    assert main([*tiny_run_command, "--grid", f"noise={values}", "--out", str(tmp_path / "run")]) == 2
    one_line_usage_error(f"'noise={values}' lists one value twice: {shown}")


def test_minus_zero_is_zero_wherever_it_is_written(tiny_run_command, tmp_path):
    assert main([*tiny_run_command, "--grid", "noise=-0.0,0.5", "--out", str(tmp_path / "run")]) == 0
    table = pd.read_csv(tmp_path / "run" / "results.csv", dtype={"value_label": str})
    assert table["value_label"].tolist() == ["0", "0.5"] and str(table["value"].iloc[0]) == "0.0"
    assert scenarios.get("noise").label(-0.0) == "0" and str(scenarios.get("noise").check_value(-0.0)) == "0.0"
    assert main([*tiny_run_command, "--scenarios", "redundancy_attack@noise=-0.0", "--grid", "redundancy_attack@noise=0=0",
                 "--out", str(tmp_path / "composed")]) == 0
    assert set(pd.read_csv(tmp_path / "composed" / "results.csv")["scenario"]) == {"redundancy_attack@noise=0"}


def test_a_sample_size_beyond_the_draw_is_refused_up_front_with_the_real_range(one_line_usage_error, tmp_path):
    argv = ["run", "--preset", "quick", "--no-report", "--no-progress", "--scenarios", "sample_size", "--metrics", "mig",
            "--seeds", "1", "--grid", "sample_size=200000", "--out", str(tmp_path / "run")]
    assert main(argv) == 2
    one_line_usage_error("grid of scenario 'sample_size': n must be an integer in 2..100000, got 200000")


def test_two_scenarios_in_one_grid_are_told_to_take_a_grid_each(one_line_usage_error, tmp_path):
    """'noise=0.1;mixing=0.2' was read as the scenario 'noise=0.1;mixing' and blamed for naming a value, with a
    suggested --grid that was itself invalid."""
    assert main(["run", "--scenarios", "noise,mixing", "--grid", "noise=0.1;mixing=0.2", "--metrics", "mig",
                 "--dry-run", "--out", str(tmp_path / "out")]) == 2
    one_line_usage_error("gives several scenarios' values in one --grid; give each its own: --grid noise=0.1 "
                         "--grid mixing=0.2")
