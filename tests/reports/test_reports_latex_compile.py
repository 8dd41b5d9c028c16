"""The LaTeX tables of a report compile with a standard TeX distribution and fit the text width.

Needs ``pdflatex`` with booktabs, amssymb, adjustbox and longtable (Debian:
``texlive-latex-recommended texlive-latex-extra``); skipped, saying so, without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pandas as pd
import pytest

from reports.latex import to_latex

pytestmark = pytest.mark.slow

PREAMBLE = ("\\documentclass{article}\n\\usepackage[a4paper,margin=2.5cm]{geometry}\n"
            "\\usepackage{booktabs,amssymb,adjustbox,longtable}\n\\begin{document}\n")


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
MEASURING = ("\\documentclass{article}\n\\usepackage{booktabs,amssymb,adjustbox,longtable}\n"
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
                            "perfect ≥ 0.9": ["✓ 1.00", "✗ 0.899"], "random ≤ 0.1": ["✓ 0.01", "✓ 0.00"],
                            "Worst at": [f"{name}, noise", "mig, noise"]})
    line, natural, log = _compiled(tmp_path, {"short": to_latex(display, caption="Calibration", label="calibration")})
    assert len(name) == 80 and natural["short"] <= line / 0.8, natural
