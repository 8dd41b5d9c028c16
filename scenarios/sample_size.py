"""Sample efficiency: one random sparse projection seen through growing samples (Zaidi et al. 2022, section 5.7).

``z = v R`` with 8 factors ``v ~ U(0, 1)`` and an 8 x 8 matrix ``R`` whose entries are
drawn uniformly on ``[0, 1)`` and each replaced by 0 with probability 0.75.  The review
uses such random representations "to avoid biases that could be created by perfect, or
completely noisy representations".  ``R`` may have a zero column (a dead code, about
one seed in two) or a zero row (a factor the code ignores); the review does not
exclude them, and neither does this scenario.

The swept parameter is the sample size itself, ``n in {100, 1000, 10000, 100000}``; any
whole number from 2 to 100000 (the draw size) may be asked for.
The scenario fixes its own draw size, ``default_n = 100000``: ``generate(value, n=N, seed)``
draws ``R`` and then ``N >= value`` rows from the seed, and returns the first ``value``
rows.  ``R`` does not depend on ``N``, and numpy fills arrays row after row, so the
sample at every ``value`` is a prefix of the sample at 100000 (also when a smaller
``N`` is asked for), exactly the review's protocol ("we apply each metric to the first
100, 1k and 10k samples and finally to the whole 100k sample set").

Ideal trajectory
----------------
None in absolute terms: the modularity, compactness and explicitness of a random
sparse projection have no closed form, and the review does not give one.  The ideal
is that a score does not depend on the sample size, so the reference of each seed is
its own score at the largest sample, and what a report measures is
``|score(n) - score(100000)|`` (review Figure 9).  ``ideal`` is therefore empty.
"""

from __future__ import annotations

import numpy as np

from scenarios._checks import check_integer
from scenarios.base import Scenario, register_scenario

N_FACTORS = 8
SIZES = (100, 1000, 10_000, 100_000)
ZERO_PROBABILITY = 0.75


def projection(rng: np.random.Generator) -> np.ndarray:
    """The review's sparse random matrix: uniform entries, each zeroed with probability 0.75."""
    weights = rng.random((N_FACTORS, N_FACTORS))
    return np.where(rng.random((N_FACTORS, N_FACTORS)) < ZERO_PROBABILITY, 0.0, weights)


def _build(size: int, n: int, rng: np.random.Generator):
    if n < size:
        raise ValueError(f"sample_size draws n rows and keeps the first {size}; n must be >= {size}, got {n}")
    mixing = projection(rng)
    factors = rng.random((n, N_FACTORS))[:size]
    return factors, factors @ mixing, (False,) * N_FACTORS


def _ideal(size: int) -> dict[str, float]:
    return {}


SAMPLE_SIZE = register_scenario(
    Scenario(
        name="sample_size",
        parameter="n",
        values=SIZES,
        build=_build,
        ideal_trajectory=_ideal,
        check_value=check_integer("n", 2, SIZES[-1]),  # the rows kept come from a draw of default_n rows
        source="Zaidi et al. 2022, section 5.7, Figure 9",
        summary="z = v R with a sparse random R; samples of 100 .. 100000 rows, each a prefix of the largest",
        criterion="sample_efficiency",
        default_n=SIZES[-1],
        rows=lambda size, n: size,
    )
)
