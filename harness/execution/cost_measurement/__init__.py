"""The measuring tool: what a metric call costs on this machine, written to the cost model's data file.

Each mode measures one table of :mod:`harness.execution.cost_records` and prints the run, or with ``--write`` adds it
to the data file the cost model (:mod:`harness.execution.costs`) reads::

    python -m harness.execution.cost_measurement seconds --write   # every metric and swept variant (minutes)
    python -m harness.execution.cost_measurement alone --write     # the sharing families' costs alone (minutes)
    python -m harness.execution.cost_measurement widths --write    # growth with the number of codes (about 15 min)
    python -m harness.execution.cost_measurement widths --metrics mcc,r2 --n-samples 100000 --widths 8,512 --write
    python -m harness.execution.cost_measurement wide --write      # every metric at 10 x 4096, n = 1e5 (about an hour;
                                                                   # harness.execution.cost_measurement.wide)

A run keeps the date, the machine (:func:`harness.execution.cost_records.machine_description`) and its settings
(a ``seconds`` or ``alone`` run also the fixed workload's time around it, to which the cost model scales its rows:
:mod:`harness.execution.reference_workload`);
its rows replace those of earlier runs, so a run of a few metrics (``--metrics``) updates those alone.  Every call
runs with one BLAS thread and is timed in CPU seconds (``time.process_time``); the median of ``--repeats`` is kept.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from typing import Any

from harness.execution import cost_records
from harness.execution.costs import MEASURED_SHAPE, SHARING_FAMILIES
from harness.execution.reference_workload import reference_seconds

#: A variant of an option sweep gets its own row in the ``seconds`` table only where its cost differs from its
#: metric's by more than this fraction at some measured size ...
VARIANT_TOLERANCE = 0.25

#: ... and by more than this many seconds (smaller differences are timing noise, 0.002 CPU-hours a paper study).
VARIANT_MIN_SECONDS = 0.001

#: A metric's cost alone enters the ``alone_seconds`` table when it exceeds its cost in the measuring order, measured
#: in the same run, this many times at the largest size: the estimates an earlier metric of its family computes for
#: it.  Smaller differences are the measuring machine's load (the same metric measured on two days differed 2x).
ALONE_FACTOR = 3.0

#: The sample sizes of the ``seconds`` and ``alone`` tables (representation metrics, then population metrics, whose
#: calls cost far more).
SIZES, POPULATION_SIZES = (1000, 10000, 20000), (1000, 10000)

#: The numbers of codes and the sample size of the ``widths`` table.
WIDTHS, WIDTH_SAMPLES = (8, 32, 128, 256), 2000

#: ``dci_gbt`` (8000 trees a call) is left out of the measuring passes and timed once, at the smallest size.
SLOWEST = "dci_gbt"


def measure_costs(
    entries: Sequence[Any],
    sizes: Sequence[int] = SIZES,
    population_sizes: Sequence[int] = POPULATION_SIZES,
    repeats: int = 3,
) -> dict[str, dict[int, float]]:
    """Measure median CPU seconds per call of each metric at each sample size, as a task runs them.

    For each size and repeat one data draw is generated and every entry is called on it,
    in the given order, inside one :func:`metrics.shared_estimates` scope (a fresh scope
    per repeat): a metric whose estimates an earlier one already computed is charged only
    for what it adds, as in a study.

    Parameters
    ----------
    entries : sequence of harness.execution.metric_refs.MetricEntry
        Registered metrics and variants, in the order a task runs them.  Population metrics
        are measured on the ``udr_population`` scenario, the others on ``noise`` at 0.2.
    sizes : sequence of int
        Sample sizes of the representation metrics.
    population_sizes : sequence of int
        Sample sizes of the population metrics.
    repeats : int
        Calls per (entry, size); the median is kept.

    Returns
    -------
    dict
        Entry name -> {size: median CPU seconds}.
    """
    import numpy as np
    from threadpoolctl import threadpool_limits

    import metrics
    import scenarios

    timings: dict[str, dict[int, list[float]]] = {}
    with threadpool_limits(limits=1):
        for population, chosen_sizes in ((False, sizes), (True, population_sizes)):
            group = [entry for entry in entries if entry.population == population]
            for size, repeat in itertools.product(chosen_sizes if group else (), range(repeats)):
                if population:
                    members = list(scenarios.get("udr_population").generate(0.5, n=size, seed=0).members)
                else:
                    data = scenarios.get("noise").generate(0.2, n=size, seed=0)
                with metrics.shared_estimates():
                    for entry in group:
                        random_state = repeat if entry.stochastic else None
                        started = time.process_time()
                        if population:
                            metrics.evaluate_population(entry.target, members, random_state=repeat, **dict(entry.options))
                        else:
                            metrics.evaluate(entry.target, data.factors, data.codes, discrete=data.discrete,
                                             random_state=random_state, **dict(entry.options))
                        timings.setdefault(entry.name, {}).setdefault(size, []).append(time.process_time() - started)
    return {name: {size: float(np.median(values)) for size, values in row.items()} for name, row in timings.items()}


def measure_alone_costs(entries: Sequence[Any], **options: Any) -> dict[str, dict[int, float]]:
    """:func:`measure_costs` of each entry in a scope of its own: its cost with nothing shared."""
    return {entry.name: measure_costs([entry], **options)[entry.name] for entry in entries}


def overcomplete_draw(n: int, n_factors: int, n_codes: int, *, factorial: bool = False,
                      seed: int | Sequence[int] = 0) -> tuple[Any, Any]:
    """Factors uniform on [0, 1] (on {0, 1}, flagged discrete by the caller, for the intervention metrics' factorial
    design) and codes whose first ``min(K, L)`` columns are noisy copies of them, the others independent N(0, 1):
    an overcomplete code with nuisance columns, as the null and overcomplete settings build.  ``seed`` is anything
    :func:`numpy.random.default_rng` takes (``(seed, block)`` for one block of rows of :func:`write_wide_draw`)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    factors = rng.random((n, n_factors))
    if factorial:
        factors = np.floor(2 * factors)
    codes = rng.standard_normal((n, n_codes))
    shared = min(n_factors, n_codes)
    codes[:, :shared] = factors[:, :shared] + 0.1 * codes[:, :shared]
    return factors, codes


