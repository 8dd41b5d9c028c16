"""Measured hyper-parameter sensitivity, from option sweeps (``run --metric-option METRIC:OPTION=V1,V2,...``).

An option sweep writes each setting of a metric as a variant, ``mig[bins=5]``,
``mig[bins=20]``, scored on the same draws with the same random state, so two variants'
scores on one draw differ by the option and, for a stochastic metric, by how the option
changes its use of the random state.  Each variant's row carries its metric
(``metric_base``) and its options as data (``options``, ``default_options``: see
:mod:`reports.results.schema`); this module reads those columns, never the names, and measures
how far a metric's scores move across the values of each option:

* :func:`option_sensitivity`: per (metric, option, sub-score), the *spread* of the mean score
  across the option's values (the largest mean over the seeds minus the smallest) per
  condition (scenario, value, sample size, and the metric's other swept options), then
  summarised over conditions by its mean and its maximum (and where the maximum is).  The
  review's Table 2 columns "Few hyper-parameters" and "Discretization-free" are judged from
  it (:data:`reports.verdicts.characteristics.CHARACTERISTICS`).

  The spread of the means, not the mean of each draw's spread (this module until
  2026-11-30): a draw's spread is the absolute value of the option's effect plus the
  metric's own seed-to-seed noise between the variants, and the mean of an absolute value
  exceeds the absolute value of the mean by an amount more seeds never remove.  A stochastic
  metric whose option changes nothing on average (DCI-lasso's 5 or 10 cross-validation
  folds, which split the rows differently) then read as moving its score by twice its noise
  (modularity's largest spread 0.097, undecided at 12 seeds, where its means' is 0.048),
  whatever the seeds.  The means' spread converges to the option's effect on the expected
  score as seeds are added (what a race adds them for), its bias at few seeds shrinks with
  them, and the seeds are paired (each seed one draw for every value), so the draw's own
  variation still cancels from the differences.  What it does not see is an effect whose
  sign changes from draw to draw and averages out; the seeds' spread of each variant's
  scores is in the results for that.

Scores are taken on their own scale, which is [0, 1] for every registered metric's scores
that have an ideal; a spread is then a share of the whole scale.  Only variant rows are
read (a metric's plain rows carry no option values).

The other analyses judge a swept metric on one setting only, :func:`on_default_options`:
the variant at the defaults the table records takes the metric's own name (``mig``),
the other variants are left out of them and appear in the sensitivity section alone.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np
import pandas as pd

from reports.analyses import intervals
from reports.analyses.checks import JUDGED, Check
from reports.analyses.thresholds import Thresholds
from reports.results.display import SYMBOLS, display_table
from reports.results.options import at_defaults, is_variant, option_columns, option_text
from reports.results.table import representation_keys

DISCRETIZATION_OPTIONS = ("bins",)
"""Options that set a discretisation; a metric whose scores they move is not discretization-free."""

SENSITIVITY_COLUMNS = ("metric", "option", "values", "sub_score", "conditions", "mean_spread", "max_spread",
                       "max_spread_low", "max_spread_high", "option_spread_low", "n_seeds", "open_scenarios", "threshold",
                       "worst_condition", "verdict")
#: The verdict of a spread whose interval lies below the threshold, above it, or straddles it (``Check`` marks).
SPREAD_VERDICTS = {"yes": "insensitive", "no": "sensitive", "undecided": "undecided"}


def _variant_rows(results: pd.DataFrame) -> pd.DataFrame:
    """The variant rows, with the metric's own name in ``metric`` and one ``option:NAME`` column per option, its
    values as the variants' names write them."""
    rows = results.loc[is_variant(results)]
    if rows.empty:
        return rows
    options = option_columns(rows["options"], convert=option_text)
    return pd.concat([rows.assign(metric=rows["metric_base"]), options], axis=1)


