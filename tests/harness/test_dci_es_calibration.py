"""DCI-ES explicitness on pure noise, scored for real: about -1, below the chance end, so not calibrated (issue 39)."""

from __future__ import annotations

import pytest

from harness.execution.runner import run_study
from reports.verdicts.headline import headline, headline_display, range_lines


@pytest.mark.slow  # a study of 8 cells: about 5 s
def test_dci_es_explicitness_on_pure_noise_is_flagged_not_calibrated():
    results = run_study(preset="quick", scenarios_=["noise"], metrics_=["dci_es"], seeds=2, n_samples=300,
                        grids={"noise": [0.0, 1.0]}, null_permutations=0, progress=False, log=lambda _: None)
    noise = results.loc[(results["sub_score"] == "explicitness") & (results["value"] == 1.0), "score"]
    assert (noise < -0.9).all()  # within its declared [-1, 1]: no range flag, the calibration verdict says it
    table = headline(results)
    cell = table.set_index(["metric", "sub_score", "criterion"]).loc[("dci_es", "explicitness", "calibrated")]
    assert (cell["verdict"], cell["statistic"], cell["comparison"], cell["limit"]) == ("no", "random", ">=", -0.1)
    shown = headline_display(table).set_index("Sub-score").loc["dci_es/explicitness", "Calibrated"]
    assert shown.startswith("✗ 0.9") and " / -0.9" in shown
    assert range_lines(results) == []