def measure_width_factors(entries: Sequence[Any], widths: Sequence[int] = WIDTHS, n_samples: int = WIDTH_SAMPLES,
                          repeats: int = 3, cap_seconds: float = 60.0) -> dict[str, dict[int, float]]:
    """Each metric's cost on ``widths`` codes (8 factors, :func:`overcomplete_draw`) relative to the first width.

    Every call runs in a scope of its own (nothing shared); the median of ``repeats`` calls is kept, one call when
    the first took over 5 s, and the wider widths are skipped once a width took over ``cap_seconds``.

    Returns
    -------
    dict
        Entry name -> {width: cost ratio to ``widths[0]``}.
    """
    import numpy as np
    from threadpoolctl import threadpool_limits

    import metrics

    table = {}
    with threadpool_limits(limits=1):
        for entry in (entry for entry in entries if not entry.population):
            factorial = entry.family == "intervention"
            seconds: dict[int, float] = {}
            for width in widths:
                factors, codes = overcomplete_draw(n_samples, MEASURED_SHAPE[0], width, factorial=factorial)
                calls = []
                for repeat in range(repeats):
                    with metrics.shared_estimates():
                        started = time.process_time()
                        metrics.evaluate(entry.target, factors, codes, discrete=factorial,
                                         random_state=repeat if entry.stochastic else None, **dict(entry.options))
                        calls.append(time.process_time() - started)
                    if calls[0] > 5.0:
                        break
                seconds[width] = float(np.median(calls))
                if seconds[width] > cap_seconds:
                    break
            table[entry.name] = {width: value / seconds[widths[0]] for width, value in seconds.items()}
    return table


