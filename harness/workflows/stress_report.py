"""What a stress search writes: its Markdown section, the figure of the worst case, the files of ``out``.

:func:`stress_section` is the section ``validate --stress`` adds to a report card (and the
body of ``stress.md``); :func:`worst_case_figure` draws the stressed sub-score along the worst
case's scenario against the ideal; :func:`write_stress` writes everything into a directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from harness.workflows.stress_result import StressCase, StressResult
from harness.workflows.stress_space import CHOICE, ideal_at, parameter_range
from reports._style import IDEAL_STYLE, PALETTE, paper_style
from reports.figures import save
from reports.text_table import markdown_table

#: Files ``write_stress`` writes into its directory (besides the run store ``search/``).
MARKDOWN, JSON, MEASUREMENTS, FIGURE_KEY = "stress.md", "stress.json", "measurements.csv", "worst_case"
#: Contrast rows shown per case: the built-ins' sub-scores of the case's property, closest to the ideal first.
CONTRAST_ROWS = 5


def stress_section(result: StressResult, *, heading: str = "##") -> list[str]:
    """The search's findings as Markdown lines: settings, the cases with their recipes, and notes."""
    settings = result.settings
    lines = [
        f"{heading} Stress search: where `{result.entry.name}` departs most from its ideal",
        "",
        f"- searched: {len(settings['scenarios'])} scenario(s) ({', '.join(settings['scenarios'])}); sample sizes "
        f"{', '.join(map(str, settings['sample_sizes']))}; {settings['seeds']} seeds per point; search seed "
        f"{settings['seed']}",
        f"- budget: {settings['budget']} cells per scenario"
        + (f" or {settings['budget_seconds']:g} s" if settings["budget_seconds"] else "")
        + f"; used {result.cells} cells of `{result.entry.name}` in {result.seconds:.0f} s (contrast included)",
        f"- a case departs from the ideal beyond its seed spread ({settings['confidence']:.0%} interval over seeds "
        f"excludes 0) by at least {settings['min_departure']:g}; departure = oriented score − ideal "
        "(> 0: over-scores a worse code, < 0: under-scores a better one)",
        "",
    ]
    if not result.cases:
        lines.append(f"No case beyond the seed spread among {len(result.measurements)} measurements.")
    else:
        lines += [markdown_table(_cases_table(result.cases), digits=3), ""]
        for rank, case in enumerate(result.cases, start=1):
            lines += _case_lines(rank, case, heading)
    if result.notes:
        lines += ["", f"{heading}# Notes", "", *(f"- {note}" for note in result.notes)]
    return lines


def _cases_table(cases: list[StressCase]) -> pd.DataFrame:
    return pd.DataFrame([{
        "rank": rank,
        "scenario": case.measurement.point.scenario,
        "value": case.measurement.point.label,
        "n": case.measurement.point.n_samples,
        "sub-score": case.measurement.sub_score,
        "property": case.measurement.property,
        "mean score": float(np.mean(case.measurement.scores)),
        "ideal": case.measurement.ideal,
        "departure": case.measurement.departure,
        "± spread": case.measurement.half_width,
        "direction": case.measurement.direction,
    } for rank, case in enumerate(cases, start=1)])


def _case_lines(rank: int, case: StressCase, heading: str) -> list[str]:
    measurement = case.measurement
    point = measurement.point
    scores = ", ".join(f"{score:.4g}" for score in measurement.scores)
    lines = [
        f"{heading}# Case {rank}: {point.scenario} = {point.label}, n = {point.n_samples}",
        "",
        f"- {measurement.sub_score} ({measurement.property}): scores {scores} per seed; ideal {measurement.ideal:.3g}; "
        f"departure {measurement.departure:+.3f} ± {measurement.half_width:.3f}",
        f"- replay: `{case.command}`",
    ]
    contrast = case.contrast.loc[case.contrast["property"] == measurement.property]
    if not contrast.empty:
        closest = contrast.assign(distance=contrast["departure"].abs()).sort_values("distance").head(CONTRAST_ROWS)
        lines += ["", f"Built-ins measuring {measurement.property} on the same data (closest to the ideal first):", "",
                  markdown_table(closest.drop(columns="distance").reset_index(drop=True), digits=3)]
    return [*lines, ""]


