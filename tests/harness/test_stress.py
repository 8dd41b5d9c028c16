"""stress: the search rediscovers the built-ins' known failures, keeps only departures beyond the seed
spread, and every reported recipe replays exactly with ``run --grid``."""

from __future__ import annotations

import json
import math
import shlex
import textwrap

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.cli import main
from harness.errors import UnknownNameError, UsageError
from harness.workflows.stress import confirm_cases, stress, top_cases
from harness.workflows.stress_result import Measurement
from harness.workflows.stress_space import Point, exploration_points, ideal_at, parameter_range
from harness.workflows.validate import validate

# Small samples keep each search to seconds; the budget is the default one (30 cells per scenario).
FAST = dict(sample_sizes=(300,), jobs=1, backend="sequential", log=lambda _: None)

IDEAL_METRICS = '''
import numpy as np
from metrics.describe import describe_metric


@describe_metric(property="modularity")
def band_ideal(factors, codes):
    """1 - 2 alpha of the band mixing, alpha read exactly from the least-squares map of factors to codes."""
    mixing = np.linalg.lstsq(factors, codes, rcond=None)[0]
    return 1.0 - 2.0 * float(np.mean(np.diag(np.roll(mixing, -1, axis=1))))


@describe_metric(property="explicitness")
def noise_ideal(factors, codes):
    """1 - alpha of the noise scenario, estimated (with sampling noise) as the mean slope of code j on factor j."""
    slopes = [np.cov(factors[:, j], codes[:, j])[0, 1] / np.var(factors[:, j], ddof=1) for j in range(factors.shape[1])]
    return float(np.mean(slopes))
'''


def redundancy_compactness(alpha: float, sigma: float = 0.1) -> float:
    """Tokui and Sato (2022), 4.1: the share of a factor's information its own code keeps after the attack."""
    a2, s2 = alpha ** 2, sigma ** 2
    return 1.0 - math.log((1 + a2 * (1 + s2)) / (1 + a2 * s2)) / math.log((1 + s2) / s2)


def over_cases(result):
    return [case for case in result.cases if case.measurement.direction == "over"]


@pytest.fixture(scope="module")
def ideal_metrics(tmp_path_factory):
    path = tmp_path_factory.mktemp("user") / "ideal_metrics.py"
    path.write_text(textwrap.dedent(IDEAL_METRICS))
    return path


def _replayed_scores(case, tmp_path) -> list[float]:
    """The scores of the fresh seeds of ``case``, replayed by running its recipe into ``tmp_path / "replay"``."""
    argv = shlex.split(case.command)
    argv[argv.index("--out") + 1] = str(tmp_path / "replay")
    assert main([*argv[3:], "--no-progress", "--jobs", "1"]) == 0
    replay = pd.read_parquet(tmp_path / "replay" / "results.parquet")
    return replay.loc[replay["seed"] >= case.measurement.first_seed].sort_values("seed")["score"].tolist()


@pytest.fixture(scope="module")
def z_diff_search(tmp_path_factory):
    out = tmp_path_factory.mktemp("z_diff")
    return stress("z_diff", scenarios_=["mixing"], contrast=["mig", "modularity"], out=out, **FAST), out


@pytest.mark.slow
def test_z_diff_scores_near_one_on_the_band_mixing(z_diff_search):
    result, _ = z_diff_search
    assert result.cells <= 30  # the default budget of one scenario
    worst = over_cases(result)[0].measurement
    assert worst.point.scenario == "mixing" and worst.point.value >= 0.4
    assert worst.ideal == pytest.approx(1.0 - 2.0 * worst.point.value)  # Zaidi et al. 2022, 5.3
    assert np.mean(worst.scores) >= 0.9
    assert worst.departure - worst.half_width >= 0.6


@pytest.mark.slow
def test_a_reported_recipe_replayed_with_run_reproduces_its_scores_exactly(z_diff_search, tmp_path):
    result, _ = z_diff_search
    case = result.cases[0]
    argv = shlex.split(case.command)
    assert argv[:4] == ["python", "-m", "harness", "run"]
    argv[argv.index("--out") + 1] = str(tmp_path / "replay")
    assert main([*argv[3:], "--no-progress", "--jobs", "1"]) == 0
    replay = pd.read_parquet(tmp_path / "replay" / "results.parquet")
    rows = replay.loc[(replay["metric"] == "z_diff") & (replay["sub_score"] == case.measurement.sub_score)]
    # the replay runs the search's seeds and the fresh ones; the case's scores are the fresh ones'
    assert rows["seed"].max() == case.measurement.first_seed + len(case.measurement.scores) - 1
    fresh = rows.loc[rows["seed"] >= case.measurement.first_seed]
    assert fresh.sort_values("seed")["score"].tolist() == list(case.measurement.scores)


