"""The results' ``exact`` column: each registered metric's closed form, where the scenario has one."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from harness.execution.runner import run_study
from scenarios.gaussian_toy import exact_information


@pytest.fixture(scope="module")
def frame():
    return run_study(scenarios_=["gaussian_toy_synergy", "noise"], metrics_=["pid", "unibound", "mig"],
                     metric_options={"pid": {"normalize": ["bounded", "entropy"]}}, seeds=1, n_samples=300,
                     null_permutations=0, progress=False)  # the exact column alone: no nulls


def test_rows_carry_the_metrics_closed_form_on_the_gaussian_toy_model(frame):
    toy = frame.loc[frame["scenario"] == "gaussian_toy_synergy"]
    checked = 0
    for (metric, alpha), rows in toy.loc[toy["metric"].isin(["pid[normalize=bounded]", "unibound"])].groupby(["metric", "value"]):
        name = metric.split("[")[0]
        expected = metrics.get(name).exact_scores(exact_information("synergy", alpha))
        assert dict(zip(rows["sub_score"], rows["exact"])) == pytest.approx(expected, abs=1e-12)
        checked += len(rows)
    assert checked == 7 * (7 + 1)  # alphas x (PID sub-scores + UniBound)
    at_zero = toy.loc[(toy["value"] == 0.0) & (toy["sub_score"] == "complementary_lower") & (toy["metric"] == "pid[normalize=bounded]")]
    assert at_zero["exact"].iloc[0] == pytest.approx(0.0, abs=1e-12)  # no attack: no synergy (hand-derived)


def test_exact_is_nan_where_no_closed_form_is_known(frame):
    toy = frame["scenario"] == "gaussian_toy_synergy"
    assert frame.loc[~toy, "exact"].isna().all()  # the noise scenario has no closed forms
    assert frame.loc[toy & (frame["metric"] == "mig"), "exact"].isna().all()  # MIG states none
    assert frame.loc[toy & (frame["metric"] == "pid[normalize=entropy]"), "exact"].isna().all()  # sample-dependent divisor
    assert np.isfinite(frame.loc[toy & (frame["metric"] == "unibound"), "exact"]).all()
