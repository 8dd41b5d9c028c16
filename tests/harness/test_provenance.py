"""A cell's identity covers the code and libraries that compute it (:mod:`harness.execution.provenance`).

After a library upgrade or an edit of the project code a metric calls, a rerun into the same ``--out`` used
to serve the stored scores; now it recomputes them and says why.  (An edited helper of a user's metric, end
to end: ``test_stale_cells.py``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness.execution import provenance
from harness.execution.plan import key_parts
from harness.execution.runner import plan_study, run_study
from harness.execution.store import PROVENANCE_FILE, ResultStore
from reports.results.schema import TIMING_COLUMNS

ROOT = Path(__file__).resolve().parents[2]

STUDY = dict(preset="quick", scenarios_=["noise"], metrics_=["mig", "dci_lasso"], seeds=1, n_samples=200, progress=False)


@pytest.mark.slow
def test_a_library_upgrade_recomputes_the_cells_that_import_it(tmp_path, fresh_provenance, monkeypatch):
    run_study(**STUDY, out=tmp_path, log=lambda _: None)
    fresh_provenance()
    real = provenance._distribution_versions

    def upgraded(top: str) -> dict[str, str]:
        versions = dict(real(top))
        return {**versions, "scipy": "99.0"} if "scipy" in versions else versions

    monkeypatch.setattr(provenance, "_distribution_versions", upgraded)
    lines: list[str] = []
    run_study(**STUDY, out=tmp_path, log=lines.append)
    scipy = real("scipy")["scipy"]
    # the scenario imports numpy, which does not require scipy; mig imports scipy, dci_lasso imports scikit-learn, which does
    assert f"recomputing 12 stored cell(s) whose inputs changed: scipy {scipy} -> 99.0 (12)" in lines
    stored = ResultStore(tmp_path).provenances()
    assert {found.libraries.get("scipy") for found in stored.values()} >= {scipy, "99.0"}


@pytest.mark.slow
def test_an_edit_of_the_shared_code_a_metric_calls_recomputes_that_metric_only(tmp_path, fresh_provenance, monkeypatch):
    run_study(**STUDY, out=tmp_path, log=lambda _: None)
    fresh_provenance()
    real = provenance._file_facts.__wrapped__
    edited = ROOT / "metrics" / "information.py"

    def facts(path: Path):
        digest, imports = real(path)
        return ("0" * 16 if path == edited else digest), imports

    monkeypatch.setattr(provenance, "_file_facts", facts)
    lines: list[str] = []
    run_study(**STUDY, out=tmp_path, log=lines.append)
    assert "skipping 6 finished cell(s) found in " + str(tmp_path) + "; computing 6" in lines  # dci_lasso's cells stay
    assert "recomputing 6 stored cell(s) whose inputs changed: metrics/information.py changed (6)" in lines


def test_the_walk_finds_the_code_and_libraries_each_metric_and_scenario_runs():
    mig = provenance.metric_provenance("mig", True)
    assert {"metrics/mig.py", "metrics/information.py", "metrics/evaluation.py", "harness/execution/seeds.py"} <= set(mig.files)
    assert "metrics/sap.py" not in mig.files and "scikit-learn" not in mig.libraries
    assert "metrics/_knn.py" in provenance.metric_provenance("unibound", True).files
    forest = provenance.metric_provenance("dci_rf", True).libraries
    import importlib.metadata

    for name in ("scikit-learn", "numpy", "scipy", "joblib", "threadpoolctl"):  # its requirements come along
        assert forest[name] == importlib.metadata.version(name)
    assert forest["python"] == __import__("platform").python_version()
    # the attack scenario is built in its own module from the Gaussian toy model's functions
    attack = provenance.scenario_provenance("synergy_attack").files
    assert {"scenarios/synergy_attack.py", "scenarios/gaussian_toy.py", "scenarios/_attacks.py"} <= set(attack)
    composed = provenance.scenario_provenance("redundancy_attack@noise=0.2").files
    assert {"scenarios/noise.py", "scenarios/transforms.py", "scenarios/composition.py"} <= set(composed)


def test_a_user_file_brings_its_helpers_and_relative_imports_and_missing_modules(tmp_path, monkeypatch):
    package = tmp_path / "labpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text("from . import constants\n\ndef helper():\n    import numpy\n")
    (package / "constants.py").write_text("K = 1\n")
    (tmp_path / "lab.py").write_text("from labpkg import helpers\ntry:\n    import not_a_real_module\nexcept ImportError:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = provenance._provenance((tmp_path / "lab.py",))
    assert set(found.files) == {"lab.py", "labpkg/helpers.py", "labpkg/constants.py"}
    assert found.libraries["numpy"] == np.__version__ and found.libraries["not_a_real_module"] == "not installed"


def test_the_store_names_every_provenance_its_keys_hold(tmp_path, fresh_provenance):
    run_study(**STUDY, out=tmp_path, log=lambda _: None)
    known = json.loads((tmp_path / PROVENANCE_FILE).read_text())
    for key in ResultStore(tmp_path).records():
        identity, digests = key_parts(key)
        assert len(identity) == 24 and digests is not None and set(digests) <= set(known)
    keys = {cell.key for cell in plan_study(**{k: v for k, v in STUDY.items() if k != "progress"})}
    assert keys == set(ResultStore(tmp_path).records())  # the same code plans the same keys


@pytest.mark.slow
def test_recompute_replaces_the_stored_cells(tmp_path):
    first = run_study(**STUDY, out=tmp_path, log=lambda _: None)
    lines: list[str] = []
    again = run_study(**STUDY, out=tmp_path, recompute=True, log=lines.append)
    assert "recomputing 12 stored cell(s) as asked (--recompute)" in lines
    assert len((tmp_path / "cells.jsonl").read_text().splitlines()) == 24  # appended again, the last record wins
    assert len(ResultStore(tmp_path).records()) == 12
    pd.testing.assert_frame_equal(again.drop(columns=list(TIMING_COLUMNS)), first.drop(columns=list(TIMING_COLUMNS)))  # same code, same scores


def test_git_commit_is_none_without_git(monkeypatch):
    monkeypatch.setenv("PATH", "")
    assert provenance.git_commit() is None


@pytest.mark.slow
def test_cells_stored_before_keys_held_their_provenance_are_recomputed_saying_so(tmp_path):
    run_study(**STUDY, out=tmp_path, log=lambda _: None)
    store = tmp_path / "cells.jsonl"
    records = [json.loads(line) for line in store.read_text().splitlines()]
    store.write_text("".join(json.dumps({**record, "key": key_parts(record["key"])[0]}) + "\n" for record in records))
    lines: list[str] = []
    run_study(**STUDY, out=tmp_path, log=lines.append)
    assert lines[0] == ("recomputing 12 stored cell(s) whose inputs changed: stored by an earlier harness, "
                        "which did not record them (12)")
