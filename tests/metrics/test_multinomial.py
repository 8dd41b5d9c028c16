"""The exact multinomial logistic regression (metrics._multinomial) against scikit-learn's, and the metrics that use it.

The fit must be the minimiser of scikit-learn's ``LogisticRegression(penalty="l2", C=C)`` objective: its probabilities
are compared with scikit-learn's run to a tight tolerance (``newton-cholesky``, ``tol=1e-12``).  InfoMEC and Z-diff
then differ from the scores scikit-learn's default fits gave (stopped at ``tol=1e-4``, and after 100 iterations in
InfoMEC) by at most the tolerance their docstrings state (:data:`metrics.infomec.SCIKIT_LEARN_TOLERANCE`,
:data:`metrics.z_diff.SCIKIT_LEARN_TOLERANCE_POINTS`), and from the tight fits' scores by rounding.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

import metrics
import metrics._multinomial as multinomial
import metrics.infomec
import metrics.z_diff
import scenarios
from metrics._multinomial import NewtonConvergenceWarning, fit_multinomial_logistic, helmert_contrasts

TIGHT = {"solver": "newton-cholesky", "tol": 1e-12, "max_iter": 1000}


def _problem(seed: int, separation: float, classes: int, n: int = 400, width: int = 5):
    """Codes whose first column separates ``classes`` classes by ``separation``, and their labels."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, classes, size=n)
    codes = rng.normal(size=(n, width))
    codes[:, 0] += separation * labels / classes
    return codes, labels


