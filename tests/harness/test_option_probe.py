"""Bad option values are refused before a study runs, by the metric's own checks on small probes."""

from __future__ import annotations

import textwrap
import time

import numpy as np
import pandas as pd
import pytest

from harness.cli import main
from harness.errors import UsageError
from harness.execution import option_probe
from harness.execution.metric_refs import registered_entry, resolve, variants
from harness.execution.runner import plan_study, run_study
from reports.schema import TIMING_COLUMNS

# A user metric with an option it checks itself, and failures that depend on the data, not on the option.
METRIC = '''
import numpy as np


def windowed(factors, codes, *, window=100, column=0):
    if not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a whole number >= 1, got {window!r}")
    if window > codes.shape[0]:
        raise ValueError(f"window {window} exceeds the {codes.shape[0]} samples")
    if column >= codes.shape[1]:
        raise ValueError(f"column {column} is not one of the {codes.shape[1]} codes")
    np.random.random()  # draws from numpy's global generator
    return float(abs(np.corrcoef(factors[:window, 0], codes[:window, column])[0, 1]))


def hangs(factors, codes, *, wait=0.0):
    import time
    time.sleep(wait)
    if wait > 0:
        raise ValueError(f"wait must be 0, got {wait}")  # said only by a call nobody stopped
    return 0.5


def needs_many(factors, codes, *, scale=1.0):
    if codes.shape[0] < 5000:
        raise ValueError("needs 5000 samples")
    if scale <= 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    return float(scale)
'''


@pytest.fixture(scope="module")
def user_metric(tmp_path_factory):
    path = tmp_path_factory.mktemp("probe") / "windowed.py"
    path.write_text(textwrap.dedent(METRIC))
    return path


