"""The small data the metrics' docstring examples score (run as doctests)."""

from __future__ import annotations

import numpy as np

#: Mixes codes 0 and 1 into their sum and difference; code 2 is kept.
ENTANGLING = np.array([[1.0, 1.0, 0.0], [1.0, -1.0, 0.0], [0.0, 0.0, 1.0]])


def toy_codes(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three uniform factors, a slightly noisy perfect code of them, and that code entangled.

    Parameters
    ----------
    n : int, default 300
        Samples.
    seed : int, default 0
        Seed of the one generator every array is drawn from.

    Returns
    -------
    factors, codes, entangled : numpy.ndarray
        ``(n, 3)`` each: ``factors`` uniform on [0, 1]; ``codes = factors + 0.05 e`` with ``e``
        standard normal; ``entangled = codes @ ENTANGLING`` (its first two codes each mix the
        first two factors).

    Examples
    --------
    >>> factors, codes, entangled = toy_codes()
    >>> factors.shape, codes.shape, entangled.shape
    ((300, 3), (300, 3), (300, 3))
    """
    rng = np.random.default_rng(seed)
    factors = rng.random((n, 3))
    codes = factors + 0.05 * rng.standard_normal((n, 3))
    return factors, codes, codes @ ENTANGLING
