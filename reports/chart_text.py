"""A chart's text as its reader gets it (reports/charts.py): legend labels kept short (the whole
label as the entry's tooltip) and legends kept inside the figure, an accessible name, and no
software internals in the published SVG.

- A legend label longer than :data:`LABEL` characters is shortened in the middle (``…``): a
  system id of 115 characters beside the axes ran the legend 600 px past the figure's edge,
  every entry cut to its first characters. The page's tables name each system in full, and so
  does the entry's tooltip (an SVG ``<title>``).
- :func:`legend_inside` grows a figure whose legend still runs off it (many entries).
- :func:`published` gives the ``<svg>`` the role ``img`` and the chart's title (in the page's
  language: the caller translates it) as its name, and drops what matplotlib says of itself
  (:data:`METADATA`, its ``matplotlib.axis`` group ids).
"""

from __future__ import annotations

import html
import re

LABEL = 32  # characters: a longer legend label is shortened (an entry of about 2.4 inches)

# savefig's metadata, every key matplotlib writes by default dropped: no <metadata> element
# (its Creator named matplotlib and its version; a Date would change the bytes at each drawing)
METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}

_WHOLE = "whole-label-"  # the group id marking a shortened entry, the whole label in hex


def shortened(label: str, limit: int = LABEL) -> str:
    """``label`` in at most ``limit`` characters: a longer one keeps its start and its end about
    an ellipsis (ids of one team's systems share their start and often differ at their end)."""
    if len(label) <= limit:
        return label
    tail = (limit - 1) // 2
    return f"{label[:limit - 1 - tail]}…{label[-tail:]}"


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


def published(svg: str, name: str) -> str:
    """The ``<svg>`` element of matplotlib's SVG output ``svg`` as a page publishes it: an image
    named ``name`` (``role="img"``, ``aria-label``), each shortened legend entry with its whole
    label as tooltip, matplotlib's ``matplotlib.axis_N`` group ids ``axis_N``."""
    svg = svg[svg.index("<svg"):]
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{html.escape(name)}" ', 1)
    svg = svg.replace('<g id="matplotlib.axis_', '<g id="axis_')
    return re.sub(rf'<g id="{_WHOLE}([0-9a-f]*)">', _tooltip, svg)
