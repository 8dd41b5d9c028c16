"""One name, one metric (and one scenario): two sources under one name are refused up front, naming both.

Results are keyed by a metric's name: ``run --metrics mig,clash.py:mig`` used to be accepted (now a user's metric
named as a built-in is refused on its own), its dry run
showed one metric, ``baseline save`` averaged the built-in MIG with the user's function as if they were two
seeds, ``baseline check`` passed, and ``evaluate`` printed two ``mig`` rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics.registry
from harness.cli import main
from harness.errors import UsageError
from harness.execution.runner import run_study
from harness.workflows.baseline import check_baseline, save_baseline
from harness.workflows.evaluate import evaluate_representation

CLASH = "def mig(factors, codes):\n    return 0.5\n"
MINE = "def mine(factors, codes):\n    return 0.5\n"
BOTH = ("metrics '{first}:mine' and '{second}:mine' are both named 'mine', so their results would mix; give one of "
        "them another name")
BUILT_IN = ("metric '{path}:mig' is named 'mig', which is a built-in metric's name; give yours another (its "
            "function's, or describe_metric(name=...))")


@pytest.fixture
def clash(tmp_path):
    path = tmp_path / "clash.py"
    path.write_text(CLASH)
    return path


@pytest.fixture
def twins(tmp_path):
    """Two users' files, each with a metric named 'mine'."""
    paths = [tmp_path / "first.py", tmp_path / "second.py"]
    for path in paths:
        path.write_text(MINE)
    return paths


def _one_line_naming_both(capsys, twins) -> None:
    err = capsys.readouterr().err
    assert err == f"error: {BOTH.format(first=twins[0], second=twins[1])}\n"


def test_run_refuses_two_metrics_of_one_name_up_front(twins, tmp_path, capsys):
    argv = ["run", "--preset", "quick", "--scenarios", "noise", "--metrics", f"{twins[0]}:mine,{twins[1]}:mine",
            "--out", str(tmp_path / "r")]
    assert main([*argv, "--dry-run"]) == 2
    _one_line_naming_both(capsys, twins)
    assert main([*argv, "--no-report", "--no-progress"]) == 2
    _one_line_naming_both(capsys, twins)
    assert not (tmp_path / "r").exists()  # refused before any work


def test_a_users_metric_named_as_a_built_in_is_refused(clash, arrays, tmp_path, capsys):
    # run --metrics clash.py:my_mig named 'mig' by describe_metric was accepted alone: the report compared it with the
    # review's MIG row of Table 2, and baseline check read it as mig at another version
    argv = ["run", "--preset", "quick", "--scenarios", "noise", "--metrics", f"{clash}:mig", "--out", str(tmp_path / "r")]
    assert main([*argv, "--dry-run"]) == 2
    assert capsys.readouterr().err == f"error: {BUILT_IN.format(path=clash)}\n"
    named = tmp_path / "named.py"
    named.write_text("from metrics.describe import describe_metric\n\n\n"
                     "@describe_metric(property='compactness', name='sap')\n"
                     "def my_sap(factors, codes):\n    return 0.5\n")
    factors, codes = (np.load(arrays / name) for name in ("factors.npy", "codes.npy"))
    with pytest.raises(UsageError, match="is named 'sap', which is a built-in metric's name"):
        evaluate_representation(factors, codes, metric_names=[f"{named}:my_sap"])
    assert not (tmp_path / "r").exists()


def test_evaluate_refuses_two_metrics_of_one_name(twins, arrays, tmp_path, capsys):
    argv = ["evaluate", "--factors", str(arrays / "factors.npy"), "--codes", str(arrays / "codes.npy"),
            "--metrics", f"{twins[0]}:mine,{twins[1]}:mine", "--out", str(tmp_path / "scores.csv")]
    assert main(argv) == 2
    _one_line_naming_both(capsys, twins)


def test_the_python_api_refuses_them_too(twins, arrays):
    with pytest.raises(UsageError, match="both named 'mine'"):
        run_study(preset="quick", scenarios_=["noise"], metrics_=[f"{twins[0]}:mine", f"{twins[1]}:mine"],
                  progress=False)
    factors, codes = (np.load(arrays / name) for name in ("factors.npy", "codes.npy"))
    with pytest.raises(UsageError, match="both named 'mine'"):
        evaluate_representation(factors, codes, metric_names=[f"{twins[1]}:mine", f"{twins[0]}:mine"])
    with pytest.raises(UsageError, match="metric 'mig' is listed twice"):
        evaluate_representation(factors, codes, metric_names=["mig", "mig"])


