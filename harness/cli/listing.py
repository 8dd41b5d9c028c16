"""``python -m harness list``: every registered metric and scenario with its metadata."""

from __future__ import annotations

import argparse
import shutil
import textwrap
from collections.abc import Mapping


def add_command(commands: argparse._SubParsersAction) -> None:
    """Register the ``list`` command."""
    parser = commands.add_parser(
        "list",
        help="list the metrics and scenarios with their metadata",
        description="Print every registered metric (family, sub-scores and the property each measures, "
        "direction, stochasticity, discrete factors, default options, the transformations of the codes its "
        "scores are invariant to), every scenario, population scenarios included (swept parameter, default grid, "
        "the criterion it tests, the settings it holds fixed, source), and the transforms that compose a scenario "
        "(TRANSFORM@BASE=VALUE), and the study presets (seeds, sample size, scenarios with their two-parameter "
        "grids and, for a preset reproducing a paper, each setting's source).  With --metric NAME, that metric "
        "alone, with each option's default and legal values and each sub-score's declared range; a variant's label as "
        "the results name it (--metric 'mig[bins=5]') lists the options at its values.",
    )
    parser.add_argument("--metric", metavar="NAME",
                        help="print only this registered metric, with its options' legal values and its score ranges; "
                        "a variant's label (mig[bins=5]) shows its options' values")
    parser.set_defaults(handler=list_registered)


#: The fewest columns of text beside the names: in a terminal narrower than the longest name and these, each entry's
#: text goes under its name, indented by :data:`UNDER_INDENT`.
NARROWEST_TEXT = 40
UNDER_INDENT = 4
#: The narrowest terminal written for (what a terminal reports below it is read as this).
NARROWEST_TERMINAL = 20


def _columns() -> int:
    """The terminal's width (100 when the output is not a terminal), at least :data:`NARROWEST_TERMINAL`."""
    return max(NARROWEST_TERMINAL, shutil.get_terminal_size(fallback=(100, 24)).columns)


def _fill(text: str, first: str, indent: str) -> str:
    """``text`` folded at the terminal's width, no line longer (a word longer than a line is broken)."""
    return textwrap.fill(text, _columns(), initial_indent=first, subsequent_indent=indent, break_on_hyphens=False)


def _entry(name: str, width: int, lines: list[str]) -> None:
    """Print one entry: its name and first line, then its other lines, each folded at the terminal's width and every
    line's text starting in the column past the longest name (``width``); in a terminal too narrow for that
    (:data:`NARROWEST_TEXT`), the name on a line of its own and the text under it."""
    if _columns() - (width + 3) < NARROWEST_TEXT:
        print(_fill(name, "  ", "  "))
        indent = " " * UNDER_INDENT
        for line in lines:
            print(_fill(line, indent, indent))
        return
    indent = " " * (width + 3)
    for index, line in enumerate(lines):
        print(_fill(line, f"  {name:<{width}} " if index == 0 else indent, indent))


def _fixed(settings: Mapping[str, object]) -> str:
    """``"; fixed: n_factors=5, marginal=gaussian"``: the settings held along the sweep, or ``""``."""
    from scenarios.base import value_label

    return "; fixed: " + ", ".join(f"{name}={value_label(value)}" for name, value in settings.items()) if settings else ""


def list_metric(name: str) -> int:
    """Print one registered metric: its summary, each option with its default and legal values, each sub-score with
    its property, direction and declared range.  ``name`` may be a variant's label as the results name it
    (``mig[bins=5]``): its options are then listed at the variant's values, each with the metric's default beside.

    Raises
    ------
    harness.errors.UnknownNameError
        When ``name`` is not a registered metric (the message suggests close names).
    harness.errors.UsageError
        For a label of an option the metric does not take or of a value it refuses, or a user's function
        (``file.py:name``: nothing registered to list).
    """
    import metrics
    from harness.errors import UsageError
    from harness.execution.metric_refs import resolve

    if ":" in name:  # a user's function: nothing registered to list (it read "unknown metric", though run takes it)
        raise UsageError(f"list --metric shows a registered metric; {name!r} is your own function, which registers "
                         f"nothing: its options are its keyword parameters, and `python -m harness validate {name}` "
                         "writes its card")
    entry = resolve(name)  # a registered name or a variant's label, checked as a run checks it
    spec = metrics.get(entry.variant_of or entry.name)
    print(_fill(f"{name} [{spec.family}]: {spec.summary}", "", "  "))
    print("OPTIONS (this variant's value, the default where it differs: legal values)" if entry.variant_of
          else "OPTIONS (default: legal values)")
    legal = spec.legal_values()
    for option, default in spec.defaults.items():
        value = entry.variant_options.get(option, default)
        shown = f"{option}={value!r}" + (f" (default {default!r})" if value != default else "")
        print(_fill(f"{shown}: {legal[option]}", "  ", "    "))
    if not spec.defaults:
        print("  none")
    print("SUB-SCORES (property, direction, declared range)")
    for sub, prop in spec.properties.items():
        declared = spec.ranges[sub].notation() if sub in spec.ranges else "not declared"
        print(_fill(f"{sub}: {prop}, {'higher' if spec.higher_is_better_for(sub) else 'lower'} is better, {declared}",
                    "  ", "    "))
    return 0


