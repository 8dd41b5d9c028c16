"""Permutation nulls (:mod:`metrics.null_distribution`).

* On ``z = v`` every registered metric's p-value is the smallest possible, ``1 / (B + 1)``,
  except sub-scores that do not measure the dependence and tie with chance for a stated reason.
* On codes independent of the factors the p-values are valid: over 40 data draws at
  ``B = 100``, no cheap metric falls below 0.05 in more than 6 (``P(X >= 7) = 0.003`` for a
  valid p-value), and the histogram metrics' p-values pass a KS test of uniformity.
* The same seed gives the same null; the sharing across permutations and metrics gives the
  very scores of the metric called on permuted copies; directions, ties and errors.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from scipy import stats

import metrics
import metrics.information
from metrics.null_distribution import NullDistribution, permutation_rows

Z_EQUALS_V_PERMUTATIONS = 9
CHEAP_OPTIONS = {
    "dci_gbt": {"n_estimators": 2, "bins": 4}, "dci_rf": {"n_estimators": 2, "leaf_sizes": (1,)}, "explicitness": {"bins": 4},
    "dci_lasso": {"n_alphas": 5, "folds": 2}, "z_diff": {"n_train": 400, "n_eval": 200},
    "z_min_var": {"n_train": 200, "n_eval": 200}, "z_max_var": {"n_train": 200, "n_eval": 200},
}
"""Fewer trees, classes, penalties and samples for the slowest metrics: the null's mechanics do not depend on them."""

HISTOGRAM_METRICS = ("mig", "mig_sup", "jemmig", "modularity", "dcimig", "minimality_sufficiency")
CHEAP_METRICS = (*HISTOGRAM_METRICS, "sap")
INDEPENDENT_DRAWS, INDEPENDENT_PERMUTATIONS = 40, 100
MOST_BELOW_FIVE_PERCENT = 6


def _z_equals_v(n: int = 200, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).random((n, 3))


# Sub-scores that may not reach 1 / (B + 1) on z = v, and why.  Ties count as "at least as good",
# so a sub-score that chance reaches as well as the representation gets a large p-value: it
# does not tell this representation from chance, whatever its value says about it.
def _size_is_the_shape(observed: float, null: np.ndarray) -> bool:
    """DCI-ES size is K / L: the codes' shape, which a permutation keeps (p = 1)."""
    return bool(np.all(null == observed))


def _sparse_importance_tied_at_one(observed: float, null: np.ndarray) -> bool:
    """DCI-Lasso's modularity and compactness read the shape of the importance matrix, not its size: on
    permuted codes the Lasso keeps at most one code here and there, which is perfectly modular and compact
    (1, the bound z = v reaches)."""
    return observed == pytest.approx(1.0, abs=1e-12) and bool(np.any(np.isclose(null, 1.0, rtol=0, atol=1e-12)))


def _both_at_zero(observed: float, null: np.ndarray) -> bool:
    """PID redundancy and complementarity (lower is better) are about 0 on z = v (one code per factor: nothing
    redundant or synergistic) and about 0 on permuted codes (nothing to share): the estimates on either side
    are within their bias of 0, and many permutations reach 0 exactly."""
    return abs(observed) < 0.02 and bool(np.all(np.abs(null) < 0.02)) and bool(np.any(null == 0.0))


TIES_ON_Z_EQUALS_V = {
    ("dci_es", "size"): _size_is_the_shape,
    ("dci_lasso", "modularity"): _sparse_importance_tied_at_one,
    ("dci_lasso", "compactness"): _sparse_importance_tied_at_one,
    **{("pid", sub): _both_at_zero for sub in ("redundant_lower", "redundant_upper", "complementary_lower", "complementary_upper")},
}


