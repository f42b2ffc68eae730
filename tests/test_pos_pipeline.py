"""The POS task in the nightly job (demo campaign on UD French GSD): incremental recomputation,
baselines, consensus, unknown tags, rejected tables, the consensus file."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from scorehouse.demo.pos import write_pos_task
from scorehouse.etl.grace import read_grace_reference
from scorehouse.warehouse import resident
from scorehouse.warehouse.families.pos import BASELINES
from scorehouse.warehouse.families.pos_consensus import write_consensus
from scorehouse.warehouse.pipeline import open_warehouse, run
from scorehouse.warehouse.toml_writer import toml_table


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """The demo's POS task alone, in a campaign of its own."""
    dest = tmp_path_factory.mktemp("demo") / "campaign"
    participants, task_lines = write_pos_task(dest, scale=0.2)
    lines = toml_table("[campaign]", {"code_key": "tests-code-key-not-secret",
                                      "id": "demo-asr", "name": "POS", "bootstrap": 200, "seed": 7})
    for participant in [*participants, {"id": "orga", "name": "Organisers", "organiser": True}]:
        lines += toml_table("[[participants]]", participant)
    (dest / "campaign.toml").write_text("\n".join(lines + task_lines) + "\n", encoding="utf-8")
    return dest


@pytest.fixture()
def campaign(pristine, tmp_path) -> Path:
    dest = tmp_path / "campaign"
    shutil.copytree(pristine, dest)
    return dest


def query(db: Path, sql: str, params=()):
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def pos_units(db: Path, run_id: int) -> set[tuple[str, str]]:
    return set(query(db, "SELECT corpus, system FROM cat_scoring WHERE task = 'pos' AND run_id = ?",
                     [run_id]))


@pytest.mark.slow
def test_incremental_pos(campaign, tmp_path, monkeypatch):
    from scorehouse.scorers import pos as scorer
    from scorehouse.warehouse import runner

    spans, reference_spans = [], scorer.reference_spans  # what a reference offers, derived
    monkeypatch.setattr(scorer, "reference_spans",
                        lambda *a: spans.append(len(a[0])) or reference_spans(*a))
    tokens, frame = [], runner.frame  # the token tables the units read from the warehouse
    monkeypatch.setattr(runner, "frame", lambda con, sql, params=None: tokens.extend(
        params if "stg_pos_token" in sql else []) or frame(con, sql, params))
    in_place, resolved = [], runner.resolved  # and in place, as the store keeps them
    monkeypatch.setattr(resident, "STAGED_ROWS", 1)  # every file's tokens kept in the store
    monkeypatch.setattr(runner, "resolved", lambda a: in_place.append(
        getattr(a, "key", None)) or resolved(a))
    db = tmp_path / "w.duckdb"
    first = run(campaign, db, None, quiet=True)
    assert first.exit_code == 0, first.summary()
    assert len(spans) == 1  # once for every unit of the reference
    systems = {s for (s,) in query(db, "SELECT system FROM cat_system WHERE task = 'pos'")}
    assert pos_units(db, first.run_id) == {("gsd", s) for s in systems}
    assert set(BASELINES) <= systems
    second = run(campaign, db, None, quiet=True)
    assert (second.loaded, second.scored) == (0, 0)
    # one submission changed: only that system
    sub = campaign / "pos" / "submissions" / "morpho-a.grace"
    sub.write_text(sub.read_text(encoding="utf-8").replace("\tSp\n", "\tRg\n", 3), encoding="utf-8")
    spans.clear()
    tokens.clear()
    in_place.clear()
    third = run(campaign, db, None, quiet=True)
    assert pos_units(db, third.run_id) == {("gsd", "morpho-a")}
    # the unit read the reference's spans its last change derived, not its tokens, and its
    # submission's tokens in place: the staged file the store keeps (warehouse/resident.py)
    (sha,), = query(db, "SELECT sha256 FROM cat_input_current WHERE system = 'morpho-a' "
                        "AND role = 'submissions'")
    assert spans == [] and tokens == []
    assert resident.staged_key("stg_pos_token", sha) in in_place
    changes = query(db, "SELECT DISTINCT system FROM mart_pos_changes WHERE run_id = ? "
                        "AND previous_P IS NOT NULL",
                    [third.run_id])
    assert changes == [("morpho-a",)]
    # training corpus changed: only the baselines it feeds
    train = campaign / "pos" / "train.grace"
    train.write_text(train.read_text(encoding="utf-8") + "\n# doc = extra\nchat\tNcms\n",
                     encoding="utf-8")
    fourth = run(campaign, db, None, quiet=True)
    assert pos_units(db, fourth.run_id) == {("gsd", s) for s in BASELINES}
    assert spans == []
    # reference revised: everything on it, and the history keeps both versions
    ref = campaign / "pos" / "gsd.grace"
    ref.write_text(ref.read_text(encoding="utf-8").replace("\tFs\n", "\tFs|Fw\n", 2),
                   encoding="utf-8")
    fifth = run(campaign, db, None, quiet=True)
    assert pos_units(db, fifth.run_id) == {("gsd", s) for s in systems}
    assert len(spans) == 1  # the revised reference's, derived again
    fresh = tmp_path / "fresh.duckdb"
    assert run(campaign, fresh, None, quiet=True).exit_code == 0
    current = ("SELECT * EXCLUDE (sha256) FROM {} WHERE sha256 IN (SELECT sha256 FROM "
               "cat_input_current WHERE task = 'pos' AND role = 'reference') ORDER BY ALL")
    assert query(db, current.format("int_pos_ref_unit")) == query(
        fresh, current.format("int_pos_ref_unit"))
    sentences = "SELECT * FROM fct_pos_sentence ORDER BY ALL"
    assert query(db, sentences) == query(fresh, sentences)
    runs = query(
        db, "SELECT count(DISTINCT run_id) FROM hist_pos_scores WHERE system = 'morpho-b'")[0][0]
    assert runs == 2


