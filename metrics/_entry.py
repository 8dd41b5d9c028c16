"""The validating public entry that :func:`metrics.register_metric` puts around every metric.

A registered metric's module-level function (``metrics.mig.mig``) is this entry: it checks
its inputs once per call, the way scikit-learn's public functions call ``check_array``,
then runs the metric's body on the validated arrays.  :func:`metrics.evaluate` calls the
same entry, so a metric gives the same error for the same bad input however it is called,
and nothing is validated twice.

The validated arrays are read-only views (:func:`metrics.validation.as_real_matrix`): the
metrics scored on one draw share its arrays, so one that wrote into them would change the
scores of the others.  A metric that tries fails with :class:`InputModifiedError`
(:func:`unchanged_inputs`), which names it.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from metrics.constraints import Rule, check_options
from metrics.options import check_random_state
from metrics.shared import content_fingerprint, memoised, row_permutation, shared_estimates
from metrics.validation import check_discrete, check_pair, check_population

#: Arguments every metric may take besides its options.
CALL_ARGUMENTS = ("discrete", "random_state")


def accepts(function: Callable[..., Any], argument: str) -> bool:
    """Whether ``function`` takes a keyword ``argument`` (by name or through ``**kwargs``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == argument or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def check_option_names(name: str, given: Iterable[str], options: Iterable[str], call_arguments: Iterable[str]) -> None:
    """Raise a TypeError listing a metric's options when ``given`` holds a name it does not take."""
    known = set(options)
    unknown = sorted(set(given) - known - set(call_arguments))
    if unknown:
        listed = ", ".join(sorted(known)) or "none"
        raise TypeError(f"metric {name!r} got unknown option(s) {', '.join(unknown)}; its options are: {listed}")


class InputModifiedError(ValueError):
    """A metric tried to write into its (read-only) factors or codes."""


#: numpy's words for a write into a read-only array ("assignment destination is read-only", "output array is
#: read-only", "sort array is read-only"; Cython's "buffer source array is read-only").
_READ_ONLY = re.compile(r"\bread-only\b")


@contextmanager
def unchanged_inputs(name: str) -> Iterator[None]:
    """Run a metric's body; numpy's refusal to write into its read-only inputs becomes an :class:`InputModifiedError`.

    Raises
    ------
    InputModifiedError
        "metric NAME tried to modify its input arrays (...)", saying to work on a copy.
    """
    try:
        yield
    except InputModifiedError:
        raise
    except ValueError as error:
        if not _READ_ONLY.search(str(error)):
            raise
        raise InputModifiedError(
            f"metric {name!r} tried to modify its input arrays ({error}); metrics must not modify factors or codes "
            "(the other metrics of the draw are given the same arrays): work on a copy, e.g. codes = codes.copy()"
        ) from error


def _check_seed(arguments: dict[str, Any]) -> None:
    if "random_state" in arguments:
        arguments["random_state"] = check_random_state(arguments["random_state"])


def validated_pair(factors: Any, codes: Any) -> tuple[Any, Any]:
    """:func:`metrics.validation.check_pair`, once per pair of objects and contents in a scope (every metric of a draw,
    and its permutation nulls, get the same read-only views, which the shared estimates are keyed by; an array modified
    in place since gets new ones, :func:`metrics.shared.content_fingerprint`); a declared row permutation of validated
    codes (a permutation null's) is valid as it is."""
    origin = row_permutation(codes)
    if origin is None:
        return memoised("validated", (factors, codes), content_fingerprint((factors, codes)),
                        lambda: check_pair(factors, codes), private_copy=False)
    base = origin[0]
    return memoised("validated", (factors, base), content_fingerprint((factors, base)),
                    lambda: check_pair(factors, base), private_copy=False)[0], codes


def representation_entry(
    function: Callable[..., Any], name: str, options: Mapping[str, Any], rules: Mapping[str, Rule]
) -> Callable[..., Any]:
    """The validating entry of a single-representation metric ``function(factors, codes, **options)``.

    The entry checks option names and the values ``rules`` declares (:func:`metrics.constraints.check_options`), validates ``factors`` and ``codes``
    (:func:`metrics.validation.check_pair`; reused for the same objects inside
    :func:`metrics.shared_estimates`), normalises ``discrete`` to one flag per factor and
    checks ``random_state``.  It always takes ``discrete`` (as :class:`metrics.MetricSpec`
    states and :func:`metrics.evaluate` passes it): a function without that parameter
    gets the flags checked and not passed.  It keeps the function's name, docstring and
    signature (:func:`functools.wraps`).  The call runs inside a
    :func:`metrics.shared_estimates` scope (the enclosing one, or its own), so validation
    and binning share one min/max pass per matrix (:func:`metrics._columns.column_range`).
    """
    call_arguments = tuple(argument for argument in CALL_ARGUMENTS if accepts(function, argument))

    @functools.wraps(function)
    def entry(factors: Any, codes: Any, **arguments: Any) -> Any:
        check_option_names(name, arguments, options, (*call_arguments, "discrete"))
        check_options(name, arguments, rules)
        with shared_estimates(one_call=True):
            factor_matrix, code_matrix = validated_pair(factors, codes)
            flags = check_discrete(arguments.pop("discrete", None), factor_matrix.shape[1])
            if "discrete" in call_arguments:
                arguments["discrete"] = flags
            _check_seed(arguments)
            with unchanged_inputs(name):
                return function(factor_matrix, code_matrix, **arguments)

    return entry


def population_entry(
    function: Callable[..., Any], name: str, options: Mapping[str, Any], rules: Mapping[str, Rule]
) -> Callable[..., Any]:
    """The validating entry of a population metric ``function(population, **options)`` (UDR).

    Checks option names and the values ``rules`` declares, the population (:func:`metrics.validation.check_population`)
    and ``random_state``, then runs the metric on the validated members.
    """
    call_arguments = tuple(argument for argument in ("random_state",) if accepts(function, argument))

    @functools.wraps(function)
    def entry(population: Any, **arguments: Any) -> Any:
        check_option_names(name, arguments, options, call_arguments)
        check_options(name, arguments, rules)
        members = check_population(population)
        _check_seed(arguments)
        with unchanged_inputs(name):
            return function(members, **arguments)

    return entry
