"""What a metric call costs: measured CPU seconds per call, and estimates at any sample size.

The planner orders tasks longest first with these estimates, and ``run --dry-run``
prints a study's estimated CPU time per metric before anything runs.

:data:`MEASURED_SECONDS` holds median CPU seconds (``time.process_time``, one BLAS
thread) of one call of each built-in metric on the ``noise`` scenario at alpha = 0.2
(8 factors, 8 codes) for a few sample sizes, as :func:`measure_costs` measures them: as a
task runs them, every metric of a draw in one :func:`metrics.shared_estimates` scope, so a
metric whose estimates an earlier one computed is charged for what it adds.  The variants
the presets sweep (``z_diff[batch_size=50]``) have their own rows where their options change
the cost by more than :data:`VARIANT_TOLERANCE`; the others are charged their metric's cost.  A variant row
measured after a sibling (:func:`follower_variants`) holds only what it adds to that sibling's work, so a variant
that runs first on a draw is charged at least its metric's cost::

    python -m harness.execution.costs            # prints a fresh table to paste here (a few minutes)

Between and beyond the measured sizes the cost is interpolated linearly in log-log
space (extrapolated with the slope of the two largest sizes, never below linear
growth), and the planner scales a cell by its representation's shape: ``K / 8`` times the
metric's measured growth with the number of codes ``L`` (:data:`MEASURED_WIDTH_FACTORS`,
interpolated the same way in ``L``; :func:`harness.execution.plan.shape_factor`; populations
are not scaled).  Most metrics grow about linearly in ``L`` (``K L`` pairs, or one model per
factor on ``L`` codes); a few grow faster (MISJED's ``L x L`` code pairs, Do and Tran's
``I(z_i; z_!=i)`` per code over ``L - 1`` codes), which a ``K L`` law underestimated 3 to 6
times at 256 codes.

A metric that shares estimates with others of its family in a draw (the k-NN estimates of
the information metrics) is charged, in :data:`MEASURED_SECONDS`, only what it adds to those
that ran before it in the measuring order; run with no earlier metric of its family in the
draw, it pays for them itself (:data:`MEASURED_ALONE_SECONDS`: ``rmig`` alone costs 0.22 s at
n = 2000, charged 0.0003 s after ``pid``).  The estimate is meant to tell minutes from days,
not to the second::

    python -m harness.execution.costs widths     # prints a fresh MEASURED_WIDTH_FACTORS (about 15 minutes)
    python -m harness.execution.costs alone      # prints a fresh MEASURED_ALONE_SECONDS (a few minutes)
"""

from __future__ import annotations

import functools
import itertools
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

