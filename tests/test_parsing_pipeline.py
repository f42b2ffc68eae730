"""The EASY parsing task in the nightly job (the demo's task on UD French GSD): the warehouse's
counts equal the scorer's, incremental runs equal a rebuild, a rejected submission keeps the
previous results, the combined treebank, and the one-shot command."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest
from click.testing import CliRunner
from helpers import copy_warehouse

from scorehouse.demo.parsing import write_parsing_task
from scorehouse.etl.easy import read_easy_xml
from scorehouse.etl.easy import replace_sentences as easy_xml_replace
from scorehouse.scorers import easy
from scorehouse.warehouse.campaign import load_campaign
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.db import sql_files
from scorehouse.warehouse.families.parsing_consensus import write_consensus
from scorehouse.warehouse.pipeline import open_warehouse, run
from scorehouse.warehouse.toml_writer import toml_table
from tests.easy_examples import PAPER_XML


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """The demo's EASY task alone, in a campaign of its own."""
    dest = tmp_path_factory.mktemp("demo") / "campaign"
    participants, task_lines = write_parsing_task(dest, scale=0.15)
    lines = toml_table("[campaign]",
                       {"code_key": "tests-code-key-not-secret",
                        "id": "demo-easy", "name": "EASY", "bootstrap": 200, "seed": 7})
    for participant in participants:
        lines += toml_table("[[participants]]", participant)
    (dest / "campaign.toml").write_text("\n".join(lines + task_lines) + "\n", encoding="utf-8")
    return dest


@pytest.fixture()
def campaign(pristine, tmp_path) -> Path:
    dest = tmp_path / "campaign"
    shutil.copytree(pristine, dest)
    return dest


@pytest.fixture(scope="module")
def scored(pristine, tmp_path_factory) -> Path:
    """The pristine campaign scored once, for the tests that only read the warehouse, or copy
    it with its store (helpers.copy_warehouse) for a first run of their own copy."""
    db = tmp_path_factory.mktemp("scored") / "w.duckdb"
    result = run(pristine, db, None, quiet=True)
    assert result.rejections == [] and result.scored == 20
    return db


def query(db: Path, sql: str, params=()) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def consensus_files(db: Path) -> dict[str, bytes]:
    """Each corpus's consensus file as its reduce stored it (gzip-packed), unpacked."""
    stored = dict(query(db, "SELECT corpus, xml FROM mart_parsing_consensus_file"))
    assert all(blob[:2] == b"\x1f\x8b" for blob in stored.values())  # packed
    return {corpus: gzip.decompress(blob) for corpus, blob in stored.items()}


SCORES = ("SELECT system, kind, mode, function, corpus, genre, type, slice, hyp, ref, matched "
          "FROM mart_parsing_scores ORDER BY ALL")


@pytest.mark.slow
def test_warehouse_counts_equal_the_scorer(pristine, scored):
    db = scored
    task = load_campaign(pristine).tasks[0]
    corpus, system = task.corpora[2], task.systems[4]  # oral_delic, the re-tokenising system
    ref = pl.from_arrow(read_easy_xml(corpus.files["reference"]))
    hyp = pl.from_arrow(read_easy_xml(system.files["submissions"][corpus.id]))
    counts = easy.score(ref, hyp).counts
    expected = {(r["kind"], r["mode"]): (r["hyp"], r["ref"], r["matched_equal"],
                                         r["matched_barycenter"])
                for r in counts.group_by("kind", "mode").agg(
                    pl.col("hyp", "ref", "matched_equal", "matched_barycenter").sum()
                ).iter_rows(named=True)}
    rows = query(db, "SELECT kind, mode, hyp, ref, matched FROM mart_parsing_scores "
                     "WHERE slice = 'corpus' AND corpus = ? AND system = ? AND function = ?",
                 (corpus.id, system.id, "EQUAL"))
    bary = dict(((k, m), x) for k, m, x in query(
        db, "SELECT kind, mode, matched FROM mart_parsing_scores WHERE slice = 'corpus' "
            "AND corpus = ? AND system = ? AND function = 'BARYCENTER'", (corpus.id, system.id)))
    assert len(rows) == 6
    for kind, mode, hyp_n, ref_n, matched in rows:
        assert (hyp_n, ref_n, matched, bary[(kind, mode)]) == expected[(kind, mode)]
    # the one-to-one matching is materialised: one row per matched pair
    (pairs,) = query(db, "SELECT count(*) FROM int_parsing_match WHERE corpus = ? AND system = ? "
                         "AND mode = 'HYP' AND function = 'EQUAL' AND kind = 'relation'",
                     (corpus.id, system.id))[0]
    assert pairs == expected[("relation", "HYP")][2]


RESIDENT = ("int_parsing_form_alignment", "int_parsing_range", "int_parsing_candidate",
            "fct_parsing_sentence")


