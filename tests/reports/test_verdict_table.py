"""One table of verdicts behind every output: the verdict object, pooling, and the views (headline, property matrix,
sections' roll-ups, report card, CSV, LaTeX, Markdown, HTML) carrying an interval and an undecided mark."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from reports import Thresholds, headline, property_matrix, write_report
from reports.analyses.checks import Check, Verdict, pool_characteristics, pool_scores
from reports.report import build_sections
from reports.report_card import criterion_rankings, metric_verdicts, overall_line
from reports.verdicts import characteristics
from reports.verdicts.bundle import Analysis, Bundle
from reports.verdicts.headline import headline_display
from reports.verdicts.property_matrix import property_matrix_display
from reports.verdicts.verdict_table import verdict_table
from tests.reports.simulated_results import THRESHOLD, calibration_rows


def test_a_check_is_undecided_when_its_interval_straddles_the_threshold():
    assert Check("perfect", 0.91, ">=", 0.9, interval=(0.88, 0.94)).mark == "undecided"
    assert Check("perfect", 0.91, ">=", 0.9, interval=(0.905, 0.94)).mark == "yes"
    assert Check("random", 0.12, "<=", 0.1, interval=(0.11, 0.13)).mark == "no"
    assert Check("perfect", 0.91, ">=", 0.9).mark == "yes" and Check("perfect", 0.89, ">=", 0.9).mark == "no"
    assert Check("R²", math.nan, ">=", 0.9, "constant score", interval=(0.1, 0.95)).mark == "no"  # undefined fails
    # each end printed with the digits that keep its side of the threshold: 0.8996 is below 0.9, not "0.90"
    assert Check("perfect", 0.91, ">=", 0.9, interval=(0.8996, 0.94)).value_text() == "0.91 [0.8996, 0.94]"
    assert not Check("perfect", 0.91, ">=", 0.9, interval=(0.88, 0.94)).passed


def test_a_verdict_is_no_when_a_check_fails_and_undecided_when_one_is_only_undecided():
    passing, straddling = Check("ρ", 0.95, ">=", 0.8), Check("slope", 0.6, ">=", 0.5, interval=(0.45, 0.7), joiner=", ")
    failing = Check("excess", 0.3, "<=", 0.2, joiner="; ")
    assert Verdict.of([passing, straddling]).mark == "undecided"
    verdict = Verdict.of([passing, straddling, failing])
    assert verdict.mark == "no" and verdict.decisive is failing
    assert verdict.number_text() == "0.95, 0.60 [0.45, 0.70]; 0.30"
    assert verdict.threshold_text() == "ρ ≥ 0.8, slope ≥ 0.5; excess ≤ 0.2"
    record = Verdict.of([passing, straddling]).record()
    assert record["verdict"] == "undecided" and np.isnan(record["passed"])
    assert (record["interval_low"], record["interval_high"]) == (0.45, 0.7)


def test_pooling_scores_keeps_each_statistics_worst_and_of_equals_the_first_row():
    a = Verdict.of([Check("perfect", 0.95, ">=", 0.9, where="a", position=3),
                    Check("random", 0.05, "<=", 0.1, joiner=" / ", where="a", position=3)])
    b = Verdict.of([Check("perfect", 0.95, ">=", 0.9, where="b", position=1),
                    Check("random", 0.08, "<=", 0.1, joiner=" / ", where="b", position=1)])
    pooled = pool_scores([a, b, Verdict("n/a")], ["perfect", "random"], "none")
    assert pooled.number_text() == "0.95 / 0.08" and pooled.evidence_text() == "b; b"  # the tie goes to row 1
    assert pool_scores([Verdict("n/a"), Verdict("absent")], ["perfect"], "none") == Verdict("unmeasured", evidence="none")
    assert pool_scores([Verdict("absent", evidence="x")] * 2, ["perfect"], "none").mark == "absent"


def test_pooling_characteristics_shows_the_one_closest_to_failing():
    close = Verdict.of([Check("|score − ideal|", 0.19, "<=", 0.2)])
    far = Verdict.of([Check("|score − ideal|", 0.05, "<=", 0.2)])
    assert pool_characteristics([far, close, Verdict("n/a", evidence="e")]) is close
    assert pool_characteristics([Verdict("n/a", evidence="a"), Verdict("n/a", evidence="b")]).mark == "n/a"
    unmeasured = pool_characteristics([Verdict("n/a", evidence="a"), Verdict("unmeasured", evidence="b")])
    assert unmeasured.mark == "unmeasured" and unmeasured.evidence == "a; b"


def test_the_table_has_one_verdict_per_score_and_characteristic(synthetic_results):
    bundle = Bundle(synthetic_results)
    table = bundle.verdicts
    scores = synthetic_results[["metric", "sub_score"]].drop_duplicates()
    assert len(table) == len(scores) * len(characteristics.CHARACTERISTICS)
    assert all(isinstance(verdict, Verdict) for verdict in table["verdict"])
    cell = table.set_index(["metric", "sub_score", "characteristic"])["verdict"]
    # step is an explicitness score: no modularity (absent), robustness to noise does not apply (n/a)
    assert cell[("step", "step", "modularity")].mark == "absent"
    assert cell[("step", "step", "robust_noise")].mark == "n/a"
    assert cell[("step", "step", "linear")].number_text() == "R² 0.77, slope 1.29"
    # lin's three sub-scores are each judged on their own property; the matrix pools them
    assert cell[("lin", "modularity", "compactness")].mark == "absent"
    assert cell[("lin", "compactness", "compactness")].mark == "yes"


def _straddling(synthetic_results) -> Bundle:
    """The synthetic table's bundle with a 95% interval on every calibration end; uncal's perfect end (0.85, whose
    interval is put at [0.80, 0.93]) straddles 0.9, and its random end is moved into range (0.05 [0.03, 0.07])."""
    bundle = Bundle(synthetic_results)
    table = bundle.calibration.table.copy()
    for end in ("perfect", "random"):
        table[f"{end}_oriented_low"] = table[f"{end}_oriented"] - 0.01
        table[f"{end}_oriented_high"] = table[f"{end}_oriented"] + 0.01
    uncal = table["metric"] == "uncal"
    table.loc[uncal, ["perfect_oriented_low", "perfect_oriented_high"]] = (0.80, 0.93)
    table.loc[uncal, ["random_oriented", "random_oriented_low", "random_oriented_high"]] = (0.05, 0.03, 0.07)
    bundle.__dict__["calibration"] = Analysis(table)  # what issue 26's intervals over seeds will put there
    bundle.__dict__["failing"] = bundle  # the intervals given here decide both ways (not widened)
    return bundle


def _two_scenarios(synthetic_results, perfect: dict[str, tuple[float, float, float]]) -> Verdict:
    """lin's calibration verdict when its perfect end is read in two scenarios, ``noise`` and a copy ``noise_b``, at
    ``perfect[scenario] = (mean, low, high)``, its random end passing clearly in both."""
    bundle = Bundle(synthetic_results)
    table = bundle.calibration.table
    lin = table.loc[table["metric"] == "lin"].iloc[[0, 0]].assign(scenario=["noise", "noise_b"])
    for index, scenario in enumerate(("noise", "noise_b")):
        lin.iloc[index, [lin.columns.get_loc(c) for c in ("perfect_oriented", "perfect_oriented_low",
                                                          "perfect_oriented_high")]] = perfect[scenario]
        lin.iloc[index, [lin.columns.get_loc(c) for c in ("random_oriented", "random_oriented_low",
                                                          "random_oriented_high")]] = (0.02, 0.01, 0.03)
    bundle.__dict__["calibration"] = Analysis(lin.reset_index(drop=True))
    bundle.__dict__["failing"] = bundle  # the intervals given here decide both ways (not widened)
    cell = bundle.verdicts.set_index(["metric", "sub_score", "characteristic"])["verdict"]
    return cell[("lin", lin["sub_score"].iloc[0], "calibrated")]


@pytest.mark.slow
def test_a_score_passes_only_where_every_rows_interval_passes_and_fails_where_one_rows_does(synthetic_results):
    # the worse value passes by its interval, a better one straddles 0.9: not shown to pass everywhere, undecided
    # (read by value alone, this was "yes" on the worse row)
    verdict = _two_scenarios(synthetic_results, {"noise": (0.95, 0.94, 0.96), "noise_b": (0.97, 0.85, 1.0)})
    assert verdict.mark == "undecided" and verdict.decisive.value == 0.97 and verdict.decisive.interval == (0.85, 1.0)
    # the worse value straddles 0.9, a better one fails by its interval: it fails (by value alone, "undecided", and a
    # race would have spent seeds on it)
    verdict = _two_scenarios(synthetic_results, {"noise": (0.5, 0.1, 0.95), "noise_b": (0.7, 0.69, 0.71)})
    assert verdict.mark == "no" and verdict.decisive.value == 0.7
    # rows of one mark: the worse value decides, as before
    verdict = _two_scenarios(synthetic_results, {"noise": (0.95, 0.94, 0.96), "noise_b": (0.97, 0.96, 0.98)})
    assert verdict.mark == "yes" and verdict.decisive.value == 0.95 and "noise" in verdict.evidence_text()


@pytest.mark.slow
def test_an_undecided_verdict_and_its_interval_reach_every_view(synthetic_results, tmp_path):
    bundle = _straddling(synthetic_results)
    matrix = property_matrix(bundle).set_index(["metric", "characteristic"])
    row = matrix.loc[("uncal", "calibrated")]
    assert row["verdict"] == "undecided" and np.isnan(row["passed"])
    assert (row["interval_low"], row["interval_high"]) == (0.80, 0.93)
    assert row["number"] == "0.85 [0.80, 0.93] / 0.05 [0.03, 0.07]"
    assert property_matrix_display(property_matrix(bundle)).set_index("Metric").loc["uncal", "Calibrated"] == (
        "≈ 0.85 [0.80, 0.93] / 0.05 [0.03, 0.07]")
    assert property_matrix_display(property_matrix(bundle), numbers=False).set_index("Metric").loc["uncal", "Calibrated"] == "≈"
    table = headline(bundle)
    cell = table.set_index(["metric", "sub_score", "criterion"]).loc[("uncal", "uncal", "calibrated")]
    assert cell["verdict"] == "undecided" and cell["interval_low"] == 0.80
    display = headline_display(table).set_index("Sub-score")
    assert display.loc["uncal", "Calibrated"] == "≈ 0.85 [0.80, 0.93] / 0.05 [0.03, 0.07]"
    assert headline_display(table, compact=True).set_index("Sub-score").loc["uncal", "Calibrated"] == "≈ 0.85"
    sections = {section.key: section for section in build_sections(bundle)}
    assert "pass (1 undecided)" in next(line for line in sections["headline"].lines if line.startswith("Calibrated"))
    rollup = sections["calibration"].display.set_index("Metric")
    assert rollup.loc["uncal", "perfect ≥ 0.9"] == "≈ 0.85 [0.80, 0.93]" and rollup.loc["uncal", "Passing"] == "0 of 1"
    folded = sections["calibration"].details.set_index("Metric").loc["uncal"]  # its one row, as the roll-up reads it
    assert (folded["Calibrated"], folded["Perfect"]) == ("≈", "0.85 [0.80, 0.93]")
    marks = metric_verdicts(bundle, "uncal")
    assert marks["calibration"].mark == "undecided" and overall_line(marks).startswith("✗ fails")
    assert "≈ undecided on calibration" in overall_line(marks)
    rankings, _ = criterion_rankings(bundle, "uncal")
    assert rankings.set_index("criterion").loc["calibration", "verdict"] == "≈ 0.85 [0.80, 0.93] / 0.05 [0.03, 0.07]"
    # the files: numeric interval columns in the CSVs, the mark in LaTeX, Markdown and HTML
    write_report(bundle, tmp_path / "undecided")
    csv = pd.read_csv(tmp_path / "undecided" / "tables" / "property_matrix.csv").set_index(["metric", "characteristic"])
    assert csv.loc[("uncal", "calibrated"), ["interval_low", "interval_high"]].tolist() == [0.80, 0.93]
    assert csv["interval_low"].dtype.kind == "f"
    plain = property_matrix(Bundle(bundle.results)).set_index(["metric", "characteristic"])  # the seeds' own intervals
    # uncal scores the same on every seed: a decided ✗ whose interval has no width (its noise end, 0.35, decides)
    assert plain.loc[("uncal", "calibrated"), "verdict"] == "no"
    assert plain.loc[("uncal", "calibrated"), ["interval_low", "interval_high"]].tolist() == pytest.approx([0.35, 0.35])
    latex = (tmp_path / "undecided" / "tables" / "headline.tex").read_text(encoding="utf-8")
    assert r"$\approx$ 0.85" in latex
    markdown = (tmp_path / "undecided" / "report.md").read_text(encoding="utf-8")
    assert "≈ 0.85 [0.80, 0.93] / 0.05 [0.03, 0.07]" in markdown
    html = (tmp_path / "undecided" / "report.html").read_text(encoding="utf-8").replace("<wbr>", "")  # break hints
    assert "≈ 0.85 [0.80, 0.93] / 0.05 [0.03, 0.07]" in html


def test_a_characteristic_is_one_entry(synthetic_results, monkeypatch):
    # a new column of the property matrix: the mixing trajectory's ρ alone, at a stricter threshold
    strict = characteristics.Characteristic(
        key="strictly_monotone", heading="Strictly monotone", analysis="verdict_linearity", rows="trajectory",
        unmeasured="no trajectory", sentence="ρ ≥ {min_rank_correlation:g}",
        rules=(characteristics.Rule("ρ", "spearman", ">=", "min_rank_correlation", reason="undefined_reason"),))
    monkeypatch.setattr(characteristics, "CHARACTERISTICS", (*characteristics.CHARACTERISTICS, strict))
    bundle = Bundle(synthetic_results, Thresholds(min_rank_correlation=0.9))
    matrix = property_matrix(bundle).set_index(["metric", "characteristic"])
    assert matrix.loc[("step", "strictly_monotone"), "verdict"] == "no"  # a step's ρ is 0.88
    assert matrix.loc[("lin", "strictly_monotone"), "verdict"] == "yes"
    assert "Strictly monotone" in property_matrix_display(property_matrix(bundle)).columns
    assert set(verdict_table(bundle)["characteristic"]) >= {"strictly_monotone"}


def test_a_check_failing_at_95_percent_fails_only_where_its_widened_interval_does_too():
    common = {"statistic": "perfect", "value": 0.8, "comparison": ">=", "threshold": 0.9, "interval": (0.75, 0.85)}
    unsure = Check(**common, widened=(0.6, 0.95), pooled=12)
    assert unsure.mark == "undecided" and unsure.shown_interval == (0.6, 0.95) and unsure.shown_pooled == 12
    assert unsure.value_text() == "0.80 [0.60, 0.95]"  # the interval that decided the mark
    sure = Check(**common, widened=(0.7, 0.88), pooled=12)
    assert sure.mark == "no" and Verdict.of([sure]).record()["interval_high"] == 0.88
    assert Verdict.of([sure]).record()["pooled"] == 12
    passing = Check(**{**common, "value": 0.95, "interval": (0.92, 0.98)}, widened=(0.85, 1.0), pooled=12)
    assert passing.mark == "yes" and passing.shown_interval == (0.92, 0.98) and passing.shown_pooled == 1
    assert Check(**common).mark == "no"  # nothing widened: the interval decides both ways


def test_every_row_of_a_folded_table_and_its_csv_reads_as_the_verdicts_read_it(tmp_path):
    """A calibration row failing at 95% (0.85 [0.81, 0.89] against ≥ 0.9, 3 seeds) but not at the level its metric's
    3 checks pool to ([0.78, 0.92]) is undecided in the roll-up, and so in the folded table (with the interval that
    decided) and in the CSV: before, they read the mean alone and said ✗ beside the roll-up's ≈."""
    rows = [row for seed, perfect in enumerate((0.835, 0.85, 0.865))
            for row in calibration_rows("m", "noise", seed, perfect)]
    bundle = Bundle(pd.DataFrame(rows))
    assert bundle.pooled_checks == {"m": 3}
    sections = {section.key: section for section in build_sections(bundle)}
    calibration = sections["calibration"]
    assert calibration.display.set_index("Metric").loc["m", "perfect ≥ 0.9"] == "≈ 0.85 [0.78, 0.92]"
    folded = calibration.details.set_index("Metric").loc["m"]
    assert (folded["Calibrated"], folded["Perfect"], folded["Random"]) == ("≈", "0.85 [0.78, 0.92]", "0.00")
    assert calibration.table["calibrated"].tolist() == ["undecided"]
    write_report(bundle, tmp_path)
    csv = pd.read_csv(tmp_path / "tables" / "calibration.csv")
    assert csv["calibrated"].tolist() == ["undecided"]
    # and each end as its rules read it (perfect_pass was False, read from the mean alone, beside undecided)
    assert (csv["perfect_pass"].tolist(), csv["random_pass"].tolist()) == (["undecided"], ["yes"])
    # beside the 95% interval (wholly below 0.9), the one the mark was read from: undecided read beside [0.81, 0.89]
    # alone looked like a contradiction
    row = csv.iloc[0]
    assert row["perfect_oriented_high"] < 0.9 < row["perfect_oriented_decided_high"]
    assert [round(row["perfect_oriented_decided_low"], 2), round(row["perfect_oriented_decided_high"], 2)] == [0.78, 0.92]
    surely = Bundle(pd.DataFrame([row for seed, perfect in enumerate((0.8, 0.81, 0.82))
                                  for row in calibration_rows("m", "noise", seed, perfect)]))
    folded = {section.key: section for section in build_sections(surely)}["calibration"].details.iloc[0]
    # failing at the widened level too: 95% [0.79, 0.84], shown at the level that decided
    assert (folded["Calibrated"], folded["Perfect"]) == ("✗", "0.81 [0.77, 0.85]")