def _tight(codes: np.ndarray, labels: np.ndarray, strength: float) -> LogisticRegression:
    """scikit-learn's fit to ``tol=1e-12`` (on separable classes its Newton solver may finish with lbfgs, and say so)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LogisticRegression(C=strength, **TIGHT).fit(codes, labels)


@pytest.mark.parametrize("dense", [True, False], ids=["dense", "conjugate_gradients"])
@pytest.mark.parametrize("classes", [2, 3, 10])
@pytest.mark.parametrize("strength", [0.01, 1.0, 1e4])
@pytest.mark.parametrize("separation", [0.0, 3.0, 30.0])
def test_probabilities_are_scikit_learns_converged_ones(separation: float, strength: float, classes: int,
                                                        dense: bool) -> None:
    codes, labels = _problem(int(10 * separation + strength) % 1000 + classes, separation, classes)
    fit = fit_multinomial_logistic(codes, labels, strength, dense=dense)
    model = _tight(codes, labels, strength)
    np.testing.assert_array_equal(fit.classes, model.classes_)
    np.testing.assert_allclose(fit.probabilities(codes), model.predict_proba(codes), rtol=0, atol=1e-8)
    np.testing.assert_array_equal(fit.predict(codes), model.predict(codes))
    if classes > 2:  # scikit-learn's multinomial coefficients are centred over the classes too: the same numbers
        expected = np.column_stack([model.coef_, model.intercept_ - model.intercept_.mean()]).T
        np.testing.assert_allclose(np.vstack([fit.weights, fit.intercepts]), expected, rtol=0,
                                   atol=1e-6 * (1 + np.abs(expected).max()))


def test_two_classes_are_scikit_learns_binomial_model() -> None:
    # scikit-learn fits one weight vector w = w_1 - w_2 penalised once; the softmax at C / 2 is that model
    codes, labels = _problem(4, 3.0, 2)
    fit = fit_multinomial_logistic(codes, labels, 0.5)
    model = _tight(codes, labels, 0.5)
    np.testing.assert_allclose(fit.weights[:, 1] - fit.weights[:, 0], model.coef_[0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(fit.intercepts[1] - fit.intercepts[0], model.intercept_[0], rtol=0, atol=1e-9)


def test_the_common_shift_is_removed_and_the_contrasts_are_orthonormal() -> None:
    # the symmetric parameterisation is determined up to a common shift; the fit returns the centred one
    contrasts = helmert_contrasts(7)
    np.testing.assert_allclose(contrasts @ contrasts.T, np.eye(6), atol=1e-15)
    np.testing.assert_allclose(contrasts.sum(axis=1), 0.0, atol=1e-15)
    codes, labels = _problem(2, 3.0, 7)
    fit = fit_multinomial_logistic(codes, labels, 1.0)
    np.testing.assert_allclose(fit.weights.sum(axis=1), 0.0, atol=1e-12)
    assert abs(fit.intercepts.sum()) < 1e-12


def test_dense_and_conjugate_gradient_steps_reach_the_same_minimiser() -> None:
    codes, labels = _problem(3, 5.0, 6, n=1000, width=12)
    dense = fit_multinomial_logistic(codes, labels, 1e4, dense=True)
    iterative = fit_multinomial_logistic(codes, labels, 1e4, dense=False)
    np.testing.assert_allclose(dense.probabilities(codes), iterative.probabilities(codes), rtol=0, atol=1e-9)


@pytest.mark.parametrize("rows", [500, 3000])
def test_wide_nearly_separable_fits_give_way_to_the_whole_hessian(monkeypatch: pytest.MonkeyPatch, rows: int) -> None:
    """InfoMEC's C = 1e4 on 64 null codes: near the minimiser conjugate gradients ran their 2 x 585 iterations at each
    of a dozen steps without converging (8 s a call; 128 codes ran past 100 s).  A fit choosing conjugate gradients
    itself now solves with the whole Hessian once a system takes more than an eighth of the unknowns' iterations, and
    reaches the same minimiser; the whole Hessian of many rows is formed block by block (rows = 3000: its design's
    pair products would be 52 MB, over the cap set here)."""
    if rows > 1000:
        monkeypatch.setattr(multinomial, "_PAIR_VALUES", 1 << 20)
    rng = np.random.default_rng(3)
    codes = rng.standard_normal((rows, 64))
    labels = rng.integers(0, 10, size=rows)
    products = [0]
    original = multinomial._Problem.hessian_product

    def counted(self, *arguments):
        products[0] += 1
        return original(self, *arguments)

    monkeypatch.setattr(multinomial._Problem, "hessian_product", counted)
    automatic = fit_multinomial_logistic(codes, labels, 1e4)
    unknowns = 65 * 9
    assert products[0] <= automatic.steps * unknowns // 8  # no system ran on to 2 x 585 iterations
    whole = fit_multinomial_logistic(codes, labels, 1e4, dense=True)
    np.testing.assert_allclose(automatic.probabilities(codes), whole.probabilities(codes), atol=1e-8)


def test_the_whole_hessian_formed_block_by_block_is_the_one_formed_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    codes, members = rng.standard_normal((700, 9)), rng.integers(0, 4, size=700)
    parameters = 0.3 * rng.standard_normal((10, 3))
    at_once = multinomial._Problem(codes, members, 4, 2.0)
    assert at_once._pairs[0] is not None  # the design's pair products kept (formed now, before the cap is lowered)
    monkeypatch.setattr(multinomial, "_PAIR_VALUES", 100)
    blocked = multinomial._Problem(codes, members, 4, 2.0)
    probabilities = at_once.evaluate(parameters)[1]
    assert blocked._pairs[0] is None
    np.testing.assert_allclose(blocked.hessian(probabilities), at_once.hessian(probabilities), rtol=1e-12, atol=1e-9)


def test_labels_of_any_sortable_kind_are_the_sorted_classes() -> None:
    codes, labels = _problem(5, 3.0, 3)
    names = np.array(["c", "a", "b"])[labels]
    fit = fit_multinomial_logistic(codes, names, 1.0)
    np.testing.assert_array_equal(fit.classes, ["a", "b", "c"])
    np.testing.assert_array_equal(fit.predict(codes), _tight(codes, names, 1.0).predict(codes))


def test_separable_classes_converge_without_warnings() -> None:
    # classes a line separates, with a weak penalty: the logits grow large.  No overflow warning may escape (the
    # harness records a metric's warnings) and the fit still reaches the penalised minimiser
    codes, labels = _problem(5, 1000.0, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = fit_multinomial_logistic(codes, labels, 1e4)
        probabilities = fit.probabilities(codes)
    assert np.isfinite(probabilities).all() and (fit.predict(codes) == labels).all()
    np.testing.assert_allclose(probabilities, _tight(codes, labels, 1e4).predict_proba(codes), rtol=0, atol=1e-8)


def test_the_step_cap_warns_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    codes, labels = _problem(0, 3.0, 4)
    assert fit_multinomial_logistic(codes, labels, 1e4).steps < multinomial.MAX_STEPS
    monkeypatch.setattr(multinomial, "MAX_STEPS", 2)
    with pytest.warns(NewtonConvergenceWarning, match="did not converge in 2 Newton steps"):
        assert fit_multinomial_logistic(codes, labels, 1e4).steps == 2


def test_bad_input_is_refused_in_words() -> None:
    codes, labels = _problem(0, 1.0, 3)
    with pytest.raises(ValueError, match="inverse penalty C must be positive"):
        fit_multinomial_logistic(codes, labels, 0.0)
    with pytest.raises(ValueError, match="one per row"):
        fit_multinomial_logistic(codes, labels[:-1], 1.0)
    with pytest.raises(ValueError, match="at least two classes"):
        fit_multinomial_logistic(codes, np.zeros(len(labels)), 1.0)


class _ScikitLearnFit:
    """A scikit-learn model in the place of :class:`metrics._multinomial.MultinomialLogistic` (what the metrics read)."""

    def __init__(self, model: LogisticRegression) -> None:
        self.model, self.classes = model, model.classes_

    def log_probabilities(self, codes: np.ndarray) -> np.ndarray:
        return np.log(np.clip(self.model.predict_proba(codes), 1e-15, 1.0))  # the metrics' former arithmetic

    def predict(self, codes: np.ndarray) -> np.ndarray:
        return self.model.predict(codes)


def _scikit_learn(**options):
    """A stand-in for :func:`fit_multinomial_logistic` fitting scikit-learn's ``LogisticRegression(C, **options)``."""
    def fit(codes: np.ndarray, labels: np.ndarray, strength: float) -> _ScikitLearnFit:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return _ScikitLearnFit(LogisticRegression(C=strength, **options).fit(codes, labels))
    return fit


