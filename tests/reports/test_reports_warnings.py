"""Warnings raised inside metric calls: counted once per call, summarised in one line."""

from __future__ import annotations

from reports import raised_warnings
from reports.analyses.raised_warnings import warnings_line


def test_counts_per_call_not_per_sub_score(synthetic_results):
    # lin has three sub-scores per call: a warning of the call must count once, not three times
    noisy = synthetic_results.copy()
    chosen = (noisy["metric"] == "lin") & (noisy["scenario"] == "mixing") & (noisy["value"] == 0.0)
    noisy.loc[chosen, "warnings"] = 1
    noisy.loc[chosen, "first_warning"] = "UserWarning: x"
    table = raised_warnings(noisy).set_index("metric")
    assert table.loc["lin", "warnings"] == 3 and table.loc["lin", "calls_with_warnings"] == 3  # 3 seeds
    assert table.loc["step", "warnings"] == 36 and list(table.index) == ["step", "lin"]  # most warnings first
    line = warnings_line(table.reset_index())
    assert line.startswith("Warnings raised inside metric calls: step: 36 in 18 of 96 calls (first: ConvergenceWarning")
    assert "lin: 3 in 3 of 96 calls (first: UserWarning: x)" in line


def test_no_warning_and_an_older_table(synthetic_results):
    older = synthetic_results.drop(columns=["warnings", "first_warning"])
    assert raised_warnings(older).empty
    assert warnings_line(raised_warnings(older)) == "No warnings were raised inside metric calls."
    long = synthetic_results.assign(first_warning=synthetic_results["first_warning"].where(
        synthetic_results["warnings"] == 0, "W" * 200))
    line = warnings_line(raised_warnings(long), max_message=20)
    assert "(first: " + "W" * 19 + "…)" in line and "W" * 20 not in line  # shortened, with an ellipsis
