"""The guide's promise, in every family: a new campaign ``seed`` recomputes the intervals and
paired tests and no unit, but the random baselines', whose responses the seed draws (POS's
baseline-heur-rnd, coreference's baseline-random). Before, terminology units computed their own
intervals and every coreference unit fingerprinted the seed: 7 of the demo's 10 units re-scored."""

from __future__ import annotations

import duckdb
import pytest

from scorehouse.warehouse.pipeline import run

RANDOM = {"baseline-heur-rnd", "baseline-random"}


@pytest.mark.slow
def test_a_new_seed_recomputes_intervals_and_paired_tests_only(demo_copy):
    # the demo campaign scored (conftest.py demo_build), copied with its warehouse and store
    toml, db = demo_copy / "campaign" / "campaign.toml", demo_copy / "w.duckdb"
    text = toml.read_text(encoding="utf-8")
    assert "seed = 20261125" in text
    toml.write_text(text.replace("seed = 20261125", "seed = 7", 1), encoding="utf-8")
    second = run(toml.parent, db, None, quiet=True)
    con = duckdb.connect(str(db), read_only=True)
    try:
        families = {t: f for t, f in con.execute(
            "SELECT DISTINCT task, family FROM cat_corpus").fetchall()}
        rescored = con.execute("SELECT task, system FROM cat_scoring WHERE run_id = ?",
                               [second.run_id]).fetchall()
        reduces = {k for (k,) in con.execute(
            "SELECT key FROM cat_artifact WHERE kind = 'reduce' AND run_id = ?",
            [second.run_id]).fetchall()}
        terms = con.execute("SELECT DISTINCT seed FROM mart_terms_interval").fetchall()
    finally:
        con.close()
    assert {s for _, s in rescored} <= RANDOM, rescored
    assert second.scored == len(rescored)
    assert {"pos", "coref"} >= {families[t] for t, _ in rescored}
    # every family with intervals recomputed them, terms included (a reduce now)
    assert {families[k.split("/")[0]] for k in reduces} >= {
        "wer", "pos", "parsing", "coref", "terms"}
    assert terms == [(7,)]