#: Median CPU seconds per call, by metric and sample size (measured by ``python -m harness.execution.costs``
#: on 2026-11-22 with 3 repeats, one BLAS thread, load about 1 on 2 cores; ``dci_gbt`` once, at n = 1000 only;
#: ``udr`` on ``udr_population`` at n <= 10000; the ``z_max_var`` rows on 2026-11-23 with 5 repeats, load 0.8, after its
#: ranks speed-up; ``dci_rf`` at n = 1000 on 2026-11-27, scaled by 0.76, what growing its forests tree by tree took
#: against scikit-learn's forest in one run, alternating, median of 5: 1.565 against 2.058 s on that slower day; at
#: n = 10000 and 20000 the two took the same within 9%, and those rows stand).  Variants are listed where their cost
#: differs from their metric's.  The ``[estimator=gaussian]`` rows (:func:`estimator_variants`) are each call's cost
#: alone, measured on 2026-11-27 and divided by the speed :func:`machine_speed` measured before and after (2.34 and
#: 3.43, so 2.9): a call reads one Gram matrix in 1 to 4 ms where the k-NN default's neighbour searches take 0.1 to
#: 4 s, so charged ``pid``'s row they were estimated 100 to 1000 times too dear, and given no permutation null.
MEASURED_SECONDS: Mapping[str, Mapping[int, float]] = {
    'dci_es': {1000: 0.02793, 10000: 0.2549, 20000: 0.5386},
    'dci_es[max_capacity_doublings=6]': {1000: 0.0001553, 10000: 0.0008641, 20000: 0.001691},
    'dci_es[max_capacity_doublings=8]': {1000: 9.379e-05, 10000: 0.0004857, 20000: 0.0008827},
    'dci_gbt': {1000: 11.69},
    'dci_lasso': {1000: 0.1101, 10000: 0.1388, 20000: 0.1747},
    'dci_rf': {1000: 0.6294, 10000: 3.235, 20000: 3.725},
    'dcimig': {1000: 0.00215, 10000: 0.002185, 20000: 0.002964},
    'dcimig[bins=40]': {1000: 0.003071, 10000: 0.003507, 20000: 0.004853},
    'dcimig[bins=5]': {1000: 0.001033, 10000: 0.001819, 20000: 0.002673},
    'explicitness': {1000: 0.1472, 10000: 0.3292, 20000: 0.5302},
    'indin_at_k': {1000: 0.02294, 10000: 0.2003, 20000: 0.4204},
    'indin_at_k[estimator=gaussian]': {1000: 0.0009554, 10000: 0.002265, 20000: 0.003835},
    'infomec': {1000: 0.1018, 10000: 0.5025, 20000: 1.063},
    'informativeness': {1000: 0.0002846, 10000: 0.0007097, 20000: 0.001096},
    'informativeness[estimator=gaussian]': {1000: 0.0007494, 10000: 0.001929, 20000: 0.003435},
    'irs': {1000: 0.00205, 10000: 0.01069, 20000: 0.02025},
    'irs[bins=40]': {1000: 0.003982, 10000: 0.01292, 20000: 0.02373},
    'jemmig': {1000: 0.0001482, 10000: 0.0001932, 20000: 0.0002326},
    'mcc': {1000: 0.0009174, 10000: 0.004203, 20000: 0.007772},
    'mig': {1000: 0.0001288, 10000: 0.0001856, 20000: 0.0002256},
    'mig[bins=20]': {1000: 0.001241, 10000: 0.002532, 20000: 0.003895},
    'mig[bins=40]': {1000: 0.003098, 10000: 0.003237, 20000: 0.004692},
    'mig[bins=5]': {1000: 0.00109, 10000: 0.00162, 20000: 0.002406},
    'mig_sup': {1000: 8.277e-05, 10000: 8.97e-05, 20000: 9.162e-05},
    'minimality_sufficiency': {1000: 7.022e-05, 10000: 7.669e-05, 20000: 7.883e-05},
    'misjed': {1000: 0.007959, 10000: 0.1595, 20000: 0.3983},
    'modularity': {1000: 0.0001091, 10000: 0.0001576, 20000: 0.000168},
    'pid': {1000: 0.09141, 10000: 0.911, 20000: 1.946},
    'pid[estimator=gaussian]': {1000: 0.001045, 10000: 0.002052, 20000: 0.003714},
    'r2': {1000: 0.0005564, 10000: 0.002519, 20000: 0.005488},
    'rmig': {1000: 0.0002511, 10000: 0.0005586, 20000: 0.0008859},
    'rmig[bins=10,estimator=miller_madow]': {1000: 0.001347, 10000: 0.002227, 20000: 0.003264},
    'rmig[bins=20,estimator=miller_madow]': {1000: 0.0011, 10000: 0.00281, 20000: 0.00447},
    'rmig[bins=40,estimator=miller_madow]': {1000: 0.001934, 10000: 0.003354, 20000: 0.004774},
    'rmig[bins=5,estimator=miller_madow]': {1000: 0.0009713, 10000: 0.001853, 20000: 0.002845},
    'rmig[estimator=gaussian]': {1000: 0.0005653, 10000: 0.001798, 20000: 0.003526},
    'sap': {1000: 0.0003053, 10000: 0.001999, 20000: 0.003906},
    'sepin_at_k': {1000: 0.01292, 10000: 0.1139, 20000: 0.2442},
    'sepin_at_k[estimator=gaussian]': {1000: 0.0006894, 10000: 0.001744, 20000: 0.003422},
    'snc_nk': {1000: 0.05756, 10000: 0.5161, 20000: 1.063},
    'udr': {1000: 2.956, 10000: 35.08},
    'unibound': {1000: 0.0001917, 10000: 0.0002492, 20000: 0.0002505},
    'unibound[bins=5]': {1000: 0.0004079, 10000: 0.0009318, 20000: 0.001286},
    'unibound[estimator=gaussian]': {1000: 0.0009561, 10000: 0.002327, 20000: 0.003721},
    'windin': {1000: 0.0002131, 10000: 0.0005871, 20000: 0.001007},
    'windin[estimator=gaussian]': {1000: 0.0007969, 10000: 0.002066, 20000: 0.003812},
    'wsepin': {1000: 0.0001562, 10000: 0.0004281, 20000: 0.0008161},
    'wsepin[estimator=gaussian]': {1000: 0.0009784, 10000: 0.001736, 20000: 0.003354},
    'z_diff': {1000: 0.2057, 10000: 0.1678, 20000: 0.1885},
    'z_diff[batch_size=50]': {1000: 0.06336, 10000: 0.0692, 20000: 0.07825},
    'z_max_var': {1000: 0.01655, 10000: 0.02539, 20000: 0.03559},
    'z_max_var[bins=20]': {1000: 0.01752, 10000: 0.03429, 20000: 0.05492},
    'z_max_var[bins=40]': {1000: 0.01986, 10000: 0.04585, 20000: 0.07542},
    'z_min_var': {1000: 0.02489, 10000: 0.05077, 20000: 0.05522},
    'z_min_var[bins=5]': {1000: 0.03981, 10000: 0.05312, 20000: 0.06292},
}

