"""Estimates shared inside :func:`metrics.shared_estimates` (issue 13, item 2).

The eight k-NN information metrics must score bit-identically inside and outside the
scope, and inside it each distinct k-NN estimate must be computed once.
"""

from __future__ import annotations

import numpy as np
import pytest

import metrics
import metrics._knn
import metrics.estimators

KNN_METRICS = ("unibound", "pid", "rmig", "wsepin", "windin", "sepin_at_k", "indin_at_k", "informativeness")
HISTOGRAM_METRICS = ("mig", "mig_sup", "jemmig", "modularity", "dcimig")
N, K, L = 400, 3, 4


@pytest.fixture(scope="module")
def draw() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    factors = rng.random((N, K))
    codes = factors @ (np.eye(K, L) + 0.3 * rng.random((K, L))) + 0.1 * rng.random((N, L))
    return factors, codes


def _score_all(names, factors, codes) -> dict[str, dict[str, float]]:
    return {name: metrics.evaluate(name, factors, codes) for name in names}


@pytest.mark.parametrize("names", [KNN_METRICS, HISTOGRAM_METRICS], ids=["knn", "histogram"])
def test_scores_inside_the_scope_equal_scores_outside_exactly(draw, names):
    factors, codes = draw
    outside = _score_all(names, factors, codes)
    with metrics.shared_estimates():
        inside = _score_all(names, factors, codes)
        again = _score_all(names, factors, codes)
    assert inside == outside
    assert again == outside


@pytest.fixture
def estimate_counter(monkeypatch) -> list[int]:
    """Counts the k-NN estimates (every Kraskov estimate goes through kraskov_prepared)."""
    calls = [0]
    original = metrics._knn.kraskov_prepared

    def counted(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(metrics._knn, "kraskov_prepared", counted)
    monkeypatch.setattr(metrics.estimators, "kraskov_prepared", counted)
    return calls


def test_each_distinct_estimate_is_computed_once_inside_the_scope(draw, estimate_counter):
    factors, codes = draw
    # Per metric, outside the scope: UniBound and PID K*L pairwise + 2K multi-code each,
    # RMIG K*L, WSEPIN and SEPIN@k 3L each, WINDIN and INDIN@k 2L each, informativeness L.
    outside_count = 2 * (K * L + 2 * K) + K * L + 2 * 3 * L + 2 * 2 * L + L
    # Distinct: the K*L pairwise matrix, the 2K PID estimates, and the 3L per-code terms.
    distinct_count = K * L + 2 * K + 3 * L
    _score_all(KNN_METRICS, factors, codes)
    assert estimate_counter[0] == outside_count
    estimate_counter[0] = 0
    with metrics.shared_estimates():
        _score_all(KNN_METRICS, factors, codes)
    assert estimate_counter[0] == distinct_count


def test_nothing_is_shared_outside_the_scope_or_after_it_closes(draw, estimate_counter):
    factors, codes = draw
    with metrics.shared_estimates():
        metrics.evaluate("rmig", factors, codes)
    estimate_counter[0] = 0
    metrics.evaluate("rmig", factors, codes)
    metrics.evaluate("rmig", factors, codes)
    assert estimate_counter[0] == 2 * K * L


def test_estimates_are_keyed_by_array_identity_and_options(draw, estimate_counter):
    factors, codes = draw
    with metrics.shared_estimates():
        metrics.evaluate("rmig", factors, codes)
        metrics.evaluate("rmig", factors, codes, neighbors=4)  # other options: computed again
        metrics.evaluate("rmig", factors, codes.copy())  # an equal but distinct array: computed again
    assert estimate_counter[0] == 3 * K * L


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("name", ["mig", "rmig", "dci_lasso"])
def test_codes_modified_in_place_inside_the_scope_are_scored_afresh(draw, name, order, monkeypatch):
    """A buffer refilled between two calls keeps its identity: its old estimates were reused, and random codes put in
    it scored as the codes before them (MIG 0.588 for codes independent of the factors, 0.002 outside a scope)."""
    import metrics.shared

    monkeypatch.setattr(metrics.shared, "_FINGERPRINT_BYTES", 1000)  # a Fortran-ordered buffer checksummed in blocks
    factors, codes = draw
    buffer = codes.copy(order=order)
    noise = np.random.default_rng(11).random(codes.shape)
    with metrics.shared_estimates():
        before = metrics.evaluate(name, factors, buffer)
        buffer[:] = noise
        after = metrics.evaluate(name, factors, buffer)
        buffer[:] = codes  # back to the first content: its estimates again
        again = metrics.evaluate(name, factors, buffer)
    assert before == metrics.evaluate(name, factors, codes) == again
    assert after == metrics.evaluate(name, factors, noise) != before


def test_a_caller_modifying_its_result_does_not_change_later_results(draw):
    factors, codes = draw
    with metrics.shared_estimates():
        first = metrics.estimators.pairwise_information(factors, codes)
        expected = first.copy()
        first[:] = -1.0
        np.testing.assert_array_equal(metrics.estimators.pairwise_information(factors, codes), expected)


def test_variants_differing_in_options_their_estimator_ignores_share_estimates(draw, estimate_counter):
    # The paper preset sweeps RMIG and UniBound over bins: under knn bins sets only the
    # normalising entropy, and normalize never changes an estimate.
    factors, codes = draw
    variants = [("pid", {}), ("pid", {"normalize": "none"}), ("rmig", {"bins": 5}), ("rmig", {"bins": 20}),
                ("unibound", {"bins": 5}), ("unibound", {"bins": 40, "normalize": "entropy"})]
    alone = [metrics.evaluate(name, factors, codes, **options) for name, options in variants]
    estimate_counter[0] = 0
    with metrics.shared_estimates():
        inside = [metrics.evaluate(name, factors, codes, **options) for name, options in variants]
    assert inside == alone
    assert estimate_counter[0] == K * L + 2 * K



def test_only_a_callers_scope_counts_as_shared_across_calls():
    from metrics.shared import shared_across_calls

    assert not shared_across_calls()
    with metrics.shared_estimates(one_call=True):  # the scope a lone registered call opens for itself
        assert not shared_across_calls()
    with metrics.shared_estimates():
        with metrics.shared_estimates(one_call=True):  # a call inside the caller's scope joins it
            assert shared_across_calls()
