"""EASY combined treebank: votes of the submissions on each annotated unit, and the consensus.

Paroubek, Robba, Vilnat, Ayache, *Data, Annotations and Measures in EASY, the Evaluation Campaign
for Parsers of French*, LREC 2006, section 1: the submissions of every participant over one base
are combined into a treebank by vote. :func:`votes` counts, per annotated unit (a constituent or
a relation, with its word-form address ranges as :mod:`scorers.easy` computes them in HYP mode),
how many systems produced it; :func:`consensus_items` writes the units that a majority produced
as an EASY items table (:data:`etl.easy_items.SCHEMA`), resolving overlapping consensus groups by
rounds of a greedy conflict resolution (the only Python loop here).
"""

from __future__ import annotations

import polars as pl

from scorehouse.etl.easy_items import ROLE_FRAME, ROLES, SCHEMA
from scorehouse.scorers.easy import POSITION


def votes(ranges_by_system: pl.DataFrame, systems: int, majority: float = 0.5) -> pl.DataFrame:
    """Combined treebank: votes per annotated unit across submissions (paper, section 1).

    ``ranges_by_system``: HYP-mode :func:`scorers.easy.hypothesis_ranges` of every submission over
    one base, with a ``system`` column. A unit is (sent, kind, type, the tuple of role ranges); a
    system counts once per unit; items with an unaligned (null, non-empty) range are left out.
    Returns ``sent, kind, type, ranges`` (list of struct first/last, in role order), ``attr`` (the
    most frequent s-o / a-propager value among the voters; ties: the smallest), ``votes``,
    ``share`` = votes / systems, ``consensus`` (share > majority), sorted by sent, kind, type,
    ranges. :func:`spelled` of :func:`tally` of each system's :func:`system_units`.
    """
    parts = ranges_by_system.partition_by("system", maintain_order=True) or [ranges_by_system]
    return spelled(tally([system_units(part) for part in parts], systems, majority))


ROLES_AT_MOST = max(len(names) for names in ROLES.values())
# a unit's key in flat columns: its ranges as (length, first and last of each role), which
# group and join faster than the list of structs they spell
UNIT_KEY = ["sent", "kind", "type", "n",
            *(f"{end}{i}" for i in range(ROLES_AT_MOST) for end in ("first", "last"))]