@pytest.mark.slow
def test_a_units_rows_stay_in_the_store_and_read_as_if_inserted(pristine, scored, tmp_path,
                                                                   monkeypatch):
    """The EASY units' big tables are resident (warehouse/resident.py): scored with a local
    store, a unit's rows stay in its files there (the rows tables hold the references' ranges
    alone, a reduce's), and every table reads as in a warehouse whose store could not be
    written, where the same rows were inserted."""
    from helpers import tables

    from scorehouse.warehouse import resident
    from scorehouse.warehouse.store import Store, StoreError

    assert set(RESIDENT) <= resident.declared()
    for table in RESIDENT:
        (own,) = query(scored, f"SELECT count(*) FILTER (WHERE system <> '') "
                               f"FROM {table}_rows")[0]
        (files, units) = query(scored, "SELECT count(*), count(DISTINCT (corpus, system)) "
                                       "FROM cat_unit_file WHERE \"table\" = ?", [table])[0]
        assert own == 0 and files == units == 20, table
    (references,) = query(scored, "SELECT count(*) FROM int_parsing_range_rows")[0]
    assert references > 0

    def full(self, key, tables):
        raise StoreError(f"cannot write to the store {self.label}: No space left on device")

    monkeypatch.setattr(Store, "save", full)
    inserted = tmp_path / "inserted.duckdb"
    assert run(pristine, inserted, None, quiet=True).scored == 20
    assert query(inserted, "SELECT count(*) FROM cat_unit_file")[0][0] == 0
    for table in RESIDENT:
        assert query(inserted, f"SELECT count(*) FROM {table}_rows WHERE system <> ''")[0][0]
    assert tables(inserted) == tables(scored)


@pytest.mark.slow
def test_incremental_runs_equal_a_rebuild(campaign, tmp_path, monkeypatch):
    from scorehouse.warehouse.families import parsing

    derived, derive = [], parsing._reference_ranges
    monkeypatch.setattr(parsing, "_reference_ranges",
                        lambda ctx, task, corpus, ref: derived.append(corpus) or derive(
                            ctx, task, corpus, ref))
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    assert sorted(derived) == ["litterature", "oral_delic", "parlement", "questions"]
    again = run(campaign, db, None, quiet=True)
    assert (again.loaded, again.scored) == (0, 0)
    changed = campaign / "parsing" / "parseur-a" / "questions.xml"
    shutil.copy(campaign / "parsing" / "parseur-b" / "questions.xml", changed)
    derived.clear()
    third = run(campaign, db, None, quiet=True)
    assert (third.loaded, third.scored) == (1, 1)
    assert derived == []  # the reference's ranges are those its last change derived
    fresh = tmp_path / "fresh.duckdb"
    run(campaign, fresh, None, quiet=True)
    assert query(db, SCORES) == query(fresh, SCORES)
    # the marts sum each unit's sums per type (fct_parsing_type, kept per unit): the same rows,
    # bit for bit, as the same view summing every sentence's counts
    from_sentences = sql_files("parsing")["mart_parsing_scores"].replace(
        "CREATE OR REPLACE VIEW mart_parsing_scores AS", "").replace(
        "fct_parsing_type_way", "fct_parsing_sentence_way").strip().rstrip(";")
    assert "fct_parsing_sentence_way" in from_sentences
    assert query(db, "SELECT * FROM mart_parsing_scores ORDER BY ALL") == \
        query(db, f"SELECT * FROM ({from_sentences}) ORDER BY ALL")
    intervals = "SELECT * FROM mart_parsing_interval ORDER BY ALL"
    assert query(db, intervals) == query(fresh, intervals)
    (changes,) = query(db, "SELECT count(*) FROM mart_parsing_changes WHERE run_id = ? "
                           "AND previous_f1 IS NOT NULL",
                       (third.run_id,))[0]
    assert changes > 0
    # a revised reference: its ranges derived again (and its units scored again), as fresh
    reference = campaign / "parsing" / "questions.ref.xml"
    text = reference.read_text(encoding="utf-8")
    reference.write_text(text.replace('<Groupe type="GR"', '<Groupe type="GA"', 1),
                         encoding="utf-8")
    derived.clear()
    assert run(campaign, db, None, quiet=True).scored == 5 and derived == ["questions"]
    run(campaign, fresh, None, quiet=True)
    ranges = "SELECT * FROM int_parsing_range ORDER BY ALL"
    assert query(db, ranges) == query(fresh, ranges)
    assert query(db, SCORES) == query(fresh, SCORES)


