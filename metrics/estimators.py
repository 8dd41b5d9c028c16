"""Mutual information between one variable and a *set* of code columns: I(v_k; z_S).

Metrics that compare one code with the rest of the code (UniBound, the PID bounds, Do and
Tran's separability metrics) need the information a factor shares with several codes at
once, which the histogram engine of :mod:`metrics.information` cannot give in many
dimensions.  :func:`mutual_information` is the one interface for it; every metric that
uses it exposes the estimator as an option.

Estimators (all results in nats, clipped at 0)
----------------------------------------------
``"knn"`` (default)
    Nonparametric k-nearest-neighbour estimation: Kraskov et al. (2004, algorithm 1) for a
    continuous variable, Ross (2014) for a discrete one.  With several code columns the
    codes are first reduced to a statistic of the target, and the neighbour estimator is
    run on that statistic:

    * continuous target: its least-squares linear prediction from the codes (one column);
    * discrete target: the linear discriminant subspace of the codes (whitened codes
      projected on the span of the class means, at most ``C - 1`` columns).

    By the data-processing inequality the result estimates a lower bound of I(v; z_S),
    which is exact when the statistic is sufficient: codes that are linear-Gaussian in the
    factor, any attack of Tokui and Sato (2022), linear mixing, one code per factor under
    any monotone map.  Why: neighbour estimators in 10 dimensions underestimate large
    information badly (I(y_k; z) = 2.31 nats in the Gaussian toy model of Tokui and Sato,
    section 5.1, is estimated as 0.8 nats at N = 20000), while on the 1-D statistic they
    are accurate to 0.01-0.02 nats there.  Failure modes: a factor encoded nonlinearly
    across several codes (an angle as (cos, sin)), or a discrete factor whose classes
    differ in the codes jointly but not in their means (XOR of two binary codes), is
    underestimated; use ``"knn_full"`` there.  The single-code case is not projected.
``"knn_full"``
    The same neighbour estimators run in the full code space (the textbook estimators).
    Consistent, but biased towards 0 in high dimensions and slow (k-d trees degrade):
    tens of times the cost of ``"knn"`` with 5 to 10 codes.
``"gaussian"``
    Closed form for jointly Gaussian variables::

        I(v; z_S) = 1/2 log( det C_vv det C_SS / det C ) = -1/2 log(1 - R^2)

    where ``R^2`` is the coefficient of determination of the least-squares regression of
    ``v`` on ``z_S`` (minimum-norm ``lstsq``, so collinear codes are handled).  It measures
    linear dependence only: a nonlinear code (``z = v^2``) gets 0, and a discrete factor is
    read as the numbers of its categories.  An exactly linear relation (``R^2 = 1``) would
    be infinite; the residual fraction is floored at ``1e-12``, which caps the estimate at
    13.8 nats.  :func:`pairwise_information` and the PID bounds (UniBound) read all their
    estimates from one pass over the rows (:class:`metrics._gaussian.CodeGram`; 3.2 s at
    10 factors x 512 codes, n = 100000).
``"histogram"``
    The plug-in estimate of :mod:`metrics.information` (equal-width bins, ``bins`` per
    continuous column; discrete targets keep their categories).  One code column only.
``"miller_madow"``
    The histogram estimate with the Miller-Madow bias correction of each entropy,
    ``H + (m - 1) / 2n`` with ``m`` the number of occupied cells, i.e.
    ``I + (m_v + m_z - m_vz - 1) / 2n``.  One code column only.

Cost: ``knn`` about the same per estimate whatever the number of codes; ``knn_full``
growing with the number of codes (tens of times ``knn`` with 10); ``gaussian``,
``histogram`` and ``miller_madow`` about a tenth of ``knn``
(``python -m harness estimators`` times each on the Gaussian toy model).

Invariances
-----------
Every estimate is unchanged when the code columns or the samples are permuted, a code is
negated or multiplied by a positive number (:data:`metrics.registry.INVARIANCES`): the k-NN
estimators divide each column by its standard deviation and shift it by its median
(:func:`metrics._knn.standardize`), the projections of several codes are solved on
standardised codes (:func:`_linear_coefficients`), and the histogram estimators bin each
column over its own range.  Up to ties: a projection of several *quantised* codes (few values on a lattice) puts
many pairs of samples at exactly equal distances, and floating-point rounding, which the order of the columns or
samples changes, decides which side of a neighbour's radius they fall on (0.040 or 0.047 nats for one estimate on
codes rounded to sixths; up to 4e-3 of WINDIN, UniBound, WSEPIN and INDIN@k scores); a value on a bin's edge moves to
the neighbouring bin when its code is negated (the bins are half-open), about 1e-4 to 6e-4 of a histogram score.  Not
to strictly monotone maps: neighbour distances and equal-width bins follow a code's units.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import sparse

from metrics._gaussian import CodeGram, column_scales, information_from_fraction
from metrics._knn import Column, kraskov, kraskov_prepared, ross
from metrics.constraints import AT_LEAST_TWO, COUNT, Options
from metrics.information import DEFAULT_BINS, encode_categories, entropy, factor_code_information, joint_counts, shared_labels
from metrics.options import check_choice, check_positive_int
from metrics.shared import memoised
from metrics.validation import as_real_matrix, check_discrete

ESTIMATORS = ("knn", "knn_full", "gaussian", "histogram", "miller_madow")
DEFAULT_ESTIMATOR = "knn"
DEFAULT_NEIGHBORS = 3
"""Neighbours of the k-NN estimators; Kraskov et al. (2004) recommend 2-4."""

NORMALIZATIONS = ("bounded", "entropy", "none")
#: The rules of the estimator options the metrics built on these estimators share (:mod:`metrics.constraints`).
ESTIMATOR_CONSTRAINTS = {"estimator": Options(*ESTIMATORS), "neighbors": COUNT, "bins": AT_LEAST_TWO,
                         "normalize": Options(*NORMALIZATIONS)}

_HISTOGRAM = ("histogram", "miller_madow")


def check_estimator_options(estimator: str, neighbors: int, bins: int) -> None:
    """Raise a ValueError/TypeError naming the option when an estimator option is invalid."""
    check_choice(estimator, "estimator", ESTIMATORS)
    check_positive_int(neighbors, "neighbors")
    check_positive_int(bins, "bins", minimum=2)


def estimate_options(estimator: str, neighbors: int, bins: int) -> tuple[str, int | None, int | None]:
    """The options an estimate depends on, as a key of :func:`metrics.shared.memoised`.

    ``neighbors`` matters to the k-NN estimators only and ``bins`` to the histogram ones,
    so that metric variants differing in an option their estimator ignores (RMIG and
    UniBound swept over ``bins`` under ``knn``, whose ``bins`` sets only the entropy of the
    normalisation) share one estimate inside :func:`metrics.shared_estimates`.
    """
    return (
        estimator,
        neighbors if estimator in ("knn", "knn_full") else None,
        bins if estimator in _HISTOGRAM else None,
    )


def _as_target(factor_column: Any) -> np.ndarray:
    target = np.asarray(factor_column, dtype=np.float64)
    if target.ndim == 2 and target.shape[1] == 1:
        target = target[:, 0]
    if target.ndim != 1:
        raise ValueError(f"factor_column must be one column, got shape {target.shape}")
    if not np.all(np.isfinite(target)):
        raise ValueError("factor_column contains NaN or infinite values")
    return target


def _as_codes(code_columns: Any, n: int) -> np.ndarray:
    codes = np.asarray(code_columns, dtype=np.float64)
    if codes.ndim == 1:
        codes = codes[:, None]
    if codes.ndim != 2 or codes.shape[0] != n:
        raise ValueError(f"code_columns must be an ({n}, d) array matching factor_column, got shape {codes.shape}")
    if not np.all(np.isfinite(codes)):
        raise ValueError("code_columns contains NaN or infinite values")
    return codes


def _linear_coefficients(target: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``(d,)`` least-squares coefficients of the centred target on the centred codes.

    Solved on the standardised codes (:func:`metrics._gaussian.column_scales`) through the ``d x d`` normal
    equations with a minimum-norm ``lstsq`` (the same minimum-norm solution as ``lstsq`` on
    the ``(N, d)`` data, 7x faster at N = 20000 and d = 10), so duplicated or collinear codes
    are handled; the minimum norm and ``lstsq``'s cut-off are then the same in any units.
    """
    scale = column_scales(codes)
    standardised = (codes - codes.mean(axis=0)) / scale
    return np.linalg.lstsq(standardised.T @ standardised, standardised.T @ (target - target.mean()), rcond=None)[0] / scale


