"""The systems a bulletin page may show, in page order, and the rows of a page in that order
(shared by every page but the speech one: coref, parsing, POS, terms).

A page shows published systems only: a withheld participant's systems (``cat_system.label`` NULL)
are left out, an anonymous one's appear under their code (the label), organisers' systems are
shown apart, after the participants and the family's built-in baselines.
"""

from __future__ import annotations

import polars as pl

from scorehouse.reports.i18n import N_, SOURCE, collated
from scorehouse.warehouse.db import frame

GROUPS = ((N_("Participants"), "participant"), (N_("Baselines (built-in)"), "baseline"),
          (N_("Organisers (shown apart)"), "organiser"))  # titles translated on the page


def published_systems(con, key: list, baselines: dict | None = None,
                      language: str = SOURCE) -> pl.DataFrame:
    """Published systems of task ``key`` = [campaign, task] in page order: participants (by label,
    in ``language``'s alphabetical order), the built-in baselines (in the family's order),
    organisers. Columns ``system``, ``label``, ``organiser``, ``baseline``, ``publication``,
    ``group`` and ``_order``. ``baselines`` (id -> (kind, label)) are added when the catalog
    lacks them (it lists them only after a load step)."""
    baselines = baselines or {}
    systems = frame(con, "SELECT s.system, s.label, s.organiser, s.baseline, "
                         "coalesce(p.publication, 'public') AS publication FROM cat_system s "
                         "LEFT JOIN cat_participant p "
                         "ON p.campaign = s.campaign AND p.participant = s.participant "
                         "WHERE s.campaign = ? AND s.task = ? AND s.label IS NOT NULL", key)
    missing = [[b, label, False, True, "public"] for b, (_, label) in baselines.items()
               if b not in set(systems["system"])]
    if missing:
        systems = pl.concat([systems, pl.DataFrame(missing, schema=systems.schema, orient="row")])
    rank = {g: i for i, (_, g) in enumerate(GROUPS)}
    alphabet = {v: i for i, v in enumerate(collated(con, systems["label"].drop_nulls(), language))}
    return (systems.with_columns(pl.when(pl.col("organiser")).then(pl.lit("organiser"))
                                 .when(pl.col("baseline")).then(pl.lit("baseline"))
                                 .otherwise(pl.lit("participant")).alias("group"))
            .with_columns(pl.col("group").replace_strict(rank, return_dtype=pl.Int32).alias("_g"),
                          pl.col("system").replace_strict({b: i for i, b in enumerate(baselines)},
                                                          default=None, return_dtype=pl.Int32)
                          .alias("_b"),
                          pl.col("label").replace_strict(alphabet, default=None,
                                                         return_dtype=pl.Int32).alias("_l"))
            .sort("_g", "_b", "_l", nulls_last=True).drop("_g", "_b", "_l")
            .with_row_index("_order"))


def only_published(rows: pl.DataFrame, systems: pl.DataFrame, *by: str) -> pl.DataFrame:
    """Rows of published systems only, with label, organiser, baseline and group, in page order
    (after the columns ``by``, when given); within a system, in the order of ``rows``, which must
    be a total order (a query's ``ORDER BY`` naming its grain, or ``ORDER BY ALL``): published
    bytes must not depend on thread scheduling."""
    visible = systems.select("system", "label", "organiser", "baseline", "group", "_order")
    return (rows.join(visible, on="system", how="inner", maintain_order="left")
            .sort(*by, "_order", maintain_order=True).drop("_order"))


def in_order(table: pl.DataFrame, column: str, order: list[str]) -> pl.DataFrame:
    """Rows in the given order of ``column`` (values not listed last, alphabetically)."""
    rank = {v: i for i, v in enumerate(order)}
    return table.with_columns(pl.col(column).replace_strict(rank, default=len(rank),
                                                            return_dtype=pl.Int64)
                              .alias("_k")).sort("_k", column, maintain_order=True).drop("_k")


def grouped(rows: list[dict]) -> list[tuple[str, list[dict]]]:
    """Rows split into the page's groups: participants, baselines, organisers (non-empty ones)."""
    return [(title, [r for r in rows if r["group"] == group]) for title, group in GROUPS
            if any(r["group"] == group for r in rows)]


def front(table: pl.DataFrame) -> pl.DataFrame:
    """``table`` with its key columns first (scope, label, kind, way...), for the exported
    files."""
    first = [c for c in ("slice", "corpus", "genre", "type", "label", "organiser", "kind", "mode",
                         "function", "breakdown", "value", "metric")
             if c in table.columns]
    return table.select(*first, *[c for c in table.columns if c not in first])
