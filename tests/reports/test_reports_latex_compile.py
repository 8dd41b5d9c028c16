"""The LaTeX tables of a report compile with a standard TeX distribution and fit the text width.

Needs ``pdflatex`` with booktabs, amssymb, adjustbox, array and longtable (Debian:
``texlive-latex-recommended texlive-latex-extra``); skipped, saying so, without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pandas as pd
import pytest

from reports.rendering.latex import to_latex

pytestmark = pytest.mark.slow

PREAMBLE = ("\\documentclass{article}\n\\usepackage[a4paper,margin=2.5cm]{geometry}\n"
            "\\usepackage{booktabs,amssymb,adjustbox,longtable,array}\n\\begin{document}\n")


def test_every_table_compiles_and_fits_the_line(tmp_path, synthetic_report):
    if shutil.which("pdflatex") is None:
        pytest.skip("no pdflatex installed (apt-get install texlive-latex-recommended texlive-latex-extra)")
    run_dir, _ = synthetic_report
    tables = sorted((run_dir / "tables").glob("*.tex"))
    assert len(tables) >= 8
    for table in tables:
        shutil.copy(table, tmp_path / table.name)
    body = "\n".join(f"\\input{{{table.stem}}}\n\\clearpage" for table in tables)
    (tmp_path / "doc.tex").write_text(PREAMBLE + body + "\n\\end{document}\n", encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    log = (tmp_path / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, log[-2000:]
    # a table wider than the line shows as an overfull box in an alignment; a long word in a narrow
    # wrapping column may stick out by a few points, never by more than 10
    too_wide = [float(points) for points in re.findall(r"Overfull \\hbox \((\d+\.?\d*)pt too wide\) in alignment", log)]
    assert too_wide == [], too_wide
    sticking = [float(points) for points in re.findall(r"Overfull \\hbox \((\d+\.?\d*)pt too wide\)", log)]
    assert max(sticking, default=0.0) <= 10.0


#: The article class's own line (345 pt), and an adjustbox that reports its content's natural width instead of scaling it.
MEASURING = ("\\documentclass{article}\n\\usepackage{booktabs,amssymb,adjustbox,longtable,array}\n"
             "\\renewenvironment{adjustbox}[1]{\\setbox0\\hbox\\bgroup}{\\egroup\\typeout{NATURAL=\\the\\wd0}\\box0}\n"
             "\\begin{document}\n\\typeout{LINE=\\the\\linewidth}\n")


def _compiled(directory, tables: dict[str, str]) -> tuple[float, dict[str, float], str]:
    """Compile ``tables`` (name -> LaTeX) on an article page: its line width, each tabular's natural width, the log."""
    if shutil.which("pdflatex") is None:
        pytest.skip("no pdflatex installed (apt-get install texlive-latex-recommended texlive-latex-extra)")
    body = ""
    for name, tex in tables.items():
        (directory / f"{name}.tex").write_text(tex, encoding="utf-8")
        body += f"\\typeout{{TABLE={name}}}\\input{{{name}}}\n\\clearpage\n"
    (directory / "measure.tex").write_text(MEASURING + body + "\\end{document}\n", encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "measure.tex"], cwd=directory,
                          capture_output=True, text=True, timeout=120)
    log = (directory / "measure.log").read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, log[-2000:]
    line = float(re.search(r"LINE=([\d.]+)pt", log).group(1))
    natural = {name: float(width) for name, width in re.findall(r"TABLE=(\S+)(?:(?!TABLE=).)*?NATURAL=([\d.]+)pt", log,
                                                                   flags=re.DOTALL)}
    return line, natural, log


