"""The cost model and its measurements: variants charged their own measured cost where it differs, measured as a task
runs them; the measured tables read from the data file the measuring tool writes."""

from __future__ import annotations

import json
import math

import pytest

import harness.execution.costs as costs
from harness.execution import cost_records
from harness.execution.cost_measurement import (
    SIZES,
    cost_table_passes,
    distinct_variant_costs,
    estimator_variants,
    measure_cost_table,
    measure_costs,
    shared_alone_rows,
)
from harness.execution.cost_measurement.__main__ import main
from harness.execution.costs import estimated_seconds
from harness.execution.metric_refs import registered_entry, variants
from harness.execution.presets import PRESETS
from harness.execution.runner import plan_study


@pytest.fixture(autouse=True)
def fresh_estimates():
    """Estimates computed from the tables as a test patches them (they are cached for the life of a process)."""
    costs.clear_estimates()
    yield
    costs.clear_estimates()


def test_a_variant_with_its_own_row_is_charged_its_own_cost(monkeypatch):
    monkeypatch.setattr(costs, "MEASURED_SECONDS", {"z_diff": {1000: 0.4, 10000: 0.4},
                                                    "z_diff[batch_size=50]": {1000: 0.1, 10000: 0.1}})
    assert estimated_seconds("z_diff[batch_size=50]", 1000, variant_of="z_diff") == pytest.approx(0.1)
    assert estimated_seconds("z_diff[batch_size=200]", 1000, variant_of="z_diff") == pytest.approx(0.4)
    assert estimated_seconds("z_diff[batch_size=200]", 1000) == pytest.approx(costs.UNKNOWN_SECONDS_AT_1000)


def test_planned_cells_use_the_variant_rows():
    cells = plan_study(preset="paper", scenarios_=["noise"], metrics_=["z_diff"], seeds=1,
                       metric_options={"z_diff": {"bins": [5], "batch_size": [50, 200]}})
    by_name = {cell.metric.name: cell.estimated_seconds for cell in cells if cell.value == cells[0].value}
    expected = {name: estimated_seconds(name, cells[0].n_samples, variant_of="z_diff") for name in by_name}
    assert by_name == expected
    # the table lists batch 50 (fewer pairs per batch: cheaper); batch 200 is charged z_diff's row, as measured
    assert "z_diff[bins=5,batch_size=50]" in costs.MEASURED_SECONDS
    assert "z_diff[bins=5,batch_size=200]" in costs.LIKE_THEIR_METRIC
    assert by_name["z_diff[bins=5,batch_size=50]"] < by_name["z_diff[bins=5,batch_size=200]"]


def test_variants_within_tolerance_are_dropped_from_the_table():
    base = registered_entry("mig")
    cheap, same = variants(base, {"bins": [5, 10]})
    table = {"mig": {1000: 1.0, 10000: 2.0}, cheap.name: {1000: 0.5, 10000: 2.0}, same.name: {1000: 1.1, 10000: 1.9}}
    kept = distinct_variant_costs(table, [base, cheap, same], tolerance=0.25)
    assert set(kept) == {"mig", cheap.name}
    tiny = {"mig": {1000: 1e-4}, cheap.name: {1000: 5e-4}, same.name: {1000: 1e-4}}  # within timing noise
    assert set(distinct_variant_costs(tiny, [base, cheap, same])) == {"mig"}


def test_the_measured_passes_cover_every_swept_variant_of_the_presets():
    passes = cost_table_passes()
    assert not any(entry.variant_of for entry in passes[0])  # first every metric at its defaults
    names = {entry.name for group in passes for entry in group}
    assert "dci_gbt" not in names and "mig" in names
    for preset in PRESETS.values():
        for metric, sweep in preset.metric_options.items():
            assert {variant.name for variant in variants(registered_entry(metric), sweep)} <= names


def test_measure_costs_shares_estimates_within_a_repeat():
    # unibound reuses the k-NN estimates pid computed on the same draw: charged far less than pid
    table = measure_costs([registered_entry("pid"), registered_entry("unibound")], sizes=(400,), repeats=1)
    assert set(table) == {"pid", "unibound"} and set(table["pid"]) == {400}
    assert table["unibound"][400] < table["pid"][400] / 5


def test_a_sweeps_first_variant_pays_for_what_the_others_share():
    # as a task of a sweep runs them: no plain dci_es before its variants, so [4] grows the trees [6] reuses
    base = registered_entry("dci_es")
    swept = variants(base, {"max_capacity_doublings": [4, 6]})
    table = measure_cost_table([[base], swept], sizes=(600,), repeats=1)
    assert set(table) == {"dci_es", *(entry.name for entry in swept)}
    assert table[swept[1].name][600] < table[swept[0].name][600] / 5


