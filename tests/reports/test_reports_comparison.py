"""plot's figure: a colour per line, Type 42 fonts, stated bands, ideal tags clear of the data, the paper options."""

from __future__ import annotations

import re
import warnings

import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from scipy import stats

from reports import check_results, plot_comparison
from reports.analyses.sensitivity import on_default_options
from reports.rendering.comparison import FigureRequestError, metric_bases, selectable, variants_of
from reports.rendering.figures import CLIP_LABEL, CLIP_MARKER
from reports.rendering.style import COLUMN_WIDTH, IDEAL_STYLE, PALETTE

#: The issue's figure: four metrics (one with three sub-scores) on three scenarios.
FOUR_METRICS, THREE_SCENARIOS = ["lin", "step", "uncal", "holo"], ["noise", "mixing", "nonlinear"]


@pytest.fixture
def drawn(monkeypatch):
    """The figure ``plot_comparison`` saves, captured as it is written."""
    captured = {}
    original = Figure.savefig

    def capture(self, *args, **kwargs):
        captured["figure"] = self
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", capture)
    return captured


def _score_lines(ax):
    return [line for line in ax.get_lines()
            if line.get_color() not in (IDEAL_STYLE["color"], CLIP_MARKER["color"]) and not line.get_label().startswith("_")]


def _panels(figure):
    return [ax for ax in figure.axes if ax.get_visible()]


