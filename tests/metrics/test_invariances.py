"""Every registered metric keeps the invariances its registry entry claims (:data:`metrics.registry.INVARIANCES`).

The claims are read from the registry, never listed here: a metric registered later is checked as soon as it
claims anything.  Each claimed transformation is applied, with the axiom checks' own transformations
(:mod:`harness.workflows.axioms`), to two representations, one with bounded codes and one with heavy-tailed
codes, and no sub-score may move by more than a tolerance that a broken invariance exceeds:

* the axioms' ``ATOL`` (1e-3: round-off stays below 1e-12, an unconverged solver, as InfoMEC's 100 L-BFGS
  steps, below 1e-5), for every deterministic metric, and for a stochastic one (same ``random_state``)
  under rescaling and monotone maps, which leave its probe the same inputs and draws;
* ``ATOL + NOISE_FACTOR * spread`` for a stochastic metric under the transformations that change what its
  draws meet (:data:`MOVES_THE_DRAWS`), ``spread`` being the range of that sub-score over ``NOISE_SEEDS``
  random states on the untransformed representation, as the axiom checks measure it.

A monotone map of a tree-based metric's codes is checked bit for bit in ``test_tree_probes.py``.
"""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import metrics
from harness.workflows.axioms import ATOL, NOISE_FACTOR, NOISE_SEEDS, flipped_signs, monotone_reparametrised, permuted_codes, rescaled
from metrics._ranks import column_ranks
from metrics.registry import INVARIANCES, available, get
from scenarios.mixing import band_matrix

N_SAMPLES = 300
N_FACTORS = 4

#: Options that make the slowest metrics fast enough for CI; no invariance depends on them.
FAST_OPTIONS = {
    "dci_gbt": {"n_estimators": 5, "bins": 4},
    "dci_lasso": {"n_alphas": 8, "folds": 3},
    "dci_rf": {"n_estimators": 5, "leaf_sizes": (1, 10)},
    "explicitness": {"bins": 4},
    "udr": {"penalty": 0.05},
    "z_diff": {"n_train": 1000, "n_eval": 500, "batch_size": 50},
    "z_max_var": {"n_train": 1000, "n_eval": 500, "batch_size": 50},
    "z_min_var": {"n_train": 1000, "n_eval": 500, "batch_size": 50},
}


