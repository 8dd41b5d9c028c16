"""Wide codes (issue 42): a metric call estimated over the limits of a call is refused when the study is planned, in
one line with its estimate and a cheaper variant that fits; the memory model and the wide-code measurement's records.

No metric runs at 4096 codes here: the refusals read the estimates, from tables the tests set (the measured file's
own figures are checked by ``tests/benchmarks/test_bench_wide_codes.py``).
"""

from __future__ import annotations

import pytest

import harness.execution.costs as costs
from harness.cli import main
from harness.errors import UsageError
from harness.execution import cost_records
from harness.execution.cost_measurement import wide
from harness.execution.cost_records import WideCall
from harness.execution.metric_refs import registered_entry
from harness.execution.plan import DEFAULT_CELL_LIMITS, CellLimits
from harness.execution.runner import plan_study

GIB = 2**30
N = 100_000

WIDE_SCENARIO = '''
from scenarios import describe_scenario

@describe_scenario(parameter="noise", values=(0.1,), ideal=lambda noise: {"explicitness": 1.0})
def wide(noise, n, rng):
    factors = rng.random((n, 10))
    codes = noise * rng.standard_normal((n, 4096))
    codes[:, :10] += factors
    return factors, codes
'''


def _call(peak: float | None, exceeded: str = "", seconds: float | None = 1.0) -> WideCall:
    return WideCall(10, seconds, peak, exceeded, 70.0, 4 * GIB)


@pytest.fixture
def tables(monkeypatch):
    """Cost tables set by the test: per-call seconds growing linearly in n and in the codes (no width factors), and
    wide calls whose memory grows linearly in the codes."""
    import harness.execution.speed_probe  # noqa: F401 - imported unpatched: it binds the measured table when imported

    seconds = {"pid": {1000: 1.0, 10000: 10.0}, "pid[estimator=gaussian]": {1000: 1e-4, 10000: 1e-3},
               "mig": {1000: 1e-4, 10000: 1e-3}, "sap": {1000: 1e-4, 10000: 1e-3}}
    wide = {"pid": {N: {512: _call(0.1 * GIB), 4096: _call(0.8 * GIB)}},
            "pid[estimator=gaussian]": {N: {4096: _call(0.2 * GIB)}},
            "mig": {N: {512: _call(0.05 * GIB), 4096: _call(0.4 * GIB)}},
            "sap": {N: {512: _call(0.9 * GIB), 4096: _call(6.5 * GIB, "memory", None)}}}
    for name, value in (("MEASURED_SECONDS", seconds), ("MEASURED_ALONE_SECONDS", {}), ("MEASURED_WIDTH_FACTORS", {}),
                        ("MEASURED_WIDE_CALLS", wide)):
        monkeypatch.setattr(costs, name, value)
    costs.clear_estimates()
    yield
    costs.clear_estimates()


@pytest.fixture
def wide_scenario(tmp_path):
    """A user's scenario of 10 factors x 4096 codes, as a sparse autoencoder's dictionary."""
    path = tmp_path / "wide_scenario.py"
    path.write_text(WIDE_SCENARIO)
    return f"{path}:wide"


def test_a_wide_study_is_refused_in_one_line_naming_its_cost_and_the_variant_that_fits(tables, wide_scenario,
                                                                                        one_line_usage_error):
    argv = ["run", "--scenarios", wide_scenario, "--metrics", "pid,mig", "--seeds", "1", "--n-samples", str(N),
            "--max-cell-seconds", "60", "--dry-run"]
    assert main(argv) == 2
    line = one_line_usage_error("over the limits of a call (60 CPU-s and 4 GiB above its inputs", "--max-cell-seconds",
                                "pid 17.8 CPU-hours, 0.8 GiB", "n = 100000, 10 factors x 4096 codes",
                                "pid[estimator=gaussian] fits (6.4 CPU-s, 0.2 GiB: --metric-option pid:estimator=gaussian)")
    assert "mig" not in line  # 6.4 CPU-s and 0.4 GiB: within both


def test_a_call_over_the_memory_limit_is_refused_by_default_and_a_raised_limit_lets_it_plan(tables, wide_scenario):
    with pytest.raises(UsageError, match=r"sap 6.4 CPU-s, 6.5 GiB \(.*\), no measured variant of it fits$"):
        plan_study(scenarios_=[wide_scenario], metrics_=["sap", "pid"], seeds=1, n_samples=N)  # pid: no time limit
    for raised in (CellLimits(memory_bytes=8 * GIB), CellLimits(memory_bytes=None)):
        assert len(plan_study(scenarios_=[wide_scenario], metrics_=["sap"], seeds=1, n_samples=N, cell_limits=raised)) == 1


def test_a_narrow_study_is_not_refused():
    # the measured tables: the quick preset's costliest call takes a second
    assert plan_study(preset="quick", scenarios_=["noise"], cell_limits=CellLimits(seconds=60, memory_bytes=4 * GIB))
    assert plan_study(preset="quick", scenarios_=["noise"], n_samples=N)  # 8 x 8 codes at 1e5: well within 4 GiB


def test_the_default_limits_are_the_command_lines():
    from harness.cli.run import DEFAULT_CELL_MEMORY_GIB

    assert DEFAULT_CELL_LIMITS == CellLimits(None, DEFAULT_CELL_MEMORY_GIB * GIB) == CellLimits(None, 4 * GIB)


