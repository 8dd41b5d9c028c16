"""Z-max Variance, the R-FactorVAE metric (Zaidi et al. 2022, section 4.2.3)."""

from __future__ import annotations

from metrics._interventions import VARIANCE_VOTE_CONSTRAINTS, variance_vote_score
from metrics.constraints import UNIT
from metrics.information import DEFAULT_BINS
from metrics.registry import register_metric


@register_metric(
    "z_max_var",
    family="intervention",
    properties="modularity",
    stochastic=True,
    needs_discrete_factors=True,
    invariances=("code_permutation", "sample_permutation", "sign_flip"),
    constraints=VARIANCE_VOTE_CONSTRAINTS,
    score_range=UNIT,
)
def z_max_var(
    factors,
    codes,
    *,
    discrete=None,
    random_state=0,
    bins: int = DEFAULT_BINS,
    batch_size: int = 200,
    n_train: int = 800,
    n_eval: int = 800,
    std_threshold: float = 0.02,
) -> float:
    """Z-max Variance: with every factor fixed but one, the code of highest variance should be its code.

    Definition (review 4.2.3, the R-FactorVAE metric).  Codes are divided by their
    standard deviation over all samples, and codes whose standard deviation is at
    most ``std_threshold`` are pruned.  A *vote* lets one factor ``k`` (drawn
    uniformly) vary while every other factor is fixed: it takes a batch ``B`` of
    samples sharing the values of all factors but ``v_k`` and votes for::

        j*(B) = argmax_{j active} Var_{i in B}( z_ij / s_j )

    ``n_train`` votes train a majority-vote classifier (each code predicts the factor
    it received most votes for); its accuracy ``a`` on ``n_eval`` fresh votes is
    rescaled so that chance (``1/K``) maps to 0::

        Z-max = max(0, (a - 1/K) / (1 - 1/K))

    Subsets and batches (see :mod:`metrics._interventions`): "sharing the values" of
    the ``K - 1`` fixed factors means the same equal-width bin (``bins`` bins) or the
    same category for each of them.  A subset is drawn with its frequency in the
    data among subsets of at least 2 samples; a batch is ``min(batch_size, size)`` of
    its samples drawn without replacement.  Training and evaluation votes are drawn
    independently from the same ``n`` samples.

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Discrete factors keep their categories.
    random_state : int or numpy.random.Generator
        Seeds every draw; the score is bit-for-bit reproducible given it.
    bins : int, default 10
        Bins per continuous factor (review 5.2).  The number of cells of the
        ``K - 1`` fixed factors grows as ``bins^(K - 1)``: fewer bins make batches
        larger (review 5.2: "coarser discretization needs to be applied").
    batch_size : int, default 200
        Largest batch (at least 2).
    n_train, n_eval : int, default 800
        Votes used to train and to evaluate the majority-vote classifier.
    std_threshold : float, default 0.02
        Codes whose standard deviation, on their own scale, is at most this are
        pruned.  Votes index the code among *all* codes (the review's public code
        indexes all codes with a position among the unpruned ones).

    Returns
    -------
    float
        Score in [0, 1].

    Raises
    ------
    ValueError
        For a bad option, or when, for some factor, no two samples share the values
        of all the other factors even with continuous factors cut into 2 bins.

    Notes
    -----
    * Property: modularity (the review files it with the intervention-based
      modularity metrics; its Table 2 reports that it fails to measure any
      property, is not calibrated and not data-efficient).
    * Sparse data (review 5.2, 5.7).  With 10 bins, the 7 fixed factors of K = 8
      have 10^7 cells: among n = 20000 samples only about 20 pairs share a cell, per
      factor.  Those few 2-sample subsets supply every vote, so (i) a vote on
      ``z = v`` is wrong whenever the free code moves less than some fixed code
      moves within its bin: 0.88 measured instead of 1; (ii) training and
      evaluation votes repeat the same subsets, so on codes independent of the
      factors the classifier memorises their random winners: 0.09 measured instead
      of 0.  With ``bins=3`` (about 9 samples per cell) the same data give 0.99 and
      0.00.  The review's code instead repeats the two rows of such a subset to
      fill a batch, which cannot reach 1 either.
    * Fallback (see :mod:`metrics._interventions`).  Only if, for some factor, no
      two samples share the values of all the other factors, continuous factors
      are re-binned more coarsely (``bins - 1``, ``bins - 2``, ... down to 2) and
      the finest binning that gives every factor a subset of 2 samples is used
      (review 5.2: "coarser discretization needs to be applied").
    * Degenerate cases: a single factor scores 1 (nothing is fixed and the
      classifier cannot be wrong: chance is 1 and the rescaling is 0/0, where the
      review's code fails); no active code scores 0.
    * It assumes that fixing all measured factors fixes the codes, so codes of
      unmeasured factors break it (review 5.6).  Like Z-min it does not penalise
      a factor copied into several codes (Table 1: 1.0).
    * Invariances: code_permutation, sample_permutation, sign_flip.  Codes are divided
      by their standard deviation and compared through variances, which ignore a code's
      sign.  Not positive_rescaling: a code whose standard deviation is at most
      ``std_threshold`` (in the code's own units, as the review's code prunes) is
      dropped, so shrinking a code can switch it off (a code shrunk 32 times moved the
      scores by 0.5 to 0.7 in ``tests/metrics/test_invariances.py``); with ``std_threshold=0`` a
      rescaled code scores the same.  Not monotone: variances follow a code's units.
    * Cost: one grouping of the samples by ``K - 1`` labels per factor
      (O(K n log n)) and ``(n_train + n_eval)`` batch variances; seconds per call: the cost table of ``metrics/README.md``.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.z_max_var import z_max_var
    >>> round(z_max_var(factors, codes), 2), round(z_max_var(factors, entangled), 2)
    (0.93, 0.5)
    """
    return variance_vote_score(
        factors,
        codes,
        discrete,
        bins=bins,
        batch_size=batch_size,
        n_train=n_train,
        n_eval=n_eval,
        std_threshold=std_threshold,
        random_state=random_state,
        lowest=False,
        metric="z_max_var",
    )
