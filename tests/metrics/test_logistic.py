"""Binary logistic regressions solved together (metrics._logistic) against scikit-learn's, one at a time."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import metrics._logistic
from metrics._logistic import NewtonConvergenceWarning, fit_binary_logistic, logistic_probabilities


def _problem(seed: int, separation: float, fits: int = 12, n: int = 400, width: int = 5):
    """Codes whose first column separates ``fits`` classes by ``separation``, one-vs-rest targets, balanced weights."""
    rng = np.random.default_rng(seed)
    classes = rng.integers(0, fits, size=n)
    codes = rng.normal(size=(n, width))
    codes[:, 0] += separation * classes / fits
    targets = (classes[:, np.newaxis] == np.arange(fits)).astype(np.float64)
    counts = targets.sum(axis=0)
    weights = np.where(targets == 1, n / (2 * counts), n / (2 * (n - counts)))
    return codes, targets, weights


@pytest.mark.parametrize("strength", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("separation", [0.0, 3.0, 30.0])
def test_each_fit_is_scikit_learns_minimiser(strength: float, separation: float) -> None:
    codes, targets, weights = _problem(int(10 * strength + separation), separation)
    coefficients = fit_binary_logistic(codes, targets, weights, strength)
    for fit in range(targets.shape[1]):
        model = LogisticRegression(C=strength, solver="newton-cholesky", tol=1e-12, max_iter=1000)
        model.fit(codes, targets[:, fit], sample_weight=weights[:, fit])
        expected = np.r_[model.coef_[0], model.intercept_]
        np.testing.assert_allclose(coefficients[:, fit], expected, rtol=0, atol=1e-6 * (1 + np.abs(expected).max()))
        np.testing.assert_allclose(logistic_probabilities(codes, coefficients)[:, fit], model.predict_proba(codes)[:, 1],
                                   rtol=0, atol=1e-7)


def test_separable_classes_converge_without_warnings() -> None:
    # two classes a line separates, with a weak penalty: the logits grow large.  No overflow warning may escape (the
    # harness records a metric's warnings) and each fit still reaches the penalised minimiser, separating the classes
    codes, targets, weights = _problem(5, separation=1000.0, fits=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        coefficients = fit_binary_logistic(codes, targets, weights, 1e4)
        probabilities = logistic_probabilities(codes, coefficients)
    assert np.isfinite(coefficients).all()
    assert ((probabilities > 0.5) == (targets == 1)).all()
    model = LogisticRegression(C=1e4, solver="newton-cholesky", tol=1e-12, max_iter=1000)
    expected = model.fit(codes, targets[:, 1], sample_weight=weights[:, 1]).coef_[0]
    np.testing.assert_allclose(coefficients[:-1, 1], expected, rtol=1e-5)


def test_fits_do_not_interact() -> None:
    # solving fits together must give each the coefficients it gets alone
    codes, targets, weights = _problem(3, separation=5.0)
    together = fit_binary_logistic(codes, targets, weights, 1.0)
    for fit in (0, 5, 11):
        alone = fit_binary_logistic(codes, targets[:, [fit]], weights[:, [fit]], 1.0)
        np.testing.assert_allclose(together[:, fit], alone[:, 0], rtol=0, atol=1e-9)


def test_fits_stopped_by_the_step_cap_warn(monkeypatch) -> None:
    # a fit not done after MAX_STEPS returns its last iterate and says so, counting the fits left
    codes, targets, weights = _problem(4, separation=3.0, fits=3)
    monkeypatch.setattr(metrics._logistic, "MAX_STEPS", 2)
    with pytest.warns(NewtonConvergenceWarning, match=r"3 of 3 binary logistic regressions did not converge in 2 Newton"):
        coefficients = fit_binary_logistic(codes, targets, weights, 1.0)
    assert np.isfinite(coefficients).all()


def test_bad_input_is_refused_in_words() -> None:
    codes, targets, weights = _problem(0, separation=1.0)
    with pytest.raises(ValueError, match="inverse penalty C must be positive"):
        fit_binary_logistic(codes, targets, weights, 0.0)
    with pytest.raises(ValueError, match="must both be"):
        fit_binary_logistic(codes, targets[:, :3], weights, 1.0)
