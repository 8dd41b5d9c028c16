"""The metric contract: registry, evaluate on names and plain callables, validation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics.registry import FAMILIES, SCORE_PROPERTIES


def test_available_is_sorted_and_names_resolve():
    names = metrics.available()
    assert names == sorted(names)
    assert {"mig", "mig_sup", "jemmig", "modularity", "dcimig"} <= set(names)
    for name in names:
        spec = metrics.get(name)
        assert spec.name == name
        assert spec.family in FAMILIES
        assert set(spec.properties.values()) <= set(SCORE_PROPERTIES)


def test_unknown_metric_lists_known_ones():
    with pytest.raises(KeyError, match="unknown metric 'nope'.*mig"):
        metrics.get("nope")


def test_plain_callable_float_comes_back_named(rng):
    def my_score(factors, codes):
        return float(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1])

    values = rng.random((100, 2))
    assert metrics.evaluate(my_score, values, values) == {"my_score": pytest.approx(1.0)}


def test_plain_callable_mapping_and_options(rng):
    def scores(factors, codes, *, scale=1.0):
        return {"a": scale * 1.0, "b": scale * 2.0}

    assert metrics.evaluate(scores, rng.random((5, 1)), rng.random((5, 1)), scale=0.5) == {"a": 0.5, "b": 1.0}


def test_plain_callable_gets_discrete_and_random_state_only_if_it_accepts_them(rng):
    seen = {}

    def accepting(factors, codes, discrete=None, random_state=None):
        seen.update(discrete=discrete, random_state=random_state)
        return 0.0

    def refusing(factors, codes):
        return 0.0

    values = rng.random((5, 2))
    metrics.evaluate(accepting, values, values, discrete=[True, False], random_state=3)
    assert seen == {"discrete": (True, False), "random_state": 3}
    assert metrics.evaluate(refusing, values, values, discrete=[True, False], random_state=3) == {"refusing": 0.0}


def test_registered_metric_rejects_unknown_options(rng):
    values = rng.random((50, 2))
    with pytest.raises(TypeError, match="unknown option.*bogus.*bins"):
        metrics.evaluate("mig", values, values, bogus=1)


@pytest.mark.parametrize("returned", ["0.5", b"0.5", True, np.bool_(False), {"modularity": "1"}])
def test_callable_returning_text_or_a_truth_value_is_an_error(rng, returned):
    # float() reads "0.5" and True as numbers: a metric returning the wrong type would be scored silently
    values = rng.random((5, 2))
    with pytest.raises(TypeError, match="returned a non-numeric score"):
        metrics.evaluate(lambda f, c: returned, values, values)


def test_callable_returning_a_numpy_number_is_a_score(rng):
    values = rng.random((5, 2))
    assert metrics.evaluate(lambda f, c: np.float32(0.25), values, values) == {"<lambda>": 0.25}
    assert metrics.evaluate(lambda f, c: {"a": np.int64(1)}, values, values) == {"a": 1.0}


def test_callable_returning_nan_is_an_error(rng):
    values = rng.random((5, 2))
    with pytest.raises(ValueError, match="non-finite score .*; this is a bug in the metric$"):
        metrics.evaluate(lambda f, c: float("nan"), values, values)


def correlation_of_first_columns(factors, codes):
    return float(np.corrcoef(factors[:, 0], codes[:, 2])[0, 1])


def test_a_nan_score_from_constant_input_columns_names_them_instead_of_a_bug(rng):
    factors, codes = rng.random((50, 2)), rng.random((50, 3))
    codes[:, 2] = 0.5
    with np.errstate(all="ignore"), pytest.raises(ValueError) as raised:
        metrics.evaluate(correlation_of_first_columns, factors, codes)
    assert str(raised.value) == (
        "metric 'correlation_of_first_columns' returned a non-finite score for 'correlation_of_first_columns' (nan); "
        "its inputs have code column(s) 2 constant (a correlation or a division by a column's spread is NaN there): "
        "handle it in the metric")
    factors[:, 1] = 3.0
    with np.errstate(all="ignore"), pytest.raises(ValueError, match="code column.s. 2 and factor column.s. 1 constant"):
        metrics.evaluate(correlation_of_first_columns, factors, codes)


@pytest.mark.parametrize(
    ("factors", "codes", "error", "message"),
    [
        (np.ones(10), np.ones((10, 2)), ValueError, "factors must be a 2-D array"),
        (np.ones((10, 2, 2)), np.ones((10, 2)), ValueError, "factors must be a 2-D array"),
        (np.ones((10, 2)), np.ones((9, 2)), ValueError, "same number of rows"),
        (np.ones((1, 2)), np.ones((1, 2)), ValueError, "at least 2 samples"),
        (np.ones((10, 0)), np.ones((10, 2)), ValueError, "at least 1 column"),
        (np.ones((10, 2)), np.full((10, 2), np.nan), ValueError, "codes contains 20 non-finite"),
        (np.ones((10, 2)), np.full((10, 2), np.inf), ValueError, "infinite"),
        (np.array([["a", "b"], ["c", "d"]]), np.ones((2, 2)), TypeError, "factors must be numeric"),
        (np.ones((10, 2)), np.ones((10, 2)) * 1j, TypeError, "codes must be real-valued"),
        (np.ones((10, 2)), np.array([[object()]] * 10), TypeError, "codes must contain only real numbers"),
        (np.ones((10, 2)), np.full((10, 2), 1e200), ValueError, "rescale"),
    ],
)
def test_validation_names_the_argument_and_the_problem(factors, codes, error, message):
    with pytest.raises(error, match=message):
        metrics.evaluate("mig", factors, codes)


def test_discrete_flags_must_match_factors(rng):
    values = rng.random((20, 3))
    with pytest.raises(ValueError, match="one flag per factor"):
        metrics.evaluate("mig", values, values, discrete=[True])


def test_boolean_arrays_are_read_as_zero_one(rng):
    flags = rng.random((200, 2)) > 0.5
    as_float = flags.astype(float)
    assert metrics.evaluate("mig", flags, flags, discrete=True) == metrics.evaluate("mig", as_float, as_float, discrete=True)


@pytest.mark.parametrize("name", ["mig", "mig_sup", "jemmig", "modularity", "dcimig"])
def test_constant_columns_give_finite_documented_scores(name, rng):
    values = rng.random((500, 3))
    values[:, 1] = 2.0
    score = metrics.evaluate(name, values, values)[name]
    assert np.isfinite(score)
    everything_constant = metrics.evaluate(name, np.ones((50, 2)), np.ones((50, 2)))[name]
    assert everything_constant == 0.0


def test_directions_can_differ_per_sub_score():
    spec = metrics.get("pid")
    assert spec.higher_is_better_for("unique_lower") is True
    assert spec.higher_is_better_for("redundant_upper") is False
    assert spec.higher_is_better_for("complementary_lower") is False
    assert metrics.get("mig").higher_is_better_for("mig") is True


def test_directions_for_unknown_sub_scores_are_refused():
    with pytest.raises(ValueError, match="directions given for unknown sub-scores"):
        metrics.register_metric("never_registered", family="information", properties="modularity",
                                higher_is_better={"other": False})(lambda f, c: 0.0)


def test_a_partial_is_reported_under_the_function_it_wraps(rng):
    """functools.partial has no __name__: its score came back as 'partial'."""
    import functools

    def scaled(factors, codes, *, scale=1.0):
        return scale

    values = rng.random((5, 1))
    assert metrics.evaluate(functools.partial(scaled, scale=2.0), values, values) == {"scaled": 2.0}
    assert metrics.metric_name(functools.partial(functools.partial(scaled), scale=3.0)) == "scaled"


@pytest.mark.parametrize("population", ["yes", 1, 0])
def test_available_refuses_a_population_flag_that_is_not_a_bool(population):
    """"yes" listed no metric at all, 1 and 0 read as True and False by equality."""
    with pytest.raises(TypeError, match="population must be True, False or None"):
        metrics.available(population=population)


@pytest.mark.parametrize(("codes", "message"), [
    (pd.DataFrame({"a": [1, None, 3, 4, 5], "b": [1, 2, 3, 4, 5]}, dtype="Int64"),
     r"codes must contain only real numbers; found <NA> \(NAType\) at row 1, column 0 \(a missing value: fill or drop it first\)"),
    (pd.DataFrame({"a": pd.Categorical(["x", "y", "x", "y", "x"])}), r"found 'x' \(str\) at row 0, column 0"),
    (np.array([[1.0, "x"]] * 5, dtype=object), r"found 'x' \(str\) at row 0, column 1"),
], ids=["pandas missing value", "pandas categories", "a word"])
def test_a_value_that_is_no_number_is_named_with_its_place(codes, message):
    """All three said only "found non-numeric objects": not which value, nor where, nor that <NA> is a missing value."""
    with pytest.raises(TypeError, match=message):
        metrics.evaluate("mig", np.random.default_rng(0).random((5, 2)), codes)
