"""The consensus annotation of a POS corpus (GRACE): a majority vote over the published systems'
projected tags (``mart_pos_consensus``), and its GRACE file.

Each voting system gives each tag of its projected set on a reference unit 1/k vote; the tag with
the most votes wins (ties: alphabetical). Votes are sums, so the tally is kept between runs
(``int_pos_vote``, ``int_pos_voter``, and the units it holds in ``int_pos_vote_source``): when
some submissions change, their old cases (the unit store keeps a unit's output under its
state's key) are subtracted and their new ones added, in fixed point, which is exact in any
order, and only the reference units whose tally moved are voted again. Without a changed unit's
old or new case file (a warehouse without a local store, a store pruned since), or when most
voters changed, the tally is counted again from every case: the same rows either way.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.warehouse import resident
from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext
from scorehouse.warehouse.db import build, frame, insert_rows
from scorehouse.warehouse.store import unit_key

SQL_FOLDER = "pos"
_TABLES = ("int_pos_vote", "int_pos_voter", "int_pos_vote_source", "mart_pos_consensus")
_KEY = "campaign = $campaign AND task = $task AND corpus = $corpus"
BATCH = 50_000  # rows of the consensus file written at a time


def _on(alias: str) -> str:
    """:data:`_KEY` on the columns of ``alias``."""
    return " AND ".join(f"{alias}.{c} = ${c}" for c in ("campaign", "task", "corpus"))


# the evaluable absolute cases of the corpus's published systems, baselines excluded (a published
# figure counts no system the public cannot see)
_VOTING = f"""
    SELECT c.system, c.ref_unit, c.projected
    FROM int_pos_case c
    JOIN cat_published_system s
      ON s.campaign = c.campaign AND s.task = c.task AND s.system = c.system
    WHERE c.evaluation = 'absolute' AND c.noneval IS NULL AND NOT s.baseline
      AND {_on('c')}"""
# the units the tally is made of now: each voting system's unit state
_SOURCES = """
    SELECT s.system, s.state
    FROM cat_scoring s
    JOIN cat_published_system p
      ON p.campaign = s.campaign AND p.task = s.task AND p.system = s.system AND NOT p.baseline
    WHERE s.campaign = $campaign AND s.task = $task AND s.corpus = $corpus
    ORDER BY s.system"""
_NO_CASES = "SELECT NULL::BIGINT AS ref_unit, NULL::VARCHAR[] AS projected WHERE false"


def _votes(cases: str, sign: str = "") -> str:
    """Each vote of the cases ``cases`` (ref_unit, projected): 1/k to each of its k tags, in
    fixed point (``sign``: '-' to take them away)."""
    return (f"SELECT ref_unit, tag, {sign}(vote::DECIMAL(38, 18)) AS vote FROM ("
            f"SELECT ref_unit, unnest(projected) AS tag, 1.0 / len(projected) AS vote "
            f"FROM ({cases}))")


def consensus(ctx: RunContext, task: Task, corpus: str, force: bool = False) -> str:
    """Bring the consensus of a corpus up to date (inside the reduce's transaction): by the
    changed units' votes when the tally holds the others, else counted again. Returns how:
    'unchanged', 'incremental' or 'full'."""
    con = ctx.con
    key = {"campaign": ctx.campaign.id, "task": task.id, "corpus": corpus}
    now = {r[0]: r for r in con.execute(_SOURCES, key).fetchall()}
    before = {r[0]: r for r in con.execute(
        f"SELECT system, state FROM int_pos_vote_source WHERE {_KEY}", key).fetchall()}
    removed = [r for s, r in before.items() if now.get(s) != r]
    added = [r for s, r in now.items() if before.get(s) != r]
    if not force and before and not removed and not added:
        return "unchanged"
    files = {r: _case_file(ctx, task, corpus, *r) for r in removed + added}
    how = "full" if (force or not before or None in files.values()
                     or 2 * (len(removed) + len(added)) > len(now)) else "incremental"
    # scratch tables of the reduce's transaction: rolled back with it if a statement fails
    con.execute("CREATE OR REPLACE TEMP TABLE pos_vote_changed (ref_unit BIGINT)")
    if how == "full":
        for table in _TABLES:
            con.execute(f"DELETE FROM {table} WHERE {_KEY}", key)
        _count(con, key)
    else:
        _apply(con, key, *(_cases(con, [files[r] for r in units]) for units in (added, removed)))
        con.execute(f"DELETE FROM int_pos_vote_source WHERE {_KEY}", key)
    build(con, SQL_FOLDER, "mart_pos_consensus", all=how == "full", **key)
    insert_rows(con, "INSERT INTO int_pos_vote_source VALUES (?, ?, ?, ?, ?)",
                [[*key.values(), *r] for r in now.values()])
    con.execute("DROP TABLE pos_vote_changed")
    return how


def _count(con, key: dict) -> None:
    """The tally and the voters of every voting case, counted again a slice of reference units
    at a time (:func:`_slices`), each slice in one pass over its cases: each case gives its
    votes and, on its first tag's row (a NULL tag for a case without one), one voter."""
    for lo, hi in _slices(con, _VOTING, key):
        con.execute(f"""
            CREATE OR REPLACE TEMP TABLE pos_tally AS
            SELECT ref_unit, tag, sum(vote::DECIMAL(38, 18)) AS votes,
                   count(*) FILTER (WHERE first) AS voters
            FROM (SELECT ref_unit,
                         unnest(CASE WHEN len(projected) = 0 THEN [NULL] ELSE projected END)
                           AS tag,
                         CASE WHEN len(projected) > 0 THEN 1.0 / len(projected) END AS vote,
                         unnest(range(greatest(len(projected), 1))) = 0 AS first
                  FROM ({_within(_VOTING, lo, hi)}))
            GROUP BY ALL""", key)
        con.execute("INSERT INTO int_pos_vote SELECT $campaign, $task, $corpus, ref_unit, tag, "
                    "votes FROM pos_tally WHERE tag IS NOT NULL", key)
        con.execute("INSERT INTO int_pos_voter SELECT $campaign, $task, $corpus, ref_unit, "
                    "sum(voters)::BIGINT FROM pos_tally GROUP BY ALL", key)
    con.execute("DROP TABLE IF EXISTS pos_tally")


# voting cases aggregated at once: a coarse tagset projects a case on several tags, and a
# million cases' votes grouped in one statement once outgrew DuckDB's 512 MB buffer. Each slice
# reads every case file again: the POS bench's full count (10 M cases, 35 M votes) took 7.1 s
# in 42 slices of 250,000, 5.1 s in 14 of 750,000, 6.1 s in 7 of 1.5 M (the buffer spills),
# the same tally, the run's process no bigger (by hand, on a copy of its warehouse)
CASES_PER_SLICE = 750_000


def _slices(con, cases: str, key: dict | None = None) -> list[tuple[int, int]]:
    """Ranges ``[lo, hi)`` of reference units cutting the cases ``cases`` (ref_unit, ...) into
    slices of about :data:`CASES_PER_SLICE` cases (units evenly spread assumed): the votes of a
    reference unit all fall in one slice, so the tally made slice by slice is the same."""
    n, top = con.execute(f"SELECT count(*), max(ref_unit) FROM ({cases})", key or {}).fetchone()
    if not n:
        return []
    step = top // -(-n // CASES_PER_SLICE) + 1
    return [(lo, lo + step) for lo in range(0, top + 1, step)]


def _within(cases: str, lo: int, hi: int) -> str:
    """The cases ``cases`` of the reference units in ``[lo, hi)``."""
    return f"SELECT * FROM ({cases}) WHERE ref_unit >= {lo} AND ref_unit < {hi}"


def _case_file(ctx: RunContext, task: Task, corpus: str, system: str, state: str) -> str | None:
    """The Parquet file of a unit's cases in the local unit store (None: not there)."""
    store = ctx.store
    if store is None or not store.local:
        return None
    key = unit_key(ctx.campaign.id, task.id, corpus, system, state)
    manifest = store.manifest(key)
    path = store.files(key, manifest).get("int_pos_case") if manifest is not None else None
    return path if path is not None and Path(path).exists() else None


def _cases(con, files: list[str]) -> str:
    """The evaluable absolute cases (ref_unit, projected) of the units' case ``files``."""
    if not files:
        return _NO_CASES
    return (f"SELECT ref_unit, projected FROM ({resident.file_rows(con, 'int_pos_case', files)}) "
            "WHERE evaluation = 'absolute' AND noneval IS NULL")


def _apply(con, key: dict, added: str, removed: str) -> None:
    """Add the votes and voters of the ``added`` cases to the tally, take those of the
    ``removed`` cases away, and list the reference units whose tally moved: a slice of
    reference units at a time (:func:`_slices`). A case both added and removed (a revised
    submission's unchanged cases: most of them) is left out first, in one pass over the case
    files: its votes and voter would cancel exactly (fixed point), so the tally is the same."""
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE pos_case_delta AS
        SELECT ref_unit, projected, sum(n)::BIGINT AS n
        FROM (SELECT ref_unit, projected, 1 AS n FROM ({added})
              UNION ALL SELECT ref_unit, projected, -1 AS n FROM ({removed}))
        GROUP BY ALL HAVING sum(n) <> 0""")
    added, removed = (f"SELECT ref_unit, projected FROM (SELECT ref_unit, projected, "
                      f"unnest(range({n})) FROM pos_case_delta WHERE {n} > 0)"
                      for n in ("n", "-n"))
    both = f"SELECT ref_unit FROM ({added}) UNION ALL SELECT ref_unit FROM ({removed})"
    for lo, hi in _slices(con, both):
        _apply_slice(con, key, _within(added, lo, hi), _within(removed, lo, hi))
    con.execute(f"DELETE FROM mart_pos_consensus WHERE {_KEY} "
                "AND ref_unit IN (SELECT ref_unit FROM pos_vote_changed)", key)
    con.execute("DROP TABLE pos_case_delta")


def _apply_slice(con, key: dict, added: str, removed: str) -> None:
    """:func:`_apply` on one slice of reference units."""
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE pos_vote_delta AS
        SELECT ref_unit, tag, sum(vote) AS votes
        FROM ({_votes(added)} UNION ALL {_votes(removed, '-')})
        GROUP BY ALL HAVING sum(vote) <> 0""")
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE pos_voter_delta AS
        SELECT ref_unit, sum(n)::BIGINT AS voters
        FROM (SELECT ref_unit, 1 AS n FROM ({added})
              UNION ALL SELECT ref_unit, -1 AS n FROM ({removed}))
        GROUP BY ALL HAVING sum(n) <> 0""")
    for table, value, on in (("int_pos_vote", "votes", "ref_unit, tag"),
                             ("int_pos_voter", "voters", "ref_unit")):
        delta = "pos_vote_delta" if table == "int_pos_vote" else "pos_voter_delta"
        match = " AND ".join(f"t.{c} = d.{c}" for c in on.split(", "))
        con.execute(f"UPDATE {table} t SET {value} = t.{value} + d.{value} FROM {delta} d "
                    f"WHERE {_on('t')} AND {match}", key)
        con.execute(f"INSERT INTO {table} SELECT $campaign, $task, $corpus, d.* "
                    f"FROM {delta} d ANTI JOIN (SELECT {on} FROM {table} WHERE {_KEY}) t "
                    f"USING ({on})", key)
        con.execute(f"DELETE FROM {table} WHERE {_KEY} AND {value} = 0", key)
        con.execute(f"INSERT INTO pos_vote_changed SELECT DISTINCT ref_unit FROM {delta}")
        con.execute(f"DROP TABLE {delta}")


def line_prefixes(tokens: pl.DataFrame, units: pl.DataFrame) -> pl.DataFrame:
    """Each token of a reference (``tokens``: tok, doc, genre, sent, form) that has a minimal
    unit (``units``: unit, tok) as its line of the consensus file begins: ``tok``, its first
    ``unit`` and ``prefix``, the blank line and headers where the document or the sentence
    changes, then ``form<TAB>`` (``int_pos_ref_line``; :func:`write_consensus` adds the tag)."""
    col, lit, none = pl.col, pl.lit, pl.lit("")
    first = units.group_by("tok").agg(col("unit").min())
    rows = (tokens.select(col("tok").cast(pl.Int64), "doc", "genre", "sent", "form")
            .join(first.with_columns(col("tok").cast(pl.Int64)), on="tok").sort("tok"))
    doc, sent = col("doc").shift(1), col("sent").shift(1)
    new_doc = doc.is_null() | (col("doc") != doc)
    new_sent = new_doc | (col("sent") != sent)
    return rows.select("tok", "unit", pl.concat_str([
        pl.when(new_doc).then(pl.concat_str([
            pl.when(doc.is_null()).then(none).otherwise(lit("\n")),
            pl.format("# doc = {}\n", col("doc")),
            pl.when(col("genre") != "").then(pl.format("# genre = {}\n", col("genre")))
            .otherwise(none)])).otherwise(none),
        pl.when(new_sent).then(pl.concat_str([
            pl.when(new_doc).then(none).otherwise(lit("\n")),
            pl.format("# sent = {}\n", col("sent"))])).otherwise(none),
        col("form"), lit("\t")]).alias("prefix"))


def write_consensus(con, campaign_id: str, task: str, corpus: str, path: Path) -> Path:
    """Write the consensus annotation in the GRACE reference format: one line per reference token
    with the consensus tag of its first unit (the tag with most votes; ``X`` without one) and
    document headers. Each line's beginning is the reference's, derived with its units
    (:func:`line_prefixes`, ``int_pos_ref_line``); the lines stream from DuckDB in batches,
    each given its tags and written by Polars in one piece: a corpus's lines are never held in
    memory, nor a Python object made per token (its tags are, a reference unit each)."""
    key = [campaign_id, task, corpus]
    tags = frame(con, "SELECT ref_unit, tag FROM mart_pos_consensus WHERE campaign = ? "
                      "AND task = ? AND corpus = ? ORDER BY ref_unit", key)
    batches = con.sql("""
        SELECT l.unit, l.prefix FROM int_pos_ref_line l
        JOIN cat_input_current i ON i.sha256 = l.sha256 AND i.campaign = ? AND i.task = ?
         AND i.corpus = ? AND i.system = '' AND i.role = 'reference'
        ORDER BY l.tok""", params=key).to_arrow_reader(BATCH)
    col, written = pl.col, False
    with path.open("w", encoding="utf-8") as out:
        for batch in batches:
            rows = pl.from_arrow(batch)
            if not rows.height:
                continue
            # the tags of the batch's units: a slice of the sorted tags, not all of them
            lo, hi = (tags["ref_unit"].search_sorted(rows["unit"].min(), "left"),
                      tags["ref_unit"].search_sorted(rows["unit"].max(), "right"))
            rows = rows.join(tags.slice(lo, hi - lo), left_on="unit", right_on="ref_unit",
                             how="left", maintain_order="left")
            out.write(rows.select(pl.concat_str([
                col("prefix"),
                pl.when(col("tag").is_null() | (col("tag") == "")).then(pl.lit("X"))
                .otherwise(col("tag")), pl.lit("\n")]).str.join(""))[0, 0])
            written = True
        if not written:
            out.write("\n")  # no token: one empty line, as before
    return path
