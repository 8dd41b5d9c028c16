"""The report as one HTML page beside its ``figures/`` folder: styles and scripts inline, figures as files.

The folder opens offline in any browser; nothing is fetched from elsewhere.  Figures
are the report's compressed PNGs (:func:`reports.rendering.figures.save`), linked rather than
embedded (base64 would add a third) and loaded when scrolled to, so the page itself
stays small.  Every table carries ``id="table-<key>"`` and every figure
``id="figure-<key>"``, so that a test (or a reader's link) can find each of them.
A table's header stays in view while its rows scroll (each table scrolls in a box at
most a screen high), a click on a column's heading sorts the rows by it (numbers as
numbers, ✓/✗ cells by the number they carry, missing values last; again to reverse),
and a click on a figure shows it enlarged (Escape, or another click, closes it).
All text is escaped with :func:`html.escape`.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Sequence
from html import escape

import pandas as pd

from reports.results.display import NO, YES, FigureFile, Section, is_numeric_column

_STYLE = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 1em auto; max-width: 84em; padding: 0 1em;
       color: #222; line-height: 1.35; }
h1 { font-size: 1.4em; margin: .3em 0; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 1.6em; }
p, li { max-width: 75em; }
.summary { font-size: .85em; color: #444; margin: .2em 0 .6em; padding-left: 1.2em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .8em; }
.scroll { overflow: auto; max-width: 100%; max-height: 85vh; }
th, td { padding: .2em .5em; text-align: left; border-bottom: 1px solid #e4e4e4; }
td { white-space: normal; }
#table-headline td { white-space: normal; min-width: 5.5em; }
#table-property_matrix { font-size: .72em; }
*, *::before, *::after { box-sizing: border-box; }
th { border-bottom: 2px solid #444; background: #f6f6f6; vertical-align: bottom; max-width: 11em;
     position: sticky; top: 0; z-index: 1; cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " ▲"; font-size: .8em; }
th[aria-sort="descending"]::after { content: " ▼"; font-size: .8em; }
.num { text-align: right; }
td.yes { color: #0b5a24; background: #e3f3e6; } td.no { color: #7a1034; background: #f9e1e6; font-weight: 600; }
.lines li { margin: .15em 0; }
.notes { color: #555; font-size: .85em; }
details { margin: .4em 0 1em; } summary { cursor: pointer; color: #225; }
.figures { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 1em; }
figure { margin: 0; min-width: 0; }
figure img { width: 100%; height: auto; border: 1px solid #eee; cursor: zoom-in; }
dialog.enlarged { max-width: 96vw; max-height: 96vh; padding: .4em; border: 1px solid #888; overflow: auto; }
dialog.enlarged img { display: block; max-width: calc(96vw - 1.2em); height: auto; cursor: zoom-out; }
dialog.enlarged::backdrop { background: rgba(0, 0, 0, .6); }
figcaption { font-size: .8em; color: #444; }
nav { font-size: .85em; } nav a { margin-right: .8em; }
@media (max-width: 1300px) {
  body { padding: 0 .5em; } th, td { padding: .2em .3em; } table { font-size: .74em; } th { max-width: 9em; }
  #table-property_matrix { font-size: .64em; }
}
"""


_SCRIPT = r"""
function sortKey(text) {
  const number = text.replace(/\u2212/g, '-').match(/-?\d+(\.\d+)?(e[-+]?\d+)?/i);
  return number ? parseFloat(number[0]) : null;
}
function sortBy(header) {
  const table = header.closest('table'), body = table.tBodies[0];
  const column = [...header.parentElement.children].indexOf(header);
  const descending = header.getAttribute('aria-sort') === 'ascending';
  const rows = [...body.rows].map((row, index) => ({row, index, text: row.cells[column].textContent.trim()}));
  const numeric = rows.every(item => sortKey(item.text) !== null || /^(\u2014|n\/a|\?|)$/.test(item.text));
  const order = (a, b) => {
    const x = numeric ? sortKey(a.text) : a.text, y = numeric ? sortKey(b.text) : b.text;
    if (x === null || x === '') return (y === null || y === '') ? a.index - b.index : 1;
    if (y === null || y === '') return -1;
    const sign = descending ? -1 : 1;
    const compared = numeric ? x - y : x.localeCompare(y, undefined, {numeric: true});
    return compared ? sign * compared : a.index - b.index;
  };
  rows.sort(order).forEach(item => body.appendChild(item.row));
  header.parentElement.querySelectorAll('th').forEach(other => other.removeAttribute('aria-sort'));
  header.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
}
function enlarge(link) {
  const dialog = document.getElementById('enlarged');
  const image = document.createElement('img');
  image.src = link.getAttribute('href');
  image.alt = link.querySelector('img').alt;
  dialog.replaceChildren(image);
  dialog.showModal();
}
document.addEventListener('click', event => {
  const header = event.target.closest('th');
  if (header) { sortBy(header); return; }
  const link = event.target.closest('a.enlarge');
  if (link) { event.preventDefault(); enlarge(link); return; }
  const dialog = event.target.closest('dialog.enlarged');
  if (dialog) dialog.close();
});
"""