def system_units(ranges: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One submission's part of :func:`tally`, from its HYP-mode ranges (one system's rows of
    :func:`votes`' input): its units once each (what its vote counts: the unit key, which
    spells its ranges) and, per unit and attribute value, how many of its items carry that
    value (``attr``, ``items``: what the attribute's majority counts). Computed one submission
    at a time, so that a corpus's votes never hold every submission's ranges at once."""
    unplaced = (ranges.filter(~pl.col("empty") & pl.col("first").is_null())
                .select("sent", "item").unique())
    units = (ranges.join(unplaced, on=["sent", "item"], how="anti").sort("role_no")
             .group_by("kind", "sent", "item", maintain_order=True)
             .agg(pl.col("type").first(), pl.col("attr").first(), pl.len().alias("n"),
                  *(pl.col(end).get(i, null_on_oob=True).alias(f"{end}{i}")
                    for i in range(ROLES_AT_MOST) for end in ("first", "last"))))
    if units.height and units["n"].max() > ROLES_AT_MOST:
        raise ValueError(f"a relation with more than {ROLES_AT_MOST} roles")
    voted = units.unique(UNIT_KEY).select(UNIT_KEY)
    attr = units.drop_nulls("attr").group_by(*UNIT_KEY, "attr").len("items")
    return voted, attr


def tally(parts: list[tuple[pl.DataFrame | pl.LazyFrame, pl.DataFrame | pl.LazyFrame]],
          systems: int, majority: float = 0.5) -> pl.DataFrame:
    """:func:`votes` from each submission's :func:`system_units`, each unit's ranges left as the
    flat columns of its key (:data:`UNIT_KEY`; :func:`spelled` spells them as a list,
    :func:`ranges_text` as text): the votes of a unit are the submissions that produced it, its
    ``attr`` the value most of their items carry (ties: the smallest). Sorted as :func:`votes`:
    the ends of the ranges in role order, then their number, order the units as their lists do
    (an absent end, like an empty role's, first; a list before its longer extensions). The parts
    may be lazy (the unit store's Parquet files, scanned): they are counted by Polars' streaming
    engine, so the submissions' units are never all in memory at once."""
    attr = (pl.concat([a.lazy() for _, a in parts])
            .group_by(*UNIT_KEY, "attr").agg(pl.col("items").sum().alias("len"))
            .collect(engine="streaming")
            .sort("len", "attr", descending=[True, False])
            .unique(UNIT_KEY, keep="first")
            .drop("len"))
    return (pl.concat([v.lazy() for v, _ in parts]).group_by(UNIT_KEY)  # one plan: 0.2 s less
            .agg(pl.len().cast(pl.UInt32).alias("votes"))
            .join(attr.lazy(), on=UNIT_KEY, how="left", nulls_equal=True)
            .with_columns((pl.col("votes") / systems).alias("share"))
            .with_columns((pl.col("share") > majority).alias("consensus"))
            .select(*UNIT_KEY, "attr", "votes", "share", "consensus")
            .sort(*UNIT_KEY[:3], *_ENDS, "n")
            .collect(engine="streaming"))


_ENDS = UNIT_KEY[4:]  # first0, last0, first1, ...: the ranges' ends in role order


def spelled(units: pl.DataFrame) -> pl.DataFrame:
    """``units`` (of :func:`tally`) with their ``ranges`` (list of struct first/last, in role
    order) in the place of the :data:`UNIT_KEY` columns that spell them."""
    ends = [pl.concat_list([f"{end}{i}" for i in range(ROLES_AT_MOST)]).list.head(pl.col("n"))
            .alias(end) for end in ("first", "last")]
    ranges = (units.select(pl.int_range(pl.len(), dtype=pl.UInt32).alias("unit"), *ends)
              .explode("first", "last")
              .group_by("unit", maintain_order=True).agg(pl.struct("first", "last").alias("ranges"))
              ["ranges"])
    columns = [c for c in units.columns if c not in _ENDS and c != "n"]
    return units.with_columns(ranges).select(*columns[:3], "ranges", *columns[3:])


def ranges_text() -> pl.Expr:
    """The ranges a :data:`UNIT_KEY` spells as text, ``first-last`` per role (``_``: an empty
    role), e.g. ``"3-4 1-2 _"``."""
    roles = [pl.when(pl.col("n") > i).then(
        pl.when(pl.col(f"first{i}").is_null()).then(pl.lit("_"))
        .otherwise(pl.format("{}-{}", f"first{i}", f"last{i}")))
        for i in range(ROLES_AT_MOST)]
    return pl.concat_str(roles, separator=" ", ignore_nulls=True)


def consensus_items(votes: pl.DataFrame, base: pl.DataFrame) -> pl.DataFrame:
    """The consensus units of :func:`votes` as an EASY items table over the ``base`` forms.

    Groups get fresh ids ``<sent>G<n>`` (numbered left to right) and cover their range. Consensus
    groups must not overlap: conflicts go to more votes first, then the leftmost (then the shorter,
    then the type name), i.e. greedily in that order (computed in rounds: a group no better-ranked
    pending group overlaps is kept, the groups it overlaps are dropped). A relation role targets the
    kept group with exactly that range, else the form when the range is one form; a relation with a
    role that neither gives is skipped (no item of the scheme names that range). Relations get
    fresh ids ``<sent>R<n>``. ``line_no`` is null. Rows in sentence order, each group just before
    its forms, relations last.
    """
    cons = votes.filter(pl.col("consensus"))
    groups = _kept_groups(cons.filter(pl.col("kind") == "constituent").select(
        "sent", "type", "votes", pl.col("ranges").list.first().struct.field("first").alias("first"),
        pl.col("ranges").list.first().struct.field("last").alias("last")))
    groups = (groups.sort("sent", "first")
              .with_columns(pl.format("{}G{}", "sent", pl.int_range(1, pl.len() + 1).over("sent"))
                            .alias("item")))
    forms = (base.filter(pl.col("kind") == "form")
             .select("sent_no", "sent", "item", pl.col("form_no").cast(POSITION), "form"))
    sent_no = forms.select("sent", "sent_no").unique("sent")
    covered = groups.select(
        "sent", pl.col("item").alias("parent"),
        pl.int_ranges("first", pl.col("last") + 1, dtype=POSITION).alias("form_no"),
    ).explode("form_no")
    forms = forms.join(covered, on=["sent", "form_no"], how="left", maintain_order="left")
    rel = (cons.filter(pl.col("kind") == "relation").with_row_index("u")
           .with_columns(pl.int_ranges(pl.col("ranges").list.len(), dtype=pl.Int8).alias("role_no"))
           .explode("ranges", "role_no").with_columns(pl.col("ranges").struct.unnest()))
    by_group = groups.select("sent", "first", "last", pl.col("item").alias("g_target"))
    by_form = forms.select("sent", pl.col("form_no").alias("first"),
                           pl.col("item").alias("f_target"))
    rel = (rel.join(by_group, on=["sent", "first", "last"], how="left", maintain_order="left")
           .join(by_form, on=["sent", "first"], how="left", maintain_order="left")
           .with_columns(pl.coalesce("g_target", pl.when(pl.col("first") == pl.col("last"))
                                     .then(pl.col("f_target"))).alias("target")))
    unresolved = (rel.filter(pl.col("target").is_null() & pl.col("first").is_not_null())
                  .select("u").unique())
    rel = (rel.join(unresolved, on="u", how="anti")
           .join(ROLE_FRAME, on=["type", "role_no"], how="left")
           .with_columns(pl.format("{}R{}", "sent", pl.col("u").rank("dense").over("sent"))
                         .alias("item")))
    # _at, _sub: document order (a group just before its first form, relations last)
    rows = pl.concat([
        groups.select("sent", pl.lit("group").alias("kind"), "item", "type",
                      pl.col("first").alias("_at"), pl.lit(0).alias("_sub")),
        forms.select("sent", pl.lit("form").alias("kind"), "item", "form_no", "form", "parent",
                     pl.col("form_no").alias("_at"), pl.lit(1).alias("_sub")),
        rel.select("sent", pl.lit("relation").alias("kind"), "item", "type", "role", "role_no",
                   "target", "attr", (pl.col("u").cast(pl.Int64) + 2**40).alias("_at"),
                   pl.col("role_no").alias("_sub"))],
        how="diagonal_relaxed")
    schema = pl.from_arrow(SCHEMA.empty_table()).schema
    return (rows.join(sent_no, on="sent").sort("sent_no", "_at", "_sub")
            .with_columns(pl.lit(None).alias("line_no"))
            .select([pl.col(c).cast(t) for c, t in schema.items()]))


def _kept_groups(groups: pl.DataFrame) -> pl.DataFrame:
    """Non-overlapping subset of consensus groups, greedy by (votes desc, first, last, type)."""
    pending = groups.sort(["votes", "first", "last", "type"],
                          descending=[True, False, False, False]).with_row_index("rank")
    kept = []
    while pending.height:
        pairs = (pending.join(pending, on="sent", suffix="_o")
                 .filter((pl.col("rank") != pl.col("rank_o"))
                         & (pl.col("first") <= pl.col("last_o"))
                         & (pl.col("first_o") <= pl.col("last"))))
        beaten = pairs.filter(pl.col("rank_o") < pl.col("rank")).select("rank").unique()
        winners = pending.join(beaten, on="rank", how="anti")
        dropped = (pairs.join(winners.select(pl.col("rank").alias("rank_o")), on="rank_o")
                   .select("rank").unique())
        kept.append(winners)
        pending = pending.join(winners, on="rank", how="anti").join(dropped, on="rank", how="anti")
    return pl.concat(kept).drop("rank") if kept else groups
