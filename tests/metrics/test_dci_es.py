"""DCI-ES explicitness and size (Eastwood et al. 2023)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.tree import DecisionTreeRegressor

import metrics
from metrics.dci_es import _prefix_predictions, _probe_losses, explicitness_from_curve, loss_capacity_curve


def test_tree_prefixes_are_the_smaller_trees(rng):
    codes = rng.normal(size=(1500, 4))
    target = np.sin(codes[:, 0]) + codes[:, 1] ** 2 + 0.3 * rng.normal(size=1500)
    big = DecisionTreeRegressor(max_leaf_nodes=64, random_state=0).fit(codes[:1000], target[:1000])
    capacities = np.array([2, 4, 8, 16, 32])
    prefixes = _prefix_predictions(big, codes[1000:], capacities)
    for row, leaves in zip(prefixes, capacities):
        small = DecisionTreeRegressor(max_leaf_nodes=int(leaves), random_state=0).fit(codes[:1000], target[:1000])
        np.testing.assert_array_equal(row, small.predict(codes[1000:]))


def test_identity_of_a_uniform_factor_matches_the_step_approximation():
    factors = np.random.default_rng(4).random((40_000, 1))
    # m equal leaves on U(0, 1): normalised loss 1/m^2, m = 2 .. 256; trapezoid over 7 steps
    losses = 1.0 / (2.0 ** np.arange(1, 9)) ** 2
    area = losses[0] / 2 + losses[1:-1].sum() + losses[-1] / 2
    expected = 1 - area / 3.5
    assert metrics.evaluate("dci_es", factors, factors)["explicitness"] == pytest.approx(expected, abs=0.005)


def test_independent_codes_sit_at_the_floor(rng):
    scores = metrics.evaluate("dci_es", rng.random((10_000, 2)), rng.random((10_000, 3)))
    assert -1.0 <= scores["explicitness"] < -0.95
    assert scores["size"] == pytest.approx(2 / 3)


def test_curve_and_score_from_a_given_curve(rng):
    factors = rng.random((4000, 2))
    curve = loss_capacity_curve(factors, factors + 0.1 * rng.normal(size=(4000, 2)), random_state=1, max_capacity_doublings=5)
    assert curve.capacities.tolist() == [2, 4, 8, 16, 32]
    assert curve.losses.shape == curve.running_minimum.shape == (2, 5)
    assert np.all(np.diff(curve.running_minimum, axis=1) <= 0)
    # a curve falling linearly from 1 to 0 scores 0; one already at 0 scores 1
    linear = type(curve)(curve.capacities, curve.losses, np.tile(np.linspace(1, 0, 5), (2, 1)))
    flat = type(curve)(curve.capacities, curve.losses, np.zeros((2, 5)))
    assert explicitness_from_curve(linear) == pytest.approx(0.0, abs=1e-12)
    assert explicitness_from_curve(flat) == pytest.approx(1.0, abs=1e-12)


def test_bad_reference_loss_is_named(rng):
    values = rng.random((50, 2))
    with pytest.raises(ValueError, match="reference_loss"):
        metrics.evaluate("dci_es", values, values, reference_loss=1.5)


def test_a_capacity_sweep_shares_one_fit_per_factor_with_the_same_scores(rng, monkeypatch):
    factors = rng.random((3000, 3))
    codes = factors @ rng.normal(size=(3, 4)) + 0.05 * rng.normal(size=(3000, 4))
    sweep = (2, 4, 6, 8)
    alone = {m: metrics.evaluate("dci_es", factors, codes, random_state=5, max_capacity_doublings=m) for m in sweep}
    fits = []
    original = DecisionTreeRegressor.fit
    monkeypatch.setattr(DecisionTreeRegressor, "fit", lambda self, *a, **k: fits.append(self.max_leaf_nodes) or original(self, *a, **k))
    with metrics.shared_estimates():
        shared = {m: metrics.evaluate("dci_es", factors, codes, random_state=5, max_capacity_doublings=m) for m in sweep}
    assert shared == alone
    assert fits == [256] * 3  # one tree per factor for the whole sweep
    # a generator's state moves on between calls: nothing is shared, every call fits its own trees
    with metrics.shared_estimates():
        for m in sweep[:2]:
            metrics.evaluate("dci_es", factors, codes, random_state=np.random.default_rng(5), max_capacity_doublings=m)
    assert len(fits) == 3 + 2 * 3
    # a lone call (no scope of the caller's) grows only the capacity it asks for
    fits.clear()
    assert metrics.evaluate("dci_es", factors, codes, random_state=5, max_capacity_doublings=4) == alone[4]
    assert fits == [16] * 3


def test_curves_cut_from_the_grown_trees_equal_curves_of_trees_grown_to_size(rng):
    factors = rng.random((2000, 2))
    codes = np.c_[factors + 0.1 * rng.normal(size=(2000, 2)), rng.random(2000)]
    for m in (2, 5, 8):
        curve = loss_capacity_curve(factors, codes, random_state=3, max_capacity_doublings=m)
        np.testing.assert_array_equal(curve.losses, _probe_losses(factors, codes, 3, m, 0.25))
