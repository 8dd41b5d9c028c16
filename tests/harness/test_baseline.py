"""baseline save/check: an unchanged run passes, a perturbed metric fails naming its cells."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics
from harness.cli import main
from harness.errors import UsageError
from harness.execution.runner import run_study
from harness.workflows.baseline import assert_matches_baseline, check_baseline, load_baseline, save_baseline

ROOT = Path(__file__).resolve().parents[2]

# A user metric: mean |Pearson correlation| of factor j with code j.  PERTURBATION is edited below.
METRIC = '''
import numpy as np

PERTURBATION = {perturbation}


def diagonal(factors, codes):
    return float(np.mean([abs(np.corrcoef(factors[:, j], codes[:, j])[0, 1]) for j in range(factors.shape[1])])) + PERTURBATION
'''


def _study(metric_file, out):
    return run_study(preset="quick", scenarios_=["noise", "mixing"], metrics_=["mig", f"{metric_file}:diagonal"],
                     seeds=2, n_samples=300, out=out, progress=False, log=lambda _: None)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A baseline run, an identical rerun into a fresh directory, and a run with the user's metric perturbed."""
    root = tmp_path_factory.mktemp("baseline")
    original, perturbed = root / "original.py", root / "perturbed.py"
    original.write_text(textwrap.dedent(METRIC.format(perturbation=0.0)))
    perturbed.write_text(textwrap.dedent(METRIC.format(perturbation=0.01)))
    _study(original, root / "run")
    _study(original, root / "rerun")
    _study(perturbed, root / "drifted")
    save_baseline(root / "run", root / "baseline.json")
    return root


def test_baseline_file_is_readable_json_with_means_spreads_and_versions(runs):
    text = (runs / "baseline.json").read_text()
    data = json.loads(text)
    assert data["format"] == "disentanglement-harness-baseline/1"
    assert data["metric_versions"]["mig"] == metrics.get("mig").version  # a built-in's registered version
    assert len(data["metric_versions"]["diagonal"]) == 12  # a user metric's source hash
    assert data["harness_versions"] and data["studies"] == ["quick"]
    assert len(data["cells"]) == (6 + 6) * 2  # values x metrics; seeds are summarised
    assert len(text.splitlines()) == len(data["cells"]) + 12  # one cell per line, the environment on one
    assert data["failures"] == []  # the seeds the run raised on: none
    assert data["metric_options"]["mig"] == {"base": "mig", "options": {}, "defaults": {}}
    computed_from = data["provenance"]["diagonal"]  # the user's file and what it runs on, as the run's store holds them
    assert {"original.py", "metrics/evaluation.py"} <= set(computed_from["files"]) and "numpy" in computed_from["libraries"]
    results = pd.read_csv(runs / "run" / "results.csv")
    rows = results[(results.scenario == "noise") & (results.value == 0.4) & (results.metric == "mig")]["score"].to_numpy()
    cell = next(c for c in data["cells"] if c["scenario"] == "noise" and c["value"] == 0.4 and c["metric"] == "mig")
    assert cell["seeds"] == 2 and cell["n_samples"] == 300
    assert cell["mean"] == pytest.approx((rows[0] + rows[1]) / 2, abs=1e-15)
    assert cell["std"] == pytest.approx(abs(rows[0] - rows[1]) / np.sqrt(2), abs=1e-15)  # ddof = 1 over 2 seeds


def test_unchanged_run_passes_exit_0(runs, capsys):
    assert main(["baseline", "check", str(runs / "run"), "--against", str(runs / "baseline.json")]) == 0
    assert "baseline check PASSED: 24 cells (24 ok)" in capsys.readouterr().out
    # a fresh recomputation reproduces every cell exactly: seeds derive from the cell's identity
    check = check_baseline(runs / "rerun", runs / "baseline.json", atol=0.0)
    assert check.passed and check.table["difference"].abs().max() == 0.0


def test_perturbed_metric_fails_exit_1_naming_its_cells(runs, capsys):
    assert main(["baseline", "check", str(runs / "drifted"), "--against", str(runs / "baseline.json")]) == 1
    out = capsys.readouterr().out
    assert "baseline check FAILED: 24 cells (12 ok, 12 drifted)" in out
    table = [line for line in out.splitlines() if line.startswith("| drifted")]
    assert len(table) == 12 and all("| diagonal" in line and "| mig" not in line for line in table)
    assert all(f"| {s} " in out for s in ("noise", "mixing"))
    check = check_baseline(runs / "drifted", runs / "baseline.json")
    failures = check.failures
    assert set(failures["metric"]) == {"diagonal"} and len(failures) == 12
    assert np.allclose(failures["difference"], 0.01, atol=1e-12)  # exactly the injected perturbation
    assert any("changed version" in note for note in check.notes)  # the source hash moved


