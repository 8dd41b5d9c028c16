"""What every command shares: the parser class and the argument types.

No command module imports another; they all import this one.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable

from harness.errors import UsageError


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one-line :class:`~harness.errors.UsageError`s, not a usage dump."""

    def error(self, message: str) -> None:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def csv_list(text: str) -> list[str]:
    """``"a, b,c"`` -> ``["a", "b", "c"]``; an empty list is an error."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list of names")
    return items


def _number(text: str, convert: type, accept: Callable[[float], bool], expected: str) -> Any:
    """``text`` converted by ``convert`` when ``accept`` holds; otherwise an argparse error naming ``expected``."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not accept(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text}")
    return value


def positive_int(text: str) -> int:
    """A whole number >= 1."""
    return _number(text, int, lambda value: value >= 1, "a whole number >= 1")


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds, tolerances)."""
    return _number(text, float, lambda value: 0 < value < float("inf"), "a finite number > 0")


def jobs(text: str) -> int:
    """A number of workers >= 1, or -1 for all cores."""
    return _number(text, int, lambda value: value >= 1 or value == -1, "a number of workers >= 1, or -1 for all cores")


def grid(text: str) -> tuple[str, list[int | float | str]]:
    """``"mixing=0.1,0.45"`` -> ``("mixing", [0.1, 0.45])``: a scenario's parameter values.

    Each value is read as an integer, else a number, else kept as text (a categorical value such as
    ``cos_sin``); a number written as Python writes a float (``repr``) is read back exactly.
    """
    scenario, sep, values = text.partition("=")
    if not sep or not scenario.strip():
        raise argparse.ArgumentTypeError(f"expected SCENARIO=V1,V2,... such as mixing=0.1,0.45, got {text!r}")
    items = [item.strip() for item in values.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"no values after {scenario.strip()}= in {text!r}")
    return scenario.strip(), [_grid_value(item) for item in items]


def _grid_value(text: str) -> int | float | str:
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            continue
    return text


def study_options(args: argparse.Namespace) -> dict[str, Any]:
    """What :func:`add_study_selection` parsed, as keyword arguments of ``run_study`` (less ``metrics_``)."""
    return dict(scenarios_=args.scenarios, seeds=args.seeds, n_samples=args.n_samples, jobs=args.jobs,
                cell_timeout=args.cell_timeout)


def add_study_selection(parser: argparse.ArgumentParser, *, metrics_help: str) -> None:
    """The options that choose a study's cells: --scenarios, --metrics, --seeds, --n-samples, --jobs, --cell-timeout."""
    parser.add_argument("--scenarios", type=csv_list, help="comma-separated scenario names (default: the preset's)")
    parser.add_argument("--metrics", type=csv_list, help=metrics_help)
    parser.add_argument("--seeds", type=positive_int, help="independent draws per parameter value (default: the preset's)")
    parser.add_argument("--n-samples", type=positive_int, help="samples per representation (default: the preset's)")
    parser.add_argument(
        "--jobs", type=jobs, default=-1,
        help="parallel worker processes, -1 for all cores (default: %(default)s); scores do not depend on it",
    )
    parser.add_argument(
        "--cell-timeout", type=positive_float, metavar="SECONDS",
        help="stop a metric call that runs longer than this and record its cell as failed (default: no limit)",
    )