@pytest.mark.parametrize("name", metrics.available())
def test_z_equals_v_gets_the_smallest_p_value(name):
    factors = _z_equals_v()
    null = metrics.permutation_null(name, factors, factors.copy(), permutations=Z_EQUALS_V_PERMUTATIONS, seed=5,
                                    **CHEAP_OPTIONS.get(name, {}))
    assert null.permutations == Z_EQUALS_V_PERMUTATIONS
    for sub in null.sub_scores:
        if null.p_value(sub) != 1 / (Z_EQUALS_V_PERMUTATIONS + 1):
            reason = TIES_ON_Z_EQUALS_V.get((name, sub))
            assert reason is not None, (sub, null.observed[sub], null.scores[sub])
            assert reason(null.observed[sub], null.scores[sub]), (sub, null.observed[sub], null.scores[sub], reason.__doc__)


def _independent_p_values() -> dict[tuple[str, str], np.ndarray]:
    p_values: dict[tuple[str, str], list[float]] = {}
    for draw in range(INDEPENDENT_DRAWS):
        rng = np.random.default_rng(1000 + draw)
        factors, codes = rng.random((200, 2)), rng.random((200, 2))
        with metrics.shared_estimates():  # as the harness scores a draw: the histogram metrics share each permutation's table
            for name in CHEAP_METRICS:
                null = metrics.permutation_null(name, factors, codes, permutations=INDEPENDENT_PERMUTATIONS, seed=draw)
                for sub in null.sub_scores:
                    p_values.setdefault((name, sub), []).append(null.p_value(sub))
    return {key: np.array(values) for key, values in p_values.items()}


@pytest.fixture(scope="module")
def independent_p_values() -> dict[tuple[str, str], np.ndarray]:
    return _independent_p_values()


@pytest.mark.slow
def test_independent_codes_rarely_look_significant(independent_p_values):
    assert {name for name, _ in independent_p_values} == set(CHEAP_METRICS)
    for (name, sub), p_values in independent_p_values.items():
        assert p_values.size == INDEPENDENT_DRAWS
        assert np.all((p_values >= 1 / (INDEPENDENT_PERMUTATIONS + 1)) & (p_values <= 1.0))
        assert np.sum(p_values < 0.05) <= MOST_BELOW_FIVE_PERCENT, (name, sub, np.sort(p_values)[:8])


@pytest.mark.slow
@pytest.mark.parametrize("name", HISTOGRAM_METRICS)
def test_histogram_metrics_p_values_are_uniform_on_independent_codes(independent_p_values, name):
    for (metric, sub), p_values in independent_p_values.items():
        if metric == name:
            assert stats.kstest(p_values, "uniform").pvalue > 0.01, (sub, np.sort(p_values))


def test_same_seed_same_null_and_a_prefix_for_fewer_permutations():
    factors = _z_equals_v(200)
    codes = factors + np.random.default_rng(2).normal(scale=0.5, size=factors.shape)
    first = metrics.permutation_null("mig", factors, codes, permutations=10, seed=3)
    again = metrics.permutation_null("mig", factors, codes, permutations=10, seed=3)
    fewer = metrics.permutation_null("mig", factors, codes, permutations=4, seed=np.random.SeedSequence(3))
    other = metrics.permutation_null("mig", factors, codes, permutations=10, seed=4)
    assert np.array_equal(first.scores["mig"], again.scores["mig"])
    assert np.array_equal(fewer.scores["mig"], first.scores["mig"][:4])
    assert not np.array_equal(other.scores["mig"], first.scores["mig"])


def test_permuted_codes_keep_every_row_and_are_read_only():
    factors, codes = _z_equals_v(50), np.random.default_rng(3).random((50, 2))
    seen = []

    def record(factors, codes):
        seen.append(codes)
        return 0.0

    metrics.permutation_null(record, factors, codes, permutations=3, seed=8)
    assert np.array_equal(seen[0], codes)
    for index, permuted in enumerate(seen[1:]):
        rows = permutation_rows(50, 8, index)
        assert np.array_equal(np.sort(rows), np.arange(50))  # every row once: each code's values kept exactly
        assert np.array_equal(permuted, codes[rows])
        assert not permuted.flags.writeable
        assert not np.array_equal(permuted, codes)  # the identity order (probability 1 / 50!) would destroy nothing


