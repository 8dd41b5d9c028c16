"""Every built-in metric declares the range of each sub-score, and its scores stay in it at the default options.

The scores are read on the two ends calibration reads (review eq. 9): a perfect code (each code one factor, a little
noise) and pure noise (codes independent of the factors), where scores leave [0, 1] if they ever do (DCI-ES
explicitness falls towards -1 and SNC below 0 on noise).
"""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from metrics.constraints import Interval

NAMES = metrics.available(population=None)
#: Options that make a metric cheap here without touching its range (tree ensembles' size).
CHEAP = {"dci_gbt": {"n_estimators": 5}}


@pytest.mark.parametrize("name", NAMES)
def test_every_sub_score_declares_its_range(name):
    spec = metrics.get(name)
    assert set(spec.ranges) == set(spec.properties), f"{name} declares no range for {set(spec.properties) - set(spec.ranges)}"
    assert all(isinstance(interval, Interval) and interval.kind is float for interval in spec.ranges.values())


def _ends(n: int = 400) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(3)
    factors = rng.random((n, 3))
    return {"perfect": (factors, factors + 0.01 * rng.standard_normal((n, 3))), "noise": (factors, rng.random((n, 3)))}


@pytest.mark.parametrize("name", [name for name in NAMES if not metrics.get(name).population])
def test_scores_lie_in_the_declared_range_at_both_ends(name):
    spec = metrics.get(name)
    for end, (factors, codes) in _ends().items():
        for sub, score in metrics.evaluate(name, factors, codes, **CHEAP.get(name, {})).items():
            assert spec.ranges[sub].contains(score), f"{name}/{sub} = {score} on {end} codes, outside {spec.ranges[sub].notation()}"
