"""Sample efficiency (review 5.7): prefixes of one 100k-row draw."""

from __future__ import annotations

import numpy as np
import pytest

import scenarios
from scenarios.sample_size import projection


def test_grid_and_draw_size():
    scenario = scenarios.get("sample_size")
    assert scenario.values == (100, 1000, 10000, 100000)
    assert scenario.default_n == 100000


def test_same_seed_same_arrays():
    scenario = scenarios.get("sample_size")
    first = scenario.generate(1000, n=100000, seed=4)
    again = scenario.generate(1000, n=100000, seed=4)
    other = scenario.generate(1000, n=100000, seed=5)
    assert np.array_equal(first.factors, again.factors) and np.array_equal(first.codes, again.codes)
    assert not np.array_equal(first.factors, other.factors)
    assert first.factors.shape == (1000, 8) and first.codes.shape == (1000, 8)


def test_smaller_samples_are_prefixes_of_the_largest():
    scenario = scenarios.get("sample_size")
    largest = scenario.generate(100000, n=100000, seed=11)
    for size in (100, 1000, 10000):
        rep = scenario.generate(size, n=100000, seed=11)
        np.testing.assert_array_equal(rep.factors, largest.factors[:size])
        np.testing.assert_array_equal(rep.codes, largest.codes[:size])
    # the prefix does not depend on how many rows were drawn behind it
    short = scenario.generate(100, n=1000, seed=11)
    np.testing.assert_array_equal(short.codes, largest.codes[:100])


def test_codes_are_v_times_the_seeded_sparse_projection():
    rep = scenarios.get("sample_size").generate(100, n=100, seed=21)
    matrix = projection(np.random.default_rng(21))
    np.testing.assert_allclose(rep.codes, rep.factors @ matrix, rtol=1e-12, atol=1e-15)
    assert rep.ideal == {}


def test_projection_entries_are_uniform_and_zero_with_probability_three_quarters():
    draws = np.stack([projection(np.random.default_rng(seed)) for seed in range(300)])
    zero = np.mean(draws == 0)
    assert abs(zero - 0.75) < 3 * np.sqrt(0.75 * 0.25 / draws.size)
    kept = draws[draws > 0]
    assert kept.max() < 1 and abs(kept.mean() - 0.5) < 3 * np.sqrt(1 / 12 / kept.size)


def test_fewer_rows_than_the_sample_size_is_refused():
    with pytest.raises(ValueError, match="n must be >= 1000"):
        scenarios.get("sample_size").generate(1000, n=500, seed=0)
