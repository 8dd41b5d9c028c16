"""What every command shares: the parser class and the argument types.

No command module imports another; they all import this one.
"""

from __future__ import annotations

import argparse

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


def positive_int(text: str) -> int:
    """A whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds, tolerances)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text}")
    return value


def jobs(text: str) -> int:
    """A number of workers >= 1, or -1 for all cores."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of workers, got {text!r}") from None
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(f"expected a number of workers >= 1, or -1 for all cores; got {value}")
    return value


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
