"""The front page's notes (reports/front.py ``notes``): under a speech task's boards, the systems
whose official method is not the boards' are named, by the names the boards show, so that the
front page and the task page agree on what is official (M4 for a run with comment detection:
the thesis on the deployed dialogue service, section 4.4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scorehouse.reports.front import notes
from scorehouse.reports.i18n import gettext_for
from scorehouse.warehouse.campaign import System, Task
from scorehouse.warehouse.families.wer import official_method, wer_methods


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


def test_a_corpus_without_a_board_is_said_not_left_out():
    """A task's corpus with no board (its reference rejected, nothing published on it yet) was
    left out of the front page and the task page's headline without a word: the task read as
    one of fewer corpora. The notes name it, first, in the page's language."""
    from scorehouse.warehouse.campaign import Corpus

    corpora = tuple(Corpus(c, "test", {}) for c in ("dev", "test", "eval", "extra"))
    for family in ("wer", "pos", "parsing", "coref", "terms"):
        given = task(family=family, detecting=())
        given = Task(given.id, family, given.name, corpora, given.systems, {})
        assert notes(given, BOARDS, LABELS) == [
            "No published result yet on eval, extra: see the task page."], family
        assert notes(given, BOARDS, LABELS, here=True) == [
            "No published result yet on eval, extra."], family
        assert notes(given, BOARDS, LABELS, gettext_for("fr")) == [
            "Pas encore de résultat publié sur eval, extra\u00a0: voir la page de la tâche."]
        assert notes(given, [], LABELS) == []  # no board at all: the page says so instead
    given = task()
    given = Task(given.id, "wer", given.name, corpora[:2], given.systems, {})
    assert len(notes(given, BOARDS, LABELS)) == 1  # every corpus has its board: the M4 note


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


def test_a_headline_method_is_checked_against_the_tasks_methods():
    """``headline_method`` (the guide's campaign.toml) must be one of the task's methods; no
    method at all is the methods' error, never a traceback."""
    import pytest

    from scorehouse.warehouse.campaign import CampaignError
    from scorehouse.warehouse.families.wer import Options

    assert wer_methods({"methods": []}) == ([], "m3")
    for options, message in (({"methods": ["m1", "m3"], "headline_method": "m2"},
                               "headline_method: expected one of the task's methods"),
                              ({"methods": []}, "methods: expected some of")):
        with pytest.raises(CampaignError, match=message):
            Options.of(task(options=options))


@pytest.mark.slow
def test_the_headline_method_sets_the_front_boards_and_the_speech_page(tmp_path):
    """A speech task with ``headline_method = "m2"``: the front page's boards are M2's, the note
    says the comment-detecting system's official method is M4 against M2, and the task page's
    breakdowns say M2."""
    from scorehouse.demo.campaign import write_demo_campaign
    from scorehouse.warehouse.pipeline import run

    toml = write_demo_campaign(tmp_path / "c", scale=0.02, pos=False, parsing=False,
                               coref=False, terms=False, calls=False)
    text = toml.read_text(encoding="utf-8")
    toml.write_text(text.replace('case = "sensitive"\n', 'case = "sensitive"\n'
                                 'headline_method = "m2"\n', 1), encoding="utf-8")
    done = run(toml.parent, tmp_path / "w.duckdb", tmp_path / "out", quiet=True)
    assert done.exit_code == 0, done.summary()
    front = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "<caption>Dev: WER, M2</caption>" in front and "WER, M3" not in front
    assert ("Official method M4 for parole-sud-com (comment detection), whose figures are on "
            "the task page. The scores of M4 do not compare with those of M2") in front
    page = (tmp_path / "out" / "asr" / "index.html").read_text(encoding="utf-8")
    assert "Breakdowns, paired tests and error lists use M2." in page


