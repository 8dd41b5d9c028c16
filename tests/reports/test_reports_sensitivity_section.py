"""The sensitivity section and the measured hyper-parameter columns, on the synthetic table with sweeps added.

Two metric names carry hand-made sweeps over ``bins``, whose rows record the default 10:

* ``mig``: its ``bins=10`` variant is ``lin`` of the synthetic table; ``bins=40`` scores the
  same; ``bins=5`` scores 0.3 lower on every draw of ``mixing``, so bins move it by 0.3 > 0.1
  and it is not discretization-free;
* ``modularity``: every variant is ``step``, so bins move it by 0 and it is.
"""

from __future__ import annotations

import pandas as pd
import pytest

from reports import check_results, write_report
from reports.analyses.sensitivity import on_default_options
from reports.analyses.thresholds import Thresholds
from reports.verdicts.property_matrix import property_matrix

SHIFT = 0.3


def _variants(results: pd.DataFrame, metric: str, name: str, as_variant, shifted: str | None = None) -> list[pd.DataFrame]:
    rows = results.loc[results["metric"] == metric]
    frames = []
    for bins in (5, 10, 40):
        variant = as_variant(rows, name, {"bins": bins}, {"bins": 10})
        if f"bins={bins}" == shifted:
            in_mixing = variant["scenario"] == "mixing"
            variant.loc[in_mixing, "score"] = variant.loc[in_mixing, "score"] - SHIFT
        frames.append(variant)
    return frames


@pytest.fixture(scope="module")
def swept(synthetic_results, variant_of) -> pd.DataFrame:
    others = synthetic_results.loc[~synthetic_results["metric"].isin(["lin", "step"])]
    return pd.concat([others, *_variants(synthetic_results, "lin", "mig", variant_of, shifted="bins=5"),
                      *_variants(synthetic_results, "step", "modularity", variant_of)], ignore_index=True)


@pytest.fixture(scope="module")
def matrix(swept) -> pd.DataFrame:
    return property_matrix(swept).set_index(["metric", "characteristic"])


def test_a_score_moved_by_bins_fails_discretization_free_with_its_number(matrix):
    row = matrix.loc[("mig", "discretization_free")]
    assert row["verdict"] == "no" and row["value"] == pytest.approx(SHIFT)
    assert row["number"] == "0.30" and row["threshold"] == f"max spread ≤ {Thresholds().max_spread:g}"
    assert "bins in {5, 10, 40}" in row["evidence"] and "mixing" in row["evidence"]
    few = matrix.loc[("mig", "few_hyperparameters")]  # one option moving it is the one knob a metric may have
    assert few["verdict"] == "yes" and few["number"] == "1" and "1 of 1 swept options" in few["evidence"]


def test_a_score_unmoved_by_bins_passes(matrix):
    for characteristic in ("discretization_free", "few_hyperparameters"):
        row = matrix.loc[("modularity", characteristic)]
        number = "0.00" if characteristic == "discretization_free" else "0"  # a spread; a count of options
        assert row["verdict"] == "yes" and row["value"] == 0.0 and row["number"] == number, characteristic


def test_an_unswept_metric_is_unmeasured_not_asserted(matrix):
    for characteristic in ("discretization_free", "few_hyperparameters"):
        row = matrix.loc[("uncal", characteristic)]
        assert row["verdict"] == "unmeasured" and row["number"] == "", characteristic
        assert "--metric-option" in row["evidence"]


def test_a_swept_metric_is_one_row_judged_at_its_default(matrix, synthetic_results):
    assert not any("[" in metric for metric in matrix.index.get_level_values("metric"))
    plain = property_matrix(synthetic_results).set_index(["metric", "characteristic"])
    for characteristic in ("modularity", "compactness", "explicitness", "calibrated", "linear", "robust_noise"):
        assert matrix.loc[("mig", characteristic), "verdict"] == plain.loc[("lin", characteristic), "verdict"]
        assert matrix.loc[("mig", characteristic), "number"] == plain.loc[("lin", characteristic), "number"]
        assert matrix.loc[("modularity", characteristic), "number"] == plain.loc[("step", characteristic), "number"]


def test_variants_reach_other_sections_only_through_their_default(synthetic_results, variant_of):
    as_variant = variant_of
    rows = synthetic_results.loc[synthetic_results["metric"] == "lin"].head(2)
    table = pd.concat([as_variant(rows, "mig", {"bins": b}, {"bins": 10}) for b in (5, 10)]
                      + [as_variant(rows, "user", {"scale": s}) for s in (1, 2)]
                      + [rows.assign(metric="sap"), as_variant(rows, "sap", {"max_leaves": 4}, {"max_leaves": "auto"})]
                      + [as_variant(rows, "jemmig", {"bins": b}, {"bins": 10}) for b in (5, 40)], ignore_index=True)
    kept = on_default_options(check_results(table))
    # mig: its bins=10 variant becomes mig; sap: the plain rows stay, the variant goes;
    # user (no default recorded) and jemmig (default 10 not swept) keep their labelled variants
    assert sorted(kept["metric"].unique()) == ["jemmig[bins=40]", "jemmig[bins=5]", "mig", "sap", "user[scale=1]",
                                              "user[scale=2]"]
    assert len(kept) == len(table) - 2 * len(rows)