def test_a_scenario_named_twice_is_refused_by_the_same_rule(capsys):
    assert main(["run", "--preset", "quick", "--scenarios", "noise,mixing,noise", "--metrics", "mig", "--dry-run"]) == 2
    assert capsys.readouterr().err == "error: scenario 'noise' is listed twice\n"


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory):
    """A run directory whose table holds two metrics named 'mig' (as a run before the refusal could write it)."""
    out = tmp_path_factory.mktemp("mixed")
    results = run_study(preset="quick", scenarios_=["noise"], metrics_=["mig"], seeds=1, n_samples=200, out=out,
                        progress=False, log=lambda _: None)
    user = results.assign(family="custom", metric_version="0123456789ab", score=0.5)
    mixed = pd.concat([results, user], ignore_index=True)
    mixed.to_parquet(out / "results.parquet")
    mixed.to_csv(out / "results.csv", index=False)
    return out, mixed, results


MIXED = (f"hold two metrics named 'mig' (family information, version {metrics.registry.get('mig').version} and family "
         "custom, version 0123456789ab), whose rows would be read as one metric's; rerun with one of them renamed")


def test_baseline_and_plot_refuse_a_table_mixing_two_metrics_of_one_name(mixed_run, tmp_path, capsys):
    out, mixed, results = mixed_run
    assert main(["baseline", "save", str(out), "--to", str(tmp_path / "b.json")]) == 2
    assert capsys.readouterr().err == f"error: the results in {out} {MIXED}\n"
    assert not (tmp_path / "b.json").exists()
    assert main(["plot", str(out), "--out", str(tmp_path / "f.png")]) == 2
    assert capsys.readouterr().err == f"error: the results in {out} {MIXED}\n"
    save_baseline(results, tmp_path / "b.json")
    with pytest.raises(UsageError, match="the results hold two metrics named 'mig'"):
        check_baseline(mixed, tmp_path / "b.json")


def test_the_refusal_reads_the_final_name_and_spares_what_only_looks_like_a_built_in(clash, tmp_path):
    # refused at loading, a user's 'mig' could not be validated under another name (validate --name mine), nor a
    # built-in's own function checked by check_axioms; a name shaped as a variant's label was accepted
    import metrics.mig
    from harness.execution.metric_refs import resolve_all
    from harness.workflows.axioms import check_axioms
    from harness.workflows.user_metric import metric_entry

    assert metric_entry(f"{clash}:mig", name="mine").name == "mine"
    assert len(check_axioms(metrics.mig.mig)) >= 8
    labelled = tmp_path / "labelled.py"
    labelled.write_text("from metrics.describe import describe_metric\n\n\n"
                        "@describe_metric(property='compactness', name='mig[bins=5]')\n"
                        "def mine(factors, codes, *, power: float = 1.0):\n    return 0.5\n")
    with pytest.raises(UsageError, match=r"is named 'mig\[bins=5\]', which holds '\[', '\]' or ','"):
        resolve_all([f"{labelled}:mine"])
    gap = tmp_path / "gap.py"
    gap.write_text("def gap(factors, codes, *, power: float = 1.0):\n    return 0.5\n")
    assert [entry.name for entry in resolve_all([f"{gap}:gap[power=3]"])] == ["gap[power=3]"]


def test_a_users_metric_under_a_directory_with_brackets_is_loaded(tmp_path):
    # 'proj[v2]/m.py:gap' was read as a variant's label of a metric named 'proj...'
    from harness.execution.metric_refs import resolve_all

    folder = tmp_path / "proj[v2]"
    folder.mkdir()
    (folder / "m.py").write_text("def gap(factors, codes, *, power: float = 1.0):\n    return 0.5\n")
    assert [entry.name for entry in resolve_all([f"{folder}/m.py:gap", f"{folder}/m.py:gap[power=3]"])] == [
        "gap", "gap[power=3]"]