def test_the_headline_and_property_matrix_fit_an_article_line_unscaled(tmp_path, realistic_report):
    # every cell held its verdict, numbers and threshold: the matrix was 1567 pt wide on a 345 pt line (22 %)
    directory = realistic_report.parent / "tables"
    tables = {name: (directory / f"{name}.tex").read_text(encoding="utf-8") for name in ("property_matrix", "headline")}
    line, natural, log = _compiled(tmp_path, tables)
    for name, width in natural.items():  # a table is printed at >= 80 % (scaled to the line); a longtable is never
        assert width <= line / 0.8, f"{name} is {width:.0f} pt wide on a {line:.0f} pt line"
    assert re.findall(r"Overfull \\hbox \((\d+\.?\d*)pt too wide\) in alignment", log) == []  # the longtable must not overflow
    rows = [row for row in tables["property_matrix"].splitlines() if row.endswith("\\\\") and "rotatebox" not in row]
    marks = [cell.strip(" \\") for row in rows[:-1] for cell in row.split(" & ")[2:]]
    assert marks and max(len(cell) for cell in marks) <= len("$\\checkmark$"), marks  # the mark alone
    assert "tables/property\\_matrix.csv" in tables["property_matrix"]  # the caption says where the numbers are


def test_a_long_metric_name_wraps_instead_of_shrinking_a_short_table(tmp_path):
    # an 80-character user metric's name set the width of every short table: 40 % of the line
    name = "my_package.my_module:" + "_".join(["a_rather_long_user_metric_name"] * 2)[:59]
    display = pd.DataFrame({"Metric": [name, "mig"], "Family": ["information"] * 2, "Passing": ["1 of 1", "0 of 1"],
                            "perfect ≥ 0.9": ["✓ 1.00", "✗ 0.899"], "-0.1 ≤ random ≤ 0.1": ["✓ 0.01", "✓ 0.00"],
                            "Worst at": [f"{name}, noise", "mig, noise"]})
    line, natural, log = _compiled(tmp_path, {"short": to_latex(display, caption="Calibration", label="calibration")})
    assert len(name) == 80 and natural["short"] <= line / 0.8, natural


#: A two-column page (a line of about 240 pt) whose wrapping cells (array's ``p`` columns) trace their line breaking
#: into the log; longtables, which need one column, are set between ``\onecolumn`` and ``\twocolumn``.
TWO_COLUMN = ("\\documentclass[twocolumn]{article}\n\\usepackage[a4paper,margin=2cm]{geometry}\n"
              "\\usepackage{booktabs,amssymb,adjustbox,longtable,array}\n\\makeatletter\n"
              "\\let\\tracedpbox\\@startpbox\\def\\@startpbox#1{\\tracedpbox{#1}\\tracingparagraphs=1 }\n"
              "\\makeatother\n\\begin{document}\n")


def broken_words(log: str) -> list[str]:
    """The lines of traced paragraphs that end inside a word, each as the log prints its last characters.

    ``\\tracingparagraphs`` prints, per pass of the line breaker, every feasible break (``@\\discretionary via @@2``: at
    a hyphen, ``@\\penalty``: at an ``\\allowbreak``, ``@ via``: at a space) and the node it makes (``@@3: line 1.2
    t=3176 -> @@0``: its total demerits and the node before it).  The breaks TeX chose are the path back from the
    ``\\par`` node of least demerits; a line ending at a hyphen, or at a penalty but after the ``/`` of a
    ``metric/sub_score``, ends inside a word.
    """
    broken = []
    for block in re.split(r"^@(?:first|second|emergency)pass$", log, flags=re.MULTILINE)[1:]:
        nodes: dict[int, tuple[str, str, int, int]] = {}  # node -> (kind, end of its line, total demerits, previous)
        kind, text, ending = "", [], None
        for line in block.splitlines():
            via = re.match(r"@(\S*) via @@\d+", line)
            made = re.match(r"@@(\d+): line \S+ t=(\d+) -> @@(\d+)", line)
            if via:
                kind = via.group(1)
                ending = ending if ending is not None else " ".join(text)[-40:]
            elif made:
                nodes[int(made.group(1))] = (kind, ending or "", int(made.group(2)), int(made.group(3)))
                text, ending = [], None
            elif line.strip():
                text.append(line.strip())
        ends = [node for node, (kind, _, _, _) in nodes.items() if kind == "\\par"]
        node = min(ends, key=lambda end: nodes[end][2], default=0)
        while node:
            kind, ending, _, node = nodes[node]
            if kind == "\\discretionary" or kind == "\\penalty" and not ending.endswith("/"):
                broken.append(ending)
    return broken