def option_sensitivity(results: pd.DataFrame, *, thresholds: Thresholds = Thresholds(),
                       options: Collection[str] | None = None) -> pd.DataFrame:
    """How far each swept option moves each metric's scores.

    Parameters
    ----------
    results : pandas.DataFrame
        A tidy results table (:data:`reports.results.schema.RESULT_COLUMNS`) holding option-sweep
        variants (rows whose ``metric_base`` is not their ``metric``).
    thresholds : reports.analyses.thresholds.Thresholds, optional
        ``thresholds.max_spread`` is the largest ``max_spread`` whose verdict is ``"insensitive"`` (on the [0, 1]
        score scale, mean over seeds).
    options : collection of str, optional
        The options to measure (every swept one by default); the others still tell the conditions apart.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SENSITIVITY_COLUMNS`, one row per (metric, option, sub-score) with at
        least two values of the option in a condition: ``values`` (the option's values, as
        written), ``conditions`` (how many scenario x value x n x other-options conditions),
        ``mean_spread`` and ``max_spread`` (the spread of the seeds' mean scores over the
        option's values, then its mean and its largest over conditions),
        ``max_spread_low`` and ``max_spread_high`` (the largest spread's 95% interval, made from the Student-t
        intervals of every two values' paired differences in every condition: :func:`_pair_distances`; NaN for one
        seed), ``option_spread_low`` (the low end of the option's largest spread over all its sub-scores, the parts
        widened for all of them: what counts the option as moving the metric, :mod:`reports.analyses.hyperparameters`;
        the same on each of the option's rows),
        ``n_seeds`` (the seeds that interval was computed from), ``open_scenarios`` (the scenarios with a condition
        whose mean spread may exceed the threshold: :func:`_open_scenarios`), ``threshold`` (the bound ``max_spread`` is
        compared with), ``worst_condition`` (``scenario = value_label (n = N)`` of the largest spread) and
        ``verdict``: ``"insensitive"`` when ``max_spread <= threshold``, ``"sensitive"`` when it exceeds it, by the
        interval's two ends where there is one, and ``"undecided"`` when they straddle it (:func:`spread_check`).
        Empty when the table holds no sweep.
    """
    return leveled_option_sensitivity(results, thresholds=thresholds, options=options).table


def leveled_option_sensitivity(results: pd.DataFrame, *, thresholds: Thresholds = Thresholds(),
                               options: Collection[str] | None = None) -> intervals.Leveled:
    """:func:`option_sensitivity`'s table with its intervals, and what they decide (``verdict``, ``open_scenarios``),
    at any number of looks (:class:`reports.analyses.intervals.Leveled`; :func:`sweep_looks` gives a table's)."""
    rows = _variant_rows(results)
    threshold = float(thresholds.max_spread)
    records: list[dict[str, object]] = []
    ends: list[intervals.RowEnds] = []
    if rows.empty:
        return intervals.Leveled(pd.DataFrame(columns=list(SENSITIVITY_COLUMNS)), ())
    for metric, group in rows.groupby("metric", sort=True):
        option_columns = [c for c in group.columns if c.startswith("option:") and group[c].notna().any()]
        for column in option_columns:
            if options is not None and column.removeprefix("option:") not in options:
                continue
            others = [c for c in option_columns if c != column]
            condition = ["scenario", "value", "value_label", "n_samples", *others]
            frame = group.dropna(subset=[column]).fillna({c: "" for c in others})
            parts: list[tuple[intervals.ComponentEnds, np.ndarray]] = []  # each sub-score's pairs
            option_low = _option_low(parts)
            for sub_score, block in frame.groupby("sub_score", sort=True):
                grid = _option_grid(block, condition, column)
                if grid is None:
                    continue
                matrix, conditions, n_options = grid
                spreads = _spreads(intervals.weighted_means(matrix, np.ones((1, matrix.shape[0]))), n_options)[0]
                worst = int(np.argmax(spreads))
                largest = float(spreads[worst])
                pair_ends, distances = _pair_distances(matrix, n_options, block["score"].to_numpy())
                parts.append((pair_ends, distances))
                ends.append(_spread_ends(pair_ends, distances, largest, spreads, conditions, n_options, threshold,
                                         option_low))
                scenario, _, value_label, n_samples, *_ = conditions[worst]
                records.append({
                    "metric": metric,
                    "option": column.removeprefix("option:"),
                    "values": ", ".join(_ordered(frame[column].unique())),
                    "sub_score": sub_score,
                    "conditions": len(conditions),
                    "mean_spread": float(np.mean(spreads)),
                    "max_spread": largest,
                    "n_seeds": matrix.shape[0],
                    "threshold": threshold,
                    "worst_condition": f"{scenario} = {value_label} (n = {int(n_samples)})",
                })
    looks_of = intervals.looks_by_metric(rows)
    table = pd.DataFrame([{**record, **record_ends(looks_of[str(record["metric"])])}
                          for record, record_ends in zip(records, ends)], columns=list(SENSITIVITY_COLUMNS))
    return intervals.Leveled(table, tuple(ends))


