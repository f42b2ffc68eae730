"""The coreference bulletin page (reports/coref.py, templates/coref.html) on a tiny campaign run
through the real pipeline (load, score, report), checked as HTML, as exported files and in
headless Chromium.

The campaign: one corpus ``news`` of four CoNLL-2012 documents, two of genre ``nw`` and two of
genre ``bc`` (the first component of the document name), 40 tokens each. Key of every document:
twelve mentions i = 0..11 at tokens [3i, 3i + i % 2] (one or two tokens) in classes i % 4, except
mention 11, a singleton, and a nested mention [6, 10] (a singleton enclosing mentions 2 and 3); a
side TSV gives single-token mentions the category ``pronoun``, the others ``nominal``. Systems:

- ``coref-a`` (Alpha Lab, public): mention 5 joins mention 6's class in every document, mention 11
  is missed in the two ``nw`` documents and a spurious mention [38, 38] is added to the first three
  (2 missed, 3 spurious);
- ``chainer`` (Beta Team, anonymous: shown as its code): every chain cut in two (mentions 6..11
  in classes of their own), the nested mention missed, and the last document missing from its
  file (all 13 of its mentions missed): 3 + 13 = 16 missed, none spurious;
- ``secret`` (Gamma Hidden Institute, withheld: never shown): random classes;
- ``house`` (the organisers: shown apart): classes 0 and 1 merged;

and the three built-in baselines. Both conventions, singletons counted and removed, the
``pronoun`` category scored apart, 50 bootstrap resamples.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from browser import browse
from helpers import PUBLICATION_PARTICIPANTS
from scipy.stats import kendalltau

from scorehouse.warehouse.campaign import load_campaign
from scorehouse.warehouse.db import frame, one
from scorehouse.warehouse.pipeline import open_warehouse, run

DOCS = ("nw/wsj/00/wsj_0001/000", "nw/wsj/00/wsj_0002/000", "bc/cnn/00/cnn_0001/000",
        "bc/cnn/00/cnn_0002/000")
TOKENS = 40
HIDDEN = ("secret", "Gamma Hidden Institute")
STEMS = ("coref_corpora", "coref_scores", "coref_differential", "coref_agreement", "coref_pairs",
         "coref_mentions", "coref_mentions_by_category")
TABLES = ("table.coref-corpora", "table.coref-mentions", "table.coref-mentions-category",
          "table.coref-table2", "table.coref-table3", "table.coref-conll", "table.coref-genre",
          "table.coref-subsets", "table.coref-pronouns", "table.coref-baselines",
          "table.coref-differential", "table.coref-pairs")
VARIANTS = 4  # conll / paper x singletons counted / removed


def _key(doc: str) -> list[tuple[int, int, str]]:
    mentions = [(3 * i, 3 * i + i % 2, str(i % 4 if i < 11 else 9)) for i in range(12)]
    return mentions + [(6, 10, "7")]


def _response(system: str, doc: str, rng: np.random.Generator) -> list[tuple[int, int, str]]:
    key = _key(doc)
    if system == "coref-a":
        number = DOCS.index(doc)
        out = [(s, e, key[6][2] if i == 5 else c) for i, (s, e, c) in enumerate(key)
               if i != 11 or number > 1]
        return out + ([(38, 38, "8")] if number < 3 else [])
    if system == "chainer":
        return [(s, e, str(int(c) + 10) if 6 <= i <= 11 else c) for i, (s, e, c) in enumerate(key)
                if i != 12]
    if system == "house":
        return [(s, e, "0" if c == "1" else c) for s, e, c in key]
    return [(s, e, str(rng.integers(0, 4))) for s, e, _ in key]


def _conll(partitions: dict[str, list[tuple[int, int, str]]]) -> str:
    """CoNLL-2012 lines (name, part, word number, word, coreference) of each document."""
    lines = []
    for doc, mentions in partitions.items():
        name, part = doc.rsplit("/", 1)
        marks: dict[int, list[str]] = {t: [] for t in range(TOKENS)}
        for s, e, c in sorted(mentions, key=lambda m: (m[0], -m[1])):  # openings: the longest first
            marks[s].append(f"({c})" if s == e else f"({c}")
        # closings: the shortest first
        for s, e, c in sorted(mentions, key=lambda m: (m[1], -m[0])):
            if s < e:
                marks[e].append(f"{c})")
        lines.append(f"#begin document ({name}); part {part}")
        lines += [f"{name}\t{part}\t{t}\tw{t}\t{'|'.join(marks[t]) or '-'}" for t in range(TOKENS)]
        lines += ["", "#end document"]
    return "\n".join(lines) + "\n"


CAMPAIGN = """
[campaign]
id = "coref-bulletin"
name = "Coreference bulletin test"
bootstrap = 50
seed = 3
code_key = "tests-code-key-not-secret"

