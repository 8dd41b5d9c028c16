"""What a process that draws nothing and fits no model imports: neither matplotlib nor scikit-learn.

A worker imports the scoring code and every metric (to find them in the registry); ``list``, ``baseline`` and the
cost model import the registry too.  scikit-learn, SciPy's statistics and matplotlib took about half of each such
process's start (4.9 CPU-s for a worker's imports, 2.6 without them), and a study starts one process per core:
they are imported where a metric fits a model or a report draws.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_importing_the_scoring_code_the_registry_the_analyses_or_the_runner_loads_no_drawing_or_model_library():
    # one process for all four (each alone would load a subset of what they load together)
    probe = ("import sys, harness.execution.scoring, metrics, reports, harness.execution.runner\n"
             "assert len(metrics.available(population=None)) > 25\n"  # every metric registered, none fitted
             "print(sorted(name for name in ('matplotlib', 'sklearn') if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_metric_that_fits_a_model_still_finds_it_and_the_report_its_drawing():
    probe = ("import sys, numpy as np, metrics, reports\n"
             "rng = np.random.default_rng(0); v = rng.random((200, 2))\n"
             "metrics.evaluate('dci_lasso', v, v + 0.01 * rng.random((200, 2)))\n"
             "reports.StyleRegistry\n"
             "print(sorted(name for name in ('matplotlib', 'sklearn') if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['matplotlib', 'sklearn']"
