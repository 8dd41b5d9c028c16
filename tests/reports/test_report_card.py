"""The report card's numbers, computed in reports/ from a results table (conftest.py's synthetic table)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from reports import Thresholds, check_results
from reports.report_card import (
    closest_metric,
    constant_warnings,
    criterion_rankings,
    criterion_values,
    metric_verdicts,
    overall_line,
    range_warnings,
    rank_metric,
    report_card_markdown,
    verdict_rows,
)


def _value(values: pd.DataFrame, criterion: str, metric: str) -> float:
    return float(values.loc[(values["criterion"] == criterion) & (values["metric"] == metric), "value"].iloc[0])


def test_criterion_values_of_the_synthetic_metrics(synthetic_results):
    values, notes = criterion_values(synthetic_results)
    # lin: 0.98 * ideal + 0.01 and 0 for pure noise (its modularity follows LIN_NOISE_STRUCTURE)
    assert _value(values, "calibration", "lin") == pytest.approx(0.01, abs=1e-9)  # 1 - 0.99 at alpha 0, 0.01 at 1
    assert _value(values, "linearity", "lin") == pytest.approx(1.0, abs=1e-9)  # exactly affine in the ideal
    assert _value(values, "linearity", "step") < 0.9  # a step is not a line
    assert {"calibration", "linearity", "robustness", "sample efficiency", "cost"} <= set(values["criterion"])
    # the one attack scenario (the PID toy) states no ideal for pid's holistic terms: nothing to rank there
    assert notes == ["entanglement attacks: not measured (no sub-score qualifies)"]


def test_an_undefined_r2_counts_as_not_linear(synthetic_results):
    table = synthetic_results.copy()
    constant = table["metric"] == "lin"
    table.loc[constant, "score"] = 0.5  # a constant score: R² undefined, not linear
    values, _ = criterion_values(check_results(table))
    assert _value(values, "linearity", "lin") == 0.0


def test_robustness_reads_the_noise_criterion_not_the_scenario_name(synthetic_results):
    renamed = synthetic_results.assign(scenario=synthetic_results["scenario"].replace({"noise": "my_noise"}))
    before, _ = criterion_values(synthetic_results)
    after, _ = criterion_values(check_results(renamed))
    for metric in ("lin", "uncal"):
        assert _value(after, "robustness", metric) == pytest.approx(_value(before, "robustness", metric), abs=1e-12)
        assert _value(after, "calibration", metric) == pytest.approx(_value(before, "calibration", metric), abs=1e-12)


@pytest.mark.slow
def test_a_swept_metric_is_ranked_once_on_its_default_variant(synthetic_results):
    # validate may run option sweeps: a metric's own variants must not compete with it
    variant = synthetic_results.loc[synthetic_results["metric"] == "lin"].assign(metric="lin[bins=5]")
    swept, _ = criterion_values(check_results(pd.concat([synthetic_results, variant], ignore_index=True)))
    plain, _ = criterion_values(synthetic_results)
    assert "lin[bins=5]" not in set(swept["metric"])
    pd.testing.assert_frame_equal(swept.reset_index(drop=True), plain.reset_index(drop=True))


def test_ranks_and_the_rendered_card(synthetic_results):
    values = pd.DataFrame({"criterion": ["cost"] * 3, "metric": ["a", "b", "c"], "value": [0.2, 0.1, 0.2],
                           "higher_is_better": [False] * 3})
    ranked = rank_metric(values, "a")
    assert ranked["rank"].tolist() == ["2 of 3"] and ranked["best built-in"].tolist() == ["b (0.1)"]
    efficiency = values.assign(criterion="sample efficiency")
    assert rank_metric(efficiency, "a")["measure"].str.contains("at n = 1000 ").all()
    assert rank_metric(efficiency, "a", Thresholds(data_n=500))["measure"].str.contains("at n = 500 ").all()
    rankings, notes = criterion_rankings(synthetic_results, "lin")
    verdicts = verdict_rows(synthetic_results, "lin")
    axioms = pd.DataFrame({"axiom": ["a1", "a2"], "measured": [0.0, np.nan], "result": ["pass", "FAIL"]})
    card = report_card_markdown(name="lin", reference="x.py:lin", version="1",
                                claims={"property": "modularity", "higher_is_better": True, "stochastic": False},
                                battery={"preset": "quick", "scenarios": ["noise"], "builtins": ["uncal"], "seeds": 3,
                                         "n_samples": "2000"},
                                rankings=rankings, verdicts=verdicts, axioms=axioms, probe="mixing = 0.2", notes=notes)
    assert card.startswith("# Report card: `lin`") and "axioms: 1 of 2 checks pass" in card
    assert "## Criteria" in card and "## Property-matrix verdicts" in card and "| linearity" in card


def test_failed_cells_are_counted_listed_and_named_in_the_notes(synthetic_results):
    # lin failed at the pure-noise end of the noise scenario: calibration cannot judge it, and the card says why
    noise_end = (synthetic_results["metric"] == "lin") & (synthetic_results["scenario"] == "noise") & (synthetic_results["value"] == 1.0)
    dropped = synthetic_results.loc[noise_end].drop_duplicates(["scenario", "value", "seed", "n_samples"])
    failures = pd.DataFrame({"scenario": dropped["scenario"], "value_label": dropped["value_label"], "seed": dropped["seed"],
                             "n_samples": dropped["n_samples"], "metric": "lin", "error": "ValueError: no signal"})
    assert len(failures) > 0
    results = check_results(synthetic_results.loc[~noise_end])
    cells = len(synthetic_results.loc[synthetic_results["metric"] == "lin"].drop_duplicates(["scenario", "value", "seed", "n_samples"]))
    rankings, notes = criterion_rankings(results, "lin", failures)
    assert "calibration" not in set(rankings["criterion"])
    assert (f"calibration: no sub-score of lin is judged by it in this battery ({len(failures)} of its cells in the "
            "scenarios it reads failed: see Failed cells)") in notes
    assert not any("cost" in note for note in notes)  # lin is still ranked on cost
    axioms = pd.DataFrame({"axiom": ["a1"], "measured": [0.0], "result": ["pass"]})
    card = report_card_markdown(name="lin", reference="x.py:lin", version="1",
                                claims={"property": "modularity", "higher_is_better": True, "stochastic": False},
                                battery={"preset": "quick", "scenarios": ["noise"], "builtins": ["uncal"], "seeds": 3,
                                         "n_samples": "2000"},
                                rankings=rankings, verdicts=verdict_rows(results, "lin"), axioms=axioms, probe="p",
                                notes=notes, failures=failures, results=results)
    assert f"- failed cells: {len(failures)} of {cells} cells of `lin` (raised or timed out" in card
    section = card.split("## Failed cells", 1)[1].split("##", 1)[0]
    assert section.count("ValueError: no signal") == len(failures)
    without = report_card_markdown(name="lin", reference="x.py:lin", version="1",
                                   claims={"property": "modularity", "higher_is_better": True, "stochastic": False},
                                   battery={"preset": "quick", "scenarios": ["noise"], "builtins": [], "seeds": 3,
                                            "n_samples": "2000"},
                                   rankings=rankings, verdicts=verdict_rows(results, "lin"), axioms=axioms, probe="p",
                                   failures=failures.iloc[:0], results=results)
    assert "failed cells" not in without and "## Failed cells" not in without


@pytest.mark.slow
def test_a_lower_is_better_card_says_its_scores_are_read_as_one_minus_score(synthetic_results):
    # calibration's "score of pure noise" is 0.06 for a lower-is-better metric scoring 0.94 there: the card says so
    rankings, notes = criterion_rankings(synthetic_results, "lin")
    axioms = pd.DataFrame({"axiom": ["a1"], "measured": [0.0], "result": ["pass"]})

    def card(higher_is_better: bool) -> str:
        return report_card_markdown(name="lin", reference="x.py:lin", version="1",
                                    claims={"property": "modularity", "higher_is_better": higher_is_better, "stochastic": False},
                                    battery={"preset": "quick", "scenarios": ["noise"], "builtins": [], "seeds": 3,
                                             "n_samples": "2000"},
                                    rankings=rankings, verdicts=verdict_rows(synthetic_results, "lin"), axioms=axioms,
                                    probe="p", notes=notes)

    assert "- claims: modularity; lower is better (criteria, verdicts and the chance axiom read 1 − score, as the reports do); deterministic" in card(False)
    assert "- claims: modularity; higher is better; deterministic" in card(True) and "1 − score," not in card(True)


def test_the_claims_line_speaks_of_other_sub_scores_only_where_there_are_some():
    from reports.report_card import claims_text

    claims = {"property": {"err": "explicitness"}, "higher_is_better": {"err": False}, "stochastic": False}
    flipped = "criteria, verdicts and the chance axiom read 1 − score, as the reports do"
    assert claims_text(claims, {"err"}) == f"err: explicitness; lower is better for err ({flipped}); deterministic"
    assert claims_text(claims, {"err", "rho"}) == (f"err: explicitness (other sub-scores holistic); lower is better for "
                                                   f"err ({flipped}), higher for the others; deterministic")
    assert claims_text(claims) == claims_text(claims, {"err", "rho"})  # sub-scores unknown: the mapping's full reading


def _robustness_and_linearity(synthetic_results: pd.DataFrame) -> pd.DataFrame:
    """uncal (fails every robustness condition) beside a copy deviating more; and ``gentle``: exactly affine in the
    explicitness ideal under noise, R² 1 but slope 0.23, below the 0.25 a linear response needs."""
    uncal = synthetic_results.loc[synthetic_results["metric"] == "uncal"]
    worse = uncal.assign(metric="worse", sub_score="worse", score=uncal["score"] * 0.9)
    noise = synthetic_results.loc[(synthetic_results["scenario"] == "noise") & (synthetic_results["metric"] == "step")]
    gentle = noise.assign(metric="gentle", sub_score="gentle", score=0.5 + 0.23 * noise["ideal"])
    return check_results(pd.concat([uncal, worse, gentle], ignore_index=True))


def test_a_criterion_row_carries_the_verdict_of_the_property_matrix(synthetic_results):
    # the card ranked "robustness 0.4182, rank 1 of 7" with no mark while the property matrix failed all three
    # robustness verdicts; and showed a linearity of R² >= 0.9 while the Linear verdict was ✗ on its slope
    from reports import property_matrix

    table = _robustness_and_linearity(synthetic_results)
    matrix = property_matrix(table).set_index(["metric", "characteristic"])
    rankings, _ = criterion_rankings(table, "uncal")
    robust = rankings.set_index("criterion").loc["robustness"]
    assert robust["rank"] == "1 of 2" and robust["value"] == pytest.approx(0.8)
    assert {matrix.loc[("uncal", c), "verdict"] for c in ("robust_noise", "robust_non_measured", "nonlinear_relation")} == {"no"}
    assert robust["verdict"] == "✗ 0.80" and robust["threshold"] == "|score − ideal| ≤ 0.2"
    linear = criterion_rankings(table, "gentle")[0].set_index("criterion").loc["linearity"]
    assert linear["value"] == pytest.approx(1.0)  # its lowest R²: ranked first
    assert matrix.loc[("gentle", "linear"), "verdict"] == "no"
    assert linear["verdict"] == "✗ R² 1.00, slope 0.23" and linear["threshold"] == "R² ≥ 0.9, slope ≥ 0.25"


@pytest.mark.slow
def test_every_mark_of_the_card_is_the_pooled_verdict_of_the_property_matrix(realistic_results):
    from reports import property_matrix
    from reports.verdicts.bundle import Bundle

    bundle = Bundle(realistic_results)
    matrix = property_matrix(bundle).set_index(["metric", "characteristic"])["verdict"]
    parts = {"calibration": ["calibrated"], "linearity": ["linear"], "entanglement attacks": ["follows_attacks"],
             "sample efficiency": ["data_efficient"],
             "robustness": ["robust_noise", "nonlinear_relation", "robust_non_measured"]}
    order = ["no", "undecided", "yes"]
    checked = 0
    for metric in bundle.judged["metric"].unique():
        marks = metric_verdicts(bundle, metric)
        rankings = criterion_rankings(bundle, metric)[0].set_index("criterion")
        for criterion, characteristics in parts.items():
            judged = [matrix[(metric, c)] for c in characteristics if matrix[(metric, c)] in order]
            expected = min(judged, key=order.index) if judged else None
            assert (marks[criterion].mark if marks[criterion].judged else None) == expected, (metric, criterion)
            if criterion in rankings.index:
                symbol = {"no": "✗", "undecided": "≈", "yes": "✓"}[expected]
                assert rankings.loc[criterion, "verdict"].startswith(symbol), (metric, criterion)
                checked += 1
    assert checked > 20


def test_the_overall_line_names_what_fails_passes_and_is_not_measured(synthetic_results):
    table = _robustness_and_linearity(synthetic_results)
    line = overall_line(metric_verdicts(table, "uncal"))
    # sample efficiency: gaps of 0.099, 0.198 and 0.297 over three seeds, a mean whose interval straddles 0.05
    assert line == ("✗ fails calibration, robustness; ≈ undecided on sample efficiency; ✓ passes linearity; "
                    "not measured: entanglement attacks")


def test_the_closest_established_metric_is_the_one_ranking_the_cells_alike(synthetic_results):
    lin = synthetic_results.loc[(synthetic_results["metric"] == "lin") & (synthetic_results["sub_score"] == "explicitness")]
    mine = lin.assign(metric="mine", sub_score="mine", family="custom", score=lin["score"] ** 2)  # same order
    table = check_results(pd.concat([synthetic_results, mine], ignore_index=True))
    line = closest_metric(table, "mine")
    assert line.startswith("closest established metric: `lin/explicitness` (Kendall τ 1.00 with `mine` over ")
    cells = len(mine.drop_duplicates(["scenario", "value", "seed", "n_samples"]))
    assert line.endswith(f"over {cells} cells of the battery)")


def test_scores_outside_the_unit_interval_or_the_declared_range_are_warned_about(synthetic_results):
    lin = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    # lin scores 0.98 ideal + 0.01 + 0.01 (seed - 1): from 0 (ideal 0, seed 0) to 1 (ideal 1, seed 2)
    stretched = 2 * lin["score"] - 0.5  # from -0.5 to 1.5; the farthest out: 3.0 at noise alpha = 0.2, seed 1
    far = (lin["scenario"] == "noise") & (lin["value"] == 0.2) & (lin["seed"] == 1) & (lin["sub_score"] == "modularity")
    wide = check_results(lin.assign(metric="wide", metric_base="wide", score=stretched.where(~far, 3.0)))
    subs = list(dict.fromkeys(wide["sub_score"]))
    modularity = wide.loc[wide["sub_score"] == "modularity", "score"]
    below, above = int((modularity < 0).sum()), int((modularity > 1).sum())
    warnings = range_warnings(wide, "wide")  # no range declared: each sub-score against [0, 1], which the verdicts assume
    assert len(warnings) == len(subs) and all(warning.startswith("warning: wide/") for warning in warnings)
    assert warnings[subs.index("modularity")] == (
        f"warning: wide/modularity: {below + above} of {len(modularity)} scores outside [0, 1], the range the verdicts' "
        f"thresholds assume ({below} below, {above} above; most extreme 3 in noise at alpha = 0.2, seed 1, n = 2000)")
    # a declared [-1, 1]: each sub-score against it (only those above 1 are out), then against [0, 1]
    declared = range_warnings(wide, "wide", (-1.0, 1.0))
    assert len(declared) == 2 * len(subs) and all("its declared range" in line for line in declared[:len(subs)])
    assert declared[subs.index("modularity")].startswith(f"warning: wide/modularity: {above} of {len(modularity)} scores "
                                                        f"outside [-1, 1], its declared range ({above} above; most extreme 3")
    # a declared [0, 1] is warned about once, as the declared range
    assert range_warnings(wide, "wide", (0.0, 1.0)) == [line.replace("the range the verdicts' thresholds assume",
                                                                     "its declared range") for line in warnings]
    assert range_warnings(check_results(lin), "lin") == []
    # per sub-score: only the sub-scores declared narrower than their scores are warned about, each by its range
    per_sub = range_warnings(wide, "wide", {"modularity": (-1.0, 1.0), **{sub: (-math.inf, math.inf) for sub in subs
                                                                          if sub != "modularity"}})
    assert per_sub[0].startswith(f"warning: wide/modularity: {above} of {len(modularity)} scores outside [-1, 1], its "
                                 "declared range")
    assert len(per_sub) == 1 + len(subs)  # and every sub-score against [0, 1]


def test_the_overall_line_leads_with_calibration_and_the_chance_axiom(synthetic_results):
    # a metric that ignores noise: its calibration and chance failures come before anything it passes
    table = _robustness_and_linearity(synthetic_results)
    line = overall_line(metric_verdicts(table, "uncal"), ["determinism", "chance"])
    assert line.startswith("✗ fails calibration, chance axiom, determinism axiom, robustness; ")
    assert line.index("✗ fails") < line.index("✓ passes linearity")


def test_a_score_that_never_moves_is_warned_about():
    # a constant metric "passed" robustness and sample efficiency on the card with nothing said
    rows = pd.DataFrame({"metric": ["flat"] * 4 + ["moving"] * 2, "sub_score": ["a", "a", "b", "b", "m", "m"],
                         "score": [1.0, 1.0, 0.2, 0.3, 0.5, 0.5]})
    warnings = constant_warnings(rows, "flat")
    assert warnings == ["warning: flat/a scored 1 on every one of its 2 cells: a score that never moves passes robustness "
                        "and sample efficiency by not moving, and fails what asks it to follow its ideal"]
    assert constant_warnings(rows, "moving")[0].startswith("warning: moving/m scored 0.5 on every one of its 2 cells")
    single = pd.DataFrame({"metric": ["alone"] * 2, "sub_score": ["alone"] * 2, "score": [0.5, 0.5]})
    assert constant_warnings(single, "alone")[0].startswith("warning: alone scored 0.5")  # not alone/alone
    assert constant_warnings(rows.iloc[:1], "flat") == []  # one cell says nothing about moving
