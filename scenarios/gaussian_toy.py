"""The Gaussian toy model of Tokui and Sato (2022, section 5.1 and Appendix C): an exact oracle.

Factors ``y ~ N(0, I_K)`` and a disentangled but noisy code ``z | y ~ N(y, sigma^2 I)``
(``K = 5``, ``sigma = 0.1`` as in the paper), then the redundancy attack (eq. 9) or the
synergy attack (eq. 10) of strength ``alpha`` (:mod:`scenarios._attacks`): ``2K = 10`` codes.

Everything is jointly Gaussian, so every mutual information between a factor and a set of
codes is exact covariance algebra (Appendix C)::

    I(y_k; tilde z_S) = 1/2 [ log det Cov(tilde z_S) - log det Cov(tilde z_S | y_k) ]

with ``Cov(tilde z) = A diag((1 + sigma^2) I, I) A^T``, ``Cov(tilde z | y_k) = A diag((1 + sigma^2) I
- e_k e_k^T, I) A^T`` and ``A`` the attack matrix.  :func:`exact_information` evaluates these
numerically (``slogdet``); the tests check them against the paper's closed forms (eq. 16,
Table 1, section 5.1).  ``Representation.exact`` holds them, in nats:

* ``information_code`` ``(K, 2K)``: I(y_k; tilde z_l);
* ``information_rest`` ``(K, 2K)``: I(y_k; tilde z_\\l) (every code but ``l``);
* ``information_total`` ``(K,)``: I(y_k; tilde z) (= 1/2 log((1 + sigma^2) / sigma^2) for every alpha);
* ``unique``, ``redundant``, ``complementary``, ``unique_rest`` ``(K,)``: the PID of
  ``(y_k; tilde z_k, tilde z_\\k)``.  In this model the lower and upper bounds of eq. 7
  coincide, so the terms are exact (Appendix C): under the redundancy attack C = 0 and
  R = I(y_k; tilde z_\\k); under the synergy attack R = 0 and C = I(y_k; tilde z) - I(y_k; tilde z_k);
  in both the rest has no unique information;
* ``unibound``, ``mig``: eq. 6 and eq. 3 in raw nats (Table 1);
* ``factor_entropy``: the differential entropy 1/2 log(2 pi e) of each factor (section 5.1
  divides by it).

Two scenarios are registered, each sweeping ``alpha``: ``gaussian_toy_redundancy`` and
``gaussian_toy_synergy``.  Their ideal trajectories are :func:`ideal_trajectory`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from scenarios._attacks import ATTACK_FUNCTIONS, ATTACKS, attack_matrix
from scenarios.base import Scenario, check_in_range, register_scenario

N_FACTORS = 5
SIGMA = 0.1
ALPHAS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
"""Attack strengths swept: from no attack to nearly complete entanglement (at alpha = 8
the unique share of each factor is 0.20 under redundancy and 0.003 under synergy)."""
MAX_ALPHA = 1000.0


@dataclass(frozen=True)
class _GaussianAttack:
    """Covariances of the attacked codes of the Gaussian base model."""

    marginal: np.ndarray  # Cov(tilde z)
    given_factor: tuple[np.ndarray, ...]  # Cov(tilde z | y_k), one per factor
    given_factors: np.ndarray  # Cov(tilde z | y)
    loadings: np.ndarray  # (2K, K): tilde z = loadings y + noise

    @classmethod
    def build(cls, attack: str, alpha: float, n_factors: int, sigma: float) -> _GaussianAttack:
        matrix = attack_matrix(attack, alpha, n_factors)
        eye = np.eye(n_factors)

        def attacked(code_covariance: np.ndarray) -> np.ndarray:
            stacked = np.zeros((2 * n_factors, 2 * n_factors))
            stacked[:n_factors, :n_factors] = code_covariance
            stacked[n_factors:, n_factors:] = eye
            return matrix @ stacked @ matrix.T

        spread = (1.0 + sigma**2) * eye
        return cls(
            marginal=attacked(spread),
            given_factor=tuple(attacked(spread - np.outer(eye[k], eye[k])) for k in range(n_factors)),
            given_factors=attacked(sigma**2 * eye),
            loadings=matrix[:, :n_factors],
        )

    def information(self, factor: int, columns: np.ndarray) -> float:
        """I(y_factor; tilde z_columns) in nats."""
        index = np.ix_(columns, columns)
        return 0.5 * (np.linalg.slogdet(self.marginal[index])[1] - np.linalg.slogdet(self.given_factor[factor][index])[1])


def _check_model(n_factors: int, sigma: float) -> None:
    if isinstance(n_factors, bool) or not isinstance(n_factors, (int, np.integer)) or n_factors < 1:
        raise ValueError(f"n_factors must be a positive integer, got {n_factors!r}")
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a positive number, got {sigma!r}")


def exact_information(attack: str, alpha: float, n_factors: int = N_FACTORS, sigma: float = SIGMA) -> dict[str, Any]:
    """Closed-form information quantities of the attacked Gaussian toy model (nats).

    Parameters
    ----------
    attack : {"redundancy", "synergy"}
    alpha : float
        Attack strength, ``>= 0``.
    n_factors : int, default 5
        ``K``; the attacked code has ``2K`` columns.
    sigma : float, default 0.1
        Noise of the base code ``z | y ~ N(y, sigma^2 I)``.

    Returns
    -------
    dict
        The quantities listed in the module docstring.
    """
    _check_model(n_factors, sigma)
    model = _GaussianAttack.build(attack, alpha, n_factors, sigma)
    width = 2 * n_factors
    everything = np.arange(width)
    code = np.array([[model.information(k, np.array([j])) for j in range(width)] for k in range(n_factors)])
    rest = np.array([[model.information(k, np.delete(everything, j)) for j in range(width)] for k in range(n_factors)])
    total = np.array([model.information(k, everything) for k in range(n_factors)])
    own = np.arange(n_factors)
    code_own, rest_own = code[own, own], rest[own, own]
    if attack == "redundancy":
        redundant, complementary = rest_own, np.zeros(n_factors)
    else:
        redundant, complementary = np.zeros(n_factors), total - code_own
    ordered = np.sort(code, axis=1)
    return {
        "information_code": code,
        "information_rest": rest,
        "information_total": total,
        "unique": code_own - redundant,
        "redundant": redundant,
        "complementary": complementary,
        "unique_rest": rest_own - redundant,
        "unibound": float(np.mean(np.max(np.maximum(code - rest, 0.0), axis=1))),
        "mig": float(np.mean(ordered[:, -1] - ordered[:, -2])),
        "factor_entropy": 0.5 * np.log(2.0 * np.pi * np.e),
    }


def ideal_trajectory(attack: str, alpha: float, n_factors: int = N_FACTORS, sigma: float = SIGMA) -> dict[str, float]:
    """What a metric of each property should report on the attacked Gaussian model.

    * explicitness = mean_k I(y_k; tilde z) / I(y_k; z) = 1: both attacks are invertible, no
      information about the factors is lost (eq. 16: I(y_k; tilde z) = 1/2 log((1 + sigma^2) / sigma^2)).
    * compactness = mean_k U(y_k; tilde z_k \\ tilde z_\\k) / I(y_k; tilde z): the share of each
      factor's information held by one code alone (exact here, see the module docstring).
      Redundancy: ``1 - log((1 + a^2 (1 + s^2)) / (1 + a^2 s^2)) / log((1 + s^2) / s^2)``,
      1 at alpha = 0, towards 0 as alpha grows.  Synergy:
      ``log((1 + s^2 + a^2) / (s^2 + a^2)) / log((1 + s^2) / s^2)``, also towards 0.
    * modularity = share of the codes' information about the factors that sits in codes
      depending on a single factor: ``sum_j w_j [z_j loads on <= 1 factor] / sum_j w_j`` with
      ``w_j = I(y; tilde z_j)``.  Redundancy: every appended code ``alpha u_l^T z + eps_l``
      mixes all factors (``K >= 3``), so modularity falls from 1 towards 1/2 as the appended
      codes gain information.  Synergy: the original codes each depend on one factor and the
      appended codes ``eps`` on none, so modularity stays 1 (noise, as in the review's
      section 5.2, does not break modularity).
    """
    _check_model(n_factors, sigma)
    exact = exact_information(attack, alpha, n_factors, sigma)
    model = _GaussianAttack.build(attack, alpha, n_factors, sigma)
    base = 0.5 * np.log((1.0 + sigma**2) / sigma**2)
    weight = 0.5 * (np.log(np.diag(model.marginal)) - np.log(np.diag(model.given_factors)))
    single = np.count_nonzero(np.abs(model.loadings) > 1e-12, axis=1) <= 1
    return {
        "modularity": float(np.sum(weight * single) / np.sum(weight)),
        "compactness": float(np.mean(exact["unique"] / exact["information_total"])),
        "explicitness": round(float(np.mean(exact["information_total"]) / base), 12),
    }


def sample(
    attack: str, alpha: float, n: int, rng: np.random.Generator, n_factors: int = N_FACTORS, sigma: float = SIGMA
) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` samples: factors ``(n, K)`` and attacked codes ``(n, 2K)``."""
    _check_model(n_factors, sigma)
    if attack not in ATTACKS:
        raise ValueError(f"attack must be one of {ATTACKS}, got {attack!r}")
    factors = rng.standard_normal((n, n_factors))
    codes = factors + sigma * rng.standard_normal((n, n_factors))
    return factors, ATTACK_FUNCTIONS[attack](codes, alpha, rng)


