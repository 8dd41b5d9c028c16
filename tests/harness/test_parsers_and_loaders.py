"""The command line's parsers and the loaders of its files, given random text and files (property-based).

Whatever a user types or points the harness at, the outcome is one of: success; a usage error, which on the
command line is exactly one line on stderr and exit status 2; or failed cells (exit status 1, the run's one
warning line or the score table's FAILED rows).  Never a traceback, never a hang.  Hypothesis draws the inputs:
random text and bytes, and near-valid ones (numbers written every way, ``-0``, ``1e400``, byte-order marks, damaged
archives and store lines), where the bugs were.

The examples are derandomised (the same on every run, so CI is reproducible) and few per test: the whole file
takes well under a minute.  ``HYPOTHESIS_PROFILE=thorough`` draws many more, at random.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import signal
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from harness.cli import build_parser, main
from harness.errors import UsageError
from harness.execution.store import ResultStore, tables_of
from harness.workflows.baseline import load_baseline
from harness.workflows.baseline_format import FORMAT
from harness.workflows.evaluate import load_array, parse_discrete
from reports.results.schema import RESULT_COLUMNS, TEXT_COLUMNS

settings.register_profile("ci", derandomize=True, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("thorough", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
FEW = 1000 if PROFILE == "thorough" else None  # None: the examples each test asks for


def _examples(count: int) -> settings:
    return settings(settings.get_profile(PROFILE), max_examples=FEW or count)


class Hung(BaseException):
    """A call did not return within its time: a hang (a BaseException, so that nothing under test swallows it)."""


@contextmanager
def _within(seconds: float) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise Hung(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _cli(argv: list[str], seconds: float = 60) -> tuple[int, str, str]:
    """``python -m harness ARGV`` in process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with _within(seconds), redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _assert_contract(argv: list[str], seconds: float = 60) -> int:
    """Run ``argv``; assert the outcome is success, a one-line usage error or failed cells; return the status."""
    status, out, err = _cli(argv, seconds)
    event(f"exit status {status}: {err[:60]}")
    assert "Traceback" not in out + err, (argv, err)
    assert status in (0, 1, 2), (argv, status, err)
    if status == 2:
        assert err.count("\n") == 1 and err.startswith("error: "), (argv, err)
    if status == 1:  # failed cells: the run's warning, or evaluate's FAILED rows; never an internal error
        assert "cell(s) failed" in err or "FAILED" in out, (argv, out, err)
    return status


# ----------------------------------------------------------------------------------
# strategies
# ----------------------------------------------------------------------------------

#: Numbers written every way a user might, and the values that broke something once.
NUMBER_WORDS = ["0", "-0", "-0.0", "0.0", "+0", "1", "2", "0.5", "5e-1", ".5", "1e400", "-1e400", "1e-400", "nan", "NaN",
                "inf", "-inf", "200000", "1_000", "\u0663", "9" * 40, "0x10", "1/2", "True", "null", "[]", "{}", "",
                " ", "\ufeff1", "cos_sin", "duplicate_2", "[" * 3000]
#: Values a grid of the scenarios below takes, mostly in range.
PLAUSIBLE = st.one_of(st.floats(0, 1).map(repr), st.integers(1, 8).map(str), st.sampled_from(["0", "-0.0", "0.5", ".25",
                                                                                              "cos_sin", "duplicate_2"]))
WORDS = st.one_of(st.sampled_from(NUMBER_WORDS), st.floats().map(repr), st.integers(-10**6, 10**6).map(str),
                  st.text(max_size=12), PLAUSIBLE, PLAUSIBLE)
#: Text without digits, for counts (a random run of digits could ask for a study of billions of cells).
NO_DIGITS = st.text(alphabet=st.characters(blacklist_categories=("Nd",)), max_size=8)
VALID_SCENARIOS = ["noise", "mixing", "partial", "categorical", "modular_not_compact", "udr_population",
                   "redundancy_attack@noise=0.2", "noise@mixing=-0.0"]
