"""Subsets, batches and votes shared by the intervention-based metrics.

Zaidi et al. (2022, section 4.2) describe these metrics with a simulator that can
*intervene*: fix a factor at a value and generate new samples.  On plain arrays an
intervention is replaced by a **subset**: the samples that share a value of the fixed
factor(s).  The rules, used by :mod:`metrics.z_diff`, :mod:`metrics.z_min_var`,
:mod:`metrics.z_max_var` and :mod:`metrics.irs`, are:

* **Values.**  Continuous factors are cut into ``bins`` equal-width bins with
  :func:`metrics.information.to_labels` (10 by default, as in the review's
  experiments); discrete factors keep their categories.
* **Subsets.**  A subset is the set of samples sharing the label of one factor
  (Z-diff, Z-min Variance, IRS) or the labels of every factor but one (Z-max
  Variance).
* **Choosing a subset.**  "Fix a factor at a random value" draws a random sample
  among those whose subset has at least 2 members and takes its subset: values are
  drawn with their frequency in the data, and a subset of 1 sample, where nothing
  can vary, is never chosen.
* **Too sparse data** (:func:`fixable_subsets`).  When, for some factor, no subset
  has 2 members, the continuous factors are re-binned with one bin fewer, then two,
  and so on down to 2 bins, and the first (finest) binning that gives every factor
  a subset of 2 samples is used.  If none does (discrete factors whose values are
  all distinct, or 2 samples), a ValueError says which factor, and what to change.
* **Batches.**  A batch is ``min(batch_size, subset size)`` members of the subset
  drawn *without* replacement, so a batch never repeats a row; a small subset gives
  a small batch rather than the same rows over and over.
* **Codes** of the vote-based metrics (Z-diff, Z-min and Z-max Variance) are
  centred and divided by their standard deviation over all samples (review 4.2.2:
  "all codes are normalized by their standard deviation computed over the
  complete data set"); IRS normalises each code by its own spread instead.  Codes whose standard deviation is at most a
  threshold (0 for Z-diff; ``std_threshold`` for Z-min and Z-max Variance) are
  *inactive*: they never receive a vote.
* **Degenerate cases** (documented finite results of the vote-based metrics): if no
  code is active the score is 0 (no code carries anything); with a single factor
  the score is 1, because the classifier cannot be wrong (its accuracy equals the
  chance level 1, and ``(a - 1/K) / (1 - 1/K)`` is 0/0): as for DCI's modularity, a
  code cannot mix factors when there is only one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from metrics._sampling import as_generator
from metrics.constraints import AT_LEAST_TWO, COUNT, NON_NEGATIVE
from metrics.information import to_labels
from metrics.shared import memoised

#: The rules of Z-min and Z-max Variance's options (:mod:`metrics.constraints`): a batch needs two samples to have a
#: variance.
VARIANCE_VOTE_CONSTRAINTS = {"bins": AT_LEAST_TWO, "batch_size": AT_LEAST_TWO, "n_train": COUNT, "n_eval": COUNT,
                             "std_threshold": NON_NEGATIVE}
#: Gathered code values held at once by :func:`_batch_variances` (2 MiB: the passes over a block stay in cache).
_BLOCK_VALUES = 1 << 18


@dataclass(frozen=True)
class Subsets:
    """Samples grouped by a label, stored as one sorted index array.

    Attributes
    ----------
    members : numpy.ndarray
        Sample indices sorted by subset.
    starts : numpy.ndarray
        Offset of each subset's first member in ``members``.
    sizes : numpy.ndarray
        Number of members of each subset.
    of_sample : numpy.ndarray
        ``(n,)`` subset index of every sample.
    """

    members: np.ndarray
    starts: np.ndarray
    sizes: np.ndarray
    of_sample: np.ndarray

    def rows(self, subset: int) -> np.ndarray:
        """Indices of the samples of ``subset``."""
        start = self.starts[subset]
        return self.members[start : start + self.sizes[subset]]


def _row_ranks(rows: np.ndarray) -> np.ndarray:
    """Each row's index among the distinct rows in lexicographic order.

    The inverse of ``numpy.unique(rows, axis=0)``, from one 1-D unique: each column,
    shifted by its minimum, is a digit of a mixed-radix integer key (radix: the column's
    range), so that the keys order the rows lexicographically.  Where the next digit
    would overflow 63 bits the key so far is replaced by its rank (at most ``n`` values)
    first.  Numpy's row-wise unique sorts structured records instead, 10 to 40 times
    slower at n = 20000; one unique per column, 2 to 7 times slower on 7 columns.
    """
    ranks = np.zeros(rows.shape[0], dtype=np.intp)
    span = 1  # the key's values lie in [0, span)
    for column in rows.T:
        low, high = int(column.min()), int(column.max())
        radix = high - low + 1
        if span * radix >= 2**62:
            ranks = np.unique(ranks, return_inverse=True)[1]
            span = int(ranks.max()) + 1
            if span * radix >= 2**62:  # the column alone is too wide for a digit: rank it first
                digits = np.unique(column, return_inverse=True)[1]
                radix = int(digits.max()) + 1
                ranks = ranks * radix + digits
                span *= radix
                continue
        ranks = ranks * radix + (column.astype(np.intp, copy=False) - low)
        span *= radix
    return np.unique(ranks, return_inverse=True)[1] if rows.shape[1] else ranks


def subsets_of(labels: np.ndarray) -> Subsets:
    """Group samples by their row of ``labels`` (``(n,)`` or ``(n, m)`` integers, ``m`` may be 0)."""
    return _grouped(_row_ranks(labels.reshape(labels.shape[0], -1)))


def _grouped(keys: np.ndarray) -> Subsets:
    """The subsets of samples of equal ``keys`` (ranks ``0 .. m-1``, each taken)."""
    members = np.argsort(keys, kind="stable")
    sizes = np.bincount(keys)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    for array in (members, starts, sizes, keys):  # read-only: one draw's metrics share them uncopied
        array.setflags(write=False)
    return Subsets(members, starts, sizes, keys)


def _factor_subsets(labels: np.ndarray, all_but_one: bool) -> tuple[list[Subsets], int | None]:
    """Per factor ``k``: samples grouped by label ``k``, or by every label but ``k``.

    Stops at the first factor with no subset of at least 2 samples and returns its index
    with the subsets found before it (None when every factor has one).  Whether a subset
    has 2 samples is read off the rows' ranks, before grouping: a binning too fine for
    Z-max Variance (every row distinct) costs one sort, not two.
    """
    subsets = []
    for k in range(labels.shape[1]):
        keys = _row_ranks(np.delete(labels, k, axis=1) if all_but_one else labels[:, k : k + 1])
        if not keys.size or int(keys.max()) + 1 == keys.size:  # as many distinct rows as rows
            return subsets, k
        subsets.append(_grouped(keys))
    return subsets, None


def fixable_subsets(
    factors: np.ndarray, discrete: Sequence[bool] | None, bins: int, *, all_but_one: bool, metric: str
) -> list[Subsets]:
    """Per-factor subsets, re-binning continuous factors more coarsely if data are too sparse.

    See the module notes.  ``all_but_one`` groups by every factor but ``k`` (Z-max).  A
    binning is abandoned at its first factor without a subset of 2 samples.  Inside
    :func:`metrics.shared_estimates` the subsets are computed once per factor array and
    options (Z-min Variance and Z-diff share them at equal ``bins``).

    Raises
    ------
    ValueError
        When even 2 bins leave a factor without a subset of 2 samples.
    """
    flags = np.zeros(factors.shape[1], bool) if discrete is None else np.asarray(discrete, bool)
    subsets, failing = memoised("intervention_subsets", (factors,), (tuple(flags.tolist()), bins, all_but_one),
                                lambda: _coarsest_fixable(factors, flags, bins, all_but_one), private_copy=False)
    if failing is None:
        return subsets
    if all_but_one:
        problem = f"share the values of every factor but factor {failing}, so it can never vary alone"
    else:
        problem = f"share the value of factor {failing}, so it can never be fixed"
    raise ValueError(
        f"{metric}: no two of the {factors.shape[0]} samples {problem}, even with continuous factors cut into "
        "2 bins; add samples, merge the categories of discrete factors or drop factors"
    )


def _coarsest_fixable(
    factors: np.ndarray, flags: np.ndarray, bins: int, all_but_one: bool
) -> tuple[list[Subsets], int | None]:
    """The subsets at the finest binning from ``bins`` down to 2 where every factor has a
    subset of 2 samples; else the factor that fails at the last binning tried."""
    for coarser in range(bins, 1, -1):
        subsets, failing = _factor_subsets(to_labels(factors, flags, coarser).codes, all_but_one)
        if failing is None:
            return subsets, None
        if flags.all():
            break
    return subsets, failing


def choose_subsets(subsets: Subsets, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` subsets drawn with their frequency, among those of at least 2 members."""
    eligible = np.flatnonzero(subsets.sizes[subsets.of_sample] >= 2)
    return subsets.of_sample[eligible[rng.integers(eligible.size, size=count)]]


