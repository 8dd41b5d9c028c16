"""Benchmark: what the provenance in a cell's identity costs a resumed run of the default study.

A resumed ``run`` plans its study, reads the store and looks every cell up before its first new cell.
Since the identity covers the code and libraries that compute a cell (:mod:`harness.execution.provenance`),
planning also walks the imports of every metric's and scenario's module once per process.  Measured here
in one run, CPU seconds, median of ``REPEATS``: the default preset's plan and the lookup of its cells in a
store holding all of them, with the old identity (no provenance: its functions replaced by a constant) and
with the new one computed from cold (its per-process caches cleared, as in a fresh process).

Target (issue 25): resuming stays about as cheap as before: the new identity adds at most
``MAX_ADDED_SECONDS`` CPU seconds (the interpreter's start-up and the harness's imports, ~3 s, come on top
of both).  Run with timing: ``pytest tests/benchmarks/test_bench_cell_identity.py --benchmark-enable -s``.
Under ``--benchmark-disable`` (CI) the body checks the keys of a small plan and that the lookup finds them.
"""

from __future__ import annotations

import json
import statistics
import time
from types import SimpleNamespace

from harness.execution import plan, provenance
from harness.execution.recompute import recompute_reasons
from harness.execution.runner import plan_study
from harness.execution.store import ResultStore

REPEATS = 3
MAX_ADDED_SECONDS = 1.0
ROW = {"study": "default", "scenario": "noise", "parameter": "alpha", "criterion": "noise", "value": 0.2, "value_label": "0.2",
       "seed": 0, "n_samples": 10000, "metric": "mig", "family": "information", "sub_score": "mig",
       "property": "modularity", "higher_is_better": True, "ideal": 1.0, "score": 0.5, "exact": float("nan"), "seconds": 0.01,
       "warnings": 0, "first_warning": "", "metric_version": "1", "harness_version": "0.1.0"}


def _resume(study: dict, directory) -> tuple[float, int]:
    """CPU seconds of what a resumed run does before its first new cell, and how many cells it found pending."""
    started = time.process_time()
    cells = plan_study(**study)
    store = ResultStore(directory)
    records = store.reusable_records()
    pending = [cell for cell in cells if cell.key not in records]
    recompute_reasons(pending, records, store.provenances(), store.stale)
    return time.process_time() - started, len(pending)


def _full_store(directory, keys) -> None:
    directory.mkdir()
    line = json.dumps({"rows": [ROW]})[1:]
    (directory / "cells.jsonl").write_text("".join(f'{{"key": "{key}", {line}\n' for key in keys))


def _measure(study: dict, tmp_path, monkeypatch, fresh_provenance) -> dict[str, float]:
    constant = SimpleNamespace(digest="0" * provenance.DIGEST_LENGTH)
    with monkeypatch.context() as old:  # the identity before provenance: nothing to walk
        old.setattr(plan, "metric_provenance", lambda *_: constant)
        old.setattr(plan, "scenario_provenance", lambda *_: constant)
        _full_store(tmp_path / "old", [cell.key for cell in plan_study(**study)])
        old_seconds = []
        for _ in range(REPEATS):
            seconds, pending = _resume(study, tmp_path / "old")
            assert pending == 0
            old_seconds.append(seconds)
    _full_store(tmp_path / "new", [cell.key for cell in plan_study(**study)])
    new_seconds = []
    for _ in range(REPEATS):
        fresh_provenance()  # as in a fresh process
        seconds, pending = _resume(study, tmp_path / "new")
        assert pending == 0
        new_seconds.append(seconds)
    return {"old_seconds": statistics.median(old_seconds), "new_seconds": statistics.median(new_seconds)}


def test_the_new_identity_keeps_resuming_the_default_study_cheap(benchmark, tmp_path, monkeypatch, fresh_provenance):
    if benchmark.disabled:
        study = dict(preset="quick", scenarios_=["noise"], metrics_=["mig", "sap"], seeds=1)
        figures = _measure(study, tmp_path, monkeypatch, fresh_provenance)  # checks that both stores are found whole
        assert figures["new_seconds"] > 0
        benchmark(lambda: None)
        return
    figures = _measure(dict(preset="default"), tmp_path, monkeypatch, fresh_provenance)
    figures["added_seconds"] = figures["new_seconds"] - figures["old_seconds"]
    benchmark.extra_info.update(figures)
    benchmark.pedantic(lambda: None, rounds=1)
    print(f"\ndefault study, plan + store lookup (CPU s, median of {REPEATS}): old identity {figures['old_seconds']:.3f}, "
          f"new {figures['new_seconds']:.3f}, added {figures['added_seconds']:.3f}")
    assert figures["added_seconds"] <= MAX_ADDED_SECONDS, figures
