"""Codes as column ranks: what a probe that splits on order (a tree, quantile bins) is given.

A decision tree only compares a code with thresholds, so in exact arithmetic it is
invariant to any strictly increasing map of a code.  scikit-learn's trees work in
float32, and what a metric did to the codes before (min-max scaling, standardising)
ran in a precision that heavy tails defeat: ``z = sinh(2 v^3)`` with ``v ~ N(0, 1)``
spans about 1e23, so subtracting the minimum and casting to float32 left 5, 56, 13, 3
and 4 distinct values of 1000 in five such codes, and DCI-RF's explicitness fell from
0.9995 (on the ranks) to 0.017.

The ranks of a code (average ranks over all rows, held-out rows included: no factor is
read) keep every distinct value distinct and every tie tied, are exact in float32
(multiples of 1/2 up to ``n``, below 2**23 rows; distinct values' ranks differ by at
least 1) and are the same for any strictly increasing map of the code, so a probe given
them scores exactly the same whatever the codes' scale and tails.  A held-out value lying between two
training values is sent by the tree's threshold, which sits halfway between the two
training values' ranks: halfway in order rather than in the code's units, the choice
that no monotone map can move.
"""

from __future__ import annotations

import numpy as np


def column_ranks(values: np.ndarray) -> np.ndarray:
    """``(n, d)`` average ranks (1 .. n) of each column, ties sharing their mean rank, as float64.

    Exactly the same array for ``values`` and any strictly increasing map of its columns; the same as
    :func:`scipy.stats.rankdata` with ``axis=0``, about 2.5 times faster (one quicksort per contiguous column, the ties
    found in the sorted column, where ``rankdata`` sorts stably along the strided axis): Spearman MCC on 512 codes at
    n = 100000 ranks 51 million values.  Each column's ranks are scattered into a contiguous row, then the whole is
    transposed once (scattered into a column of the ``(n, d)`` result, each write landed ``8 d`` bytes from the last),
    and a column without ties takes its ranks in sorted order as they are, 1 to n.
    """
    n_rows, n_columns = values.shape
    ranks = np.empty((n_columns, n_rows))  # a row per column, so that each scatter stays within one column's span
    positions = np.arange(1.0, n_rows + 1.0)  # the ranks in sorted order of a column without ties
    for index, column in enumerate(np.ascontiguousarray(values.T)):
        order = np.argsort(column)
        ordered = column[order]
        tied = ordered[1:] == ordered[:-1]
        if tied.any():
            starts = np.flatnonzero(np.r_[True, ~tied])  # first position of each run of ties
            sizes = np.diff(np.r_[starts, n_rows])
            ranks[index, order] = np.repeat(starts + (sizes + 1) / 2, sizes)  # 1-based mean position of each run
        else:
            ranks[index, order] = positions
    return np.ascontiguousarray(ranks.T)
