"""Rank ranges of the systems an artefact shows (scorers/ranking.py), from the paired tests the
warehouse stores: a withheld system's tests are left out, so it takes no rank from anyone, and
the ranks run from 1 to the number of systems shown. Every page and the leaderboard export
(:mod:`warehouse.export`) rank with this one function (:mod:`warehouse.published`)."""

from __future__ import annotations

import math

import polars as pl

from scorehouse.scorers import ranking

COLUMNS = {"rank_best": pl.Int64, "rank_worst": pl.Int64}


def with_ranks(scores: pl.DataFrame, tests: pl.DataFrame, groups: list[str], score: str,
               higher_is_better: bool = True, where: pl.Expr | None = None) -> pl.DataFrame:
    """``scores`` (one row per shown system and group) with ``rank_best`` and ``rank_worst``:
    the systems of each group (``groups`` columns, e.g. corpus and method) ranked by ``score``
    with the tests of ``tests`` (the same group columns, ``system_a``, ``system_b``, ``delta`` =
    score(a) - score(b), ``p_value``) between shown systems. Rows whose group has no test get
    ranks too (every shown system shares every rank). ``where``: the rows that are ranked (the
    tests' slice, e.g. whole corpora); the others get no rank."""
    if where is not None and scores.height:
        index = pl.int_range(pl.len()).alias("_row")
        mine = scores.with_columns(index)
        ranked = with_ranks(mine.filter(where), tests, groups, score, higher_is_better)
        return mine.join(ranked.select("_row", *COLUMNS), on="_row", how="left",
                         maintain_order="left").drop("_row")
    if not scores.height:
        return scores.with_columns(*(pl.lit(None, t).alias(c) for c, t in COLUMNS.items()))
    found = []
    by_group = tests.partition_by(groups, as_dict=True) if tests.height else {}  # split once
    for values, part in scores.group_by(groups, maintain_order=True):
        index = {s: i for i, s in enumerate(part["system"])}
        mine = by_group.get(tuple(values))
        pairs = [ranking.Paired(index[t["system_a"]], index[t["system_b"]], t["delta"], 0, 0,
                                math.nan if t["p_value"] is None else t["p_value"])
                 for t in (mine.iter_rows(named=True) if mine is not None else ())
                 if t["system_a"] in index and t["system_b"] in index and t["delta"] is not None]
        point = part[score].cast(pl.Float64).fill_null(math.nan).to_numpy()
        ranges = ranking.rank_ranges(point, pairs, higher_is_better)
        found += [(*values, system, *r) for system, r in zip(part["system"], ranges)]
    ranks = pl.DataFrame(found, orient="row", schema={
        **{g: scores.schema[g] for g in groups}, "system": pl.String, **COLUMNS})
    return scores.join(ranks, on=[*groups, "system"], how="left", maintain_order="left")
