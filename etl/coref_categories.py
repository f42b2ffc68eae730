"""The side TSV of mention categories (pronoun, proper, nominal, ...) for CoNLL-2012 files, whose
coreference column carries none: its schema (:data:`CATEGORIES_SCHEMA`) and its reader
(:func:`read_mention_categories`), beside the readers of :mod:`etl.coref`. The family restricts the
mention set E and the partitions P_K and P_R to one category, as Popescu-Belis, *Évaluation
numérique de la résolution de la référence : critiques et propositions*, section 5.4 (limitation
to a subset of referring expressions), proposes. Format, every check and its message:
docs/formats_coref.md, section 4. Errors are :class:`etl.errors.InputError`.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError, shorten
from scorehouse.etl.lines import first_error
from scorehouse.etl.lines import lines as read_lines

CATEGORIES_SCHEMA = pa.schema([("doc", pa.string()), ("start", pa.int32()), ("end", pa.int32()),
                               ("category", pa.string())])


def read_mention_categories(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read the side TSV of mention categories (header naming ``doc``, ``start``, ``end`` and
    ``category``, other columns ignored) into :data:`CATEGORIES_SCHEMA`, one row per span; the
    family joins it to the mentions of a CoNLL-2012 file on (doc, start, end)."""
    path = Path(path)
    frame = read_lines(path, data).filter(pl.col("raw").str.strip_chars() != "")
    if frame.height == 0:
        raise InputError(path, None, "a header line: doc, start, end, category (TAB-separated)",
                         "an empty file")
    header = frame["raw"][0].split("\t")
    head_line = frame["line_no"][0]
    for column in ("doc", "start", "end", "category"):
        if column not in header:
            raise InputError(path, head_line, f"a column named {column!r} in the header",
                             shorten(frame["raw"][0]))
    if len(set(header)) != len(header):
        raise InputError(path, head_line, "distinct column names", shorten(frame["raw"][0]))
    fields = pl.col("raw").str.split("\t")
    rows = frame.slice(1).with_columns(fields.list.len().alias("n"), *(
        fields.list.get(header.index(c), null_on_oob=True).str.strip_chars().alias(c)
        for c in CATEGORIES_SCHEMA.names))
    candidates: list[tuple[int, str, str]] = []
    for row in rows.filter(pl.col("n") != len(header)).head(1).iter_rows(named=True):
        candidates.append((row["line_no"], f"{len(header)} TAB-separated fields",
                           f"{row['n']}: {shorten(row['raw'])}"))
    rows = rows.filter(pl.col("n") == len(header)).with_columns(
        pl.col("start").cast(pl.Int32, strict=False).alias("s"),
        pl.col("end").cast(pl.Int32, strict=False).alias("e"))
    bad = rows.filter((pl.col("doc") == "") | (pl.col("category") == "") | pl.col("s").is_null()
                      | pl.col("e").is_null() | (pl.col("s") < 0) | (pl.col("s") > pl.col("e")))
    for row in bad.head(1).iter_rows(named=True):
        candidates.append((row["line_no"], "a doc, integers 0 <= start <= end and a category",
                           shorten(row["raw"])))
    spans = rows.filter(pl.col("s").is_not_null() & pl.col("e").is_not_null())  # bad ones flagged
    again = spans.filter(~pl.struct("doc", "s", "e").is_first_distinct())
    for row in again.head(1).iter_rows(named=True):
        first = spans.filter((pl.col("doc") == row["doc"]) & (pl.col("s") == row["s"])
                             & (pl.col("e") == row["e"]))
        candidates.append((row["line_no"], "one category per span",
                           f"{row['doc']} [{row['s']}, {row['e']}] again (first on line "
                           f"{first['line_no'][0]})"))
    first_error(candidates, path)
    return rows.select("doc", pl.col("s").alias("start"), pl.col("e").alias("end"),
                       "category").to_arrow().cast(CATEGORIES_SCHEMA)
