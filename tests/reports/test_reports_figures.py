"""Report figures: a colour per line inside every panel, panels per property and family, stated bands, ideal drawn."""

from __future__ import annotations

import io

import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from scipy import stats

from reports import check_results
from reports.rendering.figures import (
    CLIP_LABEL,
    CLIP_MARKER,
    PNG_COLOURS,
    PNG_DPI,
    READ_RANGE_NOTE,
    atlas_figures,
    band_half_width,
    band_text,
    cost_figure,
    efficiency_figure,
    save,
    scenario_figure,
)
from reports.rendering.style import (
    IDEAL_STYLE,
    PAGE_WIDTH,
    PALETTE,
    StyleRegistry,
    chunks,
    close_colours,
    parse_colours,
    report_panels,
)

#: lin's scores over seeds 0, 1, 2 are m - 0.01, m, m + 0.01: standard deviation 0.01, three seeds.
LIN_HALF_WIDTH = stats.t.ppf(0.975, 2) * 0.01 / np.sqrt(3)


def _panels(figure):
    """The panels of a report figure (its legend axes have no title)."""
    return [ax for ax in figure.axes if ax.get_title(loc="left")]


def _score_lines(ax):
    """The lines of a panel that draw a score: not the ideal, not a clipping mark."""
    return [line for line in ax.get_lines() if line.get_color() != IDEAL_STYLE["color"]
            and line.get_color() != CLIP_MARKER["color"]]


def test_a_metric_has_one_colour_and_every_line_of_a_report_panel_its_own_style(synthetic_results):
    results = check_results(synthetic_results)
    registry = StyleRegistry(results)
    for panel in report_panels(results):
        styles = [registry(*line) for line in panel]
        metrics = {metric for metric, _ in panel}
        # the metrics of a panel differ in colour, its lines in marker, and lines of one colour in line style
        assert len({registry.metric(metric).colour for metric in metrics}) == len(metrics) <= len(PALETTE), panel
        assert len({style.marker for style in styles}) == len(styles), panel
        assert len({(style.colour, style.linestyle) for style in styles}) == len(styles), panel
    # pid's four terms share the information/holistic panel: one colour, four line styles; lin measures three
    # properties in three panels and keeps one style in all of them
    terms = [registry("pid", term) for term in ("unique_lower", "unique_upper", "redundant_lower", "redundant_upper")]
    assert len({style.colour for style in terms}) == 1 and len({style.linestyle for style in terms}) == 4
    assert len({registry("lin", prop) for prop in ("modularity", "compactness", "explicitness")}) == 1
    assert set(style.colour for style in (registry("lin", "modularity"), registry("step", "step"))) <= set(PALETTE)
    # the style depends only on the lines drawn, not on how many rows hold them
    assert StyleRegistry(results.loc[results["seed"] == 0])("pid", "unique_upper") == registry("pid", "unique_upper")
    with pytest.raises(KeyError, match="no style for lin/nope"):
        registry("lin", "nope")


def test_the_report_of_every_registered_metric_draws_no_colour_twice_in_a_panel(synthetic_results):
    # coloured greedily in name order, the cost figure's second panel of information metrics drew modularity and
    # unibound in one blue: pid's seven terms had taken the colours their neighbours needed
    from metrics.registry import available, get

    row = check_results(synthetic_results).iloc[[0]]
    lines = [row.assign(metric=name, family=get(name).family, sub_score=sub_score, property=prop)
             for name in available(population=None) for sub_score, prop in get(name).properties.items()]
    results = pd.concat(lines, ignore_index=True)
    registry = StyleRegistry(results)
    panels = report_panels(results)
    assert max(len(panel) for panel in panels) > len(PALETTE)  # pid's terms: 11 lines of information/compactness
    for panel in panels:
        styles = {registry(*line) for line in panel}
        assert len(styles) == len(panel), panel
        metrics = {metric for metric, _ in panel}
        if len(metrics) <= len(PALETTE):
            assert len({registry.metric(metric).colour for metric in metrics}) == len(metrics), panel


