"""Every analysis of a results table, run once: what the verdicts, the sections and the report card read.

A :class:`Bundle` holds the checked results table (option-sweep variants included) and, computed on
first use and kept, each analysis of :mod:`reports`: calibration, linearity, robustness (every
condition, entanglement attacks included), sample efficiency, cost, agreement, option sensitivity (and
how far binning, and how many options, move each metric), and the table of verdicts
(:func:`reports.verdicts.verdict_table.verdict_table`).  An analysis the results cannot support is kept as the reason it
could not run (:class:`Analysis`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from reports.analyses.agreement import agreement
from reports.analyses.calibration import leveled_calibration
from reports.analyses.chance import chance_levels
from reports.analyses.cost import cost, cost_by_n
from reports.analyses.hyperparameters import discretization, hyperparameters, leveled_option_spreads
from reports.analyses.intervals import Leveled, looks_by_metric
from reports.analyses.linearity import leveled_linearity
from reports.analyses.robustness import leveled_robustness
from reports.analyses.sample_efficiency import sample_efficiency
from reports.analyses.sensitivity import leveled_option_sensitivity, on_default_options, sweep_looks
from reports.analyses.thresholds import Thresholds
from reports.results.schema import LOOKS_COLUMN
from reports.results.table import MissingDataError, check_results, scenarios_testing
from reports.verdicts import verdict_table as verdicts


@dataclass(frozen=True)
class Analysis:
    """An analysis's table, or why the results could not support it."""

    table: pd.DataFrame | None
    missing: str = ""

    @property
    def frame(self) -> pd.DataFrame:
        """The table, or an empty one when the analysis could not run."""
        return self.table if self.table is not None else pd.DataFrame()

    def required(self) -> pd.DataFrame:
        """The table; :class:`reports.MissingDataError` with the reason when the analysis could not run."""
        if self.table is None:
            raise MissingDataError(self.missing)
        return self.table


def _supported(compute: Callable[[], Leveled | Analysis]) -> Leveled | Analysis:
    """What ``compute`` gives, or (an :class:`Analysis` of) why the results could not support it."""
    try:
        return compute()
    except MissingDataError as missing:
        return Analysis(None, str(missing))


def _run(analysis: Callable[..., pd.DataFrame], results: pd.DataFrame, **options) -> Analysis:
    return _supported(lambda: Analysis(analysis(results, **options)))


def _of_judged(analysis: Callable[..., Leveled]) -> Callable[[Bundle], Leveled | Analysis]:
    """A Bundle -> ``analysis`` of its judged results at its thresholds, or why the results could not support it."""
    return lambda bundle: _supported(lambda: analysis(bundle.judged, thresholds=bundle.thresholds))


def _sensitivity(bundle: Bundle) -> Leveled:
    """The leveled option sensitivity of a Bundle's results, variants and all."""
    return leveled_option_sensitivity(bundle.results, thresholds=bundle.thresholds)


def _option_spreads(bundle: Bundle) -> Leveled:
    """The leveled option spreads of a Bundle's results, reading its sensitivity's rows of the metrics swept over one
    option."""
    sensitivity = bundle._leveled_of("sensitivity", _sensitivity)
    return leveled_option_spreads(bundle.results, thresholds=bundle.thresholds, sensitivity=sensitivity)


def _sweep_looks(bundle: Bundle) -> dict[str, int]:
    """The looks a Bundle's option sweeps are read at (:func:`reports.analyses.sensitivity.sweep_looks`)."""
    return sweep_looks(bundle.results)


