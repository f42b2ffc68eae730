"""Publishing the bulletins: fingerprinted pages, written aside and swapped in whole.

Each page knows what it is computed from (:func:`page_states`): for a task page, the states of
the task's units and reduces, its current and rejected inputs, the publication settings of the
participants and systems, the campaign's settings and the code of ``reports/``; for the index,
the task pages and the participants. A run renders the pages whose state changed into a new
edition folder (the unchanged ones are hard-linked from the current edition), then swaps the
``--out`` path, a symbolic link, to the new edition in one atomic rename, then records the page
states. Readers see the old edition or the new one, never a mix; a kill at any moment leaves the
old edition published and the next run publishes the new one. Pages hold no clock time and no
run number, so the same inputs give the same bytes.

Layout: ``OUT`` is a symbolic link to ``.OUT.editions/<edition>`` beside it; the current and the
previous editions are kept (a reader still on the previous one is not cut off).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from scorehouse.warehouse import __version__
from scorehouse.warehouse.artifacts import artifact_states, record_artifact, unit_states
from scorehouse.warehouse.catalog import RunContext, fingerprint, package_files, transaction
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.faults import checkpoint


def page_states(con, campaign) -> dict[str, str]:
    """task id -> state of its page, and ``""`` -> state of the index page."""
    c = campaign.id
    shared = {
        "campaign": [
            campaign.name,
            campaign.description,
            campaign.phases,
            campaign.bootstrap,
            campaign.seed,
            campaign.language,
        ],
        "participants": _rows(
            con, "SELECT * FROM cat_participant WHERE campaign = ? ORDER BY participant", c
        ),
        "code": _reports_code(),
    }
    reduces = artifact_states(con, c, "reduce")
    states = {}
    for task in campaign.tasks:
        t = task.id
        states[t] = fingerprint(
            {
                **shared,
                "task": [
                    task.family,
                    task.name,
                    task.options,
                    [(k.id, k.phase) for k in task.corpora],
                ],
                "units": unit_states(con, c, t),
                "reduces": sorted((k, v) for k, v in reduces.items() if k.startswith(f"{t}/")),
                "systems": _rows(
                    con,
                    "SELECT * FROM cat_system WHERE campaign = ? AND task = ? ORDER BY system",
                    c,
                    t,
                ),
                "inputs": _rows(
                    con,
                    "SELECT corpus, system, role, sha256, path, status, error "
                    "FROM cat_input_latest WHERE campaign = ? AND task = ? "
                    "ORDER BY corpus, system, role",
                    c,
                    t,
                ),
            }
        )
    states[""] = fingerprint({**shared, "pages": states})
    return states


def publish(ctx: RunContext, out: Path, force: bool = False) -> list[Path]:
    """Publish the bulletins at ``out`` when any page's state changed (every page with
    ``force``); returns the pages rendered (none when the published edition is up to date)."""
    from scorehouse.reports.render import (
        environment,
        render_index,
        render_task,
    )  # matplotlib: only when reporting

    con, campaign = ctx.con, ctx.campaign
    out = Path(out)
    states = page_states(con, campaign)
    recorded = artifact_states(con, campaign.id, "page")
    current = out.resolve() if out.is_symlink() and (out / "index.html").exists() else None
    if not force and current is not None and recorded == states:
        ctx.notes.append(f"bulletins in {out} are up to date")
        return []
    edition = fingerprint({"pages": states})
    editions = out.parent / f".{out.name}.editions"
    target = editions / f"{edition}-run{ctx.run_id}"
    staging = editions / f"{target.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    env = environment(campaign.language)
    common = {"campaign": campaign, "version": __version__, "edition": edition}
    written = []
    for task in campaign.tasks:
        kept = current is not None and not force and recorded.get(task.id) == states[task.id]
        if kept and (current / task.id / "index.html").exists():
            shutil.copytree(current / task.id, staging / task.id, copy_function=_link)
        else:
            written.append(render_task(con, campaign, task, staging / task.id, env, common))
            checkpoint(f"page {task.id}")
    written.insert(0, render_index(con, campaign, staging, env, common))
    shutil.rmtree(target, ignore_errors=True)
    os.replace(staging, target)
    checkpoint("edition written")
    _point(out, target, ctx.run_id)
    checkpoint("edition published")
    with transaction(con):
        con.execute("DELETE FROM cat_artifact WHERE campaign = ? AND kind = 'page'", [campaign.id])
        for key, state in states.items():
            record_artifact(ctx, "page", key, state)
    for old in editions.iterdir():  # keep the new edition and the one before it
        if old not in (target, current):
            shutil.rmtree(old, ignore_errors=True)
    return [out / w.relative_to(staging) for w in written]


def _link(source: str, target: str) -> None:
    """Share an unchanged page's file with the new edition: a hard link, or a copy where the
    file system has none."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _point(out: Path, target: Path, run_id: int) -> None:
    """Make ``out`` a symbolic link to ``target`` in one atomic rename. A real folder found at
    ``out`` (an older layout) is moved into the editions first."""
    if out.exists() and not out.is_symlink():
        os.replace(out, target.parent / f"folder-before-run{run_id}")
    link = out.parent / f".{out.name}.link"
    link.unlink(missing_ok=True)
    os.symlink(os.path.relpath(target, out.parent), link)
    os.replace(link, out)


def _rows(con, sql: str, *params) -> list:
    return [list(map(str, r)) for r in frame(con, sql, list(params)).iter_rows()]


def _reports_code() -> str:
    """A hash of the page code: every module, template and catalog of ``reports/``."""
    return fingerprint({"version": __version__, "files": package_files(
        "scorehouse.reports", (".py", ".html", ".css", ".po"))})
