"""The results-table contract as the reports read it: load_results and check_results."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from reports import check_results, load_results
from reports.results.schema import DERIVED_COLUMNS, OPTIONAL_COLUMN_DEFAULTS, RESULT_COLUMNS, SCENARIO_IDEAL_COLUMNS
from reports.results.table import ideal_table, score_label
from reports.verdicts.property_matrix import property_matrix


def test_parquet_and_csv_load_to_the_same_table(tmp_path, synthetic_results):
    parquet_dir, csv_dir = tmp_path / "parquet", tmp_path / "csv"
    parquet_dir.mkdir()
    csv_dir.mkdir()
    synthetic_results.to_parquet(parquet_dir / "results.parquet")
    synthetic_results.to_csv(csv_dir / "results.csv", index=False)
    from_parquet, from_csv = load_results(parquet_dir), load_results(csv_dir)
    assert list(from_csv.columns) == list(from_parquet.columns)
    for column in from_parquet.columns:
        if from_parquet[column].dtype.kind == "f":
            np.testing.assert_array_equal(from_csv[column], from_parquet[column])  # the same bits (NaN where NaN)
        else:
            assert from_csv[column].tolist() == from_parquet[column].tolist(), column
    # categorical labels and NaN ideals survive the CSV round trip
    assert set(from_csv.loc[from_csv["scenario"] == "modular_not_compact", "value_label"]) == {"cos_sin", "duplicate_2", "duplicate_4"}
    assert from_csv.loc[from_csv["property"] == "holistic", "ideal"].isna().all()
    assert from_csv["higher_is_better"].dtype == bool


def test_parquet_is_preferred_over_csv(tmp_path, synthetic_results):
    synthetic_results.to_parquet(tmp_path / "results.parquet")
    synthetic_results.iloc[:5].to_csv(tmp_path / "results.csv", index=False)
    assert len(load_results(tmp_path)) == len(synthetic_results)


def test_missing_files_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="results.parquet or results.csv"):
        load_results(tmp_path)


def test_missing_columns_are_listed(synthetic_results):
    with pytest.raises(ValueError, match="lacks required columns: seconds, metric_version"):
        check_results(synthetic_results.drop(columns=["seconds", "metric_version"]))


@pytest.mark.parametrize("column", ["score", "seconds", "value"])
def test_non_finite_entries_are_rejected(synthetic_results, column):
    broken = synthetic_results.copy()
    broken.loc[7, column] = np.nan
    with pytest.raises(ValueError, match=f"column '{column}' has 1 non-finite"):
        check_results(broken)


@pytest.mark.parametrize(
    ("column", "cell", "message"),
    [
        ("p_value", 1.7, "column 'p_value' has 1 out-of-range entry"),
        ("p_value", -0.3, "column 'p_value' has 1 out-of-range entry"),
        ("null_permutations", -5, "column 'null_permutations' has 1 invalid entry"),
        ("null_permutations", 2.5, "column 'null_permutations' has 1 invalid entry"),
        ("null_q95", np.inf, "column 'null_q95' has 1 non-finite entry"),
        ("null_mean", np.nan, "column 'null_mean' has 1 non-finite entry"),
        ("seed", -1, "column 'seed' has 1 invalid entry"),
        ("n_samples", 0, "column 'n_samples' has 1 invalid entry"),
        ("warnings", -2, "column 'warnings' has 1 invalid entry"),
        ("seconds", -1.0, "column 'seconds' has 1 negative entry"),
        ("ideal", -np.inf, "column 'ideal' has 1 infinite entry"),
        ("score", "high", "column 'score' has 1 non-numeric entry"),
        ("options", '{"bins":5', "column 'options' has 1 unreadable entry"),
        ("parameters", "[1, 2]", "column 'parameters' has 1 unreadable entry"),
    ],
    ids=lambda cell: str(cell),
)
def test_a_cell_out_of_its_columns_range_is_named_with_its_row(synthetic_results, column, cell, message):
    # a p-value of 1.7, a B of -5 or a chance level of inf was reported from without a word (issue 40)
    broken = synthetic_results.assign(null_mean=0.1, null_q95=0.2, p_value=0.5, null_permutations=19)
    broken[column] = broken[column].astype(object) if column in broken else "{}"  # the JSON columns are derived
    broken.loc[7, column] = cell
    with pytest.raises(ValueError, match="^results column ") as raised:
        check_results(broken)
    row = broken.loc[7]
    assert message in str(raised.value) and "\n" not in str(raised.value)
    assert f"(first: row 8, metric {row['metric']!r}, scenario {row['scenario']!r}, value {row['value_label']!r}" \
        in str(raised.value)


def test_a_null_of_a_table_read_from_csv_is_checked_and_empty_cells_are_no_null(tmp_path, synthetic_results):
    with_null = synthetic_results.assign(null_mean=np.nan, null_q95=np.nan, p_value=np.nan, null_permutations=0)
    with_null.loc[3, ["null_mean", "null_q95", "p_value", "null_permutations"]] = [0.1, 0.2, 0.05, 19]
    with_null.to_csv(tmp_path / "results.csv", index=False)
    loaded = load_results(tmp_path)
    assert loaded["p_value"].notna().sum() == 1 and loaded["null_permutations"].dtype == np.int64
    with_null.loc[3, "p_value"] = 1.5
    with_null.to_csv(tmp_path / "results.csv", index=False)
    with pytest.raises(ValueError, match="column 'p_value' has 1 out-of-range entry \\(first: row 4,") as raised:
        load_results(tmp_path)
    # the content as written in the table, as the README quotes it (it printed np.float64(1.5))
    assert str(raised.value).endswith("seed 0: 1.5); expected a p-value in [0, 1], or an empty cell where no null "
                                      "was computed"), raised.value
    with pytest.raises(ValueError, match=r"seed \d+: -1\); expected a whole number >= 0") as raised:
        check_results(synthetic_results.assign(warnings=-1))


def test_bad_property_boolean_and_empty_table_are_rejected(synthetic_results):
    with pytest.raises(ValueError, match="unknown values \\['fairness'\\]"):
        check_results(synthetic_results.assign(property="fairness"))
    with pytest.raises(ValueError, match="must hold booleans"):
        check_results(synthetic_results.assign(higher_is_better="maybe"))
    with pytest.raises(ValueError, match="empty"):
        check_results(synthetic_results.iloc[:0])
    with pytest.raises(TypeError, match="DataFrame"):
        check_results(synthetic_results.to_dict())


def test_a_row_repeating_a_cell_is_refused_naming_both_rows(synthetic_results):
    # two runs' tables concatenated: each repeated row counted as a seed of its own, so a plot said "mean over 4 seeds"
    # of 2 and drew a band far narrower than the seeds give
    assert not synthetic_results.duplicated(["scenario", "value_label", "seed", "n_samples", "metric", "sub_score"]).any()
    twice = pd.concat([synthetic_results, synthetic_results.iloc[[3, 5]]], ignore_index=True)
    first = synthetic_results.iloc[3]
    with pytest.raises(ValueError, match=rf"^results table repeats 2 row\(s\) of a cell it already holds \(first: row "
                       rf"{len(synthetic_results) + 1}, metric '{first['metric']}'/'{first['sub_score']}', .* as row 4\): "
                       r"each would count as a seed of its own"):
        check_results(twice)
    other_seed = pd.concat([synthetic_results, synthetic_results.iloc[[3]].assign(seed=99)], ignore_index=True)
    assert len(check_results(other_seed)) == len(synthetic_results) + 1  # another seed of the cell is no repeat


def test_a_checked_table_checks_to_itself_and_a_whole_one_carries_no_attrs(synthetic_results):
    # check_results skips the conversions a column no longer needs (text already text, numbers already numbers); what
    # it returns must be what converting them gives, and a table lacking no column carries no attrs (pandas deep-copies
    # attrs into every frame derived from a table)
    checked = check_results(synthetic_results)
    whole = checked.copy()
    whole.attrs = {}
    again = check_results(whole)
    pd.testing.assert_frame_equal(again, checked, check_exact=True)
    assert again.attrs == {} and check_results(again).attrs == {}
    as_text = whole.astype({"seed": str, "score": object, "study": object, "higher_is_better": str})
    as_text.loc[as_text.index[0], "first_warning"] = np.nan  # an empty text cell as a CSV reader may leave it
    pd.testing.assert_frame_equal(check_results(as_text), checked, check_exact=True)


def test_text_booleans_are_read(synthetic_results):
    text = synthetic_results.assign(higher_is_better=np.where(np.arange(len(synthetic_results)) % 2, "True", "false"))
    assert check_results(text)["higher_is_better"].sum() == len(synthetic_results) // 2


def test_an_older_table_gets_the_optional_columns_filled(synthetic_results):
    older = synthetic_results.drop(columns=list(OPTIONAL_COLUMN_DEFAULTS))  # nor the option columns (conftest)
    checked = check_results(older)
    added = [*OPTIONAL_COLUMN_DEFAULTS, *DERIVED_COLUMNS]
    assert list(checked.columns[-len(added):]) == added
    assert set(checked["criterion"]) == {""} and checked["warnings"].eq(0).all() and set(checked["first_warning"]) == {""}
    assert checked["exact"].isna().all() and checked["exact"].dtype == np.float64
    assert set(RESULT_COLUMNS) <= set(checked.columns)
    assert checked.attrs["filled_columns"] == sorted(added)
    assert check_results(checked).attrs["filled_columns"] == sorted(added)  # remembered
    assert check_results(synthetic_results).attrs["filled_columns"] == sorted(DERIVED_COLUMNS)


def test_an_older_table_gets_its_option_columns_from_its_names_once(synthetic_results):
    lin = synthetic_results.loc[synthetic_results["metric"] == "lin"]
    older = pd.concat([lin, lin.assign(metric="mig[bins=5,normalization=code,adjusted=True,scale=0.5]")])
    checked = check_results(older, option_defaults=lambda metric: {"bins": 10, "scale": 1} if metric == "mig" else None)
    variant = checked.iloc[-1]
    assert variant["metric_base"] == "mig"
    assert variant["options"] == '{"adjusted":true,"bins":5,"normalization":"code","scale":0.5}'  # typed, canonical
    assert variant["default_options"] == '{"bins":10,"scale":1}'  # every default the caller knows
    assert (checked.iloc[0]["metric_base"], checked.iloc[0]["options"], checked.iloc[0]["default_options"]) == ("lin", "{}", "{}")
    # a table that has the columns keeps them: its names are never read again
    relabelled = checked.assign(metric=checked["metric"] + " renamed")
    assert check_results(relabelled)["metric_base"].tolist() == checked["metric_base"].tolist()


def test_unknown_criterion_is_rejected(synthetic_results):
    with pytest.raises(ValueError, match="'criterion' has unknown values \\['robustness'\\]"):
        check_results(synthetic_results.assign(criterion="robustness"))


def test_holistic_ideal_only_where_the_three_ideals_agree(synthetic_results):
    ideals = ideal_table(check_results(synthetic_results))
    holistic = ideals.loc[ideals["property"] == "holistic"]
    # nonlinear (5 values) and partial (8 values) state 1 for every property; noise agrees only at alpha = 0,
    # mixing only at alpha = 0, modular_not_compact nowhere
    assert sorted(holistic.groupby("scenario").size().items()) == [("mixing", 1), ("noise", 1), ("nonlinear", 5), ("partial", 8)]
    assert (holistic["ideal"] == 1.0).all()


def test_a_holistic_row_stating_its_ideal_has_it_without_a_metric_of_each_property(synthetic_results):
    """mcc (holistic) on null_gaussian beside mig and r2 had no ideal ("no ideal stated"): in a table written before
    every row stated each property's ideal, the holistic ideal was only derived from rows of all three properties, and
    no metric there measured modularity."""
    from scenarios.base import holistic_ideal

    assert holistic_ideal({"modularity": 0.0, "compactness": 0.0, "explicitness": 0.0}) == 0.0
    assert math.isnan(holistic_ideal({"modularity": 1.0, "compactness": 1.0, "explicitness": 0.6}))
    assert math.isnan(holistic_ideal({"compactness": 0.0, "explicitness": 0.0}))
    rows = check_results(synthetic_results.drop(columns=list(SCENARIO_IDEAL_COLUMNS)))  # an older table
    holistic = rows.loc[rows["property"] == "holistic"]
    assert not holistic.empty
    only = rows.loc[(rows["property"] != "modularity")]  # no metric measuring modularity left
    derived = ideal_table(only)
    assert derived.loc[derived["property"] == "holistic"].empty  # nothing to derive it from
    assert derived.loc[derived["property"] == "modularity"].empty
    stated = only.assign(ideal=np.where(only["property"] == "holistic", 0.25, only["ideal"]))
    ideals = ideal_table(stated)
    own = ideals.loc[ideals["property"] == "holistic"]
    assert len(own) == holistic.groupby(["scenario", "value"]).ngroups and (own["ideal"] == 0.25).all()


def test_every_row_states_each_property_s_ideal_so_a_holistic_score_alone_has_them(synthetic_results):
    """``sap`` (holistic) run alone had its modularity, compactness and explicitness verdicts unmeasured, and measured
    beside ``dci_lasso``, whose rows stated those ideals: every row now states the scenario's ideal of each property."""
    rows = check_results(synthetic_results)
    alone = rows.loc[rows["metric"] == "holo"]
    assert set(alone["property"]) == {"holistic"}
    full, own = ideal_table(rows), ideal_table(alone)
    points = alone[["scenario", "value"]].drop_duplicates()
    expected = full.merge(points, on=["scenario", "value"])
    pd.testing.assert_frame_equal(own, expected, check_exact=True)
    # noise states modularity only up to alpha = 0.5, explicitness everywhere; holistic where the three agree
    noise = own.loc[own["scenario"] == "noise"].pivot(index="value", columns="property", values="ideal")
    assert noise["explicitness"].tolist() == pytest.approx([1.0, 0.8, 0.6, 0.4, 0.2, 0.0])
    assert noise["modularity"].notna().tolist() == [True, True, True, False, False, False]
    assert noise["holistic"].notna().tolist() == [True, False, False, False, False, False]
    # the verdicts of the holistic score alone are those it has beside the metrics measuring each property
    beside = property_matrix(rows).set_index(["metric", "characteristic"]).loc["holo"]
    single = property_matrix(alone).set_index(["metric", "characteristic"]).loc["holo"]
    for characteristic in ("modularity", "compactness", "explicitness"):
        assert single.loc[characteristic, "verdict"] not in ("unmeasured",)
        assert single.loc[characteristic, ["verdict", "value"]].tolist() == beside.loc[characteristic, ["verdict", "value"]].tolist()


