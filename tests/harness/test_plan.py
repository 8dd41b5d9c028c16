"""Tasks of one data draw: expensive metrics apart, but never apart from the metrics that share their estimates."""

from __future__ import annotations

from harness.execution.plan import OWN_TASK_SECONDS, SHARING_FAMILIES, plan_tasks
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
    from harness.execution.costs import estimated_seconds

    def cell_of(scenario, value, metric="dci_rf"):
        cells = plan_study(preset="quick", scenarios_=[scenario], metrics_=[metric], seeds=1, n_samples=2000,
                           grids={scenario: [value]})
        return cells[0]

    plain = estimated_seconds("dci_rf", 2000)
    assert cell_of("noise", 0.2).estimated_seconds == plain  # 8 factors x 8 codes, as measured
    assert cell_of("redundancy_attack", 1.0).estimated_seconds == 2 * plain  # 8 x 16: [z, alpha U z + eps]
    assert cell_of("categorical", 4).estimated_seconds == plain / 4  # 4 x 4
    assert cell_of("dead_codes", 16).estimated_seconds == 3 * plain  # 8 x 24
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

    monkeypatch.setattr(plan, "_SHAPE_FACTORS", {})
    assert plan.shape_factor(Broken(), 1) == 1.0
