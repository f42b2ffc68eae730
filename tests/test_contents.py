"""A page's section anchors and table of contents (reports/render.py ``with_contents``): the
generated anchors do not move when a headline is put before the contents (a link a reader kept,
``asr/index.html#s3``, still opens the section it opened), every entry links to a heading of the
page, and a short page has no table of contents."""

from __future__ import annotations

import re

from scorehouse.reports.render import CONTENTS, with_contents

HEADER = "<header><h1>Task</h1></header>\n"
SECTIONS = ("<h2>Corpora</h2><p>a</p>\n<h2>Dev</h2>\n<h3>WER per method</h3><p>b</p>\n"
            '<h3 id="paired">Paired tests</h3><p>c</p>\n<h2>Test</h2>\n<h3>WER per method</h3>'
            "<p>d</p>\n")
HEADLINE = '<h2 id="official-results">Official results</h2>\n<h3>Dev: WER</h3><table></table>\n'


def _anchors(html: str) -> dict[str, str]:
    """Each section heading's text -> its id, after the contents marker's place."""
    return {f"{k}:{title}": ident for k, (ident, title) in enumerate(
        re.findall(r'<h[23][^>]* id="([^"]*)"[^>]*>(.*?)</h[23]>', html))}


def test_a_headline_before_the_contents_moves_no_anchor():
    plain = with_contents(HEADER + CONTENTS + "\n" + SECTIONS)
    headed = with_contents(HEADER + HEADLINE + CONTENTS + "\n" + SECTIONS)
    sections = headed[headed.index("Corpora") - 20:]
    assert _anchors(plain[plain.index("</nav>"):]) == _anchors(sections[sections.index("</nav>"):])
    assert '<h2 id="s1">Corpora</h2>' in headed and '<h3 id="paired">' in headed  # kept as given


def test_each_entry_of_the_contents_opens_a_heading_of_the_page():
    html = with_contents(HEADER + HEADLINE + CONTENTS + "\n" + SECTIONS, "Sommaire")
    toc = re.search(r'<nav class="toc" aria-label="Sommaire">(.*?)</nav>', html, re.S).group(1)
    links = re.findall(r'href="#([^"]*)"', toc)
    ids = re.findall(r' id="([^"]*)"', html)
    assert links and set(links) <= set(ids) and len(ids) == len(set(ids)), (links, ids)
    assert html.index("official-results") < html.index('<nav class="toc"') < html.index("s1")
    assert toc.count("<ol>") == 4  # the sections, and the subsections of the headline, Dev, Test


def test_a_short_page_has_no_contents():
    html = with_contents(HEADER + CONTENTS + "\n<h2>Corpora</h2><p>a</p>\n")
    assert "<nav" not in html and CONTENTS not in html and '<h2 id="s1">' in html