SCENARIOS = st.one_of(st.sampled_from(VALID_SCENARIOS), st.sampled_from(VALID_SCENARIOS),
                      st.sampled_from(["sample_size", "partial@noise=9", "noize", "noise=0.2", ""]), st.text(max_size=10))
VALID_METRICS = ["mig", "modularity", "sap", "udr", "mig_sup"]
METRICS = st.one_of(st.sampled_from(VALID_METRICS), st.sampled_from(VALID_METRICS),
                    st.sampled_from(["mig[bins=5]", "mgi", "", "x.py:f", "no_such_module_xyz:f"]), st.text(max_size=10))
OPTIONS = st.one_of(st.sampled_from(["bins", "bins", "normalization", "random_state", "estimator", "", "scale"]),
                    st.text(max_size=6))


def _mostly(valid: st.SearchStrategy, other: st.SearchStrategy) -> st.SearchStrategy:
    """``valid`` three times in four, else ``other``: every part of a command line must be valid for it to run."""
    return st.one_of(valid, valid, valid, other)


def _csv(items: list[str]) -> str:
    return ",".join(items)


def _user_metrics(directory: Path) -> list[str]:
    """References to user metrics that misbehave in every way covered (written into ``directory``)."""
    (directory / "user_metrics.py").write_text(
        "import sys\n"
        "def fine(factors, codes, scale=1.0):\n    return float(abs(codes[:, 0].mean())) * 0 + 0.5\n"
        "def exits(factors, codes, scale=1.0):\n    sys.exit(3)\n"
        "def interrupts(factors, codes, scale=1.0):\n    raise KeyboardInterrupt\n"
        "def mutates(factors, codes, scale=1.0):\n    codes *= scale\n    return 0.5\n"
        "def nan(factors, codes, scale=1.0):\n    return float('nan')\n"
        "def words(factors, codes, scale=1.0):\n    return {'a': 'high'}\n"
    )
    (directory / "exits_at_import.py").write_text("import sys\nsys.exit(5)\n")
    (directory / "broken.py").write_text("def f(factors, codes):\n    return (\n")
    module = directory / "user_metrics.py"
    return [f"{module}:{name}" for name in ("fine", "exits", "interrupts", "mutates", "nan", "words", "absent")] + [
        f"{directory / 'exits_at_import.py'}:f", f"{directory / 'broken.py'}:f", f"{directory / 'missing.py'}:f"]


@pytest.fixture(scope="module")
def user_metrics(tmp_path_factory) -> list[str]:
    return _user_metrics(tmp_path_factory.mktemp("user_metrics"))


# ----------------------------------------------------------------------------------
# every argument type of every command
# ----------------------------------------------------------------------------------

def _argument_types() -> list[tuple[str, Any]]:
    """(``command option``, type function) for every option of every command that converts its text."""
    found = []
    parser = build_parser()
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    pending = list(commands.choices.items())
    while pending:
        name, command = pending.pop()
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):  # baseline save|check
                pending.extend((f"{name} {sub}", parser) for sub, parser in action.choices.items())
            elif callable(action.type) and action.type not in (str, Path):
                found.append((f"{name} {'/'.join(action.option_strings) or action.dest}", action.type))
    return sorted(found, key=lambda item: item[0])


ARGUMENT_TYPES = _argument_types()


def test_the_argument_types_were_found():
    assert len(ARGUMENT_TYPES) >= 20
    assert {"run --grid", "run --metric-option", "evaluate --seed", "validate --probe"} <= {n for n, _ in ARGUMENT_TYPES}


@pytest.mark.parametrize("convert", [t for _, t in ARGUMENT_TYPES], ids=[n for n, _ in ARGUMENT_TYPES])
@_examples(30)
@given(text=st.one_of(WORDS, st.lists(WORDS, max_size=4).map(_csv),
                      st.builds("{}={}".format, SCENARIOS, st.lists(WORDS, max_size=4).map(_csv)),
                      st.builds("{}:{}={}".format, METRICS, OPTIONS, st.lists(WORDS, max_size=4).map(_csv))))
