"""The review's Figure 8 (partially measured factors, 5.6) and Figure 7 (tan map, 5.5).

Figure 8: on a perfect code of 8 factors of which only k are measured, MIG-sup and the
Modularity score fall as k falls, while MIG and DCI stay at their maximum.
Figure 7: DCI lasso explicitness falls as the factor-code relation becomes nonlinear,
while its modularity and compactness stay high (the map is monotonic).
"""

from __future__ import annotations

import numpy as np
import pytest

import metrics
import scenarios

PARTIAL = scenarios.get("partial")
NONLINEAR = scenarios.get("nonlinear")


def _scores(metric: str, k: int, n: int, **options) -> dict[str, float]:
    rep = PARTIAL.generate(k, n=n, seed=0)
    return metrics.evaluate(metric, rep.factors, rep.codes, **options)


def test_figure_8_mig_sup_falls_as_k_over_8_and_mig_stays():
    mig = [_scores("mig", k, 5000)["mig"] for k in PARTIAL.values]
    mig_sup = [_scores("mig_sup", k, 5000)["mig_sup"] for k in PARTIAL.values]
    assert min(mig) > 0.99
    # each measured factor's code keeps its gap (~1), each unmeasured factor's code has ~0
    np.testing.assert_allclose(mig_sup, np.array(PARTIAL.values) / 8, atol=0.01)


def test_figure_8_modularity_score_falls_until_one_factor_is_left():
    modularity = [_scores("modularity", k, 5000)["modularity"] for k in PARTIAL.values[:-1]]  # k = 8 .. 2
    assert modularity[0] > 0.99
    assert np.all(np.diff(modularity) < 0)
    assert modularity[-1] < 0.5


@pytest.mark.parametrize("k", [8, 4, 1])
def test_figure_8_dci_random_forest_stays(k):
    scores = _scores("dci_rf", k, 1000, random_state=0)
    assert min(scores.values()) > 0.95, scores


def test_figure_8_dci_lasso_stays():
    for k in PARTIAL.values:
        scores = _scores("dci_lasso", k, 1000, random_state=0)
        assert min(scores.values()) > 0.97, (k, scores)


@pytest.mark.slow
def test_figure_7_dci_lasso_explicitness_falls_with_the_tan_map():
    results = []
    for alpha in NONLINEAR.values:
        rep = NONLINEAR.generate(alpha, n=2000, seed=0)
        results.append(metrics.evaluate("dci_lasso", rep.factors, rep.codes, random_state=0))
    explicitness = np.array([r["explicitness"] for r in results])
    assert explicitness[0] > 0.98
    assert np.all(np.diff(explicitness) <= 1e-3)
    assert explicitness[-1] < 0.75
    assert explicitness[0] - explicitness[-1] > 0.25
    # monotonic map: the lasso still finds the right code for each factor
    assert min(min(r["modularity"], r["compactness"]) for r in results) > 0.9
