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
    assert "mig" not in _metrics(cells) and "jemmig[bins=10]" in _metrics(cells) and "pid" in _metrics(cells)
    assert {dict(c.metric.options)["bins"] for c in cells if c.metric.variant_of == "mig"} == {5, 10, 20, 40}
    values = {cell.value for cell in cells}
    assert sum(cell.metric.variant_of == "mig" for cell in cells) == 4 * len(values)


def _by_scenario(cells, metric: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for cell in cells:
        if cell.metric.variant_of == metric:
            found.setdefault(cell.scenario, set()).add(cell.metric.name)
    return found


def test_the_review_sweeps_are_axial_and_run_only_where_they_decide():
    """One option off its default at a time (4 + 2 - 1 variants of Z-diff, not 4 x 2), and the costly sweeps on the
    scenarios that decide the option verdicts: elsewhere the default variant alone stands for the metric."""
    cells = plan_study(preset="default", scenarios_=["mixing", "noise", "categorical"], seeds=1, n_samples=100)
    z_diff = _by_scenario(cells, "z_diff")
    assert z_diff["noise"] == {"z_diff[bins=10,batch_size=200]", "z_diff[bins=10,batch_size=50]",
                               *(f"z_diff[bins={b},batch_size=200]" for b in (5, 20, 40))}
    assert z_diff["mixing"] == z_diff["categorical"] == {"z_diff[bins=10,batch_size=200]"}
    sap = _by_scenario(cells, "sap")  # its options act on discrete factors only
    assert sap["categorical"] == {"sap[max_leaves=auto,test_size=0.25]", "sap[max_leaves=auto,test_size=0.5]",
                                  "sap[max_leaves=8,test_size=0.25]", "sap[max_leaves=32,test_size=0.25]"}
    assert sap["noise"] == {"sap[max_leaves=auto,test_size=0.25]"}
    assert len(_by_scenario(cells, "jemmig")["mixing"]) == 4  # a cheap sweep runs everywhere


def test_named_metrics_run_plain_and_the_callers_sweeps_replace_the_presets():
    named = plan_study(preset="default", scenarios_=["mixing"], metrics_=["mig", "jemmig"], seeds=1, n_samples=100)
    assert _metrics(named) == {"mig", "jemmig"}
    swept = plan_study(preset="default", scenarios_=["mixing"], seeds=1, n_samples=100,
                       metric_options={"jemmig": {"bins": [5, 10]}})
    assert _variants_of(swept, "jemmig") == {"jemmig[bins=5]", "jemmig[bins=10]"}
    assert "mig" in _metrics(swept) and not _variants_of(swept, "mig")


def test_the_paper_preset_sweeps_rmig_over_bins_and_estimators():
    cells = plan_study(preset="paper", scenarios_=["mixing", "noise"], seeds=1, n_samples=100)
    rmig = _variants_of(cells, "rmig")  # axial: bins at the default estimator, estimators at the default bins
    assert rmig == {*(f"rmig[bins={b},estimator=knn]" for b in (5, 10, 20, 40)), "rmig[bins=10,estimator=histogram]",
                    "rmig[bins=10,estimator=miller_madow]"}
    assert {"z_diff[bins=10,batch_size=50]", "z_diff[bins=10,batch_size=200]", "z_min_var[bins=40,batch_size=200]"} <= _metrics(cells)
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


def test_the_default_and_paper_presets_sweep_every_metric_of_the_reviews_table_2():
    """Without a sweep a metric's Discretization-free and Few hyper-parameters cells read "?": each of the review's
    metrics is swept, on scenarios the preset runs (planned here on those, as the full preset runs them)."""
    from reports.review.published import METRICS

    reviewed = {metric for metrics_ in METRICS.values() for metric in metrics_}
    for name in ("default", "paper"):
        preset = PRESETS[name]
        assert reviewed <= set(preset.metric_options), (name, reviewed - set(preset.metric_options))
        deciding = sorted({scenario for scenarios in preset.sweep_scenarios.values() for scenario in scenarios})
        assert preset.scenarios is None and not set(deciding) & set(preset.excluded_scenarios)
    cells = plan_study(preset="default", scenarios_=["noise", "nonlinear", "categorical"], seeds=1, n_samples=100)
    for metric in reviewed:
        assert len(_variants_of(cells, metric)) > 1, metric
