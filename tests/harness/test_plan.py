"""Tasks of one data draw: expensive metrics apart, but never apart from the metrics that share their estimates."""

from __future__ import annotations

import re

import pytest

from harness.errors import UsageError
from harness.execution.plan import OWN_TASK_SECONDS, SHARING_FAMILIES, plan_tasks
from harness.execution.run_estimate import (
    LOOK_SECONDS_PER_CELL,
    RACE_ROUNDS_SHARE,
    START_SECONDS,
    report_wall_seconds,
)
from harness.execution.runner import plan_study


def _tasks_of_the_largest_draw():
    cells = plan_study(preset="paper", scenarios_=["sample_size"], seeds=1,
                       metrics_=["pid", "unibound", "rmig", "mig", "dci_rf", "sap", "z_diff", "z_min_var"])
    largest = max(cell.value for cell in cells)
    return plan_tasks([cell for cell in cells if cell.value == largest])


def test_an_expensive_metric_takes_its_sharing_family_along():
    tasks = _tasks_of_the_largest_draw()
    by_metric = {cell.metric.name: index for index, task in enumerate(tasks) for cell in task.cells}
    pid = next(cell for task in tasks for cell in task.cells if cell.metric.name == "pid")
    assert pid.estimated_seconds > OWN_TASK_SECONDS and pid.metric.family in SHARING_FAMILIES
    # UniBound and RMIG reuse the PID bounds' k-NN estimates, MIG the binned table: same task, in the study's order
    assert by_metric["unibound"] == by_metric["rmig"] == by_metric["mig"] == by_metric["pid"]
    family_task = tasks[by_metric["pid"]]
    assert [cell.metric.name for cell in family_task.cells] == ["pid", "unibound", "rmig", "mig"]  # as named


def test_an_expensive_metric_outside_a_sharing_family_runs_alone_and_the_rest_stay_together():
    tasks = _tasks_of_the_largest_draw()
    alone = [task for task in tasks if [cell.metric.name for cell in task.cells] == ["dci_rf"]]
    assert len(alone) == 1 and alone[0].cells[0].estimated_seconds > OWN_TASK_SECONDS
    rest = [task for task in tasks if {cell.metric.name for cell in task.cells} == {"sap", "z_diff", "z_min_var"}]
    assert len(rest) == 1 and len(tasks) == 3
    assert [task.estimated_seconds for task in tasks] == sorted((task.estimated_seconds for task in tasks), reverse=True)


def test_a_draw_of_cheap_metrics_is_one_task():
    cells = plan_study(preset="quick", scenarios_=["noise"], seeds=1, metrics_=["pid", "unibound", "dci_rf", "sap"])
    tasks = plan_tasks(cells)
    assert len(tasks) == len({cell.data_identity for cell in cells})
    assert all(len(task.cells) == 4 for task in tasks)


def test_a_cell_is_estimated_for_its_representations_shape():
    from harness.execution.costs import estimated_seconds, width_factor

    def cell_of(scenario, value, metric="dci_rf"):
        cells = plan_study(preset="quick", scenarios_=[scenario], metrics_=[metric], seeds=1, n_samples=2000,
                           grids={scenario: [value]})
        return cells[0]

    plain = estimated_seconds("dci_rf", 2000)
    # K / 8 times the metric's measured growth in its number of codes (about linear for dci_rf)
    assert cell_of("noise", 0.2).estimated_seconds == plain  # 8 factors x 8 codes, as measured
    assert cell_of("redundancy_attack", 1.0).estimated_seconds == pytest.approx(plain * width_factor("dci_rf", 16, 2000))  # 8 x 16
    assert cell_of("categorical", 4).estimated_seconds == pytest.approx(plain / 2 * width_factor("dci_rf", 4, 2000))  # 4 x 4
    assert cell_of("dead_codes", 16).estimated_seconds == pytest.approx(plain * width_factor("dci_rf", 24, 2000))  # 8 x 24
    assert 1.3 < width_factor("dci_rf", 16, 2000) < 2.0 and 0.3 < width_factor("dci_rf", 4, 2000) < 0.7
    # MISJED compares every pair of codes: on 8 x 256 null codes far more than the 32x of linear growth
    wide = cell_of("null_gaussian", 32.0, "misjed").estimated_seconds
    assert wide > 2 * 32 * cell_of("noise", 0.2, "misjed").estimated_seconds
    population = cell_of("udr_population", 0.5, metric="udr")
    assert population.estimated_seconds == estimated_seconds("udr", population.n_samples)  # not scaled