def test_every_board_row_is_a_row_of_its_task_page(demo_build):
    """The front page's and the export's boards (``export.leaderboard``) name only what the
    task pages show: each board's systems on a corpus are among those of the task page's scores
    table on that corpus, and an EASY board's are exactly the page's systems evaluated on that
    kind (a system that produced no constituents is not evaluated on them: its 0.0 was on the
    front page and in the export while the EASY page left it out)."""
    import duckdb
    import polars as pl

    from scorehouse.warehouse.export import leaderboard

    out = Path(demo_build) / "out"
    con = duckdb.connect(str(Path(demo_build) / "w.duckdb"), read_only=True)
    try:
        boards = leaderboard(con)
    finally:
        con.close()
    checked = 0
    for (task, corpus, variant), rows in boards.group_by("task", "corpus", "variant"):
        page = pl.read_csv(next((out / task).glob("*_scores.csv")), infer_schema_length=0)
        page = page.filter(pl.col("corpus") == corpus)
        if "slice" in page.columns and "corpus" in set(page["slice"]):  # EASY, coreference
            page = page.filter(pl.col("slice") == "corpus")
        shown = set(rows["system"])
        assert shown <= set(page["label"]), (task, corpus, variant, shown - set(page["label"]))
        if variant.count("/") == 2:  # EASY: kind/mode/function
            kind, mode, function = variant.split("/")
            way = page.filter((pl.col("kind") == kind) & (pl.col("mode") == mode)
                              & (pl.col("function") == function))
            assert shown == set(way["label"]), (task, corpus, variant)
            checked += 1
    assert checked > 10


def test_every_pages_scores_table_carries_the_ranks_it_shows(demo_build):
    """Each task's exported scores table (beside its page, in every format) has the rank range
    of the rows its page ranks: the WER and POS tables had it, the EASY, dependency,
    coreference and terminology ones did not, though their pages show ranks. Ranks run from 1,
    best before worst, never past the systems shown."""
    import polars as pl

    out = Path(demo_build) / "out"
    names = ("wer_scores", "pos_scores", "parsing_scores", "parsing_ud_scores", "coref_scores",
             "terms_scores")
    tables = sorted(p for p in out.glob("*/*.csv") if p.stem in names)
    assert {p.stem for p in tables} == set(names) and len(tables) >= 8
    for path in tables:
        table = pl.read_csv(path, infer_schema_length=None)
        assert {"rank_best", "rank_worst"} <= set(table.columns), path
        ranked = table.filter(pl.col("rank_best").is_not_null())
        assert ranked.height and ranked["rank_best"].min() == 1, path
        assert (ranked["rank_best"] <= ranked["rank_worst"]).all(), path
        assert ranked["rank_worst"].max() <= table["label"].n_unique(), path


def test_every_task_page_opens_with_its_official_boards(demo_build):
    """Headline first: a task page's first table is its official leaderboard, the front page's
    for that task row for row, before its table of contents and its sections (the official
    tables were 960 to 2,700 px down the demo's pages, under the contents and the methods)."""
    out = Path(demo_build) / "out"
    front = (out / "index.html").read_text(encoding="utf-8")

    def boards(html: str) -> list[str]:
        return [re.sub(r"\s+", " ", t) for t in
                re.findall(r'<table class="front-board".*?</table>', html, re.S)]
    pages = sorted(p for p in out.glob("*/index.html"))
    assert len(pages) >= 6
    for page in pages:
        html = page.read_text(encoding="utf-8")
        task = page.parent.name
        start = front.index(f'id="results-{task}"')
        end = front.find('<h3 id="results-', start + 1)
        mine = boards(front[start:end if end > 0 else front.index('id="participants-list"')])
        assert mine, task
        assert boards(html) == mine, task
        first = html.index("<table")
        assert html[first:].startswith('<table class="front-board"'), task
        assert first < html.find('<nav class="toc"') or '<nav class="toc"' not in html, task
        assert html.index('id="official-results"') < first


