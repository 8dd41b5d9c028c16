"""``report DIR``: a report of a subset of a run (--metrics, --scenarios, --out), and a table written before the option
columns, read the same way as a new one."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import reports
from harness.cli import main
from harness.execution.runner import run_study
from harness.workflows.run_results import load_run_results
from reports.results.schema import DERIVED_COLUMNS


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A small run: MIG swept over bins (its default, 10, among the values) and Modularity, on noise and mixing."""
    out = tmp_path_factory.mktemp("run")
    run_study(preset="quick", scenarios_=["noise", "mixing"], metrics_=["mig", "modularity"], seeds=1, n_samples=300,
              metric_options={"mig": {"bins": [5, 10]}}, out=out, progress=False, log=lambda _: None)
    return out


def test_rows_carry_the_metric_and_its_options_as_data(run_dir):
    results = pd.read_parquet(run_dir / "results.parquet")
    variant = results.loc[results["metric"] == "mig[bins=5]"].iloc[0]
    assert variant["metric_base"] == "mig"
    assert json.loads(variant["options"]) == {"bins": 5} and json.loads(variant["default_options"]) == {
        "bins": 10, "normalization": "factor"}  # every option of the metric, with its default
    plain = results.loc[results["metric"] == "modularity"].iloc[0]
    assert (plain["metric_base"], plain["options"], plain["default_options"]) == ("modularity", "{}", "{}")
    csv = pd.read_csv(run_dir / "results.csv", dtype=str, keep_default_na=False)
    assert csv["options"].tolist() == results["options"].tolist()  # the JSON survives the CSV round trip


def test_a_table_written_before_the_option_columns_reads_like_a_new_one(run_dir, tmp_path):
    results = pd.read_parquet(run_dir / "results.parquet")
    results.drop(columns=list(DERIVED_COLUMNS)).to_parquet(tmp_path / "results.parquet")
    old = load_run_results(tmp_path)  # the harness gives the registry's defaults to what the table lacks
    new = load_run_results(run_dir)
    pd.testing.assert_frame_equal(old[list(DERIVED_COLUMNS)], new[list(DERIVED_COLUMNS)])
    bare = reports.load_results(tmp_path)  # reports alone read no registry: the default variant is unknown
    assert set(bare["default_options"]) == {"{}"} and set(bare["metric_base"]) == {"mig", "modularity"}


def test_a_report_of_a_subset(run_dir, tmp_path, capsys):
    out = tmp_path / "subset"
    assert main(["report", str(run_dir), "--metrics", "mig", "--scenarios", "noise", "--out", str(out),
                 "--jobs", "1"]) == 0
    subset = pd.read_parquet(out / "results.parquet")
    assert set(subset["metric"]) == {"mig[bins=5]", "mig[bins=10]"} and set(subset["scenario"]) == {"noise"}
    headline = pd.read_csv(out / "tables" / "headline.csv")
    assert set(headline["metric"]) == {"mig"}  # the sweep judged at its default
    latex = (out / "tables" / "calibration.tex").read_text(encoding="utf-8")
    assert "Scenarios behind the verdicts: noise (n = 300, 1 seed)" in latex
    assert "Scenarios behind the verdicts: noise (n = 300, 1 seed)." in (out / "report.md").read_text(encoding="utf-8")
    assert (run_dir / "report.html").exists() is False  # the run's own directory is left alone
    assert {path.suffix for path in (out / "figures").iterdir()} == {".png"}  # PNG only by default


