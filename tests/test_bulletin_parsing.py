"""The parsing bulletin page (reports/parsing.py, templates/parsing.html) on a warehouse filled by
hand: an EASY task and a CoNLL-U task of a tiny made-up campaign, checked as HTML, as exported
files and in headless Chromium.

The campaign: ``parser-a`` (public), ``parser-b`` (anonymous: shown as its code), ``secret``
(withheld: never shown) and ``house`` (organisers: shown apart). EASY: corpora ``monde`` (LE MONDE)
and ``oral`` (ORAL_DELIC), two sentences each, counts drawn at random under the constraints of the
functions (EQUAL <= FUZZY <= INCLUDE <= BARYCENTER <= INTERSECTION <= min(hyp, ref)); ``oral``
has no MOD-N (a blank heatmap cell); the combined treebank of ``monde`` has staged inputs (so its
EASY XML file is written), that of ``oral`` has none (no link). CoNLL-U: one corpus ``gsd`` whose
sentences have two genres, words with labels for the breakdowns, one text difference for the
anonymous system and one for the withheld one.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from browser import browse

from scorehouse.reports.i18n import collated
from scorehouse.reports.parsing import page_data
from scorehouse.reports.render import environment
from scorehouse.warehouse.campaign import Campaign, Corpus, Participant, System, Task
from scorehouse.warehouse.db import apply_schema, build, frame, one
from scorehouse.warehouse.families.parsing import FUNCTIONS, signature
from scorehouse.warehouse.pipeline import open_warehouse


def _alphabetical(labels: list[str]) -> list[str]:
    """Participants' labels in the page's (English) alphabetical order: ICU's, not code points."""
    with duckdb.connect() as con:
        return collated(con, labels, "en")


PARTICIPANTS = {"alpha": Participant("alpha", "Alpha Lab"),
                "beta": Participant("beta", "Beta Team", "anonymous"),
                "gamma": Participant("gamma", "Gamma Hidden Institute", "withheld"),
                "orga": Participant("orga", "The Organisers", "public", True)}
SYSTEMS = (("parser-a", "alpha"), ("parser-b", "beta"), ("secret", "gamma"), ("house", "orga"))
MODES = ("HYP", "DEFHYP", "REF")
CORPORA = {"monde": ("LE MONDE", "LLF"), "oral": ("ORAL_DELIC", "DELIC")}
# Reference items per (corpus, sentence, kind, type).
REFERENCE = {("monde", "E1"): {"GN": 2, "NV": 1, "SUJ-V": 1, "COD-V": 1, "MOD-N": 1},
             ("monde", "E2"): {"GN": 1, "NV": 1, "GP": 1, "SUJ-V": 1, "MOD-N": 1},
             ("oral", "E1"): {"GN": 1, "NV": 1, "SUJ-V": 1},
             ("oral", "E2"): {"GN": 1, "NV": 2, "SUJ-V": 1, "COD-V": 1}}
EASY_TABLES = ("table.parsing-corpora", "table.parsing-reference-types", "table.parsing-scores",
               "table.parsing-corpus-scores", "table.parsing-ways", "table.parsing-types",
               "table.parsing-consensus")
UD_TABLES = ("table.parsing-ud-corpora", "table.parsing-ud-overview", "table.parsing-ud-scores",
             "table.parsing-ud-deprel", "table.parsing-ud-upos", "table.parsing-ud-confusion",
             "table.parsing-ud-differences")
HIDDEN = ("secret", "Gamma Hidden Institute")


def _campaign() -> Campaign:
    systems = tuple(System(s, p, "", {}) for s, p in SYSTEMS)
    easy = Task("easy", "parsing", "EASY parsing", tuple(
        Corpus(c, "test", {"reference": Path(f"{c}.xml")},
               {"format": "easy", "genre": g, "provider": p})
        for c, (g, p) in CORPORA.items()), systems)
    ud = Task("ud", "parsing", "UD parsing",
              (Corpus("gsd", "test", {"reference": Path("gsd.conllu")},
                      {"format": "conllu", "genre": "news"}),), systems)
    return Campaign("tiny-parsing", "Tiny parsing campaign", "", Path("."),
                    {"test": "Official test"}, PARTICIPANTS, (easy, ud), bootstrap=50, seed=3,
                    code_key="tests-code-key-not-secret")


