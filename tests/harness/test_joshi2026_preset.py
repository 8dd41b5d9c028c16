"""The joshi2026 preset: Joshi et al.'s (2026) main settings, and their headline findings on a tiny configuration.

Findings reproduced (their experiments 3 and 4, "Who Guards the Guardians?", UAI 2026): under dense mixing the
strong MCC *rises* as the factors' correlation rho grows (a false positive: the encoder entangles no less), while
under the perfect encoder ``z = v`` correlation *lowers* MIG and InfoM although the code is as identifiable as at
rho = 0 (MCC stays 1 there).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.execution.presets import JOSHI2026_SOURCES, PRESETS
from harness.execution.runner import plan_study, run_study
from reports.results.parameters import parameter_columns

MIXED = "dense_mixing@equicorrelated"


def test_the_preset_plans_every_setting_with_its_source_and_sweeps():
    preset = PRESETS["joshi2026"]
    assert set(preset.scenarios) == set(JOSHI2026_SOURCES) and all("Joshi et al. 2026" in s for s in preset.sources.values())
    cells = plan_study(preset="joshi2026", metrics_=["mig"], seeds=1)
    mixed = {(cell.scenario, cell.value) for cell in cells if cell.sweep == MIXED}
    assert len(mixed) == 25  # kappa 1, 2, 5, 10, 50 x rho -0.24, 0, 0.5, 0.9, 0.99
    null = sorted({(cell.value, cell.n_samples) for cell in cells if cell.scenario == "null_gaussian"})
    assert {n for _, n in null} == {50, 200, 1000, 5000, 20000} and {w for w, _ in null} == {1, 4, 16}
    planned = {cell.definition.name for cell in cells}
    assert {"equicorrelated", "redundant_copy", "redundant_function", "circular@equicorrelated=0",
            "elementwise_tanh@equicorrelated=0", "undercomplete@equicorrelated=0",
            "overcomplete_linear@equicorrelated=0", f"{MIXED}=0.99"} <= planned
    variants = {cell.metric.name for cell in plan_study(preset="joshi2026", scenarios_=["equicorrelated"], seeds=1)}
    assert {"mcc[correlation=pearson]", "mcc[correlation=spearman]", "r2", "dci_lasso", "mig", "infomec"} == variants


@pytest.fixture(scope="module")
def tiny() -> pd.DataFrame:
    rows = run_study(preset="joshi2026", scenarios_=["equicorrelated", MIXED], metrics_=["mcc", "mig", "infomec"],
                     seeds=2, n_samples=500, grids={"equicorrelated": [0, 0.5, 0.9],
                                                    MIXED: {"kappa": [10], "rho": [0, 0.5, 0.9, 0.99]}},
                     log=lambda _: None)
    return pd.concat([rows, parameter_columns(rows)], axis=1)


def _means(rows: pd.DataFrame, metric: str, sub_score: str, parameter: str) -> pd.Series:
    chosen = rows.loc[(rows["metric"] == metric) & (rows["sub_score"] == sub_score)]
    return chosen.groupby(f"parameter:{parameter}")["score"].mean().sort_index()


def test_mcc_rises_with_the_correlation_under_dense_mixing(tiny):
    mcc = _means(tiny.loc[tiny["sweep"] == MIXED], "mcc", "strong", "base.rho")
    assert list(mcc.index) == [0.0, 0.5, 0.9, 0.99]
    assert np.all(np.diff(mcc.to_numpy()) > 0), mcc  # kappa = 10 throughout: the encoder does not change
    assert mcc[0.99] - mcc[0.0] > 0.15 and mcc[0.99] > 0.85, mcc  # about 0.65 -> 0.9 (theirs: 0.7 -> 0.99)


def test_correlation_lowers_mig_and_infom_under_the_perfect_encoder(tiny):
    perfect = tiny.loc[tiny["sweep"] == "equicorrelated"]
    for metric, sub_score in (("mig", "mig"), ("infomec", "infom")):
        means = _means(perfect, metric, sub_score, "rho")
        assert np.all(np.diff(means.to_numpy()) < 0), (metric, means)
        assert means[0.0] - means[0.9] > 0.2, (metric, means)  # MIG about 0.95 -> 0.6, InfoM 0.83 -> 0.24
    assert (_means(perfect, "mcc", "strong", "rho") > 0.99).all()  # the code is as identifiable at every rho
    assert (perfect["ideal"].dropna() == 1.0).all()  # which is what the scenario states
