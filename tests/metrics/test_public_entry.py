"""Every registered metric validates its own inputs and states its options once.

Issue 11, items 6 and 7: ``metrics.mig.mig(x, z_with_nan)`` must raise the same clear error
as ``metrics.evaluate("mig", x, z_with_nan)``, and each metric's registered defaults are
its signature's keyword-only defaults.
"""

from __future__ import annotations

import inspect
import sys

import numpy as np
import pytest

import metrics
from metrics.registry import register_metric

N, K, L = 40, 2, 3
NAN_ROW, NAN_COLUMN = 5, 1
NAN_MESSAGE = f"codes contains 1 non-finite value(s); first NaN at row {NAN_ROW}, column {NAN_COLUMN}"


def _factors_and_nan_codes() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    factors = rng.random((N, K))
    codes = rng.random((N, L))
    codes[NAN_ROW, NAN_COLUMN] = np.nan
    return factors, codes


def _public_function(name: str):
    """The module-level function a user imports, e.g. ``metrics.mig.mig``."""
    function = metrics.get(name).function
    return getattr(sys.modules[function.__module__], function.__name__)


@pytest.mark.parametrize("name", metrics.available())
def test_public_function_rejects_nan_codes_like_evaluate(name):
    factors, codes = _factors_and_nan_codes()
    public = _public_function(name)
    assert public is metrics.get(name).function
    with pytest.raises(ValueError) as direct:
        public(factors, codes)
    with pytest.raises(ValueError) as through_evaluate:
        metrics.evaluate(name, factors, codes)
    assert str(direct.value) == str(through_evaluate.value) == NAN_MESSAGE


@pytest.mark.parametrize("name", metrics.available(population=True))
def test_population_function_rejects_nan_member_like_evaluate_population(name):
    factors, codes = _factors_and_nan_codes()
    population = [factors, codes]
    with pytest.raises(ValueError) as direct:
        _public_function(name)(population)
    with pytest.raises(ValueError) as through_evaluate:
        metrics.evaluate_population(name, population)
    expected = f"population[1] contains 1 non-finite value(s); first NaN at row {NAN_ROW}, column {NAN_COLUMN}"
    assert str(direct.value) == str(through_evaluate.value) == expected


@pytest.mark.parametrize("name", metrics.available(population=None))
def test_public_function_keeps_name_docstring_and_signature(name):
    public = _public_function(name)
    original = public.__wrapped__
    assert public.__name__ == original.__name__ == name
    assert public.__doc__ == original.__doc__ and public.__doc__
    assert inspect.signature(public) == inspect.signature(original)


@pytest.mark.parametrize("name", metrics.available(population=None))
def test_registered_defaults_are_the_signature_defaults(name):
    spec = metrics.get(name)
    parameters = inspect.signature(spec.function).parameters.values()
    keyword_only = {p.name: p.default for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY}
    keyword_only.pop("discrete", None)
    keyword_only.pop("random_state", None)
    assert dict(spec.defaults) == keyword_only


def test_direct_call_rejects_unknown_option_like_evaluate():
    rng = np.random.default_rng(1)
    factors, codes = rng.random((N, K)), rng.random((N, L))
    expected = "metric 'mig' got unknown option(s) bogus; its options are: bins, normalization"
    with pytest.raises(TypeError, match=r"^" + expected.replace("(", r"\(").replace(")", r"\)") + "$"):
        metrics.mig.mig(factors, codes, bogus=1)
    with pytest.raises(TypeError, match="got unknown option"):
        metrics.evaluate("mig", factors, codes, bogus=1)


def test_direct_call_checks_discrete_flags():
    rng = np.random.default_rng(2)
    factors, codes = rng.random((N, K)), rng.random((N, L))
    with pytest.raises(ValueError, match="discrete must have one flag per factor \\(2\\), got 3"):
        metrics.mig.mig(factors, codes, discrete=[True, False, True])


def test_direct_call_equals_evaluate_on_valid_input():
    rng = np.random.default_rng(3)
    factors = rng.random((500, K))
    codes = factors @ np.array([[1.0, 0.2, 0.0], [0.0, 1.0, 0.3]]) + 0.05 * rng.random((500, L))
    assert metrics.mig.mig(factors.tolist(), codes) == metrics.evaluate("mig", factors, codes)["mig"]


def _register_throwaway(**registration):
    def score(factors, codes, *, discrete=None, bins: int = 10) -> float:
        """A throwaway metric for registration tests."""
        return 0.0

    return register_metric("test_public_entry_throwaway", family="information", properties="compactness", **registration)(score)


def test_defaults_disagreeing_with_the_signature_are_refused():
    with pytest.raises(ValueError, match="bins=5 given, signature has 10"):
        _register_throwaway(defaults={"bins": 5})
    with pytest.raises(ValueError, match="depth=3 given, signature has no such keyword-only parameter"):
        _register_throwaway(defaults={"depth": 3})
    assert "test_public_entry_throwaway" not in metrics.available(population=None)