#: The representation shape (factors, codes) the costs are measured on; a cell on another shape is scaled by
#: ``K / 8`` times :func:`width_factor` (:func:`harness.execution.plan.shape_factor`).
MEASURED_SHAPE = (8, 8)

#: Median CPU seconds per call of the metrics that share estimates with others of their family, each measured in a
#: scope of its own (what it costs with no earlier metric of its family in the draw), where that exceeds its cost in
#: the measuring order :data:`ALONE_FACTOR` times (:func:`shared_alone_rows`; ``python -m harness.execution.costs
#: alone``, on 2026-11-26 with 3 repeats, one BLAS thread, load about 4 on 2 cores); the ``[estimator=gaussian]`` rows
#: are those of :data:`MEASURED_SECONDS`, measured alone.
MEASURED_ALONE_SECONDS: Mapping[str, Mapping[int, float]] = {
    'indin_at_k[estimator=gaussian]': {1000: 0.0009554, 10000: 0.002265, 20000: 0.003835},
    'informativeness': {1000: 0.03354, 10000: 0.198, 20000: 0.4012},
    'informativeness[estimator=gaussian]': {1000: 0.0007494, 10000: 0.001929, 20000: 0.003435},
    'jemmig': {1000: 0.003971, 10000: 0.005767, 20000: 0.007994},
    'mig': {1000: 0.003527, 10000: 0.006418, 20000: 0.006505},
    'mig_sup': {1000: 0.002653, 10000: 0.006582, 20000: 0.00706},
    'minimality_sufficiency': {1000: 0.002865, 10000: 0.004017, 20000: 0.00582},
    'modularity': {1000: 0.002466, 10000: 0.005453, 20000: 0.008017},
    'pid[estimator=gaussian]': {1000: 0.001045, 10000: 0.002052, 20000: 0.003714},
    'rmig': {1000: 0.2132, 10000: 1.336, 20000: 2.835},
    'rmig[estimator=gaussian]': {1000: 0.0005653, 10000: 0.001798, 20000: 0.003526},
    'sepin_at_k': {1000: 0.08999, 10000: 0.6495, 20000: 1.563},
    'sepin_at_k[estimator=gaussian]': {1000: 0.0006894, 10000: 0.001744, 20000: 0.003422},
    'unibound': {1000: 0.197, 10000: 1.914, 20000: 3.721},
    'unibound[estimator=gaussian]': {1000: 0.0009561, 10000: 0.002327, 20000: 0.003721},
    'windin': {1000: 0.05248, 10000: 0.4422, 20000: 1.016},
    'windin[estimator=gaussian]': {1000: 0.0007969, 10000: 0.002066, 20000: 0.003812},
    'wsepin': {1000: 0.08628, 10000: 0.7577, 20000: 1.46},
    'wsepin[estimator=gaussian]': {1000: 0.0009784, 10000: 0.001736, 20000: 0.003354},
}

