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
    assert "udr_population" in out and "population" in out  # the population scenario the default study runs
    assert "tests noise" in out and "tests attacks" in out  # what each scenario declares it tests


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
        (["run", "--seeds", "0"], "--seeds: expected a whole number >= 1, got 0"),
        (["run", "--jobs", "x"], "--jobs: expected a number of workers >= 1, or -1 for all cores, got 'x'"),
        (["run", "--preset", "quik", "--no-report"], "unknown preset 'quik' (did you mean quick?)"),
        (["run", "--metrics", "nope", "--no-report"], "unknown metric 'nope'"),
        (["run", "--scenarios", "nope", "--no-report"], "unknown scenario 'nope'"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["report", "/nonexistent/run"], "/nonexistent/run"),
        # a negative seed printed a traceback (validate) or failed every stochastic metric (evaluate)
        (["validate", "m.py:f", "--seed", "-1"], "--seed: expected a whole number >= 0, got -1"),
        (["stress", "mig", "--seed", "-1"], "--seed: expected a whole number >= 0, got -1"),
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


def test_a_bug_is_not_a_usage_error_it_keeps_its_traceback(capsys, monkeypatch):
    import harness.cli.report as report_command

    def broken(args):
        raise KeyError("an internal lookup that should never fail")

    monkeypatch.setattr(report_command, "report", broken)
    assert main(["report", "anywhere"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "KeyError" in err and "internal error" in err


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_debug_shows_the_traceback_of_usage_errors(how, capsys, monkeypatch):
    argv = ["run", "--metrics", "nope", "--no-report"]
    if how == "flag":
        argv = ["--debug", *argv]
    else:
        monkeypatch.setenv("HARNESS_DEBUG", "1")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "UnknownNameError" in err
    assert err.strip().splitlines()[-1].startswith("error: unknown metric 'nope'")


def test_help_imports_no_heavy_library():
    # ``python -m harness --help`` must answer at once: no numpy-heavy stack is imported for it.
    probe = ("import sys, runpy\n"
             "sys.argv = ['harness', '--help']\n"
             "try:\n    runpy.run_module('harness', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "heavy = sorted(m for m in ('sklearn', 'pandas', 'matplotlib', 'scipy', 'metrics', 'reports') if m in sys.modules)\n"
             "print('HEAVY', heavy)\n")
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "HEAVY []" in completed.stdout


def test_validate_help_lists_exactly_the_registered_properties():
    import metrics
    from harness.cli.validate import PROPERTY_CHOICES

    assert PROPERTY_CHOICES == ", ".join(metrics.PROPERTIES[:-1]) + " or " + metrics.PROPERTIES[-1]
