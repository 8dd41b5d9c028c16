"""The report in a real browser at 1400 and 1024 px: nothing wider than its container, every figure loads and
enlarges on a click, table headers stay in view and sort their columns, headline first.

Drives Debian's ``chromium`` (headless) with Playwright's Python client; the browser
binary is never downloaded: ``executable_path`` points at the system's chromium
(``$CHROMIUM`` or the first of ``chromium`` / ``chromium-browser`` on the PATH).
Skipped, saying why, where either is missing; ``.ci/run`` installs both.
"""

from __future__ import annotations

import os
import shutil

import pytest

pytestmark = pytest.mark.slow

WIDTHS, HEIGHT = (1400, 1024), 900
#: The default report was 28,000 px tall before the roll-ups and folds; at most half of it.
MAX_PAGE_HEIGHT = 14_000
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"]


def _chromium() -> str | None:
    candidates = [os.environ.get("CHROMIUM", ""), shutil.which("chromium") or "", shutil.which("chromium-browser") or ""]
    return next((path for path in candidates if path and os.access(path, os.X_OK)), None)


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python client is not installed "
                                   "(pip install -e '.[test]')")
    executable = _chromium()
    if executable is None:
        pytest.skip("no chromium browser installed (apt-get install chromium, or set $CHROMIUM)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=FLAGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module", params=WIDTHS, ids=[f"{width}px" for width in WIDTHS])
def page(browser, realistic_report, request):
    opened = browser.new_page(viewport={"width": request.param, "height": HEIGHT})
    opened.goto(realistic_report.as_uri())
    opened.wait_for_load_state("load")
    yield opened
    opened.close()


def test_headline_table_is_on_the_first_screen(page):
    box = page.locator("#table-headline").bounding_box()
    assert box is not None and 0 <= box["y"] < HEIGHT
    first_table = page.evaluate("document.querySelector('table').id")
    assert first_table == "table-headline"


def test_nothing_is_wider_than_its_container(page):
    overflowing = page.evaluate(
        """() => {
            const wide = [];
            for (const element of document.querySelectorAll('table, img, .scroll, figure')) {
                if (!element.checkVisibility()) continue;  // folded away
                const box = element.getBoundingClientRect();
                const container = element.parentElement.getBoundingClientRect();
                if (box.width > container.width + 1) wide.push(element.id || element.tagName + ' ' + (element.alt || ''));
                if (element.classList.contains('scroll') && element.scrollWidth > element.clientWidth + 1)
                    wide.push('scrolling ' + (element.firstElementChild.id || ''));
            }
            return wide;
        }"""
    )
    assert overflowing == []
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


def test_every_figure_loads_from_the_report_folder(page):
    # figures are files beside the page, loaded as they come into view: load them all now
    page.evaluate("() => document.querySelectorAll('img[loading=lazy]').forEach(image => { image.loading = 'eager'; })")
    page.wait_for_function("[...document.querySelectorAll('figure img')].every(image => image.complete)")
    sources = page.evaluate("[...document.querySelectorAll('figure img')].map(image => image.getAttribute('src'))")
    broken = page.evaluate("[...document.querySelectorAll('figure img')].filter(image => image.naturalWidth === 0)"
                           ".map(image => image.alt)")
    assert len(sources) > 10 and broken == []
    assert all(source.startswith("figures/") and source.endswith(".png") for source in sources)


def test_page_height_is_at_most_half_of_the_old_report(page):
    assert page.evaluate("document.documentElement.scrollHeight") <= MAX_PAGE_HEIGHT


def test_a_long_tables_header_stays_in_view_while_its_rows_scroll(page):
    box = page.locator("#table-headline").locator("xpath=..")
    assert box.evaluate("box => box.scrollHeight > box.clientHeight + 100")  # 44 rows: taller than the screen
    box.evaluate("box => { box.scrollIntoView(); box.scrollTop = 400; }")
    header = page.locator("#table-headline thead th").first.bounding_box()
    frame = box.bounding_box()
    first_row = page.locator("#table-headline tbody tr").first.bounding_box()
    assert abs(header["y"] - frame["y"]) <= 1  # the header sits at the top of the scrolled box
    assert first_row["y"] + first_row["height"] < header["y"] + header["height"]  # the first rows went under it


def _column(page, table: str, index: int) -> list[str]:
    return page.evaluate(f"[...document.querySelectorAll('#{table} tbody tr')]"
                         f".map(row => row.cells[{index}].textContent.trim())")


def test_a_click_on_a_heading_sorts_the_rows_by_that_column(page):
    headings = page.evaluate("[...document.querySelectorAll('#table-headline thead th')].map(th => th.textContent)")
    seconds = headings.index("Seconds per call")
    page.locator("#table-headline").locator("xpath=..").evaluate("box => { box.scrollIntoView(); box.scrollTop = 0; }")
    header = page.locator("#table-headline thead th").nth(seconds)
    before = _column(page, "table-headline", seconds)
    header.click()
    values = [float(text.split()[0]) for text in _column(page, "table-headline", seconds)]
    assert values == sorted(values) and header.get_attribute("aria-sort") == "ascending"
    header.click()
    values = [float(text.split()[0]) for text in _column(page, "table-headline", seconds)]
    assert values == sorted(values, reverse=True) and header.get_attribute("aria-sort") == "descending"
    assert sorted(before) == sorted(_column(page, "table-headline", seconds))  # rows moved, none lost
    page.locator("#table-headline thead th").first.click()  # text: in alphabetical order
    names = _column(page, "table-headline", 0)
    assert names == sorted(names, key=str.lower) or names == sorted(names)


def test_a_click_on_a_figure_enlarges_it_and_another_closes_it(page):
    thumbnail = page.locator("#figures figure img").first
    thumbnail.scroll_into_view_if_needed()
    small = thumbnail.bounding_box()["width"]
    thumbnail.click()
    enlarged = page.locator("#enlarged img")
    page.wait_for_function("document.querySelector('#enlarged img').complete")
    assert page.evaluate("document.getElementById('enlarged').open")
    assert enlarged.get_attribute("src") == thumbnail.get_attribute("src")
    assert enlarged.bounding_box()["width"] > 1.5 * small
    assert enlarged.bounding_box()["width"] <= page.viewport_size["width"]
    page.keyboard.press("Escape")
    assert not page.evaluate("document.getElementById('enlarged').open")
    thumbnail.click()
    enlarged.click()
    assert not page.evaluate("document.getElementById('enlarged').open")


def test_folded_tables_fit_when_opened(page):
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    for key in ("calibration", "linearity", "robustness", "sample_efficiency"):
        table = page.locator(f"#details-{key}")
        assert table.is_visible()
        assert table.evaluate("t => t.getBoundingClientRect().width <= t.parentElement.getBoundingClientRect().width + 1")
