"""Charts as inline SVG (matplotlib, Agg backend): no network needed to view a bulletin."""

from __future__ import annotations

import functools
import io
import textwrap

from scorehouse.reports.chart_cache import kept
from scorehouse.reports.chart_text import (
    METADATA,
    label_tooltips,
    legend_inside,
    legend_labels,
    published,
)
from scorehouse.reports.i18n import Language


@functools.cache
def _plt():
    """matplotlib's pyplot (Agg backend), imported when a chart is first drawn: a rendering whose
    charts all come from the cache (reports/chart_cache.py) does without (0.2 s of CPU)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "scorehouse"  # stable ids: same data, same bytes
    # text as <text>, not glyph outlines: read by screen readers and find-in-page, and smaller;
    # drawn in DejaVu Sans (matplotlib's metrics) where the reader has it, else a narrower font
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt

    return plt


def warm() -> None:
    """Import what drawing a chart imports (pyplot, its SVG backend, the artists), drawing
    nothing: a run does it while its workers compute its units (``RunContext.on_wait``), so
    that the first chart of its pages costs what the next ones do (a POS page's chart 0.48 ->
    0.24 s, by hand)."""
    _plt()
    import matplotlib.backends.backend_svg  # noqa: F401
    import matplotlib.lines  # noqa: F401
    import matplotlib.patches  # noqa: F401
    import matplotlib.textpath  # noqa: F401
    import matplotlib.ticker  # noqa: F401


def FuncFormatter(function):  # noqa: N802 (matplotlib's name, imported when first drawn)
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(function)


ENGLISH = Language()  # every chart speaks its page's language: labels by ``_``, numbers by Babel

# Legible at 100 % zoom on a 1,280 px screen: no figure wider than the page's column (so it is
# never drawn smaller than made), no text under 7.5 pt (10 px as drawn): tests/test_page_layout.py
WIDE = 10.5  # inches
SMALL = 7.5  # points


@kept
def grouped_bars(groups: list[str], series: dict[str, list[float | None]],
                 low: dict[str, list[float | None]], high: dict[str, list[float | None]],
                 ylabel: str, title: str, language: Language = ENGLISH) -> str:
    """Bars per group (e.g. method) and series (e.g. system) with interval error bars, the legend
    beside the axes (never over a bar: :func:`_legend_beside`); a group no series has a value
    for leaves no slot. SVG text."""
    groups, series, low, high = _with_values(groups, series, low, high)
    fig, ax = _plt().subplots(
        figsize=(min(WIDE, max(5.0, 1.2 * len(groups) * max(1, len(series)) / 2)), 3.4))
    width, labels = 0.8 / max(1, len(series)), legend_labels(list(series))
    for k, (name, values) in enumerate(series.items()):
        xs = [g + (k - (len(series) - 1) / 2) * width for g in range(len(groups))]
        ys = [v if v is not None else 0.0 for v in values]
        err = [[max(0.0, y - (lo if lo is not None else y)) for y, lo in zip(ys, low[name])],
               [max(0.0, (hi if hi is not None else y) - y) for y, hi in zip(ys, high[name])]]
        ax.bar(xs, ys, width, label=labels[k], yerr=err, capsize=2,
               error_kw={"elinewidth": 0.8})
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylabel(ylabel)
    ax.yaxis.set_major_formatter(FuncFormatter(language.numbers.tick))
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    return _svg_text(fig, title, legend=_legend_beside(fig, ax, list(series)))


def _legend_beside(fig, ax, names: list[str]):
    """The legend beside ``ax``, never over a bar or a line, its entries the series ``names``
    (drawn with :func:`reports.chart_text.legend_labels`; a shortened one has its whole name
    as tooltip); the figure laid out. Returns the legend, for :func:`_svg_text` to keep it
    inside the figure."""
    legend = ax.legend(fontsize=SMALL, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    label_tooltips(legend, names)
    # a figure at least as tall as the legend and an inch of titles and ticks: laid out without
    # matplotlib's "margins cannot be made large enough" (many series)
    tall = legend.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi + 1.2
    fig.set_figheight(max(fig.get_figheight(), tall))
    fig.tight_layout()
    return legend


def _with_values(categories: list[str], series: dict[str, list], *more: dict[str, list]):
    """``categories`` and the per-series lists (``series`` and each of ``more``) without the
    categories no series has a value for: a chart shows no empty slot."""
    kept = [i for i in range(len(categories)) if any(v[i] is not None for v in series.values())]
    return ([categories[i] for i in kept],
            *({name: [values[i] for i in kept] for name, values in table.items()}
              for table in (series, *more)))


def operating_zone_band(ok: float, err: float, sil_ok: float, sil_err: float, sil: float,
                        points: int = 400):
    """The exact operating zone of a POS system as a band over decision: ``(D, P_low, P_high)``.

    Resolving the SIL silences moves ``ok`` of them to correct and ``err`` to wrong, with
    0 <= ok <= SIL - SIL_err, 0 <= err <= SIL - SIL_ok, ok + err <= SIL (docs/metrics/pos.md); then
    D = (OK + ERR + s) / (OK + ERR + SIL) with s = ok + err and P = (OK + ok) / (OK + ERR + s).
    D depends on s only, so each decision level is one vertical slice of the (ok, err) pentagon,
    ok in [max(0, s - (SIL - SIL_ok)), min(SIL - SIL_err, s)], and P is increasing in ok: the
    zone is exactly the region between the two curves below (hyperbolic arcs, since D·P is
    affine in (ok, err)); it need not be convex. The grid is dense in s and holds the kinks
    (s = SIL - SIL_err, s = SIL - SIL_ok) exactly. Empty arrays when nothing is evaluable.
    """
    import numpy as np

    decided, total = ok + err, ok + err + sil
    if total <= 0:
        return np.array([]), np.array([]), np.array([])
    most_ok, most_err = sil - sil_err, sil - sil_ok
    s = np.unique(np.concatenate([np.linspace(0.0, sil, max(2, points)), [most_ok, most_err, sil]]))
    s = s[(s >= 0) & (s <= sil) & (decided + s > 0)]
    low_ok = np.maximum(0.0, s - most_err)
    high_ok = np.minimum(most_ok, s)
    return (decided + s) / total, (ok + low_ok) / (decided + s), (ok + high_ok) / (decided + s)


@kept
def operating_zones(systems: list[dict], title: str, zoom: bool = True,
                    language: Language = ENGLISH) -> str:
    """The (decision, precision) plane of docs/metrics/pos.md; SVG text.

    ``systems``: dicts with ``label``, ``OK``, ``ERR``, ``SIL_ok``, ``SIL_err``, ``SIL``, ``P``,
    ``D``, ``Pmin``, ``Pmoy``, ``Pmax``, ``pct_noneval`` and optional ``baseline`` (drawn dashed,
    left out of the zoom). Per system: (D, P) filled, (1, Pmin) / (1, Pmoy) / (1, Pmax) hollow,
    the paper's triangle (D, P)-(1, Pmin)-(1, Pmax) dashed and lightly filled, and the exact zone
    (:func:`operating_zone_band`) filled with a solid outline. Left panel: the unit square; right
    panel (``zoom``, when the non-baseline systems' (D, P) points span less than 0.5 in
    precision): those points, the zones running off the frame.
    """
    import numpy as np
    from matplotlib.lines import Line2D
    from matplotlib.patches import Polygon

    drawable = [s for s in systems if s.get("D") is not None]
    # The zoom frames the participants' (D, P) points: the zones may run off it.
    focus = [(s["D"], s["P"]) for s in drawable if not s.get("baseline") and s.get("P") is not None]
    span = (max(y for _, y in focus) - min(y for _, y in focus)) if focus else 1.0
    panels = 2 if zoom and focus and span < 0.5 else 1
    rows = -(-(len(systems) + 6) // 3)  # legend rows: systems and the six keys, three a row
    fig, axes = _plt().subplots(1, panels, figsize=(min(WIDE, 5.2 * panels), 4.3 + 0.17 * rows),
                                squeeze=False)
    axes = axes[0]
    colours = _plt().get_cmap("tab10")
    handles, names, _ = [], [], language._
    labels = legend_labels([s["label"] for s in systems])
    for k, s in enumerate(systems):
        colour = colours(k % 10)
        style = "--" if s.get("baseline") else "-"
        pct = s.get("pct_noneval")
        mark = (f" ({_('baseline')})" if s.get("baseline")
                and _("baseline") not in s["label"].lower() else "")
        # two no-break spaces: a gap SVG text keeps (spaces collapse), French before "%"
        rest = f"{mark}\u00a0\u00a0%NONEVAL = {language.numbers.num(pct, 1)}"
        names.append(s["label"] + rest)  # the legend's entry shortened, its tooltip whole
        handles.append(Line2D([], [], color=colour, marker="o", linestyle=style,
                              label=labels[k] + rest))
        if s.get("D") is None:
            continue
        d, lo, hi = operating_zone_band(s["OK"], s["ERR"], s["SIL_ok"], s["SIL_err"], s["SIL"])
        corners = [(s["D"], s["P"]) if s.get("P") is not None else None, (1.0, s["Pmin"]),
                   (1.0, s["Pmax"])]
        for i, ax in enumerate(axes):
            if len(d) > 1:
                ax.fill_between(d, lo, hi, color=colour, alpha=0.14, linewidth=0)
                outline_x = np.concatenate([d, d[::-1], d[:1]])
                outline_y = np.concatenate([hi, lo[::-1], hi[:1]])
                ax.plot(outline_x, outline_y, color=colour, linewidth=0.9, linestyle=style)
            if corners[0] is not None and s["D"] < 1:
                ax.add_patch(Polygon(corners, closed=True, facecolor=colour, alpha=0.10,
                                     edgecolor="none"))
                ax.add_patch(Polygon(corners, closed=True, fill=False, edgecolor=colour,
                                     linewidth=0.9, linestyle=(0, (1.5, 1.5))))
            if s.get("P") is not None:
                ax.plot([s["D"]], [s["P"]], marker="o", markersize=6, color=colour,
                        linestyle="none", markeredgecolor="black", markeredgewidth=0.4,
                        clip_on=i > 0, zorder=3)
            for value, marker in ((s["Pmin"], "v"), (s["Pmoy"], "D"), (s["Pmax"], "^")):
                ax.plot([1.0], [value], marker=marker, markersize=5 if marker != "D" else 4,
                        markerfacecolor="white", markeredgecolor=colour, linestyle="none",
                        clip_on=i > 0)
    for i, ax in enumerate(axes):
        ax.set_xlabel(_("Decision D"))
        ax.set_ylabel(_("Precision P"))
        ax.xaxis.set_major_formatter(FuncFormatter(language.numbers.tick))
        ax.yaxis.set_major_formatter(FuncFormatter(language.numbers.tick))
        ax.grid(alpha=0.3)
        ax.set_axisbelow(True)
        if i == 0:
            ax.set_xlim(0, 1.01)
            ax.set_ylim(0, 1.01)
            ax.set_title(_("Unit square"), fontsize=9)
        else:
            xs, ys = [x for x, _ in focus], [y for _, y in focus]
            pad_x = max(0.01, 0.06 * (max(xs) - min(xs)))
            pad_y = max(0.005, 0.12 * (max(ys) - min(ys)))
            ax.set_xlim(max(0.0, min(xs) - pad_x), 1.0 + pad_x / 3)
            ax.set_ylim(max(0.0, min(ys) - pad_y), max(ys) + pad_y)
            ax.set_title(_("Zoom on the participants' (D, P)"), fontsize=9)
    handles += [Line2D([], [], color="grey", marker="o", linestyle="none", label="(D, P)"),
                Line2D([], [], color="grey", marker="v", markerfacecolor="white", linestyle="none",
                       label="(1, Pmin)"),
                Line2D([], [], color="grey", marker="D", markerfacecolor="white", markersize=4,
                       linestyle="none", label="(1, Pmoy)"),
                Line2D([], [], color="grey", marker="^", markerfacecolor="white", linestyle="none",
                       label="(1, Pmax)"),
                Polygon([(0, 0)], closed=True, facecolor="grey", alpha=0.3, edgecolor="grey",
                        label=_("exact zone")),
                Polygon([(0, 0)], closed=True, facecolor="none", edgecolor="grey",
                        linestyle=(0, (1.5, 1.5)), label=_("triangle (approximation)"))]
    fig.suptitle(title, fontsize=10)
    for ncols in (3, 2, 1):  # below the axes, in as many columns as the figure's width holds
        legend = fig.legend(handles=handles, loc="lower center", ncols=ncols, fontsize=SMALL,
                            frameon=False)
        if ncols == 1 or (legend.get_window_extent(fig.canvas.get_renderer()).width
                          <= fig.bbox.width - 6):
            break
        legend.remove()
    label_tooltips(legend, names)
    rows = -(-len(handles) // ncols)
    fig.set_figheight(4.3 + 0.17 * rows)
    rect = (0, (0.17 * rows + 0.1) / (4.3 + 0.17 * rows), 1, 1)
    fig.tight_layout(rect=rect)
    return _svg_text(fig, title, rect)


def _fit_titles(fig, rect=(0, 0, 1, 1)) -> None:
    """Wrap each title (the figure's, the axes') wider than the room it has: a title is centred
    (on its axes, or on the figure), so it fits when it is no wider than twice the distance
    from its centre to the nearer edge; the layout is then redone (``rect``: the area it
    uses). A long title was cut at the figure's edges (issue 24, item 7)."""
    renderer = fig.canvas.get_renderer()
    for _attempt in range(4):
        changed = False
        for text in [getattr(fig, "_suptitle", None), *(ax.title for ax in fig.axes)]:
            if text is None or not text.get_text():
                continue
            box = text.get_window_extent(renderer)
            centre = (box.x0 + box.x1) / 2
            room = 2 * min(centre, fig.bbox.width - centre) - 6  # pixels, a small margin
            if box.width <= room:
                continue
            longest = max(len(line) for line in text.get_text().split("\n"))
            width = max(10, min(longest - 1, int(longest * room / box.width)))
            text.set_text(textwrap.fill(text.get_text().replace("\n", " "), width))
            changed = True
        if not changed:
            return
        fig.tight_layout(rect=rect)