def _grouped_ideals(frame: pd.DataFrame) -> pd.DataFrame:
    """The ideal table as pandas' groupby and reshape make it (ideal_table's implementation before its numpy one)."""
    own_stated = frame.loc[frame["property"].isin(["modularity", "compactness", "explicitness"]) & frame["ideal"].notna(),
                           ["scenario", "value", "property", "ideal"]]
    columns = [column for column in SCENARIO_IDEAL_COLUMNS if column in frame.columns]
    every_row = frame[["scenario", "value", *columns]].melt(id_vars=["scenario", "value"], var_name="property",
                                                           value_name="ideal")
    every_row["property"] = every_row["property"].str.removeprefix("ideal_")
    stated = pd.concat([own_stated, every_row.dropna(subset=["ideal"])], ignore_index=True)
    stated["property"] = stated["property"].astype(frame["property"].dtype)
    spread = stated.groupby(["scenario", "value", "property"])["ideal"].agg(["min", "max"]).reset_index()
    ideals = spread.rename(columns={"min": "ideal"})[["scenario", "value", "property", "ideal"]]
    wide = ideals.set_index(["scenario", "value", "property"])["ideal"].unstack("property")
    wide = wide.reindex(columns=["modularity", "compactness", "explicitness"])
    agree = wide.notna().all(axis=1) & ((wide.max(axis=1) - wide.min(axis=1)) <= 1e-9)
    derived = wide.loc[agree, "modularity"].rename("ideal").reset_index().assign(property="holistic")
    own = frame.loc[(frame["property"] == "holistic") & frame["ideal"].notna()]
    own = own.groupby(["scenario", "value"], sort=True)["ideal"].min().reset_index().assign(property="holistic")
    holistic = pd.concat([own, derived], ignore_index=True).drop_duplicates(["scenario", "value"])
    return pd.concat([ideals, holistic[ideals.columns]], ignore_index=True)