def _representations() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Band-mixed, noisy codes of 4 factors: bounded (uniform factors and noise) and heavy-tailed
    (``sinh(2 w^3)`` of standardised Gaussian mixtures, spanning about 1e23)."""
    rng = np.random.default_rng(31)
    mixing = band_matrix(0.2, N_FACTORS)
    uniform = rng.random((N_SAMPLES, N_FACTORS))
    bounded = uniform @ mixing + 0.1 * rng.random((N_SAMPLES, N_FACTORS))
    gaussian = rng.standard_normal((N_SAMPLES, N_FACTORS))
    mixed = gaussian @ mixing + 0.2 * rng.standard_normal((N_SAMPLES, N_FACTORS))
    heavy = np.sinh(2.0 * (mixed / mixed.std(axis=0)) ** 3)
    return {"bounded": (uniform, bounded), "heavy": (gaussian, heavy)}


REPRESENTATIONS = _representations()


def _monotone(codes: np.ndarray) -> np.ndarray:
    """A strictly increasing map of every code: the axioms' tan map on bounded codes; on heavy-tailed codes, whose
    min-max scaling (the tan map's first step) would round their bulk to one value, their ranks."""
    mapped = monotone_reparametrised(codes) if np.abs(codes).max() < 1e6 else column_ranks(codes)
    assert np.array_equal(column_ranks(mapped), column_ranks(codes)), "the map must keep every code's order"
    return mapped


def _transformed(invariance: str, factors: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The claimed transformation of the data; seeded so that the rescaling factors are 2**4, 2**-5, 2**-4, 2**-3
    (down as well as up) and the code permutation moves every code."""
    rng = np.random.default_rng(3)
    if invariance == "sample_permutation":
        rows = rng.permutation(factors.shape[0])
        return factors[rows], codes[rows]
    transform = {
        "code_permutation": lambda z: permuted_codes(z, rng),
        "sign_flip": flipped_signs,
        "positive_rescaling": lambda z: rescaled(z, rng),
        "monotone": _monotone,
    }[invariance]
    return factors, transform(codes)


def _scores(name: str, factors: np.ndarray, codes: np.ndarray, random_state: int = 0) -> dict[str, float]:
    """The metric's scores, as a dict (a population metric's per member) with BLAS pinned to one thread."""
    spec = get(name)
    options = dict(FAST_OPTIONS.get(name, {}))
    if spec.stochastic:
        options["random_state"] = random_state
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence notes of the probes at this small n
        if spec.population:
            # three members built from the codes by maps that commute with permuting, negating and rescaling codes,
            # so transforming the codes transforms every member alike
            members = [codes, codes[:, ::-1] * 0.5, codes * (1.0 + 0.5 * np.cos(np.arange(codes.shape[0])))[:, None]]
            scores = metrics.evaluate_population(name, members, **options)
            return {f"member {index}": value for index, value in enumerate(scores)}
        return metrics.evaluate(name, factors, codes, **options)


CLAIMS = [(name, invariance) for name in available(population=None) for invariance in get(name).invariances]


def test_every_registered_metric_claims_some_invariance():
    assert all(get(name).invariances for name in available(population=None))


@pytest.mark.parametrize("name", available(population=None))
def test_the_docstring_lists_the_registered_invariances(name):
    # one bullet, "* Invariances: name, name, ...", then the reasons: the registry's field and the docs agree
    doc = inspect.getdoc(get(name).function) or ""
    match = re.search(r"^\* Invariances: ([a-z_,\s]+?)\.", doc, flags=re.MULTILINE)
    assert match, f"{name}: no '* Invariances: ...' bullet in its docstring"
    listed = tuple(part.strip() for part in match.group(1).split(","))
    assert listed == get(name).invariances
    assert set(listed) <= set(INVARIANCES)


#: The transformations that can change what a stochastic metric's draws meet: reordering the samples (its random
#: split picks other rows), the codes (a probe tries them in another order, which decides between equally good
#: splits) or a code's values (a negated code is scanned the other way).  Rescaling and strictly increasing maps
#: leave a probe that standardises, min-max scales or ranks the codes the same inputs and the same draws.
MOVES_THE_DRAWS = ("sample_permutation", "code_permutation", "sign_flip")


@pytest.fixture(scope="module")
def untransformed() -> Callable[[str, str], tuple[dict[str, float], dict[str, float]]]:
    """Per (metric, representation), computed once: its scores on the untransformed codes (random state 0) and,
    per sub-score, the range of its scores over NOISE_SEEDS random states (0 for a deterministic metric)."""
    cache: dict[tuple[str, str], tuple[dict[str, float], dict[str, float]]] = {}

    def scores_and_spreads(name: str, label: str) -> tuple[dict[str, float], dict[str, float]]:
        if (name, label) not in cache:
            factors, codes = REPRESENTATIONS[label]
            draws = [_scores(name, factors, codes, seed) for seed in range(NOISE_SEEDS if get(name).stochastic else 1)]
            cache[name, label] = draws[0], {key: max(d[key] for d in draws) - min(d[key] for d in draws) for key in draws[0]}
        return cache[name, label]

    return scores_and_spreads


@pytest.mark.parametrize("label", sorted(REPRESENTATIONS))
@pytest.mark.parametrize(("name", "invariance"), CLAIMS)
def test_a_claimed_invariance_holds(name, invariance, label, untransformed):
    factors, codes = REPRESENTATIONS[label]
    base, spreads = untransformed(name, label)
    scores = _scores(name, *_transformed(invariance, factors, codes))
    assert set(scores) == set(base)
    for key, value in base.items():
        tolerance = ATOL + (NOISE_FACTOR * spreads[key] if invariance in MOVES_THE_DRAWS else 0.0)
        assert abs(scores[key] - value) <= tolerance, f"{key}: {value} -> {scores[key]} (tolerance {tolerance:.3g})"