#: Cost of a call on 8 factors and ``L`` codes relative to 8 codes, by metric: median CPU seconds ratios at n = 2000,
#: each call in a scope of its own, the first 8 codes noisy copies of the factors and the others independent noise
#: (``python -m harness.execution.costs widths``, on 2026-11-26, one BLAS thread, load about 4 on 2 cores; a width
#: left out took over a minute after the one before).  At this n a fixed cost per call still weighs: MCC and R² grow
#: faster in L at n = 100000 (their O(n L^2) solves), where the estimate is low by up to 6x.  The
#: ``[estimator=gaussian]`` rows were measured on 2026-11-27.
MEASURED_WIDTH_FACTORS: Mapping[str, Mapping[int, float]] = {
    'dci_es': {8: 1, 32: 3.192, 128: 11.15, 256: 18.85},
    'dci_lasso': {8: 1, 32: 1.078, 128: 1.581, 256: 1.88},
    'dci_rf': {8: 1, 32: 2.534, 128: 8.704, 256: 16.46},
    'dcimig': {8: 1, 32: 4.971, 128: 21.94, 256: 30.53},
    'explicitness': {8: 1, 32: 1.566, 128: 2.866, 256: 12.49},
    'indin_at_k': {8: 1, 32: 3.493, 128: 30.23, 256: 103.3},
    'indin_at_k[estimator=gaussian]': {8: 1, 32: 2.023, 128: 7.254, 256: 19.75},
    'infomec': {8: 1, 32: 1.552, 128: 2.746, 256: 6.41},
    'informativeness': {8: 1, 32: 3.861, 128: 16.22, 256: 40.34},
    'informativeness[estimator=gaussian]': {8: 1, 32: 2.156, 128: 7.849, 256: 20.22},
    'irs': {8: 1, 32: 1.133, 128: 2.188, 256: 4.717},
    'jemmig': {8: 1, 32: 3.309, 128: 12.24, 256: 30.1},
    'mcc': {8: 1, 32: 1.149, 128: 2.977, 256: 7.829},
    'mig': {8: 1, 32: 3.745, 128: 14.13, 256: 22.41},
    'mig_sup': {8: 1, 32: 3.135, 128: 17.28, 256: 40.51},
    'minimality_sufficiency': {8: 1, 32: 3.334, 128: 14.02, 256: 26.57},
    'misjed': {8: 1, 32: 1.972, 128: 22.66, 256: 87.95},
    'modularity': {8: 1, 32: 3.234, 128: 11.87, 256: 33.37},
    'pid': {8: 1, 32: 3.96, 128: 14.36, 256: 27.47},
    'pid[estimator=gaussian]': {8: 1, 32: 1.992, 128: 14.31, 256: 58.68},
    'r2': {8: 1, 32: 2.246, 128: 8.495, 256: 22.92},
    'rmig': {8: 1, 32: 4.582, 128: 19.07, 256: 38.81},
    'rmig[estimator=gaussian]': {8: 1, 32: 1.186, 128: 3.459, 256: 10.41},
    'sap': {8: 1, 32: 1.294, 128: 3.124, 256: 6.012},
    'sepin_at_k': {8: 1, 32: 4.615, 128: 33.99, 256: 123.3},
    'sepin_at_k[estimator=gaussian]': {8: 1, 32: 2.283, 128: 7.702, 256: 21.66},
    'snc_nk': {8: 1, 32: 3.067, 128: 10.22, 256: 23.44},
    'unibound': {8: 1, 32: 3.62, 128: 11.06, 256: 21.88},
    'unibound[estimator=gaussian]': {8: 1, 32: 2.022, 128: 16.06, 256: 57.69},
    'windin': {8: 1, 32: 5.492, 128: 38.49, 256: 155.7},
    'windin[estimator=gaussian]': {8: 1, 32: 2.241, 128: 9.194, 256: 22.5},
    'wsepin': {8: 1, 32: 4.185, 128: 38.04, 256: 153.8},
    'wsepin[estimator=gaussian]': {8: 1, 32: 2.539, 128: 8.337, 256: 23.61},
    'z_diff': {8: 1, 32: 1.487, 128: 3.793, 256: 6.147},
    'z_max_var': {8: 1, 32: 1.202, 128: 1.403, 256: 1.498},
    'z_min_var': {8: 1, 32: 1.108, 128: 1.615, 256: 2.243},
}

