"""LaTeX tables with booktabs rules, ready to ``\\input`` in a paper.

A small writer of its own (no templating library).  The output needs
``\\usepackage{booktabs}``, ``\\usepackage{amssymb}`` (for ``\\checkmark``) and
``\\usepackage{adjustbox}`` (a table wider than the line is scaled down to it; one of
more than :data:`WIDE_COLUMNS` columns spans both columns of a two-column page),
``\\usepackage{array}`` where text wraps in its column, and for tables longer than
:data:`LONG_ROWS` rows ``\\usepackage{longtable}``: a ``longtable`` breaks across pages
with its header repeated, set in a small font with wrapping columns that share
``\\linewidth`` (longtable needs a one-column page).

Wrapping text breaks between words only: its columns are set ragged right and never
hyphenated, a ``metric/sub_score`` may break after its ``/``, and a name breaks inside
(after ``_ . :``) only when it is longer than :data:`LONG_WORD` characters (or, in a ``longtable`` too wide for its
names' longest words, than its column: :func:`_layout`), so that
``random``, ``unibound`` and ``dci_lasso`` stay whole in a two-column paper, where a
table's wrapping columns keep their widths in ems and the table is scaled to the
narrower line.
"""

from __future__ import annotations

import re

import pandas as pd

from reports.results.display import is_numeric_column

#: Characters with a meaning in LaTeX, and how to write them literally.
_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}
#: Unicode symbols of the display tables -> LaTeX.
_SYMBOLS = {
    "✓": r"$\checkmark$", "✗": r"$\times$", "—": "---", "−": "$-$", "±": r"$\pm$", "≥": r"$\geq$", "≤": r"$\leq$",
    "²": r"$^2$", "ρ": r"$\rho$", "τ": r"$\tau$", "|": r"$|$", "∈": r"$\in$", "×": r"$\times$", "≈": r"$\approx$",
    "→": r"$\to$", "·": r"$\cdot$", "α": r"$\alpha$", "…": r"\ldots{}", "≠": r"$\neq$", "θ": r"$\theta$",
}
#: Tables with more columns than this span the page (``table*``) and are scaled to fit.
WIDE_COLUMNS = 8
#: Tables with more rows than this become a ``longtable``.
LONG_ROWS = 30
#: Cells of at most this many characters (marks, a mark and a number): their column's heading may be turned.
SHORT_CELL = 10
#: The line width (pt) of LaTeX's article class, against which wrapping columns are sized.
_LINE_POINTS = 345.0
#: The size (pt) of each font size command of the article class at 10 pt: a line fraction in ems.
_SIZE_POINTS = {"\\small": 9.0, "\\scriptsize": 7.0}
#: Longest name (characters) kept whole: a longer one (a user metric's ``package.module:function``) may break after
#: ``_ . :``, as no column could hold it (any name may break after ``/``, between a metric and its sub-score).
LONG_WORD = 24
#: A wrapping column: ragged right, its words never hyphenated (``ran-dom``, ``uni-bound`` read as two words).
_WRAPPING = ">{\\raggedright\\arraybackslash\\hyphenpenalty=10000\\exhyphenpenalty=10000}p"
#: A hyphen that is a number's sign (``-1.00``, ``(-0.15)``, ``-inf``), not one inside a word or a range (``k-NN``, ``9-10``,
#: ``1e-04``): typeset as a minus sign, which text mode would print as a short hyphen.
_NEGATIVE = r"(?<![\w.])-(?=\.?\d|inf\b)"
_PATTERN = re.compile("|".join([_NEGATIVE] + [re.escape(key) for key in sorted({**_SPECIAL, **_SYMBOLS}, key=len, reverse=True)]))


def escape(text: str) -> str:
    """``text`` with LaTeX special characters escaped, report symbols translated and negative numbers given a minus sign."""
    table = {**_SPECIAL, **_SYMBOLS, "-": "$-$"}
    return _PATTERN.sub(lambda match: table[match.group(0)], str(text))


def _pieces(word: str, limit: int = LONG_WORD) -> list[str]:
    """The pieces of ``word`` that cannot break: it may break after a ``/`` (``metric/sub_score``), and a piece longer
    than ``limit`` (:data:`LONG_WORD`, or a narrower column's characters) after each ``_ . :``."""
    return [piece for part in re.split(r"(?<=/)", word) if part
            for piece in (re.split(r"(?<=[_.:])", part) if len(part) > limit else [part]) if piece]


def _breakable(cell: str, limit: int = LONG_WORD) -> str:
    """``cell`` escaped for a wrapping column: it may break between the pieces of each word (:func:`_pieces`)."""
    return " ".join("\\allowbreak{}".join(escape(piece) for piece in _pieces(word, limit)) for word in str(cell).split())


