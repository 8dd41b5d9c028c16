"""Random-forest regression grown tree by tree: scikit-learn's ``RandomForestRegressor``, without its overhead per tree.

DCI-RF grows ``K x len(leaf_sizes) x n_estimators`` trees on a few hundred rows (480 a call at 8 factors, n = 1000),
where scikit-learn's forest spends about as long around each small tree as growing it: cloning and validating an
estimator, a ``RandomState`` and a bootstrap draw made twice (to fit, then again for the out-of-bag score), a checked
``predict`` on the out-of-bag rows.  :func:`grow_forest` grows the same trees as
``DecisionTreeRegressor.fit(rows, sample_weight=counts, check_input=False)`` on the rows each bootstrap drew, with
scikit-learn's compiled builder called directly (:class:`_TreeGrower`: the estimator's checks around it, those of the
weights above all, took about a quarter of a call at n = 1000), and keeps each tree's bootstrap, so the out-of-bag
score reads it instead of drawing it again; :func:`grow_forests` grows DCI-RF's forests of several leaf sizes from one
seed together, drawing each tree's seed and bootstrap once for all of them.

At the paper preset's n = 20000 (8 factors x 8 codes, 15000 training rows, 480 trees of about 1740 distinct rows a
call) scikit-learn's tree builder is most of a DCI-RF call and the trees' predictions (out-of-bag and held-out) about a
tenth: giving each tree only its bootstrap's rows (see :func:`grow_forests`), reading predictions off the fitted trees
and gathering rows with ``np.take`` took about 7 % off that call.

The forest is the one ``RandomForestRegressor(n_estimators, min_samples_leaf, max_features=1.0, max_samples,
oob_score=True, random_state=seed)`` grows, bit for bit: its tree seeds (one ``randint(2**31 - 1)`` each from the
forest's ``RandomState``), each tree's bootstrap (``randint(0, n, max_samples)`` from the tree's seed, passed as
counts), and its out-of-bag R², importances and predictions (sums in the same order).  Those are scikit-learn's
documented behaviour of ``random_state`` only in distribution; ``tests/metrics/test_forest.py`` checks the bits against
the installed scikit-learn, so a release that draws them otherwise fails that test (the forest here stays a valid
random forest, with other draws).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only: scikit-learn is imported where it is called (a process that runs no
    # metric of it, e.g. a report or a listing, does not load it)
    from sklearn.tree._tree import Tree

#: Tree seeds are drawn below this bound, as scikit-learn draws an estimator's ``random_state``; also the depth bound
#: ``DecisionTreeRegressor(max_depth=None)`` gives its builder.
_TREE_SEED_BOUND = _NO_DEPTH_LIMIT = np.iinfo(np.int32).max


@dataclass(frozen=True)
class Forest:
    """Regression trees, each grown on a bootstrap sample of the training rows.

    Attributes
    ----------
    trees : tuple of sklearn.tree._tree.Tree
        The fitted trees' structures (what ``DecisionTreeRegressor.tree_`` holds).
    oob_score : float
        Out-of-bag R²: each training row predicted by the trees whose bootstrap left it out (0 for a row every
        bootstrap drew, as scikit-learn's forest counts it).
    oob_score_se : float
        The standard error of :attr:`oob_score` over the rows that some tree left out: ``R² = 1 - sum_i e_i² / SS``
        (``e_i`` a row's out-of-bag error, ``SS`` the targets' sum of squares about their mean), and the ``m`` rows
        with an out-of-bag prediction contribute ``sum e_i²`` of standard error ``sd(e²) sqrt(m)``, so this is
        ``sd(e²) sqrt(m) / SS``.  The rows every bootstrap drew (counted as predicted 0) are left out: the forests a
        call grows from one seed share them, so they shift every forest's R² alike, and with few trees (a tenth of
        the rows with 5) their large errors would swamp the spread of the others; 0 for constant targets or fewer
        than 2 such rows.
    """

    trees: tuple[Tree, ...]
    oob_score: float
    oob_score_se: float = 0.0

    def predict(self, codes: np.ndarray) -> np.ndarray:
        """The trees' mean prediction for each row of ``codes``."""
        rows = np.ascontiguousarray(codes, dtype=np.float32)
        total = np.zeros(rows.shape[0])
        for tree in self.trees:
            total += _tree_predictions(tree, rows)
        return total / len(self.trees)

    def importances(self) -> np.ndarray:
        """Impurity importances: the mean over the trees that split of each tree's (each sums to 1), normalised to
        sum to 1; zeros when no tree splits."""
        split = [tree.compute_feature_importances() for tree in self.trees if tree.node_count > 1]
        if not split:
            return np.zeros(self.trees[0].n_features)
        mean = np.mean(split, axis=0, dtype=np.float64)
        return mean / np.sum(mean)


def _tree_predictions(tree: Tree, rows: np.ndarray) -> np.ndarray:
    """``DecisionTreeRegressor.predict(rows, check_input=False)``, read off the fitted tree structure (each row's leaf
    value) without the estimator's checks that it is fitted and of the rows' width, which ``rows`` (float32, as wide as
    the codes the tree was grown on) pass by construction: the same numbers, about a quarter less time at n = 20000."""
    return tree.predict(rows)[:, 0]


