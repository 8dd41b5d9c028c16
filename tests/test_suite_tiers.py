"""The test suite's two tiers and its time limits (``pyproject.toml``, ``tests/conftest.py``, ``tests/README.md``).

``pytest`` runs the fast tier (every test not marked ``slow``), ``pytest -m slow`` the slow one and ``pytest -m ""``
both; a test that runs past its limit fails with pytest-timeout's message instead of holding the run, and a test marked
``slow`` gets the slow tier's higher limit.  Checked by running pytest, under the project's own configuration, on tests
written here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SLEEPERS = """
import time

import pytest


def test_hangs():
    time.sleep(60)


@pytest.mark.slow
def test_slow_within_its_tier():
    time.sleep(2)
"""


def _with_the_projects_configuration(pytester, name: str = "test_sleepers", source: str = SLEEPERS) -> list[str]:
    """The arguments that make pytest read ``pyproject.toml`` and ``tests/conftest.py`` for the test file ``name``
    (``source``) that ``pytester`` writes."""
    pytester.makeconftest(f"""
import importlib.util

_spec = importlib.util.spec_from_file_location("project_conftest", {str(ROOT / "tests" / "conftest.py")!r})
_project = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_project)
pytest_collection_modifyitems = _project.pytest_collection_modifyitems
""")
    pytester.makepyfile(**{name: source})
    return ["-c", str(ROOT / "pyproject.toml"), "--rootdir", str(pytester.path), "-n", "0", "-p", "no:cacheprovider",
            f"{name}.py"]


def test_the_default_tier_leaves_out_the_tests_marked_slow(pytester):
    result = pytester.runpytest_subprocess(*_with_the_projects_configuration(pytester), "--collect-only", "-q")
    assert "test_sleepers.py::test_hangs" in result.stdout.str()
    assert "test_slow_within_its_tier" not in result.stdout.str()
    result.stdout.fnmatch_lines(["1/2 tests collected (1 deselected)*"])


@pytest.mark.slow  # 6.6 s of pytester runs; the fast tier was 298 s, near its 5 minutes
def test_a_test_past_its_limit_fails_with_pytest_timeouts_message_and_a_slow_one_has_a_higher_limit(pytester):
    # the fast tier's limit lowered to 1 s: the hanging test fails after about 1 s, not 60; the slow test's 2 s are
    # within the slow tier's limit
    result = pytester.runpytest_subprocess(*_with_the_projects_configuration(pytester), "-m", "", "-o", "timeout=1")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*Failed: Timeout (>1.0s) from pytest-timeout.*"])
    assert result.duration < 30


def test_a_test_id_holding_a_memory_address_is_refused_at_collection(pytester):
    # each xdist worker collects for itself: an id with an object's address ("<function <lambda> at 0x7f...>") made
    # the workers' lists differ now and then, and the whole run failed ("Different tests were collected")
    source = "import pytest\n\n\n@pytest.mark.parametrize('f', [lambda: 1], ids=str)\ndef test_f(f):\n    assert f() == 1\n"
    result = pytester.runpytest_subprocess(*_with_the_projects_configuration(pytester, "test_addresses", source))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test ids must not hold a memory address (give the parameters ids): test_addresses.py::test_f*"])


def test_every_test_handed_out_first_still_exists():
    # LONGEST_FIRST names tests by their ids' beginnings: a renamed test would silently drop back to its file's place
    import ast

    root = Path(__file__).resolve().parents[1]
    module = ast.parse((root / "tests" / "conftest.py").read_text(encoding="utf-8"))
    LONGEST_FIRST = next(ast.literal_eval(node.value) for node in module.body  # noqa: N806 - conftest's name
                         if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "LONGEST_FIRST")
    for prefix in LONGEST_FIRST:
        file, _, name = prefix.partition("::")
        assert (root / file).is_file(), prefix
        assert not name or f"def {name}" in (root / file).read_text(encoding="utf-8"), prefix
