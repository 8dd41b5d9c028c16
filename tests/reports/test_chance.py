"""Chance levels on null codes, from a table built by hand.

``null_gaussian`` at widths 1 and 4 and n in {50, 200, 1000, 5000}, seeds 0, 1, 2.  Metric ``a`` (higher is
better) scores ``w / sqrt(n) + 0.01 (seed - 1)``: mean ``w / sqrt(n)``, spread exactly 0.01.  Metric ``b``
(lower is better) scores 0.98, a chance level of 0.02 everywhere.  A ``noise`` row at n = 1000 makes 1000 the
study's sample size.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from reports.analyses.chance import below_from, chance_levels, chance_summary, nearest_size, study_sample_size
from reports.rendering.chance import chance_figures, chance_section
from reports.results.schema import encode_options

SIZES = (50, 200, 1000, 5000)
WIDTHS = (1.0, 4.0)


def _row(scenario, criterion, parameter, value, seed, n, metric, higher, score, ideal):
    return {"study": "t", "scenario": scenario, "parameter": parameter, "criterion": criterion, "value": value,
            "value_label": f"{value:g}", "sweep": scenario,
            "parameters": encode_options({parameter: value, "n_samples": n}), "seed": seed, "n_samples": n,
            "metric": metric, "metric_base": metric, "options": "{}", "default_options": "{}",
            "family": "information", "sub_score": metric, "property": "modularity", "higher_is_better": higher,
            "ideal": ideal, "score": score, "exact": np.nan, "seconds": 0.01, "warnings": 0, "first_warning": "",
            "metric_version": "1", "harness_version": "t"}


def chance_rows() -> pd.DataFrame:
    rows = [_row("null_gaussian", "chance", "width_ratio", width, seed, n, "a", True,
                 width / math.sqrt(n) + 0.01 * (seed - 1), 0.0)
            for width in WIDTHS for n in SIZES for seed in (0, 1, 2)]
    rows += [_row("null_gaussian", "chance", "width_ratio", width, seed, n, "b", False, 0.98, 0.0)
             for width in WIDTHS for n in SIZES for seed in (0, 1, 2)]
    rows.append(_row("noise", "noise", "alpha", 0.0, 0, 1000, "a", True, 1.0, 1.0))
    return pd.DataFrame(rows)


def test_below_from_and_nearest_size_by_hand():
    sizes = np.array([50, 200, 1000, 5000])
    assert below_from(sizes, np.array([0.3, 0.04, 0.06, 0.01])) == 5000  # must stay below at every larger n
    assert below_from(sizes, np.array([0.04, 0.03, 0.02, 0.01])) == 50
    assert math.isnan(below_from(sizes, np.array([0.3, 0.2, 0.1, 0.06])))
    assert nearest_size(sizes, 1000) == 1000
    assert nearest_size(sizes, 400) == 200  # log-nearest: |ln 400 - ln 200| < |ln 1000 - ln 400|
    assert nearest_size(np.array([100, 400]), 200) == 400  # equally near on a log scale: the larger


def test_levels_are_oriented_means_with_student_t_intervals():
    levels = chance_levels(chance_rows())
    a = levels.loc[(levels["metric"] == "a") & (levels["value"] == 4.0) & (levels["n_samples"] == 200)].iloc[0]
    assert a["mean"] == pytest.approx(4 / math.sqrt(200), abs=1e-12)
    assert a["half_width"] == pytest.approx(stats.t.ppf(0.975, 2) * 0.01 / math.sqrt(3), rel=1e-9)
    b = levels.loc[levels["metric"] == "b"]
    assert np.allclose(b["mean"], 0.02)  # 1 - 0.98: lower-is-better scores oriented, higher is worse
    assert set(levels["scenario"]) == {"null_gaussian"}  # the noise row tests no chance


def test_summary_reads_the_study_n_names_the_high_ones_and_when_each_falls():
    rows = chance_rows()
    assert study_sample_size(rows) == 1000
    summary = chance_summary(chance_levels(rows), 1000).set_index(["metric", "value"])
    assert summary.loc[("a", 4.0), "level"] == pytest.approx(4 / math.sqrt(1000))
    assert bool(summary.loc[("a", 4.0), "exceeds"]) and not bool(summary.loc[("a", 1.0), "exceeds"])
    assert summary.loc[("a", 1.0), "below_from"] == 1000  # 1/sqrt(200) = 0.071, 1/sqrt(1000) = 0.032
    assert pd.isna(summary.loc[("a", 4.0), "below_from"])  # 4/sqrt(5000) = 0.057 is not below 0.05
    assert summary.loc[("b", 1.0), "below_from"] == 50
    # a sample size is written whole in chance.csv ("1000.0" before), an empty field where never below
    written = pd.read_csv(io.StringIO(summary.reset_index().to_csv(index=False)), dtype=str, keep_default_na=False)
    assert {"", "1000", "50"} == set(written["below_from"])
    section = chance_section(rows)
    assert section.lines[0].startswith("At n = 1000, 1 sub-score reaches a chance level above 0.1")
    assert "a (0.13 at width_ratio = 4)" in section.lines[0]
    assert "a: not within the swept n (up to 5000)" in section.lines[1]
    rollup = section.display.set_index("Sub-score")
    assert rollup.loc["a", "Below 0.05 from n"] == "never (≤ 5000)" and rollup.loc["b (1 − score)", "Below 0.05 from n"] == "50"


def test_a_level_outside_zero_one_keeps_an_interval_around_it():
    # DCI-ES's explicitness scores about -0.99 on null codes: clipped to [0, 1], its interval was [0, 0], which does
    # not hold the level it goes with
    rows = chance_rows()
    rows.loc[rows["metric"] == "a", "score"] -= 1.0  # mean w / sqrt(n) - 1, spread 0.01
    summary = chance_summary(chance_levels(rows), 1000).set_index(["metric", "value"])
    row = summary.loc[("a", 1.0)]
    assert row["low"] < row["level"] < row["high"] < 0
    assert row["high"] - row["level"] == pytest.approx(stats.t.ppf(0.975, 2) * 0.01 / math.sqrt(3), rel=1e-9)


def test_without_null_codes_the_section_says_so_and_one_figure_per_family_is_drawn():
    rows = chance_rows()
    section = chance_section(rows.loc[rows["criterion"] != "chance"])
    assert section.table is None and "Not computed" in section.notes[0]
    figures = chance_figures(chance_levels(rows))
    assert [key for key, _ in figures] == ["chance_information"]
    (axes_a, axes_b, *_) = figures[0][1].figure.axes
    assert len(axes_a.get_lines()) == 2 + len(WIDTHS)  # the 0.05 and 0.1 references, one curve per width


def test_a_level_below_the_axis_is_marked_and_named_in_the_caption():
    # DCI-ES's explicitness (about -1 on null codes) drew nothing in its panel of the default report: the axis starts
    # at -0.02, and the figure said nothing of the level below it
    rows = chance_rows()
    rows.loc[rows["metric"] == "a", "score"] -= 1.0  # mean w / sqrt(n) - 1: lowest at n = 5000
    drawn = chance_figures(chance_levels(rows))[0][1]
    assert drawn.notes == [f"a, width_ratio = {width:g} reaches {width / math.sqrt(5000) - 1:.2f} at n = 5000 (clipped, "
                           "red triangle)." for width in WIDTHS]
    axes_a = drawn.figure.axes[0]
    low = axes_a.get_ylim()[0]
    drawn_means = [line.get_ydata() for line in axes_a.get_lines() if line.get_label().startswith("width_ratio")]
    assert len(drawn_means) == len(WIDTHS) and all(np.all(np.asarray(y) == low) for y in drawn_means)  # at the edge
    assert chance_figures(chance_levels(chance_rows()))[0][1].notes == []  # levels within the axis: nothing to say
