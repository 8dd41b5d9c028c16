"""The report in a real browser at 1400 px: nothing wider than its container, no broken image, headline first.

Drives Debian's ``chromium`` (headless) with Playwright's Python client; the browser
binary is never downloaded: ``executable_path`` points at the system's chromium
(``$CHROMIUM`` or the first of ``chromium`` / ``chromium-browser`` on the PATH).
Skipped, saying why, where either is missing; ``.ci/run`` installs both.
"""

from __future__ import annotations

import os
import shutil

import pytest

WIDTH, HEIGHT = 1400, 900
#: The default report was 28,000 px tall before the roll-ups and folds; at most half of it.
MAX_PAGE_HEIGHT = 14_000


def _chromium() -> str | None:
    candidates = [os.environ.get("CHROMIUM", ""), shutil.which("chromium") or "", shutil.which("chromium-browser") or ""]
    return next((path for path in candidates if path and os.access(path, os.X_OK)), None)


@pytest.fixture(scope="module")
def page(realistic_report):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python client is not installed "
                                   "(pip install -e '.[test]')")
    executable = _chromium()
    if executable is None:
        pytest.skip("no chromium browser installed (apt-get install chromium, or set $CHROMIUM)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        opened = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        opened.goto(realistic_report.as_uri())
        opened.wait_for_load_state("load")
        yield opened
        browser.close()


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
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH


def test_no_broken_image(page):
    broken = page.evaluate(
        "() => [...document.images].filter(image => !image.complete || image.naturalWidth === 0).map(image => image.alt)")
    assert page.evaluate("document.images.length") > 10 and broken == []


def test_page_height_is_at_most_half_of_the_old_report(page):
    assert page.evaluate("document.documentElement.scrollHeight") <= MAX_PAGE_HEIGHT


def test_folded_tables_fit_when_opened(page):
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    for key in ("calibration", "linearity", "robustness", "sample_efficiency"):
        table = page.locator(f"#details-{key}")
        assert table.is_visible()
        assert table.evaluate("t => t.getBoundingClientRect().width <= t.parentElement.getBoundingClientRect().width + 1")