def test_a_variant_measured_after_a_sibling_pays_its_metric_when_it_runs_first():
    # dci_es's larger capacities reuse the probe trees the first variant of a draw grew: their rows hold only what
    # they add, z_diff[bins=5,batch_size=50] was measured first of its sweep (a cost of its own)
    followers = costs.FOLLOWER_VARIANTS
    assert {"dci_es[max_capacity_doublings=6]", "dci_es[max_capacity_doublings=8]"} <= followers
    assert "z_diff[bins=5,batch_size=50]" not in followers and "mig[bins=5]" not in followers
    base = estimated_seconds("dci_es", 20000)

    def estimates(values):
        cells = plan_study(preset="quick", scenarios_=["noise"], metrics_=["dci_es"], seeds=1, n_samples=20000,
                           metric_options={"dci_es": {"max_capacity_doublings": values}})
        return {cell.metric.name: cell.estimated_seconds for cell in cells if cell.value == cells[0].value}

    user = estimates([6, 8])  # no capacity 4 first: [6] grows the trees
    assert user["dci_es[max_capacity_doublings=6]"] == pytest.approx(base)
    assert user["dci_es[max_capacity_doublings=8]"] == pytest.approx(
        estimated_seconds("dci_es[max_capacity_doublings=8]", 20000, variant_of="dci_es"))
    preset = estimates([4, 6, 8])  # as the presets sweep it, and as the table was measured
    assert preset["dci_es[max_capacity_doublings=6]"] < base / 10
    # the first of the sweep grows the trees: its own row (measured so), not a follower's share
    first = estimated_seconds("dci_es[max_capacity_doublings=4]", 20000, variant_of="dci_es")
    assert preset["dci_es[max_capacity_doublings=4]"] == pytest.approx(first) and first > base / 2
    # a variant measured first of its sweep keeps its own, lower cost when it runs alone
    alone = plan_study(preset="quick", scenarios_=["noise"], metrics_=["z_diff"], seeds=1, n_samples=20000,
                       metric_options={"z_diff": {"bins": [5], "batch_size": [50]}})[0]
    assert alone.metric.name == "z_diff[bins=5,batch_size=50]"
    assert alone.estimated_seconds == pytest.approx(estimated_seconds(alone.metric.name, 20000, variant_of="z_diff"))
    assert alone.estimated_seconds < estimated_seconds("z_diff", 20000)


def test_a_metric_pays_the_estimates_no_earlier_metric_of_its_family_computed(monkeypatch):
    monkeypatch.setattr(costs, "MEASURED_SECONDS", {"pid": {1000: 1.0}, "rmig": {1000: 0.01}, "mig": {1000: 0.02}})
    monkeypatch.setattr(costs, "MEASURED_ALONE_SECONDS", {"rmig": {1000: 0.9}, "pid": {1000: 1.2}})
    assert estimated_seconds("rmig", 1000) == pytest.approx(0.01)  # as measured, after pid
    assert estimated_seconds("rmig", 1000, earlier=()) == pytest.approx(0.9)  # alone: its own k-NN estimates
    assert estimated_seconds("rmig", 1000, earlier=[("mig", "")]) == pytest.approx(0.9 - 0.02)  # mig has no alone row
    assert estimated_seconds("rmig", 1000, earlier=[("pid", "")]) == pytest.approx(0.01)  # pid computed them: floor
    assert estimated_seconds("rmig[bins=5]", 1000, variant_of="rmig", earlier=()) == pytest.approx(0.9)  # its metric's row
    assert estimated_seconds("mine", 1000, registered=False, earlier=()) == pytest.approx(costs.UNKNOWN_SECONDS_AT_1000)


def test_the_width_factor_follows_the_measured_growth_in_codes(monkeypatch):
    monkeypatch.setattr(costs, "MEASURED_WIDTH_FACTORS", {"misjed": {2000: {8: 1.0, 64: 16.0}},
                                                          "sap": {2000: {8: 1.0, 64: 2.0}}})
    assert costs.width_factor("misjed", 64, 2000) == pytest.approx(16.0)
    assert costs.width_factor("misjed", 512, 2000) == pytest.approx(16.0 * 8 ** (4 / 3))  # the measured slope, 4/3 in log-log
    assert costs.width_factor("sap", 512, 2000) == pytest.approx(2.0 * 8)  # beyond the measured widths: never below linear
    assert costs.width_factor("mig", 512, 2000) == pytest.approx(64.0)  # not measured: linear
    assert costs.width_factor("misjed[bins=5]", 64, 2000, variant_of="misjed") == pytest.approx(16.0)
    assert costs.width_factor("misjed", 64, 2000, registered=False) == pytest.approx(8.0)
    assert costs.width_factor("misjed", 64, 100_000) == costs.width_factor("misjed", 64, 100) == pytest.approx(16.0)