def test_the_memory_model_interpolates_in_the_codes_and_scales_linearly_in_n(monkeypatch):
    monkeypatch.setattr(costs, "MEASURED_WIDE_CALLS", {
        "mig": {N: {512: _call(1e8), 4096: _call(8e8)}},
        "rmig": {N: {8: _call(1e6), 512: _call(5e7, "time", None), 4096: _call(2e9, "memory", None)}},
        "pid": {N: {8: _call(1e6, "time", None)}}, "udr": {N: {8: _call(None, "time", None)}}})
    peak = costs.estimated_peak_bytes
    assert peak("mig", 4096, N) == pytest.approx(8e8)
    assert peak("mig", 2048, N) == pytest.approx(4e8)
    assert peak("mig", 4096, 10 * N) == pytest.approx(8e9)
    assert peak("mig[bins=20]", 4096, N, variant_of="mig") == pytest.approx(8e8)  # a variant reads its metric's
    # out of memory: at least its limit and the address-space slack it tried to pass (not the 2e9 it held then)
    assert peak("rmig", 4096, N) == pytest.approx(4 * GIB + cost_records.WIDE_ADDRESS_SLACK)
    assert peak("rmig", 512, N) == pytest.approx(5e7)  # out of time: what it held when stopped
    assert peak("pid", 4096, N) == pytest.approx(1e6 * 512)  # one width measured: linear in the codes
    assert peak("udr", 8, N) is None and peak("sap", 8, N) is None
    assert peak("mig", 4096, N, registered=False) is None


def test_a_wide_measurement_is_stored_and_read_back(tmp_path):
    path = tmp_path / "costs.json"
    path.write_text("{}")
    table = {"mig": {8: {"cpu_seconds": 0.5, "peak_bytes": 1e6, "exceeded": ""},
                     4096: {"cpu_seconds": 20.0, "peak_bytes": 9e8, "exceeded": ""}},
             "pid": {8: {"cpu_seconds": None, "peak_bytes": 4e6, "exceeded": "time"},
                     4096: {"cpu_seconds": None, "peak_bytes": None, "exceeded": "time", "inferred": True}}}
    runs = wide.wide_runs(table, N, 10, (8, 4096), 70.0, 4 * GIB)
    for name, run in runs.items():
        cost_records.add_run(name, run, path)
    measured = cost_records.read(path)
    assert measured.wide_calls == {"mig": {N: {8: WideCall(10, 0.5, 1e6, "", 70.0, 4 * GIB),
                                               4096: WideCall(10, 20.0, 9e8, "", 70.0, 4 * GIB)}},
                                   "pid": {N: {8: WideCall(10, None, 4e6, "time", 70.0, 4 * GIB)}}}  # 4096: not run
    assert measured.width_factors == {"mig": {N: {8: 1.0, 4096: 40.0}}}


def test_once_a_call_runs_out_of_time_the_wider_ones_are_recorded_so_unrun(monkeypatch, tmp_path):
    ran = []

    def measured(entry, directory, width, *limits, **log):
        ran.append((entry.name, width))
        out_of_time = entry.name == "pid" and width >= 512
        return {"cpu_seconds": None if out_of_time else 1.0, "peak_bytes": 1e6,
                "exceeded": "time" if out_of_time else "", "detail": ""}

    monkeypatch.setattr(wide, "measure_wide_call", measured)
    lines = []
    table = wide.measure_wide([registered_entry("pid"), registered_entry("mig")], tmp_path,
                                          (8, 512, 4096), echo=lines.append)
    assert ran == [("pid", 8), ("pid", 512), ("mig", 8), ("mig", 512), ("mig", 4096)]
    assert table["pid"][4096] == {"cpu_seconds": None, "peak_bytes": None, "exceeded": "time", "detail": "",
                                  "inferred": True}
    assert lines[1] == "pid at 512 codes: exceeded 70 CPU-s (peak so far 1 MiB)"
    assert wide.wide_table(table, 4096, 70.0, 4 * GIB).splitlines()[2:] == [
        "| `pid` | exceeded 70 CPU-s |", "| `mig` | 1.0 CPU-s, 1 MiB |"]


def test_a_call_is_estimated_at_least_as_costly_as_a_measured_call_at_no_more_codes_and_samples(monkeypatch):
    monkeypatch.setattr(costs, "MEASURED_WIDE_CALLS", {
        "pid[estimator=gaussian]": {N: {512: _call(1e8, seconds=4.0), 4096: _call(3e9, "time", None)}}})
    floor = costs.measured_floor_seconds
    gaussian = "pid[estimator=gaussian]"
    assert floor(gaussian, 10, 4096, N) == 70.0  # ran out of its 70 CPU-s: at least that, however it extrapolates
    assert floor(gaussian, 10, 2048, N) == 4.0 and floor(gaussian, 10, 4096, 10 * N) == 70.0
    assert floor(gaussian, 5, 4096, N) == 35.0  # fewer factors than measured: in proportion
    assert floor(gaussian, 10, 256, N) == floor(gaussian, 10, 4096, N // 2) == floor("mig", 10, 4096, N) == 0.0
