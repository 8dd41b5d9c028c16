"""Agreement: Kendall's tau between rankings, on a table built by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from reports import MissingDataError, agreement, agreement_matrix

BASE = np.array([0.1, 0.3, 0.5, 0.7, 0.9])


def _table(scores: dict[str, np.ndarray], lower_is_better: tuple[str, ...] = ()) -> pd.DataFrame:
    rows = []
    for metric, values in scores.items():
        for index, score in enumerate(values):
            rows.append({
                "study": "s", "scenario": "noise", "parameter": "alpha", "value": index / 4, "value_label": f"{index / 4:g}",
                "seed": 0, "n_samples": 500, "metric": metric, "family": "custom", "sub_score": metric,
                "property": "modularity", "higher_is_better": metric not in lower_is_better, "ideal": 1.0,
                "score": float(score), "seconds": 0.1, "metric_version": "1", "harness_version": "t",
            })
    return pd.DataFrame(rows)


def _taus(table):
    return {(row.score_a, row.score_b): row.tau for row in table.itertuples()}


def test_kendall_tau_of_known_rankings():
    # one adjacent swap among 5 items: 9 concordant and 1 discordant pair of 10, tau = 0.8
    swapped = BASE[[1, 0, 2, 3, 4]]
    taus = _taus(agreement(_table({"a": BASE, "b": 2 * BASE, "c": -BASE, "d": swapped})))
    assert taus[("a", "b")] == pytest.approx(1.0)
    assert taus[("a", "c")] == pytest.approx(-1.0)
    assert taus[("a", "d")] == pytest.approx(0.8)
    assert taus[("c", "d")] == pytest.approx(-0.8)


def test_lower_is_better_scores_are_turned_around():
    taus = _taus(agreement(_table({"a": BASE, "loss": 1.0 - BASE}, lower_is_better=("loss",))))
    assert taus[("a", "loss")] == pytest.approx(1.0)


def test_constant_scores_give_nan_with_a_note():
    table = agreement(_table({"a": BASE, "flat": np.full(5, 0.4)}))
    assert np.isnan(table["tau"].iloc[0]) and table["n_representations"].iloc[0] == 5
    assert table.attrs["notes"] == ["a vs flat: one of them is constant over the 5 common representations"]
    # its tau with itself is undefined too: the heat map drew 1 on the diagonal of a row hatched undefined
    assert table.attrs["constant"] == ["flat"]
    matrix = agreement_matrix(table)
    assert matrix.loc["a", "a"] == 1.0 and np.isnan(matrix.loc["flat", "flat"])


def test_a_constant_score_s_diagonal_is_undefined_in_the_report_s_heat_map(synthetic_results):
    from reports.report import _agreement_drawer
    from reports.verdicts.bundle import bundle_for

    flat = synthetic_results.loc[synthetic_results["metric"] == "step"].assign(metric="flat", sub_score="flat",
                                                                               score=0.5)
    bundle = bundle_for(pd.concat([synthetic_results, flat], ignore_index=True))
    drawn = _agreement_drawer(bundle)
    matrix = drawn.args[0]
    assert np.isnan(matrix.loc["flat", "flat"]) and matrix.loc["lin/modularity", "lin/modularity"] == 1.0


def test_matrix_is_symmetric_with_unit_diagonal():
    matrix = agreement_matrix(agreement(_table({"a": BASE, "c": -BASE, "d": BASE[[1, 0, 2, 3, 4]]})))
    assert list(matrix.index) == ["a", "c", "d"] and list(matrix.columns) == ["a", "c", "d"]
    np.testing.assert_allclose(matrix.to_numpy(), matrix.to_numpy().T)
    np.testing.assert_allclose(np.diag(matrix.to_numpy()), 1.0)
    assert matrix.loc["c", "d"] == pytest.approx(-0.8)


def test_only_common_representations_count():
    table = _table({"a": BASE, "b": BASE})
    table = table.loc[~((table["metric"] == "b") & (table["value"] == 0.0))]
    assert agreement(table)["n_representations"].item() == 4


def test_each_pair_reads_the_representations_both_scored_in_order():
    rng = np.random.default_rng(3)
    scores = {name: rng.random(12) for name in ("a", "b", "c")}
    table = _table(scores)
    gaps = {"a": [0, 5], "b": [5, 7, 8], "c": [1]}  # a value a metric did not score
    table = table.loc[~pd.Series([row.value * 4 in gaps[row.metric] for row in table.itertuples()], index=table.index)]
    found = agreement(table).set_index(["score_a", "score_b"])
    for first, second in (("a", "b"), ("a", "c"), ("b", "c")):
        both = [i for i in range(12) if i not in gaps[first] + gaps[second]]
        expected = stats.kendalltau(scores[first][both], scores[second][both])
        assert found.loc[(first, second), "n_representations"] == len(both)
        assert found.loc[(first, second), "tau"] == expected.statistic  # bit for bit: the same scores, in order
        assert found.loc[(first, second), "p_value"] == expected.pvalue


def test_not_enough_scores_or_representations():
    with pytest.raises(MissingDataError, match="at least two sub-scores"):
        agreement(_table({"a": BASE}))
    with pytest.raises(MissingDataError, match="at least 3 common representations"):
        agreement(_table({"a": BASE[:2], "b": BASE[:2]}))


def test_sub_scores_are_labelled_by_metric(synthetic_results):
    labels = set(agreement(synthetic_results)["score_a"]) | set(agreement(synthetic_results)["score_b"])
    assert {"lin/modularity", "lin/compactness", "lin/explicitness", "step", "uncal", "holo", "pid/unique_lower"} <= labels