def test_a_composed_scenario_is_searched_and_replayed_like_any_other(tmp_path):
    composed = "redundancy_attack@noise=0.1"
    result = stress("mig", scenarios_=[composed], contrast=[], budget=12, **FAST)
    assert {m.point.scenario for m in result.measurements} == {composed} and result.cases
    case = result.cases[0]
    assert f"--grid {composed}=" in case.command
    assert _replayed_scores(case, tmp_path) == list(case.measurement.scores)


@pytest.mark.slow
def test_outputs_name_the_case_the_recipe_and_the_contrast(z_diff_search):
    result, out = z_diff_search
    record = json.loads((out / "stress.json").read_text())
    assert record["cases"][0]["command"] == result.cases[0].command
    assert {row["metric"] for row in record["cases"][0]["contrast"]} == {"mig", "modularity"}
    markdown = (out / "stress.md").read_text()
    assert "# Stress search: where `z_diff` departs most from its ideal" in markdown
    assert result.cases[0].command in markdown
    assert (out / "figures" / "worst_case.png").stat().st_size > 0 and (out / "figures" / "worst_case.svg").exists()
    measured = pd.read_csv(out / "measurements.csv")
    assert len(measured) == len(result.measurements) + len(result.confirmations)
    assert set(measured["stage"]) == {"exploration", "refinement", "confirmation"}
    fresh = measured.loc[measured["stage"] == "confirmation"]
    assert (fresh["first_seed"] == fresh["seeds"]).all()  # as many fresh seeds as the search's, after them
    stored = pd.read_parquet(out / "search" / "results.parquet")
    assert set(stored["metric"]) == {"z_diff", "mig", "modularity"}


@pytest.mark.slow
def test_mig_holds_up_under_the_redundancy_attack_while_compactness_falls():
    result = stress("mig", scenarios_=["redundancy_attack"], contrast=["unibound"], **FAST)
    case = over_cases(result)[0]
    worst = case.measurement
    alpha = float(worst.point.value)
    assert worst.ideal == pytest.approx(redundancy_compactness(alpha), abs=1e-9)
    assert worst.ideal <= 0.3  # compactness has fallen from 1 ...
    clean = next(m for m in result.measurements if m.point.value == 0)
    assert clean.ideal == pytest.approx(1.0)
    mig_drop = np.mean(clean.scores) - np.mean(worst.scores)
    assert mig_drop < 0.25 * (clean.ideal - worst.ideal)  # ... while MIG barely moves
    unibound = case.contrast.set_index("metric").loc["unibound", "mean_score"]
    assert abs(unibound - worst.ideal) < 0.1  # the same data, read by a metric that follows compactness


def test_modularity_scores_far_above_zero_on_pure_noise():
    result = stress("modularity", scenarios_=["noise"], contrast=[], **FAST)
    worst = over_cases(result)[0].measurement
    assert worst.point.value == 1.0 and worst.ideal == 0.0
    assert np.mean(worst.scores) >= 0.25 and worst.margin() > 0


@pytest.mark.parametrize(("function", "scenario"), [("band_ideal", "mixing"), ("noise_ideal", "noise")])
def test_a_metric_that_returns_the_ideal_yields_no_case(ideal_metrics, function, scenario):
    result = stress(f"{ideal_metrics}:{function}", scenarios_=[scenario], contrast=[], **FAST)
    assert len(result.measurements) >= 8
    assert max(abs(m.departure) for m in result.measurements) < 0.05
    assert result.cases == []


def test_departure_and_seed_spread_by_hand():
    point = Point("mixing", 0.25, 300)
    measurement = Measurement(point, "s", "modularity", True, 0.5, (0.9, 1.0, 0.8), "exploration")
    half_width = stats.t.ppf(0.975, 2) * 0.1 / math.sqrt(3)  # sd of (0.9, 1, 0.8) is 0.1
    assert measurement.departure == pytest.approx(0.4)
    assert measurement.half_width == pytest.approx(half_width)
    assert measurement.margin() == pytest.approx(0.4 - half_width) and measurement.beyond_spread(0.1)
    assert not measurement.beyond_spread(0.5)
    lower_is_better = Measurement(point, "s", "modularity", False, 0.5, (0.9, 1.0, 0.8), "exploration")
    assert lower_is_better.departure == pytest.approx(-0.4) and lower_is_better.direction == "under"
    spread_out = Measurement(point, "s", "modularity", True, 0.5, (0.2, 1.0, 0.9), "exploration")
    assert spread_out.departure == pytest.approx(0.2) and not spread_out.beyond_spread(0.1)


