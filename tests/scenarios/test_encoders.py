"""Joshi et al.'s (2026) encoders as transforms: their maps, condition numbers, ranks and ideal rules."""

from __future__ import annotations

import math

import numpy as np
import pytest

import scenarios
from scenarios.composition import compose
from scenarios.encoders import ELEMENTWISE_SHAPES, SHAPES, conditioned_mixing, haar_orthonormal, spectrum
from scenarios.transforms import TRANSFORMS, standardized, unit_range

ENCODERS = ("elementwise_tanh", "elementwise_cubic", "elementwise_sigmoid", "dense_mixing", "undercomplete",
            "overcomplete_linear", "overcomplete_multicodes", "circular", "overcomplete_entangled")
PERFECT = {"modularity": 1.0, "compactness": 1.0, "explicitness": 1.0}


def _base_codes(base: str, value: float, n: int, seed: int) -> np.ndarray:
    return scenarios.get(base).generate(value, n=n, seed=seed).codes


def _increasing_in(new: np.ndarray, old: np.ndarray) -> bool:
    order = np.argsort(old)
    return bool(np.all(np.diff(new[order]) > 0))


@pytest.mark.parametrize("shape", ELEMENTWISE_SHAPES)
def test_the_elementwise_blend_is_strictly_increasing_and_starts_at_the_standardised_code(shape):
    scenario = compose(f"elementwise_{shape}", "equicorrelated", 0.5)
    base = standardized(_base_codes("equicorrelated", 0.5, 400, 1))
    np.testing.assert_allclose(scenario.generate(0.0, n=400, seed=1).codes, base, rtol=0, atol=1e-12)
    for alpha in scenario.values:
        codes = scenario.generate(alpha, n=400, seed=1).codes
        assert all(_increasing_in(codes[:, j], base[:, j]) for j in range(5)), alpha
    full = scenario.generate(1.0, n=400, seed=1).codes
    np.testing.assert_allclose(full, SHAPES[shape](base), rtol=0, atol=1e-12)
    assert dict(scenario.generate(0.6, n=10, seed=0).ideal) == PERFECT and scenario.criterion == "nonlinearity"


def test_the_shapes_are_the_stated_maps_and_every_one_is_increasing():
    s = np.linspace(-40, 40, 100_001)
    np.testing.assert_allclose(SHAPES["sigmoid"](np.array([0.0, 1.0, -3.0])), [0.0, 1 / math.sqrt(2), -3 / math.sqrt(10)])
    np.testing.assert_allclose(SHAPES["signed_sqrt"](np.array([-4.0, 9.0])), [-2.0, 3.0])
    np.testing.assert_allclose(SHAPES["softplus"](np.array([0.0])), [math.log(2)])
    for name, function in SHAPES.items():
        values = function(s)
        assert np.all(np.diff(values) >= 0) and np.all(np.isfinite(values)), name
    # one-to-one in floating point on a standardised code's realistic range (tanh saturates past |s| ~ 19)
    for name in ("cubic", "sigmoid", "signed_sqrt", "asinh", "softplus"):
        assert np.all(np.diff(SHAPES[name](s)) > 0), name


def test_the_elementwise_transform_keeps_ideals_and_exact_quantities():
    scenario = compose("elementwise_cubic", "gaussian_toy_redundancy", 1.0)
    base = scenarios.get("gaussian_toy_redundancy").generate(1.0, n=50, seed=0)
    drawn = scenario.generate(0.5, n=50, seed=0)
    assert dict(drawn.ideal) == dict(base.ideal)
    np.testing.assert_array_equal(drawn.exact["information_total"], base.exact["information_total"])
    assert dict(compose("elementwise_tanh", "noise", 0.4).generate(1.0, n=10, seed=0).ideal) == {
        "modularity": 1.0, "compactness": 1.0, "explicitness": pytest.approx(0.6)}


def test_the_spectrum_is_geometric_from_1_to_one_over_kappa():
    np.testing.assert_allclose(spectrum(5, 16.0), [1, 0.5, 0.25, 0.125, 0.0625])
    np.testing.assert_array_equal(spectrum(1, 50.0), [1.0])
    rng = np.random.default_rng(0)
    orthonormal = haar_orthonormal(rng, 7, 3)
    np.testing.assert_allclose(orthonormal.T @ orthonormal, np.eye(3), atol=1e-12)
    matrix = conditioned_mixing(rng, 4, 9, 25.0)
    assert matrix.shape == (4, 9)
    np.testing.assert_allclose(np.linalg.svd(matrix, compute_uv=False), spectrum(4, 25.0), rtol=1e-12)


