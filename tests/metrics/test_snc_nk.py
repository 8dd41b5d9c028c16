"""SNC and NK (Mahon, Sha and Lukasiewicz 2024)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

import metrics


def test_identity_and_independent_codes(rng):
    factors = rng.random((8000, 3))
    ideal = metrics.evaluate("snc_nk", factors, factors)
    assert ideal["snc"] > 0.98 and ideal["nk"] > 0.97
    floor = metrics.evaluate("snc_nk", factors, rng.random((8000, 3)))
    assert abs(floor["snc"]) < 0.03 and abs(floor["nk"]) < 0.03


def test_a_code_duplicated_twice_keeps_snc_and_loses_nk(rng):
    factors = rng.random((8000, 3))
    single = metrics.evaluate("snc_nk", factors, factors)
    duplicated = metrics.evaluate("snc_nk", factors, np.column_stack([factors, factors]))
    assert duplicated["snc"] == pytest.approx(single["snc"], abs=1e-12)
    assert duplicated["nk"] == pytest.approx(0.0, abs=0.01)


def test_a_noisy_binary_code_hand_computed(rng):
    n = 20_000
    bit = rng.integers(0, 2, n).astype(float)
    codes = np.column_stack([bit + 0.5 * rng.normal(size=n), rng.normal(size=n)])
    scores = metrics.evaluate("snc_nk", bit[:, None], codes, discrete=[True])
    # the median threshold at 1/2 errs when the noise exceeds 1/2 = one sd: accuracy Phi(1);
    # chance 1/2, so SNC = (Phi(1) - 1/2) / (1/2).  Without the code only chance is left: NK the same.
    expected = (norm.cdf(1.0) - 0.5) / 0.5
    assert scores["snc"] == pytest.approx(expected, abs=0.03)
    assert scores["nk"] == pytest.approx(expected, abs=0.03)


def test_bad_classifier_is_named(rng):
    values = rng.random((50, 2))
    with pytest.raises(ValueError, match="classifier"):
        metrics.evaluate("snc_nk", values, values, classifier="svm")


def test_a_rare_class_missing_from_the_training_rows_scores():
    """Class 7's one sample lands in the held-out part: the running sum of the training class frequencies
    then reaches 1 before the last class and, rounded, passed it, which numpy's quantile refused
    ("Quantiles must be in the range [0, 1]")."""
    rng = np.random.default_rng(394)
    rng.integers(20, 200), rng.integers(3, 12)  # the draw that found it: n = 68, 10 classes
    factors = np.floor(rng.random((68, 1)) ** 3 * 10)
    assert np.bincount(factors[:, 0].astype(int))[7] == 1
    scores = metrics.evaluate("snc_nk", factors, factors + rng.random((68, 1)), discrete=True)
    assert np.isfinite(list(scores.values())).all()
    assert scores["snc"] > 0.8


def test_a_factor_of_one_class_on_the_training_rows_is_named():
    """A binary factor whose one positive sample is held out: chance accuracy is 1 and SNC divided by zero
    (ZeroDivisionError); it is now the ValueError explicitness gives in the same case."""
    rng = np.random.default_rng(1)
    factors = np.column_stack([np.zeros(40), rng.random(40)])
    factors[7, 0] = 1.0
    codes = factors + 0.05 * rng.random((40, 2))
    held_out = [seed for seed in range(12) if _raises(factors, codes, seed)]
    assert held_out, "no seed held the positive sample out"
    with pytest.raises(ValueError, match="snc_nk: factor 0 takes a single class in the training split"):
        metrics.evaluate("snc_nk", factors, codes, discrete=[True, False], random_state=held_out[0])


def _raises(factors, codes, seed):
    try:
        metrics.evaluate("snc_nk", factors, codes, discrete=[True, False], random_state=seed)
    except (ValueError, ZeroDivisionError):
        return True
    return False


def test_snc_is_invariant_to_a_decreasing_map_of_its_code_with_uneven_classes(rng):
    # squared uniform factors: the 10 equal-width classes hold from 32 % down to 3 % of the rows, so bins
    # sized in class order from the code's low end misplace every edge of a code that falls as v rises
    factors = rng.random((5000, 2)) ** 2
    rising = metrics.evaluate("snc_nk", factors, factors, random_state=3)
    assert rising["snc"] > 0.99
    for falling in (-factors, np.exp(-3.0 * factors)):  # a sign flip, and a decreasing nonlinear map
        flipped = metrics.evaluate("snc_nk", factors, falling, random_state=3)
        assert flipped["snc"] == pytest.approx(rising["snc"], abs=1e-12)



def test_the_unchecked_tree_fit_is_the_checked_one():
    """NK's tree is fitted on float32 ranks without scikit-learn's input checks: the held-out accuracy is the checked
    fit's on the float64 ranks, at every leaf budget and with tied codes."""
    from sklearn.tree import DecisionTreeClassifier

    from metrics._ranks import column_ranks
    from metrics.snc_nk import _classifier_accuracy

    rng = np.random.default_rng(8)
    codes = np.round(rng.standard_normal((600, 5)), 1)
    labels = (codes[:, 0] + 0.5 * codes[:, 1] + 0.5 * rng.standard_normal(600) > 0).astype(int) + (codes[:, 2] > 1)
    ranked = column_ranks(codes)
    train, test = np.arange(450), np.arange(450, 600)
    for leaves in (2, 5, 40):
        checked = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=3).fit(ranked[train], labels[train])
        expected = float(np.mean(checked.predict(ranked[test]) == labels[test]))
        split = (ranked[train], ranked[test])
        assert _classifier_accuracy("tree", split, labels, train, test, leaves, 3) == expected
        assert expected > 0.6  # the tree learned something: the comparison is not of two chance accuracies
