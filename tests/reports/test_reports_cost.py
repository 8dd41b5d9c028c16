"""Cost: one call per (representation, metric), medians and the growth exponent."""

from __future__ import annotations

import numpy as np
import pytest

from reports import cost, cost_by_n


def test_exponents_and_medians(synthetic_results):
    table = cost(synthetic_results).set_index("metric")
    # seconds: lin 1e-3 n / 1000 (exponent 1), step 1e-4 (n / 1000)^2 (exponent 2), uncal and holo constant
    assert table.loc["lin", "exponent"] == pytest.approx(1.0, abs=1e-3)
    assert table.loc["step", "exponent"] == pytest.approx(2.0, abs=1e-3)
    assert table.loc["uncal", "exponent"] == 0.0 and table.loc["holo", "exponent"] == 0.0
    assert table.loc["uncal", "median_seconds"] == pytest.approx(0.01)
    # 32 (scenario, value) cells x 3 seeds; lin's three sub-scores come from one call each
    assert table.loc["lin", "calls"] == 96 and table.loc["holo", "calls"] == 96
    # lin: 84 calls at n = 2000 (2e-3 s) and 12 in sample_size, so the median is 2e-3
    assert table.loc["lin", "median_seconds"] == pytest.approx(2e-3)
    assert (table.loc["lin", "n_min"], table.loc["lin", "n_max"]) == (100, 100000)
    # ordered by family (intervention, predictor, information, ..., custom), then name
    assert list(table.index) == ["uncal", "lin", "pid", "step", "holo"]


def test_a_single_sample_size_has_no_exponent(synthetic_results):
    table = cost(synthetic_results)
    pid = table.set_index("metric").loc["pid"]
    assert np.isnan(pid["exponent"]) and pid["calls"] == 9
    assert table.attrs["notes"] == ["pid: ran at a single sample size (n = 2000), no growth exponent"]


def test_cost_by_n(synthetic_results):
    by_n = cost_by_n(synthetic_results)
    step = by_n.loc[by_n["metric"] == "step"].set_index("n")["median_seconds"]
    assert step.loc[100] == pytest.approx(1e-6) and step.loc[100000] == pytest.approx(1.0)
    assert by_n.loc[(by_n["metric"] == "lin") & (by_n["n"] == 2000), "calls"].item() == 84


def test_zero_seconds_do_not_break_the_fit(synthetic_results):
    zero = synthetic_results.assign(seconds=np.where(synthetic_results["metric"] == "uncal", 0.0, synthetic_results["seconds"]))
    assert cost(zero).set_index("metric").loc["uncal", "exponent"] == 0.0