@pytest.mark.parametrize("kappa", [1.0, 3.0, 50.0, 1e4])
def test_dense_mixing_has_condition_number_exactly_kappa(kappa):
    scenario = compose("dense_mixing", "equicorrelated", 0.5)
    base = standardized(_base_codes("equicorrelated", 0.5, 300, 2))
    codes = scenario.generate(kappa, n=300, seed=2).codes
    mixing, *_ = np.linalg.lstsq(base, codes, rcond=None)  # the codes are exactly base @ A
    np.testing.assert_allclose(base @ mixing, codes, atol=1e-9)
    singular = np.linalg.svd(mixing, compute_uv=False)
    assert singular[0] / singular[-1] == pytest.approx(kappa, rel=1e-6)
    np.testing.assert_allclose(singular, spectrum(5, kappa), rtol=1e-6)
    # dense: every code mixes every factor, even at kappa = 1 (a random rotation)
    assert np.abs(mixing).min() > 1e-6


def test_dense_mixing_shares_its_rotations_along_the_sweep_and_keeps_only_explicitness():
    scenario = compose("dense_mixing", "equicorrelated", 0.5)
    base = standardized(_base_codes("equicorrelated", 0.5, 300, 2))
    mixings = [np.linalg.lstsq(base, scenario.generate(k, n=300, seed=2).codes, rcond=None)[0] for k in (2.0, 50.0)]
    left = [np.abs(np.linalg.svd(m)[0]) for m in mixings]
    np.testing.assert_allclose(left[0], left[1], atol=1e-6)  # the same U (up to signs), other singular values
    assert dict(scenario.generate(10.0, n=10, seed=0).ideal) == {"explicitness": 1.0}
    assert dict(compose("dense_mixing", "noise", 0.3).generate(1.0, n=10, seed=0).ideal) == {
        "explicitness": pytest.approx(0.7)}
    assert scenario.criterion == ""


def test_undercomplete_drops_the_last_codes_and_the_dropped_factors_explicitness():
    scenario = compose("undercomplete", "equicorrelated", 0.5)
    base = _base_codes("equicorrelated", 0.5, 100, 3)
    assert scenario.values == (0, 1, 2, 3, 4)
    for dropped in scenario.values:
        data = scenario.generate(dropped, n=100, seed=3)
        np.testing.assert_array_equal(data.codes, base[:, : 5 - dropped])
    assert dict(scenario.generate(0, n=10, seed=0).ideal) == PERFECT
    assert dict(scenario.generate(2, n=10, seed=0).ideal) == {"modularity": 1.0, "explicitness": 0.6}
    with pytest.raises(ValueError, match="n_dropped must be at most one less than the base's 5 codes, got 5"):
        scenario.check_value(5)
    # a base with dead codes: which factors are lost is not known, only modularity is stated
    assert dict(compose("undercomplete", "dead_codes", 2).generate(3, n=10, seed=0).ideal) == {"modularity": 1.0}
    assert dict(compose("undercomplete", "mixing", 0.2).generate(1, n=10, seed=0).ideal) == {}


def test_overcomplete_linear_copies_each_code_with_scales_in_half_to_two():
    scenario = compose("overcomplete_linear", "equicorrelated", 0.0)
    base = standardized(_base_codes("equicorrelated", 0.0, 200, 4))
    three = scenario.generate(3, n=200, seed=4).codes
    assert three.shape == (200, 15) and np.linalg.matrix_rank(three) == 5
    scales = three / np.repeat(base, 3, axis=1)
    np.testing.assert_allclose(scales, np.broadcast_to(scales[0], scales.shape), rtol=1e-9)  # one scale per column
    assert np.all((np.abs(scales[0]) >= 0.5) & (np.abs(scales[0]) <= 2.0))
    assert (scales[0] < 0).any() and (scales[0] > 0).any()
    eight = scenario.generate(8, n=200, seed=4).codes  # fewer copies are the first of more
    np.testing.assert_array_equal(three.reshape(200, 5, 3), eight.reshape(200, 5, 8)[:, :, :3])


def test_multicodes_put_each_code_through_distinct_increasing_maps():
    scenario = compose("overcomplete_multicodes", "equicorrelated", 0.0)
    base = standardized(_base_codes("equicorrelated", 0.0, 200, 4))
    codes = scenario.generate(6, n=200, seed=4).codes.reshape(200, 5, 6)
    for j in range(5):
        for k, function in enumerate(SHAPES.values()):
            np.testing.assert_allclose(codes[:, j, k], function(base[:, j]), rtol=0, atol=1e-12)
    assert np.linalg.matrix_rank(codes.reshape(200, 30)) == 30  # nonlinear codes: no linear redundancy
    with pytest.raises(ValueError, match=r"copies must be an integer in 1..6"):
        scenario.check_value(7)


