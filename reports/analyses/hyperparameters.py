"""The review's "Discretization-free" and "Few hyper-parameters" columns, measured from option sweeps.

Zaidi et al. (2022), section 3: "A metric should not be overly sensitive to hyper-parameter
configuration. [...] Examples of hyper-parameters include predictor parameters (e.g., regularization
weights), discretization granularity, batch size, and validation protocol. The best way to mitigate
hyper-parameter sensitivity is to reduce the number of parameters in the first place."  Its Table 2
counts them: the information metrics, whose one parameter is the binning, have few (✓) and are not
discretization-free (✗); the intervention metrics (bins, batch size, number of batches) and DCI with
random forests (tuned by cross-validation, section 6.2) have many.  The two columns are therefore judged
on different things here, and the binning is counted once in each:

* :func:`discretization` (Discretization-free): a metric whose options include no discretisation option
  (:data:`reports.analyses.sensitivity.DISCRETIZATION_OPTIONS`) is discretization-free by design (no binning can
  move it: spread 0); a binned metric is when a sweep of its bins, its other options at their defaults,
  moves no score by more than the spread threshold (the review marks every binned metric ✗ by design).
* :func:`hyperparameters` (Few hyper-parameters): how many of the metric's swept options move one of
  its scores by more than the spread threshold, each measured with the metric's other options at their
  defaults.  Few: at most ``max_sensitive_options`` of :class:`reports.analyses.thresholds.Thresholds` (one knob, as the
  review credits the binned
  information metrics with).  The parameters are counted as the review does, but only those that matter
  (an option that moves no score is no burden to set); options the results do not sweep are not counted,
  so a study must sweep each hyper-parameter of a metric (the presets do, for the review's metrics).

Both read each spread with its interval over seeds (``max_spread_low``, ``max_spread_high``: the largest mean spread's,
from the intervals of every two values' paired differences in every condition,
:func:`reports.analyses.sensitivity.option_sensitivity`), so that a spread whose interval straddles the
threshold leaves its verdict undecided, and a racing study adds seeds to the sweep's cells
(:func:`reports.verdicts.verdict_table.undecided_sources`): the count of options moving a metric has the interval
``[sensitive_options_low, sensitive_options_high]`` (the options whose spread is above the threshold at the interval's
low end, and at its high end).  An option moves a metric when it moves any of its sub-scores, so its spread is the
largest over the sub-scores too, and its low end is widened for all of them together (``option_spread_low``: each
sub-score's pairs of values are parts of one largest value, :func:`reports.analyses.intervals.largest_interval`);
read sub-score by sub-score, an option whose spreads all sat at the threshold was counted in up to ``K x 2.5%`` of
draws for ``K`` sub-scores.

What a metric's options are is read from its variants' ``default_options``, which name every option of
the metric with its default (:mod:`reports.results.schema`); a table written before they did names only the
options set, and then no metric is discretization-free by design (nothing says it has no other option).
"""

from __future__ import annotations

import pandas as pd

from reports.analyses import intervals
from reports.analyses.sensitivity import DISCRETIZATION_OPTIONS, SENSITIVITY_COLUMNS, leveled_option_sensitivity
from reports.analyses.thresholds import Thresholds
from reports.results.options import is_variant, off_defaults
from reports.results.schema import decode_options

#: Columns of :func:`hyperparameters`.
HYPERPARAMETER_COLUMNS = ("metric", "sub_score", "swept", "options_swept", "sensitive_options", "sensitive_options_low",
                          "sensitive_options_high", "straddling", "open_scenarios", "n_seeds", "sensitive",
                          "largest_option", "largest_spread", "threshold", "detail")
#: Columns of :func:`discretization`.
DISCRETIZATION_COLUMNS = ("metric", "sub_score", "route", "option", "values", "max_spread", "max_spread_low",
                          "max_spread_high", "n_seeds", "open_scenarios", "worst_condition", "threshold", "detail")


def option_spreads(results: pd.DataFrame, *, thresholds: Thresholds = Thresholds(),
                   sensitivity: intervals.Leveled | None = None) -> pd.DataFrame:
    """:func:`reports.analyses.sensitivity.option_sensitivity` of each swept option, the metric's other options at their defaults.

    A metric swept over several options (``bins`` x ``estimator``) is a product of variants; the spread of one
    option is read on the variants whose other options are at their defaults (``bins`` with the default
    estimator), so that it says how far that option moves the metric as it is used.  Columns
    :data:`reports.analyses.sensitivity.SENSITIVITY_COLUMNS`.

    ``sensitivity``, :func:`reports.analyses.sensitivity.leveled_option_sensitivity` of ``results`` at ``thresholds``
    when the caller has it, gives the rows of every metric swept over one option: its one option's spread over all its
    variants, computed the same way (half of the default study's swept metrics; 0.4 CPU-s of this analysis).
    """
    return leveled_option_spreads(results, thresholds=thresholds, sensitivity=sensitivity).table


