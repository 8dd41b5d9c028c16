"""A perfect code followed by dead codes (review 5.6, 6.2)."""

from __future__ import annotations

import numpy as np
import pytest

import scenarios


def test_same_seed_same_arrays():
    scenario = scenarios.get("dead_codes")
    first = scenario.generate(4, n=300, seed=0)
    again = scenario.generate(4, n=300, seed=0)
    other = scenario.generate(4, n=300, seed=1)
    assert np.array_equal(first.factors, again.factors) and np.array_equal(first.codes, again.codes)
    assert not np.array_equal(first.codes, other.codes)


def test_live_codes_are_the_factors_and_do_not_change_with_the_dead_count():
    scenario = scenarios.get("dead_codes")
    base = scenario.generate(0, n=400, seed=5)
    np.testing.assert_array_equal(base.codes, base.factors)
    for dead in scenario.values:
        rep = scenario.generate(dead, n=400, seed=5)
        assert rep.codes.shape == (400, 8 + dead)
        np.testing.assert_array_equal(rep.factors, base.factors)
        np.testing.assert_array_equal(rep.codes[:, :8], base.factors)
        assert rep.ideal == {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


def test_dead_codes_share_the_scale_and_inform_on_no_factor():
    rep = scenarios.get("dead_codes").generate(16, n=20000, seed=0)
    dead = rep.codes[:, 8:]
    assert dead.min() >= 0 and dead.max() < 1
    np.testing.assert_allclose(dead.var(axis=0), 1 / 12, atol=0.003)
    corr = np.corrcoef(rep.factors.T, dead.T)[:8, 8:]
    assert np.max(np.abs(corr)) < 0.03  # 3.5 standard errors at n = 20000
    # no factor is predictable from the dead codes: least-squares R^2 near 0
    design = np.hstack([dead, np.ones((dead.shape[0], 1))])
    fitted = design @ np.linalg.lstsq(design, rep.factors, rcond=None)[0]
    r2 = 1 - ((rep.factors - fitted) ** 2).sum(axis=0) / ((rep.factors - rep.factors.mean(axis=0)) ** 2).sum(axis=0)
    assert np.max(r2) < 0.005


@pytest.mark.parametrize("dead", [-1, 65, 1.5])
def test_bad_dead_counts_are_refused(dead):
    with pytest.raises(ValueError, match=r"n_dead must be an integer in 0\.\.64"):
        scenarios.get("dead_codes").generate(dead, n=10, seed=0)
