"""Figures: scores against each scenario's parameter, faceted by metric family.

As in Zaidi et al. (2022), Figures 4, 5, 7, 8 (scores against the swept parameter)
and 9 (estimation error against n), each scenario gets one figure with one panel per
metric family: the mean score over seeds of every sub-score against the parameter,
a band of one standard deviation over seeds, and the ideal trajectory.  PID results
(Tokui and Sato 2022, Figure 3b) get a bar chart.  Colours and styles: see
:mod:`reports._style`.  Drawing uses matplotlib's object API on the Agg canvas and
never touches pyplot's global state.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from reports._style import (
    IDEAL_COLOUR, LINESTYLES, PALETTE, add_legend, metric_colours, new_figure, paper_style, sub_score_markers,
)
from reports._table import at_largest_n, check_results, family_rank, ideal_table, score_label, seed_summary

#: Scenario whose figure is the sample-efficiency curve rather than scores.
SAMPLE_SIZE_SCENARIO = "sample_size"
#: A numeric parameter spanning at least this ratio is drawn on a log axis.
LOG_AXIS_RATIO = 100.0


def save(figure: Figure, directory: Path, key: str) -> bytes:
    """Write ``key.png`` (200 dpi) and ``key.svg`` under ``directory``; return the PNG bytes."""
    directory.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=200)
    png = buffer.getvalue()
    figure.set_layout_engine("none")  # keep the layout just computed; the SVG needs no second pass
    (directory / f"{key}.png").write_bytes(png)
    figure.savefig(directory / f"{key}.svg", format="svg", metadata={"Date": None})
    return png


def _is_categorical(rows: pd.DataFrame) -> bool:
    pairs = rows[["value", "value_label"]].drop_duplicates()
    return any(label != f"{value:g}" for value, label in pairs.itertuples(index=False))


def _format_axis(ax, rows: pd.DataFrame, parameter: str) -> None:
    values = np.sort(rows["value"].unique())
    if _is_categorical(rows):
        labels = rows.drop_duplicates("value").set_index("value")["value_label"]
        ax.set_xticks(values, [labels[v] for v in values], rotation=30, ha="right")
    elif values.min() > 0 and values.max() / values.min() >= LOG_AXIS_RATIO:
        ax.set_xscale("log")
    ax.set_xlabel(parameter)


def _flipped(rows: pd.DataFrame) -> set[tuple[str, str]]:
    """The (metric, sub_score) pairs that are lower-is-better, drawn as ``1 - score``."""
    lower = rows.loc[~rows["higher_is_better"], ["metric", "sub_score"]].drop_duplicates()
    return set(lower.itertuples(index=False, name=None))


def _label(metric: str, sub_score: str, flipped: set[tuple[str, str]]) -> str:
    return score_label(metric, sub_score) + (" (1 − score)" if (metric, sub_score) in flipped else "")


def _draw_curves(ax, summary: pd.DataFrame, x: str, colours: dict, markers: dict, flipped: set) -> None:
    for (metric, sub_score, prop), curve in summary.groupby(["metric", "sub_score", "property"]):
        curve = curve.sort_values(x)
        colour = colours.get(metric, PALETTE[-1])
        marker, fill = markers.get((metric, sub_score), ("o", "full"))
        ax.plot(curve[x], curve["mean"], color=colour, linestyle=LINESTYLES.get(prop, "-"), marker=marker,
                fillstyle=fill, label=_label(metric, sub_score, flipped))
        ax.fill_between(curve[x], curve["mean"] - curve["std"], curve["mean"] + curve["std"], color=colour,
                        alpha=0.15, linewidth=0)


def _draw_ideals(ax, ideals: pd.DataFrame, properties: Sequence[str]) -> None:
    for prop in properties:
        line = ideals.loc[ideals["property"] == prop].sort_values("value")
        if not line.empty:
            ax.plot(line["value"], line["ideal"], color=IDEAL_COLOUR, linewidth=3.2, linestyle=LINESTYLES[prop],
                    zorder=0, label=f"ideal {prop}")


def _families(rows: pd.DataFrame) -> list[str]:
    return sorted(rows["family"].unique(), key=family_rank)


def _legend_labels(scores: pd.DataFrame, flipped: set, ideals: pd.DataFrame | None = None) -> list[str]:
    pairs = scores[["metric", "sub_score"]].drop_duplicates()
    labels = [_label(metric, sub_score, flipped) for metric, sub_score in pairs.itertuples(index=False)]
    return labels + ([f"ideal {prop}" for prop in ideals["property"].unique()] if ideals is not None else [])


def _unit_interval(ax, means: pd.Series) -> None:
    """Scores within [0, 1] get that scale (a spread band may leave the view)."""
    if means.min() >= -0.05 and means.max() <= 1.05:
        ax.set_ylim(-0.05, 1.05)
        ax.set_yticks([0.0, 0.5, 1.0])


def scenario_figure(results: pd.DataFrame, scenario: str, *, colours: dict | None = None) -> Figure:
    """Scores of every sub-score against the parameter of ``scenario``, one panel per family.

    The scenario is drawn at its largest sample size; scores are oriented so that
    higher is better (a lower-is-better sub-score is drawn as ``1 - score``).
    """
    colours = colours or metric_colours(results)
    rows = at_largest_n(results.loc[results["scenario"] == scenario])
    if rows.empty:
        raise ValueError(f"no rows for scenario {scenario!r}")
    summary = seed_summary(rows, ["value", "metric", "sub_score", "family", "property"])
    ideals = ideal_table(rows)
    markers = sub_score_markers(results)
    families = _families(rows)
    flipped = _flipped(rows)
    with paper_style():
        figure, axes = new_figure(len(families), legend_labels=_legend_labels(summary, flipped, ideals))
        for ax, family in zip(axes, families):
            shown = summary.loc[summary["family"] == family]
            _draw_ideals(ax, ideals, [p for p in LINESTYLES if p in set(shown["property"])])
            _draw_curves(ax, shown, "value", colours, markers, flipped)
            _format_axis(ax, rows, rows["parameter"].iloc[0])
            _unit_interval(ax, shown["mean"])
            ax.set_title(family)
            ax.set_ylabel("score")
        add_legend(figure, axes)
        figure.suptitle(f"{scenario} (n = {int(rows['n_samples'].max())}, {_count(int(summary['n_seeds'].max()), 'seed')})",
                        fontsize=8)
    return figure


def efficiency_figure(efficiency: pd.DataFrame, *, colours: dict, markers: dict) -> Figure:
    """Mean ``|score(n) - score(n_max)|`` against n, one panel per family (review Figure 9)."""
    summary = efficiency.rename(columns={"mean_abs_difference": "mean", "std_abs_difference": "std"})
    families = _families(summary)
    with paper_style():
        figure, axes = new_figure(len(families), legend_labels=_legend_labels(summary, set()))
        for ax, family in zip(axes, families):
            _draw_curves(ax, summary.loc[summary["family"] == family], "n", colours, markers, set())
            ax.set_xscale("log")
            ax.set_xlabel("n")
            ax.set_ylabel("mean |s(n) − s(n_max)|")
            ax.set_title(family)
        add_legend(figure, axes)
        figure.suptitle(f"sample efficiency (n_max = {int(summary['n_max'].max())})", fontsize=8)
    return figure


#: Scenarios the PID bar chart shows when present: the Gaussian toy model of Tokui and
#: Sato (2022, section 5.1), built for PID; otherwise every scenario with PID results.
PID_SCENARIO_PREFIX = "gaussian_toy"


HATCHES = ("", "////", "....", "xxxx", "\\\\\\\\", "++++")


def _pid_terms(sub_scores: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Term -> (lower sub-score, upper sub-score); a term without bounds maps to itself twice."""
    terms: dict[str, tuple[str, str]] = {}
    for name in sorted(sub_scores):
        for suffix in ("_lower", "_upper"):
            if name.endswith(suffix) and f"{name[:-len(suffix)]}_lower" in sub_scores and f"{name[:-len(suffix)]}_upper" in sub_scores:
                base = name[: -len(suffix)]
                terms[base] = (f"{base}_lower", f"{base}_upper")
                break
        else:
            terms[name] = (name, name)
    return terms


