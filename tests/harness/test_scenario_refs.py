"""Scenario references: compositions and users' scenarios through plan_study, run_study and the command line."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics
from harness.cli import main
from harness.errors import UnknownNameError, UsageError
from harness.execution.plan import Cell
from harness.execution.runner import plan_study, run_study
from harness.execution.scenario_refs import canonical_reference, scenario_for
from harness.execution.seeds import identity_seed
from reports.results.schema import TIMING_COLUMNS

USER_SCENARIO = textwrap.dedent('''
    import numpy as np
    from scenarios import Scenario, describe_scenario

    @describe_scenario(parameter="leak", values=(0.0, 0.5), ideal=lambda leak: {"explicitness": 1.0, "modularity": 1.0 - leak})
    def leaky(leak, n, rng):
        factors = rng.random((n, 3))
        return factors, factors + leak * factors[:, [1, 2, 0]]

    def _build(value, n, rng):
        factors = rng.random((n, 2))
        return factors, factors[:, ::-1].copy(), (False, False)

    SWAPPED = Scenario(name="swapped", parameter="p", values=(1.0,), build=_build,
                       ideal_trajectory=lambda value: {"modularity": 1.0}, check_value=float,
                       source="a test", summary="codes are the factors swapped")

    NOT_A_SCENARIO = 3
''')


@pytest.fixture
def user_file(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "my_scenarios.py"
    path.parent.mkdir()
    path.write_text(USER_SCENARIO)
    return path


def test_a_registered_cell_keeps_its_identity():
    """Built-in scenarios' cells hash what they hashed before references existed: cached results stay valid."""
    cell = Cell("s", "noise", 0.2, 1, 0, 100, plan_study(metrics_=["mig"], scenarios_=["noise"])[0].metric)
    assert cell.data_identity == ("noise", "1", "0.2", 0, 100)
    assert cell.seed_identity == ("noise", "1", 0, 100)


def test_a_composition_resolves_and_is_written_canonically():
    assert canonical_reference(" redundancy_attack@noise=.2 ") == "redundancy_attack@noise=0.2"
    assert scenario_for("redundancy_attack@noise=.2").name == "redundancy_attack@noise=0.2"
    nested = scenario_for("partial@noise@rotation=0.3=0.2")
    assert nested.name == "partial@noise@rotation=0.3=0.2" and nested.values == tuple(range(8, 0, -1))


@pytest.mark.parametrize(("reference", "error", "message"), [
    ("nois", UnknownNameError, "did you mean noise"),
    ("redundancy_atack@noise=0.2", UnknownNameError, "unknown transform 'redundancy_atack'"),
    ("redundancy_attack@nois=0.2", UnknownNameError, "unknown scenario 'nois'"),
    ("redundancy_attack@noise=7", UsageError, r"alpha must be in \[0, 1\]"),
    ("redundancy_attack@noise", UsageError, "TRANSFORM@BASE=VALUE"),
    ("absent.py:leaky", UsageError, r"scenario file '.*absent\.py' does not exist"),
    # a value where a name was expected said "unknown scenario 'noise=0.2'"
    ("noise=0.2", UsageError, r"named without a value .* values come from --grid, e.g. --grid noise=0.2"),
    ("partial@partial=3=2", UsageError, r"in 'partial@partial=3=2': scenario 'partial=3': a scenario is named without"),
])
def test_bad_references_say_what_is_wrong(reference, error, message):
    with pytest.raises(error, match=message):
        scenario_for(reference)


def test_a_user_reference_loads_a_function_or_a_scenario(user_file):
    leaky = scenario_for(f"{user_file}:leaky")
    assert leaky.name == "leaky" and leaky.version.startswith("1+") and len(leaky.version) == 2 + 12
    assert scenario_for(f"{user_file}:SWAPPED").name == "swapped"
    with pytest.raises(UsageError, match="neither a scenario nor a function declared"):
        scenario_for(f"{user_file}:NOT_A_SCENARIO")
    composed = scenario_for(f"noise@{user_file}:leaky=0.5")
    assert composed.name == "noise@leaky=0.5" and dict(composed.generate(0.0, n=20, seed=0).ideal) == {
        "explicitness": 1.0, "modularity": 0.5}


