"""Shared fixtures: seeded generators and the representations many tests use."""

from __future__ import annotations

import dataclasses
import fcntl
import re
import signal
from collections.abc import Callable
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")


pytest_plugins = ["pytester"]  # tests/test_suite_tiers.py runs pytest on tests it writes

SLOW_TIER_TIME_LIMIT = 600
"""Seconds a test marked ``slow`` may take (whole studies, README examples, stop/resume runs: harness/README.md, Tests); any other
test may take the ``timeout`` of ``pyproject.toml``."""


MEMORY_ADDRESS = re.compile(r" at 0x[0-9a-f]+")
"""An object's address in its repr (``<function <lambda> at 0x7f...>``): it differs from process to process."""


#: The slow tier's longest tests (1 to 3 minutes each in a fresh clone), handed out first: pytest-xdist gives the
#: workers their tests in collection order, and one of these collected last (the guides' examples, from
#: ``tests/test_readme_examples.py``) ran alone for two minutes at the end of the tier while the other worker idled.
LONGEST_FIRST = (  # longest first, as the fresh clone of 2026-12-02 (71535b1) timed them
    "tests/test_readme_examples.py::test_every_example_runs",
    "tests/harness/test_store.py::test_ctrl_c_or_kill",
    "tests/benchmarks/test_back_to_back.py::test_two_small_studies_back_to_back",
    "tests/reports/test_reports_report.py::test_the_report_does_not_depend_on_the_number_of_workers",
    "tests/harness/test_batch_cluster.py::test_when_the_allocation_ends_mid_run",
    "tests/harness/test_paper_preset.py::test_the_paper_preset_is_estimated",
    "tests/harness/test_stale_cells.py::",
    "tests/harness/test_racing.py::test_racing_keeps_its_error_rate",
)


def _handed_out_at(item: pytest.Item) -> int:
    """Where ``item`` goes in the run's order: the place of its entry in :data:`LONGEST_FIRST`, after them the rest."""
    return next((place for place, prefix in enumerate(LONGEST_FIRST) if item.nodeid.startswith(prefix)), len(LONGEST_FIRST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test marked ``slow`` gets the slow tier's time limit, unless it sets its own with ``@pytest.mark.timeout``;
    the tests of :data:`LONGEST_FIRST` are handed out first.

    A test id holding a memory address is refused: each pytest-xdist worker collects the tests itself, and a run whose
    workers collect different ids fails as a whole ("Different tests were collected between gw1 and gw0"), at random.
    """
    unstable = [item.nodeid for item in items if MEMORY_ADDRESS.search(item.nodeid)]
    if unstable:
        raise pytest.UsageError(f"test ids must not hold a memory address (give the parameters ids): {unstable[0]}")
    for item in items:
        if item.get_closest_marker("slow") is not None and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(SLOW_TIER_TIME_LIMIT))
    items.sort(key=_handed_out_at)  # stable: the rest keep their order, every worker collects the same list


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C raises KeyboardInterrupt, as in a user's shell, also in pytest-xdist's workers (which ignore SIGINT, and
    whose subprocesses would inherit that): the tests of the harness's Ctrl-C handling send it themselves."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def default_preset_without_nulls(request, monkeypatch):
    """The default preset without its permutation nulls, unless a test is marked ``default_nulls``.

    Up to 100 metric calls more per cell, which tripled the suite's time; the tests that are about nulls pass
    ``null_permutations`` themselves or carry the mark, and commands run in a subprocess (the README's examples) keep
    the preset as users get it.
    """
    if request.node.get_closest_marker("default_nulls") is None:
        from harness.execution.presets import PRESETS

        monkeypatch.setitem(PRESETS, "default", dataclasses.replace(PRESETS["default"], null_budget_seconds=0.0))


@pytest.fixture(scope="session")
def fresh_python() -> Callable[[str], str]:
    """``fresh_python(probe)``: run the Python source ``probe`` in a fresh interpreter in the repository (so that it
    imports only what it imports itself), assert that it exits 0 (its stderr as the message), and return its
    stdout."""
    def run(probe: str) -> str:
        import subprocess
        import sys

        done = subprocess.run([sys.executable, "-c", probe], cwd=Path(__file__).resolve().parents[1], capture_output=True,
                              text=True, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run


@pytest.fixture
def one_line_usage_error(capsys) -> Callable[..., str]:
    """``one_line_usage_error(*fragments)``: assert that what the command line just printed is one usage error, as
    the README promises: exactly one line on stderr, ``error: ...``, naming each of ``fragments``, and no traceback;
    return that line."""
    def check(*fragments: str) -> str:
        captured = capsys.readouterr()
        assert captured.err.count("\n") == 1 and captured.err.startswith("error: "), captured.err
        assert "Traceback" not in captured.err + captured.out
        for fragment in fragments:
            assert fragment in captured.err, captured.err
        return captured.err

    return check


@pytest.fixture(scope="session")
def written_once(tmp_path_factory, worker_id) -> Callable[[str, Callable[[Path], object]], Path]:
    """``written_once(name, write)``: a folder that ``write(folder)`` fills once for the whole test run, its path.

    For what many tests only read (a finished run, a report): the pytest-xdist workers share one copy.  The first to
    need it writes it under a lock in the run's common temporary folder; the others wait for it, then read it.  A
    reader must not write into it (copy it to its own ``tmp_path`` first).
    """
    def folder(name: str, write: Callable[[Path], object]) -> Path:
        if worker_id == "master":  # no xdist
            path = tmp_path_factory.mktemp(name)
            write(path)
            return path
        shared = tmp_path_factory.getbasetemp().parent / name
        with open(shared.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            done = shared.with_suffix(".done")  # beside it: a reader may list or copy the folder
            if not done.is_file():
                shared.mkdir(exist_ok=True)
                write(shared)
                done.touch()
        return shared

    return folder


TINY_RUN = ["run", "--preset", "quick", "--no-report", "--no-progress", "--jobs", "1", "--scenarios", "noise", "--seeds",
            "1", "--n-samples", "60", "--metrics", "mig"]
"""The tiny study of :func:`tiny_run`: one seed of ``noise`` at 60 samples, scored by MIG (under a second)."""


@pytest.fixture(scope="session")
def tiny_run_command() -> tuple[str, ...]:
    """The command line of :func:`tiny_run`'s study, without ``--out``."""
    return tuple(TINY_RUN)


@pytest.fixture(scope="session")
def tiny_run(written_once) -> Path:
    """A finished run of :data:`TINY_RUN` (no report), written once for the whole test run and shared by the xdist
    workers: for the tests that only need some run directory or results table.  Read it, never write into it."""
    from harness.cli import main

    def write(out: Path) -> None:
        assert main([*TINY_RUN, "--out", str(out)]) == 0

    return written_once("tiny_run", write)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def uniform_factors_20k() -> np.ndarray:
    """8 factors U(0, 1), N = 20000: the review's protocol (Zaidi et al. 2022, 5.2)."""
    return np.random.default_rng(2022).random((20000, 8))


@pytest.fixture
def fresh_provenance():
    """Provenances of code and libraries computed anew, as by another process (each is cached for the life of a
    process: :mod:`harness.execution.provenance`); call it to clear them again mid-test."""
    from harness.execution import provenance, reads

    def clear() -> None:
        for module in (provenance, reads):
            for value in vars(module).values():
                if hasattr(value, "cache_clear"):
                    value.cache_clear()

    clear()
    yield clear
    clear()
