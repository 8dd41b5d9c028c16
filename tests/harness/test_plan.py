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
