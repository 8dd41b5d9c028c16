"""The generated parts of the guides: catalogues and threshold tables written from the registries.

The guides (``metrics/README.md``, ``scenarios/README.md``, ``harness/README.md``,
``reports/README.md``) hold blocks between two marker comments::

    <!-- generated: NAME (python -m harness.workflows.docs) -->
    ...
    <!-- end generated: NAME -->

whose content is written by this module from what the code registers: every metric of
:mod:`metrics.registry`, every scenario and transform of :mod:`scenarios`, the presets of
:mod:`harness.execution.presets`, the characteristics and thresholds of
:mod:`reports.verdicts.characteristics` and the results columns of :mod:`reports.results.schema`.  A new metric,
scenario, transform, preset or threshold therefore appears in the guides when this is rerun, and
``tests/harness/test_docs.py`` fails, naming the command, while a block is out of date.

The block ``metric-costs`` holds measured seconds per call, which depend on the machine: it is
rewritten only with ``--measure`` (about a minute), and the freshness test only checks that it has
a row for every registered metric.

Usage::

    python -m harness.workflows.docs             # rewrite every generated block
    python -m harness.workflows.docs --check     # exit 1 naming the stale blocks, writing nothing
    python -m harness.workflows.docs --measure   # also re-measure the metrics' cost per call
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import metrics
import scenarios
from harness.execution.presets import PRESETS
from metrics.registry import FAMILIES, INVARIANCES, MetricSpec
from reports.analyses.thresholds import Thresholds
from reports.results.schema import RESULT_COLUMNS
from reports.verdicts.characteristics import CHARACTERISTICS
from scenarios.base import CRITERIA, IDEAL_PROPERTIES, within_ranges
from scenarios.transforms import BaseShape, get_transform

ROOT = Path(__file__).resolve().parents[2]
COMMAND = "python -m harness.workflows.docs"
BLOCK = re.compile(r"(?P<open><!-- generated: (?P<name>[\w-]+) \(python -m harness\.workflows\.docs\) -->\n)"
                   r"(?P<body>.*?)"
                   r"(?P<close><!-- end generated: (?P=name) -->)", re.DOTALL)
MEASURED = "metric-costs"
"""The block holding measured timings: rewritten only when asked to measure."""
COST_SAMPLES = (1000,)
"""Sample sizes the cost block measures (8 factors x 8 codes of ``noise`` at alpha = 0.2)."""
COST_REPEATS = 3
PROPERTY_LETTERS = {"modularity": "M", "compactness": "C", "explicitness": "E"}


def _cell(value: Any) -> str:
    """A value as a Markdown table cell (pipes escaped)."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0].strip() if (text or "").strip() else ""


def _source(spec: MetricSpec) -> str:
    """Where the metric is defined: the first line of its module's docstring, and the module."""
    module = sys.modules[spec.function.__module__]
    return f"{_first_line(module.__doc__)} (`{module.__name__.replace('.', '/')}.py`)"


def _options(spec: MetricSpec) -> str:
    """Each option with its default and its legal values, as the catalogue lists them."""
    legal = spec.legal_values()
    return "; ".join(f"`{name}={value!r}` ({legal[name]})" for name, value in spec.defaults.items()) or "none"


def _ranges(spec: MetricSpec) -> str:
    """Each sub-score's declared range (one range for all when they share it)."""
    ranges = {sub: spec.ranges[sub].notation() if sub in spec.ranges else "not declared" for sub in spec.properties}
    if len(set(ranges.values())) == 1:
        return next(iter(ranges.values()))
    return ", ".join(f"`{sub}` {notation}" for sub, notation in ranges.items())


