"""Publishing the bulletins: fingerprinted pages, written aside and swapped in whole.

Each page knows what it is computed from (:func:`page_states`): for a task page, the states of
the task's units and reduces, its current and rejected inputs, the publication settings of the
participants and systems, the campaign's settings and the code of ``reports/``; for the index,
the task pages and the participants. A run renders the pages whose state changed into a new
edition folder (the unchanged ones are hard-linked from the current edition), then swaps the
``--out`` path, a symbolic link, to the new edition in one atomic rename, then records the page
states. Readers see the old edition or the new one, never a mix; a kill at any moment leaves the
old edition published and the next run publishes the new one. Pages hold no clock time and no
run number, so the same inputs give the same bytes. The edition's id is a hash of its published
bytes (its pages rendered naming a placeholder, then rewritten): a run that moved no published
byte, such as one that scored a withheld participant's resubmission alone, leaves the published
edition as it was, its id included.

One warehouse publishes at an ``OUT``: ``.OUT.warehouse`` beside it keeps the random token of
the warehouse that last published there (:func:`owner_file`), and another warehouse (a mistyped
``--db``: a new, empty one) is refused before it runs, unless ``--force``. It replaced the
bulletins with its own, and the right warehouse, whose pages had not changed, then said they
were up to date.

Layout: ``OUT`` is a symbolic link to ``.OUT.editions/<edition>-run<N>`` beside it; the campaign's
``editions`` newest editions are kept (default 2: the current one and the one before it, so a
reader still on the previous one is not cut off), older ones are removed. Every page of an edition
names that edition: a page kept from the previous edition is shared with it, except its HTML, whose
edition id is rewritten.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
from pathlib import Path

from markupsafe import Markup

from scorehouse.warehouse import __version__
from scorehouse.warehouse.artifacts import artifact_states, record_artifact, unit_states
from scorehouse.warehouse.campaign import CampaignError
from scorehouse.warehouse.catalog import RunContext, fingerprint, package_files, transaction
from scorehouse.warehouse.db import frame, insert_rows, one
from scorehouse.warehouse.dbfile import database_path
from scorehouse.warehouse.faults import checkpoint
from scorehouse.warehouse.published import PUBLIC, Audience, leaderboards_as_seen, rendering_for


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


def publish(ctx: RunContext, out: Path, force: bool = False,
            audience: Audience = PUBLIC) -> list[Path]:
    """Publish the bulletins at ``out`` when any page's state changed (every page with
    ``force``); returns the pages rendered (none when the published edition is up to date).
    Another ``audience`` than the public (:mod:`warehouse.published`) gets a whole edition of
    its own, rendered every time and marked in its folder's name, never written over the public
    one's ``out`` (nor the public one over it)."""
    refuse_other_warehouse(ctx.con, ctx.campaign.id, Path(out), force)
    with rendering_for(audience):
        return _publish(ctx, Path(out), force or not audience.public, audience)


def _publish(ctx: RunContext, out: Path, force: bool, audience: Audience) -> list[Path]:
    from scorehouse.reports.chart_cache import chart_cache
    from scorehouse.reports.front import campaign_boards
    from scorehouse.reports.render import (
        environment,
        render_index,
        render_task,
    )  # matplotlib: only when reporting

    refuse_inside_editions(out)
    con, campaign = ctx.con, ctx.campaign
    states = page_states(con, campaign)
    recorded = artifact_states(con, campaign.id, "page") if audience.public else {}
    current = out.resolve() if out.is_symlink() and (out / "index.html").exists() else None
    if current is not None and edition_audience(current.name) != audience.key:
        raise CampaignError(f"{out}: holds the {edition_audience(current.name)} edition; "
                            f"write the {audience.key} edition to another --out")
    editions = out.parent / f".{out.name}.editions"
    if not force and current is not None and recorded == states:
        _own(ctx, out)  # a publication made before tokens were kept: this warehouse's
        ctx.notes.append(f"bulletins in {out} are up to date")
        return []
    marked = "" if audience.public else f"-{audience.key}"
    staging = editions / f"pending{marked}-run{ctx.run_id}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    env = environment(campaign.language)
    common = {"campaign": campaign, "version": __version__, "edition": Markup(PENDING),
              "audience": audience.kind}
    written = []
    with leaderboards_as_seen(con, campaign.id):  # every page's boards, read once
        boards = campaign_boards(con, campaign)
    with chart_cache(out.parent / f".{out.name}.charts"):  # charts whose data did not change
        for task in campaign.tasks:
            kept = current is not None and not force and recorded.get(task.id) == states[task.id]
            if kept and (current / task.id / "index.html").exists():
                _keep(current / task.id, staging / task.id, NAMED.format(_edition_of(current)),
                      PENDING)
            else:
                written.append(render_task(con, campaign, task, staging / task.id, env, common,
                                           boards))
                checkpoint(f"page {task.id}")
        written.insert(0, render_index(con, campaign, staging, env, common, boards))
    edition = _content_id(staging, audience)
    if not force and current is not None and _edition_of(current) == edition:
        shutil.rmtree(staging)  # not one published byte moved (a withheld resubmission alone)
        _own(ctx, out)
        if audience.public:
            _record_pages(ctx, states)
        ctx.notes.append(f"bulletins in {out} are up to date")
        return []
    _name_edition(staging, edition)
    target = editions / f"{edition}{marked}-run{ctx.run_id}"
    if current == target.resolve():  # never render over the published edition
        target = editions / f"{target.name}-again"
    shutil.rmtree(target, ignore_errors=True)
    os.replace(staging, target)
    _own(ctx, out)
    checkpoint("edition written")
    _point(out, target)
    checkpoint("edition published")
    if audience.public:  # another audience's edition is rendered whole, every time
        _record_pages(ctx, states)
    _prune(editions, target, campaign.editions)
    return [out / w.relative_to(staging) for w in written]


