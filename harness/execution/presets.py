"""Named study presets.

A preset fixes which scenarios and metrics run, how many seeds, the sample size, and
which metric options are swept (the sweeps the report's sensitivity section and the
property matrix's "Discretization-free" and "Few hyper-parameters" columns read).
``None`` for scenarios or metrics means every registered one.  Command-line flags
override any field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping


@dataclass(frozen=True)
class Preset:
    """A study configuration.

    Attributes
    ----------
    name : str
        Preset name, recorded in the results' ``study`` column.
    seeds : int
        Independent draws of every representation.
    n_samples : int
        Samples per representation (scenarios that fix their own sample size, such as
        ``sample_size``, ignore it).
    scenarios, metrics : tuple of str or None
        Which to run; None means all registered ones (less ``excluded_metrics``).
    excluded_metrics : tuple of str
        Registered metrics left out when ``metrics`` is None, because their cost does
        not fit the preset's time budget; name them with ``--metrics`` to run them.
    grids : Mapping[str, tuple]
        Scenario name -> parameter values to run instead of the scenario's default grid.
    metric_options : Mapping[str, Mapping[str, tuple]]
        Option sweeps (metric -> option -> values) run when the caller names neither
        sweeps nor metrics (named metrics run plain); each sweep includes the metric's
        default value, whose variant stands for the metric in the report's other
        sections.  Sweeps of metrics outside the study (``excluded_metrics``) are skipped.
    description : str
        What the preset is for, and how long it takes.
    """

    name: str
    seeds: int
    n_samples: int
    scenarios: tuple[str, ...] | None = None
    metrics: tuple[str, ...] | None = None
    excluded_metrics: tuple[str, ...] = ()
    grids: Mapping[str, tuple] = field(default_factory=lambda: MappingProxyType({}))
    metric_options: Mapping[str, Mapping[str, tuple]] = field(default_factory=lambda: MappingProxyType({}))
    description: str = ""


#: Numbers of bins swept for every metric that discretises (the range of review 5.2's choices; default 10).
SWEPT_BINS = (5, 10, 20, 40)
#: Capacities of DCI-ES's probe curve swept (trees of up to 2**d leaves; default 8).
SWEPT_CAPACITY_DOUBLINGS = (4, 6, 8)
#: The default preset's sweeps: two cheap metrics, so that the default report measures both sensitivity
#: columns (MIG: discretization; DCI-ES: a probe capacity) at seconds of extra CPU time.
DEFAULT_SWEEPS = MappingProxyType({
    "mig": MappingProxyType({"bins": SWEPT_BINS}),
    "dci_es": MappingProxyType({"max_capacity_doublings": SWEPT_CAPACITY_DOUBLINGS}),
})
#: The paper preset's sweeps: bins for the binned metrics whose cost allows it (not explicitness or misjed,
#: whose three extra variants would add about 7 CPU-hours together: sweep them with --metric-option), the batch size for Z-diff and
#: bins for Z-min/Z-max Variance, the estimator for RMIG, DCI-ES's probe capacity.  SAP's ``max_leaves`` is not swept: it
#: sets trees for discrete factors only, and the scenarios' factors are continuous (it would measure nothing).
PAPER_SWEEPS = MappingProxyType({
    **{metric: MappingProxyType({"bins": SWEPT_BINS}) for metric in (
        "mig", "mig_sup", "jemmig", "modularity", "dcimig", "minimality_sufficiency", "irs", "unibound",
        "informativeness", "windin", "wsepin")},
    "rmig": MappingProxyType({"bins": SWEPT_BINS, "estimator": ("histogram", "miller_madow", "knn")}),
    "z_diff": MappingProxyType({"batch_size": (50, 200)}),
    "z_min_var": MappingProxyType({"bins": SWEPT_BINS}),
    "z_max_var": MappingProxyType({"bins": SWEPT_BINS}),
    "dci_es": MappingProxyType({"max_capacity_doublings": SWEPT_CAPACITY_DOUBLINGS}),
})


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset(
            name="quick",
            seeds=1,
            n_samples=1000,
            scenarios=("noise", "mixing"),
            excluded_metrics=("dci_gbt",),
            description="smoke test: noise and mixing, 1 seed, n = 1000, every metric but dci_gbt (under a minute on 2 cores)",
        ),
        Preset(
            name="default",
            seeds=2,
            n_samples=1000,
            excluded_metrics=("dci_gbt",),
            grids=MappingProxyType({"sample_size": (100, 1000, 10000)}),
            metric_options=DEFAULT_SWEEPS,
            description="every scenario and metric but dci_gbt, 2 seeds, n = 1000, sample_size up to n = 10000, "
            "MIG swept over bins and DCI-ES over its probe capacity (about 3 minutes on 2 cores)",
        ),
        Preset(
            name="paper",
            seeds=100,
            n_samples=20000,
            excluded_metrics=("dci_gbt",),
            metric_options=PAPER_SWEEPS,
            description="the review's protocol (Zaidi et al. 2022, 5.2): n = 20000, 100 seeds, every scenario and "
            "metric but dci_gbt, which the review never used (name it with --metrics to add it); "
            "see run --dry-run for its cost",
        ),
    )
}
