"""Every option of every built-in metric declares its legal values, and every value outside them is refused.

The invalid values are generated from each declaration (:mod:`metrics.constraints`), not kept by hand: just past
each bound of an interval, a fraction for an integer, a string next to a set of strings, the wrong types, an empty
sequence.  Whether a generated value is legal is decided here, from the constraint's fields, independently of the
constraints' own ``accepts``; each value illegal under every alternative of its rule must be refused by the metric's
call in one line naming the option, the value and every alternative's legal values.  The command line's
``--metric-option`` is tried on a sample of them: refused at plan time, before any cell.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import metrics
from harness.cli import main
from metrics.constraints import CheckedAtCall, Constraint, Interval, InvalidOptionError, Options, SequenceOf, alternatives

NAMES = metrics.available(population=None)
class Foreign:
    """An object no option takes (its repr the same in every test process, which collect the same ids)."""

    def __repr__(self) -> str:
        return "<foreign object>"


#: Values of the wrong kind for any option.
FOREIGN = [Foreign(), "not_a_legal_value", [], math.nan]


def _near_bounds(interval: Interval) -> list[Any]:
    """Numbers at and just past the bounds of ``interval``, a fraction where integers go, and the wrong types."""
    step = 1 if interval.kind is int else 1e-6
    values: list[Any] = []
    for bound, sign in ((interval.low, -1), (interval.high, 1)):
        if bound is not None:
            values += [bound, bound + sign * step, bound + sign * 1000]
    if interval.kind is int:
        values.append((interval.low if interval.low is not None else 0) + 0.5)
    return values + [True, str(interval.low if interval.low is not None else 0), None, math.inf]


def _candidates(constraint: Constraint) -> list[Any]:
    """Values that probe the edges of ``constraint`` (some legal, most not)."""
    if isinstance(constraint, Interval):
        return _near_bounds(constraint)
    if isinstance(constraint, Options):
        texts = [value for value in constraint.values if isinstance(value, str)]
        return [*(f"{text}_" for text in texts), *(text.upper() for text in texts), 1, 0, "None", "True"]
    if isinstance(constraint, SequenceOf):
        return [(), [], *[(value,) for value in _candidates(constraint.item)], "1", 1]
    return []


def _legal(value: Any, constraint: Constraint) -> bool:
    """Whether ``value`` is legal under ``constraint``, read from its fields (not from its ``accepts``)."""
    if isinstance(constraint, Interval):
        kinds = (int, np.integer) if constraint.kind is int else (int, float, np.integer, np.floating)
        if isinstance(value, bool) or not isinstance(value, kinds) or not math.isfinite(value):
            return False
        low, high = constraint.low, constraint.high
        above = low is None or value > low or (value == low and constraint.closed in ("both", "left"))
        below = high is None or value < high or (value == high and constraint.closed in ("both", "right"))
        return above and below
    if isinstance(constraint, Options):
        return any(type(value) is type(legal) and value == legal for legal in constraint.values)
    if isinstance(constraint, SequenceOf):
        return isinstance(value, (list, tuple)) and len(value) > 0 and all(_legal(item, constraint.item) for item in value)
    return isinstance(constraint, CheckedAtCall)


def invalid_values(rule: Any) -> list[Any]:
    """The generated values that no alternative of ``rule`` allows."""
    constraints = alternatives(rule)
    pool = [value for constraint in constraints for value in _candidates(constraint)] + FOREIGN
    return [value for value in pool if not any(_legal(value, constraint) for constraint in constraints)]


CASES = [(name, option, value) for name in NAMES
         for option, rule in metrics.get(name).constraints.items() for value in invalid_values(rule)]


@pytest.mark.parametrize("name", NAMES)
def test_every_option_of_every_builtin_declares_its_legal_values(name):
    spec = metrics.get(name)
    assert set(spec.constraints) == set(spec.defaults), f"{name} declares no rule for {set(spec.defaults) - set(spec.constraints)}"
    for option, rule in spec.constraints.items():
        checked_at_call = any(isinstance(constraint, CheckedAtCall) for constraint in alternatives(rule))
        assert checked_at_call or invalid_values(rule), f"no invalid value could be generated for {name}:{option}"
        assert any(_legal(spec.defaults[option], c) for c in alternatives(rule)), f"{name}:{option}'s default is illegal"


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    factors = rng.random((60, 2))
    return factors, factors + 0.1 * rng.random((60, 2))


def _refusal_problem(name: str, option: str, value: Any, data: tuple[np.ndarray, np.ndarray]) -> str | None:
    """What is wrong with the refusal of ``value`` for ``name``'s ``option`` (None: refused in one line naming every
    legal value, as it must be)."""
    spec = metrics.get(name)
    try:
        if spec.population:
            metrics.evaluate_population(name, [data[1], data[1][:, ::-1]], **{option: value})
        else:
            metrics.evaluate(name, *data, **{option: value})
    except InvalidOptionError as refusal:
        message = str(refusal)
    else:
        return f"{option}={value!r} was accepted"
    if "\n" in message or not message.startswith(f"metric {name!r} does not take {option}={value!r}: {option} must be "):
        return f"{option}={value!r}: {message!r}"
    missing = [str(constraint) for constraint in alternatives(spec.constraints[option]) if str(constraint) not in message]
    return f"{option}={value!r}: {message!r} names not {missing}" if missing else None


@pytest.mark.parametrize("name", sorted({name for name, _, _ in CASES}))
def test_a_value_outside_the_declaration_is_refused_naming_the_legal_values(name, data):
    # one test per metric over every generated invalid value of every option (1553 in all; a test each cost more in
    # pytest's bookkeeping than in the refusals)
    cases = [(option, value) for own, option, value in CASES if own == name]
    problems = [problem for option, value in cases if (problem := _refusal_problem(name, option, value, data))]
    assert not problems, f"{len(problems)} of {len(cases)} invalid values of {name}: " + "; ".join(problems[:5])


def _typed(value: Any) -> str | None:
    """``value`` as typed after ``--metric-option NAME:OPTION=``, where the command line reads it back as it is."""
    if isinstance(value, bool) or value is None or (isinstance(value, (int, float)) and math.isfinite(value)):
        return str(value)
    if isinstance(value, str) and value and "," not in value and value not in ("True", "False", "None"):
        return value
    return None


#: One invalid value per metric that the command line can carry, a sample of the cases (planning costs ~1 s a call).
_FIRST_TYPED: dict[str, tuple[str, str, str]] = {}
for _name, _option, _value in CASES:
    if _typed(_value) is not None and not metrics.get(_name).population:
        _FIRST_TYPED.setdefault(_name, (_name, _option, _typed(_value)))
CLI_CASES = list(_FIRST_TYPED.values())[::4]


@pytest.mark.parametrize(("name", "option", "text"), CLI_CASES, ids=[f"{n}-{o}-{t}" for n, o, t in CLI_CASES])
def test_the_command_line_refuses_it_when_it_plans_before_any_cell(name, option, text, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["run", "--preset", "quick", "--scenarios", "noise", "--metrics", name, "--metric-option",
            f"{name}:{option}={text}", "--jobs", "1", "--no-report", "--no-progress", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: metric {name!r} does not take {option}=") and err.count("\n") == 1
    assert all(str(constraint) in err for constraint in alternatives(metrics.get(name).constraints[option]))
    assert not out.exists()