def _catalog(con, campaign: Campaign) -> None:
    c = campaign.id
    con.execute("INSERT INTO cat_campaign VALUES (?, ?, '', '.', ?, ?, 1)",
                [c, campaign.name, 50, 3])
    con.executemany("INSERT INTO cat_participant VALUES (?, ?, ?, ?, ?, ?)",
                    [[c, p.id, p.name, p.publication, p.organiser, campaign.code(p.id)]
                     for p in PARTICIPANTS.values()])
    for task in campaign.tasks:
        con.executemany("INSERT INTO cat_system VALUES (?, ?, ?, ?, ?, ?, false, '', '{}')",
                        [[c, task.id, s.id, s.participant, campaign.label(s),
                          PARTICIPANTS[s.participant].organiser]
                         for s in task.systems])
        con.executemany("INSERT INTO cat_corpus VALUES (?, ?, 'parsing', ?, 'test')",
                        [[c, task.id, k.id] for k in task.corpora])


def _matched(rng, top: int) -> list[int]:
    """Matched pairs under EQUAL, FUZZY, INCLUDE, BARYCENTER, INTERSECTION: each at least the
    previous."""
    out = [int(rng.integers(0, top + 1))]
    for _ in range(4):
        out.append(int(rng.integers(out[-1], top + 1)))
    # column order: equal fuzzy include intersection barycenter
    return [out[0], out[1], out[2], out[4], out[3]]


def _easy_facts(con, c: str) -> None:
    rng = np.random.default_rng(2)
    rows, ranges = [], []
    for (corpus, sent), types in REFERENCE.items():
        for t, n in types.items():
            kind = "relation" if "-" in t else "constituent"
            ranges += [
                [c, "easy", corpus, "", None, kind, sent, f"{sent}{t}{i}", t, role, i, i, None]
                for i in range(n) for role in ((0, 1) if kind == "relation" else (0,))]
        for system, _ in SYSTEMS:
            for t, ref in types.items():
                kind = "relation" if "-" in t else "constituent"
                # a chunker
                hyp = int(rng.integers(0, 4)) if (system, kind) != ("house", "relation") else 0
                base = _matched(rng, min(hyp, ref))
                for mode in MODES:
                    m = base if kind == "constituent" else _matched(rng, min(hyp, ref))
                    rows.append([c, "easy", corpus, system, CORPORA[corpus][0], sent, kind, t, mode,
                                 hyp, ref, *m, *(signature("easy", mode, f) for f in FUNCTIONS)])
    con.executemany("INSERT INTO fct_parsing_sentence_rows VALUES ("
                    + ", ".join("?" * 21) + ")", rows)
    build(con, "parsing", "fct_parsing_type")  # the units' sums per type, as scoring builds them
    build(con, "parsing", "fct_parsing_sentence_total")
    con.executemany("INSERT INTO int_parsing_range_rows VALUES (" + ", ".join("?" * 14) + ")",
                    [[*r, False] for r in ranges])
    con.execute("""INSERT INTO mart_parsing_interval
        SELECT campaign, task, CASE slice WHEN 'task' THEN '*' ELSE corpus END, system, kind,
               mode, function, measure, value, greatest(value - 0.05, 0), least(value + 0.05, 1),
               50, 3, NULL, NULL
        FROM (SELECT *, 'P' AS measure, precision AS value FROM mart_parsing_scores UNION ALL
              SELECT *, 'R', recall FROM mart_parsing_scores UNION ALL
              SELECT *, 'F', f1 FROM mart_parsing_scores)
        WHERE slice IN ('task', 'corpus')""")
    con.executemany("INSERT INTO mart_parsing_corpus VALUES (?, 'easy', ?, ?, ?, ?, ?, 2, ?)",
                    [[c, "monde", "LE MONDE", "LLF", 10, 120, 21],
                     [c, "oral", "ORAL_DELIC", "DELIC", 8, 60, 15]])
    con.executemany("INSERT INTO mart_parsing_consensus VALUES "
                    "(?, 'easy', ?, ?, ?, ?, ?, ?, ?, ?, NULL)", [
        [c, "monde", "E1", "constituent", "GN", "1-2", 4, 1.0, True],
        [c, "monde", "E1", "constituent", "NV", "3-4", 1, 0.25, False],
        [c, "monde", "E1", "relation", "SUJ-V", "1-2 3-3", 3, 0.75, True],
        [c, "oral", "E1", "constituent", "GN", "1-1", 3, 0.75, True]])
    # monde's inputs, staged: every submission repeats the reference (E1: "Le chat dort .").
    items = [(1, "E1", 1, "group", "E1G1", "GN", None, None, None, None, None, None, None),
             (1, "E1", 2, "form", "E1F1", None, 1, "Le", "E1G1", None, None, None, None),
             (1, "E1", 3, "form", "E1F2", None, 2, "chat", "E1G1", None, None, None, None),
             (1, "E1", 4, "group", "E1G2", "NV", None, None, None, None, None, None, None),
             (1, "E1", 5, "form", "E1F3", None, 3, "dort", "E1G2", None, None, None, None),
             (1, "E1", 6, "form", "E1F4", None, 4, ".", None, None, None, None, None),
             (1, "E1", 7, "relation", "E1R1", "SUJ-V", None, None, None, "sujet", 0, "E1G1", None),
             (1, "E1", 7, "relation", "E1R1", "SUJ-V", None, None, None, "verbe", 1, "E1G2", None)]
    for sha in ("ref-monde", "sub-monde"):  # the warehouse's own staged rows (no store here)
        con.executemany("INSERT INTO stg_parsing_easy_item_rows VALUES ("
                        + ", ".join("?" * 14) + ")", [[sha, *row] for row in items])
    inputs = ([("", "reference", "ref-monde")]
              + [(s, "submissions", "sub-monde") for s, _ in SYSTEMS])
    con.executemany("INSERT INTO cat_input VALUES (?, 'easy', 'monde', ?, ?, ?, 'x', 8, "
                    "'accepted', NULL, 1, now())",
                    [[c, system, role, sha] for system, role, sha in inputs])


