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

from harness.execution.costs import MEASURED_REFERENCE_SECONDS

#: Which cells of a study a preset's null budget gives a permutation null (:attr:`Preset.null_cells`): every one, or
#: only those a verdict reads one at (:func:`harness.execution.null_budget.read_by_a_verdict`).
NULL_CELLS = ("every", "verdicts")



@dataclass(frozen=True)
class Preset:
    """A study configuration.

    Attributes
    ----------
    name : str
        Preset name, recorded in the results' ``study`` column.
    seeds : int
        Independent draws of every representation; with ``max_seeds``, the draws every cell starts with.
    max_seeds : int
        Race the seeds up to this many (:mod:`harness.execution.racing`): cells feeding a verdict that is still
        undecided get more draws, doubling from ``seeds``; 0: a fixed ``seeds`` everywhere.
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
    grids : Mapping[str, tuple or Mapping[str, tuple]]
        Scenario name -> parameter values to run instead of the scenario's default grid, or axis -> values: a
        two-parameter sweep (:mod:`harness.execution.sweeps`).
    sample_sizes : Mapping[str, int]
        Scenario name -> samples per representation instead of ``n_samples``, for the scenarios
        whose source paper used another sample size (``--n-samples`` overrides it too).
    scenario_seeds : Mapping[str, int]
        Scenario name -> draws per parameter value instead of ``seeds``, for the scenarios where a few more
        seeds decide verdicts at little cost (``--seeds`` overrides it too).
    metric_options : Mapping[str, Mapping[str, tuple]]
        Option sweeps (metric -> option -> values) run when the caller names neither
        sweeps nor metrics (named metrics run plain); each sweep includes the metric's
        default value, whose variant stands for the metric in the report's other
        sections.  Sweeps of metrics outside the study (``excluded_metrics``) are skipped.
    axial_sweeps : bool
        Run the variants of ``metric_options`` that set one option off its default at a time (the
        others at their defaults: what the report's option verdicts read) instead of every
        combination of the swept values.
    sweep_scenarios : Mapping[str, tuple[str, ...]]
        Metric -> the scenarios its sweep of ``metric_options`` runs on; on the study's other
        scenarios it runs its default variant only (every option at the metric's default), so
        that the sweep costs only where it decides a verdict.  A swept metric not named here
        sweeps on every scenario.
    null_budget_seconds : float
        Estimated CPU seconds one cell's permutation null may cost: each metric gets as many permutations as
        fit, 19 to 100, or none (:func:`harness.execution.null_budget.metric_permutations`); 0: no nulls.
        ``--null-permutations`` (``null_permutations=``) overrides it.
    null_cells : {"every", "verdicts"}
        Which cells the budget gives a null (:data:`NULL_CELLS`): every one, or
        only those a verdict reads a null at, the fully random end of the noise scenarios
        (:func:`harness.execution.null_budget.read_by_a_verdict`).
    description : str
        What the preset is for, and how long it takes.
    sources : Mapping[str, str]
        Scenario (as in ``scenarios``) -> the published setting it reproduces, for a preset reproducing a paper.
    """

    name: str
    seeds: int
    n_samples: int
    max_seeds: int = 0
    scenarios: tuple[str, ...] | None = None
    metrics: tuple[str, ...] | None = None
    excluded_metrics: tuple[str, ...] = ()
    excluded_scenarios: tuple[str, ...] = ()
    grids: Mapping[str, tuple | Mapping[str, tuple]] = field(default_factory=lambda: MappingProxyType({}))
    sample_sizes: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    scenario_seeds: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    metric_options: Mapping[str, Mapping[str, tuple]] = field(default_factory=lambda: MappingProxyType({}))
    axial_sweeps: bool = False
    sweep_scenarios: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    null_budget_seconds: float = 0.0
    null_cells: str = "every"
    description: str = ""
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.null_cells not in NULL_CELLS:
            raise ValueError(f"preset {self.name!r}: null_cells must be one of {', '.join(NULL_CELLS)}, got {self.null_cells!r}")


