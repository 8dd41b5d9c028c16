"""The shared ``gaussian`` estimates (:mod:`metrics._gaussian`) against one estimate at a time and the closed form."""

from __future__ import annotations

import numpy as np
import pytest

from metrics._gaussian import MIN_RESIDUAL_FRACTION, CodeGram
from metrics.estimators import estimate_information


def _one_at_a_time(factors: np.ndarray, codes: np.ndarray, columns: np.ndarray) -> np.ndarray:
    return np.array([estimate_information(factors[:, k], codes[:, columns], estimator="gaussian") for k in range(factors.shape[1])])


def _draw(kind: str, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    factors = rng.normal(size=(600, 4))
    if kind == "mixed":
        return factors, factors @ rng.normal(size=(4, 6)) + 0.3 * rng.normal(size=(600, 6))
    if kind == "degenerate":  # exact copies, a duplicated column, a constant one, a rescaled one: lstsq's minimum norm
        return factors, np.hstack([factors, factors[:, :1], np.ones((600, 1)), 2.0 * factors[:, 1:2] + 7.0])
    if kind == "constant_factor":
        factors[:, 2] = 3.0
        return factors, factors @ rng.normal(size=(4, 5)) + rng.normal(size=(600, 5))
    return factors, 1e3 * rng.normal(size=(600, 8)) - 40.0  # independent, far from unit scale


@pytest.mark.parametrize("kind", ["mixed", "degenerate", "constant_factor", "independent"])
def test_every_estimate_matches_one_estimate_at_a_time(kind):
    factors, codes = _draw(kind, np.random.default_rng(3))
    gram = CodeGram.of(factors, codes)
    every = np.arange(codes.shape[1])
    np.testing.assert_allclose(gram.pairwise(), np.column_stack([_one_at_a_time(factors, codes, np.array([j])) for j in every]),
                               rtol=0, atol=1e-9)
    whole = [gram.information(k, gram.code(every)) for k in range(factors.shape[1])]
    np.testing.assert_allclose(whole, _one_at_a_time(factors, codes, every), rtol=0, atol=1e-9)
    for dropped in (0, codes.shape[1] - 1):
        rest = np.delete(every, dropped)
        np.testing.assert_allclose([gram.information(k, gram.code(rest)) for k in range(factors.shape[1])],
                                   _one_at_a_time(factors, codes, rest), rtol=0, atol=1e-9)
    assert gram.information(0, np.array([], dtype=int)) == 0.0


@pytest.mark.parametrize("kind", ["mixed", "degenerate", "constant_factor", "independent"])
def test_each_code_on_the_others_matches_one_estimate_at_a_time(kind):
    """Do and Tran's I(z_i; z_!=i) and I(z_i; (v, z_!=i)): from the inverse where it is well conditioned (mixed,
    independent), one regression each otherwise (degenerate: duplicated and constant codes; constant_factor)."""
    factors, codes = _draw(kind, np.random.default_rng(6))
    gram = CodeGram.of(factors, codes)
    every, factor_columns = np.arange(codes.shape[1]), np.arange(factors.shape[1])
    dependence = [estimate_information(codes[:, i], np.delete(codes, i, axis=1), estimator="gaussian") for i in every]
    joint = [estimate_information(codes[:, i], np.hstack([factors, np.delete(codes, i, axis=1)]), estimator="gaussian")
             for i in every]
    np.testing.assert_allclose(gram.leave_one_out(gram.code(every), np.arange(0)), dependence, rtol=0, atol=1e-9)
    np.testing.assert_allclose(gram.leave_one_out(gram.code(every), factor_columns), joint, rtol=0, atol=1e-9)


def test_the_inverse_is_read_only_where_the_gram_matrix_is_well_conditioned(monkeypatch):
    factors, codes = _draw("mixed", np.random.default_rng(7))
    gram = CodeGram.of(factors, codes)
    solved = []
    monkeypatch.setattr(CodeGram, "information", lambda self, target, predictors: solved.append(target) or 0.0)
    gram.leave_one_out(gram.code(np.arange(codes.shape[1])), np.arange(factors.shape[1]))
    assert solved == []  # 4 factors and 6 noisy mixtures of them: full rank, one inverse
    degenerate = CodeGram.of(*_draw("degenerate", np.random.default_rng(7)))
    degenerate.leave_one_out(degenerate.code(np.arange(3)), np.arange(4))  # codes 0-2 are factors 0-2: singular
    assert solved == [4, 5, 6]


def test_the_closed_form_of_correlated_gaussians_and_the_ceiling_of_an_exact_code():
    rng = np.random.default_rng(4)
    n, rho = 200_000, 0.8
    factor = rng.normal(size=(n, 1))
    codes = np.hstack([rho * factor + np.sqrt(1 - rho**2) * rng.normal(size=(n, 1)), rng.normal(size=(n, 1)), factor])
    gram = CodeGram.of(factor, codes)
    expected = -0.5 * np.log(1 - rho**2)  # 0.511 nats
    assert gram.pairwise()[0, 0] == pytest.approx(expected, abs=0.01)
    assert gram.pairwise()[0, 1] < 0.001
    assert gram.information(0, gram.code(np.array([0, 1]))) == pytest.approx(expected, abs=0.01)
    assert gram.information(0, gram.code(np.array([0, 1, 2]))) == pytest.approx(-0.5 * np.log(MIN_RESIDUAL_FRACTION))
    assert gram.leave_one_out(gram.code(np.array([0])), np.array([0])) == pytest.approx(expected, abs=0.01)  # symmetric


def test_the_sums_over_row_blocks_equal_one_pass(monkeypatch):
    import metrics._gaussian as gaussian

    factors, codes = _draw("mixed", np.random.default_rng(5))
    whole = CodeGram.of(factors, codes)
    monkeypatch.setattr(gaussian, "_BLOCK_BYTES", 8 * (factors.shape[1] + codes.shape[1]) * 7)  # blocks of 7 rows
    blocked = CodeGram.of(factors, codes)
    np.testing.assert_allclose(blocked.products, whole.products, rtol=1e-12, atol=1e-9)
