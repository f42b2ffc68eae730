"""What the line-oriented readers share: the file's lines as a frame, the first of several
candidate errors, and sentence ids (given by ``# sent``-like comments or numbered per document)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.etl.errors import InputError, decode_utf8
from scorehouse.etl.text import read_bytes


def lines(path: Path, data: bytes | None) -> pl.DataFrame:
    """The file's lines ``(line_no, raw)``, line ends and the BOM removed."""
    text = decode_utf8(path, read_bytes(path) if data is None else data)
    text = text.removesuffix("\n")  # no phantom blank line after the last line end
    raw = pl.Series("raw", [text], dtype=pl.String).str.split("\n").explode().str.strip_suffix("\r")
    return pl.DataFrame([raw]).with_row_index("line_no", offset=1).with_columns(
        pl.col("line_no").cast(pl.Int32))


def first_error(candidates: list[tuple[int, str, str]], path: Path) -> None:
    """Raise the candidate error with the smallest line number, if any."""
    if candidates:
        line, expected, found = min(candidates, key=lambda c: c[0])
        raise InputError(path, line, expected, found)


def name_sentences(rows: pl.DataFrame, candidates: list[tuple[int, str, str]]) -> pl.DataFrame:
    """One row per sentence (rows flagged ``new_sent``): its id ``sent`` (the pending named id,
    else ``<doc>-s<N>`` numbered within the document) and the line naming it ``sent_line``; a
    sentence id repeated within a document is added to ``candidates`` as an error."""
    sentences = (
        rows.filter(pl.col("new_sent"))
        .select("sent_idx", "doc", "line_no", "pending", "pending_line")
        .with_columns(pl.int_range(1, pl.len() + 1).over("doc").alias("n"))
        .with_columns(
            pl.when(pl.col("pending").fill_null("") != "").then(pl.col("pending"))
            .otherwise(pl.format("{}-s{}", pl.col("doc"), pl.col("n"))).alias("sent"),
            pl.when(pl.col("pending").fill_null("") != "").then(pl.col("pending_line"))
            .otherwise(pl.col("line_no")).alias("sent_line"),
        )
    )
    again = sentences.filter(~pl.struct("doc", "sent").is_first_distinct()).head(1)
    if again.height:
        row = again.row(0, named=True)
        first = sentences.filter((pl.col("doc") == row["doc"])
                                 & (pl.col("sent") == row["sent"]))["sent_line"][0]
        candidates.append((row["sent_line"], f"a new sentence id in document {row['doc']!r}",
                           f"{row['sent']!r} again (first on line {first})"))
    return sentences