#: Numbers of bins swept for every metric that discretises (the range of review 5.2's choices; default 10).
SWEPT_BINS = (5, 10, 20, 40)
#: Capacities of DCI-ES's probe curve swept (trees of up to 2**d leaves; default 8).
SWEPT_CAPACITY_DOUBLINGS = (4, 6, 8)
#: Where the review's option verdicts are decided: its discretisation experiments, noise (section 5.2: IRS and
#: Z-max Variance "require" finer or coarser bins; noise moves codes across bins) and the nonlinear map (5.5: "potential
#: problems inherent to discretization"); noise also exposes a predictor's capacity and an intervention metric's batch.
DECIDING_SCENARIOS = ("noise", "nonlinear")
#: The options each review metric's "Discretization-free" and "Few hyper-parameters" verdicts need (the review's
#: hyper-parameters, sections 3, 4.2, 4.3 and 6.2: discretisation granularity, batch size, predictor parameters,
#: validation protocol): bins for every binned metric; the intervention metrics' batch size and IRS's distance
#: quantile; DCI-lasso's penalty grid (ours or the review's code's) and cross-validation folds; DCI-RF's forest size
#: (its leaf size is chosen by out-of-bag error); the Explicitness score's inverse penalty C; SAP's tree size and
#: held-out share (they act on discrete factors only: swept on ``categorical``); the estimator of RMIG.  A sweep's
#: values include the option's default.
REVIEW_SWEEPS = MappingProxyType({
    **{metric: MappingProxyType({"bins": SWEPT_BINS, "batch_size": (50, 200)}) for metric in (
        "z_diff", "z_min_var", "z_max_var")},
    "irs": MappingProxyType({"bins": SWEPT_BINS, "diff_quantile": (0.99, 1.0)}),
    "dci_lasso": MappingProxyType({"alpha_grid": ("path", "review"), "folds": (5, 10)}),
    "dci_rf": MappingProxyType({"n_estimators": (10, 20)}),
    "explicitness": MappingProxyType({"bins": SWEPT_BINS, "C": (0.1, 1.0, 10.0)}),
    "sap": MappingProxyType({"max_leaves": ("auto", 8, 32), "test_size": (0.25, 0.5)}),
    **{metric: MappingProxyType({"bins": SWEPT_BINS}) for metric in ("mig", "mig_sup", "jemmig", "modularity", "dcimig")},
    "rmig": MappingProxyType({"bins": SWEPT_BINS, "estimator": ("histogram", "miller_madow", "knn")}),
})
#: Where each costly sweep of :data:`REVIEW_SWEEPS` runs (:attr:`Preset.sweep_scenarios`); the information metrics'
#: sweeps cost milliseconds and run on every scenario.
REVIEW_SWEEP_SCENARIOS = MappingProxyType({
    **{metric: DECIDING_SCENARIOS for metric in ("z_diff", "z_min_var", "z_max_var", "irs", "dci_lasso", "dci_rf",
                                                "explicitness")},
    "sap": ("categorical",),
})
#: The default preset's sweeps: the review metrics' (so that the default report measures every cell of the review's
#: Table 2) and DCI-ES's probe capacity.
DEFAULT_SWEEPS = MappingProxyType({
    **REVIEW_SWEEPS,
    "dci_es": MappingProxyType({"max_capacity_doublings": SWEPT_CAPACITY_DOUBLINGS}),
})
#: Where the paper preset's sweeps run: as :data:`REVIEW_SWEEP_SCENARIOS`, but the two costliest (the Explicitness
#: score's six extra variants and DCI-RF's smaller forest, about 1 CPU-hour each at the paper's 20000 samples and 100
#: seeds on two scenarios) on noise only, the review's discretisation experiment (5.2), which also exposes a
#: predictor's capacity: the preset stays within 20 CPU-hours.
PAPER_SWEEP_SCENARIOS = MappingProxyType({**REVIEW_SWEEP_SCENARIOS, "explicitness": ("noise",), "dci_rf": ("noise",)})
#: The paper preset's sweeps: the review metrics' (where :data:`PAPER_SWEEP_SCENARIOS` says), bins for the other
#: binned metrics whose cost allows it (not misjed, whose three extra variants would add hours: sweep it with
#: --metric-option), DCI-ES's probe capacity.
PAPER_SWEEPS = MappingProxyType({
    **REVIEW_SWEEPS,
    **{metric: MappingProxyType({"bins": SWEPT_BINS}) for metric in (
        "minimality_sufficiency", "unibound", "informativeness", "windin", "wsepin")},
    "dci_es": MappingProxyType({"max_capacity_doublings": SWEPT_CAPACITY_DOUBLINGS}),
})