def test_the_width_factor_follows_the_sample_size_where_it_was_measured_at_several(monkeypatch):
    # an O(n L^2) solve: the cost per code grows with L the more, the larger n
    monkeypatch.setattr(costs, "MEASURED_WIDTH_FACTORS", {"mcc": {2000: {8: 1.0, 512: 64.0}, 100_000: {8: 1.0, 512: 256.0}}})
    assert costs.width_factor("mcc", 512, 1000) == pytest.approx(64.0)  # below the smallest measured n: its factors
    assert costs.width_factor("mcc", 512, 2000) == pytest.approx(64.0)
    assert costs.width_factor("mcc", 512, 10**6) == pytest.approx(256.0)  # above the largest: its factors
    assert costs.width_factor("mcc", 512, round(math.sqrt(2000 * 100_000))) == pytest.approx(128.0, rel=1e-4)  # geometric
    assert costs.shape_cost("mcc", 4, 512, 100_000) == pytest.approx(128.0)  # K / 8 times the width factor


def test_alone_rows_are_kept_only_beyond_the_measuring_noise():
    alone = {"rmig": {1000: 0.13, 20000: 2.8}, "pid": {1000: 0.17, 20000: 3.9}, "z_diff": {1000: 0.38, 20000: 0.46}}
    in_order = {"rmig": {1000: 0.0003, 20000: 0.0009}, "pid": {1000: 0.09, 20000: 1.9}, "z_diff": {1000: 0.2, 20000: 0.19}}
    assert set(shared_alone_rows(alone, in_order)) == {"rmig"}  # pid and z_diff: 2x, the load of the machine


def test_the_dry_run_says_which_costs_were_measured_and_which_are_its_metrics(capsys):
    """A variant nobody measured (a --metric-option no preset sweeps) is charged its metric's cost, and the dry run says
    so; a swept variant's and a Gaussian-estimator variant's costs were measured, a user's metric's is assumed."""
    from harness.cli import main
    from harness.execution.costs import COST_SOURCES, cost_source
    from harness.execution.metric_refs import registered_entry, resolve, variants

    def source(name, **options):
        return [cost_source(entry) for entry in variants(registered_entry(name), {o: (v,) for o, v in options.items()})]

    swept = {"bins": 40, "batch_size": 200}  # named as the default preset's sweep names it
    assert source("pid") == source("z_diff", **swept) == source("z_max_var", **swept) == [COST_SOURCES[0]]
    assert source("z_diff", bins=40) == [COST_SOURCES[1]]  # another name: charged z_diff's row, unmeasured
    assert source("pid", estimator="gaussian") == source("pid", estimator="knn") == [COST_SOURCES[0]]
    assert source("dci_rf", n_estimators=100) == [COST_SOURCES[1]]
    assert cost_source(resolve(f"{__file__}:_a_users_metric")) == COST_SOURCES[2]
    assert main(["run", "--scenarios", "noise", "--metrics", "dci_rf,mig", "--metric-option", "dci_rf:n_estimators=100",
                 "--dry-run"]) == 0
    rows = {line.split("|")[1].strip(): line.split("|")[-2].strip() for line in capsys.readouterr().out.splitlines()
            if line.startswith("| dci_rf[") or line.startswith("| mig ")}
    assert rows == {"dci_rf[n_estimators=100]": "its metric's (variant not measured)", "mig": "measured"}


def _a_users_metric(factors, codes):
    return 0.0