def test_cases_of_both_directions_are_kept_whatever_their_size():
    def measured(scenario, scores, ideal):
        return Measurement(Point(scenario, 0.5, 300), "s", "modularity", True, ideal, scores, "exploration")

    under = [measured(name, (0.0, 0.01, 0.02), 1.0) for name in ("noise", "mixing", "rotation", "nonlinear")]
    over = measured("correlated", (0.5, 0.51, 0.52), 0.3)  # departure 0.21, far smaller than the under ones
    small = measured("partial", (0.95, 1.0, 0.9), 0.88)  # departure 0.07 < min_departure
    chosen = top_cases([*under, over, small], min_departure=0.1, top=3)
    assert [m.point.scenario for m in chosen] == ["noise", "mixing", "rotation", "correlated"]


def test_ideal_is_the_scenarios_declared_one_and_chance_where_the_codes_carry_no_information():
    assert ideal_at("noise", 1.0) == {"modularity": 0.0, "compactness": 0.0, "explicitness": 0.0}
    # noise declares modularity and compactness while the code carries more signal than noise, alpha <= 0.5
    assert ideal_at("noise", 0.5) == {"modularity": 1.0, "compactness": 1.0, "explicitness": 0.5}
    assert ideal_at("noise", 0.75) == {"explicitness": 0.25}
    assert ideal_at("mixing", 0.5) == {"modularity": 0.0, "compactness": 0.0, "explicitness": 1.0}


def test_a_search_finds_no_case_where_the_scenario_declares_no_ideal():
    # MIG's compactness falls towards 0 as noise drowns the code, past alpha = 0.5 where noise no longer declares a
    # compactness ideal: no measurement, and so no case, of it there (until 2026-11-30 its worst case was alpha 0.95)
    result = stress("mig", scenarios_=["noise"], contrast=[], budget=24, **FAST)
    assert result.measurements and all(m.point.value <= 0.5 or m.point.value == 1.0 for m in result.measurements)
    assert {m.point.value for m in result.measurements} & {0.0, 1.0} == {0.0, 1.0}  # the range's ends explored
    # a point proposed past 0.5 is not run (it spent 3 cells on no measurement: 39 of 114 cells of a search)
    assert result.cells == 3 * len({m.point for m in result.measurements})
    assert any("proposed where the scenario states no ideal compactness score were not run" in note
               for note in result.notes)


def test_a_scenario_of_yours_is_searched_in_its_grid_and_its_case_replays(tmp_path):
    """``stress --scenarios my_scenarios.py:leaky`` measured nothing: its rows are named ``leaky`` in the results, the
    points by the reference; and a grid declared without a range (0, 0.25, 0.5) was refined at 0.3455, which the
    scenario refuses."""
    (tmp_path / "my_scenarios.py").write_text(textwrap.dedent('''
        from scenarios import describe_scenario

        @describe_scenario(parameter="leak", values=(0.0, 0.25, 0.5),
                           ideal=lambda leak: {"modularity": 1 - 2 * leak, "explicitness": 1.0})
        def leaky(leak, n, rng):
            factors = rng.random((n, 4))
            return factors, (1 - leak) * factors + leak * factors[:, [1, 2, 3, 0]]
        '''))
    reference = f"{tmp_path / 'my_scenarios.py'}:leaky"
    space = parameter_range(reference)
    assert space.kind == "choice" and space.ends == (0.0, 0.25, 0.5)
    result = stress("modularity", scenarios_=[reference], contrast=[], budget=12, **FAST)
    assert {m.point.value for m in result.measurements} <= {0.0, 0.25, 0.5} and len(result.measurements) >= 2
    case = result.cases[0]
    assert (case.measurement.point.value, case.measurement.ideal) == (0.5, 0.0) and case.measurement.departure > 0.5
    assert _replayed_scores(case, tmp_path) == list(case.measurement.scores)


def test_a_free_base_leaves_out_its_slices_without_an_ideal_and_a_value_is_told_stress_searches_it():
    """``redundancy_attack@noise`` was refused for its slice at noise 0.6 (modularity's ideal ends at 0.5), a name the
    user never typed; ``noise=0.3`` was told to use ``--grid``, which stress does not have."""
    said = []
    result = stress("modularity", scenarios_=["redundancy_attack@noise"], contrast=[], budget=6,
                    **{**FAST, "log": said.append})
    searched = {m.point.scenario for m in result.measurements}
    assert searched and searched <= {f"redundancy_attack@noise={value}" for value in ("0", "0.2", "0.4")}
    assert any("slice(s) with no ideal score for it left out: redundancy_attack@noise=0.6" in line for line in said)
    with pytest.raises(UsageError, match=r"stress searches a scenario's parameter itself; name the scenario alone \(noise\)"):
        stress("mig", scenarios_=["noise=0.3"], contrast=[], budget=6, **FAST)
    with pytest.raises(UsageError, match="states no ideal"):  # named by the user: still refused
        stress("modularity", scenarios_=["redundancy_attack@noise=0.6"], contrast=[], budget=6, **FAST)