#: The fixed workload's CPU time (:mod:`harness.execution.reference_workload`) at the speed the presets' budgets are
#: stated at: that of the cost table as it stood from 2026-11-22 to 2026-11-29, on whose days the same machine ran the
#: metrics' calls about 2 to 2.4 times as fast as when the table was measured again on 2026-11-30 (its rows over the old
#: ones: median 2.0 at n = 1000, with the metrics' speed-ups since pulling it down).  A budget in CPU seconds at that
#: speed is ``1 / BUDGET_WORKLOAD_SECONDS`` runs of the workload a second (14), so it buys the same work whichever day
#: and machine measured the table (:func:`at_table_speed`).
BUDGET_WORKLOAD_SECONDS = 1 / 14


def at_table_speed(budget_seconds: float) -> float:
    """A budget of ``budget_seconds`` CPU seconds at the presets' speed (:data:`BUDGET_WORKLOAD_SECONDS`) in estimated
    CPU seconds at the cost table's speed (:data:`harness.execution.costs.MEASURED_REFERENCE_SECONDS`)."""
    return budget_seconds * MEASURED_REFERENCE_SECONDS / BUDGET_WORKLOAD_SECONDS


#: What one cell's permutation null may cost in the default preset, in CPU seconds at the presets' speed (28 runs of
#: the fixed workload; 4.6 s at the table of 2026-11-30: :data:`NULL_BUDGET_SECONDS`), given only to the cells a
#: verdict reads a null at (the fully random end of the noise scenario, each metric at its defaults): 100 permutations
#: for the histogram metrics, fewer for costlier calls (PID, about 0.2 s a call at n = 1000 in that table, gets 21),
#: none for a call above 1/19 of it.  Stated in seconds at the table's speed, the same 2 s gave PID and SNC/NK no null
#: (where they had 21 and 34) once the table was measured on a slower day.  Given to every cell, a budget of 0.1 s made
#: the nulls 43% of the default study's measured CPU time (731 of 1700 s).  The paper preset has none by default: at
#: n = 20000 and 100 seeds nulls on every cell add hours (give it ``--null-permutations``).
NULL_BUDGET_AT_PRESET_SPEED = 2.0

#: :data:`NULL_BUDGET_AT_PRESET_SPEED` in estimated CPU seconds at the cost table's speed (what a preset states).
NULL_BUDGET_SECONDS = at_table_speed(NULL_BUDGET_AT_PRESET_SPEED)

#: The review's seeds (Zaidi et al. 2022, 5.2: "100 different sampled versions of V using 100 random seeds"), the paper
#: preset's cap.
PAPER_SEEDS = 100
#: The seeds every cell of the paper preset starts with: the review's 100 are raced (:mod:`harness.execution.racing`),
#: 12, then 24, 48 and 100 only for the cells of a verdict still undecided.  100 on every cell costs about 14 CPU-hours
#: at the presets' speed (``--seeds 100``; 31 at the speed of the table of 2026-11-30); the first round, an eighth of that.
PAPER_FIRST_SEEDS = 12

#: The scenarios of Tokui and Sato (2022), run at their sample size ("we used the sample size of 10000 in
#: experiments", section 4.2) rather than the review's 20000.
TOKUI_SATO_SCENARIOS = ("redundancy_attack", "synergy_attack", "gaussian_toy_redundancy", "gaussian_toy_synergy")
#: The paper preset's budgets, in CPU-hours at the presets' speed (:func:`at_table_speed`; 2.3 times as many at the
#: speed of the table of 2026-11-30): its dry run's estimate (the race's first round) and the review's 100 seeds on
#: every cell (the race's cap).
PAPER_FIRST_ROUND_CPU_HOURS, PAPER_CPU_HOURS = 6.0, 20.0
#: Metrics left out of the paper preset for its time budget (:data:`PAPER_CPU_HOURS`); name them with
#: ``--add-metrics`` to add them: disentanglement_lib's gradient-boosted DCI, which the review never used (about 330
#: CPU-hours on its own), and the
#: three costliest of the metrics from the 2023-2026 literature (about 5.4 CPU-hours together; the default preset runs
#: them on every scenario).
PAPER_EXCLUDED_METRICS = ("dci_gbt", "infomec", "snc_nk", "dci_es")
#: Joshi et al.'s (2026) factor structures and null codes, left out of the default and paper presets until a preset
#: of their own: null codes up to 128 columns wide cost DCI-RF 16 CPU-s a call at n = 1000 (2.3 s on 8 codes).
IDENTIFIABILITY_SCENARIOS = ("equicorrelated", "equicorrelated_uniform", "equicorrelated_statistical",
                             "redundant_copy", "redundant_function", "null_gaussian", "null_uniform")

