"""The terminology bulletin page (reports/terms.py, templates/terms.html) on a tiny campaign run
through the real pipeline (load, score, report) twice, checked as HTML, as exported files and in
headless Chromium.

The campaign: one corpus ``wind-fr`` whose reference holds 27 lower-cased wind-energy terms with
ACTER labels (Specific_Term, Common_Term, Named_Entity, OOD_Term), reference variants and relations;
``case = "lower"``, sigma 0.4, a cut-off at 5, CoRReCT (``incremental = true``), 50 resamples.
Systems, in declaration order:

- ``extractor-a`` (Alpha Lab, public): a scored list of 16 terms and one duplicate (``Rotor``):
  exact terms, near variants (``pales``, ``nacelles``, ``vitesses du vent``, ...), two terms just
  beyond sigma (``puissance``, ``génératrice``); variants, relations and a validated list;
- ``termer`` (Beta Team, anonymous: shown as its code): a plain list of 15 terms and a validated
  list;
- ``secret`` (Gamma Hidden Institute, withheld: never shown): 4 terms, a validated list that keeps
  a proposal new to the incremental reference (``hauban``);
- ``house`` (the organisers: shown apart): ``Éolienne``, ``éoliennes``, ``zzz qqq``.

``house`` is the hand-computed case (the paper's table 1, third row): ``éolienne`` is exact,
``éoliennes`` at dt = (1/9 + 1/9) / 2 from it joins its part, ``zzz qqq`` is a part alone, so
|P(S)| = 2, TP = (1 + 0) / 2 = 0.5, P = 1/3, TR = R = 1/|R|.

The first run scores against this reference; the reference is then revised (one Common_Term
added, |R| = 28) and the second run's page is checked, with its changes.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from browser import browse
from helpers import PUBLICATION_PARTICIPANTS

from scorehouse.warehouse.campaign import load_campaign
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.families.terms import signature
from scorehouse.warehouse.pipeline import open_warehouse, run

HIDDEN = ("secret", "Gamma Hidden Institute", "hauban")
STEMS = ("terms_corpora", "terms_scores", "terms_cutoffs", "terms_sweep", "terms_links",
         "terms_validation", "terms_reference_build")
TABLES = ("table.terms-corpora", "table.terms-main", "table.terms-termeval", "table.terms-labels",
          "table.terms-cutoffs", "table.terms-pairs", "table.terms-links", "table.terms-validation",
          "table.terms-build", "table.terms-incremental", "table.terms-changes",
          "table.terms-lists")
CORPUS = "wind-fr"

REFERENCE = """éolienne\tSpecific_Term
éolienne offshore\tSpecific_Term
parc éolien\tSpecific_Term
pale\tSpecific_Term
rotor\tSpecific_Term
nacelle\tSpecific_Term
mât\tSpecific_Term
vitesse du vent\tSpecific_Term
puissance nominale\tSpecific_Term
courbe de puissance\tSpecific_Term
énergie éolienne\tSpecific_Term
génératrice asynchrone\tSpecific_Term
multiplicateur\tSpecific_Term
facteur de charge\tSpecific_Term
réseau électrique\tCommon_Term
énergie\tCommon_Term
électricité\tCommon_Term
turbine\tCommon_Term
vent\tCommon_Term
production\tCommon_Term
rendement\tCommon_Term
danemark\tNamed_Entity
vestas\tNamed_Entity
siemens gamesa\tNamed_Entity
ademe\tNamed_Entity
mer du nord\tNamed_Entity
agriculture\tOOD_Term
"""
REVISED = REFERENCE + "machine à vent\tCommon_Term\n"
REFERENCE_VARIANTS = "v1\tpale\nv1\tpales\nv2\tnacelle\nv2\tnacelles\nv3\trotor\nv3\trotors\n"
REFERENCE_RELATIONS = ("pale\tpart_of\trotor\nrotor\tpart_of\téolienne\n"
                       "nacelle\tpart_of\téolienne\nénergie éolienne\tsynonym\ténergie du vent\n"
                       "vent\trelated\tvitesse du vent\n")
FILES = {
    "extractor-a.terms.tsv": "".join(f"{t}\t{s}\n" for t, s in (
        ("Éolienne", 0.99), ("parc éolien", 0.95), ("pales", 0.93), ("rotor", 0.9),
        ("vitesses du vent", 0.88), ("puissance", 0.85), ("courbe de puissances", 0.8),
        ("Vestas", 0.78), ("ademe", 0.75), ("énergies éoliennes", 0.7), ("génératrice", 0.65),
        ("machine à vent", 0.6), ("nacelles", 0.55), ("Rotor", 0.52), ("mât d'éolienne", 0.5),
        ("rendement", 0.45), ("pale", 0.4))),
    "extractor-a.variants.tsv": "g1\tpale\ng1\tpales\ng2\tnacelles\ng2\tmât d'éolienne\n"
                                "g3\trendement\ng3\ténergies éoliennes\n",
    "extractor-a.relations.tsv": "pale\tpart_of\trotor\néolienne\thas_part\trotor\n"
                                 "rotor\tpart_of\téolienne\n",
    "extractor-a.validated.tsv": "éolienne\nparc éolien\npales\nrotor\nvitesse du vent\n"
                                 "puissance nominale\ncourbe de puissance\nvestas\nademe\n"
                                 "énergie éolienne\nnacelles\nrendement\npale\nmultiplicateur\n",
    "termer.terms.tsv": "énergie\nélectricité\nturbines\nvent\nProduction\nréseau électrique\n"
                        "mer du nord\nSiemens Gamesa\nagriculture\npollution\npaysage\nbruit\n"
                        "oiseaux\nfacteur de charges\nmultiplicateurs\n",
    "termer.validated.tsv": "énergie\nélectricité\nturbine\nvent\nproduction\nréseau électrique\n"
                            "mer du nord\nsiemens gamesa\nfacteur de charge\nmultiplicateur\n"
                            "bruit\n",
    "secret.terms.tsv": "éolienne\nmât\nsecret term\nhauban\n",
    "secret.validated.tsv": "éolienne\nmât\nhauban\n",
    "house.terms.tsv": "Éolienne\néoliennes\nzzz qqq\n",
}

CAMPAIGN = """
[campaign]
id = "terms-bulletin"
name = "Terminology bulletin test"
bootstrap = 50
seed = 3
code_key = "tests-code-key-not-secret"

