"""Metric options written as text: a value as typed (``--metric-option mig:bins=5``) and a variant's label as the results
name it (``mig[bins=5,estimator=knn]``), read back into values.

Light on purpose (the standard library only): the command line's start imports it.
"""

from __future__ import annotations

import json
from typing import Any

from harness.errors import UsageError


def option_value(text: str) -> Any:
    """An option value as typed: a JSON number, ``true``/``false``/``null`` (or ``True``/``False``/``None``), or text."""
    words = {"True": True, "False": False, "None": None}
    if text in words:
        return words[text]
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: brackets nested deeper than the parser allows
        return text
    if isinstance(value, float):
        return value + 0.0  # -0.0 is 0.0, the same value
    return value if isinstance(value, (int, bool, type(None))) else text


def variant_label(reference: str) -> tuple[str, dict[str, Any]] | None:
    """``(metric, {option: value})`` of a variant's label such as ``mig[bins=5,estimator=knn]``, as an option sweep
    names its variants in the results; None for a reference without brackets.

    Raises
    ------
    harness.errors.UsageError
        For brackets that do not hold ``OPTION=VALUE`` pairs, or an option given twice.
    """
    base, bracket, rest = reference.partition("[")
    if not bracket:
        return None
    pairs = rest[:-1].split(",") if rest.endswith("]") else []
    options: dict[str, Any] = {}
    for pair in pairs:
        option, equals, text = (part.strip() for part in pair.partition("="))
        if not (equals and option and text) or option in options:
            options = {}
            break
        options[option] = option_value(text)
    if not base.strip() or not options:
        raise UsageError(f"{reference!r}: expected METRIC[OPTION=VALUE,...], as the results name a variant "
                         "(mig[bins=5], rmig[bins=10,estimator=knn]), each option once")
    return base.strip(), options