class Bundle:
    """The analyses and verdicts of one results table, each computed once.

    Parameters
    ----------
    results : pandas.DataFrame
        A results table (validated here, see :func:`reports.check_results`).
    thresholds : reports.analyses.thresholds.Thresholds, optional
        The thresholds of the analyses, the verdicts and the report's sentences.

    Attributes
    ----------
    results : pandas.DataFrame
        The checked table, every option-sweep variant included (the sensitivity reads them).
    judged : pandas.DataFrame
        The table as every other analysis reads it: each swept metric at its default options
        (:func:`reports.analyses.sensitivity.on_default_options`).
    """

    def __init__(self, results: pd.DataFrame, thresholds: Thresholds = Thresholds()) -> None:
        self.results = check_results(results)
        self.thresholds = thresholds
        # without attributes (the columns check_results filled, which only the report reads, from results): pandas
        # deep-copies a frame's attrs into every frame derived from it, in every analysis
        self.judged = on_default_options(self.results).copy(deep=False)
        self.judged.attrs = {}
        #: The Bundle whose analyses this one reads at its own looks (:attr:`failing`), or None.
        self._base: Bundle | None = None
        self._leveled: dict[str, Leveled | Analysis] = {}

    def _leveled_of(self, name: str, analysis: Callable[[Bundle], Leveled | Analysis]) -> Leveled | Analysis:
        """The analysis ``name`` (``analysis`` of a Bundle: a :class:`reports.analyses.intervals.Leveled` table, or why
        the results could not support it) of this Bundle, or of the one it widens, computed once for both."""
        source = self._base or self
        if name not in source._leveled:
            source._leveled[name] = analysis(source)
        return source._leveled[name]

    def _at_looks(self, name: str, analysis: Callable[[Bundle], Leveled | Analysis],
                  looks: Callable[[Bundle], dict[str, int]] = lambda bundle: looks_by_metric(bundle.judged)) -> Analysis:
        """:meth:`_leveled_of`'s analysis at this Bundle's ``looks``: a :attr:`failing` Bundle reads its base's with the
        intervals at its own (the same table as computing it again, bit for bit; ``tests/reports/test_thresholds.py``).
        ``looks`` gives each metric's looks over all its rows; an analysis reading some of them took the most of
        those, the same where a metric's rows share their looks (every table the harness writes): in a table joined
        from studies of other looks, the failing side is read at the stricter level of the two."""
        leveled = self._leveled_of(name, analysis)
        if isinstance(leveled, Analysis):  # the results could not support it
            return leveled
        return Analysis(leveled.at(looks(self)) if self._base is not None else leveled.table)

    @cached_property
    def calibration(self) -> Analysis:
        """:func:`reports.analyses.calibration.calibration` at the thresholds."""
        return self._at_looks("calibration", _of_judged(leveled_calibration))

    @cached_property
    def linearity(self) -> Analysis:
        """:func:`reports.analyses.linearity.linearity` of every scenario whose ideal varies."""
        return self._at_looks("linearity", _of_judged(leveled_linearity))

    @cached_property
    def verdict_linearity(self) -> Analysis:
        """The fits the verdicts read: :attr:`linearity` without the scenarios testing entanglement attacks,
        which have a characteristic of their own (the property columns follow the review's experiments)."""
        if self.linearity.table is None:
            return self.linearity
        lines = self.linearity.table
        return Analysis(lines.loc[~lines["scenario"].isin(scenarios_testing(self.judged, "attacks"))])

    @cached_property
    def robustness(self) -> Analysis:
        """:func:`reports.analyses.robustness.robustness` under every condition (split by
        :func:`reports.analyses.robustness.of_conditions`)."""
        return self._at_looks("robustness", _of_judged(leveled_robustness))

    @cached_property
    def efficiency(self) -> Analysis:
        """:func:`reports.analyses.sample_efficiency.sample_efficiency`."""
        return _run(sample_efficiency, self.judged)

    @cached_property
    def cost(self) -> Analysis:
        """:func:`reports.analyses.cost.cost`: each metric's median seconds per call."""
        return _run(cost, self.judged)

    @cached_property
    def cost_by_n(self) -> pd.DataFrame:
        """:func:`reports.analyses.cost.cost_by_n`: each metric's median seconds per call at each sample size (the cost
        figure's lines)."""
        return cost_by_n(self.judged)

    @cached_property
    def chance(self) -> Analysis:
        """:func:`reports.analyses.chance.chance_levels`: each sub-score's chance level on the scenarios testing chance (what
        the chance section and its figures both read)."""
        return _run(chance_levels, self.judged)

    @cached_property
    def agreement(self) -> Analysis:
        """:func:`reports.analyses.agreement.agreement` between every pair of sub-scores."""
        return _run(agreement, self.judged)

    @cached_property
    def sensitivity(self) -> Analysis:
        """:func:`reports.analyses.sensitivity.option_sensitivity` of the option sweeps (empty without one)."""
        return self._at_looks("sensitivity", _sensitivity, _sweep_looks)

    @cached_property
    def option_spreads(self) -> pd.DataFrame:
        """:func:`reports.analyses.hyperparameters.option_spreads`: each swept option's spread, what :attr:`discretization`
        and :attr:`hyperparameters` both read; a metric swept over one option has its rows of :attr:`sensitivity`."""
        return self._at_looks("option_spreads", _option_spreads, _sweep_looks).required()

    @cached_property
    def discretization(self) -> Analysis:
        """:func:`reports.analyses.hyperparameters.discretization`: how far a metric's binning moves it (empty without one)."""
        return Analysis(discretization(self.results, thresholds=self.thresholds, spreads=self.option_spreads))

    @cached_property
    def hyperparameters(self) -> Analysis:
        """:func:`reports.analyses.hyperparameters.hyperparameters`: how many swept options move each metric (empty without
        a sweep)."""
        return Analysis(hyperparameters(self.results, thresholds=self.thresholds, spreads=self.option_spreads))

    @cached_property
    def pooled_checks(self) -> dict[str, int]:
        """:func:`reports.verdicts.verdict_table.pooled_checks`: per metric, the most checks one of its verdicts pools."""
        return verdicts.pooled_checks(self)

    @cached_property
    def failing(self) -> Bundle:
        """The analyses a failure is read from: those of the results with each metric's ``looks`` multiplied by
        :attr:`pooled_checks` (its variants' too: the sweeps' verdicts are their base's), so that its intervals are
        at level ``1 − 0.05 / (looks · m)`` (:mod:`reports.analyses.intervals`).  This bundle itself where every
        metric's verdicts pool one check each.  The calibration, linearity, robustness and the option sweeps' analyses
        are this Bundle's with their intervals, and what they decide, at those looks
        (:class:`reports.analyses.intervals.Leveled`: the same tables as computing them again, which took 3.1 CPU-s on
        the default study, 0.5 read this way); the sample efficiency is computed again when a verdict first reads it."""
        pooled = self.pooled_checks
        results = self.results
        factors = np.maximum(*(results[column].map(pooled).fillna(1).to_numpy(dtype=np.int64)
                               for column in ("metric", "metric_base")))
        if factors.max(initial=1) == 1:
            return self
        widened = Bundle(results.assign(looks=results[LOOKS_COLUMN].to_numpy() * factors), self.thresholds)
        widened._base = self
        return widened

    @cached_property
    def verdicts(self) -> pd.DataFrame:
        """One :class:`reports.analyses.checks.Verdict` per metric x sub-score x characteristic
        (:func:`reports.verdicts.verdict_table.verdict_table`)."""
        return verdicts.verdict_table(self)

    @cached_property
    def metric_verdicts(self) -> pd.DataFrame:
        """Per metric and characteristic, its sub-scores' verdicts pooled (:func:`reports.verdicts.verdict_table.matrix_verdicts`)."""
        return verdicts.matrix_verdicts(self)

    @cached_property
    def criterion_verdicts(self) -> pd.DataFrame:
        """Per metric and headline column, its verdict (:func:`reports.verdicts.verdict_table.criterion_verdicts`)."""
        return verdicts.criterion_verdicts(self)


