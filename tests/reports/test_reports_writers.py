"""The text writers: LaTeX escaping and alignment, Markdown pipes, display formatting."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from reports.rendering.latex import LONG_ROWS, escape, to_latex
from reports.rendering.markdown import markdown_table, table_to_markdown
from reports.results.display import display_table, format_number


def test_latex_escapes_specials_and_translates_symbols():
    assert escape("a_b & 50% $x$ #1 {y} ~^\\") == (
        "a\\_b \\& 50\\% \\$x\\$ \\#1 \\{y\\} \\textasciitilde{}\\textasciicircum{}\\textbackslash{}")
    assert escape("✓ ρ 0.9 ≥ R² − 1 ± ✗") == "$\\checkmark$ $\\rho$ 0.9 $\\geq$ R$^2$ $-$ 1 $\\pm$ $\\times$"


def test_latex_table_alignment_and_rules():
    display = pd.DataFrame({"Metric": ["mig", "dci_rf"], "Score": ["0.50", "—"], "Ok": ["✓", "✗"]})
    tex = to_latex(display, caption="A & B", label="demo")
    assert "\\begin{tabular}{lrl}" in tex and "\\caption{A \\& B}" in tex and "\\begin{table}[t]" in tex
    lines = tex.splitlines()
    assert lines[lines.index("\\toprule") + 1] == "Metric & Score & Ok \\\\"
    assert "dci\\_rf & --- & $\\times$ \\\\" in lines


def test_a_long_table_keeps_numbers_right_aligned():
    rows = LONG_ROWS + 1
    display = pd.DataFrame({"Metric": [f"metric_{i}" for i in range(rows)], "Score": [f"{i / rows:.2f}" for i in range(rows)],
                            "Where": ["a long description of where it failed"] * rows})
    tex = to_latex(display, caption="Long", label="long")
    spec = re.search(r"\\begin\{longtable\}\{(.*)\}", tex).group(1)
    columns = re.findall(r">\{[^}]*\}p\{[0-9.]+\\linewidth\}|r|l", spec)
    assert columns[1] == "r" and "p{" in columns[0] and "p{" in columns[2], spec
    # the wrapping columns share what the numbers leave of the line
    assert sum(float(width) for width in re.findall(r"p\{([0-9.]+)\\linewidth\}", spec)) < 0.95


def test_markdown_escapes_pipes():
    text = table_to_markdown(pd.DataFrame({"a|b": ["x|y"], "c": ["1"]}))
    assert text.splitlines() == ["| a\\|b | c |", "| --- | --- |", "| x\\|y | 1 |"]


def test_terminal_tables_are_aligned_and_format_like_the_report():
    text = markdown_table(pd.DataFrame({"name": ["mig", "a|b"], "ok": [True, False], "x": [0.5, np.nan]}), digits=2)
    assert text.splitlines() == ["| name | ok  | x    |", "| ---- | --- | ---- |", "| mig  | ✓   | 0.50 |",
                                 "| a\\|b | ✗   | —    |"]


def test_number_formatting():
    assert [format_number(v) for v in (True, False, 3, 0.456, np.nan, -0.0, -0.001, 0.0004)] == [
        "✓", "✗", "3", "0.46", "—", "0.00", "0.00", "0.00"]
    assert format_number(0.0004, 3, scientific=True) == "4.00e-04" and format_number(0.0, 3, scientific=True) == "0.000"
    assert format_number(np.float64(0.12345), digits=3) == "0.123"
    table = display_table(pd.DataFrame({"x": [0.5], "y": ["s"], "z": [np.int64(2)]}), {"y": "Y", "x": "X"})
    assert table.columns.tolist() == ["Y", "X"] and table.iloc[0].tolist() == ["s", "0.50"]


def test_latex_negative_numbers_get_a_minus_sign_and_hyphens_stay():
    # text mode prints "-1.00" with a hyphen, shorter and higher than a minus sign (DCI-ES, Kendall's tau)
    assert escape("✓ 0.94 / -1.00") == "$\\checkmark$ 0.94 / $-$1.00"
    assert escape("complementary_lower (-0.15)") == "complementary\\_lower ($-$0.15)"
    assert escape("-.5 in [-1, 1]") == "$-$.5 in [$-$1, 1]"
    assert escape("k-NN, eqs. 9-10, 4.10e-04, dci-es-2") == "k-NN, eqs. 9-10, 4.10e-04, dci-es-2"
    assert escape("-inf, -information") == "$-$inf, -information"


def test_latex_keeps_row_labels_upright_and_takes_a_column_without_a_name():
    marks = pd.DataFrame({"metric": ["mig", "sap"] * 20, **{f"characteristic {i}": ["✓", "✗"] * 20 for i in range(40)}})
    spec = to_latex(marks, caption="c", label="l")
    heading = next(line for line in spec.splitlines() if "characteristic 0" in line)
    assert "\\rotatebox" in heading.split("&")[1] and "\\rotatebox" not in heading.split("&")[0]  # short names stay upright
    unnamed = pd.DataFrame({"": [f"row {i}" for i in range(LONG_ROWS + 5)], "b": ["x"] * (LONG_ROWS + 5)})
    assert "row 3" in to_latex(unnamed, caption="c", label="l")  # max() of no heading words raised


def test_a_long_table_too_wide_for_its_names_breaks_them_inside_rather_than_over_the_next_column():
    # the default study's headline: 'minimality_sufficiency/' (kept whole below 25 characters) stuck 26 pt out of its
    # column over the next one's text; a name's column now shrinks to its longest piece and the name breaks after _
    names = ["minimality_sufficiency/modularity", "pid/complementary_upper", "dci_lasso/compactness"] * 12
    wide = pd.DataFrame({"Sub-score": names, "Measures": ["compactness"] * len(names),
                         **{f"Criterion number {index}": ["✓ R² 0.95, slope 1.03 [1.01, 1.05]"] * len(names)
                            for index in range(6)}})
    assert len(wide) > LONG_ROWS
    text = to_latex(wide, caption="Headline", label="headline")
    assert "minimality\\_\\allowbreak{}sufficiency/\\allowbreak{}modularity" in text
    assert "compactness" in text and "compact\\_" not in text  # a word without _ . : / stays whole
    narrow = pd.DataFrame({"Sub-score": names, "Measures": ["compactness"] * len(names)})
    assert "minimality\\_sufficiency/\\allowbreak{}modularity" in to_latex(narrow, caption="Two columns", label="n")
