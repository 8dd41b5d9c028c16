"""Named study presets.

A preset fixes which scenarios and metrics run, how many seeds, the sample size, and
which metric options are swept (the sweeps the report's sensitivity section and the
property matrix's "Discretization-free" and "Few hyper-parameters" columns read).
``None`` for scenarios or metrics means every registered one.  Command-line flags
override any field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


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
        not fit the preset's time budget; add them with ``--add-metrics`` (``add_metrics=``).
    excluded_scenarios : tuple of str
        Registered scenarios left out when ``scenarios`` is None; name them with ``--scenarios``.
    grids : Mapping[str, tuple]
        Scenario name -> parameter values to run instead of the scenario's default grid.
    sample_sizes : Mapping[str, int]
        Scenario name -> samples per representation instead of ``n_samples``, for the scenarios
        whose source paper used another sample size (``--n-samples`` overrides it too).
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
    excluded_scenarios: tuple[str, ...] = ()
    grids: Mapping[str, tuple] = field(default_factory=lambda: MappingProxyType({}))
    sample_sizes: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
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


#: The scenarios of Tokui and Sato (2022), run at their sample size ("we used the sample size of 10000 in
#: experiments", section 4.2) rather than the review's 20000.
TOKUI_SATO_SCENARIOS = ("redundancy_attack", "synergy_attack", "gaussian_toy_redundancy", "gaussian_toy_synergy")
#: Metrics left out of the paper preset for its time budget (20 CPU-hours), named with ``--add-metrics`` to add them:
#: disentanglement_lib's gradient-boosted DCI, which the review never used (about 330 CPU-hours on its own), and the
#: three costliest of the metrics from the 2023-2026 literature (about 5.4 CPU-hours together; the default preset runs
#: them on every scenario).
PAPER_EXCLUDED_METRICS = ("dci_gbt", "infomec", "snc_nk", "dci_es")
#: Joshi et al.'s (2026) factor structures and null codes, left out of the default and paper presets until a preset
#: of their own: null codes up to 128 columns wide cost DCI-RF 16 CPU-s a call at n = 1000 (2.3 s on 8 codes).
IDENTIFIABILITY_SCENARIOS = ("equicorrelated", "equicorrelated_uniform", "equicorrelated_statistical",
                             "redundant_copy", "redundant_function", "null_gaussian", "null_uniform")

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
            excluded_scenarios=IDENTIFIABILITY_SCENARIOS,
            grids=MappingProxyType({"sample_size": (100, 1000, 10000)}),
            metric_options=DEFAULT_SWEEPS,
            description="every scenario but Joshi et al.'s and every metric but dci_gbt, 2 seeds, n = 1000, sample_size "
            "up to n = 10000, MIG swept over bins and DCI-ES over its probe capacity (about 3 minutes on 2 cores)",
        ),
        Preset(
            name="paper",
            seeds=100,
            n_samples=20000,
            excluded_metrics=PAPER_EXCLUDED_METRICS,
            excluded_scenarios=IDENTIFIABILITY_SCENARIOS,
            sample_sizes=MappingProxyType({name: 10000 for name in TOKUI_SATO_SCENARIOS}),
            metric_options=PAPER_SWEEPS,
            description="the papers' protocols: the review's (Zaidi et al. 2022, 5.2: n = 20000, 100 seeds), n = 10000 "
            "for Tokui and Sato's four scenarios (theirs); every scenario but Joshi et al.'s, every metric but dci_gbt, "
            "infomec, snc_nk and dci_es, left out for cost (add them with --add-metrics); about 19 CPU-hours (see run "
            "--dry-run)",
        ),
    )
}
