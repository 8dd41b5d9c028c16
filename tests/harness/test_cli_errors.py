"""Bad values and files on the command line: exit status 2, exactly one line on stderr, no traceback.

Bad counts, worker numbers, presets, backends and names; metric files that are missing, broken or lack the function;
an output that is a file; unknown commands, flags and arguments; ``report`` of a missing directory, of one without
results, of a file and of corrupted results: each must end in exit status 2 and exactly one line on stderr, starting
``error: `` and naming what is wrong, with no traceback, in process and in a real process.  A metric that returns NaN
is not a command-line error: the run finishes, fails its cells loudly and exits with status 1.

The same battery for the metrics and the scenarios is ``tests/metrics/test_malformed_inputs.py`` and
``tests/scenarios/test_generate_arguments.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.cli import main

ROOT = Path(__file__).resolve().parents[2]

RUN = ["run", "--preset", "quick", "--no-report", "--no-progress", "--jobs", "1"]


def _bad_metric_file(tmp_path: Path) -> dict[str, str]:
    broken = tmp_path / "broken.py"
    broken.write_text("def score(factors, codes):\n    return (\n")
    nan = tmp_path / "nan_metric.py"
    nan.write_text("def score(factors, codes):\n    return float('nan')\n")
    one_argument = tmp_path / "one_argument.py"
    one_argument.write_text("def score(codes):\n    return 1.0\n")
    a_file = tmp_path / "a_file"
    a_file.write_text("not a directory\n")
    return {"broken": str(broken), "nan": str(nan), "one": str(one_argument), "file": str(a_file), "tmp": str(tmp_path)}


CLI_CASES = [
    ("seeds zero", [*RUN, "--seeds", "0"], "--seeds: expected a whole number >= 1, got 0"),
    ("seeds negative", [*RUN, "--seeds", "-2"], "--seeds: expected a whole number >= 1, got -2"),
    ("seeds not a number", [*RUN, "--seeds", "many"], "--seeds: expected a whole number >= 1, got 'many'"),
    ("seeds fractional", [*RUN, "--seeds", "1.5"], "--seeds: expected a whole number >= 1, got '1.5'"),
    ("n-samples zero", [*RUN, "--n-samples", "0"], "--n-samples: expected a whole number >= 1, got 0"),
    ("n-samples one", [*RUN, "--seeds", "1", "--n-samples", "1", "--out", "{tmp}/one"], "needs at least 2 samples"),
    ("n-samples text", [*RUN, "--n-samples", "1e9x"], "--n-samples: expected a whole number >= 1, got '1e9x'"),
    ("jobs zero", [*RUN, "--jobs", "0"], "--jobs: expected a number of workers >= 1, or -1"),
    ("jobs text", [*RUN, "--jobs", "all"], "--jobs: expected a number of workers >= 1, or -1 for all cores, got 'all'"),
    ("unknown preset", ["run", "--preset", "huge", "--no-report"], "unknown preset 'huge'; known presets: default, joshi2026, paper, quick"),
    ("unknown backend", [*RUN, "--backend", "spark"], "invalid choice: 'spark'"),
    ("scheduler without dask", [*RUN, "--scheduler", "tcp://127.0.0.1:9"], "--scheduler is only used with --backend dask"),
    ("scheduler without dask, dry run", [*RUN, "--dry-run", "--scheduler", "tcp://127.0.0.1:9"],
     "--scheduler is only used with --backend dask"),  # the dry run accepted what the run refuses
    ("empty metric list", [*RUN, "--metrics", ","], "--metrics: expected a comma-separated list of names"),
    ("unknown metric", [*RUN, "--metrics", "mig,nope", "--out", "{tmp}/m"], "unknown metric 'nope'; known metrics:"),
    ("two unknown metrics", [*RUN, "--metrics", "mgi,sapp", "--out", "{tmp}/u"],
     "unknown metrics 'mgi' (did you mean mig?), 'sapp' (did you mean sap?); known metrics:"),  # it named mgi only
    ("variant of an unknown option", [*RUN, "--metrics", "mig[binz=10]", "--out", "{tmp}/v"],
     "metric 'mig' has no option 'binz'; its options: bins, normalization"),
    ("variant of a refused value", [*RUN, "--metrics", "mig[bins=1]", "--out", "{tmp}/w"],
     "metric 'mig' does not take bins=1: bins must be an integer >= 2"),
    ("variant without a value", [*RUN, "--metrics", "mig[bins]", "--out", "{tmp}/x"],
     "'mig[bins]': expected METRIC[OPTION=VALUE,...], as the results name a variant"),
    ("variant of an unknown metric", [*RUN, "--metrics", "nope[bins=10]", "--out", "{tmp}/n"],
     "unknown metric 'nope'; known metrics:"),
    ("unknown scenario", [*RUN, "--scenarios", "noize", "--out", "{tmp}/s"], "unknown scenario 'noize' (did you mean noise?); known scenarios:"),
    ("missing metric file", [*RUN, "--metrics", "{tmp}/absent.py:score", "--out", "{tmp}/f"], "absent.py' does not exist"),
    ("broken metric file", [*RUN, "--metrics", "{broken}:score", "--out", "{tmp}/b"], "importing metric file"),
    ("missing metric function", [*RUN, "--metrics", "{nan}:absent", "--out", "{tmp}/g"], "has no attribute 'absent'"),
    ("metric of one argument", [*RUN, "--metrics", "{one}:score", "--out", "{tmp}/o"],
     "cannot be called as fn(factors, codes), the (n, K) factors and (n, L) codes every metric is given: its signature "
     "is score(codes) (too many positional arguments)"),
    ("validate a metric of one argument", ["validate", "{one}:score", "--preset", "quick", "--out", "{tmp}/w"],
     "cannot be called as fn(factors, codes)"),
    ("unknown metric module", [*RUN, "--metrics", "no_such_module_xyz:score", "--out", "{tmp}/x"], "cannot import module 'no_such_module_xyz'"),
    ("out is a file", [*RUN, "--out", "{file}"], "a_file"),
    ("out is a file, dry run", [*RUN, "--dry-run", "--out", "{file}"], "exists and is not a directory"),
    ("unknown command", ["frobnicate"], "invalid choice: 'frobnicate'"),
    ("unknown flag", ["run", "--fast"], "python -m harness run: unrecognized arguments: --fast (see python -m harness run --help)"),
    ("stray argument", ["list", "metrics"], "python -m harness list: unrecognized arguments: metrics (see python -m harness list --help)"),
    ("report of a missing directory", ["report", "{tmp}/no_such_run"], "no_such_run"),
    ("report of a directory without results", ["report", "{tmp}"], "no results in"),
    ("report of a file", ["report", "{file}"], "a_file"),
]


@pytest.mark.parametrize(("argv", "message"), [c[1:] for c in CLI_CASES], ids=[c[0] for c in CLI_CASES])
def test_bad_command_lines_exit_2_with_one_line(argv, message, tmp_path, capsys):
    paths = _bad_metric_file(tmp_path)
    argv = [part.format(**paths) for part in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert message.format(**paths) in captured.err
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: ")
    assert "Traceback" not in captured.err + captured.out


def test_a_variant_named_as_the_results_name_it_runs_that_variant(tmp_path):
    # --metrics takes the label an option sweep writes (what plot and the results call it): the same variant, bit for bit
    label = "rmig[bins=5,estimator=histogram]"
    common = [*RUN, "--scenarios", "noise", "--seeds", "1", "--n-samples", "200"]
    assert main([*common, "--metrics", label, "--out", str(tmp_path / "label")]) == 0
    assert main([*common, "--metrics", "rmig", "--metric-option", "rmig:bins=5", "--metric-option", "rmig:estimator=histogram",
                 "--out", str(tmp_path / "swept")]) == 0
    labelled, swept = (pd.read_parquet(tmp_path / run / "results.parquet") for run in ("label", "swept"))
    assert set(labelled["metric"]) == {label} and set(labelled["metric_base"]) == {"rmig"}
    columns = ["scenario", "value", "seed", "metric", "options", "score"]
    pd.testing.assert_frame_equal(labelled[columns], swept[columns])


@pytest.mark.slow  # 4 to 6 s: the fast tier reached 293 s of its 5 minutes (stop 67)
def test_a_variant_of_a_users_metric_named_as_the_results_name_it_runs_that_variant(tmp_path, capsys):
    # 'mine.py:gap[power=3]' read "'mine.py' has no attribute 'gap[power=3]'", though --metric-option wrote that name
    metric = tmp_path / "mine.py"
    metric.write_text("import numpy as np\n\n\ndef gap(factors, codes, *, power: float = 1.0):\n"
                      "    return float(abs(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1]) ** power)\n")
    common = [*RUN, "--scenarios", "noise", "--seeds", "1", "--n-samples", "200", "--no-report"]
    assert main([*common, "--metrics", f"{metric}:gap[power=3]", "--out", str(tmp_path / "label")]) == 0
    assert main([*common, "--metrics", f"{metric}:gap", "--metric-option", "gap:power=3",
                 "--out", str(tmp_path / "swept")]) == 0
    labelled, swept = (pd.read_parquet(tmp_path / run / "results.parquet") for run in ("label", "swept"))
    assert set(labelled["metric"]) == {"gap[power=3]"} and set(labelled["metric_base"]) == {"gap"}
    columns = ["scenario", "value", "seed", "metric", "options", "score"]
    pd.testing.assert_frame_equal(labelled[columns], swept[columns])
    capsys.readouterr()
    assert main([*common, "--metrics", f"{metric}:gap[powr=3]", "--out", str(tmp_path / "bad")]) == 2
    assert capsys.readouterr().err == "error: metric 'gap' has no option 'powr'; its options: power\n"


def test_a_metric_returning_nan_fails_its_cells_loudly_and_the_run_exits_1(tmp_path, capsys):
    # A metric bug is not a command-line error: the run finishes, writes no NaN, lists every failed
    # cell in failures.csv, warns in one line on stderr and exits with status 1.
    paths = _bad_metric_file(tmp_path)
    argv = [*RUN, "--seeds", "1", "--n-samples", "50", "--metrics", f"{paths['nan']}:score", "--out", f"{tmp_path}/n"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("warning: 12 cell(s) failed")
    assert "non-finite score" in captured.err and "Traceback" not in captured.err + captured.out
    failures = pd.read_csv(tmp_path / "n" / "failures.csv")
    assert len(failures) == 12 and failures["error"].str.contains("non-finite score").all()
    assert len(pd.read_csv(tmp_path / "n" / "results.csv")) == 0


@pytest.mark.parametrize("argv", [["report", "{run}"], ["baseline", "save", "{run}", "--to", "{run}/b.json"],
                                  ["plot", "{run}", "--metrics", "mig"]])
def test_a_run_stopped_before_its_tables_says_to_rerun_it(argv, tmp_path, capsys):
    # its finished cells are stored, its tables not yet written: "expected results.parquet or results.csv" alone left
    # the user to guess that the same run command resumes it
    run = tmp_path / "stopped"
    run.mkdir()
    (run / "cells.jsonl").write_text("", encoding="utf-8")
    assert main([part.format(run=run) for part in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no results in" in err
    assert "a run stopped before it wrote its results table: rerun the same 'run' command, which resumes" in err


CORRUPTED_RESULTS = [
    ("garbage text", "results.csv", b"this is not, a results table\n\x00\x01\x02\n"),
    ("binary noise", "results.csv", bytes(range(256)) * 4),
    ("empty file", "results.csv", b""),
    ("nan scores", "results.csv", None),
    ("corrupted parquet", "results.parquet", b"PAR1 definitely not parquet PAR1"),
]


@pytest.mark.parametrize(("filename", "content"), [c[1:] for c in CORRUPTED_RESULTS], ids=[c[0] for c in CORRUPTED_RESULTS])
def test_report_of_corrupted_results_exits_2_with_one_line(filename, content, tmp_path, capsys):
    if content is None:  # a well-formed table whose scores were damaged
        assert main([*RUN, "--scenarios", "noise", "--metrics", "mig", "--seeds", "1", "--n-samples", "60", "--out", str(tmp_path)]) == 0
        (tmp_path / "results.parquet").unlink()
        table = pd.read_csv(tmp_path / "results.csv")
        table.loc[2, "score"] = np.nan
        table.to_csv(tmp_path / "results.csv", index=False)
        capsys.readouterr()
    else:
        (tmp_path / filename).write_bytes(content)
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--metrics", "nope", "--no-report"], "unknown metric 'nope'"),
        (["report", "/nonexistent/run/dir"], "/nonexistent/run/dir"),
    ],
)
@pytest.mark.slow
def test_a_real_process_prints_one_line_and_exits_2(argv, message):
    completed = subprocess.run([sys.executable, "-m", "harness", *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 2
    assert message in completed.stderr
    assert completed.stderr.count("\n") == 1 and "Traceback" not in completed.stderr


def test_a_misspelled_function_of_a_metric_file_gets_a_did_you_mean(tmp_path, one_line_usage_error):
    # 'has no attribute' named the typo alone, where a misspelled registered metric name gets "did you mean"
    (tmp_path / "mine.py").write_text("import numpy as np\n\n\ndef rank_correlation(factors, codes):\n    return 0.5\n\n\n"
                                      "def _rank_helper():\n    return 0.0\n")
    command = [*RUN, "--scenarios", "noise", "--seeds", "1"]
    assert main([*command, "--metrics", f"{tmp_path}/mine.py:rank_cor", "--out", str(tmp_path / "a")]) == 2
    one_line_usage_error("has no attribute 'rank_cor' (did you mean rank_correlation?)")
    assert main([*command, "--metrics", f"{tmp_path}/mine.py:entropy", "--out", str(tmp_path / "b")]) == 2
    assert "did you mean" not in one_line_usage_error("has no attribute 'entropy'")  # nothing close: no suggestion
    assert main([*command, "--metrics", f"{tmp_path}/mine.py:rank_helper", "--out", str(tmp_path / "c")]) == 2
    assert "_rank_helper" not in one_line_usage_error("has no attribute 'rank_helper'")  # never a private name


@pytest.mark.parametrize(("column", "cell", "problem"), [("p_value", 1.7, "out-of-range"), ("p_value", -0.3, "out-of-range"),
                                                         ("null_permutations", -5, "invalid"),
                                                         ("options", "{bins=5}", "unreadable")],
                         ids=["p 1.7", "p -0.3", "B -5", "options not JSON"])
@pytest.mark.parametrize("command", ["report", "plot", "baseline"])
def test_an_edited_results_table_is_refused_naming_the_row_and_the_column(tiny_run, tmp_path, one_line_usage_error,
                                                                          command, column, cell, problem):
    # issue 40: a table whose p_value is 1.7 or whose null_permutations is -5 was reported from without a word
    from harness.workflows.baseline import save_baseline

    save_baseline(tiny_run, tmp_path / "baseline.json")
    table = pd.read_parquet(tiny_run / "results.parquet")
    table[column] = table[column].astype(object)
    table.loc[2, column] = cell
    (tmp_path / "run").mkdir()
    table.to_csv(tmp_path / "run" / "results.csv", index=False)
    argv = {"report": ["report", str(tmp_path / "run")], "plot": ["plot", str(tmp_path / "run")],
            "baseline": ["baseline", "check", str(tmp_path / "run"), "--against", str(tmp_path / "baseline.json")]}
    assert main(argv[command]) == 2
    row = table.loc[2]
    one_line_usage_error(f"results column {column!r} has 1 {problem} entry (first: row 3, metric {row['metric']!r}, "
                         f"scenario {row['scenario']!r}, value {row['value_label']!r}, seed {row['seed']}")


def test_a_value_starting_with_a_minus_sign_is_read_as_the_options_value():
    # 'validate ... --score-range -1,1', as its own error message suggests writing it, failed: "expected one argument"
    from harness.cli import _negative_values_attached, build_parser

    arguments = _negative_values_attached(["validate", "m.py:score", "--score-range", "-1,1", "--jobs", "-1"])
    assert arguments == ["validate", "m.py:score", "--score-range=-1,1", "--jobs=-1"]
    args = build_parser().parse_args(arguments)
    assert args.score_range == (-1.0, 1.0) and args.jobs == -1
    assert _negative_values_attached(["run", "--metrics", "mig", "-h"]) == ["run", "--metrics", "mig", "-h"]
    assert _negative_values_attached(["--score-range=-1,0"]) == ["--score-range=-1,0"]


def test_a_misspelled_command_or_choice_gets_the_closest_ones(capsys):
    # 'valdate' got "invalid choice" and the list, where every misspelled name gets the closest ones
    assert main(["valdate", "m.py:score"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'valdate' (did you mean validate or evaluate?)" in err and err.count("\n") == 1
    assert main(["plot", "runs/x", "--layout", "rowz"]) == 2
    assert "invalid choice: 'rowz' (did you mean rows?)" in capsys.readouterr().err
    from harness.cli._args import _with_suggestion

    assert _with_suggestion("argument X: invalid choice: 'rowz' (choose from rows, columns)") == (
        "argument X: invalid choice: 'rowz' (did you mean rows?) (choose from rows, columns)")  # newer Pythons' form


def test_names_in_capitals_get_a_suggestion_and_a_comma_string_the_list_it_means():
    """``--metrics MIG`` had no "did you mean mig?" (the names were compared as written); ``metric_names="mig,sap"``
    was told to write ``['mig,sap']``, which names the unknown metric 'mig,sap'; a function among the names failed
    with "argument of type 'function' is not iterable"."""
    import numpy as np

    from harness.errors import UsageError, did_you_mean
    from harness.workflows.evaluate import evaluate_representation

    assert did_you_mean(["MIG"], ["mig", "sap"]) == " (did you mean mig?)"
    factors = np.random.default_rng(0).random((100, 2))
    with pytest.raises(UsageError, match=r"got 'mig,sap'; write \['mig', 'sap'\]"):
        evaluate_representation(factors, factors, metric_names="mig,sap")
    with pytest.raises(UsageError, match="put the function in a file and pass 'file.py:function'"):
        evaluate_representation(factors, factors, metric_names=[lambda factors, codes: 0.5])


def test_a_dry_run_refuses_what_the_run_refuses_and_counts_no_workers_for_sequential(tmp_path, capsys):
    # --dry-run estimated a threading run with a time limit the run refuses, and divided a sequential run by --jobs
    argv = ["run", "--preset", "quick", "--scenarios", "noise", "--metrics", "mig", "--n-samples", "300", "--dry-run",
            "--out", str(tmp_path / "x")]
    assert main([*argv, "--backend", "threading", "--cell-timeout", "5"]) == 2
    assert "a cell time limit forks a process per metric call" in capsys.readouterr().err
    assert main([*argv, "--backend", "sequential", "--jobs", "4"]) == 0
    out = capsys.readouterr().out
    assert "on 1 worker(s)" in out and "on 4 worker(s)" not in out
