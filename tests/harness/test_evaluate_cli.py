"""evaluate: load the user's factors and codes, run every metric, print and write the score table."""

from __future__ import annotations

import itertools
import json
import textwrap

import numpy as np
import pandas as pd
import pytest

import metrics
from harness.cli import main
from harness.errors import UsageError
from harness.workflows.evaluate import evaluate_representation, load_array, parse_discrete


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    """A full factorial design: 3 factors with 3, 4 and 5 levels, every combination 20 times (n = 1200).

    In a full factorial design the empirical distribution of the factors is exactly the
    product of its marginals, so every plug-in mutual information between two different
    factors is exactly 0 and MIG, MIG-sup and the Modularity score of codes = factors are
    exactly 1.
    """
    folder = tmp_path_factory.mktemp("arrays")
    levels = np.array(list(itertools.product(range(3), range(4), range(5))), dtype=float)
    factors = np.repeat(levels, 20, axis=0)
    np.save(folder / "factors.npy", factors)
    np.save(folder / "codes.npy", factors[:, ::-1] * np.array([2.0, -1.0, 0.5]))  # permuted, flipped, rescaled
    np.savez(folder / "both.npz", factors=factors, codes=factors)
    np.savez(folder / "other.npz", a=factors, b=factors)
    np.savetxt(folder / "factors.csv", factors, delimiter=",", header="x,y,z", comments="")
    np.savetxt(folder / "codes.csv", factors, delimiter=",")
    (folder / "failing.py").write_text(textwrap.dedent('''
        def needs_square(factors, codes):
            if codes.shape[1] != 4:
                raise ValueError("I need exactly 4 codes")
            return 1.0
        '''))
    return folder


def test_perfect_codes_score_exactly_one(grid, tmp_path, capsys):
    out = tmp_path / "scores.csv"
    status = main(["evaluate", "--factors", str(grid / "factors.npy"), "--codes", str(grid / "codes.npy"),
                   "--discrete", "all", "--metrics", "mig,mig_sup,modularity", "--out", str(out)])
    assert status == 0
    printed = capsys.readouterr().out
    assert "1200 samples, 3 factors (3 discrete), 3 codes" in printed and "| mig " in printed
    table = pd.read_csv(out)
    assert list(table["metric"]) == ["mig", "mig_sup", "modularity"]
    assert np.allclose(table["score"], 1.0, atol=1e-12)
    assert table["error"].isna().all()


def test_default_runs_every_registered_metric(grid, tmp_path):
    table = evaluate_representation(load_array(grid / "factors.npy", "factors"), load_array(grid / "codes.npy", "codes"),
                                    discrete=(True, True, True))
    assert set(table["metric"]) == set(metrics.available())
    scored = table["error"] == ""
    assert np.isfinite(table.loc[scored, "score"]).all()  # a score, or
    assert table.loc[~scored, "score"].isna().all()  # no score and the reason, never a silent NaN
    assert table.loc[table["metric"] == "mig", "score"].iloc[0] == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    ("factors", "codes"),
    [("factors.csv", "codes.csv"), ("both.npz", "both.npz"), ("other.npz:a", "other.npz:b"), ("factors.npy", "both.npz:codes")],
)
def test_every_file_format_loads_the_same_arrays(grid, factors, codes):
    expected = np.load(grid / "factors.npy")
    assert np.array_equal(load_array(grid / factors, "factors"), expected)
    assert np.array_equal(load_array(grid / codes, "codes"), expected)


