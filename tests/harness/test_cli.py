"""The command line: list, run, report, and one-line errors with exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from harness.cli import main


def test_list_prints_metrics_and_scenarios(capsys):
    assert main(["list"]) == 0
    out = " ".join(capsys.readouterr().out.split())  # wrapped to the terminal's width, which differs by runner
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


def test_run_no_report_over_an_earlier_report_says_it_is_stale(tmp_path, capsys):
    # rerunning another study with --no-report into a run directory left its old report.html beside the new results,
    # without a word
    argv = ["run", "--preset", "quick", "--metrics", "mig", "--seeds", "1", "--n-samples", "300", "--out", str(tmp_path),
            "--no-report", "--no-progress"]
    assert main(argv) == 0
    assert "note:" not in capsys.readouterr().out
    (tmp_path / "report.html").write_text("<p>an earlier study</p>")
    assert main([*argv, "--scenarios", "noise"]) == 0
    assert (f"note: the report in {tmp_path} (report.html, report.md, tables/, figures/) is an earlier command's and does "
            f"not show these results; rewrite it with: python -m harness report {tmp_path}\n") in capsys.readouterr().out


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
        (["run", "--figure-formats", "svg,jpg"], "--figure-formats: unknown figure format 'jpg': choose among png, svg, pdf"),
        (["report", "/nonexistent/run", "--figure-formats", "eps"], "unknown figure format 'eps'"),
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

    assert PROPERTY_CHOICES == ", ".join(metrics.SCORE_PROPERTIES[:-1]) + " or " + metrics.SCORE_PROPERTIES[-1]


OUTPUT_COMMANDS = {
    "evaluate": (["evaluate", "--factors", "{d}/factors.npy", "--codes", "{d}/codes.npy", "--metrics", "mig,dci_lasso",
                  "--out", "{out}/scores.csv"], "--out"),
    "run": (["run", "--preset", "quick", "--metrics", "mig", "--n-samples", "200", "--jobs", "1", "--no-progress",
             "--out", "{out}/run"], "--out"),
    "validate": (["validate", "{d}/metric.py:first", "--metrics", "mig", "--n-samples", "200", "--jobs", "1",
                  "--no-progress", "--out", "{out}/card"], "--out"),
    "validate-builtins": (["validate", "{d}/metric.py:first", "--metrics", "mig", "--n-samples", "200", "--jobs", "1",
                           "--no-progress", "--out", "{d}/card", "--builtins-dir", "{out}/builtins"], "--builtins-dir"),
    "stress": (["stress", "mig", "--scenarios", "noise", "--budget", "4", "--no-contrast", "--jobs", "1",
                "--out", "{out}/stress"], "--out"),
    "estimators": (["estimators", "--n", "200", "--alphas", "0", "--out", "{out}/estimators"], "--out"),
    "plot": (["plot", "{d}/no_run", "--out", "{out}/figure.png"], "--out"),
    "baseline save": (["baseline", "save", "{d}/no_run", "--to", "{out}/baseline.json"], "--to"),
}


@pytest.mark.parametrize("command", list(OUTPUT_COMMANDS))
def test_an_output_that_cannot_be_written_is_refused_before_any_work(command, arrays, capsys):
    # evaluate ran every metric, validate its axioms and battery, stress its search, before failing to write
    (arrays / "notes").write_text("a file, not a folder")
    template, option = OUTPUT_COMMANDS[command]
    argv = [part.format(d=arrays, out=arrays / "notes") for part in template]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert f"cannot write {option} {arrays / 'notes'}/" in captured.err and "notes is not a directory" in captured.err
    written = sorted(path.name for path in arrays.iterdir() if path.name != "__pycache__")  # Python's, importing metric.py
    assert written == ["codes.npy", "factors.npy", "metric.py", "notes"]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, where nothing can be created")
def test_evaluate_into_proc_is_refused_before_any_metric_runs(arrays, capsys):
    argv = ["evaluate", "--factors", str(arrays / "factors.npy"), "--codes", str(arrays / "codes.npy"),
            "--metrics", "mig", "--out", "/proc/x/s.csv"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "error: cannot write --out /proc/x/s.csv: cannot create anything in /proc" in captured.err


def test_writable_output_checks_without_creating_or_changing_anything(tmp_path):
    from harness.errors import UsageError
    from harness.outputs import writable_output

    (tmp_path / "folder").mkdir()
    (tmp_path / "scores.csv").write_text("kept")
    assert writable_output(tmp_path / "scores.csv", "--out") == tmp_path / "scores.csv"
    assert writable_output(tmp_path / "new" / "deeper" / "scores.csv", "--out") == tmp_path / "new" / "deeper" / "scores.csv"
    assert writable_output(tmp_path / "folder", "--out", directory=True) == tmp_path / "folder"
    with pytest.raises(UsageError, match="--out .*folder exists and is a directory"):
        writable_output(tmp_path / "folder", "--out")
    with pytest.raises(UsageError, match="--out .*scores.csv exists and is not a directory"):
        writable_output(tmp_path / "scores.csv", "--out", directory=True)
    assert (tmp_path / "scores.csv").read_text() == "kept"
    assert sorted(path.name for path in tmp_path.rglob("*")) == ["folder", "scores.csv"]


@pytest.mark.parametrize(("module", "status", "said", "unsaid"), [
    ("numpy.linalg", 2, ["'numpy' is not installed", "pip install -e ."], ["Traceback", "internal error"]),
    ("reports.gone", 1, ["Traceback", "internal error"], ["is not installed"]),  # the project's own module: a bug
])
def test_a_library_that_is_not_installed_is_named_in_one_line_with_how_to_install_it(module, status, said, unsaid,
                                                                                      capsys, monkeypatch):
    """Run from a checkout without ``pip install -e .``, a command failed deep in an import as an "internal error"."""
    import harness.cli.report as report_command

    def missing(args):
        raise ModuleNotFoundError(f"No module named {module!r}", name=module)

    monkeypatch.setattr(report_command, "report", missing)
    assert main(["report", "anywhere"]) == status
    err = capsys.readouterr().err
    assert all(text in err for text in said) and not any(text in err for text in unsaid)
    assert status == 1 or err.count("\n") == 1


def test_version_prints_the_version_every_results_row_records(capsys):
    from harness.version import __version__

    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0 and capsys.readouterr().out == f"python -m harness {__version__}\n"