def _words(column: str, cells: pd.Series) -> list[str]:
    """The pieces of a column's heading and cells that cannot break (:func:`_pieces` of each word)."""
    return [piece for cell in [column, *cells] for word in str(cell).split() for piece in _pieces(word)] or [""]


def _layout(display: pd.DataFrame, alignment: str, size: str, *,
            wrap: bool) -> tuple[list[str], list[bool], list[int]]:
    """The column specifications of ``display`` (``l``, ``r``, ``c`` or a wrapping ``p`` column), which of its
    headings are rotated, and the longest name each column keeps whole (:data:`LONG_WORD`, or fewer characters in a
    ``longtable``'s column narrower than its longest word: there a name breaks after ``_ . :`` rather than stick out
    of its column over the next one's text, as ``minimality_sufficiency`` did in the default study's headline).

    Widths are estimated from character counts (a character of ``size`` as a fraction of the article class's
    345 pt line).  A table wider than the line first turns the headings of its short columns (every cell at most
    :data:`SHORT_CELL` characters: marks, marks with a number) by 90 degrees, so a column is as wide as its cells
    (centred, when text);
    a table still too wide, or a ``longtable`` (``wrap``), sets its text columns as wrapping ``p`` columns: each at
    least as wide as its longest word (which cannot break), the rest of the line shared in proportion to the
    columns' text.  Numbers, and columns with a rotated heading, keep their natural width.  A ``table``'s wrapping
    columns are given in ems, so that on a narrower line (a two-column page) they keep their longest words whole and
    the adjustbox scales the table down; a ``longtable``, never scaled, gives them as fractions of ``\\linewidth``.
    """
    character = (3.9 if size == "\\scriptsize" else 5.0) / _LINE_POINTS  # a character's width, as a line fraction
    share = 1.0 - display.shape[1] * 6.0 / _LINE_POINTS - 0.02  # the line less the column separations and a margin
    cells = [max((len(str(cell)) for cell in display[column]), default=0) for column in display.columns]
    headings = [max((len(word) for word in str(column).split()), default=0) if wrap else len(str(column))
                for column in display.columns]
    rotated = [False] * display.shape[1]
    if sum(map(max, cells, headings)) * character > share:
        rotated = [index > 0 and cell <= SHORT_CELL for index, cell in enumerate(cells)]  # never the row labels
    natural = [cell + 0.5 if turn else max(cell, len(str(column)))  # + 0.5: a mark is wider than a letter
               for cell, turn, column in zip(cells, rotated, display.columns)]
    alignment = "".join("c" if turn and align == "l" else align for align, turn in zip(alignment, rotated))  # marks
    fixed = [align != "l" for align in alignment]  # numbers and turned headings: natural width; the others may wrap
    limits = [LONG_WORD] * display.shape[1]
    if not wrap and sum(natural) * character <= share:
        return list(alignment), rotated, limits
    share = max(0.1, share - sum(width * character for width, kept in zip(natural, fixed) if kept))
    wrapping = [column for column, kept in zip(display.columns, fixed) if not kept]
    longest = [max(len(word) for word in _words(column, display[column])) for column in wrapping]
    lengths = [max(longest_word, min(24, max(len(str(cell)) for cell in display[column])))
               for longest_word, column in zip(longest, wrapping)]
    minimum = [max(4, longest_word) * character for longest_word in longest]
    spare = max(0.0, share - sum(minimum))
    widths = [low + spare * length / sum(lengths) for low, length in zip(minimum, lengths)]
    if wrap and sum(widths) > share:  # the longest words alone overflow a longtable: shrink the columns of names first
        # a column keeps its longest piece of a name broken after every _ . : / (a name then breaks inside)
        floors = [max(4, *(len(piece) for cell in [column, *display[column]] for word in str(cell).split()
                           for piece in re.split(r"(?<=[_.:/])", word))) * character for column in wrapping]
        room = sum(max(0.0, width - floor) for width, floor in zip(widths, floors))
        if room > 0:
            cut = min(1.0, (sum(widths) - share) / room)
            widths = [width - cut * max(0.0, width - floor) for width, floor in zip(widths, floors)]
        if sum(widths) > share:  # still too wide: shrink them alike
            widths = [width * share / sum(widths) for width in widths]
        narrow = iter(min(LONG_WORD, max(4, int(width / character + 1e-9))) for width in widths)
        limits = [limit if kept else next(narrow) for limit, kept in zip(limits, fixed)]
    units = (f"{width:.3f}\\linewidth" if wrap else f"{width * _LINE_POINTS / _SIZE_POINTS[size]:.1f}em" for width in widths)
    columns = iter(f"{_WRAPPING}{{{unit}}}" for unit in units)
    return [align if kept else next(columns) for align, kept in zip(alignment, fixed)], rotated, limits


