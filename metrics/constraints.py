"""Declarative constraints: the legal values of a metric's options and the range of its scores, as data.

A metric declares, beside its registration (:func:`metrics.register_metric`) or a user's description
(:func:`metrics.describe.describe_metric`), one rule per option: a :class:`Constraint` or a tuple of them, the value
being legal when any of them accepts it (in the manner of scikit-learn's ``Interval`` and ``StrOptions``)::

    {"bins": Interval(int, 2, None),                      # an integer >= 2
     "estimator": Options("knn", "ksg"),                  # one of 'knn', 'ksg'
     "penalty": (Options(None), Interval(float, 0, None, closed="right"))}  # None or a number > 0

The metric's validating entry (:mod:`metrics._entry`) checks every option it is called with against its rule
(:func:`check_option`), the harness checks an option sweep's values at plan time with the same function, and the
catalogues print :func:`describe`.  What depends on the data (a ``top_k`` above the number of codes, a batch larger
than the sample) is no constraint: the metric checks it when it is called.  A score range is an :class:`Interval`
of ``float`` (:func:`check_range`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

#: Which ends of an :class:`Interval` belong to it.
Closed = Literal["both", "left", "right", "neither"]


class InvalidOptionError(ValueError, TypeError):
    """An option value its metric's declaration refuses (a ValueError and a TypeError, as a value of the wrong type
    or out of range were before the declarations)."""


class Constraint:
    """A set of legal values: :meth:`accepts` says whether a value is in it, ``str()`` says which values are."""

    def accepts(self, value: Any) -> bool:  # pragma: no cover - every constraint overrides it
        """Whether ``value`` is legal."""
        raise NotImplementedError


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Interval(Constraint):
    """The integers (``kind=int``) or finite real numbers (``kind=float``, integers included) between two bounds.

    Parameters
    ----------
    kind : {int, float}
        The numbers accepted; a bool is neither.
    low, high : float or None
        The bounds; None: unbounded on that side.
    closed : {"both", "left", "right", "neither"}, default "both"
        Which of the given bounds belong to the interval.
    """

    kind: type
    low: float | None
    high: float | None
    closed: Closed = "both"

    def __post_init__(self) -> None:
        if self.kind not in (int, float):
            raise TypeError(f"an Interval's kind must be int or float, got {self.kind!r}")
        if self.closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', got {self.closed!r}")
        if self.low is not None and self.high is not None and not self.low < self.high:
            raise ValueError(f"an Interval's low bound must be below its high bound, got {self.low!r} and {self.high!r}")

    @property
    def left_closed(self) -> bool:
        """Whether ``low`` belongs to the interval."""
        return self.closed in ("both", "left")

    @property
    def right_closed(self) -> bool:
        """Whether ``high`` belongs to the interval."""
        return self.closed in ("both", "right")

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is a number of :attr:`kind` within the bounds."""
        if _is_bool(value) or not isinstance(value, (int, np.integer) if self.kind is int else (int, float, np.integer, np.floating)):
            return False
        if not math.isfinite(value):
            return False
        above = self.low is None or (value >= self.low if self.left_closed else value > self.low)
        below = self.high is None or (value <= self.high if self.right_closed else value < self.high)
        return bool(above and below)

    def contains(self, values: Any) -> np.ndarray:
        """Elementwise: whether each of the real numbers ``values`` lies within the bounds (a score range's check)."""
        values = np.asarray(values, dtype=float)
        above = np.ones(values.shape, bool) if self.low is None else (values >= self.low if self.left_closed else values > self.low)
        below = np.ones(values.shape, bool) if self.high is None else (values <= self.high if self.right_closed else values < self.high)
        return above & below

    def bounds(self) -> tuple[float, float]:
        """``(low, high)``, an infinite bound for an unbounded side: a score range as the reports read it."""
        return (-math.inf if self.low is None else float(self.low), math.inf if self.high is None else float(self.high))

    def notation(self) -> str:
        """The bounds as mathematics writes them: ``[0, 1]``, ``(0, 1]``, ``[2, inf)``."""
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"{'[' if self.left_closed and self.low is not None else '('}{low}, {high}" \
               f"{']' if self.right_closed and self.high is not None else ')'}"

    def __str__(self) -> str:
        noun = "an integer" if self.kind is int else "a number"
        if self.low is None and self.high is None:
            return noun
        if self.high is None:
            return f"{noun} {'>=' if self.left_closed else '>'} {self.low:g}"
        if self.low is None:
            return f"{noun} {'<=' if self.right_closed else '<'} {self.high:g}"
        return f"{noun} in {self.notation()}"


@dataclass(frozen=True, init=False)
class Options(Constraint):
    """A finite set of legal values (strings, bools, None), compared by value and type (``1`` is not ``True``)."""

    values: tuple[Any, ...]

    def __init__(self, *values: Any) -> None:
        if not values:
            raise ValueError("Options needs at least one value")
        object.__setattr__(self, "values", tuple(values))

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is one of :attr:`values` (a numpy bool or string as the Python one)."""
        value = value.item() if isinstance(value, (np.bool_, np.str_)) else value
        return any(type(value) is type(legal) and value == legal for legal in self.values)

    def __str__(self) -> str:
        if set(self.values) == {True, False} and len(self.values) == 2:
            return "True or False"
        if len(self.values) == 1:
            return repr(self.values[0])
        return f"one of {', '.join(map(repr, self.values))}"


@dataclass(frozen=True)
class SequenceOf(Constraint):
    """A non-empty list or tuple whose every item ``item`` accepts."""

    item: Constraint

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is a non-empty list or tuple of legal items."""
        return isinstance(value, (list, tuple)) and bool(value) and all(self.item.accepts(entry) for entry in value)

    def __str__(self) -> str:
        return f"a non-empty sequence, each {self.item}"


