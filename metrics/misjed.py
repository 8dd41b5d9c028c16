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
    """E[z | x] at every sample: the mean code of its ``neighbors`` nearest samples in factor space, and of every other
    sample as near as the farthest of them.

    Factors are standardised and distances are Euclidean; the sample itself is included.  Samples tied with the
    ``neighbors``-th nearest are all included, so the mean does not depend on the samples' order: with discrete
    factors, a cell of more than ``neighbors`` samples of one factor value is averaged whole (version 3 kept an
    arbitrary ``neighbors`` of them, which the samples' order chose: 0.171 or 0.150 for one permutation of the same
    2000 samples of 3 four-valued factors).  Twice ``neighbors`` are queried at once and a sample whose tied samples go
    beyond them gets a ball query, one for each distinct point (a ball query for every sample took 2.7 times as long at
    n = 20000, one per sample of a tied cell 7 times as long on two-valued factors).  The
    neighbours' codes are summed :data:`GATHER_ELEMENTS` at a time.
    """
    if neighbors > factors.shape[0]:  # clamped before: every sample's mean was the codes' overall mean, scored 0.96
        raise ValueError(f"misjed: neighbors ({neighbors}) must be at most the number of samples ({factors.shape[0]})")
    standard = standardize(factors)
    tree = cKDTree(standard)
    n = factors.shape[0]
    # twice the neighbours at once: the ties at the farthest are among them but where a tied group is larger (a cell
    # of discrete factors), whose samples get a ball query of their own
    width = min(n, 2 * neighbors)
    distances, index = query_in_tree_order(tree, list(range(1, width + 1)))
    radius = distances[:, neighbors - 1] * (1 + 1e-12)  # the factor keeps the farthest in the ball query below
    within = distances <= radius[:, None]
    means = np.empty((n, codes.shape[1]))
    step = max(1, GATHER_ELEMENTS // (width * codes.shape[1]))
    for start in range(0, n, step):
        kept = within[start:start + step]
        sums = np.einsum("sk,skl->sl", kept.astype(np.float64), codes[index[start:start + step]])
        means[start:start + step] = sums / kept.sum(axis=1)[:, None]
    more = np.flatnonzero(within[:, -1]) if width < n else np.empty(0, dtype=np.intp)
    if more.size:  # one ball per distinct point: identical samples (a cell of discrete factors) share it
        points, first, group = np.unique(standard[more], axis=0, return_index=True, return_inverse=True)
        members = np.split(more[np.argsort(group.ravel(), kind="stable")], np.cumsum(np.bincount(group.ravel()))[:-1])
        for rows, found in zip(members, tree.query_ball_point(points, r=radius[more[first]], return_sorted=False)):
            means[rows] = codes[found].mean(axis=0)
    return means


@register_metric(
    "misjed",
    family="information",
    properties="holistic",
    higher_is_better=False,
    version="4",
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

    The second term is at least 0 by construction (zbar is z without its noise given x), and the paper's MISJED lies in
    [0, 2 log bins]; an *estimated* zbar can hold more distinct values than z (the mean of 10 draws of a binary code
    takes 11), so its quantised joint entropy can exceed z's, and version 3 then scored below 0 (-0.51 on binary codes
    independent of the factors).  The term is therefore taken at least 0, i.e. each pair is
    ``H(z_i) + H(z_j) - min(H(z_i, z_j), H(zbar_i, zbar_j))``: the paper's value wherever its decomposition holds for
    the estimates.

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
        Samples averaged to estimate E[z | x] (at most ``n``: a ValueError otherwise; ties at the farthest included).
        Larger values smooth more: a deterministic code's zbar then varies less than the code and its pairs score
        above their dependence; smaller ones keep more of a noisy code's noise in zbar (see the notes).

    Notes
    -----
    * Holistic: low only for codes that are informative *and* independent; two noise codes
      score higher than two independent informative ones (the paper's ordering).
    * A single code forms no pair: the score is 0, as for independent codes.
    * Estimation: at n = 20000 with 8 factors uniform on [0, 1], the 10 nearest samples differ
      from a sample by 0.08 per factor on average (0.2 at most), so zbar of a deterministic
      code is a mildly smoothed copy (bin width 0.1).  The other side: a code independent of the factors has a constant
      zbar, but a mean of ``neighbors`` draws keeps a tenth of the code's variance, so its pairs score well below the
      paper's value, by an amount that does not shrink with n (``neighbors`` is fixed): Gaussian codes independent of
      3 Gaussian factors score about 0.44 at n = 1000 and 0.42 at n = 5000, where the paper's value (a constant zbar)
      is about 0.79 and 0.76.  Noise codes still score above informative ones (the paper's ordering), but not at the
      paper's level; a larger ``neighbors`` narrows this gap at the cost of the first.
    * Invariances: code_permutation, sample_permutation, sign_flip, positive_rescaling.
      Codes and their conditional means are binned together over each code's own range,
      which a rescaled code shares and a negated one mirrors; the neighbours are found
      in factor space and the pairs of codes are averaged, whatever their order.  Not
      monotone: a nonlinear map moves samples between bins.
    * Cost: one k-d tree query in factor space and two pairwise contingency tables of the
      ``L`` codes (of the codes and of their means), ``O(n L^2)``.

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
    joint_code_entropy = information_table(code_labels, code_labels).joint_entropy
    # I(z_i; z_j) + max(0, H(z_i, z_j) - H(zbar_i, zbar_j)): the noise term at least 0, as the paper's is
    pair = code_entropy[:, None] + code_entropy[None, :] - np.minimum(joint_code_entropy, joint_mean_entropy)
    upper = np.triu_indices(width, k=1)
    return float(np.mean(pair[upper]) / (2.0 * np.log(bins)))
