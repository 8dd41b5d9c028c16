"""plot: a comparison figure from an existing run, in PNG, SVG or PDF, running no metric, laid out as asked."""

from __future__ import annotations

import argparse
import json
import re
import struct

import pandas as pd
import pytest

import harness.execution.scoring
from harness.cli import main
from harness.execution.runner import run_study

MAGIC = {"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-", "svg": b"<?xml"}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    run_study(preset="quick", scenarios_=["noise", "mixing"], metrics_=["mig", "modularity"], seeds=2, n_samples=300,
              out=out, progress=False, log=lambda _: None)
    return out


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_each_format_is_written(run_dir, tmp_path, fmt, capsys, monkeypatch):
    monkeypatch.setattr(harness.execution.scoring, "run_task", lambda *args: pytest.fail("plot must not run a metric"))
    out = tmp_path / f"figure.{fmt}"
    assert main(["plot", str(run_dir), "--metrics", "mig", "--scenarios", "noise", "--format", fmt, "--out", str(out)]) == 0
    assert out.read_bytes().startswith(MAGIC[fmt])
    assert f"figure written to {out}" in capsys.readouterr().out
    assert b"/Type3" not in out.read_bytes()  # a PDF's fonts are TrueType (Type 42)


def test_format_follows_the_suffix_and_default_location(run_dir, tmp_path):
    assert main(["plot", str(run_dir), "--out", str(tmp_path / "all.svg")]) == 0
    svg = (tmp_path / "all.svg").read_text()
    assert svg.startswith("<?xml") and "<svg" in svg
    assert main(["plot", str(run_dir)]) == 0
    assert (run_dir / "comparison.png").read_bytes().startswith(MAGIC["png"])


