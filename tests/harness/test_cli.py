"""The command line: list, run, report, and one-line errors with exit status 2."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from harness.cli import main


def test_list_prints_metrics_and_scenarios(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "METRICS" in out and "SCENARIOS" in out
    assert "mig" in out and "compactness" in out and "noise" in out and "section 5.2" in out


def test_run_writes_results(tmp_path, capsys):
    status = main(["run", "--preset", "quick", "--metrics", "mig", "--seeds", "1", "--n-samples", "300",
                   "--out", str(tmp_path), "--no-report", "--no-progress"])
    assert status == 0
    frame = pd.read_csv(tmp_path / "results.csv")
    assert set(frame["scenario"]) == {"noise", "mixing"} and set(frame["metric"]) == {"mig"}
    assert "12 result rows" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--seeds", "0"], "--seeds: expected a number >= 1"),
        (["run", "--jobs", "x"], "--jobs: expected a whole number"),
        (["run", "--preset", "huge"], "invalid choice: 'huge'"),
        (["run", "--metrics", "nope", "--no-report"], "unknown metric 'nope'"),
        (["run", "--scenarios", "nope", "--no-report"], "unknown scenario 'nope'"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["report", "/nonexistent/run"], "/nonexistent/run"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, message, capsys, tmp_path):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_python_dash_m_entry_point_runs():
    completed = subprocess.run([sys.executable, "-m", "harness", "--help"], capture_output=True, text=True, check=True)
    assert "run" in completed.stdout and "list" in completed.stdout and "report" in completed.stdout
