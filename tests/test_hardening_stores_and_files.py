"""Hardened against damaged stores, malformed files and values written two ways.

Each case is a way such input once broke a promise of the README: a line of ``cells.jsonl`` that looked whole
(``"rows": [1, 2]``, a NaN score, no rows and no failure) gave a traceback, a NaN in ``results.csv`` or a vanished
cell; an empty ``.npy``/``.npz`` or a baseline with fields of the wrong type or nested too deep gave a traceback; a
CSV with a byte-order mark lost its first data row; ``--grid noise=-0.0,0`` made two cells of one value and
``--grid sample_size=200000`` passed the range check, then failed inside the scenario.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import scenarios
from harness.cli import main
from harness.execution.scenario_refs import scenario_for
from harness.execution.store import ResultStore
from harness.workflows.baseline_format import FORMAT
from harness.workflows.evaluate import load_array
from harness.workflows.stress_space import parameter_range
from reports.schema import TIMING_COLUMNS
from scenarios.transforms import available_transforms

RUN = ["run", "--preset", "quick", "--no-report", "--no-progress", "--jobs", "1", "--scenarios", "noise", "--seeds", "1",
       "--n-samples", "60", "--metrics", "mig"]


def _one_line_usage_error(capsys, *fragments: str) -> None:
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: "), captured.err
    assert "Traceback" not in captured.err + captured.out
    for fragment in fragments:
        assert fragment in captured.err, captured.err


# ----------------------------------------------------------------------------------
# damaged store lines that look whole
# ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("finished")
    assert main([*RUN, "--out", str(out)]) == 0
    return out


def _damaged(run: Path, tmp_path: Path, damage) -> Path:
    out = tmp_path / "damaged"
    out.mkdir()
    lines = (run / "cells.jsonl").read_text().splitlines()
    record = json.loads(lines[2])
    damage(record)
    lines[2] = json.dumps(record)
    (out / "cells.jsonl").write_text("\n".join(lines) + "\n")
    return out


def _set(field, value):
    return lambda record: record["rows"][0].__setitem__(field, value)


DAMAGES = [
    ("rows of numbers", lambda record: record.__setitem__("rows", [1, 2])),
    ("a NaN score", _set("score", float("nan"))),
    ("an infinite score", _set("score", float("inf"))),
    ("a text score", _set("score", "0.5")),
    ("no rows and no failure", lambda record: record.__setitem__("rows", [])),
    ("a row missing its score", lambda record: record["rows"][0].pop("score")),
    ("a fractional seed", _set("seed", 0.5)),
    ("a boolean seed", _set("seed", False)),
    ("a numeric metric name", _set("metric", 7)),
    ("a direction in words", _set("higher_is_better", "yes")),
    ("rows and a failure", lambda record: record.__setitem__("failure", {"error": "x"})),
    ("a failure missing its error", lambda record: record.update(rows=[], failure={"metric": "mig"})),
    ("a null failure", lambda record: record.__setitem__("failure", None)),
]


@pytest.mark.parametrize("damage", [d[1] for d in DAMAGES], ids=[d[0] for d in DAMAGES])
def test_a_damaged_line_that_looks_whole_is_recomputed(finished_run, tmp_path, capsys, damage):
    out = _damaged(finished_run, tmp_path, damage)
    assert len(ResultStore(out).records()) == 5  # the damaged line is not reused
    capsys.readouterr()
    assert main([*RUN, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "skipping 5 finished cell(s)" in captured.out and "computing 1" in captured.out
    assert f"note: 1 damaged line(s) of {out / 'cells.jsonl'} were ignored" in captured.out
    assert "Traceback" not in captured.err + captured.out
    expected = pd.read_csv(finished_run / "results.csv").drop(columns=list(TIMING_COLUMNS))
    pd.testing.assert_frame_equal(pd.read_csv(out / "results.csv").drop(columns=list(TIMING_COLUMNS)), expected)


def test_a_line_nested_deeper_than_the_parser_allows_is_damaged_not_fatal(finished_run, tmp_path):
    out = tmp_path / "deep"
    out.mkdir()
    lines = (finished_run / "cells.jsonl").read_bytes().splitlines(keepends=True)
    (out / "cells.jsonl").write_bytes(b"".join(lines[:3]) + b"[" * 100_000 + b"]" * 100_000 + b"\n" + b"".join(lines[3:]))
    assert len(ResultStore(out).records()) == 6


# ----------------------------------------------------------------------------------
# files given to evaluate and baseline
# ----------------------------------------------------------------------------------

@pytest.fixture()
def codes_file(tmp_path) -> Path:
    path = tmp_path / "codes.npy"
    np.save(path, np.random.default_rng(0).random((50, 2)))
    return path


@pytest.mark.parametrize("name", ["factors.npy", "factors.npz", "factors.csv"])
def test_an_empty_file_is_a_one_line_usage_error(tmp_path, codes_file, capsys, name):
    (tmp_path / name).write_bytes(b"")
    assert main(["evaluate", "--factors", str(tmp_path / name), "--codes", str(codes_file), "--metrics", "mig",
                 "--out", str(tmp_path / "s.csv")]) == 2
    _one_line_usage_error(capsys, f"factors file '{tmp_path / name}' is empty")


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
def test_a_damaged_file_is_a_one_line_usage_error(tmp_path, capsys, name, content):
    good = {"npy": tmp_path / "g.npy", "npz": tmp_path / "g.npz"}
    np.save(good["npy"], np.ones((40, 3)))
    np.savez_compressed(good["npz"], factors=np.arange(120.0).reshape(40, 3))
    path = tmp_path / name
    path.write_bytes(content({kind: file.read_bytes() for kind, file in good.items()}))
    assert main(["evaluate", "--factors", str(path), "--codes", str(good["npy"]), "--metrics", "mig",
                 "--out", str(tmp_path / "s.csv")]) == 2
    _one_line_usage_error(capsys, str(path))


def test_a_csv_with_a_byte_order_mark_keeps_its_first_row(tmp_path):
    factors = np.random.default_rng(1).random((20, 3))
    text = "\n".join(",".join(repr(float(x)) for x in row) for row in factors) + "\n"
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf" + text.encode())  # as spreadsheet programs write UTF-8
    (tmp_path / "bom_header.csv").write_bytes(b"\xef\xbb\xbfa,b,c\n" + text.encode())
    np.testing.assert_array_equal(load_array(tmp_path / "bom.csv", "factors"), factors)
    np.testing.assert_array_equal(load_array(tmp_path / "bom_header.csv", "factors"), factors)


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
def test_a_baseline_with_fields_of_the_wrong_type_is_a_one_line_usage_error(finished_run, tmp_path, capsys, content,
                                                                             message):
    path = tmp_path / "baseline.json"
    path.write_text(content)
    assert main(["baseline", "check", str(finished_run), "--against", str(path)]) == 2
    _one_line_usage_error(capsys, message)


def test_a_baseline_with_a_byte_order_mark_is_read(finished_run, tmp_path, capsys):
    saved = tmp_path / "saved.json"
    assert main(["baseline", "save", str(finished_run), "--to", str(saved)]) == 0
    marked = tmp_path / "marked.json"
    marked.write_bytes(b"\xef\xbb\xbf" + saved.read_bytes())
    assert main(["baseline", "check", str(finished_run), "--against", str(marked)]) == 0


# ----------------------------------------------------------------------------------
# values: one value, one spelling; a declared range is a range that can be drawn
# ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("values", "shown"), [("-0.0,0", "-0.0 and 0"), ("0,0.0", "0 and 0.0"), ("0,-0", "0 and -0"),
                                               ("0.5,5e-1", "0.5 and 5e-1")])
def test_a_grid_value_written_two_ways_is_refused_as_given_twice(tmp_path, capsys, values, shown):
    # -0.0,0 made two cells labelled -0 and 0 of the same data, while 0,0.0 was refused.
    assert main([*RUN, "--grid", f"noise={values}", "--out", str(tmp_path / "run")]) == 2
    _one_line_usage_error(capsys, f"'noise={values}' lists one value twice: {shown}")


def test_minus_zero_is_zero_wherever_it_is_written(tmp_path):
    assert main([*RUN, "--grid", "noise=-0.0,0.5", "--out", str(tmp_path / "run")]) == 0
    table = pd.read_csv(tmp_path / "run" / "results.csv", dtype={"value_label": str})
    assert table["value_label"].tolist() == ["0", "0.5"] and str(table["value"].iloc[0]) == "0.0"
    assert scenarios.get("noise").label(-0.0) == "0" and str(scenarios.get("noise").check_value(-0.0)) == "0.0"
    assert main([*RUN, "--scenarios", "redundancy_attack@noise=-0.0", "--grid", "redundancy_attack@noise=0=0",
                 "--out", str(tmp_path / "composed")]) == 0
    assert set(pd.read_csv(tmp_path / "composed" / "results.csv")["scenario"]) == {"redundancy_attack@noise=0"}


def test_a_sample_size_beyond_the_draw_is_refused_up_front_with_the_real_range(tmp_path, capsys):
    argv = ["run", "--preset", "quick", "--no-report", "--no-progress", "--scenarios", "sample_size", "--metrics", "mig",
            "--seeds", "1", "--grid", "sample_size=200000", "--out", str(tmp_path / "run")]
    assert main(argv) == 2
    _one_line_usage_error(capsys, "grid of scenario 'sample_size': n must be an integer in 2..100000, got 200000")


def _range_ends(name: str) -> tuple:
    """The ends of the range scenario ``name``'s check states when it refuses a huge value (``alpha must be in
    [0, 1000]``, ``an integer in 2..100000``); for a check that states none (a composition bounded by its base's
    factor or code count), the ends the stress search finds by asking the check, and a choice parameter's choices."""
    scenario = scenario_for(name)
    try:
        scenario.check_value(10**400)
    except (TypeError, ValueError) as error:
        message = str(error)
    else:
        raise AssertionError(f"{name} accepts 10**400")
    interval = re.search(r"in \[(\S+), (\S+)\]", message) or re.search(r"integer in (\d+)\.\.(\d+)", message)
    if interval:
        integral = all(isinstance(value, int) for value in scenario.values)
        return tuple((int if integral else float)(end) for end in interval.groups())
    return parameter_range(name).ends


@pytest.mark.parametrize("name", scenarios.available(kind=None) + [f"{t}@noise=0.5" for t in available_transforms()])
def test_every_scenario_draws_at_both_ends_of_the_range_it_states(name):
    # A range check saying 2.. accepted values (sample_size=200000) that the scenario then failed to draw.
    scenario = scenario_for(name)
    for end in _range_ends(name):
        drawn = scenario.generate(scenario.check_value(end), n=scenario.default_n or max(scenario.min_samples, 50), seed=0)
        arrays = [drawn.factors, *getattr(drawn, "members", [getattr(drawn, "codes", None)])]
        assert all(np.isfinite(array).all() for array in arrays), (name, end)