def test_every_argument_type_converts_or_refuses_with_a_message(convert, text):
    # argparse turns ArgumentTypeError, ValueError and TypeError into a usage error; anything else was a traceback.
    with _within(10):
        try:
            value = convert(text)
        except (argparse.ArgumentTypeError, ValueError, TypeError) as error:
            assert str(error).strip(), text
            return
    for number in _numbers_in(value):  # a value that passes is canonical: never -0.0
        assert not (number == 0 and math.copysign(1.0, number) < 0), (text, value)


def _numbers_in(value: Any) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, (list, tuple)):
        return [number for item in value for number in _numbers_in(item)]
    return []


@_examples(150)
@given(text=st.one_of(WORDS, st.lists(WORDS, max_size=5).map(_csv)), factors=st.integers(1, 6))
def test_discrete_flags_parse_or_refuse_with_a_usage_error(text, factors):
    try:
        flags = parse_discrete(text, factors)
    except UsageError:
        return
    assert len(flags) == factors and all(isinstance(flag, bool) for flag in flags)


# ----------------------------------------------------------------------------------
# the command line: planning a study from random selections (run --dry-run), and running a few
# ----------------------------------------------------------------------------------

@_examples(60)
@given(data=st.data())
def test_planning_a_study_from_random_selections_succeeds_or_is_a_one_line_usage_error(user_metrics, tmp_path_factory,
                                                                                      data):
    draw = data.draw
    metric_names = _mostly(st.sampled_from(VALID_METRICS), st.one_of(METRICS, st.sampled_from(user_metrics)))
    scenario_names = draw(st.lists(_mostly(st.sampled_from(VALID_SCENARIOS), SCENARIOS), min_size=1, max_size=3))
    metric_list = draw(st.lists(metric_names, min_size=1, max_size=3))
    argv = ["run", "--dry-run", "--preset", draw(_mostly(st.just("quick"), st.sampled_from(["huge", ""]))),
            "--no-progress", "--scenarios", _csv(scenario_names), "--metrics", _csv(metric_list)]
    for _ in range(draw(st.integers(0, 2))):  # mostly for a scenario of the study, which alone takes a grid
        scenario = draw(_mostly(st.sampled_from(scenario_names), SCENARIOS))
        argv += ["--grid", f"{scenario}={_csv(draw(st.lists(_mostly(PLAUSIBLE, WORDS), min_size=1, max_size=4)))}"]
    for _ in range(draw(st.integers(0, 2))):
        metric = draw(_mostly(st.sampled_from(metric_list), metric_names))
        values = draw(st.lists(_mostly(st.integers(2, 30).map(str), WORDS), min_size=1, max_size=3))
        argv += ["--metric-option", f"{metric}:{draw(OPTIONS)}={_csv(values)}"]
    argv += ["--seeds", draw(_mostly(st.integers(1, 3).map(str), st.one_of(st.integers(-2, 0).map(str), NO_DIGITS))),
             "--n-samples", draw(_mostly(st.integers(50, 10**12).map(str), st.one_of(st.integers(-5, 49).map(str),
                                                                                   NO_DIGITS)))]
    _assert_contract(argv + ["--out", str(tmp_path_factory.mktemp("plan"))])


@_examples(12)
@given(values=st.lists(st.one_of(st.floats(0, 1).map(repr), st.sampled_from(["0", "-0.0", ".5", "1"]), WORDS), min_size=1,
                       max_size=3, unique=True), metric=st.sampled_from(["mig", "fine", "exits", "interrupts",
                                                                               "mutates", "nan", "words"]))
