"""The report's summary line on a run's failed cells: how many, per metric with its first error, and which metrics
scored no cell at all (a metric whose every cell raised vanished from the report, with nothing saying so)."""

from __future__ import annotations

import pandas as pd

from reports.report import failures_line
from reports.results.schema import FAILURE_COLUMNS


def _failures(*rows: tuple[str, str, int, int, str, str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(FAILURE_COLUMNS))


def test_the_line_counts_each_metrics_failures_most_first_with_its_first_error_on_one_line():
    failures = _failures(("noise", "1", 0, 300, "modularity", "ValueError: no signal"),
                         ("noise", "0", 0, 300, "ghost", "RuntimeError: first\nsecond line"),
                         ("mixing", "0.5", 1, 300, "ghost", "RuntimeError: again"))
    assert failures_line(failures, {"modularity", "mig"}) == (
        "3 cell(s) failed and have no score, so the analyses read only the cells that scored (failures.csv lists each "
        "with its error): ghost, 2 (first: noise = 0, seed 0: RuntimeError: first second line); modularity, 1 (first: "
        "noise = 1, seed 0: ValueError: no signal). No cell of ghost scored: it is in no table.")


def test_metrics_that_scored_somewhere_are_not_called_absent_and_ties_go_by_name():
    failures = _failures(("noise", "1", 0, 300, "b", "E: x"), ("noise", "1", 0, 300, "a", "E: y"))
    line = failures_line(failures, {"a", "b"})
    assert "a, 1 (first: noise = 1, seed 0: E: y); b, 1" in line and "No cell" not in line
    assert failures_line(failures, set()).endswith("No cell of a, b scored: they are in no table.")
