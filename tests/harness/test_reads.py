"""What a metric reads as it runs is recorded in the worker (:mod:`harness.execution.reads`): a module loaded with
``importlib.import_module`` and a data file opened for reading, not code, files written or the kernel's files."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from harness.execution import provenance
from harness.execution.read_audit import recording
from harness.execution.reads import Reads, reads_provenance, recorded


def test_a_dynamic_import_and_a_data_file_are_recorded_and_nothing_else(tmp_path, monkeypatch):
    (tmp_path / "lab_dynamic_helper.py").write_text("SCALE = 2.0\n")
    (tmp_path / "weights.json").write_text('{"w": 1}')
    monkeypatch.syspath_prepend(str(tmp_path))

    def metric() -> float:
        helper = importlib.import_module("lab_dynamic_helper")
        weight = json.loads((tmp_path / "weights.json").read_text())["w"]
        (tmp_path / "log.txt").write_text("written, not read")
        Path("/proc/self/status").read_text()
        return helper.SCALE * weight

    with recording("lab.py:metric"):
        assert metric() == 2.0
    found = recorded("lab.py:metric", "lab.py")
    assert found == Reads(("lab_dynamic_helper",), (str(tmp_path / "weights.json"),))
    assert recorded("another.py:metric") == Reads()  # recorded for its own reference only
    with recording("lab.py:metric"):  # a later call, the module cached: what the first recorded stays
        metric()
    assert recorded("lab.py:metric") == found


def test_what_the_reads_hold_beyond_the_key_names_the_changed_file(tmp_path, monkeypatch, fresh_provenance):
    data = tmp_path / "weights.json"
    data.write_text('{"w": 1}')
    monkeypatch.chdir(tmp_path)
    covered = provenance.metric_provenance("mig", True)
    found = Reads(("metrics.information", "numpy"), (str(data),))
    kept, held = reads_provenance(found, covered)
    assert kept == Reads((), (str(data),))  # mig's key covers its imports already
    data.write_text('{"w": 2}')
    fresh_provenance()
    assert provenance.changes(held, reads_provenance(found, covered)[1]) == ["weights.json changed"]
    data.unlink()
    fresh_provenance()
    assert provenance.changes(held, reads_provenance(found, covered)[1]) == ["weights.json changed"]


def test_installation_metadata_is_not_a_data_file(tmp_path):
    # an editable install keeps its .egg-info in the checkout: scikit-learn reads its entry_points.txt on a first call,
    # which named a hash of the harness's own metadata in every baseline of a DCI metric
    from harness.execution.read_audit import _is_data

    for folder in ("pkg.egg-info", "pkg-1.0.dist-info"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "entry_points.txt").write_text("[x]\n")
        assert not _is_data(str(tmp_path / folder / "entry_points.txt"))
    (tmp_path / "weights.json").write_text("{}")
    assert _is_data(str(tmp_path / "weights.json"))


def test_a_module_entered_under_a_bare_name_is_recorded_by_its_own_and_one_without_a_spec_not_at_all(monkeypatch):
    # as importing scipy.stats enters scipy.ndimage._ni_label as "_ni_label" too (a name no later process can import:
    # recorded, it made every resumed run recompute the cell), and Cython makes "cython_runtime" with no spec
    import sys
    import types

    import scipy.ndimage._ni_label as compiled

    def metric() -> None:  # the entries are gone again after the test
        monkeypatch.setitem(sys.modules, "_lab_bare_alias", compiled)
        monkeypatch.setitem(sys.modules, "_lab_made_at_run_time", types.ModuleType("_lab_made_at_run_time"))

    with recording("bare.py:metric"):
        metric()
    assert recorded("bare.py:metric") == Reads(("scipy",), ())  # the library, by its top-level package
    assert provenance.classified("scipy")[0] == "libraries"
