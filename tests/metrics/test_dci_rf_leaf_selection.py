"""DCI-RF's choice of leaf size: the one-standard-error rule (version 3) against the best out-of-bag forest."""

from __future__ import annotations

import numpy as np
import pytest

import scenarios
from metrics._forest import Forest, _r2_standard_error
from metrics.dci_rf import dci_rf, selected_forest


def _forests(*scores_and_errors: tuple[float, float]) -> list[Forest]:
    return [Forest((), score, error) for score, error in scores_and_errors]


def test_one_se_keeps_the_largest_leaf_within_one_standard_error_of_the_best():
    forests = _forests((0.90, 0.02), (0.89, 0.01), (0.80, 0.01))
    assert selected_forest(forests, (1, 10, 100), "best") is forests[0]
    assert selected_forest(forests, (1, 10, 100), "one_se") is forests[1]  # 0.89 >= 0.90 - 0.02 > 0.80
    narrow = _forests((0.90, 0.005), (0.89, 0.01), (0.80, 0.01))
    assert selected_forest(narrow, (1, 10, 100), "one_se") is narrow[0]  # 0.89 < 0.90 - 0.005


def test_the_simplest_forest_is_the_largest_leaf_size_wherever_it_is_listed():
    forests = _forests((0.85, 0.0), (0.90, 0.1), (0.88, 0.0))
    assert selected_forest(forests, (100, 1, 10), "one_se") is forests[0]  # leaf 100, first in the list
    assert selected_forest(forests, (100, 1, 10), "best") is forests[1]


def test_equal_best_scores_keep_the_first_as_version_2_did():
    forests = _forests((0.9, 0.0), (0.9, 0.0))
    assert selected_forest(forests, (1, 10), "best") is forests[0]
    assert selected_forest(forests, (1, 10), "one_se") is forests[1]  # both within 0 of the best: the larger leaf


def test_r2_standard_error_by_hand():
    values = np.array([0.0, 1.0, 2.0, 3.0])  # sum of squares about the mean 5
    predictions = np.array([0.0, 1.0, 1.0, 3.0])  # squared errors 0, 0, 1, 0: sd 0.5
    assert _r2_standard_error(values, predictions, np.ones(4, bool)) == pytest.approx(0.5 * 2 / 5)
    # a row no tree left out does not count: squared errors 0, 1, 0, sd 1/sqrt(3), over sqrt(3) rows
    assert _r2_standard_error(values, predictions, np.array([False, True, True, True])) == pytest.approx(1 / 5)
    assert _r2_standard_error(np.ones(4), predictions, np.ones(4, bool)) == 0.0  # constant targets


def _mean_modularity(alpha: float, n_estimators: int, leaf_selection: str, seeds=(0, 1)) -> float:
    scores = []
    for seed in seeds:
        draw = scenarios.get("noise").generate(alpha, n=1000, seed=seed)
        scores.append(dci_rf(draw.factors, draw.codes, random_state=seed, n_estimators=n_estimators,
                             leaf_selection=leaf_selection)["modularity"])
    return float(np.mean(scores))


@pytest.mark.slow  # eight forests' calls at n = 1000: about 4 s, over the fast tier's bar
def test_on_noisy_codes_the_score_no_longer_follows_the_number_of_trees():
    """At noise alpha = 0.6 (n = 1000) forests of leaf sizes 1, 10 and 100 predict about equally well and score
    modularity about 0.14, 0.35 and 0.92: keeping the best one, more trees let the deeper forests win and modularity
    falls (0.89, 0.67 with 10, 20 trees over 6 seeds); the one-standard-error rule keeps the shallow one (0.92 both)."""
    best = [_mean_modularity(0.6, trees, "best") for trees in (10, 20)]
    one_se = [_mean_modularity(0.6, trees, "one_se") for trees in (10, 20)]
    assert best[0] - best[1] > 0.15
    assert abs(one_se[0] - one_se[1]) < 0.05
    assert min(one_se) > 0.85  # each code still holds one factor: modularity near its ideal, 1
