"""Predictor metrics on heavy-tailed codes and on pure noise at small n (issue: predictor metrics that respect
their own invariances).

* A tree splits on order, so a tree-based score must not see a strictly increasing map of the codes: the
  probes get the codes' ranks (:mod:`metrics._ranks`), and the scores agree bit for bit on ``v``,
  ``sinh(2 v^3)``, ``exp(v)`` and the ranks.  Min-max scaling cast to float32 merged the distinct values of
  ``sinh(2 v^3)`` (5, 56, 13, 3 and 4 of 1000 left) and DCI-RF's explicitness fell to 0.017.
* A linear probe follows the codes' units by definition: positive affine maps of a code leave it unchanged,
  the heavy-tailed map does not.
* Pure noise scores DCI's chance level at every seed, not 0 or 1 depending on whether a forest split on noise.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import metrics
from metrics._ranks import column_ranks
from metrics.registry import available, get

N = 1000

#: Options that make the slowest tree metric fast enough for CI; ranks make every option's score invariant.
FAST_OPTIONS = {"dci_gbt": {"n_estimators": 10, "bins": 4}, "dci_rf": {"n_estimators": 5}}

#: Tree-based variants of metrics whose defaults are not (their registry entries claim no monotone invariance).
TREE_VARIANTS = [("sap", {}, True), ("r2", {"regressor": "boosting"}, False)]


def _gaussian_factors(n: int = N) -> np.ndarray:
    return np.random.default_rng(0).standard_normal((n, 5))


def _monotone_codes(factors: np.ndarray) -> dict[str, np.ndarray]:
    """Strictly increasing maps of each factor, the heavy-tailed one of Joshi et al. (2026) among them."""
    return {"sinh(2 v^3)": np.sinh(2.0 * factors**3), "exp(v)": np.exp(factors), "ranks": column_ranks(factors)}


def _scores(name: str, factors: np.ndarray, codes: np.ndarray, discrete: bool = False, **options) -> dict[str, float]:
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        flags = [True] * factors.shape[1] if discrete else None
        return metrics.evaluate(name, factors, codes, discrete=flags, random_state=0, **options)


def test_heavy_tailed_codes_keep_every_distinct_value_for_the_forests():
    factors = _gaussian_factors()
    heavy = _monotone_codes(factors)["sinh(2 v^3)"]
    assert [np.unique(column).size for column in column_ranks(heavy).astype(np.float32).T] == [N] * 5
    scores = _scores("dci_rf", factors, heavy)  # the issue's case, at the default options
    assert scores["explicitness"] > 0.99  # 0.017 when the min-max scaled codes were cast to float32
    assert scores == _scores("dci_rf", factors, factors)


@pytest.mark.parametrize("name", [name for name in available() if "monotone" in get(name).invariances])
def test_a_monotone_map_leaves_a_tree_based_score_unchanged_bit_for_bit(name):
    factors = _gaussian_factors()
    options = FAST_OPTIONS.get(name, {})
    base = _scores(name, factors, factors, **options)
    for label, codes in _monotone_codes(factors).items():
        assert _scores(name, factors, codes, **options) == base, label


@pytest.mark.parametrize(("name", "options", "discrete"), TREE_VARIANTS)
def test_the_tree_variants_of_other_metrics_are_unchanged_too(name, options, discrete):
    codes = _gaussian_factors(400)
    factors = np.floor(codes * 2.0) if discrete else codes  # a few categories per factor, classified by SAP's trees
    base = _scores(name, factors, codes, discrete, **options)
    for label, mapped in _monotone_codes(codes).items():
        assert _scores(name, factors, mapped, discrete, **options) == base, label


@pytest.mark.parametrize("name", ["dci_lasso", "explicitness", "mcc", "r2", "sap"])
def test_a_linear_probe_follows_the_codes_units(name):
    # positive affine maps (not powers of two, shifted): unchanged but for round-off and solver tolerance
    factors = _gaussian_factors()
    codes = factors + 0.3 * np.random.default_rng(1).standard_normal(factors.shape)
    base = _scores(name, factors, codes)
    affine = _scores(name, factors, codes * np.array([3.0, 0.7, 11.0, 0.01, 1.3]) + np.array([5.0, -2.0, 0.5, 100.0, 0.0]))
    assert affine == pytest.approx(base, abs=1e-6)
    # a heavy-tailed map is not linear: the best linear prediction of v from sinh(2 v^3) explains far less
    heavy = _scores(name, factors, np.sinh(2.0 * codes**3))
    assert min(heavy[key] - base[key] for key in base) < -0.3


@pytest.mark.parametrize("seed", range(5))
def test_dci_rf_on_pure_noise_scores_near_its_chance_level_at_every_seed(seed):
    # Codes independent of 5 Gaussian factors at n = 100: most forests select the largest leaf and never split,
    # and one that splits on noise made every code's importance point at its factor (modularity 1) while the next
    # seed, with no split, gave 0 (0.0, 0.0, 0.649, 1.0, 1.0 over five seeds).  Read as spread evenly, a factor
    # no code predicts leaves the scores near 0, where large samples put them.
    rng = np.random.default_rng(seed)
    factors, codes = rng.standard_normal((100, 5)), rng.standard_normal((100, 5))
    scores = metrics.evaluate("dci_rf", factors, codes, random_state=seed)
    assert scores["modularity"] < 0.15
    assert scores["compactness"] < 0.15
    assert scores["explicitness"] < 0.1
