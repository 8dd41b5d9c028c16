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
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 1em auto; max-width: 84em; padding: 0 1em;
       color: #222; line-height: 1.35; }
h1 { font-size: 1.4em; margin: .3em 0; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 1.6em; }
p, li { max-width: 75em; }
.summary { font-size: .85em; color: #444; margin: .2em 0 .6em; padding-left: 1.2em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .8em; }
.scroll { overflow-x: auto; max-width: 100%; }
th, td { padding: .2em .5em; text-align: left; border-bottom: 1px solid #e4e4e4; }
td { white-space: normal; }
#table-headline td { white-space: normal; min-width: 5.5em; }
#table-property_matrix { font-size: .72em; }
*, *::before, *::after { box-sizing: border-box; }
th { border-bottom: 2px solid #444; background: #f6f6f6; vertical-align: bottom; max-width: 11em; }
.num { text-align: right; }
td.yes { color: #0b5a24; background: #e3f3e6; } td.no { color: #7a1034; background: #f9e1e6; font-weight: 600; }
.lines li { margin: .15em 0; }
.notes { color: #555; font-size: .85em; }
details { margin: .4em 0 1em; } summary { cursor: pointer; color: #225; }
.figures { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 1em; }
figure { margin: 0; min-width: 0; }
figure img { width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: .8em; color: #444; }
nav { font-size: .85em; } nav a { margin-right: .8em; }
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


def _figure(figure: FigureFile) -> str:
    data = base64.b64encode(figure.png).decode("ascii")
    return (f'<figure id="figure-{escape(figure.key)}"><img alt="{escape(figure.caption)}" '
            f'src="data:image/png;base64,{data}"><figcaption>{escape(figure.caption)}</figcaption></figure>')


def render_html(title: str, summary: Sequence[str], sections: Sequence[Section], figures: Sequence[FigureFile]) -> str:
    """The whole report: a short summary, the headline first, each section, then the figures.

    A section shows its display table (a roll-up when the table is long) and folds
    its full table into ``<details>``.  The atlas figures are shown; the per-scenario
    and other figures fold into one ``<details>``.
    """
    nav = "".join(f'<a href="#section-{escape(s.key)}">{escape(s.title.split(":")[0])}</a>' for s in sections)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
        f"<h1>{escape(title)}</h1>",
        '<ul class="summary">' + "".join(f"<li>{escape(line)}</li>" for line in summary) + "</ul>",
        f'<nav>{nav}<a href="#figures">Figures</a></nav>',
    ]
    for section in sections:
        parts.append(f'<section id="section-{escape(section.key)}"><h2>{escape(section.title)}</h2>')
        if section.display is not None and not section.display.empty:
            parts.append(table_to_html(section.display, f"table-{section.key}"))
        if section.lines:
            parts.append('<ul class="lines">' + "".join(f"<li>{escape(line)}</li>" for line in section.lines) + "</ul>")
        parts.append(f"<p class=\"notes\">{escape(section.description)}</p>")
        if section.details is not None and not section.details.empty:
            parts.append(f"<details><summary>Every row ({len(section.details)}; also tables/{escape(section.key)}.csv)"
                         f"</summary>{table_to_html(section.details, f'details-{section.key}')}</details>")
        if section.notes:
            parts.append(f"<details><summary>Notes ({len(section.notes)})</summary>"
                         '<ul class="notes">' + "".join(f"<li>{escape(note)}</li>" for note in section.notes)
                         + "</ul></details>")
        parts.append("</section>")
    atlas = [figure for figure in figures if figure.key.startswith("atlas_")]
    others = [figure for figure in figures if not figure.key.startswith("atlas_")]
    parts.append('<section id="figures"><h2>Figures</h2>')
    parts.append('<div class="figures">' + "".join(_figure(figure) for figure in atlas) + "</div>")
    if others:
        parts.append(f"<details><summary>More figures ({len(others)}: one per scenario, efficiency, bounds, cost, "
                     "agreement)</summary>"
                     '<div class="figures">' + "".join(_figure(figure) for figure in others) + "</div></details>")
    parts += ["</section>", "</body>", "</html>", ""]
    return "\n".join(parts)
