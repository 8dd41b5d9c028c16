"""Measured hyper-parameter sensitivity from option-sweep variants, on tables built by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports.sensitivity import SPREAD_THRESHOLD, hyperparameter_verdicts, option_sensitivity, parse_variant


def _row(metric: str, scenario: str, value: float, seed: int, score: float, sub_score: str | None = None) -> dict:
    return {"metric": metric, "sub_score": sub_score or metric.split("[")[0], "scenario": scenario, "value": value,
            "value_label": f"{value:g}", "n_samples": 1000, "seed": seed, "score": score}


def _table() -> pd.DataFrame:
    rows = [
        # m: bins 5 vs 20 on noise = 0.2 moves by 0.3 (seed 0) and 0.1 (seed 1): 0.2 on average; on noise = 0.4 by 0.05
        _row("m[bins=5]", "noise", 0.2, 0, 0.5), _row("m[bins=20]", "noise", 0.2, 0, 0.8),
        _row("m[bins=5]", "noise", 0.2, 1, 0.6), _row("m[bins=20]", "noise", 0.2, 1, 0.7),
        _row("m[bins=5]", "noise", 0.4, 0, 0.40), _row("m[bins=20]", "noise", 0.4, 0, 0.45),
        # q: two options; within each estimator bins move it by 0.02 (histogram) and 0.0 (knn);
        # within each bins the estimator moves it by 0.08 (bins 5) and 0.06 (bins 40)
        _row("q[estimator=histogram,bins=5]", "mixing", 0.1, 0, 0.90),
        _row("q[estimator=histogram,bins=40]", "mixing", 0.1, 0, 0.92),
        _row("q[estimator=knn,bins=5]", "mixing", 0.1, 0, 0.98),
        _row("q[estimator=knn,bins=40]", "mixing", 0.1, 0, 0.98),
        # r: swept over a non-discretisation option only
        _row("r[alpha=0.1]", "noise", 0.2, 0, 0.30), _row("r[alpha=1]", "noise", 0.2, 0, 0.33),
        # a plain metric and a single-valued sweep are not sweeps
        _row("m", "noise", 0.2, 0, 0.1), _row("s[bins=5]", "noise", 0.2, 0, 0.5),
    ]
    return pd.DataFrame(rows)


def test_variant_names_parse_into_the_metric_and_its_options():
    assert parse_variant("mig[bins=5,normalization=code]") == ("mig", {"bins": "5", "normalization": "code"})
    assert parse_variant("mig") is None and parse_variant("mig[]") is None


def test_spreads_are_averaged_over_seeds_then_summarised_over_conditions():
    table = option_sensitivity(_table()).set_index(["metric", "option"])
    m = table.loc[("m", "bins")]
    assert m["values"] == "5, 20" and m["conditions"] == 2
    assert m["mean_spread"] == pytest.approx((0.2 + 0.05) / 2)
    assert m["max_spread"] == pytest.approx(0.2)
    assert m["worst_condition"] == "noise = 0.2 (n = 1000)" and m["verdict"] == "sensitive"
    assert table.loc[("q", "bins"), "max_spread"] == pytest.approx(0.02)
    assert table.loc[("q", "bins"), "mean_spread"] == pytest.approx(0.01)
    assert table.loc[("q", "estimator"), "max_spread"] == pytest.approx(0.08)
    assert table.loc[("q", "estimator"), "values"] == "histogram, knn"
    assert table.loc[("r", "alpha"), "verdict"] == "insensitive"
    assert "s" not in table.index.get_level_values("metric")


def test_the_verdicts_give_the_deciding_number_and_threshold():
    verdicts = hyperparameter_verdicts(_table()).set_index(["metric", "characteristic"])
    assert verdicts.loc[("m", "few_hyperparameters"), "verdict"] == "no"
    assert verdicts.loc[("m", "discretization_free"), "number"] == pytest.approx(0.2)
    assert verdicts.loc[("q", "few_hyperparameters"), "verdict"] == "yes"  # 0.08 <= 0.1
    assert verdicts.loc[("q", "few_hyperparameters"), "number"] == pytest.approx(0.08)
    assert verdicts.loc[("q", "discretization_free"), "verdict"] == "yes"
    assert verdicts.loc[("r", "discretization_free"), "verdict"] == "unmeasured"
    assert np.isnan(verdicts.loc[("r", "discretization_free"), "number"])
    assert verdicts.loc[("q", "few_hyperparameters"), "threshold"] == f"≤ {SPREAD_THRESHOLD:g}"
    strict = hyperparameter_verdicts(_table(), threshold=0.05).set_index(["metric", "characteristic"])
    assert strict.loc[("q", "few_hyperparameters"), "verdict"] == "no"


def test_a_table_without_sweeps_gives_empty_tables():
    plain = pd.DataFrame([_row("m", "noise", 0.2, 0, 0.1)])
    assert option_sensitivity(plain).empty and hyperparameter_verdicts(plain).empty
