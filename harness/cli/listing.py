"""``python -m harness list``: every registered metric and scenario with its metadata."""

from __future__ import annotations

import argparse


def add_command(commands: argparse._SubParsersAction) -> None:
    """Register the ``list`` command."""
    parser = commands.add_parser(
        "list",
        help="list the metrics and scenarios with their metadata",
        description="Print every registered metric (family, sub-scores and the property each measures, "
        "direction, stochasticity, discrete factors, default options), every scenario, population "
        "scenarios included (swept parameter, default grid, the criterion it tests, source), and the transforms "
        "that compose a scenario (TRANSFORM@BASE=VALUE).",
    )
    parser.set_defaults(handler=list_registered)


def list_registered(args: argparse.Namespace) -> int:
    """Print the registries."""
    import metrics
    import scenarios
    from scenarios.transforms import TRANSFORMS

    print("METRICS")
    for name in metrics.available(population=None):
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
        print(f"  {name:<14} [{spec.family}] {subs}")
        print(f"  {'':<14} {'; '.join(flags)}; options: {options}")
        if spec.summary:
            print(f"  {'':<14} {spec.summary}")
    print()
    print("SCENARIOS")
    for name in scenarios.available(kind=None):
        scenario = scenarios.get(name)
        grid = ", ".join(scenario.label(v) for v in scenario.values)
        tests = f"; tests {scenario.criterion.replace('_', ' ')}" if scenario.criterion else ""
        kind = " (population, for population metrics)" if scenario.kind == "population" else ""
        print(f"  {name:<24} {scenario.parameter} in {{{grid}}}{tests}{kind}")
        print(f"  {'':<24} {scenario.summary} ({scenario.source})")
    print()
    print("TRANSFORMS (compose a scenario: TRANSFORM@BASE=VALUE, e.g. redundancy_attack@noise=0.2, swept over the")
    print("transform's parameter with the base held at VALUE; grids shown for a base of 8 factors; your own scenario:")
    print("path/to/file.py:name or package.module:name)")
    for name, transform in sorted(TRANSFORMS.items()):
        grid = ", ".join(map(str, transform.grid(8)))
        tests = f"; tests {transform.criterion.replace('_', ' ')}" if transform.criterion else ""
        print(f"  {name:<24} {transform.parameter} in {{{grid}}}{tests}")
        print(f"  {'':<24} {transform.summary} ({transform.source})")
    return 0