def pid_figure(results: pd.DataFrame, *, metric: str = "pid", colour: str | None = None) -> Figure:
    """PID terms per scenario and value, with the span between each term's bounds.

    As in Tokui and Sato (2022), Figure 3b: a term's bar is solid up to the mean (over
    seeds) of its lower bound and pale from there up to the mean of its upper bound,
    the range the term's value may take.  A sub-score without bounds (e.g. the total
    information) is a solid bar with one standard deviation as error bar.  Bars take
    the metric's colour and differ by hatching.  Only the ``gaussian_toy*`` scenarios
    are drawn when the results have them.
    """
    rows = at_largest_n(results.loc[results["metric"] == metric])
    if rows.empty:
        raise ValueError(f"no rows for metric {metric!r}")
    toy = rows["scenario"].str.startswith(PID_SCENARIO_PREFIX)
    rows = rows.loc[toy] if toy.any() else rows
    summary = seed_summary(rows, ["scenario", "value", "value_label", "sub_score"])
    scenarios = sorted(summary["scenario"].unique())
    terms = _pid_terms(set(summary["sub_score"]))
    width = 0.8 / len(terms)
    colour = colour or metric_colours(results).get(metric, PALETTE[0])
    with paper_style():
        figure, axes = new_figure(len(scenarios), legend_labels=list(terms), columns=1)
        for ax, scenario in zip(axes, scenarios):
            shown = summary.loc[summary["scenario"] == scenario].set_index(["sub_score", "value"])
            values = np.sort(shown.index.get_level_values("value").unique())
            labels = shown.reset_index().drop_duplicates("value").set_index("value")["value_label"]
            for rank, (term, (lower, upper)) in enumerate(terms.items()):
                x = np.arange(len(values)) + (rank - (len(terms) - 1) / 2) * width
                low = shown["mean"].reindex([(lower, v) for v in values]).to_numpy()
                high = shown["mean"].reindex([(upper, v) for v in values]).to_numpy()
                style = {"color": colour, "hatch": HATCHES[rank % len(HATCHES)], "edgecolor": "white", "linewidth": 0.3}
                if lower == upper:
                    spread = shown["std"].reindex([(upper, v) for v in values]).to_numpy()
                    ax.bar(x, high, width, yerr=spread, label=term, error_kw={"linewidth": 0.6}, **style)
                else:
                    ax.bar(x, low, width, label=term, **style)
                    ax.bar(x, high - low, width, bottom=low, alpha=0.35, **style)
            ax.set_xticks(np.arange(len(values)), [labels[v] for v in values])
            ax.set_xlabel(rows.loc[rows["scenario"] == scenario, "parameter"].iloc[0])
            ax.set_ylabel(metric)
            ax.set_title(scenario)
        add_legend(figure, axes)
    return figure