#: Families whose metrics reuse each other's estimates within a draw (binned tables and k-NN estimates; intervention
#: subsets).
SHARING_FAMILIES = ("information", "intervention")

#: Assumed cost of a metric nobody measured (a user's): this many seconds per call at n = 1000,
#: growing linearly with n.
UNKNOWN_SECONDS_AT_1000 = 0.05

#: A variant of an option sweep gets its own row in :data:`MEASURED_SECONDS` only where its cost
#: differs from its metric's by more than this fraction at some measured size.
VARIANT_TOLERANCE = 0.25

#: ... and by more than this many seconds (smaller differences are timing noise, 0.002 CPU-hours a paper study).
VARIANT_MIN_SECONDS = 0.001


def estimated_seconds(metric: str, n_samples: int, *, registered: bool = True, variant_of: str = "",
                      after_sibling: bool = True, earlier: Sequence[tuple[str, str]] | None = None) -> float:
    """Estimated CPU seconds of one call of ``metric`` on ``n_samples`` samples.

    Parameters
    ----------
    metric : str
        Registered name, or a variant's name (``z_diff[batch_size=50]``).  An unknown
        name gets the default cost of an unmeasured metric.
    n_samples : int
        Samples of the representation.
    registered : bool, default True
        False for a user's metric, which is never in the table.
    variant_of : str, optional
        For a variant, the metric it is a variant of: its cost is used where the variant's
        own is not in the table (only variants whose options change the cost are).
    after_sibling : bool, default True
        Whether another variant of the same metric runs before this one on the same draw.
        A variant row measured after a sibling (:func:`follower_variants`: ``dci_es``'s
        larger capacities reuse the trees the first one grew) holds only what it adds; a
        variant that runs first pays at least its metric's cost.
    earlier : sequence of (name, variant_of), optional
        The metrics of its sharing family that run before it on the same draw.  None: as in the measuring order
        (:data:`MEASURED_SECONDS`).  Otherwise the metric pays what its cost alone (:data:`MEASURED_ALONE_SECONDS`)
        exceeds the earlier ones' costs alone by, at least its measured row: the estimates it shares were computed
        by those only, and cost no more than they did (a study of ``rmig`` alone pays its k-NN estimates; after
        ``pid``, which computes them, only its own work).
    """
    return _estimated(metric, n_samples, registered, variant_of, after_sibling,
                      None if earlier is None else tuple(earlier))


def clear_estimates() -> None:
    """Forget the cached estimates (:func:`estimated_seconds` caches them for the life of the process, from the
    tables as they are at import): call it after changing a table."""
    for cached in (_estimated, _alone_seconds, _charged_seconds):
        cached.cache_clear()


@functools.cache  # a study asks for the same few thousand estimates once per seed: the paper's plan, 100 times
def _estimated(metric: str, n_samples: int, registered: bool, variant_of: str, after_sibling: bool,
               earlier: tuple[tuple[str, str], ...] | None) -> float:
    """:func:`estimated_seconds`, with ``earlier`` a tuple."""
    charged = _charged_seconds(metric, n_samples, registered, variant_of, after_sibling)
    if earlier is None or not registered:
        return charged
    alone = _alone_seconds(metric, variant_of, n_samples) - sum(_alone_seconds(*other, n_samples) for other in earlier)
    return max(charged, alone)


@functools.cache
def _alone_seconds(metric: str, variant_of: str, n_samples: int) -> float:
    """A registered metric's cost with nothing shared (its measured row where sharing does not change it)."""
    own = MEASURED_ALONE_SECONDS.get(metric) or MEASURED_ALONE_SECONDS.get(variant_of)
    return _interpolated(own, n_samples) if own else _charged_seconds(metric, n_samples, True, variant_of, True)


@functools.cache
def _charged_seconds(metric: str, n_samples: int, registered: bool, variant_of: str, after_sibling: bool) -> float:
    """:func:`estimated_seconds` in the measuring order."""
    if registered and not after_sibling and metric in follower_variants() and variant_of in MEASURED_SECONDS:
        return max(_interpolated(MEASURED_SECONDS[metric], n_samples), _interpolated(MEASURED_SECONDS[variant_of], n_samples))
    table = (MEASURED_SECONDS.get(metric) or MEASURED_SECONDS.get(variant_of)) if registered else None
    if not table:
        return UNKNOWN_SECONDS_AT_1000 * n_samples / 1000
    return _interpolated(table, n_samples)


