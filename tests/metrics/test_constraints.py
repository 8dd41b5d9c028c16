"""The declaration mechanism itself: what each constraint accepts, how it is written, and how declarations are checked."""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics.constraints import (
    NONE,
    POSITIVE,
    CheckedAtCall,
    Interval,
    InvalidOptionError,
    Options,
    SequenceOf,
    check_option,
    check_range,
    check_rules,
    describe,
)
from metrics.describe import describe_metric
from metrics.registry import register_metric


@pytest.mark.parametrize(("constraint", "legal", "illegal"), [
    (Interval(int, 2, None), [2, 3, np.int64(10), 10**30], [1, 0, -2, 2.0, 2.5, True, "3", None, math.inf]),
    (Interval(int, 2, 61), [2, 61], [1, 62]),
    (Interval(float, 0.0, 1.0, closed="right"), [1, 1.0, 0.5, np.float32(0.25), 1e-300], [0, 0.0, -0.1, 1.0001, math.nan]),
    (Interval(float, 0.0, 1.0, closed="left"), [0, 0.0, 0.999], [1, 1.0, -1e-9]),
    (Interval(float, 0.0, 1.0, closed="neither"), [0.5], [0.0, 1.0]),
    (Interval(float, None, 1.0), [-1e300, 1.0], [1.5, -math.inf, False]),
    (Options("knn", "ksg"), ["knn", np.str_("ksg")], ["KNN", "", 1, None]),
    (Options(True, False), [True, False, np.bool_(True)], [1, 0, "True", None]),
    (Options(None), [None], [0, "None", False]),
    (SequenceOf(Interval(int, 1, None)), [(1,), [1, 10, 100]], [(), [], (0,), (1, 2.5), "1", 1, None]),
])
def test_a_constraint_accepts_exactly_its_values(constraint, legal, illegal):
    assert all(constraint.accepts(value) for value in legal)
    assert not any(constraint.accepts(value) for value in illegal)


@pytest.mark.parametrize(("rule", "text"), [
    (Interval(int, 2, None), "an integer >= 2"),
    (Interval(int, 2, 61), "an integer in [2, 61]"),
    (Interval(float, 0.0, 1.0, closed="right"), "a number in (0, 1]"),
    (Interval(float, 0.0, None, closed="neither"), "a number > 0"),
    (Interval(float, None, 1.0), "a number <= 1"),
    (Options("knn", "ksg"), "one of 'knn', 'ksg'"),
    (Options(True, False), "True or False"),
    ((NONE, POSITIVE), "None or a number > 0"),
    (SequenceOf(Interval(int, 1, None)), "a non-empty sequence, each an integer >= 1"),
    (CheckedAtCall("one array per member"), "one array per member (checked against the data when called)"),
])
def test_the_legal_values_in_words(rule, text):
    assert describe(rule) == text


def test_a_refused_value_is_one_line_naming_the_metric_the_option_the_value_and_the_legal_values():
    with pytest.raises(InvalidOptionError) as caught:
        check_option("mig", "bins", 0, Interval(int, 2, None))
    assert str(caught.value) == "metric 'mig' does not take bins=0: bins must be an integer >= 2"
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, TypeError)
    check_option("udr", "penalty", None, (NONE, POSITIVE))  # any alternative will do


def test_interval_notation_and_elementwise_membership():
    assert Interval(float, -1.0, 1.0).notation() == "[-1, 1]"
    assert Interval(float, 0.0, None, closed="neither").notation() == "(0, inf)"
    assert Interval(float, None, 1.0).notation() == "(-inf, 1]"
    assert Interval(float, 0.0, 1.0).contains([-0.1, 0.0, 1.0, 1.2]).tolist() == [False, True, True, False]


@pytest.mark.parametrize(("arguments", "error"), [
    ((str, 0, 1), TypeError), ((int, 2, 2), ValueError), ((float, 0, 1, "open"), ValueError),
])
def test_a_malformed_interval_is_refused(arguments, error):
    with pytest.raises(error):
        Interval(*arguments)


def test_a_declaration_is_checked_against_the_options_and_their_defaults():
    assert check_rules("m", {"bins": Interval(int, 2, None)}, ["bins"], {"bins": 10}) == {"bins": Interval(int, 2, None)}
    with pytest.raises(ValueError, match=r"declares constraints of unknown options \['bnis'\]; its options: bins"):
        check_rules("m", {"bnis": Interval(int, 2, None)}, ["bins"], {"bins": 10})
    with pytest.raises(InvalidOptionError, match="does not take bins=1"):
        check_rules("m", {"bins": Interval(int, 2, None)}, ["bins"], {"bins": 1})
    with pytest.raises(TypeError, match="must be a Constraint"):
        check_rules("m", {"bins": 2}, ["bins"], {"bins": 10})
    with pytest.raises(TypeError, match=r"Interval\(float, low, high\)"):
        check_range("m", Interval(int, 0, 1), None)
    with pytest.raises(ValueError, match=r"unknown sub-scores \['c'\]"):
        check_range("m", {"c": Interval(float, 0.0, 1.0)}, ["a", "b"])


def test_register_metric_refuses_a_default_its_constraint_refuses():
    def score(factors, codes, *, bins: int = 1) -> float:
        return 0.0

    with pytest.raises(InvalidOptionError, match="metric 'test_constraints_bad_default' does not take bins=1"):
        register_metric("test_constraints_bad_default", family="information", properties="compactness",
                        constraints={"bins": Interval(int, 2, None)})(score)


def test_a_users_declaration_is_checked_when_it_decorates():
    def windowed(factors, codes, *, window=100):
        return 0.0

    with pytest.raises(ValueError, match=r"unknown options \['size'\]; its options: window"):
        describe_metric(constraints={"size": Interval(int, 1, None)})(windowed)
    with pytest.raises(InvalidOptionError, match="does not take window=100"):
        describe_metric(constraints={"window": Interval(int, 1, 10)})(windowed)
    with pytest.raises(ValueError, match=r"unknown sub-scores \['b'\]"):
        describe_metric(property={"a": "modularity"}, score_range={"b": Interval(float, 0.0, 1.0)})(windowed)


def test_a_bare_decorator_says_to_write_its_parentheses():
    # '@describe_metric' above a function said "describe_metric() takes 0 positional arguments but 1 was given"
    with pytest.raises(TypeError, match=r"write @describe_metric\(\.\.\.\) with parentheses above windowed"):
        @describe_metric
        def windowed(factors, codes):
            return 0.0