def cost_figure(by_n: pd.DataFrame, *, colours: dict) -> Figure:
    """Median seconds per call against n on log-log axes, one line per metric."""
    with paper_style():
        figure, (ax,) = new_figure(1, legend_labels=sorted(by_n["metric"].unique()), columns=1)
        for metric, curve in by_n.groupby("metric"):
            ax.plot(curve["n"], curve["median_seconds"], color=colours.get(metric, PALETTE[-1]), marker="o", label=metric)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n")
        ax.set_ylabel("median seconds per call")
        add_legend(figure, [ax])
    return figure


def agreement_figure(matrix: pd.DataFrame) -> Figure:
    """Kendall's tau (x100) between sub-scores as a heat map, as the review's Figure 3."""
    size = len(matrix)
    side = min(7.0, max(3.5, 0.28 * size + 1.2))
    with paper_style():
        figure = Figure(figsize=(side, side), layout="constrained")
        ax = figure.subplots()
        image = ax.imshow(matrix.to_numpy(dtype=float), cmap="RdBu", vmin=-1, vmax=1)
        ax.set_xticks(range(size), matrix.columns, rotation=90)
        ax.set_yticks(range(size), matrix.index)
        if size <= 20:
            for i, j in np.ndindex(size, size):
                value = matrix.iat[i, j]
                if np.isfinite(value):
                    ax.text(j, i, f"{100 * value:.0f}", ha="center", va="center", fontsize=5,
                            color="white" if abs(value) > 0.6 else "black")
        figure.colorbar(image, ax=ax, shrink=0.7, label="Kendall's tau")
    return figure


