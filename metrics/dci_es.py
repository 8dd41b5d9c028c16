"""DCI-ES: explicitness from the loss-capacity curve, and size (Eastwood et al. 2023)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only: scikit-learn is imported where it is called (a process that runs no
    # metric of it, e.g. a report or a listing, does not load it)
    from sklearn.tree import DecisionTreeRegressor

from metrics._dci import unit_range
from metrics._ranks import column_ranks
from metrics._sampling import as_generator, derive_seeds, require_varying_factors, train_test_indices
from metrics.constraints import FRACTION, Interval, check_options
from metrics.registry import register_metric
from metrics.shared import memoised, shared_across_calls
from metrics.validation import check_pair

#: Doublings the probe trees are grown to at least.  A curve of fewer capacities is the
#: prefix of this one (see :func:`_prefix_predictions`), so the variants of a sweep of
#: ``max_capacity_doublings`` up to the default share one fit per factor within a
#: :func:`metrics.shared_estimates` scope.
GROWN_CAPACITY_DOUBLINGS = 8

#: Most doublings a curve may have: its capacities ``2**M`` and the node ids ``2 m - 2``
#: of :func:`_prefix_predictions` stay within int64.  The trees themselves never grow
#: past one leaf per training row, so a long curve costs no more than a full tree.
MAX_CAPACITY_DOUBLINGS = 61
#: The rules of the loss-capacity curve's options (:mod:`metrics.constraints`).
CURVE_CONSTRAINTS = {"max_capacity_doublings": Interval(int, 2, MAX_CAPACITY_DOUBLINGS), "test_size": FRACTION}


@dataclass(frozen=True)
class LossCapacityCurve:
    """Held-out losses of probes of increasing capacity, one curve per factor.

    Attributes
    ----------
    capacities : numpy.ndarray
        ``(M,)`` leaves of the probe trees: ``2, 4, ..., 2**M``.
    losses : numpy.ndarray
        ``(K, M)`` held-out mean squared error of each probe, divided by that of the
        constant probe (the training mean), so that 1 means "no better than a constant".
    running_minimum : numpy.ndarray
        ``(K, M)`` the lowest loss of any probe of at most that capacity, the constant
        probe included (so at most 1): the curve E is computed from.
    """

    capacities: np.ndarray
    losses: np.ndarray
    running_minimum: np.ndarray


def _prefix_predictions(tree: DecisionTreeRegressor, codes: np.ndarray, capacities: np.ndarray) -> np.ndarray:
    """``(M, n)`` predictions of the best-first prefixes of ``tree`` with ``capacities`` leaves.

    scikit-learn grows a tree with ``max_leaf_nodes`` best first and numbers the two
    children of each split consecutively, so the tree with ``m`` leaves is exactly the
    sub-tree of nodes ``0 .. 2m - 2`` of any larger tree grown on the same data with
    the same seed (checked in the tests).  A sample's prediction at capacity ``m`` is
    the value of the deepest node of its decision path with an id at most ``2m - 2``;
    node ids increase along a path.  One fit thus gives the whole curve.
    """
    path = tree.decision_path(codes)
    ids, starts = path.indices, path.indptr[:-1]
    values = tree.tree_.value[:, 0, 0]
    predictions = np.empty((capacities.size, codes.shape[0]))
    for i, leaves in enumerate(capacities):
        eligible = np.where(ids <= 2 * leaves - 2, ids, 0)
        predictions[i] = values[np.maximum.reduceat(eligible, starts)]
    return predictions


def _probe_losses(
    factors: np.ndarray, codes: np.ndarray, random_state: int | np.random.Generator | None, doublings: int, test_size: float
) -> np.ndarray:
    """``(K, doublings)`` held-out losses of the probes with ``2 .. 2**doublings`` leaves (see :func:`loss_capacity_curve`)."""
    from sklearn.tree import DecisionTreeRegressor
    rng = as_generator(random_state)
    train, test = train_test_indices(factors.shape[0], test_size, rng, "dci_es")
    seeds = derive_seeds(rng, factors.shape[1])
    capacities = 2 ** np.arange(1, doublings + 1)
    # trees split on the codes' order only: their ranks, exact in the trees' float32 (metrics._ranks)
    factors, codes = unit_range(factors), column_ranks(codes)
    train_codes, test_codes = codes[train], codes[test]
    losses = np.empty((factors.shape[1], capacities.size))
    for k in range(factors.shape[1]):
        target = factors[train, k]
        # A tree has at most one leaf per training row, so a larger max_leaf_nodes grows the same tree
        # (node for node, checked in the tests) but makes scikit-learn reserve memory for all of them.
        leaves = int(min(capacities[-1], max(2, train.size)))
        tree = DecisionTreeRegressor(max_leaf_nodes=leaves, random_state=seeds[k]).fit(train_codes, target)
        constant_loss = float(np.mean((factors[test, k] - target.mean()) ** 2))
        squared_errors = (_prefix_predictions(tree, test_codes, capacities) - factors[test, k]) ** 2
        losses[k] = squared_errors.mean(axis=1) / constant_loss if constant_loss > 0 else 0.0
    return losses


def loss_capacity_curve(
    factors: np.ndarray,
    codes: np.ndarray,
    *,
    random_state: int | np.random.Generator = 0,
    max_capacity_doublings: int = 8,
    test_size: float = 0.25,
) -> LossCapacityCurve:
    """The loss-capacity curve of each factor (Eastwood et al. 2023, section 3, figure 2).

    Probes are regression trees grown best first on all codes, with ``2, 4, ...,
    2**max_capacity_doublings`` leaves, fitted on a training part of the rows and
    scored on the held-out part (``test_size``).  One tree per factor gives every
    capacity (its best-first prefixes are the smaller trees, bit for bit).  Inside a
    :func:`metrics.shared_estimates` scope opened by the caller (the runner's, one per
    draw) the trees are grown to ``2**max(max_capacity_doublings,
    GROWN_CAPACITY_DOUBLINGS)`` leaves and, with an int ``random_state``, their losses
    computed once, so the curves of fewer doublings are cut from them at no cost; a lone
    call grows only what it asks for.

    Parameters
    ----------
    factors, codes : array_like
        ``(n, K)`` and ``(n, L)`` arrays of the same ``n`` samples, validated as
        :func:`metrics.evaluate` validates them; no factor constant.
    random_state : int or numpy.random.Generator, default 0
        Seeds the split and the trees.
    max_capacity_doublings : int, default 8
        Number ``M`` of capacities on the curve, 2 to :data:`MAX_CAPACITY_DOUBLINGS`.
    test_size : float, default 0.25
        Held-out fraction.

    Returns
    -------
    LossCapacityCurve

    Raises
    ------
    ValueError, TypeError
        For malformed arrays (the message names the argument), a constant factor, too
        few samples to split, or a bad option.
    """
    check_options("loss_capacity_curve", {"max_capacity_doublings": max_capacity_doublings, "test_size": test_size},
                  CURVE_CONSTRAINTS)
    factors, codes = check_pair(factors, codes)
    require_varying_factors(factors, "loss_capacity_curve")
    return _loss_capacity_curve(factors, codes, random_state, max_capacity_doublings, test_size)


def _loss_capacity_curve(
    factors: np.ndarray, codes: np.ndarray, random_state: int | np.random.Generator, max_capacity_doublings: int, test_size: float
) -> LossCapacityCurve:
    """:func:`loss_capacity_curve` on validated arrays."""
    # grow past the asked capacity only where a later call (a sweep's next variant) can reuse the trees
    grown = max(max_capacity_doublings, GROWN_CAPACITY_DOUBLINGS) if shared_across_calls() else max_capacity_doublings
    if isinstance(random_state, np.random.Generator):  # its state moves on: nothing to share
        losses = _probe_losses(factors, codes, random_state, grown, test_size)
    else:
        losses = memoised(
            "dci_es_probe_losses", (factors, codes), (random_state, test_size, grown),
            lambda: _probe_losses(factors, codes, random_state, grown, test_size),
        )
    losses = losses[:, :max_capacity_doublings]
    running_minimum = np.minimum.accumulate(np.minimum(losses, 1.0), axis=1)
    return LossCapacityCurve(2 ** np.arange(1, max_capacity_doublings + 1), losses, running_minimum)


def explicitness_from_curve(curve: LossCapacityCurve, reference_loss: float = 0.0) -> float:
    """``E = 1 - AULCC / Z`` averaged over factors, clipped to [-1, 1].

    ``AULCC`` is the trapezoidal area between the running minimum and
    ``reference_loss`` over the capacity index ``0 .. M-1`` (capacities are
    log-spaced, so each doubling weighs the same); ``Z = (M - 1) (1 - reference_loss) / 2``
    is the triangle of a curve falling linearly from the constant probe's loss (1) to
    the reference.
    """
    gaps = curve.running_minimum - reference_loss
    area = ((gaps[:, :-1] + gaps[:, 1:]) / 2.0).sum(axis=1)
    triangle = (gaps.shape[1] - 1) * (1.0 - reference_loss) / 2.0
    return float(np.mean(np.clip(1.0 - area / triangle, -1.0, 1.0)))


@register_metric(
    "dci_es",
    family="predictor",
    properties={"explicitness": "explicitness", "size": "compactness"},
    stochastic=True,
    version="2",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling", "monotone"),
    constraints={**CURVE_CONSTRAINTS, "reference_loss": Interval(float, 0.0, 1.0, closed="left")},
    # explicitness is clipped to [-1, 1] (-1: no probe beats the constant predictor); size is K / L
    score_range={"explicitness": Interval(float, -1.0, 1.0), "size": Interval(float, 0.0, None, closed="neither")},
)
def dci_es(
    factors,
    codes,
    *,
    discrete=None,
    random_state=0,
    max_capacity_doublings: int = 8,
    test_size: float = 0.25,
    reference_loss: float = 0.0,
) -> dict[str, float]:
    """DCI-ES explicitness (from the loss-capacity curve) and size.

    Definition (Eastwood et al. 2023, "DCI-ES: An Extended Disentanglement Framework
    with Connections to Identifiability", ICLR, section 3).  For each factor, probes of
    increasing capacity predict it from the whole code; the held-out loss of the best
    probe of at most each capacity traces the loss-capacity curve.  Explicitness::

        E = 1 - AULCC / Z

    with ``AULCC`` the area between the curve and the lowest achievable loss
    (``reference_loss``) over the capacity range, and ``Z`` the triangle of half that
    range times the loss of a constant predictor.  ``E = 1`` when the smallest probe
    already reaches the reference, 0 for a linear descent, -1 when no probe beats the
    constant predictor.  Size, as we read section 3 (the size of the representation
    relative to the factors)::

        S = K / L

    (1 when there are as many codes as factors, smaller for larger codes; above 1 when
    there are fewer codes than factors).

    Choices (exposed as options): probes are regression trees grown best first with
    ``2 .. 2**max_capacity_doublings`` leaves (one fit per factor gives every capacity,
    see :func:`loss_capacity_curve`); losses are held-out mean squared errors divided
    by the constant probe's; the capacity axis is the doubling index; the reference
    loss is 0 (noise-free factors; the minimum over a family of representations in the
    paper).  The whole curve is returned by :func:`loss_capacity_curve`.

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Accepted for the common interface; discrete factors are regressed on as numbers.
    random_state : int or numpy.random.Generator
        Seeds the split and the trees.
    max_capacity_doublings : int, default 8
        Capacities on the curve, 2 to 61 (the largest tree has ``2**max_capacity_doublings`` leaves,
        or one per training row where that is fewer: the same tree).
    test_size : float, default 0.25
        Held-out fraction.
    reference_loss : float, default 0
        Lowest achievable normalised loss, in [0, 1).

    Returns
    -------
    dict
        ``{"explicitness": E in [-1, 1], "size": S}``.

    Raises
    ------
    ValueError
        For a constant factor or a bad option.

    Notes
    -----
    * Authors' code (github.com/andreinicolicioiu/dci-es): they train separate probes
      (MLPs of growing width, random forests of growing size) on MPI3D; this module
      departs with single best-first trees, nested by construction, which makes the
      curve one fit per factor.
    * Scores: on ``z = v`` with a uniform factor a tree with ``m`` equal leaves has
      loss ``1/m^2``, so E is about ``1 - (1/8 + 1/12) / 3.5 = 0.94`` with the default 8
      doublings (trees approximate a line in steps; the paper's point: explicitness
      is about the capacity a probe needs); independent codes give -1, the floor of
      the paper's scale (so the harness's ``chance`` check, which expects 0, fails by
      design).
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling,
      monotone.  The probe trees are given the codes' ranks (:mod:`metrics._ranks`), so
      rescaling and strictly increasing maps give the same scores bit for bit (version 1
      min-max scaled the codes, and in the trees' float32 a heavy-tailed code such as
      ``sinh(2 v^3)`` kept a handful of distinct values: explicitness -0.97 instead of
      0.90); a sign flip reverses a code's order and permuting the codes the order the
      trees try them in, which decide only between equally good splits; permuting the
      samples changes the random split (in distribution).  Size depends only on ``K``
      and ``L``.
    * Cost: ``K`` trees of ``2**max_capacity_doublings`` leaves and one decision-path
      pass each (seconds per call: the cost table of ``metrics/README.md``).  Inside one :func:`metrics.shared_estimates` scope (the
      runner's, one per data draw) the trees are grown to at least 2**8 leaves, so the
      variants of a sweep of ``max_capacity_doublings`` up to 8 with the same
      ``random_state`` share them: the sweep (4, 6, 8) costs about one call at 8 instead of
      three (the first variant pays for the trees; the scores are the same bits).

    Examples
    --------
    Every sub-score of the perfect code, then of one whose first two codes mix two factors (300 samples, 3
    factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.dci_es import dci_es
    >>> for z in (codes, entangled):
    ...     print({sub: round(score, 2) for sub, score in dci_es(factors, z).items()})
    {'explicitness': 0.87, 'size': 1.0}
    {'explicitness': 0.76, 'size': 1.0}
    """
    require_varying_factors(factors, "dci_es")
    curve = _loss_capacity_curve(factors, codes, random_state, max_capacity_doublings, test_size)
    return {"explicitness": explicitness_from_curve(curve, float(reference_loss)), "size": factors.shape[1] / codes.shape[1]}