class _TreeGrower:
    """Grows the tree ``DecisionTreeRegressor(min_samples_leaf=leaf, max_features=1.0, random_state=stream)`` fits to
    weighted rows (``fit(rows, values, sample_weight=weights, check_input=False)``), bit for bit, with scikit-learn's
    own compiled criterion, splitter and depth-first builder, set up as that ``fit`` sets them up, but without the
    estimator around them: its parameter checks, ``check_random_state`` and, above all, the check of the weights (a
    conversion, a finiteness scan and a dataframe-library probe), which took about a quarter of a DCI-RF call at
    n = 1000 (0.56 of 2.2 s on 10 x 10 codes, 600 trees).

    The builder's classes are scikit-learn's private modules (``sklearn.tree._classes``'s ``CRITERIA_REG``,
    ``DENSE_SPLITTERS``, ``DepthFirstTreeBuilder``, ``Tree``), stable since 1.4; where they cannot be imported or set
    up as here (another release), :meth:`grow` fits the public estimator instead, with the same result.
    ``tests/metrics/test_forest.py`` checks both ways against ``RandomForestRegressor`` bit for bit.
    """

    def __init__(self, n_features: int) -> None:
        self.n_features = n_features
        try:
            from sklearn.tree._classes import CRITERIA_REG, DENSE_SPLITTERS, DepthFirstTreeBuilder, Tree
        except ImportError:
            self.compiled = None
        else:
            self.compiled = (CRITERIA_REG["squared_error"], DENSE_SPLITTERS["best"], DepthFirstTreeBuilder, Tree)

    def grow(self, rows: np.ndarray, values: np.ndarray, weights: np.ndarray, leaf: int,
             stream: np.random.RandomState, seed: int) -> Tree:
        """The tree of ``values`` (``(m, 1)`` float64) on ``rows`` (``(m, L)`` float32, C-contiguous) weighted by
        ``weights`` (``(m,)`` float64), with leaves of at least ``leaf`` rows, drawing from ``stream`` seeded with
        ``seed`` (the tree's ``random_state``)."""
        if self.compiled is not None:
            stream.seed(seed)
            try:
                return self._grow_compiled(rows, values, weights, leaf, stream)
            except TypeError:  # another release's signatures: the public estimator from now on, from the same seed
                self.compiled = None
        stream.seed(seed)
        return self._grow_public(rows, values, weights, leaf, stream)

    def _grow_compiled(self, rows: np.ndarray, values: np.ndarray, weights: np.ndarray, leaf: int,
                       stream: np.random.RandomState) -> Tree:
        criterion_class, splitter_class, builder_class, tree_class = self.compiled
        # as DecisionTreeRegressor._fit sets them: max_features=1.0 -> every code, min_weight_fraction_leaf=0 ->
        # min_weight_leaf 0, min_samples_split max(2, 2 * leaf), no depth limit, no monotonic constraint
        splitter = splitter_class(criterion_class(1, rows.shape[0]), self.n_features, leaf, 0.0, stream, None)
        tree = tree_class(self.n_features, np.ones(1, dtype=np.intp), 1)
        builder = builder_class(splitter, max(2, 2 * leaf), leaf, 0.0, _NO_DEPTH_LIMIT, 0.0)
        builder.build(tree, rows, values, weights, None)
        return tree

    def _grow_public(self, rows: np.ndarray, values: np.ndarray, weights: np.ndarray, leaf: int,
                     stream: np.random.RandomState) -> Tree:
        from sklearn.tree import DecisionTreeRegressor

        estimator = DecisionTreeRegressor(min_samples_leaf=leaf, max_features=1.0, random_state=stream)
        return estimator.fit(rows, values[:, 0], sample_weight=weights, check_input=False).tree_


