"""A stored score is never served stale: an edited helper of a user's metric recomputes its cells.

A user metric ``labmetric.py:score`` importing a helper ``labconf.py``, run into ``--out``: after a constant
in ``labconf.py`` changed, the rerun skipped every cell ("skipping 12 finished cell(s) ...; computing 0") and
``baseline check`` against the first run's baseline passed, while the same study in a fresh folder drifted.
So did three metrics reading what no import statement shows (issue 40): a helper loaded with
``importlib.import_module("labhelp")``, a ``weights.json`` read at call time, an environment variable
``GAP_POWER`` (declared with ``describe_metric(env=...)``).  Driven through the command line, in the user's
folder, as the user runs it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
LABMETRIC = """
import numpy as np
from labconf import SCALE


def score(factors, codes):
    return float(np.mean(np.abs(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1]))) * SCALE
"""


def _harness(*argv: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "harness", *argv], cwd=cwd, env=environment, capture_output=True,
                          text=True, timeout=300)


@pytest.mark.slow
def test_an_edited_helper_of_a_user_metric_recomputes_its_cells_and_says_why(tmp_path):
    (tmp_path / "labmetric.py").write_text(textwrap.dedent(LABMETRIC))
    (tmp_path / "labconf.py").write_text("SCALE = 1.0\n")
    study = ["run", "--preset", "quick", "--scenarios", "noise", "--metrics", "mig,labmetric.py:score", "--seeds", "1",
             "--n-samples", "200", "--out", "runs/x", "--no-report", "--no-progress"]
    first = _harness(*study, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert _harness("baseline", "save", "runs/x", "--to", "base.json", cwd=tmp_path).returncode == 0
    before = pd.read_csv(tmp_path / "runs/x/results.csv")

    (tmp_path / "labconf.py").write_text("SCALE = 0.5\n")
    rerun = _harness(*study, cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    assert "skipping 6 finished cell(s) found in runs/x; computing 6" in rerun.stdout  # mig's 6 cells are reused
    assert "recomputing 6 stored cell(s) whose inputs changed: labconf.py changed (6)" in rerun.stdout
    after = pd.read_csv(tmp_path / "runs/x/results.csv")
    mine = (before["metric"] == "score").to_numpy()
    np.testing.assert_allclose(after.loc[mine, "score"], 0.5 * before.loc[mine, "score"], rtol=1e-12)
    np.testing.assert_array_equal(after.loc[~mine, "score"], before.loc[~mine, "score"])

    check = _harness("baseline", "check", "runs/x", "--against", "base.json", cwd=tmp_path)
    assert check.returncode == 1 and "baseline check FAILED: 12 cells (6 ok, 6 drifted)" in check.stdout


DYNAMIC = """
import importlib
import numpy as np


def score(factors, codes):
    helper = importlib.import_module("labhelp")
    return float(abs(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1])) * helper.SCALE
"""
DATA = """
import json
import numpy as np


def weighted(factors, codes):
    with open("weights.json") as handle:
        weight = json.load(handle)["w"]
    return float(abs(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1])) * weight
"""
ENVIRONMENT = """
import os
import re
import numpy as np
from metrics.describe import describe_metric


@describe_metric(env=("GAP_POWER",))
def gap(factors, codes):
    return float(abs(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1])) ** float(os.environ.get("GAP_POWER", "1"))
