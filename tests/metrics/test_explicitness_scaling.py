"""Explicitness: code scaling (the review's min-max vs standardisation) and the rank AUC.

The fast path's scores are checked against scikit-learn's in tests/benchmarks/test_bench_explicitness.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from threadpoolctl import threadpool_limits

import metrics
import scenarios
from metrics.explicitness import _rank_auc
from scenarios.nonlinear import tan_map


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(limits=1):
        yield


def test_rank_auc_is_the_roc_area_with_ties_counted_half():
    positives = np.array([True, False, True, False, True, False])
    scores = np.array([0.9, 0.9, 0.5, 0.4, 0.3, 0.1])
    # pairs (positive, negative) won: 0.9 vs {0.9: 1/2, 0.4, 0.1} = 2.5; 0.5 vs {0.4, 0.1} = 2;
    # 0.3 vs {0.1} = 1; out of 9 pairs
    assert _rank_auc(positives, scores) == pytest.approx(5.5 / 9, abs=1e-15)
    rng = np.random.default_rng(0)
    for _ in range(20):
        labels = rng.random(500) < rng.uniform(0.05, 0.95)
        values = np.round(rng.normal(size=500), 1)  # many ties
        assert _rank_auc(labels, values) == pytest.approx(roc_auc_score(labels, values), abs=1e-14)


def test_minmax_scaling_is_standardisation_with_a_rescaled_penalty():
    # Both scalings are affine and the intercept is not penalised: with one code,
    # min-max scaling multiplies the standardised code by a = sd / range, and the fit
    # with C equals the standardised fit with C a^2 (w' = a w).
    rng = np.random.default_rng(3)
    factor = rng.random((5000, 1))
    code = tan_map(factor, 1.0)  # review eq. 10: flat in the middle, steep at both ends
    a = float(code.std() / np.ptp(code))
    minmax = metrics.evaluate("explicitness", factor, code, scaling="minmax")["explicitness"]
    standard = metrics.evaluate("explicitness", factor, code, C=a**2)["explicitness"]
    assert minmax == pytest.approx(standard, abs=1e-3)
    assert minmax < metrics.evaluate("explicitness", factor, code)["explicitness"] - 0.05


def test_minmax_scaling_lowers_the_tan_map_as_documented():
    tan = scenarios.get("nonlinear").generate(1.0, n=20000, seed=0)
    standard = metrics.evaluate("explicitness", tan.factors, tan.codes)["explicitness"]
    minmax = metrics.evaluate("explicitness", tan.factors, tan.codes, scaling="minmax")["explicitness"]
    assert standard == pytest.approx(0.66, abs=0.02)
    assert minmax == pytest.approx(0.51, abs=0.02)


def test_scaling_option_is_checked_and_registered():
    values = np.random.default_rng(1).random((200, 2))
    with pytest.raises(ValueError, match="scaling must be one of"):
        metrics.evaluate("explicitness", values, values, scaling="robust")
    assert metrics.get("explicitness").defaults["scaling"] == "standard"
