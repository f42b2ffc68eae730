"""A changed submission costs its own columns: after one POS and one EASY submission change, the
intervals and paired tests resample only the changed system's columns (the others' resampled
totals are read from ``cat_resampled``, warehouse/resampled.py), the POS consensus moves by the
changed system's votes alone (warehouse/families/pos_consensus.py), its kappa, unknown tags and
residual forms are its unit's own rows (the views over every case they replace give the same
rows), and every table is the same, byte for byte, as a from-scratch run on the same files."""

from __future__ import annotations

import shutil

import duckdb
import numpy as np
import pytest

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.scorers import ranking
from scorehouse.warehouse import resampled
from scorehouse.warehouse.families import parsing, pos, pos_consensus
from scorehouse.warehouse.pipeline import run

TABLES = ("mart_pos_interval", "mart_pos_paired", "mart_pos_consensus", "mart_pos_scores",
          "int_pos_vote", "int_pos_voter", "mart_pos_kappa_pairs", "int_pos_kappa_pair",
          "mart_parsing_interval", "mart_parsing_paired", "mart_parsing_consensus",
          "mart_parsing_consensus_file", "cat_resampled", "mart_pos_kappa", "mart_pos_unknown_tags",
          "int_pos_residual", "fct_pos_kappa", "fct_pos_unknown_tag", "int_pos_residual_form",
          "int_pos_kappa_vector", "int_pos_ref_line", "fct_pos_slice")

# mart_pos_kappa_pairs as a view over every case, as it was before the pairs were kept
ALL_PAIRS = """
WITH s AS (
    SELECT campaign, task, corpus, system, ref_unit, projected[1] AS tag
    FROM int_pos_case
    WHERE evaluation = 'absolute' AND noneval IS NULL AND len(projected) = 1
), paired AS (
    SELECT a.campaign, a.task, a.corpus, a.system AS system_a, b.system AS system_b,
           a.tag AS tag_a, b.tag AS tag_b
    FROM s a JOIN s b ON a.campaign = b.campaign AND a.task = b.task AND a.corpus = b.corpus
     AND a.ref_unit = b.ref_unit AND a.system < b.system
), n AS (
    SELECT campaign, task, corpus, system_a, system_b, count(*) AS cases,
           avg((tag_a = tag_b)::INTEGER) AS p_o
    FROM paired GROUP BY ALL
), ma AS (SELECT campaign, task, corpus, system_a, system_b, tag_a AS tag, count(*) AS na
          FROM paired GROUP BY ALL),
mb AS (SELECT campaign, task, corpus, system_a, system_b, tag_b AS tag, count(*) AS nb
       FROM paired GROUP BY ALL),
e AS (
    SELECT campaign, task, corpus, system_a, system_b, sum(na * nb) AS pe_num
    FROM ma JOIN mb USING (campaign, task, corpus, system_a, system_b, tag) GROUP BY ALL
)
SELECT n.*, coalesce(e.pe_num, 0) / (n.cases * n.cases) AS p_e,
       (n.p_o - coalesce(e.pe_num, 0) / (n.cases * n.cases))
         / nullif(1 - coalesce(e.pe_num, 0) / (n.cases * n.cases), 0) AS kappa
FROM n LEFT JOIN e USING (campaign, task, corpus, system_a, system_b)
"""

# mart_pos_consensus as one vote over every case, as it was before the tally was kept
ALL_VOTES = """
WITH cases AS (
    SELECT c.ref_unit, c.projected
    FROM int_pos_case c
    JOIN cat_published_system s
      ON s.campaign = c.campaign AND s.task = c.task AND s.system = c.system
    WHERE c.evaluation = 'absolute' AND c.noneval IS NULL AND NOT s.baseline
      AND c.campaign = $campaign AND c.task = $task AND c.corpus = $corpus
), voters AS (  -- one absolute case per system and reference unit
    SELECT ref_unit, count(*) AS voters FROM cases GROUP BY ref_unit
), tally AS (
    -- fixed-point sum: the same bits whatever order the rows (and threads) come in
    SELECT ref_unit, tag, sum(vote::DECIMAL(38, 18))::DOUBLE AS votes
    FROM (SELECT ref_unit, unnest(projected) AS tag, 1.0 / len(projected) AS vote FROM cases)
    GROUP BY ALL
), winner AS (  -- aggregates only (no window): they spill to disk under a small memory limit
    SELECT ref_unit, arg_min(tag, (-votes, tag)) AS tag, max(votes) AS votes
    FROM tally GROUP BY ref_unit
)
SELECT $campaign, $task, $corpus, w.ref_unit, w.tag, w.votes, v.voters, w.votes / v.voters
FROM winner w JOIN voters v USING (ref_unit)
"""


