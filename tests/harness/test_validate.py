"""validate: a metric written outside the repository gets a report card and axiom checks."""

from __future__ import annotations

import json
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

from harness.cli import main
from harness.workflows.axioms import check_axioms, flipped_signs, make_probe, monotone_reparametrised, permuted_codes, rescaled, tan_map
from harness.workflows.user_metric import metric_entry, reference_of
from harness.workflows.validate import validate
from metrics.describe import describe_metric

# Mean over factors of the largest |Spearman rho| with any code: invariant to every
# transformation of the axioms, unchanged by a duplicated code, exactly 1 on a perfect code.
RANK_METRIC = '''
import numpy as np
from scipy.stats import spearmanr
from metrics.describe import describe_metric


@describe_metric(property="explicitness")
def rank_metric(factors, codes):
    k = factors.shape[1]
    rho = spearmanr(factors, codes).statistic[:k, k:]
    return float(np.abs(rho).max(axis=1).mean())
'''

# Signed Pearson correlation of factor j with code j: breaks permutation and sign invariance.
DIAGONAL_METRIC = '''
import numpy as np


def diagonal_correlation(factors, codes):
    k = min(factors.shape[1], codes.shape[1])
    return float(np.mean([np.corrcoef(factors[:, j], codes[:, j])[0, 1] for j in range(k)]))


def noisy(factors, codes):
    return float(np.random.default_rng().random())  # ignores any seed


def subsampled(factors, codes, random_state=None):
    rows = np.random.default_rng(random_state).choice(len(factors), size=len(factors) // 2, replace=False)
    return float(np.abs(np.corrcoef(factors[rows, 0], codes[rows, 0])[0, 1]))


def error_rate(factors, codes):
    k = min(factors.shape[1], codes.shape[1])
    return float(np.mean(np.abs(factors[:, :k] - codes[:, :k])))


def square_only(factors, codes):
    return float(np.mean(np.abs(factors - codes)))  # breaks when there are more codes than factors
'''

BATTERY = dict(scenarios_=["noise", "mixing"], builtins=["mig", "modularity"], seeds=1, n_samples=1000, progress=False)
# E[max of 8 |Z|] = 1.7834 (numerical integral of 1 - (2 Phi(x) - 1)^8): the rank metric on pure
# noise is about 1.7834 / sqrt(n - 1) = 0.0564 at n = 1000 (Spearman's rho has variance 1/(n-1)).
RANDOM_END = 1.7834 / np.sqrt(999)


@pytest.fixture(scope="module")
def metric_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("outside_repo")
    (folder / "rank_metric.py").write_text(textwrap.dedent(RANK_METRIC))
    (folder / "diagonal.py").write_text(textwrap.dedent(DIAGONAL_METRIC))
    return folder


@pytest.fixture(scope="module")
def card(metric_files, tmp_path_factory):
    out = tmp_path_factory.mktemp("card")
    return validate(f"{metric_files / 'rank_metric.py'}:rank_metric", out=out, log=lambda _: None, **BATTERY), out


def test_metric_outside_the_repository_gets_a_full_report_card(card):
    report, out = card
    assert report.entry.name == "rank_metric" and report.entry.default_property == "explicitness"
    assert {"report_card.md", "report_card.json", "results.parquet", "results.csv", "builtins"} <= {p.name for p in out.iterdir()}
    results = pd.read_csv(out / "results.csv")
    assert set(results["metric"]) == {"mig", "modularity", "rank_metric"}
    own = results[results["metric"] == "rank_metric"]
    assert len(own) == 12 and set(own["property"]) == {"explicitness"} and set(own["family"]) == {"custom"}
    perfect = own[(own["scenario"] == "noise") & (own["value"] == 0.0)]["score"]
    assert perfect.iloc[0] == pytest.approx(1.0, abs=1e-12)  # codes == factors: rank correlation 1
    ranks = report.rankings.set_index("criterion")
    # calibration error = max(1 - 1, score at alpha = 1) = the pure-noise score
    assert ranks.loc["calibration", "value"] == pytest.approx(RANDOM_END, abs=0.02)
    # MIG's plug-in bias (~0.02) is smaller, the Modularity score's (~0.36) larger: 2nd of 3
    assert ranks.loc["calibration", "rank"] == "2 of 3"
    assert set(ranks.index) >= {"calibration", "linearity", "cost"}
    verdicts = report.verdicts.set_index("characteristic")
    assert verdicts.loc["calibrated", "verdict"] == "yes" and verdicts.loc["explicitness", "verdict"] == "yes"
    assert any("sample efficiency: not measured" in note for note in report.notes)


def test_report_card_lists_every_axiom_with_its_number(card):
    report, out = card
    axioms = report.axiom_table.set_index("axiom")
    assert list(axioms.index) == ["permute_codes", "permute_samples", "flip_sign", "rescale", "monotone",
                                  "duplicate_code", "determinism", "chance"]
    assert (axioms["result"] == "pass").all()
    for invariant in ("permute_codes", "permute_samples", "flip_sign", "rescale", "monotone", "duplicate_code", "determinism"):
        assert abs(axioms.loc[invariant, "measured"]) < 1e-12  # ranks, hence rho, are unchanged exactly
    assert axioms.loc["chance", "measured"] == pytest.approx(1.7834 / np.sqrt(1999), abs=0.015)  # probe n = 2000
    markdown = (out / "report_card.md").read_text()
    assert "# Report card: `rank_metric`" in markdown and "axioms: 8 of 8 checks pass" in markdown
    saved = json.loads((out / "report_card.json").read_text())
    assert saved["metric"] == "rank_metric" and len(saved["axioms"]) == 8 and saved["battery"]["builtins"] == ["mig", "modularity"]


def test_the_report_card_json_holds_numbers_as_numbers(card):
    report, out = card
    saved = json.loads((out / "report_card.json").read_text())
    assert saved["battery"]["n_samples"] == sorted(set(report.results["n_samples"])) and saved["battery"]["seeds"] == 1
    for shown, stored in zip(report.rankings.to_dict("records"), saved["rankings"]):  # the table says "2 of 3"
        assert f"{stored['rank']} of {stored['rank_of']}" == shown["rank"] and isinstance(stored["value"], float)
    for shown, stored in zip(report.verdicts.to_dict("records"), saved["verdicts"]):
        assert f"{stored['built-ins passing']} of {stored['built-ins judged']}" == shown["built-ins passing"]


