"""The report as Markdown (for a terminal or a pull request): the same sections as the HTML.

Long tables appear as their per-metric roll-up; the full tables are in ``tables/``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from reports.results.display import FigureFile, Section, format_number


def _cell(text: object) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def table_to_markdown(display: pd.DataFrame, *, aligned: bool = False) -> str:
    """A pipe table of text cells; ``|`` in cells is escaped so that columns never shift.

    With ``aligned``, every column is padded to its widest cell (for a terminal).
    """
    header = [_cell(column) for column in display.columns]
    body = [[_cell(cell) for cell in row] for row in display.itertuples(index=False, name=None)]
    widths = [max(3, *(len(text) for text in column)) if aligned else 0 for column in zip(header, *body)]
    rows = [header, ["-" * max(width, 3) for width in widths], *body]
    return "\n".join("| " + " | ".join(text.ljust(width) for text, width in zip(row, widths)) + " |" for row in rows)


def markdown_table(frame: pd.DataFrame, *, digits: int = 4) -> str:
    """``frame`` as an aligned pipe table, its numbers formatted as in the report.

    Floats to ``digits`` decimals (scientific notation below that), booleans as ✓ / ✗ and
    NaN as — (:func:`reports.results.display.format_number`).
    """
    shown = frame.apply(lambda column: column.map(lambda cell: format_number(cell, digits, scientific=True)))
    return table_to_markdown(shown.reset_index(drop=True) if not frame.empty else frame, aligned=True)


def render_markdown(title: str, summary: Sequence[str], sections: Sequence[Section], figures: Sequence[FigureFile]) -> str:
    """The whole report: summary lines, each section (table and notes), then the figures."""
    parts = [f"# {title}", "", *[f"- {line}" for line in summary], ""]
    for section in sections:
        parts += [f"## {section.title}", ""]
        if section.display is not None and not section.display.empty:
            parts += [table_to_markdown(section.display), ""]
            parts += [*[f"- {_cell(line)}" for line in section.lines], ""] if section.lines else []
            parts += [f"{section.provenance}.", ""] if section.provenance else []
            parts += [f"Table files: `tables/{section.key}.csv` (every row, full precision), `tables/{section.key}.tex`.", ""]
        parts += [section.intro, ""]
        for figure in (figure for figure in figures if figure.key in section.figures):
            parts += [f"![{figure.caption}](figures/{figure.key}.png)", "", f"*{figure.caption}*", ""]
        if section.notes:
            parts += ["Notes:", "", *[f"- {_cell(note)}" for note in section.notes], ""]
    parts += ["## Figures", ""]
    for figure in (figure for figure in figures if all(figure.key not in section.figures for section in sections)):
        others = ", ".join(f"`figures/{figure.key}.{suffix}`" for suffix in figure.formats if suffix != "png")
        parts += [f"![{figure.caption}](figures/{figure.key}.png)", "",
                  f"*{figure.caption}*" + (f" ({others})" if others else ""), ""]
    return "\n".join(parts)