# the views a unit's own tables now hold (fct_pos_kappa, fct_pos_unknown_tag,
# int_pos_residual_form, fct_pos_slice), as they were over every case (or sentence) of every unit
OVER_EVERY_CASE = {
    "mart_pos_scores": """
WITH sums AS (
    SELECT campaign, task, corpus, system, evaluation, granularity,
           CASE WHEN grouping(genre) = 1 THEN 'corpus' WHEN grouping(doc) = 1 THEN 'genre'
                ELSE 'document' END AS slice,
           CASE WHEN grouping(genre) = 0 THEN genre END AS genre,
           CASE WHEN grouping(doc) = 0 THEN doc END AS doc,
           sum(nbCas)::BIGINT AS nbCas, sum(NONEVAL)::BIGINT AS NONEVAL,
           sum(noneval_residual)::BIGINT AS noneval_residual,
           sum(noneval_segmentation)::BIGINT AS noneval_segmentation,
           sum(noneval_unknown_tag)::BIGINT AS noneval_unknown_tag,
           sum(noneval_no_inverse_image)::BIGINT AS noneval_no_inverse_image,
           sum(OK)::BIGINT AS OK, sum(ERR)::BIGINT AS ERR, sum(SIL_ok)::BIGINT AS SIL_ok,
           sum(SIL_err)::BIGINT AS SIL_err, sum(SIL_sil)::BIGINT AS SIL_sil,
           sum(SILOK_moy::DECIMAL(38, 18))::DOUBLE AS SILOK_moy,
           any_value(signature) AS signature
    FROM fct_pos_sentence
    GROUP BY GROUPING SETS (
        (campaign, task, corpus, system, evaluation, granularity),
        (campaign, task, corpus, system, evaluation, granularity, genre),
        (campaign, task, corpus, system, evaluation, granularity, genre, doc))
)
SELECT * EXCLUDE (signature),
       SIL_ok + SIL_err + SIL_sil AS SIL,
       OK / nullif(OK + ERR, 0) AS P,
       (OK + ERR) / nullif(nbCas - NONEVAL, 0) AS D,
       (OK + SIL_ok) / nullif(nbCas - NONEVAL, 0) AS Pmin,
       (OK + SILOK_moy) / nullif(nbCas - NONEVAL, 0) AS Pmoy,
       (OK + SIL_ok + SIL_sil) / nullif(nbCas - NONEVAL, 0) AS Pmax,
       100.0 * NONEVAL / nullif(nbCas, 0) AS pct_noneval,
       signature
FROM sums
""",
    "mart_pos_kappa": """
WITH s AS (
    SELECT campaign, task, corpus, system, projected[1] AS hyp, acceptable[1] AS ref
    FROM int_pos_case
    WHERE evaluation = 'absolute' AND noneval IS NULL AND len(projected) = 1 AND len(acceptable) = 1
), n AS (
    SELECT campaign, task, corpus, system, count(*) AS cases, avg((hyp = ref)::INTEGER) AS p_o
    FROM s GROUP BY ALL
), h AS (SELECT campaign, task, corpus, system, hyp AS tag, count(*) AS nh FROM s GROUP BY ALL),
r AS (SELECT campaign, task, corpus, system, ref AS tag, count(*) AS nr FROM s GROUP BY ALL),
e AS (
    SELECT campaign, task, corpus, system, sum(nh * nr) AS pe_num
    FROM h JOIN r USING (campaign, task, corpus, system, tag) GROUP BY ALL
)
SELECT n.campaign, n.task, n.corpus, n.system, n.cases, n.p_o,
       coalesce(e.pe_num, 0) / (n.cases * n.cases) AS p_e,
       (n.p_o - coalesce(e.pe_num, 0) / (n.cases * n.cases))
         / nullif(1 - coalesce(e.pe_num, 0) / (n.cases * n.cases), 0) AS kappa
FROM n LEFT JOIN e USING (campaign, task, corpus, system)
""",
    "mart_pos_unknown_tags": """
SELECT campaign, task, corpus, system, evaluation, tag,
       count(*) FILTER (WHERE noneval = 'unknown_tag') AS cases,
       count(*) FILTER (WHERE noneval IS NULL) AS dropped
FROM (SELECT campaign, task, corpus, system, evaluation, noneval, unnest(unknown_tags) AS tag
      FROM int_pos_case WHERE noneval IS NULL OR noneval = 'unknown_tag')
GROUP BY ALL
""",
    "int_pos_residual": """
WITH ctx AS (
    SELECT sha256, unit, unit_form, doc, sent,
           string_agg(unit_form, ' ')
               OVER (PARTITION BY sha256, doc, sent ORDER BY unit
                     ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING) AS left_context,
           string_agg(unit_form, ' ')
               OVER (PARTITION BY sha256, doc, sent ORDER BY unit
                     ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS right_context
    FROM int_pos_ref_unit
)
SELECT c.campaign, c.task, c.corpus, c.system, c.ref_unit AS unit, x.unit_form, x.left_context,
       x.right_context, x.doc, x.sent
FROM int_pos_case c
JOIN cat_input_current i ON i.campaign = c.campaign AND i.task = c.task AND i.corpus = c.corpus
 AND i.system = '' AND i.role = 'reference'
JOIN ctx x ON x.sha256 = i.sha256 AND x.unit = c.ref_unit
WHERE c.evaluation = 'absolute' AND c.noneval = 'residual'
""",
}


