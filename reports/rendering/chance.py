"""Chance levels drawn: each sub-score's chance level against the sample size (:mod:`reports.analyses.chance`), and
the report's chance-level section."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from reports.analyses.chance import (
    HIGH,
    LOW,
    chance_levels,
    chance_rollup,
    chance_sentences,
    chance_summary,
    study_sample_size,
)
from reports.rendering.figures import Drawn, band_text
from reports.rendering.style import PAGE_WIDTH, paper_style, wrap_label
from reports.results.display import Section, display_table
from reports.results.table import MissingDataError, family_figures, score_label

#: Most sub-score panels in one chance figure (a family with more is split).
PANELS_PER_FIGURE = 15
#: Panel width and height, in inches.
PANEL_INCHES = (1.3, 1.1)
#: Line styles of the null scenarios of a figure, in name order (one colour per width).
SCENARIO_STYLES = ("-", "--", ":", "-.")


def chance_figures(levels: pd.DataFrame, *, band: str = "ci95") -> list[tuple[str, Drawn]]:
    """The chance levels against n (log), one panel per sub-score, one colour per width and one line style per
    null scenario, reference lines at :data:`LOW` and :data:`HIGH`; one figure per family (split past
    :data:`PANELS_PER_FIGURE`), named ``chance_<family>``."""
    return [(key, draw()) for key, draw in chance_drawers(levels, band=band)]


def chance_drawers(levels: pd.DataFrame, *, band: str = "ci95") -> list[tuple[str, Callable[[], Drawn]]]:
    """:func:`chance_figures` not drawn yet: ``(key, a picklable call that draws it)``."""
    import functools

    drawers = []
    for family, suffix, own, part in family_figures(levels, PANELS_PER_FIGURE):
        drawers.append((f"chance_{family}{suffix}", functools.partial(_chance_figure, own, part, family + suffix, band)))
    return drawers


def _chance_figure(levels: pd.DataFrame, scores: list[tuple[str, str, bool]], title: str, band: str) -> Drawn:
    from matplotlib import colormaps

    from reports.rendering.figures import SCORE_LIMITS, add_bands, band_half_width, clip_means

    widths = levels[["value", "value_label", "parameter"]].drop_duplicates("value").sort_values("value")
    colours = colormaps["viridis"](np.linspace(0.0, 0.85, len(widths)))
    scenarios = sorted(levels["scenario"].unique())
    columns = max(1, min(len(scores), int(PAGE_WIDTH // PANEL_INCHES[0])))
    rows = -(-len(scores) // columns)
    limits = (SCORE_LIMITS[0], float(min(1.05, max(2.5 * HIGH, 1.1 * levels["mean"].max()))))
    notes: list[str] = []  # levels off the axis (DCI-ES's explicitness is about -1 on null codes)
    sizes = sorted(levels["n_samples"].unique())
    curves = dict(tuple(levels.groupby(["metric", "sub_score", "value", "scenario"])))  # once, not a filter per line
    with paper_style():
        figure = Figure(figsize=(PAGE_WIDTH, rows * PANEL_INCHES[1] + 0.9), layout="constrained")
        axes = figure.subplots(rows, columns, squeeze=False, sharex=True, sharey=True)
        for index, ax in enumerate(axes.flat):
            if index >= len(scores):
                ax.set_visible(False)
                continue
            metric, sub_score, higher = scores[index]
            panel_label = score_label(metric, sub_score, bool(higher))
            for reference in (LOW, HIGH):
                ax.axhline(reference, color="#999999", linewidth=0.6, linestyle=":", zorder=0)
            bands = []
            for (value, label, parameter), colour in zip(widths.itertuples(index=False), colours):
                for scenario, style in zip(scenarios, SCENARIO_STYLES * len(scenarios)):
                    curve = curves.get((metric, sub_score, value, scenario))
                    if curve is None:
                        continue
                    curve = curve.sort_values("n_samples")
                    name = f"{parameter} = {label}" + (f" ({scenario})" if len(scenarios) > 1 else "")
                    sizes_n, mean = curve["n_samples"].to_numpy(), curve["mean"].to_numpy()
                    shown, clipped = clip_means(ax, sizes_n, mean, f"{panel_label}, {name}",
                                                curve["n_samples"].map("n = {:d}".format).to_numpy(), limits)
                    notes += clipped
                    ax.plot(sizes_n, shown, color=colour, linestyle=style, marker="o", markersize=2.0, linewidth=0.9,
                            label=name)
                    half = band_half_width(curve["std"].to_numpy(), curve["n_seeds"].to_numpy(), band)
                    if half is not None and np.any(half > 0):
                        bands.append((sizes_n, mean - half, mean + half, colour))
            add_bands(ax, bands)
            ax.set_xscale("log")
            ax.set_ylim(*limits)
            ax.set_title(wrap_label(panel_label, 22), loc="left", fontsize=6)
            ax.tick_params(labelsize=5)
            if index % columns == 0:
                ax.set_ylabel("chance level", fontsize=6)
            if index + columns >= len(scores):
                ax.set_xlabel("n", fontsize=6)
                ax.tick_params(axis="x", labelbottom=True)
        if len(sizes) <= 6:
            for ax in axes.flat:
                ax.set_xticks(sizes, [str(int(n)) for n in sizes])
                ax.minorticks_off()
        handles, labels = axes.flat[0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="outside lower center", frameon=False, ncol=min(len(labels), 4),
                      fontsize=6, title=f"{band_text(band, levels['n_seeds'])}; dotted: {LOW:g} and {HIGH:g}",
                      title_fontsize=6)
        figure.suptitle(f"chance level on codes independent of the factors: {title} (higher is worse)", fontsize=7,
                        x=0.01, ha="left")
    return Drawn(figure, notes)


DESCRIPTION = (
    "What each sub-score reaches on codes independent of the factors (the scenarios testing chance: Gaussian and "
    "uniform null codes, Joshi et al. 2026, encoders E9 and E10), where every ideal is 0: its chance level, the mean "
    "over seeds of the score oriented so that higher is worse (1 − score for lower-is-better sub-scores). "
    f"A chance level above {HIGH:g} means a score at that n and width is not evidence of anything until it "
    "beats its null. Run it with --grid "
    "'null_gaussian=width_ratio:1,4,16;n_samples:50,200,1000,5000,20000' (and --scenarios null_gaussian).")
#: Where the chance section's rows are (:attr:`reports.results.display.Section.where`).
WHERE = (f"Per sub-score below: its worst code width at the study's sample size, with the 95% Student-t interval over "
         f"seeds (clipped to [0, 1] for a level within it), and the smallest swept n from which it stays below {LOW:g} "
         "at every width and every larger swept n. The figures draw each sub-score's chance level against n (log "
         "scale), one colour per width. Every scenario, width and sub-score in the folded table and tables/chance.csv.")


def chance_section(results: pd.DataFrame, *, levels: pd.DataFrame | None = None) -> Section:
    """The report's chance-level section (its figures are :func:`chance_drawers`'), or a note saying what is missing.

    ``levels``: :func:`chance_levels` of ``results`` when already computed (the report's bundle keeps them).
    """
    try:
        levels = chance_levels(results) if levels is None else levels
    except MissingDataError as missing:
        return Section("chance", "Chance level", DESCRIPTION, notes=[f"Not computed: {missing}"])
    study_n = study_sample_size(results)
    summary = chance_summary(levels, study_n)
    details = summary.assign(score=[score_label(m, s, bool(h)) for m, s, h in
                                    summary[["metric", "sub_score", "higher_is_better"]].itertuples(index=False)],
                             below=summary["below_from"].map(lambda n: "never" if pd.isna(n) else f"{int(n)}"))
    return Section("chance", "Chance level", DESCRIPTION, where=WHERE, table=summary, display=chance_rollup(summary),
                   details=display_table(details, {"score": "Sub-score", "scenario": "Scenario",
                                                   "value_label": "Width", "n": "n", "level": "Chance level",
                                                   "low": "95% low", "high": "95% high", "n_seeds": "Seeds",
                                                   "below": f"Below {LOW:g} from n", "n_max": "Largest n"}, digits=3),
                   lines=chance_sentences(summary, study_n))
