"""The review's section-5 figures, redrawn from the results in the paper's arrangement.

Zaidi et al. (2022) show each controlled experiment as one figure whose panels are its metric families
(intervention, predictor, information), each curve one of its metrics against the experiment's parameter
(:mod:`reports.review.published`).  :func:`paper_figure_drawers` draws the same figures from any results
table that holds an experiment's scenario and some of the review's metrics (the ``paper`` preset's protocol,
or fewer seeds and samples), captioned with the paper's figure number, so that a reader can lay them beside
the paper's.  Unlike the paper, each panel also draws the ideal trajectories (the wide grey lines, tagged
with the properties they are the ideal of: M modularity, C compactness, E explicitness, H holistic), and
each mean its band over seeds.  Figure 9 reads the sample-efficiency analysis
(:func:`reports.analyses.sample_efficiency.sample_efficiency`): the mean |score(n) − score(n_max)| against n.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

import pandas as pd
from matplotlib.figure import Figure

from reports.rendering.comparison import TAGS, draw_ideals, label_ideals
from reports.rendering.figures import LEGEND_ROW_INCHES, Drawn, band_text, draw_scores, fill_to_width, format_axis, score_axis, seed_means
from reports.rendering.style import FONT_SIZE, PAGE_WIDTH, StyleRegistry, metric_colours, paper_style
from reports.results.schema import SCORE_PROPERTIES
from reports.results.table import at_largest_n, ideal_table
from reports.review.published import EXPERIMENTS, GROUPS, LINES, Experiment

#: Height of a panel's axes, in inches.
PANEL_INCHES = 1.7
#: Room for the titles and the axis labels, in inches.
MARGIN_INCHES = 0.75
#: The key of the ideal trajectories' tags.
TAG_KEY = ", ".join(f"{tag} {prop}" for prop, tag in TAGS.items())
_LABEL = {(line.metric, line.sub_score): line.label for line in LINES}
_ORDER = {line.label: position for position, line in enumerate(LINES)}


def _lines(rows: pd.DataFrame) -> dict[str, list[tuple[str, str]]]:
    """The review's curves the rows hold, per family panel (panels without a curve left out)."""
    held = set(zip(rows["metric"], rows["sub_score"]))
    panels = {group: [(line.metric, line.sub_score) for line in LINES if line.group == group
                      and (line.metric, line.sub_score) in held] for group in GROUPS}
    return {group: lines for group, lines in panels.items() if lines}


def _of(frame: pd.DataFrame, lines: list[tuple[str, str]]) -> pd.Series:
    """Which rows of ``frame`` are one of the (metric, sub-score) ``lines``."""
    return pd.Series(list(zip(frame["metric"], frame["sub_score"])), index=frame.index).isin(lines)


def _label(metric: str, sub_score: str, higher_is_better: bool) -> str:
    label = _LABEL[(metric, sub_score)]
    return label if higher_is_better else f"{label} (1 − score)"


def _figure(panels: dict[str, list[tuple[str, str]]]) -> tuple[Figure, list, float]:
    """A row of one panel per family, room below each for a legend of its curves, one to a line."""
    legend = LEGEND_ROW_INCHES * (max(len(lines) for lines in panels.values()) + 2)
    height = PANEL_INCHES + legend + MARGIN_INCHES
    figure = Figure(figsize=(PAGE_WIDTH, height), layout="constrained")
    return figure, list(figure.subplots(1, len(panels), squeeze=False)[0]), height


def _legend_below(ax) -> None:
    """The panel's curves below it, in the paper's order (the ideal, drawn unlabelled, is tagged on the panel)."""
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: _ORDER.get(labels[i].split(" (")[0], len(_ORDER)))
    ax.legend([handles[i] for i in order], [labels[i] for i in order], loc="upper center", frameon=False, ncol=1,
              bbox_to_anchor=(0.5, -0.22), handlelength=2.2, labelspacing=0.25, borderaxespad=0.0)


def _title(experiment: Experiment, detail: str) -> str:
    """The paper's figure and the scenario on a first line, this run's protocol below (one line overflows a page)."""
    return f"Zaidi et al. (2022), {experiment.figure} (section {experiment.section}): {experiment.scenario}\n{detail}"


def score_figure(results: pd.DataFrame, experiment: Experiment, *, band: str = "ci95",
                 colours: Mapping[str, str] | None = None) -> Drawn:
    """An experiment's figure: its scenario at its largest n, one panel per family of the review's metrics.

    Parameters
    ----------
    results : pandas.DataFrame
        A checked results table (swept metrics at their defaults) holding ``experiment.scenario``.
    experiment : reports.review.published.Experiment
        The experiment.
    band : {"ci95", "sd", "none"}
        The band around each mean over seeds (:func:`reports.rendering.figures.band_half_width`).
    colours : Mapping[str, str], optional
        Metric -> colour (the run's, :func:`reports.rendering.style.metric_colours`); by default chosen over these rows.
    """
    rows = at_largest_n(results.loc[results["scenario"] == experiment.scenario])
    panels = _lines(rows)
    if not panels:
        raise ValueError(f"no metric of the review in scenario {experiment.scenario!r}")
    lines = [line for own in panels.values() for line in own]
    rows = rows.loc[_of(rows, lines)]
    registry = StyleRegistry(rows, panels=list(panels.values()), colours=colours)
    summary = seed_means(rows, ["value", "value_label", "metric", "sub_score", "property"])
    ideals = ideal_table(rows)
    notes: list[str] = []
    with paper_style():
        figure, axes, height = _figure(panels)
        tags = {}
        for index, (ax, (group, own)) in enumerate(zip(axes, panels.items())):
            drawn = summary.loc[_of(summary, own)]
            tags[ax] = draw_ideals(ax, ideals, [p for p in SCORE_PROPERTIES if p in set(drawn["property"])],
                                    rows["value"].unique())
            notes += draw_scores(ax, drawn, "value", registry, band=band, label=_label)
            format_axis(ax, rows, experiment.axis)
            score_axis(ax)
            if experiment.descending:
                ax.invert_xaxis()
            ax.set_title(f"({'abc'[index]}) {group}-based", loc="left")
            _legend_below(ax)
        axes[0].set_ylabel("score")
        title = fill_to_width(_title(experiment, f"n = {int(rows['n_samples'].max())}, "
                                                 f"{band_text(band, summary['n_seeds'])}; ideal tags: {TAG_KEY}"),
                              figure.get_figwidth(), FONT_SIZE)
        figure.suptitle(title, fontsize=FONT_SIZE)
        label_ideals(figure, tags, notes, height, FONT_SIZE, heading=title)
    return Drawn(figure, notes)