@pytest.mark.parametrize("transform", ["overcomplete_linear", "overcomplete_multicodes"])
def test_copies_spread_compactness_over_the_copies(transform):
    scenario = compose(transform, "equicorrelated", 0.0)
    assert dict(scenario.generate(1, n=10, seed=0).ideal) == PERFECT
    # 5 codes, 2 copies each: each factor split equally over 2 of 10 codes, 1 - ln 2 / ln 10
    assert dict(scenario.generate(2, n=10, seed=0).ideal) == pytest.approx(
        {"modularity": 1.0, "compactness": 1 - math.log(2) / math.log(10), "explicitness": 1.0})
    # on dead codes (8 factors, 10 codes), 3 copies: 1 - ln 3 / ln 30
    assert compose(transform, "dead_codes", 2).generate(3, n=10, seed=0).ideal["compactness"] == pytest.approx(
        1 - math.log(3) / math.log(30))
    assert dict(compose(transform, "rotation", 0.3).generate(2, n=10, seed=0).ideal) == {"explicitness": 1.0}


def test_circular_codes_are_sin_cos_pairs_that_recover_the_code():
    scenario = compose("circular", "equicorrelated", 0.0)
    base = _base_codes("equicorrelated", 0.0, 300, 5)
    for turn in (0.1, 0.5, 0.9):
        pairs = scenario.generate(turn, n=300, seed=5).codes.reshape(300, 5, 2)
        np.testing.assert_allclose(pairs[..., 0] ** 2 + pairs[..., 1] ** 2, 1.0, atol=1e-12)
        angle = np.mod(np.arctan2(pairs[..., 0], pairs[..., 1]), 2 * np.pi)  # (sin, cos) -> theta in [0, 2 pi)
        np.testing.assert_allclose(angle / (2 * np.pi * turn), unit_range(base), atol=1e-9)
    ideal = dict(scenario.generate(0.5, n=10, seed=0).ideal)
    assert ideal == pytest.approx({"modularity": 1.0, "compactness": 1 - math.log(2) / math.log(10), "explicitness": 1.0})
    assert scenario.criterion == "nonlinearity"
    with pytest.raises(ValueError, match=r"turn must be in \[0.01, 0.99\]"):
        scenario.check_value(1.0)


@pytest.mark.parametrize("ratio", [1.0, 2.0, 3.3, 16.0])
def test_overcomplete_entangled_codes_have_rank_k_and_condition_number_10(ratio):
    scenario = compose("overcomplete_entangled", "equicorrelated", 0.5)
    base = standardized(_base_codes("equicorrelated", 0.5, 300, 6))
    codes = scenario.generate(ratio, n=300, seed=6).codes
    assert codes.shape == (300, round(ratio * 5))
    singular = np.linalg.svd(codes, compute_uv=False)
    assert np.sum(singular > 1e-9 * singular[0]) == 5  # rank K
    mixing, *_ = np.linalg.lstsq(base, codes, rcond=None)
    spread = np.linalg.svd(mixing, compute_uv=False)
    assert spread[0] / spread[-1] == pytest.approx(10.0, rel=1e-6)
    assert dict(scenario.generate(ratio, n=10, seed=0).ideal) == {"explicitness": 1.0}
    assert scenario.settings["kappa"] == 10.0 and scenario.settings["base.rho"] == 0.5


@pytest.mark.parametrize("transform", ENCODERS)
def test_every_encoder_is_deterministic_and_composes_on_other_bases(transform):
    for base, value in (("redundant_function", 0.5), ("noise", 0.2), ("mixing", 0.1), ("null_uniform", 2.0)):
        scenario = compose(transform, base, value)
        value_there = scenario.values[-1]
        first, again, other = (scenario.generate(value_there, n=120, seed=s) for s in (7, 7, 8))
        np.testing.assert_array_equal(first.codes, again.codes)
        np.testing.assert_array_equal(first.factors, scenarios.get(base).generate(value, n=120, seed=7).factors)
        assert not np.array_equal(first.codes, other.codes)
        assert np.isfinite(first.codes).all()
    assert transform in TRANSFORMS and TRANSFORMS[transform].source.startswith("Joshi et al. 2026, encoder E")
