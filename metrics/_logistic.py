"""Many small L2-penalised binary logistic regressions on one design, solved together by Newton's method.

The Explicitness score fits one class-balanced "class c against the rest" logistic regression per class of every
factor: ``K x classes`` fits (400 at 10 factors and 40 bins) of ``L + 1`` unknowns each on the same codes.  One at a
time, scikit-learn spends most of each fit around it (validation, setting up its solver, a loss object); here the
fits of one factor share every array operation: each Newton step computes all their gradients with one matrix
product, their ``(L + 1) x (L + 1)`` Hessians with another and solves them with one batched ``solve``.

Each fit minimises scikit-learn's ``LogisticRegression(penalty="l2", C=C)`` objective with sample weights,

    F(w, b) = C sum_i s_i log(1 + exp(-y~_i (x_i . w + b))) + 1/2 ||w||^2      (y~_i = +-1; the intercept b unpenalised)

which is strictly convex in ``(w, b)`` with ``C > 0``, so it has one minimiser, the one scikit-learn's solvers
approach.  Newton's method with a backtracking line search (Armijo's rule, step halved until the objective falls
enough) converges to it from zero for every fit; a fit stops after the full step it takes once its Newton
decrement ``g . H^-1 g / 2``, the objective's distance to its minimum to second order, is below
:data:`DECREMENT_TOLERANCE` of the objective (Newton's convergence is quadratic there): the coefficients are then
those of the minimiser to about 1e-8 (relative), closer than
scikit-learn's default tolerance (``tol=1e-4``) brings its own solvers (``tests/metrics/test_logistic.py`` checks
both against scikit-learn run to a tight tolerance).
"""

from __future__ import annotations

import warnings

import numpy as np

#: A fit takes its last (full) Newton step once its Newton decrement is below this share of its objective (plus the same
#: absolute amount): the step leaves an error of about the square of the one before it.
DECREMENT_TOLERANCE = 1e-10
#: Newton steps at most; the fits converge in about ten (quadratically once close).  Fits not done by then warn.
MAX_STEPS = 100
#: Halvings of a step at most in the line search.
MAX_HALVINGS = 60
#: Armijo's sufficient decrease: a step ``t`` is taken when the objective falls by at least this share of ``t g . d``.
ARMIJO = 1e-4


class NewtonConvergenceWarning(RuntimeWarning):
    """A logistic regression fitted by Newton's method stopped before its Newton decrement fell below the tolerance."""


def _objectives(design: np.ndarray, coefficients: np.ndarray, targets: np.ndarray, weights: np.ndarray,
                strength: float) -> np.ndarray:
    """``(m,)`` objectives ``F`` of the ``m`` fits at ``coefficients`` (``(d, m)``, the intercept last)."""
    logits = design @ coefficients
    losses = np.logaddexp(0.0, logits) - targets * logits
    return strength * (weights * losses).sum(axis=0) + 0.5 * (coefficients[:-1] ** 2).sum(axis=0)


def _column_products(design: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """``(d (d + 1) / 2, n)`` products ``x_a x_b`` of the columns of ``design`` for ``a <= b``, and the pairs ``(a, b)``.

    Formed once a fit, they give every fit's Hessian at every step as one matrix product with the curvatures,
    ``sum_i c_i x_ia x_ib``: at n = 15000 and 9 columns, 1 ms a step for ten fits instead of 6 for a weighted copy of
    the design per fit and its product with the design.
    """
    width = design.shape[1]
    upper = np.triu_indices(width)
    columns = np.ascontiguousarray(design.T)
    products = np.empty((upper[0].size, design.shape[0]))
    start = 0
    for column in range(width):  # the pairs (column, column..width-1), in triu_indices' order
        stop = start + width - column
        np.multiply(columns[column], columns[column:], out=products[start:stop])
        start = stop
    return products, upper


def fit_binary_logistic(codes: np.ndarray, targets: np.ndarray, weights: np.ndarray, strength: float) -> np.ndarray:
    """Fit ``m`` L2-penalised binary logistic regressions of the same codes together.

    Parameters
    ----------
    codes : numpy.ndarray
        ``(n, L)`` inputs, shared by every fit.
    targets : numpy.ndarray
        ``(n, m)`` 0/1 labels, one column per fit.
    weights : numpy.ndarray
        ``(n, m)`` non-negative sample weights, one column per fit.
    strength : float
        Inverse penalty ``C`` > 0 (scikit-learn's ``C``).

    Returns
    -------
    numpy.ndarray
        ``(L + 1, m)`` coefficients: each fit's weights, then its intercept in the last row.

    Raises
    ------
    ValueError
        When ``C`` is not positive or the shapes disagree.

    Warns
    -----
    NewtonConvergenceWarning
        When fits are not done after :data:`MAX_STEPS` Newton steps (their last iterates are returned).
    """
    from scipy.special import expit

    if not strength > 0:
        raise ValueError(f"the inverse penalty C must be positive, got {strength!r}")
    n, width = codes.shape
    if targets.shape != weights.shape or targets.shape[0] != n:
        raise ValueError(f"targets {targets.shape} and weights {weights.shape} must both be (n = {n}, fits)")
    design = np.column_stack([codes, np.ones(n)])
    products, upper = _column_products(design)
    fits = targets.shape[1]
    penalty = np.ones(width + 1)
    penalty[-1] = 0.0
    coefficients = np.zeros((width + 1, fits))
    objectives = _objectives(design, coefficients, targets, weights, strength)
    active = np.arange(fits)
    for _ in range(MAX_STEPS):
        beta, y, s = coefficients[:, active], targets[:, active], weights[:, active]
        probabilities = expit(design @ beta)
        gradients = strength * (design.T @ (s * (probabilities - y))) + penalty[:, np.newaxis] * beta
        curvature = strength * s * probabilities * (1.0 - probabilities)
        distinct = (products @ curvature).T  # (fits, pairs): each Hessian's entries on and above its diagonal
        hessians = np.empty((active.size, width + 1, width + 1))
        hessians[:, upper[0], upper[1]] = distinct
        hessians[:, upper[1], upper[0]] = distinct
        hessians[:, np.arange(width), np.arange(width)] += 1.0
        directions = np.linalg.solve(hessians, gradients.T[:, :, np.newaxis])[:, :, 0].T
        decrements = (gradients * directions).sum(axis=0)
        # close enough for the last, full step: the objective is within rounding of quadratic there, so Armijo's test
        # could not see it fall, and one more step squares the remaining error
        done = decrements / 2 <= DECREMENT_TOLERANCE * (1.0 + np.abs(objectives[active]))
        steps = np.ones(active.size)
        for _ in range(MAX_HALVINGS):  # backtracking: halve the steps of the fits whose objective fell too little
            trial = beta - steps * directions
            values = _objectives(design, trial, y, s, strength)
            short = (values > objectives[active] - ARMIJO * steps * decrements) & ~done
            if not short.any():
                break
            steps[short] /= 2
        coefficients[:, active] = trial
        objectives[active] = values
        active = active[~done]
        if not active.size:
            break
    else:
        warnings.warn(f"{active.size} of {fits} binary logistic regressions did not converge in {MAX_STEPS} Newton steps "
                      "(their Newton decrements still above the tolerance); their last iterates are returned",
                      NewtonConvergenceWarning, stacklevel=2)
    return coefficients


def logistic_probabilities(codes: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    """``(n, m)`` probabilities of the positive class of each fit of :func:`fit_binary_logistic` on ``codes``."""
    from scipy.special import expit

    return expit(codes @ coefficients[:-1] + coefficients[-1])
