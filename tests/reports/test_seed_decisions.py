"""The seeds behind each verdict, and intervals widened for a race's looks (issue 38)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from reports.analyses import intervals
from reports.analyses.calibration import calibration
from reports.verdicts.bundle import Bundle
from reports.verdicts.seed_decisions import seed_counts_display, seed_decisions, seed_lines, undecided_display

# 'lin' at the perfect end of noise: 0.99 +- 0.01 over seeds 0, 1, 2 (tests/reports/conftest.py)
LIN_PERFECT, LIN_SPREAD, SEEDS = 0.99, 0.01, 3


@pytest.mark.parametrize("looks", [1, 3])
def test_an_interval_read_at_several_looks_is_widened_to_the_split_level(synthetic_results, looks):
    table = calibration(synthetic_results.assign(looks=looks))
    low = table.loc[(table["metric"] == "lin") & (table["scenario"] == "noise"), "perfect_oriented_low"].iloc[0]
    quantile = stats.t.ppf(1 - 0.05 / looks / 2, SEEDS - 1)  # 4.303 for one look, 7.649 for three
    assert low == pytest.approx(LIN_PERFECT - quantile * LIN_SPREAD / np.sqrt(SEEDS), abs=1e-9)


def test_the_level_splits_five_percent_between_the_looks():
    assert intervals.level(1) == 0.95 and intervals.level(3) == pytest.approx(1 - 0.05 / 3)
    assert intervals.t_quantile(6, 3) == pytest.approx(stats.t.ppf(1 - 0.05 / 6, 5))
    with pytest.raises(ValueError, match="looks must be at least 1"):
        intervals.level(0)


def test_every_judged_verdict_is_listed_with_the_seeds_that_decided_it(synthetic_results):
    bundle = Bundle(synthetic_results)
    table = seed_decisions(bundle)
    judged = [verdict for verdict in bundle.verdicts["verdict"] if verdict.judged]
    assert len(table) == len(judged) and len(table) > 10
    assert set(table["seeds"]) == {SEEDS} and table["at_cap"].all()
    # 95%, but where a failure was read from an interval widened for the checks the metric's verdicts pool
    widened = table["level"] != 0.95
    assert widened.any() and (table.loc[widened, "verdict"] != "yes").all()
    assert table.loc[widened, "level"].tolist() == pytest.approx(
        [1 - 0.05 / bundle.pooled_checks[metric] for metric in table.loc[widened, "metric"]])
    assert sorted(table["verdict"].unique()) == sorted({verdict.mark for verdict in judged})
    shown = seed_counts_display(table)
    assert list(shown["Seeds"]) == ["3"]
    assert int(shown["✓ yes"].iloc[0]) == (table["verdict"] == "yes").sum()
    lines = seed_lines(table, looks=1)
    assert lines[0].startswith("Every cell had the same seeds: each interval is at 95%. ")
    assert f"{(table['verdict'] != 'undecided').sum()} of {len(table)} judged verdicts are decided" in lines[0]
    assert (f"widened for the checks its metric's verdicts pool (Bonferroni), so that it too is wrong at most 5% of "
            f"the time: {widened.sum()} verdicts were decided or left undecided so, at "
            f"{100 * table.loc[widened, 'level'].min():.2f}% to") in lines[0]


def test_an_undecided_verdict_names_its_interval_and_whether_it_had_the_most_seeds():
    table = pd.DataFrame([
        {"metric": "m", "sub_score": "s", "characteristic": "calibrated", "verdict": "undecided", "seeds": 12,
         "at_cap": True, "statistic": "random", "value": 0.12, "interval_low": 0.08, "interval_high": 0.16, "limit": 0.1,
         "level": 1 - 0.05 / 3},
        {"metric": "m", "sub_score": "s", "characteristic": "linear", "verdict": "yes", "seeds": 3, "at_cap": False,
         "statistic": "R²", "value": 0.99, "interval_low": 0.98, "interval_high": 1.0, "limit": 0.9,
         "level": 1 - 0.05 / 3}])
    shown = undecided_display(table)
    assert shown.to_dict("records") == [{"Metric": "m", "Sub-score": "s", "Characteristic": "calibrated",
                                         "Statistic": "random", "Value [interval]": "0.12 [0.08, 0.16]",
                                         "Threshold": "0.1", "Level": "98.33%", "Seeds": "12 (cap)"}]
    lines = seed_lines(table, looks=3)
    assert lines[0].startswith("Seeds were raced over 3 looks: each interval is at 98.3%")
    assert "A failure is read" not in lines[0]  # no verdict read from a widened interval
    assert lines[1].startswith("1 stayed undecided: 1 at the cap of seeds (too close to call")


def test_a_race_stopped_before_its_cap_leaves_its_undecided_verdicts_below_the_cap(synthetic_results):
    # a race of 3, 6, 12 seeds stopped by its budget after the first round: every cell had 3 seeds, the most any cell
    # had, and the report called all its undecided verdicts "too close to call at this study's size"
    from reports.verdicts.seed_decisions import at_last_look

    assert [at_last_look(seeds, 3, 3) for seeds in (3, 6, 12, 10)] == [False, False, True, True]
    assert [at_last_look(seeds, 12, 4) for seeds in (12, 24, 48, 100)] == [False, False, False, True]
    raced = seed_decisions(Bundle(synthetic_results.assign(looks=3)))  # 3 seeds everywhere, of a 3-look race
    assert not raced["at_cap"].any()
    fixed = seed_decisions(Bundle(synthetic_results))  # fixed seeds: the only count there is, the cap
    assert fixed["at_cap"].all()
    one = raced.iloc[:1].assign(level=0.99)  # one verdict read from a widened interval: said in the singular, once
    assert "1 verdict was decided or left undecided so, at 99.00%." in seed_lines(one, looks=3)[0]


def test_an_undecided_verdict_of_a_swept_metric_names_the_variant_its_cells_carry(synthetic_results):
    # the analyses read a swept metric's default variant under the metric's name ('lin'); racing adds seeds to cells,
    # which carry the variant's ('lin[bins=10]'): 19 of the default study's 34 undecided pairs were lost this way
    from reports.verdicts.verdict_table import _results_names

    swept = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    variants = pd.concat([swept.assign(metric=f"lin[bins={bins}]", metric_base="lin", options=f'{{"bins":{bins}}}',
                                       default_options='{"bins":10}') for bins in (5, 10)], ignore_index=True)
    results = pd.concat([synthetic_results.loc[synthetic_results["metric"] != "lin"], variants], ignore_index=True)
    assert _results_names(results, "lin") == ["lin[bins=10]"]
    assert _results_names(results, "step") == ["step"]


def test_the_option_sweep_verdicts_are_counted_with_their_seeds(synthetic_results):
    # they used to read no interval over seeds, and the section showed them as decided by no seed count
    lin = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    variants = pd.concat([lin.assign(metric=f"lin[bins={bins}]", metric_base="lin", options=f'{{"bins":{bins}}}',
                                     default_options='{"bins":10}') for bins in (5, 10)], ignore_index=True)
    results = pd.concat([synthetic_results.loc[synthetic_results["metric"] != "lin"], variants], ignore_index=True)
    table = seed_decisions(Bundle(results))
    swept = table.loc[table["characteristic"].isin(["discretization_free", "few_hyperparameters"])]
    assert len(swept) >= 2 and (swept["seeds"] == SEEDS).all()
    assert list(seed_counts_display(table)["Seeds"]) == ["3"]
