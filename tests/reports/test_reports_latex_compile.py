"""The LaTeX tables of a report compile with a standard TeX distribution and fit the text width.

Needs ``pdflatex`` with booktabs, amssymb, adjustbox and longtable (Debian:
``texlive-latex-recommended texlive-latex-extra``); skipped, saying so, without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

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