def test_a_scenario_that_cannot_draw_is_estimated_as_measured(monkeypatch):
    from harness.execution import plan

    class Broken:
        name, version, min_samples = "broken", "1", 2

        def label(self, value):
            return str(value)

        def generate(self, value, *, n, seed):
            raise RuntimeError("no data today")

    monkeypatch.setattr(plan, "_SHAPES", {})
    assert plan.representation_shape(Broken(), 1) == (8, 8)
    assert plan.shape_factor(Broken(), 1, 1000) == 1.0


def test_slow_metrics_are_named_at_plan_time_with_how_to_leave_them_out():
    from harness.execution.plan import slow_metric_warnings

    cells = plan_study(scenarios_=["null_gaussian"], metrics_=["mig", "wsepin", "mcc"], seeds=1, n_samples=100_000,
                       grids={"null_gaussian": [64.0]}, null_permutations=0)  # 8 factors x 512 codes, the calls alone
    by_metric = {cell.metric.name: cell.estimated_seconds for cell in cells}
    assert by_metric["wsepin"] > 3600 > 60 > by_metric["mig"]  # Do and Tran's I(z_i; z_!=i): L regressions on L codes
    lines = slow_metric_warnings(cells)
    assert lines == [f"warning: wsepin is estimated at {by_metric['wsepin'] / 3600:.1f} CPU-hours a cell "
                     "(null_gaussian = 64, n = 100000, 8 factors x 512 codes); leave it out with --metrics mig,mcc"]
    assert slow_metric_warnings(cells, threshold=1e9) == []


def test_a_plan_costly_for_its_permutations_names_them_not_the_metric():
    # issue 40: when B makes a cell costly, the warning must say so (leaving the metric out is not the remedy)
    from harness.execution.plan import slow_metric_warnings

    cells = plan_study(scenarios_=["noise"], metrics_=["mig"], seeds=1, n_samples=100_000, grids={"noise": [0.5]},
                       null_permutations=1_000_000)
    (cell,) = cells
    assert cell.estimated_null_seconds == 1_000_000 * cell.estimated_call_seconds > 3600
    assert slow_metric_warnings(cells) == [
        f"warning: mig's permutation null of 1000000 permutations is estimated at {cell.estimated_null_seconds / 3600:.1f} "
        f"CPU-hours a cell (noise = 0.5, n = 100000, 8 factors x 8 codes), the call itself "
        f"{cell.estimated_call_seconds:.1f} CPU-s; give fewer with --null-permutations B (0: none)"]


def test_the_dry_run_warns_of_a_slow_metric_on_stderr(capsys):
    from harness.cli import main

    argv = ["run", "--scenarios", "null_gaussian", "--metrics", "mig,wsepin", "--seeds", "1", "--n-samples", "100000",
            "--grid", "null_gaussian=64", "--dry-run"]
    assert main(argv) == 0  # a warning, not a refusal: the user may mean it
    captured = capsys.readouterr()
    assert "| wsepin " in captured.out and "warning:" not in captured.out
    assert captured.err.count("warning: ") == 1
    assert "warning: wsepin is estimated at" in captured.err and "leave it out with --metrics mig" in captured.err


def test_the_machine_speed_is_the_fixed_workloads_time_over_the_cost_tables(monkeypatch):
    from harness.execution import costs, speed_probe

    asked = []
    monkeypatch.setattr(speed_probe, "reference_seconds",  # three times as long as in the table's run
                        lambda repeats: asked.append(repeats) or 3.0 * costs.MEASURED_REFERENCE_SECONDS)
    speed_probe.machine_speed.cache_clear()
    try:
        assert speed_probe.machine_speed() == pytest.approx(3.0)
        assert speed_probe.machine_speed() == pytest.approx(3.0) and asked == [5]  # once a process
    finally:
        speed_probe.machine_speed.cache_clear()