def test_every_case_counted_once(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    units = query(db, "SELECT count(*) FROM int_pos_ref_unit u JOIN cat_input_current i "
                      "ON i.sha256 = u.sha256 AND i.task = 'pos' AND i.role = 'reference'")[0][0]
    per_system = query(db, "SELECT system, sum(nbCas) FROM fct_pos_sentence "
                           "WHERE evaluation = 'absolute' AND granularity = 'full' GROUP BY system")
    assert per_system and all(n == units for _, n in per_system)
    # the seven counts add up
    bad = query(db, "SELECT count(*) FROM fct_pos_sentence "
                    "WHERE NONEVAL + OK + ERR + SIL_ok + SIL_err + SIL_sil <> nbCas "
                    "OR NONEVAL <> noneval_residual + noneval_segmentation + noneval_unknown_tag "
                    "+ noneval_no_inverse_image OR SILOK_moy < SIL_ok "
                    "OR SILOK_moy > SIL_ok + SIL_sil")
    assert bad == [(0,)]
    # per-genre and per-document slices sum to the corpus
    mismatch = query(db, """
        SELECT count(*) FROM mart_pos_scores c JOIN (
            SELECT system, evaluation, granularity, sum(OK) AS ok
            FROM mart_pos_scores WHERE slice = 'genre' GROUP BY ALL
        ) g USING (system, evaluation, granularity) WHERE c.slice = 'corpus' AND c.OK <> g.ok""")
    assert mismatch == [(0,)]


def test_unknown_tags_are_listed(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    tags = {t for (t,) in query(db, "SELECT tag FROM mart_pos_unknown_tags "
                                    "WHERE system = 'morpho-b'")}
    assert {"X", "SYM"} <= tags


@pytest.mark.slow
def test_baselines_are_deterministic_and_flagged(campaign, tmp_path):
    a, b = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    run(campaign, a, None, quiet=True)
    run(campaign, b, None, quiet=True)
    q = ("SELECT system, OK, ERR, SIL FROM mart_pos_scores WHERE slice = 'corpus' "
         "AND system LIKE 'baseline-%' ORDER BY ALL")
    assert query(a, q) == query(b, q) and len(query(a, q)) == 2 * 2 * 2
    assert query(a, "SELECT system FROM cat_system WHERE baseline ORDER BY system") == \
        [(s,) for s in sorted(BASELINES)]
    # Heur+Rnd is strict; Lexical is ambiguous where the lexicon is
    strict = query(a, "SELECT system, SIL FROM mart_pos_scores WHERE slice = 'corpus' "
                      "AND evaluation = 'absolute' AND granularity = 'full' "
                      "AND system LIKE 'baseline-%' ORDER BY system")
    assert strict[0][1] == 0 and strict[1][1] > 0


def test_rejected_table_skips_only_that_system(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    (campaign / "pos" / "tables" / "morpho-b.tsv").write_text(
        "NOUN\tNcms\textra\n", encoding="utf-8")
    result = run(campaign, db, None, quiet=True)
    assert result.exit_code == 2
    assert any("morpho-b.tsv:1: expected" in r for r in result.rejections)
    systems = {s for (_, s) in pos_units(db, result.run_id)}
    assert "morpho-b" not in systems and "morpho-a" in systems


def test_consensus_file_reads_as_a_reference(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    with duckdb.connect(str(db)) as con:
        path = write_consensus(con, "demo-asr", "pos", "gsd", tmp_path / "consensus.grace")
    consensus = read_grace_reference(path)
    reference = read_grace_reference(campaign / "pos" / "gsd.grace")
    assert consensus.column("form").to_pylist() == reference.column("form").to_pylist()
    agreement = query(db, "SELECT min(agreement), max(agreement) FROM mart_pos_consensus")[0]
    assert 0 < agreement[0] <= agreement[1] <= 1


def test_a_warehouse_from_before_the_slice_sums_gets_them(scored_once, tmp_path):
    """A warehouse scored before fct_pos_slice (each unit's sums by corpus, genre and document)
    existed has it filled from its sentences as it is opened: the bulletin, the leaderboard and
    mart_pos_scores show its scores even before the next scoring, the rows the units' own
    builds made, once."""
    _, scored, _ = scored_once
    db = tmp_path / "old.duckdb"
    shutil.copyfile(scored, db)
    rows, scores = ("SELECT * FROM fct_pos_slice ORDER BY ALL",
                    "SELECT * FROM mart_pos_scores ORDER BY ALL")
    want, want_scores = query(scored, rows), query(scored, scores)
    assert want and want_scores
    with duckdb.connect(str(db)) as con:
        con.execute("DROP TABLE fct_pos_slice")
    for _ in range(2):  # created and filled once; opened again, kept as it is
        open_warehouse(db).close()
        assert query(db, rows) == want
    assert query(db, scores) == want_scores