def test_option_without_default_is_refused():
    def score(factors, codes, *, discrete=None, bins: int) -> float:
        """No default for bins."""
        return 0.0

    with pytest.raises(ValueError, match="option 'bins' of metric 'test_public_entry_required' has no default"):
        register_metric("test_public_entry_required", family="information", properties="compactness")(score)


@pytest.fixture()
def scratch_registry(monkeypatch):
    """Registrations made in the test are forgotten after it."""
    import metrics.registry

    metrics.registry.available()  # the built-ins registered first (on the registry's first lookup), then copied
    monkeypatch.setattr(metrics.registry, "_REGISTRY", dict(metrics.registry._REGISTRY))


def test_a_plug_in_without_a_discrete_parameter_is_evaluated(scratch_registry, rng):
    """metrics.evaluate always passes discrete: every call failed with "got unknown option(s) discrete"."""

    @register_metric("test_public_entry_plug_in", family="information", properties="holistic")
    def correlation(factors, codes, *, scale: float = 1.0) -> float:
        """First factor's correlation with the first code."""
        return float(scale * np.corrcoef(factors[:, 0], codes[:, 0])[0, 1])

    factors = rng.random((60, 2))
    codes = factors + 0.1 * rng.random((60, 2))
    expected = float(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1])
    assert metrics.evaluate("test_public_entry_plug_in", factors, codes) == {"test_public_entry_plug_in": expected}
    assert metrics.evaluate("test_public_entry_plug_in", factors, codes, discrete=[True, False], scale=2.0) == {
        "test_public_entry_plug_in": 2.0 * expected}
    assert correlation(factors, codes, discrete=True) == expected
    with pytest.raises(ValueError, match=r"discrete must have one flag per factor \(2\), got 1"):  # still checked
        metrics.evaluate("test_public_entry_plug_in", factors, codes, discrete=[True])


def test_a_stochastic_plug_in_without_random_state_is_refused_when_registered(scratch_registry):
    """It registered, and then every metrics.evaluate call failed with "got unknown option(s) random_state"."""

    def draws(factors, codes, *, discrete=None) -> float:
        """Claims to be stochastic, takes no seed."""
        return 0.0

    with pytest.raises(ValueError, match="registered as stochastic but its function takes no random_state"):
        register_metric("test_public_entry_unseeded", family="predictor", properties="explicitness", stochastic=True)(draws)
    assert "test_public_entry_unseeded" not in metrics.available(population=None)


def test_a_metric_file_imported_again_replaces_its_registration_and_another_function_of_its_name_is_refused(
        scratch_registry, rng):
    """``pytest metrics/mig.py`` (its doctests) imports the file beside the package that registered it: that failed at
    collection with "a metric named 'mig' is already registered"."""
    import importlib.util
    from pathlib import Path

    factors, codes = rng.normal(size=(200, 2)), rng.normal(size=(200, 3))
    before = metrics.evaluate("mig", factors, codes)
    path = Path(metrics.__file__).with_name("mig.py")
    spec = importlib.util.spec_from_file_location("mig_imported_again", path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))  # registers mig again, from the same file
    assert metrics.registry._REGISTRY["mig"].function.__module__ == "mig_imported_again"
    assert metrics.evaluate("mig", factors, codes) == before

    def mig(factors, codes, *, discrete=None):
        return 0.0

    with pytest.raises(ValueError, match="a metric named 'mig' is already registered"):
        register_metric("mig", family="information", properties="compactness")(mig)


def test_a_plain_stochastic_callable_given_no_seed_is_reproducible_and_a_bad_seed_is_refused_everywhere(rng):
    """The docstring promised 0 for a stochastic metric given no seed, but a plain callable kept its own default
    (``random_state=None``: a fresh draw at every call), so ``evaluate`` and ``permutation_null`` moved between calls;
    a bad ``random_state`` was ignored by every metric that does not draw."""
    from metrics.describe import describe_metric

    @describe_metric(property="explicitness", higher_is_better=True, stochastic=True)
    def noisy(factors, codes, *, random_state=None):
        """A draw, nothing else."""
        return float(np.random.default_rng(random_state).random())

    factors = rng.random((50, 2))
    first, second = metrics.evaluate(noisy, factors, factors), metrics.evaluate(noisy, factors, factors)
    assert first == second == {"noisy": float(np.random.default_rng(0).random())}
    nulls = [metrics.permutation_null(noisy, factors, factors, permutations=3, seed=0).scores["noisy"].tolist()
             for _ in range(2)]
    assert nulls[0] == nulls[1]
    for bad, error in (("bad", TypeError), (-1, ValueError), (1.5, TypeError)):
        with pytest.raises(error, match="random_state"):
            metrics.evaluate("mig", factors, factors, random_state=bad)


def test_a_null_names_its_sub_scores_and_a_generator_seed_says_why_it_is_refused(rng):
    factors = rng.random((60, 2))
    null = metrics.permutation_null("mig", factors, factors, permutations=3, seed=0)
    with pytest.raises(KeyError, match="no sub-score 'mgi' in this null; its sub-scores: mig"):
        null.p_value("mgi")
    with pytest.raises(TypeError, match="not a Generator"):
        metrics.permutation_null("mig", factors, factors, permutations=3, seed=np.random.default_rng(0))
