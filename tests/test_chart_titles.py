"""Every chart's text lies inside its SVG (issue 24, item 7: long titles were cut at the left,
"ppels: WER per method…"), measured as a reader sees it: each chart inlined in a page opened in
Chromium, the bounding box of every text element (a <text>, or matplotlib's <g id="text_…"> of
glyph paths) compared with the box of its <svg>."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import BROWSER_FLAGS, CHROMIUM

from scorehouse.reports import charts
from scorehouse.reports.i18n import Language

LONG = ("Appels: WER per method and system on the dev corpus, lower is better, with 95 % "
        "bootstrap intervals (Koehn 2004) over the calls")
SYSTEMS = {"sys-a": [0.2, 0.3], "sys-b": [0.25, 0.28]}

OUTSIDE = """() => [...document.querySelectorAll('svg')].flatMap((svg, k) => {
    const frame = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text, g[id^="text_"]')].filter(t => {
        const box = t.getBoundingClientRect();
        return box.width > 0 && (box.left < frame.left - 0.5 || box.right > frame.right + 0.5
            || box.top < frame.top - 0.5 || box.bottom > frame.bottom + 0.5);
    }).map(t => `chart ${k}: ${t.textContent || t.id}`);
})"""


def _calls(language: Language) -> list[tuple]:
    """Each chart function with its arguments: ``(function, args, keywords)``."""
    labels = ["m1", "m2"]
    matrix = [[1.0, 0.5], [0.5, 1.0]]
    zone = {"label": "sys-a", "OK": 80, "ERR": 10, "SIL_ok": 2, "SIL_err": 3, "SIL": 10,
            "P": 0.89, "D": 0.9, "Pmin": 0.8, "Pmoy": 0.85, "Pmax": 0.9, "pct_noneval": 1.0}
    given = {"language": language}
    return [
        (charts.grouped_bars, (labels, SYSTEMS, SYSTEMS, SYSTEMS, "WER", LONG), given),
        (charts.heatmap, (matrix, labels, labels, LONG), given),
        (charts.way_lines, (labels, SYSTEMS, "F", LONG), given),
        (charts.label_bars, (labels, SYSTEMS, "F", LONG), given),
        (charts.correlation_heatmap, (matrix, labels, "CorefUD: " + LONG), given),
        (charts.operating_zones, ([zone], LONG), given),
    ]


def _charts(language: Language) -> list[str]:
    return [chart(*args, **keywords) for chart, args, keywords in _calls(language)]


def test_each_chart_is_drawn_once(monkeypatch):
    """A chart laid out (``tight_layout``, then its long title wrapped and laid out again) is
    drawn once, by ``savefig``: the layout engine ``tight_layout`` leaves in place made
    ``savefig`` draw the whole figure a first time for nothing (a third of a chart's time)."""
    from matplotlib.figure import Figure

    drawn = []
    draw = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda fig, renderer: drawn.append(fig)
                        or draw(fig, renderer))
    for chart, args, keywords in _calls(Language("en")):
        drawn.clear()
        svg = chart.__wrapped__(*args, **keywords)  # drawn, not read from the chart folder
        assert svg.startswith("<svg") and len(drawn) == 1, (chart.__name__, len(drawn))


@pytest.mark.parametrize("tag", ["en", "fr"])
def test_chart_text_lies_inside_the_svg(tmp_path: Path, tag):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    page_path = tmp_path / "charts.html"
    page_path.write_text("<!doctype html><html><body>" + "".join(
        f"<div>{svg}</div>" for svg in _charts(Language(tag))) + "</body></html>",
        encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_FLAGS)
        page = browser.new_page(viewport={"width": 1600, "height": 900})
        page.goto(page_path.as_uri(), wait_until="load")
        count = page.evaluate("() => document.querySelectorAll('svg g[id^=\"text_\"], svg text')"
                              ".length")
        outside = page.evaluate(OUTSIDE)
        browser.close()
    assert count > 20  # the charts' text was found
    assert not outside, outside