def test_a_rejected_submission_keeps_the_previous_results(scored, campaign, tmp_path):
    db = copy_warehouse(scored, tmp_path / "w.duckdb")  # the campaign scored once
    before = query(db, SCORES)
    path = campaign / "parsing" / "parseur-a" / "litterature.xml"
    text = path.read_text(encoding="utf-8")
    line = text[: text.index('xlink:href="E')].count("\n") + 1
    path.write_text(text.replace('xlink:href="E', 'xlink:href="nowhere-E', 1), encoding="utf-8")
    result = run(campaign, db, None, quiet=True)
    assert result.exit_code == 2 and len(result.rejections) == 1
    assert result.rejections[0].startswith(f"{path}:{line}: expected ")
    assert "nowhere-E" in result.rejections[0]
    assert query(db, SCORES) == before


def test_intervals_hold_the_point_estimate(scored):
    db = scored
    rows = query(db, "SELECT corpus, measure, value, ci_low, ci_high FROM mart_parsing_interval "
                     "WHERE value IS NOT NULL")
    assert {r[0] for r in rows} == {"litterature", "parlement", "oral_delic", "questions", "*"}
    assert all(low <= value + 1e-12 and value <= high + 1e-12 for _, _, value, low, high in rows)
    f_task = query(db, "SELECT value FROM mart_parsing_interval WHERE corpus = '*' "
                       "AND system = 'parseur-a' AND kind = 'relation' AND mode = 'HYP' "
                       "AND function = 'EQUAL' AND measure = 'F'")[0][0]
    f_mart = query(db, "SELECT f1 FROM mart_parsing_scores WHERE slice = 'task' "
                       "AND system = 'parseur-a' AND kind = 'relation' AND mode = 'HYP' "
                       "AND function = 'EQUAL'")[0][0]
    assert f_task == pytest.approx(f_mart)


def test_corpus_tables_and_consensus(pristine, scored, tmp_path):
    db = scored
    corpora = query(db, "SELECT corpus, genre, provider, sentences, words, annotated_sentences, "
                        "annotated_words FROM mart_parsing_corpus ORDER BY corpus")
    assert [c[0] for c in corpora] == ["litterature", "oral_delic", "parlement", "questions"]
    assert all(s > a > 0 and w > aw > 0 for _, _, _, s, w, a, aw in corpora)
    consensus = query(db, "SELECT count(*), count(*) FILTER (WHERE consensus), max(votes) "
                          "FROM mart_parsing_consensus")
    total, kept, most = consensus[0]
    # five systems, but the chunker gives no relation and relations-d no constituent
    assert total > kept > 0 and most == 4
    camp = load_campaign(pristine)
    con = open_warehouse(db)
    try:
        path = write_consensus(con, camp, camp.tasks[0], "litterature", tmp_path / "consensus.xml")
    finally:
        con.close()
    items = pl.from_arrow(read_easy_xml(path))
    (groups, relations) = query(db, "SELECT count(*) FILTER (WHERE kind = 'constituent'), "
                                    "count(*) FILTER (WHERE kind = 'relation') "
                                    "FROM mart_parsing_consensus WHERE consensus "
                                    "AND corpus = 'litterature'")[0]
    assert items.filter(pl.col("kind") == "group").height <= groups
    assert 0 < items.filter(pl.col("kind") == "relation")["item"].n_unique() <= relations


RANGES = "SELECT * FROM int_parsing_range ORDER BY ALL"
TYPES = "SELECT * FROM mart_parsing_relation_types ORDER BY ALL"


@pytest.mark.slow
def test_reference_ranges_follow_the_units_as_a_fresh_run(scored, campaign, tmp_path,
                                                          monkeypatch):
    """The reference ranges are those a warehouse built from scratch holds: after a revised
    reference whose run stopped between its ranges and its units, then the reference put back
    (its units unchanged: the ranges derived again all the same); after a corpus is no longer
    declared (its reference's ranges gone too, as from scratch); and after the full part alone
    changed (the corpus's description and consensus, which read it, computed again)."""
    from scorehouse.warehouse.families import parsing

    db = copy_warehouse(scored, tmp_path / "w.duckdb")  # the campaign scored once
    reference = campaign / "parsing" / "questions.ref.xml"
    text = reference.read_text(encoding="utf-8")
    reference.write_text(text.replace('<Groupe type="GR"', '<Groupe type="GA"', 1),
                         encoding="utf-8")

    def crash(*args, **kwargs):
        raise RuntimeError("the machine went away")
    monkeypatch.setattr(parsing, "run_units", crash)
    with pytest.raises(RuntimeError):
        run(campaign, db, None, quiet=True)
    monkeypatch.undo()
    reference.write_text(text, encoding="utf-8")
    assert run(campaign, db, None, quiet=True).scored == 0

    def same_as_fresh(name: str, fresh: Path | None = None) -> None:
        if fresh is None:
            fresh = tmp_path / f"{name}.duckdb"
            run(campaign, fresh, None, quiet=True)
        for sql in (RANGES, TYPES, SCORES, "SELECT * FROM mart_parsing_corpus ORDER BY ALL",
                    "SELECT corpus, xml FROM mart_parsing_consensus_file ORDER BY corpus"):
            assert query(db, sql) == query(fresh, sql), (name, sql)
    same_as_fresh("reverted", scored)  # the pristine files: the module's fresh warehouse
    toml = campaign / "campaign.toml"
    declared = toml.read_text(encoding="utf-8")
    undeclared = re.sub(r'\[\[tasks.corpora\]\]\nid = "questions"\n.*?\n\n', "",
                        re.sub(r', questions = "parsing/[a-z-]+/questions.xml"', "", declared),
                        flags=re.DOTALL)
    assert "questions" not in undeclared
    toml.write_text(undeclared, encoding="utf-8")
    run(campaign, db, None, quiet=True)
    same_as_fresh("undeclared")
    toml.write_text(declared, encoding="utf-8")
    run(campaign, db, None, quiet=True)  # declared again: its reduces computed again
    full = campaign / "parsing" / "questions.full.xml"
    words = re.findall(r">([A-Za-zé]{6,})</F>", full.read_text(encoding="utf-8"))
    full.write_text(full.read_text(encoding="utf-8").replace(f">{words[0]}<", ">Academie<", 1),
                    encoding="utf-8")
    run(campaign, db, None, quiet=True)
    assert b"Academie" in consensus_files(db)["questions"]
    same_as_fresh("full part")