def test_every_gaussian_estimator_variant_has_measured_rows_far_below_its_knn_default():
    """The Gaussian variants read one Gram matrix (milliseconds) where k-NN searches take a tenth of a second and more:
    charged the k-NN row they were estimated 100 to 1000 times too dear, and got no permutation null."""
    import metrics
    from harness.execution.costs import MEASURED_ALONE_SECONDS, MEASURED_SECONDS, MEASURED_WIDTH_FACTORS
    from harness.execution.metric_refs import registered_entry
    from harness.execution.null_budget import metric_permutations

    with_estimator = {name for name in metrics.available() if "estimator" in dict(registered_entry(name).options)}
    gaussian = {entry.variant_of: entry for entry in estimator_variants()}
    assert set(gaussian) == with_estimator and len(with_estimator) == 8
    for name, entry in gaussian.items():
        assert entry.name == f"{name}[estimator=gaussian]"
        assert entry.name in MEASURED_SECONDS and entry.name in MEASURED_ALONE_SECONDS and entry.name in MEASURED_WIDTH_FACTORS
        # measured 2026-11-30: 12 to 109 times cheaper at n = 1000, 37 to 374 times at n = 20000
        for n_samples, cheaper in ((1000, 10), (20000, 30)):
            knn = estimated_seconds(name, n_samples, earlier=())
            own = estimated_seconds(entry.name, n_samples, variant_of=name, earlier=())
            assert own < knn / cheaper, (name, n_samples, own, knn)
        assert metric_permutations(entry, 1000, budget_seconds=2.0) >= 19, name


def test_the_model_reads_its_tables_from_the_data_file_with_each_runs_machine_and_date():
    document = json.loads(cost_records.DATA_FILE.read_text(encoding="utf-8"))
    assert set(document) == set(cost_records.TABLES)
    for runs in document.values():
        assert runs and all(run["datetime"] and run["machine"] and run["settings"] and run["rows"] for run in runs)
    measured = cost_records.read()
    assert costs.MEASURED_SECONDS == measured.seconds and costs.MEASURED_ALONE_SECONDS == measured.alone_seconds
    assert costs.MEASURED_WIDTH_FACTORS == measured.width_factors and costs.FOLLOWER_VARIANTS == measured.after_sibling
    assert set(costs.MEASURED_SECONDS) >= {"pid", "dci_rf", "z_diff[bins=5,batch_size=50]"}
    assert costs.MEASURED_REFERENCE_SECONDS == measured.reference_seconds > 0  # what the speed probe compares with
    assert all(row[8] == 1.0 for rows in costs.MEASURED_WIDTH_FACTORS.values() for row in rows.values())


def _run(rows, n_samples=None, **names):
    return cost_records.new_run(rows, {} if n_samples is None else {"n_samples": n_samples}, **names)


def test_a_later_run_replaces_its_rows_and_drops_the_runs_it_replaces_whole(tmp_path):
    path = tmp_path / "costs.json"
    cost_records.add_run("seconds", _run({"mig": {1000: 1.0}, "sap": {1000: 2.0}}, like_their_metric=["mig[bins=5]"]), path)
    cost_records.add_run("seconds", _run({"mig": {1000: 3.0, 2000: 4.0}}, after_sibling=["mig"]), path)
    measured = cost_records.read(path)
    assert measured.seconds == {"mig": {1000: 3.0, 2000: 4.0}, "sap": {1000: 2.0}}
    assert measured.after_sibling == {"mig"} and measured.like_their_metric == {"mig[bins=5]"}
    assert len(json.loads(path.read_text())["seconds"]) == 2  # the first still gives sap and mig[bins=5]
    cost_records.add_run("seconds", _run({"sap": {1000: 5.0}, "mig[bins=5]": {1000: 6.0}}), path)
    document = json.loads(path.read_text())
    assert len(document["seconds"]) == 2 and document["alone_seconds"] == document["width_factors"] == []
    assert cost_records.read(path).seconds == {"mig": {1000: 3.0, 2000: 4.0}, "sap": {1000: 5.0}, "mig[bins=5]": {1000: 6.0}}
    assert cost_records.read(path).like_their_metric == frozenset()
    # width factors are keyed by sample size too: a run at another n adds to a metric's rows
    cost_records.add_run("width_factors", _run({"mcc": {8: 1.0, 64: 9.0}}, 2000), path)
    cost_records.add_run("width_factors", _run({"mcc": {8: 1.0, 64: 20.0}}, 100_000), path)
    assert cost_records.read(path).width_factors == {"mcc": {2000: {8: 1.0, 64: 9.0}, 100_000: {8: 1.0, 64: 20.0}}}
    cost_records.add_run("seconds", _run({"mig": {1000: 7.0}}), path, whole=True)  # a run of the whole table
    assert cost_records.read(path).seconds == {"mig": {1000: 7.0}} and len(json.loads(path.read_text())["seconds"]) == 1
    with pytest.raises(ValueError, match="unknown cost table 'speed'"):
        cost_records.add_run("speed", _run({}), path)


