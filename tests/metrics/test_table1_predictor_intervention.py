"""The review's experiments for the predictor- and intervention-based metrics, at its size.

Zaidi et al. (2022): a perfect code and pure noise (section 5.2), the band-mixing
failure mode (5.3) and Table 1 (5.4, modular but not compact), all with N = 20000
samples and 10 bins, as in the review.  The data are built here, inline.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import metrics

N = 20_000
#: dci_gbt at the library's settings takes minutes (8000 boosted trees); its wiring is
#: checked here with 10 boosting stages on 2000 training points.
OPTIONS = {"dci_gbt": {"n_estimators": 10, "max_train": 2000}}
ALL = ("dci_lasso", "dci_rf", "dci_gbt", "explicitness", "sap", "z_diff", "z_min_var", "z_max_var", "irs")


def _score(name: str, factors: np.ndarray, codes: np.ndarray) -> dict[str, float]:
    seed = 0 if metrics.get(name).stochastic else None
    return metrics.evaluate(name, factors, codes, random_state=seed, **OPTIONS.get(name, {}))


def _flat(scores_by_metric: dict[str, dict[str, float]]) -> dict[str, float]:
    """``{"dci_rf.modularity": ..., "sap": ...}``."""
    return {(f"{m}.{s}" if s != m else m): v for m, scores in scores_by_metric.items() for s, v in scores.items()}


# --------------------------------------------------------------------------------------
# Section 5.2: z = v and codes independent of the factors (8 factors, N = 20000)
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def perfect_scores(uniform_factors_20k):
    return _flat({name: _score(name, uniform_factors_20k, uniform_factors_20k) for name in ALL})


@pytest.fixture(scope="module")
def noise_scores(uniform_factors_20k):
    noise = np.random.default_rng(520).random(uniform_factors_20k.shape)
    return _flat({name: _score(name, uniform_factors_20k, noise) for name in ALL})


#: Sub-scores the review reports below 1 on a perfect code, with the band they must fall in.
PERFECT_BELOW_ONE = {
    # samples of a bin still differ by up to half a bin: 1 - 1/bins exactly (review 5.2)
    "irs": (0.89, 0.91),
    # interior bins are intervals of the code, not separable by one linear score (review: about 0.94)
    "explicitness": (0.85, 0.97),
    # 10^7 cells for the 7 fixed factors: votes come from ~20 two-sample subsets per factor
    "z_max_var": (0.70, 0.95),
}


@pytest.mark.slow
def test_every_sub_score_is_one_on_a_perfect_code_except_the_documented_ceilings(perfect_scores):
    assert len(perfect_scores) == 3 * 3 + 6
    for key, value in perfect_scores.items():
        low, high = PERFECT_BELOW_ONE.get(key, (0.95, 1.0))
        assert low <= value <= high, f"{key} = {value:.4f}, expected in [{low}, {high}]"


#: Sub-scores the review reports (or theory predicts) above 0.1 on noise, and their band.
NOISE_ABOVE_ZERO = {
    # the L1 penalty leaves a few isolated weights, each on one factor: read evenly (the default since version 2),
    # the factors it zeroes spread over every code and the scores stay low (0.07 to 0.42 over 5 Gaussian draws, 8 x 8);
    # read as absent, as the review does, they are its "above 0.3" (test below)
    "dci_lasso.modularity": (0.0, 0.45),
    "dci_lasso.compactness": (0.0, 0.45),
    # votes from the same ~20 subsets train and evaluate the classifier (review: above 0)
    "z_max_var": (0.0, 0.2),
    # the library's raw accuracy: chance level is one bin in 10
    "dci_gbt.explicitness": (0.08, 0.12),
}


@pytest.mark.slow
def test_every_sub_score_is_near_zero_on_noise_except_the_documented_ones(noise_scores):
    assert len(noise_scores) == 3 * 3 + 6
    for key, value in noise_scores.items():
        low, high = NOISE_ABOVE_ZERO.get(key, (0.0, 0.1))
        assert low <= value <= high, f"{key} = {value:.4f}, expected in [{low}, {high}]"
    assert noise_scores["z_max_var"] > 0.0


def test_dci_lasso_on_noise_read_as_the_review_reads_it_stays_above_0_3(uniform_factors_20k):
    # review 5.2: DCI-lasso's modularity and compactness stay above 0.3 on noise, with the review's protocol (its fixed
    # grid cross-validated in 10 consecutive folds of all rows, the least error) and a zeroed factor left out of every
    # code's distribution: the isolated weights of its smaller penalties make every code look modular
    noise = np.random.default_rng(520).random(uniform_factors_20k.shape)
    scores = metrics.evaluate("dci_lasso", uniform_factors_20k, noise, random_state=0, unpredicted_factors="absent",
                              alpha_grid="review", selection_rows="all", folds=10, penalty_selection="min")
    assert scores["modularity"] > 0.3 and scores["compactness"] > 0.3


# --------------------------------------------------------------------------------------
# Section 5.3: band mixing z = v R, R cyclic with 1 - alpha on the diagonal, alpha next
# --------------------------------------------------------------------------------------


def _band(alpha: float, size: int = 8) -> np.ndarray:
    eye = np.eye(size)
    return (1.0 - alpha) * eye + alpha * np.roll(eye, 1, axis=1)


@pytest.mark.slow
def test_z_diff_ignores_band_mixing_while_dci_rf_modularity_falls(perfect_scores):
    factors = np.random.default_rng(53).random((5000, 8))
    mixed = factors @ _band(0.5)  # every code mixes two factors equally
    assert metrics.evaluate("z_diff", factors, mixed)["z_diff"] >= 0.9
    # unmixed, DCI-RF modularity is 1 (perfect_scores); a code shared equally by two
    # factors scores at best 1 - log_8 2 = 2/3
    assert perfect_scores["dci_rf.modularity"] > 0.95
    assert metrics.evaluate("dci_rf", factors, mixed)["modularity"] < 2 / 3


# --------------------------------------------------------------------------------------
# Section 5.4, Table 1: modular but not compact
# --------------------------------------------------------------------------------------


def _table1_cases() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(54)
    angles = rng.uniform(0, 2 * np.pi, (N, 4))
    cos_sin = np.column_stack([f(angles[:, k]) for k in range(4) for f in (np.cos, np.sin)])
    four = rng.uniform(0, 2 * np.pi, (N, 4))
    two = rng.uniform(0, 2 * np.pi, (N, 2))
    return {
        "cos_sin": (angles, cos_sin),  # theta -> [cos theta, sin theta]
        "duplicate_2": (four, np.repeat(four, 2, axis=1)),  # theta -> [theta, theta]
        "duplicate_4": (two, np.repeat(two, 4, axis=1)),  # theta -> [theta, theta, theta, theta]
    }


#: The review's Table 1, for the metrics of this module.
PUBLISHED = {
    "cos_sin": {
        "z_diff": 1.0, "z_min_var": 1.0, "z_max_var": 1.0, "irs": 0.8,
        "dci_lasso.modularity": 0.8, "dci_lasso.compactness": 1.0, "dci_lasso.explicitness": 0.6,
        "dci_rf.modularity": 1.0, "dci_rf.compactness": 0.7, "dci_rf.explicitness": 1.0,
        "explicitness": 1.0, "sap": 0.6,
    },
    "duplicate_2": {
        "z_diff": 1.0, "z_min_var": 1.0, "z_max_var": 1.0, "irs": 0.9,
        "dci_lasso.modularity": 1.0, "dci_lasso.compactness": 1.0, "dci_lasso.explicitness": 1.0,
        "dci_rf.modularity": 1.0, "dci_rf.compactness": 0.7, "dci_rf.explicitness": 1.0,
        "explicitness": 1.0, "sap": 0.0,
    },
    "duplicate_4": {
        "z_diff": 1.0, "z_min_var": 1.0, "z_max_var": 1.0, "irs": 0.9,
        "dci_lasso.modularity": 1.0, "dci_lasso.compactness": 1.0, "dci_lasso.explicitness": 1.0,
        "dci_rf.modularity": 1.0, "dci_rf.compactness": 0.4, "dci_rf.explicitness": 1.0,
        "explicitness": 1.0, "sap": 0.0,
    },
}  # fmt: skip
TABLE1_METRICS = ("z_diff", "z_min_var", "z_max_var", "irs", "dci_lasso", "dci_rf", "explicitness", "sap")


@pytest.fixture(scope="module")
def table1_scores():
    return {case: _flat({m: _score(m, *data) for m in TABLE1_METRICS}) for case, data in _table1_cases().items()}


CELLS = [(case, key) for case, row in PUBLISHED.items() for key in row]


@pytest.mark.slow
@pytest.mark.parametrize(("case", "key"), CELLS, ids=[f"{c}-{k}" for c, k in CELLS])
def test_table1_cell(table1_scores, case, key):
    value = table1_scores[case][key]
    if (case, key) == ("cos_sin", "dci_lasso.modularity"):
        # the published 0.8 comes from the review's code zeroing every code after the
        # first code of zero importance; the cos codes get (almost) no weight, every sin
        # code serves one factor
        assert value >= 0.9
        return
    assert value == pytest.approx(PUBLISHED[case][key], abs=0.1)


@pytest.mark.slow
def test_rf_compactness_follows_the_entropy_of_equal_importances(table1_scores):
    # importance split equally over c identical codes among L = 8: C = 1 - log_8 c
    assert table1_scores["duplicate_2"]["dci_rf.compactness"] == pytest.approx(1 - math.log(2, 8), abs=0.03)
    assert table1_scores["duplicate_4"]["dci_rf.compactness"] == pytest.approx(1 - math.log(4, 8), abs=0.03)