def shared_alone_rows(alone: Mapping[str, Mapping[int, float]], in_order: Mapping[str, Mapping[int, float]],
                      factor: float = ALONE_FACTOR) -> dict[str, Mapping[int, float]]:
    """The rows of ``alone`` (costs with nothing shared) above ``factor`` times the same metric's row of ``in_order``
    (its costs in the measuring order, from the same run) at the largest size both measured."""
    kept = {}
    for name, row in alone.items():
        size = max(set(row) & set(in_order.get(name, {})), default=None)
        if size is not None and row[size] > factor * in_order[name][size]:
            kept[name] = row
    return kept


def estimator_variants() -> list[Any]:
    """``NAME[estimator=gaussian]`` of every registered metric with an ``estimator`` option: what a user picks for wide
    codes or large n, at a cost unlike the k-NN default's, so measured on its own (each call alone: the Gaussian
    variants of a draw share one Gram matrix, which the first pays)."""
    import metrics
    from harness.execution.metric_refs import registered_entry, variants

    entries = [registered_entry(name) for name in metrics.available(population=False)]
    return [variants(entry, {"estimator": ("gaussian",)})[0] for entry in entries if "estimator" in dict(entry.options)]


def cost_table_passes() -> list[list[Any]]:
    """What the ``seconds`` table measures, one list per kind of task.

    First every registered metric but :data:`SLOWEST` at its defaults, in registry order; then,
    for each preset that sweeps options, the same metrics as that preset's tasks run them:
    each swept metric replaced by its variants (so the first variant of a sweep pays for the
    estimates the others share, as it does in a study).
    """
    import metrics
    from harness.execution.metric_refs import registered_entry, variants
    from harness.execution.presets import PRESETS

    base = [registered_entry(name) for name in metrics.available(population=None) if name != SLOWEST]
    passes = [base]
    for preset in PRESETS.values():
        if preset.metric_options:
            passes.append([variant for entry in base if not entry.population
                           for variant in variants(entry, preset.metric_options.get(entry.name, {}))])
    return passes


def variant_passes(passes: Sequence[Sequence[Any]]) -> list[tuple[Sequence[Any], list[str]]]:
    """The passes after the first that measure a variant no earlier pass ran, each with the names of those variants
    (a variant's cost is taken from the first pass that runs it)."""
    seen = {entry.name for entry in passes[0]}
    found = []
    for entries in passes[1:]:
        new = [entry.name for entry in entries if entry.variant_of and entry.name not in seen]
        seen.update(entry.name for entry in entries)
        if new:
            found.append((entries, new))
    return found


def measure_cost_table(passes: Sequence[Sequence[Any]], **options: Any) -> dict[str, dict[int, float]]:
    """Every metric's cost from the first pass, every variant's from the first later pass
    that runs it (:func:`measure_costs` with ``options`` on each pass)."""
    table = measure_costs(passes[0], **options)
    for entries, swept in variant_passes(passes):
        measured = measure_costs(entries, **options)
        table.update({name: measured[name] for name in swept})
    return table


def after_sibling(passes: Sequence[Sequence[Any]]) -> set[str]:
    """The variants whose cost is taken from a pass (:func:`variant_passes`) that runs another variant of their metric
    before them on the draw: their measured cost holds only what they add to that sibling's work."""
    followers = set()
    for entries, measured in variant_passes(passes):
        first_of: dict[str, str] = {}
        for entry in entries:
            if entry.variant_of and first_of.setdefault(entry.variant_of, entry.name) != entry.name and entry.name in measured:
                followers.add(entry.name)
    return followers


def distinct_variant_costs(table: Mapping[str, Mapping[int, float]], entries: Sequence[Any],
                           tolerance: float = VARIANT_TOLERANCE) -> dict[str, Mapping[int, float]]:
    """The table without the variants whose cost is within ``tolerance`` (relative) or
    :data:`VARIANT_MIN_SECONDS` of their metric's at every size: those are estimated with
    their metric's cost."""
    kept = {}
    for entry in entries:
        row = table[entry.name]
        base = table.get(entry.variant_of) if entry.variant_of else None
        if base is None or any(
                abs(row[size] - base[size]) > max(tolerance * base[size], VARIANT_MIN_SECONDS) for size in row):
            kept[entry.name] = row
    return kept