def test_a_panel_of_more_metrics_than_colours_repeats_a_colour_in_another_line_style(synthetic_results):
    lin = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    many = pd.concat([lin.assign(metric=f"m{i:02d}") for i in range(12)], ignore_index=True)
    registry = StyleRegistry(many, panels=[[(f"m{i:02d}", "modularity") for i in range(12)]])
    styles = [registry(f"m{i:02d}", "modularity") for i in range(12)]
    assert {style.colour for style in styles} == set(PALETTE)
    assert len({(style.colour, style.linestyle) for style in styles}) == 12
    assert len({style.marker for style in styles}) == 12


def test_a_users_colours_are_kept_and_close_colours_get_their_own_line_styles(synthetic_results):
    lin = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    many = pd.concat([lin.assign(metric=f"m{i}") for i in range(4)], ignore_index=True)
    registry = StyleRegistry(many, panels=[[(f"m{i}", "modularity") for i in range(4)]],
                             colours={"m0": "#000000", "m1": "#111111"})
    assert registry("m0", "modularity").colour == "#000000" and registry("m1", "modularity").colour == "#111111"
    # near-black beside black: told apart by line style; the others take palette colours far from both
    assert registry("m0", "modularity").linestyle != registry("m1", "modularity").linestyle
    assert {registry(f"m{i}", "modularity").colour for i in (2, 3)}.isdisjoint({"#000000"})
    assert close_colours("#000000", "#111111") and not close_colours("#000000", "#0072B2")


def test_colours_are_read_from_pairs_and_from_a_file(tmp_path):
    assert parse_colours("mig=#000000, dci_lasso=tab:orange") == {"mig": "#000000", "dci_lasso": "#ff7f0e"}
    palette = tmp_path / "colours.txt"
    palette.write_text("# the paper's palette\nmig=black\n\n  # Okabe-Ito blue\nsap=#0072B2\n")
    assert parse_colours(str(palette)) == {"mig": "#000000", "sap": "#0072b2"}  # comment lines are no pairs
    with pytest.raises(ValueError, match="METRIC=COLOUR pairs"):
        parse_colours("mig")
    with pytest.raises(ValueError, match="colour 'nope' of 'mig' is not a colour"):
        parse_colours("mig=nope")
    with pytest.raises(ValueError, match="name metric 'mig' twice"):
        parse_colours("mig=black,mig=white")


def test_cost_chunks_split_evenly():
    assert [len(chunk) for chunk in chunks([str(i) for i in range(11)])] == [6, 5]
    assert [len(chunk) for chunk in chunks([str(i) for i in range(20)])] == [10, 10]
    assert chunks([]) == []


#: Machado, Oliveira and Fernandes (2009) simulation matrices at severity 1, on linear RGB.
DEFICIENCIES = {
    "normal": np.eye(3),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]),
}