UD_METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS",
              "LAS", "CLAS", "MLAS", "BLEX")
# (gold upos, gold deprel) of the reference words; per system, the indexes it gets wrong.
WORDS = [("DET", "det"), ("NOUN", "nsubj"), ("VERB", "root"), ("ADP", "case"), ("NOUN", "obl"),
         ("PUNCT", "punct"),
         ("PRON", "nsubj"), ("VERB", "root"), ("NOUN", "obj"), ("PUNCT", "punct")]
WRONG = {"parser-a": {4}, "parser-b": {1, 8}, "secret": {2}, "house": set()}


def _ud_facts(con, c: str) -> None:
    rng = np.random.default_rng(11)
    rows, words = [], []
    for system, _ in SYSTEMS:
        for sent_no, genre in ((1, "news"), (2, "news"), (3, "wiki")):
            for metric in UD_METRICS:
                gold = 1 if metric == "Sentences" else int(rng.integers(4, 8))
                sys_total = gold if metric == "Sentences" else gold + int(rng.integers(-1, 2))
                correct = int(rng.integers(0, min(gold, sys_total) + 1))
                aligned = (None if metric in ("Tokens", "Sentences", "Words")
                           else min(gold, sys_total))
                rows.append([c, "ud", "gsd", system, genre, sent_no, f"s{sent_no}", metric, correct,
                             gold, sys_total, aligned, signature("conllu")])
        for i, (upos, deprel) in enumerate(WORDS):
            wrong = i in WRONG[system]
            sys_deprel = ({"nsubj": "obj", "obl": "nmod", "obj": "nsubj"}.get(deprel, "dep")
                          if wrong else deprel)
            words.append([c, "ud", "gsd", system, 1 + i // 5, i + 1, i + 1, upos,
                          "X" if wrong else upos, deprel, sys_deprel, True, True, not wrong, True,
                          True, not wrong, True, True, not wrong, not wrong, not wrong, not wrong])
    con.executemany("INSERT INTO fct_parsing_ud_sentence VALUES (" + ", ".join("?" * 13) + ")",
                    rows)
    con.executemany("INSERT INTO int_parsing_ud_word VALUES (" + ", ".join("?" * 23) + ")", words)
    con.execute("""INSERT INTO mart_parsing_ud_interval
        SELECT campaign, task, corpus, system, metric, f1, greatest(f1 - 0.04, 0),
               least(f1 + 0.04, 1), 50, 3, NULL, NULL
        FROM mart_parsing_ud_scores WHERE slice = 'corpus'""")
    con.execute("INSERT INTO mart_parsing_corpus VALUES (?, 'ud', 'gsd', 'news', '', 3, 30, 3, 30)",
                [c])
    con.executemany("INSERT INTO int_parsing_ud_difference VALUES (?, 'ud', 'gsd', ?, ?, ?, ?, ?)",
                    [[c, "parser-b", 12, 12, "Le chat", "Lechat"],
                     [c, "secret", 20, 21, "dort", "dors"]])


