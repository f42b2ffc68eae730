"""TermEval 2020's scoring without named entities uses ACTER's own list without them.

ACTER v1.5 gives each corpus two unique annotation lists: ``*_terms_nes.tsv`` (with named
entities) and ``*_terms.tsv`` (without). A term's label is the most frequent of its occurrences,
so a term labelled Named_Entity in the first may be a term of the second: ``cpg`` and ``hm`` in
English heart failure, ``commission`` in English corruption (tests/fixtures/acter, ACTER v1.5,
CC BY-NC-SA 4.0). The slice ``without:Named_Entity`` of a corpus that gives its list
(``reference_without_nes``) is that list; TermEval's P, R and F there are set arithmetic on it.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest

from scorehouse.etl.terms import read_term_list
from scorehouse.scorers import terms_slices as slicing
from scorehouse.warehouse.campaign import CampaignError
from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.toml_writer import toml_table

ACTER = Path(__file__).parent / "fixtures" / "acter" / "en"
LISTS = "annotated/annotations/unique_annotation_lists"


def acter(domain: str, nes: bool) -> Path:
    return ACTER / domain / LISTS / f"{domain}_en_terms{'_nes' if nes else ''}.tsv"


def read(path: Path) -> pl.DataFrame:
    """A list's distinct terms as the warehouse reads them (normalised: etl/terms.py)."""
    table = pl.from_arrow(read_term_list(path))
    return table.filter(pl.col("duplicate_of").is_null()).select("term", "label")


@pytest.mark.parametrize("domain, relabelled", [("htfl", {"cpg": "Specific_Term",
                                                          "hm": "OOD_Term"}),
                                                ("corp", {"commission": "Common_Term"})])
def test_the_lists_differ_where_the_issue_says(domain, relabelled):
    """Both lists as published: the one without NEs is the other's non-NE terms plus a few terms
    the other labels Named_Entity."""
    nes, plain = read(acter(domain, True)), read(acter(domain, False))
    labels, plain_labels = dict(nes.iter_rows()), dict(plain.iter_rows())
    dropped = {t for t, label in labels.items() if label != "Named_Entity"}
    assert set(plain_labels) == dropped | set(relabelled)
    assert {t: plain_labels[t] for t in relabelled} == relabelled
    assert all(labels[t] == "Named_Entity" for t in relabelled)


def test_alignment_scores_the_list_without_nes():
    """On htfl: the slice is ``htfl_en_terms.tsv``, 2,361 lines and 2,359 distinct terms once
    blanks are folded (``heart  failure`` and ``systolic  heart failure`` have a double space);
    ``cpg`` and ``hm`` are exact there, with the list's labels; an NE proper stays out; ``all``
    keeps R's labels."""
    nes, plain = read(acter("htfl", True)), read(acter("htfl", False))
    reference = slicing.with_list(nes, plain)
    entity = next(t for t, label in nes.iter_rows() if label == "Named_Entity"
                  and t not in set(plain["term"]))
    output = pl.DataFrame({"term": ["cpg", "hm", entity], "rank": [1, 2, 3],
                           "score": [None, None, None]},
                          schema={"term": pl.String, "rank": pl.Int32, "score": pl.Float64})
    table, sizes = slicing.alignment(output, reference, ("Named_Entity",))
    assert dict(sizes.select("slice", "reference_terms").iter_rows())[
        "without:Named_Entity"] == plain.height == 2359
    without = table.filter(pl.col("slice") == "without:Named_Entity")
    exact = dict(zip(without["term"], without["exact"]))
    assert exact == {"cpg": True, "hm": True, entity: False}
    assert dict(zip(without["nearest"], without["nearest_label"]))["cpg"] == "Specific_Term"
    everything = table.filter(pl.col("slice") == "all")
    assert dict(zip(everything["nearest"], everything["nearest_label"]))["cpg"] == "Named_Entity"
    assert slicing.slice_terms(reference, "without:Named_Entity", ("Named_Entity",)) == \
        plain["term"].to_list()
    with pytest.raises(ValueError, match="lacks"):
        slicing.with_list(nes.filter(pl.col("term") != "cpg"), plain)


