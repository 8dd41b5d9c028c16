"""Option sweeps: --metric-option METRIC:OPTION=V1,V2 runs labelled variants of a metric."""

from __future__ import annotations

import argparse
import textwrap

import pandas as pd
import pytest

import metrics
from harness.cli import main
from harness.cli._args import metric_option, option_sweeps
from harness.errors import UsageError
from harness.execution.metric_refs import registered_entry, resolve, variants
from harness.execution.runner import plan_study, run_study
from harness.execution.scoring import generate_draw


def test_the_flag_parses_numbers_words_and_references():
    assert metric_option("mig:bins=5, 20") == ("mig", "bins", [5, 20])
    assert metric_option("unibound:estimator=knn,miller_madow") == ("unibound", "estimator", ["knn", "miller_madow"])
    assert metric_option("sap:chance_adjusted=true,False") == ("sap", "chance_adjusted", [True, False])
    assert metric_option("path/to/m.py:score:scale=0.5,None") == ("path/to/m.py:score", "scale", [0.5, None])
    for bad in ("mig", "mig:bins", "bins=5", "mig:bins=", ":bins=5"):
        with pytest.raises(argparse.ArgumentTypeError, match="METRIC:OPTION=VALUE"):
            metric_option(bad)


def test_a_value_given_twice_is_refused_naming_it(capsys):
    with pytest.raises(argparse.ArgumentTypeError, match="'mig:bins=5,20,5' lists the value 5 twice"):
        metric_option("mig:bins=5,20,5")
    # it used to plan the same cells twice and say "check for repeated scenario or metric names"
    assert main(["run", "--scenarios", "noise", "--metrics", "mig", "--metric-option", "mig:bins=5, 5", "--no-report"]) == 2
    assert "lists the value 5 twice" in capsys.readouterr().err


def test_an_option_given_twice_is_refused():
    assert option_sweeps([("mig", "bins", [5]), ("mig", "normalization", ["code"])]) == {
        "mig": {"bins": [5], "normalization": ["code"]}}
    with pytest.raises(UsageError, match="gives mig:bins twice"):
        option_sweeps([("mig", "bins", [5]), ("mig", "bins", [20])])


def test_variants_are_named_by_their_options_and_keep_the_other_defaults():
    mig = registered_entry("mig")
    swept = variants(mig, {"bins": [5, 20], "normalization": ["factor", "code"]})
    assert [entry.name for entry in swept] == [
        "mig[bins=5,normalization=factor]", "mig[bins=5,normalization=code]",
        "mig[bins=20,normalization=factor]", "mig[bins=20,normalization=code]"]
    assert dict(swept[3].options) == {"bins": 20, "normalization": "code"}
    assert {entry.variant_of for entry in swept} == {"mig"} and len({entry.fingerprint() for entry in swept}) == 4
    with pytest.raises(UsageError, match="metric 'mig' has no option 'bin'; its options: bins, normalization"):
        variants(mig, {"bin": [5]})


def test_a_user_metric_is_swept_over_its_keyword_parameters(tmp_path):
    path = tmp_path / "scaled.py"
    path.write_text(textwrap.dedent('''
        def scaled(factors, codes, *, discrete=None, scale=1.0):
            return scale
    '''))
    entry = resolve(f"{path}:scaled")
    assert [dict(v.options) for v in variants(entry, {"scale": [0.5, 2.0]})] == [{"scale": 0.5}, {"scale": 2.0}]
    with pytest.raises(UsageError, match="has no option 'discrete'; its options: scale"):
        variants(entry, {"discrete": [True]})
    frame = run_study(scenarios_=["noise"], metrics_=[f"{path}:scaled"], metric_options={f"{path}:scaled": {"scale": [0.5, 2.0]}},
                      seeds=1, n_samples=50, progress=False, log=lambda message: None)
    assert set(zip(frame["metric"], frame["score"])) == {("scaled[scale=0.5]", 0.5), ("scaled[scale=2]", 2.0)}


def test_each_variant_scores_the_shared_draw_with_its_options():
    sweep = {"mig": {"bins": [5, 20]}, "rmig": {"estimator": ["histogram", "miller_madow", "knn"]}}
    frame = run_study(scenarios_=["mixing"], metrics_=["mig", "rmig"], metric_options=sweep, seeds=1, n_samples=300,
                      null_permutations=0, progress=False, log=lambda message: None)
    assert set(frame["metric"]) == {"mig[bins=5]", "mig[bins=20]", "rmig[estimator=histogram]",
                                    "rmig[estimator=miller_madow]", "rmig[estimator=knn]"}
    cell = next(c for c in plan_study(scenarios_=["mixing"], metrics_=["mig"], seeds=1, n_samples=300) if c.value == 0.2)
    data = generate_draw(cell)
    for metric, options in (("mig", {"bins": 5}), ("mig", {"bins": 20}), ("rmig", {"estimator": "miller_madow"}),
                            ("rmig", {"estimator": "knn"})):
        label = f"{metric}[{next(iter(options))}={next(iter(options.values()))}]"
        expected = metrics.evaluate(metric, data.factors, data.codes, **options)[metric]
        assert frame.loc[(frame["metric"] == label) & (frame["value"] == 0.2), "score"].item() == expected


def test_a_sweep_of_a_metric_outside_the_study_is_refused():
    with pytest.raises(UsageError, match="option sweeps name metric\\(s\\) not in the study: sap"):
        plan_study(scenarios_=["noise"], metrics_=["mig"], metric_options={"sap": {"test_size": [0.5]}})


def test_the_command_line_writes_variants(tmp_path):
    status = main(["run", "--scenarios", "noise", "--metrics", "mig", "--metric-option", "mig:bins=5,40",
                   "--seeds", "1", "--n-samples", "200", "--out", str(tmp_path), "--no-report", "--no-progress", "--jobs", "1"])
    assert status == 0
    assert set(pd.read_csv(tmp_path / "results.csv")["metric"]) == {"mig[bins=5]", "mig[bins=40]"}


def test_the_estimator_sweep_of_mig_is_rmigs():
    """MIG is defined by its plug-in estimate; rmig (Do and Tran 2020, eq. 10) is MIG with the estimator as an option:
    at the plug-in estimator and entropy normalisation it is MIG exactly, so sweeping rmig's estimator sweeps MIG's."""
    frame = run_study(scenarios_=["mixing"], metrics_=["mig", "rmig"],
                      metric_options={"rmig": {"estimator": ["histogram", "miller_madow", "knn"], "normalize": ["entropy"]}},
                      seeds=1, n_samples=400, null_permutations=0, progress=False, log=lambda message: None)
    scores = frame.pivot_table(index="value", columns="metric", values="score")
    pd.testing.assert_series_equal(scores["rmig[estimator=histogram,normalize=entropy]"], scores["mig"], check_names=False)
    assert (scores["rmig[estimator=miller_madow,normalize=entropy]"] != scores["mig"]).all()
