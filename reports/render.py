"""Render a campaign's bulletin pages: an index page and one page per task (family template).
What to render, where, and the swap that publishes them: :mod:`warehouse.publish`."""

from __future__ import annotations

import re
from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from scorehouse.reports.i18n import N_, SOURCE, Numbers, collation, gettext_for, translations
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.families import page_module


def environment(language: str = SOURCE) -> Environment:
    """The Jinja environment of a campaign's ``language``: ``_()`` (jinja2.ext.i18n, new-style
    gettext from the language's catalog) and the number filters every template uses, written
    as the language writes numbers (:class:`reports.i18n.Numbers`)."""
    env = Environment(loader=PackageLoader("scorehouse.reports", "templates"),
                      autoescape=select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True,
                      extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(translations(language), newstyle=True)
    numbers = Numbers(language)
    env.filters.update(pct=numbers.pct, num=numbers.num, p=numbers.p, count=numbers.count)
    env.globals["numbers"] = numbers
    return env


def render_task(con, campaign, task, folder: Path, env: Environment, common: dict) -> Path:
    """Write one task's page (and its exported tables) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    data = page_module(task.family).page_data(con, campaign, task, folder)
    path = folder / "index.html"
    html = env.get_template(f"{task.family}.html").render(**common, **data, root="../")
    _ = gettext_for(campaign.language)
    path.write_text(with_contents(html, _("Contents")), encoding="utf-8")
    return path


_HEADING = re.compile(r'<h([23])((?: [a-z-]+="[^"]*")*)>(.*?)</h\1>', re.DOTALL)
_ID = re.compile(r' id="([^"]*)"')
TOC_SECTIONS = 4  # a page with this many headings or more opens with a table of contents


def with_contents(html: str, label: str = "Contents") -> str:
    """The page with an anchor on each section heading (``<h2>``, ``<h3>``) and, when it has
    :data:`TOC_SECTIONS` or more, a table of contents after its header linking to them (the
    ``<h3>`` nested under their ``<h2>``)."""
    headings = []  # (level, id, title)

    def anchor(match: re.Match) -> str:
        level, attributes, title = match.groups()
        found = _ID.search(attributes)
        ident = found.group(1) if found else f"s{len(headings) + 1}"
        if not found:
            attributes += f' id="{ident}"'
        headings.append((level, ident, re.sub(r"<[^>]+>", "", title).strip()))
        return f"<h{level}{attributes}>{title}</h{level}>"
    html = _HEADING.sub(anchor, html)
    if len(headings) < TOC_SECTIONS:
        return html
    items, open_sub = [], False
    for level, ident, title in headings:
        link = f'<a href="#{ident}">{title}</a>'
        if level == "3":
            items.append(("" if open_sub else "<ol>") + f"<li>{link}</li>")
            open_sub = True
        else:
            items.append(("</ol></li>" if open_sub else "</li>" if items else "") + f"<li>{link}")
            open_sub = False
    items.append("</ol></li>" if open_sub else "</li>")
    toc = f'<nav class="toc" aria-label="{label}"><ol>{"".join(items)}</ol></nav>\n'
    return html.replace("</header>\n", "</header>\n" + toc, 1)


PUBLICATIONS = (N_("public"), N_("anonymous"))  # the index shows them translated


def render_index(con, campaign, out: Path, env: Environment, common: dict) -> Path:
    """Write the campaign's index page (its tasks and published participants, in the campaign
    language's alphabetical order) into ``out``."""
    pages = [{"task": task, "href": f"{task.id}/index.html"} for task in campaign.tasks]
    alphabet = collation(con, campaign.language)
    participants = frame(con, "SELECT CASE WHEN publication = 'anonymous' THEN code ELSE name END "
                              "AS shown, publication, organiser FROM cat_participant "
                              "WHERE campaign = ? AND publication <> 'withheld' "
                              f"ORDER BY organiser, shown COLLATE {alphabet}, shown",
                         [campaign.id]).to_dicts()
    index = out / "index.html"
    index.write_text(env.get_template("index.html").render(**common, pages=pages,
                                                           participants=participants, root=""),
                     encoding="utf-8")
    return index


def rejected_inputs(con, campaign, task, labels: dict[str, str]) -> list[dict]:
    """The task's inputs whose latest version was rejected, for the bulletin's warning box: the
    reference side and the published systems (``labels``: system id -> the name shown), a
    system under the name it is published with. A system shown under another name than its id
    (an anonymous code) must not be named by its file: its path becomes ``(file)`` in the
    message."""
    rows = frame(con, "SELECT corpus, system, role, path, error FROM cat_input_latest "
                      "WHERE campaign = ? AND task = ? AND status = 'rejected' "
                      "ORDER BY corpus, system",
                 [campaign.id, task.id]).to_dicts()
    out = []
    for r in rows:
        if r["system"] and r["system"] not in labels:
            continue
        shown = labels.get(r["system"], r["system"])
        if shown != r["system"]:
            r = {**r, "path": "(file)", "error": (r["error"] or "").replace(r["path"], "(file)")}
        out.append({**r, "system": shown, "error": without_content(r["error"] or "")})
    return out


_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def without_content(message: str) -> str:
    """A rejection as a public page shows it: the place and the reason, every quoted piece of
    the file's content replaced by '…' (the full message stays in the warehouse, cat_input)."""
    head, sep, found = message.partition(", found ")
    return head + sep + _QUOTED.sub("'…'", found)


def stored_signature(signatures, fallback: str) -> str:
    """The signature a page prints under some scores: the one stored with them when they were
    scored (``signatures``: the stored values of the rows shown); every distinct one, sorted and
    space-separated, if the rows come from scorings by different code versions; ``fallback``
    (what the current code would store) when there is no row to read it from."""
    found = sorted({s for s in signatures if s})
    return " ".join(found) if found else fallback
