"""Bad arguments to every scenario's ``generate``, and unknown scenario names.

Every registered scenario receives out-of-range, non-finite and wrongly typed parameter values, sample sizes and
seeds, and an unknown name.  Each must be a clear error: a ``ValueError``/``TypeError`` (``KeyError`` for an unknown
name) whose message names the argument at fault.  At the smallest sample size a scenario accepts, each value of its
grid gives finite factors, codes and ideals, or a ``ValueError`` that mentions the samples.

The same battery for the metrics is ``tests/metrics/test_malformed_inputs.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import scenarios

SCENARIOS = scenarios.available()


def _bad_values(name: str) -> list[object]:
    scenario = scenarios.get(name)
    if isinstance(scenario.values[0], str):
        return ["no_such_case", 0, None, float("nan"), True]
    return [-1e12, float("nan"), float("inf"), "abc", None, True, [0.5]]


SCENARIO_VALUES = [(name, value) for name in SCENARIOS for value in _bad_values(name)]


@pytest.mark.parametrize(("name", "value"), SCENARIO_VALUES, ids=[f"{n}-{v!r}" for n, v in SCENARIO_VALUES])
def test_out_of_range_parameter_values_are_named(name, value):
    scenario = scenarios.get(name)
    with pytest.raises((ValueError, TypeError), match=scenario.parameter):
        scenario.generate(value, n=100, seed=0)


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("n", [0, 1, -5, 2.5, "100", None, True])
def test_bad_sample_sizes_are_named(name, n):
    scenario = scenarios.get(name)
    with pytest.raises((ValueError, TypeError), match=r"\bn\b"):
        scenario.generate(scenario.values[0], n=n, seed=0)


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("seed", [-1, "x", 1.5, None, True])
def test_bad_seeds_are_named(name, seed):
    scenario = scenarios.get(name)
    with pytest.raises((ValueError, TypeError), match="seed"):
        scenario.generate(scenario.values[0], n=max(scenario.min_samples, 200), seed=seed)


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_value_at_the_smallest_sample_size_is_finite_or_named(name):
    scenario = scenarios.get(name)
    for value in scenario.values:
        try:
            data = scenario.generate(value, n=scenario.min_samples, seed=0)
        except ValueError as error:
            assert " n " in f" {error} " or "n must" in str(error) or "samples" in str(error), error
        else:
            assert np.isfinite(data.factors).all() and np.isfinite(data.codes).all(), (name, value)
            assert all(np.isfinite(v) for v in data.ideal.values()), (name, value)


def test_unknown_scenario_name_lists_the_known_ones():
    with pytest.raises(KeyError, match=r"unknown scenario 'noize'; known scenarios: .*noise"):
        scenarios.get("noize")