def test_running_random_grids_and_misbehaving_metrics_succeeds_fails_cells_or_is_a_usage_error(
        user_metrics, tmp_path_factory, values, metric):
    reference = metric if metric == "mig" else next(ref for ref in user_metrics if ref.endswith(f":{metric}"))
    argv = ["run", "--preset", "quick", "--no-report", "--no-progress", "--jobs", "1", "--scenarios", "noise",
            "--metrics", f"{reference},mig", "--seeds", "1", "--n-samples", "30", "--grid", f"noise={_csv(values)}",
            "--out", str(tmp_path_factory.mktemp("run"))]
    status = _assert_contract(argv)
    assert status == 2 or (status == 0) == (metric in ("mig", "fine")), (argv, status)


# ----------------------------------------------------------------------------------
# files: arrays for evaluate, baselines, the store
# ----------------------------------------------------------------------------------

def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _npz(arrays: dict[str, np.ndarray], compressed: bool) -> bytes:
    buffer = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buffer, **arrays)
    return buffer.getvalue()


#: Rows of the codes file that ``evaluate`` is given with each drawn factors file.
CODES_ROWS = 6
ARRAYS = st.one_of(
    st.builds(lambda rows, columns, seed: np.random.default_rng(seed).random((rows, columns)),
              st.integers(0, 8), st.integers(0, 4), st.integers(0, 3)),
    st.builds(lambda columns, seed: np.random.default_rng(seed).integers(0, 3, (CODES_ROWS, columns)).astype(float),
              st.integers(1, 3), st.integers(0, 3)),
    st.sampled_from([np.array(3.0), np.zeros((2, 2, 2)), np.array(["a", "b"]), np.array([1 + 2j, 3j]),
                     np.array([[np.nan, 1.0], [2.0, 3.0]]), np.zeros((3, 2), dtype=[("a", float), ("b", int)]),
                     np.array([True, False, True]), np.full((4, 2), 1e200), np.arange(6, dtype=np.int8)]),
)


def _damaged(data: bytes, cut: int, flips: list[tuple[int, int]]) -> bytes:
    """``data`` cut after ``cut`` bytes (when shorter than it) with some bytes replaced."""
    damaged = bytearray(data[:cut] if 0 <= cut < len(data) else data)
    for position, byte in flips:
        if damaged:
            damaged[position % len(damaged)] = byte
    return bytes(damaged)


CELLS = st.one_of(st.sampled_from(NUMBER_WORDS), st.floats().map(repr), st.text(max_size=6))
CSV_TEXT = st.builds(lambda rows, bom, end: ("\ufeff" if bom else "") + end.join(",".join(row) for row in rows),
                     st.lists(st.lists(CELLS, min_size=1, max_size=4), max_size=6), st.booleans(),
                     st.sampled_from(["\n", "\r\n", "\r"]))
CSV_NUMBERS = st.builds(lambda rows, bom, header: ("\ufeff" if bom else "") + ("a,b\n" if header else "") + "\n".join(
    ",".join(repr(float(x)) for x in row) for row in rows) + "\n",
    st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(-1e3, 1e3)), min_size=CODES_ROWS, max_size=CODES_ROWS),
    st.booleans(), st.booleans())
FLIPS = st.lists(st.tuples(st.integers(0, 10**4), st.integers(0, 255)), max_size=3)
NPZ = st.builds(_npz, st.dictionaries(st.sampled_from(["factors", "codes", "x"]), ARRAYS, min_size=1, max_size=2),
                st.booleans())
#: (suffix, content) of a file: well-formed (of any array), damaged, or any bytes under any name.
FILES = st.one_of(
    st.tuples(st.just(".npy"), ARRAYS.map(_npy)),
    st.tuples(st.just(".npz"), NPZ),
    st.tuples(st.just(".csv"), CSV_NUMBERS.map(str.encode)),
    st.tuples(st.just(".npy"), st.builds(_damaged, ARRAYS.map(_npy), st.integers(-1, 200), FLIPS)),
    st.tuples(st.just(".npz"), st.builds(_damaged, NPZ, st.integers(-1, 600), FLIPS)),
    st.tuples(st.just(".csv"), CSV_TEXT.map(lambda text: text.encode("utf-8", "surrogatepass"))),
    st.tuples(st.sampled_from([".npy", ".npz", ".csv"]),
              st.one_of(st.binary(max_size=300), ARRAYS.map(_npy), NPZ, CSV_NUMBERS.map(str.encode))),
)


