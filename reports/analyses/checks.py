"""The verdict object: statistics compared with thresholds, decided unrounded, with an interval where there is one.

A :class:`Check` is one statistic against one threshold; its mark is ``yes`` or ``no``, or
``undecided`` when it carries an interval that straddles the threshold, or one that lies on the failing
side while its interval widened for the checks pooled with it does not (:attr:`Check.widened`: a
verdict fails when any of its checks does, so a failure is read at a stricter level).  A :class:`Verdict` is what
one sub-score (or one metric, pooled) gets for one characteristic: the checks that decided it and a
mark, or, when nothing could be judged, a mark saying why (``n/a``, ``unmeasured``, ``absent``) with
its evidence.  Every table of the reports prints verdicts through these objects.

A verdict is computed from the unrounded number, and the text shows enough digits for a reader to
see why: 0.8987 against ">= 0.9" is printed 0.899, not 0.90.  A statistic that cannot be computed
(the R² of a constant score is 0/0) is ``undefined``, shown with its reason, and fails its check.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: How an undefined statistic is shown.
UNDEFINED = "undefined"
#: Most decimals :func:`format_against` will print.
MAX_DIGITS = 6
_COMPARISONS = {">=": "≥", "<=": "≤"}
#: The marks of a judged verdict, worst first.
JUDGED = ("no", "undecided", "yes")
#: The marks of a verdict nothing could judge: the characteristic does not apply to the score, the
#: results do not measure it, or the metric has no sub-score for it.
UNJUDGED = ("n/a", "unmeasured", "absent")


def holds(value: float, comparison: str, threshold: float) -> bool:
    """Whether ``value`` passes ``comparison`` (``>=`` or ``<=``) against ``threshold``."""
    return value >= threshold if comparison == ">=" else value <= threshold


def format_against(value: float, comparison: str, threshold: float, digits: int = 2) -> str:
    """``value`` with the fewest decimals (at least ``digits``) whose rounding keeps its verdict, and keeps it off the
    threshold unless it lies on it: an interval's end of 0.098 against ``<= 0.1`` is ``0.098``, not ``0.10``, which
    read as the threshold itself (``1.00 / 0.11 [0.10, 0.12]`` looked wholly above 0.1 and was undecided).

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
    truth = holds(value, comparison, threshold)
    for decimals in range(digits, MAX_DIGITS + 1):
        shown = round(value, decimals) + 0.0
        if holds(shown, comparison, threshold) == truth and (shown != threshold or value == threshold):
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
    interval : (float, float) or None
        A confidence interval (low, high) of the value, where there is one: its two ends on
        different sides of the threshold make the check undecided.
    label : str
        What precedes the value in a verdict's text (``"ρ "``).
    joiner : str
        What separates it from the check before it in a verdict's text (``", "``, ``"; "``, ``" / "``).
    where : str
        Which sub-score and scenario gave the value, as the evidence says it.
    at : tuple of str
        The same as fields (sub-score, scenario, value), for the roll-ups' "Worst at".
    position : int
        The deciding row's position in its analysis's table: of two equally bad checks of one
        statistic, the first decides (as the first of a table's equal minima does).
    seeds : int
        How many seeds the deciding row's statistic was computed from (0: not known).
    widened : (float, float) or None
        The interval at the stricter level a failure is read at, widened for the ``pooled`` checks a verdict
        of its metric pools (:mod:`reports.verdicts.verdict_table`); None: no failure is read from it (``interval``
        decides both ways).  Where ``interval`` lies on the failing side, the check fails only when this one
        does too, and is undecided otherwise.
    pooled : int
        How many checks ``widened`` was widened for (1: not widened).
    """

    statistic: str
    value: float
    comparison: str
    threshold: float
    reason: str = ""
    digits: int = 2
    interval: tuple[float, float] | None = None
    label: str = ""
    joiner: str = ", "
    where: str = ""
    at: tuple[str, ...] = ()
    position: int = 0
    seeds: int = 0
    widened: tuple[float, float] | None = None
    pooled: int = 1

    @property
    def defined(self) -> bool:
        """Whether the statistic has a finite value."""
        return math.isfinite(self.value)

    @staticmethod
    def _finite(interval: tuple[float, float] | None) -> tuple[float, float] | None:
        """``interval`` when both its ends are finite (an interval of undefined ends says nothing), else None."""
        if interval is None or not all(math.isfinite(end) for end in interval):
            return None
        return interval

    @property
    def _interval(self) -> tuple[float, float] | None:
        """The interval when both its ends are finite."""
        return self._finite(self.interval)

    def _fails_by(self, interval: tuple[float, float]) -> bool:
        return not any(holds(end, self.comparison, self.threshold) for end in interval)

    @property
    def _failing_read(self) -> bool:
        """Whether the failing side is read from :attr:`widened`: the interval lies on it and a widened one exists."""
        return (self._interval is not None and self._finite(self.widened) is not None
                and self._fails_by(self._interval))

    @property
    def mark(self) -> str:
        """``yes``, ``no`` or ``undecided``: by the value, or by the interval's two ends where there is one
        (``undecided`` when they lie on different sides of the threshold); where the interval lies on the failing
        side, ``no`` only when :attr:`widened` does too (``undecided`` otherwise); an undefined value fails."""
        if not self.defined:
            return "no"
        ends = (self.value,) if self._interval is None else self._interval
        sides = {holds(end, self.comparison, self.threshold) for end in ends}
        if len(sides) == 2:
            return "undecided"
        if sides == {True}:
            return "yes"
        return "undecided" if self._failing_read and not self._fails_by(self.widened) else "no"

    @property
    def shown_interval(self) -> tuple[float, float] | None:
        """The interval that decided the mark: :attr:`widened` where the failing side is read from it, else
        :attr:`interval`."""
        return self.widened if self._failing_read else self.interval

    @property
    def shown_pooled(self) -> int:
        """How many checks :attr:`shown_interval` was widened for (1: the study's level)."""
        return self.pooled if self._failing_read else 1

    @property
    def passed(self) -> bool:
        """Whether the check is decided and passes."""
        return self.mark == "yes"

    @property
    def margin(self) -> float:
        """Signed distance to the threshold, positive when passing (NaN when undefined)."""
        if not self.defined:
            return math.nan
        return self.value - self.threshold if self.comparison == ">=" else self.threshold - self.value

    def severity(self) -> tuple[int, bool, float]:
        """Sort key, smallest closest to failing: the mark (no, undecided, yes), then undefined before
        defined, then the margin relative to the threshold's scale."""
        relative = self.margin / max(abs(self.threshold), 1e-12) if self.defined else 0.0
        return (JUDGED.index(self.mark), self.defined, relative)

    def value_text(self) -> str:
        """The value, with enough decimals (at least ``digits``) to keep its verdict, or ``undefined (reason)``;
        its interval follows in brackets where there is one and it is wider than the printed digits
        (``0.91 [0.88, 0.94]``): :attr:`shown_interval`, the one that decided the mark."""
        if not self.defined:
            return f"{UNDEFINED} ({self.reason})" if self.reason else UNDEFINED
        text = format_against(self.value, self.comparison, self.threshold, self.digits)
        shown = self._finite(self.shown_interval)
        if shown is not None:
            low, high = (format_against(end, self.comparison, self.threshold, self.digits) for end in shown)
            if (low, high) != (text, text):  # an interval of no width at the printed digits says nothing more
                text += f" [{low}, {high}]"
        return text

    def rule_text(self) -> str:
        """The rule, e.g. ``R² ≥ 0.9``."""
        return f"{self.statistic} {_COMPARISONS[self.comparison]} {self.threshold:g}"


def worst(checks: Sequence[Check]) -> Check:
    """The check closest to failing (:meth:`Check.severity`; of equals, the first)."""
    if not checks:
        raise ValueError("checks must not be empty")
    return min(checks, key=Check.severity)


def _joined(texts: Sequence[str], checks: Sequence[Check]) -> str:
    return texts[0] + "".join(check.joiner + text for check, text in zip(checks[1:], texts[1:]))


def _by_statistic(checks: Sequence[Check]) -> list[list[Check]]:
    """``checks`` grouped by statistic, in order of first appearance: a statistic checked on both sides (calibration's
    random score, at most one threshold and at least another) is one group, the other groups one check each."""
    groups: dict[str, list[Check]] = {}
    for check in checks:
        groups.setdefault(check.statistic, []).append(check)
    return list(groups.values())


def _range_text(group: Sequence[Check]) -> str:
    """The rule of one statistic's checks: ``R² ≥ 0.9``, or for both sides ``-0.1 ≤ random ≤ 0.1``."""
    if len(group) == 1:
        return group[0].rule_text()
    floor = next(check for check in group if check.comparison == ">=")
    ceiling = next(check for check in group if check.comparison == "<=")
    return f"{floor.threshold:g} ≤ {floor.statistic} ≤ {ceiling.threshold:g}"


@dataclass(frozen=True)
class Verdict:
    """What a score gets for one characteristic.

    Attributes
    ----------
    mark : str
        One of :data:`JUDGED` (decided by ``checks``: ``no`` when one fails, ``undecided`` when none
        fails and one is undecided, else ``yes``) or of :data:`UNJUDGED`.
    checks : tuple of Check
        The checks that decided it, in the characteristic's order (empty when unjudged).
    evidence : str
        Why it is unjudged (empty when judged: the checks say where they were decided).
    """

    mark: str
    checks: tuple[Check, ...] = ()
    evidence: str = ""

    @classmethod
    def of(cls, checks: Sequence[Check]) -> Verdict:
        """The verdict of ``checks`` (at least one)."""
        if not checks:
            raise ValueError("a judged verdict needs at least one check")
        return cls(worst(checks).mark, tuple(checks))

    @property
    def judged(self) -> bool:
        """Whether checks decided it."""
        return bool(self.checks)

    @property
    def decisive(self) -> Check | None:
        """The check closest to failing (None when unjudged)."""
        return worst(self.checks) if self.checks else None

    def severity(self) -> tuple[int, bool, float]:
        """:meth:`Check.severity` of the decisive check (an unjudged verdict has none)."""
        if not self.checks:
            raise ValueError(f"a verdict marked {self.mark!r} has no checks to rank")
        return worst(self.checks).severity()

    def statistics(self) -> list[tuple[str, Check]]:
        """Each statistic's rule (``ρ ≥ 0.8``; ``-0.1 ≤ random ≤ 0.1`` for one checked on both sides) and its check
        closest to failing, in order: what a table shows of the verdict, one column per statistic."""
        return [(_range_text(group), worst(group)) for group in _by_statistic(self.checks)]

    def number_text(self) -> str:
        """Every deciding value with its label (``ρ 0.88, slope 1.29``), a statistic checked on both sides once (the
        side closer to failing); empty when unjudged."""
        shown = [check for _, check in self.statistics()]
        return _joined([check.label + check.value_text() for check in shown], shown) if shown else ""

    def threshold_text(self) -> str:
        """Every rule of :meth:`statistics` (``ρ ≥ 0.8, slope ≥ 0.5``); empty when unjudged."""
        shown = self.statistics()
        return _joined([rule for rule, _ in shown], [check for _, check in shown]) if shown else ""

    def evidence_text(self) -> str:
        """Where each statistic was decided (a two-sided one: on its side closer to failing), or why the verdict is
        unjudged."""
        if not self.checks:
            return self.evidence
        return "; ".join(check.where for _, check in self.statistics() if check.where)

    def record(self) -> dict[str, object]:
        """The verdict as a tidy row's columns: ``verdict``, ``passed`` (True or False once decided, NaN
        otherwise), the decisive check's ``statistic``, ``value``, ``comparison``, ``limit``, ``margin``,
        ``interval_low`` and ``interval_high`` (:attr:`Check.shown_interval`; NaN without an interval), ``pooled``
        (how many checks that interval was widened for: :attr:`Check.shown_pooled`), ``seeds`` (how many seeds its
        value was computed from; 0 when not known), and as text ``number``, ``threshold`` and ``evidence``."""
        decisive = self.decisive
        shown = decisive.shown_interval if decisive is not None else None
        interval = shown if shown is not None else (math.nan, math.nan)
        return {
            "verdict": self.mark,
            "passed": {"yes": True, "no": False}.get(self.mark, math.nan),
            "statistic": decisive.statistic if decisive else "",
            "value": decisive.value if decisive else math.nan,
            "comparison": decisive.comparison if decisive else "",
            "limit": decisive.threshold if decisive else math.nan,
            "margin": decisive.margin if decisive else math.nan,
            "interval_low": float(interval[0]),
            "interval_high": float(interval[1]),
            "pooled": decisive.shown_pooled if decisive else 1,
            "seeds": decisive.seeds if decisive else 0,
            "number": self.number_text(),
            "threshold": self.threshold_text(),
            "evidence": self.evidence_text(),
        }


def pool_scores(verdicts: Sequence[Verdict], statistics: Sequence[str], unmeasured: str) -> Verdict:
    """One characteristic's verdicts of several sub-scores as one (a metric's): each statistic's worst check.

    Every judged sub-score must pass; each statistic of ``statistics`` (in that order) shows its worst
    value over the judged sub-scores on each side it is checked on (of equals, the first row of the analysis's
    table).  When none is judged: their common mark, or ``unmeasured`` with ``unmeasured`` as evidence when their
    marks differ.
    """
    judged = [verdict for verdict in verdicts if verdict.judged]
    if not judged:
        marks = {verdict.mark for verdict in verdicts}
        return verdicts[0] if len(marks) == 1 else Verdict("unmeasured", evidence=unmeasured)
    checks = []
    for statistic in statistics:
        found = sorted((check for verdict in judged for check in verdict.checks if check.statistic == statistic),
                       key=lambda check: check.position)
        for comparison in dict.fromkeys(check.comparison for check in found):
            checks.append(worst([check for check in found if check.comparison == comparison]))
    return Verdict.of(checks)


def pool_characteristics(verdicts: Sequence[Verdict]) -> Verdict:
    """Several characteristics' verdicts of one score as one (the headline's Robust column): the judged ones
    must all pass, and the one closest to failing is shown.  When none is judged: ``n/a`` when every one is,
    else ``unmeasured``, with every evidence."""
    judged = [verdict for verdict in verdicts if verdict.judged]
    if judged:
        return min(judged, key=Verdict.severity)
    marks = {verdict.mark for verdict in verdicts}
    return Verdict("n/a" if marks == {"n/a"} else "unmeasured",
                   evidence="; ".join(verdict.evidence for verdict in verdicts if verdict.evidence))
