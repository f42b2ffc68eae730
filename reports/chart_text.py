"""A chart's text as its reader gets it (reports/charts.py): legend labels kept short (the whole
label as the entry's tooltip) and legends kept inside the figure, an accessible name, and no
software internals in the published SVG.

- A legend label longer than :data:`LABEL` characters is shortened in the middle (``…``): a
  system id of 115 characters beside the axes ran the legend 600 px past the figure's edge,
  every entry cut to its first characters. The page's tables name each system in full, and so
  does the entry's tooltip (an SVG ``<title>``). A chart's entries are shortened together
  (:func:`legend_labels`): two ids that differ only in their middle are shortened less.
- :func:`legend_inside` grows a figure whose legend still runs off it (many entries).
- :func:`published` gives the ``<svg>`` the role ``img`` and the chart's title (in the page's
  language: the caller translates it) as its name, and drops what matplotlib says of itself
  (:data:`METADATA`, its ``matplotlib.axis`` group ids).
- :func:`published` also keeps every id of a page unique: matplotlib numbers its groups
  (``figure_1``, ``axes_1``, ``patch_2``...) afresh in each figure and names its clip paths and
  markers by their shape, so a page of six charts gave one id up to sixteen times (an HTML
  page's ids are unique: a fragment link, ``getElementById`` and a screen reader's references
  take the first). A group's numbered id becomes its kind as a class (``class="patch"``); an id
  the chart refers to (``url(#…)``, ``href="#…"``) is prefixed by a hash of the chart.
"""

from __future__ import annotations

import hashlib
import html
import re

LABEL = 40  # characters: a longer legend label is shortened (an entry of about 3 inches)

# savefig's metadata, every key matplotlib writes by default dropped: no <metadata> element
# (its Creator named matplotlib and its version; a Date would change the bytes at each drawing)
METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}

_WHOLE = "whole-label-"  # the group id marking a shortened entry, the whole label in hex
_ID = re.compile(r' id="([^"]*)"')
_REFERENCE = re.compile(r'(url\(#|href="#)([^")]*)')


def shortened(label: str, limit: int = LABEL) -> str:
    """``label`` in at most ``limit`` characters: a longer one keeps its start and its end about
    an ellipsis (ids of one team's systems share their start and often differ at their end);
    a label of words keeps whole words about a spaced ellipsis ("Système de base : aléatoire,
    profil de la clé" -> "Système de base : … profil de la clé", not "…rofil de la clé")."""
    if len(label) <= limit:
        return label
    if " " not in label:
        tail = (limit - 1) // 2
        return f"{label[:limit - 1 - tail]}…{label[-tail:]}"
    tail = (limit - 3) // 2
    head, end = label[:limit - 3 - tail], label[-tail:]
    if label[len(head)] != " " and " " in head:
        head = head[:head.rindex(" ")]  # the word cut at the head's end left out
    if label[-tail - 1] != " " and " " in end:
        end = end[end.index(" ") + 1:]  # and the word cut at the end's start
    return f"{head.rstrip()} … {end.lstrip()}"


def legend_labels(names: list[str], limit: int = LABEL) -> list[str]:
    """The legend's entries for series ``names``, each :func:`shortened` and no two alike: names
    whose shortened forms meet (ids differing only in their middle) are shortened less, up to
    whole, until they differ."""
    labels = [shortened(name, limit) for name in names]
    while True:
        seen: dict[str, set[str]] = {}
        for name, label in zip(names, labels):
            seen.setdefault(label, set()).add(name)
        alike = {label for label, given in seen.items() if len(given) > 1}
        if not alike:
            return labels
        limit += 8
        labels = [shortened(name, limit) if label in alike else label
                  for name, label in zip(names, labels)]


def label_tooltips(legend, labels) -> None:
    """Mark each entry of ``legend`` whose text is not its whole label (``labels``, the entries'
    labels in order; extra entries are left alone): :func:`published` gives it the whole label
    as its tooltip."""
    for text, label in zip(legend.get_texts(), labels):
        if text.get_text() != label:
            text.set_gid(_WHOLE + label.encode("utf-8").hex())


def legend_inside(fig, legend, widest: float, rect=(0, 0, 1, 1)) -> None:
    """Grow the laid-out figure ``fig`` until ``legend`` lies inside it: wider (up to ``widest``
    inches) when the legend runs off its right edge, taller when it runs off its bottom (more
    entries than the axes are high); laid out again each time (``rect``: the area the layout
    uses). A figure that holds its legend is left as it was."""
    for _attempt in range(3):
        box = legend.get_window_extent(fig.canvas.get_renderer())
        right, below = box.x1 + 2 - fig.bbox.width, 2 - box.y0  # pixels, a small margin
        if right <= 0 and below <= 0:
            return
        width, height = fig.get_size_inches()
        fig.set_size_inches(min(widest, width + max(0.0, right) / fig.dpi),
                            height + max(0.0, below) / fig.dpi)
        fig.tight_layout(rect=rect)


def _tooltip(match: re.Match) -> str:
    return f"<g>\n<title>{html.escape(bytes.fromhex(match.group(1)).decode('utf-8'))}</title>"


def _ids_unique(svg: str) -> str:
    """``svg`` with ids no other chart of a page has: an id it refers to prefixed by a hash of
    ``svg`` (two charts differ in their data or their name), any other id (matplotlib's
    numbered groups) made a class naming the group's kind (``axes_1`` -> ``class="axes"``)."""
    referenced = {match.group(2) for match in _REFERENCE.finditer(svg)}
    prefix = "c" + hashlib.sha256(svg.encode("utf-8")).hexdigest()[:10] + "-"

    def renamed(match: re.Match) -> str:
        if match.group(1) in referenced:
            return f' id="{prefix}{match.group(1)}"'
        return f' class="{re.sub(r"_[0-9]+$", "", match.group(1))}"'

    svg = _ID.sub(renamed, svg)
    return _REFERENCE.sub(lambda match: match.group(1) + prefix + match.group(2), svg)


def published(svg: str, name: str) -> str:
    """The ``<svg>`` element of matplotlib's SVG output ``svg`` as a page publishes it: an image
    named ``name`` (``role="img"``, ``aria-label``), each shortened legend entry with its whole
    label as tooltip, its ids unique on the page (:func:`_ids_unique`; matplotlib's
    ``matplotlib.axis_N`` groups of class ``axis``)."""
    svg = svg[svg.index("<svg"):]
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(name)}" ', 1)
    svg = svg.replace('<g id="matplotlib.axis_', '<g id="axis_')
    return _ids_unique(re.sub(rf'<g id="{_WHOLE}([0-9a-f]*)">', _tooltip, svg))
