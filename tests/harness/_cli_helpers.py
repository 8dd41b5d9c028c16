"""What the command-line tests of damaged stores, input files and grid values share: the check of a one-line usage
error.  (Their small study and its finished run are the ``tiny_run_command`` and ``tiny_run`` fixtures of
``tests/conftest.py``.)

Not a test module: ``tests/harness/test_store_damage.py``, ``test_input_files.py`` and ``test_grid_values.py`` load it
by its path (pytest imports test files with ``--import-mode=importlib``, so there is no package to import it from) and
bind its names.
"""

from __future__ import annotations


def one_line_usage_error(capsys, *fragments: str) -> None:
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: "), captured.err
    assert "Traceback" not in captured.err + captured.out
    for fragment in fragments:
        assert fragment in captured.err, captured.err