@dataclass(frozen=True)
class CheckedAtCall(Constraint):
    """A value whose legality depends on the data (arrays given per member): any value passes the declaration and the
    metric checks it when it is called; ``description`` says what it must be."""

    description: str

    def accepts(self, value: Any) -> bool:
        """Always: the metric's call decides."""
        return True

    def __str__(self) -> str:
        return f"{self.description} (checked against the data when called)"


#: An option's rule: one constraint, or several of which a legal value satisfies at least one.
Rule = Constraint | tuple[Constraint, ...]
#: Rules many options share: a count, a count of at least two (bins, folds), a fraction strictly between 0 and 1
#: (a held-out share), a number >= 0, a number > 0, a flag, None.
COUNT = Interval(int, 1, None)
AT_LEAST_TWO = Interval(int, 2, None)
FRACTION = Interval(float, 0.0, 1.0, closed="neither")
NON_NEGATIVE = Interval(float, 0.0, None)
POSITIVE = Interval(float, 0.0, None, closed="neither")
FLAG = Options(True, False)
NONE = Options(None)
#: The range most scores declare: a number in [0, 1].
UNIT = Interval(float, 0.0, 1.0)


def alternatives(rule: Rule) -> tuple[Constraint, ...]:
    """The constraints of ``rule``, as a tuple.

    Raises
    ------
    TypeError
        When ``rule`` is neither a :class:`Constraint` nor a non-empty tuple of them.
    """
    constraints = rule if isinstance(rule, tuple) else (rule,)
    if not constraints or not all(isinstance(constraint, Constraint) for constraint in constraints):
        raise TypeError(f"an option's rule must be a Constraint or a tuple of them, got {rule!r}")
    return constraints


def describe(rule: Rule) -> str:
    """The legal values of ``rule`` in words: ``an integer >= 2``, ``None or a number > 0``."""
    return " or ".join(str(constraint) for constraint in alternatives(rule))


def check_option(metric: str, option: str, value: Any, rule: Rule) -> None:
    """Raise naming ``metric``, ``option``, ``value`` and the legal values when ``rule`` refuses ``value``.

    Raises
    ------
    InvalidOptionError
        ``metric 'mig' does not take bins=0: bins must be an integer >= 2``.
    """
    if not any(constraint.accepts(value) for constraint in alternatives(rule)):
        raise InvalidOptionError(f"metric {metric!r} does not take {option}={value!r}: {option} must be {describe(rule)}")


def check_options(metric: str, options: Mapping[str, Any], rules: Mapping[str, Rule]) -> None:
    """:func:`check_option` for every option of ``options`` that ``rules`` declares (the others pass)."""
    for option, value in options.items():
        if option in rules:
            check_option(metric, option, value, rules[option])


def check_rules(metric: str, rules: Mapping[str, Rule], options: Collection[str], defaults: Mapping[str, Any]) -> dict[str, Rule]:
    """A declaration of option rules, checked against the metric's ``options`` and their ``defaults`` (an option
    missing from ``defaults`` has none).

    Raises
    ------
    ValueError
        For a rule of an option the metric does not take, or a default its own rule refuses.
    TypeError
        For a rule that is not a constraint or a tuple of them.
    """
    unknown = sorted(set(rules) - set(options))
    if unknown:
        raise ValueError(f"metric {metric!r} declares constraints of unknown options {unknown}; its options: "
                         f"{', '.join(sorted(options)) or 'none'}")
    for option, rule in rules.items():
        alternatives(rule)
        if option in defaults:
            check_option(metric, option, defaults[option], rule)
    return dict(rules)


def check_range(metric: str, declared: Interval | Mapping[str, Interval], sub_scores: Sequence[str] | None) -> dict[str, Interval] | Interval:
    """A score-range declaration, checked: one :class:`Interval` of ``float`` for every sub-score, or sub-score ->
    interval naming only ``sub_scores`` (when known).

    Raises
    ------
    TypeError
        When a range is not an Interval of float.
    ValueError
        When the mapping names a sub-score not in ``sub_scores``.
    """
    ranges = dict(declared) if isinstance(declared, Mapping) else {None: declared}
    for sub, interval in ranges.items():
        if not isinstance(interval, Interval) or interval.kind is not float:
            raise TypeError(f"the score range of metric {metric!r}{'' if sub is None else f' sub-score {sub!r}'} must be an "
                            f"Interval(float, low, high), got {interval!r}")
    unknown = sorted(set(ranges) - {None} - set(sub_scores or ranges))
    if unknown:
        raise ValueError(f"score ranges given for unknown sub-scores {unknown} of metric {metric!r}")
    return declared if isinstance(declared, Interval) else dict(declared)
