"""The intervention metrics' fast paths give the scores of their previous implementations, bit for bit.

Two steps were rewritten for speed (issue 13, item 5):

* :func:`metrics._interventions.subsets_of` ranks the rows of labels with one 1-D
  ``numpy.unique`` of mixed-radix integer keys instead of the row-wise
  ``numpy.unique(axis=0)`` (a sort of structured records, 4x to 40x slower at n = 20000),
  and Z-max Variance's search for a fine enough binning stops at the ranks;
* :func:`metrics.z_diff._pair_differences` gathers the pairs with ``numpy.take`` and
  subtracts and takes absolute values in place instead of building three temporaries,
  a block of points at a time (the pairs still drawn for the whole chunk at once), laid
  out batch-first so that the mean over the batch is an outer-axis sum (a single code
  keeps the previous layout, which numpy sums pairwise), and reduces the second member's
  offset modulo the subset size by a subtraction;
* :func:`metrics._interventions.variance_votes` (Z-min and Z-max Variance) computes the batches' variances a block of
  batches at a time (one gather, segment sums) instead of a gather and ``var`` per batch, the batches drawn as before.

The previous implementations are kept here only, and patched back in to compute the
reference scores; ``tests/benchmarks/test_bench_interventions.py`` loads them from this
file by its path, to time them.
"""

from __future__ import annotations

import numpy as np
import pytest

import metrics
import metrics._interventions as interventions
import metrics.irs as irs
import metrics.z_diff as z_diff
import scenarios
from metrics._interventions import Subsets, subsets_of


def previous_subsets_of(labels: np.ndarray) -> Subsets:
    """``subsets_of`` before the 1-D path: always the row-wise unique."""
    rows = labels.reshape(labels.shape[0], -1)
    keys = np.unique(rows, axis=0, return_inverse=True)[1].ravel()
    members = np.argsort(keys, kind="stable")
    sizes = np.bincount(keys)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return Subsets(members, starts, sizes, keys)


def previous_factor_subsets(labels, all_but_one):
    """``_factor_subsets`` before it read the ranks: every factor's subsets built, then checked."""
    subsets = []
    for k in range(labels.shape[1]):
        groups = previous_subsets_of(np.delete(labels, k, axis=1) if all_but_one else labels[:, k])
        if not np.any(groups.sizes >= 2):
            return subsets, k
        subsets.append(groups)
    return subsets, None


def previous_pair_differences(scaled, subsets, chosen, rng):
    """``_pair_differences`` before the in-place gather."""
    sizes = subsets.sizes[chosen]
    first = rng.integers(sizes)
    second = (first + 1 + rng.integers(sizes - 1)) % sizes
    starts = subsets.starts[chosen]
    rows_1 = subsets.members[starts + first]
    rows_2 = subsets.members[starts + second]
    return np.abs(scaled[rows_1] - scaled[rows_2]).mean(axis=1)


def previous_variance_votes(scaled, active, subsets, count, batch_size, rng, lowest):
    """``variance_votes`` before the block of batches: a gather and ``var`` per batch."""
    factors = rng.integers(len(subsets), size=count)
    chosen = np.empty(count, dtype=np.int64)
    for k, groups in enumerate(subsets):
        mask = factors == k
        chosen[mask] = interventions.choose_subsets(groups, int(mask.sum()), rng)
    votes = np.empty((count, 2), dtype=np.int64)
    votes[:, 1] = factors
    excluded = np.inf if lowest else -np.inf
    for i in range(count):
        variances = scaled[interventions.batch_rows(subsets[factors[i]], chosen[i], batch_size, rng)].var(axis=0)
        variances[~active] = excluded
        votes[i, 0] = np.argmin(variances) if lowest else np.argmax(variances)
    return votes


@pytest.fixture
def previous_paths(monkeypatch):
    """Patch the previous implementations in; undone after the test."""

    def install():
        monkeypatch.setattr(interventions, "subsets_of", previous_subsets_of)
        monkeypatch.setattr(interventions, "_factor_subsets", previous_factor_subsets)
        monkeypatch.setattr(irs, "subsets_of", previous_subsets_of)
        monkeypatch.setattr(z_diff, "_pair_differences", previous_pair_differences)
        monkeypatch.setattr(interventions, "variance_votes", previous_variance_votes)

    return install


def representations():
    rng = np.random.default_rng(3)
    uniform = rng.random((3000, 4))
    noise = scenarios.get("noise").generate(0.2, n=4000, seed=1)
    tan = scenarios.get("nonlinear").generate(1.0, n=3000, seed=2)
    discrete = rng.integers(-2, 3, (2500, 3)).astype(float)
    return [
        (uniform, uniform[:, ::-1] + 0.1 * rng.normal(size=uniform.shape), None),
        (uniform, rng.random((3000, 5)), None),
        (noise.factors, noise.codes, noise.discrete),
        (tan.factors, tan.codes, tan.discrete),
        (discrete, discrete @ rng.normal(size=(3, 3)), (True, True, True)),
    ]