def test_one_dimensional_array_is_one_column(tmp_path):
    np.save(tmp_path / "v.npy", np.arange(5.0))
    assert load_array(tmp_path / "v.npy", "factors").shape == (5, 1)
    # and says so (it was taken silently: "1 codes")
    notes: list[str] = []
    assert load_array(tmp_path / "v.npy", "codes", notes).shape == (5, 1)
    assert notes == ["codes file 'v.npy' holds a 1-D array of 5 values: read as one column (5 samples of one code); "
                     "save an (n, d) array for more"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.npy", None, "does not exist"),
        ("folder.npy", "folder", "is a directory"),
        ("data.txt", "1,2\n3,4\n", "must end in .npy, .npz, .csv"),
        ("bad.csv", "1,2\n3,oops\n", "non-numeric value 'oops' in column 1 (data row 1)"),
        ("nan.csv", "1,2\n3,nan\n", "non-finite value"),
        ("header.csv", "a,b\n", "has a header row but no data rows"),
        ("other.npz", "npz", "holds several arrays (a, b); pick one with other.npz:KEY"),
        ("other.npz:c", "npz", "has no array 'c'"),
        ("cube.npy", "cube", "must be a 2-D array"),
        ("broken.npy", "not an array", "is not a NumPy array (.npy): it does not start as one"),
        ("words.npy", "strings", "must be numeric, got an array of strings"),
        ("complex.npy", "complex", "must be real-valued, got complex numbers"),
    ],
)
def test_bad_files_are_clear_errors(tmp_path, name, content, message):
    path = tmp_path / name.split(":")[0]
    if content == "folder":
        path.mkdir()
    elif content == "strings":
        np.save(path, np.array([["a", "b"], ["c", "d"]]))
    elif content == "complex":
        np.save(path, np.ones((3, 2), dtype=complex))
    elif content == "npz":
        np.savez(path, a=np.ones((3, 2)), b=np.ones((3, 2)))
    elif content == "cube":
        np.save(path, np.ones((3, 2, 2)))
    elif content is not None:
        path.write_text(content)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        load_array(tmp_path / name, "factors")


def test_a_failing_metric_is_reported_and_the_others_still_run(grid, tmp_path, capsys):
    out = tmp_path / "scores.json"
    status = main(["evaluate", "--factors", str(grid / "factors.npy"), "--codes", str(grid / "codes.npy"),
                   "--metrics", f"mig,{grid / 'failing.py'}:needs_square", "--out", str(out)])
    assert status == 1
    printed = capsys.readouterr().out
    assert "FAILED: needs_square" in printed and "I need exactly 4 codes" in printed
    rows = json.loads(out.read_text())
    assert rows[0]["metric"] == "mig" and rows[0]["error"] == "" and rows[0]["score"] > 0
    # the line of the user's file that raised (evaluate said only the message)
    assert rows[1]["error"] == "ValueError: I need exactly 4 codes (at failing.py:4 in needs_square)"
    assert rows[1]["score"] is None


def test_a_failing_metric_with_sub_scores_fails_in_one_row_per_sub_score_with_its_property(grid):
    factors = load_array(grid / "factors.npy", "factors")
    factors[:, 0] = 1.0  # dci_lasso refuses a constant factor
    table = evaluate_representation(factors, load_array(grid / "codes.npy", "codes"), metric_names=["dci_lasso"])
    failed = table.loc[table["metric"] == "dci_lasso"]
    assert list(failed["sub_score"]) == ["modularity", "compactness", "explicitness"]
    assert list(failed["property"]) == ["modularity", "compactness", "explicitness"]  # was one row, 'modularity'
    assert failed["score"].isna().all() and failed["error"].str.contains("factor 0 is constant").all()


@pytest.mark.parametrize(("arguments", "message"), [
    ({"discrete": [True]}, r"discrete must have one flag per factor \(3\), got 1"),
    ({"discrete": ["yes", "no", "no"]}, r"discrete must hold one bool per factor, got 'yes'"),
    ({"random_state": -1}, r"random_state must be non-negative, got -1"),
    ({"random_state": 1.5}, r"random_state must be a non-negative int"),
    ({"metric_names": "mig"}, r"metric_names must be a list of names, got 'mig'; write \['mig'\]"),
    ({"metric_names": []}, r"no metric named; known metrics: dci_es, "),  # an empty table came back
])
def test_bad_flags_seeds_and_names_are_one_usage_error_before_any_metric_runs(grid, arguments, message):
    """Each used to fail every stochastic (or every) metric's rows with the same error, or read 'mig' as 'm', 'i', 'g'."""
    factors, codes = load_array(grid / "factors.npy", "factors"), load_array(grid / "codes.npy", "codes")
    with pytest.raises(UsageError, match=message):
        evaluate_representation(factors, codes, **{"metric_names": ["mig", "sap"], **arguments})


