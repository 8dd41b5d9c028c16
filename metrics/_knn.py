"""k-nearest-neighbour mutual-information estimators (private engine of :mod:`metrics.estimators`).

* :func:`kraskov` -- Kraskov, Stoegbauer and Grassberger (2004), algorithm 1 (their eq. 8),
  for two continuous variables of any dimension::

      I(X; Y) = psi(k) + psi(N) - < psi(n_x + 1) + psi(n_y + 1) >

  where ``eps_i`` is the max-norm distance from sample ``i`` to its ``k``-th neighbour in the
  joint space and ``n_x``, ``n_y`` count the other samples closer than ``eps_i`` in each
  marginal space.
* :func:`ross` -- Ross (2014, PLoS ONE), for a discrete ``X`` and a continuous ``Y``::

      I(X; Y) = psi(N) - < psi(N_x) > + psi(k) - < psi(m) >

  where ``d_i`` is the distance from sample ``i`` to its ``k``-th neighbour among the
  ``N_x`` samples of its own class and ``m_i`` counts the samples of any class within
  ``d_i`` (the ``k``-th neighbour included).

Conventions shared by both:

* Each continuous column is divided by its standard deviation first (the estimators are
  not scale invariant at finite ``N``; MI is), and shifted by its median (:func:`standardize`).
  Constant columns are only shifted.
* **Ties** (repeated values: discrete or quantised codes) follow Gao et al. (2017,
  "Estimating mutual information for discrete-continuous mixtures"): when the ``k``-th
  neighbour distance is 0, ``k`` is replaced by the number of samples at distance 0 and
  the marginal counts include the samples at distance 0.  Without this rule a tie gives
  a zero radius and a meaningless count.  On heavily tied data (quantised codes) the
  points with at least ``k`` identical others are read off the repeated rows instead of
  queried in a k-d tree full of identical points (same numbers, 3 to 5x faster).
* Cost: one k-d tree query in the joint space and one radius count per marginal,
  ``O(N log N)`` for low dimensions; 1-D counts use sorting instead of a tree.  The
  joint-space query dominates (about 7 ms of an 11 ms estimate at N = 1e4 in 2-D); callers that pair one
  variable with many others prepare it once (:class:`Column`), and tied samples are
  counted on the joint tree already built rather than on a second one.  At N = 20000 in 2-D
  the k-d tree, built and queried, is about 80 % of an estimate and the two sorted counts
  about 18 %: a brute-force search (the distance matrix, block by block) takes about 700
  times as long, scikit-learn's ``KDTree`` or SciPy's with other leaf sizes or build
  options no less, and no neighbour search can serve two estimates (each is in the joint
  space of its own two variables).  The digammas of the counts are read from a table
  (:func:`_digamma_table`).  In more
  than ~6 dimensions k-d trees degrade towards ``O(N^2)`` and the estimators are biased
  towards 0 for strongly dependent variables (Gao et al. 2015), which is why
  :mod:`metrics.estimators` projects multi-column codes first.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.spatial import cKDTree
from scipy.special import digamma


def standardize(values: np.ndarray) -> np.ndarray:
    """Columns shifted by their medians and divided by their standard deviations (constant columns shifted only).

    Neighbour distances do not depend on the shift; the median is a value among the bulk of
    a column, which stays exact when shifted by it, where the mean of a heavy-tailed column
    (``sinh(2 v^3)``, spanning 1e23) rounds the bulk to one value.
    """
    values = np.asarray(values, dtype=np.float64)
    scale = values.std(axis=0)
    return (values - np.median(values, axis=0)) / np.where(scale > 0, scale, 1.0)


def _count_sorted(values: np.ndarray, radius: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """Number of other samples with ``|v_j - v_i| <= radius_i`` for a 1-D column.

    Uses binary search on the sorted column, then corrects the boundaries so that the
    comparison is made on the rounded difference ``fl(v_j - v_i)``, exactly as a k-d tree
    compares distances; otherwise samples lying exactly on the radius (ties) could be
    miscounted through the rounding of ``v_i +- radius``.  The corrections reach the one
    boundary where the rounded difference crosses the radius (it is monotone in ``v_j``)
    from any start, so the start only sets how many are needed: it excludes the samples
    equal to ``v_i +- radius``, which under the strict radius of :func:`kraskov` are mostly
    the ``k``-th neighbour itself (otherwise half the samples need a correction).  All the
    work is done in sorted order, the counts put back in the samples' order once.
    ``order`` is an argsort of ``values`` when the caller already has it (:class:`Column`),
    so a column used in many estimates is sorted once.  Any sorting order gives the same
    counts: a sample's count depends on its value and radius only, not on where it sits
    among equal values, so the (SIMD, about 6x faster) unstable sort is used.
    """
    if order is None:
        order = np.argsort(values)
    ordered, spread = values[order], radius[order]
    last = ordered.size - 1
    high = np.searchsorted(ordered, ordered + spread, side="left")  # first index beyond the ball
    low = np.searchsorted(ordered, ordered - spread, side="right")  # first index inside the ball
    while True:  # move boundaries over whole runs of equal values until the comparison is exact
        grow_high = np.flatnonzero((high <= last) & (ordered[np.minimum(high, last)] - ordered <= spread))
        shrink_high = np.flatnonzero((high > 0) & (ordered[np.maximum(high - 1, 0)] - ordered > spread))
        grow_low = np.flatnonzero((low > 0) & (ordered - ordered[np.maximum(low - 1, 0)] <= spread))
        shrink_low = np.flatnonzero((low <= last) & (ordered - ordered[np.minimum(low, last)] > spread))
        if not (grow_high.size or shrink_high.size or grow_low.size or shrink_low.size):
            break
        high[grow_high] = np.searchsorted(ordered, ordered[high[grow_high]], side="right")
        high[shrink_high] = np.searchsorted(ordered, ordered[high[shrink_high] - 1], side="left")
        low[grow_low] = np.searchsorted(ordered, ordered[low[grow_low] - 1], side="left")
        low[shrink_low] = np.searchsorted(ordered, ordered[low[shrink_low]], side="right")
    counts = np.empty(ordered.size, np.int64)
    counts[order] = high - low - 1
    return counts


def count_within(points: np.ndarray, radius: np.ndarray) -> np.ndarray:
    """Number of *other* samples within max-norm distance ``<= radius_i`` of each sample."""
    if points.shape[1] == 1:
        return _count_sorted(points[:, 0], radius)
    return cKDTree(points).query_ball_point(points, radius, p=np.inf, return_length=True) - 1


def query_in_tree_order(tree: cKDTree, k: int | list[int], p: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """``tree.query`` of every point of ``tree`` itself, in the samples' order: ``(distances, indices)``.

    The points are queried in the tree's own order (``tree.indices``), so that consecutive
    queries visit the same leaves (about 10 % faster in 2-D than the samples' order); each
    query's answer (ties among equidistant points included) depends on the tree only, not
    on the order of the queries, and the answers are put back in the samples' order.
    """
    inside = tree.indices
    distances, indices = tree.query(tree.data[inside], k=k, p=p)
    in_order_distances, in_order_indices = np.empty_like(distances), np.empty_like(indices)
    in_order_distances[inside], in_order_indices[inside] = distances, indices
    return in_order_distances, in_order_indices


def _kth_distance(tree: cKDTree, neighbors: int) -> np.ndarray:
    """Max-norm distance from each point of ``tree`` to its ``neighbors``-th other point (itself excluded)."""
    return query_in_tree_order(tree, [neighbors + 1], p=np.inf)[0][:, 0]


def _copies(points: np.ndarray) -> np.ndarray:
    """For each row, how many rows (itself included) are equal to it."""
    _, inverse, counts = np.unique(points, axis=0, return_inverse=True, return_counts=True)
    return counts[inverse.reshape(-1)]


@lru_cache(maxsize=8)
def _digamma_table(n: int) -> np.ndarray:
    """``digamma(0), ..., digamma(n)``, read-only: the digamma of every count an estimate on ``n`` samples meets.

    The estimators' digammas are of counts (integers up to ``n``), so each is read from this table, computed once
    per sample size, instead of evaluated for every sample of every estimate (3 % of an estimate at N = 20000, 1 %
    read from the table): the same values, since the table holds what ``digamma`` gives for those integers.
    """
    table = digamma(np.arange(n + 1, dtype=np.float64))
    table.flags.writeable = False
    return table


def _strict(radius: np.ndarray) -> np.ndarray:
    """Inclusive radius equivalent to the strict ``< radius`` (0 stays 0: ties are counted)."""
    return np.where(radius > 0, np.nextafter(radius, 0.0), 0.0)


class Column:
    """A continuous ``(n, d)`` variable prepared once for many :func:`kraskov_prepared` calls.

    Holds the standardised values and, for one column, their sort order, which is
    all the marginal count of :func:`kraskov` needs; a factor or code paired with ``L`` or
    ``K`` others is thus standardised and sorted once instead of once per pair.  Whether
    two samples are equal (:attr:`repeats`) is found once, when first asked.
    """

    __slots__ = ("values", "order", "_repeats")

    def __init__(self, values: np.ndarray) -> None:
        self.values = standardize(values)
        self.order = np.argsort(self.values[:, 0]) if self.values.shape[1] == 1 else None
        self._repeats: bool | None = None

    @property
    def repeats(self) -> bool:
        """Whether two samples are equal (only then can a joint space holding this variable repeat a point)."""
        if self._repeats is None:
            first = self.values[self.order, 0] if self.order is not None else np.sort(self.values[:, 0])
            self._repeats = bool(np.any(first[1:] == first[:-1])) and (
                self.order is not None or np.unique(self.values, axis=0).shape[0] < self.values.shape[0])
        return self._repeats

    def count_within(self, radius: np.ndarray) -> np.ndarray:
        """:func:`count_within` of the standardised values."""
        if self.order is None:
            return count_within(self.values, radius)
        return _count_sorted(self.values[:, 0], radius, self.order)


def kraskov(x: np.ndarray, y: np.ndarray, neighbors: int) -> float:
    """Kraskov et al. (2004) estimate (nats) of I(X; Y) for continuous ``(n, p)`` and ``(n, q)`` arrays.

    Requires ``n > neighbors``.  The result may be slightly negative for independent
    variables (estimation noise); callers clip it.
    """
    return kraskov_prepared(Column(x), Column(y), neighbors)


def kraskov_prepared(x: Column, y: Column, neighbors: int) -> float:
    """:func:`kraskov` of two prepared variables (identical result, no repeated preparation).

    Cost: one k-d tree on the joint space, built without median balancing (faster to
    build; the neighbour distances, hence the estimate, do not depend on the tree's
    shape), one ``k``-neighbour query in the tree's order, and one sorted radius count per
    1-D marginal: about 25 ms at N = 20000 in 2-D on one core (30 ms before the query was
    made in tree order and the counts started beside their boundary; 2 % more before the
    digammas were read from a table).
    """
    joint = np.hstack([x.values, y.values])
    n = joint.shape[0]
    tree = cKDTree(joint, balanced_tree=False)
    k_i = np.full(n, neighbors)
    copies = _copies(joint) if x.repeats and y.repeats else None
    if copies is not None and np.any(copies > neighbors):
        # A point with at least ``neighbors`` identical others has its k-th neighbour at distance 0 and ``copies - 1``
        # samples at distance 0: read off the repeated rows instead of asking a k-d tree full of identical points
        # (3 to 5x slower per query on quantised codes).  The same numbers: a max-norm distance is 0 exactly when
        # the rows are equal, and the other points get the tree's answer, whatever order they are asked in.
        tied = copies > neighbors
        distance = np.zeros(n)
        if not tied.all():
            distance[~tied] = tree.query(joint[~tied], k=[neighbors + 1], p=np.inf)[0][:, 0]
        k_i[tied] = copies[tied] - 1
    else:
        distance = _kth_distance(tree, neighbors)
        tied = distance == 0
        if tied.any():
            k_i[tied] = tree.query_ball_point(joint[tied], 0.0, p=np.inf, return_length=True) - 1
    radius = _strict(distance)
    n_x, n_y = x.count_within(radius), y.count_within(radius)
    psi = _digamma_table(n)
    return float(np.mean(psi[k_i] + psi[n] - psi[n_x + 1] - psi[n_y + 1]))


def ross(labels: np.ndarray, y: np.ndarray, neighbors: int) -> float:
    """Ross (2014) estimate (nats) of I(X; Y) for integer labels ``X`` and a continuous ``(n, q)`` ``Y``.

    Samples whose class has a single member carry no neighbour information and are left
    out (with ``N`` reduced accordingly); a class with ``2 <= N_x <= neighbors`` members
    uses ``k = N_x - 1`` for its samples.

    Raises
    ------
    ValueError
        When no class has two samples (the variable is not really discrete).
    """
    _, inverse, class_sizes = np.unique(labels, return_inverse=True, return_counts=True)
    keep = class_sizes[inverse] >= 2
    if keep.sum() < 2:
        raise ValueError("a discrete factor needs repeated values (classes with at least 2 samples); treat it as continuous")
    y = standardize(y[keep])
    classes = inverse[keep]
    sizes = class_sizes[classes]
    n = classes.size
    within = np.empty(n)
    k_i = np.minimum(neighbors, sizes - 1)
    order = np.argsort(classes, kind="stable")
    bounds = np.flatnonzero(np.diff(classes[order])) + 1
    for members in np.split(order, bounds):
        k = int(k_i[members[0]])
        points = y[members]
        tree = cKDTree(points, balanced_tree=False)
        within[members] = _kth_distance(tree, k)
        tied = within[members] == 0
        if tied.any():
            k_i[members[tied]] = tree.query_ball_point(points[tied], 0.0, p=np.inf, return_length=True) - 1
    m = count_within(y, within)
    psi = _digamma_table(n)
    return float(np.mean(psi[n] - psi[sizes] + psi[k_i] - psi[m]))