def _render(con, campaign, task, out: Path) -> tuple[dict, str]:
    out.mkdir(parents=True)
    data = page_data(con, campaign, task, out)
    html = environment().get_template("parsing.html").render(
        campaign=campaign, version="test", run=None,
        generated=datetime.now().strftime("%Y-%m-%d %H:%M"), root="../", **data)
    (out / "index.html").write_text(html, encoding="utf-8")
    return data, html


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    root = tmp_path_factory.mktemp("bulletin_parsing")
    campaign = _campaign()
    con = open_warehouse(None)
    apply_schema(con, ["catalog", "parsing"])  # idempotent; the family may not be registered yet
    _catalog(con, campaign)
    _easy_facts(con, campaign.id)
    _ud_facts(con, campaign.id)
    easy = _render(con, campaign, campaign.tasks[0], root / "easy")
    ud = _render(con, campaign, campaign.tasks[1], root / "ud")
    yield {"root": root, "campaign": campaign, "con": con, "easy": easy, "ud": ud}
    con.close()


def _exported(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in folder.iterdir()
                   if p.suffix in (".csv", ".md", ".tex", ".xml"))


def _row(html: str, table_class: str, label: str, nth: int = 0) -> str:
    """The ``<tr>`` of ``label`` in the ``nth`` table of the class."""
    table = html.split(f'<table class="{table_class}"')[1 + nth].split("</table>")[0]
    return next(r for r in table.split("<tr") if f">{label}<" in r or f">{label} <" in r)


@pytest.mark.parametrize("task", ["easy", "ud"])
def test_publication_flags(pages, task):
    campaign = pages["campaign"]
    data, html = pages[task]
    folder = pages["root"] / task
    exported = _exported(folder)
    for hidden in HIDDEN:
        assert hidden not in html and hidden not in exported
    code = f"{campaign.code('beta')}-1"
    assert (code in html and code in exported and "parser-b" not in html + exported
            and "Beta Team" not in html)
    assert "parser-a" in html and "house" in html and "Organisers (shown apart)" in html
    shown = data["results"]["constituent"] if task == "easy" else data["scopes"][0]["overview"]
    assert [r["label"] for _, rows in shown for r in rows] == [
        *_alphabetical([code, "parser-a"]), "house"]
    assert html.index("Participants") < html.index("Organisers (shown apart)")
    assert 'house <span class="mark">(organiser)</span>' in html