@pytest.mark.slow
def test_a_few_changed_sentences_are_written_again_in_the_consensus(campaign, tmp_path,
                                                                    monkeypatch):
    """The submissions change in one sentence: the consensus reduce writes the rows whose votes
    changed and, in the file, that sentence again (spliced into the stored file, not the whole
    file written); the rows and the file are a fresh warehouse's, byte for byte."""
    from scorehouse.etl import easy as easy_xml

    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    for path in (campaign / "parsing").glob("*/litterature.xml"):  # every group of E1 a PV
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r'type="\w+" id="E1G', 'type="PV" id="E1G', text),
                        encoding="utf-8")
    spliced, replace_sentences = [], easy_xml.replace_sentences
    monkeypatch.setattr(easy_xml, "replace_sentences", lambda old, new: spliced.append(
        (new.count(b"<E id="), replace_sentences(old, new))) or spliced[-1][1])
    run(campaign, db, None, quiet=True)
    assert [(n, out is not None) for n, out in spliced] == [(1, True)]
    fresh = tmp_path / "fresh.duckdb"
    run(campaign, fresh, None, quiet=True)
    for sql in ("SELECT * FROM mart_parsing_consensus ORDER BY ALL",
                "SELECT corpus, xml, sha256, base, version FROM mart_parsing_consensus_file "
                "ORDER BY corpus"):
        assert query(db, sql) == query(fresh, sql), sql
    assert query(db, "SELECT count(*) FROM mart_parsing_consensus WHERE attr IS NOT NULL")[0][0]


@pytest.mark.slow
def test_a_changed_submission_counts_again_only_its_changed_sentences(scored, campaign,
                                                                     tmp_path, monkeypatch):
    """One submission changes a group's type in one sentence and an attribute in another: the
    consensus reduce counts again only those two sentences (the votes and attributes of the
    others are sums over units they do not hold); a revision with the same units counts none
    (another submission's damaged units in the store are derived again); with that
    submission's previous units gone from the store, everything is counted, as with --force.
    Each time the rows and the file are a fresh warehouse's, byte for byte."""
    from types import SimpleNamespace

    from scorehouse.warehouse.families import parsing_consensus, parsing_kept

    db = copy_warehouse(scored, tmp_path / "w.duckdb")
    tallied, tally = [], parsing_consensus.tally
    monkeypatch.setattr(parsing_consensus, "tally", lambda parts, *args: tallied.append(sorted(
        set(pl.concat([v.lazy().select("sent") for v, _ in parts]).collect()["sent"])))
        or tally(parts, *args))
    changed = campaign / "parsing" / "parseur-a" / "litterature.xml"
    text = changed.read_text(encoding="utf-8")
    e2, e3 = text.index('<E id="E2">'), text.index('<E id="E3">')
    assert 'booleen="faux"' in text[e2:e3] and '<Groupe type="GN" id="E3G' in text[e3:]
    text = (text[:e2] + text[e2:e3].replace('booleen="faux"', 'booleen="vrai"', 1)
            + text[e3:].replace('<Groupe type="GN" id="E3G', '<Groupe type="GA" id="E3G', 1))
    changed.write_text(text, encoding="utf-8")
    rows = "SELECT * FROM mart_parsing_consensus ORDER BY ALL"
    sql = (rows, "SELECT corpus, xml, sha256, base, version, counted_from "
                 "FROM mart_parsing_consensus_file ORDER BY corpus")

    def as_fresh(name: str) -> None:
        fresh = tmp_path / f"{name}.duckdb"
        run(campaign, fresh, None, quiet=True)
        for q in sql:
            assert query(db, q) == query(fresh, q), q

    assert run(campaign, db, None, quiet=True).scored == 1
    assert tallied == [["E2", "E3"]]
    as_fresh("fresh")
    # the same units in another revision: no sentence counted again; parseur-b's kept units,
    # damaged, are derived again
    (base, hyp), = query(db, "SELECT f.sha256, s.sha256 FROM cat_input_current f, "
                             "cat_input_current s WHERE f.corpus = 'litterature' AND "
                             "f.role = 'full' AND s.corpus = f.corpus AND s.system = 'parseur-b'")
    store = SimpleNamespace(root=str(db.with_suffix(".store")), local=True)
    damaged = parsing_kept.kept_paths(store, base, hyp)[0]
    damaged.write_bytes(b"not parquet")
    changed.write_text(text.replace("\n", "\n<!-- revised -->\n", 1), encoding="utf-8")
    tallied.clear()
    assert run(campaign, db, None, quiet=True).scored == 1
    assert tallied == [[]] and pl.read_parquet(damaged).height
    assert query(db, rows) == query(tmp_path / "fresh.duckdb", rows)
    shutil.rmtree(db.with_suffix(".store") / "consensus")  # the previous units: gone
    changed.write_text(text.replace('<Groupe type="GA" id="E3G', '<Groupe type="GN" id="E3G',
                                    1), encoding="utf-8")
    tallied.clear()
    assert run(campaign, db, None, quiet=True).scored == 1
    assert len(tallied) == 1 and len(tallied[0]) > 2  # every sentence
    as_fresh("fresh2")
    # --force counts and writes everything, whatever is stored (a damaged row is mended)
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE mart_parsing_consensus SET votes = votes + 1 "
                    "WHERE corpus = 'litterature' AND sent = 'E1'")
    tallied.clear()
    run(campaign, db, None, quiet=True, force=True)
    assert all(len(sents) > 2 for sents in tallied)
    as_fresh("fresh3")


