"""Render a campaign's bulletins: an index page and one page per task (family template)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from warehouse import __version__
from warehouse.db import frame
from warehouse.families import family


def environment() -> Environment:
    """The Jinja environment with the number filters every template uses."""
    env = Environment(loader=PackageLoader("reports", "templates"), autoescape=select_autoescape(["html"]),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = lambda v, d=1: "–" if v is None else f"{100 * v:.{d}f}"
    env.filters["num"] = lambda v, d=2: "–" if v is None else f"{v:.{d}f}"
    env.filters["p"] = lambda v: "–" if v is None else ("< 0.001" if v < 0.001 else f"{v:.3f}")
    return env


def render_campaign(con, campaign, out: Path) -> list[Path]:
    """Write ``index.html`` and one page (plus exported tables) per task into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    env = environment()
    run = frame(con, "SELECT run_id, started_at FROM cat_run WHERE campaign = ? ORDER BY run_id DESC LIMIT 1",
                [campaign.id]).to_dicts()
    common = {"campaign": campaign, "version": __version__, "run": run[0] if run else None,
              "generated": datetime.now().strftime("%Y-%m-%d %H:%M")}
    pages, written = [], []
    for task in campaign.tasks:
        folder = out / task.id
        folder.mkdir(exist_ok=True)
        data = family(task.family).page_data(con, campaign, task, folder)
        path = folder / "index.html"
        path.write_text(env.get_template(f"{task.family}.html").render(**common, **data, root="../"),
                        encoding="utf-8")
        pages.append({"task": task, "href": f"{task.id}/index.html"})
        written.append(path)
    participants = frame(con, "SELECT CASE WHEN publication = 'anonymous' THEN code ELSE name END AS shown, "
                              "publication, organiser FROM cat_participant "
                              "WHERE campaign = ? AND publication <> 'withheld' ORDER BY organiser, shown",
                         [campaign.id]).to_dicts()
    index = out / "index.html"
    index.write_text(env.get_template("index.html").render(**common, pages=pages, participants=participants,
                                                           root=""), encoding="utf-8")
    return [index, *written]