def leveled_option_spreads(results: pd.DataFrame, *, thresholds: Thresholds = Thresholds(),
                           sensitivity: intervals.Leveled | None = None) -> intervals.Leveled:
    """:func:`option_spreads` with its intervals, and what they decide, at any number of looks
    (:class:`reports.analyses.intervals.Leveled`; :func:`reports.analyses.sensitivity.sweep_looks` gives a table's)."""
    rows = results.loc[is_variant(results)]
    if rows.empty:
        return intervals.Leveled(pd.DataFrame(columns=list(SENSITIVITY_COLUMNS)), ())
    tables = []
    if sensitivity is not None:
        keys = rows.drop_duplicates(["metric_base", "options"])
        swept = {base: {key for text in own["options"] for key in decode_options(text)}
                 for base, own in keys.groupby("metric_base")}
        single = sorted(base for base, options in swept.items() if len(options) == 1)
        tables.append(sensitivity.subset(sensitivity.table["metric"].isin(single).to_numpy()))
        rows = rows.loc[~rows["metric_base"].isin(single)]
    off = off_defaults(rows)
    names = sorted({key for text in rows["options"].unique() for key in decode_options(text)})
    for name in names:
        tables.append(leveled_option_sensitivity(rows.loc[off.map(lambda keys, name=name: keys <= {name})],
                                                 thresholds=thresholds, options=(name,)))
    return intervals.concatenated(tables, SENSITIVITY_COLUMNS, ["metric", "option", "sub_score"])


def _sub_scores(results: pd.DataFrame) -> dict[str, list[str]]:
    """Each swept metric's sub-scores, from its variant rows."""
    rows = results.loc[is_variant(results)]
    return {metric: sorted(own["sub_score"].unique()) for metric, own in rows.groupby("metric_base")}


def hyperparameters(results: pd.DataFrame, *, thresholds: Thresholds = Thresholds(),
                    spreads: pd.DataFrame | None = None) -> pd.DataFrame:
    """How many of each swept metric's options move its scores by more than ``thresholds.max_spread``.

    Parameters
    ----------
    results : pandas.DataFrame
        A checked results table holding option-sweep variants.
    thresholds : reports.analyses.thresholds.Thresholds, optional
        ``thresholds.max_spread`` is the spread (on the [0, 1] score scale, mean over seeds, largest over
        conditions) beyond which an option counts as moving the metric.
    spreads : pandas.DataFrame, optional
        :func:`option_spreads` of ``results`` at ``thresholds``, when the caller has it (computed here otherwise).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`HYPERPARAMETER_COLUMNS`, one row per (metric, sub-score) of a swept metric, the count
        repeated on each (an option that moves any of the metric's scores counts): ``swept`` and
        ``options_swept`` (how many options, and which with their values), ``sensitive_options`` and
        ``sensitive`` (how many, and which with their largest spread), ``sensitive_options_low`` and
        ``sensitive_options_high`` (the count's interval: the options whose spread's interval lies above the
        threshold, and those whose interval reaches above it; the spread itself where it has no interval),
        ``straddling`` (the options between the two, whose seeds could move the count: comma-separated) and
        ``open_scenarios`` (where their spreads may exceed the threshold: their ``open_scenarios``, united),
        ``n_seeds`` (the fewest seeds behind a spread of the ``straddling`` options, which more seeds could move, or
        where none straddles, of every option: the seeds a verdict read from the count is said decided or left
        undecided with, :mod:`reports.verdicts.seed_decisions`), ``largest_option`` and
        ``largest_spread`` (the option moving the metric most, and how far), ``threshold`` and ``detail``
        (the evidence, as a sentence).  Empty without a sweep.
    """
    spreads = option_spreads(results, thresholds=thresholds) if spreads is None else spreads
    threshold = float(thresholds.max_spread)
    sub_scores = _sub_scores(results)
    records = []
    for metric, own in spreads.groupby("metric", sort=True):
        ends = _with_point_ends(own).groupby("option", sort=True)[["max_spread", "option_spread_low",
                                                                   "max_spread_high"]].max()
        largest = ends["max_spread"]
        values = own.drop_duplicates("option").set_index("option")["values"]
        sensitive = largest.loc[largest > threshold]
        straddling = ends.index[(ends["option_spread_low"] <= threshold) & (ends["max_spread_high"] > threshold)]
        in_doubt = own.loc[own["option"].isin(straddling)]
        opened = in_doubt["open_scenarios"]
        behind = in_doubt if len(in_doubt) else own  # the seeds that could still move the count, else all of them
        top = largest.idxmax()
        swept = "; ".join(f"{option} ∈ {{{values[option]}}}" for option in largest.index)
        moving = ", ".join(f"{option} {spread:.3g}" for option, spread in sensitive.items()) or "none"
        detail = (f"{len(sensitive)} of {len(largest)} swept options move a score by more than {threshold:g} "
                  f"({moving}; swept: {swept})")
        for sub_score in sub_scores.get(metric, []):
            records.append({"metric": metric, "sub_score": sub_score, "swept": len(largest), "options_swept": swept,
                            "sensitive_options": len(sensitive),
                            "sensitive_options_low": int((ends["option_spread_low"] > threshold).sum()),
                            "sensitive_options_high": int((ends["max_spread_high"] > threshold).sum()),
                            "straddling": ", ".join(straddling), "open_scenarios": _union(opened),
                            "n_seeds": int(behind["n_seeds"].min()), "sensitive": moving, "largest_option": top,
                            "largest_spread": float(largest[top]), "threshold": threshold, "detail": detail})
    return pd.DataFrame(records, columns=list(HYPERPARAMETER_COLUMNS))


