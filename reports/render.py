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


def rejected_inputs(con, campaign, task, labels: dict[str, str]) -> list[dict]:
    """The task's inputs whose latest version was rejected, for the bulletin's warning box: the
    reference side and the published systems (``labels``: system id -> the name shown), a
    system under the name it is published with. A system shown under another name than its id
    (an anonymous code) must not be named by its file: its path becomes ``(file)`` in the message."""
    rows = frame(con, "SELECT corpus, system, role, path, error FROM cat_input_latest "
                      "WHERE campaign = ? AND task = ? AND status = 'rejected' ORDER BY corpus, system",
                 [campaign.id, task.id]).to_dicts()
    out = []
    for r in rows:
        if r["system"] and r["system"] not in labels:
            continue
        shown = labels.get(r["system"], r["system"])
        if shown != r["system"]:
            r = {**r, "path": "(file)", "error": (r["error"] or "").replace(r["path"], "(file)")}
        out.append({**r, "system": shown})
    return out