def _cielab(linear_rgb: np.ndarray) -> np.ndarray:
    xyz = linear_rgb @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]).T
    t = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(t > (6 / 29) ** 3, np.cbrt(t), t / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


@pytest.mark.parametrize("deficiency", sorted(DEFICIENCIES))
def test_palette_stays_distinct_under_colour_vision_deficiencies(deficiency):
    srgb = np.array([mcolors.to_rgb(colour) for colour in PALETTE])
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    lab = _cielab(np.clip(linear @ DEFICIENCIES[deficiency].T, 0.0, 1.0))
    distances = np.linalg.norm(lab[:, None, :] - lab[None, :, :], axis=-1)[np.triu_indices(len(PALETTE), 1)]
    assert distances.min() > 13.0  # CIE76 units; 2.3 is a just-noticeable difference
    assert IDEAL_STYLE["color"] not in PALETTE
    assert lab[:, 0].max() < 75  # no colour too pale to see as a thin line on white (Okabe-Ito's yellow is left out)


def test_scenario_figure_has_a_panel_per_property_and_family_and_draws_the_ideal(synthetic_results):
    results = check_results(synthetic_results)
    registry = StyleRegistry(results)
    figure = scenario_figure(results, "noise", registry=registry).figure
    panels = _panels(figure)
    assert [ax.get_title(loc="left") for ax in panels] == [
        "modularity · intervention", "modularity · predictor", "compactness · predictor", "explicitness · predictor",
        "explicitness · information", "holistic · custom"]
    explicitness = {line.get_label(): line for line in panels[3].get_lines()}
    assert set(explicitness) == {"lin/explicitness", "ideal"}
    assert mcolors.to_hex(explicitness["lin/explicitness"].get_color()) == registry("lin", "explicitness").colour.lower()
    # the explicitness ideal is 1 - alpha; lin's mean explicitness is 0.98 (1 - alpha) + 0.01
    ideal = explicitness["ideal"]
    np.testing.assert_allclose(ideal.get_ydata(), 1 - np.asarray(ideal.get_xdata()))
    line = explicitness["lin/explicitness"]
    np.testing.assert_allclose(line.get_ydata(), 0.98 * (1 - line.get_xdata()) + 0.01)
    assert figure.get_size_inches()[0] == pytest.approx(PAGE_WIDTH)
    assert "mean over 3 seeds; band: 95% Student-t interval of the mean" in figure._suptitle.get_text()
    # each panel's legend sits in its own row below it, inside the figure, the ideal first
    figure.draw_without_rendering()
    legends = [ax.get_legend() for ax in figure.axes if ax.get_legend() is not None]
    assert len(legends) == len(panels) and all(legend.get_texts()[0].get_text() == "ideal" for legend in legends)
    for legend, panel in zip(legends, panels):
        box, above = legend.get_window_extent(), panel.get_window_extent()
        assert box.y1 < above.y0 and figure.bbox.contains(box.x0, box.y0) and figure.bbox.contains(box.x1, box.y1)


def test_the_band_is_the_95_percent_t_interval_of_the_mean_over_seeds(synthetic_results):
    figure = scenario_figure(check_results(synthetic_results), "mixing").figure
    panel = [ax for ax in _panels(figure) if ax.get_title(loc="left") == "explicitness · predictor"][0]
    (band,) = panel.collections
    outline = band.get_paths()[0].vertices
    line = {line.get_label(): line for line in panel.get_lines()}["lin/explicitness"]
    # the band's outline passes through mean - half width and mean + half width at every value, and nowhere else
    for x, mean in zip(line.get_xdata(), line.get_ydata()):
        edges = outline[np.isclose(outline[:, 0], x), 1]
        np.testing.assert_allclose(sorted(set(np.round(edges, 12))), [mean - LIN_HALF_WIDTH, mean + LIN_HALF_WIDTH])
    assert LIN_HALF_WIDTH == pytest.approx(0.024841, abs=1e-6)


def test_band_half_widths_and_their_statement():
    std, seeds = np.array([0.01, 0.02, 0.5]), np.array([3, 2, 1])
    # a point with fewer than 3 seeds gets no band (NaN), rather than one of 12.7 standard errors (issue 38)
    np.testing.assert_allclose(band_half_width(std, seeds, "ci95"), [4.302653 * 0.01 / np.sqrt(3), np.nan, np.nan], rtol=1e-6)
    np.testing.assert_array_equal(band_half_width(std, seeds, "sd"), std)
    assert band_half_width(std, seeds, "none") is None
    with pytest.raises(ValueError, match="band must be one of"):
        band_half_width(std, seeds, "iqr")
    assert band_text("ci95", [3, 3]) == "mean over 3 seeds; band: 95% Student-t interval of the mean"
    assert band_text("sd", [2, 3]) == "mean over 2 to 3 seeds; band: ± one standard deviation"
    assert band_text("ci95", [1]) == "mean over 1 seed; no band"
    assert band_text("ci95", [2]) == "mean over 2 seeds; no band (fewer than 3 seeds)"
    assert band_text("ci95", [2, 6]) == ("mean over 2 to 6 seeds; band: 95% Student-t interval of the mean (none where "
                                         "fewer than 3 seeds)")
    assert band_text("none", [5]) == "mean over 5 seeds"


def test_no_two_lines_of_a_panel_share_colour_and_the_legends_stay_in_the_figure(synthetic_results):
    many = pd.concat([synthetic_results.loc[synthetic_results["metric"] == "lin"].assign(metric=f"m{i:02d}")
                      for i in range(9)], ignore_index=True)
    figure = scenario_figure(check_results(many), "mixing").figure
    for ax in _panels(figure):
        drawn = [mcolors.to_hex(line.get_color()) for line in _score_lines(ax)]
        assert len(drawn) == 9 and len(set(drawn)) == 9
    figure.draw_without_rendering()
    for ax in figure.axes:
        if ax.get_legend() is not None:
            box = ax.get_legend().get_window_extent()
            assert figure.bbox.x0 <= box.x0 and box.x1 <= figure.bbox.x1 and figure.bbox.y0 <= box.y0


def test_every_panel_of_every_report_figure_tells_its_lines_apart(synthetic_results):
    from reports.analyses.cost import cost_by_n
    from reports.analyses.sample_efficiency import sample_efficiency

    results = check_results(synthetic_results)
    registry = StyleRegistry(results)
    drawn = [scenario_figure(results, scenario, registry=registry).figure
             for scenario in ("noise", "gaussian_toy_attack")]
    drawn += [efficiency_figure(sample_efficiency(results), registry=registry).figure,
              cost_figure(cost_by_n(results), registry=registry).figure]
    for figure in drawn:
        for ax in _panels(figure):
            # a colour per metric, and lines of one colour (a metric's sub-scores) in line styles of their own
            styles = [(mcolors.to_hex(line.get_color()), line.get_linestyle()) for line in _score_lines(ax)]
            assert styles and len(set(styles)) == len(styles), ax.get_title(loc="left")


def test_out_of_range_means_are_clipped_marked_and_noted(synthetic_results):
    high = synthetic_results.copy()
    high.loc[(high["metric"] == "step") & (high["scenario"] == "noise") & (high["value"] == 0.0), "score"] = 1.27
    drawn = scenario_figure(check_results(high), "noise")
    assert drawn.notes == [READ_RANGE_NOTE, "step reaches 1.27 at 0 (clipped, red triangle)."]
    explicitness = [ax for ax in drawn.figure.axes if ax.get_title(loc="left") == "explicitness · information"][0]
    step = {line.get_label(): line for line in explicitness.get_lines()}["step"]
    assert max(step.get_ydata()) == pytest.approx(1.05)
    # the red triangle has a legend entry in the panel that draws it (noise.png's DCI-ES markers had none), and only there
    legend = [text.get_text() for text in explicitness.get_legend().get_texts()]
    assert legend[-1] == CLIP_LABEL
    marker = explicitness.get_legend().legend_handles[-1]
    assert marker.get_marker() == "^" and mcolors.to_hex(marker.get_color()) == CLIP_MARKER["color"].lower()
    others = [ax for ax in drawn.figure.axes if ax is not explicitness and ax.get_legend() is not None]
    assert others and all(CLIP_LABEL not in [text.get_text() for text in ax.get_legend().get_texts()] for ax in others)
    assert CLIP_LABEL not in [text.get_text() for ax in scenario_figure(check_results(synthetic_results), "noise").figure.axes
                              if ax.get_legend() is not None for text in ax.get_legend().get_texts()]


def test_integer_parameters_get_integer_ticks(synthetic_results):
    figure = scenario_figure(check_results(synthetic_results), "partial").figure
    figure.draw_without_rendering()
    ticks = _panels(figure)[-1].get_xticks()
    assert np.allclose(ticks, np.round(ticks))


def test_categorical_parameter_uses_its_labels(synthetic_results):
    figure = scenario_figure(check_results(synthetic_results), "modular_not_compact").figure
    ticks = [label.get_text() for label in _panels(figure)[-1].get_xticklabels()]
    assert ticks == ["cos_sin", "duplicate_2", "duplicate_4"]


def test_lower_is_better_scores_are_drawn_turned_and_say_so(synthetic_results):
    flipped = synthetic_results.copy()
    is_step = flipped["metric"] == "step"
    flipped.loc[is_step, "score"] = 1.0 - flipped.loc[is_step, "score"]
    flipped.loc[is_step, "higher_is_better"] = False
    figure = scenario_figure(check_results(flipped), "noise").figure
    explicitness = [ax for ax in figure.axes if ax.get_title(loc="left") == "explicitness · information"][0]
    line = {line.get_label(): line for line in explicitness.get_lines()}["step (1 − score)"]
    np.testing.assert_array_equal(line.get_ydata(), [1, 1, 1, 0, 0, 0])  # the original step, not its mirror


def test_a_figure_png_is_a_palette_image_a_third_of_the_full_colour_one(synthetic_results, tmp_path):
    from PIL import Image

    figure = scenario_figure(check_results(synthetic_results), "gaussian_toy_attack").figure
    png = save(figure, tmp_path, "toy")
    assert (tmp_path / "toy.png").read_bytes() == png
    assert sorted(path.name for path in tmp_path.iterdir()) == ["toy.png"]  # PNG only unless asked
    image = Image.open(io.BytesIO(png))
    assert image.mode == "P" and image.info["dpi"] == pytest.approx((200, 200), abs=0.01)
    full = io.BytesIO()
    figure.savefig(full, format="png", dpi=200)
    assert image.size == Image.open(full).size and len(png) < len(full.getvalue()) / 3


def test_bounds_figure_draws_closed_form_values_when_the_results_carry_them(synthetic_results):
    from reports.rendering.figures import bounded_metrics, bounds_figure

    results = check_results(synthetic_results)
    assert bounded_metrics(results) == ["pid"]
    registry = StyleRegistry(results)
    without = bounds_figure(results, "pid", registry=registry).figure
    assert not any(line.get_label() == "closed form" for ax in without.axes for line in ax.get_lines())
    exact = results.assign(exact=np.where(results["metric"] == "pid", 0.5, np.nan))
    with_exact = bounds_figure(exact, "pid", registry=registry).figure
    ticks = [line for ax in with_exact.axes for line in ax.get_lines() if line.get_label() == "closed form"]
    assert len(ticks) == 1 and np.allclose(ticks[0].get_ydata(), 0.5)


def test_an_atlas_has_no_column_for_a_scenario_its_family_never_scored(synthetic_results):
    # the PID toy is scored by pid (information) only: the intervention atlas (uncal) has one column fewer
    atlases = dict(atlas_figures(synthetic_results, StyleRegistry(synthetic_results)))
    titles = {family: {ax.get_title() for ax in drawn.figure.axes} - {""} for family, drawn in atlases.items()}
    assert "gaussian_toy_attack" in titles["information"]
    assert "gaussian_toy_attack" not in titles["intervention"] and len(titles["intervention"]) == 5


LONG_NAME = "a_very_long_metric_name_for_rank_correlation_between_factors_and_codes[power=0.5]"


def _inside_the_figure(figure, artists) -> bool:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "constrained_layout not applied because axes sizes collapsed to zero"
        figure.draw_without_rendering()
    page = figure.bbox
    boxes = [artist.get_window_extent() for artist in artists]
    return all(box.x0 >= page.x0 - 1 and box.x1 <= page.x1 + 1 for box in boxes)


@pytest.mark.slow
def test_a_long_metric_name_stays_inside_every_figure(synthetic_results):
    # a user metric's name (or a variant's) longer than the page pushed the legend, the atlas labels and the
    # agreement's title off the figure, and collapsed the scenario figure's layout
    from reports.analyses.agreement import agreement, agreement_matrix
    from reports.rendering.figures import agreement_figure

    renamed = {"holo": LONG_NAME, "uncal": LONG_NAME.replace("0.5", "2"), "lin": LONG_NAME.replace("0.5", "4")}
    results = check_results(synthetic_results.replace({"metric": renamed}))
    registry = StyleRegistry(results)
    figure = scenario_figure(results, "noise", registry=registry).figure
    legends = [ax.get_legend() for ax in figure.axes if ax.get_legend() is not None]
    assert any("power=0.5]" in text.get_text() for legend in legends for text in legend.get_texts())
    assert _inside_the_figure(figure, legends)
    # legends never dominate: they are below their panels, which keep the width of their column
    assert min(ax.get_window_extent().width for ax in _panels(figure)) > 0.4 * figure.bbox.width
    custom = dict(atlas_figures(results, registry))["custom"].figure  # holo's family
    assert _row_labels(custom) and _inside_the_figure(custom, _row_labels(custom))
    heat = agreement_figure(agreement_matrix(agreement(results))).figure
    assert _inside_the_figure(heat, [heat._suptitle, *heat.axes[0].get_yticklabels()])


COMPOSED_NAMES = {  # composed names as the results write them, longer than an atlas column is wide
    "noise": "synergy_attack@partial@noise@rotation=0.392699=0.2=4",
    "mixing": "redundancy_attack@modular_not_compact_quantized=duplicate_4",
    "nonlinear": "partial@noise@rotation=0.3927=0.2",
    "partial": "nonlinear@gaussian_toy_redundancy=0.25",
}


@pytest.mark.slow
@pytest.mark.parametrize("copies", [1, 4])  # 6 and 21 columns
def test_atlas_column_titles_write_composed_names_as_given_and_do_not_overlap(synthetic_results, copies):
    # the titles replaced '_' by ' ' ("redundancy attack@noise=0.1", not a name run accepts) and broke only at
    # underscores, so "partial@noise@rotation=0.3927=0.2" ran in one line across its neighbours' titles
    composed = synthetic_results.replace({"scenario": COMPOSED_NAMES})
    results = check_results(pd.concat([composed.assign(scenario=composed["scenario"] + "=0.1" * copy)
                                       for copy in range(copies)], ignore_index=True))
    figure = dict(atlas_figures(results, StyleRegistry(results)))["predictor"].figure
    figure.draw_without_rendering()
    titles = sorted((ax.title for ax in figure.axes if ax.get_title()), key=lambda title: title.get_window_extent().x0)
    assert {title.get_text().replace("\n", "") for title in titles} >= set(COMPOSED_NAMES.values())
    boxes = [title.get_window_extent() for title in titles]
    assert all(left.x1 < right.x0 for left, right in zip(boxes, boxes[1:]))
    assert boxes[0].x0 >= figure.bbox.x0 and boxes[-1].x1 <= figure.bbox.x1


def test_atlas_column_titles_of_the_built_in_scenarios_keep_their_words_whole():
    # cut at a character count, "categorical" was titled "categorica" / "l" and "redundancy_attack"
    # "redundancy" / "_" / "attack" in the default study's 14-column atlas; the cut is now measured in the font
    from reports.rendering.figures import _wrapped

    assert _wrapped("categorical", 14) == "categorical"
    assert _wrapped("redundancy_attack", 14) == "redundancy_\nattack"
    assert _wrapped("modular_not_compact_quantized", 14) == "modular_\nnot_\ncompact_\nquantized"


@pytest.mark.slow  # 3 to 5 s a figure; the fast tier was 298 s (the benchmark's smoke run keeps one figure fast)
@pytest.mark.parametrize("draw", [lambda rows: scenario_figure(rows, "noise"), lambda rows: atlas_figures(
    rows, StyleRegistry(rows))[0][1]], ids=["constrained layout", "fixed margins"])
def test_save_lays_a_figure_out_once_and_draws_the_pixels_savefig_draws(synthetic_results, tmp_path, draw):
    from PIL import Image

    rows = check_results(synthetic_results)
    figure, reference = draw(rows).figure, draw(rows).figure  # the same figure twice
    png = save(figure, tmp_path, "noise")
    assert figure.get_layout_engine() is None  # laid out for good: SVG and PDF are drawn on it, once each
    FigureCanvasAgg(reference)
    reference.savefig(io.BytesIO(), format="rgba", dpi=PNG_DPI)  # matplotlib's way: a pass to lay out, a pass to draw
    assert [ax.get_position().bounds for ax in figure.axes] == [ax.get_position().bounds for ax in reference.axes]
    drawn = Image.fromarray(np.asarray(reference.canvas.buffer_rgba())).convert("RGB").quantize(
        PNG_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(png))), np.asarray(drawn))


