"""Z-min Variance, the FactorVAE metric (Kim and Mnih 2018; Zaidi et al. 2022, section 4.2.2)."""

from __future__ import annotations

from metrics._interventions import VARIANCE_VOTE_CONSTRAINTS, variance_vote_score
from metrics.constraints import UNIT
from metrics.information import DEFAULT_BINS
from metrics.registry import register_metric


@register_metric(
    "z_min_var",
    family="intervention",
    properties="modularity",
    stochastic=True,
    needs_discrete_factors=True,
    invariances=("code_permutation", "sample_permutation", "sign_flip"),
    constraints=VARIANCE_VOTE_CONSTRAINTS,
    score_range=UNIT,
)
def z_min_var(
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
    """Z-min Variance: with one factor fixed, the code of lowest variance should be its code.

    Definition (Kim and Mnih 2018; review 4.2.2).  Codes are divided by their standard
    deviation over all samples, and codes whose standard deviation is at most
    ``std_threshold`` are pruned.  A *vote* fixes a factor ``k`` (drawn uniformly) at
    a value ``b``, takes a batch ``B`` of samples with ``v_k = b`` and votes for::

        j*(B) = argmin_{j active} Var_{i in B}( z_ij / s_j )

    ``n_train`` votes train a majority-vote classifier (each code predicts the factor
    it received most votes for); its accuracy ``a`` on ``n_eval`` fresh votes is
    rescaled so that chance (``1/K``) maps to 0::

        Z-min = max(0, (a - 1/K) / (1 - 1/K))

    Subsets and batches (see :mod:`metrics._interventions`): ``v_k = b`` means the
    same equal-width bin (``bins`` bins, continuous factors) or the same category
    (discrete factors); ``b`` is drawn with its frequency in the data among values
    shared by at least 2 samples; a batch is ``min(batch_size, #{v_k = b})`` of those
    samples drawn without replacement.  Training and evaluation votes are drawn
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
        Bins per continuous factor (review 5.2).
    batch_size : int, default 200
        Samples per batch (at least 2).
    n_train, n_eval : int, default 800
        Votes used to train and to evaluate the majority-vote classifier.
    std_threshold : float, default 0.02
        Codes whose standard deviation, on their own scale, is at most this are pruned
        (collapsed codes).  The votes still index the code among *all* codes: the
        review's public code takes the arg-min among the unpruned codes but uses it
        as an index into all codes, which sends votes to the wrong code once any
        code is pruned.

    Returns
    -------
    float
        Score in [0, 1].

    Raises
    ------
    ValueError
        For a bad option, or when some factor has no value shared by two samples
        even with continuous factors cut into 2 bins (see the notes).

    Notes
    -----
    * Fallback (see :mod:`metrics._interventions`).  If some factor has no value
      shared by two samples, continuous factors are re-binned more coarsely
      (``bins - 1``, ``bins - 2``, ... down to 2) and the finest binning that lets
      every factor be fixed is used.
    * Degenerate cases: a single factor scores 1 (the classifier cannot be wrong:
      chance is 1 and the rescaling is 0/0, where the review's code fails); no
      active code scores 0.
    * Property: modularity.  The review's taxonomy files it with the
      intervention-based metrics meant to measure modularity ("code dimensions
      encoding a factor should be equal if the factor value is the same"), and its
      Table 2 treats it as a modularity/compactness metric (robustness to noise
      applies to it, which the review reserves for non-explicitness metrics); Table 2
      also reports that it *fails* to measure modularity or compactness.
    * Known failure modes (review 5.3, 5.4, Table 1): it does not penalise a factor
      copied into several codes (1.0 on the duplicated codes and cos/sin of Table 1),
      and it scores band-mixed codes high (review 5.3): fixing a factor lowers the
      variance of the codes it enters, and the lowest one still identifies the
      factor (measured at n = 5000: 1.0 at ``alpha = 0.25``, 0.50 at ``alpha = 0.5``
      where every code mixes two factors equally).  It relies on binning (review
      5.5: skewed codes change which samples share a bin).
    * Scores: 1 on ``z = v`` (the within-bin variance of the fixed code is 1/100 of
      the others' for 10 bins); about 0 for codes independent of the factors.
    * Invariances: code_permutation, sample_permutation, sign_flip.  As for
      :func:`metrics.z_max_var.z_max_var`: not positive_rescaling, since a code whose
      standard deviation is at most ``std_threshold`` (in its own units) is dropped; not
      monotone.
    * Cost: ``(n_train + n_eval) x batch_size x L`` for the variances plus a
      Python loop over the votes; seconds per call: the cost table of ``metrics/README.md``.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.z_min_var import z_min_var
    >>> round(z_min_var(factors, codes), 2), round(z_min_var(factors, entangled), 2)
    (1.0, 0.51)
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
        lowest=True,
        metric="z_min_var",
    )