#: Joshi et al.'s (2026) main settings, each a scenario of this harness (their experiment numbers in brackets):
#: the perfect encoder on equicorrelated factors swept over rho (exp. 3, E1 on D2), dense mixing swept jointly over
#: its condition number kappa and rho (exps. 3-4, E3 on D2: the phase diagram), an elementwise nonlinearity of
#: strength alpha (exp. 2, E2 on D1, here tanh), redundant factors (exps. 1 and 7, D3 and D4), dropped codes (exp. 6,
#: E4), overcomplete linear and circular codes (exps. 8-9, E5 and E8), and null codes swept over the code width and
#: the sample size (exp. 11, E9).  D1, independent factors, is ``equicorrelated`` at rho = 0.
JOSHI2026_SCENARIOS = ("equicorrelated", "dense_mixing@equicorrelated", "elementwise_tanh@equicorrelated=0",
                       "redundant_copy", "redundant_function", "undercomplete@equicorrelated=0",
                       "overcomplete_linear@equicorrelated=0", "circular@equicorrelated=0", "null_gaussian")
_JOSHI = "Joshi et al. 2026"
#: Where each setting of the joshi2026 preset comes from (experiments, DGPs D1-D4 and encoders E1-E10 as they number
#: them).
JOSHI2026_SOURCES = MappingProxyType({
    "equicorrelated": f"{_JOSHI}, exp. 3: E1 (perfect encoder) on D2, swept over rho",
    "dense_mixing@equicorrelated": f"{_JOSHI}, exps. 3-4: E3 (dense mixing, condition number kappa) on D2, kappa x rho",
    "elementwise_tanh@equicorrelated=0": f"{_JOSHI}, exp. 2: E2 (elementwise nonlinearity alpha) on D1",
    "redundant_copy": f"{_JOSHI}, exps. 1 and 7: D3 (a factor a noisy copy of another) under E1",
    "redundant_function": f"{_JOSHI}, exps. 1 and 7: D4 (a factor a noisy function of others) under E1",
    "undercomplete@equicorrelated=0": f"{_JOSHI}, exp. 6: E4 (dropped codes) on D1",
    "overcomplete_linear@equicorrelated=0": f"{_JOSHI}, exps. 8-9: E5 (overcomplete linear) on D1",
    "circular@equicorrelated=0": f"{_JOSHI}, exps. 8-9: E8 (sin, cos codes) on D1",
    "null_gaussian": f"{_JOSHI}, exp. 11: E9 (Gaussian null codes), L/K x n",
})
#: The two-parameter sweeps of the joshi2026 preset: their exp. 4 grid thinned (kappa 1 to 50, rho from the lowest
#: valid value for K = 5 to 0.99), and null codes from n = 50 to 20000 at L/K = 1, 4 and 16 (their exp. 11).
JOSHI2026_GRIDS = MappingProxyType({
    "dense_mixing@equicorrelated": MappingProxyType({"kappa": (1, 2, 5, 10, 50), "base.rho": (-0.24, 0, 0.5, 0.9, 0.99)}),
    "null_gaussian": MappingProxyType({"width_ratio": (1, 4, 16), "n_samples": (50, 200, 1000, 5000, 20000)}),
})
#: Their metrics as this harness has them: MCC with Pearson and Spearman correlations (MCC-P, MCC-S), R^2, DCI (with
#: lasso importances: their default, gradient-boosted trees, costs hours on the wide null codes), MIG and InfoMEC
#: (InfoM).  MCC-RDC and T-MEX have no implementation here.
JOSHI2026_METRICS = ("mcc", "r2", "dci_lasso", "mig", "infomec")

#: The default study's chance-level sweep: Gaussian null codes as wide as the factors and four times wider, at a small
#: and the study's sample size (the ``joshi2026`` preset sweeps 1 to 16 and n = 50 to 20000).
DEFAULT_CHANCE_GRID = MappingProxyType({"width_ratio": (1, 4), "n_samples": (100, 1000)})