@pytest.mark.slow  # 5 s: two reports; the fast tier tests the line itself (tests/reports/test_report_failures.py)
def test_the_report_says_which_cells_failed_and_a_metric_that_never_scored(run_dir, tmp_path, capsys):
    # a metric whose every cell raised vanished from the report ("1 metrics"), with nothing saying so
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    pd.DataFrame([("noise", "1", 0, 300, "modularity", "ValueError: no signal"),
                  ("noise", "0", 0, 300, "ghost", "RuntimeError: first\nsecond line"),
                  ("mixing", "0.5", 0, 300, "ghost", "RuntimeError: again")],
                 columns=["scenario", "value_label", "seed", "n_samples", "metric", "error"]).to_csv(
        copy / "failures.csv", index=False)
    assert main(["report", str(copy), "--jobs", "1"]) == 0
    text = (copy / "report.md").read_text(encoding="utf-8")
    assert ("3 cell(s) failed and have no score, so the analyses read only the cells that scored (failures.csv lists "
            "each with its error): ghost, 2 (first: noise = 0, seed 0: RuntimeError: first second line); modularity, 1 "
            "(first: noise = 1, seed 0: ValueError: no signal). No cell of ghost scored: it is in no table.") in text
    assert "cell(s) failed" in (copy / "report.html").read_text(encoding="utf-8")
    capsys.readouterr()
    out = tmp_path / "subset"
    assert main(["report", str(copy), "--metrics", "mig", "--out", str(out), "--jobs", "1"]) == 0
    assert "failed" not in (out / "report.md").read_text(encoding="utf-8")  # none of mig's cells failed


@pytest.mark.slow  # 3 to 5 s; the fast tier keeps other tests of the same code (issue 37's 5-minute tier)
def test_a_report_with_svg_and_pdf_figures(run_dir, tmp_path, capsys):
    out = tmp_path / "formats"
    assert main(["report", str(run_dir), "--scenarios", "noise", "--out", str(out), "--jobs", "1",
                 "--figure-formats", "png,svg,pdf"]) == 0
    stems = {path.stem for path in (out / "figures").iterdir()}
    assert "noise" in stems
    for stem in stems:
        assert {path.suffix for path in (out / "figures").glob(f"{stem}.*")} == {".png", ".svg", ".pdf"}, stem


@pytest.mark.parametrize("command", [["run", "--preset", "quick", "--out", "OUT"], ["report", "RUN", "--out", "OUT"]])
def test_an_unknown_figure_format_is_a_one_line_usage_error(run_dir, tmp_path, capsys, command):
    arguments = [str(tmp_path / "out") if a == "OUT" else str(run_dir) if a == "RUN" else a for a in command]
    assert main([*arguments, "--figure-formats", "png,gif"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "--figure-formats: unknown figure format 'gif': choose among png, svg, pdf" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("arguments", "message"), [
    (["--metrics", "mgi", "--out", "OUT"], "unknown metric(s) ['mgi'] (did you mean mig?)"),
    (["--scenarios", "nois", "--out", "OUT"], "unknown scenario(s) ['nois'] (did you mean noise?)"),
    (["--metrics", "mig"], "name another directory with --out"),
])
def test_a_subset_names_what_it_lacks(run_dir, tmp_path, capsys, arguments, message):
    arguments = [str(tmp_path / "out") if argument == "OUT" else argument for argument in arguments]
    assert main(["report", str(run_dir), *arguments, "--jobs", "1"]) == 2  # no workers started for an error: 4 s
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("subset", "held", "replaced"), [
    (["--metrics", "modularity"], "cells.jsonl", "its results table"),
    ([], "cells.jsonl", "the report of its results"),
    ([], "results.parquet", "the report of its results"),
])
def test_a_report_into_another_runs_directory_is_refused(run_dir, tmp_path, capsys, subset, held, replaced):
    # report runs/quick --metrics sap --out runs/small replaced runs/small's results table with sap's, silently
    other = tmp_path / "other"
    other.mkdir()
    (other / held).write_bytes((run_dir / held).read_bytes())
    assert main(["report", str(run_dir), *subset, "--out", str(other), "--jobs", "1"]) == 2
    assert capsys.readouterr().err == (f"error: --out {str(other)!r} holds another run ({held}): {replaced} would be "
                                       "replaced; name a new directory, or pass --force\n")
    assert [path.name for path in other.iterdir()] == [held]  # nothing written


