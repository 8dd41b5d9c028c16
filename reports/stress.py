"""What a stress search reports: its Markdown section, the figure of its worst case, its files.

A stress search (``python -m harness stress``) hands its findings here as plain tables
(:class:`StressTables`); nothing here knows how the search ran.  :func:`stress_section`
is the section ``validate --stress`` adds to a report card (and the body of ``stress.md``);
:func:`worst_case_figure` draws the stressed sub-score along the worst case's parameter
against the ideal, with the built-ins scored on the worst case's data beside it;
:func:`stress_record` is the JSON record; :func:`write_stress` writes them all into a directory.

Scores on the figure are oriented (``1 - score`` for a lower-is-better sub-score), so that
they share the ideal's higher-is-better scale; departure = oriented score − ideal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from reports.rendering.figures import save
from reports.rendering.markdown import markdown_table
from reports.rendering.style import COLUMN_WIDTH, IDEAL_STYLE, PALETTE, paper_style, wrap_label
from reports.results.table import oriented, score_label

#: Files :func:`write_stress` writes into its directory.
MARKDOWN, JSON, MEASUREMENTS, FIGURE_KEY = "stress.md", "stress.json", "measurements.csv", "worst_case"
#: Contrast rows shown per case: the built-ins' sub-scores of the case's property, closest to the ideal first.
CONTRAST_ROWS = 5

#: Columns each table of :class:`StressTables` must have.
SUMMARY_KEYS = ("metric", "settings", "cells", "seconds", "notes")
SETTINGS_KEYS = ("scenarios", "sample_sizes", "seeds", "seed", "budget", "budget_seconds", "search_confidence",
                 "candidates", "confidence",
                 "min_departure")
CASE_COLUMNS = ("scenario", "parameter", "value_label", "n_samples", "sub_score", "property", "higher_is_better",
                "ideal", "mean_score", "departure", "half_width", "direction", "scores", "command")
CONTRAST_COLUMNS = ("case", "metric", "sub_score", "property", "higher_is_better", "mean_score", "ideal", "departure")
ALONG_COLUMNS = ("position", "score", "half_width")
IDEAL_COLUMNS = ("position", "ideal")

#: Colours of the figure: the stressed metric, the worst case's ring, the built-ins.
METRIC_COLOUR, WORST_COLOUR, BUILTIN_COLOUR = PALETTE[0], PALETTE[2], "#777777"
#: Half the width of the ideal's level segment at each choice of a choice parameter (choices are 1 apart).
CHOICE_HALF_WIDTH = 0.3
#: Longest line of the figure's title, in characters (a user's metric can have a long name).
TITLE_CHARACTERS = 44
#: Behind the figure's labels, so that a line passing under one does not cross its text.
TEXT_BACKGROUND = {"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 0.5}


@dataclass(frozen=True)
class StressTables:
    """A stress search's findings as plain tables.

    Attributes
    ----------
    summary : Mapping
        ``metric`` (name), ``settings`` (a mapping with at least :data:`SETTINGS_KEYS`:
        the scenarios and sample sizes searched, seeds per point, the search's seed, its
        budget in cells and seconds, the confidence level of the search's seed spreads
        (``search_confidence``), the number of candidate cases it picked (``candidates``), the
        confidence level of their confirmation on fresh seeds (``confidence``) and the
        smallest departure reported), ``cells`` and ``seconds`` spent, ``notes`` (list of
        str); optionally ``failed_cells``, those of ``cells`` that have no score (default 0);
        any other key (e.g. ``reference``) goes into the JSON record as it is.
    measurements : pandas.DataFrame
        Every sub-score measured at every point, one row each (written as ``measurements.csv``).
    cases : pandas.DataFrame
        One row per case, worst first, with :data:`CASE_COLUMNS`: the point (scenario, its
        parameter, the value's label, the sample size), the sub-score and its property
        and direction, the ideal, the mean raw score, the departure and the half-width of
        its interval over the fresh seeds that confirmed it, ``over``/``under``, those seeds'
        raw ``scores`` (a sequence) and the ``command`` that replays it (the search's seeds
        and the fresh ones).  Further columns (e.g. ``first_seed``, the first fresh seed) go
        into the JSON record.
    contrast : pandas.DataFrame
        The built-ins scored on each case's data, with :data:`CONTRAST_COLUMNS`: ``case``
        is the case's rank (1 = first row of ``cases``); ``mean_score`` is raw, its direction
        ``higher_is_better``, ``ideal`` and ``departure`` as for the cases.
    along : pandas.DataFrame
        The worst case's sub-score at every point the search measured along its parameter
        (same scenario and sample size, the search's seeds), with :data:`ALONG_COLUMNS`: ``position`` on the
        figure's x axis (the value, or the index of a choice), the mean oriented ``score``
        and its ``half_width``; a boolean ``worst`` column marks the worst case's row.
    ideal : pandas.DataFrame
        The ideal of the worst case's property along the parameter, :data:`IDEAL_COLUMNS`.
    ticks : tuple of str
        For a parameter that is a choice, the choices' labels at positions 0, 1, ...;
        empty for a numeric parameter.
    """

    summary: Mapping[str, Any]
    measurements: pd.DataFrame
    cases: pd.DataFrame
    contrast: pd.DataFrame
    along: pd.DataFrame
    ideal: pd.DataFrame
    ticks: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _require_keys(self.summary, "summary", SUMMARY_KEYS)
        _require_keys(self.summary["settings"], "summary['settings']", SETTINGS_KEYS)
        _require_columns(self.cases, "cases", CASE_COLUMNS)
        _require_columns(self.contrast, "contrast", CONTRAST_COLUMNS)
        if len(self.cases):
            _require_columns(self.along, "along", (*ALONG_COLUMNS, "worst"))
            _require_columns(self.ideal, "ideal", IDEAL_COLUMNS)
            if int(self.along["worst"].sum()) != 1:
                raise ValueError(f"along must mark exactly one row as worst, got {int(self.along['worst'].sum())}")


def _require_keys(mapping: Mapping[str, Any], name: str, keys: Sequence[str]) -> None:
    if not isinstance(mapping, Mapping):
        raise TypeError(f"{name} must be a mapping, got {type(mapping).__name__}")
    missing = [key for key in keys if key not in mapping]
    if missing:
        raise ValueError(f"{name} lacks {', '.join(missing)}")


def _require_columns(frame: pd.DataFrame, name: str, columns: Sequence[str]) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks the column(s) {', '.join(missing)}")


def stress_section(tables: StressTables, *, heading: str = "##") -> str:
    """The search's findings as Markdown: settings, the cases with their recipes, and notes.

    Parameters
    ----------
    tables : StressTables
        The search's findings.
    heading : str, default "##"
        The section's heading level; cases and notes are one level below.

    Returns
    -------
    str
        The section, ending with a newline.
    """
    summary, settings, metric = tables.summary, tables.summary["settings"], tables.summary["metric"]
    lines = [
        f"{heading} Stress search: where `{metric}` departs most from its ideal",
        "",
        f"- searched: {len(settings['scenarios'])} scenario(s) ({', '.join(settings['scenarios'])}); sample sizes "
        f"{', '.join(map(str, settings['sample_sizes']))}; {settings['seeds']} seeds per point; search seed "
        f"{settings['seed']}",
        f"- budget: {settings['budget']} cells per scenario"
        + (f" or {settings['budget_seconds']:g} s" if settings["budget_seconds"] else "")
        + f"; used {summary['cells']} cells of `{metric}` in {summary['seconds']:.0f} s (with the extra cells of the race, the confirmation and the contrast)",
        f"- a case is picked on the search's seeds (its {_percent(settings['search_confidence'])} interval over them "
        f"excludes 0, its departure at least {settings['min_departure']:g}), then confirmed on as many fresh seeds: "
        f"there its departure lies the same way, reaches {settings['min_departure']:g}, and its "
        f"{_percent(settings['confidence'])} interval ("
        + (f"5% split over the {settings['candidates']} candidate(s)" if settings["candidates"] else "no candidate")
        + ") "
        "excludes 0; the cases' numbers are the fresh seeds'; departure = oriented score − ideal "
        "(> 0: over-scores a worse code, < 0: under-scores a better one); the tables show oriented scores, "
        "1 − score for a lower-is-better sub-score (marked so)",
        "",
    ]
    failed = int(summary.get("failed_cells", 0))
    if failed:
        lines.insert(-1, f"- **{failed} of the {summary['cells']} cells of `{metric}` failed** and have no score "
                         "(see the notes)")
    if tables.cases.empty and failed and failed == summary["cells"]:
        lines.append(f"Nothing measured: every cell of `{metric}` failed, so the search could not judge it.")
    elif tables.cases.empty:
        lines.append(f"No case beyond the seed spread among {len(tables.measurements)} measurements"
                     + (" (none of the candidates confirmed on fresh seeds: see the notes)." if settings["candidates"]
                        else "."))
    else:
        lines += [markdown_table(_cases_table(tables.cases), digits=3), ""]
        for rank, case in enumerate(tables.cases.to_dict(orient="records"), start=1):
            lines += _case_lines(rank, case, tables.contrast.loc[tables.contrast["case"] == rank], heading)
    if summary["notes"]:
        lines += ["", f"{heading}# Notes", "", *(f"- {note}" for note in summary["notes"])]
    return "\n".join(lines).rstrip("\n") + "\n"


def _oriented_columns(rows: pd.DataFrame) -> dict[str, Any]:
    """The sub-score (``name (1 − score)`` when lower is better) and its oriented mean score, as tables show them."""
    higher = rows["higher_is_better"].astype(bool).to_numpy()
    return {
        "sub-score": [name if up else f"{name} (1 − score)" for name, up in zip(rows["sub_score"], higher)],
        "property": rows["property"].to_numpy(),
        "mean score": oriented(rows["mean_score"].to_numpy(float), higher),
    }


def _cases_table(cases: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "rank": range(1, len(cases) + 1),
        "scenario": cases["scenario"].to_numpy(),
        "value": cases["value_label"].to_numpy(),
        "n": cases["n_samples"].to_numpy(),
        **_oriented_columns(cases),
        "ideal": cases["ideal"].to_numpy(),
        "departure": cases["departure"].to_numpy(),
        "± spread": cases["half_width"].to_numpy(),
        "direction": cases["direction"].to_numpy(),
    })


def _case_lines(rank: int, case: Mapping[str, Any], contrast: pd.DataFrame, heading: str) -> list[str]:
    scores = ", ".join(f"{score:.4g}" for score in case["scores"])
    lower = "" if case["higher_is_better"] else "; lower is better, judged as 1 − score"
    lines = [
        f"{heading}# Case {rank}: {case['scenario']} = {case['value_label']}, n = {case['n_samples']}",
        "",
        f"- {case['sub_score']} ({case['property']}{lower}): scores {scores} on fresh seeds {_seeds(case)}; ideal "
        f"{case['ideal']:.3g}; departure {case['departure']:+.3f} ± {case['half_width']:.3f}",
        f"- replay: `{case['command']}`",
    ]
    closest = _closest_builtins(contrast, case["property"]).head(CONTRAST_ROWS)
    if not closest.empty:
        shown = pd.DataFrame({"metric": closest["metric"].to_numpy(), **_oriented_columns(closest),
                              "ideal": closest["ideal"].to_numpy(), "departure": closest["departure"].to_numpy()})
        lines += ["", f"Built-ins measuring {case['property']} on the same data (closest to the ideal first):", "",
                  markdown_table(shown, digits=3)]
    return [*lines, ""]


def _seeds(case: Mapping[str, Any]) -> str:
    """The fresh seeds behind a case's scores: ``first to last``."""
    first = int(case.get("first_seed", 0))
    return f"{first} to {first + len(case['scores']) - 1}"


def _percent(level: float) -> str:
    """A confidence level with the digits that tell it from its neighbours (95%, 99.2%)."""
    return f"{level:.1%}".replace(".0%", "%")


def _closest_builtins(contrast: pd.DataFrame, prop: str) -> pd.DataFrame:
    """The contrast rows of property ``prop``, closest to the ideal first."""
    same = contrast.loc[contrast["property"] == prop]
    return same.iloc[same["departure"].abs().argsort(kind="stable")]


def worst_case_figure(tables: StressTables) -> Figure:
    """The worst case's sub-score along its parameter, at its sample size, against the ideal.

    Left: every point measured along the worst case's parameter (same scenario, sub-score
    and sample size), the mean oriented score over the search's seeds with its seed spread
    (the confidence interval of the mean), the ideal as a wide grey line, and an arrow from
    the ideal to the worst case's mean on its fresh seeds (the ring), labelled with its
    departure there.  Right, when there is contrast: the
    built-ins measuring the same property on the worst case's data (oriented mean scores),
    the one closest to the ideal named.

    Parameters
    ----------
    tables : StressTables
        The search's findings (the first case is the worst).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        When there is no case.
    """
    if tables.cases.empty:
        raise ValueError("tables.cases is empty: the stress search found no case to draw")
    case = tables.cases.iloc[0]
    builtins = _closest_builtins(tables.contrast.loc[tables.contrast["case"] == 1], case["property"])
    along = tables.along.sort_values("position")
    worst = along.loc[along["worst"].astype(bool)].iloc[0]
    confirmed = float(case["ideal"] + case["departure"])  # the worst case's oriented mean on its fresh seeds
    name = wrap_label(score_label(tables.summary["metric"], case["sub_score"], bool(case["higher_is_better"])))
    with paper_style():
        figure = Figure(figsize=(COLUMN_WIDTH, 2.6), layout="constrained")
        if builtins.empty:
            ax = figure.subplots()
        else:
            ax, side = figure.subplots(1, 2, sharey=True, width_ratios=(4, 1))
        ax.errorbar(along["position"], along["score"], yerr=along["half_width"], fmt="o" if tables.ticks else "o-",
                    color=METRIC_COLOUR, linewidth=0.6, capsize=2, label=name)
        ax.plot(*_ideal_line(tables.ideal, categorical=bool(tables.ticks)), label="ideal", **IDEAL_STYLE)
        ax.plot([worst["position"]], [confirmed], "o", markersize=9, markerfacecolor="none",
                markeredgewidth=1.2, color=WORST_COLOUR, label="worst case")
        _draw_departure(ax, worst["position"], case["ideal"], confirmed, case,
                        left=worst["position"] > along["position"].median())
        if tables.ticks:
            ax.set_xticks(range(len(tables.ticks)), tables.ticks, rotation=30, ha="right")
        ax.set_xlabel(case["parameter"])
        ax.set_ylabel(f"{case['property']} (oriented: higher is better)")
        shown = np.concatenate([along["score"].to_numpy(float) + sign * along["half_width"].fillna(0).to_numpy(float)
                                for sign in (-1, 1)] + [[confirmed]])
        shown = shown[np.isfinite(shown)]
        # [0, 1], widened to scores outside it (a metric beyond its range was drawn off the axes, ring and arrow too)
        low, high = min(0.0, float(shown.min(initial=0.0))), max(1.0, float(shown.max(initial=1.0)))
        ax.set_ylim(low - 0.05 * (high - low), high + 0.05 * (high - low))
        ax.set_title(wrap_label(f"{tables.summary['metric']} on {case['scenario']}, n = {case['n_samples']}",
                                TITLE_CHARACTERS), loc="left")
        if not builtins.empty:
            _draw_builtins(side, builtins, case, confirmed)
        handles = dict(zip(*reversed(ax.get_legend_handles_labels())))
        figure.legend([handles[label] for label in (name, "ideal", "worst case")], [name, "ideal", "worst case"],
                      loc="outside lower center", ncols=3, frameon=False)
    return figure


def _ideal_line(ideal: pd.DataFrame, *, categorical: bool) -> tuple[np.ndarray, np.ndarray]:
    """The ideal curve's points; for a choice parameter, one short level segment per choice (nothing between)."""
    if not categorical:
        return ideal["position"].to_numpy(float), ideal["ideal"].to_numpy(float)
    x = np.concatenate([[p - CHOICE_HALF_WIDTH, p + CHOICE_HALF_WIDTH, np.nan] for p in ideal["position"]])
    y = np.concatenate([[level, level, np.nan] for level in ideal["ideal"]])
    return x, y


def _draw_departure(ax: Axes, x: float, ideal: float, score: float, case: pd.Series, *, left: bool) -> None:
    """A vertical arrow from the ideal to the worst case's score, labelled with the departure beside it."""
    ax.annotate("", xy=(x, score), xytext=(x, ideal),
                arrowprops={"arrowstyle": "->", "color": WORST_COLOUR, "shrinkA": 2, "shrinkB": 6})
    ax.annotate(f"departure\n{case['departure']:+.2f} ± {case['half_width']:.2f}", xy=(x, ideal + (score - ideal) / 4),
                xytext=(-5 if left else 5, 0), textcoords="offset points", ha="right" if left else "left",
                va="center", color=WORST_COLOUR, bbox=TEXT_BACKGROUND)


def _draw_builtins(ax: Axes, builtins: pd.DataFrame, case: pd.Series, worst_score: float) -> None:
    """The built-ins' oriented scores at the worst case, beside the stressed metric's and the ideal."""
    oriented = builtins["departure"] + builtins["ideal"]
    ax.axhline(case["ideal"], **IDEAL_STYLE)
    ax.plot([0.0] * len(oriented), oriented, "_", markersize=10, markeredgewidth=1.2, color=BUILTIN_COLOUR,
            label="built-ins")
    ax.plot([0.0], [worst_score], "o", markersize=9, markerfacecolor="none", markeredgewidth=1.2,
            color=WORST_COLOUR)
    closest = builtins.iloc[0]
    below = oriented.iloc[0] >= 0.9
    ax.annotate(closest["metric"], xy=(0.0, oriented.iloc[0]), xytext=(0, -4 if below else 4),
                textcoords="offset points", ha="center", va="top" if below else "bottom", fontsize=5,
                color=BUILTIN_COLOUR, bbox=TEXT_BACKGROUND)
    ax.set_xlim(-1, 1)
    ax.set_xticks([0.0], [f"{len(builtins)} built-in{'s' if len(builtins) > 1 else ''},\nsame data"])
    ax.tick_params(axis="y", left=False)
    ax.spines["left"].set_visible(False)


def stress_record(tables: StressTables) -> dict[str, Any]:
    """JSON-ready content: the summary, and every case with its per-seed scores, recipe and contrast.

    The measurements are left out (they are ``measurements.csv``).
    """
    cases = []
    for rank, case in enumerate(tables.cases.to_dict(orient="records"), start=1):
        contrast = tables.contrast.loc[tables.contrast["case"] == rank].drop(columns="case")
        cases.append({**case, "scores": [float(score) for score in case["scores"]],
                      "contrast": contrast.to_dict(orient="records")})
    return {**tables.summary, "cases": cases}


def write_stress(tables: StressTables, out: str | Path) -> Path:
    """Write ``stress.md``, ``stress.json``, ``measurements.csv`` and ``figures/worst_case.png``/``.svg`` into ``out``.

    The figure is written only when there is a case.

    Parameters
    ----------
    tables : StressTables
        The search's findings.
    out : path
        The directory (created if missing).

    Returns
    -------
    pathlib.Path
        The Markdown file's path.
    """
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    tables.measurements.to_csv(directory / MEASUREMENTS, index=False)
    (directory / JSON).write_text(json.dumps(stress_record(tables), indent=1, default=str) + "\n")
    markdown = directory / MARKDOWN
    markdown.write_text(stress_section(tables, heading="#"))
    if not tables.cases.empty:
        save(worst_case_figure(tables), directory / "figures", FIGURE_KEY, formats=("png", "svg"))
    return markdown