def width_factor(metric: str, codes: int, *, registered: bool = True, variant_of: str = "") -> float:
    """How much more one call of ``metric`` costs on ``codes`` codes than on 8 (:data:`MEASURED_WIDTH_FACTORS`,
    interpolated in log-log space and extrapolated never below linear growth; linear for a metric not measured)."""
    table = (MEASURED_WIDTH_FACTORS.get(metric) or MEASURED_WIDTH_FACTORS.get(variant_of)) if registered else None
    return _interpolated(table or {MEASURED_SHAPE[1]: 1.0}, codes)


def shape_cost(metric: str, factors: int, codes: int, *, registered: bool = True, variant_of: str = "") -> float:
    """How much more one call of ``metric`` costs on ``factors`` factors x ``codes`` codes than on the 8 x 8 its cost was
    measured on (:data:`MEASURED_SHAPE`): ``K / 8`` times its measured growth with the number of codes
    (:func:`width_factor`).  :func:`harness.execution.plan.shape_factor` reads a scenario's shape into it."""
    return factors / MEASURED_SHAPE[0] * width_factor(metric, codes, registered=registered, variant_of=variant_of)


@functools.lru_cache(maxsize=1)
def follower_variants() -> frozenset[str]:
    """The variant rows of :data:`MEASURED_SECONDS` measured after another variant of their metric in the same
    draw (:func:`cost_table_passes` order), whose cost therefore assumes that sibling ran first."""
    followers = set()
    for entries, measured in variant_passes(cost_table_passes()):
        first_of: dict[str, str] = {}
        for entry in entries:
            if entry.variant_of and first_of.setdefault(entry.variant_of, entry.name) != entry.name and entry.name in measured:
                followers.add(entry.name)
    return frozenset(name for name in followers if name in MEASURED_SECONDS)


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


def _interpolated(table: Mapping[int, float], n_samples: int) -> float:
    """A measured row's cost at ``n_samples``: log-log interpolation, extrapolated never below linear growth."""
    sizes = sorted(table)
    if len(sizes) == 1:
        return table[sizes[0]] * n_samples / sizes[0]
    if n_samples <= sizes[0]:
        low, high = sizes[0], sizes[1]
    elif n_samples >= sizes[-1]:
        low, high = sizes[-2], sizes[-1]
    else:
        high = next(size for size in sizes if size >= n_samples)
        low = sizes[sizes.index(high) - 1]
    slope = math.log(table[high] / table[low]) / math.log(high / low)
    if n_samples > high:  # extrapolate from the largest measured size, never below linear growth
        return float(table[high] * (n_samples / high) ** max(slope, 1.0))
    return float(table[low] * (n_samples / low) ** slope)


#: The metrics :func:`machine_speed` times: predictor metrics that share no estimate with another (their rows of
#: :data:`MEASURED_SECONDS` are their whole cost), 0.26 CPU-s together at n = 1000 in the table.
SPEED_REFERENCE = ("explicitness", "dci_lasso")


@functools.cache  # measured once a process (about a second): the property tests plan dozens of dry runs
def machine_speed(repeats: int = 2) -> float:
    """How many times its measured cost (:data:`MEASURED_SECONDS`) a metric call takes on this machine now.

    Times :data:`SPEED_REFERENCE` as :func:`measure_costs` measured the table (n = 1000, ``noise`` at 0.2, one BLAS
    thread, the median of ``repeats``), and returns the ratio of their total to the table's: about 1 on the machine
    and day the table was measured, 2.3 on the same kind of machine four days later (every metric call then took 1.8
    to 2.9 times its row).  The estimates the planner uses (the cells' order, the null budget) never read it, so a
    study's cells do not depend on the machine; ``run --dry-run`` prints the study's time at this speed too.
    """
    from harness.execution.metric_refs import registered_entry

    measured = measure_costs([registered_entry(name) for name in SPEED_REFERENCE], sizes=(1000,), population_sizes=(),
                             repeats=repeats)
    return sum(measured[name][1000] for name in SPEED_REFERENCE) / sum(MEASURED_SECONDS[name][1000] for name in SPEED_REFERENCE)