def test_cli_validate_with_metadata_flags(metric_files, tmp_path, capsys):
    status = main(["validate", f"{metric_files / 'rank_metric.py'}:rank_metric", "--property", "compactness",
                   "--lower-is-better", "--name", "my_rank", "--scenarios", "noise", "--metrics", "mig",
                   "--seeds", "1", "--n-samples", "300", "--probe-samples", "500", "--out", str(tmp_path / "card"),
                   "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "# Report card: `my_rank`" in printed and "claims: compactness; lower is better" in printed
    results = pd.read_csv(tmp_path / "card" / "results.csv")
    assert set(pd.read_csv(tmp_path / "cache" / "results.csv")["metric"]) == {"mig"}
    own = results[results["metric"] == "my_rank"]
    assert set(own["property"]) == {"compactness"} and not own["higher_is_better"].any()
    # the noise scenario's ideal compactness: 1 while the code carries signal (alpha <= 0.5), undefined beyond (issue 39)
    signal = own["value"] <= 0.5
    assert own.loc[signal, "ideal"].eq(1.0).all() and own.loc[~signal, "ideal"].isna().all() and (~signal).any()
    chance = json.loads((tmp_path / "card" / "report_card.json").read_text())["axioms"][-1]
    # lower is better: chance is a score of 1, as calibration reads it; the rank metric scores ~0.08 on 500
    # independent samples, so |1 - 0.08| is far from chance
    assert chance["axiom"] == "chance" and chance["passed"] is False and chance["measured"] > 0.85
    from harness.execution.metric_refs import load_callable

    assert load_callable(f"{metric_files / 'rank_metric.py'}:rank_metric").harness_metadata["property"] == "explicitness"


def test_axioms_catch_a_metric_that_is_not_invariant(metric_files):
    results = {a.axiom: a for a in check_axioms(f"{metric_files / 'diagonal.py'}:diagonal_correlation")}
    # mixing probe, alpha = 0.2: z_j = 0.8 v_j + 0.2 v_{j+1}, corr(v_j, z_j) = 0.8 / sqrt(0.68) = 0.9701
    diagonal = 0.8 / np.sqrt(0.68)
    # negating codes 0, 2, 4, 6 turns half the correlations to -0.9701: the mean drops by 0.9701
    assert results["flip_sign"].measured == pytest.approx(diagonal, abs=0.01) and not results["flip_sign"].passed
    # every column moves: code pi(j) != j correlates with v_j at 0.2 / sqrt(0.68) = 0.243 or 0; the
    # sampling sd of a mean of 8 null correlations at n = 2000 is 0.022 / sqrt(8) = 0.008, hence +-0.03
    assert diagonal - 0.2 / np.sqrt(0.68) - 0.03 <= results["permute_codes"].measured <= diagonal + 0.03
    assert not results["permute_codes"].passed
    assert not results["monotone"].passed and results["monotone"].measured > 0.01  # Pearson is not rank-based
    for invariant in ("permute_samples", "rescale", "determinism", "duplicate_code"):
        assert results[invariant].passed and results[invariant].measured < 1e-12
    assert results["chance"].passed and results["chance"].measured < 0.05


def test_axioms_detect_hidden_randomness_and_tolerate_declared_randomness(metric_files):
    noisy = {a.axiom: a for a in check_axioms(f"{metric_files / 'diagonal.py'}:noisy")}
    assert not noisy["determinism"].passed and noisy["determinism"].measured > 1e-12
    seeded = {a.axiom: a for a in check_axioms(f"{metric_files / 'diagonal.py'}:subsampled", stochastic=True)}
    assert seeded["determinism"].passed and seeded["determinism"].measured == 0.0
    spread = seeded["permute_codes"].tolerance - 1e-3
    assert spread > 0 and "seed spread" in seeded["permute_samples"].detail
    assert seeded["permute_samples"].passed  # a resampled draw is within 4 seed ranges


def test_lower_is_better_metric_is_judged_in_its_own_direction(metric_files):
    results = {a.axiom: a for a in check_axioms(f"{metric_files / 'diagonal.py'}:error_rate", higher_is_better=False)}
    # appending code 0 leaves the factor-code pairs compared unchanged
    assert results["duplicate_code"].measured == pytest.approx(0.0, abs=1e-12)
    assert results["chance"].passed is not None and "not applicable" not in results["chance"].detail


LOWER_IS_BETTER = '''
import numpy as np
from scipy.stats import spearmanr


def _largest_rho(factors, codes):
    k = factors.shape[1]
    return np.abs(spearmanr(factors, codes).statistic[:k, k:]).max(axis=1).mean()


def rank_mismatch(factors, codes):
    return float(1.0 - _largest_rho(factors, codes))  # 0 on a perfect code, ~1 on noise


def rank_dependence(factors, codes):
    return float(_largest_rho(factors, codes))  # declared lower-is-better below: 1 on a perfect code, ~0 on noise
'''


@pytest.mark.parametrize(("name", "at_chance"), [("rank_mismatch", True), ("rank_dependence", False)])
def test_chance_axiom_reads_a_lower_is_better_score_as_calibration_does(tmp_path, name, at_chance):
    # calibration reads a lower-is-better score as 1 - score (chance: a score of 1); the chance axiom said n/a
    from reports.analyses.calibration import calibration

    (tmp_path / "lower.py").write_text(textwrap.dedent(LOWER_IS_BETTER))
    card = validate(f"{tmp_path / 'lower.py'}:{name}", property="explicitness", higher_is_better=False, scenarios_=["noise"],
                    builtins=[], seeds=1, n_samples=1000, progress=False, log=lambda _: None)
    chance = card.axiom_table.set_index("axiom").loc["chance"]
    random_end = calibration(card.results).set_index("metric").loc[name]
    # largest |rho| of 8 factors with independent codes: ~1.7834 / sqrt(n - 1), 0.040 at the probe's n = 2000
    distance = 1.7834 / np.sqrt(1999) if at_chance else 1.0 - 1.7834 / np.sqrt(1999)
    assert chance["measured"] == pytest.approx(distance, abs=0.015)
    assert (chance["result"] == "pass") is at_chance and bool(random_end["random_pass"]) is at_chance


def test_a_metric_crashing_on_transformed_data_fails_that_check_only(metric_files):
    results = {a.axiom: a for a in check_axioms(f"{metric_files / 'diagonal.py'}:square_only", higher_is_better=False)}
    crashed = results.pop("duplicate_code")
    assert crashed.passed is False and np.isnan(crashed.measured) and "raised ValueError" in crashed.detail
    assert results["permute_samples"].passed and results["rescale"].measured > 0.01


def test_builtin_metrics_known_failure_modes_show_up():
    mig = {a.axiom: a for a in check_axioms("mig")}
    for invariant in ("permute_codes", "permute_samples", "flip_sign", "rescale", "determinism"):
        assert mig[invariant].measured < 1e-12  # histogram MI: exactly invariant (powers-of-two rescaling)
    assert not mig["monotone"].passed  # equal-width bins after the tan map (Zaidi et al. 2022, 5.5)
    assert mig["duplicate_code"].measured < 0  # a duplicated code closes the gap: MIG falls
    modularity = {a.axiom: a for a in check_axioms("modularity")}
    # normalised by each code's own best MI, independent codes still score ~0.36 (its docstring, review 5.2)
    assert not modularity["chance"].passed and 0.25 < modularity["chance"].measured < 0.5


def test_transformations_do_what_they_claim():
    probe = make_probe(n=200)
    rng = np.random.default_rng(0)
    permuted = permuted_codes(probe.codes, rng)
    assert np.array_equal(np.sort(permuted, axis=1), np.sort(probe.codes, axis=1))
    assert not any(np.array_equal(permuted[:, j], probe.codes[:, j]) for j in range(probe.codes.shape[1]))  # every column moved
    flipped = flipped_signs(probe.codes)
    assert np.array_equal(flipped[:, 0], -probe.codes[:, 0]) and np.array_equal(flipped[:, 1], probe.codes[:, 1])
    ratio = rescaled(probe.codes, rng) / probe.codes
    assert np.allclose(ratio, ratio[0]) and np.all(np.log2(ratio[0]) == np.round(np.log2(ratio[0])))
    assert tan_map(np.array([0.0, 0.5, 1.0])) == pytest.approx([0.0, 0.5, 1.0], abs=1e-12)
    mapped = monotone_reparametrised(probe.codes)
    assert all(np.array_equal(np.argsort(mapped[:, j]), np.argsort(probe.codes[:, j])) for j in range(probe.codes.shape[1]))


def test_describe_metric_and_metadata_overrides():
    @describe_metric(property="modularity", higher_is_better=False, stochastic=True, name="mine")
    def scorer(factors, codes):
        return 0.0

    assert scorer.harness_metadata == {"property": "modularity", "higher_is_better": False, "stochastic": True, "name": "mine"}
    entry = metric_entry(scorer, property="compactness", higher_is_better=True)
    assert (entry.name, entry.default_property, entry.higher_is_better, entry.stochastic) == ("mine", "compactness", True, True)
    with pytest.raises(ValueError, match="property must be one of"):
        describe_metric(property="beauty")
    with pytest.raises(TypeError, match="higher_is_better must be True or False"):
        describe_metric(higher_is_better="yes")


def test_a_function_that_cannot_take_factors_and_codes_is_refused_before_anything_runs():
    from harness.errors import UsageError

    def one(codes):
        return 0.0

    def three(factors, codes, scale):  # a required option: --metric-option may give it
        return 0.0

    def keyword_only(*, factors, codes):
        return 0.0

    for refused in (one, keyword_only):
        with pytest.raises(UsageError, match=r"cannot be called as fn\(factors, codes\).*its signature is"):
            metric_entry(refused)
    assert metric_entry(three).name == "three"
    assert metric_entry(lambda *arrays, **options: 0.0).name == "<lambda>"


@pytest.mark.slow
def test_a_holistic_score_is_judged_against_every_property_as_describe_metric_says(metric_files):
    # describe_metric's docstring said holistic scores "have no ideal trajectory", while the reports judge them
    # against all three properties
    from reports.analyses.linearity import linearity

    battery = {**BATTERY, "builtins": ["mig", "modularity", "explicitness"]}  # the three trajectories are stated
    card = validate(f"{metric_files / 'rank_metric.py'}:rank_metric", property="holistic", **battery)
    fitted = linearity(card.results)
    own = fitted.loc[fitted["metric"] == "rank_metric"]
    assert set(own["property"]) == {"holistic"}
    assert set(zip(own["scenario"], own["against"])) == {("noise", "explicitness"), ("mixing", "modularity"),
                                                         ("mixing", "compactness")}
    verdicts = card.verdicts.set_index("characteristic")
    assert "absent" not in set(verdicts.loc[["modularity", "compactness", "explicitness"], "verdict"])
    documented = " ".join(describe_metric.__doc__.split())
    assert "no ideal trajectory" not in documented
    assert 'A ``"holistic"`` score claims all three properties, so it is judged against every one' in documented


def test_references_and_bad_input(metric_files, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the CLI's default output directories are relative
    assert reference_of(check_axioms) == "harness.workflows.axioms:check_axioms"
    from harness.execution.metric_refs import load_callable

    file_reference = f"{metric_files / 'rank_metric.py'}:rank_metric"
    assert reference_of(load_callable(file_reference)) == file_reference  # loadable by a fresh worker
    with pytest.raises(ValueError, match="top level"):
        reference_of(lambda f, c: 0.0)
    # a function typed into 'python -' (its module's file '<stdin>') got "cannot import module '<stdin>'"
    import types

    typed = types.ModuleType("typed_in")
    typed.__file__ = "<stdin>"
    exec("def score(factors, codes):\n    return 0.5\n", typed.__dict__)
    monkeypatch.setitem(sys.modules, "typed_in", typed)
    with pytest.raises(ValueError, match=r"cannot find the source file of 'score' \(it was defined in <stdin>, which "
                                         r"the workers cannot import\); put it in a file"):
        reference_of(typed.score)
    with pytest.raises(ValueError, match="not a reference to your metric"):
        validate("mig", **BATTERY)
    assert main(["validate", f"{metric_files / 'rank_metric.py'}:rank_metric", "--name", "mig", "--out", str(tmp_path)]) == 2
    assert "is a built-in metric's name" in capsys.readouterr().err
    assert main(["validate", f"{tmp_path / 'missing.py'}:f"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_help(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["validate", "--help"])
    assert exited.value.code == 0 and "report card" in capsys.readouterr().out


def test_help_describes_what_jobs_and_cell_timeout_do_in_validate(capsys):
    # validate draws no figures and has no --backend; its time limit does not bound the axiom checks
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "report's figures" not in text and "--backend" not in text
    assert "on the probe, its axiom check fails with 'timed out after S s'" in text
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "report's figures" in " ".join(capsys.readouterr().out.split())  # run keeps its own wording


@pytest.mark.parametrize(("probe", "message"), [
    ("nosie:0.2", "unknown scenario 'nosie' (did you mean noise?)"),
    ("mixing:5", "probe mixing:5.0: alpha must be in [0, 0.5], got 5.0"),
    ("mixing:abc", "alpha must be a number in [0, 0.5], got 'abc'"),
    ("udr_population:0.5", "the axioms' probe must be a representation scenario; 'udr_population' is a population scenario"),
])
def test_a_bad_probe_is_one_line_before_the_battery_runs(metric_files, tmp_path, capsys, probe, message):
    status = main(["validate", f"{metric_files / 'rank_metric.py'}:rank_metric", "--metrics", "mig", "--probe", probe,
                   "--out", str(tmp_path / "card"), "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"])
    captured = capsys.readouterr()
    assert status == 2 and message in captured.err and "Traceback" not in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert not (tmp_path / "cache").exists() and not (tmp_path / "card").exists()  # nothing ran


def test_probe_may_be_a_composition_or_a_sample_size(metric_files):
    from harness.cli.validate import _probe

    assert _probe("redundancy_attack@noise=0.1:2") == ("redundancy_attack@noise=0.1", 2.0)
    assert _probe("my_scenarios.py:leaky:0.25") == ("my_scenarios.py:leaky", 0.25)  # split at the last colon
    composed = make_probe("redundancy_attack@noise=0.1", 2.0, n=300)
    assert composed.codes.shape == (300, 16) and composed.label.startswith("redundancy_attack@noise=0.1 at alpha = 2")
    prefix = make_probe("sample_size", 100.0, n=300)  # the value is the number of rows
    assert prefix.codes.shape[0] == 100 and prefix.label == "sample_size at n = 100, n = 100, seed 0"


def test_a_metric_raising_on_the_probe_fails_every_check_and_still_gets_a_card(tmp_path, capsys):
    metric_file = tmp_path / "unfinished.py"
    metric_file.write_text("def unfinished(factors, codes):\n    raise RuntimeError('not implemented yet')\n")
    results = check_axioms(f"{metric_file}:unfinished")
    assert [a.axiom for a in results] == ["permute_codes", "permute_samples", "flip_sign", "rescale", "monotone",
                                          "duplicate_code", "determinism", "chance"]
    assert all(a.passed is False and np.isnan(a.measured) for a in results)
    assert all(a.detail == "the metric raised RuntimeError on the probe itself: not implemented yet (at unfinished.py:2 "
                           "in unfinished)" for a in results)  # the line that raised, named
    assert [a.tolerance for a in results][-2:] == [1e-12, 0.05]
    lower = check_axioms(f"{metric_file}:unfinished", higher_is_better=False)
    assert all(a.passed is False for a in lower)  # chance too: it is judged for a lower-is-better metric
    status = main(["validate", f"{metric_file}:unfinished", "--scenarios", "noise", "--metrics", "mig", "--seeds", "1",
                   "--n-samples", "300", "--probe-samples", "300", "--out", str(tmp_path / "card"),
                   "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"])
    captured = capsys.readouterr()
    # every cell failed: exit status 1, as `run` gives; the card is still written
    assert status == 1 and "Traceback" not in captured.err and "internal error" not in captured.err
    assert captured.err.rstrip().endswith("6 cell(s) of unfinished failed (see "
                                          f"{tmp_path / 'card' / 'failures.csv'}): exit status 1")
    card = (tmp_path / "card" / "report_card.md").read_text()
    assert "axioms: 0 of 8 checks pass" in card
    # the card opens with its overall line even so (it went from the title to the reference)
    assert ("- overall: ✗ fails chance axiom, permute_codes axiom, permute_samples axiom, flip_sign axiom, rescale axiom, "
            "monotone axiom, duplicate_code axiom, determinism axiom; nothing measured: every one of its 6 cells of the "
            "battery failed (failures.csv)\n") in card
    assert "(also report_card.json, results.parquet, results.csv, failures.csv)" in captured.err
    assert (tmp_path / "card" / "failures.csv").exists()


def test_cells_the_metric_failed_are_in_the_card_and_failures_csv(tmp_path):
    metric_file = tmp_path / "fragile.py"
    metric_file.write_text(textwrap.dedent('''
        import numpy as np
        from scipy.stats import spearmanr


        def fragile(factors, codes):
            k = factors.shape[1]
            score = float(np.abs(spearmanr(factors, codes).statistic[:k, k:]).max(axis=1).mean())
            if score < 0.3:
                raise ValueError("too little signal to score")
            return score
    '''))
    out = tmp_path / "card"
    card = validate(f"{metric_file}:fragile", property="explicitness", out=out, log=lambda _: None, **BATTERY)
    # noise at alpha = 0.8 and 1 leaves rank correlations of about 0.24 and 0.06: those two cells fail
    assert sorted(card.failures["value_label"]) == ["0.8", "1"] and set(card.failures["metric"]) == {"fragile"}
    written = pd.read_csv(out / "failures.csv", dtype={"value_label": str})
    assert sorted(written["value_label"]) == ["0.8", "1"]
    markdown = (out / "report_card.md").read_text()
    assert "- failed cells: 2 of 12 cells of `fragile` (raised or timed out" in markdown
    assert markdown.count("ValueError: too little signal to score") >= 2 and "## Failed cells" in markdown
    assert any(note.startswith("calibration:") and "2 of its cells in the scenarios it reads failed" in note
               for note in card.notes)
    saved = json.loads((out / "report_card.json").read_text())
    assert [f["value_label"] for f in saved["failures"]] == list(card.failures["value_label"])


def test_exit_status_counts_only_the_metrics_own_failed_cells(tmp_path, capsys):
    # validate exited 0 when every cell of the metric failed; `run` exits 1 when cells fail
    metric_file = tmp_path / "picky.py"
    metric_file.write_text("import numpy as np\n"
                           "def picky(factors, codes):\n"
                           "    if codes.shape[0] < 500:\n"
                           "        raise ValueError('needs 500 samples')\n"
                           "    return 1.0\n")
    argv = ["validate", f"{metric_file}:picky", "--scenarios", "noise", "--metrics", "mig", "--seeds", "1",
            "--probe-samples", "300", "--out", str(tmp_path / "card"), "--builtins-dir", str(tmp_path / "cache"),
            "--no-progress", "--jobs", "1"]
    assert main([*argv, "--n-samples", "300"]) == 1
    captured = capsys.readouterr()
    assert "6 cell(s) of picky failed" in captured.err and (tmp_path / "card" / "report_card.md").exists()
    assert "- failed cells: 6 of 6 cells of `picky`" in captured.out
    assert main([*argv, "--n-samples", "600"]) == 0  # every cell scored (the axioms' own failures are the card's)
    assert "failed" not in capsys.readouterr().err


def test_the_progress_bars_say_whose_cells_they_count(metric_files, monkeypatch):
    # both bars were labelled 'cells': the built-ins' first, then the metric's
    import harness.execution.progress as progress

    labels = []

    class Bar:
        def __init__(self, *, desc, postfix, **_):
            labels.append((desc, postfix))

        def set_postfix_str(self, *_, **__):
            pass

        def update(self, _):
            pass

        def close(self):
            pass

    monkeypatch.setattr(progress, "tqdm", Bar)
    validate(f"{metric_files / 'rank_metric.py'}:rank_metric", scenarios_=["noise"], builtins=["mig"], seeds=1,
             n_samples=200, probe_samples=300, log=lambda _: None)
    assert labels == [("built-in metrics' cells", "0/6 cells"), ("rank_metric's cells", "0/6 cells")]


def test_validate_says_when_it_starts_the_axiom_checks(metric_files):
    # the axioms run after the battery's progress bars: a slow metric must not leave the terminal silent
    # without saying what it is doing, and how long each call may take
    said = []
    validate(f"{metric_files / 'diagonal.py'}:subsampled", stochastic=True, scenarios_=["noise"], builtins=[], seeds=1,
             n_samples=200, probe_samples=300, progress=False, cell_timeout=30, log=said.append)
    assert said[-1] == ("axiom checks: 13 calls of subsampled on the probe (mixing at alpha = 0.2, n = 300, seed 0), "
                        "each stopped after 30 s")


SLEEPY = '''
import time

import numpy as np
from scipy.stats import spearmanr


def _rank(factors, codes):
    k = factors.shape[1]
    return float(np.abs(spearmanr(factors, codes).statistic[:k, k:]).max(axis=1).mean())


def hangs_on_a_duplicate(factors, codes):
    if codes.shape[1] != factors.shape[1]:  # the duplicate_code check's data alone
        time.sleep(60)
    return _rank(factors, codes)


def quadratic(factors, codes):
    if len(factors) > 250:  # the probe (n = 300); the battery's cells (n = 200) answer at once
        time.sleep(10)  # 9 calls x 10 s without the limit: the test's 30 s bound fails
    return _rank(factors, codes)


def quadratic_dict(factors, codes):
    rho = quadratic(factors, codes)
    return {"rho": rho, "miss": 1.0 - rho}
'''


@pytest.fixture(scope="module")
def sleepy(tmp_path_factory):
    path = tmp_path_factory.mktemp("sleepy") / "sleepy.py"
    path.write_text(textwrap.dedent(SLEEPY))
    return path


def test_a_time_limit_stops_each_axiom_call_and_fails_only_its_check(sleepy):
    started = time.perf_counter()
    results = {a.axiom: a for a in check_axioms(f"{sleepy}:hangs_on_a_duplicate", probe=make_probe(n=300), timeout=0.5)}
    assert time.perf_counter() - started < 20, "the sleeping call was not stopped"
    stopped = results.pop("duplicate_code")
    assert stopped.passed is False and np.isnan(stopped.measured) and stopped.detail == "timed out after 0.5 s"
    # the other checks ran: a rank metric passes every invariance; chance (~0.10 at n = 300) is measured
    chance = results.pop("chance")
    assert all(result.passed for result in results.values()) and 0.05 < chance.measured < 0.2
    with pytest.raises(ValueError, match="timeout must be a finite number of seconds > 0, got 0"):
        check_axioms(f"{sleepy}:hangs_on_a_duplicate", timeout=0)


@pytest.mark.slow  # 3 to 5 s; the fast tier keeps other tests of the same code (issue 37's 5-minute tier)
def test_cell_timeout_bounds_the_axiom_checks_and_the_card_is_still_written(sleepy, tmp_path, capsys):
    started = time.perf_counter()
    status = main(["validate", f"{sleepy}:quadratic", "--scenarios", "noise", "--metrics", "mig", "--seeds", "1",
                   "--n-samples", "200", "--probe-samples", "300", "--cell-timeout", "0.5",
                   "--out", str(tmp_path / "card"),
                   "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"])
    assert time.perf_counter() - started < 30, "the axiom phase stalled"
    err = capsys.readouterr().err
    assert status == 0  # every cell of the battery was scored; only the axioms timed out
    assert ("axiom checks: 9 calls of quadratic on the probe (mixing at alpha = 0.2, n = 300, seed 0), each stopped "
            "after 0.5 s") in err
    saved = json.loads((tmp_path / "card" / "report_card.json").read_text())
    assert [(a["passed"], a["measured"], a["detail"]) for a in saved["axioms"]] == (
        [(False, None, "timed out after 0.5 s on the probe itself")] * 8)
    assert "axioms: 0 of 8 checks pass" in (tmp_path / "card" / "report_card.md").read_text()
    assert len(pd.read_csv(tmp_path / "card" / "results.csv").query("metric == 'quadratic'")) == 6


@pytest.mark.slow
def test_claims_unchecked_on_a_timed_out_probe_are_checked_on_the_battery(sleepy):
    # the probe's call timed out, so a misspelt sub-score could not be refused before the battery: the card says so
    said = []
    battery = dict(scenarios_=["noise"], builtins=[], seeds=1, n_samples=200, probe_samples=300, cell_timeout=0.5,
                   progress=False, log=said.append)
    card = validate(f"{sleepy}:quadratic_dict", higher_is_better={"mis": False}, **battery)
    message = ("the claimed direction names sub-score(s) mis that quadratic_dict did not return in the battery; it "
               "returned: miss, rho (did you mean miss?); it failed on the probe, so this was not checked before the "
               "battery: that claim was not applied")
    assert message in card.notes and f"warning: {message}" in said
    assert not any("claimed" in note for note in validate(f"{sleepy}:quadratic_dict", higher_is_better={"miss": False},
                                                           **battery).notes)


def test_a_bad_cell_timeout_is_refused_before_anything_runs(metric_files, tmp_path):
    with pytest.raises(ValueError, match="cell_timeout must be a finite number of seconds > 0, got 0"):
        validate(f"{metric_files / 'rank_metric.py'}:rank_metric", scenarios_=["noise"], builtins=["mig"],
                 cell_timeout=0, out=tmp_path / "card", progress=False, log=lambda _: None)
    assert not (tmp_path / "card").exists()


def test_cli_stdout_is_the_card_and_status_lines_go_to_stderr(tmp_path, capsys):
    metric_file = tmp_path / "fragile.py"
    metric_file.write_text("import numpy as np\n"
                           "def fragile(factors, codes):\n"
                           "    if abs(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1]) < 0.5:\n"
                           "        raise ValueError('no signal to score')\n"
                           "    return 1.0\n")
    argv = ["validate", f"{metric_file}:fragile", "--scenarios", "noise", "--metrics", "mig", "--seeds", "1",
            "--n-samples", "300", "--probe-samples", "300", "--out", str(tmp_path / "card"),
            "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"]
    assert main(argv) == 1  # two of fragile's cells failed
    captured = capsys.readouterr()
    card = (tmp_path / "card" / "report_card.md").read_text()
    assert captured.out.strip() == card.strip()  # `validate ... > card.md` keeps the card alone
    assert "report card: " in captured.err and "warning: 2 cell(s) failed" in captured.err and "axiom checks: 9 calls of fragile" in captured.err
    assert main(argv) == 1
    assert "skipping 6 finished cell(s)" in capsys.readouterr().err  # noise has 6 values: the built-ins' cache, on the second run


@pytest.mark.parametrize("name", ["mig[bins=5]", "mine[x=1]", "a,b"])
def test_a_name_that_reads_as_a_variant_or_a_list_is_refused_before_the_battery(metric_files, name, monkeypatch):
    # the card reads METRIC[OPTION=V] as an option-sweep variant: 'mig[bins=5]' got a card with nothing ranked
    import harness.workflows.validate as validate_module

    monkeypatch.setattr(validate_module, "run_study", lambda **_: pytest.fail("the battery ran"))
    with pytest.raises(ValueError, match="name option-sweep variants"):
        validate(f"{metric_files / 'rank_metric.py'}:rank_metric", name=name, **BATTERY)


@pytest.mark.parametrize("name", ["../../x", "sub/dir", "..", ".", "back\\slash"])
def test_a_name_that_is_not_a_plain_file_name_is_refused_in_one_line(metric_files, tmp_path, capsys, monkeypatch, name):
    # the card goes to validation/NAME: '--name ../../x' wrote it two directories above validation/
    working = tmp_path / "a" / "b"  # so that ../../x, were it written, would still land inside tmp_path
    working.mkdir(parents=True)
    monkeypatch.chdir(working)
    status = main(["validate", f"{metric_files / 'rank_metric.py'}:rank_metric", "--name", name, "--metrics", "mig",
                   "--scenarios", "noise", "--seeds", "1", "--n-samples", "300", "--no-progress", "--jobs", "1"])
    err = capsys.readouterr().err
    assert status == 2 and f"metric name {name!r} is not a plain file name" in err and len(err.strip().splitlines()) == 1
    assert sorted(tmp_path.rglob("*")) == [working.parent, working]  # nothing written, in validation/ or above it


def test_a_stochastic_metric_without_random_state_is_refused_before_the_battery(metric_files, tmp_path, capsys, monkeypatch):
    # --stochastic was accepted silently for a function the harness cannot seed: its cells would not be reproducible
    status = main(["validate", f"{metric_files / 'diagonal.py'}:noisy", "--stochastic", "--metrics", "mig",
                   "--out", str(tmp_path / "card"), "--builtins-dir", str(tmp_path / "cache"), "--no-progress"])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "noisy is declared stochastic (--stochastic or describe_metric(stochastic=True)) but takes no random_state" in err
    assert not (tmp_path / "cache").exists() and not (tmp_path / "card").exists()  # nothing ran
    metric_file = tmp_path / "declared.py"
    metric_file.write_text("from metrics.describe import describe_metric\n"
                           "@describe_metric(stochastic=True)\n"
                           "def declared(factors, codes):\n"
                           "    return 0.5\n"
                           "def forwarded(factors, codes, **options):\n"
                           "    return 0.5\n")
    with pytest.raises(ValueError, match="declared is declared stochastic"):
        validate(f"{metric_file}:declared", **BATTERY)
    import harness.workflows.validate as validate_module

    monkeypatch.setattr(validate_module, "run_study", lambda **_: pytest.fail("the battery ran"))
    with pytest.raises(pytest.fail.Exception, match="the battery ran"):  # **options may take random_state: accepted
        validate(f"{metric_file}:forwarded", stochastic=True, **BATTERY)


def test_without_builtins_the_battery_compares_with_the_presets_metrics(metric_files, monkeypatch):
    # README: "dci_gbt is left out unless named, as in the quick preset" (it costs more than the others together)
    import harness.workflows.validate as validate_module
    import metrics

    studied = []

    def no_battery(**study):
        studied.append(list(study["metrics_"]))
        raise KeyboardInterrupt  # stop before anything runs

    monkeypatch.setattr(validate_module, "run_study", no_battery)
    with pytest.raises(KeyboardInterrupt):
        validate(f"{metric_files / 'rank_metric.py'}:rank_metric", progress=False, log=lambda _: None)
    assert studied[0] == [name for name in metrics.available() if name != "dci_gbt"]


FAILING_METRICS = '''
import numpy as np


def boom(factors, codes):
    raise ValueError("always")


def flaky(factors, codes, k=1):
    if k == 2 and factors.shape[0] < 500:
        raise ValueError("too few rows for k=2")
    return float(np.abs(np.corrcoef(factors[:, 0], codes[:, 0])[0, 1]))
'''


@pytest.fixture(scope="module")
def failing_metrics(tmp_path_factory):
    path = tmp_path_factory.mktemp("failing") / "failing.py"
    path.write_text(textwrap.dedent(FAILING_METRICS))
    return path


def test_a_card_counts_the_failed_cells_of_the_metrics_option_variants_as_its_own(failing_metrics, tmp_path):
    # flaky[k=2] fails on every cell at n = 400; the exit status counted them as the metric's, the card as "others'"
    reference = f"{failing_metrics}:flaky"
    card = validate(reference, builtins=["mig"], scenarios_=["noise"], seeds=1, n_samples=400,
                    metric_options={reference: {"k": [1, 2]}}, out=tmp_path, progress=False, log=lambda *_: None)
    assert len(card.own_failures) == 6 and set(card.own_failures["metric"]) == {"flaky[k=2]"}
    text = (tmp_path / "report_card.md").read_text()
    assert "failed cells: 6 of 18 cells of `flaky`" in text and "other metrics" not in text


def test_a_metric_failing_every_cell_with_no_builtin_still_gets_its_card(failing_metrics, tmp_path):
    # the results table was empty, and building the criteria raised "results table is empty"
    card = validate(f"{failing_metrics}:boom", builtins=[], scenarios_=["noise"], seeds=1, n_samples=300, out=tmp_path,
                    progress=False, log=lambda *_: None)
    assert len(card.own_failures) == 6 and card.rankings.empty and card.verdicts.empty
    assert any("every cell of the battery failed" in note for note in card.notes)
    text = (tmp_path / "report_card.md").read_text()
    assert "battery: preset `validate`; scenarios noise; 1 seed(s); n = 300" in text
    assert json.loads((tmp_path / "report_card.json").read_text())["failures"]


OUT_OF_RANGE = '''
def shifted(factors, codes):
    """1.5 on a perfect code, about 0.5 on noise: above [0, 1], and far from calibrated at the random end."""
    import numpy as np

    k = min(factors.shape[1], codes.shape[1])
    return float(0.5 + np.mean([abs(np.corrcoef(factors[:, j], codes[:, j])[0, 1]) for j in range(k)]))
'''


def test_cli_fail_on_grid_and_score_range(tmp_path, capsys):
    # the card judges: an overall line, a mark on each criterion, a warning for scores above 1, and exit status 3
    # when a criterion named by --fail-on is not passed; --grid replaces the noise scenario's grid as in run
    (tmp_path / "shifted.py").write_text(OUT_OF_RANGE)
    arguments = ["validate", f"{tmp_path / 'shifted.py'}:shifted", "--property", "explicitness", "--scenarios", "noise",
                 "--metrics", "mig", "--grid", "noise=0,0.5,1", "--seeds", "1", "--n-samples", "300",
                 "--probe-samples", "300", "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"]
    status = main([*arguments, "--out", str(tmp_path / "card"), "--fail-on", "calibration", "--score-range", "0,2"])
    captured = capsys.readouterr()
    assert status == 3
    assert "shifted does not pass calibration: no 1.50 / 0.5" in captured.err and "exit status 3 (--fail-on)" in captured.err
    card = captured.out
    assert card.splitlines()[2].startswith("- overall: ✗ fails calibration") and "✓ passes" in card.splitlines()[2]
    assert "scores outside [0, 1], the range the verdicts' thresholds assume (" in card
    assert "outside [0, 2]" not in card  # within the declared range
    criteria = card.split("## Criteria", 1)[1].split("##", 1)[0]
    assert "| calibration | ✗ 1.50 / 0.5" in criteria and "perfect ≥ 0.9 / -0.1 ≤ random ≤ 0.1" in criteria
    assert "closest established metric: `mig` (Kendall τ" in card
    results = pd.read_parquet(tmp_path / "card" / "results.parquet")
    assert sorted(results["value"].unique()) == [0.0, 0.5, 1.0]
    # it follows the explicitness ideal (ρ 1 over the three noise levels, slope about 1): that passes
    assert main([*arguments, "--out", str(tmp_path / "card2"), "--fail-on", "explicitness"]) == 0


def test_cli_fail_on_names_are_checked_before_the_battery_runs(tmp_path, capsys):
    status = main(["validate", "nowhere.py:f", "--fail-on", "calibraton", "--out", str(tmp_path / "card")])
    assert status == 2
    error = capsys.readouterr().err
    assert "argument --fail-on: unknown criteria ['calibraton'] (did you mean calibration or calibrated?)" in error


def test_fail_on_help_lists_exactly_what_it_takes():
    from harness.cli.validate import FAIL_ON_CHOICES
    from harness.workflows.validate import FAIL_ON_AXIOMS
    from reports.report_card import FAIL_ON

    listed = (FAIL_ON_CHOICES.replace("the card's ", "").replace(", or the property matrix's", ",")
              .replace(", or the axioms: axioms (every one)", ", axioms").split(", "))
    assert listed == [*FAIL_ON, *FAIL_ON_AXIOMS]


@pytest.mark.slow
def test_fail_on_takes_the_axioms_the_overall_line_names(metric_files, tmp_path, capsys):
    # the overall line listed "chance axiom" among the failures, and --fail-on chance was refused: no CI gate on them
    metric_file = tmp_path / "constant.py"
    metric_file.write_text("def constant(factors, codes):\n    return 0.9\n")  # 0.9 on independent codes: chance fails
    argv = ["validate", f"{metric_file}:constant", "--scenarios", "noise", "--metrics", "mig", "--seeds", "1",
            "--n-samples", "300", "--probe-samples", "300", "--out", str(tmp_path / "card"), "--builtins-dir",
            str(tmp_path / "cache"), "--no-progress", "--jobs", "1"]
    assert main([*argv, "--fail-on", "chance_axiom"]) == 3
    assert "constant does not pass chance_axiom: chance fails (" in capsys.readouterr().err
    assert main([*argv, "--fail-on", "axioms"]) == 3
    assert "axioms: chance fails" in capsys.readouterr().err
    assert main([*argv, "--fail-on", "permute_codes_axiom"]) == 0  # a constant is invariant to everything else


def test_the_builtins_cache_lies_beside_the_card_not_in_the_working_directory(metric_files, tmp_path, monkeypatch):
    # issue 40: the cache stayed in ./validation/builtins whatever --out said
    working = tmp_path / "work"
    working.mkdir()
    monkeypatch.chdir(working)
    status = main(["validate", f"{metric_files / 'rank_metric.py'}:rank_metric", "--scenarios", "noise", "--metrics", "mig",
                   "--seeds", "1", "--n-samples", "300", "--probe-samples", "300", "--out", str(tmp_path / "cards" / "mine"),
                   "--no-progress", "--jobs", "1"])
    assert status == 0
    assert (tmp_path / "cards" / "builtins" / "results.parquet").exists() and not any(working.iterdir())


@pytest.mark.parametrize(("source", "message"), [
    ("def score(factors, codes, extra):\n    return 0.5\n",
     "metric 'score' ({file}:score) requires extra, which nothing gives it: give it a default in its signature"),
    ("def score(factors, codes, *, window):\n    return 0.5\n", "requires window, which nothing gives it"),
    ("import numpy as np\ndef score(factors, codes):\n    return np.zeros(3)\n",
     "metric 'score' returned a non-numeric score for 'score': array([0., 0., 0.]) on the probe (mixing at alpha"),
    ("def score(factors, codes):\n    return {}\n", "metric 'score' returned no score on the probe"),
])
def test_a_metric_every_cell_of_which_would_fail_is_refused_before_the_battery(tmp_path, capsys, source, message):
    # a required third parameter, or a result that is no score (an array, None, {}), ran the whole battery (12 min 19 s
    # against every built-in) for every cell to fail with the same error
    metric_file = tmp_path / "metric.py"
    metric_file.write_text(source)
    status = main(["validate", f"{metric_file}:score", "--metrics", "mig", "--out", str(tmp_path / "card"),
                   "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and message.format(file=metric_file) in err
    assert not (tmp_path / "cache").exists() and not (tmp_path / "card").exists()  # nothing ran


def test_a_metric_declared_deterministic_whose_scores_move_with_random_state_is_warned_about(tmp_path, capsys):
    # it drew from random_state, the harness seeded it, and the card said "deterministic" with nothing more
    from harness.workflows.axioms import seed_dependence

    metric_file = tmp_path / "hidden.py"
    metric_file.write_text("import numpy as np\n"
                           "def hidden(factors, codes, random_state=None):\n"
                           "    return float(0.5 + 0.01 * np.random.default_rng(random_state).random())\n"
                           "def steady(factors, codes, random_state=None):\n"
                           "    return 0.5\n")
    probe = make_probe(n=300)
    assert seed_dependence(f"{metric_file}:hidden", probe).startswith(
        "hidden is declared deterministic but its scores move with random_state (hidden: ")
    assert seed_dependence(f"{metric_file}:steady", probe) == ""
    status = main(["validate", f"{metric_file}:hidden", "--scenarios", "noise", "--metrics", "mig", "--seeds", "1",
                   "--n-samples", "300", "--probe-samples", "300", "--out", str(tmp_path / "card"), "--builtins-dir",
                   str(tmp_path / "cache"), "--no-progress", "--jobs", "1"])
    assert status == 0 and "declare it stochastic (--stochastic" in (tmp_path / "card" / "report_card.md").read_text()
    assert main(["validate", f"{metric_file}:hidden", "--stochastic", "--scenarios", "noise", "--metrics", "mig",
                 "--seeds", "1", "--n-samples", "300", "--probe-samples", "300", "--out", str(tmp_path / "card2"),
                 "--builtins-dir", str(tmp_path / "cache"), "--no-progress", "--jobs", "1"]) == 0
    assert "declared deterministic" not in (tmp_path / "card2" / "report_card.md").read_text()


def test_sub_scores_returned_on_some_calls_only_are_warned_about(tmp_path):
    # 'b', returned on the probe (n = 2000) but not in the battery (n = 300), was left out of the card without a word
    from harness.workflows.validate import _uneven_sub_scores

    metric_file = tmp_path / "sometimes.py"
    metric_file.write_text("def sometimes(factors, codes):\n"
                           "    return {'a': 0.5, **({'b': 0.7} if len(factors) > 1000 else {})}\n")
    status = main(["validate", f"{metric_file}:sometimes", "--scenarios", "noise", "--metrics", "mig", "--seeds", "1",
                   "--n-samples", "300", "--out", str(tmp_path / "card"), "--builtins-dir", str(tmp_path / "cache"),
                   "--no-progress", "--jobs", "1"])
    card = (tmp_path / "card" / "report_card.md").read_text()
    assert status == 0 and ("warning: sometimes returns some sub-scores on some calls only (b on the probe but on no "
                            "cell of the battery)") in card
    rows = pd.DataFrame({"metric": "m", "sub_score": ["a", "a", "b"], "scenario": "noise", "value": [0.0, 0.5, 0.0],
                         "seed": 0, "n_samples": 300})
    assert "(b on 1 of 2 cells)" in _uneven_sub_scores(rows, "m", ["a", "b"])
    assert _uneven_sub_scores(rows.loc[rows["sub_score"] == "a"], "m", ["a"]) == ""


@pytest.mark.slow
def test_the_race_of_the_built_ins_and_of_your_metric_are_told_apart(metric_files, tmp_path):
    # validate logged two identical 'racing: stopped after ...' lines, the first about the built-ins, not your metric
    messages = []
    validate(f"{metric_files / 'rank_metric.py'}:rank_metric", **{**BATTERY, "seeds": None, "n_samples": 300},
             min_seeds=2, max_seeds=3, builtins_dir=tmp_path / "cache", log=messages.append)
    races = [message for message in messages if message.startswith("racing") and "stopped after" in message]
    assert [race.split(":")[0] for race in races] == ["racing (built-in metrics' cells)", "racing (rank_metric's cells)"]


def test_a_stress_budget_without_the_stress_search_is_refused(metric_files, one_line_usage_error):
    """``--stress-budget 20`` alone was ignored: the card had no stress section and nothing said why."""
    assert main(["validate", f"{metric_files / 'rank_metric.py'}:rank_metric", "--stress-budget", "20"]) == 2
    one_line_usage_error("--stress-budget sets the budget of the --stress search: add --stress")