def _svg_text(fig, title: str, rect=(0, 0, 1, 1), legend=None) -> str:
    """The figure as SVG text (the ``<svg>`` element only, an image named ``title``: see
    :func:`reports.chart_text.published`), its titles fitted (:func:`_fit_titles`), then the
    figure grown to hold ``legend`` if given (a legend beside the axes); the figure is
    closed."""
    _fit_titles(fig, rect)
    if legend is not None:
        legend_inside(fig, legend, WIDE, rect)
    # laid out already: without this, savefig draws the whole figure once more first, for the
    # placeholder layout engine tight_layout leaves (a third of a chart's time; the same bytes)
    fig.set_layout_engine(None)
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata=METADATA)
    _plt().close(fig)
    return published(buffer.getvalue(), title)


@kept
def heatmap(values: list[list[float | None]], rows: list[str], columns: list[str], title: str,
            vmin: float = 0.0, vmax: float = 1.0, scale: float = 100.0, digits: int = 0,
            language: Language = ENGLISH) -> str:
    """A matrix of scores drawn with ``imshow``, each value written in its cell (times ``scale``,
    ``digits`` decimals); a None cell is left blank on grey. Used for the EASY paper's figure 2
    (F per genre x relation type of one system). SVG text."""
    fig, ax = _plt().subplots(figsize=(min(WIDE, max(5.5, 2.2 + 0.62 * len(columns))),
                                    1.5 + 0.36 * len(rows)))

    def ink(cmap, v):  # black on a light cell, white on a dark one
        r, g, b, _ = cmap((v - vmin) / (vmax - vmin) if vmax > vmin else 0.0)
        return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"

    return _cells(fig, ax, values, rows, columns, "viridis", (vmin, vmax), scale, digits, ink,
                  title, 0.03, language, aspect="auto")