def attacked_gaussian_scenario(name: str, attack: str, *, n_factors: int, sigma: float, source: str) -> Scenario:
    """A scenario sweeping ``alpha`` over :data:`ALPHAS` on the attacked Gaussian model.

    Its ``build`` draws :func:`sample`, its ideal trajectory is :func:`ideal_trajectory` and
    its ``exact`` is :func:`exact_information`, all for ``n_factors`` and ``sigma``.
    """
    _check_model(n_factors, sigma)
    if attack not in ATTACKS:
        raise ValueError(f"attack must be one of {ATTACKS}, got {attack!r}")

    def build(alpha: float, n: int, rng: np.random.Generator):
        factors, codes = sample(attack, alpha, n, rng, n_factors, sigma)
        return factors, codes, (False,) * n_factors

    return Scenario(
        name=name,
        parameter="alpha",
        values=ALPHAS,
        build=build,
        ideal_trajectory=lambda alpha: ideal_trajectory(attack, alpha, n_factors, sigma),
        check_value=check_in_range("alpha", 0.0, MAX_ALPHA),
        source=source,
        summary=f"y ~ N(0, I_{n_factors}), z | y ~ N(y, {sigma:g}^2 I), then the {attack} attack of strength alpha",
        exact=lambda alpha: exact_information(attack, alpha, n_factors, sigma),
        criterion="attacks",
    )


GAUSSIAN_TOY_REDUNDANCY = register_scenario(
    attacked_gaussian_scenario(
        "gaussian_toy_redundancy", "redundancy", n_factors=N_FACTORS, sigma=SIGMA, source="Tokui and Sato 2022, section 5.1 and Appendix C"
    )
)
GAUSSIAN_TOY_SYNERGY = register_scenario(
    attacked_gaussian_scenario(
        "gaussian_toy_synergy", "synergy", n_factors=N_FACTORS, sigma=SIGMA, source="Tokui and Sato 2022, section 5.1 and Appendix C"
    )
)
