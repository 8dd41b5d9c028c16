"""Which code each PID bound is read at (Tokui and Sato 2022, section 3.4 and their code)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import metrics
import scenarios
from metrics._pid_bounds import BOUND_NAMES, bounds_from_information, pid_bounds
from scenarios.gaussian_toy import ALPHAS, exact_information

TERM = {name: name.rsplit("_", 1)[0] for name in BOUND_NAMES}


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="module")
def synergy_at_8():
    representation = scenarios.get("gaussian_toy_synergy").generate(8.0, n=10000, seed=0)
    with threadpool_limits(limits=1):
        return representation, {
            choice: pid_bounds(
                representation.factors, representation.codes, representation.discrete,
                estimator="knn", neighbors=3, bins=10, normalize="none", code_choice=choice,
            )
            for choice in ("argmax", "per_bound", "lower_bound")
        }


@pytest.mark.parametrize("attack", ["redundancy", "synergy"])
def test_maxima_over_codes_are_the_exact_terms_of_the_toy_model(attack):
    # Appendix C: lower and upper bounds coincide at the factor's own code, and every other
    # code gives looser (lower) lower bounds; so maximising each bound over l, or each lower
    # bound and reading its upper bound at the same l, recovers the exact PID terms.
    for alpha in ALPHAS:
        exact = exact_information(attack, alpha)
        code, rest = exact["information_code"], exact["information_rest"]
        total = np.broadcast_to(exact["information_total"][:, None], code.shape)
        per_code = bounds_from_information(code, rest, total)
        for name, values in per_code.items():
            assert values.max(axis=1) == pytest.approx(exact[TERM[name]], abs=1e-9), (alpha, name)
            lower = per_code[f"{TERM[name]}_lower"]
            at = np.argmax(lower, axis=1)
            assert values[np.arange(values.shape[0]), at] == pytest.approx(exact[TERM[name]], abs=1e-9), (alpha, name)


@pytest.mark.slow
@pytest.mark.parametrize("choice", ["per_bound", "lower_bound"])
def test_synergy_attack_at_alpha_8_recovers_the_complementary_information(synergy_at_8, choice):
    representation, results = synergy_at_8
    exact = representation.exact  # C = 2.2998 nats, U = 0.0078, R = 0 for every factor
    bounds = results[choice].bounds
    for name in ("complementary_lower", "complementary_upper"):
        assert np.abs(bounds[name] - exact["complementary"]).max() < 0.1, name
    for name in ("unique_lower", "unique_upper", "redundant_lower", "redundant_upper"):
        assert np.abs(bounds[name] - exact[TERM[name]]).max() < 0.03, name


@pytest.mark.slow
def test_one_argmax_code_follows_the_estimators_noise_under_the_synergy_attack(synergy_at_8):
    # every code holds at most 0.008 nats about a factor: the most informative code is
    # picked by noise, and where it is another factor's code the rest holds everything
    # (I(v_k; z_\l) = I(v_k; z)), so the complementary bound is 0 there instead of 2.30
    representation, results = synergy_at_8
    argmax = results["argmax"]
    own_code = argmax.code_index == np.arange(representation.factors.shape[1])
    other_factor = (argmax.code_index < representation.factors.shape[1]) & ~own_code
    assert other_factor.any()
    assert np.all(argmax.bounds["complementary_upper"][other_factor] < 0.05)
    shortfall = np.mean(representation.exact["complementary"] - argmax.bounds["complementary_lower"])
    assert shortfall > 0.4


def test_pid_metric_takes_the_option_and_checks_it():
    representation = scenarios.get("gaussian_toy_synergy").generate(8.0, n=3000, seed=1)
    per_bound = metrics.evaluate("pid", representation.factors, representation.codes, estimator="gaussian",
                                 normalize="none", code_choice="per_bound")
    assert per_bound["complementary_lower"] == pytest.approx(np.mean(representation.exact["complementary"]), abs=0.05)
    with pytest.raises(ValueError, match="code_choice must be one of"):
        metrics.evaluate("pid", representation.factors, representation.codes, code_choice="best")
    assert metrics.get("pid").defaults["code_choice"] == "argmax"