def metric_catalogue() -> str:
    """One entry per registered metric: family, sub-scores, properties, invariances, options and their legal values,
    score ranges, source."""
    parts = []
    for name in metrics.available(population=None):
        spec = metrics.get(name)
        subs = ", ".join(f"`{sub}` ({prop}, {'higher' if spec.higher_is_better_for(sub) else 'lower'} is better)"
                         for sub, prop in spec.properties.items())
        facts = [
            f"- family: {spec.family}{'; scores a population of representations' if spec.population else ''}",
            f"- sub-scores: {subs}",
            f"- {'stochastic (takes `random_state`)' if spec.stochastic else 'deterministic'}"
            f"{'; discretises the factors' if spec.needs_discrete_factors else ''}"
            f"{'; states closed-form values (`exact`)' if spec.closed_form is not None else ''}; version {spec.version}",
            f"- invariant to: {', '.join(spec.invariances) or 'none of the listed transformations'}",
            f"- options (default, legal values): {_options(spec)}",
            f"- score range: {_ranges(spec)}",
            f"- cost: seconds per call in [Cost per call](#cost-per-call); {_wide_cost(name)}; how it grows, in the "
            "docstring's Notes",
            f"- definition: {_source(spec)}; called as `metrics.{spec.function.__module__.split('.')[-1]}."
            f"{spec.function.__name__}`",
        ]
        parts.append(f"#### `{name}`\n\n{spec.summary}\n\n" + "\n".join(facts) + "\n")
    return "\n".join(parts)


def metric_index() -> str:
    """One line per metric: family, sub-scores and their properties."""
    rows = []
    for name in metrics.available(population=None):
        spec = metrics.get(name)
        rows.append((f"[`{name}`](#{name})", spec.family, ", ".join(spec.properties),
                     ", ".join(sorted(set(spec.properties.values()), key=list(metrics.SCORE_PROPERTIES).index))))
    return _table(("metric", "family", "sub-scores", "properties"), rows)


def invariance_table() -> str:
    """The transformations a metric can claim invariance to, and which metrics claim each."""
    names = metrics.available(population=None)
    return _table(("invariance", "what it does", "metrics claiming it"),
                  ((f"`{key}`", what, ", ".join(n for n in names if key in metrics.get(n).invariances) or "none")
                   for key, what in INVARIANCES.items()))


def families_table() -> str:
    names = metrics.available(population=None)
    return _table(("family", "metrics"), ((family, ", ".join(f"`{n}`" for n in names if metrics.get(n).family == family))
                                          for family in FAMILIES))


def _ideal_text(ideal: Mapping[str, float]) -> str:
    return " ".join(f"{PROPERTY_LETTERS[p]} {ideal[p]:.3g}" for p in IDEAL_PROPERTIES if p in ideal
                    and ideal[p] == ideal[p]) or "none stated"


def _ranges_text(parameter: str, ranges: Mapping[str, tuple[float, float]]) -> str:
    """``"; M, C defined on alpha 0 to 0.5"``: where a scenario or transform defines an ideal on part of its range."""
    spans: dict[tuple[float, float], list[str]] = {}
    for prop, span in ranges.items():
        spans.setdefault(span, []).append(PROPERTY_LETTERS[prop])
    return "".join(f"; {', '.join(letters)} defined on {parameter} {low:g} to {high:g}"
                   for (low, high), letters in spans.items())


def _grid(values: Sequence[Any]) -> str:
    text = ", ".join(f"{value:g}" if isinstance(value, float) else str(value) for value in values)
    return text if len(text) <= 60 else text[:57].rsplit(", ", 1)[0] + ", ..."


def _settings(settings: Mapping[str, Any]) -> str:
    return ", ".join(f"{key} = {value}" for key, value in settings.items())


def scenario_catalogue() -> str:
    """Every registered scenario (representations and populations): parameter, grid, ideals, criterion, source."""
    rows = []
    for name in scenarios.available(kind=None):
        scenario = scenarios.get(name)
        if scenario.kind == "population":
            ideals = "n/a (population)"
        else:
            ends = [scenario.values[0], scenario.values[-1]]
            ideals = " → ".join(_ideal_text(scenario.ideal_at(value)) for value in ends) + _ranges_text(
                scenario.parameter, scenario.ideal_ranges)
        rows.append((f"`{name}`", scenario.kind, f"`{scenario.parameter}`: {_grid(scenario.values)}", ideals,
                     scenario.criterion or "", _settings(scenario.settings), scenario.summary, scenario.source))
    return _table(("scenario", "kind", "parameter: grid", "ideal (first → last value)", "criterion",
                   "fixed settings", "what", "source"), rows)