def test_save_draws_each_format_asked_for_and_refuses_an_unknown_one(synthetic_results, tmp_path):
    from reports.rendering.figures import FIGURE_FORMATS, figure_formats

    figure = scenario_figure(check_results(synthetic_results), "noise").figure
    png = save(figure, tmp_path, "noise", formats=("pdf", "svg"))  # the PNG always, the pages show it
    assert sorted(path.name for path in tmp_path.iterdir()) == ["noise.pdf", "noise.png", "noise.svg"]
    assert (tmp_path / "noise.png").read_bytes() == png
    pdf = (tmp_path / "noise.pdf").read_bytes()
    assert pdf[:5] == b"%PDF-" and b"CreationDate" not in pdf
    # journals refuse Type 3 fonts, matplotlib's default for PDF: TrueType (Type 42), as plot writes them
    assert b"/Type3" not in pdf and b"/CIDFontType2" in pdf
    assert "<svg" in (tmp_path / "noise.svg").read_text(encoding="utf-8")[:2000]
    assert figure_formats(None) == ("png",) and figure_formats(" SVG,png ") == ("png", "svg")
    assert figure_formats(list(reversed(FIGURE_FORMATS))) == FIGURE_FORMATS
    with pytest.raises(ValueError, match=r"unknown figure format 'eps': choose among png, svg, pdf"):
        save(figure, tmp_path, "other", formats=("png", "eps"))
    assert not (tmp_path / "other.png").exists()


