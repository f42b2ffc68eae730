"""Bootstrap intervals and paired tests of the ``pos`` task family (GRACE: Adda, Mariani,
Paroubek, Rajman and Lecomte, "Métrique et premiers résultats de l'évaluation GRACE des
étiqueteurs morphosyntaxiques pour le français", TALN 1999): 95 % intervals of precision P,
decision D and Pmoy by sentence, summed from ``fct_pos_sentence``, and the paired tests and rank
ranges of the systems by P and Pmoy (Koehn, "Statistical Significance Tests for Machine
Translation Evaluation", 2004, section 5). A reduce that ``warehouse/families/pos.py`` runs per
corpus once its units are scored.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from scorehouse.scorers import bootstrap, ranking
from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext, replace_rows
from scorehouse.warehouse.db import insert_rows, registered
from scorehouse.warehouse.resampled import ResampledTotals

MEASURES = {  # measure -> (numerator columns, denominator columns) over fct_pos_sentence
    "P": (("OK",), ("OK", "ERR")),
    "D": (("OK", "ERR"), ("nbCas", "-NONEVAL")),
    "Pmoy": (("OK", "SILOK_moy"), ("nbCas", "-NONEVAL")),
}
RANKED = ("P", "Pmoy")  # D, the share of cases decided, is a trait of a system, not a quality


def intervals(ctx: RunContext, task: Task, corpus: str) -> None:
    """95 % bootstrap intervals of P, D and Pmoy by sentence, every system and variant on the
    same resamples (campaign seed). Each measure's numerator and denominator are summed in SQL
    and each row's sentence and variant come numbered, by a join on DuckDB's hash of their
    keys (:func:`_numbered`; joining the strings to number them cost twice the read): the
    coordinator holds numbers only."""
    campaign = ctx.campaign
    key = [campaign.id, task.id, corpus]
    sums = {f"{side}_{m}": " + ".join(f"-{c[1:]}" if c.startswith("-") else c for c in cols)
            for m, pair in MEASURES.items() for side, cols in zip(("num", "den"), pair)}
    # each distinct sum once: D's numerator is P's denominator, Pmoy's denominator is D's
    sides = list(dict.fromkeys(sums.values()))
    side = {name: sides.index(sql) for name, sql in sums.items()}
    variants, variant_of = _numbered(ctx.con, key, "system, evaluation, granularity")
    if not variants:
        for table in ("mart_pos_interval", "mart_pos_paired"):
            ctx.con.execute(f"DELETE FROM {table} WHERE campaign = ? AND task = ? AND corpus = ?",
                            key)
        ResampledTotals.forget(ctx.con, *key)
        return
    units, unit_of = _numbered(ctx.con, key, "doc, sent")
    numbers = ", ".join(f"({sql})::DOUBLE AS s{i}" for i, sql in enumerate(sides))
    tables = [np.zeros((len(units), len(variants))) for _ in sides]  # sums of integers: exact
    hashed = unit_of is not None and variant_of is not None
    # with hashes, each row's sentence and variant numbered by its hash
    with registered(ctx.con, **({"pos_interval_units": unit_of,
                                 "pos_interval_variants": variant_of} if hashed else {})):
        batches = _counts(ctx.con, key, numbers, hashed)
        for batch in batches.to_arrow_reader(100_000):  # numbers only, in batches
            unit, variant = (batch.column(c).to_numpy() for c in ("unit", "variant"))
            cells = unit * len(variants) + variant
            for i, table in enumerate(tables):
                np.add.at(table.reshape(-1), cells, batch.column(f"s{i}").to_numpy())
    rows, pairs = [], []
    stamp = [campaign.bootstrap, campaign.seed]
    store = ctx.store  # a local store keeps the weights' draw: read, not drawn, next time
    cache = ResampledTotals(ctx.con, campaign.id, task.id, corpus, f"{store.root}/weights"
                            if store is not None and store.local else None)
    stream = f"{task.id}/{corpus}"
    # every measure's tables on one drawing of the weights (each table's totals are its own:
    # the same as drawn measure by measure, a third of the drawing)
    totals = cache.totals(tables, campaign.bootstrap, campaign.seed, stream)
    for measure in MEASURES:
        num, den = side[f"num_{measure}"], side[f"den_{measure}"]
        ci = bootstrap.ratio_intervals_of(tables[num], tables[den], campaign.bootstrap,
                                          campaign.seed, stream=stream,
                                          totals=lambda *_, n=num, d=den: (totals[n], totals[d]))
        ranks: dict[int, tuple] = {}
        if measure in RANKED:  # the systems of each evaluation x granularity
            tested, ranks = ranking.rank_variants(variants, ci.point, ci.samples)
            pairs += [[*key, *variant, measure, a, b, *map(bootstrap.finite, figures), *stamp]
                      for variant, a, b, figures in tested]
        for i, variant in enumerate(variants):
            rows.append([*key, *variant, measure,
                         *(bootstrap.finite(x[i]) for x in (ci.point, ci.low, ci.high)), *stamp,
                         *ranks.get(i, (None, None))])
    tables_ = ("mart_pos_interval", "mart_pos_paired")

    def write() -> None:
        insert_rows(ctx.con, "INSERT INTO mart_pos_interval VALUES "
                             "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        insert_rows(ctx.con, "INSERT INTO mart_pos_paired VALUES "
                             "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", pairs)
        cache.save()
    replace_rows(ctx.con, dict(zip(("campaign", "task", "corpus"), key)), tables_, write)


_COUNTS = "FROM fct_pos_sentence WHERE campaign = ? AND task = ? AND corpus = ?"


def _counts(con, key: list, numbers: str, hashed: bool):
    """The corpus's sentence counts as (unit, variant, the sums ``numbers``), each row's
    sentence and variant numbered by a join on its hash with the registered tables of
    :func:`_numbered` (``hashed``), else, when two values share a hash, by their strings (the
    same numbers, slower)."""
    if hashed:
        return con.sql(f"""
            SELECT u.number AS unit, v.number AS variant, {numbers}
            FROM ({_COUNTS}) f
            JOIN pos_interval_units u ON u.hash = hash(f.doc, f.sent)
            JOIN pos_interval_variants v ON v.hash = hash(f.system, f.evaluation, f.granularity)""",
                       params=key)
    return con.sql(f"""
        WITH f AS ({_COUNTS}),
        s AS (SELECT doc, sent, row_number() OVER (ORDER BY doc, sent) - 1 AS unit
              FROM (SELECT DISTINCT doc, sent FROM f)),
        v AS (SELECT system, evaluation, granularity,
                     row_number() OVER (ORDER BY system, evaluation, granularity) - 1
                     AS variant
              FROM (SELECT DISTINCT system, evaluation, granularity FROM f))
        SELECT unit, variant, {numbers}
        FROM f JOIN s USING (doc, sent) JOIN v USING (system, evaluation, granularity)""",
                   params=key)


def _numbered(con, key: list, columns: str) -> tuple[list[tuple], pa.Table | None]:
    """The distinct values of ``columns`` in a corpus's sentence counts, sorted (the tables'
    rows or columns, in that order), and a table of DuckDB's ``hash`` of those columns beside
    each value's number there (``hash``, ``number``), which the counts' query joins (a join in
    DuckDB, not one in Polars per batch: the POS bench's intervals, nothing changed, 0.51-0.75
    -> 0.45-0.81 s, medians 0.52-0.58 -> 0.49-0.52 s, seven runs each, twice, by hand);
    None in its place when two values share a hash."""
    rows = con.execute(f"SELECT {columns}, hash({columns}) FROM (SELECT DISTINCT {columns} "
                       f"{_COUNTS}) ORDER BY ALL", key).fetchall()
    hashes = pl.Series("hash", [r[-1] for r in rows], dtype=pl.UInt64)
    if hashes.is_duplicated().any():
        return [r[:-1] for r in rows], None
    return [r[:-1] for r in rows], pa.table({"hash": hashes.to_arrow(),
                                              "number": np.arange(len(rows), dtype=np.int64)})
