"""Robustness on the hand-built table: drops worked out from the conftest's formulas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports import MissingDataError, Thresholds, robustness


def _rows(table):
    return {(row.scenario, row.metric, row.sub_score): row for row in table.itertuples()}


def test_drops_of_the_synthetic_metrics(synthetic_results):
    table = robustness(synthetic_results)
    rows = _rows(table)
    # uncal under noise, read on alpha <= 0.5: 0.85 - 0.5 alpha, worst at alpha = 0.4: 1 - 0.65 = 0.35
    uncal = rows[("noise", "uncal", "uncal")]
    assert uncal.largest_drop == pytest.approx(0.35) and uncal.at_value == "0.4" and uncal.n_values == 3
    assert uncal.score_at == pytest.approx(0.65) and uncal.ideal_at == 1.0 and not uncal.robust
    # partial factors: 0.9 - 0.1 (8 - k), worst at k = 1: 1 - 0.2 = 0.8; nonlinear: constant 0.7
    assert rows[("partial", "uncal", "uncal")].largest_drop == pytest.approx(0.8)
    assert rows[("partial", "uncal", "uncal")].at_value == "1"
    assert rows[("nonlinear", "uncal", "uncal")].largest_drop == pytest.approx(0.3)
    # lin stays at 0.99 (mean over seeds) wherever the ideal is 1
    for scenario in ("noise", "nonlinear", "partial"):
        for sub_score in ("modularity", "compactness"):
            row = rows[(scenario, "lin", sub_score)]
            assert row.largest_drop == pytest.approx(0.01) and row.largest_excess == pytest.approx(-0.01) and row.robust
    # under noise only modularity and compactness sub-scores are judged (review Table 2: robustness to noise
    # does not apply to explicitness); under the nonlinear map and non-measured factors every property
    assert set(table.loc[table["criterion"] == "noise", "property"]) == {"modularity", "compactness"}
    for scenario in ("nonlinear", "partial"):
        judged = set(table.loc[table["scenario"] == scenario, "property"])
        assert judged == {"modularity", "compactness", "explicitness", "holistic"}
    # step is 1 wherever the ideal explicitness is 1; lin's explicitness is 0.98 + 0.01; holo is the mean of ideals of 1
    assert rows[("nonlinear", "step", "step")].largest_drop == 0.0 and rows[("nonlinear", "step", "step")].robust
    assert rows[("partial", "lin", "explicitness")].largest_drop == pytest.approx(0.01)
    assert rows[("partial", "holo", "holo")].largest_drop == pytest.approx(0.0)
    # the PID toy tests attacks, but its terms are holistic and it states no ideal for them: nothing is
    # judged there, and the notes say so, term by term
    assert "gaussian_toy_attack" not in set(table["scenario"])
    assert table.attrs["notes"] == ["'gaussian_toy_attack' states an ideal for pid/redundant_lower, pid/redundant_upper, "
                                    "pid/unique_lower, pid/unique_upper at fewer than 2 of its values (a holistic score "
                                    "needs the three ideals to agree): not judged there"]


def test_the_range_read_is_where_the_rows_state_the_ideal_and_the_threshold_an_option(synthetic_results):
    # the noise rows state modularity and compactness ideals on alpha <= 0.5 (the scenario's declaration)
    assert _rows(robustness(synthetic_results))[("noise", "lin", "modularity")].values_read == "alpha 0 to 0.4"
    # a table whose rows state them over the whole range (as one written before the declaration) is read over it:
    # lin's modularity falls to 0.01 at alpha = 1 and uncal to 0.35
    whole = synthetic_results.copy()
    stretched = (whole["scenario"] == "noise") & whole["property"].isin(["modularity", "compactness"])
    whole.loc[stretched, "ideal"] = 1.0
    full = _rows(robustness(whole))
    assert full[("noise", "lin", "modularity")].values_read == "alpha 0 to 1"
    assert full[("noise", "lin", "modularity")].largest_drop == pytest.approx(0.99)
    assert full[("noise", "uncal", "uncal")].largest_drop == pytest.approx(0.65)
    loose = _rows(robustness(synthetic_results, thresholds=Thresholds(max_deviation=0.4)))
    assert loose[("noise", "uncal", "uncal")].robust and not loose[("partial", "uncal", "uncal")].robust


def test_other_properties_and_holistic_scores(synthetic_results):
    rows = _rows(robustness(synthetic_results, properties=("explicitness", "holistic")))
    # the step function stays at 1 where the ideal explicitness is 1
    assert rows[("nonlinear", "step", "step")].largest_drop == 0.0 and rows[("nonlinear", "step", "step")].robust
    # holistic ideal exists under nonlinear and partial (all ideals 1); under noise only at alpha = 0, where
    # there is no noise: a verdict from that point alone would say nothing, so holo is not judged there
    assert rows[("partial", "holo", "holo")].largest_drop == 0.0
    table = robustness(synthetic_results, properties=("explicitness", "holistic"))
    assert ("noise", "holo", "holo") not in _rows(table) and ("noise", "step", "step") in _rows(table)
    assert any(note.startswith("'noise' states an ideal for holo/holo at fewer than 2") for note in table.attrs["notes"])


def _attack_table(score_of_alpha) -> pd.DataFrame:
    rows = []
    for alpha in (0.0, 0.5, 1.0):
        for seed in (0, 1):
            rows.append({
                "study": "s", "scenario": "my_attack", "parameter": "alpha", "criterion": "attacks", "value": alpha,
                "value_label": f"{alpha:g}",
                "seed": seed, "n_samples": 1000, "metric": "m", "family": "information", "sub_score": "m",
                "property": "modularity", "higher_is_better": True, "ideal": 1.0 - 0.8 * alpha,
                "score": score_of_alpha(alpha), "seconds": 0.1, "metric_version": "1", "harness_version": "t",
            })
    return pd.DataFrame(rows)


def test_a_score_blind_to_an_attack_is_not_robust():
    blind = robustness(_attack_table(lambda alpha: 1.0)).iloc[0]
    # the ideal falls to 0.2 at alpha = 1 while the score stays at 1: excess 0.8, never a drop
    assert blind.condition == "entanglement attack" and blind.criterion == "attacks"
    assert blind.largest_drop == pytest.approx(0.0) and blind.largest_excess == pytest.approx(0.8) and not blind.robust
    follows = robustness(_attack_table(lambda alpha: 1.0 - 0.7 * alpha)).iloc[0]
    assert follows.largest_excess == pytest.approx(0.1) and follows.largest_drop == pytest.approx(0.0) and follows.robust


def test_without_any_condition_it_says_so(synthetic_results):
    with pytest.raises(MissingDataError, match="needs a scenario testing one of noise, nonlinearity, "
                                               "non_measured_factors, attacks; no scenario of the results declares one"):
        robustness(synthetic_results.loc[synthetic_results["scenario"] == "mixing"])
    from reports.analyses.robustness import _untested

    # not "one of attacks", and named as its section is (it read "robustness needs ..." under Entanglement attacks)
    assert _untested(["attacks"]).startswith("following entanglement attacks needs a scenario testing attacks;")
    assert _untested(["noise", "nonlinearity"]).startswith("robustness needs a scenario testing one of noise, nonlinearity")
    # a condition no scenario tests is named in the notes
    without_noise = robustness(synthetic_results.loc[synthetic_results["criterion"] != "noise"])
    assert without_noise.attrs["notes"][0] == "condition 'noise' not measured: no scenario of the results tests 'noise'"
    assert without_noise.attrs["notes"][1:] == [note for note in robustness(synthetic_results).attrs["notes"]]


def test_a_score_without_an_ideal_is_noted(synthetic_results):
    # the ideal is the scenario's, per property: once no row states the ideal modularity of partial, no
    # modularity score can be judged there (compactness still can)
    no_ideal = synthetic_results.copy()
    chosen = (no_ideal["scenario"] == "partial") & (no_ideal["property"] == "modularity")
    no_ideal.loc[chosen, "ideal"] = np.nan
    no_ideal.loc[no_ideal["scenario"] == "partial", "ideal_modularity"] = np.nan  # as every row states it
    table = robustness(no_ideal)
    rows = _rows(table)
    assert ("partial", "uncal", "uncal") not in rows and ("partial", "lin", "modularity") not in rows
    assert ("partial", "lin", "compactness") in rows
    # holo's holistic ideal needs all three ideals, so it goes too
    # without a holistic score, the note says nothing of one (it did, of mig and a compactness score)
    alone = robustness(no_ideal.loc[no_ideal["metric"] != "holo"])
    assert ("'partial' states an ideal for lin/modularity, uncal/uncal at fewer than 2 of its values: not judged "
            "there") in alone.attrs["notes"]
    assert ("'partial' states an ideal for holo/holo, lin/modularity, uncal/uncal at fewer than 2 of its values (a "
            "holistic score needs the three ideals to agree): not judged there") in table.attrs["notes"]


def test_a_renamed_scenario_is_measured_by_its_criterion(synthetic_results):
    renamed = synthetic_results.replace({"scenario": {"noise": "my_noise"}})
    rows = _rows(robustness(renamed))
    assert rows[("my_noise", "uncal", "uncal")].largest_drop == pytest.approx(0.35)  # read on alpha <= 0.5
    assert rows[("my_noise", "uncal", "uncal")].condition == "noise"
    # a scenario called noise that declares no criterion is not read as noise
    undeclared = synthetic_results.assign(criterion=np.where(synthetic_results["scenario"] == "noise", "",
                                                             synthetic_results["criterion"]))
    assert "noise" not in set(robustness(undeclared)["scenario"])


@pytest.mark.slow
def test_the_sections_split_robustness_from_attacks_out_of_one_table(realistic_results):
    # robustness runs once for every condition; the Robustness and Entanglement attacks sections are its parts
    from reports.report import build_sections
    from reports.verdicts.bundle import Bundle

    bundle = Bundle(realistic_results)
    sections = {section.key: section.table for section in build_sections(bundle)}
    assert set(sections["robustness"]["criterion"]) == {"noise", "nonlinearity", "non_measured_factors"}
    assert set(sections["attacks"]["criterion"]) == {"attacks"}
    whole = bundle.robustness.table
    assert len(sections["robustness"]) + len(sections["attacks"]) == len(whole)
    robust = sections["robustness"]
    # explicitness is judged under the nonlinear map and non-measured factors, never under noise
    explicit = robust.loc[robust["property"] == "explicitness", "criterion"]
    assert set(explicit) == {"nonlinearity", "non_measured_factors"}
    separate = robustness(bundle.judged, conditions={"attacks": "entanglement attack"})
    read_from = ["deviation_decided_low", "deviation_decided_high"]  # the section's own: the interval each mark read
    # the attacks' flag is named follows_attacks (it was robust, the analysis's name, for what it reads there)
    assert "robust" not in sections["attacks"] and "robust" in robust
    pd.testing.assert_frame_equal(sections["attacks"].drop(columns=["follows_attacks", *read_from]),
                                  separate.drop(columns="robust"))
    # the section's follows_attacks column holds each row as the verdicts read it (its interval); where that decides,
    # the mean decides the same way
    read = sections["attacks"]["follows_attacks"]
    assert set(read) <= {"yes", "no", "undecided"}
    decided = read != "undecided"
    assert ((read[decided] == "yes") == separate.loc[decided, "robust"]).all()


def _seeded_attack_table(score) -> pd.DataFrame:
    table = pd.concat([_attack_table(lambda alpha: 0.0).assign(seed=seed) for seed in (0, 1, 2)], ignore_index=True)
    return table.drop_duplicates(["value", "seed"]).assign(score=lambda t: [score(a, s) for a, s in zip(t.value, t.seed)])


@pytest.mark.parametrize(("odd_seed_score", "deviation"), [(0.4, 0.6), (1.4, 14 / 15)])
def test_the_deviations_interval_stops_at_the_largest_deviation_unit_scores_can_reach(odd_seed_score, deviation):
    # at alpha = 1 (ideal 0.2) the seeds score 1, odd, 1: their mean deviates by 0.6 (or 0.93 with a seed at 1.4),
    # and the 3-seed interval spans past 1; scores in [0, 1] cannot deviate from the ideals 1, 0.6, 0.2 by more than 1
    row = robustness(_seeded_attack_table(
        lambda alpha, seed: 1.0 - 0.8 * alpha if alpha < 1 else (odd_seed_score if seed == 1 else 1.0))).iloc[0]
    assert row.n_seeds == 3 and row.deviation == pytest.approx(deviation) and row.deviation_low < row.deviation
    if odd_seed_score <= 1:
        assert row.deviation_high == 1.0
    else:  # a score above 1: no bound known, the interval as computed
        assert row.deviation_high > 1.1


def test_the_value_named_is_where_the_deviation_is_read_an_excess_too(synthetic_results):
    # a score stuck at 1 under an attack whose ideal falls to 0.2 deviates by its excess at the strongest attack; the
    # row named the value of its largest drop (alpha 0, where score and ideal are both 1)
    attack = synthetic_results.loc[(synthetic_results["scenario"] == "mixing") & (synthetic_results["metric"] == "lin")]
    falling = 1.0 - 1.6 * attack["value"]
    attack = attack.assign(scenario="redundancy_attack", criterion="attacks", score=1.0,
                           ideal=np.where(attack["property"] == "explicitness", 1.0, falling),
                           ideal_modularity=falling, ideal_compactness=falling, ideal_explicitness=1.0)
    table = robustness(pd.concat([synthetic_results, attack], ignore_index=True))
    row = table.set_index(["scenario", "metric", "sub_score"]).loc[("redundancy_attack", "lin", "modularity")]
    assert row["deviation"] == pytest.approx(0.8) and row["largest_drop"] == pytest.approx(0.0)
    assert (row["at_value"], row["score_at"], row["ideal_at"]) == ("0.5", 1.0, pytest.approx(0.2))


def test_an_excess_of_zero_is_written_as_0_not_minus_0(synthetic_results):
    # robustness.csv wrote largest_excess -0.0 for a score on its ideal at its best point
    import math

    table = robustness(synthetic_results)
    zero = table.loc[table["largest_excess"] == 0.0, "largest_excess"]
    assert len(zero) and all(math.copysign(1.0, value) == 1.0 for value in zero)