def test_parameter_ranges_are_what_check_value_accepts():
    mixing, noise, attack = parameter_range("mixing"), parameter_range("noise"), parameter_range("redundancy_attack")
    assert (mixing.kind, mixing.low, mixing.high) == ("real", 0.0, 0.5)
    assert (noise.low, noise.high) == (0.0, 1.0)
    assert (attack.low, attack.high) == (0.0, 16.0)  # valid up to 1000: searched to twice its grid's end, 8
    partial = parameter_range("partial")
    assert (partial.kind, partial.low, partial.high) == ("integer", 1.0, 8.0)
    assert parameter_range("rotation").high == round(math.pi / 4, 6)
    cases = parameter_range("modular_not_compact")
    assert cases.kind == "choice" and cases.ends == ("cos_sin", "duplicate_2", "duplicate_4")
    assert mixing.value(0.123456) == 0.1235 and mixing.value(0.7) == 0.5 and partial.value(3.6) == 4


def test_exploration_starts_at_the_ends_and_is_seeded():
    space = parameter_range("noise")

    def explore(seed):
        return exploration_points(space, (250, 500), 6, np.random.default_rng(seed))

    first = explore(0)
    assert first[:2] == [Point("noise", 0.0, 500), Point("noise", 1.0, 500)]
    assert len(first) == 6 and all(0.0 <= point.value <= 1.0 and point.n_samples in (250, 500) for point in first)
    assert explore(0) == first and explore(1) != first
    strata = sorted(int(point.value * 4) for point in first[2:])  # a Latin hypercube: one value per quarter
    assert strata == [0, 1, 2, 3]


@pytest.mark.slow
def test_search_is_reproducible_from_its_seed():
    def search(seed):
        return stress("mig", scenarios_=["noise", "mixing"], contrast=[], budget=18, seed=seed, **FAST).table()

    first = search(0)  # 18 cells: 3 points explored (2 ends, 1 drawn), 3 refined, per scenario
    pd.testing.assert_frame_equal(search(0), first)
    assert set(search(5)["value"]) != set(first["value"])
    assert (first.groupby("scenario").size() * 3 <= 18).all()  # 3 seeds per point, 18 cells per scenario


def test_a_repeated_search_resumes_from_its_store(tmp_path):
    logs: list[str] = []
    settings = dict(scenarios_=["mixing"], contrast=[], budget=12, out=tmp_path / "search",
                    **{**FAST, "log": logs.append})
    first = stress("mig", **settings)
    assert not any("finished cell(s)" in line for line in logs)
    again = stress("mig", **settings)
    # the store holds the search's cells and its candidates' fresh ones
    fresh = sum(len(m.scores) for m in {m.point: m for m in first.confirmations}.values())
    assert first.confirmations and fresh > 0
    assert any(f"{first.cells + fresh} finished cell(s) found in" in line for line in logs)  # said once, not per study
    assert not any("skipping" in line for line in logs)
    pd.testing.assert_frame_equal(again.table(), first.table())


def test_a_budget_in_seconds_stops_the_search():
    spent = stress("mig", scenarios_=["noise"], contrast=[], budget_seconds=1e-9, **FAST)
    assert spent.cells == 0 and spent.measurements == [] and spent.cases == []


