"""Categorical factors coded in separate, non-ordinal regions (review 2.2)."""

from __future__ import annotations

import numpy as np
import pytest

import scenarios
from scenarios.categorical import zigzag_slots


def test_same_seed_same_arrays():
    scenario = scenarios.get("categorical")
    first = scenario.generate(4, n=300, seed=0)
    again = scenario.generate(4, n=300, seed=0)
    other = scenario.generate(4, n=300, seed=1)
    assert np.array_equal(first.factors, again.factors) and np.array_equal(first.codes, again.codes)
    assert not np.array_equal(first.factors, other.factors)
    assert first.factors.shape == (300, 4) and first.codes.shape == (300, 4)
    assert first.discrete == (True,) * 4


def test_zigzag_slots():
    np.testing.assert_array_equal(zigzag_slots(2), [0, 1])
    np.testing.assert_array_equal(zigzag_slots(5), [0, 4, 1, 3, 2])
    np.testing.assert_array_equal(zigzag_slots(6), [0, 5, 1, 4, 2, 3])
    for c in range(3, 11):
        slots = zigzag_slots(c)
        assert sorted(slots) == list(range(c))
        steps = np.diff(slots)
        assert (steps > 0).any() and (steps < 0).any()  # not monotonic: non-ordinal


@pytest.mark.parametrize("n_categories", [2, 3, 4, 6, 8])
def test_each_category_owns_one_interval_and_is_read_off_exactly(n_categories):
    rep = scenarios.get("categorical").generate(n_categories, n=4000, seed=2)
    assert set(np.unique(rep.factors)) == set(range(n_categories))
    slots = zigzag_slots(n_categories)
    np.testing.assert_array_equal(np.floor(rep.codes), slots[rep.factors.astype(int)])
    assert np.all(rep.codes - np.floor(rep.codes) < 0.5)
    inverse = np.argsort(slots)
    np.testing.assert_array_equal(inverse[np.floor(rep.codes).astype(int)], rep.factors)
    assert rep.ideal == {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


def test_code_is_not_a_monotonic_function_of_the_category():
    rep = scenarios.get("categorical").generate(6, n=6000, seed=0)
    means = [rep.codes[rep.factors[:, 0] == c, 0].mean() for c in range(6)]
    np.testing.assert_allclose(means, zigzag_slots(6) + 0.25, atol=0.03)
    assert not (np.all(np.diff(means) > 0) or np.all(np.diff(means) < 0))


@pytest.mark.parametrize("n_categories", [1, 11, 3.5])
def test_bad_category_counts_are_refused(n_categories):
    with pytest.raises(ValueError, match=r"n_categories must be an integer in 2\.\.10"):
        scenarios.get("categorical").generate(n_categories, n=10, seed=0)
