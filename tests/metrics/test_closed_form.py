"""Closed-form sub-scores of UniBound and the PID bounds on the Gaussian toy model (Tokui and Sato 2022).

The expected values are derived by hand from the model, not from the covariance algebra of
:mod:`scenarios.gaussian_toy`.  With ``s = sigma`` and ``a = alpha`` every factor holds
I(y_k; tilde z) = 1/2 log((1 + s^2) / s^2) (eq. 16), which the default ``"bounded"``
normalisation divides by, since it exceeds log(10), the most a 10-bin entropy can be.

* Redundancy attack (eq. 9): the rest holds 1/2 log((1 + a^2 (1 + s^2)) / (1 + a^2 s^2)) about
  y_k, all of it also in z_k: R = that, U = I - R, C = 0.
* Synergy attack (eq. 10): z_k alone holds U = 1/2 log((1 + s^2 + a^2) / (s^2 + a^2)), the rest
  nothing alone: R = 0, C = I - U.
"""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

import metrics
import scenarios
from metrics._pid_bounds import CODE_CHOICES
from metrics.registry import MetricSpec, register_metric
from scenarios.gaussian_toy import SIGMA, exact_information

TOTAL = 0.5 * np.log((1 + SIGMA**2) / SIGMA**2)


def by_hand(attack: str, alpha: float) -> dict[str, float]:
    """The PID terms of each factor in nats (the module docstring)."""
    s2, a2 = SIGMA**2, alpha**2
    if attack == "redundancy":
        redundant = 0.5 * np.log((1 + a2 * (1 + s2)) / (1 + a2 * s2))
        return {"unique": TOTAL - redundant, "redundant": redundant, "complementary": 0.0}
    unique = 0.5 * np.log((1 + s2 + a2) / (s2 + a2))
    return {"unique": unique, "redundant": 0.0, "complementary": TOTAL - unique}


@pytest.mark.parametrize("attack", ["redundancy", "synergy"])
@pytest.mark.parametrize("alpha", [0.0, 0.5, 2.0, 8.0])
@pytest.mark.parametrize("code_choice", CODE_CHOICES)
def test_pid_closed_form_is_the_hand_derived_decomposition(attack, alpha, code_choice):
    terms = by_hand(attack, alpha)
    exact = exact_information(attack, alpha)
    bounded = metrics.get("pid").exact_scores(exact, code_choice=code_choice)
    raw = metrics.get("pid").exact_scores(exact, code_choice=code_choice, normalize="none")
    for term, value in terms.items():
        for side in ("lower", "upper"):
            assert bounded[f"{term}_{side}"] == pytest.approx(value / TOTAL, abs=1e-9), (term, side)
            assert raw[f"{term}_{side}"] == pytest.approx(value, abs=1e-9), (term, side)
    assert bounded["information"] == pytest.approx(1.0, abs=1e-12)
    assert raw["information"] == pytest.approx(TOTAL, abs=1e-12)


@pytest.mark.parametrize("attack", ["redundancy", "synergy"])
@pytest.mark.parametrize("alpha", [0.0, 1.0, 4.0])
def test_unibound_closed_form_is_the_unique_information(attack, alpha):
    exact = exact_information(attack, alpha)
    unique = by_hand(attack, alpha)["unique"]
    assert metrics.get("unibound").exact_scores(exact) == pytest.approx({"unibound": unique / TOTAL}, abs=1e-9)
    assert metrics.get("unibound").exact_scores(exact, normalize="none")["unibound"] == pytest.approx(unique, abs=1e-9)


def test_no_closed_form_where_the_divisor_depends_on_the_sample():
    exact = exact_information("redundancy", 1.0)
    pid = metrics.get("pid")
    assert pid.exact_scores(exact, normalize="entropy") == {}  # binned entropy of the sample
    assert pid.exact_scores(exact, bins=20) == {}  # log 20 = 3.0 > I = 2.31: max(H, I) may be H
    assert pid.exact_scores(exact, discrete=(True,) * 5) == {}  # a category's entropy is not in exact
    assert pid.exact_scores({}) == {} and pid.exact_scores({"factor_entropy": 1.4}) == {}
    assert metrics.get("mig").exact_scores(exact) == {}  # MIG states no closed form


def test_closed_form_options_are_checked():
    exact = exact_information("synergy", 1.0)
    with pytest.raises(ValueError, match="normalize"):
        metrics.get("pid").exact_scores(exact, normalize="max")
    with pytest.raises(ValueError, match="code_choice"):
        metrics.get("pid").exact_scores(exact, code_choice="best")


def test_registry_rejects_a_bad_closed_form():
    with pytest.raises(TypeError, match="closed_form of metric 'broken' must be callable"):
        register_metric("broken", family="information", properties="compactness", closed_form=1.0)
    assert "broken" not in metrics.available()
    spec = MetricSpec(name="made_up", function=len, family="information", properties={"made_up": "compactness"},
                      closed_form=lambda exact, discrete=None: {"other": 1.0})
    with pytest.raises(ValueError, match=r"unknown sub-scores \['other'\]"):
        spec.exact_scores({"anything": 1.0})


@pytest.mark.slow
@pytest.mark.parametrize(("attack", "alpha"), [("redundancy", 1.0), ("synergy", 1.0)])
def test_knn_estimates_approach_the_closed_form(attack, alpha):
    """At n = 20000 the default k-NN estimates lie within 0.01 of the closed form (normalised).

    The tolerance: UniBound's k-NN estimates are accurate to about 0.02 nats per factor at
    this n (metrics.unibound), 0.009 after dividing by I(y_k; tilde z) = 2.31 nats; measured,
    the largest deviation over both attacks, alpha in {0, 1, 4} and two seeds is 0.003.  A
    closed form off by a PID term (R and C swapped: 0.15 at alpha = 1) or read at the wrong
    normalisation (raw nats: 2.31 for ``information``) fails by far.
    """
    representation = scenarios.get(f"gaussian_toy_{attack}").generate(alpha, n=20000, seed=3)
    with threadpool_limits(limits=1):
        estimates = metrics.evaluate("pid", representation.factors, representation.codes)
    closed = metrics.get("pid").exact_scores(representation.exact)
    assert set(closed) == set(estimates)
    for name, value in closed.items():
        assert estimates[name] == pytest.approx(value, abs=0.01), name