@pytest.mark.parametrize(("std", "noted"), [(0.05, False), (0.2, True)])
def test_a_band_wider_than_half_the_axis_says_why(std, noted):
    # with 3 seeds a 95% band spans 2 x 4.30 x sd / sqrt(3) = 4.97 sd: 0.25 for sd 0.05, 0.99 for sd 0.2 (issue 38)
    from matplotlib.figure import Figure

    from reports.rendering.figures import draw_scores

    summary = pd.DataFrame({"value": [0.0, 0.5, 1.0], "value_label": ["0", "0.5", "1"], "metric": "m", "sub_score": "s",
                            "higher_is_better": True, "mean": [0.9, 0.6, 0.3], "std": [0.01, std, 0.01], "n_seeds": 3})
    notes = draw_scores(Figure().add_subplot(), summary, "value", StyleRegistry(summary.assign(family="information"), panels=[]))
    width = 2 * stats.t.ppf(0.975, 2) * std / np.sqrt(3)
    expected = [f"m/s's band (95% interval) spans {width:.2f} at 0.5: its 3 seeds disagree (standard deviation "
                f"{std:.2f}); clipped to the axis."]
    assert notes == (expected if noted else [])


def _row_labels(figure):
    """An atlas's row labels (one per sub-score, left of its first column)."""
    return [text for ax in figure.axes for text in ax.texts if text.get_gid() == "atlas-row-label"]


