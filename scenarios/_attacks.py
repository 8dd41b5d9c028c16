"""Entanglement attacks of Tokui and Sato (2022, section 4), shared by the attack scenarios.

Both attacks append ``L`` columns to an ``(n, L)`` code ``z``, using the orthonormal mixing
matrix ``U = I - (2/L) 1 1^T`` and standard normal noise ``eps ~ N(0, I_L)``:

* redundancy attack (eq. 9): ``[z, alpha U z + eps]`` -- the appended codes hold a rotated,
  noisy copy of ``z``: the factors' information becomes redundant across codes.
* synergy attack (eq. 10): ``[z + alpha U eps, eps]`` -- the noise is mixed into the original
  codes and published separately: a factor can only be read from several codes together.

Both are invertible linear maps of ``(z, eps)`` (``tilde z = A (z, eps)``), so no information
about the factors is lost: ``z = tilde z_{1:L} - alpha U tilde z_{L+1:2L}`` after the synergy
attack.  The attacks are not scale invariant: ``eps`` has unit variance whatever the scale of
``z``, so ``alpha`` means what the paper means for codes of roughly unit variance.
"""

from __future__ import annotations

import numpy as np

ATTACKS = ("redundancy", "synergy")


def mixing_matrix(size: int) -> np.ndarray:
    """``U = I - (2/size) 1 1^T``: symmetric and orthonormal (a Householder reflection).

    For ``size = 2`` it only swaps and negates the two codes (no mixing beyond a pair); for
    ``size = 1`` it is ``-1``.
    """
    if size < 1:
        raise ValueError(f"the mixing matrix needs at least one code, got size {size}")
    return np.eye(size) - 2.0 / size


def attack_matrix(attack: str, alpha: float, size: int) -> np.ndarray:
    """The ``(2 size, 2 size)`` matrix ``A`` with ``tilde z = A (z, eps)`` (Tokui and Sato, Appendix C)."""
    if attack not in ATTACKS:
        raise ValueError(f"attack must be one of {ATTACKS}, got {attack!r}")
    alpha = _check_alpha(alpha)
    block = alpha * mixing_matrix(size)
    matrix = np.eye(2 * size)
    if attack == "redundancy":
        matrix[size:, :size] = block
    else:
        matrix[:size, size:] = block
    return matrix


def _check_alpha(alpha: float) -> float:
    try:
        value = float(alpha)
    except (TypeError, ValueError):
        raise TypeError(f"alpha must be a non-negative number, got {alpha!r}") from None
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"alpha must be a finite non-negative number, got {alpha!r}")
    return value


def _attack(attack: str, codes: np.ndarray, alpha: float, rng: np.random.Generator) -> np.ndarray:
    codes = np.asarray(codes, dtype=np.float64)
    if codes.ndim != 2 or codes.shape[1] < 1:
        raise ValueError(f"codes must be an (n, L) array with L >= 1, got shape {codes.shape}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {rng!r}")
    noise = rng.standard_normal(codes.shape)
    return np.hstack([codes, noise]) @ attack_matrix(attack, alpha, codes.shape[1]).T


def redundancy_attack(codes: np.ndarray, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Tokui and Sato (2022), eq. 9: ``[z, alpha U z + eps]``, an ``(n, 2L)`` array.

    Parameters
    ----------
    codes : numpy.ndarray
        ``(n, L)`` codes of any base representation.
    alpha : float
        Attack strength, ``>= 0``; ``alpha = 0`` appends pure noise.
    rng : numpy.random.Generator
        Source of the noise ``eps`` (``n x L`` standard normal draws).
    """
    return _attack("redundancy", codes, alpha, rng)


def synergy_attack(codes: np.ndarray, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Tokui and Sato (2022), eq. 10: ``[z + alpha U eps, eps]``, an ``(n, 2L)`` array.

    Parameters are those of :func:`redundancy_attack`.
    """
    return _attack("synergy", codes, alpha, rng)


ATTACK_FUNCTIONS = {"redundancy": redundancy_attack, "synergy": synergy_attack}