def efficiency_figure(efficiency: pd.DataFrame, experiment: Experiment, *, band: str = "ci95",
                      colours: Mapping[str, str] | None = None) -> Drawn:
    """Figure 9's arrangement: mean |score(n) − score(n_max)| against n (log), one panel per family.

    ``efficiency`` is :func:`reports.analyses.sample_efficiency.sample_efficiency`'s table, of ``experiment.scenario``;
    ``colours`` as :func:`score_figure`'s.
    """
    rows = efficiency.loc[efficiency["scenario"] == experiment.scenario]
    panels = _lines(rows)
    if not panels:
        raise ValueError(f"no metric of the review in the sample efficiency of {experiment.scenario!r}")
    summary = rows.rename(columns={"mean_abs_difference": "mean", "std_abs_difference": "std"}).assign(
        higher_is_better=True)
    registry = StyleRegistry(summary, panels=list(panels.values()), colours=colours)
    sizes = sorted(summary["n"].unique())
    with paper_style():
        figure, axes, _ = _figure(panels)
        top = 1.15 * max(float(summary["mean"].max()), 1e-3)
        for index, (ax, (group, own)) in enumerate(zip(axes, panels.items())):
            drawn = summary.loc[_of(summary, own)]
            draw_scores(ax, drawn, "n", registry, band=band, clip=False, label=_label)
            ax.set_xscale("log")
            ax.set_xticks(sizes, [f"{int(n):,}" for n in sizes])
            ax.set_ylim(0, top)
            ax.set_xlabel(experiment.axis)
            ax.set_title(f"({'abc'[index]}) {group}-based", loc="left")
            _legend_below(ax)
        axes[0].set_ylabel("mean |s(n) − s(n_max)|")
        figure.suptitle(fill_to_width(_title(experiment, f"n_max = {int(summary['n_max'].max())}, "
                                                         f"{band_text(band, summary['n_seeds'])}"),
                                      figure.get_figwidth(), FONT_SIZE), fontsize=FONT_SIZE)
    return Drawn(figure)


def caption(experiment: Experiment, results: pd.DataFrame) -> str:
    """The caption of an experiment's figure: the paper's figure number, what it shows, its protocol here."""
    rows = results.loc[results["scenario"] == experiment.scenario]
    counts = rows.groupby(["metric", "value", "n_samples"], dropna=False)["seed"].nunique()
    fewest, most = (int(counts.min()), int(counts.max())) if len(counts) else (0, 0)
    seeds = (f"{most} seed{'s' * (most != 1)}" if fewest == most
             else f"{fewest} to {most} seeds (raced: more where a verdict needed them)")
    protocol = (f"samples up to n = {int(rows['n_samples'].max())}" if experiment.scenario == "sample_size"
                else f"n = {int(rows['n_samples'].max())}")
    return (f"Zaidi et al. (2022), {experiment.figure} (section {experiment.section}), redrawn in the paper's "
            f"arrangement: {experiment.what}; one panel per family of the review's metrics, against "
            f"{experiment.axis}; here {protocol}, {seeds} (the paper: n = 20000, 100 seeds"
            f"{'; subsets of 100k samples' if experiment.scenario == 'sample_size' else ''}). Lines: means over "
            "seeds, bands their 95% Student-t interval; wide grey lines: the ideal trajectories, tagged with the "
            f"properties they are the ideal of ({TAG_KEY}).")


def paper_figure_drawers(results: pd.DataFrame, efficiency: pd.DataFrame | None,
                         colours: Mapping[str, str] | None = None) -> list[tuple[str, str, Callable[[], Drawn]]]:
    """The review's section-5 figures the results can draw: (file key, caption, a picklable call drawing it).

    ``results`` is the checked table with swept metrics at their defaults; ``efficiency`` the sample-efficiency
    table (None when the results have none); ``colours`` the metrics' colours (:func:`reports.rendering.style.metric_colours`
    of the run, by default of ``results``).  An experiment whose scenario, or whose every review metric, the results
    lack is left out.
    """
    colours = metric_colours(results, colours)
    drawers = []
    for experiment in EXPERIMENTS:
        rows = results.loc[results["scenario"] == experiment.scenario]
        key = f"review_{experiment.figure.lower().replace(' ', '')}_{experiment.scenario}"
        if experiment.scenario == "sample_size":
            if efficiency is None or not _lines(efficiency.loc[efficiency["scenario"] == experiment.scenario]):
                continue
            own = efficiency.loc[efficiency["scenario"] == experiment.scenario]
            drawers.append((key, caption(experiment, rows), partial(efficiency_figure, own, experiment, colours=colours)))
        elif _lines(rows):
            drawers.append((key, caption(experiment, rows), partial(score_figure, rows, experiment, colours=colours)))
    return drawers
