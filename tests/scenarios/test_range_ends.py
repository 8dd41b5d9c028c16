"""Every scenario, and every transform composed with one, draws at both ends of the range its check states.

A range check saying ``2..`` accepted values (``--grid sample_size=200000``) that the scenario then failed to draw.
The ends are read from the message with which a scenario's ``check_value`` refuses a huge value; a check that states
none (a composition bounded by its base's factor or code count) is asked by the stress search's range finder.

(Values anywhere inside the range: ``test_whole_ranges.py``; the grid's refusal on the command line:
``tests/harness/test_grid_values.py``.)
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import scenarios
from harness.execution.scenario_refs import scenario_for
from harness.workflows.stress_space import parameter_range
from scenarios.transforms import available_transforms


def _range_ends(name: str) -> tuple:
    """The ends of the range scenario ``name``'s check states when it refuses a huge value (``alpha must be in
    [0, 1000]``, ``an integer in 2..100000``); for a check that states none (a composition bounded by its base's
    factor or code count), the ends the stress search finds by asking the check, and a choice parameter's choices."""
    scenario = scenario_for(name)
    try:
        scenario.check_value(10**400)
    except (TypeError, ValueError) as error:
        message = str(error)
    else:
        raise AssertionError(f"{name} accepts 10**400")
    interval = re.search(r"in \[(\S+), (\S+)\]", message) or re.search(r"integer in (\d+)\.\.(\d+)", message)
    if interval:
        integral = all(isinstance(value, int) for value in scenario.values)
        return tuple((int if integral else float)(end) for end in interval.groups())
    return parameter_range(name).ends


@pytest.mark.parametrize("name", scenarios.available(kind=None) + [f"{t}@noise=0.5" for t in available_transforms()])
def test_every_scenario_draws_at_both_ends_of_the_range_it_states(name):
    # A range check saying 2.. accepted values (sample_size=200000) that the scenario then failed to draw.
    scenario = scenario_for(name)
    for end in _range_ends(name):
        drawn = scenario.generate(scenario.check_value(end), n=scenario.default_n or max(scenario.min_samples, 50), seed=0)
        arrays = [drawn.factors, *getattr(drawn, "members", [getattr(drawn, "codes", None)])]
        assert all(np.isfinite(array).all() for array in arrays), (name, end)
