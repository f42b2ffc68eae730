"""Render a campaign's bulletin pages: an index page and one page per task (family template).
What to render, where, and the swap that publishes them: :mod:`warehouse.publish`."""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path

from jinja2 import (
    Environment,
    FileSystemBytecodeCache,
    PackageLoader,
    pass_context,
    select_autoescape,
)

from scorehouse.reports.i18n import (
    N_,
    SOURCE,
    Numbers,
    gettext_for,
    sort_collated,
    translations,
    words,
)
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.families import page_module
from scorehouse.warehouse.published import current, visible_participants, visible_systems

# A page's ``boards`` argument before the campaign's boards are read: the page reads them itself
# (else: reports/front.py campaign_boards' rows, or None when nothing is published)
UNREAD = object()


class _CompiledTemplates(FileSystemBytecodeCache):
    """Jinja's bytecode cache as a convenience only. Compiling the templates took a tenth of a
    small campaign's run, in every process; they are kept compiled in Jinja's own per-user
    folder of the temporary directory, keyed by each template's source, and by this module's
    source (which sets the environment the compiled code depends on); the language's filters
    run at render time (:func:`_at_render`), so the compiled code is the same in every language.
    A cache that cannot be read or written costs the compiling, never the page."""

    def __init__(self) -> None:
        digest = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
        super().__init__(pattern=f"scorehouse-{digest}-%s.cache")

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except OSError:
            pass

    def dump_bytecode(self, bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _compiled_templates() -> FileSystemBytecodeCache | None:
    try:  # Jinja refuses a temporary folder another user could write into
        return _CompiledTemplates()
    except (OSError, RuntimeError):
        return None


_BYTECODE = _compiled_templates()


def _at_render(function):
    """A language's filter, never applied by Jinja at compile time: a filter over a constant
    (``0.5 | num(1)``) would otherwise be folded into the compiled code with the compiling
    language's numbers and words, and the compiled code is shared by every language
    (:class:`_CompiledTemplates`)."""
    return pass_context(lambda context, *args, **kwargs: function(*args, **kwargs))


def environment(language: str = SOURCE) -> Environment:
    """The Jinja environment of a campaign's ``language``: ``_()`` (jinja2.ext.i18n, new-style
    gettext from the language's catalog) and the number filters every template uses, written
    as the language writes numbers (:class:`reports.i18n.Numbers`)."""
    env = Environment(loader=PackageLoader("scorehouse.reports", "templates"),
                      autoescape=select_autoescape(["html"]), trim_blocks=True, lstrip_blocks=True,
                      extensions=["jinja2.ext.i18n"], bytecode_cache=_BYTECODE)
    env.install_gettext_translations(translations(language), newstyle=True)
    numbers = Numbers(language)
    env.filters.update({name: _at_render(f) for name, f in dict(
        pct=numbers.pct, num=numbers.num, p=numbers.p, count=numbers.count,
        signed=numbers.signed, tr=gettext_for(language),  # tr: a data word
        words=lambda values: words(gettext_for(language), values)).items()})
    env.globals["numbers"] = numbers
    return env


def render_task(con, campaign, task, folder: Path, env: Environment, common: dict,
                boards: object = UNREAD) -> Path:
    """Write one task's page (and its exported tables) into ``folder``; ``boards``: every
    board row of the campaign as :func:`scorehouse.reports.front.campaign_boards` read them
    for the edition's audience (a publication reads them once for all its pages), else read
    here."""
    folder.mkdir(parents=True, exist_ok=True)
    from scorehouse.reports.state import page_state

    data = page_module(task.family).page_data(con, campaign, task, folder)
    data["state"] = page_state(con, campaign, task)
    data["organisers"] = visible_systems(con, campaign.id, task.id)["organiser"].any()
    _ = gettext_for(campaign.language)
    data["opening"] = opening(con, campaign, task, _, boards)
    path = folder / "index.html"
    html = env.get_template(f"{task.family}.html").render(**common, **data, root="../")
    path.write_text(with_contents(html, _("Contents")), encoding="utf-8")
    return path


def opening(con, campaign, task, _, boards: object = UNREAD) -> dict:
    """What a task page opens with, before its contents: the task's official boards, the front
    page's (reports/front.py), and their notes, said of the tables below; ``boards`` as
    :func:`render_task` takes them."""
    from scorehouse.reports.front import campaign_boards, leaderboards, notes
    from scorehouse.warehouse.published import leaderboards_as_seen

    with leaderboards_as_seen(con, campaign.id):  # the edition's audience
        if boards is UNREAD:
            boards = campaign_boards(con, campaign, task.id)
        boards = leaderboards(con, campaign, task, _, boards)
        labels = {r["system"]: r["label"] for r in visible_systems(con, campaign.id)
                  .iter_rows(named=True) if r["task"] == task.id}
    return {"boards": boards, "notes": notes(task, boards, labels, _, here=True)}


_HEADING = re.compile(r'<h([23])((?: [a-z-]+="[^"]*")*)>(.*?)</h\1>', re.DOTALL)
_ID = re.compile(r' id="([^"]*)"')
TOC_SECTIONS = 4  # a page with this many headings or more opens with a table of contents
CONTENTS = "<!-- contents -->"  # where base.html puts the table of contents


def with_contents(html: str, label: str = "Contents") -> str:
    """The page with an anchor on each section heading (``<h2>``, ``<h3>``) and, when it has
    :data:`TOC_SECTIONS` or more, a table of contents after its header linking to them (the
    ``<h3>`` nested under their ``<h2>``)."""
    headings = []  # (level, id, title)
    opening = max(html.find(CONTENTS), 0)  # the headings before it (the page's headline) are
    # not counted in the generated ids, which stay what they were before the headline existed

    def anchor(match: re.Match) -> str:
        level, attributes, title = match.groups()
        found = _ID.search(attributes)
        counted = sum(1 for h in headings if h[3])
        ident = found.group(1) if found else (f"s{counted + 1}" if match.start() >= opening
                                              else f"top-{len(headings) + 1}")
        if not found:
            attributes += f' id="{ident}"'
        headings.append((level, ident, re.sub(r"<[^>]+>", "", title).strip(),
                         match.start() >= opening))
        return f"<h{level}{attributes}>{title}</h{level}>"
    html = _HEADING.sub(anchor, html)
    if len(headings) < TOC_SECTIONS:
        return html.replace(CONTENTS + "\n", "", 1)
    items, open_sub = [], False
    for level, ident, title, _counted in headings:
        link = f'<a href="#{ident}">{title}</a>'
        if level == "3":
            items.append(("" if open_sub else "<ol>") + f"<li>{link}</li>")
            open_sub = True
        else:
            items.append(("</ol></li>" if open_sub else "</li>" if items else "") + f"<li>{link}")
            open_sub = False
    items.append("</ol></li>" if open_sub else "</li>")
    toc = f'<nav class="toc" aria-label="{label}"><ol>{"".join(items)}</ol></nav>\n'
    if CONTENTS in html:  # after the page's headline (base.html), before its sections
        return html.replace(CONTENTS + "\n", toc, 1)
    return html.replace("</header>\n", "</header>\n" + toc, 1)


PUBLICATIONS = (N_("public"), N_("anonymous"), N_("withheld"))  # shown translated (index)
# an input role's name on a page where the role's key is not a word of its own (the others are
# words of VOCABULARY, reports/i18n.py): a rejection says "the reference (full corpus)"
ROLE_NAMES = {"full": N_("full corpus"),
              "reference_without_nes": N_("reference without named entities")}


def render_index(con, campaign, out: Path, env: Environment, common: dict,
                 boards: object = UNREAD) -> Path:
    """Write the campaign's index page (its contents, each task's official leaderboards per corpus
    (reports/front.py) and the published participants, in the campaign language's
    alphabetical order) into ``out``."""
    from scorehouse.reports.front import campaign_boards, leaderboards, notes
    from scorehouse.warehouse.published import leaderboards_as_seen

    _ = gettext_for(campaign.language)
    with leaderboards_as_seen(con, campaign.id):  # the edition's audience, as its task pages
        if boards is UNREAD:  # every task's boards, read once
            boards = campaign_boards(con, campaign)
        pages = [{"task": task, "href": f"{task.id}/index.html",
                  "boards": leaderboards(con, campaign, task, _, boards)}
                 for task in campaign.tasks]
        labels: dict[str, dict[str, str]] = {}  # task -> system id -> the name shown
        for row in visible_systems(con, campaign.id).iter_rows(named=True):
            labels.setdefault(row["task"], {})[row["system"]] = row["label"]
    for page in pages:
        page["notes"] = notes(page["task"], page["boards"], labels.get(page["task"].id, {}), _)
    # baselines and organisers' systems are said to be apart only when a board shows one
    apart = any(r["group"] != "participant" for p in pages for b in p["boards"] for r in b["rows"])
    participants = sort_collated(con, visible_participants(con, campaign.id), "shown",
                                 campaign.language, "organiser").to_dicts()
    index = out / "index.html"
    html = env.get_template("index.html").render(**common, pages=pages, apart=apart,
                                                 participants=participants, root="")
    index.write_text(with_contents(html, _("Contents")), encoding="utf-8")
    return index


def rejected_inputs(con, campaign, task, labels: dict[str, str]) -> list[dict]:
    """The task's inputs whose latest version was rejected, for the bulletin's warning box: the
    reference side and the systems the page shows (``labels``: system id -> the name shown).
    Each message names its file relative to the campaign folder (:func:`public_message`); a
    system shown under another name than its id (an anonymous code) is named by that name, never
    by its file, whose path could name it."""
    rows = frame(con, "SELECT i.corpus, i.system, i.role, i.path, i.error, s.participant "
                      "FROM cat_input_latest i LEFT JOIN cat_system s ON s.campaign = i.campaign "
                      "AND s.task = i.task AND s.system = i.system "
                      "WHERE i.campaign = ? AND i.task = ? AND i.status = 'rejected' "
                      "ORDER BY i.corpus, i.system, i.role",
                 [campaign.id, task.id]).to_dicts()
    own = current().participant  # a participant's private bulletin: its own messages in full
    out = []
    for r in rows:
        if r["system"] and r["system"] not in labels:
            continue
        shown = labels.get(r["system"], r["system"])
        # an anonymous system by its code (the box says whose submission, and its role)
        name = shown if shown != r["system"] else public_path(r["path"], campaign)
        error = public_message(r["error"] or "", r["path"], name, campaign,
                               full=own is not None and r["participant"] == own)
        out.append({**r, "system": shown, "path": name, "error": error,
                    "role_name": ROLE_NAMES.get(r["role"], r["role"])})
    return out


_ABSOLUTE = re.compile(r"(?<![\w.~])(?:[A-Za-z]:)?[/\\](?:[^\s/\\:'\"]+[/\\])+"
                       r"([^\s/\\:'\"]+)")
_PLACE = re.compile(r":(\d+)(?::(\d+))?: ")


def public_path(path: str, campaign) -> str:
    """A file as a published page names it: relative to the campaign folder (or to the folder of
    ``[campaign].roots`` holding it), else by its name alone; never an absolute path."""
    file = Path(path)
    for root in (campaign.root, *campaign.roots):
        if file.is_absolute() and file.is_relative_to(root):
            return file.relative_to(root).as_posix()
    return file.name if file.is_absolute() else file.as_posix()


def public_message(message: str, path: str, name: str, campaign, full: bool = False) -> str:
    """A rejection as a published page shows it, a sentence: ``name, line N: what was expected,
    found ...``, the file named ``name`` instead of its ``path``, any other absolute path by its
    name relative to the campaign (or its file name), what was found shortened
    (:func:`without_content`; in ``full`` for its participant's private bulletin). The full
    message stays in the warehouse (cat_input)."""
    if path and message.startswith(path):
        rest = message[len(path):]
        place = _PLACE.match(rest)
        if place:
            line, column = place.groups()
            where = f", line {line}" + (f", column {column}" if column else "")
            message = f"{name}{where}: {rest[place.end():]}"
        else:
            message = name + rest
    for root in sorted({str(r) for r in (campaign.root, *campaign.roots)}, key=len,
                       reverse=True):
        message = message.replace(root.rstrip("/") + "/", "")
    message = _ABSOLUTE.sub(lambda m: m.group(1), message)
    return message if full else without_content(message)


_QUOTED = re.compile(r"('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
                     r"(?: \(([\d,]+) characters\))?")  # the reader's cut: its full length
SHOWN = 40  # characters of a quoted piece of the file a page shows


def without_content(message: str) -> str:
    """What was found, as a page shows it: each quoted piece after ``found`` (a Python literal,
    as the readers quote it) escaped (control characters as ``\\n``, ``\\t``, ``\\xNN``)
    and, when longer than :data:`SHOWN` characters, cut there with its full length said
    (``'abc…' (1,234 characters)``)."""
    head, sep, found = message.partition(", found ")

    def shorten(match: re.Match) -> str:
        literal, length = match.group(1), match.group(2)
        quote = literal[0]
        try:
            text = ast.literal_eval(literal)
        except (ValueError, SyntaxError):
            text = None
        if not isinstance(text, str):
            text = literal[1:-1]

        def escaped(part: str) -> str:
            return "".join(("\\" + c if c in (quote, "\\") else c) if c.isprintable()
                           else repr(c)[1:-1] for c in part)
        if length is not None:  # cut by the reader already, its full length said
            return f"{quote}{escaped(text.removesuffix('…')[:SHOWN])}…{quote} ({length} characters)"
        if len(text) <= SHOWN:
            return f"{quote}{escaped(text)}{quote}"
        return f"{quote}{escaped(text[:SHOWN])}…{quote} ({len(text):,} characters)"
    return head + sep + _QUOTED.sub(shorten, found)


def stored_signature(signatures, fallback: str) -> str:
    """The signature a page prints under some scores: the one stored with them when they were
    scored (``signatures``: the stored values of the rows shown); every distinct one, sorted and
    space-separated, if the rows come from scorings by different code versions; ``fallback``
    (what the current code would store) when there is no row to read it from."""
    found = sorted({s for s in signatures if s})
    return " ".join(found) if found else fallback