def _pooled_wrong_share(widened: bool, metrics: int = 200, scenarios: int = 8) -> tuple[float, int]:
    """Simulated metrics whose perfect end is exactly the threshold (N(0.9, 0.05), 3 seeds) in each of ``scenarios``
    copies of the noise scenario, so that "no" is wrong: the share of calibration verdicts decided so, and the checks
    each metric's verdicts pool."""
    rows = [row for index in range(metrics) for scenario in range(scenarios) for seed in range(3)
            for row in calibration_rows(f"m{index}", f"noise_{scenario}", seed,
                                        np.random.default_rng([index, scenario, seed]).normal(THRESHOLD, 0.05))]
    bundle = Bundle(pd.DataFrame(rows))
    if not widened:
        bundle.__dict__["failing"] = bundle  # failures read from the 95% intervals, as before they were widened
    verdicts = bundle.verdicts
    marks = [verdict.mark for verdict in verdicts.loc[verdicts["characteristic"] == "calibrated", "verdict"]]
    assert len(marks) == metrics
    return marks.count("no") / metrics, bundle.pooled_checks["m0"]


@pytest.mark.slow
def test_a_verdict_pooling_many_checks_fails_wrongly_at_most_five_percent_of_the_time():
    """A verdict fails when one of its checks does: with 8 scenarios' checks at their threshold, 95% intervals failed
    one of them in 1 - 0.975^8 = 18% of verdicts; the failing side read at 1 - 0.05 / m for the m checks pooled keeps
    that at most 5% (Bonferroni)."""
    wrong, pooled = _pooled_wrong_share(widened=True)
    assert pooled == 8 * 3  # the perfect end and the random end's two sides, in each scenario
    assert wrong <= 0.05
    naive, _ = _pooled_wrong_share(widened=False)
    assert naive > 0.1  # 18% expected: what the widening removes
