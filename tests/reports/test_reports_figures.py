"""Figures: one colour per metric everywhere, faceting by family, ideal drawn, plot_comparison."""

from __future__ import annotations

import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
import pytest

from reports import check_results, plot_comparison
from reports._style import IDEAL_STYLE, PALETTE, StyleRegistry, registered_order
from reports.figures import atlas_figures, scenario_figure


def test_registry_styles_are_per_metric_distinct_and_stable(synthetic_results):
    registry = StyleRegistry(synthetic_results)
    colours = {metric: registry.metric(metric).colour for metric in ("lin", "step", "uncal", "holo", "pid")}
    assert len(set(colours.values())) == 5 and set(colours.values()) <= set(PALETTE)
    # the sub-scores of one metric share its colour and differ in marker
    lin = [registry("lin", s) for s in ("compactness", "explicitness", "modularity")]
    assert {style.colour for style in lin} == {colours["lin"]} and len({style.marker for style in lin}) == 3
    # a subset of the rows keeps every style as long as all metrics appear in it
    subset = StyleRegistry(synthetic_results.loc[synthetic_results["seed"] == 0])
    assert subset("lin", "modularity") == registry("lin", "modularity")
    with pytest.raises(KeyError, match="no style for lin/nope"):
        registry("lin", "nope")


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
    assert distances.min() > 10.0  # CIE76 units; 2.3 is a just-noticeable difference
    assert IDEAL_STYLE["color"] not in PALETTE


def test_scenario_figure_has_a_panel_per_property_and_draws_the_ideal(synthetic_results):
    results = check_results(synthetic_results)
    registry = StyleRegistry(results)
    figure = scenario_figure(results, "noise", registry=registry).figure
    axes = [ax for ax in figure.axes if ax.get_visible()]
    assert [ax.get_title(loc="left") for ax in axes] == ["modularity", "compactness", "explicitness", "holistic"]
    explicitness = {line.get_label(): line for line in axes[2].get_lines()}
    assert {"lin/explicitness", "step", "ideal"} <= set(explicitness)
    assert mcolors.to_hex(explicitness["lin/explicitness"].get_color()) == registry("lin", "explicitness").colour.lower()
    # the explicitness ideal is 1 - alpha; lin's mean explicitness is 0.98 (1 - alpha) + 0.01
    ideal = explicitness["ideal"]
    np.testing.assert_allclose(ideal.get_ydata(), 1 - np.asarray(ideal.get_xdata()))
    line = explicitness["lin/explicitness"]
    np.testing.assert_allclose(line.get_ydata(), 0.98 * (1 - line.get_xdata()) + 0.01)
    assert figure.get_size_inches()[0] == pytest.approx(7.0)  # A4 text width


def test_no_two_lines_of_a_panel_share_colour_and_marker(synthetic_results):
    many = pd.concat([synthetic_results.loc[synthetic_results["metric"] == "lin"].assign(metric=f"m{i:02d}")
                      for i in range(12)], ignore_index=True)
    figure = scenario_figure(check_results(many), "mixing").figure
    for ax in figure.axes:
        drawn = [(mcolors.to_hex(line.get_color()), line.get_marker()) for line in ax.get_lines()
                 if line.get_label() != "ideal" and not line.get_label().startswith("_")]
        assert len(drawn) == 12 and len(set(drawn)) == len(drawn)
    # legends stay beside their panel, no taller than it
    figure.canvas.draw()
    for ax in figure.axes:
        assert ax.get_legend().get_window_extent().height <= ax.get_window_extent().height * 1.05


def test_out_of_range_means_are_clipped_marked_and_noted(synthetic_results):
    high = synthetic_results.copy()
    high.loc[(high["metric"] == "step") & (high["scenario"] == "noise") & (high["value"] == 0.0), "score"] = 1.27
    drawn = scenario_figure(check_results(high), "noise")
    assert drawn.notes == ["step reaches 1.27 at 0 (clipped, red triangle)."]
    explicitness = [ax for ax in drawn.figure.axes if ax.get_title(loc="left") == "explicitness"][0]
    step = {line.get_label(): line for line in explicitness.get_lines()}["step"]
    assert max(step.get_ydata()) == pytest.approx(1.05)


def test_integer_parameters_get_integer_ticks(synthetic_results):
    figure = scenario_figure(check_results(synthetic_results), "partial").figure
    figure.canvas.draw()
    ticks = figure.axes[-1].get_xticks()
    assert np.allclose(ticks, np.round(ticks))