def test_a_damaged_stored_consensus_row_is_written_again():
    """A stored consensus file that does not unpack, or a record of what its votes were
    counted from that is not the expected JSON, reads as no stored file (every row and
    sentence written again), not as an error."""
    from scorehouse.warehouse.db import apply_schema
    from scorehouse.warehouse.families.parsing import code_version
    from scorehouse.warehouse.families.parsing_consensus import _stored_file, packed

    con = duckdb.connect()
    apply_schema(con, ["catalog", "parsing"])
    key = {"campaign": "c", "task": "t", "corpus": "k"}
    good = {"majority": 0.5, "source": "store", "systems": {"a": "1"}}
    for blob, counted_from, readable in [
            (packed(b"<DOCUMENT/>"), json.dumps(good), True),
            (packed(b"<DOCUMENT/>"), None, True),
            (packed(b"<DOCUMENT/>")[:12], json.dumps(good), False),  # truncated gzip
            (packed(b"<DOCUMENT/>"), "{", False),
            (packed(b"<DOCUMENT/>"), json.dumps({"majority": 0.5}), False),
            (packed(b"<DOCUMENT/>"), json.dumps([1]), False)]:
        con.execute("DELETE FROM mart_parsing_consensus_file")
        con.execute("INSERT INTO mart_parsing_consensus_file (campaign, task, corpus, xml, base, "
                    "version, counted_from) VALUES ('c', 't', 'k', ?, 'b', ?, ?)",
                    [blob, code_version(), counted_from])
        stored = _stored_file(con, key, "b")
        assert (stored is not None) == readable, (blob, counted_from)
        if readable:
            assert stored == (b"<DOCUMENT/>", None if counted_from is None else good)
    assert _stored_file(con, key, "another base") is None


def test_replace_sentences_takes_the_sentences_of_the_second_file():
    """The sentences of ``new`` take their places in ``old``; a sentence ``old`` lacks, or a
    file without sentences, is None (the caller writes the whole file)."""
    head = b'<?xml version="1.0" encoding="UTF-8"?>\n<DOCUMENT xmlns:xlink="x">\n'

    def doc(*sentences: tuple[str, str]) -> bytes:
        return head + b"\n".join(f'  <E id="{i}">\n    <constituants>{body}\n  </E>'.encode()
                                 for i, body in sentences) + b"\n</DOCUMENT>\n"
    old = doc(("a", "1"), ("b", "2"), ("c", "3"))
    assert easy_xml_replace(old, doc(("b", "two"))) == doc(("a", "1"), ("b", "two"), ("c", "3"))
    assert easy_xml_replace(old, doc(("c", "x"), ("a", "y"))) == doc(("a", "y"), ("b", "2"),
                                                                     ("c", "x"))
    assert easy_xml_replace(old, doc(("d", "4"))) is None
    assert easy_xml_replace(old, head + b"</DOCUMENT>\n") is None
    assert easy_xml_replace(head + b"</DOCUMENT>\n", old) is None