def test_more_scenarios_make_more_panels(run_dir, tmp_path):
    for scenarios in ("noise", "noise,mixing"):
        assert main(["plot", str(run_dir), "--scenarios", scenarios, "--format", "svg",
                     "--out", str(tmp_path / f"{scenarios}.svg")]) == 0
    one, two = ((tmp_path / f"{s}.svg").read_text() for s in ("noise", "noise,mixing"))
    assert two.count('id="axes_') == 2 * one.count('id="axes_') > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--metrics", "nope"], "unknown metric(s) ['nope']; the results have mig, modularity\n"),  # names, not a repr
        (["--scenarios", "rotation"], "unknown scenario(s) ['rotation']"),
        (["--out", "figure.txt"], "cannot tell the format of"),
        (["--format", "gif"], "invalid choice: 'gif'"),
        (["--format", "pdf", "--out", "figure.png"], "--format pdf contradicts --out 'figure.png'"),
        (["--width", "0"], "argument --width: expected a width in inches from 1 to 16.5, got 0"),
        (["--width", "0.01"], "argument --width: expected a width in inches from 1 to 16.5, got 0.01"),
        (["--width", "nan"], "argument --width: expected a width in inches from 1 to 16.5, got nan"),
        (["--font-size", "1"], "argument --font-size: expected a font size in points from 4 to 24, got 1"),
        (["--font-size", "1000"], "argument --font-size: expected a font size in points from 4 to 24, got 1000"),
        (["--font-size", "big"], "argument --font-size: expected a font size in points, got 'big'"),
        (["--width", "wide"], "argument --width: expected column, page or a width in inches, got 'wide'"),
        (["--rename", "mig"], "argument --rename: expected OLD=NEW, got 'mig'"),
        (["--rename", "mgi=MIG"], "rename ['mgi'] names no label of the figure and nothing of the results; the figure's labels are"),
        (["--rename", "mig=MI,modularity=MI"], "rename gives the lines mig and modularity one label, 'MI'"),
        (["--layout", "diagonal"], "invalid choice: 'diagonal'"),
        (["--ncols", "0"], "argument --ncols"),
        (["--band", "iqr"], "invalid choice: 'iqr'"),
        (["--metrics", "mig/nope"], "unknown metric(s) ['mig/nope']"),
    ],
)
def test_bad_input_is_one_line_exit_2(run_dir, argv, message, capsys):
    assert main(["plot", str(run_dir), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_missing_run_is_exit_2(tmp_path, capsys):
    assert main(["plot", str(tmp_path)]) == 2  # a folder without results
    err = capsys.readouterr().err
    assert "no results in" in err and "it does not exist" not in err
    assert main(["plot", str(tmp_path / "nothing")]) == 2
    err = capsys.readouterr().err
    assert "no results in" in err and "it does not exist" in err  # not only "expected results.parquet or results.csv"


def test_help(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["plot", "--help"])
    assert exited.value.code == 0 and "RUN_DIR" in capsys.readouterr().out


def test_a_misspelled_name_gets_the_closest_ones(run_dir, capsys):
    # the README: "a misspelled name gets the closest known ones"
    assert main(["plot", str(run_dir), "--metrics", "mgi", "--scenarios", "noise"]) == 2
    err = capsys.readouterr().err
    assert "unknown metric(s) ['mgi'] (did you mean mig?)" in err and err.count("\n") == 1
    assert main(["plot", str(run_dir), "--scenarios", "nois"]) == 2
    assert "(did you mean noise?)" in capsys.readouterr().err


def test_format_and_suffix_that_disagree_write_nothing(run_dir, tmp_path):
    # a PDF written to figure.png would not open as a PNG
    out = tmp_path / "figure.png"
    assert main(["plot", str(run_dir), "--format", "pdf", "--out", str(out)]) == 2
    assert not out.exists()
    assert main(["plot", str(run_dir), "--format", "pdf", "--out", str(tmp_path / "figure.PDF")]) == 0


def test_panels_follow_the_order_of_scenarios(run_dir, tmp_path):
    # an author lays out a figure in the order they name the scenarios, not alphabetically
    for order in ("noise,mixing", "mixing,noise"):
        out = tmp_path / f"{order}.svg"
        assert main(["plot", str(run_dir), "--metrics", "mig", "--scenarios", order, "--out", str(out)]) == 0
        svg = out.read_text()
        first, second = order.split(",")
        assert 0 < svg.index(f"<!-- {first} -->") < svg.index(f"<!-- {second} -->")  # the panel titles


def test_a_variant_of_a_two_option_sweep_can_be_chosen(run_dir, tmp_path, capsys):
    # --metric-option mig:bins=5,20 --metric-option mig:normalization=factor,code names variants with a comma
    # inside the brackets, which --metrics split into 'mig[bins=5' and 'normalization=code]'
    from harness.workflows.run_results import load_run_results

    results = load_run_results(run_dir)
    swept = results.loc[results["metric"] == "mig"]
    variants = [swept.assign(metric=f"mig[bins={bins},normalization=code]") for bins in (5, 20)]
    (tmp_path / "swept").mkdir()
    pd.concat([results, *variants], ignore_index=True).to_parquet(tmp_path / "swept" / "results.parquet")
    out = tmp_path / "variants.png"
    chosen = "mig[bins=5,normalization=code], mig[bins=20,normalization=code]"
    assert main(["plot", str(tmp_path / "swept"), "--metrics", chosen, "--out", str(out)]) == 0, capsys.readouterr().err
    assert out.read_bytes().startswith(MAGIC["png"])


def test_composed_and_user_scenarios_are_named_as_run_takes_them(tmp_path, capsys):
    """``run --scenarios 'redundancy_attack@noise=.1,nonlinear@FILE.py:leaky=0.5'`` writes its rows as
    ``redundancy_attack@noise=0.1`` and ``nonlinear@leaky=0.5``; plot refused the spellings run had taken."""
    user_file = tmp_path / "mine.py"
    user_file.write_text(
        "from scenarios import describe_scenario\n"
        "@describe_scenario(parameter='leak', values=(0.0, 0.5), ideal={'explicitness': 1.0})\n"
        "def leaky(leak, n, rng):\n"
        "    factors = rng.random((n, 3))\n"
        "    return factors, factors + leak * factors[:, [1, 2, 0]]\n")
    references = ["redundancy_attack@noise=.1", f"nonlinear@{user_file}:leaky=0.5"]
    run_study(scenarios_=references, metrics_=["mig"], seeds=1, n_samples=200, out=tmp_path / "run", progress=False,
              log=lambda _: None)
    out = tmp_path / "composed.svg"
    assert main(["plot", str(tmp_path / "run"), "--scenarios", ",".join(references), "--out", str(out)]) == 0, \
        capsys.readouterr().err
    svg = out.read_text()
    assert 0 < svg.index("<!-- redundancy_attack@noise=0.1 -->") < svg.index("<!-- nonlinear@leaky=0.5 -->")
    assert main(["plot", str(tmp_path / "run"), "--scenarios", "redundancy_attack@noise=.2"]) == 2
    assert "did you mean redundancy_attack@noise=0.1" in capsys.readouterr().err


def png_width(path) -> int:
    return struct.unpack(">I", path.read_bytes()[16:20])[0]


def test_width_layout_letters_font_and_renames_reach_the_figure(run_dir, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    saved = []
    original = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda self, *args, **kwargs: saved.append(self) or original(self, *args, **kwargs))
    out = tmp_path / "column.png"
    assert main(["plot", str(run_dir), "--width", "column", "--out", str(out)]) == 0
    assert png_width(out) == 650  # 3.25 inches at 200 dpi
    assert main(["plot", str(run_dir), "--width", "4.5", "--out", str(out)]) == 0 and png_width(out) == 900
    (tmp_path / "names.json").write_text(json.dumps({"mig": "MIG (bins = 20)", "noise": "additive noise"}))
    svg = tmp_path / "paper.svg"
    assert main(["plot", str(run_dir), "--metrics", "mig", "--layout", "columns", "--panel-letters", "--font-size", "9",
                 "--rename-file", str(tmp_path / "names.json"), "--rename", "mixing=mixing map,noise=noise (a)",
                 "--band", "sd", "--out", str(svg)]) == 0
    text = svg.read_text()
    for shown in ("<!-- (a) mixing map -->", "<!-- (b) noise (a) -->", "<!-- MIG (bins = 20) -->",
                  "band: ± one standard deviation"):
        assert shown in text, shown
    assert saved[-1].axes[0].title.get_fontsize() == 10 and saved[-1].axes[0].xaxis.label.get_fontsize() == 9


def test_a_bad_rename_file_is_one_line_exit_2(run_dir, tmp_path, capsys):
    for content, message in (("{", "is not JSON"), ("[1, 2]", "must hold one JSON object of strings")):
        (tmp_path / "names.json").write_text(content)
        assert main(["plot", str(run_dir), "--rename-file", str(tmp_path / "names.json")]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
    assert main(["plot", str(run_dir), "--rename-file", str(tmp_path / "absent.json")]) == 2
    assert "cannot be read" in capsys.readouterr().err


def test_a_swept_metric_suggests_its_variants_and_a_sub_score_can_be_drawn(run_dir, tmp_path, capsys):
    # plot --metrics mig on a run whose MIG is swept suggested 'rmig or jemmig or dcimig'
    from harness.workflows.run_results import load_run_results

    results = load_run_results(run_dir)
    mig = results.loc[results["metric"] == "mig"]
    variants = [mig.assign(metric=f"mig[bins={bins}]") for bins in (5, 10)]
    others = results.loc[results["metric"] != "mig"]
    (tmp_path / "swept").mkdir()
    pd.concat([others, *variants, others.assign(metric="rmig")], ignore_index=True).to_parquet(
        tmp_path / "swept" / "results.parquet")
    assert main(["plot", str(tmp_path / "swept"), "--metrics", "mig"]) == 2
    err = capsys.readouterr().err
    # it said "unknown metric(s) ['mig'] (did you mean ...?); the results have mig, ..."
    assert err == ("error: metric 'mig' was swept without its default options, so it names none of its variants: name "
                   "one or more of mig[bins=10], mig[bins=5]\n")
    out = tmp_path / "one.svg"
    assert main(["plot", str(tmp_path / "swept"), "--metrics", "mig[bins=5],modularity/modularity",
                 "--out", str(out)]) == 2  # modularity has one sub-score: it is named as the metric
    assert "did you mean modularity" in capsys.readouterr().err


def test_the_command_line_offers_what_the_figure_takes():
    from harness.cli import plot
    from reports.rendering import comparison, figures

    assert plot.WIDTHS == comparison.WIDTHS and plot.LAYOUTS == comparison.LAYOUTS and plot.BANDS == figures.BANDS
    assert plot.WIDTH_RANGE == comparison.WIDTH_RANGE and plot.FONT_SIZE_RANGE == comparison.FONT_SIZE_RANGE


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    run_study(preset="quick", scenarios_=["null_gaussian"], metrics_=["mig", "modularity"], seeds=1,
              grids={"null_gaussian": {"width_ratio": [1, 2], "n_samples": [50, 100]}}, out=out, progress=False,
              log=lambda _: None)
    return out


def test_phase_draws_a_sweep_and_bad_requests_are_one_line_exit_2(sweep_dir, tmp_path, capsys):
    out = tmp_path / "phase.svg"
    assert main(["plot", str(sweep_dir), "--phase", "null_gaussian", "--metrics", "mig", "--phase-value", "distance",
                 "--width", "3.25", "--out", str(out)]) == 0
    assert out.read_bytes().startswith(MAGIC["svg"]) and out.read_text().count("<image") == 2  # a panel and its bar
    assert main(["plot", str(sweep_dir), "--phase", "null_gaussian", "--scenarios", "null_gaussian"]) == 2
    assert "leave out --scenarios" in capsys.readouterr().err
    assert main(["plot", str(sweep_dir), "--phase", "noise"]) == 2
    assert "they hold ['null_gaussian']" in capsys.readouterr().err



def test_phase_prints_the_figures_notes(sweep_dir, tmp_path, capsys):
    import pandas as pd

    results = pd.read_parquet(sweep_dir / "results.parquet")
    results.loc[results["metric"] == "mig", "score"] = 1.3  # off the colour scale: drawn at its end, and said
    run = tmp_path / "run"
    run.mkdir()
    results.to_parquet(run / "results.parquet")
    assert main(["plot", str(run), "--phase", "null_gaussian", "--metrics", "mig", "--out", str(tmp_path / "p.png")]) == 0
    assert "note: mig reaches 1.30 (drawn at the scale's end)." in capsys.readouterr().err

def _line_colours(svg: str, metric: str) -> set[str]:
    """The stroke colours of ``metric``'s lines in an SVG the reports drew (their ids are
    :func:`reports.rendering.figures.line_id`)."""
    return set(re.findall(rf'<g id="score:{re.escape(metric)}/[^"]*">\s*<path [^>]*?stroke: (#[0-9a-f]{{6}})', svg))


@pytest.mark.slow  # a whole study or report, several times (fast tier: issue 37)
def test_two_plots_and_the_report_draw_mig_in_one_colour(run_dir, tmp_path):
    # a paper keeps one colour per metric: the report's figures, and plot calls drawing different metrics
    report_dir = tmp_path / "report"
    assert main(["report", str(run_dir), "--out", str(report_dir), "--figure-formats", "svg", "--jobs", "1"]) == 0
    svgs = sorted((report_dir / "figures").glob("*.svg"))
    in_report = set().union(*(_line_colours(path.read_text(), "mig") for path in svgs))
    alone, together = tmp_path / "alone.svg", tmp_path / "together.svg"
    assert main(["plot", str(run_dir), "--metrics", "mig", "--out", str(alone)]) == 0
    assert main(["plot", str(run_dir), "--metrics", "modularity,mig", "--scenarios", "mixing", "--out", str(together)]) == 0
    assert len(in_report) == 1 and _line_colours(alone.read_text(), "mig") == _line_colours(together.read_text(), "mig") == in_report
    # --colors fixes it, in a plot and in the report
    black = tmp_path / "black.svg"
    assert main(["plot", str(run_dir), "--metrics", "modularity,mig", "--colors", "mig=#000000", "--out", str(black)]) == 0
    assert _line_colours(black.read_text(), "mig") == {"#000000"}
    assert _line_colours(black.read_text(), "modularity") and "#000000" not in _line_colours(black.read_text(), "modularity")
    palette = tmp_path / "colours.txt"
    palette.write_text("mig=#000000\n")
    assert main(["report", str(run_dir), "--out", str(tmp_path / "black_report"), "--figure-formats", "svg", "--jobs", "1",
                 "--colors", str(palette)]) == 0
    drawn = set().union(*(_line_colours(path.read_text(), "mig") for path in (tmp_path / "black_report" / "figures").glob("*.svg")))
    assert drawn == {"#000000"}


def test_a_bad_colour_is_one_line_exit_2(run_dir, capsys):
    assert main(["plot", str(run_dir), "--colors", "mig=notacolour"]) == 2
    assert "colour 'notacolour' of 'mig' is not a colour" in capsys.readouterr().err


def test_an_unknown_metric_lists_the_metrics_once_each():
    # the listing named every metric/sub_score pair (3468 characters on the default study); now each metric once
    from harness.cli.plot import _check_names
    from harness.errors import UsageError

    results = pd.DataFrame({"metric": ["dci_rf"] * 3 + ["mig"], "sub_score": ["modularity", "compactness", "explicitness", "mig"],
                            "scenario": "noise"}).assign(metric_base=lambda frame: frame["metric"])
    with pytest.raises(UsageError) as raised:
        _check_names(results, ["nope"], None)
    assert str(raised.value).endswith("the results have dci_rf, mig; a metric of several sub-scores also as metric/sub_score")
    _check_names(results, ["dci_rf/compactness", "mig"], None)  # both selectable


def test_options_that_would_change_nothing_are_one_line_exit_2(run_dir, sweep_dir, tmp_path, capsys):
    # each was accepted and ignored, or refused for another reason than its own
    cases = [
        ([str(sweep_dir), "--phase", "null_gaussian", "--band", "sd"], "--band does not apply to them; leave it out"),
        ([str(sweep_dir), "--phase", "null_gaussian", "--layout", "grid", "--colors", "mig=#000000"],
         "--layout and --colors do not apply to them; leave them out"),
        ([str(run_dir), "--phase-value", "distance"], "--phase-value colours a phase diagram's cells: it needs --phase"),
        ([str(run_dir), "--out", str(tmp_path)], f"--out {str(tmp_path)!r} is a directory: name the figure's file"),
        ([str(run_dir), "--colors", "mgi=#000000", "--out", str(tmp_path / "f.png")],
         "colours name metric(s) ['mgi'], neither registered nor the run's"),
        ([str(run_dir), "--colors", str(tmp_path / "palette.txt")], "is no pair, and no file by that name exists"),
    ]
    for argv, message in cases:
        assert main(["plot", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, (argv, err)
    assert not (tmp_path / "f.png").exists()


def test_report_and_run_refuse_colours_naming_no_metric_before_writing_anything(run_dir, tmp_path, capsys):
    assert main(["report", str(run_dir), "--out", str(tmp_path / "report"), "--colors", "mgi=#000000", "--jobs", "1"]) == 2
    assert "colours name metric(s) ['mgi'], neither registered nor the run's" in capsys.readouterr().err
    assert not (tmp_path / "report").exists()
    # run refuses them before the study (the report would refuse them after it); a user's metric is known by its name
    (tmp_path / "mine.py").write_text("def my_score(factors, codes):\n    return 0.5\n")
    argv = ["run", "--scenarios", "noise", "--metrics", f"mig,{tmp_path / 'mine.py'}:my_score", "--out", str(tmp_path / "r")]
    assert main([*argv, "--colors", "my_scor=#000000"]) == 2
    assert "['my_scor'], neither registered" in capsys.readouterr().err and not (tmp_path / "r").exists()
    from harness.cli.run import _check_colours

    _check_colours(argparse.Namespace(colors={"my_score": "#000000", "dci_rf": "#E69F00"}, add_metrics=None,
                                      metrics=["mig", f"{tmp_path / 'mine.py'}:my_score"]))
