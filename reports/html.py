"""The report as one self-contained HTML file: styles inline, figures embedded as data URIs.

It opens offline in any browser.  Every table carries ``id="table-<key>"`` and every
figure ``id="figure-<key>"``, so that a test (or a reader's link) can find each of
them.  All text is escaped with :func:`html.escape`.
"""

from __future__ import annotations

import base64
from html import escape
from typing import Sequence

import pandas as pd

from reports._format import NO, YES, FigureFile, Section, is_numeric_column

_STYLE = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2em auto; max-width: 78em; padding: 0 1em;
       color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .8em 0; font-size: .85em; }
.scroll { overflow-x: auto; }
th, td { padding: .25em .6em; text-align: left; border-bottom: 1px solid #e4e4e4; white-space: nowrap; }
th { border-bottom: 2px solid #444; background: #f6f6f6; white-space: normal; vertical-align: bottom; max-width: 9em; }
.num { text-align: right; }
td.yes { color: #117733; } td.no { color: #882255; font-weight: 600; }
.notes { color: #555; font-size: .85em; }
figure { display: inline-block; margin: 1em 1em 1em 0; vertical-align: top; }
figure img { width: 520px; max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: .85em; color: #444; max-width: 520px; }
nav a { margin-right: 1em; }
"""


def _cell(text: object, numeric: bool) -> str:
    text = str(text)
    classes = ["num"] if numeric else []
    classes += ["yes"] if text.startswith(YES) else ["no"] if text.startswith(NO) else []
    css = f' class="{" ".join(classes)}"' if classes else ""
    return f"<td{css}>{escape(text)}</td>"


def table_to_html(display: pd.DataFrame, table_id: str) -> str:
    """An escaped ``<table>`` of a display table (numeric columns right-aligned), in a scrolling box."""
    numeric = [is_numeric_column(display[column]) for column in display.columns]
    align = {True: ' class="num"', False: ""}
    head = "".join(f"<th{align[num]}>{escape(str(column))}</th>" for column, num in zip(display.columns, numeric))
    body = "\n".join("<tr>" + "".join(_cell(cell, num) for cell, num in zip(row, numeric)) + "</tr>"
                     for row in display.itertuples(index=False))
    return (f'<div class="scroll"><table id="{escape(table_id)}">\n<thead><tr>{head}</tr></thead>\n'
            f"<tbody>\n{body}\n</tbody>\n</table></div>")


def render_html(title: str, summary: Sequence[str], sections: Sequence[Section], figures: Sequence[FigureFile]) -> str:
    """The whole report: summary, each section (table and notes), then the embedded figures."""
    nav = "".join(f'<a href="#section-{escape(s.key)}">{escape(s.title)}</a>' for s in sections)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        f"<title>{escape(title)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
        f"<h1>{escape(title)}</h1>",
        "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in summary) + "</ul>",
        f'<nav>{nav}<a href="#figures">Figures</a></nav>',
    ]
    for section in sections:
        parts.append(f'<section id="section-{escape(section.key)}"><h2>{escape(section.title)}</h2>')
        parts.append(f"<p>{escape(section.description)}</p>")
        if section.display is not None and not section.display.empty:
            parts.append(table_to_html(section.display, f"table-{section.key}"))
        if section.notes:
            parts.append('<ul class="notes">' + "".join(f"<li>{escape(note)}</li>" for note in section.notes) + "</ul>")
        parts.append("</section>")
    parts.append('<section id="figures"><h2>Figures</h2>')
    for figure in figures:
        data = base64.b64encode(figure.png).decode("ascii")
        parts.append(
            f'<figure id="figure-{escape(figure.key)}"><img alt="{escape(figure.caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{escape(figure.caption)}</figcaption></figure>"
        )
    parts += ["</section>", "</body>", "</html>", ""]
    return "\n".join(parts)
