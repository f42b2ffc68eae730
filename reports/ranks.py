"""Rank ranges of the systems an artefact shows (scorers/ranking.py), from the paired tests the
warehouse stores: a withheld system's tests are left out, so it takes no rank from anyone, and
the ranks run from 1 to the number of systems shown. Every page and the leaderboard export
(:mod:`warehouse.export`) rank with this one function (:mod:`warehouse.published`)."""

from __future__ import annotations

import math

import polars as pl

COLUMNS = {"rank_best": pl.Int64, "rank_worst": pl.Int64}
ALPHA = 0.05  # a test separates two systems below this p-value (scorers.ranking.rank_ranges)


def with_ranks(scores: pl.DataFrame, tests: pl.DataFrame, groups: list[str], score: str,
               higher_is_better: bool = True, where: pl.Expr | None = None) -> pl.DataFrame:
    """``scores`` (one row per shown system and group) with ``rank_best`` and ``rank_worst``:
    the systems of each group (``groups`` columns, e.g. corpus and method) ranked by ``score``
    with the tests of ``tests`` (the same group columns, ``system_a``, ``system_b``, ``delta`` =
    score(a) - score(b), ``p_value``) between shown systems. Rows whose group has no test get
    ranks too (every shown system shares every rank); rows with a null group key get none.
    One row out per row in (a system twice in a group is counted twice among its ``k``).
    ``where``: the rows that are ranked (the tests' slice, e.g. whole corpora); the others get
    no rank."""
    if where is not None and scores.height:
        index = pl.int_range(pl.len()).alias("_row")
        mine = scores.with_columns(index)
        ranked = with_ranks(mine.filter(where), tests, groups, score, higher_is_better)
        return mine.join(ranked.select("_row", *COLUMNS), on="_row", how="left",
                         maintain_order="left").drop("_row")
    if not scores.height:
        return scores.with_columns(*(pl.lit(None, t).alias(c) for c, t in COLUMNS.items()))
    on = dict(on=groups, nulls_equal=True)
    keyed = pl.all_horizontal(*(pl.col(g).is_not_null() for g in groups))  # a null key: no rank
    shown = scores.select(*groups, "system", pl.col(score).cast(pl.Float64).fill_null(math.nan)
                          .is_nan().alias("unscored"))
    # scorers.ranking.rank_ranges, for every group at once: i is better than j when a test
    # between shown systems separates them (p < alpha, in the direction of delta; a NaN delta
    # counts for the second system, as there), and every scored system is better than each
    # unscored one; a system ranks 1 + the systems better than it, k - those worse.
    edges = [shown.filter(~pl.col("unscored")).join(shown.filter(pl.col("unscored")), **on)
             .select(*groups, pl.col("system").alias("winner"),
                     pl.col("system_right").alias("loser"))]
    if tests.height:
        delta, p = pl.col("delta"), pl.col("p_value")
        first = (1.0 if higher_is_better else -1.0) * delta > 0
        names = shown.select(*groups, "system")
        tested = (tests.select(*groups, "system_a", "system_b", "delta", "p_value")
                  .cast({g: scores.schema[g] for g in groups})
                  .join(names.rename({"system": "system_a"}), on=[*groups, "system_a"],
                        how="semi", nulls_equal=True)
                  .join(names.rename({"system": "system_b"}), on=[*groups, "system_b"],
                        how="semi", nulls_equal=True)
                  .filter(delta.is_not_null() & p.is_not_null() & ~p.is_nan()
                          & (p < ALPHA) & (delta != 0)))
        edges.append(tested.select(
            *groups, pl.when(first & ~delta.is_nan()).then("system_a").otherwise("system_b")
            .alias("winner"),
            pl.when(first & ~delta.is_nan()).then("system_b").otherwise("system_a")
            .alias("loser")))
    edges = pl.concat(edges).unique()
    above = edges.group_by(*groups, pl.col("loser").alias("system")).agg(pl.len().alias("_a"))
    below = edges.group_by(*groups, pl.col("winner").alias("system")).agg(pl.len().alias("_b"))
    size = scores.group_by(groups).agg(pl.len().alias("_k"))
    return (scores.join(size, how="left", maintain_order="left", **on)
            .join(above, on=[*groups, "system"], how="left", maintain_order="left",
                  nulls_equal=True)
            .join(below, on=[*groups, "system"], how="left", maintain_order="left",
                  nulls_equal=True)
            .with_columns(*(pl.when(keyed).then(rank).cast(pl.Int64).alias(name)
                            for name, rank in (("rank_best", 1 + pl.col("_a").fill_null(0)),
                                               ("rank_worst",
                                                pl.col("_k") - pl.col("_b").fill_null(0)))))
            .drop("_k", "_a", "_b"))


def ranks_onto(table: pl.DataFrame, ranked: pl.DataFrame, on: list[str]) -> pl.DataFrame:
    """``table`` with the rank range (``rank_best``, ``rank_worst``) of each of its rows that
    ``ranked`` ranks (rows of :func:`with_ranks`, as a page shows them), matched on the columns
    ``on`` (one ranked row per key), null for the others: the table a page exports carries the
    ranks the page shows."""
    found = ranked.filter(pl.col("rank_best").is_not_null()).select(*on, *COLUMNS)
    return table.join(found, on=on, how="left", maintain_order="left", nulls_equal=True,
                      validate="m:1")
