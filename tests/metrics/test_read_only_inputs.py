"""Metrics score read-only views of their inputs: a metric cannot write into the caller's arrays.

A metric writing ``codes *= 0`` changed the scores of the metrics after it on the same draw (silently).
:func:`metrics.evaluate` hands a metric read-only views of the caller's arrays (no copy), so such a write is an error
naming the metric, and the caller's arrays and their flags never change; every registered metric scores arrays it
cannot write to.

(A writing metric's cells in a run and in ``evaluate``: ``tests/harness/test_user_code_isolation.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest

import metrics


def test_evaluate_gives_metrics_read_only_views_and_the_callers_arrays_never_change():
    rng = np.random.default_rng(3)
    factors = rng.random((80, 2))
    codes = factors @ [[1.0, 0.3], [0.2, 1.0]]
    before = codes.copy()
    seen = {}

    def looks(factors, given):
        seen.update(factors=factors.flags.writeable, codes=given.flags.writeable, shared=np.shares_memory(given, codes))
        return 0.0

    def zeroes(factors, codes):
        codes[:] = 0.0
        return 0.0

    metrics.evaluate(looks, factors, codes)
    assert seen == {"factors": False, "codes": False, "shared": True}  # read-only views of the caller's arrays, no copy
    with pytest.raises(ValueError, match=r"metric 'zeroes' tried to modify its input arrays \(assignment destination"):
        metrics.evaluate(zeroes, factors, codes)
    np.testing.assert_array_equal(codes, before)
    assert codes.flags.writeable and factors.flags.writeable  # the caller's own arrays keep their flags


SMALL = np.random.default_rng(11).random((120, 3))
SMALL_CODES = SMALL @ (np.eye(3) + 0.2 * np.random.default_rng(12).random((3, 3)))


def _read_only(array: np.ndarray) -> np.ndarray:
    copy = array.copy()
    copy.flags.writeable = False
    return copy


@pytest.mark.parametrize("name", metrics.available(population=None))
def test_every_registered_metric_scores_read_only_arrays(name):
    # Called through its registered function (what metrics.mig.mig is), with arrays the caller made read-only.
    spec = metrics.get(name)
    cheap = {option: 5 for option in ("n_estimators",) if option in spec.defaults}
    if spec.population:
        members = [_read_only(SMALL_CODES), _read_only(SMALL_CODES[:, ::-1]), _read_only(np.tanh(SMALL_CODES))]
        scores = spec.function(members, **cheap)
        assert len(scores) == 3 and np.isfinite(scores).all()
    else:
        scores = metrics.evaluate(name, _read_only(SMALL), _read_only(SMALL_CODES), **cheap)
        assert scores and all(np.isfinite(list(scores.values())))
