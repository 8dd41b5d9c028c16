"""An L2-penalised multinomial (softmax) logistic regression, solved exactly by Newton's method.

InfoMEC's explicitness (one fit per factor, on the standardised codes) and Z-diff's classifier (one fit on its
training points) are scikit-learn's ``LogisticRegression(penalty="l2", C=C)``.  Its L-BFGS solver stops at a
tolerance (``tol=1e-4`` on the gradient, and after ``max_iter`` iterations), short of the minimiser by an amount that
depends on the data; and most of a small fit's time goes to its set-up.  Here each fit minimises the same objective,

    F(W, b) = C sum_i -log softmax(x_i W + b)_{y_i} + 1/2 ||W||_F^2      (W: L x K, b: K, the intercepts unpenalised)

(scikit-learn minimises ``F / (C n)``: the mean loss plus ``||W||^2 / (2 C n)``, the same minimiser), by Newton's
method with a backtracking line search, until the minimiser is reached to rounding.

The symmetric parameterisation (one weight vector and intercept per class) is redundant: adding a vector ``a`` to
every column of ``W`` (and a number to every intercept) leaves the probabilities unchanged, so the loss is flat and
its Hessian singular along those directions.  The penalty is least where the columns of ``W`` sum to zero, so the
minimiser's weights are centred over the classes, and the intercepts are taken centred too (scikit-learn's iterates,
started from zero with gradients that sum to zero over the classes, stay centred as well).  The fit therefore works in
``K - 1`` orthonormal contrasts ``Q`` (the Helmert basis: ``Q Q^T = I``, ``Q 1 = 0``): ``W = V Q`` and ``b = c Q``
with ``||W|| = ||V||``, a reparameterisation of exactly the centred solutions in which ``F`` is strictly convex
(its Hessian positive definite), with ``(L + 1)(K - 1)`` unknowns.

With two classes scikit-learn fits the binomial model instead (one weight vector ``w = w_1 - w_2``, penalised once):
its objective is twice the softmax one at ``C / 2`` (``||w||^2 = 2 ||W||^2`` for centred ``W``), so the fit uses
``C / 2`` there and gives scikit-learn's probabilities again.

Newton's method converges from zero with Armijo's backtracking rule (a step is halved until the objective falls by
:data:`ARMIJO` of its first-order prediction) and quadratically near the minimiser.  A fit stops after the full step
it takes once its Newton decrement ``g . H^-1 g / 2`` (the objective's distance to its minimum, to second order) is
below :data:`DECREMENT_TOLERANCE` times ``1 + F``: that step squares the remaining relative error, and the
probabilities are those of the minimiser to about 1e-9 (``tests/metrics/test_multinomial.py`` checks them to 1e-8
against scikit-learn's Newton solver run to ``tol=1e-12``).  A fit that is not done after :data:`MAX_STEPS` steps,
or whose line search cannot lower the objective before it is done, warns with :class:`NewtonConvergenceWarning` and
returns its last iterate.

Every step is a handful of matrix products over the ``n`` rows and the classes at once (no loop over rows or
classes but blocks of rows for the cache): the gradient ``C X~^T (Q (P - Y))^T + [V; 0]`` (``x~_i``: the codes with a 1
appended), then the direction ``H^-1 g``.  Up to :data:`DENSE_UNKNOWNS` unknowns it solves with the whole Hessian
``C sum_i x~_i x~_i^T (x) Q (diag p_i - p_i p_i^T) Q^T + I_V``, formed from its distinct entries; beyond (wide codes,
many classes) by conjugate gradients on Hessian-vector products, preconditioned by its diagonal, each Newton system
solved to a residual that falls with the gradient (an inexact Newton method, superlinear; the same stopping rule).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import cached_property

import numpy as np

# the stopping rule and the line search of the binary fits: the last full step once the Newton decrement is below
# DECREMENT_TOLERANCE times 1 + F, at most MAX_HALVINGS halvings of a step to Armijo's decrease ARMIJO
from metrics._logistic import ARMIJO, DECREMENT_TOLERANCE, MAX_HALVINGS, NewtonConvergenceWarning

#: Newton steps at most; a fit takes about 10 to 30 (more with separable classes and a weak penalty).
MAX_STEPS = 200
#: Unknowns ``(L + 1)(K - 1)`` up to which a Newton system is solved with the whole Hessian; beyond, forming it (about
#: ``n L^2 K^2 / 4`` products) costs more than conjugate gradients on Hessian-vector products (``n L K`` each).
DENSE_UNKNOWNS = 400
#: Conjugate-gradient iterations at most per Newton step, as a multiple of the unknowns' count.
MAX_CG_FACTOR = 2
#: Where a fit chose conjugate gradients itself, the iterations after which a Newton system not yet solved is solved
#: with the whole Hessian, as a fraction of the unknowns: a Hessian-vector product costs about ``2 n L K`` products
#: and forming the Hessian ``n L^2 K^2 / 4``, so past ``L K / 8`` iterations the whole Hessian is cheaper.  Near a
#: minimiser of nearly separable classes (wide codes, few rows, a weak penalty: InfoMEC's ``C = 1e4`` on 128 null codes
#: at n = 1000) the Hessian is so ill-conditioned that conjugate gradients ran their 2 x unknowns iterations at every
#: step without converging: 8 s a call at 64 codes, past 100 s at 128 (0.5 s and 3.5 s with the whole Hessian).
CG_BREAK_EVEN = 1 / 8
_BLOCK_VALUES = 1 << 15  # pair products of Q p_i held at once (256 KiB) while forming a Hessian
#: The most values of the design's pair products ``x~_a x~_b`` kept for a fit's Hessians (64 MiB); beyond (wide codes
#: and many rows: 1.3 GB for 128 codes at n = 20000) they are formed again for each block of rows at each step.
_PAIR_VALUES = 1 << 23


@dataclass(frozen=True)
class MultinomialLogistic:
    """A fitted multinomial logistic regression: ``P(y = classes[k] | x) = softmax(x weights + intercepts)_k``.

    Attributes
    ----------
    classes : numpy.ndarray
        ``(K,)`` the sorted distinct labels (scikit-learn's ``classes_``).
    weights : numpy.ndarray
        ``(L, K)`` weights, centred over the classes (scikit-learn's ``coef_.T`` for ``K > 2``).
    intercepts : numpy.ndarray
        ``(K,)`` intercepts, centred.
    steps : int
        Newton steps taken.
    """

    classes: np.ndarray
    weights: np.ndarray
    intercepts: np.ndarray
    steps: int

    def log_probabilities(self, codes: np.ndarray) -> np.ndarray:
        """``(n, K)`` natural logarithms of the class probabilities of ``codes`` (``(n, L)``)."""
        logits = codes @ self.weights + self.intercepts
        return logits - _log_sum_exp(logits)[:, np.newaxis]

    def probabilities(self, codes: np.ndarray) -> np.ndarray:
        """``(n, K)`` class probabilities of ``codes`` (``(n, L)``; scikit-learn's ``predict_proba``)."""
        return np.exp(self.log_probabilities(codes))

    def predict(self, codes: np.ndarray) -> np.ndarray:
        """``(n,)`` the most probable class of each row of ``codes`` (the first on a tie, as scikit-learn's)."""
        return self.classes[np.argmax(codes @ self.weights + self.intercepts, axis=1)]


def _log_sum_exp(logits: np.ndarray) -> np.ndarray:
    """``(n,)`` ``log sum_k exp(logits[:, k])``, without overflow."""
    largest = logits.max(axis=1)
    return largest + np.log(np.exp(logits - largest[:, np.newaxis]).sum(axis=1))


def helmert_contrasts(classes: int) -> np.ndarray:
    """``(classes - 1, classes)`` orthonormal rows orthogonal to the vector of ones (the Helmert basis).

    Row ``j`` puts ``1 / sqrt((j + 1)(j + 2))`` on the first ``j + 1`` classes and ``-(j + 1)`` times that on the
    next one.
    """
    rows = np.arange(1, classes)[:, np.newaxis]
    columns = np.arange(classes)[np.newaxis, :]
    contrasts = np.where(columns < rows, 1.0, np.where(columns == rows, -rows, 0.0))
    return contrasts / np.sqrt(rows * (rows + 1.0))


def _symmetric_pairs(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``size (size + 1) / 2`` pairs ``i <= j`` of ``range(size)`` and the ``(size, size)`` table of each pair's index."""
    first, second = np.triu_indices(size)
    table = np.empty((size, size), dtype=np.intp)
    table[first, second] = table[second, first] = np.arange(first.size)
    return first, second, table


class _Problem:
    """One fit's objective in the contrasts, its gradient, and its Hessian (whole, times a vector, or its diagonal).

    The arrays are class-major: ``design`` is ``(L + 1, n)`` (the codes' transpose and a row of ones), the
    probabilities ``(K, n)``, so that every reduction over the classes runs along whole rows of ``n`` values.
    Parameters are ``(L + 1, K - 1)``, the intercepts in the last row.
    """

    def __init__(self, codes: np.ndarray, members: np.ndarray, classes: int, strength: float) -> None:
        self.n, self.width = codes.shape
        self.members, self.strength = members, strength
        self.contrasts = helmert_contrasts(classes)
        self.design = np.vstack([codes.T, np.ones((1, self.n))])
        self.targets = self.design @ self.contrasts.T[members]  # the gradient's constant part, X~^T Y Q^T

    def evaluate(self, parameters: np.ndarray) -> tuple[float, np.ndarray]:
        """``F`` and the ``(K, n)`` probabilities at ``parameters``."""
        logits = (parameters @ self.contrasts).T @ self.design
        logits -= logits.max(axis=0)
        exponentials = np.exp(logits)
        totals = exponentials.sum(axis=0)
        losses = np.log(totals) - logits[self.members, np.arange(self.n)]
        objective = self.strength * float(losses.sum()) + 0.5 * float((parameters[:-1] ** 2).sum())
        return objective, exponentials / totals

    def gradient(self, parameters: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
        """``(L + 1, K - 1)`` gradient ``C X~^T (P - Y) Q^T + [V; 0]``."""
        gradient = self.strength * (self.design @ (self.contrasts @ probabilities).T - self.targets)
        gradient[:-1] += parameters[:-1]
        return gradient

    @cached_property
    def _pairs(self) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                              tuple[np.ndarray, np.ndarray]]:
        """What every whole Hessian of the fit reads: the design's pair products ``x~_a x~_b`` (``a <= b``; None
        beyond :data:`_PAIR_VALUES` values, formed block by block instead), the contrasts' pairs ``Q_pk Q_qk``
        (``p <= q``), the rows of the second pairs, where each entry of the Hessian lies among the distinct ones, and
        the design's pairs (rows of its first and second factor)."""
        depth, reduced = self.design.shape[0], self.contrasts.shape[0]
        design_first, design_second, design_table = _symmetric_pairs(depth)
        design_pairs = (self.design[design_first] * self.design[design_second]
                        if design_first.size * self.n <= _PAIR_VALUES else None)
        first, second, contrast_table = _symmetric_pairs(reduced)
        contrast_pairs = self.contrasts[first] * self.contrasts[second]  # (pairs, K): Q diag(p) Q^T = these @ p
        unknowns, entries = np.divmod(np.arange(depth * reduced), reduced)
        return (design_pairs, contrast_pairs, first, second, design_table[unknowns[:, np.newaxis], unknowns],
                contrast_table[entries[:, np.newaxis], entries], (design_first, design_second))

    def hessian(self, probabilities: np.ndarray) -> np.ndarray:
        """The ``(L + 1)(K - 1)`` square Hessian, the unknowns flattened row-major.

        ``C sum_i x~_i x~_i^T (x) Q (diag p_i - p_i p_i^T) Q^T`` plus the penalty's identity on the weights, from its
        distinct entries (pairs ``a <= b`` of design columns times pairs ``p <= q`` of contrasts): the first term is
        one product of the design's pair products with the probabilities; the second sums over blocks of rows that
        keep the pair products of ``Q p_i`` in cache (3x faster than one product over all rows at n = 1000).
        """
        design_pairs, contrast_pairs, first, second, design_entry, contrast_entry, (design_first, design_second) = (
            self._pairs)
        contrasted = self.contrasts @ probabilities  # Q p_i
        rows = max(64, _BLOCK_VALUES // first.size)
        if design_pairs is None:  # wide codes and many rows: the design's pairs of each block of rows, at each step
            rows = max(16, min(rows, _BLOCK_VALUES // design_first.size))
            weighted = np.zeros((design_first.size, probabilities.shape[0]))
            packed = np.zeros((design_first.size, first.size))
            for start in range(0, self.n, rows):
                design = self.design[:, start : start + rows]
                pairs = design[design_first] * design[design_second]
                block = contrasted[:, start : start + rows]
                weighted += pairs @ probabilities[:, start : start + rows].T
                packed -= pairs @ (block[first] * block[second]).T
            packed += weighted @ contrast_pairs.T
        else:
            packed = (design_pairs @ probabilities.T) @ contrast_pairs.T
            for start in range(0, self.n, rows):
                block = contrasted[:, start : start + rows]
                packed -= design_pairs[:, start : start + rows] @ (block[first] * block[second]).T
        hessian = packed[design_entry, contrast_entry]
        hessian *= self.strength
        penalised = np.arange(self.width * self.contrasts.shape[0])
        hessian[penalised, penalised] += 1.0
        return hessian

    def hessian_product(self, probabilities: np.ndarray, direction: np.ndarray) -> np.ndarray:
        """The Hessian times ``direction`` (``(L + 1, K - 1)``), without forming it: ``C X~^T (Q S(u))^T + [V; 0]``.

        ``u_i = Q^T V^T x~_i`` is the change of row ``i``'s logits and ``S(u)_i = p_i * u_i - p_i (p_i . u_i)``.
        """
        weighted = probabilities * ((direction @ self.contrasts).T @ self.design)
        weighted -= probabilities * weighted.sum(axis=0)
        product = self.strength * (self.design @ (self.contrasts @ weighted).T)
        product[:-1] += direction[:-1]
        return product

    def hessian_diagonal(self, probabilities: np.ndarray) -> np.ndarray:
        """``(L + 1, K - 1)`` diagonal of the Hessian: ``C sum_i x~_ia^2 (Q^2 p_i - (Q p_i)^2)_p`` (plus 1 on the weights)."""
        curvature = (self.contrasts**2) @ probabilities - (self.contrasts @ probabilities) ** 2
        diagonal = self.strength * ((self.design**2) @ curvature.T)
        diagonal[:-1] += 1.0
        return diagonal


def _conjugate_gradient(problem: _Problem, probabilities: np.ndarray, gradient: np.ndarray,
                        tolerance: float, iterations: int | None = None) -> tuple[np.ndarray, bool]:
    """``H^-1 g`` to a residual of ``tolerance ||g||``, by conjugate gradients preconditioned by the Hessian's diagonal,
    and whether it got there.

    At most ``iterations`` iterations (default :data:`MAX_CG_FACTOR` times the unknowns' count: in exact arithmetic it
    ends within that count), then the last iterate.
    """
    inverse_diagonal = 1.0 / problem.hessian_diagonal(probabilities)
    solution = np.zeros_like(gradient)
    residual = gradient.copy()
    preconditioned = inverse_diagonal * residual
    search = preconditioned.copy()
    alignment = float((residual * preconditioned).sum())
    target = tolerance * float(np.sqrt((gradient**2).sum()))
    for _ in range(MAX_CG_FACTOR * gradient.size if iterations is None else iterations):
        curved = problem.hessian_product(probabilities, search)
        length = alignment / float((search * curved).sum())
        solution += length * search
        residual -= length * curved
        if float(np.sqrt((residual**2).sum())) <= target:
            return solution, True
        preconditioned = inverse_diagonal * residual
        aligned, alignment = alignment, float((residual * preconditioned).sum())
        search = preconditioned + (alignment / aligned) * search
    return solution, False


def fit_multinomial_logistic(codes: np.ndarray, labels: np.ndarray, strength: float, *,
                             dense: bool | None = None) -> MultinomialLogistic:
    """Fit scikit-learn's ``LogisticRegression(penalty="l2", C=strength)`` exactly (see the module's docstring).

    Parameters
    ----------
    codes : numpy.ndarray
        ``(n, L)`` finite inputs.
    labels : numpy.ndarray
        ``(n,)`` labels of at least two distinct values (any sortable dtype).
    strength : float
        Inverse penalty ``C`` > 0 (scikit-learn's ``C``).
    dense : bool, optional
        Solve each Newton system with the whole Hessian (Cholesky-like, ``True``) or by conjugate gradients on
        Hessian-vector products (``False``).  By default the whole Hessian up to :data:`DENSE_UNKNOWNS` unknowns
        ``(L + 1)(K - 1)``; beyond, conjugate gradients until a system takes more than :data:`CG_BREAK_EVEN` of
        the unknowns' count of iterations, the whole Hessian from then on.  The minimiser is the same either way.

    Returns
    -------
    MultinomialLogistic
        The minimiser.

    Raises
    ------
    ValueError
        When ``C`` is not positive, the shapes disagree or the labels take fewer than two values.

    Warns
    -----
    NewtonConvergenceWarning
        When the fit is not done after :data:`MAX_STEPS` Newton steps or its line search fails first.
    """
    if not strength > 0:
        raise ValueError(f"the inverse penalty C must be positive, got {strength!r}")
    n, width = codes.shape
    if labels.shape != (n,):
        raise ValueError(f"labels {labels.shape} must be one per row of the codes {codes.shape}")
    classes, members = np.unique(labels, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"a logistic regression needs at least two classes, got {classes.size}")
    if classes.size == 2:
        strength = strength / 2  # scikit-learn's binomial model: its objective is twice the softmax one at C / 2
    problem = _Problem(codes, members, classes.size, strength)
    unknowns = (width + 1) * (classes.size - 1)
    switching = dense is None  # conjugate gradients chosen here may give way to the whole Hessian
    if dense is None:
        dense = unknowns <= DENSE_UNKNOWNS
    parameters = np.zeros((width + 1, classes.size - 1))
    objective, probabilities = problem.evaluate(parameters)
    first_norm = None
    for step in range(1, MAX_STEPS + 1):
        gradient = problem.gradient(parameters, probabilities)
        if dense:
            direction = np.linalg.solve(problem.hessian(probabilities), gradient.ravel()).reshape(gradient.shape)
        else:  # an inexact Newton step: the residual's share falls with the gradient, for superlinear convergence
            norm = float(np.sqrt((gradient**2).sum()))
            first_norm = first_norm or norm
            direction, solved = _conjugate_gradient(problem, probabilities, gradient, min(0.1, norm / first_norm),
                                                    max(1, int(CG_BREAK_EVEN * unknowns)) if switching else None)
            if not solved and switching:  # ill-conditioned: the whole Hessian costs less, now and at the next steps
                dense = True
                direction = np.linalg.solve(problem.hessian(probabilities), gradient.ravel()).reshape(gradient.shape)
        decrement = float((gradient * direction).sum())
        if decrement / 2 <= DECREMENT_TOLERANCE * (1.0 + abs(objective)):
            # within rounding of quadratic: Armijo's test could not see the objective fall, and one more full step
            # squares the remaining error
            parameters = parameters - direction
            break
        size = 1.0
        for _ in range(MAX_HALVINGS):
            trial = parameters - size * direction
            value, trial_probabilities = problem.evaluate(trial)
            if value <= objective - ARMIJO * size * decrement:
                break
            size /= 2
        else:
            warnings.warn(f"the multinomial logistic regression's line search found no decrease after {step - 1} "
                          f"Newton steps, at a Newton decrement of {decrement:.3g} (objective {objective:.6g}); its "
                          "last iterate is returned", NewtonConvergenceWarning, stacklevel=2)
            break
        parameters, objective, probabilities = trial, value, trial_probabilities
    else:
        warnings.warn(f"the multinomial logistic regression did not converge in {MAX_STEPS} Newton steps (Newton "
                      f"decrement {decrement:.3g}, objective {objective:.6g}); its last iterate is returned",
                      NewtonConvergenceWarning, stacklevel=2)
    centred = parameters @ problem.contrasts
    return MultinomialLogistic(classes=classes, weights=centred[:-1], intercepts=centred[-1], steps=step)