def test_without_a_recorded_reference_the_machine_speed_says_how_to_measure_it(monkeypatch):
    from harness.execution import speed_probe

    monkeypatch.setattr(speed_probe, "MEASURED_REFERENCE_SECONDS", None)
    speed_probe.machine_speed.cache_clear()
    try:
        with pytest.raises(ValueError, match="cost_measurement seconds --write"):
            speed_probe.machine_speed()
    finally:
        speed_probe.machine_speed.cache_clear()


def test_the_dry_run_prints_the_time_at_this_machines_speed(capsys, monkeypatch):
    from harness.cli import main
    from harness.execution import speed_probe

    monkeypatch.setattr(speed_probe, "machine_speed", lambda: 2.5)
    assert main(["run", "--scenarios", "noise", "--metrics", "dci_rf", "--seeds", "1", "--jobs", "1", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    total = next(line for line in lines if line.startswith("estimated total: "))
    here = next(line for line in lines if line.startswith("this machine ran "))
    planned = int(re.search(r": (\d+) cells", lines[0])[1])
    at_table = re.search(r"about (\d+) s on 1 worker\(s\) at the cost table's speed$", total)
    at_machine = re.search(r"a fixed workload 2\.5 times as long as when the cost table was measured: about (\d+) s here in all \((\d+) s of cells, "
                           r"(\d+) s to start, (\d+) s for the report\)$", here)
    assert at_table and at_machine, (total, here)
    in_all, cells, start, report = map(int, at_machine.groups())
    assert abs(cells - 2.5 * int(at_table[1])) <= 2.5 * 0.5 + 0.5  # each rounded to the second
    # the start and the report at the measured costs (harness.execution.run_estimate), scaled by the same speed
    assert start == round(2.5 * START_SECONDS)
    assert report == round(2.5 * report_wall_seconds(planned, 1))
    assert abs(in_all - (cells + start + report)) <= 2


def test_a_racing_dry_run_adds_the_looks_and_the_later_rounds_measured_share(capsys, monkeypatch):
    from harness.cli import main
    from harness.execution import speed_probe

    monkeypatch.setattr(speed_probe, "machine_speed", lambda: 2.0)
    assert main(["run", "--scenarios", "noise", "--metrics", "dci_rf", "--jobs", "1", "--no-report", "--dry-run"]) == 0
    lines = capsys.readouterr().out.splitlines()
    here = next(line for line in lines if line.startswith("this machine ran "))
    found = re.search(r"\((\d+) s of cells, (\d+) s to start, (\d+) s for the race's looks and later rounds\)$", here)
    assert found, here
    cells, _, rounds = map(int, found.groups())
    planned = int(re.search(r": (\d+) cells", lines[0])[1])  # the first round's
    looks = 2.0 * 3 * LOOK_SECONDS_PER_CELL * planned  # three looks (3, 6, 12 seeds) at the machine's speed
    assert abs(rounds - (RACE_ROUNDS_SHARE * cells + looks)) <= 1 + RACE_ROUNDS_SHARE * 0.5 and "report" not in here


def test_the_default_preset_races_from_three_seeds_unless_the_seeds_are_given(capsys):
    from harness.cli import main
    from harness.execution.plan import plan_cells
    from harness.execution.presets import PRESETS

    def seeds_by_scenario(cells):
        return {scenario: sorted({cell.seed for cell in cells if cell.scenario == scenario}) for scenario in ("noise", "sample_size")}

    assert (PRESETS["default"].seeds, PRESETS["default"].max_seeds, dict(PRESETS["default"].scenario_seeds)) == (3, 12, {})
    chosen = dict(scenarios_=["noise", "sample_size"], metrics_=["mig"], null_permutations=0)
    assert seeds_by_scenario(plan_study(**chosen)) == {"noise": [0, 1, 2], "sample_size": [0, 1, 2]}
    assert seeds_by_scenario(plan_study(**chosen, seeds=2)) == {"noise": [0, 1], "sample_size": [0, 1]}
    with pytest.raises(UsageError, match="seeds must be at least 1, got 0"):
        plan_cells(study="default", scenario_names=["noise"], metric_entries=[], seeds=2, n_samples=100,
                   scenario_seeds={"noise": 0})
    assert main(["run", "--scenarios", "noise,sample_size", "--metrics", "mig", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "seeds per parameter value: 3\n" in out
    assert "seeds raced: the estimate above is the first round's (3 seeds on every cell); cells feeding a verdict " \
           "still undecided get 6, then 12 seeds" in out and "intervals at 98.3% for 3 looks" in out
    assert main(["run", "--scenarios", "noise", "--metrics", "mig", "--dry-run", "--seeds", "2"]) == 0
    assert "seeds raced" not in capsys.readouterr().out
    assert main(["run", "--scenarios", "noise", "--metrics", "mig", "--dry-run", "--min-seeds", "12"]) == 0
    assert ("(12 seeds on every cell); no cell gets more (the cap, 12 seeds, is where the race starts); intervals at "
            "95.0% for 1 look\n") in capsys.readouterr().out  # it said "get  seeds" and "1 looks"
    assert main(["run", "--scenarios", "noise", "--metrics", "mig", "--dry-run", "--budget-seconds", "0.001"]) == 0
    assert re.search(r"note: the first round alone is estimated at [0-9.]+ CPU-s, past the budget of 0.001: it runs "
                     r"whole \(--budget-seconds stops the later rounds\)", "".join(capsys.readouterr()))


def test_the_dry_run_gives_the_rows_each_scenario_scores_not_its_draw_size(capsys):
    """``sample_size`` draws 100000 rows and scores the first 100, 1000 or 10000: the dry run says so."""
    from harness.cli import main

    assert main(["run", "--scenarios", "noise,sample_size", "--metrics", "mig", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "samples per representation: 1000; 100, 1000, 10000 for sample_size\n" in out
    assert main(["run", "--scenarios", "noise,sample_size", "--metrics", "mig", "--n-samples", "500", "--grid",
                 "sample_size=100,10000", "--dry-run"]) == 0
    assert "samples per representation: 500; 100, 10000 for sample_size\n" in capsys.readouterr().out


def test_a_cell_key_hashes_the_one_json_list_of_its_identity_and_metric():
    # the key is built from cached per-draw and per-metric parts: it must hash exactly the JSON list it always hashed
    # (a stored cell's key would change otherwise), quotes and non-ASCII labels included
    import hashlib
    import json

    from harness.execution.metric_refs import registered_entry
    from harness.execution.plan import KEY_SEPARATOR, STUDY_FORMAT, cell_key

    entry = registered_entry("mig")
    for identity in [("noise", "1", 'alpha="0.5"', 0, 1000), ("rotation", "2", "θ = π/4", 7, 300, "sweep", "s", "n")]:
        payload = json.dumps([STUDY_FORMAT, *map(str, identity), entry.name, entry.fingerprint()])
        expected = hashlib.sha256(payload.encode()).hexdigest()[:24]
        assert cell_key(identity, entry, "noise").split(KEY_SEPARATOR)[0] == expected


def test_the_cells_of_one_plan_share_each_calls_estimate_across_seeds_and_only_there():
    import dataclasses

    cells = plan_study(preset="default", scenarios_=["noise", "sample_size"], metrics_=["mig", "dci_lasso", "pid"], seeds=2)
    shared = [cell.estimated_call_seconds for cell in cells]
    alone = [dataclasses.replace(cell, estimates=None).estimated_call_seconds for cell in cells]  # each computed anew
    assert shared == alone
    assert len(set(alone)) >= 9  # three metrics at three sizes: a memo keyed too coarsely would merge them


def test_the_dry_run_says_how_much_the_stored_cells_save(tmp_path, capsys):
    # it estimated 3 s for a run whose 72 cells were all stored
    from harness.cli import main

    small = ["run", "--preset", "quick", "--metrics", "mig", "--seeds", "1", "--n-samples", "300", "--out", str(tmp_path)]
    assert main([*small, "--scenarios", "noise", "--no-report", "--no-progress", "--jobs", "1"]) == 0
    capsys.readouterr()
    listing = sorted(path.name for path in tmp_path.iterdir())
    assert main([*small, "--scenarios", "noise,mixing", "--dry-run"]) == 0
    assert f"6 of these 12 cells are stored in {tmp_path} and would be skipped: " in capsys.readouterr().out
    assert sorted(path.name for path in tmp_path.iterdir()) == listing  # the dry run wrote nothing