def _dump(db) -> dict[str, list[tuple]]:
    """Every table of :data:`TABLES` and every parsing table and view (but those of run
    numbers, history and changes, and the staged files, which keep every version), sorted."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        parsing = [t for (t,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_name LIKE '%parsing%' "
            "AND table_name NOT LIKE 'stg\\_%' ESCAPE '\\' "
            "AND table_name NOT IN (SELECT table_name FROM information_schema.columns "
            "WHERE column_name = 'run_id') ORDER BY 1").fetchall()]
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in dict.fromkeys([*TABLES, *parsing])}
    finally:
        con.close()


def test_exact_tables_only():
    assert resampled.exact(np.array([[1.0, 2.0], [0.0, 5.0]]))
    assert not resampled.exact(np.array([[0.5, 2.0], [0.0, 5.0]]))
    assert not resampled.exact(np.array([[2.0 ** 52], [1.0]]))  # 2 units x 2**52: beyond 2**53


def test_cached_columns_are_the_bootstrap_bit_for_bit():
    """The cache's totals equal scorers.bootstrap's whichever columns are known."""
    from scorehouse.scorers import bootstrap

    rng = np.random.default_rng(3)
    counts = rng.integers(0, 9, size=(50, 4)).astype(float)
    fractional = counts / 3
    con = duckdb.connect()
    from scorehouse.warehouse.db import apply_schema
    apply_schema(con, ["catalog"])
    first = resampled.ResampledTotals(con, "c", "t", "s")
    whole = first.totals([counts, fractional], 200, 7, "t/s")
    first.save()
    expected = bootstrap.resampled_totals([counts, fractional], 200, 7, "t/s")
    changed = counts.copy()
    changed[:, 2] += 1
    second = resampled.ResampledTotals(con, "c", "t", "s")
    again = second.totals([changed, fractional], 200, 7, "t/s")
    assert second.computed == 1  # the changed column only; the fractional table in full
    for got, want in zip(whole, expected):
        assert got.tobytes() == want.tobytes()
    for got, want in zip(again, bootstrap.resampled_totals([changed, fractional], 200, 7, "t/s")):
        assert got.tobytes() == want.tobytes()


@pytest.mark.slow
def test_one_changed_submission_same_tables_as_from_scratch(tmp_path, monkeypatch):
    # the families a changed POS or EASY submission touches (and the speech task, always written)
    camp = write_demo_campaign(tmp_path / "campaign", scale=0.03, coref=False, terms=False,
                               calls=False).parent
    db = tmp_path / "incremental.duckdb"
    # the tally counted and moved a few dozen cases at a time: many slices of reference units
    monkeypatch.setattr(pos_consensus, "CASES_PER_SLICE", 40)
    assert run(camp, db, None, quiet=True).exit_code == 0
    # one POS and one EASY submission change: morpho-b writes SYM, a tag its table lacks, on
    # every 7th token (unknown tags) and leaves out two tokens (residual forms); parseur-a
    # another system's output
    path = camp / "pos" / "submissions" / "morpho-b.grace"
    lines = path.read_text(encoding="utf-8").split("\n")
    tokens = [k for k, line in enumerate(lines) if line and not line.startswith("#")]
    for k in tokens[::7]:
        lines[k] = lines[k].split("\t")[0] + "\tSYM"
    for k in (tokens[40], tokens[3]):
        del lines[k]
    path.write_text("\n".join(lines), encoding="utf-8")
    shutil.copy(camp / "parsing" / "parseur-b" / "questions.xml",
                camp / "parsing" / "parseur-a" / "questions.xml")
    computed, read = [], []
    save = resampled.ResampledTotals.save

    def counting(self):
        computed.append(self.computed)
        read.append(len(self.used) - self.computed)
        save(self)
    monkeypatch.setattr(resampled.ResampledTotals, "save", counting)
    consensus, how = pos.consensus, []
    monkeypatch.setattr(pos, "consensus", lambda *a: how.append(consensus(*a)) or how[-1])
    from scorehouse.warehouse.families import pos_kappa
    monkeypatch.setattr(pos_kappa, "BATCH", 97)  # a system's cases over several batches
    kappa_pairs, again = pos.kappa_pairs, []
    monkeypatch.setattr(pos, "kappa_pairs", lambda *a: again.append(kappa_pairs(*a)) or again[-1])
    tag_codes, strict = pos_kappa.tag_codes, set()  # the systems whose strict cases are read

    def reading(batches, codes):
        vectors = tag_codes(batches, codes)
        strict.update(vectors)
        return vectors
    monkeypatch.setattr(pos_kappa, "tag_codes", reading)
    easy_intervals, scopes, easy_tests = parsing.intervals, [], []

    def easy(*a):
        scopes.append(a[-1])
        monkeypatch.setattr(ranking, "_tested", lambda delta, level: easy_tests.append(
            delta.shape[1]) or tested(delta, level))
        try:
            return easy_intervals(*a)
        finally:
            monkeypatch.setattr(ranking, "_tested", tested)
    tested = ranking._tested  # the EASY pairs tested (not read where kept)
    monkeypatch.setattr(parsing, "intervals", easy)
    moved, apply_slice = [], pos_consensus._apply_slice  # the cases whose votes move the tally
    monkeypatch.setattr(pos_consensus, "_apply_slice", lambda con, key, *cases: moved.append(
        sum(con.execute(f"SELECT count(*) FROM ({c})").fetchall()[0][0] for c in cases))
        or apply_slice(con, key, *cases))
    with duckdb.connect(str(db)) as con:
        voting = con.execute("SELECT count(*) FROM int_pos_case WHERE system = 'morpho-b' AND "
                             "evaluation = 'absolute' AND noneval IS NULL").fetchall()[0][0]
        # one unchanged system's kept vector under another state (as a unit that wrote none
        # would leave it): the reduce reads that system's cases, a batch at a time
        [(stale,)] = con.execute("SELECT min(system) FROM int_pos_kappa_vector WHERE system <> "
                                 "'morpho-b' AND len(tags) > 0").fetchall()
        con.execute("UPDATE int_pos_kappa_vector SET state = 'earlier' WHERE system = ?",
                    [stale])
    from scorehouse.scorers import bootstrap
    draws, weights = [], bootstrap._weights  # the streams whose weights are drawn
    monkeypatch.setattr(bootstrap, "_weights", lambda n, resamples, seed, stream, chunk: (
        draws.append(stream) or weights(n, resamples, seed, stream, chunk)))
    second = run(camp, db, None, quiet=True)
    assert second.exit_code == 0 and second.scored >= 2
    # the POS intervals read the draw the first run kept in the store (the EASY ones draw)
    assert draws and not [s for s in draws if s.startswith("pos/")], draws
    monkeypatch.setattr(bootstrap, "_weights", weights)
    # the changed cases alone (its every 7th token and two left out), not all of them twice
    assert 0 < sum(moved) < voting / 2, (moved, voting)
    assert scopes == ["questions", None]  # the changed corpus's intervals and the task's
    with duckdb.connect(str(db), read_only=True) as con:  # the changed system's pairs alone
        pairs, changed = con.execute(
            "SELECT count(*), count(*) FILTER ('parseur-a' IN (system_a, system_b)) "
            "FROM mart_parsing_paired WHERE corpus IN ('questions', '*')").fetchall()[0]
    # (fewer when a pair's samples are another pair's: parseur-a now has parseur-b's output)
    assert 0 < sum(easy_tests) <= changed < pairs, (easy_tests, changed, pairs)
    assert how == ["incremental"]  # the changed system's old votes out, its new ones in
    assert again == [["morpho-b"]]  # the pairs of the changed system alone
    # the changed unit wrote its vector where it was computed, the others are kept under their
    # states: the cases of the one kept under another state alone are read again
    assert strict == {stale}
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute(
            "SELECT count(*) FROM int_pos_kappa_vector v JOIN cat_scoring s USING (campaign, "
            "task, corpus, system) WHERE v.state <> s.state").fetchall() == [(0,)]
    assert sum(read) > 0 and sum(computed) > 0  # the unchanged systems' columns were read
    # the EASY submissions' consensus ranges kept in the store: the changed one added
    kept = list((tmp_path / "incremental.store" / "consensus").glob("*.parquet"))
    assert len(kept) > len({p.parent.name for p in (camp / "parsing").glob("*/questions.xml")})
    monkeypatch.setattr(resampled.ResampledTotals, "save", save)
    monkeypatch.setattr(pos, "consensus", consensus)
    monkeypatch.setattr(pos_consensus, "_apply_slice", apply_slice)
    monkeypatch.setattr(pos, "kappa_pairs", kappa_pairs)
    monkeypatch.setattr(pos_kappa, "tag_codes", tag_codes)
    monkeypatch.setattr(parsing, "intervals", easy_intervals)
    scratch = tmp_path / "scratch.duckdb"
    assert run(camp, scratch, None, quiet=True).exit_code == 0
    incremental, fresh = _dump(db), _dump(scratch)
    assert len(incremental) > len(TABLES) + 15  # the parsing tables and views too
    for table in incremental:
        assert incremental[table] or table not in TABLES, table
        assert incremental[table] == fresh[table], table
    con = duckdb.connect(str(db), read_only=True)
    try:  # the pairs and votes are those of the queries over every case they replace
        assert con.execute(f"SELECT * FROM ({ALL_PAIRS}) ORDER BY ALL").fetchall() == (
            incremental["mart_pos_kappa_pairs"])
        key = dict(zip(("campaign", "task", "corpus"), incremental["mart_pos_consensus"][0]))
        assert con.execute(f"SELECT * FROM ({ALL_VOTES}) ORDER BY ALL", key).fetchall() == (
            incremental["mart_pos_consensus"])
        for view, query in OVER_EVERY_CASE.items():  # each unit's rows: the old view's
            assert con.execute(f"SELECT * FROM ({query}) ORDER BY ALL").fetchall() == (
                incremental[view]), view
    finally:
        con.close()


def _consensus_by_rows(con, key: list) -> bytes:
    """The consensus file as it was written before, row by row in Python (the oracle)."""
    rows = con.execute("""
        WITH first AS (
            SELECT u.sha256, u.tok, min(u.unit) AS unit FROM int_pos_ref_unit u
            JOIN cat_input_current i ON i.sha256 = u.sha256 AND i.campaign = ? AND i.task = ?
             AND i.corpus = ? AND i.system = '' AND i.role = 'reference' GROUP BY ALL)
        SELECT u.doc, u.genre, u.sent, t.form, c.tag FROM first f
        JOIN int_pos_ref_unit u ON u.sha256 = f.sha256 AND u.unit = f.unit
        JOIN stg_pos_token t ON t.sha256 = f.sha256 AND t.tok = f.tok
        LEFT JOIN mart_pos_consensus c ON c.campaign = ? AND c.task = ? AND c.corpus = ?
         AND c.ref_unit = f.unit
        ORDER BY f.tok""", key + key).fetchall()
    doc = sent = None
    lines = []
    for d, genre, s, form, tag in rows:
        if d != doc:
            lines += ([""] if doc is not None else []) + [f"# doc = {d}"] + (
                [f"# genre = {genre}"] if genre else [])
            doc, sent = d, None
        if s != sent:
            if sent is not None:
                lines.append("")
            lines.append(f"# sent = {s}")
            sent = s
        lines.append(f"{form}\t{tag or 'X'}")
    return ("".join(f"{line}\n" for line in lines) or "\n").encode()


@pytest.mark.parametrize("batch", [7, 50_000])
def test_consensus_file_is_the_row_by_row_one(demo_build, tmp_path, monkeypatch, batch):
    """write_consensus writes each batch in one piece, the document and sentence carried from
    batch to batch: the bytes the row-by-row writing gave, a batch cutting sentences or not (on
    the session's scored demo, conftest.py, read only)."""
    from scorehouse.warehouse.families import pos_consensus

    db = demo_build / "w.duckdb"
    monkeypatch.setattr(pos_consensus, "BATCH", batch)
    con = duckdb.connect(str(db), read_only=True)
    try:
        key = list(con.execute("SELECT campaign, task, corpus FROM mart_pos_consensus "
                               "LIMIT 1").fetchall()[0])
        path = pos_consensus.write_consensus(con, *key, tmp_path / "consensus.grace")
        assert path.read_bytes() == _consensus_by_rows(con, key)
        assert path.read_bytes().count(b"# doc = ") > 1
    finally:
        con.close()


def test_insert_rows_through_arrow_is_executemany():
    """insert_rows' Arrow path stores what executemany stores, and falls back on a value Arrow
    will not convert (a decimal column, a float in an integer column)."""
    from scorehouse.warehouse.db import insert_rows

    rows = [["é", 1, 2, None, True], ["x", 0.1, None, 2 ** 40, False],
            ["", float("nan"), -3, -1, None], [None, -0.0, 0, 0, True]]
    fallback = [["y", 1.5, 2.0, 3, True]]
    con = duckdb.connect()
    for name in ("arrow", "many"):
        con.execute(f"CREATE TABLE {name} (a VARCHAR, b DOUBLE, c INTEGER, d BIGINT, e BOOLEAN)")
    insert_rows(con, "INSERT INTO arrow VALUES (?, ?, ?, ?, ?)", rows)
    insert_rows(con, "INSERT INTO arrow VALUES (?, ?, ?, ?, ?)", fallback)
    con.executemany("INSERT INTO many VALUES (?, ?, ?, ?, ?)", rows + fallback)
    got, want = (con.execute(f"SELECT *, b::VARCHAR FROM {t} ORDER BY ALL").fetchall()
                 for t in ("arrow", "many"))
    assert repr(got) == repr(want) and len(got) == 5


def test_insert_or_replace_rows_through_arrow_is_executemany():
    """``INSERT OR REPLACE`` through insert_rows' Arrow path leaves what executemany leaves: rows
    already there replaced, a key given twice kept as its last row, a composite key; a table
    without a primary key goes row by row, as the statement says."""
    from scorehouse.warehouse.db import insert_rows

    before = [["a", "x", 1], ["b", "x", 2]]
    rows = [["a", "x", 10], ["c", "y", 3], ["c", "y", 4], ["a", "y", 5], ["c", "y", 6]]
    con = duckdb.connect()
    for name in ("arrow", "many"):
        con.execute(f"CREATE TABLE {name} (p VARCHAR, s VARCHAR, n BIGINT, PRIMARY KEY (p, s))")
        con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?)", before)
    insert_rows(con, "INSERT OR REPLACE INTO arrow VALUES (?, ?, ?)", rows)
    insert_rows(con, "INSERT OR REPLACE INTO arrow VALUES (?, ?, ?)", [["b", "x", 7]])
    for row in [*rows, ["b", "x", 7]]:
        con.execute("INSERT OR REPLACE INTO many VALUES (?, ?, ?)", row)
    got, want = (con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                 for t in ("arrow", "many"))
    assert got == want == [("a", "x", 10), ("a", "y", 5), ("b", "x", 7), ("c", "y", 6)]
    con.execute("CREATE TABLE free (p VARCHAR, n BIGINT)")
    with pytest.raises(duckdb.BinderException):  # no key: DuckDB's own error, as executemany's
        insert_rows(con, "INSERT OR REPLACE INTO free VALUES (?, ?)", [["a", 1]])


