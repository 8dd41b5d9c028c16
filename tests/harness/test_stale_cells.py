"""A stored score is never served stale: an edited helper of a user's metric recomputes its cells.

A user metric ``labmetric.py:score`` importing a helper ``labconf.py``, run into ``--out``: after a constant
in ``labconf.py`` changed, the rerun skipped every cell ("skipping 12 finished cell(s) ...; computing 0") and
``baseline check`` against the first run's baseline passed, while the same study in a fresh folder drifted.
Driven through the command line, in the user's folder, as the user runs it.
"""

from __future__ import annotations

import os
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


def _harness(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "harness", *argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


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
    assert "recomputing 6 stored cell(s) whose code or libraries changed: labconf.py changed (6)" in rerun.stdout
    after = pd.read_csv(tmp_path / "runs/x/results.csv")
    mine = (before["metric"] == "score").to_numpy()
    np.testing.assert_allclose(after.loc[mine, "score"], 0.5 * before.loc[mine, "score"], rtol=1e-12)
    np.testing.assert_array_equal(after.loc[~mine, "score"], before.loc[~mine, "score"])

    check = _harness("baseline", "check", "runs/x", "--against", "base.json", cwd=tmp_path)
    assert check.returncode == 1 and "baseline check FAILED: 12 cells (6 ok, 6 drifted)" in check.stdout
