"""Scores outside their metric's declared range are flagged in the headline and on the card, built-ins included; the
calibration verdict reads both sides of the chance end."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import metrics
from reports.analyses.score_ranges import declared_range, outside_ranges
from reports.analyses.thresholds import Thresholds
from reports.rendering.markdown import render_markdown
from reports.report import build_sections
from reports.report_card import criterion_rankings, range_warnings, report_card_markdown, verdict_rows
from reports.results.table import check_results
from reports.verdicts.bundle import Bundle
from reports.verdicts.headline import headline, range_lines


def _as_builtin(results: pd.DataFrame, metric: str, sub_score: str) -> pd.DataFrame:
    """``lin``'s explicitness rows (calibrated, within [0, 1]) under the name of a registered metric's sub-score."""
    rows = results.loc[(results["metric"] == "lin") & (results["sub_score"] == "explicitness")]
    return rows.assign(metric=metric, metric_base=metric, sub_score=sub_score)


@pytest.fixture(scope="module")
def out_of_range(synthetic_results):
    # mig declares [0, 1]; one of its scores is 1.25 (noise at alpha = 0.2, seed 1), the others within
    mig = _as_builtin(synthetic_results, "mig", "mig")
    at = (mig["scenario"] == "noise") & (mig["value"] == 0.2) & (mig["seed"] == 1)
    table = check_results(pd.concat([synthetic_results, mig.assign(score=mig["score"].where(~at, 1.25))],
                                    ignore_index=True))
    flag = (f"mig: 1 of {len(mig)} scores outside [0, 1], its declared range (1 above; most extreme 1.25 in noise at "
            "alpha = 0.2, seed 1, n = 2000)")
    return table, flag


def test_a_builtins_score_outside_its_declared_range_is_flagged_in_the_headline(out_of_range):
    table, flag = out_of_range
    assert metrics.get("mig").ranges["mig"].bounds() == (0.0, 1.0)
    assert range_lines(table) == [f"⚠ {flag}"]
    headline_section = build_sections(Bundle(table))[0]
    assert headline_section.lines[0] == f"⚠ {flag}"  # first, before the sentences on each criterion
    assert f"- ⚠ {flag}" in render_markdown("t", [], [headline_section], [])


def test_a_builtins_score_outside_its_declared_range_is_flagged_on_its_card(out_of_range):
    table, flag = out_of_range
    warnings = range_warnings(table, "mig")  # the registered range: [0, 1], warned about once
    assert warnings == [f"warning: {flag}"]
    rankings, _ = criterion_rankings(table, "mig")
    card = report_card_markdown(name="mig", reference="mig", version="1",
                                claims={"property": "explicitness", "higher_is_better": True, "stochastic": False},
                                battery={"preset": "quick", "scenarios": ["noise"], "builtins": [], "seeds": 3,
                                         "n_samples": "2000"},
                                rankings=rankings, verdicts=verdict_rows(table, "mig"),
                                axioms=pd.DataFrame({"axiom": ["a1"], "result": ["pass"]}), probe="p", warnings=warnings)
    assert f"- warning: {flag}\n" in card


def test_a_builtin_below_its_declared_range_and_the_ranges_it_declares(synthetic_results):
    # DCI-ES explicitness declares [-1, 1]: -0.9 is within it, -1.5 below; an unbounded side flags nothing
    dci = _as_builtin(synthetic_results, "dci_es", "explicitness")
    low = dci.assign(score=dci["score"] - 0.9)  # from -0.9 to 0.1: within
    assert outside_ranges(check_results(low)).empty
    first = dci.index[0]
    flagged = outside_ranges(check_results(low.assign(score=low["score"].where(low.index != first, -1.5))))
    assert flagged[["metric", "sub_score", "low", "high", "outside", "below", "above", "extreme"]].to_dict("records") == [
        {"metric": "dci_es", "sub_score": "explicitness", "low": -1.0, "high": 1.0, "outside": 1, "below": 1, "above": 0,
         "extreme": -1.5}]
    assert declared_range("dci_es", "size") == (0.0, math.inf) and declared_range("snc_nk", "snc") == (-math.inf, 1.0)
    assert declared_range("lin", "explicitness") is None  # not registered, not declared: not checked


def test_a_users_declaration_is_read_where_passed_in_and_rounding_is_no_finding(synthetic_results):
    lin = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    shifted = check_results(lin.assign(score=lin["score"] + 0.5))  # above 1 from ideal 0.5 on
    assert outside_ranges(shifted).empty  # a user's function: the registry knows no range of it
    flagged = outside_ranges(shifted, {"lin": {"explicitness": (0.0, 1.2)}})
    assert flagged[["sub_score", "high"]].values.tolist() == [["explicitness", 1.2]]
    # a built-in's registration is overridden by a declaration passed in (validate's --score-range)
    mig = check_results(_as_builtin(synthetic_results, "mig", "mig").assign(score=1.0 + 1e-12))
    assert outside_ranges(mig).empty  # 1 + 1e-12: floating-point rounding at the bound
    assert len(outside_ranges(mig, {"mig": (0.0, 0.5)})) == 1


@pytest.fixture(scope="module")
def below_chance(synthetic_results):
    # lin's explicitness, calibrated (0.99 / 0.01), moved to -0.5 at pure noise: below the chance end, as DCI-ES's
    # explicitness is (about -1 there)
    rows = synthetic_results.loc[(synthetic_results["metric"] == "lin") & (synthetic_results["scenario"] == "noise")]
    noise = rows["value"] == 1.0
    explicitness = rows["sub_score"] == "explicitness"
    return check_results(rows.assign(score=rows["score"].where(~(noise & explicitness), -0.5 + rows["score"])))


def test_pure_noise_below_the_chance_end_is_not_calibrated(below_chance):
    cells = headline(below_chance).set_index(["sub_score", "criterion"])
    cell = cells.loc[("explicitness", "calibrated")]
    # its failure is read from the interval widened for the checks lin's verdicts pool: [-0.57, -0.41], not the 95%
    # interval [-0.51, -0.47] (test_the_two_sided_rule_moves_with_its_threshold)
    assert (cell["verdict"], cell["number"]) == ("no", "0.99 [0.97, 1.00] / -0.49 [-0.57, -0.41]")
    assert cell["threshold"] == "perfect ≥ 0.9 / -0.1 ≤ random ≤ 0.1"
    assert (cell["statistic"], cell["comparison"], cell["limit"]) == ("random", ">=", -0.1)
    assert cells.loc[("modularity", "calibrated"), "verdict"] == "yes"  # 0 at pure noise: at the chance end


@pytest.mark.slow
def test_the_two_sided_rule_moves_with_its_threshold(below_chance):
    def verdict(thresholds: Thresholds) -> str:
        cells = headline(below_chance, thresholds).set_index(["sub_score", "criterion"])
        return cells.loc[("explicitness", "calibrated"), "verdict"]

    assert verdict(Thresholds(min_random=-0.6)) == "yes"  # the interval [-0.51, -0.47] lies above -0.6
    assert verdict(Thresholds(min_random=-0.49)) == "undecided"  # it straddles -0.49
    assert verdict(Thresholds(min_random=-0.4)) == "no"  # it lies below -0.4, and so does its widened [-0.57, -0.41]
    assert verdict(Thresholds(min_random=-0.45)) == "undecided"  # below -0.45, but its widened interval straddles it
    assert verdict(Thresholds(min_random=-0.7, random_threshold=-0.6)) == "no"  # the upper side still reads it
    assert verdict(Thresholds(min_random=-0.7, random_threshold=-0.55)) == "undecided"  # widened, it straddles -0.55


def test_flagged_sub_scores_come_in_the_order_of_the_results_not_of_their_first_flagged_score(synthetic_results):
    # mig's rows come first, but its only flagged score comes after DCI-ES's (the table interleaves them)
    mig, dci = _as_builtin(synthetic_results, "mig", "mig"), _as_builtin(synthetic_results, "dci_es", "explicitness")
    half = len(mig) // 2
    late = mig.iloc[half:].copy()
    late.loc[late.index[-1], "score"] = 1.5
    dci = dci.assign(score=dci["score"].where(dci.index != dci.index[0], -1.5))
    table = check_results(pd.concat([mig.iloc[:half], dci, late], ignore_index=True))
    flagged = outside_ranges(table)
    assert flagged[["metric", "outside", "scores", "extreme"]].to_dict("records") == [
        {"metric": "mig", "outside": 1, "scores": len(mig), "extreme": 1.5},
        {"metric": "dci_es", "outside": 1, "scores": len(dci), "extreme": -1.5}]
