"""Randomness, held-out splits and input requirements shared by the stochastic metrics.

The predictor-based metrics (DCI, the Explicitness score, SAP) and the
intervention-based ones (Z-diff, Z-min and Z-max Variance) all draw random numbers.
Every draw goes through one :class:`numpy.random.Generator` built here from the
metric's ``random_state``, and scikit-learn estimators get integer seeds derived from
it, so a metric is bit-for-bit deterministic given its ``random_state``.
"""

from __future__ import annotations

import numpy as np

from metrics.options import check_random_state

_SEED_BOUND = 2**31 - 1  # scikit-learn accepts seeds in [0, 2**32); stay well inside


def as_generator(random_state: int | np.random.Generator | None) -> np.random.Generator:
    """A numpy Generator from an int seed (None reads as 0) or a Generator (used as is).

    Raises
    ------
    TypeError, ValueError
        As :func:`metrics.validation.check_random_state` (floats, legacy
        ``RandomState`` objects, negative seeds).
    """
    random_state = check_random_state(0 if random_state is None else random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(random_state)


def derive_seeds(rng: np.random.Generator, count: int) -> list[int]:
    """``count`` integer seeds for scikit-learn estimators, drawn from ``rng``."""
    return [int(s) for s in rng.integers(_SEED_BOUND, size=count)]


def split_sizes(n: int, test_size: float) -> tuple[int, int]:
    """``(training, held-out)`` sample counts of :func:`train_test_indices` for ``n`` samples.

    The held-out part has ``round(test_size * n)`` samples, at least 1; the training
    part the rest (checked by :func:`train_test_indices`, not here).

    Raises
    ------
    TypeError, ValueError
        When ``test_size`` is not a number strictly between 0 and 1.
    """
    test_size = float(test_size)
    n_test = max(1, int(round(test_size * n)))
    return n - n_test, n_test


def train_test_indices(n: int, test_size: float, rng: np.random.Generator, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """A random split of ``range(n)`` into training and held-out indices.

    The held-out part has ``round(test_size * n)`` samples, at least 1, and the
    training part keeps at least 2 (:func:`split_sizes`).

    Raises
    ------
    ValueError
        When ``n`` is too small for both parts (fewer than 3 samples).
    """
    n_train, n_test = split_sizes(n, test_size)
    if n_train < 2:
        raise ValueError(
            f"{metric} needs at least 2 training and 1 held-out sample; got n = {n} with test_size = {float(test_size):g}"
        )
    order = rng.permutation(n)
    return np.sort(order[n_test:]), np.sort(order[:n_test])


def require_varying_factors(factors: np.ndarray, metric: str) -> None:
    """Raise a ValueError naming the first constant factor: it has nothing to predict."""
    constant = np.flatnonzero(np.ptp(factors, axis=0) == 0)
    if constant.size:
        raise ValueError(
            f"{metric} needs every factor to vary; factor {int(constant[0])} is constant "
            f"({constant.size} constant factor(s) in all): drop it, there is nothing to predict"
        )
