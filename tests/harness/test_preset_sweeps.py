"""A preset's option sweeps (Preset.metric_options) reach the planned cells when the caller names no metrics."""

from __future__ import annotations

from pathlib import Path

import metrics
from harness.execution.metric_refs import registered_entry, variants
from harness.execution.presets import PRESETS
from harness.execution.runner import plan_study


def _metrics(cells) -> set[str]:
    return {cell.metric.name for cell in cells}


def _variants_of(cells, metric: str) -> set[str]:
    return {cell.metric.name for cell in cells if cell.metric.variant_of == metric}


def test_the_default_preset_plans_its_sweeps_as_variant_cells():
    cells = plan_study(preset="default", scenarios_=["mixing"], seeds=1, n_samples=100)
    assert _variants_of(cells, "mig") == {"mig[bins=5]", "mig[bins=10]", "mig[bins=20]", "mig[bins=40]"}
    assert _variants_of(cells, "dci_es") == {"dci_es[max_capacity_doublings=4]", "dci_es[max_capacity_doublings=6]",
                                             "dci_es[max_capacity_doublings=8]"}
    assert "mig" not in _metrics(cells) and "jemmig" in _metrics(cells)
    assert {dict(c.metric.options)["bins"] for c in cells if c.metric.variant_of == "mig"} == {5, 10, 20, 40}
    values = {cell.value for cell in cells}
    assert sum(cell.metric.variant_of == "mig" for cell in cells) == 4 * len(values)


def test_named_metrics_run_plain_and_the_callers_sweeps_replace_the_presets():
    named = plan_study(preset="default", scenarios_=["mixing"], metrics_=["mig", "jemmig"], seeds=1, n_samples=100)
    assert _metrics(named) == {"mig", "jemmig"}
    swept = plan_study(preset="default", scenarios_=["mixing"], seeds=1, n_samples=100,
                       metric_options={"jemmig": {"bins": [5, 10]}})
    assert _variants_of(swept, "jemmig") == {"jemmig[bins=5]", "jemmig[bins=10]"}
    assert "mig" in _metrics(swept) and not _variants_of(swept, "mig")


def test_the_paper_preset_sweeps_rmig_over_bins_and_estimators():
    cells = plan_study(preset="paper", scenarios_=["mixing"], seeds=1, n_samples=100)
    rmig = _variants_of(cells, "rmig")
    assert len(rmig) == 4 * 3 and "rmig[bins=10,estimator=knn]" in rmig
    assert {"z_diff[batch_size=50]", "z_diff[batch_size=200]", "z_min_var[bins=40]"} <= _metrics(cells)
    assert not any(cell.metric.name.startswith("dci_gbt") for cell in cells)


def test_every_preset_sweep_is_a_valid_option_and_includes_the_default():
    for preset in PRESETS.values():
        for metric, sweep in preset.metric_options.items():
            variants(registered_entry(metric), sweep)  # raises for an option the metric does not take
            defaults = metrics.get(metric).defaults
            for option, values in sweep.items():
                assert defaults[option] in values, (preset.name, metric, option)


def test_the_guide_presets_table_names_every_sweep_of_every_preset():
    """A baseline of a preset's run holds its variants (``mig[bins=5]``), not ``mig``: the table must say so."""
    readme = (Path(__file__).resolve().parents[2] / "harness" / "README.md").read_text()
    for preset in PRESETS.values():
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{preset.name}` |"))
        for metric, options in preset.metric_options.items():
            assert f"`{metric}`" in row, f"harness/README.md's {preset.name} row does not name its sweep of {metric}"
            for option, values in options.items():
                assert f"`{option}`" in row and all(str(value) in row for value in values), (preset.name, metric, option)