def test_markdown_output_and_hint_for_integer_factors(grid, tmp_path, capsys):
    out = tmp_path / "scores.md"
    assert main(["evaluate", "--factors", str(grid / "factors.csv"), "--codes", str(grid / "codes.csv"),
                 "--metrics", "mig", "--out", str(out)]) == 0
    assert "hint: factor column(s) 0,1,2 hold few integer values" in capsys.readouterr().out
    assert out.read_text().startswith("| metric | sub_score |")


def test_continuous_factors_marked_discrete_get_a_hint(tmp_path, capsys):
    # --discrete all on uniform factors: MIG fell from 0.55 to 0.0025 (each value a category), with nothing said
    rng = np.random.default_rng(1)
    factors = np.column_stack([rng.random(300), rng.random(300), rng.integers(0, 4, 300)])
    np.save(tmp_path / "factors.npy", factors)
    np.save(tmp_path / "codes.npy", factors + 0.05 * rng.standard_normal(factors.shape))
    argv = ["evaluate", "--factors", str(tmp_path / "factors.npy"), "--codes", str(tmp_path / "codes.npy"),
            "--metrics", "mig", "--out", str(tmp_path / "scores.csv"), "--force"]
    assert main([*argv, "--discrete", "all"]) == 0
    out = capsys.readouterr().out
    assert "hint: factor column(s) 0,1, marked discrete, hold many values that are not whole numbers" in out
    assert "leave them out of --discrete" in out
    assert main([*argv, "--discrete", "2"]) == 0  # the integer column alone: rightly discrete, no hint
    assert "marked discrete" not in capsys.readouterr().out


def test_a_constant_factor_gets_its_own_hint_not_the_categorical_one(tmp_path, capsys):
    rng = np.random.default_rng(0)
    factors = np.column_stack([rng.random(200), rng.random(200), np.ones(200)])  # e.g. dSprites' single colour
    np.save(tmp_path / "factors.npy", factors)
    np.save(tmp_path / "codes.npy", factors[:, :2])
    assert main(["evaluate", "--factors", str(tmp_path / "factors.npy"), "--codes", str(tmp_path / "codes.npy"),
                 "--metrics", "mig", "--out", str(tmp_path / "scores.csv")]) == 0
    out = capsys.readouterr().out
    assert "hint: factor column(s) 2 hold a single value; drop them" in out
    assert "--discrete 2" not in out  # it used to be suggested as a categorical factor