class _ReaderLeavesAfter:
    """A standard output whose reader leaves (``| head -1``) after the first line: every later write fails."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> int:
        if self.lines and self.lines[-1].endswith("\n"):
            raise BrokenPipeError(32, "Broken pipe")
        self.lines.append(text)
        return len(text)

    def flush(self) -> None:
        pass


@pytest.mark.parametrize(("run", "status"), [("drifted", 1), ("run", 0)])
def test_a_check_whose_reader_leaves_early_still_exits_with_its_own_status(runs, monkeypatch, run, status):
    # `baseline check ... | head -1` in a CI step with pipefail: the reader left after the first line, and the
    # harness exited 0 on the next write, so a drifted run passed the gate
    reader = _ReaderLeavesAfter()
    monkeypatch.setattr("sys.stdout", reader)
    assert main(["baseline", "check", str(runs / run), "--against", str(runs / "baseline.json")]) == status
    assert reader.lines[0].startswith(f"baseline check {'FAILED' if status else 'PASSED'}")


@pytest.mark.slow  # 3 s each, a process of its own; the fast tier checks the same guard in process (above)
@pytest.mark.parametrize(("run", "status"), [("drifted", 1), ("run", 0)])
def test_a_real_pipe_closed_by_its_reader_keeps_the_checks_status(runs, run, status):
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-m", "harness", "baseline", "check", str(runs / run), "--against",
                              str(runs / "baseline.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # the reader leaves before the first line
    _, stderr = child.communicate(timeout=60)
    assert child.returncode == status and b"Traceback" not in stderr and b"Broken pipe" not in stderr, stderr


def test_a_drift_just_beyond_the_tolerance_is_printed_beyond_it(runs):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    cell = (results.scenario == "noise") & (results.value == 0.4) & (results.metric == "mig")
    results.loc[cell, "score"] += 1.0000004e-6  # beyond the default atol of 1e-6, by less than 6 decimals show
    check = check_baseline(results, runs / "baseline.json")
    assert check.summary() == "baseline check FAILED: 24 cells (23 ok, 1 drifted)"
    row = next(line for line in check.report().splitlines() if line.startswith("| drifted"))
    difference, tolerance = (cell.strip() for cell in row.strip("|").split("|")[-2:])
    assert (difference, tolerance) == ("1.0000004e-06", "1.0000000e-06")  # 6 decimals printed 0.000001 for both
    # the metric's line too (it said "largest +1e-06", as if at the tolerance)
    assert "mig: 1 of 12 cells drifted, largest +1.0000004e-06 against 1.0000000e-06 (noise = 0.4" in check.report()
    within = check_baseline(results, runs / "baseline.json", atol=1.1e-6)
    assert within.passed


@pytest.mark.parametrize(
    ("flags", "status"),
    [
        (["--metric-tolerance", "diagonal=0.011"], 0),
        (["--metric-tolerance", "diagonal=0.009"], 1),
        (["--atol", "0.011"], 0),
        (["--metrics", "mig"], 0),
    ],
)
def test_tolerances_global_and_per_metric(runs, flags, status, capsys):
    argv = ["baseline", "check", str(runs / "drifted"), "--against", str(runs / "baseline.json"), *flags]
    assert main(argv) == status


def test_a_misspelled_metric_selection_is_an_error_not_a_silent_pass(runs, capsys):
    # 'diagonl' used to be dropped: only mig was compared and the drifted 'diagonal' passed unchecked
    argv = ["baseline", "check", str(runs / "drifted"), "--against", str(runs / "baseline.json"), "--metrics", "mig,diagonl"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "metric 'diagonl' is in neither the run nor the baseline (did you mean diagonal?)" in err
    assert err.count("\n") == 1
    assert main([*argv[:-1], "diagonl"]) == 2  # alone, it got no hint
    err = capsys.readouterr().err
    assert "none of the metrics ['diagonl'] is in the run or the baseline (did you mean diagonal?)" in err


def test_relative_tolerance_scales_with_the_baseline(runs):
    means = load_baseline(runs / "baseline.json").cells.query("metric == 'diagonal'")["mean"].abs()
    # drift 0.01 <= rtol * |mean| for every cell exactly when rtol >= 0.01 / min |mean|
    rtol = 0.01 / means.min()
    assert check_baseline(runs / "drifted", runs / "baseline.json", atol=0.0, rtol=rtol * 1.001).passed
    assert not check_baseline(runs / "drifted", runs / "baseline.json", atol=0.0, rtol=rtol * 0.999).passed


def test_one_perturbed_cell_is_the_only_one_named(runs):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    target = (results.scenario == "mixing") & (results.value == 0.3) & (results.metric == "mig") & (results.seed == 1)
    results.loc[target, "score"] += 0.002  # the cell's mean over 2 seeds moves by 0.001
    with pytest.raises(AssertionError) as failure:
        assert_matches_baseline(results, runs / "baseline.json")
    drifted = [line for line in str(failure.value).splitlines() if line.startswith("| drifted")]
    assert len(drifted) == 1 and "| mixing" in drifted[0] and "| 0.3 " in drifted[0] and "| mig " in drifted[0]
    assert "| 0.00100 " in drifted[0] and "| 1.00e-06 " in drifted[0]  # difference and tolerance in significant digits
    assert_matches_baseline(results, runs / "baseline.json", atol=0.0011)  # passes within tolerance


def test_a_run_of_fewer_seeds_is_flagged_as_the_likely_cause_of_drift(runs, capsys):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    one_seed = results[results.seed == 0]  # the baseline averages 2 seeds: every mean moves, no metric changed
    check = check_baseline(one_seed, runs / "baseline.json")
    assert not check.passed
    assert set(check.table["baseline_seeds"]) == {2} and set(check.table["current_seeds"]) == {1}
    assert ("24 of 24 compared cells average a different number of seeds (2 in the baseline, 1 in the run)"
            in check.report())
    assert not any("seeds" in note for note in check_baseline(runs / "rerun", runs / "baseline.json").notes)


def test_a_run_at_another_sample_size_is_named_as_the_cause_of_missing_cells(runs):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    check = check_baseline(results.assign(n_samples=500), runs / "baseline.json")
    assert check.summary() == "baseline check FAILED: 48 cells, none compared (24 missing, 24 new)"
    assert ("2 scenario(s) were scored at other sample sizes than in the baseline (first: mixing, baseline n = 300, "
            "run n = 500): cells of different sample sizes are never compared; rerun with the baseline's --n-samples"
            ) in check.notes
    assert not [note for note in check_baseline(runs / "rerun", runs / "baseline.json").notes if "n = " in note]
    noise_only = results[results.scenario == "noise"]  # a scenario absent from the run is missing, not resized
    assert not [note for note in check_baseline(noise_only, runs / "baseline.json").notes if "n = " in note]


def test_metrics_on_one_side_only_and_unmatched_tolerances_are_named(runs):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    renamed = results["metric"] == "mig"  # another metric of the run, not a variant of the baseline's mig
    swept = results.assign(metric=results["metric"].where(~renamed, "mig2"),
                           metric_base=results["metric_base"].where(~renamed, "mig2"))
    check = check_baseline(swept, runs / "baseline.json", per_metric={"diagonl": (0.1, 0.0)})
    assert check.summary() == "baseline check FAILED: 36 cells (12 ok, 12 missing, 12 new)"
    assert "metric(s) in the run only, not compared: mig2" in check.notes
    assert "metric(s) of the baseline absent from the run: mig" in check.notes
    is_mig = results["metric"] == "mig"
    as_a_variant = results.assign(metric=results["metric"].where(~is_mig, "mig[bins=20]"),  # its base is still mig
                                  options=results["options"].where(~is_mig, '{"bins":20}'))
    assert check_baseline(as_a_variant, runs / "baseline.json").summary() == \
        "baseline check FAILED: 24 cells (12 ok, 12 option changed; the run scored 12 cells with the other options)"
    # the same options under a variant's name (bins=10 is mig's default): the same cells, compared one by one
    renamed_only = results.assign(metric=results["metric"].where(~is_mig, "mig[bins=10]"),
                                  options=results["options"].where(~is_mig, '{"bins":10}'),
                                  default_options=results["default_options"].where(~is_mig, '{"bins":10,"normalization":"factor"}'))
    check_renamed = check_baseline(renamed_only, runs / "baseline.json")
    assert check_renamed.summary() == "baseline check PASSED: 24 cells (24 ok)"
    assert "metric 'mig' ran as 'mig[bins=10]' with the same options: its cells are compared cell by cell" in check_renamed.notes
    assert ("the tolerance given for 'diagonl' applies to no metric of the run or the baseline (did you mean diagonal?)"
            in check.notes)
    assert not [note for note in check_baseline(runs / "rerun", runs / "baseline.json").notes if "metric(s)" in note]
    selected = check_baseline(runs / "rerun", runs / "baseline.json", metrics=["mig"], per_metric={"diagonal": (0.1, 0.0)})
    assert not selected.notes  # a tolerance for a metric left out by the selection still names a real metric


def test_cells_that_failed_in_the_run_are_explained(runs, tmp_path):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    failing = (results.scenario == "noise") & (results.value == 1.0) & (results.metric == "mig")
    (tmp_path / "run").mkdir()
    results[~failing].to_parquet(tmp_path / "run" / "results.parquet")
    pd.DataFrame([{"scenario": "noise", "value_label": "1", "seed": seed, "n_samples": 300, "metric": "mig",
                   "error": "ValueError: no two samples share a bin"} for seed in (0, 1)]).to_csv(tmp_path / "run" / "failures.csv", index=False)
    check = check_baseline(tmp_path / "run", runs / "baseline.json")
    assert check.summary() == "baseline check FAILED: 24 cells (23 ok, 1 failed)"
    expected = ("2 cell(s) of the run failed and have no scores, so the baseline cells they would score fail the check; "
                "first: mig on noise = 1 (seed 0): ValueError: no two samples share a bin")
    assert expected in check.notes
    in_memory = results[~failing].copy()
    in_memory.attrs["failures"] = pd.read_csv(tmp_path / "run" / "failures.csv").to_dict("records")  # as run_study returns it
    assert expected in check_baseline(in_memory, runs / "baseline.json").notes
    assert not any("failed" in note for note in check_baseline(in_memory, runs / "baseline.json", metrics=["diagonal"]).notes)


def test_a_run_whose_every_cell_failed_reports_the_failures_exit_1(runs, tmp_path, capsys):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    (tmp_path / "run").mkdir()
    results.iloc[:0].to_parquet(tmp_path / "run" / "results.parquet")  # as run writes it when no cell scored
    cells = results.drop_duplicates(["scenario", "value_label", "seed", "metric"])
    pd.DataFrame({"scenario": cells["scenario"], "value_label": cells["value_label"], "seed": cells["seed"],
                  "n_samples": cells["n_samples"], "metric": cells["metric"],
                  "error": "ValueError: bins must be at least 2, got 0"}).to_csv(tmp_path / "run" / "failures.csv", index=False)
    for flags in ([], ["--allow-missing"]):  # no cell compared: never a pass
        assert main(["baseline", "check", str(tmp_path / "run"), "--against", str(runs / "baseline.json"), *flags]) == 1
        captured = capsys.readouterr()
        assert captured.out.startswith("baseline check FAILED: 24 cells, none compared (24 failed)") and not captured.err
        assert f"{len(cells)} cell(s) of the run failed" in captured.out
        assert "ValueError: bins must be at least 2, got 0" in captured.out
    (tmp_path / "run" / "failures.csv").unlink()  # an empty table without failures is still nothing to check
    assert main(["baseline", "check", str(tmp_path / "run"), "--against", str(runs / "baseline.json")]) == 2
    assert "results table is empty" in capsys.readouterr().err


def test_a_selected_metric_whose_every_cell_failed_fails_even_when_others_scored(runs, tmp_path, capsys):
    # the selection compared nothing, but the whole run had scores: --metrics diagonal --allow-missing passed
    results = pd.read_parquet(runs / "run" / "results.parquet")
    (tmp_path / "run").mkdir()
    results.loc[results["metric"] == "mig"].to_parquet(tmp_path / "run" / "results.parquet")
    cells = results.loc[results["metric"] == "diagonal"].drop_duplicates(["scenario", "value_label", "seed"])
    pd.DataFrame({"scenario": cells["scenario"], "value_label": cells["value_label"], "seed": cells["seed"],
                  "n_samples": cells["n_samples"], "metric": "diagonal",
                  "error": "ValueError: no signal"}).to_csv(tmp_path / "run" / "failures.csv", index=False)
    argv = ["baseline", "check", str(tmp_path / "run"), "--against", str(runs / "baseline.json"), "--allow-missing"]
    assert main([*argv, "--metrics", "diagonal"]) == 1
    assert "ValueError: no signal" in capsys.readouterr().out
    assert main([*argv, "--metrics", "mig"]) == 0  # the metric that scored still passes on its own


def test_a_baseline_cell_that_now_raises_fails_even_when_missing_cells_are_allowed(runs, tmp_path, capsys):
    # issue 40: cells that scored in the baseline now raised, and 'baseline check --allow-missing' PASSED (4 ok, 2 missing)
    results = pd.read_parquet(runs / "run" / "results.parquet")
    raising = (results.scenario == "noise") & (results.value == 1.0) & (results.metric == "mig") & (results.seed == 1)
    (tmp_path / "run").mkdir()
    results[~raising].to_parquet(tmp_path / "run" / "results.parquet")  # seed 0 still scores: the cell has a mean
    pd.DataFrame([{"scenario": "noise", "value_label": "1", "seed": 1, "n_samples": 300, "metric": "mig",
                   "error": "ValueError: no two samples share a bin"}]).to_csv(tmp_path / "run" / "failures.csv", index=False)
    argv = ["baseline", "check", str(tmp_path / "run"), "--against", str(runs / "baseline.json")]
    for flags in ([], ["--allow-missing"]):
        assert main([*argv, *flags]) == 1
        out = capsys.readouterr().out
        assert out.startswith("baseline check FAILED: 24 cells (23 ok, 1 failed)\n")
        assert "mig: 1 of 12 cells failed in the run (the metric raised)" in out
    check = check_baseline(tmp_path / "run", runs / "baseline.json", allow_missing=True)
    assert check.failures[["scenario", "value_label", "metric", "status"]].values.tolist() == [["noise", "1", "mig", "failed"]]
    assert check.by_metric()[0]["failed"] == 1 and check.to_dict()["cells"][0]["status"] == "failed"
    assert main([*argv, "--allow-missing", "--metrics", "diagonal"]) == 0  # the metric that raised, left out
    (tmp_path / "run" / "failures.csv").unlink()  # the same scores without the failure: a seed fewer, not a failure
    assert "failed" not in set(check_baseline(tmp_path / "run", runs / "baseline.json").table["status"])


def test_a_baseline_saved_from_a_run_with_failed_seeds_passes_against_that_run(runs, tmp_path, capsys):
    # a user metric raised on some seeds: the baseline kept the means of the seeds that scored, and checking the very
    # run it was saved from FAILED (3 ok, 3 failed), whatever the code
    results = pd.read_parquet(runs / "run" / "results.parquet")
    raising = (results.scenario == "noise") & (results.value == 1.0) & (results.metric == "mig") & (results.seed == 1)
    (tmp_path / "run").mkdir()
    results[~raising].to_parquet(tmp_path / "run" / "results.parquet")
    failure = {"scenario": "noise", "value_label": "1", "seed": 1, "n_samples": 300, "metric": "mig",
               "error": "ValueError: no two samples share a bin"}
    pd.DataFrame([failure]).to_csv(tmp_path / "run" / "failures.csv", index=False)
    assert main(["baseline", "save", str(tmp_path / "run"), "--to", str(tmp_path / "saved.json")]) == 0
    assert "note: the run raised on 1 seed(s) of its cells (failures.csv); the baseline records them" in (
        capsys.readouterr().out)
    assert load_baseline(tmp_path / "saved.json").failures.to_dict(orient="records") == [failure]
    argv = ["baseline", "check", str(tmp_path / "run"), "--against", str(tmp_path / "saved.json")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("baseline check PASSED: 24 cells (24 ok)\n")
    assert "1 seed(s) of the run raised as they did when the baseline was saved" in out
    # a seed that scored when the baseline was saved and raises now still fails its cell
    pd.DataFrame([failure, {**failure, "seed": 0}]).to_csv(tmp_path / "run" / "failures.csv", index=False)
    check = check_baseline(tmp_path / "run", tmp_path / "saved.json")
    assert not check.passed and check.failures[["value_label", "metric", "status"]].values.tolist() == [["1", "mig", "failed"]]


def test_a_check_that_compared_no_cell_fails_even_when_missing_cells_are_allowed(runs, tmp_path, capsys):
    # 'baseline check --metrics X' with X in the run only, or --allow-missing on a run sharing no cell, PASSED
    results = pd.read_parquet(runs / "run" / "results.parquet")
    (tmp_path / "run").mkdir()
    results.loc[results["scenario"] == "noise"].to_parquet(tmp_path / "run" / "results.parquet")
    (tmp_path / "mixing").mkdir()
    results.loc[results["scenario"] == "mixing"].to_parquet(tmp_path / "mixing" / "results.parquet")
    save_baseline(tmp_path / "mixing", tmp_path / "mixing.json")
    argv = ["baseline", "check", str(tmp_path / "run"), "--against", str(tmp_path / "mixing.json"), "--allow-missing"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert out.startswith("baseline check FAILED: 24 cells, none compared (12 missing, 12 new)\n")
    assert "no cell was compared: none is in both the baseline and the run" in out
    renamed = results.assign(metric=results["metric"].replace({"mig": "mig2"}), metric_base=lambda t: t["metric"])
    (tmp_path / "renamed").mkdir()
    renamed.to_parquet(tmp_path / "renamed" / "results.parquet")
    assert main(["baseline", "check", str(tmp_path / "renamed"), "--against", str(runs / "baseline.json"),
                 "--metrics", "mig2"]) == 1  # in the run only: 12 new cells, nothing compared
    assert "FAILED: 12 cells, none compared (12 new)" in capsys.readouterr().out
    assert check_baseline(tmp_path / "run", tmp_path / "mixing.json", allow_missing=True).compared == 0
    assert check_baseline(results, runs / "baseline.json").compared == 24


def test_a_baseline_of_another_study_is_said(runs, tmp_path):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    check = check_baseline(results.assign(study="default"), runs / "baseline.json")
    assert check.passed and ("the baseline was saved from study quick, the run is of default: the cells both hold are "
                             "compared (seeds, sample sizes and sweeps may differ)") in check.notes
    assert not any("was saved from study" in note for note in check_baseline(results, runs / "baseline.json").notes)


def test_a_baseline_repeating_a_cell_is_refused(runs, tmp_path, capsys):
    data = json.loads((runs / "baseline.json").read_text())
    data["cells"].append({**data["cells"][0], "mean": 0.5})  # the second copy was compared too, as a cell of its own
    (tmp_path / "twice.json").write_text(json.dumps(data))
    assert main(["baseline", "check", str(runs / "run"), "--against", str(tmp_path / "twice.json")]) == 2
    err = capsys.readouterr().err
    assert f"cell {len(data['cells']) - 1} ('diagonal'/'diagonal' on 'mixing'" in err and "repeats an earlier cell" in err
    data["failures"] = [{"scenario": "noise"}]
    data["cells"].pop()
    (tmp_path / "bad.json").write_text(json.dumps(data))
    assert main(["baseline", "check", str(runs / "run"), "--against", str(tmp_path / "bad.json")]) == 2
    assert '"failures" must be a list of objects with the fields' in capsys.readouterr().err


def test_missing_cells_fail_unless_allowed(runs, capsys):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    noise_only = results[results.scenario == "noise"]
    check = check_baseline(noise_only, runs / "baseline.json")
    assert not check.passed and set(check.failures["status"]) == {"missing"} and len(check.failures) == 12
    assert check_baseline(noise_only, runs / "baseline.json", allow_missing=True).passed


def test_bad_input_is_exit_2(runs, tmp_path, capsys):
    (tmp_path / "bad.json").write_text("{\"format\": \"something else\"}")
    assert main(["baseline", "check", str(runs / "run"), "--against", str(tmp_path / "bad.json")]) == 2
    assert "is not a baseline" in capsys.readouterr().err
    assert main(["baseline", "check", str(runs / "run"), "--against", str(tmp_path / "none.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["baseline", "check", str(runs / "run"), "--against", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err
    assert main(["baseline", "check", str(runs / "run"), "--against", "x", "--metric-tolerance", "mig"]) == 2
    assert "expected METRIC=ATOL" in capsys.readouterr().err
    assert main(["baseline", "save", str(tmp_path / "no_run"), "--to", str(tmp_path / "b.json")]) == 2
    with pytest.raises(ValueError, match="tolerances must be"):
        check_baseline(runs / "run", runs / "baseline.json", atol=-1.0)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("mean", float("nan"), "field 'mean' must be a finite number, got nan"),
        ("mean", "0.5", "field 'mean' must be a finite number, got '0.5'"),
        ("std", -0.1, "field 'std' must be >= 0"),
        ("n_samples", None, "field 'n_samples' must be a whole number >= 1, got None"),
        ("seeds", 1.5, "field 'seeds' must be a whole number >= 1"),
        ("metric", 3, "field 'metric' must be text"),
    ],
)
def test_a_corrupted_cell_is_a_one_line_error_naming_it(runs, tmp_path, field, value, message, capsys):
    data = json.loads((runs / "baseline.json").read_text())
    data["cells"][3][field] = value  # a NaN mean made the cell look absent from the baseline: the check passed
    (tmp_path / "corrupted.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=re.escape(message)):
        load_baseline(tmp_path / "corrupted.json")
    assert main(["baseline", "check", str(runs / "run"), "--against", str(tmp_path / "corrupted.json")]) == 2
    err = capsys.readouterr().err
    assert "cell 3 (" in err and message in err and err.count("\n") == 1


def test_cells_that_are_not_a_list_of_objects_are_a_one_line_error(runs, tmp_path, capsys):
    (tmp_path / "dict.json").write_text(json.dumps({"format": "disentanglement-harness-baseline/1", "cells": {"a": 1}}))
    assert main(["baseline", "check", str(runs / "run"), "--against", str(tmp_path / "dict.json")]) == 2
    assert "must be a list of objects" in capsys.readouterr().err


def test_cli_save_writes_the_same_baseline(runs, tmp_path, capsys):
    assert main(["baseline", "save", str(runs / "run"), "--to", str(tmp_path / "again.json")]) == 0
    assert (tmp_path / "again.json").read_text() == (runs / "baseline.json").read_text()


def test_saving_under_a_plain_file_is_one_line_exit_2(runs, tmp_path, capsys):
    (tmp_path / "notes").write_text("a file, not a folder")
    assert main(["baseline", "save", str(runs / "run"), "--to", str(tmp_path / "notes" / "b.json")]) == 2
    err = capsys.readouterr().err
    assert "--to" in err and "notes is not a directory" in err and "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "word"),
    [(["baseline", "--help"], "Regression-test"), (["baseline", "save", "--help"], "--to FILE"),
     (["baseline", "check", "--help"], "--against FILE")],
)
def test_help(argv, word, capsys):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 0 and word in capsys.readouterr().out


def test_sigmas_tolerates_drift_within_the_baselines_seed_spread(runs, capsys):
    # the perturbed metric moves every cell by 0.01; with --sigmas K a cell passes iff 0.01 <= atol + K * its seed std
    cells = [c for c in json.loads((runs / "baseline.json").read_text())["cells"] if c["metric"] == "diagonal"]
    ratios = sorted(0.01 / c["std"] for c in cells if c["std"] > 0)
    middle = len(ratios) // 2
    k = (ratios[middle - 1] + ratios[middle]) / 2  # between two cells' ratios: some pass, some drift
    expected = sorted((c["scenario"], c["value"]) for c in cells if 0.01 > 1e-6 + k * c["std"])
    assert 0 < len(expected) < len(cells)
    check = check_baseline(runs / "drifted", runs / "baseline.json", sigmas=k)
    drifted = check.table.loc[check.table["status"] == "drifted"]
    assert sorted(zip(drifted["scenario"], drifted["value"])) == expected
    assert set(drifted["metric"]) == {"diagonal"}
    assert not check_baseline(runs / "drifted", runs / "baseline.json").passed  # no widening by default
    # a K above every ratio leaves only the cells without seed spread (std 0: never widened) drifted
    exact = [c for c in cells if c["std"] == 0]
    status = main(["baseline", "check", str(runs / "drifted"), "--against", str(runs / "baseline.json"),
                   "--sigmas", f"{max(ratios) * 1.01}"])
    assert status == (1 if exact else 0)
    assert capsys.readouterr().out.count("| drifted") == len(exact)
    assert main(["baseline", "check", str(runs / "run"), "--against", str(runs / "baseline.json"), "--sigmas", "-1"]) == 2
    assert "--sigmas" in capsys.readouterr().err


@pytest.mark.parametrize(("options", "message"), [
    # 'mig' was compared as the metrics 'm', 'i' and 'g'; the tolerances failed inside len() or isfinite()
    ({"metrics": "mig"}, r"metrics must be a list of metric names, got 'mig'; write \['mig'\]"),
    ({"atol": "0.1"}, r"tolerances must be two finite numbers >= 0 \(atol, rtol\); got \('0.1', 0.0\) for global"),
    ({"per_metric": {"mig": 0.1}}, r"tolerances must be two finite numbers >= 0 \(atol, rtol\); got 0.1 for mig"),
    ({"per_metric": {"mig": (0.1, None)}}, r"got \(0.1, None\) for mig"),
])
def test_python_options_of_the_wrong_type_are_usage_errors(runs, options, message):
    with pytest.raises(UsageError, match=message):
        check_baseline(runs / "drifted", runs / "baseline.json", **options)


def test_tolerances_as_lists_and_numpy_numbers_are_read(runs):
    loose = check_baseline(runs / "drifted", runs / "baseline.json", atol=np.float64(1.0), per_metric={"mig": [1.0, 0]})
    assert loose.passed


# --- baselines a maintainer can trust: no silent overwrite, the environment recorded, long drifts summarised,
# --- a pytest helper that shows the caller and can rewrite its baseline


def test_save_refuses_to_overwrite_a_baseline_without_force(runs, tmp_path, capsys):
    target = tmp_path / "b.json"
    target.write_text("keep me")
    assert main(["baseline", "save", str(runs / "run"), "--to", str(target)]) == 2
    assert capsys.readouterr().err == f"error: baseline file {str(target)!r} exists; pass --force (force=True) to overwrite it\n"
    assert target.read_text() == "keep me"
    with pytest.raises(UsageError, match="exists; pass --force"):
        save_baseline(runs / "run", target)
    assert main(["baseline", "save", str(runs / "run"), "--to", str(target), "--force"]) == 0
    assert load_baseline(target).cells.equals(load_baseline(runs / "baseline.json").cells)


def test_the_baseline_records_the_harness_version_git_commit_and_library_versions(runs):
    import importlib.metadata
    import platform
    import subprocess

    from harness.version import __version__

    saved = json.loads((runs / "baseline.json").read_text())["environment"]
    assert saved["harness"] == __version__
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    assert saved.get("git_commit") == (head.stdout.strip() if head.returncode == 0 else None)
    for name in ("numpy", "scipy", "scikit-learn"):
        assert saved["libraries"][name] == importlib.metadata.version(name)
    assert saved["libraries"]["python"] == platform.python_version()


def test_without_git_the_baseline_has_no_commit_and_saves(runs, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "")  # no git to be found
    save_baseline(runs / "run", tmp_path / "b.json")
    assert "git_commit" not in json.loads((tmp_path / "b.json").read_text())["environment"]


def test_check_names_what_differs_from_the_environment_the_baseline_was_saved_in(runs, tmp_path):
    data = json.loads((runs / "baseline.json").read_text())
    here = data["environment"]
    data["environment"] = {"harness": "0.0.9", "git_commit": "0" * 40,
                           "libraries": {**here["libraries"], "numpy": "1.0.0"}}
    (tmp_path / "old.json").write_text(json.dumps(data))
    check = check_baseline(runs / "rerun", tmp_path / "old.json")
    assert check.passed  # a note, not a failure
    expected = f"harness 0.0.9 -> {here['harness']}"
    if "git_commit" in here:
        expected += f", git commit 000000000000 -> {here['git_commit'][:12]}"
    expected += f", numpy 1.0.0 -> {here['libraries']['numpy']}"
    assert check.notes == [f"the baseline was saved in another environment: {expected}; drift may come from it"]
    assert not check_baseline(runs / "rerun", runs / "baseline.json").notes


def test_an_older_baseline_file_without_environment_still_loads_and_checks(runs, tmp_path):
    data = json.loads((runs / "baseline.json").read_text())
    del data["environment"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    assert load_baseline(tmp_path / "old.json").environment == {}
    check = check_baseline(runs / "rerun", tmp_path / "old.json")
    assert check.passed and not check.notes


def test_a_failed_check_opens_with_a_line_per_metric_and_folds_the_cells_after_max_rows(runs, tmp_path, capsys):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    results["score"] += np.where(results["metric"] == "mig", 0.02, -0.01)  # both metrics drift in every cell
    (tmp_path / "run").mkdir()
    results.to_parquet(tmp_path / "run" / "results.parquet")
    argv = ["baseline", "check", str(tmp_path / "run"), "--against", str(runs / "baseline.json")]
    assert main([*argv, "--max-rows", "5"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "baseline check FAILED: 24 cells (24 drifted)"
    assert lines[1].startswith("diagonal: 12 of 12 cells drifted, largest -0.0100 against 1.00e-06 (")
    assert lines[2].startswith("mig: 12 of 12 cells drifted, largest +0.0200 against 1.00e-06 (")
    assert sum(line.startswith("| drifted") for line in lines) == 5
    assert lines[-1] == "... 19 more failing cell(s) not shown (--max-rows 0 shows every one; --format json lists them all)"
    assert main([*argv, "--max-rows", "0"]) == 1
    assert sum(line.startswith("| drifted") for line in capsys.readouterr().out.splitlines()) == 24
    assert main([*argv, "--format", "json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["passed"] is False and len(printed["cells"]) == 24
    assert [(m["metric"], m["drifted"], m["compared"]) for m in printed["metrics"]] == [("diagonal", 12, 12), ("mig", 12, 12)]
    assert printed["metrics"][1]["largest_drift"] == pytest.approx(0.02, abs=1e-12)
    cell = printed["cells"][0]
    assert all(isinstance(cell[key], (int, float)) and not isinstance(cell[key], bool)
               for key in ("value", "n_samples", "baseline", "current", "difference", "tolerance", "baseline_seeds"))
    assert type(cell["baseline_seeds"]) is int and type(cell["current_seeds"]) is int  # counts: 2, not 2.0


def test_the_pytest_helper_rewrites_its_baseline_when_asked(runs, tmp_path, monkeypatch):
    results = pd.read_parquet(runs / "run" / "results.parquet")
    results["score"] += 0.01
    target = tmp_path / "mine.json"
    with pytest.raises(AssertionError, match="no baseline file .*: write it from this run with HARNESS_UPDATE_BASELINES=1"):
        assert_matches_baseline(results, target)
    monkeypatch.setenv("HARNESS_UPDATE_BASELINES", "1")
    assert assert_matches_baseline(results, target).passed  # written, then checked
    (tmp_path / "copy.json").write_text((runs / "baseline.json").read_text())
    assert assert_matches_baseline(results, tmp_path / "copy.json").passed  # drifted, rewritten
    monkeypatch.setenv("HARNESS_UPDATE_BASELINES", "0")
    assert assert_matches_baseline(results, tmp_path / "copy.json").passed
    with pytest.raises(AssertionError, match="rewrite the baseline with HARNESS_UPDATE_BASELINES=1"):
        assert_matches_baseline(results, runs / "baseline.json")
    # "false" rewrote it (anything but 0 or empty did), and the check passed: a CI setting it checked nothing
    saved = (runs / "baseline.json").read_bytes()
    for no in ("false", "No", "off", " "):
        monkeypatch.setenv("HARNESS_UPDATE_BASELINES", no)
        with pytest.raises(AssertionError, match="rewrite the baseline with HARNESS_UPDATE_BASELINES=1"):
            assert_matches_baseline(results, runs / "baseline.json")
    assert (runs / "baseline.json").read_bytes() == saved
    monkeypatch.setenv("HARNESS_UPDATE_BASELINES", "ture")
    with pytest.raises(UsageError, match=r"HARNESS_UPDATE_BASELINES='ture' is neither a yes \(1, true, yes, on\)"):
        assert_matches_baseline(results, runs / "baseline.json")
    assert (runs / "baseline.json").read_bytes() == saved


HIDDEN = '''
import pandas as pd

from harness.workflows.baseline import assert_matches_baseline


def test_still_behaves():
    results = pd.read_parquet({results!r})
    results["score"] += 0.01
    assert_matches_baseline(results, {baseline!r})
'''


@pytest.mark.slow
def test_the_pytest_helper_shows_the_callers_line_not_its_own_source(runs, tmp_path):
    import os
    import subprocess
    import sys

    test_file = tmp_path / "test_mine.py"
    test_file.write_text(HIDDEN.format(results=str(runs / "run" / "results.parquet"), baseline=str(runs / "baseline.json")))
    done = subprocess.run([sys.executable, "-m", "pytest", str(test_file), "-p", "no:cacheprovider", "-q"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1
    assert "assert_matches_baseline(results, " in done.stdout and "baseline check FAILED: 24 cells" in done.stdout
    assert "Assert that a run still behaves like a baseline" not in done.stdout  # the helper's docstring
    assert "__tracebackhide__" not in done.stdout and "check = check_baseline(" not in done.stdout


def test_an_option_change_reads_option_changed_and_match_options_compares_it_cell_by_cell(runs, tmp_path, capsys):
    changed = run_study(preset="quick", scenarios_=["noise", "mixing"], metrics_=["mig"], metric_options={"mig": {"bins": [20]}},
                        seeds=2, n_samples=300, out=tmp_path, progress=False, log=lambda _: None)
    argv = ["baseline", "check", str(tmp_path), "--against", str(runs / "baseline.json"), "--metrics", "mig,mig[bins=20]"]
    assert main(argv) == 1
    out = capsys.readouterr().out
    # neither missing nor new; the 12 cells of the baseline counted once (24: the run's side counted as cells too)
    assert out.splitlines()[0] == ("baseline check FAILED: 12 cells, none compared (12 option changed; the run scored 12 "
                                   "cells with the other options)")
    assert ("note: metric 'mig' ran with other options as 'mig[bins=20]' (option bins 10 -> 20): its cells read "
            "'option changed'; compare them cell by cell with --match-options") in out
    rows = [line.strip("|").split("|") for line in out.splitlines() if line.startswith("| option changed")]
    run_side = [row for row in rows if row[4].strip() == "mig[bins=20]"]  # no baseline, so no tolerance: it printed nan
    assert run_side and {row[-1].strip() for row in run_side} == {"—"}

    check = check_baseline(tmp_path, runs / "baseline.json", metrics=["mig", "mig[bins=20]"], match_options=True)
    assert set(check.table["metric"]) == {"mig -> mig[bins=20]"} and len(check.table) == 12
    for named in (["mig"], ["mig[bins=20]"]):  # either side's name takes its partner: alone, "none compared"
        alone = check_baseline(tmp_path, runs / "baseline.json", metrics=named, match_options=True)
        pd.testing.assert_frame_equal(alone.table, check.table)
    assert "mig -> mig[bins=20]: option bins 10 -> 20; its cells are compared cell by cell (--match-options), so drift " \
           "may be intended" in check.notes
    before = pd.read_csv(runs / "run" / "results.csv").query("metric == 'mig'").groupby(["scenario", "value"])["score"].mean()
    after = changed.groupby(["scenario", "value"])["score"].mean()
    found = check.table.set_index(["scenario", "value"])["difference"]
    pd.testing.assert_series_equal(found.sort_index(), (after - before).sort_index(), check_names=False, atol=1e-12)
    assert not check.passed and (check.table["status"] == "drifted").sum() == (found.abs() > 1e-6).sum() > 0


def test_updating_a_check_of_some_metrics_rewrites_their_cells_alone(runs, tmp_path, monkeypatch):
    # a pytest check of mig alone, updated with HARNESS_UPDATE_BASELINES=1, rewrote the whole shared baseline from
    # the run: the drift of `diagonal` (never checked) became its baseline, silently
    shared = tmp_path / "shared.json"
    shared.write_text((runs / "baseline.json").read_text())
    monkeypatch.setenv("HARNESS_UPDATE_BASELINES", "1")
    assert_matches_baseline(runs / "drifted", shared, metrics=["mig"])
    monkeypatch.setenv("HARNESS_UPDATE_BASELINES", "0")
    check = check_baseline(runs / "drifted", shared)
    assert not check.passed and set(check.failures["metric"]) == {"diagonal"}  # its drift is still caught
    before, after = load_baseline(runs / "baseline.json"), load_baseline(shared)
    keys = ["metric", "sub_score", "scenario", "value_label", "n_samples"]
    assert after.cells.sort_values(keys).reset_index(drop=True).equals(before.cells.sort_values(keys).reset_index(drop=True))
    assert after.metric_versions == before.metric_versions and after.provenance.keys() == before.provenance.keys()
    # the checked metric's cells are the run's: a drifted run's mig cells replace the baseline's
    results = pd.read_parquet(runs / "run" / "results.parquet")
    results.loc[results["metric"] == "mig", "score"] += 0.5
    save_baseline(results, shared, force=True, metrics=["mig"])
    updated = load_baseline(shared)
    assert np.allclose(updated.cells.loc[updated.cells["metric"] == "mig", "mean"].sort_values().to_numpy(),
                       before.cells.loc[before.cells["metric"] == "mig", "mean"].sort_values().to_numpy() + 0.5)
    assert (updated.cells.loc[updated.cells["metric"] == "diagonal"].sort_values(keys).reset_index(drop=True)
            .equals(before.cells.loc[before.cells["metric"] == "diagonal"].sort_values(keys).reset_index(drop=True)))
    with pytest.raises(UsageError, match=r"metric 'mgi' is in neither the run nor the baseline \(did you mean mig\?\)"):
        save_baseline(results, shared, force=True, metrics=["mgi"])


@pytest.mark.parametrize("run", [42, None, ["runs/x"]])
def test_a_run_that_is_neither_a_table_nor_a_path_is_a_clear_type_error(run, tmp_path):
    # 42 raised a TypeError from pathlib, deep inside the failures' loader
    message = f"^run must be a results table \\(a pandas DataFrame\\) or a run directory \\(a str or path\\), got {type(run).__name__}$"
    with pytest.raises(TypeError, match=message):
        assert_matches_baseline(run, tmp_path / "b.json", update=True)
    with pytest.raises(TypeError, match=message):
        check_baseline(run, tmp_path / "b.json")
    assert not (tmp_path / "b.json").exists()