[[phases]]
id = "test"

{participants}
[[tasks]]
id = "terms"
family = "terms"
name = "Terminology extraction (wind energy, French)"
case = "lower"
sigma = 0.4
top = [5]
incremental = true

[[tasks.corpora]]
id = "wind-fr"
genre = "wind energy"
reference = "reference.tsv"
variants = "reference.variants.tsv"
relations = "reference.relations.tsv"
""" + "".join(f"""
[[tasks.systems]]
id = "{s}"
participant = "{p}"
terms = {{ wind-fr = "{s}.terms.tsv" }}
""" + "".join(f'{role} = {{ wind-fr = "{s}.{role}.tsv" }}\n'
              for role in ("variants", "relations", "validated")
              if f"{s}.{role}.tsv" in FILES)
    for s, p in (("extractor-a", "alpha"), ("termer", "beta"), ("secret", "gamma"),
                 ("house", "orga")))


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    root = tmp_path_factory.mktemp("bulletin_terms")
    (root / "campaign.toml").write_text(
        CAMPAIGN.replace("{participants}", PUBLICATION_PARTICIPANTS), encoding="utf-8")
    for name, text in {"reference.tsv": REFERENCE, "reference.variants.tsv": REFERENCE_VARIANTS,
                       "reference.relations.tsv": REFERENCE_RELATIONS, **FILES}.items():
        (root / name).write_text(text, encoding="utf-8")
    first = run(root, root / "warehouse.duckdb", root / "out", quiet=True)
    assert first.rejections == [] and first.exit_code == 0, first.summary()
    (root / "reference.tsv").write_text(REVISED, encoding="utf-8")  # the reference is revised
    second = run(root, root / "warehouse.duckdb", root / "out", quiet=True)
    assert second.rejections == [] and second.exit_code == 0 and second.scored > 0, second.summary()
    con = open_warehouse(root / "warehouse.duckdb")
    campaign = load_campaign(root)
    folder = root / "out" / "terms"
    yield {"con": con, "campaign": campaign, "folder": folder,
           "runs": (first.run_id, second.run_id),
           "html": (folder / "index.html").read_text(encoding="utf-8"),
           "code": f"{campaign.code('beta')}-1"}
    con.close()


def _exported(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in folder.iterdir()
                   if p.suffix in (".csv", ".md", ".tex"))


def _table(html: str, table_class: str, nth: int = 0) -> str:
    """The ``nth`` table of the class, without the whitespace between tags."""
    return re.sub(r">\s+<", "><", html.split(f'<table class="{table_class}"')[1 + nth]
                  .split("</table>")[0])


def _rows(table: str, label: str) -> list[str]:
    return [r for r in table.split("<tr") if f">{label}<" in r or f">{label} <" in r]


def _row(table: str, label: str) -> str:
    rows = _rows(table, label)
    assert rows, label
    return rows[0]


def _cells(row: str) -> list[str]:
    """The text of a row's cells (an interval's ``div`` kept as `` [low–high]``)."""
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)
    return [re.sub(r"<[^>]+>", "", re.sub(r'<div class="ci">(.*?)</div>', r" [\1]", c)).strip()
            for c in cells]


def _score(con, system: str, reference: str = "reference", slice_: str = "all",
           top: int = 0) -> dict:
    rows = frame(con, "SELECT * FROM mart_terms_scores WHERE corpus = ? AND system = ? "
                      "AND reference = ? AND slice = ? AND top = ?",
                 [CORPUS, system, reference, slice_, top]).to_dicts()
    assert len(rows) == 1, (system, reference, slice_, top)
    return rows[0]


def _interval(con, system: str, metric: str) -> tuple[float, float]:
    low, high = frame(con, "SELECT low, high FROM mart_terms_interval WHERE corpus = ? "
                           "AND system = ? AND reference = 'reference' AND slice = 'all' "
                           "AND metric = ?", [CORPUS, system, metric]).row(0)
    return low, high


def _pct(v: float, digits: int = 1) -> str:
    return f"{100 * v:.{digits}f}"


@pytest.mark.slow
def test_publication_flags(page):
    html, folder, code = page["html"], page["folder"], page["code"]
    exported = _exported(folder)
    for hidden in HIDDEN:
        assert hidden not in html and hidden not in exported, hidden
    assert code in html and code in exported
    assert "termer" not in html + exported and "Beta Team" not in html
    assert "extractor-a" in html and 'house <span class="mark">(organiser)</span>' in html
    table = _table(html, "terms-main")
    groups = re.findall(r'<tr class="group"><td colspan="\d+">([^<]+)</td>', table)
    assert groups == ["Participants", "Organisers (shown apart)"]
    # participants in alphabetical order (ICU: e before P), organisers after
    order = [table.index(f">{label}") for label in ("extractor-a", code, "house")]
    assert order == sorted(order)


def test_main_table_equals_the_marts(page):
    con, html = page["con"], page["html"]
    head = signature(0.4, "lower")
    assert head.startswith(
        "terms|sigma:0.4|case:lower|distance:dt=(dch+dtc)/2|ties:first-in-reference|")
    assert f'<table class="terms-main" data-signature="{head}">' in html
    a = _score(con, "extractor-a")
    # graded > classical here
    assert 0 < a["precision"] < a["tp"] < 1 and a["aligned_terms"] > a["parts"] - 5
    cells = _cells(_row(_table(html, "terms-main"), "extractor-a"))
    expected = [f"{_pct(a[m])} [{_pct(_interval(con, 'extractor-a', m)[0])}–"
                f"{_pct(_interval(con, 'extractor-a', m)[1])}]"
                for m in ("tp", "tr", "f", "precision", "recall", "f_exact")]
    assert cells[2:8] == expected
    assert cells[8:] == [str(a["output_terms"]), str(a["parts"]), str(a["aligned_terms"])]
    best, worst = con.execute("SELECT rank_best, rank_worst FROM mart_terms_rank WHERE "
                              "system = 'extractor-a'").fetchall()[0]  # all shown here
    assert cells[1] == (f"{best}" if best == worst else f"{best}–{worst}")
    assert a["output_terms"] == 16  # 17 lines, ``Rotor`` counted once


def test_hand_computed_house(page):
    """|P(S)| = 2 ({éolienne, éoliennes} and {zzz qqq}), TP = 1/2, P = 1/3, TR = R = 1/28."""
    con, html = page["con"], page["html"]
    cells = _cells(_row(_table(html, "terms-main"), "house"))
    assert [c.split(" [")[0] for c in cells[2:8]] == [
        "50.0", _pct(1 / 28), _pct(2 * 0.5 / 28 / (0.5 + 1 / 28)),
        "33.3", _pct(1 / 28), _pct(2 / 3 / 28 / (1 / 3 + 1 / 28))]
    assert cells[8:] == ["3", "2", "2"]
    pairs = _table(html, "terms-pairs", 2)  # page order: extractor-a, the anonymous code, house
    assert re.search(r'term">éoliennes</td><td>2</td><td class="text term">éolienne</td>.*?'
                     r'<td class="sep">0\.111</td><td>0\.111</td><td>0\.111</td><td>88\.9</td>',
                     pairs, re.S)
    assert _score(con, "house")["tp"] == pytest.approx(0.5)


def test_slices_and_cutoffs(page):
    con, html = page["con"], page["html"]
    termeval = _table(html, "terms-termeval")
    sizes = dict(frame(con, "SELECT slice, max(reference_terms) FROM fct_terms_slice "
                            "WHERE reference = 'reference' GROUP BY slice").iter_rows())
    assert sizes["all"] == 28 and sizes["without:Named_Entity"] == 23
    assert "All terms (|R| = 28)" in termeval and "Without Named_Entity (|R| = 23)" in termeval
    for label in ("extractor-a", page["code"]):
        system = "extractor-a" if label == "extractor-a" else "termer"
        expected = [_pct(_score(con, system, slice_=s)[m]) for s in ("all", "without:Named_Entity")
                    for m in ("precision", "recall", "f_exact")]
        assert _cells(_row(termeval, label))[1:] == expected
    labels = _table(html, "terms-labels")
    assert re.findall(r'group-head">(\w+) \(\|R\| = (\d+)\)', labels) == [
        ("Common_Term", "8"), ("Named_Entity", "5"), ("OOD_Term", "1"), ("Specific_Term", "14")]
    expected = [_pct(_score(con, "termer", slice_=f"label:{lab}")[m])
                for lab in ("Common_Term", "Named_Entity", "OOD_Term", "Specific_Term")
                for m in ("tr", "recall")]
    assert _cells(_row(labels, page["code"]))[1:] == expected
    cutoffs = _table(html, "terms-cutoffs")
    five = _score(con, "extractor-a", top=5)
    assert five["output_terms"] == 5
    row = next(r for r in _rows(cutoffs, "extractor-a"))
    assert _cells(row)[1:] == [
        "5", *(_pct(five[m]) for m in ("tp", "tr", "f", "precision", "recall", "f_exact")),
        "5", str(five["aligned_terms"])]


def test_sweep_charts(page):
    html, folder, con = page["html"], page["folder"], page["con"]
    for kind in ("tp", "aligned", "tr"):
        charts = re.findall(rf'<div class="chart sweep-{kind}" data-signature="([^"]+)">\s*<svg',
                            html)
        assert len(charts) == 1 and charts[0].startswith("terms|sigma:0..1/0.05|case:lower|")
    assert "declared σ = 0.4" in html
    sweep = pl.read_csv(folder / "terms_sweep.csv")
    assert set(sweep["label"]) == {"extractor-a", page["code"], "house"}
    assert sweep.height == 3 * 21
    got = sweep.filter((pl.col("label") == "extractor-a") & (pl.col("sigma") == 0.4))
    assert got["tp"][0] == pytest.approx(_score(con, "extractor-a")["tp"])
    # At sigma = 0 nothing is grouped: TP is the classical precision (the paper, section 7.2).
    zero = sweep.filter(pl.col("sigma") == 0.0)
    assert zero["tp"].to_list() == pytest.approx(zero["precision"].to_list())


def test_pairs(page):
    con, html = page["con"], page["html"]
    pairs = frame(con, "SELECT term, nearest, dt FROM int_terms_alignment "
                       "WHERE system = 'extractor-a' AND reference = 'reference' AND slice = 'all' "
                       "AND NOT exact AND dt <= 0.4 + 1e-9 ORDER BY dt, rank")
    assert 4 <= pairs.height <= 2 * 12
    shown = re.findall(r'<td class="text term">([^<]+)</td><td>\d+</td><td class="text term">'
                       r'([^<]+)</td>.*?<td>([\d.]+)</td><td>[\d.]+</td></tr>',
                       _table(html, "terms-pairs", 0), re.S)  # extractor-a's: the first
    closest = shown[:min(12, pairs.height)]
    assert ([(t, n) for t, n, _ in closest]
            == list(zip(pairs["term"], pairs["nearest"]))[:len(closest)])
    assert ("pales", "pale", f"{pairs.filter(pl.col('term') == 'pales')['dt'][0]:.3f}") in shown
    # beyond sigma, or exact
    assert all(t not in {"puissance", "génératrice", "rotor"} for t, _, _ in shown)
    assert f"extractor-a: {pairs.height} aligned output terms not in the reference" in html


def test_links_validation_and_correct(page):
    con, html, code = page["con"], page["html"], page["code"]
    links = _table(html, "terms-links")
    # Variant pairs: (pale, pales) is the only reference pair whose two terms extractor-a returned
    # (it returned nacelles, not nacelle; rotor, not rotors); its pairs are g1, g2, g3:
    # 1 matched of 3.
    variant = next(r for r in _rows(links, "extractor-a") if "variant pairs" in r)
    assert _cells(variant)[2:] == ["1", "1", "3", "33.3", "100.0", "50.0"]
    # Relations: pale-rotor and rotor-éolienne are restricted in; éolienne has_part rotor is
    # spurious.
    relations = next(r for r in _rows(links, "extractor-a") if "relations: all types" in r)
    assert _cells(relations)[2:] == ["2", "2", "3", "66.7", "100.0", "80.0"]
    assert "relations: part_of" in links
    validation = _table(html, "terms-validation")
    v = frame(con, "SELECT * FROM mart_terms_validation WHERE system = 'extractor-a'").to_dicts()[0]
    s = _score(con, "extractor-a", reference="validated")
    assert v["added"] >= 1 and v["modified"] >= 1 and v["deleted"] >= 1
    assert _cells(_row(validation, "extractor-a"))[1:] == [
        *(str(v[c]) for c in ("raw_terms", "validated_terms", "kept", "modified", "deleted",
                              "added")),
        _pct(v["effort"]), *(_pct(s[m]) for m in ("tp", "tr", "f", "precision", "recall"))]
    assert _rows(validation, "house") == []
    build = _table(html, "terms-build")
    versions = frame(con, "SELECT version, count(*) AS n FROM int_terms_reference_build "
                          "GROUP BY version ORDER BY version")
    sizes = [str(n) for n in versions["n"].cum_sum()]
    got = [_cells(r) for r in build.split("<tr")[2:]]
    assert [c[1] for c in got] == ["corpus reference", "extractor-a", code, "(withheld system)"]
    assert [c[2] for c in got] == [str(n) for n in versions["n"]] and [c[3] for c in got] == sizes
    assert got[0][3] == "28"
    incremental = _table(html, "terms-incremental")
    order = [incremental.index(f">{label}") for label in ("extractor-a", code, "house")]
    assert order == sorted(order)  # declaration order, whatever the labels
    house = _score(con, "house", reference="incremental")
    assert _cells(_row(incremental, "house"))[1:3] == [str(int(sizes[-1])), _pct(house["tp"])]


def test_changes_and_lists(page):
    con, html, runs = page["con"], page["html"], page["runs"]
    changes = _table(html, "terms-changes")
    rows = _rows(changes, "extractor-a")
    assert rows, changes
    main = next(r for r in rows if "corpus reference" in r)
    cells = _cells(main)
    before = frame(con, "SELECT tp FROM hist_terms_scores WHERE run_id = ? "
                        "AND system = 'extractor-a' AND reference = 'reference' "
                        "AND slice = 'all'", [runs[0]])["tp"][0]
    now = _score(con, "extractor-a")["tp"]
    assert now != before  # ``machine à vent`` is now in the reference
    tr_before = frame(con, "SELECT tr FROM hist_terms_scores WHERE run_id = ? "
                           "AND system = 'extractor-a' AND reference = 'reference' "
                           "AND slice = 'all'", [runs[0]])["tr"][0]
    tr_now = _score(con, "extractor-a")["tr"]
    assert tr_now != tr_before
    # TR first: the official measure (the front page's), two decimals as its changes section
    assert cells[2:9] == [f"{runs[0]} → {runs[1]}", f"{100 * tr_now:.2f}",
                          f"{100 * tr_before:.2f}", f"{100 * (tr_now - tr_before):+.2f}",
                          _pct(now), _pct(before), f"{100 * (now - before):+.1f}"]
    assert "reference" in cells[-1]
    # Only the scores that moved: extractor-a against its own validated list did not.
    assert not any("own validated list" in r for r in rows)
    assert _score(con, "extractor-a", reference="validated")["tp"] == frame(
        con, "SELECT tp FROM hist_terms_scores WHERE run_id = ? AND system = 'extractor-a' "
             "AND reference = 'validated' AND slice = 'all'", [runs[0]])["tp"][0]
    assert re.search(r"\d+ other scores\s+of this run came out unchanged", html)
    lists = _table(html, "terms-lists")
    a = [_cells(r) for r in _rows(lists, "extractor-a")]
    assert ["extractor-a", "terms", "extractor-a.terms.tsv", "17", "16", "1"] in a
    assert ["extractor-a", "validated", "extractor-a.validated.tsv", "14", "14", "0"] in a
    assert (["reference", "reference", "reference.tsv", "28", "28", "0"]
            in [_cells(r) for r in _rows(lists, "reference")])


def test_exports(page):
    html, folder = page["html"], page["folder"]
    for stem in STEMS:
        for ext in ("csv", "parquet", "md", "tex"):
            assert (folder / f"{stem}.{ext}").stat().st_size > 0, (stem, ext)
        assert f'href="{stem}.csv"' in html
    scores = pl.read_parquet(folder / "terms_scores.parquet")
    assert ("system" not in scores.columns
            and scores["signature"].str.starts_with("terms|sigma:0.4|").all())
    got = scores.filter((pl.col("label") == "house") & (pl.col("reference") == "reference")
                        & (pl.col("slice") == "all"))
    assert got.height == 1 and got["tp"][0] == pytest.approx(0.5)
    assert got["tp_low"][0] is not None and got["tp_low"][0] <= 0.5 <= got["tp_high"][0]
    assert set(pl.read_csv(folder / "terms_cutoffs.csv")["top"]) == {5}
    corpora = pl.read_csv(folder / "terms_corpora.csv").to_dicts()
    assert corpora == [{"corpus": CORPUS, "phase": "test", "genre": "wind energy",
                        "reference_terms": 28,
                        "labels": "Common_Term 8, Named_Entity 5, OOD_Term 1, Specific_Term 14",
                        "systems": 3}]


def test_page_in_chromium(page):
    text, errors, counts = browse(page["folder"] / "index.html",
                                  (*TABLES, "div.chart svg", "div.chart[data-signature]",
                                   "div.chart", "div.signature", "table[data-signature]", "table"))
    assert errors == []
    assert counts["unsigned tables"] == 0
    assert counts["table[data-signature]"] == counts["table"]
    assert (counts["div.chart svg"] == counts["div.chart[data-signature]"] == counts["div.chart"]
            == 3)
    for selector in TABLES:
        assert counts[selector] >= 1, selector
    assert counts["table.terms-pairs"] == 3  # one per published system
    assert "Organisers (shown apart)" in text
    assert ("boot|resample:output-parts(TP),reference-terms(TR,R),output-terms(P),paired(F)|"
            "resamples:50|seed:3|") in text
    for heading in ("Term precision and recall at σ = 0.4",
                    "Exact match with and without named entities",
                    "Recall per reference label", "Cut-offs of the ranked lists", "The threshold σ",
                    "Approximate matches to check", "Variants and relations", "Validation effort",
                    "Reference building (CoRReCT)", "Changes since the previous scoring",
                    "Input lists"):
        assert heading in text, heading


def test_rejected_list_of_an_anonymous_system_does_not_name_it(tmp_path):
    """The warning box of rejected inputs (reports.render.rejected_inputs, shared by every page)
    names a published system by its label and its file relative to the campaign, and an
    anonymous one's file by its code and role: its path (``termer.terms.tsv``) would name it."""
    (tmp_path / "campaign.toml").write_text(
        CAMPAIGN.replace("{participants}", PUBLICATION_PARTICIPANTS), encoding="utf-8")
    files = {"reference.tsv": REFERENCE, "reference.variants.tsv": REFERENCE_VARIANTS,
             "reference.relations.tsv": REFERENCE_RELATIONS, **FILES}
    files["termer.terms.tsv"] = "énergie\t0.9\nvent\tnot-a-score\n"
    files["extractor-a.terms.tsv"] = "énergie\t0.9\nvent\n"
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    result = run(tmp_path, tmp_path / "w.duckdb", tmp_path / "out", quiet=True)
    assert len(result.rejections) == 2
    html = (tmp_path / "out" / "terms" / "index.html").read_text(encoding="utf-8")
    box = html.split('id="rejected"')[1].split("</div>")[0]
    code = f"{load_campaign(tmp_path).code('beta')}-1"
    assert "extractor-a" in box and "extractor-a.terms.tsv, line 2: expected a score like line 1" \
        in box
    assert f"the submission of {code}" in box
    assert f"{code}, line 2: expected a score like line 1" in box, box  # by its code alone
    assert "termer" not in html