@pytest.mark.slow  # 3 to 5 s; the fast tier keeps other tests of the same code (issue 37's 5-minute tier)
@pytest.mark.parametrize("suffix, magic", [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF-")])
def test_plot_comparison_writes_the_requested_format(tmp_path, synthetic_results, suffix, magic):
    out = plot_comparison(synthetic_results, metrics=["lin", "step"], scenarios=["noise"],
                          out_file=tmp_path / "sub" / f"compare.{suffix}")
    assert out.read_bytes()[:5].startswith(magic)
    forced = plot_comparison(synthetic_results, metrics=["step"], out_file=tmp_path / "compare.bin", format="png")
    assert forced.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow  # 3 to 5 s; the fast tier keeps other tests of the same code (issue 37's 5-minute tier)
def test_pdf_fonts_are_truetype_not_type3(tmp_path, synthetic_results):
    # journals refuse Type 3 fonts, matplotlib's default for PDF
    pdf = plot_comparison(synthetic_results, metrics=FOUR_METRICS, scenarios=THREE_SCENARIOS, width=COLUMN_WIDTH,
                          out_file=tmp_path / "figure.pdf").read_bytes()
    subtypes = set(re.findall(rb"/Type /Font /Subtype /(\w+)", pdf))
    assert subtypes == {b"Type0", b"CIDFontType2"} and b"/Type3" not in pdf  # Type 42: TrueType outlines as CID font
    assert b"/FontFile2" in pdf  # the TrueType font program itself, embedded


def test_plot_comparison_rejects_unknown_names(tmp_path, synthetic_results):
    with pytest.raises(FigureRequestError, match="unknown metric\\(s\\) \\['nope'\\]"):
        plot_comparison(synthetic_results, metrics=["nope"], out_file=tmp_path / "x.png")
    with pytest.raises(FigureRequestError, match="unknown scenario\\(s\\) \\['rotation'\\]"):
        plot_comparison(synthetic_results, scenarios=["rotation"], out_file=tmp_path / "x.png")
    with pytest.raises(FigureRequestError, match="nothing to draw"):
        plot_comparison(synthetic_results, metrics=["pid"], scenarios=["noise"], out_file=tmp_path / "x.png")
    with pytest.raises(FigureRequestError, match="unknown metric\\(s\\) \\['lin/nope'\\]"):
        plot_comparison(synthetic_results, metrics=["lin/nope"], out_file=tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_every_metric_has_its_own_colour_and_every_line_its_style_in_every_panel(tmp_path, synthetic_results, drawn):
    plot_comparison(synthetic_results, metrics=FOUR_METRICS, scenarios=THREE_SCENARIOS, width=COLUMN_WIDTH,
                    out_file=tmp_path / "c.png")
    figure = drawn["figure"]
    assert figure.get_size_inches()[0] == pytest.approx(3.25)
    styles: dict[str, tuple] = {}
    for ax in _panels(figure):
        lines = _score_lines(ax)
        colours = {line.get_label().split("/")[0]: mcolors.to_hex(line.get_color()) for line in lines}
        # four metrics, four colours; lin's three sub-scores share its colour in three line styles
        assert len(lines) == 6 and len(set(colours.values())) == 4 and set(colours.values()) <= {c.lower() for c in PALETTE}
        assert len({line.get_marker() for line in lines}) == 6
        assert len({(mcolors.to_hex(line.get_color()), line.get_linestyle()) for line in lines}) == 6
        for line in lines:
            style = (mcolors.to_hex(line.get_color()), line.get_marker(), line.get_linestyle())
            assert styles.setdefault(line.get_label(), style) == style  # the same in every panel
    assert set(styles) == {"lin/compactness", "lin/explicitness", "lin/modularity", "step", "uncal", "holo"}


@pytest.mark.slow
def test_a_line_style_comes_back_only_past_the_palette(tmp_path, synthetic_results, drawn):
    # plot RUN_DIR without --metrics: sixty sub-scores of forty metrics in one panel; colours repeat past the tenth
    # metric, each time in another line style or marker, and every legend entry stays inside the figure
    results = check_results(pd.concat([synthetic_results.assign(metric=synthetic_results["metric"] + f"_{copy}")
                                       for copy in range(10)], ignore_index=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "constrained_layout not applied"
        plot_comparison(results, scenarios=["noise", "mixing"], out_file=tmp_path / "all.png")
    figure = drawn["figure"]
    lines = _score_lines(_panels(figure)[0])
    styles = [(mcolors.to_hex(line.get_color()), line.get_linestyle(), line.get_marker()) for line in lines]
    shown = results.loc[results["scenario"].isin(["noise", "mixing"]), ["metric", "sub_score"]].drop_duplicates()
    assert len(set(styles)) == len(styles) == len(shown) == 60
    metric_colours = {}
    for line, (colour, _, _) in zip(lines, styles):
        metric_colours.setdefault(line.get_label().split("/")[0], colour)
    assert len(set(list(metric_colours.values())[:10])) == 10
    texts = [text for legend in figure.legends for text in legend.get_texts()]
    assert len({text.get_text() for text in texts}) == len(shown) + 1  # and the ideal
    figure.draw_without_rendering()
    page = figure.bbox
    for text in texts:
        box = text.get_window_extent()
        assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1, text.get_text()
    assert min(ax.get_window_extent().width for ax in _panels(figure)) > 0.5 * page.width  # legends never dominate


def _crosses(box, line, figure) -> bool:
    """Whether ``line``, drawn with its width and markers, passes through ``box`` (display units), checked on
    points 0.2 pixels apart along each of its segments."""
    points = line.get_transform().transform(np.column_stack([line.get_xdata(), line.get_ydata()]).astype(float))
    reach = max(line.get_linewidth(), line.get_markersize() if line.get_marker() not in ("None", None, "") else 0)
    reach *= figure.dpi / 72 / 2
    dense = [points]
    if line.get_linestyle() not in ("None", "none", ""):
        for start, stop in zip(points[:-1], points[1:]):
            if np.isfinite(start).all() and np.isfinite(stop).all():
                steps = int(np.hypot(*(stop - start)) / 0.2) + 2
                dense.append(start + np.linspace(0, 1, steps)[:, None] * (stop - start))
    dense = np.concatenate(dense)
    dense = dense[np.isfinite(dense).all(axis=1)]
    return bool(((dense[:, 0] > box.x0 - reach) & (dense[:, 0] < box.x1 + reach)
                 & (dense[:, 1] > box.y0 - reach) & (dense[:, 1] < box.y1 + reach)).any())


@pytest.mark.slow  # 3 to 5 s; the fast tier keeps other tests of the same code (issue 37's 5-minute tier)
@pytest.mark.parametrize("width, layout", [(COLUMN_WIDTH, "rows"), (6.75, "columns"), (6.75, "grid")])
def test_ideal_tags_overlap_no_line_marker_or_other_tag(tmp_path, synthetic_results, drawn, width, layout):
    # the labels were written at the lines' ends, over the scores that end there
    plot_comparison(synthetic_results, metrics=FOUR_METRICS, scenarios=THREE_SCENARIOS, width=width, layout=layout,
                    out_file=tmp_path / "t.png")
    figure = drawn["figure"]
    figure.draw_without_rendering()  # extents at the figure's own dpi, on the layout the tags were placed on
    tags = []
    for ax in _panels(figure):
        frame = ax.get_window_extent()
        for text in ax.texts:
            box = text.get_window_extent()
            tags.append((ax.get_title(loc="left"), text.get_text(), box))
            assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
            for line in _score_lines(ax) + [line for line in ax.get_lines() if line.get_color() == CLIP_MARKER["color"]]:
                assert not _crosses(box, line, figure), (ax.get_title(loc="left"), text.get_text(), line.get_label())
        boxes = [text.get_window_extent() for text in ax.texts]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
    # noise and mixing each have two trajectories (M and C together, E apart), tagged in the panel or, where no spot
    # is free, described in the note above the panels (holistic's ideal, stated at alpha = 0 where the three agree,
    # is part of both); nonlinear has one, the ideal of every property drawn: untagged
    notes = figure._suptitle.get_text().replace("\n", " ") if figure._suptitle else ""
    for scenario in ("noise", "mixing"):
        tagged = {text for title, text, _ in tags if title == scenario} | {
            tag for tag in ("M,C", "E") if f"{scenario}: ideal {tag}: grey line" in notes}
        assert tagged == {"M,C", "E"}, scenario
    assert not [text for title, text, _ in tags if title == "nonlinear"] and "nonlinear" not in notes
    (legend,) = figure.legends
    assert legend.get_texts()[-1].get_text() == "ideal"
    assert legend.get_title().get_text().replace("\n", " ") == (
        "mean over 3 seeds; band: 95% Student-t interval of the mean ideal tags: M modularity, C compactness, "
        "E explicitness")


def test_an_ideal_of_every_property_drawn_is_untagged_and_one_stated_at_some_values_is_drawn_there(
        synthetic_results, tmp_path, drawn):
    # redundancy_attack@leaky=0.25 states modularity's ideal at alpha = 0 only: drawn as squares there, not joined
    results = synthetic_results.loc[synthetic_results["scenario"] == "noise"].copy()
    results["scenario"] = "redundancy_attack@noise=0.2"
    modularity = results["property"] == "modularity"
    results.loc[modularity, "ideal"] = np.where(results.loc[modularity, "value"].isin([0.0, 1.0]), 1.0, np.nan)
    results["ideal_modularity"] = np.where(results["value"].isin([0.0, 1.0]), 1.0, np.nan)  # as every row states it
    plot_comparison(check_results(results), metrics=["uncal"], out_file=tmp_path / "p.png")
    (ax,) = _panels(drawn["figure"])
    grey = [line for line in ax.get_lines() if line.get_color() == IDEAL_STYLE["color"]]
    squares = [line for line in grey if line.get_marker() == "s"]
    assert len(squares) == 1 and list(squares[0].get_xdata()) == [0.0, 1.0]
    assert len(ax.texts) == 0 and drawn["figure"].legends[0].get_texts()[-1].get_text() == "ideal"


def test_two_ideals_at_nearly_the_same_score_get_tags_that_do_not_overlap(synthetic_results, tmp_path, drawn):
    # partial@noise@rotation=0.3927=0.2 at k = 8: modularity and compactness ideal 0.7997, explicitness 0.8; their
    # two labels were written over each other
    results = synthetic_results.loc[synthetic_results["scenario"] == "mixing"].copy()
    results["ideal"] = np.where(results["property"] == "explicitness", 0.8, 0.7997)
    results = results.assign(ideal_modularity=0.7997, ideal_compactness=0.7997, ideal_explicitness=0.8)
    results = check_results(results.assign(scenario="partial@noise@rotation=0.3927=0.2"))
    plot_comparison(results, metrics=["lin"], out_file=tmp_path / "p.png")
    figure = drawn["figure"]
    figure.draw_without_rendering()
    (ax,) = _panels(figure)
    notes = figure._suptitle.get_text().replace("\n", " ") if figure._suptitle else ""
    described = {tag for tag in ("M,C", "E") if f"ideal {tag}: grey line from" in notes}
    assert {text.get_text() for text in ax.texts} | described == {"M,C", "E"}
    boxes = [text.get_window_extent() for text in ax.texts]
    assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


@pytest.mark.parametrize("band, half_width, title", [
    ("ci95", stats.t.ppf(0.975, 2) * 0.01 / np.sqrt(3), "mean over 3 seeds; band: 95% Student-t interval of the mean"),
    ("sd", 0.01, "mean over 3 seeds; band: ± one standard deviation"),
    ("none", None, "mean over 3 seeds"),
])
def test_the_band_is_the_interval_asked_for_and_the_legend_names_it(synthetic_results, tmp_path, drawn, band,
                                                                    half_width, title):
    plot_comparison(synthetic_results, metrics=["lin/explicitness"], scenarios=["mixing"], band=band,
                    out_file=tmp_path / "b.png")
    figure = drawn["figure"]
    (ax,) = _panels(figure)
    assert figure.legends[0].get_title().get_text().replace("\n", " ").startswith(title)
    if half_width is None:
        assert len(ax.collections) == 0
        return
    (line,) = _score_lines(ax)
    outline = ax.collections[0].get_paths()[0].vertices
    for x, mean in zip(line.get_xdata(), line.get_ydata()):
        edges = sorted(set(np.round(outline[np.isclose(outline[:, 0], x), 1], 12)))
        np.testing.assert_allclose(edges, [mean - half_width, mean + half_width])


def test_a_sub_score_can_be_chosen_alone(synthetic_results, tmp_path, drawn):
    plot_comparison(synthetic_results, metrics=["lin/compactness", "step"], scenarios=["mixing"],
                    out_file=tmp_path / "s.png")
    (ax,) = _panels(drawn["figure"])
    assert sorted(line.get_label() for line in _score_lines(ax)) == ["lin/compactness", "step"]


def test_labels_are_renamed_and_a_rename_that_names_nothing_is_refused(synthetic_results, tmp_path, drawn):
    renames = {"lin": "LIN", "step/step": "unused", "step": "Step", "mixing": "Mixing", "alpha": "α",
               "compactness": "C-ness", "lin/explicitness": "explicit LIN"}
    with pytest.raises(FigureRequestError, match="rename \\['step/step'\\] names no label of the figure and nothing of "
                       "the results"):
        plot_comparison(synthetic_results, metrics=["lin", "step"], scenarios=["mixing"], rename=renames,
                        out_file=tmp_path / "r.png")
    assert not (tmp_path / "r.png").exists()
    del renames["step/step"]
    plot_comparison(synthetic_results, metrics=["lin", "step"], scenarios=["mixing"], rename=renames,
                    panel_letters=True, out_file=tmp_path / "r.png")
    figure = drawn["figure"]
    (ax,) = _panels(figure)
    assert ax.get_title(loc="left") == "(a) Mixing" and ax.get_xlabel() == "α"
    # one rename file for every figure of a paper: a name of the results this figure does not show is left unused
    plot_comparison(synthetic_results, metrics=["lin"], scenarios=["mixing"], rename=renames, out_file=tmp_path / "l.png")
    assert "explicit LIN" in [line.get_label() for line in _score_lines(_panels(drawn["figure"])[0])]
    assert sorted(line.get_label() for line in _score_lines(ax)) == ["LIN/C-ness", "LIN/modularity", "Step",
                                                                     "explicit LIN"]
    assert "C C-ness" in figure.legends[0].get_title().get_text().replace("\n", " ")


@pytest.mark.parametrize("rename", [{"lin/compactness": "step"}, {"lin/compactness": "lin/modularity"},
                                    {"compactness": "modularity"}, {"lin/explicitness": "E", "step": "E"}],
                         ids=["onto another line", "onto a sibling", "a sub-score onto a sibling", "two onto one"])
def test_a_rename_that_gives_two_lines_one_label_is_refused(synthetic_results, tmp_path, rename):
    # issue 40: --rename silently merged two lines under one label
    with pytest.raises(FigureRequestError, match="rename gives the lines .* one label"):
        plot_comparison(synthetic_results, metrics=["lin", "step"], scenarios=["mixing"], rename=rename,
                        out_file=tmp_path / "r.png")
    assert not (tmp_path / "r.png").exists()


@pytest.mark.parametrize("rename", [{"lin": ""}, {"lin": "  "}, {"lin": 3}])
def test_a_rename_to_no_text_is_refused(synthetic_results, tmp_path, rename):
    # {"lin": ""} (a --rename-file's) drew an empty legend entry, where --rename lin= was refused; 3 raised a TypeError
    with pytest.raises(FigureRequestError, match=rf"^rename gives {re.escape(str(rename))}: each label must be a text "
                       "that is not empty$"):
        plot_comparison(synthetic_results, metrics=["lin"], scenarios=["mixing"], rename=rename,
                        out_file=tmp_path / "r.png")


@pytest.mark.parametrize("layout, ncols, grid", [("rows", None, (3, 1)), ("columns", None, (1, 3)), ("grid", None, (2, 2)),
                                                 ("rows", 2, (2, 2)), ("rows", 5, (1, 3))])
def test_layouts_and_panel_letters(synthetic_results, tmp_path, drawn, layout, ncols, grid):
    plot_comparison(synthetic_results, metrics=["step"], scenarios=THREE_SCENARIOS, layout=layout, ncols=ncols,
                    panel_letters=True, width=6.75, out_file=tmp_path / "l.png")
    figure = drawn["figure"]
    figure.draw_without_rendering()
    panels = _panels(figure)
    assert [ax.get_title(loc="left") for ax in panels] == ["(a) noise", "(b) mixing", "(c) nonlinear"]
    rows = len({round(ax.get_position().y0, 3) for ax in panels})
    columns = len({round(ax.get_position().x0, 3) for ax in panels})
    assert (rows, columns) == grid and len(figure.axes) == grid[0] * grid[1]
    assert figure.get_size_inches()[0] == pytest.approx(6.75)


def test_font_size_sets_labels_ticks_and_legend(synthetic_results, tmp_path, drawn):
    plot_comparison(synthetic_results, metrics=["step"], scenarios=["noise"], font_size=10, out_file=tmp_path / "f.png")
    figure = drawn["figure"]
    (ax,) = _panels(figure)
    assert ax.xaxis.label.get_fontsize() == 10 and ax.title.get_fontsize() == 11
    assert ax.get_xticklabels()[0].get_fontsize() == 9 and figure.legends[0].get_texts()[0].get_fontsize() == 9
    # lines, markers and the ideal grow with the text (at 24 points they stayed hairlines beside it)
    widths = {}
    for size in (7, 14):
        plot_comparison(synthetic_results, metrics=["step"], scenarios=["noise"], font_size=size, out_file=tmp_path / "f.png")
        (ax,) = _panels(drawn["figure"])
        (line,) = _score_lines(ax)
        ideal = next(line for line in ax.get_lines() if line.get_color() == IDEAL_STYLE["color"])
        widths[size] = (line.get_linewidth(), line.get_markersize(), ideal.get_linewidth())
    assert widths[7] == (1.1, 3.0, IDEAL_STYLE["linewidth"])
    assert widths[14] == pytest.approx(tuple(2 * width for width in widths[7]))
    for layout, message in (({"font_size": 0}, "font_size must be a number from 4 to 24 points, got 0"),
                            ({"font_size": 1000}, "font_size must be a number from 4 to 24 points, got 1000"),
                            ({"width": 0.01}, "width must be a number from 1 to 16.5 inches, got 0.01"),
                            ({"width": float("nan")}, "width must be a number from 1 to 16.5 inches, got nan"),
                            # these raised TypeError from the comparison with the range
                            ({"font_size": None}, "font_size must be a number from 4 to 24 points, got None"),
                            ({"width": "column"}, "width must be a number from 1 to 16.5 inches, got 'column' (a name "
                             "such as 'column' is the command line's: pass reports.rendering.comparison.WIDTHS['column'])"),
                            # metrics="mig" was read as ['m', 'i', 'g']: "unknown metric(s)"
                            ({"metrics": "step"}, "metrics must be a list of names such as ['mig'], got 'step'"),
                            ({"scenarios": ["noise", 3]}, "scenarios must be a list of names such as ['mig'], got "
                             "['noise', 3]")):
        with pytest.raises(FigureRequestError, match=f"^{re.escape(message)}$"):  # a traceback from the layout code
            plot_comparison(synthetic_results, **{"metrics": ["step"], **layout}, out_file=tmp_path / "f.png")
    with pytest.raises(FigureRequestError, match="layout must be one of"):
        plot_comparison(synthetic_results, metrics=["step"], layout="diagonal", out_file=tmp_path / "f.png")


def test_plot_draws_a_sample_efficiency_scenario_along_its_sample_sizes(tmp_path, synthetic_results, drawn):
    # its values are sample sizes: kept at the largest n, the panel showed one point at n = 100000
    plot_comparison(synthetic_results, metrics=["step"], scenarios=["sample_size"], out_file=tmp_path / "n.png")
    (ax,) = _panels(drawn["figure"])
    (line,) = _score_lines(ax)
    np.testing.assert_array_equal(line.get_xdata(), [100, 1000, 10000, 100000])


def test_variants_are_found_by_base_name_from_the_column_or_the_name(synthetic_results):
    step = synthetic_results.loc[synthetic_results["metric"] == "step"]
    swept = pd.concat([step.assign(metric=f"mig[bins={bins}]") for bins in (5, 10)] + [synthetic_results],
                      ignore_index=True)
    assert variants_of(swept, "mig") == ["mig[bins=10]", "mig[bins=5]"] and variants_of(swept, "lin") == []
    assert set(metric_bases(swept)) == {"mig", "lin", "step", "uncal", "holo", "pid"}
    # a table that carries its base names is read, not parsed
    based = swept.assign(metric_base=np.where(swept["metric"].str.startswith("mig["), "my_mig", swept["metric"]))
    assert variants_of(based, "my_mig") == ["mig[bins=10]", "mig[bins=5]"] and variants_of(based, "mig") == []
    assert "lin/compactness" in selectable(swept) and "step/step" not in selectable(swept)


def _swept_step(synthetic_results: pd.DataFrame) -> pd.DataFrame:
    """``synthetic_results`` with ``step`` swept over ``bins``: ``step[bins=10]`` at its defaults (its scores), and
    ``step[bins=5]`` (half of them), as ``run --metric-option step:bins=5,10`` writes a sweep's variants."""
    from reports.results.schema import encode_options

    step = synthetic_results.loc[synthetic_results["metric"] == "step"]
    defaults = encode_options({"bins": 10, "normalization": "factor"})
    variants = [step.assign(metric=f"step[bins={bins}]", metric_base="step", options=encode_options({"bins": bins}),
                            default_options=defaults, score=step["score"] * (bins / 10)) for bins in (5, 10)]
    return check_results(pd.concat([synthetic_results.loc[synthetic_results["metric"] != "step"], *variants],
                                   ignore_index=True))


@pytest.mark.slow
def test_a_swept_metric_named_alone_is_its_variant_at_the_defaults_in_the_reports_colour(synthetic_results, tmp_path,
                                                                                         drawn):
    # the README's plot of the default study refused dci_lasso and sap (swept there) and drew mig[bins=10] in a colour
    # of its own; the report's figures draw each swept metric at its defaults under its own name
    from reports.rendering.comparison import run_colours
    from reports.rendering.style import metric_colours

    swept = _swept_step(synthetic_results)
    colour = run_colours(swept)["step"]
    assert colour == metric_colours(on_default_options(swept))["step"] == run_colours(swept)["step[bins=10]"]
    lines = {}
    for name in ("step", "step[bins=10]", "step[bins=5]"):
        plot_comparison(swept, metrics=[name, "lin"], scenarios=["noise"], out_file=tmp_path / "f.png")
        (ax,) = _panels(drawn["figure"])
        lines[name] = next(line for line in _score_lines(ax) if line.get_label() == name)
    assert mcolors.to_hex(lines["step"].get_color()) == mcolors.to_hex(lines["step[bins=10]"].get_color()) == colour.lower()
    np.testing.assert_array_equal(lines["step"].get_ydata(), lines["step[bins=10]"].get_ydata())
    np.testing.assert_allclose(lines["step[bins=5]"].get_ydata(), lines["step"].get_ydata() / 2)
    plot_comparison(swept, metrics=["step", "step[bins=5]"], scenarios=["noise"], out_file=tmp_path / "f.png")
    (ax,) = _panels(drawn["figure"])
    together = {line.get_label(): mcolors.to_hex(line.get_color()) for line in _score_lines(ax)}
    assert together["step"] == colour.lower() != together["step[bins=5]"]  # a variant the report never draws: its own
    with pytest.raises(FigureRequestError, match=r"colours name metric\(s\) \['stpe'\], neither registered nor the run's"):
        plot_comparison(swept, metrics=["step"], colours={"stpe": "#000000"}, out_file=tmp_path / "g.png")
    # a paper's palette may name metrics a run lacks, registered ones or a variant of one
    plot_comparison(swept, metrics=["step"], colours={"dci_rf": "#000000", "mig[bins=5]": "#E69F00"},
                    out_file=tmp_path / "g.png")


def test_fixing_one_colour_recolours_only_the_metrics_whose_colour_it_takes(synthetic_results):
    # pinning one metric's colour recoloured most of the default study's others (DSatur ran again around it)
    from reports.rendering.style import close_colours, metric_colours

    many = pd.concat([synthetic_results.loc[synthetic_results["metric"] == "lin"].assign(metric=f"m{i:02d}")
                      for i in range(8)], ignore_index=True)
    panels = [[(f"m{i:02d}", "modularity") for i in range(first, first + 4)] for first in (0, 2, 4)]
    own = metric_colours(many, panels=panels)
    taken = own["m01"]
    pinned = metric_colours(many, {"m03": taken}, panels=panels)
    assert pinned["m03"] == taken
    changed = {metric for metric in own if metric != "m03" and pinned[metric] != own[metric]}
    assert changed == {"m01"}  # m01 shares a panel with m03 and held that colour: it alone takes another
    assert not close_colours(pinned["m01"], taken) and pinned["m01"] not in {pinned[m] for m in ("m00", "m02")}


def test_a_title_wider_than_its_panel_is_wrapped_inside_the_figure(synthetic_results, tmp_path, drawn):
    # at --width 1 'sample_size' was cut at the figure's edge ("sample_siz")
    for width, wrapped in ((1.0, True), (6.75, False)):
        plot_comparison(synthetic_results, metrics=["step"], scenarios=["sample_size"], width=width,
                        out_file=tmp_path / "narrow.png")
        figure = drawn["figure"]
        (ax,) = _panels(figure)
        assert ("\n" in ax.get_title(loc="left")) == wrapped
        assert ax.get_title(loc="left").replace("\n", "") == "sample_size"  # no character dropped
        extent = ax.title.get_window_extent(figure._get_renderer())
        assert extent.x1 <= figure.bbox.x1 + 0.5  # inside the figure


@pytest.mark.parametrize(("width", "font_size"), [(1.0, 7.0), (3.3, 24.0)])
def test_every_legend_entry_fits_the_narrowest_and_largest_figures(synthetic_results, tmp_path, drawn, width, font_size):
    # at 1 inch, or a column's width at 24 points, "dci_lasso/compactness" and its kin ran past both edges (labels
    # were wrapped to 36 characters whatever the width)
    plot_comparison(synthetic_results, scenarios=["noise"], out_file=tmp_path / "narrow.png", width=width,
                    font_size=font_size)
    figure = drawn["figure"]
    figure.draw_without_rendering()
    page = figure.bbox
    texts = [text for legend in figure.legends for text in legend.get_texts()]
    assert texts and any("\n" in text.get_text() for text in texts)  # some label wrapped to fit
    for text in texts:
        box = text.get_window_extent()
        assert page.x0 <= box.x0 and box.x1 <= page.x1, (text.get_text(), box, page)


def test_a_clipped_mean_s_red_triangle_has_a_legend_entry_and_only_then(synthetic_results, tmp_path, drawn):
    # DCI-ES's explicitness below the axis on noise showed red triangles that no legend entry named
    low = synthetic_results.copy()
    low.loc[(low["metric"] == "step") & (low["scenario"] == "noise") & (low["value"] == 1.0), "score"] = -0.6
    plot_comparison(low, metrics=["step", "lin"], scenarios=["noise", "mixing"], out_file=tmp_path / "low.png")
    legend = drawn["figure"].legends[0]
    texts = [text.get_text() for text in legend.get_texts()]
    assert texts[-1] == CLIP_LABEL and legend.legend_handles[-1].get_marker() == "v"
    plot_comparison(synthetic_results, metrics=["step", "lin"], scenarios=["noise", "mixing"],
                    out_file=tmp_path / "inside.png")
    assert CLIP_LABEL not in [text.get_text() for text in drawn["figure"].legends[0].get_texts()]


def test_a_font_too_large_for_the_width_is_refused_without_a_library_warning(synthetic_results, tmp_path):
    # width 1 and font size 24, each legal: matplotlib's "axes sizes collapsed to zero" and a figure of overlapping text
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FigureRequestError, match=r"^a font of 24 points leaves the panels of a figure 1 inches wide "
                           "no room: give a wider figure, a smaller font, or fewer metrics"):
            plot_comparison(synthetic_results, metrics=["lin", "step"], scenarios=["mixing"], width=1, font_size=24,
                            out_file=tmp_path / "f.png")
    assert not (tmp_path / "f.png").exists()
