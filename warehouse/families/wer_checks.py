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
