"""The built-in baselines of a ``pos`` task (GRACE's "minimalist approaches"): ``baseline-lexical``
and ``baseline-heur-rnd``, built from the training corpus on the reference's tokenisation and
scored as any submission (:mod:`warehouse.families.pos`)."""

from __future__ import annotations

import numpy as np
import polars as pl

from scorehouse.reports.i18n import N_
from scorehouse.warehouse import resident
from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import (
    RunContext,
    current_inputs,
    declare_baselines,
    fingerprint,
)
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.staging import Slot, StagedRows, stage_table

BASELINES = {"baseline-lexical": N_("Baseline: Lexical"),  # labels translated where shown
             "baseline-heur-rnd": N_("Baseline: Heur+Rnd")}


def declare(ctx: RunContext, task: Task) -> None:
    """Declare the built-in baselines in the catalog (every run, whatever its steps)."""
    if not (task.options.get("baselines", True)
            and any("training" in c.files for c in task.corpora)):
        return
    declare_baselines(ctx, task, BASELINES, "the training corpus")


def load_baselines(ctx: RunContext, task: Task, corpus: str, staged: StagedRows) -> None:
    """Lexical (every tag the training lexicon gives the form) and Heur+Rnd (one of them drawn with
    the campaign seed), on the reference's tokenisation; unknown forms get the most frequent tag;
    staged as submissions (``staged``: the family's staged tokens)."""
    inputs = current_inputs(ctx.con, ctx.campaign.id, task.id)
    ref_sha, train_sha = inputs.get((corpus, "", "reference")), inputs.get((corpus, "", "training"))
    if ref_sha is None or train_sha is None:
        return
    shas = {sid: fingerprint({"baseline": sid, "reference": ref_sha, "training": train_sha,
                              # the seed draws Heur+Rnd's tags; Lexical does not depend on it
                              "seed": ctx.campaign.seed if sid == "baseline-heur-rnd" else None})
            for sid in BASELINES}
    latest = dict(ctx.con.execute(
        "SELECT system, sha256 FROM cat_input_latest WHERE campaign = ? AND task = ? "
        "AND corpus = ? AND role = 'submissions'", [ctx.campaign.id, task.id, corpus]).fetchall())
    lost = resident.lost_staged(ctx.con)
    if all(latest.get(sid) == sha and sha not in lost for sid, sha in shas.items()):
        return  # the baselines of this reference and training corpus are staged already
    ref = frame(ctx.con, "SELECT tok, line_no, doc, genre, sent, form FROM stg_pos_token "
                         "WHERE sha256 = ? ORDER BY tok", [ref_sha])
    train = frame(ctx.con, "SELECT form, tags FROM stg_pos_token WHERE sha256 = ?", [train_sha])
    for sid, table in lexical_baselines(ref, train, ctx.campaign.seed).items():
        stage_table(ctx, Slot(task.id, corpus, sid, "submissions"), f"(built-in {BASELINES[sid]})",
                    shas[sid], table.to_arrow(), staged)


def lexical_baselines(ref: pl.DataFrame, train: pl.DataFrame, seed: int) -> dict[str, pl.DataFrame]:
    """The GRACE "minimalist approaches" as submissions: ``baseline-lexical`` (ambiguous lexicon
    lookup: the form, else its lower-cased form, else the most frequent tag) and
    ``baseline-heur-rnd`` (one of those tags drawn at random, seeded)."""
    long = train.explode("tags")
    most_frequent = long.group_by("tags").len().sort(
        ["len", "tags"], descending=[True, False])["tags"][0]
    exact = long.group_by("form").agg(pl.col("tags").unique().sort().alias("lex"))
    lower = (long.with_columns(pl.col("form").str.to_lowercase()).group_by("form")
             .agg(pl.col("tags").unique().sort().alias("lex_lower")))
    looked = (ref.join(exact, on="form", how="left")
              .join(lower, left_on=pl.col("form").str.to_lowercase(), right_on="form", how="left",
                    suffix="_l")
              .with_columns(pl.coalesce("lex", "lex_lower", pl.lit([most_frequent])).alias("tags"))
              .select("tok", "line_no", "doc", "genre", "sent", "form", "tags").sort("tok"))
    rng = np.random.default_rng([seed, 20260])
    lengths = looked["tags"].list.len().to_numpy()
    pick = (rng.random(len(lengths)) * lengths).astype(np.int64)
    random = (looked
              .with_columns(pl.col("tags").list.get(pl.Series(pick)).cast(pl.String).alias("one"))
              .with_columns(pl.concat_list("one").alias("tags")).drop("one"))
    return {"baseline-lexical": looked, "baseline-heur-rnd": random}