@pytest.mark.slow
def test_an_unchanged_consensus_file_is_linked_from_the_last_edition(campaign, tmp_path):
    """The page publishes each corpus's consensus file; after one submission changed, the other
    corpora's files are the previous edition's (one file, linked: their consensus reduce did not
    run), the changed corpus's is written again, and each holds the bytes its reduce stored."""
    db, out = tmp_path / "w.duckdb", tmp_path / "bulletins"
    run(campaign, db, out, quiet=True)
    first = out.resolve() / "easy"
    before = {p.name: p.stat().st_ino for p in first.glob("consensus_*.xml")}
    assert len(before) == 4
    shutil.copy(campaign / "parsing" / "parseur-b" / "questions.xml",
                campaign / "parsing" / "parseur-a" / "questions.xml")
    assert run(campaign, db, out, quiet=True).scored == 1
    second = out.resolve() / "easy"
    assert second != first
    after = {p.name: p.stat().st_ino for p in second.glob("consensus_*.xml")}
    assert {name for name in after if after[name] != before[name]} == {"consensus_questions.xml"}
    stored = consensus_files(db)
    for corpus, xml in stored.items():
        assert (second / f"consensus_{corpus}.xml").read_bytes() == xml, corpus
    assert (first / "consensus_questions.xml").read_bytes() != stored["questions"]
    # a file is kept by its bytes' hash, not by what its reduce recorded: other bytes stored
    # under the same reduce state are the bytes published
    edited = stored["litterature"] + b"<!-- -->"
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE mart_parsing_consensus_file SET xml = ?, sha256 = ? "
                    "WHERE corpus = 'litterature'",
                    [gzip.compress(edited), hashlib.sha256(edited).hexdigest()])
    run(campaign, db, out, steps=("report",), quiet=True, force=True)  # the pages alone
    assert consensus_files(db)["litterature"] == edited
    assert (out.resolve() / "easy" / "consensus_litterature.xml").read_bytes() == edited
    # a row an earlier version stored plain (not packed) is published as it is
    plain = stored["litterature"] + b"<!-- plain -->"
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE mart_parsing_consensus_file SET xml = ?, sha256 = ? "
                    "WHERE corpus = 'litterature'", [plain, hashlib.sha256(plain).hexdigest()])
    run(campaign, db, out, steps=("report",), quiet=True, force=True)
    assert (out.resolve() / "easy" / "consensus_litterature.xml").read_bytes() == plain


