"""Every scenario and transform generates at any value its ``check_value`` accepts, not only on its grid.

The stress search draws parameter values anywhere in a scenario's range (``stress z_diff`` died at
``synergy_attack``'s alpha = 14.02, whose explicitness ideal, exactly 1, was computed as 1.000000000001).
Here hypothesis draws values across each registered scenario's and transform's whole range, as
``check_value`` states it (the attacks accept alpha up to 1000, far beyond their grid's 8), compositions
included, and generates each at a small n (or the sample size the scenario fixes): nothing may raise, every ideal lies in [0, 1] and every code
is finite.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scenarios
from scenarios import base

#: Largest magnitude probed for a range that ``check_value`` leaves open.
FURTHEST = 1e6
SEARCH = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def _accepted(check, value) -> bool:
    try:
        check(value)
    except (TypeError, ValueError):
        return False
    return True


def _end(check, inside: float, direction: int, width: float, integer: bool) -> float:
    """The furthest value from ``inside`` (accepted) in ``direction`` that ``check`` accepts (up to :data:`FURTHEST`)."""
    step = width
    while abs(inside + direction * step) <= FURTHEST and _accepted(check, inside + direction * step):
        step *= 4
    outside = inside + direction * step
    accepted = inside + direction * step / 4 if step > width else inside
    if abs(outside) > FURTHEST:
        return float(np.clip(outside, -FURTHEST, FURTHEST)) if _accepted(check, np.clip(outside, -FURTHEST, FURTHEST)) else accepted
    for _ in range(60):  # bisect between the last accepted and the first refused value
        middle = (accepted + outside) / 2
        middle = math.floor(middle) if integer and direction > 0 else math.ceil(middle) if integer else middle
        if middle in (accepted, outside):
            break
        accepted, outside = (middle, outside) if _accepted(check, middle) else (accepted, middle)
    return accepted


def _values(scenario) -> st.SearchStrategy:
    """Values across the whole range ``scenario.check_value`` accepts (its grid's choices for text)."""
    grid = tuple(scenario.values)
    if all(isinstance(value, str) for value in grid):
        return st.sampled_from(grid)
    integer = all(isinstance(value, (int, np.integer)) and not isinstance(value, bool) for value in grid)
    low, high = min(grid), max(grid)
    width = (high - low) or 1
    low = _end(scenario.check_value, low, -1, width, integer)
    high = _end(scenario.check_value, high, +1, width, integer)
    if integer:
        return st.integers(int(low), int(high))
    return st.floats(low, high, allow_nan=False)


@functools.cache
def _registered_values(name: str) -> st.SearchStrategy:
    return _values(scenarios.get(name))


def _check_generates(scenario, value, n: int, seed: int) -> None:
    """Generate at ``n`` samples (or the scenario's own ``default_n``, at which a study runs it)."""
    n = scenario.default_n if scenario.default_n is not None else max(n, scenario.min_samples)
    drawn = scenario.generate(value, n=n, seed=seed)
    members = getattr(drawn, "members", None)
    for codes in members if members is not None else (drawn.codes,):
        assert np.isfinite(codes).all(), f"{scenario.name} at {value!r}: non-finite codes"
    assert np.isfinite(drawn.factors).all(), f"{scenario.name} at {value!r}: non-finite factors"
    if scenario.kind == "representation":
        assert all(0.0 <= score <= 1.0 for score in drawn.ideal.values()), (scenario.name, value, dict(drawn.ideal))


@SEARCH
@given(data=st.data(), name=st.sampled_from(scenarios.available(kind=None)), n=st.integers(2, 60),
       seed=st.integers(0, 2**32 - 1))
def test_every_registered_scenario_generates_anywhere_in_its_range(data, name, n, seed):
    value = data.draw(_registered_values(name), label="value")
    _check_generates(scenarios.get(name), value, n, seed)


@SEARCH
@given(data=st.data(), transforms=st.lists(st.sampled_from(scenarios.available_transforms()), min_size=1, max_size=2),
       base=st.sampled_from(scenarios.available(kind="representation")), n=st.integers(2, 60),
       seed=st.integers(0, 2**32 - 1))
@pytest.mark.slow
def test_every_transform_composes_and_generates_anywhere_in_its_range(data, transforms, base, n, seed):
    composed = scenarios.get(base)
    for transform in transforms:  # a base held anywhere in its range, then a transform (of a composition too)
        held = data.draw(_values(composed), label=f"{composed.name}'s value")
        composed = scenarios.compose(transform, composed, held)
    value = data.draw(_values(composed), label=f"{composed.name}'s value")
    _check_generates(composed, value, n, seed)


def test_the_synergy_attack_generates_where_its_explicitness_rounded_above_one():
    drawn = scenarios.get("synergy_attack").generate(14.02, n=50, seed=0)
    assert drawn.ideal["explicitness"] == 1.0


@pytest.mark.parametrize(("stated", "kept"), [(1.0 + 1e-12, 1.0), (-1e-12, 0.0), ("1 + tolerance", 1.0),
                                               ("-tolerance", 0.0), (0.3, 0.3)])
def test_an_ideal_a_rounding_error_outside_its_range_is_clipped_into_it(stated, kept):
    stated = {"1 + tolerance": 1.0 + base.IDEAL_TOLERANCE, "-tolerance": -base.IDEAL_TOLERANCE}.get(stated, stated)
    assert base.check_ideal({"explicitness": stated}) == {"explicitness": kept}


@pytest.mark.parametrize("stated", ["1 + 2 tolerance", -1e-4, 1.5, math.nan, math.inf])
def test_an_ideal_really_outside_its_range_is_still_an_error(stated):
    stated = 1.0 + 2 * base.IDEAL_TOLERANCE if stated == "1 + 2 tolerance" else stated
    with pytest.raises(ValueError, match="must be a number in \\[0, 1\\]"):
        base.check_ideal({"explicitness": stated})