def transform_catalogue() -> str:
    """Every transform: parameter, grid and ideal on a perfect base of 8 factors and 8 codes, criterion, source."""
    shape, perfect = BaseShape(8, 8), dict.fromkeys(IDEAL_PROPERTIES, 1.0)
    rows = []
    for name in scenarios.available_transforms():
        transform = get_transform(name)
        grid = transform.grid(shape)
        ideals = " → ".join(_ideal_text(within_ranges(transform.ideal(perfect, value, shape), transform.ideal_ranges, value))
                            for value in (grid[0], grid[-1])) + _ranges_text(transform.parameter, transform.ideal_ranges)
        rows.append((f"`{name}`", f"`{transform.parameter}`: {_grid(grid)}", ideals, transform.criterion,
                     _settings(transform.settings), transform.summary, transform.source))
    return _table(("transform", "parameter: grid (8 x 8 base)", "ideal on a perfect base (first → last value)",
                   "criterion", "fixed settings", "what", "source"), rows)


def criteria_list() -> str:
    return ", ".join(f"`{criterion}`" for criterion in CRITERIA) + "\n"


def preset_table() -> str:
    """Each preset's seeds, sample size, what it leaves out, its sweeps and its description."""
    rows = []
    for preset in PRESETS.values():
        sweeps = "; ".join(f"`{metric}`: " + ", ".join(f"`{option}` {', '.join(map(str, values))}" for option, values in options.items())
                           for metric, options in preset.metric_options.items())
        scenario_text = ", ".join(preset.scenarios) if preset.scenarios else "all" + (
            f" but {', '.join(preset.excluded_scenarios)}" if preset.excluded_scenarios else "")
        metric_text = ", ".join(preset.metrics) if preset.metrics else "all" + (
            f" but {', '.join(preset.excluded_metrics)}" if preset.excluded_metrics else "")
        sizes = "; ".join(f"{scenario} n = {n}" for scenario, n in preset.sample_sizes.items())
        grids = "; ".join(f"{scenario}: {', '.join(map(str, values))}" for scenario, values in preset.grids.items())
        seeds = (f"{preset.seeds} to {preset.max_seeds}, raced" if preset.max_seeds else f"{preset.seeds}") + "".join(
            f" ({count} on {scenario})" for scenario, count in preset.scenario_seeds.items())
        rows.append((f"`{preset.name}`", seeds, preset.n_samples, scenario_text, metric_text,
                     "; ".join(filter(None, [sizes, grids])), sweeps or "none", preset.description))
    return _table(("preset", "seeds", "n", "scenarios", "metrics", "other sizes and grids", "option sweeps", "what"), rows)


def criteria_table() -> str:
    """Every characteristic of the property matrix: what it reads, its rules with thresholds, its headline column."""
    thresholds = Thresholds()
    rows = []
    for entry in CHARACTERISTICS:
        rules = "; ".join(f"{thresholds.fill(rule.statistic)} {'≥' if rule.comparison == '>=' else '≤'} "
                          f"{getattr(thresholds, rule.threshold)} (`{rule.threshold}`)" for rule in entry.rules)
        properties = ", ".join(entry.properties) if entry.properties else "all"
        reads = thresholds.fill(entry.reads) + (_declared_ranges(entry.criterion) if entry.analysis == "robustness" else "")
        rows.append((entry.heading, f"`{entry.key}`", f"`{entry.analysis}`", entry.criterion or "any", properties,
                     rules, reads, entry.headline or "", thresholds.fill(entry.unmeasured)))
    return _table(("characteristic", "key", "analysis", "scenario criterion", "properties judged", "passes when",
                   "values read", "headline column", "not measured when"), rows)


def _declared_ranges(criterion: str) -> str:
    """``"; noise: modularity, compactness on alpha 0 to 0.5"``: the built-in scenarios testing ``criterion`` that
    define an ideal on part of their range (:attr:`scenarios.base.Scenario.ideal_ranges`)."""
    parts = []
    for name in scenarios.available():
        scenario = scenarios.get(name)
        spans: dict[tuple[float, float], list[str]] = {}
        for prop, span in scenario.ideal_ranges.items():
            spans.setdefault(span, []).append(prop)
        parts += [f"{name}: {', '.join(props)} on {scenario.parameter} {low:g} to {high:g}"
                  for (low, high), props in spans.items() if scenario.criterion == criterion]
    return "".join(f"; {part}" for part in parts)