def _breakable(text: str) -> str:
    """``text`` escaped, with a line-break opportunity after each ``_``, ``/``, ``@`` and ``=``.

    Names such as ``gaussian_toy_redundancy`` or ``minimality_sufficiency/sufficiency`` are one word to a
    browser: unbroken, they keep a table wider than a 1024-pixel screen.
    """
    return re.sub(r"([_/@=])", r"\1<wbr>", escape(text))


#: A cell setting a published mark beside a measured one (:mod:`reports.review.comparison`): coloured by their agreement
#: (= agree, ≠ differ; "vs", undecided or unmeasured, uncoloured).
_AGREEMENT = re.compile(r"^(?:✓|✗|n/a) ([=≠]|vs) ")


def _cell(text: object, numeric: bool) -> str:
    text = str(text)
    classes = ["num"] if numeric else []
    compared = _AGREEMENT.match(text)
    if compared:
        classes += {"=": ["yes"], "≠": ["no"]}.get(compared[1], [])
    else:
        classes += ["yes"] if text.startswith(YES) else ["no"] if text.startswith(NO) else []
    css = f' class="{" ".join(classes)}"' if classes else ""
    return f"<td{css}>{_breakable(text)}</td>"


def table_to_html(display: pd.DataFrame, table_id: str) -> str:
    """An escaped ``<table>`` of a display table (numeric columns right-aligned), in a scrolling box."""
    numeric = [is_numeric_column(display[column]) for column in display.columns]
    align = {True: ' class="num"', False: ""}
    head = "".join(f"<th{align[num]}>{escape(str(column))}</th>" for column, num in zip(display.columns, numeric))
    body = "\n".join("<tr>" + "".join(_cell(cell, num) for cell, num in zip(row, numeric)) + "</tr>"
                     for row in display.itertuples(index=False))
    return (f'<div class="scroll"><table id="{escape(table_id)}">\n<thead><tr>{head}</tr></thead>\n'
            f"<tbody>\n{body}\n</tbody>\n</table></div>")


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height in pixels of a PNG, read from its header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("not a PNG file")
    return struct.unpack(">II", png[16:24])


def _figure(figure: FigureFile, folder: str) -> str:
    """A figure linking its PNG under ``folder``: sized from the file (no reflow as it loads), loaded when near view."""
    source = escape(f"{folder}/{figure.key}.png")
    width, height = png_size(figure.png)
    return (f'<figure id="figure-{escape(figure.key)}"><a class="enlarge" href="{source}">'
            f'<img alt="{escape(figure.caption)}" src="{source}" width="{width}" height="{height}" loading="lazy"></a>'
            f"<figcaption>{escape(figure.caption)}</figcaption></figure>")


def render_html(title: str, summary: Sequence[str], sections: Sequence[Section], figures: Sequence[FigureFile],
                *, figure_folder: str = "figures") -> str:
    """The whole report: a short summary, the headline first, each section, then the figures.

    A section shows its display table (a roll-up when the table is long) and folds
    its full table into ``<details>``.  The atlas figures are shown; the per-scenario
    and other figures fold into one ``<details>``.  Figures are linked as
    ``figure_folder/<key>.png``, relative to the page.
    """
    nav = "".join(f'<a href="#section-{escape(s.key)}">{escape(s.title.split(":")[0])}</a>' for s in sections)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title>",
        f"<style>{_STYLE}</style><script>{_SCRIPT}</script></head>",
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
        parts.append(f"<p class=\"notes\">{escape(section.intro)}</p>")
        own = [figure for figure in figures if figure.key in section.figures]
        if own:
            parts.append('<div class="figures">' + "".join(_figure(figure, figure_folder) for figure in own) + "</div>")
        if section.details is not None and not section.details.empty:
            parts.append(f"<details><summary>Every row ({len(section.details)}; also tables/{escape(section.key)}.csv)"
                         f"</summary>{table_to_html(section.details, f'details-{section.key}')}</details>")
        if section.notes:
            parts.append(f"<details><summary>Notes ({len(section.notes)})</summary>"
                         '<ul class="notes">' + "".join(f"<li>{escape(note)}</li>" for note in section.notes)
                         + "</ul></details>")
        parts.append("</section>")
    in_sections = {key for section in sections for key in section.figures}
    figures = [figure for figure in figures if figure.key not in in_sections]
    atlas = [figure for figure in figures if figure.key.startswith("atlas_")]
    others = [figure for figure in figures if not figure.key.startswith("atlas_")]
    parts.append('<section id="figures"><h2>Figures</h2>')
    parts.append('<div class="figures">' + "".join(_figure(figure, figure_folder) for figure in atlas) + "</div>")
    if others:
        parts.append(f"<details><summary>More figures ({len(others)}: one per scenario, efficiency, bounds, cost, "
                     "agreement)</summary>"
                     '<div class="figures">' + "".join(_figure(figure, figure_folder) for figure in others)
                     + "</div></details>")
    parts += ["</section>", '<dialog id="enlarged" class="enlarged"></dialog>', "</body>", "</html>", ""]
    return "\n".join(parts)