@pytest.mark.parametrize("name", ["noise", "swapped@noise", "leak,y"])
def test_a_user_scenario_may_not_take_a_built_in_name(tmp_path, name):
    # a name with ',' ran, but plot --scenarios 'leak,y' split it into 'leak' and 'y'
    path = tmp_path / "clash.py"
    path.write_text(USER_SCENARIO.replace('name="swapped"', f'name="{name}"'))
    with pytest.raises(UsageError, match=f"named '{name}', which is a built-in scenario's name or contains one of @ ,"):
        scenario_for(f"{path}:SWAPPED")


def test_user_scenarios_run_on_workers_and_are_seeded_by_name_not_place(user_file, tmp_path, monkeypatch):
    """Loky workers load the file themselves; a copy elsewhere gives the same data and scores."""
    copy = tmp_path / "elsewhere" / "my_scenarios.py"
    copy.parent.mkdir()
    shutil.copy(user_file, copy)
    monkeypatch.chdir(user_file.parent)
    study = dict(metrics_=["mig", "modularity"], seeds=1, n_samples=400, progress=False, log=lambda message: None)
    here = run_study(scenarios_=["my_scenarios.py:leaky"], jobs=2, backend="loky", **study)
    there = run_study(scenarios_=[f"{copy}:leaky"], backend="sequential", **study)
    assert set(here["scenario"]) == {"leaky"} and set(here["value_label"]) == {"0", "0.5"}
    np.testing.assert_array_equal(here["score"].to_numpy(), there["score"].to_numpy())
    modularity = here.loc[here["metric"] == "modularity"].sort_values("value")
    assert list(modularity["ideal"]) == [1.0, 0.5]  # leaky's declared ideal
    assert here.loc[here["metric"] == "mig", "ideal"].isna().all()  # mig measures compactness: leaky states none
    version = scenario_for(f"{copy}:leaky").version
    rng = np.random.default_rng(identity_seed("data", "leaky", version, 0, 400))
    factors = rng.random((400, 3))
    expected = metrics.evaluate("mig", factors, factors + 0.5 * factors[:, [1, 2, 0]])["mig"]
    assert here.loc[(here["metric"] == "mig") & (here["value"] == 0.5), "score"].item() == expected


@pytest.mark.slow
def test_a_user_scenario_runs_through_run_validate_and_report(user_file, monkeypatch):
    monkeypatch.chdir(user_file.parent)
    (user_file.parent / "my_metric.py").write_text(textwrap.dedent('''
        import numpy as np

        def correlation(factors, codes):
            c = np.corrcoef(factors.T, codes.T)[: factors.shape[1], factors.shape[1]:]
            return float(np.mean(np.max(np.abs(c), axis=1)))
    '''))
    run = ["run", "--scenarios", "my_scenarios.py:leaky,redundancy_attack@my_scenarios.py:leaky=0.5",
           "--metrics", "mig", "--seeds", "1", "--n-samples", "300", "--out", "study", "--no-progress", "--jobs", "1"]
    assert main(run) == 0
    results = pd.read_parquet(user_file.parent / "study" / "results.parquet")
    assert set(results["scenario"]) == {"leaky", "redundancy_attack@leaky=0.5"}
    assert (user_file.parent / "study" / "report.html").is_file()
    validate = ["validate", "my_metric.py:correlation", "--scenarios", "my_scenarios.py:leaky,noise", "--metrics", "mig",
                "--out", "card", "--builtins-dir", "builtins", "--no-progress", "--jobs", "1"]
    assert main(validate) == 0
    card = pd.read_parquet(user_file.parent / "card" / "results.parquet")
    assert set(card.loc[card["metric"] == "correlation", "scenario"]) == {"leaky", "noise"}
    assert main(["report", "card"]) == 0
    assert (user_file.parent / "card" / "report.html").is_file()


