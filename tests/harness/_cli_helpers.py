"""What the command-line tests of damaged stores, input files and grid values share: a small study (one seed of
``noise`` at 60 samples, scored by MIG), the check of a one-line usage error, and a finished run of that study.

Not a test module: ``tests/harness/test_store_damage.py``, ``test_input_files.py`` and ``test_grid_values.py`` load it
by its path (pytest imports test files with ``--import-mode=importlib``, so there is no package to import it from) and
bind its names; ``finished_run`` is a fixture, run once per module that uses it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main

RUN = ["run", "--preset", "quick", "--no-report", "--no-progress", "--jobs", "1", "--scenarios", "noise", "--seeds", "1",
       "--n-samples", "60", "--metrics", "mig"]


def one_line_usage_error(capsys, *fragments: str) -> None:
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: "), captured.err
    assert "Traceback" not in captured.err + captured.out
    for fragment in fragments:
        assert fragment in captured.err, captured.err


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("finished")
    assert main([*RUN, "--out", str(out)]) == 0
    return out
