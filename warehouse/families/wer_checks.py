"""The checks a WER input passes before it is staged (warehouse/families/wer.py): a reference
holds utterances, a submission names only the reference's utterance ids."""

from __future__ import annotations

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError


def utterances_in(reference: pa.Table, path) -> None:
    """Reject a reference without any utterance (an empty file, comments only): nothing could
    be scored on its corpus (N = 0), and the corpus would vanish from its page unexplained; a
    rejected reference is said there."""
    if reference.num_rows == 0:
        raise InputError(path, None, "reference utterances", "none (no utterance line)")


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
