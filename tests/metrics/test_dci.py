"""DCI (Eastwood and Williams 2018; Zaidi et al. 2022, 4.3.1): aggregation, explicitness, the three predictors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import metrics
from metrics._dci import attributed, completeness, disentanglement, regression_explicitness

DCI = ("dci_lasso", "dci_rf", "dci_gbt")
FAST = {"dci_lasso": {}, "dci_rf": {"n_estimators": 5}, "dci_gbt": {"n_estimators": 5}}


def _entropy(*p: float) -> float:
    return -sum(x * math.log(x) for x in p if x > 0)


# --------------------------------------------------------------------------------------
# Aggregation of an importance matrix (rows: codes, columns: factors), by hand
# --------------------------------------------------------------------------------------


def test_identity_importance_is_perfect_and_uniform_importance_is_zero():
    assert disentanglement(np.eye(3)) == pytest.approx(1.0)
    assert completeness(np.eye(3)) == pytest.approx(1.0)
    assert disentanglement(np.ones((3, 3))) == pytest.approx(0.0, abs=1e-12)
    assert completeness(np.ones((3, 3))) == pytest.approx(0.0, abs=1e-12)


def test_a_code_shared_by_two_factors():
    # code 0 matters equally for both factors, code 1 only for factor 1
    importance = np.array([[1.0, 1.0], [0.0, 1.0]])
    # D_0 = 0, D_1 = 1, weights rho = (2/3, 1/3)
    assert disentanglement(importance) == pytest.approx(1 / 3)
    # C_factor0 = 1 (one code), C_factor1 = 0 (two codes equally); factor weights (1/3, 2/3)
    assert completeness(importance, "importance") == pytest.approx(1 / 3)
    assert completeness(importance, "uniform") == pytest.approx(1 / 2)


def test_a_dead_code_does_not_zero_the_later_codes():
    # the review's code stops at the first code of zero importance: codes after it score 0
    importance = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    assert disentanglement(importance) == pytest.approx(1.0)
    assert completeness(importance) == pytest.approx(1.0)


def test_log_bases_follow_the_numbers_of_factors_and_codes():
    # three factors, one code spread 1/2, 1/4, 1/4: D = 1 - H / log 3
    importance = np.array([[0.5, 0.25, 0.25]])
    assert disentanglement(importance) == pytest.approx(1 - _entropy(0.5, 0.25, 0.25) / math.log(3))
    # a single code cannot be spread: C = 1 for every factor
    assert completeness(importance) == pytest.approx(1.0)


def test_a_single_factor_gives_modularity_one_and_entropy_based_compactness():
    importance = np.array([[0.3], [0.7]])
    assert disentanglement(importance) == pytest.approx(1.0)
    assert completeness(importance) == pytest.approx(1 - _entropy(0.3, 0.7) / math.log(2))


def test_no_importance_at_all_scores_zero():
    assert disentanglement(np.zeros((3, 2))) == 0.0
    assert completeness(np.zeros((3, 2))) == 0.0
    with pytest.raises(ValueError, match="completeness_weighting"):
        completeness(np.zeros((3, 2)), "equal")


def test_a_factor_no_code_is_important_for_is_spread_evenly_with_the_mean_total():
    # factor 1 gets nothing; factor 0's total is 3 + 1 = 4, so factor 1 reads as 2 and 2: R = [[3, 2], [1, 2]]
    importance = np.array([[3.0, 0.0], [1.0, 0.0]])
    assert np.array_equal(attributed(importance), [[3.0, 2.0], [1.0, 2.0]])
    code_scores = [1 - _entropy(3 / 5, 2 / 5) / math.log(2), 1 - _entropy(1 / 3, 2 / 3) / math.log(2)]
    assert disentanglement(importance) == pytest.approx(5 / 8 * code_scores[0] + 3 / 8 * code_scores[1])
    factor_0 = 1 - _entropy(3 / 4, 1 / 4) / math.log(2)  # factor 1 is even over the codes: 0
    assert completeness(importance, "importance") == pytest.approx(factor_0 / 2)
    assert completeness(importance, "uniform") == pytest.approx(factor_0 / 2)


def test_read_as_absent_an_unpredicted_factor_leaves_the_codes_distributions():
    importance = np.array([[1.0, 0.0], [0.0, 0.0]])  # factor 1 predicted by nothing
    assert disentanglement(importance, "absent") == 1.0  # code 0 serves factor 0 alone; code 1 does not count
    assert completeness(importance, "importance", "absent") == pytest.approx(1.0)
    assert completeness(importance, "uniform", "absent") == pytest.approx(0.5)
    with pytest.raises(ValueError, match="unpredicted_factors"):
        disentanglement(importance, "dropped")


def test_an_unpredicted_factor_no_longer_leaves_every_code_looking_modular():
    # one factor fitted (to noise, say), four with no importance: read literally every code would serve factor 0
    # alone and score 1; read evenly, each code's importance is mostly the four even shares
    importance = np.zeros((5, 5))
    importance[:, 0] = [0.4, 0.3, 0.1, 0.1, 0.1]
    assert disentanglement(importance) < 0.1
    assert completeness(importance) < 0.1


@pytest.mark.parametrize("n", [100, 200])
def test_dci_lasso_on_pure_noise_does_not_jump_to_one_by_seed(n):
    # Codes independent of 5 Gaussian factors: the penalty zeroes most factors' weights and leaves a few isolated
    # ones.  Read as absent, those made every code look modular: modularity 0.0 to 1.0 by seed, median 0.87 at
    # n = 100 and 1.00 at n = 200 (20 seeds).  Read evenly (version 2), no seed comes near 1.
    modularity, compactness = [], []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        scores = metrics.evaluate("dci_lasso", rng.standard_normal((n, 5)), rng.standard_normal((n, 5)), random_state=seed)
        modularity.append(scores["modularity"])
        compactness.append(scores["compactness"])
    assert max(modularity) < 0.6 and np.median(modularity) < 0.3, modularity
    assert max(compactness) < 0.7 and np.median(compactness) < 0.3, compactness


# --------------------------------------------------------------------------------------
# Held-out explicitness and its two baselines
# --------------------------------------------------------------------------------------


def test_explicitness_baselines_on_known_predictions():
    targets = (np.arange(10_000) + 0.5) / 10_000  # uniform on [0, 1], variance 1/12
    mean_prediction = np.full_like(targets, targets.mean())
    guess = np.random.default_rng(0).random(targets.size)  # an independent uniform guess, MSE 1/6
    mean_baseline, guess_baseline = regression_explicitness("mean"), regression_explicitness("random_guess")
    assert mean_baseline(targets, targets) == 1.0 and guess_baseline(targets, targets) == 1.0
    assert mean_baseline(targets, mean_prediction) == pytest.approx(0.0, abs=1e-12)
    assert guess_baseline(targets, mean_prediction) == pytest.approx(0.5, abs=1e-6)
    assert guess_baseline(targets, guess) == pytest.approx(0.0, abs=0.03)
    assert mean_baseline(targets, guess) == 0.0  # 1 - 2 clipped
    half = 0.5 * targets + 0.25  # R^2 = 1 - Var(0.5 v) / Var(v) = 0.75
    assert mean_baseline(targets, half) == pytest.approx(0.75, abs=1e-6)
    assert guess_baseline(targets, half) == pytest.approx(0.5 + 0.5 * 0.75, abs=1e-6)
    with pytest.raises(ValueError, match="explicitness_baseline"):
        regression_explicitness("uniform")


def test_lasso_on_cos_sin_matches_the_best_linear_prediction_of_an_angle():
    # theta ~ U(0, 2 pi): only sin correlates, Cov(theta, sin) = -1, Var(sin) = 1/2,
    # Var(theta) = pi^2 / 3, so R^2 = 2 / (pi^2 / 3) = 6 / pi^2 = 0.608 (review Table 1: 0.6)
    rng = np.random.default_rng(7)
    angles = rng.uniform(0, 2 * np.pi, (20_000, 4))
    codes = np.column_stack([f(angles[:, k]) for k in range(4) for f in (np.cos, np.sin)])
    r2 = 6 / np.pi**2
    scores = metrics.evaluate("dci_lasso", angles, codes, random_state=1)
    assert scores["explicitness"] == pytest.approx(r2, abs=0.02)
    written = metrics.evaluate("dci_lasso", angles, codes, random_state=1, explicitness_baseline="random_guess")
    assert written["explicitness"] == pytest.approx(0.5 + 0.5 * r2, abs=0.02)
    # lasso leaves the cos codes (almost) unused: each sin code serves one factor
    assert scores["compactness"] > 0.9 and scores["modularity"] > 0.9


# --------------------------------------------------------------------------------------
# The three predictors end to end (small data; the review's protocol is in
# test_table1_predictor_intervention.py)
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_perfect():
    factors = np.random.default_rng(11).random((1500, 3))
    return factors, factors[:, [2, 0, 1]]


@pytest.mark.parametrize("name", DCI)
def test_permuted_perfect_code_scores_one(name, small_perfect):
    scores = metrics.evaluate(name, *small_perfect, random_state=0, **FAST[name])
    assert set(scores) == {"modularity", "compactness", "explicitness"}
    assert scores["modularity"] > 0.97 and scores["compactness"] > 0.97
    assert scores["explicitness"] > 0.95


@pytest.mark.parametrize("name", DCI)
def test_seeded_runs_repeat_exactly_and_a_generator_equals_its_seed(name, small_perfect):
    factors, codes = small_perfect
    noisy = codes + 0.3 * np.random.default_rng(2).random(codes.shape)
    first = metrics.evaluate(name, factors, noisy, random_state=4, **FAST[name])
    assert first == metrics.evaluate(name, factors, noisy, random_state=4, **FAST[name])
    assert first == metrics.evaluate(name, factors, noisy, random_state=np.random.default_rng(4), **FAST[name])


@pytest.mark.slow
def test_parallel_factors_give_the_same_scores(small_perfect):
    factors, codes = small_perfect
    noisy = codes + 0.3 * np.random.default_rng(3).random(codes.shape)
    serial = metrics.evaluate("dci_lasso", factors, noisy, random_state=5)
    assert metrics.evaluate("dci_lasso", factors, noisy, random_state=5, n_jobs=2) == serial


@pytest.mark.parametrize("name", DCI)
def test_a_constant_factor_is_named(name, small_perfect):
    factors, codes = small_perfect
    factors = factors.copy()
    factors[:, 1] = 3.0
    with pytest.raises(ValueError, match="factor 1 is constant"):
        metrics.evaluate(name, factors, codes, **FAST[name])


def test_codes_of_nothing_have_no_importance():
    factors = np.random.default_rng(0).random((400, 2))
    scores = metrics.evaluate("dci_lasso", factors, np.ones((400, 3)))
    assert scores == {"modularity": 0.0, "compactness": 0.0, "explicitness": 0.0}  # exactly: no importance at all


def test_gbt_classifies_discrete_factors_and_reports_accuracy():
    rng = np.random.default_rng(8)
    factors = rng.integers(0, 4, (1200, 2)).astype(float)
    # the jitter takes 5 values, so every held-out code value is some training value's: the trees, which split on
    # the codes' order, classify it as its training twins (a held-out value between two training values would
    # be sent by the threshold halfway between their ranks)
    jitter = 0.02 * rng.integers(0, 5, 1200)
    codes = np.column_stack([factors[:, 1] + jitter, rng.random(1200), factors[:, 0]])
    scores = metrics.evaluate("dci_gbt", factors, codes, discrete=True, n_estimators=10, random_state=0)
    assert scores["explicitness"] == pytest.approx(1.0)
    # the noise code gets almost no importance: each used code serves one factor
    assert scores["modularity"] > 0.95
    assert scores["compactness"] > 0.9


@pytest.mark.parametrize(("n", "folds", "train"), [(4, 5, 3), (5, 5, 4), (60, 46, 45)])
def test_dci_lasso_with_fewer_training_samples_than_folds_is_named(n, folds, train):
    """The penalty's cross-validation runs on the training part: a scikit-learn error about n_splits was what users saw."""
    rng = np.random.default_rng(0)
    factors = rng.random((n, 2))
    codes = factors + 0.1 * rng.random((n, 2))
    with pytest.raises(ValueError, match=rf"dci_lasso: {folds}-fold cross-validation on the training part needs at least "
                                         rf"{folds} training samples; got {train} \(n = {n}, test_size = 0.25\)"):
        metrics.evaluate("dci_lasso", factors, codes, folds=folds)


def test_dci_lasso_with_as_many_training_samples_as_folds_scores():
    rng = np.random.default_rng(0)
    factors = rng.random((60, 2))
    assert set(metrics.evaluate("dci_lasso", factors, factors + 0.1 * rng.random((60, 2)), folds=45)) == {"modularity", "compactness", "explicitness"}


def test_registered_metadata():
    for name in DCI:
        spec = metrics.get(name)
        assert spec.family == "predictor" and spec.stochastic
        assert dict(spec.properties) == {"modularity": "modularity", "compactness": "compactness", "explicitness": "explicitness"}
    assert metrics.get("dci_gbt").needs_discrete_factors