def _row(cells, columns: list[str], rotated: list[bool] | None = None, limits: list[int] | None = None) -> str:
    """One row of a table: a wrapping column's cell may break inside a long name (:func:`_breakable`), a rotated heading
    is turned."""
    texts = []
    for index, (cell, column) in enumerate(zip(cells, columns)):
        if rotated is not None and rotated[index]:
            texts.append(f"\\rotatebox{{90}}{{{escape(cell)}}}")
        else:
            texts.append(_breakable(cell, limits[index] if limits is not None else LONG_WORD)
                         if column.startswith(_WRAPPING) and rotated is None else escape(cell))
    return " & ".join(texts) + " \\\\"


def _caption(caption: str, note: str) -> str:
    """``\\caption`` with ``note`` after the title (the list of tables shows the title alone)."""
    return f"\\caption[{escape(caption)}]{{{escape(caption)}. {escape(note)}}}" if note else f"\\caption{{{escape(caption)}}}"


def _needs(packages: str, columns: list[str], rotated: list[bool]) -> str:
    """The table's first line: the packages it needs."""
    wrapping = ", \\usepackage{array} for the wrapping columns" if any(column.startswith(_WRAPPING) for column in columns) else ""
    turned = ", \\usepackage{graphicx} (loaded by adjustbox) for the turned headings" if any(rotated) else ""
    return f"% Generated by the reports package; needs {packages}{wrapping}{turned}."


def _longtable(display: pd.DataFrame, alignment: str, caption: str, label: str, note: str) -> str:
    size = "\\scriptsize" if display.shape[1] > WIDE_COLUMNS else "\\small"
    columns, rotated, limits = _layout(display, alignment, size, wrap=True)
    header = _row(display.columns, columns, rotated)
    lines = [
        _needs("\\usepackage{booktabs}, \\usepackage{amssymb}, \\usepackage{longtable}", columns, rotated),
        "\\begingroup",
        size,
        "\\setlength{\\tabcolsep}{3pt}",
        f"\\begin{{longtable}}{{{''.join(columns)}}}",
        f"{_caption(caption, note)}\\label{{tab:{label}}} \\\\",
        "\\toprule", header, "\\midrule", "\\endfirsthead",
        "\\toprule", header, "\\midrule", "\\endhead",
        "\\bottomrule", "\\endfoot",
    ]
    lines += [_row(row, columns, limits=limits) for row in display.itertuples(index=False)]
    lines += ["\\end{longtable}", "\\endgroup", ""]
    return "\n".join(lines)


def to_latex(display: pd.DataFrame, *, caption: str, label: str, note: str = "") -> str:
    """A ``table`` environment holding ``display`` (a table of strings) with booktabs rules.

    Numeric columns are right-aligned, the others left-aligned.  ``label`` becomes
    ``tab:<label>``; ``note`` (what the cells show, where the numbers are) follows the
    caption's title.  A table of more than :data:`WIDE_COLUMNS` columns becomes a
    ``table*``; one of more than :data:`LONG_ROWS` rows a ``longtable`` in a small font.
    A table wider than the line turns the headings of its short columns and wraps its
    long text (a user metric's name) in ``p`` columns (:func:`_layout`); what is still
    wider is scaled down to the line width.
    """
    alignment = "".join("r" if is_numeric_column(display[column]) else "l" for column in display.columns)
    if len(display) > LONG_ROWS:
        return _longtable(display, alignment, caption, label, note)
    columns, rotated, _ = _layout(display, alignment, "\\small", wrap=False)
    wide = display.shape[1] > WIDE_COLUMNS
    environment = "table*" if wide else "table"
    lines = [
        _needs("\\usepackage{booktabs}, \\usepackage{amssymb}, \\usepackage{adjustbox}", columns, rotated),
        f"\\begin{{{environment}}}[t]",
        "\\centering",
        "\\small",
        *(["\\setlength{\\tabcolsep}{3pt}"] if any(rotated) else []),  # columns as narrow as their marks
        _caption(caption, note),
        f"\\label{{tab:{label}}}",
        "\\begin{adjustbox}{max width=\\linewidth}",
        f"\\begin{{tabular}}{{{''.join(columns)}}}",
        "\\toprule",
        _row(display.columns, columns, rotated),
        "\\midrule",
    ]
    lines += [_row(row, columns) for row in display.itertuples(index=False)]
    lines += ["\\bottomrule", "\\end{tabular}", "\\end{adjustbox}", f"\\end{{{environment}}}", ""]
    return "\n".join(lines)
