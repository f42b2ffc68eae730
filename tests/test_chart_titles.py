"""Every chart's text lies inside its SVG (issue 24, item 7: long titles were cut at the left,
"ppels: WER per method…"; a system id of 115 characters ran the legend 600 px past the figure,
every entry cut to its first characters), measured as a reader sees it: each chart inlined in a
page opened in Chromium, the bounding box of every text element (a <text>, or matplotlib's
<g class="text"> of glyph paths) compared with the box of its <svg>. And every chart is an image
named by its title, its text written as text, with nothing of the software that drew it."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from browser import BROWSER_FLAGS, CHROMIUM
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.reports import charts
from scorehouse.reports.i18n import Language

TITLE = ("Appels: WER per method and system on the dev corpus, lower is better, with 95 % "
        "bootstrap intervals (Koehn 2004) over the calls")
SYSTEMS = {"sys-a": [0.2, 0.3], "sys-b": [0.25, 0.28]}
# ids as long as a reader found on a WER page, differing at their end only; and many systems
LONG_ID = "long-" + "abcdefghij" * 11
LONG = {LONG_ID: [0.2, 0.3], LONG_ID + "-v2": [0.22, 0.31], "sys-b": [0.25, 0.28]}
NONEVAL = "\u00a0\u00a0%NONEVAL"  # what an operating zone's entry adds to its system's id
MANY = {f"system-{k:02d}": [0.2 + k / 100, 0.3] for k in range(30)}

OUTSIDE = """() => [...document.querySelectorAll('svg')].flatMap((svg, k) => {
    const frame = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('text, g.text')].filter(t => {
        const box = t.getBoundingClientRect();
        return box.width > 0 && (box.left < frame.left - 0.5 || box.right > frame.right + 0.5
            || box.top < frame.top - 0.5 || box.bottom > frame.bottom + 0.5);
    }).map(t => `chart ${k}: ${t.textContent || t.id}`);
})"""


def _calls(language: Language, systems: dict = SYSTEMS, title: str = TITLE) -> list[tuple]:
    """Each chart function with its arguments: ``(function, args, keywords)``, ``systems`` its
    series (those with a legend)."""
    labels = ["m1", "m2"]
    matrix = [[1.0, 0.5], [0.5, 1.0]]
    zones = [{"label": name, "OK": 80, "ERR": 10 + k, "SIL_ok": 2, "SIL_err": 3, "SIL": 10,
              "P": 0.89, "D": 0.9, "Pmin": 0.8, "Pmoy": 0.85, "Pmax": 0.9, "pct_noneval": 1.0}
             for k, name in enumerate(systems)]
    given = {"language": language}
    return [
        (charts.grouped_bars, (labels, systems, systems, systems, "WER", title), given),
        (charts.heatmap, (matrix, labels, labels, title), given),
        (charts.way_lines, (labels, systems, "F", title), given),
        (charts.label_bars, (labels, systems, "F", title), given),
        (charts.correlation_heatmap, (matrix, labels, "CorefUD: " + title), given),
        (charts.operating_zones, (zones, title), given),
    ]


def _charts(language: Language, systems: dict = SYSTEMS) -> list[str]:
    return [chart(*args, **keywords) for chart, args, keywords in _calls(language, systems)]


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


@pytest.mark.slow
@pytest.mark.parametrize("systems", ["short", "long", "many"])
@pytest.mark.parametrize("tag", ["en", "fr"])
def test_chart_text_lies_inside_the_svg(tmp_path: Path, tag, systems):
    """Titles, tick labels and legends, whatever the titles' length, the systems' ids' (115
    characters) and their number (30)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    page_path = tmp_path / "charts.html"
    page_path.write_text("<!doctype html><html><body>" + "".join(
        f"<div>{svg}</div>" for svg in _charts(Language(tag), {
            "short": SYSTEMS, "long": LONG, "many": MANY}[systems])) + "</body></html>",
        encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_FLAGS)
        page = browser.new_page(viewport={"width": 1600, "height": 900})
        page.goto(page_path.as_uri(), wait_until="load")
        count = page.evaluate("() => document.querySelectorAll('svg g.text, svg text')"
                              ".length")
        outside = page.evaluate(OUTSIDE)
        browser.close()
    assert count > 20  # the charts' text was found
    assert not outside, outside


