"""What every published page must obey, as a reader sees it in Chromium at 1,280 px (issue 24:
pages that agree with themselves, headline first): the checks of tests/test_page_contract.py.

:func:`contract_problems` opens a page (every collapsed section opened) and returns what breaks
the contract, one line each:

- the page scrolls sideways;
- a table's system column (its first) or a headline column (``.headline``: the official metric,
  CoNLL average, LAS, WER, F, P/D) is out of view at the table's first scroll position, or the
  system column leaves the view when the table is scrolled to its far end;
- a chart's legend covers a bar, a plotted point or a line;
- a heading with nothing under it (no text, table or chart before the next heading of its
  level), a table without a data row, a list without an item;
- a statement that no submission exists in a section that shows a table of systems;
- an id given to more than one element.
"""

from __future__ import annotations

from pathlib import Path

WIDTH = 1280

CHECKS = """() => {
  const out = [];
  const visible = e => e.getClientRects().length > 0;
  const name = t => (t.className || t.id || 'table') + '#' +
      [...document.querySelectorAll('table')].indexOf(t);
  if (document.documentElement.scrollWidth > window.innerWidth)
    out.push('page is ' + document.documentElement.scrollWidth + ' px wide');
  // system column and headline columns in view
  for (const t of document.querySelectorAll('table')) {
    if (!visible(t)) continue;
    const firsts = [...t.querySelectorAll('td:first-child:not([colspan]):not(.sep)'),
                    ...t.querySelectorAll('tr:first-child > th:first-child')];
    const heads = [...t.querySelectorAll('.headline')];
    const inView = (cells, what) => {
      const box = t.getBoundingClientRect();
      const right = Math.min(window.innerWidth, box.left + t.clientWidth) + 1;
      for (const c of cells) {
        if (!visible(c)) continue;
        const r = c.getBoundingClientRect();
        if (r.left < box.left - 1 || r.right > right) {
          out.push(name(t) + ': ' + what + ' "' + c.innerText.split('\\n')[0] + '" out of view');
          return;
        }
      }
    };
    t.scrollLeft = 0;
    inView(firsts, 'system column'); inView(heads, 'headline column');
    if (t.scrollWidth > t.clientWidth) {
      t.scrollLeft = t.scrollWidth;
      inView(firsts, 'system column (scrolled)');
      t.scrollLeft = 0;
    }
    const rows = [...t.rows].filter(r => !r.classList.contains('group') &&
                                         r.querySelector('td'));
    if (!rows.length) out.push(name(t) + ': no data row');
  }
  for (const l of document.querySelectorAll('ul, ol'))
    if (visible(l) && !l.querySelector('li')) out.push('a list without an item');
  // legends over plotted data (matplotlib SVG groups, classed by reports/chart_text.py:
  // axes > patch bars, line2d lines)
  for (const svg of document.querySelectorAll('svg')) {
    const legends = [...svg.querySelectorAll('g.legend')]
        .map(g => g.getBoundingClientRect());
    if (!legends.length) continue;
    const inLegend = e => e.closest('g.legend') !== null;
    const inside = (b, x, y) => x > b.left + 0.5 && x < b.right - 0.5 &&
                                y > b.top + 0.5 && y < b.bottom - 0.5;
    for (const axes of svg.querySelectorAll('g.axes')) {
      const patches = [...axes.children].filter(g => g.classList.contains('patch'));
      if (!patches.length) continue;
      // the first patch is the axes' background: what is drawn is clipped to it
      const frame = patches[0].getBoundingClientRect();
      const hits = (x, y) => inside(frame, x, y) && legends.some(b => inside(b, x, y));
      for (const g of patches.slice(1)) {
        if (inLegend(g)) continue;
        const whole = g.getBoundingClientRect();
        const r = {left: Math.max(whole.left, frame.left),
                   right: Math.min(whole.right, frame.right),
                   top: Math.max(whole.top, frame.top),
                   bottom: Math.min(whole.bottom, frame.bottom)};
        r.width = r.right - r.left; r.height = r.bottom - r.top;
        if (r.width <= 0 || r.height <= 0) continue;
        if (r.width * r.height < 1) continue;
        if (legends.some(b => Math.min(r.right, b.right) - Math.max(r.left, b.left) > 0.5 &&
                              Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top) > 0.5))
          out.push('legend over a bar (' + (svg.closest('.chart') || svg).className + ')');
      }
      const lines = [...axes.children].filter(g => g.classList.contains('line2d') ||
                                                     g.classList.contains('LineCollection'));
      for (const g of lines) {
        if (inLegend(g)) continue;
        for (const u of g.querySelectorAll('use')) {
          const r = u.getBoundingClientRect();
          if (hits((r.left + r.right) / 2, (r.top + r.bottom) / 2)) {
            out.push('legend over a plotted point'); break; }
        }
        for (const p of g.querySelectorAll('path')) {
          const n = p.getTotalLength(), m = p.getScreenCTM();
          for (let k = 0; k <= 200; k++) {
            const q = p.getPointAtLength(n * k / 200);
            if (hits(m.a * q.x + m.c * q.y + m.e, m.b * q.x + m.d * q.y + m.f)) {
              out.push('legend over a line'); break; }
          }
        }
      }
    }
  }
  // empty headings: nothing before the next heading of the same or a higher level
  const level = e => /^H[1-6]$/.test(e.tagName) ? +e.tagName[1] : 0;
  for (const h of document.querySelectorAll('h2, h3, h4')) {
    if (!visible(h)) continue;
    let content = false;
    for (let e = h.nextElementSibling; e; e = e.nextElementSibling) {
      if (level(e) && level(e) <= level(h)) break;
      if (level(e) || e.innerText.trim() || e.querySelector('table, svg')) {
        content = true; break; }
    }
    if (!content) out.push('empty heading "' + h.innerText.trim() + '"');
  }
  // "no submission" beside a table of systems, in the same section
  for (const n of document.querySelectorAll('p, div.note')) {
    if (!/No published submission|not scored yet/i.test(n.innerText)) continue;
    for (let e = n.nextElementSibling; e && !level(e); e = e.nextElementSibling)
      if (e.matches('table') && e.querySelector('td:not([colspan])'))
        out.push('"' + n.innerText.trim().slice(0, 60) + '" beside a table of systems');
    for (let e = n.previousElementSibling; e && !level(e); e = e.previousElementSibling)
      if (e.matches('table') && e.querySelector('td:not([colspan])') &&
          !e.matches('.corpora, [class$="-corpora"]'))
        out.push('"' + n.innerText.trim().slice(0, 60) + '" beside a table of systems');
  }
  // ids: unique on the page (a fragment link, getElementById, aria references take the first)
  const ids = new Map();
  for (const e of document.querySelectorAll('[id]')) ids.set(e.id, (ids.get(e.id) || 0) + 1);
  for (const [id, n] of ids) if (n > 1) out.push('id "' + id + '" given ' + n + ' times');
  return out;
}"""


def contract_problems(page, path: Path) -> list[str]:
    """The contract's problems on one page (``page``: a Playwright page at :data:`WIDTH` px)."""
    page.goto(path.as_uri(), wait_until="load")
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    return page.evaluate(CHECKS)
