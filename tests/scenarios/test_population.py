"""The population contract: Population, PopulationScenario and their registry."""

from __future__ import annotations

import numpy as np
import pytest

from scenarios.base import check_in_range
from scenarios.population import (
    Population,
    PopulationScenario,
    available_populations,
    get_population,
    register_population,
)


def _toy_build(shift: float, n: int, rng: np.random.Generator):
    factors = rng.random((n, 2))
    return factors, [factors + shift, factors[:, ::-1].astype(np.float32)], [True, False]


TOY = PopulationScenario(
    name="toy",
    parameter="shift",
    values=(0.0, 1.0),
    build=_toy_build,
    check_value=check_in_range("shift", 0.0, 1.0),
    source="test",
    summary="two members",
)


def test_generate_is_deterministic_and_normalises_types():
    first = TOY.generate(0.5, n=50, seed=3)
    again = TOY.generate(0.5, n=50, seed=3)
    other = TOY.generate(0.5, n=50, seed=4)
    assert isinstance(first, Population)
    assert isinstance(first.members, tuple) and len(first.members) == 2
    assert all(m.dtype == np.float64 and m.flags.c_contiguous for m in first.members)
    assert first.disentangled == (True, False)
    for a, b in zip(first.members, again.members):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first.factors, other.factors)
    np.testing.assert_allclose(first.members[0], first.factors + 0.5)
    assert TOY.label(0.5) == "0.5"


def test_generate_checks_value_and_sample_size():
    with pytest.raises(ValueError, match=r"shift must be in \[0, 1\]"):
        TOY.generate(2.0, n=50, seed=0)
    with pytest.raises(ValueError, match=r"needs n >= 2 samples, got 1"):  # the same check as a Scenario's
        TOY.generate(0.5, n=1, seed=0)
    with pytest.raises(TypeError, match=r"n must be an integer number of samples"):
        TOY.generate(0.5, n=10.5, seed=0)
    with pytest.raises(TypeError, match="seed"):
        TOY.generate(0.5, n=10, seed="x")


def test_population_refuses_inconsistent_parts():
    factors = np.zeros((5, 2))
    with pytest.raises(ValueError, match="at least 2 members"):
        Population(factors, (np.zeros((5, 3)),), (True,))
    with pytest.raises(ValueError, match=r"members\[1\] must be 2-D with 5 rows"):
        Population(factors, (np.zeros((5, 3)), np.zeros((4, 3))), (True, False))
    with pytest.raises(ValueError, match="one flag per member"):
        Population(factors, (np.zeros((5, 3)), np.zeros((5, 3))), (True,))


def test_registry_lists_gets_and_refuses_duplicates():
    assert "udr_population" in available_populations()
    scenario = get_population("udr_population")
    assert scenario.name == "udr_population" and scenario.parameter == "proportion"
    with pytest.raises(ValueError, match="already registered"):
        register_population(scenario)
    with pytest.raises(KeyError, match=r"unknown population scenario 'nope'; known: .*udr_population"):
        get_population("nope")