@pytest.mark.slow
def test_the_report_has_the_section_and_its_csv(tmp_path, swept):
    write_report(swept, tmp_path)
    table = pd.read_csv(tmp_path / "tables" / "sensitivity.csv").set_index(["metric", "sub_score"])
    assert table.loc[("mig", "modularity"), "max_spread"] == pytest.approx(SHIFT)
    assert table.loc[("modularity", "step"), "max_spread"] == 0.0
    assert table["threshold"].eq(Thresholds().max_spread).all() and table["conditions"].dtype.kind == "i"
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert markdown.index("Property matrix") < markdown.index("Sensitivity to options") < markdown.index("Calibration")
    assert "bins ∈ {5, 10, 40}" in markdown and "0.30 (≤ 0.1)" in markdown
    headline = pd.read_csv(tmp_path / "tables" / "headline.csv")
    assert "mig" in set(headline["metric"]) and not headline["metric"].str.contains(r"\[").any()


def test_without_sweeps_the_section_says_how_to_get_it(synthetic_report):
    run_dir, _ = synthetic_report
    markdown = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "Sensitivity to options" in markdown and "--metric-option mig:bins=5,10,20,40" in markdown
    assert not (run_dir / "tables" / "sensitivity.csv").exists()


def test_variants_without_their_default_are_rows_with_their_metrics_verdict(synthetic_results, variant_of):
    as_variant = variant_of
    lin = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    table = pd.concat([synthetic_results.loc[synthetic_results["metric"] != "lin"],
                       as_variant(lin, "jemmig", {"bins": 5}, {"bins": 10}),
                       as_variant(lin, "jemmig", {"bins": 40}, {"bins": 10})], ignore_index=True)
    matrix = property_matrix(table).set_index(["metric", "characteristic"])
    assert {"jemmig[bins=5]", "jemmig[bins=40]"} <= set(matrix.index.get_level_values("metric"))
    for name in ("jemmig[bins=5]", "jemmig[bins=40]"):
        assert matrix.loc[(name, "discretization_free"), "verdict"] == "yes"
        assert matrix.loc[(name, "discretization_free"), "value"] == 0.0


def test_a_swept_metric_costs_its_dearest_variant_on_each_draw(synthetic_results, variant_of):
    as_variant = variant_of
    # the first variant of a sweep pays for estimates the others reuse: the default one alone can look free
    rows = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    paid = as_variant(rows.assign(seconds=2.0 + rows["seed"] + 10 * rows["value"]), "mig", {"bins": 5}, {"bins": 10})
    reused = as_variant(rows.assign(seconds=1e-4), "mig", {"bins": 10}, {"bins": 10})
    kept = on_default_options(check_results(pd.concat([paid, reused, rows.assign(metric="sap")], ignore_index=True)))
    mig = kept.loc[kept["metric"] == "mig"]
    assert len(mig) == len(rows) and (mig["score"].to_numpy() == reused["score"].to_numpy()).all()
    assert (mig["seconds"].to_numpy() == paid["seconds"].to_numpy()).all()  # the same draw's dearest variant
    assert (kept.loc[kept["metric"] == "sap", "seconds"].to_numpy() == rows["seconds"].to_numpy()).all()


def test_the_default_variant_is_the_one_the_table_records_not_todays_registry(synthetic_results, variant_of,
                                                                               monkeypatch):
    # the reports asked the installed registry for the defaults, so an old table reported differently after a
    # default changed: its rows say which variant ran at the defaults of the day
    import dataclasses

    import metrics.registry as registry

    spec = registry.get("mig")
    monkeypatch.setitem(registry._REGISTRY, "mig", dataclasses.replace(spec, defaults={**spec.defaults, "bins": 40}))
    rows = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    table = pd.concat([variant_of(rows.assign(score=rows["score"] - shift), "mig", {"bins": bins}, {"bins": 10})
                       for bins, shift in ((10, 0.0), (40, 0.2))], ignore_index=True)
    kept = on_default_options(check_results(table))
    assert set(kept["metric"]) == {"mig"}
    assert kept["score"].tolist() == rows["score"].tolist()  # bins = 10's scores, the table's default
