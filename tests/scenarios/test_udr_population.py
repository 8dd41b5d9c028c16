"""The UDR population: disentangled members up to permutation, sign and subset; rotated ones."""

from __future__ import annotations

import numpy as np
import pytest

from scenarios.population import get_population
from scenarios.udr_population import N_FACTORS, N_LATENTS, N_MEMBERS, random_rotation

SCENARIO = get_population("udr_population")


def test_same_seed_same_population():
    first = SCENARIO.generate(0.5, n=300, seed=0)
    again = SCENARIO.generate(0.5, n=300, seed=0)
    other = SCENARIO.generate(0.5, n=300, seed=1)
    assert first.disentangled == again.disentangled
    np.testing.assert_array_equal(first.factors, again.factors)
    for a, b in zip(first.members, again.members):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first.members[0], other.members[0])


@pytest.mark.parametrize("proportion", SCENARIO.values)
def test_proportion_sets_the_number_of_disentangled_members(proportion):
    population = SCENARIO.generate(proportion, n=50, seed=2)
    assert len(population.members) == N_MEMBERS
    assert sum(population.disentangled) == round(proportion * N_MEMBERS)
    assert all(m.shape == (50, N_LATENTS) for m in population.members)


def test_positions_of_disentangled_members_vary_with_the_seed():
    layouts = {SCENARIO.generate(0.5, n=20, seed=s).disentangled for s in range(6)}
    assert len(layouts) > 1


def _informative(codes: np.ndarray) -> np.ndarray:
    return codes.var(axis=0) > 0.02


def test_disentangled_members_are_signed_permuted_subsets_of_the_factors():
    population = SCENARIO.generate(1.0, n=2000, seed=4)
    sizes = set()
    for codes in population.members:
        live = np.flatnonzero(_informative(codes))
        sizes.add(live.size)
        assert live.size in (4, 5)
        corr = np.corrcoef(population.factors.T, codes[:, live].T)[:N_FACTORS, N_FACTORS:]
        best = np.argmax(np.abs(corr), axis=0)
        assert len(set(best)) == live.size  # distinct factors
        np.testing.assert_allclose(np.abs(corr[best, np.arange(live.size)]), 1.0, atol=1e-3)
        residual = codes[:, live] - population.factors[:, best] * np.sign(corr[best, np.arange(live.size)])
        assert np.max(np.std(residual, axis=0)) < 0.012
        off = np.delete(codes, live, axis=1)
        np.testing.assert_allclose(off.std(axis=0), 0.01, rtol=0.1)  # switched off
    assert sizes == {4, 5}


def test_entangled_members_are_rotations_of_all_factors():
    population = SCENARIO.generate(0.0, n=2000, seed=5)
    for codes in population.members:
        live = np.flatnonzero(_informative(codes))
        assert live.size == N_FACTORS
        mixing = np.linalg.lstsq(population.factors, codes[:, live], rcond=None)[0]
        np.testing.assert_allclose(mixing.T @ mixing, np.eye(N_FACTORS), atol=0.01)
        assert abs(np.linalg.det(mixing)) == pytest.approx(1.0, abs=0.02)  # sign: the latents' order
        assert np.max(np.abs(mixing)) < 0.99  # not a signed permutation


def test_random_rotation_is_a_proper_rotation():
    rng = np.random.default_rng(0)
    for _ in range(5):
        q = random_rotation(N_FACTORS, rng)
        np.testing.assert_allclose(q @ q.T, np.eye(N_FACTORS), atol=1e-12)
        assert np.linalg.det(q) == pytest.approx(1.0)


def test_out_of_range_proportion_is_refused():
    with pytest.raises(ValueError, match=r"proportion must be in \[0, 1\]"):
        SCENARIO.generate(1.5, n=10, seed=0)
