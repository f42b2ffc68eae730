"""A corpus dropped from campaign.toml takes everything its units and reduces wrote with it, in
every family: the warehouse then holds, table for table, what a warehouse built from scratch on
the smaller campaign holds (warehouse/catalog.py ``drop_undeclared_corpora``). The views over
the history (``mart_*_changes``) and over the inputs seen (the catalog keeps a dropped corpus's
files as current) are not compared."""

from __future__ import annotations

import re

import duckdb
import pytest
from helpers import tables

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.pipeline import run

DROPPED = ("Test_II", "questions", "synth")  # a WER, an EASY and a coreference corpus


def _without(toml: str, corpus: str) -> str:
    """``toml`` without the corpus's block nor its files in the systems' tables."""
    block = re.search(rf'\[\[tasks\.corpora\]\]\nid = "{corpus}"\n(?:[^\[\n][^\n]*\n)*\n?', toml)
    assert block, corpus
    return re.sub(rf',? ?\b{re.escape(corpus)} = "[^"]*"', "", toml.replace(block.group(0), ""))


@pytest.mark.slow
def test_a_corpus_no_longer_declared_leaves_what_a_fresh_warehouse_holds(tmp_path):
    camp = write_demo_campaign(tmp_path / "campaign", scale=0.01, pos=False, calls=False).parent
    db = tmp_path / "w.duckdb"
    assert run(camp, db, None, quiet=True).exit_code == 0
    before = tables(db)
    toml = (camp / "campaign.toml").read_text(encoding="utf-8")
    for corpus in DROPPED:
        toml = _without(toml, corpus)
    (camp / "campaign.toml").write_text(toml, encoding="utf-8")
    assert run(camp, db, None, quiet=True).exit_code == 0
    fresh = tmp_path / "fresh.duckdb"
    assert run(camp, fresh, None, quiet=True).exit_code == 0
    got, want = tables(db), tables(fresh)
    with duckdb.connect(str(db), read_only=True) as con:
        written = {t for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    compared = [n for n in got if (n in written or f"{n}_rows" in written)
                and not n.startswith("hist_")]  # the history keeps what was scored
    assert len(compared) > 40
    for name in compared:
        assert got[name] == want[name], name
    # the dropped corpora had rows in the corpus-wide tables of every family
    for table in ("mart_wer_interval", "mart_parsing_consensus", "mart_parsing_corpus",
                  "mart_coref_interval", "int_parsing_range"):
        assert {r for r in before[table] if set(r) & set(DROPPED)}, table