def test_list_shows_the_transforms_and_the_syntax(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    transforms = out[out.index("TRANSFORMS"):]
    assert "redundancy_attack@noise=0.2" in transforms
    for name in ("noise", "nonlinear", "partial", "redundancy_attack", "synergy_attack"):
        assert f"\n  {name} " in transforms


@pytest.mark.slow
def test_dask_workers_load_user_scenarios_and_compositions(user_file, monkeypatch):
    """Dask workers receive references and resolve them themselves; scores equal a sequential run's."""
    pytest.importorskip("dask.distributed")
    monkeypatch.chdir(user_file.parent)
    study = dict(scenarios_=["my_scenarios.py:SWAPPED", "redundancy_attack@my_scenarios.py:leaky=0.5"], metrics_=["mig"],
                 seeds=1, n_samples=300, progress=False, log=lambda message: None)
    on_dask = run_study(jobs=2, backend="dask", **study)
    sequential = run_study(jobs=1, backend="sequential", **study)
    assert set(on_dask["scenario"]) == {"swapped", "redundancy_attack@leaky=0.5"} and len(on_dask) == 8
    pd.testing.assert_frame_equal(on_dask.drop(columns=list(TIMING_COLUMNS)), sequential.drop(columns=list(TIMING_COLUMNS)))


def test_a_grid_beyond_the_bases_factors_is_refused_before_the_study(tmp_path, capsys):
    """``partial@noise=0.2`` with ``--grid ...=9`` passed planning and crashed in a worker ("internal error")."""
    assert scenario_for("partial@noise=0.2").check_value(8) == 8
    with pytest.raises(ValueError, match="k must be at most the base's 8 factors, got 9"):
        scenario_for("partial@noise=0.2").check_value(9)
    run = ["run", "--scenarios", "partial@noise=0.2", "--grid", "partial@noise=0.2=9", "--metrics", "mig", "--seeds", "1",
           "--n-samples", "100", "--backend", "sequential", "--no-report", "--no-progress", "--out", str(tmp_path / "run")]
    assert main(run) == 2
    assert "k must be at most the base's 8 factors, got 9" in capsys.readouterr().err


BROKEN_SCENARIOS = textwrap.dedent('''
    import numpy as np
    from scenarios import Scenario, describe_scenario
    from scenarios.base import check_in_range

    @describe_scenario(parameter="a", values=(0.0, 1.0), ideal={"explicitness": 1.0})
    def array_only(a, n, rng):
        return rng.random((n, 3))

    @describe_scenario(parameter="a", values=(0.0, 1.0), ideal={"explicitness": 1.0})
    def fixed_rows(a, n, rng):
        factors = rng.random((500, 3))
        return factors, factors

    @describe_scenario(parameter="a", values=(0.0, 1.0), ideal=lambda a: {"explicitness": 1.0 + a})
    def ideal_above_one(a, n, rng):
        factors = rng.random((n, 3))
        return factors, factors

    @describe_scenario(parameter="a", values=(0.0, 1.0), ideal={"explicitness": 1.0})
    def global_random(a, n, rng):
        factors = np.random.random((n, 3))
        return factors, factors

    def _build(value, n, rng):
        factors = rng.random((n, 2))
        return factors, factors, (False, False)

    GRID_OUT_OF_RANGE = Scenario(name="grid_out_of_range", parameter="p", values=(0.0, 2.0), build=_build,
                                 ideal_trajectory=lambda value: {"explicitness": 1.0},
                                 check_value=check_in_range("p", 0.0, 1.0), source="a test", summary="its grid ends at 2")
''')


@pytest.mark.parametrize(("name", "message"), [
    ("array_only", "scenario 'array_only' must return (factors, codes) or (factors, codes, discrete), got ndarray"),
    ("fixed_rows", "scenario 'fixed_rows' at a = 0 returned 500 factor rows and 500 code rows for n = 50"),
    ("ideal_above_one", "scenario 'ideal_above_one' at a = 1: ideal of explicitness must be a number in [0, 1], got 2.0"),
    ("global_random", "scenario 'global_random' draws different data for the same seed"),
    ("GRID_OUT_OF_RANGE", "scenario 'grid_out_of_range' at p = 2: p must be in [0, 1], got 2.0 (ValueError, checking its grid"),
])
def test_a_broken_user_scenario_is_a_usage_error_when_loaded(tmp_path, capsys, name, message):
    """A scenario returning the wrong thing, ignoring n, stating an ideal above 1 (at a value other than the
    first) or ignoring its rng crashed the run in a worker as an internal error, or ran with irreproducible data."""
    path = tmp_path / "broken.py"
    path.write_text(BROKEN_SCENARIOS)
    with pytest.raises(UsageError, match=re.escape(message)):
        scenario_for(f"{path}:{name}")
    run = ["run", "--scenarios", f"noise@{path}:{name}=0", "--metrics", "mig", "--seeds", "1", "--n-samples", "100",
           "--backend", "sequential", "--no-report", "--no-progress", "--out", str(tmp_path / "run")]
    assert main(run) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_two_scenarios_of_one_name_are_refused_as_their_results_would_mix(user_file, tmp_path):
    # two files declaring 'leaky' ran as one scenario, their rows mixed under one name; one listed twice was
    # "the study plans the same cell twice"
    copy = tmp_path / "elsewhere" / "my_scenarios.py"
    copy.parent.mkdir()
    copy.write_text(USER_SCENARIO)
    with pytest.raises(UsageError, match=r"scenarios '.*outside/my_scenarios.py:leaky' and '.*elsewhere/my_scenarios.py:"
                                         r"leaky' are both named 'leaky', so their results would mix"):
        plan_study(scenarios_=[f"{user_file}:leaky", f"{copy}:leaky"], metrics_=["mig"], seeds=1)
    with pytest.raises(UsageError, match=r"scenario 'noise' is listed twice"):
        plan_study(scenarios_=["noise", "noise"], metrics_=["mig"], seeds=1)


DECLARED_SCENARIO = textwrap.dedent('''
    import os

    from scenarios import Scenario

    def _build(value, n, rng):
        factors = rng.random((n, 2))
        return factors, factors * float(os.environ.get("NOISE_SCALE", "1")), (False, False)

    SCALED = Scenario(name="scaled", parameter="p", values=(1.0,), build=_build,
                      ideal_trajectory=lambda value: {"modularity": 1.0}, check_value=float,
                      source="a test", summary="codes scaled by an environment value", environment=("NOISE_SCALE",))
''')


def test_a_declared_environment_variable_of_a_scenario_is_part_of_its_identity(tmp_path, monkeypatch, fresh_provenance):
    # issue 40: a scenario declares the environment variables its builder reads, as a metric does with describe_metric
    from harness.execution.provenance import changes, scenario_provenance

    path = tmp_path / "declared.py"
    path.write_text(DECLARED_SCENARIO)
    reference = f"{path}:SCALED"
    monkeypatch.delenv("NOISE_SCALE", raising=False)
    unset = scenario_provenance(reference)
    fresh_provenance()
    monkeypatch.setenv("NOISE_SCALE", "2")
    scaled = scenario_provenance(reference)
    assert unset.digest != scaled.digest and changes(unset, scaled) == ["NOISE_SCALE unset -> 2"]
    with pytest.raises(ValueError, match="environment must be a tuple of variable names"):
        from scenarios import Scenario

        Scenario(name="bad", parameter="p", values=(1.0,), build=lambda value, n, rng: None, check_value=float,
                 ideal_trajectory=lambda value: {}, source="", summary="", environment="NOISE_SCALE")
