"""Correspondence tables: a participant's tagset projected onto the pivot tagset.

UTF-8 (a leading BOM is dropped), ``\\n`` or ``\\r\\n`` line ends, one row per image::

    PARTICIPANT_TAG<TAB>PIVOT_TAG

A participant tag with several images has several rows (its projection is the set of them). No
quoting; fields are taken as written and must be non-empty and free of whitespace (a tag may
contain ``|``, ``+``, ``=``: CoNLL-U ``UPOS+FEATS`` tags are fine). Skipped: blank lines (empty or
whitespace only), comment lines (``#`` alone or ``#`` followed by a space; ``#<TAB>Wp`` is a row,
the participant tag ``#``), and a header line ``tag<TAB>pivot`` if it is the first line that is
neither blank nor a comment. The header anywhere else, a row without exactly two fields, an empty
field, whitespace inside a tag, a duplicated (tag, pivot) row or a table without any row reject the
file with its line number.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa

from scorehouse.etl.errors import InputError, decode_utf8, shorten
from scorehouse.etl.text import read_bytes

HEADER = "tag\tpivot"
_WHITESPACE = re.compile(r"\s")

_SCHEMA = pa.schema([("tag", pa.string()), ("pivot", pa.string()), ("line_no", pa.int32())])


def read_tag_table(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read a correspondence table (``data``: its bytes, if already read) into an Arrow table
    ``(tag str, pivot str, line_no int32)``, one row per (participant tag, pivot tag) pair in file
    order. Raises :class:`InputError` naming the bad line."""
    path = Path(path)
    text = decode_utf8(path, read_bytes(path) if data is None else data)
    tags: list[str] = []
    pivots: list[str] = []
    numbers: list[int] = []
    seen: dict[tuple[str, str], int] = {}
    header_allowed = True
    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw.removesuffix("\r")
        if not raw.strip() or raw == "#" or raw.startswith("# "):
            continue
        if raw == HEADER:
            if not header_allowed:
                raise InputError(path, number, "the header 'tag<TAB>pivot' only as the first line",
                                 "it again here")
            header_allowed = False
            continue
        header_allowed = False
        fields = raw.split("\t")
        if len(fields) != 2:
            raise InputError(path, number, "PARTICIPANT_TAG<TAB>PIVOT_TAG",
                             f"{len(fields)} field{'s' if len(fields) > 1 else ''}: {shorten(raw)}")
        for name, field in zip(("a participant tag", "a pivot tag"), fields):
            if not field:
                raise InputError(path, number, f"{name} (non-empty)",
                                 f"an empty field: {shorten(raw)}")
            if _WHITESPACE.search(field):
                raise InputError(path, number, f"{name} without whitespace", shorten(field))
        pair = (fields[0], fields[1])
        if pair in seen:
            raise InputError(path, number, "a new (tag, pivot) row",
                             f"{fields[0]!r} -> {fields[1]!r} again (first on line {seen[pair]})")
        seen[pair] = number
        tags.append(fields[0])
        pivots.append(fields[1])
        numbers.append(number)
    if not tags:
        raise InputError(path, None, "at least one PARTICIPANT_TAG<TAB>PIVOT_TAG row",
                         "an empty file" if not text.strip()
                         else "no row (only comments, blank lines or the header)")
    return pa.table([pa.array(tags, pa.string()), pa.array(pivots, pa.string()),
                     pa.array(numbers, pa.int32())], schema=_SCHEMA)
