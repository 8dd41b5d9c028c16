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
    # each of these was accepted: a string grid became one value per letter, min_samples was truncated or
    # failed in int() ("invalid literal"), and ideal scores that reports cannot compare with went through
    ({"values": "abc"}, TypeError, r"values must be a sequence of parameter values .*got 'abc'"),
    ({"values": 0.5}, TypeError, r"values must be a sequence of parameter values"),
    ({"values": (0.0, float("nan"))}, ValueError, r"values must be finite, got nan"),
    ({"values": (True, False)}, TypeError, r"values must be real numbers or text, got True"),
    ({"values": (0.0, None)}, TypeError, r"values must be real numbers or text, got None"),
    ({"values": (1,), "ideal": {"explicitness": 2.0}}, ValueError, r"ideal of explicitness must be a number in \[0, 1\], got 2.0"),
    ({"values": (1,), "ideal": {"explicitness": float("nan")}}, ValueError, r"ideal of explicitness must be a number in \[0, 1\], got nan"),
    ({"values": (1,), "ideal": {"explicitness": "1"}}, TypeError, r"ideal of explicitness must be a number in \[0, 1\], got '1'"),
    ({"values": (1,), "min_samples": "abc"}, TypeError, r"min_samples must be an integer >= 2, got 'abc'"),
    ({"values": (1,), "min_samples": 2.5}, ValueError, r"min_samples must be an integer >= 2, got 2.5"),
    ({"values": (1,), "min_samples": 1}, ValueError, r"min_samples must be an integer >= 2, got 1"),
])
def test_bad_declarations_say_what_is_wrong(kwargs, error, message):
    with pytest.raises(error, match=message):
        describe_scenario(parameter="p", **kwargs)


def test_a_bad_criterion_is_refused_when_decorating():
    with pytest.raises(ValueError, match="criterion must be one of"):
        describe_scenario(parameter="p", values=(1,), criterion="speed")(_stretched)


def test_sample_efficiency_is_refused_for_a_parameter_that_is_not_the_sample_size():
    # its values (10, 1000, 5000) were read as sample sizes: Data efficient judged rows that all had n = 300
    with pytest.raises(ValueError, match="criterion 'sample_efficiency' reads the swept parameter as the number of rows"):
        describe_scenario(parameter="noise_level", values=(10, 1000, 5000), criterion="sample_efficiency")(_stretched)
    import scenarios

    assert scenarios.get("sample_size").criterion == "sample_efficiency"  # declares its rows: accepted


def test_non_finite_data_is_refused_naming_the_scenario_and_value():
    # NaN codes at one value failed every metric's cell with "codes contains 1 non-finite value(s)", the scenario unnamed
    def holed(value, n, rng):
        factors = rng.random((n, 2))
        codes = factors.copy()
        codes[0, 0] = np.nan if value == 1.0 else 0.0
        return factors, codes

    scenario = scenario_from_function(describe_scenario(parameter="s", values=(0.0, 1.0))(holed))
    scenario.generate(0.0, n=10, seed=0)
    with pytest.raises(ValueError, match=r"^scenario 'holed' at s = 1 returned codes with 1 non-finite value\(s\)"):
        scenario.generate(1.0, n=10, seed=0)


def test_an_undeclared_function_or_a_bad_return_is_refused():
    def plain(value, n, rng):
        return rng.random((n, 2))

    with pytest.raises(TypeError, match="not declared as a scenario"):
        scenario_from_function(plain)
    with pytest.raises(TypeError, match="must return \\(factors, codes\\)"):
        scenario_from_function(describe_scenario(parameter="p", values=(1,))(plain)).generate(1, n=4, seed=0)


@pytest.mark.parametrize("parameter", [3, None, "  "])
def test_the_parameter_must_be_a_name(parameter):
    with pytest.raises((TypeError, ValueError), match="parameter must be"):
        describe_scenario(parameter=parameter, values=(1,))


def test_an_ideal_function_returning_a_bad_score_names_the_scenario_and_value():
    @describe_scenario(parameter="leak", values=(0.0, 0.75), ideal=lambda leak: {"modularity": 1 - 2 * leak})
    def leaky(leak, n, rng):
        factors = rng.random((n, 2))
        return factors, factors

    scenario = scenario_from_function(leaky)
    assert dict(scenario.generate(0.0, n=4, seed=0).ideal) == {"modularity": 1.0}
    with pytest.raises(ValueError, match=r"scenario 'leaky' at leak = 0.75: ideal of modularity must be a number in \[0, 1\], got -0.5"):
        scenario.generate(0.75, n=4, seed=0)


def _returning(result):
    @describe_scenario(parameter="p", values=(1,))
    def broken(p, n, rng):
        return result(n, rng)

    return scenario_from_function(broken)


@pytest.mark.parametrize(("result", "message"), [
    (lambda n, rng: (rng.random((n, 2)), rng.random((n - 1, 2))), r"returned 10 factor rows and 9 code rows for n = 10; expected 10 of each"),
    (lambda n, rng: (rng.random((5, 2)), rng.random((5, 2))), r"returned 5 factor rows and 5 code rows for n = 10; expected 10 of each"),
    (lambda n, rng: (rng.random((n, 2)), rng.random(n)), r"returned codes of shape \(10,\); expected a 2-D array"),
    (lambda n, rng: (rng.random(n), rng.random((n, 2))), r"returned factors of shape \(10,\); expected a 2-D array"),
    (lambda n, rng: (rng.random((n, 2)), rng.random((n, 2)), (True,)), r"returned 1 discrete flag\(s\) for 2 factors"),
], ids=["rows differ", "fewer rows than n", "1-D codes", "1-D factors", "too few flags"])
def test_what_a_scenario_returns_is_checked_and_the_error_names_it(result, message):
    """A short draw was run silently under the n it was asked for; the other cases said only "factors and codes must
    have the same number of rows" (or "must be 2-D"), without naming the scenario."""
    with pytest.raises(ValueError, match=r"scenario 'broken' at p = 1 " + message):
        _returning(result).generate(1, n=10, seed=0)


def test_a_scenario_object_with_an_ideal_out_of_range_is_refused_at_generate():
    from scenarios import Representation, Scenario
    from scenarios.base import check_in_range

    scenario = Scenario(name="overshoot", parameter="alpha", values=(0.0, 1.0), check_value=check_in_range("alpha", 0, 1),
                        build=lambda alpha, n, rng: (rng.random((n, 1)), rng.random((n, 1)), (False,)),
                        ideal_trajectory=lambda alpha: {"explicitness": 1.0 + alpha}, source="test", summary="test")
    assert dict(scenario.generate(0.0, n=4, seed=0).ideal) == {"explicitness": 1.0}
    with pytest.raises(ValueError, match=r"scenario 'overshoot' at alpha = 1: ideal of explicitness must be a number in \[0, 1\], got 2.0"):
        scenario.generate(1.0, n=4, seed=0)
    with pytest.raises(ValueError, match=r"ideal of explicitness must be a number in \[0, 1\]"):
        Representation(factors=np.zeros((2, 1)), codes=np.zeros((2, 1)), discrete=(False,), ideal={"explicitness": -0.1})


def test_a_representation_of_lists_is_a_type_error_naming_them():
    from scenarios import Representation

    with pytest.raises(TypeError, match="factors must be a numpy array, got list"):
        Representation(factors=[[0.0], [1.0]], codes=np.zeros((2, 1)), discrete=(False,), ideal={})