def test_easy_page_figures(pages):
    con, campaign = pages["con"], pages["campaign"]
    data, html = pages["easy"]
    folder = pages["root"] / "easy"
    assert (data["mode"], data["function"]) == ("HYP", "EQUAL") and len(data["way_names"]) == 15
    # house (organisers) produced constituents only: evaluated on constituents, left out of
    # relations.
    assert data["absent"] == {"constituent": [], "relation": ["house"]}
    code = f"{campaign.code('beta')}-1"
    assert [(title, [r["label"] for r in rows]) for title, rows in data["results"]["relation"]] == [
        ("Participants", _alphabetical([code, "parser-a"]))]
    assert ([c["label"] for c in data["ways"]["relation"]["columns"]]
            == _alphabetical([code, "parser-a"]))
    assert "Not evaluated on relations (none produced): house;" in html
    # The relation F of parser-a, HYP-EQUAL, whole task, with its interval over both corpora ('*').
    f1 = one(con, "SELECT f1 FROM mart_parsing_scores WHERE campaign = ? AND task = 'easy' "
                  "AND slice = 'task' AND system = 'parser-a' AND kind = 'relation' "
                  "AND mode = 'HYP' AND function = 'EQUAL'", [campaign.id])[0]
    assert 0 < f1 < 1  # the data make the check meaningful
    low, high = one(con, "SELECT ci_low, ci_high FROM mart_parsing_interval WHERE corpus = '*' "
                         "AND task = 'easy' AND system = 'parser-a' AND kind = 'relation' "
                         "AND mode = 'HYP' AND function = 'EQUAL' AND measure = 'F'")
    row = _row(html, "parsing-scores", "parser-a", nth=1)  # constituents first, then relations
    assert (f'<td class="f">{100 * f1:.2f}<div class="ci">{100 * low:.2f}–{100 * high:.2f}</div>'
            in row)
    # Figure 3: the mean over the genres of the per-genre F, for every way, equals the marts'.
    ways = pl.read_csv(folder / "parsing_ways.csv")
    expected = frame(con, "SELECT kind, mode, function, avg(f1) AS f FROM mart_parsing_scores "
                          "WHERE task = 'easy' AND system = 'parser-a' AND slice = 'genre' "
                          "GROUP BY ALL")
    got = ways.filter(pl.col("label") == "parser-a").join(expected, on=["kind", "mode", "function"])
    assert got.height == 30 and np.allclose(got["mean_f1"], got["f"])
    # Table 6: reference relations per type, total over both corpora.
    assert [(r["type"], r["total"]) for r in data["reference_types"]["relation"]] == [
        ("SUJ-V", 4), ("COD-V", 2), ("MOD-N", 2), ("total", 8)]
    assert data["totals"] == {"sentences": 18, "words": 180, "annotated_sentences": 4,
                              "annotated_words": 36}
    # Figure 2: one heatmap per published system; oral has no MOD-N (blank cell): 2 x 3 - 1 values.
    heatmaps = re.findall(r'<div class="chart heatmap">(.*?)</div>', html, flags=re.DOTALL)
    assert len(heatmaps) == 2 and all("<svg" in h for h in heatmaps)  # house produced no relation
    cells = frame(con, "SELECT genre, type, f1 FROM mart_parsing_scores WHERE task = 'easy' "
                       "AND system = 'parser-a' AND slice = 'genre_type' AND kind = 'relation' "
                       "AND mode = 'HYP' AND function = 'EQUAL'")
    assert cells.height == 5
    mine = re.search(r'<h4>parser-a</h4>\s*<div class="chart heatmap">(.*?)</div>', html,
                     flags=re.DOTALL).group(1)
    # cell values (ticks: 10px)
    texts = re.findall(r'<text style="font-size: 7.5px[^>]*>([0-9]+)</text>', mine)
    assert sorted(texts) == sorted(f"{100 * v:.0f}" for v in cells["f1"])
    assert len(re.findall(r'<div class="chart ways">\s*<svg', html)) == 2
    # Per type with the macro average (mart_parsing_scores_macro).
    macro = one(con, "SELECT macro_f1, types FROM mart_parsing_scores_macro WHERE task = 'easy' "
                     "AND slice = 'task' AND system = 'parser-a' AND kind = 'relation' "
                     "AND mode = 'HYP' AND function = 'EQUAL'")
    relations = html.split('<table class="parsing-types"')[2].split("</table>")[0]
    mine = relations.split(">parser-a<")[1].split('class="group"')[0]
    assert macro[1] == 3 and "macro average (3 types)</td><td></td><td></td><td></td>" in mine
    assert mine.rstrip().endswith(f"<td>{100 * macro[0]:.2f}</td></tr>")