def test_discrete_flags():
    assert parse_discrete(None, 3) == (False, False, False)
    assert parse_discrete("all", 2) == (True, True)
    assert parse_discrete("0, 2", 3) == (True, False, True)
    with pytest.raises(ValueError, match="out of range: there are 3 factors"):
        parse_discrete("3", 3)
    with pytest.raises(ValueError, match="indices like 0,2"):
        parse_discrete("x", 3)
    with pytest.raises(ValueError, match="index 0 is given twice in '0,0'"):
        parse_discrete("0,0", 3)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--discrete", "9"], "discrete factor index 9 is out of range"),
        (["--out", "scores.xlsx"], "--out must end in .csv, .json, .md"),
        (["--metrics", "nope"], "unknown metric 'nope'"),
        (["--seed", "-1"], "--seed: expected a whole number >= 0, got -1"),  # was: every stochastic metric FAILED, exit 1
    ],
)
def test_cli_errors_are_one_line_exit_2(grid, tmp_path, extra, message, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["evaluate", "--factors", str(grid / "factors.npy"), "--codes", str(grid / "codes.npy"), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_codes_of_strings_are_one_line_exit_2(grid, tmp_path, capsys):
    np.save(tmp_path / "labels.npy", np.array([["a"], ["b"]] * 50))
    assert main(["evaluate", "--factors", str(grid / "factors.npy"), "--codes", str(tmp_path / "labels.npy")]) == 2
    err = capsys.readouterr().err
    assert "codes (labels.npy) must be numeric" in err and "Traceback" not in err and err.count("\n") == 1


def test_out_under_a_plain_file_is_one_line_exit_2(grid, tmp_path, capsys):
    (tmp_path / "notes").write_text("a file, not a folder")
    argv = ["evaluate", "--factors", str(grid / "factors.npy"), "--codes", str(grid / "codes.npy"), "--metrics", "mig",
            "--out", str(tmp_path / "notes" / "scores.csv")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "notes is not a directory" in err and "Traceback" not in err and err.count("\n") == 1


def test_mismatched_rows_name_both_arrays(grid, tmp_path, capsys):
    np.save(tmp_path / "short.npy", np.ones((10, 2)))
    assert main(["evaluate", "--factors", str(grid / "factors.npy"), "--codes", str(tmp_path / "short.npy")]) == 2
    assert "same number of rows" in capsys.readouterr().err


def test_help(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["evaluate", "--help"])
    assert exited.value.code == 0 and ".npz" in capsys.readouterr().out


def test_each_sub_score_has_its_own_direction_and_shared_estimates_change_no_score():
    rng = np.random.default_rng(3)
    factors = rng.uniform(size=(400, 2))
    codes = factors + 0.1 * rng.normal(size=factors.shape)
    table = evaluate_representation(factors, codes, metric_names=["pid", "unibound", "rmig"])
    direction = dict(zip(table["sub_score"], table["higher_is_better"]))
    assert not direction["redundant_lower"] and not direction["complementary_upper"] and direction["unique_lower"]
    alone = {name: metrics.evaluate(name, factors, codes, random_state=0) for name in ("pid", "unibound", "rmig")}
    for name, scores in alone.items():
        rows = table.loc[table["metric"] == name].set_index("sub_score")["score"]
        assert {sub: rows[sub] for sub in scores} == scores


def test_permutations_print_and_write_each_sub_scores_null(grid, tmp_path, capsys):
    (tmp_path / "flaky.py").write_text(textwrap.dedent('''
        import numpy as np

        def first_rows_only(factors, codes):
            if not np.array_equal(codes[:5], factors[:5, ::-1] * np.array([2.0, -1.0, 0.5])):
                raise ValueError("permuted codes")
            return 1.0
    '''))
    out = tmp_path / "scores.json"
    assert main(["evaluate", "--factors", str(grid / "factors.npy"), "--codes", str(grid / "codes.npy"), "--metrics",
                 f"mig,{tmp_path / 'flaky.py'}:first_rows_only", "--permutations", "19", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| null mean | null 95% | p    | B   |" in printed
    assert "note: no permutation null for first_rows_only (its score stands): ValueError: permuted codes" in printed
    rows = {row["metric"]: row for row in json.loads(out.read_text())}
    # codes = factors up to sign, scale and order: MIG 1, and no permutation reaches it, p = 1 / (19 + 1)
    assert (rows["mig"]["score"], rows["mig"]["p_value"], rows["mig"]["null_permutations"]) == (pytest.approx(1.0), 0.05, 19)
    assert rows["mig"]["null_q95"] < 0.1 and rows["first_rows_only"]["score"] == 1.0
    assert rows["first_rows_only"]["p_value"] is None and rows["first_rows_only"]["null_permutations"] == 0


def test_a_costly_null_is_announced_with_its_cause_and_a_stopped_evaluate_claims_no_saved_cells(grid, tmp_path, capsys,
                                                                                                 monkeypatch):
    # issue 40: --permutations 1000000000 ran with no word, and on SIGTERM said "finished cells are saved"
    import harness.workflows.evaluate as evaluate
    from harness.cli import Terminated

    def terminated(*args):
        raise Terminated

    monkeypatch.setattr(evaluate, "_score_rows", terminated)  # SIGTERM as the first metric starts
    out = tmp_path / "scores.csv"
    argv = ["evaluate", "--factors", str(grid / "factors.npy"), "--codes", str(grid / "codes.npy"), "--metrics", "mig",
            "--out", str(out)]
    assert main([*argv, "--permutations", "1000000000"]) == 143
    warning, stopped = capsys.readouterr().err.splitlines()
    assert warning.startswith("warning: 1000000000 permutations make the permutation null an estimated ")
    assert "CPU-hours (1000000000 more calls of each metric" in warning and "1200 samples x 3 codes" in warning
    assert stopped == "terminated; evaluate stopped before it finished, rerun the same command"
    assert not out.exists()
    assert main([*argv, "--permutations", "99"]) == 143
    assert capsys.readouterr().err == "terminated; evaluate stopped before it finished, rerun the same command\n"


def test_the_null_cost_warning_grows_with_the_permutations_and_the_codes():
    from harness.execution.metric_refs import resolve_all
    from harness.workflows.evaluate import null_cost_warning

    entries = resolve_all(["mig", "dci_lasso"])
    assert null_cost_warning(entries, 1000, 4, 4, 99) == ""
    assert null_cost_warning(entries, 1000, 4, 4, 10**9).startswith("warning: 1000000000 permutations")
    estimate = [float(null_cost_warning(entries, 1000, 4, codes, 10**8).split("an estimated ")[1].split(" ")[0])
                for codes in (4, 64)]
    assert estimate[1] > estimate[0]  # each call costs more on wider codes


def test_an_existing_score_file_is_kept_unless_forced(tmp_path, one_line_usage_error):
    # issue 39: evaluate overwrote ./scores.csv without a word, where baseline save refuses
    import numpy as np

    from harness.cli import main

    rng = np.random.default_rng(0)
    factors = rng.random((200, 2))
    np.save(tmp_path / "factors.npy", factors)
    np.save(tmp_path / "codes.npy", factors + 0.1 * rng.random((200, 2)))
    out = tmp_path / "scores.csv"
    out.write_text("kept\n")
    argv = ["evaluate", "--factors", str(tmp_path / "factors.npy"), "--codes", str(tmp_path / "codes.npy"),
            "--metrics", "mig", "--out", str(out)]
    assert main(argv) == 2
    one_line_usage_error(f"--out {str(out)!r} exists; pass --force to overwrite it, or --out to write elsewhere")
    assert out.read_text() == "kept\n"
    assert main([*argv, "--force"]) == 0 and out.read_text().startswith("metric,")


def test_a_variant_named_as_the_results_name_it_is_scored_with_its_options():
    # evaluate called every metric at its defaults whatever entry it resolved; a variant's label now scores that variant
    rng = np.random.default_rng(4)
    factors = rng.uniform(size=(500, 3))
    codes = factors + 0.1 * rng.normal(size=factors.shape)
    table = evaluate_representation(factors, codes, metric_names=["mig[bins=5]", "mig"], permutations=19).set_index("metric")
    assert table.loc["mig[bins=5]", "score"] == metrics.evaluate("mig", factors, codes, bins=5)["mig"]
    assert table.loc["mig", "score"] == metrics.evaluate("mig", factors, codes)["mig"]
    assert table.loc["mig[bins=5]", "score"] != table.loc["mig", "score"]
    null = metrics.permutation_null("mig", factors, codes, permutations=19, seed=0, random_state=0, bins=5)
    assert table.loc["mig[bins=5]", "null_mean"] == null.columns("mig")["null_mean"]


def test_sub_scores_beside_the_declared_ones_and_scores_outside_their_range_are_noted(grid, tmp_path, capsys):
    """A metric declaring sub-scores a and b that returned a and c gave rows a and c (holistic, never claimed) and no
    word of b; a score of 1.5 declared in [0, 1] passed silently."""
    (tmp_path / "claims.py").write_text(textwrap.dedent('''
        from metrics.constraints import Interval
        from metrics.describe import describe_metric

        @describe_metric(property={"a": "compactness", "b": "modularity"})
        def two(factors, codes):
            return {"a": 0.1, "c": 0.2}

        @describe_metric(property="modularity", score_range=Interval(float, 0, 1))
        def big(factors, codes):
            return 1.5
        '''))
    assert main(["evaluate", "--factors", str(grid / "factors.npy"), "--codes", str(grid / "codes.npy"), "--metrics",
                 f"{tmp_path / 'claims.py'}:two,{tmp_path / 'claims.py'}:big,mig", "--out", str(tmp_path / "s.csv")]) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("note:")]
    assert notes == [
        "note: metric 'two' returned sub-score 'c', which its property mapping does not name (declared: a, b): scored "
        "as holistic",
        "note: metric 'two' did not return the sub-score(s) it declares: b",
        "note: metric 'big': big = 1.5 lies outside the range it declares [0, 1]",
    ]
