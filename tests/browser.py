"""Headless Chromium for the bulletin tests (Debian's chromium driven by Playwright).

``browse(page, selectors)`` opens a page and returns its text (every collapsed section opened),
its console errors and failed requests, and how many elements match each selector, plus
``"unsigned tables"``: tables whose section (up to the next heading) shows no signature line.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
BROWSER_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-sync", "--disable-background-networking", "--disable-component-update"]

# Tables whose section (up to the next heading) shows no signature line: the section around the
# table at the page's level, or inside the collapsible <details> block that holds it.
UNSIGNED_TABLES = ("""() => [...document.querySelectorAll('table')].filter(t => {
    const signed = (block) => {
        for (let e = block.nextElementSibling; e && !/^H[1-3]$/.test(e.tagName);
             e = e.nextElementSibling)
            if (e.classList.contains('signature')) return true;
        return false;
    };
    for (let block = t; block.parentElement; block = block.parentElement) {
        const level = block.parentElement;  // a signature after the table in its own box (a
        if (signed(block)) return false;  // board's), or after the box, up to the next heading
        if (level === document.body) break;
    }
    return true;
}).length""")


def browse(page_path: Path, selectors: tuple[str, ...]):
    """Open a page; return (page text, console errors and failed requests, counts per selector)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("SCOREHOUSE_NO_BROWSER") == "1":
            pytest.skip("SCOREHOUSE_NO_BROWSER=1: no Chromium on this machine")
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium (see .ci/run)")
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_FLAGS)
        page = browser.new_page()
        page.on("console",
                lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))
        page.goto(page_path.as_uri(), wait_until="load")
        counts = {sel: page.locator(sel).count() for sel in selectors}
        counts["unsigned tables"] = page.evaluate(UNSIGNED_TABLES)
        # the text as a reader who expands every collapsed section reads it
        page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        text = page.inner_text("body")
        browser.close()
    return text, errors, counts