def test_kept_weights_are_the_drawn_ones_and_a_damaged_file_is_drawn_again(tmp_path,
                                                                            monkeypatch):
    """ResampledTotals with a weights folder: the first reduce draws and keeps the weights, the
    next reads them (nothing drawn), a damaged or truncated file is drawn again and replaced,
    and a folder that cannot be written costs the keeping only: the totals are always the
    bits of a draw without any folder."""
    from scorehouse.scorers import bootstrap
    from scorehouse.warehouse.db import apply_schema

    rng = np.random.default_rng(5)
    counts = rng.integers(0, 9, size=(40, 3)).astype(float)
    want = bootstrap.resampled_totals([counts], 120, 11, "t/s")[0]
    con = duckdb.connect()
    apply_schema(con, ["catalog"])
    folder = tmp_path / "weights"

    def totals(where) -> np.ndarray:
        return resampled.ResampledTotals(con, "c", "t", "s", str(where)).totals(
            [counts], 120, 11, "t/s")[0]
    drawn, draw = [], bootstrap.weight_counts
    monkeypatch.setattr(bootstrap, "weight_counts", lambda *a: drawn.append(a) or draw(*a))
    assert totals(folder).tobytes() == want.tobytes() and len(drawn) == 1
    (kept,) = folder.glob("*.npy")
    assert totals(folder).tobytes() == want.tobytes() and len(drawn) == 1  # read back
    for damage in (b"not a numpy file", kept.read_bytes()[:-50]):
        kept.write_bytes(damage)
        assert totals(folder).tobytes() == want.tobytes()
        assert [p.name for p in folder.glob("*.npy")] == [kept.name]
        assert np.load(kept).shape == (120, 40)  # drawn again and kept whole
    assert len(drawn) == 3
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    assert totals(blocked).tobytes() == want.tobytes()


