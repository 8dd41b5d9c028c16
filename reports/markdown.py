"""The report as Markdown (for a terminal or a pull request): the same sections as the HTML.

Long tables appear as their per-metric roll-up; the full tables are in ``tables/``.
"""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from reports._format import FigureFile, Section


def _cell(text: object) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def table_to_markdown(display: pd.DataFrame) -> str:
    """A pipe table; ``|`` in cells is escaped so that columns never shift."""
    header = "| " + " | ".join(_cell(c) for c in display.columns) + " |"
    rule = "| " + " | ".join("---" for _ in display.columns) + " |"
    body = ["| " + " | ".join(_cell(c) for c in row) + " |" for row in display.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def render_markdown(title: str, summary: Sequence[str], sections: Sequence[Section], figures: Sequence[FigureFile]) -> str:
    """The whole report: summary lines, each section (table and notes), then the figures."""
    parts = [f"# {title}", "", *[f"- {line}" for line in summary], ""]
    for section in sections:
        parts += [f"## {section.title}", ""]
        if section.display is not None and not section.display.empty:
            parts += [table_to_markdown(section.display), ""]
            parts += [*[f"- {_cell(line)}" for line in section.lines], ""] if section.lines else []
            parts += [f"Table files: `tables/{section.key}.csv` (every row, full precision), `tables/{section.key}.tex`.", ""]
        parts += [section.description, ""]
        if section.notes:
            parts += ["Notes:", "", *[f"- {_cell(note)}" for note in section.notes], ""]
    parts += ["## Figures", ""]
    for figure in figures:
        parts += [f"![{figure.caption}](figures/{figure.key}.png)", "", f"*{figure.caption}* (`figures/{figure.key}.svg`)", ""]
    return "\n".join(parts)
