"""One verdict rule for every table: a statistic compared with a threshold, decided unrounded.

A verdict is computed from the unrounded number, and the text shows enough digits for
a reader to see why: 0.8987 against ">= 0.9" is printed 0.899, not 0.90.  A statistic
that cannot be computed (the R² of a constant score is 0/0) is ``undefined``, shown
with its reason, and fails its check.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: How an undefined statistic is shown.
UNDEFINED = "undefined"
#: Most decimals :func:`format_against` will print.
MAX_DIGITS = 6
_COMPARISONS = {">=": "≥", "<=": "≤"}


def _holds(value: float, comparison: str, threshold: float) -> bool:
    return value >= threshold if comparison == ">=" else value <= threshold


def format_against(value: float, comparison: str, threshold: float, digits: int = 2) -> str:
    """``value`` with the fewest decimals (at least ``digits``) whose rounding keeps its verdict.

    Parameters
    ----------
    value : float
        The unrounded statistic.
    comparison : {">=", "<="}
        How it is compared with ``threshold``.
    threshold : float
        The threshold.
    digits : int, default 2
        Decimals to start from.

    Returns
    -------
    str
        ``"0.899"`` for 0.8987 against ``>= 0.9``; ``"0.0504"`` for 0.0504 against
        ``<= 0.05``; :data:`UNDEFINED` for NaN.
    """
    if comparison not in _COMPARISONS:
        raise ValueError(f"comparison must be '>=' or '<=', got {comparison!r}")
    if not math.isfinite(value):
        return UNDEFINED
    truth = _holds(value, comparison, threshold)
    for decimals in range(digits, MAX_DIGITS + 1):
        shown = round(value, decimals) + 0.0
        if _holds(shown, comparison, threshold) == truth:
            return f"{shown:.{decimals}f}"
    return f"{value:.{MAX_DIGITS + 2}g}"


@dataclass(frozen=True)
class Check:
    """A statistic against a threshold.

    Attributes
    ----------
    statistic : str
        What is compared (``"R²"``, ``"perfect"``, ...).
    value : float
        The unrounded value; NaN when undefined.
    comparison : {">=", "<="}
        The passing side.
    threshold : float
        The threshold.
    reason : str
        Why the value is undefined (empty when it is defined).
    digits : int
        Fewest decimals printed.
    """

    statistic: str
    value: float
    comparison: str
    threshold: float
    reason: str = ""
    digits: int = 2

    @property
    def defined(self) -> bool:
        """Whether the statistic has a finite value."""
        return math.isfinite(self.value)

    @property
    def passed(self) -> bool:
        """Whether the unrounded value is on the passing side (an undefined value fails)."""
        return self.defined and _holds(self.value, self.comparison, self.threshold)

    @property
    def margin(self) -> float:
        """Signed distance to the threshold, positive when passing (NaN when undefined)."""
        if not self.defined:
            return math.nan
        return self.value - self.threshold if self.comparison == ">=" else self.threshold - self.value

    def value_text(self) -> str:
        """The value, with enough decimals (at least ``digits``) to keep its verdict, or ``undefined (reason)``."""
        if not self.defined:
            return f"{UNDEFINED} ({self.reason})" if self.reason else UNDEFINED
        return format_against(self.value, self.comparison, self.threshold, self.digits)

    def rule_text(self) -> str:
        """The rule, e.g. ``R² ≥ 0.9``."""
        return f"{self.statistic} {_COMPARISONS[self.comparison]} {self.threshold:g}"


def worst(checks: list[Check]) -> Check:
    """The check closest to failing (an undefined one first, then the smallest margin, relative to the threshold scale)."""
    if not checks:
        raise ValueError("checks must not be empty")
    return min(checks, key=lambda check: (check.defined, check.margin / max(abs(check.threshold), 1e-12)
                                          if check.defined else 0.0))