def test_one_shot_on_the_paper_example(tmp_path):
    ref = tmp_path / "ref.xml"
    ref.write_text(PAPER_XML, encoding="utf-8")
    result = CliRunner().invoke(main, ["parsing", str(ref), str(ref), "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    scores = json.loads(result.stdout)["scores"]
    assert {(s["mode"], s["function"]) for s in scores} == \
        {(m, f) for m in easy.MODES for f in easy.FUNCTIONS}
    assert set(scores[0]) == {"kind", "type", "mode", "function", "precision", "recall", "f1",
                              "matched", "hyp", "ref"}
    assert all(s["f1"] == 1.0 and s["matched"] == s["hyp"] == s["ref"] > 0 for s in scores)
    strict = CliRunner().invoke(
        main, ["parsing", str(ref), str(ref), "--mode", "hyp", "--function", "equal"])
    assert strict.exit_code == 0 and "relation" in strict.output and "FUZZY" not in strict.output


@pytest.mark.parametrize("table", ["fct_parsing_type", "fct_parsing_sentence_total"])
def test_a_warehouse_from_before_the_sums_gets_them(scored, tmp_path, table):
    """A warehouse scored before fct_parsing_type (the sums per type) or
    fct_parsing_sentence_total (per sentence, kind and mode) existed has it filled from its
    sentences as it is opened (the pages and intervals read it, even before the next scoring):
    the rows the units' own builds made, once."""
    db = tmp_path / "old.duckdb"
    shutil.copyfile(scored, db)
    rows, scores = (f"SELECT * FROM {table} ORDER BY ALL",
                    "SELECT * FROM mart_parsing_scores ORDER BY ALL")
    want, want_scores = query(scored, rows), query(scored, scores)
    assert want and want_scores
    with duckdb.connect(str(db)) as con:
        con.execute(f"DROP TABLE {table}")
    for _ in range(2):  # created and filled once; opened again, kept as it is
        open_warehouse(db).close()
        assert query(db, rows) == want
    assert query(db, scores) == want_scores


def test_a_corpus_removed_then_declared_again_gets_its_results_back(scored, campaign,
                                                                    tmp_path):
    """A corpus dropped from campaign.toml loses its results; declared again, its units come
    back from the store and every reduce of it (intervals, paired tests) is computed again,
    though its units' states are those it had before: the same rows as a fresh warehouse's."""
    import re

    db = copy_warehouse(scored, tmp_path / "w.duckdb")  # the campaign scored once
    toml = (campaign / "campaign.toml").read_text(encoding="utf-8")
    block = re.search(r'\[\[tasks\.corpora\]\]\nid = "questions"\n(?:[^\[\n][^\n]*\n)*\n?', toml)
    without = re.sub(r',? ?questions = "[^"]*"', "", toml.replace(block.group(0), ""))
    (campaign / "campaign.toml").write_text(without, encoding="utf-8")
    assert run(campaign, db, None, quiet=True).exit_code == 0
    gone = "SELECT count(*) FROM mart_parsing_interval WHERE corpus = 'questions'"
    assert query(db, gone) == [(0,)]
    (campaign / "campaign.toml").write_text(toml, encoding="utf-8")
    assert run(campaign, db, None, quiet=True).exit_code == 0
    fresh = scored  # the campaign's files as declared at first: the module's fresh warehouse
    for table in ("mart_parsing_interval", "mart_parsing_paired"):
        rows = f"SELECT * FROM {table} ORDER BY ALL"
        assert query(db, rows) == query(fresh, rows), table
    assert query(db, gone)[0][0] > 0


@pytest.mark.slow
def test_a_consensus_store_lost_mid_reduce_is_counted_again(scored, campaign, tmp_path,
                                                           monkeypatch):
    """The store may be deleted at any time: the submissions' consensus units deleted after
    they were stored and before they are counted give the same consensus, counted without it."""
    from scorehouse.warehouse.families import parsing_consensus

    stored, lost = parsing_consensus.hyp_units, []

    def then_lost(con, store, *args):
        units = stored(con, store, *args)
        if store is not None:  # the files the scans name, gone before the tally reads them
            shutil.rmtree(Path(store.root) / "consensus", ignore_errors=True)
            lost.append(store.root)
        return units

    monkeypatch.setattr(parsing_consensus, "hyp_units", then_lost)
    assert run(campaign, tmp_path / "w.duckdb", None, quiet=True).exit_code == 0
    assert lost
    rows = ("SELECT corpus, sent, kind, type, ranges, votes, share, consensus "
            "FROM mart_parsing_consensus ORDER BY ALL")
    assert query(tmp_path / "w.duckdb", rows) == query(scored, rows)


@pytest.mark.slow
def test_consensus_units_kept_ahead_on_workers_give_the_same_consensus(scored, campaign,
                                                                       tmp_path, monkeypatch):
    """With worker processes, each submission's units over a corpus's full text are aligned and
    kept there, several at once (parsing_consensus.kept_ahead): the consensus rows and files
    are those of a run in one process, and this process aligned none of them. Every staged
    file is kept in the store (the threshold lowered), so the workers also read the items in
    place."""
    from scorehouse.warehouse import resident
    from scorehouse.warehouse.families import parsing_kept

    monkeypatch.setattr(resident, "STAGED_ROWS", 1)
    here = []
    aligned = parsing_kept.units_of
    monkeypatch.setattr(parsing_kept, "units_of",
                        lambda *a: here.append(1) or aligned(*a))
    assert run(campaign, tmp_path / "w.duckdb", None, quiet=True, workers=2).exit_code == 0
    assert here == []  # every submission's units were kept by a worker
    kept = list((tmp_path / "w.store" / "consensus").glob("*.parquet"))
    assert len(kept) == 2 * query(scored, "SELECT count(DISTINCT sha256) FROM cat_input "
                                          "WHERE role = 'submissions'")[0][0]
    rows = ("SELECT corpus, sent, kind, type, ranges, votes, share, consensus, attr "
            "FROM mart_parsing_consensus ORDER BY ALL")
    assert query(tmp_path / "w.duckdb", rows) == query(scored, rows)
    assert consensus_files(tmp_path / "w.duckdb") == consensus_files(scored)


@pytest.mark.slow
def test_the_consensus_aligns_ahead_only_what_its_reduces_count(scored, campaign, tmp_path,
                                                                monkeypatch):
    """With worker processes, the submissions aligned ahead are those of the consensus reduces
    that will run, and every one is counted from what the workers kept: two revised submissions
    of a corpus are aligned there, and the corpus counted again only where they differ (here
    nowhere: a comment added), not aligned a second time here; a store deleted (the units
    recomputed, their states the same: no consensus to count) starts nothing."""
    from scorehouse.warehouse import resident
    from scorehouse.warehouse.families import parsing_consensus, parsing_kept

    monkeypatch.setattr(resident, "STAGED_ROWS", 1)  # every staged file kept in the store
    db = tmp_path / "w.duckdb"
    assert run(campaign, db, None, quiet=True, workers=2).exit_code == 0
    wanted, here, recounted = [], [], []
    started = parsing_kept.started
    monkeypatch.setattr(parsing_consensus, "started", lambda ctx, corpora: wanted.append(
        sorted(corpora)) or started(ctx, corpora))
    aligned = parsing_kept.units_of
    monkeypatch.setattr(parsing_kept, "units_of", lambda *a: here.append(1) or aligned(*a))
    recount = parsing_consensus._recounted
    monkeypatch.setattr(parsing_consensus, "_recounted",
                        lambda *a: (lambda w: recounted.append(w is not None) or w)(recount(*a)))
    for system in ("parseur-a", "parseur-b"):
        path = campaign / "parsing" / system / "litterature.xml"
        path.write_text(path.read_text(encoding="utf-8").replace("\n", "\n<!-- revised -->\n", 1),
                        encoding="utf-8")
    assert run(campaign, db, None, quiet=True, workers=2).scored == 2
    assert (wanted, here, recounted) == ([["litterature"]], [], [True])
    rows = "SELECT corpus, sent, kind, type, ranges, votes, share, consensus, attr " \
           "FROM mart_parsing_consensus ORDER BY ALL"
    assert query(db, rows) == query(scored, rows)
    wanted.clear()
    shutil.rmtree(tmp_path / "w.store")
    result = run(campaign, db, None, quiet=True, workers=2)
    assert result.exit_code == 0 and result.scored > 0
    assert wanted == [[]]


def test_a_worker_killed_before_the_consensus_is_aligned_stops_the_run_as_for_the_units():
    """A pool whose worker died since the units (submitting raises BrokenProcessPool) is let go
    and the run stops with the units' own error, not a traceback."""
    from concurrent.futures.process import BrokenProcessPool
    from types import SimpleNamespace

    from scorehouse.warehouse.executors import WORKER_LOST, ExecutorError
    from scorehouse.warehouse.families import parsing_kept

    class Broken:
        def submit(self, *args):
            raise BrokenProcessPool("a worker died")

    broken, discarded = Broken(), []
    pools = SimpleNamespace(get=lambda n: broken, discard=discarded.append)
    ctx = SimpleNamespace(store=SimpleNamespace(local=True, root="/nowhere"), workers=2,
                          executor=None, pools=pools, con=None)
    jobs = [("base", f"hyp{i}", [f"/nowhere/{i}.parquet"]) for i in range(2)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(parsing_kept, "_jobs", lambda ctx, wanted: {"c": jobs})
        with pytest.raises(ExecutorError, match=WORKER_LOST[:20]):
            parsing_kept.started(ctx, {"c": ("base", ["hyp0", "hyp1"])})
    assert discarded == [broken]


def test_submissions_a_worker_could_not_keep_are_said_in_the_runs_notes():
    """A worker's task that raised (not a worker lost) costs its submission a second alignment
    in the run's process, and the run's notes say so once per corpus: how many, and the first
    error; tasks that all succeeded add no note."""
    from concurrent.futures import Future
    from types import SimpleNamespace

    from scorehouse.warehouse.families.parsing_kept import Ahead

    def done(error=None):
        future = Future()
        future.set_exception(error) if error else future.set_result(None)
        return future

    ctx = SimpleNamespace(notes=[], pools=None)
    Ahead(None, [done(), done()], "easy/litterature").wait(ctx)
    assert ctx.notes == []
    Ahead(None, [done(OSError("\ndisk full\nsecond line")), done(), done(ValueError("other"))],
          "easy/litterature").wait(ctx)
    assert ctx.notes == ["easy/litterature: 2 of the 3 submissions aligned ahead were not kept by "
                         "a worker process (OSError: disk full); this process aligned them"]


@pytest.mark.slow
def test_a_consensus_over_the_reference_counts_the_units_ranges_as_aligning_would(
        campaign, tmp_path, monkeypatch):
    """Without full parts, the consensus counts the scored units' HYP ranges over the reference,
    one system at a time: the same rows and file as each submission aligned with the reference
    again (the way a full part is counted)."""
    from scorehouse.warehouse.families import parsing_consensus

    toml = campaign / "campaign.toml"
    toml.write_text(re.sub(r'full = "parsing/[a-z_]+\.full\.xml"\n', "",
                           toml.read_text(encoding="utf-8")), encoding="utf-8")
    assert "full =" not in toml.read_text(encoding="utf-8")
    from_ranges = tmp_path / "ranges.duckdb"
    assert run(campaign, from_ranges, None, quiet=True).exit_code == 0
    monkeypatch.setattr(parsing_consensus, "_from_ranges", lambda *a: False)
    aligned = tmp_path / "aligned.duckdb"
    assert run(campaign, aligned, None, quiet=True).exit_code == 0
    rows = "SELECT * FROM mart_parsing_consensus ORDER BY ALL"
    assert query(from_ranges, rows) and query(from_ranges, rows) == query(aligned, rows)
    assert consensus_files(from_ranges) == consensus_files(aligned)