def sweep_looks(results: pd.DataFrame) -> dict[str, int]:
    """The looks :func:`leveled_option_sensitivity` reads each swept metric's intervals at: the most of its variants'
    rows (:func:`reports.analyses.intervals.looks_by_metric` under the metric's own name)."""
    return intervals.looks_by_metric(_variant_rows(results))


def _option_low(parts: list[tuple[intervals.ComponentEnds, np.ndarray]]) -> Callable[[int], float]:
    """looks -> the low end of an option's largest spread over all its sub-scores' pairs (``parts``, complete once the
    option's rows are made), widened for all of them; computed once per number of looks."""
    return functools.cache(lambda looks: intervals.largest_interval(*_joined(parts), looks)[0])


def _spread_ends(pair_ends: intervals.ComponentEnds, distances: np.ndarray, largest: float, spreads: np.ndarray,
                 conditions: Sequence[tuple], n_options: int, threshold: float,
                 option_low: Callable[[int], float]) -> intervals.RowEnds:
    """A sub-score's row at any number of looks: its largest spread's interval (from its pairs'), the verdict it
    decides and the scenarios it leaves open, and its option's ``option_spread_low`` (:func:`_option_low`)."""
    def ends_at(looks: int) -> dict[str, object]:
        low, high = intervals.largest_interval(pair_ends, distances, looks)
        condition_high = _condition_highs(pair_ends(looks)[1], n_options)
        return {"max_spread_low": low, "max_spread_high": high, "option_spread_low": option_low(looks),
                "open_scenarios": _open_scenarios(condition_high, spreads, conditions, threshold),
                "verdict": SPREAD_VERDICTS[spread_check(largest, low, high, threshold).mark]}

    return ends_at


def _option_grid(block: pd.DataFrame, condition: list[str], column: str) -> tuple[np.ndarray, list[tuple], int] | None:
    """One sub-score's scores as a ``(S, C x O)`` matrix: its seeds x (each condition with at least two of the option's
    values, each of the ``O`` values); with the conditions, in the table's order, and ``O``.  None when no condition
    has two values.

    A condition keeps the seeds that have a score at every value it was scored at (NaN elsewhere), so that its means
    are paired: a race adds seeds to the variants a verdict needs, and the default variant can hold 12 seeds where
    another holds 3 (Z-max's batch sizes 50 and 200, scored alike on every draw, read as 0.34 apart from unpaired
    means of such seeds)."""
    wide = block.groupby([*condition, column, "seed"], sort=False)["score"].mean().unstack("seed")
    # each row's condition and value numbered in the order they first appear, from the index's codes, and each row put
    # in its place (the full MultiIndex of conditions x values and a reindex took two thirds of the sensitivity's time)
    index = wide.index
    place = index.names.index(column)
    at_value, values = pd.factorize(index.codes[place])
    rest = [level for level in range(index.nlevels) if level != place]
    condition_ids = np.ravel_multi_index([index.codes[level] for level in rest], [len(index.levels[level]) for level in rest])
    at_condition, _ = pd.factorize(condition_ids)
    firsts = np.unique(at_condition, return_index=True)[1]
    keys = list(index.droplevel(column)[firsts])
    grid = np.full((len(keys), len(values), wide.shape[1]), np.nan)  # conditions x values x seeds
    grid[at_condition, at_value] = wide.to_numpy(dtype=float)
    scored = ~np.isnan(grid).all(axis=2, keepdims=True)  # the values each condition was scored at
    paired = (~np.isnan(grid) | ~scored).all(axis=1, keepdims=True)  # the seeds with a score at every one of them
    grid = np.where(paired, grid, np.nan)
    kept = (~np.isnan(grid).all(axis=2)).sum(axis=1) >= 2
    if not kept.any():
        return None
    matrix = grid[kept].reshape(-1, grid.shape[2]).T
    return matrix[~np.isnan(matrix).all(axis=1)], [key for key, keep in zip(keys, kept) if keep], len(values)


