"""Phase diagrams and the parameter columns, on a two-parameter sweep built by hand.

The sweep ``dense_mixing@equicorrelated`` runs slices ``dense_mixing@equicorrelated=RHO`` over kappa in
{1, 10} at rho in {0, 0.5, 0.9}, seeds 0 and 1.  Metric ``m`` (modularity, higher is better) scores
``0.9 - 0.5 rho + 0.02 (seed - 0.5)``, so its mean over seeds is ``0.9 - 0.5 rho`` whatever kappa: it
measures the correlation, not the encoder.  Metric ``low`` (compactness, lower is better) scores
``kappa / 100``, drawn as ``1 - kappa / 100``.  The ideal of modularity is ``1 / kappa``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports.analyses.phase import phase_table
from reports.rendering.comparison import FigureRequestError
from reports.rendering.phase import (
    NUMBER_POINTS,
    REPORT_PANEL_INCHES,
    _beyond_the_scale,
    ideal_text,
    phase_drawers,
    phase_figure,
    phase_section,
    plot_phase_diagram,
)
from reports.results.parameters import parameter_columns, two_parameter_sweeps, with_parameter_columns
from reports.results.schema import encode_options

SWEEP = "dense_mixing@equicorrelated"
RHOS = (0.0, 0.5, 0.9)
KAPPAS = (1.0, 10.0)


def sweep_rows() -> pd.DataFrame:
    rows = []
    for rho in RHOS:
        for kappa in KAPPAS:
            for seed in (0, 1):
                for metric, sub, prop, higher, score, ideal in (
                        ("m", "m", "modularity", True, 0.9 - 0.5 * rho + 0.02 * (seed - 0.5), 1 / kappa),
                        ("low", "low", "compactness", False, kappa / 100, 1.0)):
                    rows.append({
                        "study": "t", "scenario": f"{SWEEP}={rho:g}", "parameter": "kappa", "criterion": "",
                        "value": kappa, "value_label": f"{kappa:g}", "sweep": SWEEP,
                        "parameters": encode_options({"kappa": kappa, "base.rho": rho}), "seed": seed,
                        "n_samples": 500, "metric": metric, "metric_base": metric, "options": "{}",
                        "default_options": "{}", "family": "information", "sub_score": sub, "property": prop,
                        "higher_is_better": higher, "ideal": ideal, "score": score, "exact": np.nan,
                        "seconds": 0.01, "warnings": 0, "first_warning": "", "metric_version": "1",
                        "harness_version": "t"})
    return pd.DataFrame(rows)


def test_the_sweep_is_found_from_the_columns_not_the_names():
    frame = sweep_rows()
    (found,) = two_parameter_sweeps(frame)
    assert (found.sweep, found.x, found.y) == (SWEEP, "kappa", "base.rho")
    values = parameter_columns(frame)
    assert sorted(values.columns) == ["parameter:base.rho", "parameter:kappa"]
    assert values["parameter:base.rho"].tolist() == [float(s.split("=")[1]) for s in frame["scenario"]]


def test_a_table_without_the_columns_gets_one_parameter_per_row():
    old = sweep_rows().drop(columns=["sweep", "parameters"])
    filled = with_parameter_columns(old)
    assert filled["sweep"].tolist() == old["scenario"].tolist()
    assert filled["parameters"].iloc[0] == '{"kappa":1.0}'
    assert two_parameter_sweeps(filled) == []


def test_phase_table_means_over_seeds_oriented_with_the_ideal_and_its_distance():
    frame = sweep_rows()
    table = phase_table(frame, two_parameter_sweeps(frame)[0])
    assert len(table) == len(RHOS) * len(KAPPAS) * 2
    m = table.loc[table["metric"] == "m"].set_index(["x", "y"])
    for rho in RHOS:
        for kappa in KAPPAS:
            assert m.loc[(kappa, rho), "mean"] == pytest.approx(0.9 - 0.5 * rho, abs=1e-12)
            assert m.loc[(kappa, rho), "ideal"] == pytest.approx(1 / kappa)
            assert m.loc[(kappa, rho), "distance"] == pytest.approx(abs(0.9 - 0.5 * rho - 1 / kappa), abs=1e-12)
            assert m.loc[(kappa, rho), "std"] == pytest.approx(0.02 / np.sqrt(2), rel=1e-9)
    low = table.loc[table["metric"] == "low"].set_index(["x", "y"])
    assert low.loc[(10.0, 0.5), "mean"] == pytest.approx(0.9)  # 1 - 10 / 100


def test_ideal_text_states_a_constant_an_unknown_or_nothing_where_it_varies():
    assert ideal_text(np.array([[1.0, 1.0], [1.0, 1.0]])) == "ideal 1"
    assert ideal_text(np.full((2, 2), np.nan)) == "no ideal stated"
    assert ideal_text(np.array([[1.0, 0.1], [1.0, 0.1]])) == ""
    assert ideal_text(np.array([[1.0, np.nan], [1.0, np.nan]])) == "ideal 1 at 2 of 4 points"


def test_section_lists_the_sweep_with_both_axes():
    section = phase_section(sweep_rows())
    record = section.table.iloc[0]
    assert (record["sweep"], record["across"], record["up"]) == (SWEEP, "kappa", "base.rho")
    assert record["across_values"] == "1, 10" and record["up_values"] == "0, 0.5, 0.9"
    assert (record["slices"], record["seeds"], record["sub_scores"]) == (3, 2, 2)
    # a race gives some cells more seeds: the table said the most alone ("Seeds 6" where most cells had 3)
    rows = sweep_rows()
    extra = rows.loc[rows["metric"] == "m"].assign(seed=lambda frame: frame["seed"] + 2)
    raced = phase_section(pd.concat([rows, extra], ignore_index=True))
    assert (raced.table.iloc[0]["fewest_seeds"], raced.table.iloc[0]["seeds"]) == (2, 4)
    assert raced.display.iloc[0]["Seeds"] == "2 to 4" and section.display.iloc[0]["Seeds"] == "2"
    assert phase_section(sweep_rows().assign(sweep=lambda f: f["scenario"],
                                             parameters='{"kappa":1.0}')) is None


def test_plot_draws_one_panel_per_sub_score_and_refuses_an_unknown_sweep(tmp_path):
    out = plot_phase_diagram(sweep_rows(), sweep=SWEEP, out_file=tmp_path / "phase.svg", width=3.25,
                             value="distance", rename={"base.rho": "ρ"})
    text = out.read_text()
    assert text.count("<image") == 3  # one heat map per sub-score, and the colour bar
    assert "ρ" in text
    with pytest.raises(FigureRequestError, match="they hold"):
        plot_phase_diagram(sweep_rows(), sweep="nope", out_file=tmp_path / "x.png")
    with pytest.raises(FigureRequestError, match="value must be"):
        plot_phase_diagram(sweep_rows(), sweep=SWEEP, out_file=tmp_path / "x.png", value="ratio")


def test_the_report_draws_a_panel_a_column_wide_and_its_numbers_at_8_pt_or_not_at_all():
    # one panel was drawn a page wide (1350 x 1193 px) with 4.5 pt numbers, shown at half its width in the report
    rows = sweep_rows()
    (_, _, draw), = phase_drawers(rows.loc[rows["metric"] == "low"])
    drawn = draw()
    numbers = [text for ax in drawn.figure.axes for text in ax.texts]
    assert drawn.figure.get_figwidth() == pytest.approx(REPORT_PANEL_INCHES) and drawn.notes == []
    assert sorted(text.get_text() for text in numbers) == ["0.90"] * 3 + ["0.99"] * 3  # 1 - kappa / 100
    assert {text.get_fontsize() for text in numbers} == {NUMBER_POINTS}
    (_, _, draw), = phase_drawers(rows)
    assert draw().figure.get_figwidth() == pytest.approx(2 * REPORT_PANEL_INCHES)  # two panels
    sweep = two_parameter_sweeps(rows)[0]
    small = phase_figure(phase_table(rows, sweep), sweep, width=0.6)  # cells of 0.24 in: "0.90" at 8 pt needs 0.33
    assert [text.get_text() for text in small.figure.axes[0].texts] == []
    assert small.notes == ["The cells are too small to print their means at 8 pt: the colour bar reads them."]


def test_a_figure_drawn_alone_warns_its_notes(tmp_path):
    from reports.rendering.phase import FigureNote

    rows = sweep_rows()
    rows.loc[rows["metric"] == "low", "score"] = 1.3  # beyond the colour scale: drawn at its end, and said
    with pytest.warns(FigureNote, match=r"low \(1 − score\) reaches -0\.30 \(drawn at the scale.s end\)"):
        plot_phase_diagram(rows, sweep=SWEEP, out_file=tmp_path / "phase.png")


@pytest.mark.parametrize("value, text", [(1.3, "1.30"), (-0.2, "-0.20"), (-0.004, "-0.004"), (1.0042, "1.004"),
                                         (-0.00004, "-0.00004")])
def test_a_mean_beyond_the_colour_scale_never_reads_as_its_end(value, text):
    # a phase diagram's note read "snc_nk/nk reaches -0.00 (drawn at the scale's end)"
    assert _beyond_the_scale(value) == text