[[phases]]
id = "test"

{participants}
[[tasks]]
id = "coref"
family = "coref"
name = "Coreference"
conventions = ["paper", "conll"]
singletons = [true, false]
categories = ["pronoun"]
draws = 3

[[tasks.corpora]]
id = "news"
key = "key.conll"
categories = "key.categories.tsv"
""" + "".join(f"""
[[tasks.systems]]
id = "{s}"
participant = "{p}"
submissions = {{ news = "{s}.conll" }}
""" for s, p in (("coref-a", "alpha"), ("chainer", "beta"), ("secret", "gamma"), ("house", "orga")))


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    root = tmp_path_factory.mktemp("bulletin_coref")
    toml = CAMPAIGN.replace("{participants}", PUBLICATION_PARTICIPANTS)
    (root / "campaign.toml").write_text(toml, encoding="utf-8")
    (root / "key.conll").write_text(_conll({d: _key(d) for d in DOCS}), encoding="utf-8")
    (root / "key.categories.tsv").write_text("doc\tstart\tend\tcategory\n" + "".join(
        f"{d}\t{s}\t{e}\t{'pronoun' if s == e else 'nominal'}\n" for d in DOCS
        for s, e, _ in _key(d)),
        encoding="utf-8")
    rng = np.random.default_rng(5)
    for system in ("coref-a", "chainer", "secret", "house"):
        docs = DOCS[:-1] if system == "chainer" else DOCS
        (root / f"{system}.conll").write_text(_conll({d: _response(system, d, rng) for d in docs}),
                                              encoding="utf-8")
    result = run(root, root / "warehouse.duckdb", root / "out", quiet=True)
    assert result.rejections == [] and result.exit_code == 0, result.summary()
    con = open_warehouse(root / "warehouse.duckdb")
    campaign = load_campaign(root)
    folder = root / "out" / "coref"
    yield {"con": con, "campaign": campaign, "folder": folder,
           "html": (folder / "index.html").read_text(encoding="utf-8"),
           "code": f"{campaign.code('beta')}-1"}
    con.close()


def _exported(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in folder.iterdir()
                   if p.suffix in (".csv", ".md", ".tex"))


def _table(html: str, table_class: str, nth: int = 0) -> str:
    """The ``nth`` table of the class (variants in page order)."""
    return html.split(f'<table class="{table_class}"')[1 + nth].split("</table>")[0]


def _row(table: str, label: str) -> str:
    return next(r for r in table.split("<tr") if f">{label}<" in r or f">{label} <" in r)


def _mart(con, system: str, metric: str, convention: str = "conll", singletons: bool = True,
          slice_: str = "corpus", genre: str | None = None, subset: str = "all") -> dict:
    rows = frame(con, "SELECT recall, precision, f1, value, direction FROM mart_coref_scores "
                      "WHERE system = ? AND metric = ? AND convention = ? AND singletons = ? "
                      "AND slice = ? AND subset = ? AND genre IS NOT DISTINCT FROM ?",
                 [system, metric, convention, singletons, slice_, subset, genre]).to_dicts()
    assert len(rows) == 1, (system, metric, convention, singletons, slice_, genre)
    return rows[0]


@pytest.mark.slow
def test_publication_flags(page):
    html, folder, code = page["html"], page["folder"], page["code"]
    exported = _exported(folder)
    for hidden in HIDDEN:
        assert hidden not in html and hidden not in exported
    assert code in html and code in exported
    assert "chainer" not in html + exported and "Beta Team" not in html
    assert "coref-a" in html and 'house <span class="mark">(organiser)</span>' in html
    table = _table(html, "coref-table2")
    groups = re.findall(r'<tr class="group"><td colspan="\d+">([^<]+)</td>', table)
    assert groups == ["Participants", "Baselines (built-in)", "Organisers (shown apart)"]
    order = [table.index(f">{label}")  # participants in alphabetical order (ICU: c before P)
             for label in ("coref-a", code, "Baseline: all singletons", "Baseline: all merged",
                           "Baseline: random, key profile", "house")]
    assert order == sorted(order)
    # Variants: the CoNLL scorer's convention first, whatever the task's order; singletons as
    # declared.
    titles = re.findall(r'<h3 id="news-(\w+)-([\w-]+)">', html)
    assert titles == [("conll", "singletons"), ("conll", "no-singletons"), ("paper", "singletons"),
                      ("paper", "no-singletons")]


def test_numbers_equal_the_marts(page):
    con, html = page["con"], page["html"]
    # Today's table: the CoNLL average of coref-a with its interval (conll convention, singletons
    # counted).
    conll = _mart(con, "coref-a", "conll")["f1"]
    low, high = one(con, "SELECT ci_low, ci_high FROM mart_coref_interval WHERE system = 'coref-a' "
                         "AND metric = 'conll' AND convention = 'conll' AND singletons "
                         "AND subset = 'all'")
    assert 0.5 < conll < 1 and low < conll < high  # the data make the check meaningful
    row = _row(_table(html, "coref-conll", 0), "coref-a")
    # the headline first: the CoNLL average is the cell right after the system's name
    assert (f'</td>\n    <td class="sep conll headline">{100 * conll:.2f}'
            f'<div class="ci">{100 * low:.2f}–{100 * high:.2f}</div>') in row
    ceafe = _mart(con, "coref-a", "ceafe")
    assert (f"<td>{100 * ceafe['precision']:.2f}</td>" in row
            and f"{100 * ceafe['f1']:.2f}<div" in row)
    # Table 2 (paper convention, singletons counted: the third variant): MUC R / P of the anonymous
    # system.
    code = page["code"]
    muc = _mart(con, "chainer", "muc", "paper")
    assert muc["recall"] < 1
    row = _row(_table(html, "coref-table2", 2), code)
    assert (f'<td class="sep">{100 * muc["recall"]:.1f}</td><td>{100 * muc["precision"]:.1f}</td>'
            in row)
    d_error = _mart(con, "chainer", "d_error", "paper")
    assert f'{100 * d_error["value"]:.1f}-{d_error["direction"][0]}</span>' in row
    # Table 3: kappa of coref-a.
    kappa = _mart(con, "coref-a", "kappa", "paper")["value"]
    assert (f'<td class="sep">{100 * kappa:.1f}</td>'
            in _row(_table(html, "coref-table3", 2), "coref-a"))
    # The conventions differ where nothing is resolved: MUC precision of all singletons,
    # 100 % vs 0 %.
    for nth, convention, shown in ((0, "conll", "0.0"), (2, "paper", "100.0")):
        assert (_mart(con, "baseline-singletons", "muc", convention)["precision"]
                == float(shown) / 100)
        cells = re.findall(r"<td[^>]*>([^<]*)</td>",
                           _row(_table(html, "coref-table2", nth), "Baseline: all singletons"))
        assert cells[1] == shown  # MPS, after MRS


def test_genres_subsets_and_pronouns(page):
    con, html = page["con"], page["html"]
    table = _table(html, "coref-genre", 0)
    assert re.findall(r'class="sep group-head">(\w+)</th>', table) == ["bc", "nw"]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", _row(table, "coref-a"))
    expected = [_mart(con, "coref-a", m, slice_="genre", genre=g)["f1"] for g in ("bc", "nw")
                for m in ("conll", "muc", "bcub", "ceafe")]
    assert cells[1:] == [f"{100 * v:.2f}" for v in expected]
    subsets = _table(html, "coref-subsets", 0)
    assert "subset:category:pronoun" in subsets
    muc = _mart(con, "coref-a", "muc", subset="category:pronoun")["f1"]
    assert f"<td>{100 * muc:.1f}</td>" in _row(subsets, "coref-a")
    pronoun = _mart(con, "house", "pronoun_antecedent")
    assert 0 < pronoun["recall"] < 1
    assert (f"<td>{100 * pronoun['recall']:.2f}</td>"
            in _row(_table(html, "coref-pronouns", 0), "house"))


def test_mentions(page):
    html, code = page["html"], page["code"]
    table = _table(html, "coref-mentions")
    counts = {label: re.findall(r"<td>(\d+)</td>", _row(table, label))[:5]
              for label in ("coref-a", code, "house")}
    # key mentions, response mentions, both, missed, spurious
    assert counts == {"coref-a": ["52", "53", "50", "2", "3"], code: ["52", "36", "36", "16", "0"],
                      "house": ["52", "52", "52", "0", "0"]}
    assert "Baseline:" not in table
    by_category = _table(html, "coref-mentions-category")
    assert re.findall(r'group-head">(\w+)</th>', by_category) == ["nominal", "pronoun"]


def test_baselines_and_differential(page):
    con, html, folder = page["con"], page["html"], page["folder"]
    baselines = ("baseline-singletons", "baseline-merged", "baseline-random")
    best = max(_mart(con, b, "bcub")["f1"] for b in baselines)
    mine = _mart(con, "coref-a", "bcub")["f1"]
    row = _row(_table(html, "coref-differential", 0), "coref-a")
    cells = re.findall(r'<span class="(?:up|down|)">([^<]+)</span>', row)
    # B3 is the second measure
    assert len(cells) == 12 and cells[1] == f"{100 * (mine - best):+.1f}"
    best_row = next(r for r in _table(html, "coref-baselines", 0).split("<tr")
                    if "best baseline" in r)
    assert f">{100 * best:.1f}</td>" in best_row
    exported = pl.read_csv(folder / "coref_differential.csv")
    got = exported.filter((pl.col("label") == "coref-a") & (pl.col("metric") == "bcub")
                          & (pl.col("convention") == "conll") & pl.col("singletons"))
    assert got.height == 1 and got["difference"][0] == pytest.approx(mine - best)
    # no baseline against itself
    assert set(exported["label"]) == {"coref-a", page["code"], "house"}


def test_agreement(page):
    con, html, folder = page["con"], page["html"], page["folder"]
    charts = re.findall(r'<div class="chart agreement" data-signature="([^"]+)">\s*<svg', html)
    assert len(charts) == VARIANTS and all("rank:kendall-tau-b|systems:6|" in s for s in charts)
    assert (len(re.findall(r'<div class="chart measures" data-signature="[^"]+">\s*<svg', html))
            == VARIANTS)
    # Kendall's tau between MUC and B3 over the six shown systems, recomputed from the mart.
    shown = ["coref-a", "chainer", "house", "baseline-singletons", "baseline-merged",
             "baseline-random"]
    muc = [_mart(con, s, "muc")["f1"] for s in shown]
    bcub = [_mart(con, s, "bcub")["f1"] for s in shown]
    tau = pl.read_csv(folder / "coref_agreement.csv").filter(
        (pl.col("convention") == "conll") & pl.col("singletons") & (pl.col("measure_a") == "MUC")
        & (pl.col("measure_b") == "B³"))
    assert tau.height == 1 and tau["tau"][0] == pytest.approx(kendalltau(muc, bcub).statistic)
    assert tau["systems"][0] == 6
    pairs = (pl.read_csv(folder / "coref_pairs.csv")
             .filter((pl.col("convention") == "conll") & pl.col("singletons")))
    assert pairs.height == 3  # coref-a, the anonymous system and house: no baseline
    assert (pairs["a_better"] + pairs["b_better"] + pairs["ties"] == 12).all()


def test_exports(page):
    con, html, folder = page["con"], page["html"], page["folder"]
    for stem in STEMS:
        for ext in ("csv", "parquet", "md", "tex"):
            assert (folder / f"{stem}.{ext}").stat().st_size > 0, (stem, ext)
        assert f'href="{stem}.csv"' in html
    scores = pl.read_parquet(folder / "coref_scores.parquet")
    assert ("system" not in scores.columns
            and scores["signature"].str.starts_with("coref|convention:").all())
    got = scores.filter((pl.col("label") == "house") & (pl.col("metric") == "lea")
                        & (pl.col("convention") == "paper") & ~pl.col("singletons")
                        & (pl.col("slice") == "corpus") & (pl.col("subset") == "all"))
    assert (got.height == 1
            and got["f1"][0] == pytest.approx(_mart(con, "house", "lea", "paper", False)["f1"]))
    corpora = pl.read_csv(folder / "coref_corpora.csv").to_dicts()
    assert corpora == [{"corpus": "news", "phase": "test", "documents": 4, "genres": 2,
                        "key_mentions": 52,
                        "key_classes": 24, "singleton_classes": 8, "largest_class": 3,
                        "mentions_per_class": pytest.approx(52 / 24)}]


def test_page_in_chromium(page):
    text, errors, counts = browse(page["folder"] / "index.html",
                                  (*TABLES, "div.chart svg", "div.chart[data-signature]",
                                   "div.chart", "div.signature", "table[data-signature]", "table"))
    assert errors == []
    assert counts["unsigned tables"] == 0
    assert counts["table[data-signature]"] == counts["table"]
    assert (counts["div.chart svg"] == counts["div.chart[data-signature]"] == counts["div.chart"]
            == 2 * VARIANTS)
    for selector in TABLES:
        assert counts[selector] >= 1, selector
    assert "Organisers (shown apart)" in text and "Baselines (built-in)" in text
    assert "boot|unit:document|resamples:50|seed:3|interval:percentile-95" in text
    assert "coref|convention:paper|singletons:no|" in text