@pytest.mark.slow
def test_a_boards_variant_is_named_as_its_task_page_names_it(demo_build, demo_build_fr):
    """A coreference board's caption names its variant (convention, singletons) in the words of
    the task page's section for it, in each language: the front page said "CoNLL average,
    conll, singletons" (the variant's key) where the page's heading said "CoNLL scorer
    convention, singletons counted"."""
    for build in (demo_build, demo_build_fr):
        out = Path(build) / "out"
        front = (out / "index.html").read_text(encoding="utf-8")
        for task in ("coref", "coreference-ud"):
            page = (out / task / "index.html").read_text(encoding="utf-8")
            headings = {re.sub(r"<[^>]+>", "", h).split(": ", 1)[-1].split("\u00a0: ", 1)[-1]
                        for h in re.findall(r'<h3 id="[^"]+">(.*?)</h3>', page, re.S)}
            captions = re.findall(r"<caption>(.*?)</caption>", page)
            assert captions, (build, task)
            for caption in captions:
                variant = caption.split(", ", 1)[1]  # "corpus: CoNLL average, <variant>"
                assert variant in headings, (caption, sorted(headings))
                assert caption in front


def test_every_board_says_which_way_is_better(demo_build):
    """A reader of a headline board learns which way its score is better: "lower is better"
    under an error rate (WER), "higher is better" under every other score (only the WER boards
    said it, the P, F, LAS, CoNLL and TR boards said nothing)."""
    front = (Path(demo_build) / "out" / "index.html").read_text(encoding="utf-8")
    boards = re.findall(r'<table class="front-board".*?</table>', front, re.S)
    assert len(boards) >= 6
    for board in boards:
        head = re.search(r'<th class="headline">(.*?)</th>', board, re.S).group(1)
        lower = "WER" in re.search(r"<caption>(.*?)</caption>", board).group(1)
        assert ("lower is better" if lower else "higher is better") in head, board[:200]


def test_a_pos_board_shows_each_taggers_decision(demo_build):
    """GRACE's precision P is measured on the cases a tagger decided: a POS board shows each
    tagger's decision D beside P (the demo's morpho-b tops the board with P 96.6 % on a sixth of
    the cases), D as the warehouse has it for the board's variant."""
    import duckdb

    front = (Path(demo_build) / "out" / "index.html").read_text(encoding="utf-8")
    start = front.index('id="results-pos"')
    board = re.search(r'<table class="front-board".*?</table>', front[start:], re.S).group(0)
    assert "D %" in board and "share of cases decided" in board
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
            for row in re.findall(r"<tr class=.*?</tr>", board, re.S)]
    shown = {re.sub(r"\s+\(.*", "", re.sub(r"<[^>]+>", "", cells[0])).strip(): cells[4]
             for cells in rows}
    with duckdb.connect(str(Path(demo_build) / "w.duckdb"), read_only=True) as con:
        decided = dict(con.execute(
            "SELECT s.label, p.D FROM mart_pos_scores p JOIN cat_published_system s "
            "USING (campaign, task, system) WHERE p.slice = 'corpus' AND p.evaluation = "
            "'absolute' AND p.granularity = 'full' AND p.task = 'pos'").fetchall())
    assert len(shown) >= 4 and min(decided.values()) < 0.5
    for label, cell in shown.items():
        assert cell == f"{100 * decided[label]:.1f}", (label, cell)


@pytest.mark.slow
def test_a_publication_reads_the_campaigns_boards_once(demo_copy, tmp_path, monkeypatch):
    """Every page opens with its task's boards, the front page with every task's: one
    publication reads the campaign's boards once (warehouse/publish.py), not once per page
    (each read unions every family's leaderboard views: 5-6 % of a small campaign's run, in a
    profile)."""
    from scorehouse.warehouse import export
    from scorehouse.warehouse.pipeline import run

    read, leaderboard = [], export.leaderboard
    monkeypatch.setattr(export, "leaderboard",
                        lambda con, task=None: read.append(task) or leaderboard(con, task))
    done = run(demo_copy / "campaign", demo_copy / "w.duckdb", tmp_path / "out", quiet=True,
               steps=("report",))
    assert done.exit_code == 0, done.summary()
    assert len(list((tmp_path / "out").glob("*/index.html"))) > 5
    assert read == [None]
