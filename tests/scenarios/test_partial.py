"""Partially measured factors (review 5.6)."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
import scenarios


def test_grid_runs_from_8_down_to_1():
    assert scenarios.get("partial").values == (8, 7, 6, 5, 4, 3, 2, 1)


def test_same_seed_same_arrays():
    scenario = scenarios.get("partial")
    first = scenario.generate(5, n=300, seed=2)
    again = scenario.generate(5, n=300, seed=2)
    other = scenario.generate(5, n=300, seed=3)
    assert np.array_equal(first.factors, again.factors) and np.array_equal(first.codes, again.codes)
    assert not np.array_equal(first.codes, other.codes)


def test_codes_do_not_change_as_fewer_factors_are_measured():
    scenario = scenarios.get("partial")
    full = scenario.generate(8, n=500, seed=7)
    np.testing.assert_array_equal(full.codes, full.factors)
    for k in scenario.values:
        rep = scenario.generate(k, n=500, seed=7)
        np.testing.assert_array_equal(rep.codes, full.codes)
        np.testing.assert_array_equal(rep.factors, full.codes[:, :k])
        assert rep.discrete == (False,) * k
        assert rep.ideal == {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


def test_single_factor_left_gives_the_documented_values():
    # The review's code gives NaN for MIG-sup and the Modularity score at k = 1.
    rep = scenarios.get("partial").generate(1, n=5000, seed=0)
    # MIG-sup: runner-up taken as 0, so 1/8 [ I(z_1; v_1)/H(v_1) + 7 x (bias ~ 0) ] ~ 1/8.
    assert metrics.evaluate("mig_sup", rep.factors, rep.codes)["mig_sup"] == pytest.approx(1 / 8, abs=0.01)
    # Modularity: eq. 7 is 0/0; a code scores 1 when its information with the factor exceeds
    # the 99.9% independence quantile (G-test), 0 otherwise.  Only z_1 does: 1/8 exactly.
    assert metrics.evaluate("modularity", rep.factors, rep.codes)["modularity"] == 1 / 8


@pytest.mark.parametrize("k", [0, 9, 2.5])
def test_k_outside_1_to_8_is_refused(k):
    with pytest.raises(ValueError, match=r"k must be an integer in 1\.\.8"):
        scenarios.get("partial").generate(k, n=10, seed=0)