def test_kept_pairs_are_read_for_the_same_columns_and_formula_only():
    """Paired tests kept with a scope's totals are read back by a later reduce whose columns
    have the same totals and whose formula (naming its code) is the same; another formula or
    code tests every pair again."""
    from scorehouse.scorers import ranking
    from scorehouse.warehouse.db import apply_schema

    rng = np.random.default_rng(5)
    counts = [rng.integers(1, 9, size=(40, 3)).astype(float) for _ in range(2)]
    con = duckdb.connect()
    apply_schema(con, ["catalog"])

    def tested_pairs(formula: str) -> int:
        cache = resampled.ResampledTotals(con, "c", "t", "s")
        num, den = cache.totals(counts, 100, 3, "t/s")
        samples = num / den
        tests = []
        original = ranking._tested
        ranking._tested = lambda delta, level: tests.append(delta.shape[1]) or original(
            delta, level)
        try:
            ranking.paired(samples.mean(0), samples, ids=cache.sample_ids(formula, (0, 1)),
                           kept=cache.pairs)
        finally:
            ranking._tested = original
        cache.save()
        return sum(tests)
    assert tested_pairs("code 1/F") == 3  # three systems, three pairs
    assert tested_pairs("code 1/F") == 0  # read
    assert tested_pairs("code 2/F") == 3  # another code: tested again
    counts[1][:, 2] += 1  # the third system's denominators changed: its two pairs
    assert tested_pairs("code 2/F") == 2