#: Where a metric's per-call estimate comes from (:func:`cost_source`): its own measured row, or its metric's row for a
#: variant measured within :data:`VARIANT_TOLERANCE` of it; its metric's row for a variant nobody measured (a
#: ``--metric-option`` no preset sweeps: ``dci_rf[n_estimators=100]`` grows five times the trees of ``dci_rf``); or
#: :data:`UNKNOWN_SECONDS_AT_1000` (a user's metric).
COST_SOURCES = ("measured", "its metric's (variant not measured)", "assumed (not measured)")


def cost_source(entry: Any) -> str:
    """Where :func:`estimated_seconds` takes the cost of ``entry`` (a :class:`harness.execution.metric_refs.MetricEntry`)
    from: one of :data:`COST_SOURCES`.  A variant that sets every option to its default (``pid[estimator=knn]``) is its
    metric, measured."""
    from harness.execution.metric_refs import registered_entry

    name, metric = entry.name, entry.variant_of or entry.name
    if not entry.registered or metric not in MEASURED_SECONDS:
        return COST_SOURCES[2]
    if (entry.variant_of and name not in MEASURED_SECONDS and name not in _measured_variants()
            and dict(entry.options) != dict(registered_entry(metric).options)):
        return COST_SOURCES[1]
    return COST_SOURCES[0]


@functools.lru_cache(maxsize=1)
def _measured_variants() -> frozenset[str]:
    """The variants ``python -m harness.execution.costs`` measures: the presets' sweeps (:func:`cost_table_passes`) and
    :func:`estimator_variants`."""
    swept = (entry for entries in cost_table_passes()[1:] for entry in entries)
    return frozenset(entry.name for entry in itertools.chain(swept, estimator_variants()) if entry.variant_of)


def estimator_variants() -> list[Any]:
    """``NAME[estimator=gaussian]`` of every registered metric with an ``estimator`` option: what a user picks for wide
    codes or large n, at a cost unlike the k-NN default's, so measured on its own (each call alone: the Gaussian
    variants of a draw share one Gram matrix, which the first pays)."""
    import metrics
    from harness.execution.metric_refs import registered_entry, variants

    entries = [registered_entry(name) for name in metrics.available(population=False)]
    return [variants(entry, {"estimator": ("gaussian",)})[0] for entry in entries if "estimator" in dict(entry.options)]


def study_estimate(cells: Sequence[Any]) -> list[dict[str, Any]]:
    """Estimated CPU cost of a planned study, one record per metric, most expensive first.

    Parameters
    ----------
    cells : sequence of harness.execution.plan.Cell
        The planned cells (:func:`harness.execution.runner.plan_study`).

    Returns
    -------
    list of dict
        ``metric``, ``cells``, ``null_permutations`` (the largest ``B`` of its cells' nulls), ``cpu_hours`` (the
        sum of the cells' estimates, nulls included), ``null_cpu_hours`` (the nulls' share) and ``per_call_cost``: where
        its per-call cost comes from (:data:`COST_SOURCES`).
    """
    totals: dict[str, dict[str, Any]] = {}
    for cell in cells:
        record = totals.get(cell.metric.name)
        if record is None:  # once a metric: a plan holds its cells by the thousand
            record = totals[cell.metric.name] = {
                "metric": cell.metric.name, "cells": 0, "null_permutations": 0, "cpu_hours": 0.0, "null_cpu_hours": 0.0,
                "per_call_cost": cost_source(cell.metric),
            }
        record["cells"] += 1
        record["null_permutations"] = max(record["null_permutations"], cell.null_permutations)
        record["cpu_hours"] += cell.estimated_seconds / 3600
        record["null_cpu_hours"] += cell.estimated_null_seconds / 3600
    return sorted(totals.values(), key=lambda record: -record["cpu_hours"])


