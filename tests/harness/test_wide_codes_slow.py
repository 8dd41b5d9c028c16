"""Wide codes (issue 42), the slow tier: the measuring tool's child process under its limits, and every preset planned
under the default limits of a call (none refused)."""

from __future__ import annotations

import pytest

from harness.execution.cost_measurement.wide import measure_wide_call, write_wide_draw
from harness.execution.metric_refs import registered_entry
from harness.execution.presets import PRESETS
from harness.execution.runner import plan_study

pytestmark = pytest.mark.slow


def test_a_call_in_its_own_process_reports_its_time_and_memory_or_the_limit_it_ran_into(tmp_path):
    directory = write_wide_draw(tmp_path, 2000, 10, 64)
    assert write_wide_draw(directory, 2000, 10, 64) == directory  # the same draw: kept
    finished = measure_wide_call(registered_entry("mig"), directory, 64)
    assert finished["exceeded"] == "" and 0 < finished["cpu_seconds"] < 30 and finished["peak_bytes"] >= 0
    stopped = measure_wide_call(registered_entry("dci_rf"), directory, 64, cpu_seconds=1)
    assert stopped["exceeded"] == "time" and stopped["cpu_seconds"] is None
    starved = measure_wide_call(registered_entry("mcc"), directory, 64, memory_bytes=1)  # any allocation is over
    assert starved["exceeded"] == "memory"
    assert "--- dci_rf at 64 codes" in (directory / "calls.log").read_text()


@pytest.mark.parametrize("preset", list(PRESETS))
def test_no_preset_is_refused_under_the_default_limits_even_with_what_it_leaves_out_for_cost(preset):
    added = list(PRESETS[preset].excluded_metrics) or None
    assert plan_study(preset=preset, seeds=1, add_metrics=added)
