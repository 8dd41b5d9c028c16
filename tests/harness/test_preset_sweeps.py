"""A preset's option sweeps (Preset.metric_options) reach the planned cells when the caller gives none."""

from __future__ import annotations

import metrics
from harness.execution.metric_refs import registered_entry, variants
from harness.execution.presets import PRESETS
from harness.execution.runner import plan_study


def _metrics(cells) -> set[str]:
    return {cell.metric.name for cell in cells}


def test_the_default_preset_plans_its_sweeps_as_variant_cells():
    cells = plan_study(preset="default", scenarios_=["mixing"], metrics_=["mig", "dci_es", "jemmig"], seeds=1,
                       n_samples=100)
    assert _metrics(cells) == {"mig[bins=5]", "mig[bins=10]", "mig[bins=20]", "mig[bins=40]",
                               "dci_es[max_capacity_doublings=4]", "dci_es[max_capacity_doublings=6]",
                               "dci_es[max_capacity_doublings=8]", "jemmig"}
    per_value = {cell.value for cell in cells}
    assert len(cells) == 8 * len(per_value)
    assert {dict(c.metric.options)["bins"] for c in cells if c.metric.variant_of == "mig"} == {5, 10, 20, 40}


def test_the_callers_sweeps_replace_the_presets():
    cells = plan_study(preset="default", scenarios_=["mixing"], metrics_=["mig", "jemmig"], seeds=1, n_samples=100,
                       metric_options={"jemmig": {"bins": [5, 10]}})
    assert _metrics(cells) == {"mig", "jemmig[bins=5]", "jemmig[bins=10]"}


def test_a_presets_sweep_of_a_metric_outside_the_study_is_skipped():
    cells = plan_study(preset="default", scenarios_=["mixing"], metrics_=["jemmig"], seeds=1, n_samples=100)
    assert _metrics(cells) == {"jemmig"}


def test_the_paper_preset_sweeps_rmig_over_bins_and_estimators():
    cells = plan_study(preset="paper", scenarios_=["mixing"], metrics_=["rmig", "z_diff"], seeds=1, n_samples=100)
    rmig = {cell.metric.name for cell in cells if cell.metric.variant_of == "rmig"}
    assert len(rmig) == 4 * 3 and "rmig[bins=10,estimator=knn]" in rmig
    assert "z_diff[bins=40,batch_size=50]" in _metrics(cells)


def test_every_preset_sweep_is_a_valid_option_and_includes_the_default():
    for preset in PRESETS.values():
        for metric, sweep in preset.metric_options.items():
            variants(registered_entry(metric), sweep)  # raises for an option the metric does not take
            defaults = metrics.get(metric).defaults
            for option, values in sweep.items():
                assert defaults[option] in values, (preset.name, metric, option)
