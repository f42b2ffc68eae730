"""Every family's score and history tables carry the signature of their figures, written when a
unit is scored (so it names the code version that produced the row), and the bulletin pages print
the signatures stored with the scores they show.

One demo campaign holding every family (speech, POS, EASY, CoNLL-U, coreference, terminology) is
loaded, scored and published; then every ``mart_*scores*`` and ``hist_*scores*`` table or view of
every family is read back.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest
from markupsafe import escape

from scorehouse.reports.render import environment, render_task
from scorehouse.warehouse.campaign import load_campaign
from scorehouse.warehouse.db import sql_files
from scorehouse.warehouse.families import (
    FAMILIES,
    coref,
    coref_corefud,
    parsing,
    pos,
    terms,
    wer,
)

SCORE_TABLES = [(name, table) for name, module in FAMILIES.items()
                for table in sql_files(module.SQL_FOLDER)
                if re.fullmatch(r"(mart|hist)_\w*scores\w*", table)]
# The tables where a unit stores its signatures (the marts and histories read them from there).
# the tables whose signatures a page prints (fct_parsing_sentence, resident in the store's
# files, is read by no page: fct_parsing_type holds its sums)
STORED = {"fct_wer_utterance": ["signature"], "fct_ier_utterance": ["signature"],
          "fct_pos_sentence": ["signature"], "fct_pos_slice": ["signature"],
          "fct_parsing_type": [f"signature_{f.lower()}" for f in parsing.FUNCTIONS],
          "fct_parsing_ud_sentence": ["signature"], "fct_coref_document": ["signature"],
          "mart_terms_scores": ["signature"], "mart_terms_link_scores": ["signature"]}


@pytest.fixture(scope="module")
def demo(demo_build) -> tuple[Path, Path]:
    """The warehouse of the scored demo campaign (conftest.py), and the campaign directory."""
    return demo_build / "w.duckdb", demo_build / "campaign"


def query(db: Path, sql: str, params=()) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def tasks(campaign) -> dict:
    """The demo's (first) task of each kind: wer, pos, easy, ud, coref, corefud, terms."""
    out = {}
    for task in campaign.tasks:
        kind = task.family
        if kind == "parsing":
            kind = "ud" if parsing.is_dependency(task) else "easy"
        if kind == "coref" and task.corpora[0].options.get("format") == "corefud":
            kind = "corefud"
        out.setdefault(kind, task)
    assert sorted(out) == ["coref", "corefud", "easy", "pos", "terms", "ud", "wer"]
    return out


def expected(campaign) -> dict[str, tuple[list[str], object]]:
    """Per score table: the columns naming a row's variant, and the signature the family's code
    gives that variant today."""
    by = tasks(campaign)
    speech, options = wer.Options.of(by["wer"]), terms.options(by["terms"])
    recover = bool(by["ud"].options.get("recover", False))
    corefud = coref_corefud.options(by["corefud"])
    rows = {
        "wer_scores": (["method"], speech.signature),
        "pos_scores": (["evaluation", "granularity"], lambda e, g: pos.signature(by["pos"], e, g)),
        "parsing_scores": (["mode", "function"], lambda m, f: parsing.signature("easy", m, f)),
        "parsing_ud_scores": ([], lambda: parsing.signature("conllu", recover=recover)),
        "coref_scores": (["convention", "singletons"], lambda c, s: coref_corefud.signature(
            corefud["match"], s, corefud["zeros"]) if c == "corefud" else coref.signature(c, s)),
        "terms_scores": (["sigma"], lambda sigma: terms.signature(sigma, options["case"])),
    }
    links = terms.link_signature(options["symmetric_relations"], options["case"])
    pairs = {f"{layer}_{name}": spec for name, spec in rows.items() for layer in ("mart", "hist")}
    return {**pairs,
            "mart_ier_scores": ([], speech.ier_signature),
            "mart_parsing_scores_macro": rows["parsing_scores"],
            "mart_parsing_scores_genre_mean": rows["parsing_scores"],
            "mart_terms_link_scores": ([], lambda: links)}