def seconds_run(chosen: set[str] | None, sizes: Sequence[int], population_sizes: Sequence[int],
                repeats: int) -> dict[str, Any]:
    """The ``seconds`` table's run: the measuring passes (:func:`cost_table_passes`, limited to the ``chosen`` metrics
    and their variants where given), each variant kept where its cost is its own (:func:`distinct_variant_costs`), the
    Gaussian-estimator variants each alone, and :data:`SLOWEST` once at the smallest size."""
    from harness.execution.metric_refs import registered_entry

    def wanted(entry: Any) -> bool:
        return chosen is None or entry.name in chosen or entry.variant_of in chosen

    passes = [[entry for entry in entries if wanted(entry)] for entries in cost_table_passes()]
    passes = [passes[0], *(entries for entries in passes[1:] if entries)]
    options = {"sizes": sizes, "population_sizes": population_sizes, "repeats": repeats}
    before = reference_seconds()
    rows = distinct_variant_costs(measure_cost_table(passes, **options), [entry for group in passes for entry in group])
    gaussian = [entry for entry in estimator_variants() if wanted(entry)]
    rows.update(measure_alone_costs(gaussian, **options))
    if chosen is None or SLOWEST in chosen:
        rows.update(measure_costs([registered_entry(SLOWEST)], sizes=sizes[:1], repeats=1))
    measured = {entry.name for group in passes[1:] for entry in group if entry.variant_of}
    return cost_records.new_run(rows, {**options, "blas_threads": 1, **_reference_setting(before)},
                                after_sibling=after_sibling(passes) & set(rows),
                                like_their_metric=measured - set(rows))


def alone_run(chosen: set[str] | None, sizes: Sequence[int], repeats: int) -> dict[str, Any]:
    """The ``alone_seconds`` table's run: each metric of a sharing family alone, kept where it costs over
    :data:`ALONE_FACTOR` times its share in the measuring order (both measured now), and each Gaussian-estimator
    variant alone."""
    sharing = [entry for entry in cost_table_passes()[0] if entry.family in SHARING_FAMILIES and not entry.population
               and (chosen is None or entry.name in chosen)]
    gaussian = [entry for entry in estimator_variants() if chosen is None or {entry.name, entry.variant_of} & chosen]
    options = {"sizes": sizes, "population_sizes": (), "repeats": repeats}
    before = reference_seconds()
    rows = {**shared_alone_rows(measure_alone_costs(sharing, **options), measure_costs(sharing, **options)),
            **measure_alone_costs(gaussian, **options)}
    return cost_records.new_run(rows, {**options, "blas_threads": 1, "alone_factor": ALONE_FACTOR,
                                       **_reference_setting(before)})


def _reference_setting(before: float) -> dict[str, float]:
    """The run's reference time (:data:`harness.execution.cost_records.REFERENCE_SETTING`): the mean of the fixed
    workload's time before the run (``before``) and now, after it, so that a load that changed during the run counts
    half."""
    return {cost_records.REFERENCE_SETTING: (before + reference_seconds()) / 2}


def widths_run(chosen: set[str] | None, widths: Sequence[int], n_samples: int, repeats: int) -> dict[str, Any]:
    """The ``width_factors`` table's run at ``n_samples``: every metric at its defaults and every Gaussian-estimator
    variant (the ``chosen`` ones where given) on ``widths`` codes."""
    entries = [entry for entry in cost_table_passes()[0] + estimator_variants() if chosen is None or entry.name in chosen]
    settings = {"n_samples": n_samples, "widths": list(widths), "repeats": repeats, "cap_seconds": 60.0, "blas_threads": 1}
    return cost_records.new_run(measure_width_factors(entries, widths, n_samples, repeats, settings["cap_seconds"]),
                                settings)
