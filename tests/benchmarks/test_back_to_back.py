"""The back-to-back tool (``tests/benchmarks/back_to_back.py``): verdict counts, timings, exports and its table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmarks.back_to_back import Side, Timing, export, headline_counts, main, table, timed

REPOSITORY = Path(__file__).resolve().parents[2]


def test_headline_counts_decided_and_measured_verdicts(tmp_path):
    headline = tmp_path / "headline.csv"
    headline.write_text("metric,criterion,verdict\nmig,follows,yes\nmig,linear,no\nmig,robust,undecided\n"
                        "mig,calibrated,unmeasured\nmig,cost,\nsap,follows,yes\n", encoding="utf-8")
    assert headline_counts(headline) == (3, 4)  # yes, no, yes decided; the undecided one measured too; cost none


def test_headline_counts_refuses_another_table(tmp_path):
    other = tmp_path / "cost.csv"
    other.write_text("metric,seconds\nmig,0.1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no 'verdict' column"):
        headline_counts(other)


def test_table_gives_the_candidates_ratios():
    baseline = Side("baseline", "aaaaaaa", 200, 250, (Timing(wall=600.0, cpu=1200.0),), Timing(wall=40.0, cpu=80.0))
    candidate = Side("candidate", "bbbbbbb", 240, 250, (Timing(wall=420.0, cpu=720.0),), Timing(wall=10.0, cpu=24.0))
    text = table([baseline, candidate], 2)
    assert "| baseline | aaaaaaa | 200 of 250 | 1200 s | 6.00 s | 10 min 0 s | 40.0 s, 80.0 CPU-s |" in text
    assert "| candidate | bbbbbbb | 240 of 250 | 720 s | 3.00 s | 7 min 0 s | 10.0 s, 24.0 CPU-s |" in text
    # 720 / 240 = 3 against 1200 / 200 = 6; 420 / 600; 10 / 40 and 24 / 80
    assert text.endswith("candidate: CPU per decided verdict 0.50 times the baseline's; run wall 0.70 times; "
                         "report wall 0.25 times (CPU 0.30).")


def test_a_sides_run_is_the_median_of_its_runs():
    runs = (Timing(wall=300.0, cpu=700.0), Timing(wall=360.0, cpu=610.0), Timing(wall=330.0, cpu=640.0))
    side = Side("candidate", "bbbbbbb", 200, 250, runs, None)
    assert side.run == Timing(wall=330.0, cpu=640.0) and side.cpu_per_decided == 3.2  # 640 / 200
    other = Side("baseline", "aaaaaaa", 160, 250, runs[:2], None)  # an even count: the mean of the middle two
    assert other.run == Timing(wall=330.0, cpu=655.0)
    text = table([other, side], 0)
    assert "| baseline | aaaaaaa | 160 of 250 | 655 s (610 to 700) | 4.09 s |" in text and "not drawn again" in text
    assert "CPU (user + sys; median of 2 runs: range)" in text and "report wall" not in text


def test_timed_counts_the_childs_cpu_with_one_blas_thread_and_its_tree_first(tmp_path):
    script = ("import os, sys, time\nstart = time.process_time()\nwhile time.process_time() - start < 0.3: pass\n"
              "print(os.environ['OMP_NUM_THREADS'], os.environ['PYTHONPATH'])")
    timing = timed([sys.executable, "-c", script], tmp_path, tmp_path / "log.txt")
    assert 0.3 <= timing.cpu < 5 and timing.wall >= 0.3 * 0.5  # at least the loop's CPU; wall not below it by much
    assert (tmp_path / "log.txt").read_text(encoding="utf-8").split() == ["1", str(tmp_path)]


def test_timed_raises_on_a_failing_command(tmp_path):
    with pytest.raises(subprocess.CalledProcessError):
        timed([sys.executable, "-c", "raise SystemExit(3)"], tmp_path, tmp_path / "log.txt")


def test_export_writes_the_commits_tree_and_names_it(tmp_path):
    head = subprocess.run(["git", "-C", str(REPOSITORY), "rev-parse", "--short", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    source, commit = export("HEAD", REPOSITORY, tmp_path / "src")
    assert commit == head and source == tmp_path / "src"
    tracked = subprocess.run(["git", "-C", str(REPOSITORY), "show", "HEAD:pyproject.toml"], check=True,
                             capture_output=True).stdout
    assert (source / "pyproject.toml").read_bytes() == tracked and (source / "harness" / "__main__.py").is_file()
    here, named = export(".", REPOSITORY, tmp_path / "unused")
    assert here == REPOSITORY and named.rstrip("+") == head and not (tmp_path / "unused").exists()


@pytest.mark.parametrize(("arguments", "message"), [(["--pairs", "0"], "--pairs must be 1 or more"),
                                                     (["--report-repeats", "-1"], "--report-repeats must be 0 or more"),
                                                     (["--work", "LEFT_OVER"], "is not empty")])
def test_bad_arguments_are_refused_before_anything_runs(tmp_path, capsys, arguments, message):
    (tmp_path / "left_over").write_text("", encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path) if argument == "LEFT_OVER" else argument for argument in arguments])
    assert stopped.value.code == 2 and message in capsys.readouterr().err


def test_a_revision_git_does_not_know_is_one_error_line(tmp_path, capsys):
    assert main(["--baseline", "no-such-revision", "--work", str(tmp_path / "work")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: git rev-parse") and "no-such-revision" in err and "Traceback" not in err


def test_a_failing_run_names_its_logs(tmp_path, capsys):
    assert main(["--baseline", "HEAD", "--candidate", ".", "--work", str(tmp_path / "work"), "--",
                 "--preset", "no_such_preset"]) == 1
    err = capsys.readouterr().err
    assert "exited with status 2" in err and str(tmp_path / "work") in err and "Traceback" not in err
    assert "no_such_preset" in (tmp_path / "work" / "baseline_run_0.log").read_text(encoding="utf-8")


@pytest.mark.slow
def test_two_small_studies_back_to_back(tmp_path, capsys):
    numbers = tmp_path / "numbers.json"
    # one pair (two took 53 s of the slow tier's time; the median of several runs is tested above, without running)
    assert main(["--baseline", "HEAD", "--candidate", ".", "--pairs", "1", "--report-repeats", "1",
                 "--work", str(tmp_path / "work"),
                 "--json", str(numbers), "--", "--preset", "quick", "--scenarios", "noise", "--metrics", "mig"]) == 0
    sides = json.loads(numbers.read_text(encoding="utf-8"))["sides"]
    assert [side["name"] for side in sides] == ["baseline", "candidate"]
    for side in sides:
        assert 0 < side["decided"] <= side["measured"] and side["run"]["cpu"] > 0 and side["report"]["wall"] > 0
        assert len(side["runs"]) == 1 and side["run"]["cpu"] == side["runs"][0]["cpu"]
        assert side["cpu_per_decided"] == pytest.approx(side["run"]["cpu"] / side["decided"])
    assert sides[0]["decided"] == sides[1]["decided"]  # the same code (HEAD and the checkout's tests) decides alike
    assert "candidate: CPU per decided verdict" in capsys.readouterr().out
    for name in ("baseline", "candidate"):
        assert (tmp_path / "work" / f"{name}_run_0" / "report.html").is_file()
