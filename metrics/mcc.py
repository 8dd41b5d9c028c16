"""Mean Correlation Coefficient, strong and weak (Hyvärinen and Morioka 2016; Khemakhem et al. 2020)."""

from __future__ import annotations

import numpy as np

from metrics._linear import affine_predictions
from metrics._matching import matched_mean
from metrics._ranks import column_ranks
from metrics._sampling import as_generator, train_test_indices
from metrics.options import check_choice
from metrics.registry import register_metric

CORRELATIONS = ("pearson", "spearman")
ALIGNMENTS = ("cca", "affine")

#: Eigenvalues of a covariance below this fraction of the largest are treated as 0
#: when whitening (collinear or duplicated columns).
_RANK_TOLERANCE = 1e-10


def _column_correlations(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``(d_a, d_b)`` absolute Pearson correlations between the columns of ``a`` and ``b`` (0 for a constant column)."""
    centered_a = a - a.mean(axis=0)
    centered_b = b - b.mean(axis=0)
    norms = np.sqrt((centered_a**2).sum(axis=0))[:, None] * np.sqrt((centered_b**2).sum(axis=0))[None, :]
    products = centered_a.T @ centered_b
    correlation = np.divide(products, norms, out=np.zeros_like(products), where=norms > 0)
    return np.clip(np.abs(correlation), 0.0, 1.0)


def _paired_correlations(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Absolute Pearson correlation of column ``i`` of ``a`` with column ``i`` of ``b``."""
    return np.diag(_column_correlations(a, b))


def _whitening(values: np.ndarray) -> np.ndarray:
    """A ``(d, r)`` matrix ``W`` with ``W.T C W = I_r`` on the ``r`` non-degenerate directions of the covariance ``C``."""
    covariance = np.atleast_2d(np.cov(values, rowvar=False))
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)
    keep = eigenvalues > _RANK_TOLERANCE * max(float(eigenvalues.max()), 0.0)
    return eigenvectors[:, keep] / np.sqrt(eigenvalues[keep])


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


@register_metric(
    "mcc",
    family="predictor",
    properties={"strong": "holistic", "weak": "explicitness"},
    stochastic=True,
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
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
) -> dict[str, float]:
    """Mean correlation coefficient: strong (codes as they are) and weak (codes aligned first).

    Definition.  *Strong MCC* (Hyvärinen and Morioka 2016, section 5; Khemakhem et
    al. 2020, section 6, "mean correlation coefficient"): the ``K x L`` matrix of
    absolute correlations ``|rho(v_k, z_j)|`` between factors and codes, a one-to-one
    matching of factors to codes maximising the total correlation (Hungarian algorithm,
    :func:`scipy.optimize.linear_sum_assignment`, rectangular when ``K != L``), and the
    mean over factors of the matched correlations::

        MCC = 1/K sum_k |rho(v_k, z_pi(k))|

    A factor left unmatched (only when ``L < K``) counts 0 (the usual code averages over
    the ``min(K, L)`` pairs instead, so that one code matching one of ten factors scores 1).
    Computed on all rows: a matching has no parameters to overfit beyond the choice
    of pairs.

    *Weak MCC* (Khemakhem et al. 2020, section 6: identifiability up to an affine map):
    the codes are aligned to the factors on a training part of the rows and scored on
    the held-out part (``test_size``), so that the alignment cannot overfit:

    * ``alignment="cca"`` (default, as the public iVAE code does): canonical correlation
      analysis fitted on the training rows; the score is the mean over factors of the
      held-out absolute correlation of each canonical pair (``min(K, L)`` pairs, the
      rest count 0);
    * ``alignment="affine"``: each factor's least-squares affine prediction from all
      codes, fitted on the training rows; the score is the mean held-out absolute
      correlation between each factor and its prediction.

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Accepted for the common interface; discrete factors are read as numbers.
    random_state : int or numpy.random.Generator
        Seeds the training/held-out split of the weak score.
    correlation : {"pearson", "spearman"}, default "pearson"
        Pearson correlation, or Spearman's rank correlation (Pearson on column ranks;
        in the weak score, ranks of the held-out aligned variables).
    alignment : {"cca", "affine"}, default "cca"
        How the weak score aligns the codes (see above).
    test_size : float, default 0.5
        Held-out fraction of the weak score.

    Returns
    -------
    dict
        ``{"strong": ..., "weak": ...}``, both in [0, 1].

    Notes
    -----
    * Properties: strong MCC rewards one code per factor, each a linear (Spearman:
      monotone) function of its factor, so it needs modularity, compactness and
      explicitness together (holistic); weak MCC forgives any invertible linear
      mixing and measures linear explicitness.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Both scores use absolute correlations, which a code's scale and sign leave
      unchanged, and a matching or an alignment that does not depend on the codes'
      order; the weak score's alignment is fitted on a random split (sample permutation
      in distribution).  Strictly monotone maps of the codes leave only the strong score
      with ``correlation="spearman"`` unchanged, so the registry, which describes the
      default options, does not claim them.
    * Scores: 1 on ``z = v``; on codes independent of the factors, of order
      ``1/sqrt(n)`` (the matching picks the largest of ``K L`` sampling correlations).
    * Cost: one ``K x L`` correlation product, one Hungarian assignment and, for the
      weak score, two symmetric eigendecompositions and one SVD; O(n (K + L)^2).

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
    check_choice(correlation, "correlation", CORRELATIONS)
    check_choice(alignment, "alignment", ALIGNMENTS)
    rank = correlation == "spearman"
    strong_inputs = (column_ranks(factors), column_ranks(codes)) if rank else (factors, codes)
    strong = matched_mean(_column_correlations(*strong_inputs))
    rng = as_generator(random_state)
    train, test = train_test_indices(factors.shape[0], test_size, rng, "mcc")
    align = _cca_aligned if alignment == "cca" else _affine_aligned
    aligned_factors, aligned_codes = align(factors, codes, train, test)
    if rank and aligned_factors.shape[1]:
        aligned_factors, aligned_codes = column_ranks(aligned_factors), column_ranks(aligned_codes)
    weak = float(_paired_correlations(aligned_factors, aligned_codes).sum() / factors.shape[1])
    return {"strong": strong, "weak": weak}