def test_pos_intervals_number_rows_by_hash_as_by_strings(demo_copy, monkeypatch):
    """The POS intervals number each count row's sentence and variant by DuckDB's hash of their
    keys: the intervals and paired tests the run wrote, and those of the numbering by strings
    (taken when two keys share a hash), on a copy of the session's demo."""
    from types import SimpleNamespace

    from scorehouse.warehouse.campaign import load_campaign
    from scorehouse.warehouse.families import pos_intervals

    campaign = load_campaign(demo_copy / "campaign")
    task = next(t for t in campaign.tasks if t.family == "pos")
    con = duckdb.connect(str(demo_copy / "w.duckdb"))
    try:
        corpora = [c for (c,) in con.execute("SELECT DISTINCT corpus FROM fct_pos_sentence "
                                             "ORDER BY 1").fetchall()]
        dump = "SELECT * FROM {} ORDER BY ALL"
        ran = {t: con.execute(dump.format(t)).fetchall()
               for t in ("mart_pos_interval", "mart_pos_paired")}
        assert corpora and ran["mart_pos_interval"] and ran["mart_pos_paired"]
        ctx = SimpleNamespace(con=con, campaign=campaign, store=None)
        numbered = pos_intervals._numbered
        for by_strings in (False, True):
            if by_strings:
                monkeypatch.setattr(pos_intervals, "_numbered",
                                    lambda *a: (numbered(*a)[0], None))
            for corpus in corpora:
                pos_intervals.intervals(ctx, task, corpus)
            for table, rows in ran.items():
                assert con.execute(dump.format(table)).fetchall() == rows, (table, by_strings)
    finally:
        con.close()