def test_categorical_parameter_uses_its_labels(synthetic_results):
    figure = scenario_figure(check_results(synthetic_results), "modular_not_compact").figure
    ticks = [label.get_text() for label in figure.axes[-1].get_xticklabels()]
    assert ticks == ["cos_sin", "duplicate_2", "duplicate_4"]


@pytest.mark.parametrize("suffix, magic", [("png", b"\x89PNG"), ("svg", b"<?xml")])
def test_plot_comparison_writes_the_requested_format(tmp_path, synthetic_results, suffix, magic):
    out = plot_comparison(synthetic_results, metrics=["lin", "step"], scenarios=["noise", "mixing"],
                          out_file=tmp_path / "sub" / f"compare.{suffix}")
    assert out.read_bytes()[:5].startswith(magic)
    forced = plot_comparison(synthetic_results, metrics=["step"], out_file=tmp_path / "compare.bin", format="png")
    assert forced.read_bytes()[:4] == b"\x89PNG"


def test_plot_comparison_rejects_unknown_names(tmp_path, synthetic_results):
    with pytest.raises(ValueError, match="unknown metric\\(s\\) \\['nope'\\]"):
        plot_comparison(synthetic_results, metrics=["nope"], out_file=tmp_path / "x.png")
    with pytest.raises(ValueError, match="unknown scenario\\(s\\) \\['rotation'\\]"):
        plot_comparison(synthetic_results, scenarios=["rotation"], out_file=tmp_path / "x.png")
    with pytest.raises(ValueError, match="nothing to draw"):
        plot_comparison(synthetic_results, metrics=["pid"], scenarios=["noise"], out_file=tmp_path / "x.png")


def test_lower_is_better_scores_are_drawn_turned_and_say_so(synthetic_results):
    flipped = synthetic_results.copy()
    is_step = flipped["metric"] == "step"
    flipped.loc[is_step, "score"] = 1.0 - flipped.loc[is_step, "score"]
    flipped.loc[is_step, "higher_is_better"] = False
    figure = scenario_figure(check_results(flipped), "noise").figure
    explicitness = [ax for ax in figure.axes if ax.get_title(loc="left") == "explicitness"][0]
    line = {line.get_label(): line for line in explicitness.get_lines()}["step (1 − score)"]
    np.testing.assert_array_equal(line.get_ydata(), [1, 1, 1, 0, 0, 0])  # the original step, not its mirror


def test_plot_draws_each_sub_score_in_its_registry_style(tmp_path, synthetic_results, monkeypatch):
    from matplotlib.figure import Figure

    drawn = {}
    original = Figure.savefig

    def capture(self, *args, **kwargs):
        for ax in self.axes:
            for line in ax.get_lines():
                drawn[line.get_label()] = (mcolors.to_hex(line.get_color()), line.get_marker(), line.get_linestyle())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", capture)
    plot_comparison(synthetic_results, metrics=["lin", "uncal"], scenarios=["mixing"], out_file=tmp_path / "c.png")
    registry = StyleRegistry(check_results(synthetic_results))
    for metric, sub_score, label in (("lin", "modularity", "lin/modularity"), ("uncal", "uncal", "uncal")):
        style = registry(metric, sub_score)
        assert drawn[label] == (style.colour.lower(), style.marker, style.linestyle)


def test_bounds_figure_draws_closed_form_values_when_the_results_carry_them(synthetic_results):
    from reports.figures import bounded_metrics, bounds_figure

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


def test_a_long_metric_name_stays_inside_every_figure(synthetic_results):
    # a user metric's name (or a variant's) longer than the page pushed the legend, the atlas labels and the
    # agreement's title off the figure, and collapsed the scenario figure's layout
    from reports.agreement import agreement, agreement_matrix
    from reports.figures import agreement_figure

    renamed = {"holo": LONG_NAME, "uncal": LONG_NAME.replace("0.5", "2"), "lin": LONG_NAME.replace("0.5", "4")}
    results = check_results(synthetic_results.replace({"metric": renamed}))
    registry = StyleRegistry(results)
    figure = scenario_figure(results, "noise", registry=registry).figure
    legends = [ax.get_legend() for ax in figure.axes if ax.get_legend() is not None]
    assert any("power=0.5]" in text.get_text() for legend in legends for text in legend.get_texts())
    assert _inside_the_figure(figure, legends)
    # legends never dominate: every panel keeps more than half the width
    assert min(ax.get_window_extent().width for ax in figure.axes) > 0.5 * figure.bbox.width
    custom = dict(atlas_figures(results, registry))["custom"].figure  # holo's family
    assert _inside_the_figure(custom, [ax.yaxis.label for ax in custom.axes if ax.get_ylabel()])
    heat = agreement_figure(agreement_matrix(agreement(results))).figure
    assert _inside_the_figure(heat, [heat._suptitle, *heat.axes[0].get_yticklabels()])


