"""Option values are refused when a study is planned, from the metrics' declarations (nothing is called)."""

from __future__ import annotations

import math
import textwrap

import pandas as pd
import pytest

from harness.cli import main
from harness.errors import UsageError
from harness.execution.metric_refs import declared_score_range, registered_entry, resolve, variants
from harness.execution.runner import plan_study, run_study

# A user metric declaring one option's values and not another's, and one without any declaration.
METRIC = '''
from metrics.constraints import Interval
from metrics.describe import describe_metric


@describe_metric(constraints={"window": Interval(int, 1, None)}, score_range=Interval(float, -1.0, None))
def windowed(factors, codes, *, window=100, column=0):
    if column >= codes.shape[1]:
        raise ValueError(f"column {column} is not one of the {codes.shape[1]} codes")
    return float(min(window, codes.shape[0])) / codes.shape[0]


def plain(factors, codes, *, scale=1.0):
    if scale <= 0:
        raise ValueError(f"scale must be > 0, got {scale}")
    return 0.5
'''


@pytest.fixture(scope="module")
def user_metric(tmp_path_factory):
    path = tmp_path_factory.mktemp("declared") / "windowed.py"
    path.write_text(textwrap.dedent(METRIC))
    return path


@pytest.mark.parametrize(("value", "shown"), [("0", "0"), ("abc", "'abc'"), ("10.5", "10.5")])
def test_run_refuses_a_bad_value_before_any_cell_runs(value, shown, tmp_path, capsys):
    argv = ["run", "--preset", "quick", "--scenarios", "noise", "--metrics", "mig", "--metric-option", f"mig:bins=5,{value}",
            "--jobs", "1", "--no-report", "--no-progress", "--out", str(tmp_path / "run")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == f"error: metric 'mig' does not take bins={shown}: bins must be an integer >= 2\n"
    assert captured.out == "" and not (tmp_path / "run").exists()
    assert main(argv[:-2] + ["--dry-run"]) == 2  # the plan says it too


def test_validate_refuses_a_bad_value_of_a_builtin_or_a_declared_one_of_yours_before_the_battery(user_metric, tmp_path, capsys):
    common = ["--n-samples", "200", "--jobs", "1", "--no-progress", "--out", str(tmp_path / "card"),
              "--builtins-dir", str(tmp_path / "builtins")]
    assert main(["validate", f"{user_metric}:windowed", "--metrics", "mig", "--metric-option", "mig:bins=1", *common]) == 2
    assert "error: metric 'mig' does not take bins=1: bins must be an integer >= 2" in capsys.readouterr().err
    assert main(["validate", f"{user_metric}:windowed", "--metrics", "mig", "--metric-option", "windowed:window=0",
                 *common]) == 2
    assert "error: metric 'windowed' does not take window=0: window must be an integer >= 1" in capsys.readouterr().err
    assert not (tmp_path / "card").exists() and not (tmp_path / "builtins").exists()


def test_run_study_and_plan_study_raise_a_usage_error_naming_the_legal_values():
    with pytest.raises(UsageError, match=r"metric 'dci_es' does not take max_capacity_doublings=62: "
                                         r"max_capacity_doublings must be an integer in \[2, 61\]"):
        run_study(preset="quick", scenarios_=["noise"], metrics_=["dci_es"],
                  metric_options={"dci_es": {"max_capacity_doublings": [62]}}, progress=False)
    with pytest.raises(UsageError, match=r"metric 'sap' does not take max_leaves='many': max_leaves must be 'auto' or "
                                         r"an integer >= 2"):
        plan_study(preset="quick", metrics_=["sap"], metric_options={"sap": {"max_leaves": ["many"]}})


def test_what_no_declaration_says_is_left_to_the_cells(user_metric, tmp_path):
    # a value legal for other data (a code column the representation lacks), and an option of a function declaring
    # no rule for it: planned, then failed by the cells, which record why
    for reference, sweep in ((f"{user_metric}:windowed", {"column": [10]}), (f"{user_metric}:plain", {"scale": [-1.0]})):
        assert len(variants(resolve(reference), sweep)) == 1
    frame = run_study(preset="quick", scenarios_=["noise"], metrics_=[f"{user_metric}:plain"], seeds=1, n_samples=200,
                      grids={"noise": [0.0]}, metric_options={f"{user_metric}:plain": {"scale": [1.0, -1.0]}},
                      jobs=1, backend="sequential", progress=False, out=tmp_path / "run")
    assert frame.loc[frame.metric == "plain[scale=1]", "score"].tolist() == [0.5]
    failures = pd.read_csv(tmp_path / "run" / "failures.csv")
    assert failures["metric"].tolist() == ["plain[scale=-1]"]
    assert "scale must be > 0, got -1.0" in failures["error"].iloc[0]


def test_every_preset_sweep_is_legal():
    assert plan_study(preset="default")  # its sweeps (mig over bins, dci_es over capacities, ...) pass their rules
    assert len(variants(registered_entry("mig"), {"bins": [5, 40]})) == 2


def test_the_declared_score_ranges_as_the_card_reads_them(user_metric):
    assert declared_score_range(registered_entry("dci_es")) == {"explicitness": (-1.0, 1.0), "size": (0.0, math.inf)}
    assert declared_score_range(resolve(f"{user_metric}:windowed")) == (-1.0, math.inf)
    assert declared_score_range(resolve(f"{user_metric}:plain")) is None