def test_the_ideal_table_is_the_grouped_one_on_thinned_and_edited_tables(synthetic_results):
    checked = check_results(synthetic_results)
    rng = np.random.default_rng(7)
    for trial in range(60):
        frame = checked.sample(frac=rng.uniform(0.05, 1.0), random_state=trial).copy()
        frame.loc[rng.random(len(frame)) < 0.2 * (trial % 3), "ideal"] = np.nan  # some ideals unstated
        for column in SCENARIO_IDEAL_COLUMNS:  # some rows' statements of each property's ideal missing, or all
            frame.loc[rng.random(len(frame)) < [0.0, 0.5, 1.0][trial % 5 % 3], column] = np.nan
        if trial % 4 == 0:  # holistic rows stating (or not) an ideal of their own
            frame.loc[rng.random(len(frame)) < 0.3, "property"] = "holistic"
        pd.testing.assert_frame_equal(ideal_table(frame), _grouped_ideals(frame), check_exact=True)
    assert len(ideal_table(checked.iloc[:0])) == 0


def test_conflicting_ideals_are_an_error(synthetic_results):
    broken = synthetic_results.copy()
    row = broken.index[(broken["scenario"] == "noise") & (broken["property"] == "explicitness")][0]
    broken.loc[row, "ideal"] = 0.5
    with pytest.raises(ValueError, match="disagree on the ideal explicitness of scenario 'noise'"):
        ideal_table(check_results(broken))