#: What the default study and validate's battery share: their scenarios, metrics, sample sizes, race of seeds (3 to
#: 12) and nulls; the default study adds the option sweeps.
DEFAULT_BATTERY: Mapping[str, object] = MappingProxyType({
    "seeds": 3,
    "max_seeds": 12,
    "n_samples": 1000,
    "excluded_metrics": ("dci_gbt",),
    "excluded_scenarios": tuple(name for name in IDENTIFIABILITY_SCENARIOS if name != "null_gaussian"),
    "grids": MappingProxyType({"sample_size": (100, 1000, 10000), "null_gaussian": DEFAULT_CHANCE_GRID}),
    "null_budget_seconds": NULL_BUDGET_SECONDS,
    "null_cells": "verdicts",
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
            **DEFAULT_BATTERY,
            metric_options=DEFAULT_SWEEPS,
            axial_sweeps=True,
            sweep_scenarios=REVIEW_SWEEP_SCENARIOS,
            description="every scenario but Joshi et al.'s (Gaussian null codes aside: their chance level at width ratios 1 "
            "and 4, n = 100 and 1000) and every metric but dci_gbt; seeds raced: 3 on every cell, doubled (6, then 12) "
            "only where a verdict is still undecided; n = 1000, sample_size up to n = 10000, the review metrics' options "
            "swept (bins, batch sizes, capacities, estimators; the costly sweeps on noise and nonlinear only) and "
            "DCI-ES's probe capacity, permutation nulls where the calibration verdict reads them (pure noise, each "
            "metric at its defaults, up to 28 runs of the fixed workload a cell); run --dry-run prints the first "
            "round's and the cap's estimates",
        ),
        Preset(
            name="validate",
            **DEFAULT_BATTERY,
            description="validate's battery: the default study's scenarios, metrics and race of seeds (3, then 6 and "
            "12 where a verdict is undecided), without its option sweeps, so that a new metric's card measures every "
            "column of the property matrix a synthetic battery can (the option columns need --metric-option) with an "
            "interval for every verdict; the built-ins' cells are computed once and cached",
        ),
        Preset(
            name="paper",
            seeds=PAPER_FIRST_SEEDS,
            max_seeds=PAPER_SEEDS,
            n_samples=20000,
            excluded_metrics=PAPER_EXCLUDED_METRICS,
            excluded_scenarios=IDENTIFIABILITY_SCENARIOS,
            sample_sizes=MappingProxyType({name: 10000 for name in TOKUI_SATO_SCENARIOS}),
            metric_options=PAPER_SWEEPS,
            axial_sweeps=True,
            sweep_scenarios=PAPER_SWEEP_SCENARIOS,
            description="the papers' protocols: the review's (Zaidi et al. 2022, 5.2: n = 20000, up to its 100 seeds), "
            "n = 10000 for Tokui and Sato's four scenarios (theirs); every scenario but Joshi et al.'s, every metric but "
            "dci_gbt, infomec, snc_nk and dci_es, left out for cost (add them with --add-metrics); seeds raced: 12 on "
            "every cell, doubled (24, 48, then the review's 100) only where a verdict is still undecided (--seeds 100: "
            "100 everywhere, about 18 CPU-hours); about 2 CPU-hours for the first round (see run --dry-run)",
        ),
        Preset(
            name="joshi2026",
            seeds=3,
            n_samples=1000,
            scenarios=JOSHI2026_SCENARIOS,
            metrics=JOSHI2026_METRICS,
            grids=JOSHI2026_GRIDS,
            metric_options=MappingProxyType({"mcc": MappingProxyType({"correlation": ("pearson", "spearman")})}),
            sources=JOSHI2026_SOURCES,
            description="the main settings of Joshi et al. 2026 (Who Guards the Guardians?, UAI): equicorrelated factors "
            "under the perfect encoder and under dense mixing (kappa x rho phase diagram), elementwise tanh, redundant "
            "factors, undercomplete, overcomplete and circular codes, null codes over width x n (50 to 20000); MCC "
            "(Pearson, Spearman), R2, DCI-lasso, MIG, InfoMEC; 3 seeds, n = 1000",
        ),
    )
}