def _cells(fig, ax, values: list[list[float | None]], rows: list[str], columns: list[str],
           colours: str, limits: tuple[float, float], scale: float, digits: int, ink,
           title: str, fraction: float, language: Language, aspect: str | None = None) -> str:
    """The matrix ``values`` (``rows`` x ``columns``) drawn on ``ax`` with ``imshow`` in the
    colour map ``colours`` over ``limits``, times ``scale``; each value written in its cell
    (``digits`` decimals, in the colour ``ink(cmap, value)``); a None cell blank on grey; the
    colour bar ``fraction`` of the width; the figure laid out. SVG text: :func:`heatmap` and
    :func:`correlation_heatmap`."""
    import numpy as np

    matrix = np.array([[np.nan if v is None else float(v) for v in row] for row in values],
                      dtype=float).reshape(len(rows), len(columns))
    cmap = _plt().get_cmap(colours).with_extremes(bad="#e6e6e6")
    image = ax.imshow(np.ma.masked_invalid(scale * matrix), cmap=cmap, vmin=scale * limits[0],
                      vmax=scale * limits[1], aspect=aspect)
    for i in range(len(rows)):
        for j in range(len(columns)):
            v = matrix[i, j]
            if np.isfinite(v):
                ax.text(j, i, language.numbers.num(scale * v, digits), ha="center",
                        va="center", fontsize=SMALL, color=ink(cmap, v), in_layout=False)
    ax.set_xticks(range(len(columns)), columns, rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    ax.set_title(title, fontsize=9)
    fig.colorbar(image, ax=ax, fraction=fraction, pad=0.02,
                 format=FuncFormatter(language.numbers.tick))
    fig.tight_layout()
    return _svg_text(fig, title)


@kept
def way_lines(ways: list[str], series: dict[str, list[float | None]], ylabel: str, title: str,
              scale: float = 100.0, language: Language = ENGLISH) -> str:
    """One line with markers per series (e.g. system) over ordered categories (e.g. the 15
    mode x function ways of the EASY paper's figure 3); values times ``scale``; None: a gap; a
    category no series has a value for is left out."""
    ways, series = _with_values(ways, series)
    fig, ax = _plt().subplots(figsize=(min(WIDE, max(6.0, 0.5 * len(ways) + 2.0)), 3.6))
    markers, labels = "osD^v<>ph*", legend_labels(list(series))
    for k, (name, values) in enumerate(series.items()):
        ys = [float("nan") if v is None else scale * v for v in values]
        ax.plot(range(len(ways)), ys, marker=markers[k % len(markers)], markersize=4,
                linewidth=1.1, label=labels[k])
    ax.set_xticks(range(len(ways)), ways, rotation=45, ha="right", fontsize=7.5)
    ax.set_ylabel(ylabel)
    ax.yaxis.set_major_formatter(FuncFormatter(language.numbers.tick))
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.set_axisbelow(True)
    return _svg_text(fig, title, legend=_legend_beside(fig, ax, list(series)))


@kept
def label_bars(labels: list[str], series: dict[str, list[float | None]], ylabel: str, title: str,
               scale: float = 100.0, language: Language = ENGLISH) -> str:
    """Grouped bars over many labels (e.g. LAS F1 per dependency relation), one colour per series,
    labels rotated; the figure widens with the labels up to the page's width. None: no bar; a
    label with no value in any series is left out. SVG text."""
    labels, series = _with_values(labels, series)  # a label without a value leaves no slot
    fig, ax = _plt().subplots(figsize=(min(WIDE, max(6.0, 0.28 * len(labels) * max(
        1, len(series)) ** 0.5 + 1.5)), 3.8))
    width, entries = 0.8 / max(1, len(series)), legend_labels(list(series))
    for k, (name, values) in enumerate(series.items()):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(labels))]
        ax.bar(xs, [0.0 if v is None else scale * v for v in values], width,
               label=entries[k])
    ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=SMALL)
    ax.set_xlim(-0.6, len(labels) - 0.4)
    ax.set_ylabel(ylabel)
    ax.yaxis.set_major_formatter(FuncFormatter(language.numbers.tick))
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    return _svg_text(fig, title, legend=_legend_beside(fig, ax, list(series)))


@kept
def correlation_heatmap(values: list[list[float | None]], labels: list[str], title: str,
                        digits: int = 2, language: Language = ENGLISH) -> str:
    """A square matrix of rank correlations (e.g. Kendall's tau between evaluation measures across
    systems) on a diverging scale from -1 (blue) through 0 (white) to 1 (red), each value written
    in its cell; a None cell (no ranking to compare) is left blank on grey. SVG text."""
    side = min(7.5, max(4.0, 1.6 + 0.36 * len(labels)))
    fig, ax = _plt().subplots(figsize=(side + 0.9, side))
    return _cells(fig, ax, values, labels, labels, "RdBu_r", (-1.0, 1.0), 1.0, digits,
                  lambda cmap, v: "white" if abs(v) > 0.6 else "black", title, 0.04, language)
