"""Do and Tran's (2020) metrics: informativeness, WSEPIN, WINDIN, SEPIN@k, INDIN@k, RMIG, MISJED.

x is represented by the factor matrix (metrics._do_tran), so Gaussian factors and codes give
closed forms for every term.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import digamma
from threadpoolctl import threadpool_limits

import metrics
from metrics.information import mutual_information_matrix, to_labels

SEPARABILITY = ("wsepin", "sepin_at_k")
INDEPENDENCE = ("windin", "indin_at_k")
X_METRICS = ("informativeness",) + SEPARABILITY + INDEPENDENCE


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(limits=1):
        yield


def half_log(ratio):
    return 0.5 * np.log(ratio)


def one_code_per_factor(n=5000, noise=0.5, seed=0):
    rng = np.random.default_rng(seed)
    factors = rng.standard_normal((n, 2))
    return factors, factors + noise * rng.standard_normal((n, 2))


def copied_factor(n=5000, noise=0.5, seed=1):
    rng = np.random.default_rng(seed)
    factor = rng.standard_normal((n, 1))
    return factor, factor + noise * rng.standard_normal((n, 2))


@pytest.mark.parametrize("name", X_METRICS)
def test_independent_noisy_codes(name):
    """I(x; z_i) = 1/2 log(1 + 1/s^2), nothing shared: every metric equals it (s = 0.5)."""
    factors, codes = one_code_per_factor()
    score = metrics.evaluate(name, factors, codes, estimator="gaussian", normalize="none")[name]
    assert score == pytest.approx(half_log(5.0), abs=0.03)


@pytest.mark.parametrize("name", X_METRICS)
@pytest.mark.parametrize("estimator", ["gaussian", "knn"])
def test_a_factor_copied_into_two_codes(name, estimator):
    """I(x; z_i) = 1/2 log 5, I(z_1; z_2) = 1/2 log(1 / 0.36), I(x; z) = 1/2 log 9 (s = 0.5)."""
    factors, codes = copied_factor()
    informativeness = half_log(5.0)
    separability = half_log(9.0) - half_log(5.0)
    independence = informativeness - half_log(1 / 0.36)  # = separability: z_1, z_2 independent given x
    expected = {"informativeness": informativeness, **dict.fromkeys(SEPARABILITY, separability), **dict.fromkeys(INDEPENDENCE, independence)}
    score = metrics.evaluate(name, factors, codes, estimator=estimator, normalize="none")[name]
    assert score == pytest.approx(expected[name], abs=0.03 if estimator == "gaussian" else 0.05)


def test_noise_codes_do_not_count_in_the_weighted_and_top_k_scores():
    factors, codes = one_code_per_factor(n=4000, noise=0.2)
    noise = np.random.default_rng(2).standard_normal((4000, 3))
    padded = np.hstack([codes, noise])
    clean = {name: metrics.evaluate(name, factors, codes)[name] for name in ("wsepin", "sepin_at_k", "informativeness")}
    assert metrics.evaluate("wsepin", factors, padded)["wsepin"] == pytest.approx(clean["wsepin"], abs=0.02)
    assert metrics.evaluate("sepin_at_k", factors, padded)["sepin_at_k"] == pytest.approx(clean["sepin_at_k"], abs=0.02)
    # the plain mean is diluted by the three noise codes (Do and Tran's argument for weighting)
    assert metrics.evaluate("informativeness", factors, padded)["informativeness"] == pytest.approx(0.4 * clean["informativeness"], abs=0.02)


def test_a_code_equal_to_the_data_reaches_the_estimator_ceiling():
    factor = np.random.default_rng(3).random((3000, 1))
    raw = metrics.evaluate("informativeness", factor, factor, normalize="none")["informativeness"]
    assert raw == pytest.approx(digamma(3000) - digamma(3), abs=1e-12)
    assert metrics.evaluate("informativeness", factor, factor)["informativeness"] == pytest.approx(1.0, abs=1e-12)


def test_synergy_is_capped_at_one_only_by_the_bounded_normalisation():
    rng = np.random.default_rng(4)
    factor, noise = rng.standard_normal((3000, 1)), rng.standard_normal((3000, 1))
    codes = np.hstack([factor + noise, noise])  # z_1 alone says little; with z_2 it gives x exactly
    assert metrics.evaluate("wsepin", factor, codes)["wsepin"] <= 1.0
    assert metrics.evaluate("wsepin", factor, codes, normalize="entropy")["wsepin"] > 1.5
    weights_only_first = metrics.evaluate("wsepin", factor, codes, estimator="gaussian")["wsepin"]
    assert weights_only_first == pytest.approx(1.0, abs=0.01)  # z_2 carries nothing about x: rho = (1, 0)


def test_rmig_by_hand_on_a_discrete_factor():
    factor = np.repeat(np.arange(4.0), 100)[:, None]
    exact_and_constant = np.hstack([factor, np.full((400, 1), 5.0)])
    for normalize, expected in (("none", np.log(4)), ("entropy", 1.0), ("bounded", 1.0)):
        score = metrics.evaluate("rmig", factor, exact_and_constant, discrete=True, estimator="histogram", normalize=normalize)["rmig"]
        assert score == pytest.approx(expected, abs=1e-12)
    duplicated = np.hstack([factor, factor])
    assert metrics.evaluate("rmig", factor, duplicated, discrete=True, estimator="histogram")["rmig"] == 0.0


def test_rmig_with_continuous_factors():
    factors, codes = one_code_per_factor()
    assert metrics.evaluate("rmig", factors, codes, normalize="none")["rmig"] == pytest.approx(half_log(5.0), abs=0.04)
    factor, copied = copied_factor()
    assert metrics.evaluate("rmig", factor, copied)["rmig"] < 0.05  # both copies equally informative


def test_misjed_with_the_code_as_its_own_mean_is_pairwise_information():
    rng = np.random.default_rng(5)
    factors = rng.random((2000, 3))
    codes = np.column_stack([factors[:, 0], factors[:, 0] + 0.3 * factors[:, 1], rng.random(2000)])
    labels = to_labels(codes)
    information = mutual_information_matrix(labels, labels)
    expected = np.mean(information[np.triu_indices(3, k=1)]) / (2 * np.log(10))
    assert metrics.evaluate("misjed", factors, codes, neighbors=1)["misjed"] == pytest.approx(expected, abs=1e-12)


def test_misjed_conditional_mean_is_the_mean_of_the_nearest_samples_ties_at_the_farthest_included():
    """Every sample as near as the 10th nearest counts (version 3 kept an arbitrary 10 of a tied cell, which the
    samples' order chose): the mean over a brute-force ball, whatever the order of the samples."""
    from metrics._knn import standardize
    from metrics.misjed import conditional_mean

    rng = np.random.default_rng(8)
    codes = rng.random((400, 3))
    for factors in (rng.random((400, 3)), rng.integers(0, 3, (400, 3)).astype(float)):  # continuous; many ties
        standard = standardize(factors)
        distances = np.sqrt(((standard[:, None, :] - standard[None, :, :]) ** 2).sum(axis=2))
        tenth = np.sort(distances, axis=1)[:, 9]
        expected = np.array([codes[row <= radius * (1 + 1e-12)].mean(axis=0) for row, radius in zip(distances, tenth)])
        np.testing.assert_allclose(conditional_mean(factors, codes, 10), expected, rtol=0, atol=1e-12)
        order = rng.permutation(400)
        np.testing.assert_allclose(conditional_mean(factors[order], codes[order], 10), expected[order], rtol=0,
                                   atol=1e-12)


def test_misjed_is_invariant_to_the_samples_order_with_discrete_factors_and_never_below_0():
    # 0.171 and 0.150 for one permutation of the same samples (version 3); -0.51 on binary codes independent of the
    # factors, whose estimated conditional means (means of 10 draws) held more values than the codes
    rng = np.random.default_rng(0)
    factors = rng.integers(0, 4, (2000, 3)).astype(float)
    codes = factors + 0.8 * rng.standard_normal((2000, 3))
    order = np.random.default_rng(3).permutation(2000)
    first = metrics.evaluate("misjed", factors, codes, discrete=[True] * 3)["misjed"]
    assert metrics.evaluate("misjed", factors[order], codes[order], discrete=[True] * 3)["misjed"] == pytest.approx(
        first, abs=1e-12)
    noise = np.random.default_rng(0)
    gaussian, binary = noise.standard_normal((1000, 3)), noise.integers(0, 2, (1000, 3)).astype(float)
    assert 0.0 <= metrics.evaluate("misjed", gaussian, binary)["misjed"] < 0.01


def test_misjed_orders_pairs_as_the_paper_says():
    """0 <= MISJED(informative, informative) < MISJED(informative, noisy) < MISJED(noisy, noisy)."""
    rng = np.random.default_rng(6)
    factors = rng.random((4000, 2))
    noise = rng.random((4000, 2))
    both = metrics.evaluate("misjed", factors, factors)["misjed"]
    one = metrics.evaluate("misjed", factors, np.column_stack([factors[:, 0], noise[:, 0]]))["misjed"]
    neither = metrics.evaluate("misjed", factors, noise)["misjed"]
    assert 0 <= both < one < neither
    assert both < 0.1 and neither > 0.4


def test_options_and_errors():
    factors, codes = one_code_per_factor(n=300)
    with pytest.raises(ValueError, match="estimator must be one of 'knn', 'knn_full', 'gaussian'"):
        metrics.evaluate("wsepin", factors, codes, estimator="histogram")
    with pytest.raises(ValueError, match=r"top_k \(3\) exceeds the number of codes \(2\)"):
        metrics.evaluate("sepin_at_k", factors, codes, top_k=3)
    with pytest.raises(ValueError, match="top_k must be None or an integer >= 1"):
        metrics.evaluate("indin_at_k", factors, codes, top_k=0)
    assert metrics.evaluate("misjed", factors, codes[:, :1])["misjed"] == 0.0  # no pair of codes
    top_one = metrics.evaluate("sepin_at_k", factors, codes, top_k=1)["sepin_at_k"]
    assert top_one >= metrics.evaluate("sepin_at_k", factors, codes)["sepin_at_k"]


def test_registration():
    expected = {
        "informativeness": ("explicitness", True),
        "wsepin": ("holistic", True),
        "windin": ("holistic", True),
        "sepin_at_k": ("holistic", True),
        "indin_at_k": ("holistic", True),
        "rmig": ("compactness", True),
        "misjed": ("holistic", False),
    }
    for name, (prop, higher) in expected.items():
        spec = metrics.get(name)
        assert dict(spec.properties) == {name: prop} and spec.higher_is_better is higher and not spec.stochastic
    assert metrics.get("sepin_at_k").defaults["top_k"] is None


def test_misjed_gathers_the_neighbours_codes_in_blocks_for_the_same_means(monkeypatch):
    import metrics.misjed as misjed_module

    # gathered at once, 100000 samples of 512 codes took 4.1 GB; in blocks of 7 samples the means are the same bits
    rng = np.random.default_rng(3)
    factors, codes = rng.standard_normal((200, 3)), rng.standard_normal((200, 16))
    whole = misjed_module.conditional_mean(factors, codes, 10)
    monkeypatch.setattr(misjed_module, "GATHER_ELEMENTS", 7 * 10 * 16)
    assert np.array_equal(misjed_module.conditional_mean(factors, codes, 10), whole)
