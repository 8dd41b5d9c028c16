"""Thresholds written once: a report judges by the thresholds it was built with and states those in its sentences."""

from __future__ import annotations

import dataclasses

import pytest
from pandas.testing import assert_frame_equal

from reports import Bundle, Thresholds, property_matrix
from reports.report import build_sections
from reports.verdicts.characteristics import CHARACTERISTICS, Characteristic, Rule, sentences


def _descriptions(bundle: Bundle) -> dict[str, str]:
    return {section.key: section.description for section in build_sections(bundle)}


@pytest.fixture(scope="module")
def uncal_under_noise(synthetic_results):
    """The noise scenario's rows of ``uncal`` alone: a report of them takes a second."""
    return synthetic_results.loc[(synthetic_results["scenario"] == "noise") & (synthetic_results["metric"] == "uncal")]


def test_changing_one_threshold_moves_its_verdicts_and_the_reports_sentences_together(uncal_under_noise):
    results = uncal_under_noise
    default, loose = Bundle(results), Bundle(results, Thresholds(max_deviation=0.45))
    # uncal drops 0.35 below its ideal under noise: a ✗ at 0.2, a ✓ at 0.45
    before = property_matrix(default).set_index(["metric", "characteristic"]).loc[("uncal", "robust_noise")]
    after = property_matrix(loose).set_index(["metric", "characteristic"]).loc[("uncal", "robust_noise")]
    assert (before["verdict"], before["threshold"]) == ("no", "|score − ideal| ≤ 0.2")
    assert (after["verdict"], after["threshold"]) == ("yes", "|score − ideal| ≤ 0.45")
    said_before, said_after = _descriptions(default), _descriptions(loose)
    for key, sentence in (("headline", "follows attacks: |score − ideal| ≤ {}"), ("headline", "(excess ≤ {} on level"),
                          ("property_matrix", "on level comparisons excess ≤ {}."), ("robustness", "Robust: at most {},"),
                          ("attacks", "Follows the attacks: at most {},")):
        assert sentence.format(0.2) in said_before[key] and sentence.format(0.2) not in said_after[key], (key, sentence)
        assert sentence.format(0.45) in said_after[key], (key, sentence)
    # and nothing else moved: the other sentences are the same word for word
    assert {key: text.replace("0.45", "0.2") for key, text in said_after.items()} == said_before


def test_every_threshold_is_stated_from_the_reports_thresholds(uncal_under_noise):
    # each threshold at a value no default has: every one of them appears in the report's prose
    odd = Thresholds(min_rank_correlation=0.71, min_slope=0.42, perfect_threshold=0.87, random_threshold=0.13, min_random=-0.17, min_r2=0.83,
                     min_linear_slope=0.31, max_deviation=0.27, data_n=777, data_tolerance=0.07, max_spread=0.15,
                     max_sensitive_options=3, min_monotone_rank_correlation=0.93)
    text = " ".join(_descriptions(Bundle(uncal_under_noise, odd)).values())
    for field in dataclasses.fields(Thresholds):
        assert f"{getattr(odd, field.name):g}" in text, field.name
    assert "a tenth of the [0, 1] score scale" not in text  # said of the default spread threshold alone


def test_a_characteristics_sentence_is_filled_from_the_thresholds():
    said = sentences(Thresholds(perfect_threshold=0.8, data_n=500))
    assert said["calibrated"] == "perfect ≥ 0.8 and -0.1 ≤ random ≤ 0.1"
    assert said["data_efficient"] == "mean |s(500) − s(n_max)| ≤ 0.05"
    assert list(said) == [entry.key for entry in CHARACTERISTICS]


def test_a_sentence_must_state_every_threshold_its_rules_compare_with():
    rule = Rule("R²", "r2", ">=", "min_r2")
    with pytest.raises(ValueError, match="characteristic 'fit': its sentence does not state 'min_r2', the threshold of its rule 'R²'"):
        Characteristic(key="fit", heading="Fit", analysis="linearity", rules=(rule,), unmeasured="", sentence="R² is high")
    with pytest.raises(ValueError, match="characteristic 'fit': its sentence names 'min_rr', which is no threshold"):
        Characteristic(key="fit", heading="Fit", analysis="linearity", rules=(rule,), unmeasured="",
                       sentence="R² ≥ {min_r2:g} and {min_rr:g}")


@pytest.mark.slow
def test_the_views_of_one_table_share_its_analyses_and_other_thresholds_or_values_get_their_own(synthetic_results,
                                                                                                  monkeypatch):
    # the property matrix, the headline and a report card's parts each built a Bundle of the same table and computed
    # every analysis and verdict again (a tenth to a fifth of the reports' and validate's tests); they now share the
    # Bundle of the last table seen (reports.verdicts.bundle.bundle_for), keyed by content and thresholds
    from reports import headline
    from reports.report_card import metric_verdicts
    from reports.verdicts import bundle as bundles
    from reports.verdicts import verdict_table

    results = synthetic_results.loc[synthetic_results["metric"].isin(["lin", "step", "uncal"])]  # three of its metrics
    computed = []
    original = verdict_table.verdict_table
    monkeypatch.setattr(verdict_table, "verdict_table", lambda bundle: computed.append(bundle) or original(bundle))
    monkeypatch.setattr(bundles, "_LAST", {})
    matrix = property_matrix(results)
    headline(results.copy())
    metric_verdicts(results, "lin")
    assert len(computed) == 1
    assert_frame_equal(matrix, property_matrix(Bundle(results)))  # what a Bundle of its own gives
    assert len(computed) == 2
    strict = Thresholds(min_rank_correlation=0.9)
    assert property_matrix(results, strict)["threshold"].str.contains("ρ ≥ 0.9").any()
    assert len(computed) == 3 and computed[-1].thresholds == strict  # (a changed value: tests/harness/test_racing.py)


def test_the_failing_side_reads_the_same_analyses_at_its_own_looks(synthetic_results, monkeypatch):
    # a failure is read from intervals widened for the checks a verdict pools (Bundle.failing); the calibration,
    # linearity and robustness were computed a second time for it, whole, for other t quantiles (a third of a verdict
    # table's time); the failing Bundle now reads its base's, with the intervals at its own looks
    from reports.analyses import calibration, linearity, robustness
    from reports.verdicts import bundle as bundles

    results = synthetic_results.assign(looks=3)  # a race's three looks
    calls = {}
    for module, name in ((calibration, "calibration"), (linearity, "linearity"), (robustness, "robustness")):
        original = getattr(module, f"leveled_{name}")
        monkeypatch.setattr(bundles, f"leveled_{name}",
                            lambda *args, _original=original, _name=name, **kwargs:
                            calls.update({_name: calls.get(_name, 0) + 1}) or _original(*args, **kwargs))
    bundle = Bundle(results)
    assert not bundle.verdicts.empty
    failing = bundle.failing
    assert failing is not bundle and calls == {"calibration": 1, "linearity": 1, "robustness": 1}
    for module, name in ((calibration, "calibration"), (linearity, "linearity"), (robustness, "robustness")):
        widened, base = getattr(failing, name).table, getattr(bundle, name).table
        # what the analysis gives on the widened results, bit for bit, notes included
        recomputed = getattr(module, name)(failing.judged)
        assert_frame_equal(widened, recomputed, check_exact=True)
        assert widened.attrs == recomputed.attrs
        lows = [column for column in base.columns if column.endswith("_low")]
        assert (widened[lows] <= base[lows]).all().all() and (widened[lows] < base[lows]).any().any(), name
    assert calls == {"calibration": 1, "linearity": 1, "robustness": 1}