@pytest.mark.parametrize(("value", "message"), [
    ("0", "metric 'mig' does not take bins=0: ValueError: bins must be at least 2, got 0"),
    ("abc", "metric 'mig' does not take bins=abc: TypeError: bins must be an integer, got 'abc'"),
    ("10.5", "metric 'mig' does not take bins=10.5: TypeError: bins must be an integer, got 10.5"),
])
def test_run_refuses_a_bad_value_before_any_cell_runs(value, message, tmp_path, capsys):
    # it used to run every cell, each failing, store the failures and exit 1: now one line, exit 2, nothing written
    argv = ["run", "--preset", "quick", "--scenarios", "noise", "--metrics", "mig", "--metric-option", f"mig:bins=5,{value}",
            "--jobs", "1", "--no-report", "--no-progress", "--out", str(tmp_path / "run")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == f"error: {message}\n" and captured.out == ""
    assert not (tmp_path / "run").exists()
    assert main(argv[:-2] + ["--dry-run"]) == 2  # the plan says it too


def test_validate_refuses_a_bad_value_of_a_builtin_or_of_yours_before_the_battery(user_metric, tmp_path, capsys):
    common = ["--n-samples", "200", "--jobs", "1", "--no-progress", "--out", str(tmp_path / "card"),
              "--builtins-dir", str(tmp_path / "builtins")]
    assert main(["validate", f"{user_metric}:windowed", "--metrics", "mig", "--metric-option", "mig:bins=0", *common]) == 2
    assert "metric 'mig' does not take bins=0: ValueError: bins must be at least 2, got 0" in capsys.readouterr().err
    assert main(["validate", f"{user_metric}:windowed", "--metrics", "mig", "--metric-option", "windowed:window=0",
                 *common]) == 2
    assert ("metric 'windowed' does not take window=0: ValueError: window must be a whole number >= 1, got 0"
            in capsys.readouterr().err)
    assert not (tmp_path / "card").exists() and not (tmp_path / "builtins").exists()


def test_run_study_raises_a_usage_error():
    with pytest.raises(UsageError, match=r"metric 'dci_es' does not take max_capacity_doublings=0: ValueError"):
        run_study(preset="quick", scenarios_=["noise"], metrics_=["dci_es"],
                  metric_options={"dci_es": {"max_capacity_doublings": [0]}}, progress=False)


def test_a_failure_that_depends_on_the_data_is_left_to_the_cells(user_metric):
    entry = resolve(f"{user_metric}:windowed")
    # more samples than the small probe has, a code column only the large probe has: valid on larger data
    for sweep in ({"window": [400]}, {"column": [10]}):
        option_probe.check_option_values(variants(entry, sweep))
    # a metric that scores neither probe at its defaults says nothing about its options
    option_probe.check_option_values(variants(resolve(f"{user_metric}:needs_many"), {"scale": [-1.0]}))
    with pytest.raises(UsageError, match="metric 'windowed' does not take window=-3"):
        option_probe.check_option_values(variants(entry, {"window": [-3]}))


@pytest.mark.slow
def test_the_cell_time_limit_stops_a_probe_call_and_leaves_the_variant_to_the_cells(user_metric, tmp_path):
    started = time.perf_counter()
    frame = run_study(preset="quick", scenarios_=["noise"], metrics_=[f"{user_metric}:hangs"], seeds=1, n_samples=200,
                      grids={"noise": [0.0]}, metric_options={f"{user_metric}:hangs": {"wait": [0.0, 60.0]}},
                      cell_timeout=1.0, jobs=1, backend="sequential", progress=False, out=tmp_path / "run")
    assert time.perf_counter() - started < 30, "the probe's calls of the hanging variant were not stopped"
    assert frame.loc[frame.metric == "hangs[wait=0]", "score"].tolist() == [0.5]
    failures = pd.read_csv(tmp_path / "run" / "failures.csv")
    assert failures["metric"].tolist() == ["hangs[wait=60]"]
    assert failures["error"].tolist() == ["timed out after 1 s"]  # the cell, not the probe, said it
    # without a limit the probe waits for the call and rejects the value
    with pytest.raises(UsageError, match=r"does not take wait=0.5: ValueError: wait must be 0"):
        option_probe.check_option_values(variants(resolve(f"{user_metric}:hangs"), {"wait": [0.5]}))


def test_the_probe_changes_no_score_no_cell_and_no_global_random_state(user_metric, monkeypatch):
    sweeps = {"mig": {"bins": [5, 20]}, f"{user_metric}:windowed": {"window": [50, 150]}}
    study = dict(scenarios_=["mixing"], metrics_=["mig", f"{user_metric}:windowed"], seeds=1, n_samples=300,
                 progress=False, log=lambda message: None, jobs=1, backend="sequential")
    option_probe._OUTCOMES.clear()
    np.random.seed(7)
    before = np.random.get_state()[1].copy()
    probed = run_study(metric_options=sweeps, **study)
    keys = [cell.key for cell in plan_study(scenarios_=["mixing"], metrics_=study["metrics_"], seeds=1, n_samples=300,
                                            metric_options=sweeps)]
    monkeypatch.setattr("harness.execution.runner.check_option_values", lambda entries, time_limit=None: None)
    plain = run_study(metric_options=sweeps, **study)
    plain_keys = [cell.key for cell in plan_study(scenarios_=["mixing"], metrics_=study["metrics_"], seeds=1,
                                                  n_samples=300, metric_options=sweeps)]
    assert keys == plain_keys
    assert probed.drop(columns=list(TIMING_COLUMNS)).equals(plain.drop(columns=list(TIMING_COLUMNS)))
    monkeypatch.undo()
    option_probe._OUTCOMES.clear()
    np.random.seed(7)
    option_probe.check_option_values(variants(resolve(f"{user_metric}:windowed"), {"window": [50]}))
    assert (np.random.get_state()[1] == before).all()  # the user function's draw was undone


def test_only_the_users_values_are_probed(monkeypatch):
    def refuse(entry, time_limit=None):
        raise AssertionError(f"probed {entry.name}")

    monkeypatch.setattr(option_probe, "rejection", refuse)
    assert plan_study(preset="default")  # the preset's own sweeps (mig over bins, dci_es over capacities)
    with pytest.raises(AssertionError, match=r"probed mig\[bins=5\]"):
        plan_study(preset="quick", metrics_=["mig"], metric_options={"mig": {"bins": [5]}})


def test_a_valid_variant_costs_one_call_on_the_small_probe(monkeypatch):
    calls = []
    original = option_probe._call
    monkeypatch.setattr(option_probe, "_call", lambda entry, options, shape, limit: calls.append(shape) or original(entry, options, shape, limit))
    option_probe._OUTCOMES.clear()
    for entry in variants(registered_entry("mig"), {"bins": [5, 40]}):
        assert option_probe.rejection(entry) == ""
    assert calls == [option_probe.PROBE_SHAPES[0]] * 3  # the defaults once, each variant once, on probe A only