def test_atlas_panels_label_their_ticks_on_the_bottom_row_and_left_column_only(synthetic_results):
    # an atlas column is one axes drawing its rows (panels) one above the other; its ticks are made small as it is
    # made (ATLAS_TICKS), labelled on the figure's edges (x under the bottom row, the score in the first column), and
    # every other panel gets the same ticks as marks: on the left of each row, under each row above the bottom one
    from matplotlib.markers import TICKDOWN, TICKLEFT

    figure = max((drawn.figure for _, drawn in atlas_figures(synthetic_results, StyleRegistry(synthetic_results))),
                 key=lambda figure: len(_row_labels(figure)))
    FigureCanvasAgg(figure).draw()
    rows = len(_row_labels(figure))
    assert rows > 1 and len(figure.axes) > 1
    for column, ax in enumerate(figure.axes):
        x_ticks, y_ticks = ax.xaxis.get_major_ticks(), ax.yaxis.get_major_ticks()
        shown_x = [tick for tick in x_ticks if ax.get_xlim()[0] <= tick.get_loc() <= ax.get_xlim()[1]]
        assert {tick.label1.get_visible() for tick in x_ticks} == {True}
        assert {tick.label1.get_fontsize() for tick in x_ticks} <= {3.5, 4}  # a numeric axis: smaller still
        marks = {line.get_marker(): line for line in ax.get_lines() if line.get_marker() in (TICKLEFT, TICKDOWN)}
        assert len(marks[TICKDOWN].get_xdata()) == len(shown_x) * (rows - 1)
        if column == 0:
            assert [label.get_text() for label in ax.get_yticklabels()] == ["0.0", "0.5", "1.0"] * rows
            assert {tick.label1.get_visible() for tick in y_ticks} == {True}
            assert {tick.label1.get_fontsize() for tick in y_ticks} == {4}
            assert TICKLEFT not in marks
        else:
            assert y_ticks == [] and len(marks[TICKLEFT].get_ydata()) == 3 * rows
        assert {(tick.tick1line.get_markersize(), tick.get_pad()) for tick in x_ticks + y_ticks} == {(1.5, 1)}
        assert {line.get_markersize() for line in marks.values()} == {1.5}