def _spreads(means: np.ndarray, n_options: int) -> np.ndarray:
    """``(R, C x O)`` mean scores (see :func:`_option_grid`) -> ``(R, C)``: each condition's largest minus smallest
    mean over the option's values, NaN where fewer than two values have a mean."""
    grid = means.reshape(means.shape[0], -1, n_options)
    spread = np.fmax.reduce(grid, axis=2) - np.fmin.reduce(grid, axis=2)
    return np.where(np.isfinite(grid).sum(axis=2) >= 2, spread, np.nan)


def _pair_differences(matrix: np.ndarray, n_options: int) -> np.ndarray:
    """``(S, C x O)`` scores (see :func:`_option_grid`) -> ``(S, C x P)``: each condition's differences, seed by seed,
    between every two of the option's ``O`` values (the first's score minus the second's, ``P = O (O − 1) / 2``
    pairs in the order of :func:`numpy.triu_indices`), NaN where a seed lacks either."""
    grid = matrix.reshape(matrix.shape[0], -1, n_options)
    first, second = np.triu_indices(n_options, k=1)
    return (grid[:, :, first] - grid[:, :, second]).reshape(matrix.shape[0], -1)


def _pair_distances(matrix: np.ndarray, n_options: int, scores: np.ndarray) -> tuple[intervals.ComponentEnds, np.ndarray]:
    """The intervals, at any number of looks, of the distances ``|mean_i − mean_j|`` between every two of the option's
    values in every condition, and the distances: the parts of the largest spread's interval, in the order
    :func:`reports.analyses.intervals.largest_interval` takes them.

    A condition's spread (the largest mean over the option's values minus the smallest) is the largest of the
    distances between every two of its values, and the largest spread over the conditions the largest of those
    distances over every condition: :func:`reports.analyses.intervals.largest_interval` of the ``C x P`` pairs, each
    pair's distance from Student's t interval of its paired differences' mean
    (:func:`reports.analyses.intervals.column_mean_intervals`, :func:`reports.analyses.intervals.distance_ends`).
    An interval about a condition's spread (until 2026-11-30, a bootstrap over seeds centred on it) does not hold
    it: the range of several noisy means overstates the range of the true ones where several pairs of values lie as
    far apart (an option of 4 values whose true means alternate by exactly the threshold, 12 seeds: a wrong
    "sensitive" in 12% of draws; ``tests/reports/test_sensitivity.py``).

    Parameters
    ----------
    matrix : numpy.ndarray
        ``(S, C x O)`` scores, paired over the seeds within each condition (:func:`_option_grid`).
    n_options : int
        ``O``, the option's values.
    scores : numpy.ndarray
        The sub-score's scores: when they all lie in [0, 1], so does a spread, and the intervals are clipped to it.

    Returns
    -------
    (callable, numpy.ndarray)
        :data:`reports.analyses.intervals.ComponentEnds` of the ``C x P`` distances (each level computed once), and
        the distances (NaN for a pair not scored), condition by condition.
    """
    differences = _pair_differences(matrix, n_options)
    ceiling = 1.0 if intervals.unit_scores(scores) else np.inf  # a difference of unit scores lies in [-1, 1]
    distances = np.abs(intervals.weighted_means(differences, np.ones((1, differences.shape[0])))[0])

    @functools.cache
    def pair_ends(looks_read: int) -> tuple[np.ndarray, np.ndarray]:
        low, high = intervals.column_mean_intervals(differences, looks_read, (-ceiling, ceiling))
        return intervals.distance_ends(low, high, np.zeros(low.shape), (0.0, ceiling))

    return pair_ends, distances