def list_registered(args: argparse.Namespace) -> int:
    """Print the registries (one metric's entry with ``--metric NAME``)."""
    if args.metric is not None:
        return list_metric(args.metric)
    import metrics
    import scenarios
    from scenarios.base import value_label
    from scenarios.transforms import TRANSFORMS, BaseShape

    print("METRICS")
    names = metrics.available(population=None)
    width = max(map(len, names))  # the details of every metric start in one column, past its longest name
    for name in names:
        spec = metrics.get(name)
        subs = ", ".join(f"{sub}->{prop}" for sub, prop in spec.properties.items())
        flags = [
            "higher is better" if spec.higher_is_better else "lower is better",
            *(f"{sub}: {'higher' if up else 'lower'} is better" for sub, up in spec.directions.items() if up != spec.higher_is_better),
            "stochastic" if spec.stochastic else "deterministic",
        ]
        if spec.needs_discrete_factors:
            flags.append("bins continuous factors")
        if spec.population:
            flags.append("population metric")
        options = ", ".join(f"{k}={v!r}" for k, v in spec.defaults.items()) or "none"
        invariances = ", ".join(spec.invariances) or "none"
        _entry(name, width, [f"[{spec.family}] {subs}", f"{'; '.join(flags)}; options: {options} (legal values: "
                             f"list --metric {name})",
                             f"invariant to: {invariances}", *([spec.summary] if spec.summary else [])])
    print()
    print("SCENARIOS")
    names = scenarios.available(kind=None)
    width = max(map(len, [*names, *TRANSFORMS]))  # scenarios and transforms share one column
    for name in names:
        scenario = scenarios.get(name)
        grid = ", ".join(scenario.label(v) for v in scenario.values)
        tests = f"; tests {scenario.criterion.replace('_', ' ')}" if scenario.criterion else ""
        kind = " (population, for population metrics)" if scenario.kind == "population" else ""
        _entry(name, width, [f"{scenario.parameter} in {{{grid}}}{tests}{_fixed(scenario.settings)}{kind}",
                             f"{scenario.summary} ({scenario.source})"])
    print()
    print(_fill("TRANSFORMS (compose a scenario: TRANSFORM@BASE=VALUE, e.g. redundancy_attack@noise=0.2, swept over "
                "the transform's parameter with the base held at VALUE; grids shown for a base of 8 factors and 8 "
                "codes; your own scenario: path/to/file.py:name or package.module:name)", "", ""))
    for name, transform in sorted(TRANSFORMS.items()):
        grid = ", ".join(map(value_label, transform.grid(BaseShape(8, 8))))  # as the scenarios' grids are written: 0, not 0.0
        tests = f"; tests {transform.criterion.replace('_', ' ')}" if transform.criterion else ""
        _entry(name, width, [f"{transform.parameter} in {{{grid}}}{tests}{_fixed(transform.settings)}",
                             f"{transform.summary} ({transform.source})"])
    print()
    _list_presets()
    return 0


def _list_presets() -> None:
    """The presets: what each is, its seeds and sample size, and its scenarios where it names them (with their grids
    and sources)."""
    from harness.execution.presets import PRESETS

    print(_fill("PRESETS (run --preset NAME)", "", ""))
    width = max(map(len, PRESETS))
    for name, preset in PRESETS.items():
        lines = [preset.description]  # which states the seeds and sample size
        for scenario in preset.scenarios or ():
            grid = preset.grids.get(scenario)
            axes = ("; grid " + "; ".join(f"{axis}: {', '.join(map(str, values))}" for axis, values in grid.items())
                    if isinstance(grid, Mapping) else f"; grid {', '.join(map(str, grid))}" if grid else "")
            source = f" ({preset.sources[scenario]})" if scenario in preset.sources else ""
            lines.append(f"- {scenario}{axes}{source}")
        _entry(name, width, lines)