"""
#: Each case: its file, its metric, what the change does to the user's folder and environment, and the reason named.
CASES = {
    "dynamic import": ("labdyn.py", DYNAMIC, "score", lambda folder, env: (folder / "labhelp.py").write_text("SCALE = 0.5\n"),
                       "labhelp.py changed"),
    "data file": ("labdata.py", DATA, "weighted",
                  lambda folder, env: (folder / "weights.json").write_text('{"w": 0.5}\n'), "weights.json changed"),
    "environment": ("labenv.py", ENVIRONMENT, "gap", lambda folder, env: env.update(GAP_POWER="2"), "GAP_POWER unset -> 2"),
}


def _lab_folder(folder: Path) -> str:
    """The three metrics of :data:`CASES` and what they read, written into ``folder``; their ``--metrics`` list, MIG first."""
    (folder / "labhelp.py").write_text("SCALE = 1.0\n")
    (folder / "weights.json").write_text('{"w": 1.0}\n')
    for file, source, _, _, _ in CASES.values():
        (folder / file).write_text(textwrap.dedent(source))
    return ",".join(["mig", *(f"{file}:{name}" for file, _, name, _, _ in CASES.values())])


def _lab_study(metric_list: str, *options: str) -> list[str]:
    return ["run", "--preset", "quick", "--scenarios", "noise", "--metrics", metric_list, "--seeds", "1",
            "--n-samples", "200", "--out", "runs/x", "--no-report", "--no-progress", *options]


@pytest.mark.slow
def test_what_a_metric_reads_at_run_time_recomputes_exactly_its_cells_names_the_cause_and_fails_the_check(tmp_path):
    # in the run's process (24 cheap cells: --jobs -1 starts no workers); read in workers: the test below
    study = _lab_study(_lab_folder(tmp_path))
    env: dict[str, str] = {}
    assert _harness(*study, cwd=tmp_path).returncode == 0
    assert _harness("baseline", "save", "runs/x", "--to", "base.json", cwd=tmp_path).returncode == 0
    for case, (_, _, name, change, reason) in CASES.items():
        before = pd.read_csv(tmp_path / "runs/x/results.csv")
        change(tmp_path, env)
        rerun = _harness(*study, cwd=tmp_path, env=env)
        assert rerun.returncode == 0, rerun.stderr
        assert "skipping 18 finished cell(s) found in runs/x; computing 6" in rerun.stdout, case
        assert f"recomputing 6 stored cell(s) whose inputs changed: {reason} (6)" in rerun.stdout, case
        after = pd.read_csv(tmp_path / "runs/x/results.csv")
        moved = (before["score"] != after["score"]).to_numpy()
        assert set(after.loc[moved, "metric"]) == {name}, case  # only its cells changed
        check = _harness("baseline", "check", "runs/x", "--against", "base.json", "--metrics", name, cwd=tmp_path, env=env)
        assert check.returncode == 1 and "baseline check FAILED: 6 cells" in check.stdout, case
        assert f"note: metric {name!r} was computed from other inputs than in the baseline: {reason}; drift may be intended" \
            in check.stdout, case
    assert "skipping 24 finished cell(s)" in _harness(*study, cwd=tmp_path, env=env).stdout  # and now nothing is stale


@pytest.mark.slow
def test_what_a_metric_reads_in_worker_processes_recomputes_exactly_its_cells(tmp_path):
    # the reads are recorded where the metric runs, in loky's workers, and sent back with the scores; the three
    # changes at once (each alone, and baseline check's note: the test above)
    study = _lab_study(_lab_folder(tmp_path), "--jobs", "2", "--backend", "loky")
    env: dict[str, str] = {}
    assert _harness(*study, cwd=tmp_path).returncode == 0
    assert _harness("baseline", "save", "runs/x", "--to", "base.json", cwd=tmp_path).returncode == 0
    before = pd.read_csv(tmp_path / "runs/x/results.csv")
    for _, _, _, change, _ in CASES.values():
        change(tmp_path, env)
    rerun = _harness(*study, cwd=tmp_path, env=env)
    assert rerun.returncode == 0, rerun.stderr
    assert "skipping 6 finished cell(s) found in runs/x; computing 18" in rerun.stdout
    reasons = next(line for line in rerun.stdout.splitlines() if line.startswith("recomputing"))
    assert reasons.startswith("recomputing 18 stored cell(s) whose inputs changed: ")
    assert sorted(reasons.split(": ", 1)[1].split("; ")) == sorted(f"{reason} (6)" for *_, reason in CASES.values())
    after = pd.read_csv(tmp_path / "runs/x/results.csv")
    moved = (before["score"] != after["score"]).to_numpy()
    assert set(after.loc[moved, "metric"]) == {name for _, _, name, _, _ in CASES.values()}  # mig's cells kept
    check = _harness("baseline", "check", "runs/x", "--against", "base.json", cwd=tmp_path, env=env)
    assert check.returncode == 1 and "baseline check FAILED: 24 cells" in check.stdout
    for _, _, name, _, reason in CASES.values():  # the reads the workers recorded, named as drift that may be intended
        assert f"note: metric {name!r} was computed from other inputs than in the baseline: {reason}; drift may be " \
               "intended" in check.stdout, name
    assert "skipping 24 finished cell(s)" in _harness(*study, cwd=tmp_path, env=env).stdout


def test_an_edited_user_metric_file_recomputes_its_cells_and_says_why(tmp_path):
    # its file's hash versions it, so the edit gave its cells new keys and the run said nothing of why it recomputed
    from harness.execution.runner import run_study

    metric_file = tmp_path / "mine.py"
    metric_file.write_text("def mine(factors, codes):\n    return 0.5\n")
    study = dict(preset="quick", scenarios_=["noise"], metrics_=["mig", f"{metric_file}:mine"], seeds=1, n_samples=200,
                 out=tmp_path / "run", progress=False)
    run_study(**study, log=lambda _: None)
    metric_file.write_text("def mine(factors, codes):\n    return 0.25\n")
    messages = []
    frame = run_study(**study, log=messages.append)
    reasons = [message for message in messages if message.startswith("recomputing")]
    assert len(reasons) == 1 and re.fullmatch(r"recomputing 6 stored cell\(s\) whose inputs changed: mine\.py changed "
                                              r"\(metric 'mine', version [0-9a-f]{12} -> [0-9a-f]{12}\) \(6\)", reasons[0])
    assert (frame.loc[frame["metric"] == "mine", "score"] == 0.25).all()  # the edited code, not the imported one
    metric_file.write_text("def mine(factors, codes):\n    return 0.125\n")
    in_workers = run_study(**study, jobs=2, log=lambda _: None)  # workers that imported it before import it again
    assert (in_workers.loc[in_workers["metric"] == "mine", "score"] == 0.125).all()


@pytest.mark.slow  # 4 to 6 s: the fast tier reached 293 s of its 5 minutes (stop 67)
def test_an_edited_user_scenario_file_recomputes_its_cells_and_says_why(tmp_path):
    # the scenario's file hash is in its cells' identity, so an edit recomputed them, and the run said nothing of why;
    # in one process (a notebook) the edit was not even seen: the scenario was resolved once, its cells reused
    from harness.execution.runner import run_study

    scenario_file = tmp_path / "myscen.py"
    source = ("from scenarios import describe_scenario\n\n\n"
              "@describe_scenario(parameter='s', values=(0.0, 0.5), ideal={'explicitness': 1.0})\n"
              "def copies(s, n, rng):\n"
              "    factors = rng.random((n, 2))\n"
              "    return factors, factors + s * rng.random((n, 2))\n")
    scenario_file.write_text(source)
    study = dict(preset="quick", scenarios_=[f"{scenario_file}:copies"], metrics_=["mig"], seeds=1, n_samples=200,
                 out=tmp_path / "run", progress=False)
    run_study(**study, log=lambda _: None)
    scenario_file.write_text(source + "# an edit\n")
    messages = []
    run_study(**study, log=messages.append)
    reasons = [message for message in messages if message.startswith("recomputing")]
    assert reasons == ["recomputing 2 stored cell(s) whose inputs changed: myscen.py changed (scenario 'copies'), or a "
                       "user's file moved (2)"]
    first = run_study(**study, log=lambda _: None)
    scenario_file.write_text(source.replace("s * rng", "3 * s * rng"))
    edited = run_study(**study, log=lambda _: None)
    assert (edited["score"].to_numpy() != first["score"].to_numpy()).all()  # drawn anew, by the edited file