def test_cli_stress_writes_its_outputs(tmp_path, capsys):
    out = tmp_path / "stress"
    status = main(["stress", "modularity", "--scenarios", "noise", "--sample-sizes", "300", "--no-contrast",
                   "--budget", "12", "--out", str(out), "--jobs", "1"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "# Stress search: where `modularity` departs most from its ideal" in printed
    assert "--grid noise=1.0" in printed
    assert {"stress.md", "stress.json", "measurements.csv"} <= {path.name for path in out.iterdir()}


def test_validate_stress_adds_a_section_to_the_report_card(ideal_metrics, tmp_path):
    card = validate(f"{ideal_metrics}:band_ideal", scenarios_=["mixing"], builtins=["mig"], seeds=1, n_samples=300,
                    probe_samples=300, out=tmp_path / "card", progress=False, stress=True, stress_budget=12,
                    log=lambda _: None)
    markdown = (tmp_path / "card" / "report_card.md").read_text()
    assert "## Stress search: where `band_ideal` departs most from its ideal" in markdown
    assert "No case beyond the seed spread" in markdown
    assert json.loads((tmp_path / "card" / "report_card.json").read_text())["stress"]["cases"] == []
    assert card.stress is not None and (tmp_path / "card" / "stress" / "stress.md").exists()


def test_validate_exits_1_when_its_stress_search_cells_failed(tmp_path, capsys):
    """The card said cells of the metric failed in the stress search, and validate exited 0 (it counted the
    battery's failures only); ``stress`` alone exits 1 for them."""
    path = tmp_path / "picky.py"
    path.write_text(textwrap.dedent('''
        import numpy as np
        from metrics.describe import describe_metric


        @describe_metric(property="modularity")
        def picky(factors, codes):
            if factors.shape[0] != 300:  # the battery's and the probe's size; the stress search draws 1000
                raise RuntimeError("only 300 rows")
            return float(np.abs(np.corrcoef(factors.T, codes.T)[0, factors.shape[1]]))
        '''))
    status = main(["validate", f"{path}:picky", "--scenarios", "mixing", "--metrics", "mig", "--seeds", "1",
                   "--n-samples", "300", "--probe-samples", "300", "--stress", "--stress-budget", "6", "--out",
                   str(tmp_path / "card"), "--no-progress", "--jobs", "1"])
    err = capsys.readouterr().err
    assert status == 1, err
    assert f"cell(s) of picky failed (see {tmp_path / 'card' / 'stress' / 'search' / 'failures.csv'}): exit status 1" in err


def test_a_time_budget_a_variant_to_contrast_and_no_sample_size_are_said_as_they_are(tmp_path, capsys,
                                                                                      one_line_usage_error):
    """A stop by --budget-seconds read "budget spent" (of cells); a variant to contrast with (mig[bins=5], which run
    takes) was "not a built-in metric"; --sample-sizes '' expected "names"."""
    said = []
    stress("mig", scenarios_=["mixing"], contrast=[], budget=60, budget_seconds=1e-9, **{**FAST, "log": said.append})
    assert any("time budget of 1e-09 s spent after" in line for line in said), said
    stress("mig", scenarios_=["mixing"], contrast=["mig[bins=5]"], budget=6, **FAST)
    with pytest.raises(UsageError, match="not a built-in single-representation metric"):
        stress("mig", scenarios_=["mixing"], contrast=["udr"], budget=6, **FAST)
    assert main(["stress", "mig", "--sample-sizes", ""]) == 2
    one_line_usage_error("expected comma-separated sample sizes such as 300,1000, got none")


def test_scores_beyond_zero_to_one_are_noted(tmp_path):
    """A metric scoring 5 x modularity read "over-scores a worse code" by +4 on the perfect code, with no word that
    its scores are on another scale than the ideals."""
    path = tmp_path / "five.py"
    path.write_text(textwrap.dedent('''
        import metrics
        from metrics.describe import describe_metric


        @describe_metric(property="modularity")
        def five(factors, codes):
            return 5 * metrics.evaluate("modularity", factors, codes)["modularity"]
        '''))
    result = stress(f"{path}:five", scenarios_=["mixing"], contrast=[], budget=6, **FAST)
    assert any("five's oriented scores range from" in note and "beyond the [0, 1] its ideals lie in" in note
               for note in result.notes), result.notes
    plain = stress("modularity", scenarios_=["mixing"], contrast=[], budget=6, **FAST)
    assert not any("beyond the [0, 1]" in note for note in plain.notes)


def test_a_budget_the_exploration_spent_refines_nothing_and_says_so():
    """It said "refining 7 point(s), up to 1 more points each", then "budget spent after 42 cells" at once."""
    said = []
    stress("mcc", scenarios_=["dense_mixing@equicorrelated"], contrast=[], budget=6, **{**FAST, "log": said.append})
    assert any(line.endswith("the exploration spent the budget; no point refined") for line in said), said
    assert not any("refining" in line for line in said)


def test_bad_input_is_named():
    with pytest.raises(UsageError, match="seeds must be a whole number >= 2"):
        stress("mig", scenarios_=["noise"], seeds=1, **FAST)
    with pytest.raises(UsageError, match="budget must be"):
        stress("mig", scenarios_=["noise"], budget=2, **FAST)
    with pytest.raises(UsageError, match="claims holistic") as raised:
        stress("irs", scenarios_=["noise"], **FAST)
    assert "describe_metric" not in str(raised.value)  # a built-in's claim is not the user's to change
    with pytest.raises(UsageError, match="population"):
        stress("mig", scenarios_=["udr_population"], **FAST)
    with pytest.raises(UsageError, match="needs at least"):
        stress("mig", scenarios_=["noise"], **{**FAST, "sample_sizes": (1,)})
    with pytest.raises(UnknownNameError):
        stress("mgi", scenarios_=["noise"], **FAST)
    with pytest.raises(UnknownNameError, match="did you mean noise"):
        stress("mig", scenarios_=["nosie"], **FAST)


def test_run_grid_rejects_what_it_cannot_run(tmp_path, capsys):
    base = ["run", "--scenarios", "mixing", "--metrics", "mig", "--dry-run"]
    assert main([*base, "--grid", "mixing=0.7"]) == 2
    assert "alpha must be in [0, 0.5]" in capsys.readouterr().err
    assert main([*base, "--grid", "noise=0.5"]) == 2
    assert "does not run: noise" in capsys.readouterr().err
    assert main([*base, "--grid", "mixing=0.1", "--grid", "mixing=0.2"]) == 2
    assert "given twice" in capsys.readouterr().err
    assert main([*base, "--grid", "mixing="]) == 2
    assert main([*base, "--grid", "mixing=0.1,0.45"]) == 0
    assert "6 cells" in capsys.readouterr().out  # 2 values x the 3 seeds of the default preset's first round


def test_the_search_store_keeps_its_failed_cells(tmp_path):
    path = tmp_path / "flaky.py"
    path.write_text(textwrap.dedent('''
        from metrics.describe import describe_metric


        @describe_metric(property="modularity")
        def flaky(factors, codes):
            """Fails on about half of the draws (by the first code value), scores 0.5 elsewhere."""
            if codes[0, 0] > codes[1, 0]:
                raise ValueError("flaky metric")
            return 0.5
        '''))
    out = tmp_path / "stress"
    result = stress(f"{path}:flaky", scenarios_=["mixing"], contrast=[], budget=12, out=out, **FAST)
    failed = [note for note in result.notes if "flaky metric" in note]
    table = pd.read_csv(out / "search" / "failures.csv", dtype={"value_label": str})
    assert len(table) > 1 and set(table["error"]) == {"ValueError: flaky metric (at flaky.py:9 in flaky)"}, \
        "it failed on some draws, each failure naming the line that raised"
    assert failed == [f"flaky failed in {len(table)} cells (mixing = {', '.join(dict.fromkeys(table['value_label']))}; "
                      "n = 300): ValueError: flaky metric (at flaky.py:9 in flaky)"]  # one note per error, not per cell
    assert result.failed == len(table)


def test_the_contrast_runs_once_per_sample_size(monkeypatch):
    from harness.workflows import stress as stress_module

    runs = []
    original = stress_module._Search.run
    monkeypatch.setattr(stress_module._Search, "run",
                        lambda self, points, size, names, **kwargs: runs.append((len(points), tuple(names))) or
                        original(self, points, size, names, **kwargs))
    result = stress("mig", scenarios_=["noise", "mixing"], contrast=["modularity"], budget=12, top=3, **FAST)
    contrast_runs = [run for run in runs if run[1] == ("modularity",)]
    points = {case.measurement.point for case in result.cases}
    assert len(result.cases) >= 2 and len(contrast_runs) == 1 and contrast_runs[0][0] == len(points)
    for case in result.cases:  # each case holds the contrast of its own point
        assert list(case.contrast["metric"]) == ["modularity"]
        assert case.contrast["ideal"].iloc[0] == pytest.approx(ideal_at(case.measurement.point.scenario,
                                                                        case.measurement.point.value)["modularity"])


def test_a_scenario_without_an_ideal_is_refused_before_anything_runs(tmp_path, capsys):
    with pytest.raises(UsageError, match="'sample_size' states no ideal compactness score"):
        stress("mig", scenarios_=["sample_size"], **FAST)
    assert main(["stress", "mig", "--scenarios", "noise,sample_size", "--out", str(tmp_path / "out")]) == 2
    assert "searched on every scenario instead (--sample-sizes)" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_metric_whose_cells_fail_is_not_reported_as_holding_up(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text(textwrap.dedent('''
        from metrics.describe import describe_metric


        @describe_metric(property="modularity")
        def broken(factors, codes):
            raise RuntimeError("boom")
        '''))
    out = tmp_path / "stress"
    status = main(["stress", f"{path}:broken", "--scenarios", "noise", "--sample-sizes", "300", "--budget", "8",
                   "--seeds", "2", "--no-contrast", "--out", str(out), "--jobs", "1", "--backend", "sequential"])
    captured = capsys.readouterr()
    assert status == 1
    assert "Nothing measured: every cell of `broken` failed" in captured.out
    assert "No case beyond the seed spread" not in captured.out
    assert "4 of 4 cell(s) of broken failed" in captured.err  # the ends of noise's range, 2 seeds each
    assert "**4 of the 4 cells of `broken` failed**" in (out / "stress.md").read_text()
    assert json.loads((out / "stress.json").read_text())["failed_cells"] == 4


def test_cli_shows_progress_on_stderr_and_keeps_stdout_for_the_cases(tmp_path, capsys):
    args = ["stress", "modularity", "--scenarios", "noise,mixing", "--sample-sizes", "300", "--budget", "6",
            "--seeds", "2", "--contrast", "mig", "--jobs", "1", "--backend", "sequential"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("# Stress search: where `modularity` departs most from its ideal")
    bars = [line for line in captured.err.replace("\r", "\n").splitlines() if "%|" in line]
    assert any(line.startswith("stress modularity: 100%|") and "12/12" in line for line in bars), bars
    assert any(line.startswith("contrast at n = 300:") for line in bars), bars
    assert "stress modularity: exploring" in captured.err and "exploring" not in captured.out
    assert main([*args, "--out", str(tmp_path / "a"), "--no-progress"]) == 0  # a rerun: its cells are reused
    captured = capsys.readouterr()
    assert "%|" not in captured.err and "skipping" not in captured.err
    assert "finished cell(s) found in" in captured.err


def test_a_function_claiming_no_property_is_told_how_to_claim_one(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("def plain(factors, codes):\n    return 0.5\n")
    with pytest.raises(UsageError, match=r"plain claims holistic; .* with the decorator "
                                         r"metrics\.describe\.describe_metric\(property=\.\.\.\)$"):
        stress(f"{path}:plain", scenarios_=["noise"], **FAST)


@pytest.mark.parametrize("seeds", ["0", "1"])
def test_cli_seeds_below_two_are_refused_as_the_help_says(seeds, tmp_path, capsys):
    assert main(["stress", "mig", "--seeds", seeds, "--out", str(tmp_path / "out")]) == 2
    assert f"argument --seeds: expected a whole number >= 2, got {seeds}" in capsys.readouterr().err


def test_a_scenario_or_contrast_metric_named_twice_is_refused_before_anything_runs(tmp_path, capsys):
    with pytest.raises(UsageError, match="scenarios lists 'redundancy_attack@noise=0.2' twice"):
        stress("mig", scenarios_=["noise", "redundancy_attack@noise=0.2", "redundancy_attack@noise=0.20"], **FAST)
    out = tmp_path / "out"
    assert main(["stress", "mig", "--scenarios", "noise", "--contrast", "mig_sup,mig_sup", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == "error: contrast lists 'mig_sup' twice"
    assert not out.exists()


def test_a_small_budget_still_explores_both_ends_and_every_choice():
    # 2 points of 3 seeds: half the budget would explore alpha = 0 only and miss Modularity's pure-noise failure at 1
    result = stress("modularity", scenarios_=["noise"], budget=6, seeds=3, contrast=[], **FAST)
    assert {(m.point.value, m.stage) for m in result.measurements} == {(0.0, "exploration"), (1.0, "exploration")}
    (case,) = result.cases
    assert case.measurement.point.value == 1.0 and case.measurement.direction == "over"
    choices = stress("mig", scenarios_=["modular_not_compact"], budget=9, seeds=3, contrast=[], **FAST)
    assert {m.point.value for m in choices.measurements} == {"cos_sin", "duplicate_2", "duplicate_4"}


def test_a_composition_with_its_base_free_is_searched_at_every_base_value():
    from harness.workflows.stress import _searched

    assert _searched(["dense_mixing@equicorrelated", "noise"]) == [
        *(f"dense_mixing@equicorrelated={rho}" for rho in ("-0.24", "0", "0.25", "0.5", "0.75", "0.9", "0.99")), "noise"]
    with pytest.raises(UsageError):
        _searched(["dense_mixing@nope"])


def test_candidate_cases_within_their_spread_race_to_more_seeds_and_clear_ones_do_not():
    # issue 38: stress races seeds as run and validate do. A departure of 0.2 whose seeds spread by 0.3 is within its
    # interval on 3 seeds (half-width t(0.9917, 2) x 0.3 / sqrt(3) = 1.32), on 6 and on 12 (2.82 x 0.256 / sqrt(12)
    # = 0.208), so it runs to the cap; a departure of 0.5 with no spread is decided on its 3 seeds
    from types import SimpleNamespace

    from harness.execution.racing import Racing
    from harness.workflows.stress import _race_candidates
    from harness.workflows.stress_result import Measurement
    from harness.workflows.stress_space import Point

    close, clear = Point("noise", 0.2, 500), Point("mixing", 0.5, 500)
    racing = Racing(3, 12)
    spread = [0.3, -0.3, 0.0, 0.3, -0.3, 0.0, 0.3, -0.3, 0.0, 0.3, -0.3, 0.0]

    def measured(point, seeds):
        if point == close:
            scores = tuple(0.7 + value for value in spread[:seeds])  # ideal 0.5: departure 0.2
            return Measurement(point, "s", "modularity", True, 0.5, scores, "exploration", racing.looks)
        return Measurement(point, "s", "modularity", True, 1.0, (0.5,) * seeds, "exploration", racing.looks)

    remeasured = []
    search = SimpleNamespace(entry=SimpleNamespace(name="m"), current={close: 3, clear: 3})
    search.all_measurements = lambda: [measured(point, seeds) for point, seeds in search.current.items()]

    def remeasure(points, seeds):
        remeasured.append((list(points), seeds))
        search.current.update({point: seeds for point in points})

    search.remeasure = remeasure
    said = []
    _race_candidates(search, racing, min_departure=0.1, top=3, log=said.append)
    assert remeasured == [([close], 6), ([close], 12)]
    assert said == ["stress m: 1 candidate point(s) within their seed spread get 6 seeds",
                    "stress m: 1 candidate point(s) within their seed spread get 12 seeds"]
    final = measured(close, 12)
    assert final.half_width == pytest.approx(stats.t.ppf(1 - 0.05 / 6, 11) * np.std(spread, ddof=1) / np.sqrt(12))


SCENARIOS_OF_THE_SIMULATION = ("noise", "mixing", "nonlinear", "correlated", "redundancy_attack", "synergy_attack",
                               "rotation", "partial", "dead_codes", "gaussian_toy_redundancy")


@pytest.mark.slow
def test_a_metric_that_never_departs_from_its_ideal_is_rarely_broken_once_cases_are_confirmed_on_fresh_seeds():
    # 10 scenarios x 30 points, every true departure 0, each point's 3 seeds scored with noise 0.15: the search's own
    # intervals exclude 0 at some point of most searches (each 2.5% a side, hundreds of points), so the cases it picks
    # are chance; measured again on 3 fresh seeds, the picked cases survive (a wrong case) in at most 5% of searches
    rng = np.random.default_rng(4)

    def measured(point, first_seed=0, looks=1):
        scores = tuple(0.5 + rng.normal(0.0, 0.15, size=3))
        return Measurement(point, "m", "modularity", True, 0.5, scores, "exploration", looks, first_seed)

    searches, picked, wrong = 200, 0, 0
    for _ in range(searches):
        points = [Point(scenario, index / 30, 300) for scenario in SCENARIOS_OF_THE_SIMULATION for index in range(30)]
        chosen = top_cases([measured(point) for point in points], min_departure=0.1, top=3)
        fresh = {(m.point, m.sub_score): measured(m.point, first_seed=3, looks=len(chosen)) for m in chosen}
        confirmed, notes = confirm_cases(chosen, fresh, min_departure=0.1)
        picked += bool(chosen)
        wrong += bool(confirmed)
        assert len(confirmed) + len(notes) == len(chosen)
        assert all(m.first_seed == 3 and m.looks == len(chosen) for m in confirmed)
    assert picked / searches >= 0.9  # without the fresh seeds, nearly every search would report a case (100% of 1000)
    assert wrong / searches <= 0.05


def test_a_replay_command_names_a_users_metric_file_by_its_absolute_path(tmp_path, monkeypatch):
    # the recipe named the scenario's file by its absolute path and the metric's as typed: it failed from elsewhere
    from harness.workflows.stress import replay_command
    from harness.workflows.stress_space import Point

    monkeypatch.chdir(tmp_path)
    command = replay_command(Point("mixing", 0.25, 500), "mine.py:gap", seeds=3)
    argv = shlex.split(command)
    assert argv[argv.index("--metrics") + 1] == f"{tmp_path.resolve()}/mine.py:gap"
    assert argv[argv.index("--scenarios") + 1] == "mixing" and argv[argv.index("--grid") + 1] == "mixing=0.25"
    assert shlex.split(replay_command(Point("mixing", 0.25, 500), "mig", seeds=3))[argv.index("--metrics") + 1] == "mig"