#: The last results table :func:`bundle_of` was given (by the digest of its content and the thresholds) and its
#: :class:`Bundle`.
_LAST: dict[str, Bundle] = {}


def bundle_of(results: pd.DataFrame, thresholds: Thresholds = Thresholds()) -> Bundle:
    """The :class:`Bundle` of ``results`` at ``thresholds``, computed once per content: the last one is kept,
    keyed by a digest of the table's columns, types, index and values (and the columns its loader filled in) and of the
    thresholds, so that a racing study's last look (:func:`harness.execution.racing.undecided_groups`) and the report
    drawn after it (:func:`reports.report.write_report`), or the views a report card reads one after another
    (:func:`bundle_for`), share their analyses (about 7 CPU-s of the default study's report) and a table changed in any
    value, however slightly, gets a Bundle of its own.  A table whose content cannot be hashed gets a new Bundle, not
    kept."""
    try:
        rows = pd.util.hash_pandas_object(results, index=True).to_numpy()
    except TypeError:  # an unhashable cell (a list): nothing to key the Bundle by
        return Bundle(results, thresholds)
    # the columns and types, the one attribute check_results reads (the columns a loader filled in), the thresholds
    layout = repr(([(str(column), str(dtype)) for column, dtype in results.dtypes.items()],
                   sorted(results.attrs.get("filled_columns", ())), thresholds)).encode()
    digest = hashlib.sha256(layout + rows.tobytes()).hexdigest()
    if digest not in _LAST:
        _LAST.clear()
        _LAST[digest] = Bundle(results, thresholds)
    return _LAST[digest]


def bundle_for(results: pd.DataFrame | Bundle, thresholds: Thresholds = Thresholds()) -> Bundle:
    """``results`` itself when it is a :class:`Bundle` (judged at its own thresholds), else :func:`bundle_of` of the
    table at ``thresholds``: what every view of the verdicts (the property matrix, the headline, the report card's
    parts) reads, so that views of one table computed one after another share one set of analyses."""
    return results if isinstance(results, Bundle) else bundle_of(results, thresholds)
