"""Tab-separated tables with a header line (utterance metadata, interpretations).

No quoting: a field is everything between two TABs, as in the field's annotation tools. The
header names the columns; ``key`` must be one of them. Every row must have as many fields as the
header, and the key must be unique.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from scorehouse.etl.errors import InputError, decode_utf8, shorten
from scorehouse.etl.text import read_bytes


def read_tsv(path: str | Path, data: bytes | None = None, key: str = "utt_id",
             required: tuple[str, ...] = ()) -> pa.Table:
    """Read a headed TSV (``data``: its bytes, if already read) into an Arrow table of strings,
    checking shape, key and columns."""
    path = Path(path)
    lines = decode_utf8(path, read_bytes(path) if data is None else data).split("\n")
    if not lines or not lines[0].strip():
        raise InputError(path, 1, f"a header line naming the columns ({key}, ...)", "an empty line")
    header = lines[0].rstrip("\r").split("\t")
    for column in (key, *required):
        if column not in header:
            raise InputError(path, 1, f"a column named {column!r} in the header",
                             shorten("\t".join(header)))
    if len(set(header)) != len(header):
        raise InputError(path, 1, "distinct column names", shorten("\t".join(header)))
    columns: list[list[str]] = [[] for _ in header]
    seen: dict[str, int] = {}
    key_at = header.index(key)
    for number, raw in enumerate(lines[1:], start=2):
        raw = raw.rstrip("\r")
        if not raw.strip():
            continue
        fields = raw.split("\t")
        if len(fields) != len(header):
            raise InputError(path, number, f"{len(header)} tab-separated fields",
                             f"{len(fields)}: {shorten(raw)}")
        value = fields[key_at].strip()
        if not value:
            raise InputError(path, number, f"a value for {key!r}", "an empty field")
        if value in seen:
            raise InputError(path, number, f"a new {key}",
                             f"{value!r} again (first on line {seen[value]})")
        seen[value] = number
        for column, field in zip(columns, fields):
            column.append(field.strip())
    return pa.table({name: pa.array(values, pa.string()) for name, values in zip(header, columns)})
