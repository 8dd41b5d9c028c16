"""Running studies: determinism across workers, the results table, resuming."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from harness.errors import UsageError
from harness.execution.runner import plan_study, run_study
from harness.execution.store import ResultStore
from reports.results.schema import RESULT_COLUMNS, TIMING_COLUMNS

SMALL = dict(preset="quick", scenarios_=["noise", "mixing"], metrics_=["mig", "jemmig"], seeds=2, n_samples=400, progress=False)


def test_results_table_is_tidy_and_complete():
    frame = run_study(**SMALL)
    assert list(frame.columns) == list(RESULT_COLUMNS)
    assert len(frame) == (6 + 6) * 2 * 2  # values x seeds x metrics, one sub-score each
    assert np.isfinite(frame["score"]).all()
    noise = frame[(frame.scenario == "noise") & (frame.metric == "mig")]
    assert set(noise["property"]) == {"compactness"}
    signal = noise["value"] <= 0.5  # compactness's ideal: 1 while the code carries signal, undefined beyond (issue 39)
    assert noise.loc[signal, "ideal"].eq(1.0).all() and noise.loc[~signal, "ideal"].isna().all() and (~signal).any()
    holistic = frame.loc[frame.metric == "jemmig"].set_index(["scenario", "value"])["ideal"]
    # holistic: an ideal only where the three properties share one (the perfect code at alpha = 0 of both scenarios)
    assert holistic.notna().groupby(level=[0, 1]).all().to_dict() == {
        (scenario, value): value == 0.0 for scenario, value in holistic.index.unique()}
    assert holistic.dropna().eq(1.0).all()
    assert (frame["seconds"] >= 0).all()


def test_worker_count_does_not_change_any_score():
    one = run_study(**SMALL, jobs=1)
    two = run_study(**SMALL, jobs=2)
    pd.testing.assert_frame_equal(one.drop(columns=list(TIMING_COLUMNS)), two.drop(columns=list(TIMING_COLUMNS)))


def test_rerun_reuses_finished_cells_and_gives_the_same_table(tmp_path):
    messages = []
    first = run_study(**SMALL, out=tmp_path, log=messages.append)
    again = run_study(**SMALL, out=tmp_path, log=messages.append)
    pd.testing.assert_frame_equal(first, again)
    assert messages == [f"skipping 48 finished cell(s) found in {tmp_path}; computing 0"]
    assert (tmp_path / "results.parquet").exists() and (tmp_path / "results.csv").exists()
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "results.parquet"), first)


def test_truncated_last_line_is_recomputed_not_lost(tmp_path):
    complete = run_study(**SMALL, out=tmp_path)
    cells = (tmp_path / "cells.jsonl").read_bytes()
    (tmp_path / "cells.jsonl").write_bytes(cells[: len(cells) - 40])  # a writer killed mid-line
    messages = []
    resumed = run_study(**SMALL, out=tmp_path, log=messages.append)
    assert messages == [f"skipping 47 finished cell(s) found in {tmp_path}; computing 1"]
    pd.testing.assert_frame_equal(complete.drop(columns=list(TIMING_COLUMNS)), resumed.drop(columns=list(TIMING_COLUMNS)))
    lines = (tmp_path / "cells.jsonl").read_bytes().splitlines()
    assert all(json.loads(line) for line in lines)


def test_damaged_lines_and_lost_tables_are_recomputed_not_fatal(tmp_path):
    # a line of other JSON (a number, a list, a dict without the cell's key or rows) stopped every later run with
    # "TypeError: 'int' object is not subscriptable"
    complete = run_study(**SMALL, out=tmp_path)
    lines = (tmp_path / "cells.jsonl").read_bytes().splitlines(keepends=True)
    damaged = [b"42\n", b"[1, 2]\n", b'{"rows": []}\n', b'{"key": 7, "rows": []}\n', b'{"key": "k", "rows": 3}\n',
               b'{"key": "k", "rows": [], "failure": "x"}\n', b"\x00\x00\xff\n", b'{"key": "\xff"}\n', lines[5][:30] + b"\n"]
    (tmp_path / "cells.jsonl").write_bytes(b"".join([*lines[:4], *damaged, *lines[6:]]))  # cells 4 and 5 damaged
    (tmp_path / "results.parquet").unlink()
    messages = []
    resumed = run_study(**SMALL, out=tmp_path, log=messages.append)
    assert messages == [f"skipping 46 finished cell(s) found in {tmp_path}; computing 2",
                        f"note: 9 damaged line(s) of {tmp_path / 'cells.jsonl'} were ignored; their cells are computed again"]
    pd.testing.assert_frame_equal(complete.drop(columns=list(TIMING_COLUMNS)), resumed.drop(columns=list(TIMING_COLUMNS)))
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "results.parquet"), resumed)


def test_a_changed_option_does_not_reuse_stale_cells(tmp_path, monkeypatch):
    run_study(**SMALL, out=tmp_path)
    import harness.execution.metric_refs as refs

    original = refs.registered_entry

    def with_other_bins(name):
        entry = original(name)
        return refs.MetricEntry(**{**entry.__dict__, "options": {**entry.options, "bins": 20}})

    monkeypatch.setattr(refs, "registered_entry", with_other_bins)
    messages = []
    frame = run_study(**SMALL, out=tmp_path, log=messages.append)
    assert messages == []  # nothing reused
    assert len(ResultStore(tmp_path).cells()) == 96
    assert len(frame) == 48  # the table holds this study's cells only, not the stale ones


def test_unknown_names_are_clear_errors():
    with pytest.raises(KeyError, match="unknown scenario 'nope'"):
        run_study(**{**SMALL, "scenarios_": ["nope"]})
    with pytest.raises(KeyError, match="unknown metric 'nope'"):
        run_study(**{**SMALL, "metrics_": ["nope"]})
    with pytest.raises(ValueError, match="unknown preset"):
        run_study(**{**SMALL, "preset": "nope"})


def test_misspelled_names_suggest_the_closest_known_ones():
    with pytest.raises(KeyError, match=r"unknown metric 'mgi' \(did you mean mig\?\)"):
        run_study(**{**SMALL, "metrics_": ["mgi"]})
    with pytest.raises(KeyError, match=r"unknown scenario 'noize' \(did you mean noise\?\)"):
        run_study(**{**SMALL, "scenarios_": ["noize"]})
    with pytest.raises(ValueError, match=r"unknown preset 'quik' \(did you mean quick\?\)"):
        run_study(**{**SMALL, "preset": "quik"})


def test_a_failing_metric_cell_is_recorded_not_fatal(tmp_path, monkeypatch):
    metric_file = tmp_path / "fragile.py"
    metric_file.write_text(
        "import numpy as np\n"
        "def fragile(factors, codes):\n"
        "    if abs(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1]) < 0.5:\n"
        "        raise ValueError('no signal to score')\n"
        "    return 1.0\n"
    )
    messages = []
    frame = run_study(preset="quick", scenarios_=["noise"], metrics_=[f"{metric_file}:fragile", "mig"], seeds=1,
                      n_samples=300, progress=False, out=tmp_path / "run", log=messages.append)
    failures = pd.read_csv(tmp_path / "run" / "failures.csv", dtype={"value_label": str})
    # alpha = 0.8 and 1.0 leave (almost) no correlation between v_1 and z_1
    assert set(failures["value_label"]) == {"0.8", "1"}
    assert set(failures["metric"]) == {"fragile"} and failures["error"].str.contains("ValueError: no signal").all()
    assert len(frame[frame.metric == "mig"]) == 6 and len(frame[frame.metric == "fragile"]) == 4
    assert messages[-1].startswith("warning: 2 cell(s) failed and have no scores; see")
    assert frame.attrs["failures"] == failures.to_dict("records")
    again = []
    run_study(preset="quick", scenarios_=["noise"], metrics_=[f"{metric_file}:fragile", "mig"], seeds=1,
              n_samples=300, progress=False, out=tmp_path / "run", log=again.append)
    assert again[0] == f"skipping 12 finished cell(s) found in {tmp_path / 'run'}; computing 0"


def test_every_value_of_a_sweep_transforms_the_same_draw():
    from harness.execution.metric_refs import registered_entry
    from harness.execution.plan import Cell
    from harness.execution.scoring import generate_draw

    entry = registered_entry("mig")
    cells = [Cell("s", "partial", k, i, 0, 200, entry) for i, k in enumerate((8, 3))]
    first, second = (generate_draw(c) for c in cells)
    np.testing.assert_array_equal(first.codes, second.codes)  # partial: codes unchanged as k falls
    sizes = [Cell("s", "sample_size", n, i, 0, 100_000, entry) for i, n in enumerate((100, 1000))]
    small, large = (generate_draw(c) for c in sizes)
    np.testing.assert_array_equal(small.codes, large.codes[:100])  # smaller samples are prefixes


@pytest.mark.slow
def test_population_scenarios_run_population_metrics():
    # UDR with Spearman similarities: the same plumbing and, here, the same separations as the cross-validated lasso's
    # in a fifteenth of its 32 CPU-s (tests/metrics/test_udr.py tests the lasso's)
    frame = run_study(preset="quick", scenarios_=["udr_population"], metrics_=["udr[similarity=spearman]"], seeds=1,
                      progress=False)
    assert set(frame["sub_score"]) == {"separation", "disentangled_mean", "entangled_mean"}
    separation = frame[frame.sub_score == "separation"].set_index("value_label")["score"]
    assert list(separation.index) == ["0.25", "0.5", "0.75"]  # both kinds present only there
    assert separation["0.75"] == 1.0  # the disentangled majority is ranked first
    assert (frame.loc[frame.sub_score == "separation", "ideal"] == 1.0).all()
    with pytest.raises(ValueError, match="population metrics"):
        run_study(preset="quick", scenarios_=["noise"], metrics_=["udr"], seeds=1, progress=False)


def test_the_table_the_harness_writes_is_the_table_the_reports_read():
    # One schema (reports/results/schema.py) for the writer and the reader: the runner's table passes
    # the reports' contract check unchanged, criterion and warning columns included.
    from reports import check_results

    frame = run_study(**SMALL)
    checked = check_results(frame)
    assert list(checked.columns) == list(RESULT_COLUMNS)
    assert set(frame.loc[frame.scenario == "noise", "criterion"]) == {"noise"}
    assert set(frame.loc[frame.scenario == "mixing", "criterion"]) == {""}
    assert frame["warnings"].dtype == np.int64 and (frame["warnings"] >= 0).all()


def test_sample_size_rows_record_the_rows_each_metric_saw():
    frame = run_study(preset="quick", scenarios_=["sample_size"], metrics_=["mig"], seeds=1, progress=False)
    assert list(frame.sort_values("value")["n_samples"]) == [100, 1000, 10_000, 100_000]
    from harness.execution.costs import estimated_seconds
    from harness.execution.runner import plan_study

    cells = plan_study(preset="quick", scenarios_=["sample_size"], metrics_=["misjed"], seeds=1)
    assert [cell.n_samples for cell in cells] == [100_000] * 4  # every cell draws the full sample ...
    # ... but is estimated at the size of the prefix it scores (alone of its family on the draw: earlier=())
    expected = [estimated_seconds("misjed", n, earlier=()) for n in (100, 1000, 10_000, 100_000)]
    assert [cell.estimated_seconds for cell in cells] == expected
    assert cells[0].estimated_seconds < cells[-1].estimated_seconds / 100


def test_a_failed_cell_records_the_rows_its_metric_saw(tmp_path):
    # sample_size draws 100000 rows and scores a prefix: a failure at n = 100 happened on 100 rows
    metric_file = tmp_path / "small_sample_hater.py"
    metric_file.write_text(
        "def small_sample_hater(factors, codes):\n"
        "    if len(factors) < 500:\n"
        "        raise ValueError('needs 500 rows')\n"
        "    return 1.0\n"
    )
    messages = []
    frame = run_study(preset="quick", scenarios_=["sample_size"], grids={"sample_size": [100, 1000]},
                      metrics_=[f"{metric_file}:small_sample_hater"], seeds=1, progress=False, log=messages.append)
    assert [(f["value_label"], f["n_samples"]) for f in frame.attrs["failures"]] == [("100", 100)]
    assert "(seed 0, n = 100)" in messages[-1]
    assert list(frame["n_samples"]) == [1000]


@pytest.mark.parametrize(("arguments", "message"), [
    # each was read one character at a time ("unknown metric 'm'"), or failed inside with a TypeError or
    # AttributeError that did not name the argument
    ({"metrics_": "mig"}, r"metrics_ must be a list of names, got 'mig'; write \['mig'\]"),
    ({"scenarios_": "noise"}, r"scenarios_ must be a list of names, got 'noise'; write \['noise'\]"),
    ({"metrics_": [lambda factors, codes: 0.0]}, r"metrics_ holds names or .*references \(text\), got <function .*pass 'file.py:function'"),
    ({"seeds": 1.5}, r"seeds must be a whole number, got 1.5"),
    ({"n_samples": 100.0}, r"n_samples must be a whole number, got 100.0"),
    ({"grids": {"noise": "0.2"}}, r"grids\['noise'\] must be a list of values, got '0.2'; write \['0.2'\]"),
    ({"grids": {"noise": 0.2}}, r"grids\['noise'\] must be a list of values, got 0.2; write \[0.2\]"),
    ({"metric_options": {"mig": {"bins": 5}}}, r"metric_options\['mig'\]\['bins'\] must be a list of values, got 5; write \[5\]"),
    ({"metric_options": {"mig": {"normalization": "code"}}}, r"metric_options\['mig'\]\['normalization'\] must be a list of values"),
    ({"metric_options": {"mig": ["bins"]}}, r"metric_options\['mig'\] must map option names to lists of values"),
    ({"metric_options": [("mig", {"bins": [5]})]}, r"metric_options must be a mapping, got \[\('mig'"),
    ({"grids": [("noise", [0.2])]}, r"grids must be a mapping, got \[\('noise'"),
    ({"cell_timeout": "5"}, r"cell_timeout must be a finite number of seconds > 0, got '5'"),
    ({"cell_timeout": float("nan")}, r"cell_timeout must be a finite number of seconds > 0, got nan"),
    # "2" failed comparing with an int; 0, -2 and 1.5 ran as if they were valid
    ({"jobs": "2"}, r"jobs must be a number of workers >= 1, or -1 for all cores; got '2'"),
    ({"jobs": 0}, r"jobs must be a number of workers >= 1, or -1 for all cores; got 0"),
    ({"jobs": -2}, r"jobs must be .*; got -2"),
    ({"jobs": 1.5}, r"jobs must be .*; got 1.5"),
], ids=lambda value: re.sub(r" at 0x[0-9a-f]+", "", str(value))[:40])  # no address: every xdist worker must collect one id
def test_python_arguments_of_the_wrong_type_are_usage_errors_naming_them(arguments, message):
    study = {**SMALL, "metrics_": ["mig"], **arguments}
    with pytest.raises(UsageError, match=message):
        run_study(**study)


def test_tuples_and_arrays_are_lists_of_names_and_values():
    cells = plan_study(preset="quick", scenarios_=("noise",), metrics_=("mig",), seeds=np.int64(1), n_samples=np.int64(300),
                       grids={"noise": np.array([0.2, 0.4])}, metric_options={"mig": {"bins": (5, 10)}})
    assert sorted({(cell.value, cell.metric.name) for cell in cells}) == [
        (0.2, "mig[bins=10]"), (0.2, "mig[bins=5]"), (0.4, "mig[bins=10]"), (0.4, "mig[bins=5]")]


def test_the_lazy_entry_points_are_listed_by_dir_and_imported_by_star():
    """dir(harness) left out run_study and plan_study, which the module imports only when used."""
    import harness

    assert {"run_study", "plan_study", "PRESETS"} <= set(dir(harness))
    namespace: dict[str, object] = {}
    exec("from harness import *", namespace)
    assert namespace["run_study"] is run_study and namespace["plan_study"] is plan_study


def test_an_output_that_cannot_be_written_is_a_usage_error_naming_out_before_any_work(tmp_path, monkeypatch):
    """run_study(out=<a file>) raised FileExistsError from deep in the store, after planning the study."""
    import harness.execution.runner as runner

    (tmp_path / "notes").write_text("a file, not a folder")
    monkeypatch.setattr(runner, "plan_study", lambda **_: pytest.fail("planned before checking out"))
    with pytest.raises(UsageError, match=r"^out .*notes exists and is not a directory$"):
        run_study(**SMALL, out=tmp_path / "notes")
    with pytest.raises(UsageError, match=r"^cannot write out .*notes/run: .*notes is not a directory$"):
        run_study(**SMALL, out=str(tmp_path / "notes" / "run"))
    with pytest.raises(UsageError, match=r"^out must be a path to a run directory, got 3$"):
        run_study(**SMALL, out=3)
    with pytest.raises(UsageError, match=r"^backend must be one of loky, threading, sequential, dask, got 'dusk'$"):
        run_study(**SMALL, backend="dusk")
    assert (tmp_path / "notes").read_text() == "a file, not a folder"


def test_a_run_into_a_directory_of_another_study_says_it_replaces_its_tables(tmp_path):
    # a run of another preset into the same --out rewrote results.csv without a word
    small = dict(metrics_=["mig"], seeds=1, n_samples=200, out=tmp_path, progress=False)
    run_study(preset="quick", scenarios_=["noise"], **small, log=lambda _: None)
    messages = []
    run_study(preset="default", scenarios_=["mixing"], **small, log=messages.append)
    assert (f"note: {tmp_path} held the results of study quick; results.parquet and results.csv now hold study "
            "default's (the cells of both stay stored: rerun the other to rewrite them)") in messages
    messages.clear()
    run_study(preset="default", scenarios_=["mixing"], **small, log=messages.append)  # the same study: nothing to say
    assert not any("held the results of study" in message for message in messages)
    # a stored cell another preset's run reuses is that run's row: it kept the study it was stored by
    reused = run_study(preset="default", scenarios_=["noise", "mixing"], **small, log=lambda _: None)
    assert set(reused["study"]) == {"default"} and set(pd.read_csv(tmp_path / "results.csv")["study"]) == {"default"}


def test_a_holistic_score_carries_the_ideal_the_three_properties_share():
    """Its rows had no ideal, so a study without a metric of each property (mcc on null_gaussian, beside mig and r2)
    drew and judged it against none; where the three ideals differ (noise at 0.4) it still has none."""
    frame = run_study(scenarios_=["null_gaussian", "noise"], metrics_=["mcc"], seeds=1, n_samples=200, progress=False,
                      grids={"null_gaussian": [1.0], "noise": [0.0, 0.4]}, jobs=1)
    strong = frame.loc[frame["sub_score"] == "strong"].set_index(["scenario", "value"])["ideal"]
    assert strong[("null_gaussian", 1.0)] == 0.0 and strong[("noise", 0.0)] == 1.0
    assert np.isnan(strong[("noise", 0.4)])
    # every row states the scenario's ideal of each property, whatever its own (so that the holistic score alone is
    # judged against each): noise at 0.4 keeps modularity and compactness, explicitness falls
    import scenarios

    at = frame.loc[frame["sub_score"] == "strong"].set_index(["scenario", "value"])
    for (scenario, value), row in at.iterrows():
        declared = scenarios.get(scenario).ideal_at(value)
        for prop in ("modularity", "compactness", "explicitness"):
            assert row[f"ideal_{prop}"] == declared[prop]
    assert at.loc[("noise", 0.4), "ideal_explicitness"] < at.loc[("noise", 0.4), "ideal_modularity"] == 1.0


def test_a_metric_returning_other_sub_scores_from_call_to_call_is_warned_of(tmp_path):
    # {a, b} on clear codes, {a, c} on noisy ones: accepted silently, the report then showed b and c with gaps
    metric_file = tmp_path / "uneven.py"
    metric_file.write_text(
        "import numpy as np\n"
        "def uneven(factors, codes):\n"
        "    r = abs(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1])\n"
        "    return {'a': float(r), 'b': 0.2} if r > 0.5 else {'a': float(r), 'c': 0.1}\n"
    )
    messages: list[str] = []
    run_study(preset="quick", scenarios_=["noise"], metrics_=[f"{metric_file}:uneven", "mig"], seeds=1, n_samples=300,
              progress=False, log=messages.append)
    warned = [message for message in messages if "returned different sub-scores" in message]
    assert len(warned) == 1 and warned[0].startswith("warning: metric 'uneven' returned different sub-scores from one "
                                                     "call to another: {a, b} on 4 call(s); {a, c} on 2 call(s)")


def test_a_population_metric_whose_sub_scores_follow_the_population_is_not_warned_of():
    from harness.execution.runner import _announce_uneven_sub_scores

    rows = [("udr", "s", 0.5, 0, 100, sub) for sub in ("separation", "entangled_mean", "disentangled_mean")]
    rows += [("udr", "s", 0.0, 0, 100, "entangled_mean"), ("mine", "s", 0.0, 0, 100, "x"),
             ("mine", "s", 0.5, 0, 100, "x"), ("mine", "s", 0.5, 0, 100, "y")]
    frame = pd.DataFrame(rows, columns=["metric", "scenario", "value", "seed", "n_samples", "sub_score"])
    messages: list[str] = []
    _announce_uneven_sub_scores(frame, {"udr"}, messages.append)
    assert messages == ["warning: metric 'mine' returned different sub-scores from one call to another: {x} on 1 "
                        "call(s); {x, y} on 1 call(s); each sub-score's analyses read only the calls that returned it "
                        "(return the same keys from every call)"]  # most calls first, then by name