def _condition_highs(pair_highs: np.ndarray, n_options: int) -> np.ndarray:
    """Each condition's high end of its spread, the largest of its pairs' (:func:`_pair_distances`); NaN where none
    has one (one seed)."""
    with np.errstate(invalid="ignore"):
        return np.fmax.reduce(pair_highs.reshape(-1, n_options * (n_options - 1) // 2), axis=1)


def _joined(parts: Sequence[tuple[intervals.ComponentEnds, np.ndarray]]) -> tuple[intervals.ComponentEnds, np.ndarray]:
    """Several sub-scores' pairs (:func:`_pair_distances`) as the parts of one largest value: their intervals and
    distances end to end."""
    def ends_at(looks_read: int) -> tuple[np.ndarray, np.ndarray]:
        lows, highs = zip(*(pair_ends(looks_read) for pair_ends, _ in parts))
        return np.concatenate(lows), np.concatenate(highs)

    return ends_at, np.concatenate([distances for _, distances in parts])


def _open_scenarios(high: np.ndarray, spreads: np.ndarray, conditions: Sequence[tuple], threshold: float) -> str:
    """The scenarios (sorted, comma-separated) of the conditions whose spread's interval reaches above ``threshold``
    (its high end, ``high``, at the study's level: :func:`_condition_highs`; the spread itself for one seed).

    Where the largest spread's interval straddles the threshold, only these conditions can take it past the threshold
    or show it below: a condition whose interval lies under the threshold cannot make a metric sensitive, so a
    racing study adds seeds to these scenarios alone (:func:`reports.verdicts.verdict_table.undecided_sources`)."""
    reach = np.where(np.isfinite(high), high, spreads)
    return ", ".join(sorted({str(key[0]) for key, end in zip(conditions, reach) if end > threshold}))


def spread_check(spread: float, low: float, high: float, threshold: float) -> Check:
    """A spread against the largest one an insensitive option may have: decided by its interval's two ends where it
    has one (``low``, ``high``; NaN for one seed), by its value otherwise."""
    return Check("max spread", spread, "<=", threshold, interval=(low, high))


def _ordered(values: np.ndarray) -> list[str]:
    """Option values in numeric order where they are numbers, else as text."""
    def key(text: str) -> tuple[int, float, str]:
        try:
            return (0, float(text), "")
        except ValueError:
            return (1, 0.0, text)

    return sorted(map(str, values), key=key)


def on_default_options(results: pd.DataFrame) -> pd.DataFrame:
    """The results with each swept metric represented by its variant at the metric's default options.

    How variants reach the headline, the property matrix and the other analyses:

    * a metric that also has plain rows (run without a sweep) keeps them, and its variants
      are dropped;
    * otherwise the variant whose every swept option equals the default the table records
      for it (``default_options``; e.g. ``mig[bins=10]``, as ``bins`` defaults to 10) is renamed
      to the metric (``mig``) and the other variants are dropped;
    * a sweep without its default value, or of a metric whose defaults the table does not
      know, keeps its variants under their own names, one row each;
    * a renamed variant's ``seconds`` become the largest of its sweep's on the same draw
      (the variants share estimates within a draw, so the first pays for the others).

    Parameters
    ----------
    results : pandas.DataFrame
        A tidy results table with the option columns (see :func:`reports.check_results`),
        possibly holding option-sweep variants.

    Returns
    -------
    pandas.DataFrame
        The rows kept, renamed as above (the same table when it holds no variant).
    """
    variant = is_variant(results)
    if not variant.any():
        return results
    base_of = results.loc[variant].drop_duplicates("metric").set_index("metric")["metric_base"]
    default = set(results.loc[at_defaults(results), "metric"])
    plain = set(results.loc[~variant, "metric"])
    renamed: dict[str, str] = {}
    dropped: set[str] = set()
    swept: dict[str, list[str]] = {}
    for name, metric in base_of.items():
        swept.setdefault(metric, []).append(name)
    for metric, variant_names in swept.items():
        at_default = [] if metric in plain else [name for name in variant_names if name in default]
        if metric in plain or len(at_default) == 1:
            dropped.update(name for name in variant_names if name not in at_default)
            renamed.update({name: metric for name in at_default})
    if not renamed and not dropped:
        return results
    kept = results.loc[~results["metric"].isin(dropped)].copy()
    kept["metric"] = kept["metric"].replace(renamed)
    return _with_sweep_seconds(kept, results, {metric: swept[metric] for metric in renamed.values()})


def _with_sweep_seconds(kept: pd.DataFrame, results: pd.DataFrame, sweeps: Mapping[str, list[str]]) -> pd.DataFrame:
    """``kept`` with each renamed metric's seconds the largest of its variants' on the same draw.

    The variants of a sweep run on one draw share what they can (binned tables, k-NN
    estimates, DCI-ES's probe trees): the first pays for it and the others are charged
    only what they add, so the default variant alone can look nearly free.  The largest
    of the variants' seconds is what one call of the metric costs.
    """
    if not sweeps:
        return kept
    keys = representation_keys() + ["metric"]
    base_of = {variant: metric for metric, variants in sweeps.items() for variant in variants}
    variant_rows = results.loc[results["metric"].isin(list(base_of)), keys + ["seconds"]]
    longest = variant_rows.assign(metric=variant_rows["metric"].map(base_of)).groupby(keys)["seconds"].max()
    renamed = kept["metric"].isin(list(sweeps))
    at = pd.MultiIndex.from_frame(kept.loc[renamed, keys])
    kept.loc[renamed, "seconds"] = longest.reindex(at).to_numpy()
    return kept


def sensitivity_rollup(table: pd.DataFrame, decided: Mapping[str, Check | None],
                       checks: Sequence[Check] | None = None) -> pd.DataFrame:
    """One display row per metric of an :func:`option_sensitivity` table: what was swept, its largest spread, and
    how many options move it.

    ``Largest spread`` is the table's largest ``max_spread`` of the metric, with enough digits to show its
    comparison with the threshold (its interval in brackets), and ``Where`` its option, sub-score and condition;
    ``Insensitive``: every spread of the metric at most the threshold (✓), one above it (✗), else undecided (≈), by
    ``checks``, each row's spread read as the verdicts read it (one per row of ``table``, in order: a failure from its
    interval widened for the checks its metric's verdicts pool, :func:`reports.verdicts.verdict_table.row_readings`),
    or by each row's interval where not given (:func:`spread_check`).  ``decided`` maps each metric to the check
    deciding its "Few hyper-parameters" verdict (the property matrix's:
    :func:`reports.verdicts.verdict_table.base_verdicts`), whose value is the number of its swept options moving a
    score beyond the threshold: ``Options moving it`` prints it and its rule, ``Few hyper-parameters`` its mark (?
    where the verdict is unmeasured: no option was swept with the others at their defaults).
    """
    if checks is None:
        checks = [spread_check(row.max_spread, row.max_spread_low, row.max_spread_high, row.threshold)
                  for row in table.itertuples(index=False)]
    records = []
    for metric, group in table.groupby("metric", sort=True):
        swept = group.drop_duplicates("option")
        largest = group.loc[group["max_spread"].idxmax()]
        own = [checks[at] for at in table.index.get_indexer(group.index)]
        spread = own[group.index.get_loc(largest.name)]
        insensitive = min((check.mark for check in own), key=JUDGED.index)
        check = decided.get(metric)
        records.append({
            "Metric": metric,
            "Options swept": "; ".join(f"{o} ∈ {{{v}}}" for o, v in zip(swept["option"], swept["values"])),
            "Largest spread": f"{spread.value_text()} (≤ {spread.threshold:g})",
            "Where": f"{largest['option']}, {largest['sub_score']}, {largest['worst_condition']}",
            "Insensitive": SYMBOLS[insensitive],
            "Options moving it": f"{check.value_text()} (≤ {check.threshold:g})" if check else SYMBOLS["unmeasured"],
            "Few hyper-parameters": SYMBOLS[check.mark if check else "unmeasured"],
        })
    return display_table(pd.DataFrame(records), {name: name for name in (
        "Metric", "Options swept", "Largest spread", "Where", "Insensitive", "Options moving it", "Few hyper-parameters")})


def sensitivity_details(table: pd.DataFrame) -> pd.DataFrame:
    """Every (metric, option, sub-score) row of an :func:`option_sensitivity` table, as display text (``Low`` and
    ``High``: the largest spread's interval)."""
    return display_table(table, {"metric": "Metric", "option": "Option", "values": "Values", "sub_score": "Sub-score",
                                 "conditions": "Conditions", "mean_spread": "Mean spread",
                                 "max_spread": "Max spread", "max_spread_low": "Low", "max_spread_high": "High",
                                 "n_seeds": "Seeds", "worst_condition": "At", "verdict": "Verdict"}, digits=3)