def _scores_with(monkeypatch: pytest.MonkeyPatch, module, fitter, name: str, factors, codes, options) -> dict:
    with monkeypatch.context() as patch:
        patch.setattr(module, "fit_multinomial_logistic", fitter)
        return metrics.evaluate(name, factors, codes, **options)


#: Inputs of each kind the tolerances were measured on (noise, mixing, rotation, a nonlinear map), a few settings each.
CASES = [("noise", 0.0), ("noise", 0.2), ("noise", 0.6), ("mixing", 0.3), ("rotation", 0.785398), ("nonlinear", 1.0)]


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "value"), CASES)
def test_infomec_is_scikit_learns_within_the_stated_tolerance(monkeypatch, scenario: str, value: float) -> None:
    representation = scenarios.get(scenario).generate(value, n=1000, seed=3)
    factors, codes = representation.factors, representation.codes
    for options in ({}, {"bins": 20, "inverse_penalty": 1.0}):
        options = {"discrete": representation.discrete, **options}
        exact = metrics.evaluate("infomec", factors, codes, **options)
        default = _scores_with(monkeypatch, metrics.infomec, _scikit_learn(max_iter=100), "infomec", factors, codes,
                               options)
        tight = _scores_with(monkeypatch, metrics.infomec, _scikit_learn(**TIGHT), "infomec", factors, codes, options)
        assert exact["infoe"] == pytest.approx(default["infoe"], abs=metrics.infomec.SCIKIT_LEARN_TOLERANCE)
        assert exact["infoe"] == pytest.approx(tight["infoe"], abs=1e-8)
        assert exact["infom"] == default["infom"] and exact["infoc"] == default["infoc"]  # no regression in these


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "value"), CASES)
def test_z_diff_is_scikit_learns_within_the_stated_tolerance(monkeypatch, scenario: str, value: float) -> None:
    representation = scenarios.get(scenario).generate(value, n=2000, seed=3)
    factors, codes = representation.factors, representation.codes
    options = {"discrete": representation.discrete, "batch_size": 50, "n_train": 2000, "n_eval": 1000}
    exact = metrics.evaluate("z_diff", factors, codes, **options)["z_diff"]
    default = _scores_with(monkeypatch, metrics.z_diff, _scikit_learn(max_iter=1000), "z_diff", factors, codes,
                           options)["z_diff"]
    tight = _scores_with(monkeypatch, metrics.z_diff, _scikit_learn(**TIGHT), "z_diff", factors, codes,
                         options)["z_diff"]
    # an accuracy: the points classified differently, before the rescaling from chance
    points = abs(exact - default) * (1 - 1 / factors.shape[1]) * options["n_eval"]
    assert points <= metrics.z_diff.SCIKIT_LEARN_TOLERANCE_POINTS * options["n_eval"] / 5000 + 1e-9
    assert exact == pytest.approx(tight, abs=1e-12)
