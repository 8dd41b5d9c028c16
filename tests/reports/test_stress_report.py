"""reports.stress renders a stress search from plain tables built by hand: the section states the numbers it is
given, the contrast is the case's property closest to the ideal first, and the figure is written and legible."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ElementTree
from dataclasses import replace

import pandas as pd
import pytest
from matplotlib.colors import to_hex

from reports.stress import CONTRAST_ROWS, StressTables, stress_record, stress_section, worst_case_figure, write_stress

COMMAND = "python -m harness run --scenarios noise --grid noise=1.0 --metrics toy --seeds 3 --n-samples 300"
# Scores 0.35, 0.40, 0.45 around an ideal of 0: departure +0.4; sd 0.05, t(0.975, 2) = 4.3027 -> half-width 0.1242.
HALF_WIDTH = 4.302653 * 0.05 / math.sqrt(3)


def _measurement(value: float, scores: tuple[float, ...], ideal: float) -> dict:
    mean = sum(scores) / len(scores)
    return {"scenario": "noise", "parameter": "alpha", "value": value, "value_label": f"{value:g}", "n_samples": 300,
            "sub_score": "toy", "property": "modularity", "higher_is_better": True, "ideal": ideal,
            "mean_score": mean, "departure": mean - ideal, "half_width": HALF_WIDTH, "direction": "over",
            "seeds": len(scores), "stage": "exploration"}


@pytest.fixture()
def tables() -> StressTables:
    measurements = pd.DataFrame([_measurement(0.0, (0.95, 1.0, 1.0), 1.0), _measurement(0.5, (0.85, 0.9, 0.95), 1.0),
                                 _measurement(1.0, (0.35, 0.4, 0.45), 0.0)])
    case = {**measurements.iloc[2].to_dict(), "scores": (0.35, 0.4, 0.45), "first_seed": 3, "command": COMMAND}
    contrast = pd.DataFrame([
        {"case": 1, "metric": "dci", "sub_score": "modularity", "property": "modularity", "higher_is_better": True, "mean_score": 0.2,
         "ideal": 0.0, "departure": 0.2},
        {"case": 1, "metric": "mig", "sub_score": "mig", "property": "modularity", "higher_is_better": True, "mean_score": 0.05,
         "ideal": 0.0, "departure": 0.05},
        {"case": 1, "metric": "sap", "sub_score": "sap", "property": "explicitness", "higher_is_better": True, "mean_score": 0.5,
         "ideal": 0.0, "departure": 0.5},
    ])
    along = pd.DataFrame({"position": [0.0, 0.5, 1.0], "score": [0.9833, 0.9, 0.4],
                          "half_width": [0.07, HALF_WIDTH, HALF_WIDTH], "worst": [False, False, True]})
    ideal = pd.DataFrame({"position": [0.0, 0.5, 0.99, 1.0], "ideal": [1.0, 1.0, 1.0, 0.0]})
    summary = {"metric": "toy", "reference": "toy.py:toy", "cells": 30, "seconds": 12.4, "notes": ["one cell failed"],
               "settings": {"scenarios": ["noise"], "sample_sizes": [300], "seeds": 3, "seed": 7, "budget": 30,
                            "budget_seconds": None, "search_confidence": 0.95, "candidates": 2, "confidence": 0.975,
                            "min_departure": 0.1, "top": 3}}
    return StressTables(summary, measurements, pd.DataFrame([case]), contrast, along, ideal)


def test_section_states_the_settings_the_case_and_its_recipe(tables):
    section = stress_section(tables)
    assert section.startswith("## Stress search: where `toy` departs most from its ideal\n")
    assert "sample sizes 300; 3 seeds per point; search seed 7" in section
    assert "budget: 30 cells per scenario; used 30 cells of `toy` in 12 s" in section
    assert ("picked on the search's seeds (its 95% interval over them excludes 0, its departure at least 0.1), then "
            "confirmed on as many fresh seeds: there its departure lies the same way, reaches 0.1, and its 97.5% "
            "interval (5% split over the 2 candidate(s)) excludes 0") in section
    assert "### Case 1: noise = 1, n = 300" in section
    # a search that picked no candidate (every cell failed) read "5% split over the 0 candidate(s)"
    tables.summary["settings"]["candidates"] = 0
    assert "interval (no candidate) excludes 0" in stress_section(tables)
    assert "scores 0.35, 0.4, 0.45 on fresh seeds 3 to 5; ideal 0; departure +0.400 ± 0.124" in section
    assert f"- replay: `{COMMAND}`" in section
    assert "### Notes\n\n- one cell failed" in section
    assert stress_section(tables, heading="#").startswith("# Stress search")


def test_section_lists_the_builtins_of_the_case_property_closest_to_the_ideal_first(tables):
    section = stress_section(tables)
    contrast = section[section.index("Built-ins measuring modularity"):]
    assert contrast.index("| mig ") < contrast.index("| dci ")  # |0.05| < |0.2|
    assert "sap" not in section  # explicitness is not the case's property
    many = pd.concat([tables.contrast.iloc[[1]].assign(metric=f"m{i}", departure=i / 100) for i in range(9)])
    shown = stress_section(replace(tables, contrast=many))
    assert [f"| m{i} " in shown for i in range(9)] == [True] * CONTRAST_ROWS + [False] * (9 - CONTRAST_ROWS)


def test_section_without_a_case_says_so_with_the_count_of_measurements(tables):
    empty = replace(tables, cases=tables.cases.iloc[:0], contrast=tables.contrast.iloc[:0])
    assert ("No case beyond the seed spread among 3 measurements (none of the candidates confirmed on fresh seeds: "
            "see the notes).") in stress_section(empty)
    settings = {**empty.summary["settings"], "candidates": 0}
    none_picked = replace(empty, summary={**empty.summary, "settings": settings})
    assert "No case beyond the seed spread among 3 measurements.\n" in stress_section(none_picked)
    with pytest.raises(ValueError, match="no case to draw"):
        worst_case_figure(empty)


def test_write_stress_writes_the_section_the_record_the_measurements_and_the_figure(tables, tmp_path):
    markdown = write_stress(tables, tmp_path)
    assert markdown.read_text() == stress_section(tables, heading="#")
    record = json.loads((tmp_path / "stress.json").read_text())
    assert record["reference"] == "toy.py:toy" and record["cases"][0]["command"] == COMMAND
    assert record["cases"][0]["scores"] == [0.35, 0.4, 0.45]
    assert [row["metric"] for row in record["cases"][0]["contrast"]] == ["dci", "mig", "sap"]
    assert len(pd.read_csv(tmp_path / "measurements.csv")) == 3
    assert (tmp_path / "figures" / "worst_case.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = ElementTree.parse(tmp_path / "figures" / "worst_case.svg").getroot()
    assert svg.tag.endswith("svg")
    assert "departure" in (tmp_path / "figures" / "worst_case.svg").read_text()


def test_no_case_writes_no_figure(tables, tmp_path):
    write_stress(replace(tables, cases=tables.cases.iloc[:0], contrast=tables.contrast.iloc[:0]), tmp_path)
    assert not (tmp_path / "figures").exists() and json.loads((tmp_path / "stress.json").read_text())["cases"] == []


def test_figure_lines_are_told_apart_and_the_departure_is_labelled(tables):
    figure = worst_case_figure(tables)
    (legend,) = figure.legends
    assert [text.get_text() for text in legend.get_texts()] == ["toy", "ideal", "worst case"]
    main, side = figure.axes
    handles, labels = main.get_legend_handles_labels()
    lines = [handle[0] if isinstance(handle, tuple) else handle for handle in handles]  # an errorbar's data line
    styles = [(to_hex(line.get_color()), str(line.get_marker())) for line in lines]
    assert sorted(labels) == ["ideal", "toy", "worst case"] and len(set(styles)) == len(styles)
    ticks = [line for line in side.lines if line.get_marker() == "_"]
    assert len(ticks) == 1 and len(ticks[0].get_ydata()) == 2  # the two built-ins measuring modularity
    assert sorted(ticks[0].get_ydata()) == pytest.approx([0.05, 0.2])  # oriented = departure + ideal
    assert to_hex(ticks[0].get_color()) not in {style[0] for style in styles}
    texts = [text.get_text() for text in main.texts]
    assert "departure\n+0.40 ± 0.12" in texts
    assert any(text.get_text() == "mig" for text in side.texts)  # the built-in closest to the ideal is named


def test_lower_is_better_scores_are_labelled_as_oriented(tables):
    flipped = replace(tables, cases=tables.cases.assign(higher_is_better=False))
    (legend,) = worst_case_figure(flipped).legends
    assert legend.get_texts()[0].get_text() == "toy (1 − score)"


def test_bad_tables_are_named(tables):
    with pytest.raises(ValueError, match="cases lacks the column\\(s\\) command"):
        replace(tables, cases=tables.cases.drop(columns="command"))
    with pytest.raises(ValueError, match="summary\\['settings'\\] lacks seed"):
        unseeded = {key: value for key, value in tables.summary["settings"].items() if key != "seed"}
        replace(tables, summary={**tables.summary, "settings": unseeded})
    with pytest.raises(ValueError, match="along must mark exactly one row as worst, got 2"):
        replace(tables, along=tables.along.assign(worst=[False, True, True]))
    with pytest.raises(TypeError, match="contrast must be a pandas DataFrame"):
        replace(tables, contrast=[])


def test_record_is_the_summary_and_the_cases(tables):
    record = stress_record(tables)
    assert {key: record[key] for key in tables.summary} == dict(tables.summary)
    assert record["cases"][0]["departure"] == pytest.approx(0.4)


def test_a_choice_parameter_gets_its_labels_and_no_line_between_choices(tables):
    choices = replace(tables, ticks=("cos_sin", "duplicate_2", "duplicate_4"),
                      along=tables.along.assign(position=[0.0, 1.0, 2.0]),
                      ideal=pd.DataFrame({"position": [0.0, 1.0, 2.0], "ideal": [1.0, 0.5, 0.0]}))
    main = worst_case_figure(choices).axes[0]
    assert [label.get_text() for label in main.get_xticklabels()] == ["cos_sin", "duplicate_2", "duplicate_4"]
    (ideal,) = [line for line in main.lines if line.get_label() == "ideal"]
    # one level segment of width 0.6 per choice, NaN between them so that no line joins two choices
    assert list(ideal.get_xdata()[:2]) == pytest.approx([-0.3, 0.3]) and math.isnan(ideal.get_xdata()[2])
    assert list(ideal.get_ydata()[3:5]) == [0.5, 0.5]
    (errorbar,) = main.containers
    assert errorbar.get_label() == "toy" and errorbar[0].get_linestyle() == "None"  # its data line: points only


def test_tables_show_lower_is_better_scores_oriented_so_that_score_minus_ideal_is_the_departure(tables):
    # a lower-is-better case: raw scores 0.55, 0.6, 0.65 (oriented 0.4 on average) against an ideal of 0
    case = tables.cases.assign(higher_is_better=False, mean_score=0.6)
    case.at[0, "scores"] = (0.55, 0.6, 0.65)
    contrast = pd.concat([tables.contrast, pd.DataFrame([
        {"case": 1, "metric": "pid", "sub_score": "redundant_lower", "property": "modularity",
         "higher_is_better": False, "mean_score": 0.99, "ideal": 0.0, "departure": 0.01}])], ignore_index=True)
    section = stress_section(replace(tables, cases=case, contrast=contrast))
    assert "| toy (1 − score) | modularity | 0.400      | 0.000 | 0.400     |" in section
    assert "- toy (modularity; lower is better, judged as 1 − score): scores 0.55, 0.6, 0.65 on fresh seeds 3 to 5; ideal 0;" in section
    assert "| pid    | redundant_lower (1 − score) | modularity | 0.010      | 0.000 | 0.010     |" in section


def test_a_long_metric_name_is_wrapped_inside_the_figure(tables):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    long = replace(tables, summary={**tables.summary, "metric": "my_extremely_descriptive_metric_function_name"},
                   cases=tables.cases.assign(sub_score="a_rather_long_sub_score_name_for_modularity"))
    figure = worst_case_figure(long)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    inside = figure.bbox
    for artist in (figure.axes[0].title, *figure.legends):  # both ran off the figure, the legend's last entries too
        extent = artist.get_window_extent(renderer)
        assert inside.x0 - 1 <= extent.x0 and extent.x1 <= inside.x1 + 1, artist
    assert figure.axes[0].get_title(loc="left") == "my_extremely_descriptive_metric_function_\nname on noise, n = 300"
    assert [label.get_text() for label in figure.axes[1].get_xticklabels()] == ["2 built-ins,\nsame data"]
    one = worst_case_figure(replace(tables, contrast=tables.contrast.iloc[[1, 2]]))
    assert [label.get_text() for label in one.axes[1].get_xticklabels()] == ["1 built-in,\nsame data"]


def test_scores_beyond_zero_to_one_are_drawn_within_the_axes(tables):
    """A metric scoring 5 times modularity was drawn off the axes (clipped to [0, 1]): its curve, the worst case's
    ring and the arrow; only the ideal showed."""
    tall = replace(tables, along=tables.along.assign(score=tables.along["score"] * 5),
                   cases=tables.cases.assign(departure=tables.cases["departure"] + 2.0))
    main = worst_case_figure(tall).axes[0]
    low, high = main.get_ylim()
    assert low < 0 and high >= 5 * 0.9833 + 0.07 and high > 2.4  # every point, its interval and the ring (2.4)
    low, high = worst_case_figure(tables).axes[0].get_ylim()  # scores in [0, 1]: [0, 1] and the intervals (1.053)
    assert -0.06 < low <= -0.05 and 1.053 < high < 1.11