@_examples(200)
@given(file=FILES, key=st.sampled_from(["", ":codes", ":x"]))
def test_loading_any_file_gives_a_finite_matrix_or_a_usage_error(tmp_path_factory, file, key):
    suffix, content = file
    path = tmp_path_factory.mktemp("load") / f"array{suffix}"
    path.write_bytes(content)
    try:
        with _within(10):
            matrix = load_array(f"{path}{key if suffix == '.npz' else ''}", "factors")
    except UsageError as error:
        assert str(error).strip()
        return
    assert matrix.ndim == 2 and matrix.dtype == np.float64 and matrix.shape[0] >= 2 and np.isfinite(matrix).all()


@pytest.fixture(scope="module")
def codes_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("codes") / "codes.npy"
    np.save(path, np.random.default_rng(0).random((CODES_ROWS, 2)))
    return path


@_examples(25)
@given(file=FILES, discrete=st.sampled_from([[], [], ["--discrete", "0"], ["--discrete", "x"]]))
def test_evaluating_any_file_succeeds_fails_a_metric_or_is_a_one_line_usage_error(tmp_path_factory, codes_file, file,
                                                                                  discrete):
    suffix, content = file
    directory = tmp_path_factory.mktemp("evaluate")
    (directory / f"factors{suffix}").write_bytes(content)
    _assert_contract(["evaluate", "--factors", str(directory / f"factors{suffix}"), "--codes", str(codes_file),
                      "--metrics", "mig,modularity,sap", *discrete, "--out", str(directory / "scores.csv")])


JSON = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                    max_leaves=10)
BASELINE_CELL = {"scenario": "noise", "parameter": "alpha", "value": 0.0, "value_label": "0", "n_samples": 30,
                 "metric": "mig", "sub_score": "mig", "mean": 0.5, "std": 0.0, "seeds": 1}
BASELINE_FIELDS = ["format", "harness_versions", "metric_versions", "studies", "cells"]


def _baseline_text(changes: list[tuple[str, str, Any]], deep: int, bom: bool) -> str:
    """A valid baseline with fields replaced (``("header", field, value)`` or ``("cell", field, value)``)."""
    document: dict[str, Any] = {"format": FORMAT, "harness_versions": ["0.1.0"], "metric_versions": {"mig": "1"},
                                "studies": ["quick"], "cells": [dict(BASELINE_CELL)]}
    for where, field, value in sorted(changes, key=lambda change: change[0] == "header"):  # the cell's, then the header's
        (document if where == "header" else document["cells"][0])[field] = value
    text = json.dumps(document)
    if deep:
        text = text[:-1] + ', "deep": ' + "[" * deep + "]" * deep + "}"
    return ("\ufeff" if bom else "") + text


BASELINE_TEXT = st.one_of(
    st.builds(_baseline_text, st.lists(st.one_of(st.tuples(st.just("header"), st.sampled_from(BASELINE_FIELDS), JSON),
                                                 st.tuples(st.just("cell"), st.sampled_from(list(BASELINE_CELL)), JSON)),
                                       max_size=3),
              st.sampled_from([0, 0, 50, 100_000]), st.booleans()),
    JSON.map(json.dumps),
    st.text(max_size=50),
)


