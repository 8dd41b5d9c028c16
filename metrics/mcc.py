"""Mean Correlation Coefficient, strong and weak (Hyvärinen and Morioka 2016; Khemakhem et al. 2020)."""

from __future__ import annotations

import numpy as np

from metrics._dependence import CORRELATIONS, cross_fitted_mean, dependence_matrix, feature_map, paired_dependence, whitening
from metrics._linear import affine_predictions
from metrics._matching import matched_codes
from metrics._sampling import as_generator, train_test_indices
from metrics.constraints import AT_LEAST_TWO, FRACTION, UNIT, Options
from metrics.registry import register_metric

ALIGNMENTS = ("cca", "affine")
MATCHINGS = ("in_sample", "cross_fitted")
NORMALIZATIONS = ("factors", "pairs")

def _whitening(values: np.ndarray) -> np.ndarray:
    """A ``(d, r)`` matrix ``W`` with ``W.T C W = I_r`` on the ``r`` non-degenerate directions of the covariance ``C``
    (:func:`metrics._dependence.whitening`: collinear or duplicated columns leave fewer)."""
    maps = whitening(np.atleast_2d(np.cov(values, rowvar=False))[None])[0]
    return maps[:, np.any(maps != 0, axis=0)]


def _cca_aligned(factors: np.ndarray, codes: np.ndarray, train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Held-out canonical variates ``(u, v)`` of factors and codes, directions fitted on ``train``.

    Canonical correlation analysis (Hotelling 1936): whiten both blocks, take the
    singular vectors of the whitened cross-covariance; pair ``i`` of the returned
    columns is the ``i``-th canonical pair.
    """
    factor_mean, code_mean = factors[train].mean(axis=0), codes[train].mean(axis=0)
    whiten_factors, whiten_codes = _whitening(factors[train]), _whitening(codes[train])
    if whiten_factors.shape[1] == 0 or whiten_codes.shape[1] == 0:
        return np.zeros((test.size, 0)), np.zeros((test.size, 0))
    centered_f = (factors[train] - factor_mean) @ whiten_factors
    centered_c = (codes[train] - code_mean) @ whiten_codes
    left, _, right_t = np.linalg.svd(centered_f.T @ centered_c, full_matrices=False)
    pairs = left.shape[1]
    u = (factors[test] - factor_mean) @ whiten_factors @ left[:, :pairs]
    v = (codes[test] - code_mean) @ whiten_codes @ right_t[:pairs].T
    return u, v


def _affine_aligned(factors: np.ndarray, codes: np.ndarray, train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Held-out factors and their least-squares affine prediction from the codes (fitted on ``train``)."""
    return factors[test], affine_predictions(codes[train], factors[train], codes[test])


def _matched_mean(scores: np.ndarray, pairs_only: bool) -> float:
    """Mean of each factor's matched score over the matched pairs (``pairs_only``) or over all factors, unmatched 0."""
    matched = matched_codes(scores)
    pairs = np.flatnonzero(matched >= 0)
    total = float(scores[pairs, matched[pairs]].sum())
    return total / pairs.size if pairs_only else total / scores.shape[0]


@register_metric(
    "mcc",
    family="predictor",
    properties={"strong": "holistic", "weak": "explicitness"},
    stochastic=True,
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={"correlation": Options(*CORRELATIONS), "alignment": Options(*ALIGNMENTS), "test_size": FRACTION,
                 "matching": Options(*MATCHINGS), "folds": AT_LEAST_TWO, "normalization": Options(*NORMALIZATIONS)},
    score_range=UNIT,
)
def mcc(
    factors,
    codes,
    *,
    discrete=None,
    random_state=0,
    correlation: str = "pearson",
    alignment: str = "cca",
    test_size: float = 0.5,
    matching: str = "in_sample",
    folds: int = 5,
    normalization: str = "factors",
) -> dict[str, float]:
    """Mean correlation coefficient: strong (codes as they are) and weak (codes aligned first).

    Definition.  *Strong MCC* (Hyvärinen and Morioka 2016, section 5; Khemakhem et al. 2020, section 6, "mean
    correlation coefficient"): the ``K x L`` matrix of absolute correlations ``|rho(v_k, z_j)|`` between factors
    and codes, a one-to-one matching of factors to codes maximising the total correlation (Hungarian algorithm,
    :func:`scipy.optimize.linear_sum_assignment`, rectangular when ``K != L``), and the mean of the matched
    correlations::

        MCC = 1/K sum_k |rho(v_k, z_pi(k))|

    *Weak MCC* (Khemakhem et al. 2020, section 6: identifiability up to an affine map): the codes are aligned
    to the factors on a training part of the rows and scored on the held-out part (``test_size``), so that the
    alignment cannot overfit:

    * ``alignment="cca"`` (default, as the public iVAE code does): canonical correlation analysis fitted on the
      training rows; the score is the mean over factors of the held-out correlation of each canonical pair
      (``min(K, L)`` pairs, the rest count 0);
    * ``alignment="affine"``: each factor's least-squares affine prediction from all codes, fitted on the
      training rows; the score is the mean held-out correlation between each factor and its prediction.

    The variants practitioners use, as options:

    * ``correlation``: ``"pearson"`` (default; Hyvärinen and Morioka, Khemakhem et al.); ``"spearman"``, Pearson
      on column ranks (average ranks over all rows; the iVAE/ICE-BeeM code's option, Joshi et al. 2026's); or
      ``"rdc"``, the randomised dependence coefficient (Lopez-Paz et al. 2013; the ICE-BeeM code's third option):
      the largest canonical correlation between ``k = 20`` random sine features ``sin(w p + b)`` of each
      column's empirical copula ``p = rank / n``, ``w, b ~ N(0, (s/2)^2)``, ``s = 1/6`` as in the authors' R
      code.  It sees non-monotone dependence (``z = v^2`` on a symmetric ``v``: Pearson near 0, RDC near 1).
      Departures: one draw of ``(w, b)``, from ``random_state``, serves every column (the ICE-BeeM code draws
      anew for each pair), so that the codes' order does not matter; and feature directions of variance below
      1e-10 of a column's largest are dropped (:data:`metrics._dependence.RANK_TOLERANCE`): the sine features
      are nearly collinear, and a canonical correlation that keeps every direction fits rounding (independent
      columns scored 0.9995 at n = 2000).  RDC is in [0, 1] with no sign; its chance level is higher than
      Pearson's (it maximises over a few directions per column: 0.33 against 0.16 on independent 10 x 10 codes
      at n = 100, 0.11 against 0.05 at n = 1000).  In the weak score, each held-out aligned pair's correlation
      is measured the same way.
    * ``matching``: ``"in_sample"`` (default) learns the matching and scores it on the same rows, as the papers
      and their code do.  The maximum over matchings of sampling correlations is biased upwards: on codes
      independent of the factors, 10 x 10 at n = 100, strong MCC is about 0.16 (0.05 at n = 1000; Joshi et al.
      2026 bound it by ``sqrt(2 log L / n)``).  ``"cross_fitted"`` (Joshi et al. 2026's ``crossfit``) splits the
      rows at random into ``folds`` folds; each fold is scored with the matching (and, for RDC, the canonical
      directions) learnt on the other folds, by the *signed* held-out correlation of each matched pair oriented
      by its training sign, so that chance is 0 in expectation; the fold scores are averaged weighted by their
      rows and the average clipped to [0, 1].  Chance falls to about 0.01 at n = 100 (0.003 at n = 1000);
      the price is noise (correlations from a fifth of the rows) and a value not comparable with published
      in-sample numbers, which is why in-sample stays the default: the harness reports each cell's chance level
      beside its score (the permutation null) and the null-code scenarios measure it.  Ranks and copulas are
      taken over all rows (they read no factor); Joshi et al. rank within each fold.  Only the strong score is
      cross-fitted; the weak one is held out already.
    * ``normalization``: what the matched correlations are averaged over when there are fewer codes than
      factors.  ``"factors"`` (default): all ``K`` factors, an unmatched factor counting 0, so that one code
      matching one of ten factors scores at most 0.1 (Joshi et al.'s "coverage" MCC); ``"pairs"``: the
      ``min(K, L)`` matched pairs only, as the ICE-BeeM code's ``mean_corr_coef`` and Joshi et al.'s default
      ("matched") do, so that the same code scores 1.  The two agree when ``L >= K``.  In the weak score the
      CCA's canonical pairs are averaged the same way (the affine alignment predicts every factor).

    So ``correlation="pearson", normalization="pairs"`` is the iVAE/ICE-BeeM ``mean_corr_coef`` (and its
    ``"spearman"`` and ``"rdc"`` methods, up to the RDC departures above), and adding
    ``matching="cross_fitted"`` gives Joshi et al.'s cross-fitted MCC.

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Accepted for the common interface; discrete factors are read as numbers.
    random_state : int or numpy.random.Generator
        Seeds the training/held-out split of the weak score, then the random features of
        ``correlation="rdc"``, then the folds of ``matching="cross_fitted"`` (each drawn only when its option
        is used, so the default's scores do not depend on them).
    correlation : {"pearson", "spearman", "rdc"}, default "pearson"
        How a factor and a code are correlated (see above).
    alignment : {"cca", "affine"}, default "cca"
        How the weak score aligns the codes (see above).
    test_size : float, default 0.5
        Held-out fraction of the weak score.
    matching : {"in_sample", "cross_fitted"}, default "in_sample"
        Where the strong score's matching is learnt (see above).
    folds : int, default 5
        Folds of ``matching="cross_fitted"`` (at least 2; each needs 2 rows).
    normalization : {"factors", "pairs"}, default "factors"
        What the matched correlations are averaged over (see above).

    Returns
    -------
    dict
        ``{"strong": ..., "weak": ...}``, both in [0, 1].

    Raises
    ------
    ValueError
        For an unknown option value, ``folds`` below 2, or fewer than 2 rows per fold.

    Notes
    -----
    * Properties: strong MCC rewards one code per factor, each a linear (Spearman: monotone; RDC: any
      one-to-one) function of its factor, so it needs modularity, compactness and explicitness together
      (holistic); weak MCC forgives any invertible linear mixing and measures linear explicitness.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.  These are the
      defaults' (the registry's claim).  Both scores use absolute correlations, which a code's scale and sign leave unchanged,
      and a matching or an alignment that does not depend on the codes' order; the weak score's alignment is
      fitted on a random split (sample permutation in distribution).  Per option: ``"spearman"`` and ``"rdc"``
      leave the strong score unchanged by strictly increasing maps of a code too (ranks and copulas are), not
      the weak one (its alignment is linear); ``"rdc"`` is unchanged by a sign flip only in distribution (the
      reversed copula meets the same random features, which span a slightly different space) and by a code
      permutation exactly (one draw for every column); ``"cross_fitted"`` keeps every claim, sample
      permutation in distribution (its folds are drawn at random).
    * Scores: 1 on ``z = v`` and any permutation and sign flip of it, for every correlation; on independent
      codes, the chance levels stated above.
    * Cost: Pearson: one ``K x L`` correlation product, one Hungarian assignment and, for the weak score, two
      symmetric eigendecompositions and one SVD, O(n (K + L)^2); Spearman adds ranking every column,
      O(n log n (K + L)); RDC multiplies the correlation product by ``k^2 = 400``;
      cross-fitting adds one small Hungarian per fold, not a pass over the rows.

    Examples
    --------
    Every sub-score of the perfect code, then of one whose first two codes mix two factors (300 samples, 3
    factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.mcc import mcc
    >>> for z in (codes, entangled):
    ...     print({sub: round(score, 2) for sub, score in mcc(factors, z).items()})
    {'strong': 0.98, 'weak': 0.98}
    {'strong': 0.79, 'weak': 0.98}
    """
    if matching == "cross_fitted" and factors.shape[0] < 2 * folds:
        raise ValueError(f"mcc with matching='cross_fitted' needs at least 2 rows in each of its {folds} folds; "
                         f"got n = {factors.shape[0]}: use fewer folds or more samples")
    pairs_only = normalization == "pairs"
    rng = as_generator(random_state)
    train, test = train_test_indices(factors.shape[0], test_size, rng, "mcc")
    features = feature_map(correlation, rng)
    if matching == "in_sample":
        strong = _matched_mean(dependence_matrix(factors, codes, features), pairs_only)
    else:
        strong = cross_fitted_mean(factors, codes, features, folds, rng, pairs_only)
    align = _cca_aligned if alignment == "cca" else _affine_aligned
    aligned_factors, aligned_codes = align(factors, codes, train, test)
    pairs = aligned_factors.shape[1]  # canonical pairs (cca), or every factor (affine)
    if not pairs:
        return {"strong": strong, "weak": 0.0}
    held_out = float(paired_dependence(aligned_factors, aligned_codes, features).sum())
    return {"strong": strong, "weak": held_out / (pairs if pairs_only else factors.shape[1])}
