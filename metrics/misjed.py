"""MISJED: Mutual Information Sums Joint Entropy Difference (Do and Tran 2020, section 3.2, eq. 7)."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from metrics._columns import column_range
from metrics._knn import query_in_tree_order, standardize
from metrics.constraints import AT_LEAST_TWO, COUNT, UNIT
from metrics.information import DEFAULT_BINS, Labels, discretize, entropy, information_table
from metrics.registry import register_metric

DEFAULT_MEAN_NEIGHBORS = 10
#: Neighbours' code values gathered at once by :func:`conditional_mean` (64 MiB of floats).
GATHER_ELEMENTS = 1 << 23


def conditional_mean(factors: np.ndarray, codes: np.ndarray, neighbors: int) -> np.ndarray:
    """E[z | x] at every sample: the mean code of its ``neighbors`` nearest samples in factor space.

    Factors are standardised and distances are Euclidean; the sample itself is included.
    The factors are standardised once and queried in the tree's own order
    (:func:`metrics._knn.query_in_tree_order`).  The neighbours' codes are gathered
    :data:`GATHER_ELEMENTS` at a time: gathered at once, they took ``n x neighbors x L``
    floats (4.1 GB for 100000 samples of 512 codes), for the same means.
    """
    if neighbors > factors.shape[0]:  # clamped before: every sample's mean was the codes' overall mean, scored 0.96
        raise ValueError(f"misjed: neighbors ({neighbors}) must be at most the number of samples ({factors.shape[0]})")
    index = query_in_tree_order(cKDTree(standardize(factors)), neighbors)[1].reshape(factors.shape[0], neighbors)
    means = np.empty((factors.shape[0], codes.shape[1]))
    step = max(1, GATHER_ELEMENTS // (neighbors * codes.shape[1]))
    for start in range(0, factors.shape[0], step):
        means[start:start + step] = codes[index[start:start + step]].mean(axis=1)
    return means


@register_metric(
    "misjed",
    family="information",
    properties="holistic",
    higher_is_better=False,
    version="3",
    invariances=("code_permutation", "sample_permutation", "sign_flip", "positive_rescaling"),
    constraints={"bins": AT_LEAST_TWO, "neighbors": COUNT},
    score_range=UNIT,
)
def misjed(factors, codes, *, discrete=None, bins: int = DEFAULT_BINS, neighbors: int = DEFAULT_MEAN_NEIGHBORS) -> float:
    """MISJED: how dependent *or uninformative* pairs of codes are, averaged over pairs (lower is better).

    Definition (Do and Tran 2020, eq. 7), for each pair of codes::

        MISJED(z_i, z_j) = H(z_i) + H(z_j) - H(zbar_i, zbar_j)
                         = I(z_i; z_j) + [ H(z_i, z_j) - H(zbar_i, zbar_j) ]

    where ``zbar = E[z | x]`` is the encoder mean.  The first term penalises dependent codes,
    the second codes whose value given x is noisy (zbar varies less than z).  Entropies are
    quantised (the paper's setting, which bounds each pair by ``2 log(bins)``); the score is::

        MISJED = mean_{i < j} MISJED(z_i, z_j) / (2 log bins)

    **x and zbar in this harness.**  x is represented by the factors (see
    :mod:`metrics._do_tran`), so ``zbar_i = E[z_i | v]``, estimated at each sample as the mean
    code of its ``neighbors`` nearest samples in (standardised) factor space.  zbar is binned
    on the *same* bins as z (both are discretised together), so that the bin widths cancel
    as in the paper's A.10.

    Parameters
    ----------
    factors, codes : numpy.ndarray
        ``(n, K)`` and ``(n, L)`` validated arrays.
    discrete : sequence of bool, optional
        Unused (distances in factor space treat category values as numbers).
    bins : int, default 10
        Equal-width bins per code, over the range of the code (the paper uses [-4, 4] for
        every code, which presumes unit-scale Gaussian latents).
    neighbors : int, default 10
        Samples averaged to estimate E[z | x] (at most ``n``: a ValueError otherwise).  Larger values smooth more: a
        deterministic code's zbar then varies less than the code and its pairs score above their
        dependence.

    Notes
    -----
    * Holistic: low only for codes that are informative *and* independent; two noise codes
      score higher than two independent informative ones (the paper's ordering).
    * A single code forms no pair: the score is 0, as for independent codes.
    * Estimation: at n = 20000 with 8 factors uniform on [0, 1], the 10 nearest samples differ
      from a sample by 0.08 per factor on average (0.2 at most), so zbar of a deterministic
      code is a mildly smoothed copy (bin width 0.1).
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Codes and their conditional means are binned together over each code's own range,
      which a rescaled code shares and a negated one mirrors; the neighbours are found
      in factor space and the pairs of codes are averaged, whatever their order.  Not
      monotone: a nonlinear map moves samples between bins.
    * Cost: one k-d tree query in factor space and one pairwise contingency table of the
      ``L`` codes, ``O(n L^2)``.

    Examples
    --------
    The perfect code against one whose first two codes mix two factors (300 samples, 3 factors):

    >>> from metrics.examples import toy_codes
    >>> factors, codes, entangled = toy_codes()  # 300 samples; entangled mixes codes 0 and 1
    >>> from metrics.misjed import misjed
    >>> round(misjed(factors, codes), 2), round(misjed(factors, entangled), 2)
    (0.13, 0.11)
    """
    width = codes.shape[1]
    if width < 2:
        return 0.0
    mean = conditional_mean(factors, codes, neighbors)
    # the codes and their means binned over their joint range, as the two stacked (without the 2 n x L copy)
    (code_low, code_high), (mean_low, mean_high) = column_range(np.ascontiguousarray(codes, dtype=np.float64)), column_range(mean)
    joint = (np.minimum(code_low, mean_low), np.maximum(code_high, mean_high))
    full_bins = np.full(width, bins, dtype=np.int64)
    code_labels = Labels(discretize(codes, bins, joint), full_bins)
    mean_labels = Labels(discretize(mean, bins, joint), full_bins)
    del mean  # freed before the pair tables below
    code_entropy = entropy(code_labels)
    joint_mean_entropy = information_table(mean_labels, mean_labels).joint_entropy
    pair = code_entropy[:, None] + code_entropy[None, :] - joint_mean_entropy
    upper = np.triu_indices(width, k=1)
    return float(np.mean(pair[upper]) / (2.0 * np.log(bins)))
