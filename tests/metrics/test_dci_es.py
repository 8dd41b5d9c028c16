"""DCI-ES explicitness and size (Eastwood et al. 2023)."""

from __future__ import annotations

import warnings

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


def test_a_tree_never_outgrows_one_leaf_per_training_row(rng):
    """Why the probes are grown with at most as many leaves as training rows: the same tree, node for node."""
    for n, decimals in ((150, None), (300, 1)):
        codes = rng.random((n, 3)) if decimals is None else np.round(rng.random((n, 3)), decimals)
        target = codes[:, 0] + 0.1 * rng.random(n)
        capped = DecisionTreeRegressor(max_leaf_nodes=n, random_state=3).fit(codes, target).tree_
        roomy = DecisionTreeRegressor(max_leaf_nodes=2**20, random_state=3).fit(codes, target).tree_
        for attribute in ("children_left", "children_right", "feature", "threshold", "value"):
            np.testing.assert_array_equal(getattr(capped, attribute), getattr(roomy, attribute))


@pytest.mark.parametrize("doublings", [40, 61])
def test_a_long_curve_costs_no_more_than_a_full_tree(rng, doublings):
    """Many doublings asked scikit-learn for 2**doublings leaves' worth of memory (a MemoryError); the trees stop at
    one leaf per training row, so every capacity past it repeats the full tree's loss."""
    factors = rng.random((200, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no int64 overflow in the node ids of the largest capacities
        curve = loss_capacity_curve(factors, factors + 0.1 * rng.random((200, 2)), max_capacity_doublings=doublings)
    assert curve.capacities[-1] == 2**doublings and curve.losses.shape == (2, doublings)
    # 150 training rows: capacity 2**8 = 256 is past the full tree
    np.testing.assert_array_equal(curve.losses[:, 8:], np.repeat(curve.losses[:, 7:8], doublings - 8, axis=1))
    assert np.isfinite(metrics.evaluate("dci_es", factors, factors, max_capacity_doublings=doublings)["explicitness"])


@pytest.mark.parametrize(("doublings", "error"), [(62, ValueError), (10**6, ValueError), (2**63 - 1, ValueError), (1, ValueError), (8.0, TypeError)])
def test_out_of_range_doublings_are_named(rng, doublings, error):
    values = rng.random((50, 2))
    with pytest.raises(error, match="max_capacity_doublings"):
        metrics.evaluate("dci_es", values, values, max_capacity_doublings=doublings)


@pytest.mark.parametrize(
    ("factors", "codes", "error", "message"),
    [
        (np.full((60, 2), np.nan), np.zeros((60, 2)), ValueError, r"factors contains 120 non-finite"),
        (np.random.default_rng(0).random((60, 2)), np.random.default_rng(1).random((59, 2)), ValueError, r"same number of rows"),
        (np.random.default_rng(0).random(60), np.random.default_rng(1).random((60, 2)), ValueError, r"factors must be a 2-D array"),
        (np.column_stack([np.random.default_rng(0).random(60), np.ones(60)]), np.random.default_rng(1).random((60, 2)),
         ValueError, r"factor 1 is constant"),
    ],
    ids=["nan", "mismatched rows", "1-D", "constant factor"],
)
def test_the_public_curve_validates_its_arrays(factors, codes, error, message):
    """README names loss_capacity_curve as public; it took mismatched rows and NaN silently, and lists or 1-D arrays
    failed with AttributeError or IndexError."""
    with pytest.raises(error, match=message):
        loss_capacity_curve(factors, codes)


def test_the_public_curve_reads_lists_as_arrays(rng):
    factors = rng.random((80, 2))
    codes = factors + 0.1 * rng.random((80, 2))
    from_lists = loss_capacity_curve(factors.tolist(), codes.tolist(), max_capacity_doublings=4)
    from_arrays = loss_capacity_curve(factors, codes, max_capacity_doublings=4)
    np.testing.assert_array_equal(from_lists.losses, from_arrays.losses)