def test_every_panel_of_an_atlas_column_over_a_wide_range_is_logarithmic(synthetic_results):
    # a column whose values span 100x or more is drawn on a log axis in every row, not only in the bottom one that
    # labels its ticks (upper panels were linear: their points crowded at the left end)
    wide = synthetic_results.copy()
    scenario = wide["scenario"].iloc[0]
    on = wide["scenario"] == scenario
    values = np.sort(wide.loc[on, "value"].unique())
    wide.loc[on, "value"] = wide.loc[on, "value"].map(dict(zip(values, np.geomspace(1, 1000, len(values)))))
    wide.loc[on, "value_label"] = wide.loc[on, "value"].map(lambda value: f"{value:g}")
    figure = max((drawn.figure for _, drawn, *_ in atlas_figures(wide, StyleRegistry(wide))),
                 key=lambda f: len(f.axes) * len(_row_labels(f)))
    # one axes per column draws every row of it: its scale is every panel's
    wide_columns = [ax for ax in figure.axes if ax.get_xlim()[1] > 1000]  # the column's span: 1 to 1000, a margin each side
    assert len(wide_columns) == 1 and len(_row_labels(figure)) > 1
    assert {ax.get_xscale() for ax in wide_columns} == {"log"}
    assert {ax.get_xscale() for ax in figure.axes if ax not in wide_columns} == {"linear"}
    scores = [line for line in wide_columns[0].get_lines() if str(line.get_gid()).startswith("score:")]
    assert scores and {max(line.get_xdata()) for line in scores} == {1000}