def grow_forests(codes: np.ndarray, target: np.ndarray, *, n_estimators: int, leaf_sizes: Sequence[int],
                 bootstrap_size: int, seed: int) -> list[Forest]:
    """Grow one forest per minimum leaf size, ``n_estimators`` regression trees of ``target`` on ``codes`` each, from
    the same seed: the forests :func:`grow_forest` grows one by one, bit for bit, each tree's draws made once for all.

    Forests grown from one seed share their tree seeds, hence each tree's bootstrap and out-of-bag rows: they are
    drawn once per tree and read by every forest.  One ``RandomState`` is re-seeded with each tree's seed (to draw its
    bootstrap, then for the tree to draw from): the same stream as a new ``RandomState(tree_seed)``, whose
    construction (entropy from the operating system, then the legacy seeding) cost more than a small tree.

    Each tree is given the rows its bootstrap drew, in their order, weighted by how often it drew them, rather than
    every row with weight 0 for the others (as scikit-learn's forest does): scikit-learn's splitter keeps only the rows
    of non-zero weight, in their order, and adding a weight of 0 to a sum changes no bit, so the tree is the same; what
    goes is the work and memory in proportion to every row, per tree (the splitter's and the weights' checks over all
    of them, splits that gather from all of them): about 5 % of growing the trees at n = 20000, where a bootstrap of
    2000 draws about 1740 of the 15000 training rows.  The tests check the trees against scikit-learn's forest
    (``tests/metrics/test_forest.py``) and DCI-RF's scores against DCI-RF on that forest
    (``tests/metrics/test_dci_rf_identical.py``), bit for bit.

    Parameters
    ----------
    codes : numpy.ndarray
        ``(n, L)`` predictors (used as float32, as scikit-learn's trees use them).
    target : numpy.ndarray
        ``(n,)`` values to predict.
    n_estimators : int
        Trees per forest; every code is tried at every split.
    leaf_sizes : sequence of int
        The fewest training rows a leaf may hold: one forest per entry, in order.
    bootstrap_size : int
        Rows drawn with replacement for each tree, at most ``n``.
    seed : int
        Seeds the trees' seeds, hence their bootstraps and the order in which they try the codes.

    Returns
    -------
    list of Forest
        One per entry of ``leaf_sizes``: the trees and their out-of-bag R².
    """
    from sklearn import config_context
    from sklearn.metrics import r2_score
    from sklearn.utils import check_random_state
    rows = np.ascontiguousarray(codes, dtype=np.float32)
    values = np.ascontiguousarray(target, dtype=np.float64)
    n = rows.shape[0]
    seeds = check_random_state(seed)
    tree_seeds = [seeds.randint(_TREE_SEED_BOUND) for _ in range(n_estimators)]
    trees: list[list[Tree]] = [[] for _ in leaf_sizes]
    out_of_bag_sums = np.zeros((len(leaf_sizes), n))
    out_of_bag_count = np.zeros(n, dtype=np.int64)
    stream = np.random.RandomState()
    grower = _TreeGrower(rows.shape[1])
    # the parameters are fixed here, valid by construction; the rows are finite (validated at the metric's entry)
    with config_context(skip_parameter_validation=True, assume_finite=True):
        for tree_seed in tree_seeds:
            stream.seed(tree_seed)
            counts = np.bincount(stream.randint(0, n, bootstrap_size), minlength=n)
            drawn = np.flatnonzero(counts)
            left_out = np.flatnonzero(counts == 0)
            # np.take of whole rows: about ten times as fast as indexing the float32 (n, L) array with them
            drawn_rows, weights = np.take(rows, drawn, axis=0), counts[drawn].astype(np.float64)
            drawn_values = values[drawn].reshape(-1, 1)
            out_of_bag_rows = np.take(rows, left_out, axis=0)
            out_of_bag_count[left_out] += 1
            for sums, grown, leaf in zip(out_of_bag_sums, trees, leaf_sizes):
                tree = grower.grow(drawn_rows, drawn_values, weights, leaf, stream, tree_seed)
                grown.append(tree)
                sums[left_out] += _tree_predictions(tree, out_of_bag_rows)
    predicted = out_of_bag_count > 0
    out_of_bag_count[~predicted] = 1
    forests = []
    for grown, sums in zip(trees, out_of_bag_sums):
        predictions = sums / out_of_bag_count
        forests.append(Forest(tuple(grown), float(r2_score(values, predictions)),
                              _r2_standard_error(values, predictions, predicted)))
    return forests


def _r2_standard_error(values: np.ndarray, predictions: np.ndarray, predicted: np.ndarray) -> float:
    """The standard error of ``R² = 1 - sum (values - predictions)² / sum (values - mean)²`` from the rows of
    ``predicted`` (see :attr:`Forest.oob_score_se`): 0 for fewer than 2 of them or constant ``values``."""
    squares = np.sum((values - np.mean(values)) ** 2)
    errors = (values[predicted] - predictions[predicted]) ** 2
    if errors.size < 2 or squares == 0:
        return 0.0
    return float(np.std(errors, ddof=1) * np.sqrt(errors.size) / squares)


def grow_forest(codes: np.ndarray, target: np.ndarray, *, n_estimators: int, min_samples_leaf: int,
                bootstrap_size: int, seed: int) -> Forest:
    """Grow ``n_estimators`` regression trees of ``target`` on ``codes``, each on its own bootstrap sample.

    Parameters
    ----------
    codes : numpy.ndarray
        ``(n, L)`` predictors (used as float32, as scikit-learn's trees use them).
    target : numpy.ndarray
        ``(n,)`` values to predict.
    n_estimators, min_samples_leaf : int
        Trees, and the fewest training rows a leaf may hold; every code is tried at every split.
    bootstrap_size : int
        Rows drawn with replacement for each tree, at most ``n``.
    seed : int
        Seeds the trees' seeds, hence their bootstraps and the order in which they try the codes.

    Returns
    -------
    Forest
        The trees and their out-of-bag R².
    """
    return grow_forests(codes, target, n_estimators=n_estimators, leaf_sizes=(min_samples_leaf,),
                        bootstrap_size=bootstrap_size, seed=seed)[0]