@_examples(150)
@given(text=BASELINE_TEXT)
def test_loading_any_baseline_gives_a_baseline_or_a_usage_error(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("baseline") / "baseline.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        with _within(10):
            baseline = load_baseline(path)
    except UsageError as error:
        assert str(error).strip()
        return
    assert len(baseline.cells) >= 1 and all(isinstance(v, str) for v in baseline.metric_versions.values())


@_examples(10)
@given(text=BASELINE_TEXT)
def test_checking_against_any_baseline_is_a_verdict_or_a_one_line_usage_error(tiny_run, tmp_path_factory, text):
    path = tmp_path_factory.mktemp("check") / "baseline.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    status, out, err = _cli(["baseline", "check", str(tiny_run), "--against", str(path)])
    assert "Traceback" not in out + err and status in (0, 1, 2), err
    assert status != 2 or (err.count("\n") == 1 and err.startswith("error: ")), err


def _with_damage(lines: list[bytes], damage: list[tuple[int, Any]]) -> tuple[list[bytes], set[int]]:
    """``lines`` with each damaged line replaced (the last damage drawn for a line wins), and the damaged indices."""
    damaged = list(lines)
    for index, line in dict(damage).items():
        damaged[index] = _damage_record(lines[index], *line) if isinstance(line, tuple) else line.replace(b"\n", b" ")
    return damaged, set(dict(damage))


def _damage_record(line: bytes, where: str, field: str, value: Any, drop: bool) -> bytes:
    record = json.loads(line)
    target = record if where == "record" else record["rows"][0]
    if drop:
        target.pop(field, None)
    else:
        target[field] = value
    return json.dumps(record, allow_nan=True).encode()


STORE_LINES = st.one_of(
    st.binary(max_size=80),
    JSON.map(lambda value: json.dumps(value, allow_nan=True).encode()),
    st.tuples(st.sampled_from(["record", "row"]), st.sampled_from(["key", "rows", "failure", *RESULT_COLUMNS]), JSON,
              st.booleans()),
    st.just(b"[" * 100_000),
)


@_examples(60)
@given(damage=st.lists(st.tuples(st.integers(0, 5), STORE_LINES), min_size=1, max_size=3))
def test_a_store_with_damaged_lines_yields_only_whole_records(tiny_run, tmp_path_factory, damage):
    lines, damaged_at = _with_damage((tiny_run / "cells.jsonl").read_bytes().splitlines(), damage)
    out = tmp_path_factory.mktemp("store")
    (out / "cells.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    with _within(10):
        records = ResultStore(out).records()
        table, failures = tables_of(records)
    assert len(records) >= 6 - len(damaged_at)
    assert np.isfinite(table["score"].to_numpy(dtype=float)).all() and len(failures) == 0
    assert all(record["rows"] for record in records.values())
    for column in TEXT_COLUMNS:
        assert table[column].map(type).eq(str).all() and not table[column].isin(["nan", "None"]).any(), column


@_examples(6)
@given(damage=st.lists(st.tuples(st.integers(0, 5), STORE_LINES), min_size=1, max_size=2))
def test_resuming_over_a_damaged_store_recomputes_what_was_damaged(tiny_run_command, tiny_run, tmp_path_factory, damage):
    original = (tiny_run / "cells.jsonl").read_bytes().splitlines()
    lines, damaged = _with_damage(original, damage)
    out = tmp_path_factory.mktemp("resume")
    (out / "cells.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    assert _assert_contract([*tiny_run_command, "--out", str(out)]) == 0
    table = pd.read_csv(out / "results.csv", dtype={column: str for column in TEXT_COLUMNS}, keep_default_na=False)
    assert len(table) == 6 and np.isfinite(table["score"]).all()  # no cell vanished, none is NaN
    records = ResultStore(out).records()
    for index, line in enumerate(original):  # every cell is there; those not damaged are reused as they were
        record = json.loads(line)
        assert record["key"] in records
        if index not in damaged:
            assert records[record["key"]] == record


def test_the_damaged_archives_are_damaged():  # the strategy above makes what it claims to
    good = _npz({"factors": np.ones((3, 2))}, compressed=True)
    with pytest.raises(zipfile.BadZipFile):
        zipfile.ZipFile(io.BytesIO(_damaged(good, len(good) // 2, [])))
