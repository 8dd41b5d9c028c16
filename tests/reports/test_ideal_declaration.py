"""One declaration of where an ideal is defined (``Scenario.ideal_ranges``), read by robustness, calibration, the
figures' ideal lines and the phase diagrams' distance: a noise study run twice, once with the noise scenario's own
declaration (modularity and compactness defined on alpha <= 0.5) and once with a copy declaring them on the whole
range, moves all four together."""

from __future__ import annotations

import numpy as np
import pytest

from harness import run_study
from reports import calibration, robustness
from reports.analyses.phase import phase_table
from reports.rendering.figures import READ_RANGE_NOTE, scenario_figure
from reports.rendering.style import IDEAL_STYLE
from reports.results.parameters import two_parameter_sweeps

WHOLE = '''
import dataclasses
from scenarios.noise import NOISE
noise_whole = dataclasses.replace(NOISE, name="noise_whole",
                                  ideal_ranges={"modularity": (0.0, 1.0), "compactness": (0.0, 1.0)})
'''


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """Per declaration (the scenario's own, the whole range): the results of mig on it, alpha x n swept."""
    root = tmp_path_factory.mktemp("declared")
    (root / "whole.py").write_text(WHOLE)
    grid = {"alpha": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0], "n_samples": [200, 400]}
    out = {}
    for key, scenario in (("declared", "noise"), ("whole", f"{root / 'whole.py'}:noise_whole")):
        out[key] = run_study(preset="quick", scenarios_=[scenario], metrics_=["mig"], seeds=2, grids={scenario: grid},
                             null_permutations=0, out=root / key, progress=False, log=lambda *_: None)
    return out


def _ideal_line_end(results) -> tuple[float, list[str]]:
    """The largest alpha the compactness panel's ideal line reaches in the scenario's figure (mig: compactness), and
    the figure's notes."""
    scenario = results["scenario"].iloc[0]
    drawn = scenario_figure(results, scenario)
    (ax,) = [ax for ax in drawn.figure.axes if ax.get_title(loc="left").startswith("compactness")]
    ideal = [line for line in ax.get_lines() if line.get_color() == IDEAL_STYLE["color"]
             and line.get_linewidth() == IDEAL_STYLE["linewidth"]]
    x, y = ideal[0].get_data()
    return float(np.max(np.asarray(x)[np.isfinite(np.asarray(y, dtype=float))])), drawn.notes


def test_robustness_calibration_figure_and_phase_read_one_declaration(studies):
    declared, whole = studies["declared"], studies["whole"]
    # robustness reads where the ideal is defined
    assert robustness(declared).set_index("metric").loc["mig", "values_read"] == "alpha 0 to 0.4"
    assert robustness(whole).set_index("metric").loc["mig", "values_read"] == "alpha 0 to 1"
    # calibration's random end asks a null score where the ideal is undefined; the whole-range copy states 1 there
    assert "mig" in set(calibration(declared)["metric"])
    blank = calibration(whole)
    assert "mig" not in set(blank["metric"])
    assert any(note.startswith("mig/mig: 'noise_whole' states its compactness ideal as 1") for note in blank.attrs["notes"])
    # the figure draws the ideal where it is defined and shades that range
    end, notes = _ideal_line_end(declared)
    assert end == pytest.approx(0.4) and READ_RANGE_NOTE in notes
    end, notes = _ideal_line_end(whole)
    assert end == pytest.approx(1.0) and READ_RANGE_NOTE not in notes
    # the phase diagram's distance exists where the ideal does
    for results, defined in ((declared, {0.0, 0.2, 0.4}), (whole, {0.0, 0.2, 0.4, 0.6, 0.8, 1.0})):
        (sweep,) = two_parameter_sweeps(results)
        table = phase_table(results, sweep)
        assert set(table.loc[table["distance"].notna(), "x"].astype(float)) == defined