def threshold_table() -> str:
    thresholds = Thresholds()
    return _table(("threshold", "default"), ((f"`{name}`", getattr(thresholds, name)) for name in thresholds.__dataclass_fields__))


def results_columns() -> str:
    return ", ".join(f"`{column}`" for column in RESULT_COLUMNS) + "\n"


def _metric_call(name: str, n: int) -> Callable[[], Any]:
    """One call of metric ``name`` on the data its cost is measured on, ready to time."""
    spec = metrics.get(name)
    if spec.population:
        members = list(scenarios.get_population("udr_population").generate(0.5, n=n, seed=0).members)
        return lambda: metrics.evaluate_population(name, members)
    rep = scenarios.get("noise").generate(0.2, n=n, seed=0)
    options = {"random_state": 0} if spec.stochastic else {}
    return lambda: metrics.evaluate(name, rep.factors, rep.codes, discrete=rep.discrete, **options)


def measure_costs(names: Sequence[str] | None = None, sizes: Sequence[int] = COST_SAMPLES,
                  repeats: int = COST_REPEATS) -> dict[str, dict[int, float]]:
    """Median CPU seconds of one call of each metric alone, on ``noise`` at alpha = 0.2, 8 x 8, one BLAS thread."""
    from threadpoolctl import threadpool_limits

    result: dict[str, dict[int, float]] = {}
    for name in names or metrics.available(population=None):
        result[name] = {}
        for n in sizes:
            call = _metric_call(name, n)
            times = []
            with threadpool_limits(1):
                for _ in range(1 if name == "dci_gbt" else repeats):
                    start = time.process_time()
                    call()
                    times.append(time.process_time() - start)
            result[name][n] = statistics.median(times)
    return result


def cost_table(costs: Mapping[str, Mapping[int, float]], sizes: Sequence[int] = COST_SAMPLES) -> str:
    """The measured costs as a table, with the machine and date they were measured on."""
    machine = f"{platform.machine()} {platform.processor() or platform.system()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    header = (f"Median CPU seconds of one call (`time.process_time`, one BLAS thread, {COST_REPEATS} repeats; `dci_gbt` once), "
              f"alone (no estimates shared with other metrics), on `noise` at alpha = 0.2, 8 factors x 8 codes "
              f"(`udr`: `udr_population` at 0.5); measured on {datetime.date.today().isoformat()}, {machine}, "
              f"load {os.getloadavg()[0]:.1f}.\n\n")
    return header + _table(("metric", *(f"n = {n}" for n in sizes)),
                           ((f"`{name}`", *(f"{costs[name][n]:.3g}" for n in sizes)) for name in sorted(costs)))


def _wide_cell(call: Any) -> str:
    """One wide call as the guides state it: CPU seconds and memory above its inputs, or the limit it exceeded."""
    peak = f"{call.peak_bytes / 2**30:.2g} GiB" if call.peak_bytes is not None else ""
    if call.exceeded == "time":
        return f"over {call.cpu_limit_seconds:g} CPU-s"
    if call.exceeded == "memory":
        return f"over {call.memory_limit_bytes / 2**30:g} GiB" + (f" ({peak} when stopped)" if peak else "")
    return f"{call.cpu_seconds:.2g} CPU-s, {peak}" if call.cpu_seconds < 10 else f"{call.cpu_seconds:.0f} CPU-s, {peak}"