def worst_case_figure(result: StressResult) -> Figure:
    """The worst case's sub-score along its scenario's parameter, at its sample size, against the ideal.

    Every measured point of that scenario, sub-score and sample size is drawn with its seed
    spread (the confidence interval of the mean score); the worst case is ringed; the
    built-ins' mean scores of the same property at the worst case are grey ticks.

    Raises
    ------
    ValueError
        When the result has no case.
    """
    if not result.cases:
        raise ValueError("the stress result has no case to draw")
    worst = result.cases[0].measurement
    point = worst.point
    space = parameter_range(point.scenario)
    measured = [m for m in result.measurements if m.point.scenario == point.scenario
                and m.point.n_samples == point.n_samples and m.sub_score == worst.sub_score]
    position = (lambda value: space.choices.index(value)) if space.kind == CHOICE else float
    with paper_style():
        figure = Figure(figsize=(3.5, 2.4), layout="constrained")
        ax = figure.subplots()
        ax.plot(*_ideal_line(space, worst.property), label="ideal", **IDEAL_STYLE)
        xs = np.array([position(m.point.value) for m in measured])
        means = np.array([m.oriented.mean() for m in measured])
        name = result.entry.name if worst.sub_score == result.entry.name else f"{result.entry.name}: {worst.sub_score}"
        ax.errorbar(xs, means, yerr=[m.half_width for m in measured], fmt="o", color=PALETTE[0], capsize=2, label=name)
        ax.plot([position(point.value)], [worst.oriented.mean()], "o", markersize=9, markerfacecolor="none",
                color=PALETTE[2], label="worst case")
        contrast = result.cases[0].contrast
        contrast = contrast.loc[contrast["property"] == worst.property]
        if not contrast.empty:
            oriented = contrast["departure"] + contrast["ideal"]
            ax.plot(np.full(len(oriented), position(point.value)), oriented, "_", color="#777777", markersize=8,
                    label="built-ins there")
        if space.kind == CHOICE:
            ax.set_xticks(range(len(space.choices)), space.choices)
        ax.set_xlabel(space.parameter)
        ax.set_ylabel(f"{worst.property} (higher is better)")
        ax.set_title(f"{result.entry.name} on {point.scenario}, n = {point.n_samples}")
        ax.legend(loc="best", frameon=False)
    return figure


def _ideal_line(space: Any, prop: str) -> tuple[np.ndarray, np.ndarray]:
    """The ideal of ``prop`` across the whole range (every choice, or 201 values)."""
    if space.kind == CHOICE:
        values = list(space.choices)
        xs = np.arange(len(values), dtype=float)
    else:
        xs = np.unique([float(space.value(x)) for x in np.linspace(space.low, space.high, 201)])
        values = [space.value(x) for x in xs]
    return xs, np.array([ideal_at(space.scenario, value).get(prop, np.nan) for value in values])


def write_stress(result: StressResult, out: str | Path) -> Path:
    """Write ``stress.md``, ``stress.json``, ``measurements.csv`` and ``worst_case.png``/``.svg`` into ``out``.

    Returns the Markdown file's path.  The figure is written only when there is a case.
    """
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    result.table().to_csv(directory / MEASUREMENTS, index=False)
    (directory / JSON).write_text(json.dumps(result.to_dict(), indent=1, default=str) + "\n")
    markdown = directory / MARKDOWN
    markdown.write_text("\n".join(stress_section(result, heading="#")) + "\n")
    if result.cases:
        save(worst_case_figure(result), directory / "figures", FIGURE_KEY)
    return markdown