def batch_rows(subsets: Subsets, subset: int, batch_size: int, rng: np.random.Generator) -> np.ndarray:
    """``min(batch_size, size)`` members of ``subset`` drawn without replacement."""
    rows = subsets.rows(subset)
    if rows.size <= batch_size:
        return rows
    return rows[rng.choice(rows.size, size=batch_size, replace=False)]


def scale_codes(codes: np.ndarray, std_threshold: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Codes centred and divided by their standard deviation, and which codes are active.

    Parameters
    ----------
    codes : numpy.ndarray
        ``(n, L)`` codes.
    std_threshold : float, default 0
        Codes whose standard deviation (on their own scale) is at most this value are
        inactive (pruned); a constant code is always inactive.

    Returns
    -------
    scaled : numpy.ndarray
        ``(n, L)`` codes with unit standard deviation (inactive codes are 0).
    active : numpy.ndarray
        ``(L,)`` bool mask.
    """
    threshold = float(std_threshold)
    std = codes.std(axis=0)
    active = (std > threshold) & (std > 0)
    scale = np.divide(1.0, std, out=np.zeros_like(std), where=active)
    return (codes - codes.mean(axis=0)) * scale, active


def degenerate_score(n_factors: int, active: np.ndarray) -> float | None:
    """The documented score of a degenerate case (see the module notes), or None."""
    if not active.any():
        return 0.0
    if n_factors == 1:
        return 1.0
    return None


def variance_votes(
    scaled: np.ndarray,
    active: np.ndarray,
    subsets: Sequence[Subsets],
    count: int,
    batch_size: int,
    rng: np.random.Generator,
    lowest: bool,
) -> np.ndarray:
    """Votes (code, factor) of the Z-min / Z-max Variance batches.

    Each vote picks a factor ``k`` uniformly, a subset of ``subsets[k]`` (see
    :func:`choose_subsets`) and a batch of it (:func:`batch_rows`), and votes for the
    active code of lowest (Z-min) or highest (Z-max) variance over the batch.  The
    vote is the code's index among *all* codes, so pruned codes never shift it.

    Returns
    -------
    numpy.ndarray
        ``(count, 2)`` int64 votes.
    """
    factors = rng.integers(len(subsets), size=count)
    chosen = np.empty(count, dtype=np.int64)
    for k, groups in enumerate(subsets):
        mask = factors == k
        chosen[mask] = choose_subsets(groups, int(mask.sum()), rng)
    votes = np.empty((count, 2), dtype=np.int64)
    votes[:, 1] = factors
    batches = [batch_rows(subsets[k], subset, batch_size, rng) for k, subset in zip(factors.tolist(), chosen.tolist())]
    variances = _batch_variances(scaled, batches)
    variances[:, ~active] = np.inf if lowest else -np.inf
    votes[:, 0] = np.argmin(variances, axis=1) if lowest else np.argmax(variances, axis=1)
    return votes


def _batch_variances(scaled: np.ndarray, batches: Sequence[np.ndarray]) -> np.ndarray:
    """``(len(batches), L)``: each batch's ``scaled[rows].var(axis=0)``, bit for bit, many batches at a time.

    Batches of one size are gathered together into a ``(batches, size, L)`` array and reduced as ``var(axis=1)``
    does, which sums over the middle axis in the order ``var(axis=0)`` sums one ``(size, L)`` batch over its first
    (checked for every size and width in ``tests/metrics/test_intervention_subsets_and_pairs.py``; a segment sum,
    ``add.reduceat``, orders its additions otherwise and differs in the last bit), its steps taken in place on the
    gathered block.  One gather and a few reductions a block instead of a gather and ``var`` a batch: at n = 20000,
    8 x 8, Z-min Variance's 1600 batches of 200 rows took a quarter of the time.  Blocks hold at most
    :data:`_BLOCK_VALUES` gathered values.
    """
    sizes = np.fromiter((rows.size for rows in batches), dtype=np.intp, count=len(batches))
    variances = np.empty((len(batches), scaled.shape[1]))
    for size in np.unique(sizes):
        members = np.flatnonzero(sizes == size)
        per_block = max(1, _BLOCK_VALUES // (int(size) * scaled.shape[1]))
        for start in range(0, members.size, per_block):
            block = members[start : start + per_block]
            values = np.take(scaled, np.stack([batches[i] for i in block]), axis=0)
            # numpy's var(axis=1), step by step, in place: the mean as the sum over the batch divided by its size, the
            # deviations from it squared, their sum divided by the size (the same operations in the same order)
            means = np.add.reduce(values, axis=1, keepdims=True)
            means /= size
            values -= means
            np.multiply(values, values, out=values)
            variances[block] = np.add.reduce(values, axis=1) / size
    return variances


def majority_vote_accuracy(train: np.ndarray, evaluation: np.ndarray, n_codes: int, n_factors: int) -> float:
    """Accuracy of the majority-vote classifier code -> factor (Kim and Mnih 2018).

    Parameters
    ----------
    train, evaluation : numpy.ndarray
        ``(m, 2)`` votes: (index of the chosen code among *all* codes, factor).
        Each code is assigned the factor it received most training votes for (ties go
        to the lowest factor index; a code without training votes predicts factor 0).

    Returns
    -------
    float
        Fraction of evaluation votes whose factor is the one assigned to their code.
    """
    counts = np.zeros((n_codes, n_factors), dtype=np.int64)
    np.add.at(counts, (train[:, 0], train[:, 1]), 1)
    assigned = counts.argmax(axis=1)
    return float(np.mean(assigned[evaluation[:, 0]] == evaluation[:, 1]))


def chance_rescaled(accuracy: float, n_factors: int) -> float:
    """``(accuracy - 1/K) / (1 - 1/K)`` clipped at 0, for ``K >= 2``: chance maps to 0, perfect to 1."""
    chance = 1.0 / n_factors
    return max(0.0, (accuracy - chance) / (1.0 - chance))


def variance_vote_score(
    factors: np.ndarray,
    codes: np.ndarray,
    discrete: Sequence[bool] | None,
    *,
    bins: int,
    batch_size: int,
    n_train: int,
    n_eval: int,
    std_threshold: float,
    random_state: int | np.random.Generator | None,
    lowest: bool,
    metric: str,
) -> float:
    """Z-min (``lowest``) or Z-max Variance: train a majority vote on ``n_train`` votes,
    score it on ``n_eval`` fresh votes, rescale so that chance (1/K) is 0."""
    rng = as_generator(random_state)
    scaled, active = scale_codes(codes, std_threshold)
    trivial = degenerate_score(factors.shape[1], active)
    if trivial is not None:
        return trivial
    subsets = fixable_subsets(factors, discrete, bins, all_but_one=not lowest, metric=metric)
    train = variance_votes(scaled, active, subsets, n_train, batch_size, rng, lowest)
    evaluation = variance_votes(scaled, active, subsets, n_eval, batch_size, rng, lowest)
    accuracy = majority_vote_accuracy(train, evaluation, codes.shape[1], factors.shape[1])
    return chance_rescaled(accuracy, factors.shape[1])