def _wide_plan(name: str) -> str:
    """What a study of the wide shape does with ``name`` under the issue's target (``--max-cell-seconds 60``, 4 GiB):
    plans it, or refuses it with its estimate and the measured variant that fits."""
    from harness.execution.cost_measurement.wide import (
        WIDE_CODES,
        WIDE_FACTORS,
        WIDE_MEMORY_BYTES,
        WIDE_SAMPLES,
        WIDE_TARGET_SECONDS,
    )
    from harness.execution.plan import CellLimits, call_estimate, cpu_time_text, fitting_variant, variant_options

    limits = CellLimits(WIDE_TARGET_SECONDS, WIDE_MEMORY_BYTES)
    metric = name.partition("[")[0]
    if metrics.get(metric).population:
        return "not checked (scores a population: its cost is not scaled by the shape)"
    seconds, peak = call_estimate(name, WIDE_FACTORS, WIDE_CODES, WIDE_SAMPLES, variant_of=metric if metric != name else "")
    if seconds <= limits.seconds and (peak is None or peak <= limits.memory_bytes):
        return f"planned (estimated {cpu_time_text(seconds)})"
    memory = f", {peak / 2**30:.2g} GiB" if peak is not None else ""
    refused = f"refused (estimated {cpu_time_text(seconds)}{memory})"
    fitting = fitting_variant(metric, WIDE_FACTORS, WIDE_CODES, WIDE_SAMPLES, limits, besides=name)
    return refused + (f"; `{variant_options(metric, fitting[0])}` fits" if fitting else "")


def _wide_at(calls: Mapping[int, Any], codes: int) -> str:
    """The measured call at ``codes`` codes (of one sample size) as the guides state it; for one not run, the
    narrower call that ran out of time (the measuring tool does not run the wider ones); empty for none."""
    if codes in calls:
        return _wide_cell(calls[codes])
    narrower = [width for width, call in calls.items() if width < codes and call.exceeded == "time"]
    return f"not run (over {calls[narrower[0]].cpu_limit_seconds:g} CPU-s at {narrower[0]} codes)" if narrower else ""


def _wide_cost(name: str) -> str:
    """The catalogue's cost fact at wide codes: the call at the wide shape, as measured, and what a study plans."""
    from harness.execution.cost_measurement.wide import WIDE_CODES, WIDE_FACTORS, WIDE_SAMPLES
    from harness.execution.costs import MEASURED_WIDE_CALLS

    measured = _wide_at(MEASURED_WIDE_CALLS.get(name, {}).get(WIDE_SAMPLES, {}), WIDE_CODES) or "not measured"
    return (f"at {WIDE_FACTORS} factors x {WIDE_CODES} codes, n = {WIDE_SAMPLES}: {measured} "
            f"([wide codes](#wide-codes): {_wide_plan(name)})")


def wide_cost_table() -> str:
    """The wide-code measurement (``python -m harness.execution.cost_measurement wide``), from the cost model's data
    file: each metric's and Gaussian variant's call at each measured shape, and what a study of the widest shape plans
    under the issue's target."""
    from harness.execution import cost_records
    from harness.execution.cost_measurement.wide import WIDE_CODES, WIDE_FACTORS, WIDE_SAMPLES, WIDE_TARGET_SECONDS
    from harness.execution.costs import MEASURED_WIDE_CALLS

    if not MEASURED_WIDE_CALLS:
        return "Not measured yet: `python -m harness.execution.cost_measurement wide --write`.\n"
    shapes = sorted({(n, codes) for calls in MEASURED_WIDE_CALLS.values() for n, row in calls.items() for codes in row})
    runs = cost_records.read().wide_runs
    header = ("One call in a process of its own (`python -m harness.execution.cost_measurement wide`): CPU seconds "
              "(`time.process_time`, one BLAS thread) and the memory the call allocates above its inputs (its peak "
              "resident set less the process's with the float64 draw loaded: the draw, "
              f"{8 * WIDE_SAMPLES * (WIDE_FACTORS + WIDE_CODES) / 1e9:.1f} GB at {WIDE_FACTORS} x {WIDE_CODES} and "
              f"n = {WIDE_SAMPLES}, is the study's, held once for every metric of it), or the limit that stopped it; "
              f"{WIDE_FACTORS} factors, the first {WIDE_FACTORS} codes noisy copies of them and the others independent "
              "normal columns; the intervention metrics on the factors thresholded at 1/2; `udr` on two copies of the "
              f"codes. The last column: what `run --max-cell-seconds {WIDE_TARGET_SECONDS:g}` (with the default "
              f"`--max-cell-memory 4`) does with a study of {WIDE_FACTORS} x {WIDE_CODES} codes at n = {WIDE_SAMPLES}, "
              "from the cost model's estimates. Measured "
              + "; ".join(f"{run['datetime'][:10]} (n = {run['settings']['n_samples']}), {run['machine']['cpu']}, "
                          f"{run['machine']['cpu_count']} cores, load {run['machine']['load_average']}" for run in runs)
              + ".\n\n")
    rows = [(f"`{name}`", *(_wide_at(calls.get(n, {}), codes) for n, codes in shapes), _wide_plan(name))
            for name, calls in MEASURED_WIDE_CALLS.items()]
    return header + _table(("metric", *(f"{codes} codes, n = {n}" for n, codes in shapes),
                            f"{WIDE_FACTORS} x {WIDE_CODES}, n = {WIDE_SAMPLES}: planned?"), rows)


