"""Racing seeds (harness.execution.racing): the schedule, the rounds, determinism, resuming, and the error rate."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from harness.errors import UsageError
from harness.execution.racing import Racing, race, racing_rule, undecided_groups
from harness.execution.runner import run_study
from reports.results.schema import TIMING_COLUMNS
from reports.verdicts.bundle import Bundle
from tests.reports.simulated_results import THRESHOLD, calibration_rows

#: A study with two rounds: after 3 seeds, SAP's linearity on mixing is undecided and gets 6 (measured).
TWO_ROUNDS = dict(preset="default", scenarios_=["noise", "mixing"], metrics_=["mig", "sap", "modularity"], progress=False)


@pytest.mark.parametrize(("start", "cap", "schedule"), [
    (3, 12, (3, 6, 12)), (3, 3, (3,)), (3, 20, (3, 6, 12, 20)), (12, 100, (12, 24, 48, 100)),
    # a doubling within a factor 1.5 of the cap goes to the cap: (5, 12), not (5, 10, 12); (2, 4, 9), not (2, 4, 8, 9)
    (5, 12, (5, 12)), (2, 9, (2, 4, 9)), (6, 12, (6, 12)), (2, 3, (2, 3))])
def test_the_schedule_doubles_to_the_cap_and_counts_the_looks(start, cap, schedule):
    racing = Racing(start, cap)
    assert racing.schedule() == schedule and racing.looks == len(schedule)


@pytest.mark.parametrize(("arguments", "message"), [
    ((1, 12), "racing starts with at least 2 seeds"),
    ((4, 3), "--max-seeds 3 is below the seeds every cell starts with \\(4\\)"),
    ((3, 12, 0.0), "--budget-seconds must be a positive number"),
    ((3.5, 12), "min-seeds must be a whole number"),
])
def test_a_race_that_cannot_run_is_one_usage_error(arguments, message):
    with pytest.raises(UsageError, match=message):
        Racing(*arguments)


def test_the_rule_races_a_preset_with_a_cap_and_a_fixed_seed_count_does_not():
    assert racing_rule(None, None, None, fixed_seeds=None, preset_seeds=3, preset_max_seeds=12) == Racing(3, 12)
    assert racing_rule(None, None, None, fixed_seeds=4, preset_seeds=3, preset_max_seeds=12) is None
    assert racing_rule(None, None, None, fixed_seeds=None, preset_seeds=1, preset_max_seeds=0) is None
    # a start above the preset's cap names that cap, not a --max-seeds the user never gave
    with pytest.raises(UsageError, match=r"--min-seeds 13 is above this preset's cap of 12 seeds: add --max-seeds M"):
        racing_rule(13, None, None, fixed_seeds=None, preset_seeds=3, preset_max_seeds=12)
    assert racing_rule(13, None, None, fixed_seeds=None, preset_seeds=1, preset_max_seeds=0) == Racing(13, 13)
    assert racing_rule(None, 6, 50.0, fixed_seeds=None, preset_seeds=1, preset_max_seeds=0) == Racing(3, 6, 50.0)
    assert racing_rule(4, None, None, fixed_seeds=None, preset_seeds=3, preset_max_seeds=12) == Racing(4, 12)
    with pytest.raises(UsageError, match="^--seeds 2 fixes every cell's seeds; --max-seeds races them"):
        racing_rule(None, 6, None, fixed_seeds=2, preset_seeds=3, preset_max_seeds=12)
    with pytest.raises(UsageError, match="^--budget-seconds bounds a race of seeds; this preset runs a fixed number"):
        racing_rule(None, None, 10.0, fixed_seeds=None, preset_seeds=1, preset_max_seeds=0)


def _cells(groups: list[tuple[str, str]], seeds: int, seconds: float = 1.0) -> list[SimpleNamespace]:
    """Stand-ins for planned cells: what :func:`race` reads of a cell (its group, seed and estimate)."""
    return [SimpleNamespace(definition=SimpleNamespace(name=scenario), metric=SimpleNamespace(name=metric), seed=seed,
                            estimated_seconds=seconds, key=f"{scenario}/{metric}/{seed}")
            for scenario, metric in groups for seed in range(seeds)]


def _seeds_run(cells) -> dict[tuple[str, str], int]:
    counts: dict[tuple[str, str], int] = {}
    for cell in cells:
        group = (cell.definition.name, cell.metric.name)
        counts[group] = max(counts.get(group, 0), cell.seed + 1)
    return counts


def test_only_the_undecided_groups_get_more_seeds_round_after_round_up_to_the_cap():
    groups = [("noise", "a"), ("noise", "b"), ("mixing", "a")]
    cells = _cells(groups, 12)
    rounds, messages = [], []

    def compute(active):
        rounds.append(_seeds_run(active))
        return pd.DataFrame({"score": [0.0] * len(active)}), pd.DataFrame()

    def decide(frame):  # "b" is never decided; "mixing/a" is decided once it has 6 seeds
        undecided = {("noise", "b")}
        if rounds[-1][("mixing", "a")] < 6:
            undecided.add(("mixing", "a"))
        return undecided

    frame, _ = race(cells, Racing(3, 12), compute, decide=decide, log=messages.append)
    assert rounds == [{("noise", "a"): 3, ("noise", "b"): 3, ("mixing", "a"): 3},
                      {("noise", "a"): 3, ("noise", "b"): 6, ("mixing", "a"): 6},
                      {("noise", "a"): 3, ("noise", "b"): 12, ("mixing", "a"): 6}]
    assert (frame["looks"] == 3).all()
    assert messages[0] == "racing: round 1 (9 cells): 2 scenario x metric pair(s) feed an undecided verdict; 2 get more seeds (6), 6 more cells"
    assert messages[-1] == ("racing: stopped after 3 round(s) and 21 cells: every verdict decided but those of 1 "
                            "scenario x metric pair(s) at the cap of 12 seeds, still undecided (too close to call at this "
                            "cap); shown ≈")


def test_a_race_runs_at_most_its_looks_rounds_and_a_pair_undecided_late_jumps_to_the_rounds_count():
    # A verdict can move as other pairs grow, and its own pairs be found undecided late.  Until 2026-12-02 a pair grew
    # one count a round, so such a pair raced past the third round (the default study ran 5), and its verdicts were
    # read on 5 sets of results at intervals split for 3 looks: a bound of 8.3% on the error rate, not 5%.
    groups = [("noise", "a"), ("noise", "b"), ("mixing", "a"), ("mixing", "b")]
    cells = _cells(groups, 12)
    rounds, messages = [], []

    def compute(active):
        rounds.append(_seeds_run(active))
        return pd.DataFrame({"score": [0.0] * len(active)}), pd.DataFrame()

    def decide(frame):  # noise/a is never decided; noise/b first undecided at look 2, mixing/a at look 3 and 4
        look = len(rounds)
        return {("noise", "a")} | ({("noise", "b")} if look == 2 else set()) | ({("mixing", "a")} if look >= 3 else set())

    race(cells, Racing(3, 12), compute, decide=decide, log=messages.append)
    assert rounds == [{("noise", "a"): 3, ("noise", "b"): 3, ("mixing", "a"): 3, ("mixing", "b"): 3},
                      {("noise", "a"): 6, ("noise", "b"): 3, ("mixing", "a"): 3, ("mixing", "b"): 3},
                      {("noise", "a"): 12, ("noise", "b"): 12, ("mixing", "a"): 3, ("mixing", "b"): 3}]
    assert messages[1] == ("racing: round 2 (15 cells): 2 scenario x metric pair(s) feed an undecided verdict; 2 get "
                           "more seeds (12), 15 more cells")
    assert messages[-1] == (
        "racing: stopped after 3 round(s) and 30 cells: every verdict decided but those of 1 scenario x metric pair(s) "
        "at the cap of 12 seeds, still undecided (too close to call at this cap), and of 1 scenario x metric pair(s) "
        "found undecided at the last of the race's 3 looks with fewer seeds (no round is left: a race reads its "
        "verdicts 3 times at most); shown ≈")


def test_a_race_that_starts_at_its_cap_reads_no_verdict_and_says_so():
    # --max-seeds 3 printed "every verdict settled after 1 round(s)" without reading one
    cells = _cells([("noise", "a")], 3)
    decided, messages = [], []

    def compute(active):
        return pd.DataFrame({"score": [0.0] * len(active)}), pd.DataFrame()

    race(cells, Racing(3, 3), compute, decide=lambda frame: decided.append(frame) or {("noise", "a")},
         log=messages.append)
    assert decided == [] and messages == [
        "racing: stopped after 1 round(s) and 3 cells: every scenario x metric pair has the cap of 3 seeds, so no "
        "verdict was read for more (a verdict still undecided is shown ≈)"]


def test_a_round_past_the_budget_is_not_started():
    cells = _cells([("noise", "a"), ("noise", "b")], 12, seconds=2.0)
    rounds, messages = [], []

    def compute(active):
        rounds.append(len(active))
        return pd.DataFrame({"score": [0.0] * len(active)}), pd.DataFrame()

    race(cells, Racing(3, 12, budget_seconds=20.0), compute, decide=lambda frame: {("noise", "a")}, log=messages.append)
    assert rounds == [6, 9]  # then 15 cells of 2 estimated CPU-s: 30 > 20
    assert messages[-1] == ("racing: round 3 would take the study to an estimated 30 CPU-s, past the budget of 20 "
                            "(--budget-seconds); stopping with 1 scenario x metric pair(s) still feeding an undecided "
                            "verdict")


def _comparable(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=list(TIMING_COLUMNS)).sort_values(["scenario", "metric", "sub_score", "value", "seed"],
                                                                ignore_index=True)


@pytest.mark.slow  # a whole study or report, several times (fast tier: issue 37)
def test_racing_gives_the_same_rounds_and_scores_with_one_and_two_workers():
    one = run_study(**TWO_ROUNDS, jobs=1)
    two = run_study(**TWO_ROUNDS, jobs=2)
    pd.testing.assert_frame_equal(_comparable(one), _comparable(two))
    seeds = one.groupby(["scenario", "metric"])["seed"].nunique()
    assert seeds[("mixing", "sap")] == 6 and seeds.drop(("mixing", "sap")).eq(3).all()
    assert (one["looks"] == 3).all()


@pytest.mark.slow  # a whole study or report, several times (fast tier: issue 37)
def test_a_race_stopped_between_rounds_resumes_from_its_store(tmp_path):
    class Stop(Exception):
        pass

    def stop_after_round_one(message):
        if message.startswith("racing: round 1"):
            raise Stop

    with pytest.raises(Stop):
        run_study(**TWO_ROUNDS, out=tmp_path, log=stop_after_round_one)
    stored = (tmp_path / "cells.jsonl").read_text().count("\n")
    assert stored > 0  # the first round's cells are stored
    messages = []
    resumed = run_study(**TWO_ROUNDS, out=tmp_path, log=messages.append)
    assert messages[0] == f"skipping {stored} finished cell(s) found in {tmp_path}; computing 0"
    assert messages[1].startswith("racing: round 1")
    assert messages[2].startswith("racing: stopped after 2 round(s)")  # the second round's cells are new
    pd.testing.assert_frame_equal(_comparable(resumed), _comparable(run_study(**TWO_ROUNDS)))
    pd.testing.assert_frame_equal(_comparable(pd.read_parquet(tmp_path / "results.parquet")), _comparable(resumed))


def _calibration_rows(active, truth: dict[str, float]) -> pd.DataFrame:
    """Scores of stand-in cells on the noise scenario's two ends: at the perfect end N(truth, 0.05) for each metric's
    seed (a draw of its own), at the random end 0 (clearly calibrated there)."""
    rows = []
    for cell in active:
        metric = cell.metric.name
        draw = np.random.default_rng([int(metric.removeprefix("m")), cell.seed]).normal(truth[metric], 0.05)
        rows += calibration_rows(metric, "noise", cell.seed, draw)
    return pd.DataFrame(rows)


def _wrong_share(racing: Racing, looks: int, metrics: int = 300) -> tuple[float, float]:
    """Race ``metrics`` simulated metrics whose true perfect-end mean is exactly the threshold (so "yes" is right and
    "no" is wrong), reading intervals of ``looks`` looks; the share decided wrongly, and the share undecided."""
    truth = {f"m{index}": THRESHOLD for index in range(metrics)}
    cells = _cells([("noise", metric) for metric in truth], racing.max_seeds)

    def compute(active):
        return _calibration_rows(active, truth), pd.DataFrame()

    def decide(frame):
        return undecided_groups(frame.assign(looks=looks))

    frame, _ = race(cells, racing, compute, decide=decide, log=lambda message: None)
    verdicts = Bundle(frame.assign(looks=looks)).verdicts
    marks = [verdict.mark for verdict in verdicts.loc[verdicts["characteristic"] == "calibrated", "verdict"]]
    assert len(marks) == metrics
    return marks.count("no") / metrics, marks.count("undecided") / metrics


@pytest.mark.slow  # a whole study or report, several times (fast tier: issue 37)
def test_racing_keeps_its_error_rate_on_a_simulated_threshold(monkeypatch):
    racing = Racing(3, 12)
    wrong, undecided = _wrong_share(racing, racing.looks)
    with monkeypatch.context() as patched:
        patched.setattr(Bundle, "failing", property(lambda bundle: bundle))  # failures read at 95% too, not widened
        naive, _ = _wrong_share(racing, 1)  # a 95% interval read at every look, as if the seeds had been fixed
    assert wrong <= 0.05, (wrong, undecided)
    assert naive > 0.05  # a 95% interval read at every look breaks the rate: the split is what keeps it
    assert undecided > 0.5  # a value at its threshold stays too close to call at the cap


@pytest.mark.slow
def test_a_rerun_reads_the_recorded_decisions_and_a_changed_plan_computes_them(tmp_path, monkeypatch):
    import json

    import harness.execution.runner as runner
    from harness.execution.racing import RACE_FILE

    first = run_study(**TWO_ROUNDS, out=tmp_path, log=lambda _: None)
    recorded = json.loads((tmp_path / RACE_FILE).read_text())
    assert recorded["rounds"] == [[["mixing", "sap"]], []]  # round 1 found one undecided pair, round 2 none
    calls = []
    monkeypatch.setattr(runner, "undecided_groups", lambda frame: calls.append(len(frame)) or set())
    again = run_study(**TWO_ROUNDS, out=tmp_path, log=lambda _: None)
    assert calls == []  # the same plan and judging code: the recorded decisions, no analysis computed
    pd.testing.assert_frame_equal(_comparable(again), _comparable(first))
    run_study(**{**TWO_ROUNDS, "max_seeds": 6}, out=tmp_path, log=lambda _: None)
    assert len(calls) == 1  # another race (a cap of 6): decided anew, by the patched judge (nothing undecided)


def test_stress_races_to_the_same_cap_as_a_study():
    from harness.execution.racing import MAX_SEEDS
    from harness.workflows.stress_defaults import DEFAULT_MAX_SEEDS

    assert DEFAULT_MAX_SEEDS == MAX_SEEDS  # repeated for stress's light --help


@pytest.mark.slow
def test_the_report_after_a_race_reads_its_last_looks_analyses_and_a_changed_table_gets_its_own(tmp_path, monkeypatch):
    """The racing's last look and the report drawn after it share one Bundle (reports.verdicts.bundle.bundle_of): the
    report computes no analysis again; a table differing in one score, or a copy of the same content, is keyed by its
    content, not by the object."""
    import reports
    import reports.report
    from reports.verdicts import bundle as bundles

    monkeypatch.setattr(reports.report, "figure_todo", lambda bundle, colours: [])  # the tables and pages, no figures
    built = []
    original = Bundle.__init__

    def counted(self, *args, **kwargs):
        built.append(args[0])
        original(self, *args, **kwargs)

    def looks_read(tables):  # a Bundle of a look (not of its widened analyses, whose looks are multiplied)
        return [table for table in tables if table["looks"].max() == frame["looks"].max()]

    monkeypatch.setattr(Bundle, "__init__", counted)
    frame = run_study(**TWO_ROUNDS, log=lambda _: None)
    assert len(looks_read(built)) == 2  # one look per round
    reports.write_report(frame, tmp_path)
    assert (tmp_path / "report.md").is_file() and len(looks_read(built)) == 2  # the report read the last look's analyses
    assert bundles.bundle_of(frame.copy()) is bundles.bundle_of(frame)
    changed = frame.copy()
    changed.loc[changed.index[0], "score"] += 1e-12
    assert bundles.bundle_of(changed) is not bundles.bundle_of(frame)
    assert len(looks_read(built)) == 4
    filled = frame.copy()
    filled.attrs["filled_columns"] = ["warnings"]  # the same values, read from a table that lacked a column
    assert bundles.bundle_of(filled) is not bundles.bundle_of(frame)


@pytest.mark.slow
def test_a_race_scores_permutation_nulls_on_the_first_rounds_seeds_only():
    """The seeds a race adds narrow undecided verdicts' intervals; a null feeds none (the calibration's chance level
    reads the seeds that have one), so the later rounds score none: 45% of the default study's null CPU had gone there."""
    frame = run_study(**TWO_ROUNDS, null_permutations=4, log=lambda _: None)
    cells = frame.drop_duplicates(["scenario", "metric", "value", "seed"])
    assert cells["seed"].max() >= 3  # SAP on mixing raced to 6 seeds
    assert (cells.loc[cells["seed"] < 3, "null_permutations"] == 4).all()
    later = cells.loc[cells["seed"] >= 3]
    assert (later["null_permutations"] == 0).all() and later["null_q95"].isna().all() and later["score"].notna().all()
    fixed = run_study(**{**TWO_ROUNDS, "metrics_": ["modularity"], "scenarios_": ["noise"]}, seeds=4, null_permutations=4,
                      log=lambda _: None)
    assert (fixed["null_permutations"] == 4).all()  # a fixed --seeds N keeps a null on every seed
