"""Every bulletin page of the demo campaign (every family), looked at in headless Chromium at
1,280 px: no page wider than the viewport (wide tables scroll inside their own box), no table
scrolled for the length of its text (a heading, a system's name: they wrap), every chart's text
at least 9 px high as drawn, the page's language the campaign's, and long pages with a table of
contents."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser import BROWSER_FLAGS, CHROMIUM

WIDTH = 1280

# The smallest chart text as drawn: font size times the SVG's scale on screen.
SMALLEST_CHART_TEXT = """() => {
    let smallest = null, where = '';
    for (const t of document.querySelectorAll('svg text')) {
        if (!t.textContent.trim() || t.getClientRects().length === 0) continue;
        const m = t.getScreenCTM();  // its scale, whatever its rotation
        const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
        if (smallest === null || size < smallest) { smallest = size; where = t.textContent; }
    }
    return [smallest, where];
}"""


@pytest.fixture(scope="module", params=["en", "fr"])
def pages(request) -> tuple[str, list[Path]]:
    """The pages of the demo's edition in each language the campaign may set."""
    build = request.getfixturevalue("demo_build" if request.param == "en" else "demo_build_fr")
    found = sorted((build / "out").resolve().glob("**/index.html"))
    assert len(found) >= 6  # the campaign's index and one page per task
    return request.param, found


# The tables wider than their box (scrolled sideways: columns out of view) that would fit if
# their headings and text cells might wrap: cut by the text's length, not by their columns (a
# French heading is longer than its English one).
CUT_BY_TEXT = """() => {
    const tables = [...document.querySelectorAll('table')];
    const over = t => t.scrollWidth > t.clientWidth + 1;
    const before = tables.map(t => over(t) ? t.scrollWidth : null);
    const style = document.createElement('style');
    style.textContent = 'th, td.text { white-space: normal !important; }';
    document.head.append(style);
    const cut = tables.flatMap((t, k) => before[k] !== null && !over(t)
        ? [[t.className || `number ${k + 1}`, before[k], t.scrollWidth]] : []);
    style.remove();
    return cut;
}"""


@pytest.mark.slow
def test_every_page_fits_1280_px_with_legible_charts_in_its_language(pages):
    language, pages = pages
    if not Path(CHROMIUM).exists():
        if os.environ.get("SCOREHOUSE_NO_BROWSER") == "1":
            pytest.skip("SCOREHOUSE_NO_BROWSER=1: no Chromium on this machine")
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium (see .ci/run)")
    from playwright.sync_api import sync_playwright

    problems = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_FLAGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        for path in pages:
            page.goto(path.as_uri(), wait_until="load")
            name = f"{path.parent.name}/{path.name}"
            width = page.evaluate("() => document.documentElement.scrollWidth")
            if width > WIDTH:
                problems.append(f"{name}: {width} px wide")
            problems += [f"{name}: table {table} is {wide} px wide, {fits} px once its text "
                         "may wrap" for table, wide, fits in page.evaluate(CUT_BY_TEXT)]
            smallest, text = page.evaluate(SMALLEST_CHART_TEXT)
            if smallest is not None and smallest < 9:
                problems.append(f"{name}: chart text {text!r} drawn {smallest:.1f} px high")
            if page.evaluate("() => document.documentElement.lang") != language:
                problems.append(f"{name}: lang is not the campaign's ({language})")
            height = page.evaluate("() => document.documentElement.scrollHeight")
            if height > 6 * 900 and page.locator("nav.toc a").count() < 3:
                problems.append(f"{name}: {height} px long without a table of contents")
        browser.close()
    assert not problems, "\n".join(problems)


# Each chart's <svg> that is not an image named by its title as drawn (whitespace aside: a long
# title is drawn wrapped).
UNNAMED_CHARTS = """() => [...document.querySelectorAll('svg')].flatMap((svg, k) => {
    const name = (svg.getAttribute('aria-label') || '').replace(/\\s+/g, '');
    const drawn = [...svg.querySelectorAll('text')].map(t => t.textContent).join('')
        .replace(/\\s+/g, '');
    return svg.getAttribute('role') === 'img' && name && drawn.includes(name) ? []
        : [`chart ${k}: ${svg.getAttribute('role')} ${svg.getAttribute('aria-label')}`];
})"""


@pytest.mark.slow
def test_every_chart_is_an_image_named_by_its_title_and_no_page_names_matplotlib(pages):
    """A reader who does not see the charts (a screen reader, find-in-page) gets each chart's
    title in the page's language as its name and its text as text (no glyph outlines); and no
    published page says what drew its charts (matplotlib's <metadata>, its group ids)."""
    language, pages = pages
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium (see .ci/run)")
    from playwright.sync_api import sync_playwright

    problems, charts = [], 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_FLAGS)
        page = browser.new_page(viewport={"width": WIDTH, "height": 900})
        for path in pages:
            name = f"{path.parent.name}/{path.name}"
            raw = path.read_text(encoding="utf-8")
            if "matplotlib" in raw.lower():
                problems.append(f"{name}: names matplotlib")
            if "DejaVuSans-" in raw:
                problems.append(f"{name}: chart text drawn as glyph outlines")
            page.goto(path.as_uri(), wait_until="load")
            problems += [f"{name}: {p}" for p in page.evaluate(UNNAMED_CHARTS)]
            charts += page.evaluate("() => document.querySelectorAll('div.chart svg').length")
        browser.close()
    assert charts >= 10 and not problems, "\n".join(problems)