def test_a_band_stops_where_a_point_has_no_interval_and_needs_two_points_to_be_drawn():
    """The bands of a panel are one collection: a polygon per run of two or more points with both ends finite, each in
    its line's colour at BAND_ALPHA, its outline the low ends left to right then the high ends back."""
    from matplotlib.figure import Figure

    from reports.rendering.figures import BAND_ALPHA, add_bands

    figure = Figure()
    ax = figure.add_subplot()
    x = np.arange(7.0)
    low = np.array([0.1, 0.2, np.nan, 0.3, np.nan, 0.4, 0.5])
    add_bands(ax, [(x, low, low + 0.1, "#112233"), (x[:2], [0.0, np.nan], [0.2, 0.3], "#445566")])
    (collection,) = ax.collections
    outlines = [path.vertices for path in collection.get_paths()]
    assert len(outlines) == 2  # points 0-1 and 5-6; the lone point 3 and the second band's lone point fill nothing
    np.testing.assert_allclose(outlines[0][:4], [[0, 0.1], [1, 0.2], [1, 0.3], [0, 0.2]])
    np.testing.assert_allclose(outlines[1][:4], [[5, 0.4], [6, 0.5], [6, 0.6], [5, 0.5]])
    np.testing.assert_allclose(collection.get_facecolors(), [mcolors.to_rgba("#112233", BAND_ALPHA)] * 2)


def test_results_of_sample_efficiency_scenarios_only_have_no_atlas_and_their_report_draws(synthetic_results):
    # run --scenarios sample_size crashed the report: the atlas left out every scenario, then joined none
    from reports.report import figure_todo
    from reports.verdicts.bundle import bundle_for

    only = check_results(synthetic_results.loc[synthetic_results["scenario"] == "sample_size"])
    assert atlas_figures(only, StyleRegistry(only)) == []
    keys = [key for key, _, _, _ in figure_todo(bundle_for(only))]
    assert "sample_size" in keys and not any(key.startswith("atlas_") for key in keys)
