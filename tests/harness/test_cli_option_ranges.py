"""Every numeric option of ``plot``, ``report``, ``evaluate`` and ``baseline check``, given any number (property-based).

A value out of the option's range is exactly one line on stderr and exit status 2, naming the option, before any work;
a value in range is accepted: the commands that are quick on tiny inputs (``plot``, ``baseline check``, ``evaluate``
with a few permutations) run with it and succeed, the others (``report``, a costly ``--permutations``) are only parsed.
Never a traceback.  Hypothesis draws numbers written every way (``nan``, ``1e400``, ``-0``, huge integers, floats
near the bounds); the examples are derandomised and few, so the file takes seconds.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from harness.cli import build_parser, main
from harness.cli.plot import FONT_SIZE_RANGE, WIDTH_RANGE
from harness.workflows.baseline import save_baseline

EXAMPLES = settings(max_examples=8, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

#: Numbers as a user may type them, and those at and around every bound below.
NUMBERS = st.one_of(
    st.sampled_from(["nan", "-nan", "inf", "-inf", "1e400", "-1e400", "1e-400", "-0", "-0.0", "0", "0.01", "0.999",
                     "1", "-1", "-2", "2", "3.99", "4", "24", "24.01", "16.5", "16.51", "99", "1000", "1_000", " 5",
                     "5.0", "1e3", "0x10", "", "big", "9" * 30]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(-30, 30).map(repr),
    st.integers(-3, 30).map(str),
    st.integers(-10**12, 10**12).map(str),
)


def _number(text: str, convert: type) -> float | None:
    try:
        return convert(text)
    except ValueError:
        return None


def whole(least: int, *, also: tuple[int, ...] = ()) -> Callable[[str], bool]:
    """A whole number >= ``least`` (or one of ``also``)."""
    def legal(text: str) -> bool:
        value = _number(text, int)
        return value is not None and (value >= least or value in also)
    return legal


def real(low: float, high: float = math.inf) -> Callable[[str], bool]:
    """A finite number in [low, high]."""
    def legal(text: str) -> bool:
        value = _number(text, float)
        return value is not None and math.isfinite(value) and low <= value <= high
    return legal


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def inputs(tiny_run, tmp_path_factory) -> dict[str, Path]:
    """A finished run, its baseline, a factors and a codes file, and a folder for the figures."""
    folder = tmp_path_factory.mktemp("option_ranges")
    save_baseline(tiny_run, folder / "baseline.json")
    rng = np.random.default_rng(0)
    factors = rng.random((60, 2))
    np.save(folder / "factors.npy", factors)
    np.save(folder / "codes.npy", factors + 0.1 * rng.standard_normal((60, 2)))
    return {"run": tiny_run, "baseline": folder / "baseline.json", "factors": folder / "factors.npy",
            "codes": folder / "codes.npy", "out": folder}


COMMANDS = {
    "plot": lambda d: ["plot", str(d["run"]), "--out", str(d["out"] / "figure.png")],
    "report": lambda d: ["report", str(d["run"]), "--out", str(d["out"] / "report")],
    "evaluate": lambda d: ["evaluate", "--factors", str(d["factors"]), "--codes", str(d["codes"]), "--metrics", "mig",
                           "--out", str(d["out"] / "scores.csv"), "--force"],  # every example writes the same file
    "baseline": lambda d: ["baseline", "check", str(d["run"]), "--against", str(d["baseline"])],
}

#: (command, option, what is legal, whether a legal value is run: else only parsed).
OPTIONS = [
    ("plot", "--width", real(*WIDTH_RANGE), lambda text: True),
    ("plot", "--font-size", real(*FONT_SIZE_RANGE), lambda text: True),
    ("plot", "--ncols", whole(1), lambda text: True),
    ("report", "--jobs", whole(1, also=(-1,)), lambda text: False),
    ("evaluate", "--seed", whole(0), lambda text: True),
    ("evaluate", "--permutations", whole(0), lambda text: int(text) <= 20),
    ("baseline", "--atol", real(0), lambda text: True),
    ("baseline", "--rtol", real(0), lambda text: True),
    ("baseline", "--sigmas", real(0), lambda text: True),
    ("baseline", "--max-rows", whole(0), lambda text: True),
]


#: The argument types of numeric options (a new one must join :data:`OPTIONS`).
NUMERIC_TYPES = {"positive_int", "non_negative_int", "positive_float", "non_negative_float", "fraction", "jobs",
                 "_width", "_font_size"}


def test_every_numeric_option_of_these_commands_is_covered():
    parser = build_parser()
    commands = next(action for action in parser._actions if action.dest == "command").choices
    check = next(action for action in commands["baseline"]._actions if action.dest == "action").choices["check"]
    parsers = {"plot": commands["plot"], "report": commands["report"], "evaluate": commands["evaluate"], "baseline": check}
    found = {(name, action.option_strings[0]) for name, parser in parsers.items() for action in parser._actions
             if action.option_strings and getattr(action.type, "__name__", "") in NUMERIC_TYPES}
    assert found == {(command, option) for command, option, _, _ in OPTIONS}


@pytest.mark.parametrize(("command", "option", "legal", "runs"), OPTIONS, ids=[f"{c} {o}" for c, o, _, _ in OPTIONS])
@EXAMPLES
@given(text=NUMBERS)
def test_a_number_out_of_range_is_one_line_and_exit_2_and_one_in_range_is_taken(inputs, command, option, legal, runs,
                                                                                 text):
    argv = [*COMMANDS[command](inputs), f"{option}={text}"]
    event("in range" if legal(text) else "out of range")
    if legal(text) and not runs(text):
        build_parser().parse_args(argv)  # accepted, not run (a whole report; a costly null)
        return
    status, out, err = _cli(argv)
    assert "Traceback" not in out + err, (argv, err)
    if legal(text):
        assert status == 0, (argv, err)
    else:
        assert status == 2 and err.count("\n") == 1 and err.startswith("error: "), (argv, status, err)
        assert f"argument {option}" in err, err


@EXAMPLES
@given(atol=NUMBERS, rtol=st.one_of(st.none(), NUMBERS))
def test_a_metric_tolerance_out_of_range_is_one_line_and_exit_2(inputs, atol, rtol):
    value = atol if rtol is None else f"{atol},{rtol}"
    status, out, err = _cli([*COMMANDS["baseline"](inputs), f"--metric-tolerance=mig={value}"])
    assert "Traceback" not in out + err
    if real(0)(atol) and (rtol is None or real(0)(rtol)):
        assert status == 0, err
    else:
        assert status == 2 and err.count("\n") == 1 and "argument --metric-tolerance" in err, err
