"""Charts as inline SVG (matplotlib, Agg backend): no network needed to view a bulletin."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

matplotlib.rcParams["svg.hashsalt"] = "scorehouse"  # stable ids: same data, same bytes


def grouped_bars(groups: list[str], series: dict[str, list[float | None]],
                 low: dict[str, list[float | None]], high: dict[str, list[float | None]],
                 ylabel: str, title: str) -> str:
    """Bars per group (e.g. method) and series (e.g. system) with interval error bars; SVG text."""
    fig, ax = plt.subplots(figsize=(max(5.0, 1.2 * len(groups) * max(1, len(series)) / 2), 3.4))
    width = 0.8 / max(1, len(series))
    for k, (name, values) in enumerate(series.items()):
        xs = [g + (k - (len(series) - 1) / 2) * width for g in range(len(groups))]
        ys = [v if v is not None else 0.0 for v in values]
        err = [[max(0.0, y - (lo if lo is not None else y)) for y, lo in zip(ys, low[name])],
               [max(0.0, (hi if hi is not None else y) - y) for y, hi in zip(ys, high[name])]]
        ax.bar(xs, ys, width, label=name, yerr=err, capsize=2, error_kw={"elinewidth": 0.8})
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncols=2, frameon=False)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    fig.tight_layout()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    svg = buffer.getvalue()
    return svg[svg.index("<svg"):]