def test_plot_of_every_metric_shows_every_legend_entry_inside_the_figure(tmp_path, monkeypatch, synthetic_results):
    # plot RUN_DIR without --metrics: fifty sub-scores in a legend beside each panel ran off the page (about ten
    # shown, the rest cut) and collapsed the layout
    import warnings

    from matplotlib.figure import Figure

    results = check_results(pd.concat([synthetic_results.assign(metric=synthetic_results["metric"] + f"_{copy}")
                                       for copy in range(10)], ignore_index=True))
    captured = {}
    original = Figure.savefig

    def capture(self, *args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "constrained_layout not applied"
            done = original(self, *args, **kwargs)
        captured["figure"] = self
        return done

    monkeypatch.setattr(Figure, "savefig", capture)
    plot_comparison(results, scenarios=["noise", "mixing"], out_file=tmp_path / "all.png")
    figure = captured["figure"]
    shown = results.loc[results["scenario"].isin(["noise", "mixing"]), ["metric", "sub_score"]].drop_duplicates()
    legends = [*figure.legends, *(ax.get_legend() for ax in figure.axes if ax.get_legend() is not None)]
    texts = [text for legend in legends for text in legend.get_texts()]
    assert len({text.get_text() for text in texts}) == len(shown) > 40
    figure.draw_without_rendering()  # extents at the figure's own dpi
    page = figure.bbox
    for text in texts:
        box = text.get_window_extent()
        assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1, text.get_text()
    assert min(ax.get_window_extent().width for ax in figure.axes) > 0.5 * page.width  # legends never dominate


def test_plot_draws_a_sample_efficiency_scenario_along_its_sample_sizes(tmp_path, synthetic_results, monkeypatch):
    # its values are sample sizes: kept at the largest n, the panel showed one point at n = 100000
    from matplotlib.figure import Figure

    drawn = {}
    original = Figure.savefig

    def capture(self, *args, **kwargs):
        drawn.update({line.get_label(): line.get_xdata() for ax in self.axes for line in ax.get_lines()})
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", capture)
    plot_comparison(synthetic_results, metrics=["step"], scenarios=["sample_size"], out_file=tmp_path / "n.png")
    np.testing.assert_array_equal(drawn["step"], [100, 1000, 10000, 100000])


def _partly_stated(synthetic_results) -> pd.DataFrame:
    """``noise`` as a composed scenario that states modularity's ideal at alpha = 0 and 1 only."""
    results = synthetic_results.loc[synthetic_results["scenario"] == "noise"].copy()
    results["scenario"] = "redundancy_attack@noise=0.2"
    unstated = (results["property"] == "modularity") & ~results["value"].isin([0.0, 1.0])
    results.loc[unstated, "ideal"] = np.nan
    return check_results(results)


def test_an_ideal_stated_at_some_values_only_is_drawn_there_only(synthetic_results, tmp_path, monkeypatch):
    # a composition states an ideal where its parts determine it (redundancy_attack@leaky=0.25: modularity at
    # alpha = 0 only): the one-point line was invisible though the legend said "ideal", and two stated values
    # were joined across the values the scenario says nothing of
    from matplotlib.figure import Figure

    results = _partly_stated(synthetic_results)
    figure = scenario_figure(results, "redundancy_attack@noise=0.2").figure
    panel = [ax for ax in figure.axes if ax.get_title(loc="left") == "modularity"][0]
    grey = [line for line in panel.get_lines() if line.get_color() == IDEAL_STYLE["color"]]
    line = [line for line in grey if line.get_linestyle() != "None"][0]
    assert np.isnan(line.get_ydata()[1:-1]).all() and np.isfinite(line.get_ydata()[[0, -1]]).all()
    squares = [line for line in grey if line.get_marker() == "s"]
    assert len(squares) == 1 and list(squares[0].get_xdata()) == [0.0, 1.0]

    annotations = []
    original = Figure.savefig

    def capture(self, *args, **kwargs):
        annotations.extend(text.get_text() for ax in self.axes for text in ax.texts)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", capture)
    plot_comparison(results, metrics=["uncal"], out_file=tmp_path / "p.png")
    assert "ideal modularity" in annotations


def test_a_registered_metric_keeps_its_style_in_tables_with_other_metrics(synthetic_results):
    # ranked within each table, mig was one colour alone and another next to predictor metrics
    lin = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    as_metric = {name: lin.assign(metric=name, family=family, sub_score=name)
                 for name, family in (("mig", "information"), ("sap", "predictor"), ("irs", "intervention"))}
    alone = StyleRegistry(as_metric["mig"])
    crowded = StyleRegistry(pd.concat([*as_metric.values(), synthetic_results], ignore_index=True))
    assert alone.metric("mig") == crowded.metric("mig") == alone("mig", "mig")
    assert StyleRegistry(as_metric["sap"]).metric("sap") == crowded.metric("sap")
    # the table's other metrics (users', variants) take the colours its metrics use least
    colours = [crowded.metric(metric).colour for metric in ("mig", "sap", "irs", "lin", "step", "uncal", "holo")]
    assert len(set(colours)) == len(colours)


def test_a_users_metric_never_draws_like_a_registered_metric_of_the_same_colour(synthetic_results):
    # eleven registered metrics fill the palette and reuse its first colour dashed; a user's metric then took that
    # colour with the dashed style too (the atlas draws lines without markers: the two were indistinguishable)
    lin = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    names = registered_order()[1:11] + ["mine"]
    table = pd.concat([lin.assign(metric=name, sub_score=name) for name in names], ignore_index=True)
    styles = StyleRegistry(table)
    assert styles.metric("mine").colour == styles.metric(names[9]).colour
    assert len({(styles.metric(name).colour, styles.metric(name).linestyle) for name in names}) == len(names)


COMPOSED_NAMES = {  # composed names as the results write them, longer than an atlas column is wide
    "noise": "synergy_attack@partial@noise@rotation=0.392699=0.2=4",
    "mixing": "redundancy_attack@modular_not_compact_quantized=duplicate_4",
    "nonlinear": "partial@noise@rotation=0.3927=0.2",
    "partial": "nonlinear@gaussian_toy_redundancy=0.25",
}


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


def test_ideal_labels_ending_at_nearly_the_same_score_do_not_overlap(synthetic_results, tmp_path, monkeypatch):
    # partial@noise@rotation=0.3927=0.2 at k = 8: modularity and compactness ideal 0.7997, explicitness 0.8; their
    # two labels, "ideal modularity, compactness" and "ideal explicitness", were written over each other
    from matplotlib.figure import Figure

    results = synthetic_results.loc[synthetic_results["scenario"] == "mixing"].copy()
    results["ideal"] = np.where(results["property"] == "explicitness", 0.8, 0.7997)
    results = check_results(results.assign(scenario="partial@noise@rotation=0.3927=0.2"))
    boxes = {}
    original = Figure.savefig

    def capture(self, *args, **kwargs):
        self.draw_without_rendering()
        boxes.update({text.get_text(): text.get_window_extent() for ax in self.axes for text in ax.texts})
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", capture)
    plot_comparison(results, metrics=["lin"], out_file=tmp_path / "p.png")
    assert set(boxes) == {"ideal modularity, compactness", "ideal explicitness"}
    upper, lower = boxes["ideal explicitness"], boxes["ideal modularity, compactness"]
    assert lower.y1 <= upper.y0  # the higher score's label above, apart


def test_atlas_column_titles_of_the_built_in_scenarios_keep_their_words_whole():
    # cut at a character count, "categorical" was titled "categorica" / "l" and "redundancy_attack"
    # "redundancy" / "_" / "attack" in the default study's 14-column atlas; the cut is now measured in the font
    from reports.figures import _wrapped

    assert _wrapped("categorical", 14) == "categorical"
    assert _wrapped("redundancy_attack", 14) == "redundancy_\nattack"
    assert _wrapped("modular_not_compact_quantized", 14) == "modular_\nnot_\ncompact_\nquantized"