def test_the_score_tables_are_all_checked(demo):
    _, campaign_dir = demo
    tables = sorted(table for _, table in SCORE_TABLES)
    assert sorted(expected(load_campaign(campaign_dir))) == tables
    assert {family for family, _ in SCORE_TABLES} == set(FAMILIES)


@pytest.mark.parametrize("family, table", SCORE_TABLES, ids=[table for _, table in SCORE_TABLES])
def test_every_score_row_carries_a_signature_naming_the_code_version(demo, family, table):
    db, _ = demo
    version = FAMILIES[family].code_version()
    rows, signed, versioned = query(
        db, f"SELECT count(*), count(signature), count(*) FILTER (WHERE contains(signature, ?)) "
            f"FROM {table}", [f"|version:{version}"])[0]
    assert rows > 0, f"{table}: the demo campaign should fill it"
    assert signed == rows, f"{table}: {rows - signed} row(s) without a signature"
    assert versioned == rows, f"{table}: {rows - versioned} row(s) without version:{version}"


def test_the_stored_signatures_are_the_families_signatures(demo):
    db, campaign_dir = demo
    for table, (columns, sign) in expected(load_campaign(campaign_dir)).items():
        rows = query(db, f"SELECT DISTINCT {', '.join([*columns, 'signature'])} FROM {table}")
        assert rows, table
        for *variant, stored in rows:
            assert stored == sign(*variant), (table, variant)


@pytest.mark.slow
def test_the_pages_print_the_signatures_stored_with_the_scores(demo, tmp_path):
    """Signatures altered in the warehouse after scoring show on the pages as altered: the pages
    read them from the tables instead of rebuilding them."""
    db, campaign_dir = demo
    copy = tmp_path / "w.duckdb"
    shutil.copyfile(db, copy)
    campaign = load_campaign(campaign_dir)
    by = tasks(campaign)
    speech, options = wer.Options.of(by["wer"]), terms.options(by["terms"])
    shown = {  # per task kind, signatures its page prints under its scores
        "wer": [speech.signature("m3"), speech.ier_signature()],
        "pos": [pos.signature(by["pos"], e, g)
                for e, g in (("absolute", "full"), ("relative", "full"), ("absolute", "category"))],
        "easy": [parsing.signature("easy", "HYP", "EQUAL")],
        "ud": [parsing.signature("conllu", recover=bool(by["ud"].options.get("recover", False)))],
        "coref": [coref.signature(c, True) for c in coref.CONVENTIONS],
        "terms": [terms.signature(options["sigma"], options["case"]),
                  terms.link_signature(options["symmetric_relations"], options["case"])],
    }
    with duckdb.connect(str(copy)) as con:
        for table, columns in STORED.items():
            con.execute(f"UPDATE {table} SET " + ", ".join(
                f"{c} = replace({c}, '|version:', '|version:stored-')" for c in columns))
        env = environment()
        common = {"campaign": campaign, "version": "test", "edition": "test"}
        for kind, signatures in shown.items():
            page = render_task(con, campaign, by[kind], tmp_path / kind, env, common)
            html = page.read_text(encoding="utf-8")
            for signature in signatures:
                altered = signature.replace("|version:", "|version:stored-")
                assert escape(signature) not in html, (kind, signature)
                assert escape(altered) in html, (kind, altered)


def test_every_interval_row_has_its_own_key(demo):
    """An interval is one row per variant: rows that repeat a key (a variant's key mangled on its
    way through the bootstrap, as a boolean read back as text would) are caught here."""
    db, _ = demo
    tables = [t for (t,) in query(db, "SELECT table_name FROM information_schema.tables "
                                      "WHERE table_name LIKE 'mart_%_interval' ORDER BY 1")]
    assert len(tables) >= 6
    for table in tables:
        columns = [c for (c,) in query(db, "SELECT column_name FROM information_schema.columns "
                                           "WHERE table_name = ? "
                                           "ORDER BY ordinal_position", [table])
                   if c not in ("value", "ci_low", "ci_high", "resamples", "seed")]
        key = ", ".join(f'"{c}"' for c in columns)
        repeated = query(db,
                         f"SELECT {key}, count(*) FROM {table} GROUP BY ALL HAVING count(*) > 1")
        assert repeated == [], (table, repeated[:3])
