"""The report's title names its run directory, and the preset where the directory is not named after it: a study of
chosen scenarios and metrics runs with the default preset, and was titled "report: default"."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reports.report import report_title, write_report


def test_a_custom_study_is_titled_by_its_directory_and_its_preset():
    results = pd.DataFrame({"study": ["default", "default"]})
    assert report_title(results, Path("runs/phase")) == "Disentanglement metrics report: phase (preset default)"
    assert report_title(results, Path("runs/default")) == "Disentanglement metrics report: default"
    both = pd.DataFrame({"study": ["quick", "default"]})
    assert report_title(both, Path("runs/default")) == "Disentanglement metrics report: default (preset default, quick)"


def test_the_written_report_carries_the_title(tmp_path, synthetic_results):
    # a small report (one scenario): the shared full one costs a fast-tier worker 18 s to build
    run_dir = tmp_path / "lab_run"
    write_report(synthetic_results.loc[synthetic_results["scenario"] == "mixing"], run_dir)
    title = f"Disentanglement metrics report: {run_dir.name} (preset synthetic)"
    assert f"<h1>{title}</h1>" in (run_dir / "report.html").read_text(encoding="utf-8")
    assert (run_dir / "report.md").read_text(encoding="utf-8").startswith(f"# {title}\n")
