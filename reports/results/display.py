"""What the writers (HTML, Markdown, LaTeX) share: a report section and cell formatting.

An analysis yields a tidy table at full precision (written to CSV) and a display
table of strings (written to HTML, Markdown and LaTeX).  Booleans are shown as
check marks; the LaTeX writer maps these symbols to LaTeX commands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

YES, NO, UNDECIDED, NOT_APPLICABLE, UNMEASURED, ABSENT = "✓", "✗", "≈", "n/a", "?", "—"
#: A verdict's mark (:mod:`reports.analyses.checks`) -> its symbol in display tables.
SYMBOLS = {"yes": YES, "no": NO, "undecided": UNDECIDED, "n/a": NOT_APPLICABLE, "unmeasured": UNMEASURED,
           "absent": ABSENT}


@dataclass
class Section:
    """One analysis of the report.

    Attributes
    ----------
    key : str
        File stem of the tables (``tables/<key>.csv``) and HTML anchor.
    title : str
        Heading.
    description : str
        What the analysis measures and how it decides, thresholds included.
    where : str
        Where its rows are (the roll-up below, the folded table, ``tables/<key>.csv``): said after the description
        only when the section has a table (:attr:`intro`); a section not computed writes none of them.
    table : pandas.DataFrame or None
        Tidy table at full precision (numbers, thresholds and pass flags in their own
        columns); None when the analysis could not run.
    display : pandas.DataFrame or None
        What the page shows, as strings: the table itself when short, otherwise a
        per-metric roll-up.
    details : pandas.DataFrame or None
        The full table as strings, folded away (``<details>`` in HTML).
    lines : list of str
        Generated sentences shown under the table (the headline's best and worst).
    notes : list of str
        What is missing or was left out, and why.
    paper : pandas.DataFrame or None
        What the LaTeX table shows when ``display`` is too wide for a paper's line (marks
        without their numbers); None: ``display``.
    paper_note : str
        What the cells of ``paper`` show and where their numbers are (after the LaTeX caption's title).
    provenance : str
        The scenarios, sample sizes and seeds behind the section's verdicts (in the LaTeX caption and
        under the Markdown table; :func:`reports.results.table.provenance`); empty for a section without verdicts.
    figures : list of str
        Keys of the figures shown in the section itself (its evidence: phase diagrams, chance levels) rather
        than with the others at the end.
    """

    key: str
    title: str
    description: str
    table: pd.DataFrame | None = None
    display: pd.DataFrame | None = None
    details: pd.DataFrame | None = None
    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    paper: pd.DataFrame | None = None
    paper_note: str = ""
    provenance: str = ""
    figures: list[str] = field(default_factory=list)
    where: str = ""

    @property
    def intro(self) -> str:
        """The text under the heading: the description, and where the rows are when the section has them."""
        return f"{self.description} {self.where}" if self.where and self.table is not None else self.description


@dataclass
class FigureFile:
    """A written figure: its stem under ``figures/``, caption, the PNG bytes and the formats written (``png`` first)."""

    key: str
    caption: str
    png: bytes
    formats: tuple[str, ...] = ("png",)


def format_number(value: object, digits: int = 2, *, scientific: bool = False) -> str:
    """A cell's text: fixed decimals for floats, check marks for booleans, '—' for NaN.

    With ``scientific``, a nonzero float too small for ``digits`` decimals is written
    in scientific notation (for seconds); otherwise it rounds to zero, never "-0.00".
    """
    if isinstance(value, (bool, np.bool_)):
        return YES if value else NO
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            return ABSENT
        if scientific and value != 0 and abs(value) < 10 ** (-digits):
            return f"{value:.{digits - 1}e}"
        return f"{round(float(value), digits) + 0.0:.{digits}f}"
    return str(value)


def is_numeric_column(column: pd.Series) -> bool:
    """Whether every cell of a display column reads as a number (or '—'), to right-align it."""

    def numeric(cell: object) -> bool:
        try:
            float(str(cell))
        except ValueError:
            return str(cell) in (ABSENT, "")
        return True

    return len(column) > 0 and bool(column.map(numeric).all())


def display_table(table: pd.DataFrame, columns: Mapping[str, str], digits: int = 2, *,
                  scientific: bool = False) -> pd.DataFrame:
    """Select and rename ``columns`` (name -> heading) and format every cell with :func:`format_number`."""
    def cell_text(cell: object) -> str:
        return format_number(cell, digits, scientific=scientific)

    shown = table.loc[:, list(columns)].rename(columns=dict(columns))
    return shown.apply(lambda column: column.map(cell_text)).reset_index(drop=True)
