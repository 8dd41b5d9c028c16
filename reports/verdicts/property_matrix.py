"""The property matrix: the review's Table 2 regenerated from measurements.

Zaidi et al. (2022), Table 2 and section 6.2: "For a metric to possess a characteristic
(✓), it has to be true by design and not disproven experimentally."  Here every ✓ or ✗
is decided by a number measured in the results and a threshold, and both are reported
next to the verdict.  The characteristics are the declarative entries of
:data:`reports.verdicts.characteristics.CHARACTERISTICS`; the matrix is a view of the verdict
table (:mod:`reports.verdicts.verdict_table`), pooling each metric's sub-scores.  The review's columns
"Discretization-free" and "Few hyper-parameters" are measured from option sweeps
(:mod:`reports.analyses.sensitivity`) where the results hold them, and are "unmeasured"
otherwise: the review's asserted values are never copied in.  A swept metric's other
columns are judged on its variant at the default options
(:func:`reports.analyses.sensitivity.on_default_options`).
"""

from __future__ import annotations

import pandas as pd

from reports.analyses.thresholds import Thresholds
from reports.results.display import SYMBOLS
from reports.verdicts import characteristics
from reports.verdicts.bundle import Bundle, bundle_for
from reports.verdicts.characteristics import HEADINGS

#: Characteristic -> column heading, in the review's order, then the additions.
CHARACTERISTICS = HEADINGS
#: Columns of the tidy matrix.
COLUMNS = ["metric", "family", "characteristic", "verdict", "passed", "statistic", "value", "comparison", "limit",
           "margin", "interval_low", "interval_high", "number", "threshold", "evidence"]


def property_matrix(results: pd.DataFrame | Bundle, thresholds: Thresholds = Thresholds()) -> pd.DataFrame:
    """Every metric's characteristics, each with its verdict, deciding number and threshold.

    Characteristics and how they are decided (every threshold is a field of ``thresholds``):

    * **modularity / compactness / explicitness**: the metric measures property P when
      it has a sub-score for P (or a holistic one) and, in every scenario that
      degrades P (see :func:`reports.analyses.linearity.linearity`), that score follows the
      ideal.  Where the ideal is a trajectory (at least
      :data:`reports.analyses.linearity.MIN_LEVELS` distinct values: mixing, noise, ...) the
      score must fall with it: Spearman's rho >= ``min_rank_correlation`` and affine
      slope >= ``min_slope`` (it spans at least that fraction of the ideal's range; a
      score stuck near 1, like Z-diff under mixing in the review's section 5.3,
      fails).  Where the scenario only compares a few levels (modular_not_compact,
      review section 5.4 and Table 1) the score must not overstate the property: its
      largest excess over the ideal is at most ``max_deviation`` (DCI-lasso's
      compactness of 1.0 for duplicated codes fails; MIG's 0.0, which understates
      it, passes, as in the review's Table 2).  No sub-score for P: verdict
      ``absent`` (the review's ✗).  The entanglement attacks, which also degrade
      modularity and compactness, are judged in their own column and left out here.
    * **calibrated**: every sub-score passes :func:`reports.analyses.calibration.calibration`.
    * **linear**: every sub-score's affine fit to its ideal trajectory (scenarios
      with at least ``MIN_LEVELS`` ideal values) has R² >= ``min_r2`` and slope >=
      ``min_linear_slope`` (a flat line is no linear response; a constant score has
      R² undefined and fails).
    * **robust to noise / non-measured factors / nonlinear relation, follows
      entanglement attacks**: in the scenarios declaring the criterion ``noise``
      (alpha <= 0.5; modularity and compactness only, ``n/a`` for other metrics),
      ``non_measured_factors``, ``nonlinearity`` and ``attacks``, every judged
      sub-score stays within ``max_deviation`` of its ideal
      (:func:`reports.analyses.robustness.robustness`).
    * **discretization-free / few hyper-parameters**: from option sweeps
      (:func:`reports.analyses.sensitivity.option_sensitivity`): the largest spread of any
      sub-score's mean over seeds across the values of ``bins`` is at most
      ``max_spread`` (discretization-free), and at most ``max_sensitive_options`` swept
      options move one by more (few hyper-parameters).  ``unmeasured`` when the
      results hold no such sweep of the metric.
    * **data efficient**: every sub-score's mean ``|score(n) - score(n_max)|`` at
      ``n = data_n`` is at most ``data_tolerance`` (review 5.7: "All metrics provide a
      fair estimate of the disentanglement score [with] 1k samples except ...").

    Parameters
    ----------
    results : pandas.DataFrame or reports.verdicts.bundle.Bundle
        A results table (validated by :func:`reports.check_results`), or the bundle of its
        analyses (whose thresholds are then used, not ``thresholds``).
    thresholds : reports.analyses.thresholds.Thresholds, optional
        The thresholds above (the defaults of :class:`reports.analyses.thresholds.Thresholds` when omitted).

    Returns
    -------
    pandas.DataFrame
        Tidy: one row per (metric, characteristic) with ``family``, ``verdict``
        (yes, no, undecided: an interval straddles its threshold, n/a, unmeasured: the
        results lack the scenario, absent: the metric has no sub-score for the property),
        ``passed`` (bool once decided, NaN otherwise), the numbers of the check closest to
        failing (``statistic``, ``value`` unrounded, NaN when undefined, ``comparison``,
        ``limit``, ``margin``: positive when passing, ``interval_low`` and
        ``interval_high``: its interval, NaN without one), and as text for display
        ``number`` (every deciding value, with enough digits to show its verdict),
        ``threshold`` and ``evidence`` (which sub-score and scenario decided).
        Lower-is-better sub-scores are judged as ``1 - score``.

    Notes
    -----
    A view of the verdict table (:func:`reports.verdicts.verdict_table.verdict_table`): each
    characteristic of each sub-score is judged once, and the metric's verdict pools its
    sub-scores' (every one must pass; each statistic shows its worst value).  Cost: runs
    the calibration, linearity, robustness, sample-efficiency and sensitivity analyses
    once (:class:`reports.verdicts.bundle.Bundle`).  Option-sweep variants (``mig[bins=5]``) are not rows of their
    own: a swept metric is one row, judged on its variant at the default options (see
    :func:`reports.analyses.sensitivity.on_default_options`), with the sweeps read by the two
    measured columns.
    """
    bundle = bundle_for(results, thresholds)
    records = [{"metric": metric, "family": family, "characteristic": key, **verdict.record()}
               for metric, family, key, verdict in bundle.metric_verdicts.itertuples(index=False)]
    return pd.DataFrame(records, columns=COLUMNS)


def property_matrix_display(table: pd.DataFrame, *, numbers: bool = True) -> pd.DataFrame:
    """The tidy matrix as a wide table of text: one row per metric, one column per characteristic.

    Each cell is the verdict's mark and, with ``numbers``, the numbers that decided it;
    without them (a paper's LaTeX table, which must fit a page's line) the mark alone.
    """
    cells = table.assign(cell=[f"{SYMBOLS[v]} {n if numbers else ''}".strip()
                               for v, n in zip(table["verdict"], table["number"])])
    headings = characteristics.headings()
    wide = cells.pivot(index=["metric", "family"], columns="characteristic", values="cell")
    wide = wide.reindex(columns=[c for c in headings if c in wide.columns])
    order = table[["metric", "family"]].drop_duplicates().apply(tuple, axis=1).tolist()
    wide = wide.reindex(order).rename(columns=headings).reset_index()
    return wide.rename(columns={"metric": "Metric", "family": "Family"})
