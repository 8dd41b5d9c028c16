"""Files given to ``evaluate`` and ``baseline``: empty, damaged, with fields of the wrong type, or starting with a
byte-order mark.

Each case is a way such a file once broke a promise of the README: an empty ``.npy``/``.npz`` or a baseline with
fields of the wrong type or nested too deep gave a traceback; a CSV with a byte-order mark lost its first data row.
Each is now a one-line usage error naming the file or what is wrong in it, or read as it was meant.

(Files drawn at random: ``test_parsers_and_loaders.py``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from harness.workflows.baseline_format import FORMAT
from harness.workflows.evaluate import load_array


@pytest.fixture()
def codes_file(tmp_path) -> Path:
    path = tmp_path / "codes.npy"
    np.save(path, np.random.default_rng(0).random((50, 2)))
    return path


@pytest.mark.parametrize("name", ["factors.npy", "factors.npz", "factors.csv"])
def test_an_empty_file_is_a_one_line_usage_error(one_line_usage_error, tmp_path, codes_file, name):
    (tmp_path / name).write_bytes(b"")
    assert main(["evaluate", "--factors", str(tmp_path / name), "--codes", str(codes_file), "--metrics", "mig",
                 "--out", str(tmp_path / "s.csv")]) == 2
    one_line_usage_error(f"factors file '{tmp_path / name}' is empty")


DAMAGED_FILES = [
    ("truncated npy", "f.npy", lambda good: good["npy"][:-7]),
    ("header only npy", "f.npy", lambda good: good["npy"][:20]),
    ("text as npy", "f.npy", lambda good: b"not an array at all\n"),
    ("truncated npz", "f.npz", lambda good: good["npz"][: len(good["npz"]) // 2]),
    ("npz whose member is cut", "f.npz", lambda good: good["npz"][:-30]),
    ("ragged csv", "f.csv", lambda good: b"1,2\n3,4,5\n"),
    ("binary csv", "f.csv", lambda good: bytes(range(256))),
    ("open quote csv", "f.csv", lambda good: b'"1,2\n3,4\n'),
]


@pytest.mark.parametrize(("name", "content"), [d[1:] for d in DAMAGED_FILES], ids=[d[0] for d in DAMAGED_FILES])
def test_a_damaged_file_is_a_one_line_usage_error(one_line_usage_error, tmp_path, name, content):
    good = {"npy": tmp_path / "g.npy", "npz": tmp_path / "g.npz"}
    np.save(good["npy"], np.ones((40, 3)))
    np.savez_compressed(good["npz"], factors=np.arange(120.0).reshape(40, 3))
    path = tmp_path / name
    path.write_bytes(content({kind: file.read_bytes() for kind, file in good.items()}))
    assert main(["evaluate", "--factors", str(path), "--codes", str(good["npy"]), "--metrics", "mig",
                 "--out", str(tmp_path / "s.csv")]) == 2
    one_line_usage_error(str(path))


def test_a_csv_with_a_byte_order_mark_keeps_its_first_row(tmp_path):
    factors = np.random.default_rng(1).random((20, 3))
    text = "\n".join(",".join(repr(float(x)) for x in row) for row in factors) + "\n"
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf" + text.encode())  # as spreadsheet programs write UTF-8
    (tmp_path / "bom_header.csv").write_bytes(b"\xef\xbb\xbfa,b,c\n" + text.encode())
    np.testing.assert_array_equal(load_array(tmp_path / "bom.csv", "factors"), factors)
    np.testing.assert_array_equal(load_array(tmp_path / "bom_header.csv", "factors"), factors)


def test_pandas_default_header_and_row_index_are_not_read_as_data(tmp_path, capsys, codes_file):
    """``DataFrame(array).to_csv(path, index=False)`` writes ``0,1,2`` first: read as a sample it made 401 of 400 and
    moved every score (MIG 0.5597 to 0.5791) with no word; ``to_csv(path)`` also writes the row index first, read as a
    fourth factor (MIG 0.42).  Above whole numbers only, ``0,1`` is as likely a sample: kept, with a note."""
    import pandas as pd

    rng = np.random.default_rng(0)
    factors = rng.random((50, 3))
    pd.DataFrame(factors).to_csv(tmp_path / "plain.csv", index=False)
    pd.DataFrame(factors, columns=["shape", "scale", "pos"]).to_csv(tmp_path / "indexed.csv")
    pd.DataFrame(factors).to_csv(tmp_path / "both.csv")
    for name, said in (("plain.csv", "first row 0,1,2 read as column names"), ("indexed.csv", "read as pandas' row index"),
                       ("both.csv", "read as pandas' row index")):
        notes: list[str] = []
        np.testing.assert_array_equal(load_array(tmp_path / name, "factors", notes), factors)
        assert len(notes) == 1 and said in notes[0], (name, notes)
    whole = rng.integers(0, 3, size=(50, 2)).astype(float)
    pd.DataFrame(whole).to_csv(tmp_path / "whole.csv", index=False)
    notes = []
    read = load_array(tmp_path / "whole.csv", "factors", notes)
    assert read.shape == (51, 2) and read[0].tolist() == [0.0, 1.0]
    assert notes == ["factors file whole.csv: first row 0,1 read as a sample, as every value is a whole number; if it "
                     "names the columns (pandas' default header), write the CSV with header=False"]
    assert main(["evaluate", "--factors", str(tmp_path / "plain.csv"), "--codes", str(codes_file), "--metrics", "mig",
                 "--out", str(tmp_path / "s.csv")]) == 0
    printed = capsys.readouterr().out
    assert "note: factors file plain.csv: first row 0,1,2 read as column names" in printed
    assert "50 samples, 3 factors" in printed


def test_a_short_row_a_damaged_npy_and_scores_as_json_say_what_they_are(one_line_usage_error, tmp_path, codes_file):
    """A short CSV row was reported as "1 non-finite value(s)"; a damaged .npy got numpy's advice to load it as a
    pickle (allow_pickle=True); and the JSON scores kept 10 digits (0.5597417295 of 0.559741729...1)."""
    (tmp_path / "short.csv").write_text("a,b,c\n1,2,3\n4,5\n6,7,8\n")
    with pytest.raises(ValueError, match="line 3 has 2 field"):
        load_array(tmp_path / "short.csv", "factors")
    (tmp_path / "bad.npy").write_text("garbage")
    assert main(["evaluate", "--factors", str(tmp_path / "bad.npy"), "--codes", str(codes_file), "--metrics", "mig",
                 "--out", str(tmp_path / "s.csv")]) == 2
    one_line_usage_error("is not a NumPy array (.npy): it does not start as one")
    factors = np.random.default_rng(3).random((50, 2))
    np.save(tmp_path / "f.npy", factors)
    assert main(["evaluate", "--factors", str(tmp_path / "f.npy"), "--codes", str(codes_file), "--metrics", "mig,sap",
                 "--out", str(tmp_path / "s.json")]) == 0
    assert main(["evaluate", "--factors", str(tmp_path / "f.npy"), "--codes", str(codes_file), "--metrics", "mig,sap",
                 "--out", str(tmp_path / "s.csv")]) == 0
    import pandas as pd

    written = json.loads((tmp_path / "s.json").read_text())
    assert [row["score"] for row in written] == pd.read_csv(tmp_path / "s.csv")["score"].tolist()
    assert all(isinstance(row["higher_is_better"], bool) for row in written)


def _baseline(**header) -> str:
    cell = {"scenario": "noise", "parameter": "alpha", "value": 0.0, "value_label": "0", "n_samples": 60,
            "metric": "mig", "sub_score": "mig", "mean": 0.5, "std": 0.0, "seeds": 1}
    return json.dumps({"format": FORMAT, "harness_versions": ["0.1.0"], "metric_versions": {"mig": "1"},
                       "cells": [cell], **header})


BAD_BASELINES = [
    ("metric versions as a list", _baseline(metric_versions=[1, 2]), '"metric_versions" must map metric names'),
    ("metric versions as text", _baseline(metric_versions="1"), '"metric_versions" must map metric names'),
    ("a numeric metric version", _baseline(metric_versions={"mig": 1}), '"metric_versions" must map metric names'),
    ("harness versions as a number", _baseline(harness_versions=5), '"harness_versions" must be a list'),
    ("harness versions as text", _baseline(harness_versions="0.1.0"), '"harness_versions" must be a list'),
    ("nested too deep", "[" * 100_000 + "]" * 100_000, "nests deeper than a baseline does"),
    ("deep inside a cell", _baseline()[:-3] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}]}",
     "nests deeper than a baseline does"),
    ("empty", "", "is not valid JSON"),
]


@pytest.mark.parametrize(("content", "message"), [b[1:] for b in BAD_BASELINES], ids=[b[0] for b in BAD_BASELINES])
def test_a_baseline_with_fields_of_the_wrong_type_is_a_one_line_usage_error(one_line_usage_error, tiny_run, tmp_path, content,
                                                                             message):
    path = tmp_path / "baseline.json"
    path.write_text(content)
    assert main(["baseline", "check", str(tiny_run), "--against", str(path)]) == 2
    one_line_usage_error(message)


def test_a_baseline_with_a_byte_order_mark_is_read(tiny_run, tmp_path, capsys):
    saved = tmp_path / "saved.json"
    assert main(["baseline", "save", str(tiny_run), "--to", str(saved)]) == 0
    marked = tmp_path / "marked.json"
    marked.write_bytes(b"\xef\xbb\xbf" + saved.read_bytes())
    assert main(["baseline", "check", str(tiny_run), "--against", str(marked)]) == 0