def test_rows_measured_on_another_day_are_scaled_to_the_latest_reference(tmp_path):
    path = tmp_path / "costs.json"

    def run(rows, reference=None):
        return cost_records.new_run(rows, {} if reference is None else {cost_records.REFERENCE_SETTING: reference})

    cost_records.add_run("seconds", run({"mig": {1000: 1.0}, "sap": {1000: 2.0}}, reference=0.2), path)
    cost_records.add_run("seconds", run({"sap": {1000: 3.0}, "jemmig": {1000: 0.5}}, reference=0.4), path)
    cost_records.add_run("seconds", run({"irs": {1000: 0.7}}), path)  # no reference: read as measured
    cost_records.add_run("alone_seconds", run({"mig": {1000: 4.0}}, reference=0.1), path)
    measured = cost_records.read(path)
    # the machine ran the workload twice as long in the latest run with a reference: the first run's rows doubled
    assert measured.reference_seconds == 0.4
    assert measured.seconds == {"mig": {1000: 2.0}, "sap": {1000: 3.0}, "jemmig": {1000: 0.5}, "irs": {1000: 0.7}}
    assert measured.alone_seconds == {"mig": {1000: 16.0}}
    cost_records.add_run("seconds", run({"irs": {1000: 0.7}}), tmp_path / "none.json")
    assert cost_records.read(tmp_path / "none.json").reference_seconds is None


def test_the_fixed_workload_takes_a_positive_time_and_refuses_no_repeats():
    from harness.execution.reference_workload import _workload, reference_seconds

    assert _workload() == _workload()  # the same work each time
    assert 0 < reference_seconds(1) < 60
    with pytest.raises(ValueError, match="repeats must be at least 1"):
        reference_seconds(0)


def test_the_measuring_tool_writes_its_run_into_the_data_file(tmp_path, capsys):
    path = tmp_path / "costs.json"
    tiny = ["--n-samples", "300", "--widths", "8,16", "--repeats", "1", "--file", str(path)]
    assert main(["widths", "--metrics", "mig,sap", *tiny]) == 0  # printed, not written
    printed = json.loads(capsys.readouterr().out)
    assert set(printed["rows"]) == {"mig", "sap"} and not path.exists()
    assert main(["widths", "--metrics", "mig,sap", *tiny, "--write"]) == 0
    assert main(["seconds", "--metrics", "sap", "--sizes", "300", "--repeats", "1", "--file", str(path), "--write"]) == 0
    document = json.loads(path.read_text())
    (widths,), (seconds,) = document["width_factors"], document["seconds"]
    assert widths["settings"]["n_samples"] == 300 and widths["machine"]["cpu_count"] >= 1 and widths["datetime"]
    assert seconds["settings"]["sizes"] == [300] and seconds["machine"]["python"]
    assert 0 < seconds["settings"]["reference_seconds"] < 60  # the fixed workload's time around the run
    measured = cost_records.read(path)
    assert set(measured.width_factors) == {"mig", "sap"} and measured.width_factors["mig"][300][8] == 1.0
    assert measured.width_factors["sap"][300][16] > 0
    swept = {entry.name for entries in cost_table_passes()[1:] for entry in entries if entry.variant_of == "sap"}
    assert "sap" in measured.seconds and measured.seconds["sap"][300] > 0
    assert set(measured.seconds) | measured.like_their_metric == {"sap", *swept}  # each variant: its own row, or sap's


def test_a_run_of_every_metric_replaces_the_table_only_at_every_default_sample_size(tmp_path, monkeypatch):
    """``seconds --write`` without ``--metrics`` but with ``--sizes 300`` replaced every row at 1000 to 20000."""
    import harness.execution.cost_measurement.__main__ as tool

    path = tmp_path / "costs.json"
    cost_records.add_run("seconds", _run({"mig": {1000: 1.0, 10000: 2.0}, "sap": {1000: 3.0}}), path)

    def measured(metrics, sizes, population_sizes, repeats):
        return _run({"mig": dict.fromkeys(sizes, 9.0)})

    monkeypatch.setattr(tool, "seconds_run", measured)
    assert main(["seconds", "--sizes", "300", "--file", str(path), "--write"]) == 0
    assert cost_records.read(path).seconds == {"mig": {300: 9.0}, "sap": {1000: 3.0}}  # mig's row replaced, sap kept
    assert main(["seconds", "--file", str(path), "--write"]) == 0  # every default size: the table replaced
    assert cost_records.read(path).seconds == {"mig": dict.fromkeys(SIZES, 9.0)}