def test_a_variant_is_named_like_its_metric_in_legends_and_tables():
    # a single-score metric swept with --metric-option read "mig[bins=5]/mig" in every legend and table
    assert score_label("mig[bins=5]", "mig") == "mig[bins=5]"
    assert score_label("mig", "mig") == "mig"
    assert score_label("dci_rf[n_estimators=10]", "modularity") == "dci_rf[n_estimators=10]/modularity"
    assert score_label("pid[estimator=knn]", "redundant_lower", False) == "pid[estimator=knn]/redundant_lower (1 − score)"


def test_option_columns_keep_each_values_type_and_convert_it_once_per_distinct_text():
    from reports.results.options import option_columns, option_text

    texts = pd.Series(['{"bins":5}', '{"estimator":"knn"}', '{"bins":20,"flag":true}', '{"bins":5}', "{}"],
                      index=[10, 11, 12, 13, 14])
    columns = option_columns(texts)
    assert list(columns.index) == [10, 11, 12, 13, 14]
    assert columns["option:bins"].isna().tolist() == [False, True, False, False, True]  # a key a row does not set
    assert columns["option:bins"].dtype == "float64" and columns.loc[[10, 12, 13], "option:bins"].tolist() == [5, 20, 5]
    assert columns.loc[11, "option:estimator"] == "knn" and columns["option:estimator"].isna().sum() == 4
    assert columns.loc[12, "option:flag"] is True and columns["option:flag"].dtype == object
    seen = []

    def written(value):
        seen.append(value)
        return option_text(value)

    converted = option_columns(texts, convert=written)
    assert converted.loc[[10, 12, 13], "option:bins"].tolist() == ["5", "20", "5"]  # as the variants' names write them
    assert sorted(map(option_text, seen)) == ["20", "5", "True", "knn"]  # each distinct value once, NaN never


def test_provenance_gives_the_fewest_and_most_seeds_of_a_cell(synthetic_results):
    # a raced study gave "noise (n = 1000, 12 seeds)" where most cells had 3
    from reports.results.table import provenance

    noise = synthetic_results.loc[synthetic_results["scenario"] == "noise"]
    noise = noise.loc[noise["n_samples"] == noise["n_samples"].max()]
    seeds = sorted(noise["seed"].unique())
    assert len(seeds) >= 2
    fewer = noise.loc[(noise["metric"] != "lin") | (noise["seed"] == seeds[0])]  # lin's cells keep one seed
    assert provenance(noise, {"noise": False}).endswith(f"noise (n = {noise['n_samples'].max()}, {len(seeds)} seeds)")
    assert provenance(fewer, {"noise": False}).endswith(f"noise (n = {noise['n_samples'].max()}, 1 to {len(seeds)} seeds)")