def test_easy_consensus_and_exports(pages):
    data, html = pages["easy"]
    folder = pages["root"] / "easy"
    # oral: nothing staged, no file
    assert data["consensus_links"] == {"monde": "consensus_monde.xml"}
    assert '<a href="consensus_monde.xml">' in html and "consensus_oral.xml" not in html
    assert "chat" in (folder / "consensus_monde.xml").read_text(encoding="utf-8")
    # the votes are the published systems' (warehouse/families/parsing_consensus.py, audited in
    # tests/test_publication_audit.py): the page and its signature say so
    assert "submissions:published" in html and "published or not" not in html
    assert "the systems published on this page" in " ".join(html.split())
    assert not (folder / "consensus_oral.xml").exists()
    consensus = {r["corpus"]: r for r in data["consensus"]}
    assert ((consensus["monde"]["constituents"], consensus["monde"]["constituents_consensus"])
            == (2, 1))
    for stem in ("parsing_corpora", "parsing_reference_types", "parsing_scores",
                 "parsing_scores_by_type",
                 "parsing_scores_macro", "parsing_ways", "parsing_consensus"):
        for ext in ("csv", "parquet", "md", "tex"):
            assert (folder / f"{stem}.{ext}").stat().st_size > 0, (stem, ext)
        assert f'href="{stem}.csv"' in html
    scores = pl.read_parquet(folder / "parsing_scores.parquet")
    assert "system" not in scores.columns and set(scores["slice"]) == {"task", "corpus", "genre"}
    assert scores.filter(pl.col("slice") == "task")["F_low"].null_count() == 0


def test_ud_page_figures(pages):
    con, campaign = pages["con"], pages["campaign"]
    data, html = pages["ud"]
    folder = pages["root"] / "ud"
    assert [s["title"] for s in data["scopes"]] == ["Corpus gsd", "Genre news", "Genre wiki"]
    assert html.count("<details>") == 2
    las = one(con, "SELECT f1 FROM mart_parsing_ud_scores WHERE campaign = ? AND task = 'ud' "
                   "AND slice = 'task' AND system = 'parser-a' AND metric = 'LAS'",
              [campaign.id])[0]
    low, high = one(con, "SELECT ci_low, ci_high FROM mart_parsing_ud_interval WHERE task = 'ud' "
                         "AND corpus = 'gsd' AND system = 'parser-a' AND metric = 'LAS'")
    scores = html.split("<h4>parser-a</h4>")[1].split("</table>")[0]
    las_row = next(r for r in scores.split("<tr") if ">LAS<" in r)
    assert (f'<td class="f">{100 * las:.2f}</td>' in las_row
            and f"{100 * low:.2f}–{100 * high:.2f}" in las_row)
    for metric in UD_METRICS:  # LAS, the official measure, is the headline column
        head = ' class="headline"' if metric == "LAS" else ""
        assert f"<th{head}>{metric}<div" in html
    # Breakdowns: parser-a mislabels its one obl word (head right): LAS F1 of obl is 0, a confusion
    # obl -> nmod.
    code = f"{campaign.code('beta')}-1"
    columns = [c["label"] for c in data["label_columns"]]
    assert columns == [*_alphabetical([code, "parser-a"]), "house"]
    deprel = {r["value"]: r for r in data["breakdowns"]["deprel"]}
    assert (deprel["nsubj"]["gold"] == 2
            and deprel["obl"]["cells"][columns.index("parser-a")]["f1"] == 0)
    assert deprel["obl"]["cells"][columns.index("house")]["f1"] == 1
    confusion = {label: rows for label, _, rows in data["confusion"]}
    assert [(r["gold_deprel"], r["system_deprel"], r["words"])
            for r in confusion["parser-a"]] == [("obl", "nmod", 1)]
    assert "house" not in confusion  # no labelling error
    assert '<div class="chart deprels"><svg' in html.replace("\n", "")
    assert [r["label"] for r in data["differences"]] == [code]
    for stem in ("parsing_ud_corpora", "parsing_ud_scores", "parsing_ud_by_label",
                 "parsing_ud_confusion", "parsing_ud_differences"):
        for ext in ("csv", "parquet", "md", "tex"):
            assert (folder / f"{stem}.{ext}").stat().st_size > 0, (stem, ext)
    exported = pl.read_csv(folder / "parsing_ud_scores.csv")
    assert exported.filter((pl.col("label") == "parser-a") & (pl.col("slice") == "task")
                           & (pl.col("metric") == "LAS"))["f1"][0] == pytest.approx(las)


