"""What every command shares: the parser class and the argument types.

No command module imports another; they all import this one.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Sequence
from typing import Any

from harness.errors import UsageError, did_you_mean
from harness.execution.option_values import option_value


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one-line :class:`~harness.errors.UsageError`s, not a usage dump."""

    def error(self, message: str) -> None:
        raise UsageError(f"{self.prog}: {_with_suggestion(message)} (see {self.prog} --help)")


def _with_suggestion(message: str) -> str:
    """argparse's ``invalid choice: 'valdate' (choose from 'run', ...)`` with the closest choices suggested."""
    invalid = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if invalid is None:
        return message
    choices = [choice.strip().strip("'") for choice in invalid.group(2).split(",")]  # quoted before Python 3.12.8
    hint = did_you_mean([invalid.group(1)], choices)
    return message[:invalid.end(1) + 1] + hint + message[invalid.end(1) + 1:]


def csv_list(text: str) -> list[str]:
    """``"a, b,c"`` -> ``["a", "b", "c"]``; an empty list is an error.

    A comma inside brackets does not split: ``mig[bins=5,normalization=code]`` is one name (a variant of an
    option sweep over two options).
    """
    items = [item.strip() for item in re.split(r",(?![^\[\]]*\])", text) if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError("expected a comma-separated list of names")
    return items


def _number(text: str, convert: type, accept: Callable[[float], bool], expected: str) -> Any:
    """``text`` converted by ``convert`` when ``accept`` holds; otherwise an argparse error naming ``expected``."""
    try:
        value = convert(text) + 0  # -0.0 is 0.0
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not accept(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text}")
    return value


def positive_int(text: str) -> int:
    """A whole number >= 1."""
    return _number(text, int, lambda value: value >= 1, "a whole number >= 1")


def at_least(minimum: int) -> Callable[[str], int]:
    """The argument type of a whole number >= ``minimum`` (``--seeds`` of ``stress``: 2, for a spread over seeds)."""
    def whole_number(text: str) -> int:
        return _number(text, int, lambda value: value >= minimum, f"a whole number >= {minimum}")

    return whole_number


def non_negative_int(text: str) -> int:
    """A whole number >= 0 (seeds)."""
    return _number(text, int, lambda value: value >= 0, "a whole number >= 0")


def positive_float(text: str) -> float:
    """A finite number > 0 (seconds, tolerances)."""
    return _number(text, float, lambda value: 0 < value < float("inf"), "a finite number > 0")


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (tolerances)."""
    return _number(text, float, lambda value: 0 <= value < float("inf"), "a finite number >= 0")


def fraction(text: str) -> float:
    """A number in [0, 1] (a share)."""
    return _number(text, float, lambda value: 0 <= value <= 1, "a number in [0, 1]")


def jobs(text: str) -> int:
    """A number of workers >= 1, or -1 for all cores."""
    return _number(text, int, lambda value: value >= 1 or value == -1, "a number of workers >= 1, or -1 for all cores")


def figure_formats(text: str) -> tuple[str, ...]:
    """``"svg,pdf"`` -> ``("png", "svg", "pdf")``: the report's figure formats (:func:`reports.rendering.figures.figure_formats`;
    the PNG always, as the pages show it); an unknown one is an error naming the legal ones."""
    from reports.rendering.figures import figure_formats as checked

    try:
        return checked(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def colours(text: str) -> dict[str, str]:
    """``"mig=#000000,dci_lasso=tab:orange"`` or a file of such pairs -> metric -> hex colour
    (:func:`reports.rendering.style.parse_colours`); a pair without ``=`` or an unknown colour is an error naming it."""
    from reports.rendering.style import parse_colours

    try:
        return parse_colours(text)
    except (ValueError, OSError, UnicodeDecodeError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None


#: ``--colors``'s help, the same on ``report`` and ``plot``.
COLOURS_HELP = ("fixed colours of metrics in every figure, METRIC=COLOUR pairs (mig=#000000,dci_lasso=#E69F00; any "
                "matplotlib colour) or a file of them, one pair a line, lines starting with # ignored (it may name metrics the run lacks, but not "
                "names that are no metric); a metric not named keeps the colour the run gives it, the same in the "
                "report and in every plot of the run, unless a fixed colour takes it in a panel they share")


#: ``--figure-formats``'s help, the same on ``run`` and ``report``.
FIGURE_FORMATS_HELP = ("comma-separated formats of the report's figures, among png, svg and pdf (default: png; the "
                       "PNG is always written, as report.html and report.md show it), e.g. png,svg,pdf for a paper")


Values = list[int | float | str]


def grid(text: str) -> tuple[str, Values | dict[str, Values]]:
    """``"mixing=0.1,0.45"`` -> ``("mixing", [0.1, 0.45])``: a scenario's parameter values; ``"S=A:1,2;B:3,4"`` ->
    ``("S", {"A": [1, 2], "B": [3, 4]})``: a sweep over two axes (:mod:`harness.execution.sweeps`).

    The values follow the last ``=``, so a composed scenario's name keeps its own
    (``redundancy_attack@noise=0.1=0,2`` is ``redundancy_attack@noise=0.1`` at 0 and 2).  Each value is
    read as an integer, else a number, else kept as text (a categorical value such as ``cos_sin``); a
    number written as Python writes a float (``repr``) is read back exactly.
    """
    scenario, sep, values = text.rpartition("=")
    if not sep or not scenario.strip():
        raise argparse.ArgumentTypeError(f"expected SCENARIO=V1,V2,... such as mixing=0.1,0.45, or "
                                         f"SCENARIO=AXIS:V1,V2;AXIS:V1,V2 for two parameters, got {text!r}")
    if ";" in scenario and ":" not in values:  # 'noise=0.1;mixing=0.2': two scenarios' grids in one --grid
        parts = [part.strip() for part in text.split(";") if part.strip()]
        raise argparse.ArgumentTypeError(f"{text!r} gives several scenarios' values in one --grid; give each its own: "
                                         + " ".join(f"--grid {part}" for part in parts))
    if ":" not in values:
        return scenario.strip(), _grid_values(text, values, f"{scenario.strip()}=")
    axes: dict[str, Values] = {}
    for part in values.split(";"):
        axis, colon, listed_values = part.partition(":")
        if not colon or not axis.strip():
            raise argparse.ArgumentTypeError(f"expected AXIS:V1,V2 between the ';' of {text!r}, got {part.strip()!r} "
                                             "(e.g. dense_mixing@equicorrelated=kappa:1,10;rho:0,0.5)")
        if axis.strip() in axes:
            raise argparse.ArgumentTypeError(f"{text!r} gives axis {axis.strip()} twice")
        axes[axis.strip()] = _grid_values(text, listed_values, f"{axis.strip()}:")
    if len(axes) > 2:
        raise argparse.ArgumentTypeError(f"{text!r} names {len(axes)} axes ({', '.join(axes)}); a sweep has at most two")
    return scenario.strip(), axes


def _grid_values(text: str, values: str, after: str) -> Values:
    """The comma-separated values of a grid (or of one of its axes), parsed; none or one given twice is an error."""
    items = [item.strip() for item in values.split(",") if item.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"no values after {after} in {text!r}")
    parsed = [_grid_value(item) for item in items]
    _refuse_repeats(text, items, parsed)
    return parsed


def add_grid(parser: argparse.ArgumentParser) -> None:
    """``--grid SCENARIO=V1,V2,...`` (repeatable): parameter values replacing a scenario's grid (``run``, ``validate``),
    or ``SCENARIO=AXIS:V1,V2;AXIS:V1,V2``: a sweep of two parameters."""
    parser.add_argument(
        "--grid", type=grid, action="append", metavar="SCENARIO=V1,V2,...",
        help="run these values of SCENARIO's parameter instead of its grid (repeatable, one per scenario), e.g. "
        "--grid mixing=0.1,0.45; replays a recipe of 'stress'. Two parameters: SCENARIO=AXIS:V1,V2;AXIS:V1,V2, "
        "the scenario's parameter crossed with n_samples (--grid 'null_gaussian=width_ratio:1,16;n_samples:50,1000') "
        "or, for a composition named with its base value left free (TRANSFORM@BASE, in --scenarios too), with the "
        "base's parameter (--grid 'dense_mixing@equicorrelated=kappa:1,10,100;rho:0,0.5,0.9'); an axis left out runs "
        "its default grid",
    )


def grids(given: Sequence[tuple[str, Values | dict[str, Values]]] | None) -> dict[str, Values | dict[str, Values]] | None:
    """Repeated ``--grid`` values as one mapping scenario -> values (None when none); a scenario given twice is an
    error."""
    if not given:
        return None
    found: dict[str, Values | dict[str, Values]] = {}
    for scenario, values in given:
        if scenario in found:
            raise UsageError(f"--grid {scenario}= given twice; list all its values in one --grid")
        found[scenario] = values
    return found


def _grid_value(text: str) -> int | float | str:
    for convert in (int, float):
        try:
            return convert(text) + 0  # -0.0 is 0.0: the same value, written 0
        except ValueError:
            continue
    return text


def _refuse_repeats(text: str, items: Sequence[str], values: Sequence[Any]) -> None:
    """Refuse a list that gives one value twice, however written (``0,0.0``, ``-0.0,0``, ``5,5.0``): each value is
    one cell or one variant, and twice would plan the same ones twice."""
    seen: dict[Any, str] = {}
    for item, value in zip(items, values):
        same = value if isinstance(value, (int, float)) and not isinstance(value, bool) else ("text", repr(value))
        if same in seen:  # numbers compare by value (0 == 0.0 == -0.0, with one hash), anything else by its repr
            twice = f"the value {item} twice" if seen[same] == item else f"one value twice: {seen[same]} and {item}"
            raise argparse.ArgumentTypeError(f"{text!r} lists {twice}")
        seen[same] = item


def study_options(args: argparse.Namespace) -> dict[str, Any]:
    """What :func:`add_study_selection` parsed, as keyword arguments of ``run_study`` (less ``metrics_``)."""
    return dict(scenarios_=args.scenarios, seeds=args.seeds, min_seeds=args.min_seeds, max_seeds=args.max_seeds,
                budget_seconds=args.budget_seconds, n_samples=args.n_samples, jobs=args.jobs,
                cell_timeout=args.cell_timeout, metric_options=option_sweeps(args.metric_option))


def metric_option(text: str) -> tuple[str, str, list[Any]]:
    """``METRIC:NAME=V1,V2,...`` -> ``(METRIC, NAME, [V1, V2, ...])``; METRIC may be a ``file.py:function`` reference."""
    left, sep, values = text.partition("=")
    metric, colon, name = left.rpartition(":")
    items = [item.strip() for item in values.split(",") if item.strip()]
    if not sep or not colon or not metric.strip() or not name.strip() or not items:
        raise argparse.ArgumentTypeError(f"expected METRIC:OPTION=VALUE[,VALUE...] such as mig:bins=5,20, got {text!r}")
    parsed = [option_value(item) for item in items]
    _refuse_repeats(text, items, parsed)
    return metric.strip(), name.strip(), parsed


def option_sweeps(options: Sequence[tuple[str, str, list[Any]]] | None) -> dict[str, dict[str, list[Any]]]:
    """Repeated ``--metric-option`` values as metric -> option -> values; an option given twice is an error."""
    sweeps: dict[str, dict[str, list[Any]]] = {}
    for metric, name, values in options or ():
        if name in sweeps.setdefault(metric, {}):
            raise UsageError(f"--metric-option gives {metric}:{name} twice; list all its values in one: {metric}:{name}=V1,V2")
        sweeps[metric][name] = values
    return sweeps


#: What the workers drawing a report's figures import before the first one comes
#: (:func:`harness.execution.backends.report_workers`).
REPORT_IMPORTS = ("reports.report",)
JOBS_HELP = ("parallel worker processes (for the cells, then the report's figures; none with --backend "
             "sequential), -1 for all cores, or none where the cells (the figures) are too few to repay starting them (default: "
             "%(default)s); scores do not depend on it")
CELL_TIMEOUT_HELP = ("stop a metric call that runs longer than this and record its cell as failed; a rerun computes "
                     "it again (default: no limit; each call runs in a forked child: not with --backend threading)")


def add_study_selection(parser: argparse.ArgumentParser, *, metrics_help: str, jobs_help: str = JOBS_HELP,
                        cell_timeout_help: str = CELL_TIMEOUT_HELP) -> None:
    """The options that choose a study's cells: --scenarios, --metrics, --metric-option, --seeds, --n-samples, --jobs,
    --cell-timeout (a command without figures or backends words the last two its own way)."""
    parser.add_argument(
        "--scenarios", type=csv_list,
        help="comma-separated scenario names, compositions TRANSFORM@BASE=VALUE (e.g. redundancy_attack@noise=0.2; "
        "transforms: see list) or your own as path/to/file.py:name or package.module:name (default: the preset's)",
    )
    parser.add_argument("--metrics", type=csv_list, help=metrics_help)
    parser.add_argument(
        "--metric-option", type=metric_option, action="append", metavar="METRIC:OPTION=V1,V2",
        help="run METRIC at each value of OPTION, as variants named METRIC[OPTION=V] in the results "
        "(repeatable; several options of one metric run every combination), e.g. mig:bins=5,10,20; a value a "
        "built-in metric's option, or one your metric declares with @describe_metric(constraints=...), refuses is an "
        "error before anything runs (an undeclared option of yours is passed as given)",
    )
    parser.add_argument("--seeds", type=positive_int,
                        help="independent draws per parameter value, the same for every cell (default: the preset's; "
                        "the default, validate and paper presets race them instead, see --max-seeds)")
    parser.add_argument("--min-seeds", type=at_least(2), metavar="N",
                        help="race the seeds: every cell starts with N draws (default: the preset's race, else 3)")
    parser.add_argument("--max-seeds", type=at_least(2), metavar="M",
                        help="race the seeds: cells feeding a verdict whose interval still straddles its threshold get "
                        "more draws, doubling, up to M (default: the preset's race, else 12), one round per count of "
                        "the schedule (3, 6, 12); the intervals account for those looks. Not with --seeds")
    parser.add_argument("--budget-seconds", type=positive_float, metavar="S",
                        help="stop racing before a round that would take the study past S CPU seconds, as the cost "
                        "table estimates them (the rounds do not depend on the machine; default: no budget)")
    parser.add_argument("--n-samples", type=positive_int, help="samples per representation (default: the preset's)")
    parser.add_argument("--jobs", type=jobs, default=-1, help=jobs_help)
    parser.add_argument("--cell-timeout", type=positive_float, metavar="SECONDS", help=cell_timeout_help)
