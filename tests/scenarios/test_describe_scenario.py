"""A plain function declared as a scenario with describe_scenario."""

from __future__ import annotations

import numpy as np
import pytest

from scenarios import describe_scenario
from scenarios.describe import scenario_from_function


@describe_scenario(parameter="scale", values=(0.0, 0.5), ideal=lambda scale: {"modularity": 1.0 - scale},
                   name="stretched", criterion="noise")
def _stretched(scale, n, rng):
    factors = rng.random((n, 2))
    return factors, factors * (1.0 + scale)


def test_the_decorator_returns_the_function_and_declares_it():
    assert _stretched.harness_scenario["parameter"] == "scale"
    factors, codes = _stretched(0.5, 4, np.random.default_rng(0))
    np.testing.assert_array_equal(codes, 1.5 * factors)


def test_the_scenario_draws_what_the_function_draws():
    scenario = scenario_from_function(_stretched)
    assert (scenario.name, scenario.values, scenario.criterion) == ("stretched", (0.0, 0.5), "noise")
    drawn = scenario.generate(0.5, n=10, seed=3)
    expected_factors, expected_codes = _stretched(0.5, 10, np.random.default_rng(3))
    np.testing.assert_array_equal(drawn.factors, expected_factors)
    np.testing.assert_array_equal(drawn.codes, expected_codes)
    assert drawn.discrete == (False, False) and dict(drawn.ideal) == {"modularity": 0.5}


def test_only_declared_values_are_accepted():
    scenario = scenario_from_function(_stretched)
    assert scenario.check_value(0.5) == 0.5
    with pytest.raises(ValueError, match="scale must be one of 0, 0.5; got 0.25"):
        scenario.generate(0.25, n=10, seed=0)


def test_a_constant_ideal_and_returned_discrete_flags():
    @describe_scenario(parameter="kind", values=("a", "b"), ideal={"explicitness": 1.0})
    def labelled(kind, n, rng):
        return np.repeat([[0.0], [1.0]], n // 2, axis=0), rng.random((n, 1)), (True,)

    drawn = scenario_from_function(labelled).generate("b", n=4, seed=0)
    assert drawn.discrete == (True,) and dict(drawn.ideal) == {"explicitness": 1.0}


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"values": ()}, ValueError, "at least one parameter value"),
    ({"values": (1, 1.0)}, ValueError, "must be distinct"),
    ({"values": (1,), "ideal": {"holistic": 1.0}}, ValueError, "unknown properties"),
    ({"values": (1,), "ideal": 3}, TypeError, "ideal must be a mapping"),
])
def test_bad_declarations_say_what_is_wrong(kwargs, error, message):
    with pytest.raises(error, match=message):
        describe_scenario(parameter="p", **kwargs)


def test_a_bad_criterion_is_refused_when_decorating():
    with pytest.raises(ValueError, match="criterion must be one of"):
        describe_scenario(parameter="p", values=(1,), criterion="speed")(_stretched)


def test_an_undeclared_function_or_a_bad_return_is_refused():
    def plain(value, n, rng):
        return rng.random((n, 2))

    with pytest.raises(TypeError, match="not declared as a scenario"):
        scenario_from_function(plain)
    with pytest.raises(TypeError, match="must return \\(factors, codes\\)"):
        scenario_from_function(describe_scenario(parameter="p", values=(1,))(plain)).generate(1, n=4, seed=0)