def test_a_long_label_is_shortened_in_the_legend_and_whole_in_its_tooltip():
    """Each legend entry of a long id tells it from the others in at most ``LABEL`` characters
    (its start and end about an ellipsis), its whole id its tooltip; short ids are as given."""
    from scorehouse.reports.chart_text import LABEL

    for chart, args, keywords in _calls(Language("en"), LONG):
        if chart in (charts.heatmap, charts.correlation_heatmap):
            continue  # no legend
        svg = chart(*args, **keywords)
        texts = re.findall(r"<text\b[^>]*>([^<]*)</text>", svg)
        entries = [t.split(NONEVAL)[0] for t in texts if t.startswith(("long-", "sys-b"))]
        assert len(entries) == 3 and len(set(entries)) == 3, (chart.__name__, texts)
        assert all(len(t) <= LABEL for t in entries) and entries[2] == "sys-b", entries
        assert entries[0].startswith("long-abcdefghij") and entries[1].endswith("j-v2")
        tooltips = re.findall(r"<title>([^<]*)</title>", svg)
        assert [t.split(NONEVAL)[0] for t in tooltips] == [LONG_ID, LONG_ID + "-v2"], (
            chart.__name__, tooltips)


def test_every_chart_is_an_image_named_by_its_title_in_text_without_software_internals():
    """Each chart's <svg> is an image (``role="img"``) named by its title, in the language the
    page gives it; its text is <text> (read by screen readers and find-in-page), not glyph
    outlines; it says nothing of matplotlib (no <metadata>: its version, its site)."""
    title = "Appels : WER par méthode et par système, intervalles « bootstrap » à 95 %"
    for chart, args, keywords in _calls(Language("fr"), SYSTEMS, title):
        svg = chart(*args, **keywords)
        name = ("CorefUD: " if chart is charts.correlation_heatmap else "") + title
        assert svg.startswith(f'<svg role="img" aria-label="{html.escape(name)}" '), svg[:200]
        assert "<text" in svg and "DejaVuSans-" not in svg, chart.__name__  # no glyph outlines
        assert "matplotlib" not in svg.lower() and "<metadata" not in svg, chart.__name__


def test_charts_on_one_page_give_each_id_once_and_refer_within_themselves():
    """Every chart of the round twice over (two data sets and titles: a page draws one kind of
    chart for several corpora or systems) on one page: each id is given once (matplotlib
    numbered its groups afresh in each figure and named clip paths and markers by shape: a page
    of six charts gave one id up to sixteen times), and each chart's references (``url(#…)``,
    ``href="#…"``) name an id of that chart; its groups keep their kind as a class."""
    drawn = [chart(*args, **keywords) for systems, title in ((SYSTEMS, TITLE), (LONG, "Dev"))
             for chart, args, keywords in _calls(Language("en"), systems, title)]
    ids = [found for svg in drawn for found in re.findall(r' id="([^"]*)"', svg)]
    assert ids and len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)[:5]
    for svg in drawn:
        own = set(re.findall(r' id="([^"]*)"', svg))
        references = re.findall(r'(?:url\(#|href="#)([^")]*)', svg)
        assert references and set(references) <= own, (set(references) - own, svg[:80])
        assert 'class="axes"' in svg and 'class="patch"' in svg, svg[:80]



@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab -é", min_size=1, max_size=90), min_size=1, max_size=8,
                unique=True))
def test_legend_labels_are_distinct_short_and_cut_between_words(names):
    """A chart's legend entries (``legend_labels``) differ where the names differ, whatever the
    names (one team's ids that differ only in their middle were shortened alike: two entries
    read the same). A name is shortened to at most ``LABEL`` characters, its start and end
    about an ellipsis; a name with spaces is cut between words where its kept start and end
    have a space to cut at."""
    from scorehouse.reports.chart_text import LABEL, legend_labels, shortened

    labels = legend_labels(names)
    assert len(set(labels)) == len(names), (names, labels)
    for name, label in zip(names, labels):
        short = shortened(name)
        assert len(short) <= LABEL and (short == name) == (len(name) <= LABEL), (name, short)
        if label == name:
            continue
        assert len(label) < len(name), (name, label)
        head, _, end = label.partition(" … " if " " in name else "…")
        assert name.startswith(head) and name.endswith(end), (name, label)
        if " " in name:
            assert " " not in head or name[len(head)] == " ", (name, label)
            assert " " not in end or name[-len(end) - 1] == " ", (name, label)


def test_words_are_kept_whole_and_middles_told_apart():
    """The demo's French baselines, one team's ids differing in their middle, and a name that
    reads as another one shortened, as a reader found legends ("Système de base …rofil de la
    clé"; two entries alike)."""
    from scorehouse.reports.chart_text import legend_labels, shortened

    assert (shortened("Système de base : aléatoire, profil de la clé")
            == "Système de base : … profil de la clé")
    whole = "Système de base : tout en singletons"
    assert shortened(whole) == whole
    ids = ["team-" + "x" * 40 + "-run1-" + "y" * 40, "team-" + "x" * 40 + "-run2-" + "y" * 40]
    assert shortened(ids[0]) == shortened(ids[1])
    first, second = legend_labels(ids)
    assert first != second and "…" in first and len(first) < len(ids[0])
    shown = "a" * 10 + " … " + "b" * 10
    longer = "a" * 10 + " " + "c" * 30 + " " + "b" * 10
    assert shortened(longer) == shown and len(set(legend_labels([shown, longer]))) == 2
