"""The stress search completes, with its default settings, for every registered metric.

``python -m harness stress z_diff --budget-seconds 200`` (the README's example) died after 100 s with
``ValueError: scenario 'synergy_attack' at alpha = 14.02: ideal of explicitness must be a number in [0, 1],
got 1.000000000001``: the search draws values anywhere in a scenario's range, where an ideal computed in
floating point may round past its range's end.  Each metric is searched here at a small budget (n = 100, two
seeds, one scenario each, the scenarios taken in turn so that together they cover every searchable one).
"""

from __future__ import annotations

import pytest

import metrics
from harness.errors import UsageError
from harness.workflows.stress import stress
from harness.workflows.stress_space import searchable_scenarios

SMALL = dict(seeds=2, sample_sizes=(100,), contrast=[], backend="sequential", log=lambda _: None)
#: Cells per searched scenario: both ends of its range explored, one point refined (two seeds each).
BUDGET = 6
#: Metrics too slow for more than their range's ends at n = 100 (GBT fits: about 1 s a cell), searched where the
#: representation is smallest.
SLOW = {"dci_gbt": ("categorical", 2)}


def test_the_search_that_met_an_ideal_rounded_past_one_completes():
    # seed 1 refines towards alpha = 14.55, where the synergy attack's explicitness (exactly 1) was 1.000000000001
    result = stress("mig", scenarios_=["synergy_attack"], budget=16, seed=1, **SMALL)
    assert 14.55 in {measurement.point.value for measurement in result.measurements}
    assert result.cells == 16


def _claims_a_property_with_an_ideal(name: str) -> bool:
    return bool(set(metrics.get(name).properties.values()) - {"holistic"})


SEARCHED = [name for name in metrics.available() if _claims_a_property_with_an_ideal(name)]
#: Null codes reach 512 columns at the top of their range (width ratio 64): searched with MIG, whose histograms cost
#: least there.
WIDE = {"null_gaussian": "mig", "null_uniform": "mig"}


def _searches() -> list[tuple[str, str, int]]:
    """(metric, scenario, budget) pairs that search every metric claiming an ideal and every searchable scenario at
    least once: the slow and the wide ones as fixed above, the others taken in turn."""
    fixed = [(name, scenario, budget) for name, (scenario, budget) in SLOW.items()]
    fixed += [(name, scenario, BUDGET) for scenario, name in WIDE.items()]
    names = [name for name in SEARCHED if name not in SLOW]
    scenarios = [scenario for scenario in searchable_scenarios() if scenario not in {s for _, s, _ in fixed}]
    count = max(len(names), len(scenarios))
    return fixed + [(names[i % len(names)], scenarios[i % len(scenarios)], BUDGET) for i in range(count)]


SEARCHES = _searches()


def test_the_searches_cover_every_searched_metric_and_searchable_scenario():
    assert {name for name, _, _ in SEARCHES} == set(SEARCHED)
    assert {scenario for _, scenario, _ in SEARCHES} == set(searchable_scenarios())


@pytest.mark.slow
@pytest.mark.parametrize(("name", "scenario", "budget"), SEARCHES, ids=[f"{n}-{s}" for n, s, _ in SEARCHES])
def test_the_stress_search_of_every_registered_metric_completes(name, scenario, budget):
    result = stress(name, scenarios_=[scenario], budget=budget, **SMALL)
    assert result.cells == budget and result.measurements


@pytest.mark.parametrize("name", [name for name in metrics.available() if name not in SEARCHED])
def test_a_holistic_score_is_refused_in_one_line_up_front(name):
    # a holistic score has no ideal to depart from
    with pytest.raises(UsageError, match=f"{name} claims holistic; stress needs a metric claiming one of"):
        stress(name, budget=BUDGET, **SMALL)
