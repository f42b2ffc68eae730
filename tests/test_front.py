"""The front page's notes (reports/front.py ``notes``): under a speech task's boards, the systems
whose official method is not the boards' are named, by the names the boards show, so that the
front page and the task page agree on what is official (M4 for a run with comment detection:
the thesis on the deployed dialogue service, section 4.4)."""

from __future__ import annotations

import re
from pathlib import Path

from scorehouse.reports.front import notes, official_method, wer_methods
from scorehouse.reports.i18n import gettext_for
from scorehouse.warehouse.campaign import System, Task


def task(family="wer", options=None, detecting=("sys-com", "sys-anon")) -> Task:
    systems = tuple(System(s, "p", "", {}, {"comment_detection": s in detecting})
                    for s in ("sys-base", "sys-com", "sys-anon", "sys-withheld"))
    return Task("asr", family, "ASR", (), systems, options or {})


def board(corpus: str, *shown: str) -> dict:
    return {"corpus": corpus, "rows": [{"label": label} for label in shown]}


BOARDS = [board("dev", "sys-base", "sys-com", "P-1234-1"), board("test", "P-1234-1", "sys-com")]
# the names the public sees: sys-anon's participant is anonymous, sys-withheld's withheld
LABELS = {"sys-base": "sys-base", "sys-com": "sys-com", "sys-anon": "P-1234-1"}


def test_the_official_method_follows_the_thesis():
    methods = ["m1", "m2", "m3", "m4"]
    assert official_method({"comment_detection": True}, methods, "m3") == "m4"
    assert official_method({"comment_detection": False}, methods, "m3") == "m3"
    assert official_method({}, methods, "m3") == "m3"
    # no M4 computed: nothing else to point at
    assert official_method({"comment_detection": True}, ["m2", "m3"], "m3") == "m3"
    assert wer_methods({}) == (methods, "m3")
    assert wer_methods({"methods": ["m1", "m2"]}) == (["m1", "m2"], "m2")
    assert wer_methods({"headline_method": "m2"})[1] == "m2"


def test_the_note_names_the_shown_systems_by_their_shown_names_once():
    [note] = notes(task(), BOARDS, LABELS)
    assert note.startswith("Official method M4 for sys-com, P-1234-1 (comment detection)")
    assert "with those of M3" in note
    # the withheld system with comment detection is on no board: not named; nor is an id
    # behind an anonymous code
    assert "sys-withheld" not in note and "sys-anon" not in note and "sys-base" not in note


def test_no_note_where_every_system_is_on_the_boards_method():
    assert notes(task(detecting=()), BOARDS, LABELS) == []
    assert notes(task(options={"methods": ["m1", "m2", "m3"]}), BOARDS, LABELS) == []
    assert notes(task(family="pos"), BOARDS, LABELS) == []
    assert notes(task(), [], LABELS) == []  # nothing published yet: the page says so instead


def test_the_note_speaks_the_pages_language():
    [note] = notes(task(), BOARDS, LABELS, gettext_for("fr"))
    assert note.startswith("Méthode officielle M4 pour sys-com, P-1234-1 (détection des "
                           "commentaires), dont")
    assert "{" not in note and "}" not in note


def test_the_demo_front_page_and_its_speech_page_agree(demo_build):
    """In the demo, `parole-sud-com` runs with comment detection: its task page marks its M4 row
    official, and the front page, whose boards show M3, says so under the task's boards."""
    out = Path(demo_build) / "out"
    front = (out / "index.html").read_text(encoding="utf-8")
    section = front[front.index('id="results-asr"'):front.index('<h3 id="results-', front.index(
        'id="results-asr"') + 1)]
    assert "Official method M4 for parole-sud-com (comment detection)" in section
    assert section.count('class="note"') == 1
    page = (out / "asr" / "index.html").read_text(encoding="utf-8")
    rows = re.findall(r'<tr class="official"><td class="text">parole-sud-com</td>\s*'
                      r'<td class="text">(\w+)</td>', page)
    assert rows and set(rows) == {"M4"}, rows  # one per corpus


def test_the_readmes_front_page_example_is_the_demos(demo_build):
    """The README's example board (the dependency task of ``scorehouse demo --scale 0.05``, in
    English) is the demo's front page board, row for row, as the page shows it."""
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    lines = readme[readme.index("| gsd-test: LAS |"):].split("\n\n")[0].splitlines()
    header, example = lines[0], [[c.strip() for c in line.strip("|").split("|")]
                                 for line in lines[2:]]
    front = (Path(demo_build) / "out" / "index.html").read_text(encoding="utf-8")
    caption = header.strip("|").split("|")[0].strip()
    board = re.search(rf"<caption>{re.escape(caption)}</caption>(.*?)</table>", front, re.S)
    shown = [[re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", cell)).strip()
              for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
             for row in re.findall(r"<tr class=.*?</tr>", board.group(1), re.S)]
    assert example == shown