def _linear_statistic(target: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The least-squares linear prediction of the target from the codes, up to an additive constant.

    The codes are shifted by their medians, not their means, before the product: the
    information is the same for any constant, and a median is a value among the bulk of
    a code, which stays exact when shifted by it, while the mean of a heavy-tailed code
    (``sinh(2 v^3)``, spanning 1e23) sits far from it and the shift rounds the bulk to one
    value: the statistic then ordered the bulk by rounding, and reordering the codes
    moved the estimates by up to 0.05 nats.
    """
    return (codes - np.median(codes, axis=0)) @ _linear_coefficients(target, codes)


def _discriminant_projection(labels: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Whitened codes projected on the span of the class means (at most ``C - 1`` columns), up to a constant shift.

    The codes are standardised first (:func:`metrics._gaussian.column_scales`), and the projected ones shifted by
    their medians, as in :func:`_linear_statistic`.
    """
    n = codes.shape[0]
    scale = column_scales(codes)
    centred = (codes - codes.mean(axis=0)) / scale
    eigenvalues, eigenvectors = np.linalg.eigh(centred.T @ centred / n)
    keep = eigenvalues > max(eigenvalues.max(), 0.0) * 1e-12
    if not keep.any():
        return centred[:, :1]
    whitening = eigenvectors[:, keep] / np.sqrt(eigenvalues[keep])
    whitened = centred @ whitening
    _, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    means = np.zeros((counts.size, whitened.shape[1]))
    np.add.at(means, inverse, whitened)
    weighted = means / counts[:, None] * np.sqrt(counts / n)[:, None]
    _, singular, directions = np.linalg.svd(weighted, full_matrices=False)
    rank = max(1, min(int(np.sum(singular > singular.max() * 1e-9)), counts.size - 1))
    return (codes - np.median(codes, axis=0)) / scale @ whitening @ directions[:rank].T


def _knn_information(target: np.ndarray, codes: np.ndarray, discrete: bool, neighbors: int, full: bool) -> float:
    if target.size <= neighbors:
        raise ValueError(f"the k-NN estimators need more samples than neighbors ({neighbors}); got {target.size}")
    reduce = codes.shape[1] > 1 and not full
    if discrete:
        labels = encode_categories(target[:, None]).codes[:, 0]
        return ross(labels, _discriminant_projection(labels, codes) if reduce else codes, neighbors)
    statistic = _linear_statistic(target, codes)[:, None] if reduce else codes
    return kraskov(target[:, None], statistic, neighbors)


def _gaussian_information(target: np.ndarray, codes: np.ndarray) -> float:
    total = float(np.sum((target - target.mean()) ** 2))
    if total == 0.0:
        return 0.0
    centred = codes - codes.mean(axis=0)
    residual = float(np.sum((target - target.mean() - centred @ _linear_coefficients(target, codes)) ** 2))
    return float(information_from_fraction(residual / total))


def _histogram_information(factors: np.ndarray, codes: np.ndarray, discrete: Sequence[bool], bins: int, miller_madow: bool) -> np.ndarray:
    """``(K, L)`` plug-in information of every factor with every single code, optionally corrected."""
    table = factor_code_information(factors, codes, discrete, bins)
    if not miller_madow:
        return table.mutual_information
    counts = joint_counts(shared_labels(factors, tuple(bool(flag) for flag in discrete), bins), shared_labels(codes, None, bins))
    occupied_joint = np.count_nonzero(counts, axis=(2, 3))
    occupied_factor = np.count_nonzero(counts.sum(axis=3), axis=2)
    occupied_code = np.count_nonzero(counts.sum(axis=2), axis=2)
    correction = (occupied_factor + occupied_code - occupied_joint - 1) / (2.0 * factors.shape[0])
    return np.clip(table.mutual_information + correction, 0.0, None)


def _one_column(values: Any) -> Any:
    """A 1-D sequence as an ``(n, 1)`` column; anything else as given (:func:`as_real_matrix` says what is wrong with it)."""
    if sparse.issparse(values):
        return values
    try:
        one_dimensional = np.ndim(values) == 1
    except ValueError:  # ragged
        return values
    return np.asanyarray(values)[:, None] if one_dimensional else values


def mutual_information(
    factor_column: Any,
    code_columns: Any,
    *,
    estimator: str = DEFAULT_ESTIMATOR,
    discrete: bool = False,
    neighbors: int = DEFAULT_NEIGHBORS,
    bins: int = DEFAULT_BINS,
) -> float:
    """Mutual information I(v; z_S) in nats between one variable and a set of code columns.

    The arrays are validated as :func:`metrics.evaluate` validates factors and codes
    (:func:`metrics.validation.as_real_matrix`: real, finite, at most 1e150 in magnitude,
    at least 2 samples); the metrics call the same estimate on arrays they validated.

    Parameters
    ----------
    factor_column : array_like
        ``(n,)`` or ``(n, 1)`` values of the variable ``v`` (a factor, or any single column).
    code_columns : array_like
        ``(n, d)`` codes ``z_S`` (``(n,)`` is read as one column).  ``d = 0`` gives 0: no
        code carries no information.  A constant ``v`` or constant codes give exactly 0.
    estimator : {"knn", "knn_full", "gaussian", "histogram", "miller_madow"}, default "knn"
        See the module docstring for each estimator, its bias and cost.
    discrete : bool, default False
        Whether ``v`` is categorical (Ross's estimator for ``knn``; categories instead of
        bins for the histogram estimators; category values read as numbers by ``gaussian``).
    neighbors : int, default 3
        ``k`` of the k-NN estimators.
    bins : int, default 10
        Bins per continuous column of the histogram estimators.

    Returns
    -------
    float
        The estimate, clipped at 0 (the information's lower limit; neighbour estimators can
        return small negative values for independent variables).

    Raises
    ------
    TypeError
        For arrays that are not real numbers (text, complex, objects), or a ``discrete``
        that is not a bool; the message names the argument.
    ValueError
        For an unknown estimator, malformed inputs (not one factor column, fewer than 2
        samples, non-finite or huge values, mismatched rows; the message names the
        argument), a histogram estimator asked for more than one code column, too few
        samples for ``neighbors``, or a discrete ``v`` without repeated values under ``knn``.
    """
    check_estimator_options(estimator, neighbors, bins)
    target = as_real_matrix(_one_column(factor_column), "factor_column")
    if target.shape[1] != 1:
        raise ValueError(f"factor_column must be one column, got shape {target.shape}")
    codes = _one_column(code_columns)
    if not (isinstance(codes, np.ndarray) and codes.ndim == 2 and codes.shape[1] == 0):  # d = 0 is documented: 0
        codes = as_real_matrix(codes, "code_columns")
    if codes.shape[0] != target.shape[0]:
        raise ValueError(
            f"factor_column and code_columns must have the same number of rows (samples); got {target.shape[0]} and {codes.shape[0]}"
        )
    flag = check_discrete(discrete, 1)[0]
    return estimate_information(target[:, 0], codes, estimator=estimator, discrete=flag, neighbors=neighbors, bins=bins)


def estimate_information(
    factor_column: np.ndarray,
    code_columns: np.ndarray,
    *,
    estimator: str = DEFAULT_ESTIMATOR,
    discrete: bool = False,
    neighbors: int = DEFAULT_NEIGHBORS,
    bins: int = DEFAULT_BINS,
) -> float:
    """:func:`mutual_information` of arrays a metric has validated (a column of its factors or codes, a set of its codes)."""
    check_estimator_options(estimator, neighbors, bins)
    target = _as_target(factor_column)
    codes = _as_codes(code_columns, target.size)
    if estimator in _HISTOGRAM and codes.shape[1] > 1:
        raise ValueError(
            f"the {estimator!r} estimator handles one code column only, got {codes.shape[1]}; use 'knn' or 'gaussian' for several codes"
        )
    if codes.shape[1] == 0 or np.ptp(target) == 0 or not np.any(np.ptp(codes, axis=0) > 0):
        return 0.0
    if estimator in _HISTOGRAM:
        return float(_histogram_information(target[:, None], codes, (bool(discrete),), bins, estimator == "miller_madow")[0, 0])
    if estimator == "gaussian":
        value = _gaussian_information(target, codes)
    else:
        value = _knn_information(target, codes, bool(discrete), neighbors, estimator == "knn_full")
    return max(float(value), 0.0)


def pairwise_information(
    factors: np.ndarray,
    codes: np.ndarray,
    discrete: Sequence[bool] | None = None,
    *,
    estimator: str = DEFAULT_ESTIMATOR,
    neighbors: int = DEFAULT_NEIGHBORS,
    bins: int = DEFAULT_BINS,
) -> np.ndarray:
    """``(K, L)`` matrix of I(v_k; z_j) for every factor and every single code.

    The histogram estimators use the vectorised engine in one pass.  Under ``knn`` and
    ``knn_full`` (the same estimator for a single code column) a continuous factor is
    paired with every code through :func:`metrics._knn.kraskov_prepared`, each factor and
    code being standardised and sorted once instead of once per pair; the result is
    identical to :func:`mutual_information` per pair, which the other estimators and
    discrete factors use.  Nearly all of the cost under ``knn`` is the ``K L`` joint-space
    k-d tree queries.  Inside
    :func:`metrics.shared_estimates` the matrix is computed once per ``factors``, ``codes``
    and the options it depends on (:func:`estimate_options`; UniBound, the PID bounds and
    RMIG share it, whatever their ``bins`` under ``knn``).
    """
    check_estimator_options(estimator, neighbors, bins)
    flags = tuple(bool(flag) for flag in discrete) if discrete is not None else (False,) * factors.shape[1]
    return memoised(
        "pairwise_information",
        (factors, codes),
        (flags, estimate_options(estimator, neighbors, bins)),
        lambda: _pairwise_information(factors, codes, flags, estimator, neighbors, bins),
    )


def _pairwise_information(factors: np.ndarray, codes: np.ndarray, flags: tuple[bool, ...], estimator: str, neighbors: int, bins: int) -> np.ndarray:
    """The body of :func:`pairwise_information` (checked options, one flag per factor)."""
    if estimator in _HISTOGRAM:
        return _histogram_information(factors, codes, flags, bins, estimator == "miller_madow")
    options = {"estimator": estimator, "neighbors": neighbors}
    if estimator == "gaussian":
        return gaussian_gram(factors, codes).pairwise()
    if estimator not in ("knn", "knn_full"):
        return np.array([[estimate_information(factors[:, k], codes[:, j], discrete=flags[k], **options) for j in range(codes.shape[1])]
                         for k in range(factors.shape[1])])
    columns = [_as_codes(codes[:, j], factors.shape[0]) for j in range(codes.shape[1])]
    informative = [np.ptp(column) > 0 for column in columns]
    prepared = [Column(column) if useful else None for column, useful in zip(columns, informative)]
    table = np.zeros((factors.shape[1], codes.shape[1]))
    for k in range(factors.shape[1]):
        target = _as_target(factors[:, k])
        if np.ptp(target) == 0:
            continue
        if flags[k]:
            table[k] = [estimate_information(target, codes[:, j], discrete=True, **options) for j in range(codes.shape[1])]
            continue
        if target.size <= neighbors and any(informative):
            raise ValueError(f"the k-NN estimators need more samples than neighbors ({neighbors}); got {target.size}")
        factor = Column(target[:, None])
        table[k] = [max(kraskov_prepared(factor, code, neighbors), 0.0) if code is not None else 0.0 for code in prepared]
    return table


def gaussian_gram(factors: np.ndarray, codes: np.ndarray) -> CodeGram:
    """The :class:`metrics._gaussian.CodeGram` of validated ``factors`` and ``codes``, built once per pair inside
    :func:`metrics.shared_estimates`: every ``gaussian`` estimate of a factor from a set of the codes reads it."""
    return memoised("gaussian_gram", (factors, codes), (), lambda: CodeGram.of(np.asarray(factors, dtype=np.float64),
                                                                             np.asarray(codes, dtype=np.float64)))


def binned_entropy(columns: np.ndarray, discrete: Sequence[bool] | None = None, bins: int = DEFAULT_BINS) -> np.ndarray:
    """Plug-in entropy (nats) of each column: categories if discrete, ``bins`` equal-width bins otherwise."""
    return entropy(shared_labels(columns, None if discrete is None else tuple(bool(flag) for flag in discrete), bins))


def information_denominator(entropies: np.ndarray, information: np.ndarray, normalize: str) -> np.ndarray:
    """The per-variable divisor of an information score under each normalisation.

    Parameters
    ----------
    entropies : numpy.ndarray
        Plug-in entropy of each variable (:func:`binned_entropy`).
    information : numpy.ndarray
        The most information any estimate of the score can reach for that variable
        (e.g. I(v_k; z) for the PID bounds of factor ``v_k``).
    normalize : {"bounded", "entropy", "none"}
        ``"none"``: 1 (raw nats).  ``"entropy"``: the entropy, as the papers do (Tokui and
        Sato 2022, eq. 6; Do and Tran 2020, section 3).  For a discrete variable the
        information cannot exceed it; for a continuous one it is the entropy of the variable
        binned into ``bins`` equal-width bins, i.e. the information needed to locate it in
        one bin, and a precise code carries more than that (the score exceeds 1).
        ``"bounded"``: ``max(entropy, information)``; equal to ``"entropy"`` whenever the
        codes hold less than the entropy (always for discrete variables) and otherwise a
        share of the information actually held, so the score stays in [0, 1].
    """
    check_choice(normalize, "normalize", NORMALIZATIONS)
    if normalize == "none":
        return np.ones_like(np.asarray(entropies, dtype=np.float64))
    if normalize == "entropy":
        return np.asarray(entropies, dtype=np.float64)
    return np.maximum(entropies, information)


def normalized(values: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``values / denominator``, with 0 where the denominator is 0 (a constant variable carries nothing)."""
    values = np.asarray(values, dtype=np.float64)
    denominator = np.broadcast_to(np.asarray(denominator, dtype=np.float64), values.shape)
    return np.divide(values, denominator, out=np.zeros_like(values), where=denominator > 0)
