"""The checks a WER submission passes before it is staged (warehouse/families/wer.py): it names
only the reference's utterance ids (a reference holds utterances: ``etl.errors.holding``)."""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError


def check_ids(hyp: pa.Table, ref_ids: pl.Series | None, path) -> None:
    """Reject a submission whose ids are not all in the reference (``ref_ids``), listing the
    first ones in file order."""
    if ref_ids is None:
        return
    unknown = (pl.from_arrow(hyp.select(["line_no", "utt_id"]))
               .join(pl.DataFrame({"utt_id": ref_ids.cast(pl.String)}), on="utt_id", how="anti",
                     maintain_order="left"))
    if unknown.height:
        first = unknown.head(6)["utt_id"].to_list()
        listed = ", ".join(repr(u) for u in first[:5]) + (" ..." if unknown.height > 5 else "")
        raise InputError(path, unknown["line_no"][0], "utterance ids of the reference",
                         f"{unknown.height} unknown id(s): {listed}")


def say_missing(ctx, task: str, corpus: str, systems: list[str]) -> None:
    """A run note per hypothesis file just loaded (of ``systems``) that leaves reference
    utterances out: they are scored as empty hypotheses, all deletions (sclite leaves them out of
    its counts: docs/formats_wer.md); a file cut short (20 of 25 lines: WER 13.4 -> 34.4 %) was
    accepted without a word."""
    from scorehouse.warehouse.campaign import ONE_SHOT
    from scorehouse.warehouse.db import frame

    if not systems or ctx.campaign.id == ONE_SHOT:  # a one-shot's report lists them
        return

    rows = frame(ctx.con, """
        SELECT h.system, h.path, count(*) AS missing
        FROM cat_input_latest h
        JOIN cat_input_current r ON r.campaign = h.campaign AND r.task = h.task
         AND r.corpus = h.corpus AND r.system = '' AND r.role = 'reference'
        JOIN stg_wer_trn u ON u.sha256 = r.sha256
        WHERE h.campaign = ? AND h.task = ? AND h.corpus = ? AND h.role = 'hypotheses'
          AND h.status = 'accepted' AND list_contains(?, h.system)
          AND NOT EXISTS (SELECT 1 FROM stg_wer_trn x
                          WHERE x.sha256 = h.sha256 AND x.utt_id = u.utt_id)
        GROUP BY ALL ORDER BY ALL""", [ctx.campaign.id, task, corpus, systems])
    for system, path, missing in rows.iter_rows():
        ctx.notes.append(f"{task}/{corpus}/{system}: {path}: {missing:,} reference utterance(s) "
                         "without a hypothesis line, scored as empty hypotheses (deletions)")