@pytest.mark.slow  # 4 to 6 s: two reports; the refusals are tested above
def test_a_subsets_earlier_report_is_rewritten_and_another_run_with_force(run_dir, tmp_path):
    earlier = tmp_path / "earlier"  # a subset's earlier report: its results, no store
    earlier.mkdir()
    (earlier / "results.parquet").write_bytes((run_dir / "results.parquet").read_bytes())
    assert main(["report", str(run_dir), "--metrics", "modularity", "--out", str(earlier), "--jobs", "1"]) == 0
    assert set(pd.read_parquet(earlier / "results.parquet")["metric"]) == {"modularity"}
    other = tmp_path / "other"
    other.mkdir()
    (other / "cells.jsonl").write_bytes((run_dir / "cells.jsonl").read_bytes())
    assert main(["report", str(run_dir), "--metrics", "modularity", "--out", str(other), "--jobs", "1", "--force"]) == 0
    assert set(pd.read_parquet(other / "results.parquet")["metric"]) == {"modularity"}


def test_a_subsets_report_draws_each_metric_in_the_runs_colour(run_dir, tmp_path, monkeypatch):
    # coloured on its own, the subset drew its metrics in other colours than the run's report and plot did
    from reports.rendering.comparison import run_colours

    drawn = {}
    monkeypatch.setattr(reports, "write_report", lambda results, out, **options: drawn.update(options) or out / "r.html")
    assert main(["report", str(run_dir), "--metrics", "modularity", "--out", str(tmp_path / "sub"), "--jobs", "1"]) == 0
    whole = load_run_results(run_dir)
    assert drawn["colours"] == {"modularity": run_colours(whole)["modularity"]}
    alone = run_colours(whole.loc[whole["metric"] == "modularity"])
    assert alone["modularity"] != drawn["colours"]["modularity"]  # what the subset drew before
    assert main(["report", str(run_dir), "--metrics", "modularity", "--out", str(tmp_path / "sub"), "--jobs", "1",
                 "--colors", "modularity=#123456"]) == 0
    assert drawn["colours"] == {"modularity": "#123456"}  # --colors still wins


def _workers_asked(monkeypatch) -> list[tuple[int, tuple[str, ...]]]:
    """Each ``report_workers(jobs, imports)`` the report asks for, recorded as it goes to the real one."""
    import harness.execution.backends as backends

    asked = []
    real = backends.report_workers
    monkeypatch.setattr(backends, "report_workers",
                        lambda jobs, imports=(): asked.append((jobs, tuple(imports))) or real(jobs, imports))
    return asked


def test_a_subsets_typo_is_said_before_any_worker_starts(run_dir, tmp_path, monkeypatch, capsys):
    # the workers' imports were begun first, and the one-line error waited for them (about 3 s)
    asked = _workers_asked(monkeypatch)
    assert main(["report", str(run_dir), "--metrics", "mgi", "--out", str(tmp_path / "out")]) == 2
    assert "unknown metric(s) ['mgi']" in capsys.readouterr().err
    assert asked == []


def test_a_report_of_a_few_small_figures_draws_them_here_unless_workers_are_asked_for(run_dir, tmp_path, monkeypatch):
    # 2 scenarios, 6 lines: workers started for its figures cost more CPU than they save (the same files whatever
    # the workers: tests/reports/test_reports_report.py)
    import reports

    asked = _workers_asked(monkeypatch)
    drawn = []
    monkeypatch.setattr(reports, "write_report", lambda results, out, jobs, **_: drawn.append(jobs) or out / "report.html")
    assert main(["report", str(run_dir), "--out", str(tmp_path / "here"), "--force"]) == 0
    assert [jobs for jobs, _ in asked] == drawn == [1]  # an explicit --jobs is kept: test_local_pool.py


def test_a_small_runs_report_draws_its_figures_in_the_runs_process(tmp_path, monkeypatch):
    import reports

    asked = _workers_asked(monkeypatch)
    drawn = []
    monkeypatch.setattr(reports, "write_report", lambda results, out, jobs, **_: drawn.append(jobs) or out / "report.html")
    assert main(["run", "--preset", "quick", "--scenarios", "noise", "--metrics", "mig", "--seeds", "1", "--n-samples",
                 "200", "--out", str(tmp_path / "run"), "--no-progress"]) == 0
    assert [jobs for jobs, _ in asked] == drawn == [1]