def _two_column_log(directory, tables: dict[str, str]) -> str:
    """Compile ``tables`` (name -> LaTeX) on a two-column page (:data:`TWO_COLUMN`) and return the log."""
    if shutil.which("pdflatex") is None:
        pytest.skip("no pdflatex installed (apt-get install texlive-latex-recommended texlive-latex-extra)")
    body = ""
    for name, tex in tables.items():
        (directory / f"{name}.tex").write_text(tex, encoding="utf-8")
        body += (f"\\onecolumn\\input{{{name}}}\\twocolumn\n" if "longtable" in tex else f"\\input{{{name}}}\n") + "\\clearpage\n"
    (directory / "doc.tex").write_text(TWO_COLUMN + body + "\\end{document}\n", encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=directory,
                          capture_output=True, text=True, timeout=120)
    log = (directory / "doc.log").read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, log[-2000:]
    return log


def test_the_trace_finds_a_word_broken_at_a_hyphen_or_an_allowbreak(tmp_path):
    # how the calibration table broke words in a two-column paper: columns narrower than their words, hyphenated
    # (\hspace{0pt}: TeX hyphenates no first word of a paragraph) or broken at an \allowbreak
    narrow = ("\\begin{tabular}{p{2.2em}p{2.2em}}\n\\hspace{0pt}intervention & dci\\_\\allowbreak{}lasso \\\\\n"
              "compactness, noise & random \\\\\npid/\\allowbreak{}complementary & \\\\\n\\end{tabular}\n")
    broken = broken_words(_two_column_log(tmp_path, {"narrow": narrow}))
    assert any(end.endswith("-") for end in broken) and any(end.endswith("dci[]") for end in broken), broken
    assert not any(end.endswith("/") for end in broken)  # a metric/sub_score broken after its / is two words


#: A calibration table as the report writes it, with the names a two-column paper broke and a user metric's long one.
CALIBRATION = pd.DataFrame({
    "Metric": ["dci_lasso", "unibound", "minimality_sufficiency", "my_package.my_module:a_rather_long_user_metric"],
    "Family": ["predictor", "information", "information", "intervention"],
    "Passing": ["1 of 3", "1 of 1", "2 of 2", "0 of 1"],
    "perfect ≥ 0.9": ["✓ 1.00", "✓ 1.00", "✓ 1.00", "≈ 0.75 [0.51, 0.98]"],
    "-0.1 ≤ random ≤ 0.1": ["≈ 0.18 [0.00, 1.00]", "✓ 0.02", "✓ 0.02", "✓ 0.00 [0.00, 0.05]"],
    "Worst at": ["compactness, noise", "unibound, noise", "minimality, noise", "explicitness, noise"]})


def test_a_calibration_table_keeps_its_words_whole_in_a_two_column_paper(tmp_path):
    # "ran-dom", "uni-bound", "dci_ lasso": wrapping columns sized as fractions of a 345 pt line, hyphenated on 240 pt
    log = _two_column_log(tmp_path, {"calibration": to_latex(CALIBRATION, caption="Calibration", label="calibration")})
    broken = broken_words(log)
    pieces = {"my[]", "package.", "module:", "a[]", "rather[]", "long[]", "user[]"}  # of the 46-character name alone
    assert {end.split()[-1] for end in broken} <= pieces, broken
    assert not re.findall(r"Overfull \\hbox", log)  # and no word sticks out of its column


def test_every_table_keeps_its_words_whole_in_a_two_column_paper(tmp_path, realistic_report):
    directory = realistic_report.parent / "tables"
    tables = {path.stem: path.read_text(encoding="utf-8") for path in sorted(directory.glob("*.tex"))}
    log = _two_column_log(tmp_path, tables)
    assert broken_words(log) == []
    sticking = [float(points) for points in re.findall(r"Overfull \\hbox \((\d+\.?\d*)pt too wide\)", log)]
    assert max(sticking, default=0.0) <= 10.0