def _union(lists: pd.Series) -> str:
    """Comma-separated lists (``"mixing, noise"``) united, sorted."""
    return ", ".join(sorted({item for text in lists for item in text.split(", ") if item}))


def _with_point_ends(spreads: pd.DataFrame) -> pd.DataFrame:
    """``spreads`` with an interval's missing end (one seed) replaced by the spread itself."""
    return spreads.assign(**{end: spreads[end].fillna(spreads["max_spread"])
                             for end in ("max_spread_high", "option_spread_low")})


def recorded_options(results: pd.DataFrame) -> dict[str, list[str]]:
    """Each swept metric's options, where its variants' ``default_options`` name all of them (they name an option
    no variant sets); a metric whose record names only the options set is left out (written before the record
    was complete, or a metric with one option)."""
    rows = results.loc[is_variant(results), ["metric_base", "options", "default_options"]].drop_duplicates()
    known = {}
    for metric, own in rows.groupby("metric_base"):
        named = {key for text in own["default_options"] for key in decode_options(text)}
        chosen = {key for text in own["options"] for key in decode_options(text)}
        if named - chosen:
            known[metric] = sorted(named)
    return known


def discretization(results: pd.DataFrame, *, thresholds: Thresholds = Thresholds(),
                   spreads: pd.DataFrame | None = None) -> pd.DataFrame:
    """How far a swept metric's discretisation moves its scores: measured by a bins sweep, or none by design.

    ``spreads``: :func:`option_spreads` of ``results`` at ``thresholds`` (whose ``max_spread`` is the ``threshold``
    column), when the caller has it (as for :func:`hyperparameters`).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`DISCRETIZATION_COLUMNS`, one row per (metric, sub-score): ``route`` ``"sweep"`` for a metric
        whose discretisation option was swept (its other options at their defaults: :func:`option_spreads`), with
        that sweep's ``option``, ``values``, ``max_spread`` (and its interval, ``max_spread_low`` and
        ``max_spread_high``), ``n_seeds``, ``open_scenarios`` and ``worst_condition``; ``"design"`` for a metric whose recorded options
        (:func:`recorded_options`) include no discretisation option, with ``max_spread`` 0 and an interval of no width
        (no binning can move it; ``n_seeds``: the fewest seeds of a swept cell, for the report's account of seeds).
        ``detail`` is the evidence as a sentence.  A binned metric without a bins sweep, and a metric whose options
        are not all recorded, have no row.
    """
    spreads = option_spreads(results, thresholds=thresholds) if spreads is None else spreads
    threshold = float(thresholds.max_spread)
    swept = spreads.loc[spreads["option"].isin(DISCRETIZATION_OPTIONS)]
    records = [{"metric": row.metric, "sub_score": row.sub_score, "route": "sweep", "option": row.option,
                "values": row.values, "max_spread": row.max_spread, "max_spread_low": row.max_spread_low,
                "max_spread_high": row.max_spread_high, "n_seeds": row.n_seeds, "open_scenarios": row.open_scenarios,
                "worst_condition": row.worst_condition,
                "threshold": threshold,
                "detail": f"{row.option} in {{{row.values}}} moves {row.sub_score} by {row.max_spread:.3g} on "
                          f"{row.worst_condition}"}
               for row in swept.itertuples(index=False)]
    by_sweep = set(swept["metric"])
    variants = results.loc[is_variant(results)]
    sub_scores = _sub_scores(results)
    for metric, options in recorded_options(results).items():
        if metric in by_sweep or set(options) & set(DISCRETIZATION_OPTIONS):
            continue
        detail = f"no discretisation option among its options ({', '.join(options)}): discretization-free by design"
        own = variants.loc[variants["metric_base"] == metric]
        seeds = int(own.groupby(["scenario", "value", "n_samples", "metric"])["seed"].nunique().min())
        records += [{"metric": metric, "sub_score": sub_score, "route": "design", "option": "none", "values": "",
                     "max_spread": 0.0, "max_spread_low": 0.0, "max_spread_high": 0.0, "n_seeds": seeds, "open_scenarios": "",
                     "worst_condition": "by design", "threshold": threshold, "detail": detail}
                    for sub_score in sub_scores[metric]]
    return pd.DataFrame(records, columns=list(DISCRETIZATION_COLUMNS))
