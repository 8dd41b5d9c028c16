"""The hand-grown forest of DCI-RF is scikit-learn's RandomForestRegressor, bit for bit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor

from metrics._forest import grow_forest


def _draws():
    """Shapes and data DCI-RF meets: continuous and tied codes, noisy and pure-noise targets, one code, few rows."""
    rng = np.random.default_rng(2026)
    for case in range(12):
        n, codes = int(rng.integers(20, 900)), int(rng.integers(1, 9))
        x = rng.standard_normal((n, codes))
        if case % 3 == 0:
            x = np.round(x, 1)  # ties between equally good thresholds
        y = x[:, 0] ** 2 + rng.random() * rng.standard_normal(n) if case % 4 else rng.random(n)
        yield case, x, y, rng.standard_normal((40, codes)), int(rng.integers(0, 2**31 - 1))


@pytest.mark.parametrize("leaf", [1, 10, 100])
def test_the_forest_is_scikit_learns_bit_for_bit(leaf):
    for case, x, y, x_test, seed in _draws():
        trees, bootstrap = 1 + (seed % 23), min(2 + seed % 2000, y.size)
        reference = RandomForestRegressor(n_estimators=trees, min_samples_leaf=leaf, max_features=1.0,
                                          max_samples=bootstrap, oob_score=True, random_state=seed, n_jobs=1)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Some inputs do not have OOB scores")
            reference.fit(x, y)
        forest = grow_forest(x, y, n_estimators=trees, min_samples_leaf=leaf, bootstrap_size=bootstrap, seed=seed)
        assert len(forest.trees) == trees
        assert forest.oob_score == reference.oob_score_, case
        assert np.array_equal(forest.importances(), reference.feature_importances_), case
        assert np.array_equal(forest.predict(x_test), reference.predict(x_test)), case


def test_a_forest_that_never_splits_has_no_importance_and_predicts_the_mean():
    x = np.random.default_rng(0).standard_normal((50, 3))
    y = np.full(50, 2.5)
    forest = grow_forest(x, y, n_estimators=4, min_samples_leaf=1, bootstrap_size=50, seed=1)
    assert np.array_equal(forest.importances(), np.zeros(3))
    assert np.array_equal(forest.predict(x[:5]), np.full(5, 2.5))


def test_the_out_of_bag_score_reads_each_row_from_the_trees_that_left_it_out():
    """A perfect code of a step target: every tree that left a row out predicts it exactly, so R² is 1 unless some
    row was drawn by every tree (then predicted 0, as scikit-learn counts it)."""
    rng = np.random.default_rng(3)
    x = rng.random((200, 1))
    y = (x[:, 0] > 0.5).astype(float)
    assert grow_forest(x, y, n_estimators=30, min_samples_leaf=1, bootstrap_size=200, seed=4).oob_score == 1.0
    single = grow_forest(x, y, n_estimators=1, min_samples_leaf=1, bootstrap_size=200, seed=4)
    assert single.oob_score < 0.5  # about 63% of the rows were drawn by the only tree and count as predicted 0


def test_the_public_estimator_grows_the_same_trees_where_the_compiled_builder_cannot_be_set_up(monkeypatch):
    """Another scikit-learn release whose compiled builder takes other arguments: the grower falls back to
    ``DecisionTreeRegressor.fit`` from the same seed, and the forest is the same bit for bit."""
    from metrics import _forest

    rng = np.random.default_rng(5)
    x, x_test = rng.standard_normal((300, 4)), rng.standard_normal((30, 4))
    y = x[:, 0] - np.sin(3 * x[:, 1]) + 0.3 * rng.standard_normal(300)
    compiled = grow_forest(x, y, n_estimators=6, min_samples_leaf=3, bootstrap_size=250, seed=11)

    def other_release(self, *args):
        raise TypeError("__cinit__() takes exactly 5 positional arguments (6 given)")

    monkeypatch.setattr(_forest._TreeGrower, "_grow_compiled", other_release)
    public = grow_forest(x, y, n_estimators=6, min_samples_leaf=3, bootstrap_size=250, seed=11)
    assert public.oob_score == compiled.oob_score
    assert np.array_equal(public.importances(), compiled.importances())
    assert np.array_equal(public.predict(x_test), compiled.predict(x_test))
    assert compiled.importances()[0] > 0.3  # the trees did split on the informative codes