SHARED_CASES = [(name, {}) for name in HISTOGRAM_METRICS] + [
    ("rmig", {"estimator": "histogram"}), ("rmig", {"estimator": "miller_madow"}), ("unibound", {}), ("pid", {}),
    ("misjed", {}), ("sap", {"random_state": 11}), ("infomec", {}),
]


def test_shared_nulls_are_the_scores_of_the_metric_on_permuted_copies():
    rng = np.random.default_rng(4)
    factors = rng.random((150, 3))
    codes = factors @ rng.random((3, 4)) + 0.1 * rng.random((150, 4))
    permutations = 3
    with metrics.shared_estimates():  # every metric of the draw in one scope, sharing each permutation's estimates
        nulls = [metrics.permutation_null(name, factors, codes, permutations=permutations, seed=6, **options) for name, options in SHARED_CASES]
    for (name, options), null in zip(SHARED_CASES, nulls):
        for index in range(permutations):
            copy = np.array(codes[permutation_rows(codes.shape[0], 6, index)])  # a plain array: nothing shared
            expected = metrics.evaluate(name, factors, copy, **options)
            assert {sub: float(null.scores[sub][index]) for sub in null.sub_scores} == expected, (name, options, index)
        assert null.observed == metrics.evaluate(name, factors, codes, **options)


def test_the_metrics_of_a_draw_count_each_permutation_once(monkeypatch):
    counted = []
    count = metrics.information.joint_counts
    monkeypatch.setattr(metrics.information, "joint_counts", lambda a, b: counted.append(1) or count(a, b))
    factors = _z_equals_v(200)
    codes = factors[:, ::-1].copy()
    with metrics.shared_estimates():
        for name in ("mig", "jemmig", "modularity", "dcimig"):
            metrics.permutation_null(name, factors, codes, permutations=6, seed=1)
    assert len(counted) == 6 + 1  # the observed table and one per permutation, for the four metrics
    counted.clear()
    for name in ("mig", "jemmig"):  # no enclosing scope: each null is its own
        metrics.permutation_null(name, factors, codes, permutations=6, seed=1)
    assert len(counted) == 2 * (6 + 1)


def test_the_scope_keeps_no_permuted_copy():
    factors = _z_equals_v(100)
    references = []

    def record(factors, codes):
        references.append(weakref.ref(codes))
        return float(metrics.mig.mig(factors, codes))

    with metrics.shared_estimates():
        null = metrics.permutation_null(record, factors, factors.copy(), permutations=5, seed=2)
        gc.collect()
        assert sum(reference() is not None for reference in references) == 1  # the unpermuted codes only
    assert null.p_value("record") == 1 / 6


def test_directions_decide_the_p_value_and_the_chance_level():
    ones = np.ones(20)
    null = NullDistribution(
        observed={"up": 15.0, "down": 15.0},
        scores={"up": np.arange(1.0, 21.0), "down": np.arange(1.0, 21.0)},
        higher_is_better={"up": True, "down": False},
    )
    assert null.p_value("up") == (1 + 6) / 21  # 15 .. 20 are at least as high
    assert null.p_value("down") == (1 + 15) / 21  # 1 .. 15 are at least as low
    assert null.null_q95("up") == pytest.approx(1 + 0.95 * 19)  # linear interpolation between order statistics
    assert null.null_q95("down") == pytest.approx(1 + 0.05 * 19)
    assert null.null_mean("up") == 10.5
    assert null.columns("down") == {"null_mean": 10.5, "null_q95": null.null_q95("down"), "p_value": 16 / 21, "null_permutations": 20}
    tied = NullDistribution(observed={"s": 1.0}, scores={"s": ones - 1e-16}, higher_is_better={"s": True})
    assert tied.p_value("s") == 1.0  # a difference of rounding is a tie, and a tie is as good