def measure_costs(
    entries: Sequence[Any],
    sizes: Sequence[int] = (1000, 10000, 20000),
    population_sizes: Sequence[int] = (1000, 10000),
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
        Sample sizes of the population metrics (a population call costs far more).
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


def overcomplete_draw(n: int, n_factors: int, n_codes: int, *, factorial: bool = False, seed: int = 0) -> tuple[Any, Any]:
    """Factors uniform on [0, 1] (on {0, 1}, flagged discrete by the caller, for the intervention metrics' factorial
    design) and codes whose first ``min(K, L)`` columns are noisy copies of them, the others independent N(0, 1):
    an overcomplete code with nuisance columns, as the null and overcomplete settings build."""
    import numpy as np

    rng = np.random.default_rng(seed)
    factors = rng.random((n, n_factors))
    if factorial:
        factors = np.floor(2 * factors)
    codes = rng.standard_normal((n, n_codes))
    shared = min(n_factors, n_codes)
    codes[:, :shared] = factors[:, :shared] + 0.1 * codes[:, :shared]
    return factors, codes


def measure_width_factors(entries: Sequence[Any], widths: Sequence[int] = (8, 32, 128, 256), n_samples: int = 2000,
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


def measure_alone_costs(entries: Sequence[Any], **options: Any) -> dict[str, dict[int, float]]:
    """:func:`measure_costs` of each entry in a scope of its own: its cost with nothing shared."""
    return {entry.name: measure_costs([entry], **options)[entry.name] for entry in entries}


ALONE_FACTOR = 3.0
"""A metric's cost alone enters :data:`MEASURED_ALONE_SECONDS` when it exceeds its cost in the measuring order, measured
in the same run, this many times at the largest size: the estimates an earlier metric of its family computes for it.
Smaller differences are the measuring machine's load (the same metric measured on another day differed 2x)."""


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


def cost_table_passes() -> list[list[Any]]:
    """What ``python -m harness.execution.costs`` measures, one list per kind of task.

    First every registered metric but ``dci_gbt`` at its defaults, in registry order; then,
    for each preset that sweeps options, the same metrics as that preset's tasks run them:
    each swept metric replaced by its variants (so the first variant of a sweep pays for the
    estimates the others share, as it does in a study).
    """
    import metrics
    from harness.execution.metric_refs import registered_entry, variants
    from harness.execution.presets import PRESETS

    base = [registered_entry(name) for name in metrics.available(population=None) if name != "dci_gbt"]
    passes = [base]
    for preset in PRESETS.values():
        if preset.metric_options:
            passes.append([variant for entry in base if not entry.population
                           for variant in variants(entry, preset.metric_options.get(entry.name, {}))])
    return passes


def measure_cost_table(passes: Sequence[Sequence[Any]], **options: Any) -> dict[str, dict[int, float]]:
    """Every metric's cost from the first pass, every variant's from the first later pass
    that runs it (:func:`measure_costs` with ``options`` on each pass)."""
    table = measure_costs(passes[0], **options)
    for entries, swept in variant_passes(passes):
        measured = measure_costs(entries, **options)
        table.update({name: measured[name] for name in swept})
    return table


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


def _print_table(name: str, table: Mapping[str, Mapping[int, float]]) -> None:
    print(f"{name}: Mapping[str, Mapping[int, float]] = {{")
    for entry, row in sorted(table.items()):
        print(f"    {entry!r}: {{{', '.join(f'{n}: {s:.4g}' for n, s in sorted(row.items()))}}},")
    print("}")


if __name__ == "__main__":  # pragma: no cover - a measuring tool, run by hand
    import sys

    from harness.execution.metric_refs import registered_entry as _registered_entry

    _mode = sys.argv[1] if len(sys.argv) > 1 else "seconds"
    _passes = cost_table_passes()
    if _mode == "widths":
        _print_table("MEASURED_WIDTH_FACTORS", measure_width_factors(_passes[0] + estimator_variants()))
    elif _mode == "alone":
        _sharing = [entry for entry in _passes[0] if entry.family in SHARING_FAMILIES and not entry.population]
        _print_table("MEASURED_ALONE_SECONDS", {**shared_alone_rows(measure_alone_costs(_sharing), measure_costs(_sharing)),
                                                **measure_alone_costs(estimator_variants())})
    else:
        _table = distinct_variant_costs(measure_cost_table(_passes), [entry for group in _passes for entry in group])
        _table.update(measure_alone_costs(estimator_variants()))
        _table.update(measure_costs([_registered_entry("dci_gbt")], sizes=(1000,), repeats=1))
        _print_table("MEASURED_SECONDS", _table)