def campaign(root: Path, outputs: dict[str, list[str]], listed: bool = True,
             options: dict | None = None, plain: str | None = None) -> Path:
    """A campaign of one corpus per domain (reference: the list with NEs; with ``listed``, the
    list without them, or the file ``plain``) and one system."""
    root.mkdir(parents=True, exist_ok=True)
    lines = toml_table("[campaign]", {"id": "c", "name": "acter", "bootstrap": 20, "seed": 1,
                                      "roots": [str(ACTER)]})
    lines += toml_table("[[participants]]", {"id": "p", "name": "P"})
    lines += toml_table("[[tasks]]", {"id": "terms", "family": "terms", "intervals": False,
                                      **(options or {})})
    for domain in outputs:
        corpus = {"id": domain, "reference": str(acter(domain, True))}
        if listed:
            corpus["reference_without_nes"] = plain or str(acter(domain, False))
        lines += toml_table("[[tasks.corpora]]", corpus)
    for domain, terms in outputs.items():
        (root / f"{domain}.tsv").write_text("\n".join(terms) + "\n", encoding="utf-8")
    lines += toml_table("[[tasks.systems]]", {"id": "s", "participant": "p",
                                              "terms": {d: f"{d}.tsv" for d in outputs}})
    (root / "campaign.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def outputs() -> dict[str, list[str]]:
    """Per corpus: the relabelled terms, a few terms of each list, NEs and noise."""
    out = {}
    for domain, extra in (("htfl", ["cpg", "hm"]), ("corp", ["commission"])):
        nes = read(acter(domain, True))
        entities = nes.filter(pl.col("label") == "Named_Entity")["term"].head(7).to_list()
        out[domain] = extra + nes["term"].head(40).to_list()[::3] + entities + ["zz noise", "qq"]
    return out


def query(db: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


@pytest.mark.slow
def test_campaign_scores_termeval_without_nes_on_the_list(tmp_path):
    """P = |S ∩ L| / |S|, R = |S ∩ L| / |L| with L = ACTER's ``*_terms.tsv``, per corpus; the
    slice ``all`` against ``*_terms_nes.tsv``; a corpus without the list drops R's
    Named_Entity terms instead (which here miscounts cpg, hm and commission)."""
    got = {}
    for listed in (True, False):
        root = campaign(tmp_path / f"c{listed}", outputs(), listed)
        db = tmp_path / f"w{listed}.duckdb"
        assert run(root, db, None, quiet=True).rejections == []
        got[listed] = {(c, s): (p, r) for c, s, p, r in query(
            db, "SELECT corpus, slice, precision, recall FROM mart_terms_scores "
                "WHERE reference = 'reference' AND top = 0 AND slice IN "
                "('all', 'without:Named_Entity')")}
    for domain, terms in outputs().items():
        output = set(terms)
        for slice_, path in (("all", acter(domain, True)),
                             ("without:Named_Entity", acter(domain, False))):
            listed = set(read(path)["term"])
            expected = (len(output & listed) / len(output), len(output & listed) / len(listed))
            assert got[True][(domain, slice_)] == pytest.approx(expected, abs=1e-12), slice_
        assert got[False][(domain, "without:Named_Entity")] != got[True][
            (domain, "without:Named_Entity")]


@pytest.mark.parametrize("options, expected", [
    ({"exclude_labels": []}, "Named_Entity in exclude_labels"),
])
def test_a_list_without_its_slice_is_a_campaign_error(tmp_path, options, expected):
    root = campaign(tmp_path / "c", {"htfl": ["cpg"]}, options=options)
    with pytest.raises(CampaignError, match=expected):
        run(root, tmp_path / "w.duckdb", None, quiet=True)


def test_a_list_straying_from_the_reference_is_a_campaign_error(tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    (root / "plain.tsv").write_text(acter("htfl", False).read_text(encoding="utf-8")
                                    + "not in r\tSpecific_Term\n", encoding="utf-8")
    campaign(root, {"htfl": ["cpg"]}, plain="plain.tsv")
    with pytest.raises(CampaignError, match="reference_without_nes: expected the reference's"):
        run(root, tmp_path / "w.duckdb", None, quiet=True)