def test_lower_is_better_sub_scores_read_the_registry_or_the_argument():
    factors = _z_equals_v(200)
    pid = metrics.permutation_null("pid", factors, factors.copy(), permutations=4, seed=0)
    assert {sub for sub, higher in pid.higher_is_better.items() if not higher} == {
        "redundant_lower", "redundant_upper", "complementary_lower", "complementary_upper"}
    misjed = metrics.permutation_null("misjed", factors, factors.copy(), permutations=4, seed=0)
    assert misjed.higher_is_better == {"misjed": False} and misjed.p_value("misjed") == 1 / 5

    def both(factors, codes):
        score = float(metrics.mig.mig(factors, codes))
        return {"gain": score, "loss": -score}

    mirrored = metrics.permutation_null(both, factors, factors.copy(), permutations=4, seed=0, higher_is_better={"loss": False})
    assert mirrored.p_value("gain") == mirrored.p_value("loss") == 1 / 5
    assert mirrored.null_q95("loss") == pytest.approx(-mirrored.null_q95("gain"))
    unsigned = metrics.permutation_null(both, factors, factors.copy(), permutations=4, seed=0)
    assert unsigned.p_value("loss") == 1.0  # read as higher-is-better, the loss is beaten by every permutation


def test_a_stochastic_metric_keeps_its_seed_and_observed_scores_are_reused():
    factors = _z_equals_v(60)
    seeds, calls = [], []

    def noisy(factors, codes, random_state=None):
        seeds.append(random_state)
        calls.append(1)
        return float(np.random.default_rng(random_state).random())

    null = metrics.permutation_null(noisy, factors, factors.copy(), permutations=4, seed=0, random_state=17)
    assert seeds == [17] * 5
    assert np.all(null.scores["noisy"] == null.observed["noisy"])  # the same seed, and the metric ignores the codes: all ties
    calls.clear()
    given = metrics.permutation_null(noisy, factors, factors.copy(), permutations=4, seed=0, random_state=17, observed={"noisy": 2.0})
    assert len(calls) == 4 and given.observed == {"noisy": 2.0} and given.p_value("noisy") == 1 / 5


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"permutations": 0}, ValueError, "permutations must be at least 1"),
        ({"permutations": 2.5}, TypeError, "permutations must be an integer"),
        ({"seed": -1}, ValueError, r"seed \(an int or a numpy.random.SeedSequence\) must be at least 0, got -1"),
        ({"seed": np.random.default_rng(0)}, TypeError, r"seed must be an int >= 0 or a numpy.random.SeedSequence, not a Generator"),
        ({"random_state": np.random.default_rng(0)}, TypeError, "random_state of a permutation null must be an int"),
        ({"observed": {"other": 0.5}}, ValueError, r"reported sub-scores \['mig'\] on permuted codes but \['other'\] given as observed"),
        ({"observed": {"mig": float("nan")}}, ValueError, "observed score of 'mig' must be finite"),
        ({"observed": {"mig": "0.5"}}, TypeError, "observed score of 'mig' must be a real number"),
        ({"observed": 0.5}, TypeError, "observed must map the sub-scores"),
        ({"higher_is_better": {"nope": False}}, ValueError, r"directions given for unknown sub-scores \['nope'\]"),
        ({"codes": np.zeros((10, 2))}, ValueError, "same number of rows"),
        ({"codes": np.zeros(30)}, ValueError, "codes must be a 2-D array"),
    ],
)
def test_bad_arguments_say_what_is_wrong(arguments, error, message):
    factors = _z_equals_v(30)
    call = {"permutations": 3, "seed": 0, "codes": factors.copy(), **arguments}
    with pytest.raises(error, match=message):
        metrics.permutation_null("mig", factors, call.pop("codes"), **call)


def test_population_and_unknown_metrics_are_refused():
    factors = _z_equals_v(30)
    with pytest.raises(ValueError, match="scores a population"):
        metrics.permutation_null("udr", factors, factors, permutations=2, seed=0)
    with pytest.raises(KeyError, match="unknown metric"):
        metrics.permutation_null("nope", factors, factors, permutations=2, seed=0)