_RUN = re.compile(r"run(\d+)$")


# What a page names its edition with (base.html): markup, which no text a page quotes can hold
# (its "<" escaped), so that renaming the edition never touches a participant's words.
NAMED = '<span class="edition">{}</span>'
PENDING = NAMED.format("pending")  # until the edition's bytes give its id


def _content_id(staging: Path, audience: Audience) -> str:
    """The edition's id: a hash of every published file's path and bytes (its pages naming
    :data:`PENDING`), so that the same published bytes give the same id, and a run that moved
    no published byte (it scored a withheld system alone) leaves the edition as it was."""
    digest = hashlib.sha256(audience.key.encode() if not audience.public else b"")
    for path in sorted(p for p in staging.rglob("*") if p.is_file()):
        digest.update(path.relative_to(staging).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def _name_edition(staging: Path, edition: str) -> None:
    """Every page of the staged edition names ``edition`` instead of :data:`PENDING` (the pages
    kept from the previous edition were copied, not linked, when their id was rewritten)."""
    for page in staging.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if PENDING in text:
            page.write_text(text.replace(PENDING, NAMED.format(edition)), encoding="utf-8")


def _edition_of(folder: Path) -> str:
    """The edition id in an edition folder's name (``<edition>[-<audience>]-run<N>``)."""
    return folder.name.rsplit("-run", 1)[0].split("-", 1)[0]


def _keep(source: Path, target: Path, old: str, new: str) -> None:
    """Carry an unchanged page folder into the new edition: its files shared (hard links), its
    HTML rewritten to name the new edition (the markup ``new``) instead of ``old``."""
    shutil.copytree(source, target, copy_function=_link)
    if not old or old == new:
        return
    for page in target.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        page.unlink()  # a hard link: the previous edition's file stays as it was
        page.write_text(text.replace(old, new), encoding="utf-8")


def _prune(editions: Path, target: Path, keep: int) -> None:
    """Remove the editions beyond the ``keep`` newest (by run number; ``target`` is the newest)
    and any unfinished one. Compared by name: ``--out`` may be given through another path."""
    def run(folder: Path) -> int:
        found = _RUN.search(folder.name)
        return int(found.group(1)) if found else -1
    older = sorted((f for f in editions.iterdir() if f.is_dir()
                    and f.name != target.name and not f.name.endswith(".partial")),
                   key=run, reverse=True)
    partial = [f for f in editions.iterdir() if f.name.endswith(".partial")]
    for old in older[keep - 1:] + partial:
        shutil.rmtree(old, ignore_errors=True)


def refuse_inside_editions(out: Path) -> None:
    """CampaignError when ``out`` is, or lies inside, a folder of editions (``.<name>.editions``):
    writing there would replace a published edition's pages behind its link; and when ``out``
    is anything but a previous publication of its own (the link to one of its editions), nothing
    or an empty folder: a folder of other files (the campaign's, the warehouse's, a web root's),
    a file, a link elsewhere is never taken over."""
    where = out.parent.resolve() / out.name
    resolved = out.resolve()
    own = where.parent / f".{out.name}.editions"
    for path in (where, resolved):
        folders = [p for p in (path, *path.parents) if _EDITIONS.fullmatch(p.name)]
        if folders and not (path == resolved and out.is_symlink() and folders == [own]):
            raise CampaignError(f"{out}: lies in the editions folder {folders[0]}; "
                                "write the edition to another --out")
    _refuse_foreign(out)


_EDITIONS = re.compile(r"\..+\.editions")


def _refuse_foreign(out: Path) -> None:
    """CampaignError when ``out`` holds what no publication of its own left there."""
    if out.is_symlink():
        own = (out.parent / f".{out.name}.editions").resolve()
        if Path(os.path.realpath(out)).parent != own:
            raise CampaignError(f"{out}: is a link to {os.readlink(out)}, not to one of its "
                                "editions; choose another --out, or remove the link")
    elif out.is_dir():
        if any(out.iterdir()):
            raise CampaignError(f"{out}: is a folder of files scorehouse did not publish (its "
                                "bulletins are a link to an edition); choose another --out, or "
                                "empty the folder")
    elif out.exists():
        raise CampaignError(f"{out}: is a file, not a folder of bulletins; choose another --out")


def owner_file(out: Path) -> Path:
    """Beside ``out``: the token of the warehouse that publishes there."""
    return out.parent / f".{out.name}.warehouse"


def _token(con, campaign: str) -> str | None:
    found = one(con, "SELECT state FROM cat_artifact WHERE campaign = ? AND kind = 'owner' "
                "AND key = ''", [campaign])
    return found[0] if found else None


def refuse_other_warehouse(con, campaign: str, out: Path, force: bool) -> None:
    """CampaignError when another warehouse than ``con``'s last published at ``out`` (its
    :func:`owner_file` holds another token than this warehouse's, or this one has none yet),
    unless ``force``: a mistyped ``--db`` is a new warehouse, which would replace the
    bulletins."""
    try:
        found = owner_file(out).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return  # nothing published there yet, or by a version that kept no token
    if not force and found.strip() != _token(con, campaign):
        raise CampaignError(f"{out}: holds the bulletins of another warehouse than "
                            f"{database_path(con)}; give the --db that published them, or "
                            "--force to publish this warehouse's edition there instead")


def _own(ctx: RunContext, out: Path) -> None:
    """Mark ``out`` as this warehouse's (:func:`owner_file`; a token made at its first
    publication), before the edition is pointed at: a kill after it leaves ``out`` this
    warehouse's, its old edition published."""
    token = _token(ctx.con, ctx.campaign.id)
    if token is None:
        token = secrets.token_hex(16)
        with transaction(ctx.con):
            record_artifact(ctx, "owner", "", token)
    marker = owner_file(out)
    if not marker.is_file() or marker.read_text(encoding="ascii") != token:
        marker.with_name(f"{marker.name}.partial").write_text(token, encoding="ascii")
        os.replace(marker.with_name(f"{marker.name}.partial"), marker)


def edition_audience(name: str) -> str:
    """The audience an edition folder was written for, from its name
    (``<edition>[-<audience>]-run<N>``): ``public``, ``participants``, ``participant-<id>``."""
    found = re.fullmatch(r"[0-9a-f]+-(participants|participant-.+)-run\d+(?:-again)?", name)
    return found.group(1) if found else "public"


def _record_pages(ctx: RunContext, states: dict[str, str]) -> None:
    """Record the published pages' states (in one transaction)."""
    with transaction(ctx.con):
        ctx.con.execute("DELETE FROM cat_artifact WHERE campaign = ? AND kind = 'page'",
                        [ctx.campaign.id])
        insert_rows(ctx.con, "INSERT INTO cat_artifact VALUES (?, ?, ?, ?, ?)",
                    [[ctx.campaign.id, "page", key, state, ctx.run_id]
                     for key, state in states.items()])  # one statement, not one per page


def _link(source: str, target: str) -> None:
    """Share an unchanged page's file with the new edition: a hard link, or a copy where the
    file system has none."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _point(out: Path, target: Path) -> None:
    """Make ``out`` a symbolic link to ``target`` in one atomic rename (an empty folder found at
    ``out`` is removed first: :func:`refuse_inside_editions` refused any other)."""
    if out.is_dir() and not out.is_symlink():
        out.rmdir()  # an OSError, never a loss, if files came into it since
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