@pytest.mark.parametrize("labels", [
    np.array([3, -1, 3, 7, -1, 0]),
    np.array([[2], [0], [2], [2], [5]]),
    np.random.default_rng(0).integers(-5, 50, 4000),
    np.random.default_rng(1).integers(0, 3, (300, 2)),
    np.random.default_rng(2).integers(0, 10, (5000, 7)),
    np.random.default_rng(3).integers(-10**12, 10**12, (400, 3)),
    np.random.default_rng(4).integers(-2**62, 2**62, (300, 2)),  # a column too wide for a mixed-radix digit
    np.random.default_rng(5).integers(0, 2**31, (300, 3)),  # digits fit, their product does not
    np.empty((4, 0), dtype=np.int64),
])
def test_subsets_equal_the_row_wise_grouping(labels):
    fast, previous = subsets_of(labels), previous_subsets_of(labels)
    for field in ("members", "starts", "sizes", "of_sample"):
        assert np.array_equal(getattr(fast, field), getattr(previous, field)), field
        assert getattr(fast, field).dtype == getattr(previous, field).dtype, field


@pytest.mark.parametrize("metric", ["z_diff", "z_min_var", "z_max_var", "irs"])
def test_scores_are_bit_identical_to_the_previous_implementation(metric, previous_paths):
    options = {"n_train": 1500, "n_eval": 800} if metric == "z_diff" else {}
    spec = metrics.get(metric)
    fast = []
    for factors, codes, discrete in representations():
        for seed in (0, 5):
            state = {"random_state": seed} if spec.stochastic else {}
            fast.append(metrics.evaluate(metric, factors, codes, discrete=discrete, **state, **options))
    previous_paths()
    previous = []
    for factors, codes, discrete in representations():
        for seed in (0, 5):
            state = {"random_state": seed} if spec.stochastic else {}
            previous.append(metrics.evaluate(metric, factors, codes, discrete=discrete, **state, **options))
    assert fast == previous
    assert len({repr(score) for score in fast}) > 1  # the inputs do not all give one score


@pytest.mark.parametrize("codes_count", [1, 2, 3, 12])
@pytest.mark.parametrize("points, batch_size", [(1, 1), (37, 7), (512, 200), (300, 1000)])
def test_pair_differences_equal_the_previous_arrays_bit_for_bit(codes_count, points, batch_size):
    rng = np.random.default_rng(codes_count * batch_size + points)
    scaled = rng.normal(size=(3000, codes_count))
    groups = subsets_of(rng.integers(0, 40, 3000))
    chosen = interventions.choose_subsets(groups, points * batch_size, rng).reshape(points, batch_size)
    fast_rng, previous_rng = np.random.default_rng(1), np.random.default_rng(1)
    fast = z_diff._pair_differences(scaled, groups, chosen, fast_rng)
    previous = previous_pair_differences(scaled, groups, chosen, previous_rng)
    assert np.array_equal(fast, previous)
    assert fast_rng.integers(2**62) == previous_rng.integers(2**62)  # the same draws were consumed


@pytest.mark.parametrize("codes_count", [1, 3, 8, 300])
@pytest.mark.parametrize("batch_size", [2, 7, 200])
def test_batch_variances_equal_numpys_var_of_each_batch_bit_for_bit(codes_count, batch_size):
    rng = np.random.default_rng(codes_count + batch_size)
    scaled = rng.normal(size=(2000, codes_count)) * rng.uniform(0.1, 1e3, codes_count)
    groups = subsets_of(rng.integers(0, 30, 2000))  # subsets of about 67: some batches smaller than batch_size
    chosen = interventions.choose_subsets(groups, 900, rng)
    batches = [interventions.batch_rows(groups, subset, batch_size, rng) for subset in chosen]
    assert len({rows.size for rows in batches}) > 1 or batch_size < 60
    fast = interventions._batch_variances(scaled, batches)  # blocks of batches when 300 codes
    assert np.array_equal(fast, np.array([scaled[rows].var(axis=0) for rows in batches]))


@pytest.mark.parametrize("lowest", [True, False])
def test_votes_equal_the_previous_votes(lowest):
    rng = np.random.default_rng(7)
    scaled = rng.normal(size=(3000, 6))
    active = np.array([True, True, False, True, True, True])
    subsets = [subsets_of(rng.integers(0, 12, 3000)) for _ in range(4)]
    fast = interventions.variance_votes(scaled, active, subsets, 700, 50, np.random.default_rng(3), lowest)
    previous = previous_variance_votes(scaled, active, subsets, 700, 50, np.random.default_rng(3), lowest)
    assert np.array_equal(fast, previous)
    assert not np.any(fast[:, 0] == 2)  # the inactive code gets no vote