GENERATORS: dict[str, Callable[[], str]] = {
    "metric-index": metric_index,
    "metric-catalogue": metric_catalogue,
    "metric-families": families_table,
    "metric-invariances": invariance_table,
    "metric-wide-costs": wide_cost_table,
    "scenario-catalogue": scenario_catalogue,
    "transform-catalogue": transform_catalogue,
    "scenario-criteria": criteria_list,
    "presets": preset_table,
    "report-criteria": criteria_table,
    "report-thresholds": threshold_table,
    "results-columns": results_columns,
}
"""Block name -> what writes it (the measured block ``metric-costs`` aside)."""

GUIDES = ("metrics/README.md", "scenarios/README.md", "harness/README.md", "reports/README.md")


def _cost_rows(body: str) -> set[str]:
    return set(re.findall(r"^\| `([^`]+)` \|", body, re.MULTILINE))


def regenerate(text: str, costs: Mapping[str, Mapping[int, float]] | None = None) -> str:
    """``text`` with every generated block rewritten (the cost block only when ``costs`` are given)."""

    def block(match: re.Match[str]) -> str:
        name = match["name"]
        if name == MEASURED:
            body = cost_table(costs) if costs is not None else match["body"]
        elif name in GENERATORS:
            body = GENERATORS[name]()
        else:
            raise ValueError(f"unknown generated block {name!r}; known: {', '.join([*GENERATORS, MEASURED])}")
        return match["open"] + body + match["close"]

    return BLOCK.sub(block, text)


def stale(root: Path = ROOT) -> list[str]:
    """The generated blocks that are out of date, as ``PATH: BLOCK`` (empty when all are current)."""
    problems = []
    registered = set(metrics.available(population=None))
    for guide in GUIDES:
        text = (root / guide).read_text()
        current, fresh = BLOCK.finditer(text), BLOCK.finditer(regenerate(text))
        for old, new in zip(current, fresh):
            if old["name"] == MEASURED:
                missing = registered - _cost_rows(old["body"])
                if missing:
                    problems.append(f"{guide}: {MEASURED} (no cost measured for {', '.join(sorted(missing))}; "
                                    f"run {COMMAND} --measure)")
            elif old["body"] != new["body"]:
                problems.append(f"{guide}: {old['name']}")
    return problems


def write(root: Path = ROOT, measure: bool = False) -> list[str]:
    """Rewrite every guide's generated blocks; return the guides that changed."""
    costs = measure_costs() if measure else None
    changed = []
    for guide in GUIDES:
        path = root / guide
        text = path.read_text()
        new = regenerate(text, costs)
        if new != text:
            path.write_text(new)
            changed.append(guide)
    return changed


def main(argv: list[str] | None = None) -> int:
    """Command line: rewrite the guides' generated blocks, or check them."""
    parser = argparse.ArgumentParser(prog=COMMAND, description="Rewrite the generated catalogues and tables of the guides "
                                     "from the registries and the code's constants.")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 naming the blocks that are out of date")
    parser.add_argument("--measure", action="store_true", help="also re-measure each metric's seconds per call (about a minute)")
    args = parser.parse_args(argv)
    if args.check:
        problems = stale()
        for problem in problems:
            print(f"out of date: {problem}")
        return 1 if problems else 0
    for guide in write(measure=args.measure):
        print(f"rewrote {guide}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
