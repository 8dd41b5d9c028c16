"""DCI-RF's scores are those of scikit-learn's ``RandomForestRegressor`` fitted plainly, bit for bit.

The reference below scores DCI-RF as its docstring defines it, with one ``RandomForestRegressor`` per factor and
leaf size (``max_samples``, ``oob_score=True``), the kept forest's ``feature_importances_`` and ``predict``: the
best out-of-bag one, or the one of largest leaf size within one standard error of it
(:mod:`tests.metrics.forest_reference`); :func:`metrics.dci_rf.dci_rf` grows the same forests tree by tree
(:mod:`metrics._forest`: each tree given only the rows its bootstrap drew, its predictions read off ``tree_``).  The draws have more training rows than
a tree's bootstrap (as at the paper preset's n = 20000, where a bootstrap of 2000 draws about 1740 of 15000 rows), so
the trees' rows are a real subset of the training rows; some codes are tied and one factor is discrete.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor

from metrics._dci import regression_explicitness, run_dci, unit_range
from metrics._ranks import column_ranks
from metrics.dci_rf import dci_rf
from tests.metrics.forest_reference import kept_forest


def reference_dci_rf(factors: np.ndarray, codes: np.ndarray, *, random_state: int, n_estimators: int,
                     leaf_sizes: tuple[int, ...], tree_samples: int, leaf_selection: str) -> dict[str, float]:
    """DCI-RF with scikit-learn's forests, fitted and read through their public interface."""

    def fit(codes_train, target, codes_test, seed):
        forests = []
        for leaf in leaf_sizes:
            forest = RandomForestRegressor(n_estimators=n_estimators, min_samples_leaf=leaf, max_features=1.0,
                                           max_samples=min(tree_samples, target.size), oob_score=True,
                                           random_state=seed, n_jobs=1)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message="Some inputs do not have OOB scores")
                forests.append(forest.fit(codes_train, target))
        kept = kept_forest(forests, target, leaf_selection)
        return kept.feature_importances_, kept.predict(codes_test)

    return run_dci(column_ranks(codes), unit_range(factors), fit, regression_explicitness("mean"), test_size=0.25,
                   random_state=random_state, completeness_weighting="importance", unpredicted_factors="even", n_jobs=1,
                   metric="dci_rf")


def _draw(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """3 factors (the last discrete) and 4 codes: a noisy copy, a mixture, a quantised copy (ties), pure noise."""
    rng = np.random.default_rng(seed)
    n = 400
    factors = rng.random((n, 3))
    factors[:, 2] = np.floor(4 * factors[:, 2])
    codes = np.column_stack([factors[:, 0] + 0.05 * rng.standard_normal(n),
                             factors[:, 1] - 0.5 * factors[:, 0] + 0.1 * rng.standard_normal(n),
                             np.round(2 * factors[:, 2] + rng.standard_normal(n)),
                             rng.standard_normal(n)])
    return factors, codes


#: Leaf sizes a bootstrap of 60 rows can split at (a leaf of 100 cannot), close enough for the two selection rules to
#: keep different forests on one of the draws (the last test).
LEAF_SIZES = (1, 5, 20)


@pytest.mark.parametrize("leaf_selection", ["one_se", "best"])
@pytest.mark.parametrize("seed", [0, 1])
def test_dci_rf_is_scikit_learns_random_forest_bit_for_bit(seed, leaf_selection):
    factors, codes = _draw(seed)
    options = {"n_estimators": 4, "leaf_sizes": LEAF_SIZES, "tree_samples": 60,  # 60 of 300 training rows per tree
               "leaf_selection": leaf_selection}
    scores = dci_rf(factors, codes, random_state=seed, **options)
    assert scores == reference_dci_rf(factors, codes, random_state=seed, **options)
    assert scores["explicitness"] > 0.3  # the forests predict: the comparison is not of empty forests


def test_the_two_selections_keep_different_forests_on_these_draws():
    """The comparison above is not vacuous: on one of its draws the rules keep different forests."""
    options = {"n_estimators": 4, "leaf_sizes": LEAF_SIZES, "tree_samples": 60}
    assert any(dci_rf(*_draw(seed), random_state=seed, leaf_selection="one_se", **options)
               != dci_rf(*_draw(seed), random_state=seed, leaf_selection="best", **options) for seed in (0, 1))