def plot_comparison(
    results: pd.DataFrame,
    *,
    metrics: Sequence[str] | None = None,
    scenarios: Sequence[str] | None = None,
    out_file: str | Path,
    format: str | None = None,
) -> Path:
    """Compare chosen metrics on chosen scenarios in one figure, one panel per scenario.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table.  Colours are assigned from all its metrics, so a metric has
        the same colour as in the full report.
    metrics, scenarios : sequence of str, optional
        Which to draw; default all.
    out_file : str or pathlib.Path
        Where to write the figure.
    format : str, optional
        Any format matplotlib writes (png, svg, pdf, ...); default from the suffix
        of ``out_file``.

    Returns
    -------
    pathlib.Path
        ``out_file``.

    Raises
    ------
    ValueError
        For a metric or scenario absent from the results (the message lists those
        present), or when the selection leaves nothing to draw.
    """
    results = check_results(results)
    colours = metric_colours(results)
    markers = sub_score_markers(results)
    for name, chosen, column in (("metric", metrics, "metric"), ("scenario", scenarios, "scenario")):
        unknown = sorted(set(chosen or ()) - set(results[column]))
        if unknown:
            raise ValueError(f"unknown {name}(s) {unknown}; the results have {sorted(results[column].unique())}")
    rows = results
    if metrics is not None:
        rows = rows.loc[rows["metric"].isin(metrics)]
    if scenarios is not None:
        rows = rows.loc[rows["scenario"].isin(scenarios)]
    rows = at_largest_n(rows)
    if rows.empty:
        raise ValueError("the chosen metrics were not run on the chosen scenarios: nothing to draw")
    shown_scenarios = sorted(rows["scenario"].unique())
    flipped = _flipped(rows)
    labels = _legend_labels(rows, flipped, ideal_table(results.loc[results["scenario"].isin(shown_scenarios)]))
    with paper_style():
        figure, axes = new_figure(len(shown_scenarios), legend_labels=labels)
        for ax, scenario in zip(axes, shown_scenarios):
            own = rows.loc[rows["scenario"] == scenario]
            summary = seed_summary(own, ["value", "metric", "sub_score", "family", "property"])
            ideals = ideal_table(results.loc[results["scenario"] == scenario])
            _draw_ideals(ax, ideals, [p for p in LINESTYLES if p in set(summary["property"])])
            _draw_curves(ax, summary, "value", colours, markers, flipped)
            _format_axis(ax, own, own["parameter"].iloc[0])
            _unit_interval(ax, summary["mean"])
            ax.set_title(scenario)
            ax.set_ylabel("score")
        add_legend(figure, axes)
    out_file = Path(out_file)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out_file, format=format or out_file.suffix.lstrip(".") or "png", dpi=200)
    return out_file


def _count(number: int, noun: str) -> str:
    """``1 seed``, ``2 seeds``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
