"""Unsupervised Disentanglement Ranking, UDR (Duan et al. 2020, section 4 and appendix A.5)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from metrics.constraints import COUNT, FLAG, NON_NEGATIVE, NONE, POSITIVE, UNIT, CheckedAtCall, Options
from metrics.registry import register_metric
from metrics.validation import as_real_matrix

SIMILARITIES = ("lasso", "spearman")
KL_THRESHOLD = 0.01
"""Informativeness threshold of Duan et al. (2020), eq. 3 (nats of KL to the prior)."""

_LASSO_MAX_ITER = 1000  # A.5: "until either 1000 iterations have been run or updates are below 0.0001"
_LASSO_TOL = 1e-4
_LASSO_FOLDS = 5


def standardize(codes: np.ndarray) -> np.ndarray:
    """Zero-mean, unit-variance columns; a constant column becomes all zeros."""
    centred = codes - codes.mean(axis=0)
    scale = centred.std(axis=0)
    return np.divide(centred, scale, out=np.zeros_like(centred), where=scale > 0)


def informative_latents(codes: np.ndarray, kl: np.ndarray | None, threshold: float) -> np.ndarray:
    """Eq. 3: latents whose KL to the prior exceeds ``threshold``.

    Without a posterior KL, the KL is replaced by ``Var(z_a) / 2``, the part of the
    batch-averaged KL of a Gaussian posterior ``N(mu, s^2)`` to the unit Gaussian prior
    that is due to the spread of the posterior means: ``KL = E[mu^2 + s^2 - 1 - log s^2] / 2
    >= E[mu^2] / 2 >= Var(mu) / 2``.  It is a lower bound, so a latent declared
    informative is informative by eq. 3.
    """
    measure = 0.5 * codes.var(axis=0) if kl is None else kl
    return measure > threshold


def lasso_similarity(target: np.ndarray, source: np.ndarray, penalty: float | None) -> np.ndarray:
    """``|W|`` of a multi-task lasso predicting the standardised ``target`` latents from ``source`` (A.5).

    Row ``a`` holds the absolute weights of every source latent in the prediction of
    target latent ``a``.  ``penalty=None`` chooses the lasso penalty by 5-fold cross
    validation (A.5); a float fixes it.  Callers run it under one BLAS thread
    (:func:`udr` enters the limit once per call, not once per pair).
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import MultiTaskLasso, MultiTaskLassoCV
    if not (target.any() and source.any()):
        return np.zeros((target.shape[1], source.shape[1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # A.5 stops at 1000 iterations by design
        if penalty is None:
            model = MultiTaskLassoCV(cv=_LASSO_FOLDS, max_iter=_LASSO_MAX_ITER, tol=_LASSO_TOL)
        else:
            model = MultiTaskLasso(alpha=penalty, max_iter=_LASSO_MAX_ITER, tol=_LASSO_TOL)
        model.fit(source, target)
    return np.abs(model.coef_)


def pairwise_score(similarity: np.ndarray, rows: np.ndarray, columns: np.ndarray, informative_submatrix: bool = False) -> float:
    """UDR_ij of eq. 2 from the similarity matrix ``R = |R_ij|`` and the informative masks.

    ::

        UDR_ij = 1 / (d_a + d_b) [ sum_b I(b) max_a R(a,b)^2 / sum_a R(a,b)
                                 + sum_a I(a) max_b R(a,b)^2 / sum_b R(a,b) ]

    A row or column whose entries are all 0 contributes 0 (no correspondence); with
    no informative latent on either side the score is 0.
    """
    d = int(rows.sum() + columns.sum())
    if d == 0:
        return 0.0
    if informative_submatrix:
        similarity = similarity[np.ix_(rows, columns)]
        rows, columns = np.ones(similarity.shape[0], bool), np.ones(similarity.shape[1], bool)

    def strengths(matrix: np.ndarray) -> np.ndarray:
        total = matrix.sum(axis=0)
        best = matrix.max(axis=0, initial=0.0)
        return np.divide(best**2, total, out=np.zeros_like(total), where=total > 0)

    return float((strengths(similarity)[columns].sum() + strengths(similarity.T)[rows].sum()) / d)


def _check_options(members, similarity, penalty, n_comparisons, informative_threshold, kl) -> list[np.ndarray | None]:
    if similarity == "lasso" and penalty is None and members[0].shape[0] < _LASSO_FOLDS:
        raise ValueError(
            f"udr cross-validates the lasso penalty over {_LASSO_FOLDS} folds and needs at least {_LASSO_FOLDS} samples, "
            f"got {members[0].shape[0]}; pass a fixed penalty"
        )
    if n_comparisons is not None and n_comparisons > len(members) - 1:
        raise ValueError(f"n_comparisons must be at most the number of other members ({len(members) - 1}), got {n_comparisons}")
    if kl is None:
        return [None] * len(members)
    if isinstance(kl, (str, bytes)) or not hasattr(kl, "__len__"):
        raise TypeError(f"kl must be a sequence of per-latent KL arrays, one per member, got {type(kl).__name__}")
    if len(kl) != len(members):
        raise ValueError(f"kl must hold one array per member ({len(members)}), got {len(kl)}")
    checked = []
    for index, (values, codes) in enumerate(zip(kl, members)):
        row = as_real_matrix(np.reshape(values, (1, -1)), f"kl[{index}]", min_rows=1)[0]
        if row.size != codes.shape[1]:
            raise ValueError(f"kl[{index}] must hold one value per latent ({codes.shape[1]}), got {row.size}")
        if np.any(row < 0):
            raise ValueError(f"kl[{index}] must be non-negative (a KL divergence), got {row.min():g}")
        checked.append(row)
    return checked


@register_metric(
    "udr",
    family="unsupervised",
    properties="holistic",
    stochastic=True,
    population=True,
    invariances=("code_permutation", "sign_flip"),
    constraints={"similarity": Options(*SIMILARITIES), "penalty": (NONE, POSITIVE), "n_comparisons": (NONE, COUNT),
                 "informative_threshold": NON_NEGATIVE,
                 "kl": (NONE, CheckedAtCall("a sequence of non-negative per-latent KL arrays, one per member")),
                 "informative_submatrix": FLAG},
    score_range=UNIT,
)
def udr(
    population: Sequence[np.ndarray],
    *,
    similarity: str = "lasso",
    penalty: float | None = None,
    n_comparisons: int | None = None,
    informative_threshold: float = KL_THRESHOLD,
    kl: Sequence[np.ndarray] | None = None,
    informative_submatrix: bool = False,
    random_state: int | np.random.Generator = 0,
) -> list[float]:
    """UDR: how much each model's latents agree one-to-one with those of its peers.

    Definition (Duan et al. 2020).  For models ``i`` and ``j`` with codes ``z_i`` (``L_i``
    latents) and ``z_j`` (``L_j`` latents) of the same inputs:

    1. Similarity matrix ``R = |R_ij|`` (``L_i x L_j``, appendix A.5), either

       * ``"lasso"`` (UDR_L): a multi-task lasso (``1/(2n) ||Z_j W - Z_i||_F^2 + lambda ||W||_21``)
         predicting every latent of ``i`` from all latents of ``j``, both standardised per
         latent; ``R(a, b) = |W(b, a)|``, the weight of ``z_j,b`` in the prediction of ``z_i,a``;
       * ``"spearman"`` (UDR_S): ``R(a, b) = |Spearman(z_i,a, z_j,b)|``.

    2. Informative latents (eq. 3): ``I(a) = 1`` when ``KL(q(z_a|x) || p(z_a)) > 0.01``.
    3. Aggregation (eq. 2), with ``d_a``, ``d_b`` the numbers of informative latents::

           UDR_ij = 1/(d_a + d_b) [ sum_b I(b) r_b^2 / sum_a R(a,b) + sum_a I(a) r_a^2 / sum_b R(a,b) ]

       ``r_b = max_a R(a, b)``, ``r_a = max_b R(a, b)``: each informative latent's strongest
       match, weighted by its share of the latent's total similarity.  (The paper's
       typesetting swaps the two subscripts of ``r``; this is the reading under which
       each term weights a latent's best match by its own row or column, as the text
       describes.)
    4. ``UDR_i = median_j UDR_ij`` over the models ``j`` compared with ``i``.

    Parameters
    ----------
    population : sequence of numpy.ndarray
        ``M >= 2`` validated code matrices ``(n, L_m)`` of the same inputs (through
        :func:`metrics.evaluate_population`).
    similarity : {"lasso", "spearman"}, default "lasso"
        How ``R`` is computed (the paper's main results use ``"lasso"``).
    penalty : float, optional
        Lasso penalty ``lambda``.  None (default) chooses it by 5-fold cross validation
        as in A.5; a fixed value is much cheaper.  Ignored for ``"spearman"``.
    n_comparisons : int, optional
        ``P``, the number of peers each model is compared with, drawn without
        replacement with ``random_state`` (step 2 of the paper).  None (default)
        compares each model with all others (the paper's all-to-all variant, UDR-A2A).
    informative_threshold : float, default 0.01
        Threshold of eq. 3.
    kl : sequence of numpy.ndarray, optional
        Per member, the batch-averaged KL of each latent's posterior to the prior, when
        the models have one (VAEs).  **Without it (the default) informativeness is
        judged from the codes' variance**: a latent is informative when
        ``Var(z_a) / 2 > informative_threshold``, the part of a Gaussian posterior's KL to
        the unit Gaussian prior due to the spread of its means (a lower bound of the KL;
        see :func:`informative_latents`).  Codes are then assumed to be on the prior's
        scale (unit variance for a fully informative latent); rescale them, or pass
        ``kl``, otherwise.
    informative_submatrix : bool, default False
        False follows eq. 2 literally: maxima and sums run over all latents, the
        informativeness flags only select which rows and columns are scored.  True
        first restricts ``R`` to the informative rows and columns, a variant that
        ignores the (noise-level) similarities of uninformative latents in the sums.
    random_state : int or numpy.random.Generator
        Seed of the peer sampling (used only when ``n_comparisons`` is given).

    Returns
    -------
    list of float
        ``UDR_i`` of each member, in order, in [0, 1].

    Raises
    ------
    ValueError, TypeError
        For an unknown ``similarity``, a non-positive ``penalty``, ``n_comparisons``
        outside ``1 .. M-1``, a negative or non-finite threshold, ``kl`` arrays that do
        not match the members, or fewer than 5 samples with a cross-validated lasso.

    Notes
    -----
    * Each latent is standardised before the lasso, as A.5 requires; a constant
      latent becomes zeros, gets zero weights, and has Spearman similarity 0.
    * Subsetting is only partly forgiven: a factor learnt by one model and not the
      other leaves an unmatched informative latent (term 0), so two perfect models
      with 4 and 5 of the same factors score ``8/9``.
    * Herd effect (paper, section 4): a model's score depends on its peers; a
      disentangled model among mostly entangled ones scores as low as they do.
    * The paper fits the lasso on 10000 inputs and the Spearman correlations on 1000;
      here all rows given are used.
    * On the ``udr_population`` scenario (8 members, 10 latents, n = 1000) the
      literal sums give fully disentangled members 0.73 - 0.82 with Spearman, the
      restricted variant 0.82 - 0.91: the noise-level similarities of the switched-off
      latents (about ``0.8 / sqrt(n)`` each) lower the literal score at small ``n``.
    * Invariances: code_permutation, sign_flip.  Permuting or negating every member's
      latents alike leaves the similarities, absolute lasso weights or absolute Spearman
      correlations of standardised latents, unchanged.  Not positive_rescaling: without
      ``kl``, a latent is informative when half its variance exceeds a fixed threshold
      (eq. 3's KL bound), in the latent's units.  Not sample_permutation: the
      cross-validated penalty is chosen on consecutive folds of the rows and the
      coordinate descent stops at 1000 iterations (A.5), so the rows' order moves the
      scores (0.02 with a fixed penalty).  Not monotone: the lasso and the variance
      threshold follow a latent's units.
    * Cost: ``M (M - 1)`` (or ``M P``) pairwise comparisons.  Lasso: each is a
      multi-task lasso path over 100 penalties on each of 5 folds plus one refit
      (``O(n L^2)`` per coordinate-descent sweep); a fixed ``penalty`` is one fit.
      Spearman: one ``L x L`` product of standardised ranks (``O(n L^2)``, ranks
      computed once per member): the cross-validated lasso costs about ten times a
      fixed penalty, which costs about twenty times Spearman; seconds per call: the cost table of ``metrics/README.md``.

    Examples
    --------
    UDR of each member of a population (the first half disentangled, the rest entangled):

    >>> import scenarios
    >>> from metrics.udr import udr
    >>> population = scenarios.get_population("udr_population").generate(0.5, n=300, seed=0)
    >>> [round(score, 2) for score in udr(list(population.members), similarity="spearman")]
    [0.3, 0.27, 0.29, 0.3, 0.2, 0.29, 0.29, 0.29]
    """
    from scipy.stats import rankdata
    members = list(population)
    kls = _check_options(members, similarity, penalty, n_comparisons, informative_threshold, kl)
    informative = [informative_latents(codes, k, informative_threshold) for codes, k in zip(members, kls)]
    if similarity == "spearman":
        prepared = [standardize(rankdata(codes, axis=0)) for codes in members]
    else:
        prepared = [standardize(codes) for codes in members]
    rng = np.random.default_rng(random_state)
    # One BLAS thread, entered once per call: the products are tiny (L x L), and threads
    # contending on a busy machine made a lasso fit 40 times slower in measurements
    # (0.15 s -> 5.8 s, n = 2000).
    with threadpool_limits(limits=1, user_api="blas"):
        return _scores(members, prepared, informative, similarity, penalty, n_comparisons, informative_submatrix, rng)


def _scores(members, prepared, informative, similarity, penalty, n_comparisons, informative_submatrix, rng) -> list[float]:
    """UDR_i of every member: the median of its pairwise scores against its peers."""
    scores = []
    for i in range(len(members)):
        peers = [j for j in range(len(members)) if j != i]
        if n_comparisons is not None:
            peers = sorted(rng.choice(peers, size=n_comparisons, replace=False).tolist())
        pairwise = []
        for j in peers:
            if similarity == "spearman":
                matrix = np.abs(prepared[i].T @ prepared[j]) / prepared[i].shape[0]
            else:
                matrix = lasso_similarity(prepared[i], prepared[j], penalty)
            pairwise.append(pairwise_score(matrix, informative[i], informative[j], informative_submatrix))
        scores.append(float(np.median(pairwise)))
    return scores
