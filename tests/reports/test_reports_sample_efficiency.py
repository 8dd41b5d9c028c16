"""Sample efficiency: |score(n) - score(n_max)| per seed, worked out from the conftest's formulas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports import MissingDataError, sample_efficiency


def _rows(table):
    return {(row.metric, row.sub_score, row.n): row for row in table.itertuples()}


def test_differences_match_the_formulas(synthetic_results):
    table = sample_efficiency(synthetic_results)
    rows = _rows(table)
    assert set(table["n"]) == {100, 1000, 10000} and set(table["n_max"]) == {100000}
    for n in (100, 1000, 10000):
        # lin: 0.5 + 10 (seed + 1) / n, so |s(n) - s(n_max)| = 10 (seed + 1) (1/n - 1e-5): mean over seeds 1, 2, 3
        # is 20 (1/n - 1e-5) and the standard deviation (ddof = 1) of 1, 2, 3 is 1
        gap = 1.0 / n - 1e-5
        lin = rows[("lin", "modularity", n)]
        assert lin.mean_abs_difference == pytest.approx(20 * gap, rel=1e-9)
        assert lin.std_abs_difference == pytest.approx(10 * gap, rel=1e-9) and lin.n_seeds == 3
        assert rows[("uncal", "uncal", n)].mean_abs_difference == pytest.approx(200 * gap, rel=1e-9)
        assert rows[("step", "step", n)].mean_abs_difference == 0.0
    assert rows[("lin", "explicitness", 1000)].mean_abs_difference == pytest.approx(0.0198, rel=1e-9)


def test_a_seed_without_reference_is_left_out(synthetic_results):
    drop = (synthetic_results["scenario"] == "sample_size") & (synthetic_results["value"] == 100000) & \
           (synthetic_results["seed"] == 2) & (synthetic_results["metric"] == "uncal")
    table = sample_efficiency(synthetic_results.loc[~drop])
    row = _rows(table)[("uncal", "uncal", 1000)]
    assert row.n_seeds == 2 and row.mean_abs_difference == pytest.approx(150 * (1e-3 - 1e-5), rel=1e-9)
    assert table.attrs["notes"] == ["uncal/uncal seed 2: no score at the largest n, left out"]


def test_single_seed_has_zero_spread(synthetic_results):
    table = sample_efficiency(synthetic_results.loc[synthetic_results["seed"] == 0])
    assert np.all(table["std_abs_difference"] == 0.0) and set(table["n_seeds"]) == {1}


def test_missing_scenario_is_reported(synthetic_results):
    with pytest.raises(MissingDataError, match="sample efficiency needs a scenario testing 'sample_efficiency'"):
        sample_efficiency(synthetic_results.loc[synthetic_results["scenario"] == "noise"])


@pytest.mark.parametrize(("far", "high"), [(0.0, 1.0), (-1.0, None)])
def test_the_interval_of_a_difference_of_unit_scores_stops_at_1(far, high):
    # at n = 100 the seeds score far, 1, far against 1 at n = 1000: differences 1, 0, 1 (or 2, 0, 2), a mean whose
    # 3-seed interval reaches past 1 (2.1, or 4.3); scores in [0, 1] differ by at most 1, scores below 0 are not bound
    rows = [{"study": "s", "scenario": "sizes", "parameter": "n_samples", "criterion": "sample_efficiency", "value": n,
             "value_label": str(n), "seed": seed, "n_samples": n, "metric": "m", "family": "information", "sub_score": "m",
             "property": "modularity", "higher_is_better": True, "ideal": 1.0,
             "score": 1.0 if n == 1000 or seed == 1 else far, "seconds": 0.1, "metric_version": "1",
             "harness_version": "t"} for n in (100, 1000) for seed in (0, 1, 2)]
    row = sample_efficiency(pd.DataFrame(rows)).iloc[0]
    assert row.n_seeds == 3 and row.mean_abs_difference == pytest.approx(2 * (1 - far) / 3)
    if high is not None:
        assert row.mean_abs_difference_high == high
    else:
        assert row.mean_abs_difference_high > 3
