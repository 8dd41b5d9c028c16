"""The estimator report: python -m harness estimators --out DIR."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

from harness.cli import main
from harness.workflows import estimator_report
from reports import estimators as estimator_figures
from scenarios.gaussian_toy import exact_information


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("estimators")
    with threadpool_limits(limits=1):
        status = main(["estimators", "--out", str(out), "--n", "1500", "--alphas", "0", "1", "4", "--estimators", "gaussian", "knn", "histogram"])
    assert status == 0
    return out, pd.read_csv(out / "estimator_report.csv")


def test_writes_the_table_and_both_figures(report):
    out, table = report
    for suffix in (".csv", ".png", ".svg"):
        assert (out / f"estimator_report{suffix}").stat().st_size > 1000
    assert (out / "estimator_report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (out / "estimator_report.svg").read_text()[:2000]
    assert list(table.columns) == estimator_report.COLUMNS
    # 2 attacks x 3 alphas x (3 quantities for gaussian and knn + 1 for histogram)
    assert len(table) == 2 * 3 * 7
    assert set(table.loc[table["estimator"] == "histogram", "quantity"]) == {"code"}


def test_exact_column_is_the_closed_form(report):
    _, table = report
    for (attack, alpha, quantity), exact in table.groupby(["attack", "alpha", "quantity"])["exact"].first().items():
        values = exact_information(attack, alpha)
        expected = {
            "code": values["information_code"][0, 0],
            "rest": values["information_rest"][0, 0],
            "total": values["information_total"][0],
        }[quantity]
        assert exact == pytest.approx(expected, abs=1e-12)


def test_errors_are_estimate_minus_exact_and_small_for_the_gaussian_estimator(report):
    _, table = report
    np.testing.assert_allclose(table["error"], table["estimate"] - table["exact"], atol=1e-12)
    gaussian = table[table["estimator"] == "gaussian"]
    assert gaussian["error"].abs().max() < 0.08  # n = 1500


def test_bad_arguments_and_help(capsys):
    assert main(["estimators", "--out", "x", "--estimators", "magic"]) == 2
    with pytest.raises(ValueError, match="factor must be in"):
        estimator_report.run(100, 1, [0.0], ["gaussian"], factor=7)
    assert main(["estimators", "--out", "x", "--seeds", "0"]) == 2
    capsys.readouterr()
    with pytest.raises(SystemExit) as stopped:  # in process: what --help prints does not need a fresh interpreter
        main(["estimators", "--help"])
    assert stopped.value.code == 0
    printed = capsys.readouterr().out
    assert "--out" in printed and "Gaussian toy model" in printed
    assert "--seeds" in printed and "--seed " not in printed and "identity" in printed


def test_summary_says_why_single_column_estimators_have_no_rest_or_total(report):
    _, table = report
    summary = estimator_figures.error_summary(table, estimator_report.SINGLE_COLUMN)
    assert list(summary.columns) == ["code", "rest", "total"]
    assert summary.loc["histogram", "rest"] == summary.loc["histogram", "total"] == "n/a (one code column only)"
    for estimator in ("gaussian", "knn"):
        for quantity in ("code", "rest", "total"):
            rows = table[(table["estimator"] == estimator) & (table["quantity"] == quantity)]
            assert summary.loc[estimator, quantity] == f"{rows['error'].abs().max():.4f}"
    assert summary.loc["histogram", "code"] == f"{table.loc[table['estimator'] == 'histogram', 'error'].abs().max():.4f}"


def test_printed_summary_has_no_nan(tmp_path, capsys):
    with threadpool_limits(limits=1):
        status = main(["estimators", "--out", str(tmp_path), "--n", "200", "--alphas", "0", "--estimators", "gaussian", "miller_madow"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "nan" not in printed.lower()
    (line,) = [line for line in printed.splitlines() if line.startswith("miller_madow")]
    assert line.count("n/a (one code column only)") == 2


def test_cells_go_through_the_study_and_a_rerun_reuses_them(report, capsys):
    out, table = report
    results = pd.read_csv(out / "study" / "results.csv")
    assert set(results["metric"]) == {f"mutual_information_probe[estimator={name},factor=0]" for name in ("gaussian", "knn", "histogram")}
    assert set(results["scenario"]) == {"gaussian_toy_redundancy", "gaussian_toy_synergy"}
    with threadpool_limits(limits=1):
        status = main(["estimators", "--out", str(out), "--n", "1500", "--alphas", "0", "1", "4", "--estimators", "gaussian", "knn", "histogram"])
    assert status == 0
    # 2 attacks x 3 alphas x 3 estimators, none recomputed
    assert "skipping 18 finished cell(s)" in capsys.readouterr().out
    pd.testing.assert_frame_equal(pd.read_csv(out / "estimator_report.csv"), table)


def test_seeds_are_independent_draws_of_each_alpha(tmp_path):
    with threadpool_limits(limits=1):
        status = main(["estimators", "--out", str(tmp_path), "--n", "300", "--alphas", "1", "--estimators", "gaussian", "--seeds", "2"])
    assert status == 0
    table = pd.read_csv(tmp_path / "estimator_report.csv")
    assert len(table) == 2 * 3 * 2  # attacks x quantities x seeds
    for _, rows in table.groupby(["attack", "quantity"]):
        assert sorted(rows["seed"]) == [0, 1]
        assert rows["estimate"].nunique() == 2
        assert rows["exact"].nunique() == 1


def test_probe_on_a_gaussian_channel():
    # y ~ N(0, 1), z_0 = y + e with var(e) = 1/4: I(y; z_0) = 0.5 log(1 + 4); z_1 is independent noise
    rng = np.random.default_rng(5)
    y = rng.standard_normal((20000, 2))
    codes = np.column_stack([y[:, 0] + 0.5 * rng.standard_normal(20000), rng.standard_normal(20000)])
    values = estimator_report.mutual_information_probe(y, codes, estimator="gaussian", factor=0)
    assert values["code"] == pytest.approx(0.5 * np.log(5), abs=0.02)
    assert values["rest"] == pytest.approx(0.0, abs=0.01)
    assert values["total"] == pytest.approx(0.5 * np.log(5), abs=0.02)
    assert set(estimator_report.mutual_information_probe(y, codes, estimator="histogram")) == {"code"}
    with pytest.raises(ValueError, match="factor must be in 0..1, got 2"):
        estimator_report.mutual_information_probe(y, codes, factor=2)


def _panel(curves: dict[str, list[float]], alphas=(0.0, 1.0, 4.0), exact=(0.0, 0.5, 1.0)) -> pd.DataFrame:
    rows = [["synergy", alpha, "code", estimator, value, truth, value - truth, 0.0, 100, 0, 0]
            for estimator, values in curves.items() for alpha, value, truth in zip(alphas, values, exact)]
    return pd.DataFrame(rows, columns=estimator_report.COLUMNS)


def test_overlapping_curves_are_named_and_only_those():
    # value range of the panel: 0 .. 2, so 1% of it is 0.02
    cell = _panel({"histogram": [1.0, 1.5, 2.0], "miller_madow": [0.99, 1.51, 1.985], "gaussian": [0.0, 0.5, 1.0]})
    assert estimator_figures.overlapping_curves(cell) == [("histogram", "miller_madow", pytest.approx(0.015))]
    apart = _panel({"histogram": [1.0, 1.5, 2.0], "miller_madow": [0.97, 1.5, 2.0], "gaussian": [0.0, 0.5, 1.0]})
    assert estimator_figures.overlapping_curves(apart) == []


def test_figure_draws_every_estimator_distinguishably_and_notes_the_overlap():
    from metrics.estimators import ESTIMATORS

    table = _panel({"knn": [0.0, 0.6, 1.1], "knn_full": [0.1, 0.4, 0.9], "gaussian": [0.05, 0.5, 1.05],
                    "histogram": [1.0, 1.5, 2.0], "miller_madow": [0.995, 1.5, 1.995]})
    drawn = estimator_figures.estimator_figure(table, ESTIMATORS)
    axis = drawn.figure.axes[0]
    lines = {line.get_label(): line for line in axis.get_lines()}
    styles = {name: (lines[name].get_marker(), str(lines[name].get_linestyle()), lines[name].get_color()) for name in ESTIMATORS}
    assert len(set(style[0] for style in styles.values())) == 5
    assert len(set(style[1] for style in styles.values())) >= 4
    assert len(set(style[2] for style in styles.values())) == 5
    assert styles["histogram"][0] != styles["miller_madow"][0] and styles["histogram"][1] != styles["miller_madow"][1]
    note = axis.get_legend().get_title().get_text()
    assert note == "miller_madow on histogram"
    assert drawn.notes == ["synergy attack, I(y_k; z_k): miller_madow overlaps histogram (max gap 0.005 nats)"]


def test_figure_uses_the_shared_style():
    from reports.rendering.style import FONT_SIZE, IDEAL_STYLE, PALETTE

    table = _panel({"gaussian": [0.05, 0.5, 1.05], "knn": [0.0, 0.6, 1.1]})
    drawn = estimator_figures.estimator_figure(table, ["knn", "gaussian"])
    axis = drawn.figure.axes[0]
    lines = {line.get_label(): line for line in axis.get_lines()}
    assert lines["exact"].get_color() == IDEAL_STYLE["color"] and lines["exact"].get_linewidth() == IDEAL_STYLE["linewidth"]
    assert lines["knn"].get_color() == PALETTE[0] and lines["gaussian"].get_color() == PALETTE[1]  # the order given, not the table's
    assert axis.title.get_fontsize() == FONT_SIZE + 1


def test_workflow_uses_public_apis_only():
    """It reads the toy model through the registered scenarios, not the private attack module."""
    tree = ast.parse(Path(estimator_report.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any(name.startswith("scenarios._") or name == "scenarios.gaussian_toy" for name in imported), imported
    private = [node.names for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "scenarios"]
    assert not any(alias.name.startswith("_") for names in private for alias in names)
    assert "scenarios" in imported  # it does read the scenarios, through the package's public names


def test_an_alpha_outside_the_scenarios_range_is_a_usage_error(tmp_path, capsys):
    assert main(["estimators", "--out", str(tmp_path), "--n", "100", "--alphas", "-1", "--estimators", "gaussian"]) == 2
    # named as the user named it, not as "grid of scenario 'gaussian_toy_redundancy'", which the user never named
    assert capsys.readouterr().err.strip() == "error: alphas: alpha must be in [0, 1000], got -1.0"
    assert not (tmp_path / "study").exists()


def test_figure_has_no_empty_panel_for_a_quantity_no_estimator_estimates():
    # histogram and Miller-Madow read one code column: only I(y_k; z_k) has rows, so only its panels are drawn
    table = pd.concat([_panel({"histogram": [1.0, 1.5, 2.0], "miller_madow": [0.9, 1.4, 1.9]}),
                       _panel({"histogram": [1.0, 1.0, 1.0], "miller_madow": [0.9, 0.9, 0.9]}).assign(attack="redundancy")])
    figure = estimator_figures.estimator_figure(table).figure
    assert [axis.get_title(loc="left") for axis in figure.axes] == ["synergy attack: I(y_k; z_k)",
                                                                    "redundancy attack: I(y_k; z_k)"]
    for axis in figure.axes:
        assert {line.get_label() for line in axis.get_lines()} == {"exact", "histogram", "miller_madow"}


def test_figure_shows_the_exact_value_of_a_single_alpha():
    table = _panel({"knn": [0.6]}, alphas=(1.0,), exact=(0.5,))
    (axis,) = estimator_figures.estimator_figure(table).figure.axes[:1]
    (exact,) = [line for line in axis.get_lines() if line.get_label() == "exact"]
    assert list(exact.get_ydata()) == [0.5] and exact.get_marker() not in ("None", "", None)


def test_a_repeated_alpha_or_estimator_is_named(tmp_path, capsys):
    base = ["estimators", "--out", str(tmp_path), "--n", "100"]
    assert main([*base, "--alphas", "1", "0.5", "1.0", "--estimators", "gaussian"]) == 2
    assert capsys.readouterr().err.strip() == "error: alphas lists 1 twice"
    assert main([*base, "--alphas", "1", "--estimators", "knn", "gaussian", "knn"]) == 2
    assert capsys.readouterr().err.strip() == "error: estimators lists knn twice"


def test_alphas_and_estimators_take_commas_as_the_other_commands_lists_do(tmp_path):
    out = tmp_path / "commas"
    assert main(["estimators", "--out", str(out), "--n", "100", "--alphas", "0,1", "4", "--estimators", "gaussian,knn",
                 "histogram"]) == 0
    table = pd.read_csv(out / "estimator_report.csv")
    assert sorted(set(table["alpha"])) == [0.0, 1.0, 4.0]
    assert list(dict.fromkeys(table["estimator"])) == ["knn", "gaussian", "histogram"]  # in ESTIMATORS' order
    assert main(["estimators", "--out", str(out), "--alphas", "0,x"]) == 2


@pytest.mark.slow
def test_the_probes_show_a_progress_bar_on_stderr_unless_told_not_to(tmp_path, capsys):
    args = ["estimators", "--n", "100", "--alphas", "0", "1", "--estimators", "gaussian"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    captured = capsys.readouterr()
    assert "estimator probes: 100%" in captured.err and "4/4" in captured.err  # 2 attacks x 2 alphas
    assert "%|" not in captured.out
    assert main([*args, "--out", str(tmp_path / "b"), "--no-progress"]) == 0
    assert "%|" not in capsys.readouterr().err


@pytest.mark.slow
def test_summary_says_it_is_the_largest_error_over_every_draw(tmp_path, capsys):
    args = ["estimators", "--n", "100", "--alphas", "1", "--estimators", "gaussian", "--no-progress"]
    assert main([*args, "--out", str(tmp_path / "one")]) == 0
    assert capsys.readouterr().out.startswith("largest |estimate - exact| (nats) over attacks and alphas:\n")
    assert main([*args, "--out", str(tmp_path / "two"), "--seeds", "2"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("largest |estimate - exact| (nats) over attacks, alphas and draws:\n")
    table = pd.read_csv(tmp_path / "two" / "estimator_report.csv")
    largest = table.loc[table["quantity"] == "code", "error"].abs().max()  # of either draw, not of their mean
    assert f"gaussian   {largest:.4f}" in printed


@pytest.mark.parametrize("n", ["0", "5"])
def test_too_few_samples_get_one_message_whatever_their_number(n, tmp_path, capsys):
    # --n 0 said "a whole number >= 1" and --n 5 "n must be at least 10"
    assert main(["estimators", "--out", str(tmp_path), "--n", n]) == 2
    assert f"argument --n: expected a whole number >= 10, got {n}" in capsys.readouterr().err