@pytest.mark.parametrize("task, tables, charts", [("easy", EASY_TABLES, 2 + 2),
                                                  ("ud", UD_TABLES, 1)])
def test_page_in_chromium(pages, task, tables, charts):
    text, errors, counts = browse(pages["root"] / task / "index.html",
                                  (*tables, "div.chart svg", "div.signature",
                                   "table[data-signature]", "table"))
    assert errors == []
    assert counts["unsigned tables"] == 0
    assert counts["table[data-signature]"] == counts["table"]
    assert counts["div.chart svg"] == charts
    for selector in tables:
        assert counts[selector] >= 1, selector
    assert "Organisers (shown apart)" in text
    assert "boot|unit:sentence|resamples:50|seed:3|interval:percentile-95" in text
    assert ("parsing|conll18|recover:no|" if task == "ud"
            else "parsing|easy|mode:HYP|function:EQUAL|") in text


def test_both_pages_rank_by_the_paired_tests(pages, tmp_path):
    """The EASY results table ranks by F and the CoNLL-U overview by LAS, from the stored
    paired tests between the shown systems: a test separating two systems ranks them apart."""
    con, campaign = pages["con"], pages["campaign"]
    key = [campaign.id]

    def two(task: str, table: str, where: str) -> list[tuple[str, str, float]]:
        return con.execute(f"SELECT s.system, s.label, m.f1 FROM {table} m JOIN cat_system s "
                           "USING (campaign, task, system) WHERE m.campaign = ? AND m.task = ? "
                           "AND m.slice = 'task' AND NOT s.organiser AND s.label IS NOT NULL "
                           f"AND {where} "
                           "ORDER BY m.f1 DESC",
                           [*key, task]).fetchall()
    easy = two("easy", "mart_parsing_scores",
               "m.kind = 'relation' AND m.mode = 'HYP' AND m.function = 'EQUAL' AND m.type IS NULL")
    ud = two("ud", "mart_parsing_ud_scores", "m.metric = 'LAS'")
    assert len(easy) == len(ud) == 2 and easy[0][2] > easy[1][2] and ud[0][2] > ud[1][2]
    con.execute("INSERT INTO mart_parsing_paired VALUES (?, 'easy', '*', 'relation', 'HYP', "
                "'EQUAL', ?, ?, NULL, NULL, ?, NULL, NULL, 0.0, 1000, 1)",
                [*key, easy[0][0], easy[1][0], easy[0][2] - easy[1][2]])
    con.execute("INSERT INTO mart_parsing_ud_paired VALUES (?, 'ud', 'gsd', 'LAS', ?, ?, NULL, "
                "NULL, ?, NULL, NULL, 0.0, 1000, 1)", [*key, ud[0][0], ud[1][0],
                                                       ud[0][2] - ud[1][2]])
    try:
        _, easy_html = _render(con, campaign, campaign.tasks[0], tmp_path / "easy")
        _, ud_html = _render(con, campaign, campaign.tasks[1], tmp_path / "ud")
    finally:
        con.execute("DELETE FROM mart_parsing_paired WHERE campaign = ?", key)
        con.execute("DELETE FROM mart_parsing_ud_paired WHERE campaign = ?", key)
    relations = easy_html.split("<h3>Relations")[1]
    for (_, label, _), rank in zip(easy, ("1", "2")):
        assert re.search(rf">{re.escape(label)}</td><td>{rank}</td>", relations), label
    for (_, label, _), rank in zip(ud, ("1–2", "2–3")):  # the organiser's system is untested
        row = _row(ud_html, "parsing-ud-overview", label)
        assert f"</td><td>{rank}</td>" in row, (label, row)
    _, unranked = _render(con, campaign, campaign.tasks[1], tmp_path / "ud-untested")
    assert "</td><td>1–3</td>" in _row(unranked, "parsing-ud-overview", ud[0][1])  # no test
