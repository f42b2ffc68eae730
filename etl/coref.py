"""Coreference inputs: the referring expressions (the paper's ER, the mention set E) of each
document and the class each falls into, i.e. one partition (the key P_K or a response P_R).

Two formats (docs/formats_coref.md): CoNLL-2012 (``#begin document (name); part NNN`` ...
``#end document``, one token per line, the coreference column last: ``-``, ``(12)``, ``(12``,
``12)`` joined by ``|``) and JSON lines (``{"doc": ..., "clusters": [[[start, end], ...], ...]}``,
with optional ``genre``, ``tokens``, ``categories`` and typed ``links`` between classes). Both give
the mentions table: one row per mention, ``doc``, ``genre``, ``start``/``end`` (int32, inclusive
0-based token span in the document), ``cluster`` (the class id as written), ``category``, ``text``,
``line_no``. A document without any mention is one row whose ``start``, ``end`` and ``cluster``
are null (its ``line_no``: the document's first line): it is part of the corpus all the same.
A mention repeated with the same span and class in one document is kept once; the same span in
two classes gives two rows. Mention categories for CoNLL-2012 come from a side TSV, read in
:mod:`etl.coref_categories` (:func:`read_mention_categories` and :data:`CATEGORIES_SCHEMA`).
Errors are :class:`etl.errors.InputError`. The writers are in :mod:`etl.coref_write`.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from scorehouse.etl.errors import InputError, decode_utf8, shorten
from scorehouse.etl.lines import first_error
from scorehouse.etl.text import read_bytes

SCHEMA = pa.schema([
    ("doc", pa.string()), ("genre", pa.string()), ("start", pa.int32()), ("end", pa.int32()),
    ("cluster", pa.string()), ("category", pa.string()), ("text", pa.string()),
    ("line_no", pa.int32()),
])
LINKS_SCHEMA = pa.schema([("doc", pa.string()), ("from_cluster", pa.string()),
                          ("to_cluster", pa.string()), ("type", pa.string())])

# a document's header line (groups: the name in parentheses, a bare name, the part); the writer
# (etl/coref_write.py) checks its headers with it
BEGIN_DOCUMENT = r"^#\s*begin document\s+(?:\((.+)\)|([^\s();]+))\s*;?\s*(?:part\s+(\S+))?\s*$"
# the kinds of a coreference field's parts, ``(N)``, ``(N`` and ``N)`` (shared with the writer)
SINGLE_MARK, OPEN_MARK, CLOSE_MARK = range(3)
_PART = r"\(\d+\)|\(\d+|\d+\)"
_FIELD = rf"^(?:[-_]|(?:{_PART})(?:\|?(?:{_PART}))*)$"
_FIELD_TEXT = ("a coreference field: '-', or '(N)', '(N', 'N)' (N a number), one after the other "
               "or joined by '|'")
_COLUMNS_TEXT = ("2 columns (word, coreference) or at least 5 (document, part, word number, word, "
                 "..., coreference)")
_BLANK, _BEGIN, _END, _COMMENT, _TOKEN = range(5)


def read_conll2012(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read a CoNLL-2012 file (``data``: its bytes, if already read) into the mentions table
    (:data:`SCHEMA`; ``category`` null): per document, the mentions E and their classes.

    Token indices run over the whole document (blank lines between sentences do not count).
    Brackets of one id are matched last-opened first-closed; within one field, ``(N)`` mentions,
    then openings, then closings are read, as the CoNLL reference scorer does. Raises
    :class:`InputError` for the earliest line-level or structural error, then the earliest
    bracket error."""
    path = Path(path)
    raw = pl.col("raw")
    frame = _lines(path, data).filter(raw.str.contains(r"\S")).with_columns(
        pl.when(raw.str.starts_with("#")).then(
            pl.when(raw.str.contains(r"^#\s*begin document\b")).then(pl.lit(_BEGIN))
            .when(raw.str.contains(r"^#\s*end document\b")).then(pl.lit(_END))
            .otherwise(pl.lit(_COMMENT)))
        .otherwise(pl.lit(_TOKEN)).cast(pl.Int8).alias("kind"))
    kind, line = pl.col("kind"), pl.col("line_no")
    marker = pl.when(kind == _BEGIN).then(pl.lit(1)).when(kind == _END).then(pl.lit(0))
    frame = frame.with_columns(
        marker.forward_fill().shift(1).alias("open_before"),
        pl.when(kind == _BEGIN).then(line).forward_fill().alias("begin_line"),
        (kind == _BEGIN).cum_sum().cast(pl.Int32).alias("doc_idx"),
    )
    candidates: list[tuple[int, str, str]] = []
    docs = _documents(frame, candidates)
    outside = frame.filter(((kind == _TOKEN) | (kind == _END))
                           & (pl.col("open_before") != 1).fill_null(True))
    for row in outside.head(1).iter_rows(named=True):
        what = "a token line" if row["kind"] == _TOKEN else "'#end document'"
        candidates.append((row["line_no"], f"'#begin document' before {what}", shorten(row["raw"])))
    empty = frame.height == 0
    tokens = _columns(frame.filter(kind == _TOKEN).select("line_no", "doc_idx", "raw"))
    del frame
    for row in tokens.filter((pl.col("ncol") != 2)
                             & (pl.col("ncol") < 5)).head(1).iter_rows(named=True):
        candidates.append((row["line_no"], _COLUMNS_TEXT,
                           f"{row['ncol']} column(s): {shorten(row['raw'])}"))
    for row in tokens.filter(~pl.col("field").str.contains(_FIELD)).head(1).iter_rows(named=True):
        candidates.append((row["line_no"], _FIELD_TEXT, repr(row["field"])))
    first_error(candidates, path)
    if docs.height == 0:
        raise InputError(path, None, "a document ('#begin document (name); part NNN')",
                         "an empty file" if empty else "no '#begin document' line")

    tokens = tokens.select("doc_idx", "line_no", "field", "word",
                           pl.int_range(pl.len(), dtype=pl.Int32).over("doc_idx").alias("tok"))
    parts = (tokens.filter(~pl.col("field").is_in(["-", "_"]))
             .select("doc_idx", "tok", "line_no",
                     pl.col("field").str.extract_all(_PART).alias("part"))
             .with_columns(pl.int_ranges(pl.col("part").list.len()).alias("pos"))
             .explode("part", "pos"))
    part = pl.col("part")
    parts = parts.with_columns(
        pl.when(part.str.starts_with("(") & part.str.ends_with(")")).then(pl.lit(SINGLE_MARK))
        .when(part.str.starts_with("(")).then(pl.lit(OPEN_MARK)).otherwise(pl.lit(CLOSE_MARK))
        .cast(pl.Int8).alias("kind"),
        part.str.strip_chars("()").alias("cluster"))
    pairs = pair_brackets(parts.filter(pl.col("kind") != SINGLE_MARK), docs, path)
    singles = parts.filter(pl.col("kind") == SINGLE_MARK).select(
        "doc_idx", pl.col("tok").alias("start"), pl.col("tok").alias("end"), "cluster", "line_no",
        "kind", "pos")
    order = pl.concat([singles, pairs]).sort("doc_idx", "start", -pl.col("end"), "kind", "pos")
    mentions = order.unique(["doc_idx", "start", "end", "cluster"], keep="first",
                            maintain_order=True)
    offset = tokens.group_by("doc_idx").agg(pl.len().alias("n")).sort("doc_idx").select(
        "doc_idx", (pl.col("n").cum_sum() - pl.col("n")).alias("offset"))
    mentions = mentions.join(offset, on="doc_idx", how="left", maintain_order="left")
    text = _span_text(tokens["word"], mentions["offset"] + mentions["start"],
                      mentions["offset"] + mentions["end"])
    table = mentions.with_columns(text.alias("text")).join(docs, on="doc_idx",
                                                           maintain_order="left").select(
        "doc_idx", "doc", "genre", "start", "end", "cluster",
        pl.lit(None, pl.String).alias("category"), "text", "line_no")
    empty = docs.join(mentions.select("doc_idx").unique(), on="doc_idx", how="anti").select(
        "doc_idx", "doc", "genre", pl.col("begin_line").alias("line_no"))
    table = pl.concat([table, empty], how="diagonal_relaxed").sort("doc_idx", maintain_order=True)
    return table.drop("doc_idx").to_arrow().cast(SCHEMA)


def _lines(path: Path, data: bytes | None) -> pl.DataFrame:
    """The file's lines ``(line_no, raw)`` as :func:`etl.lines.lines` gives them, without copying
    the text: ``raw`` is an Arrow string-view column over ``data`` itself (16 bytes a line; a line
    of at most 12 bytes is stored in its view), built with numpy from the line ends, and checked
    as UTF-8 by Arrow (:func:`etl.errors.decode_utf8` names the first bad byte)."""
    data = read_bytes(path) if data is None else data
    buf = np.frombuffer(data, np.uint8)
    step = 1 << 22  # newlines found 4 MB at a time: no byte-sized mask of the whole file
    ends = np.concatenate([np.flatnonzero(buf[at:at + step] == 10).astype(np.int64) + at
                           for at in range(0, len(buf), step)] or [np.zeros(0, np.int64)])
    starts = np.r_[3 if data.startswith(b"\xef\xbb\xbf") else 0, ends + 1]
    if starts[-1] == len(data):  # no phantom blank line after the last line end
        starts = starts[:-1]
    else:
        ends = np.r_[ends, len(data)]
    ends -= (ends > starts) & (buf[np.maximum(ends - 1, 0)] == 13)  # CRLF
    lengths = (ends - starts).astype(np.int32)
    del ends
    # length, then 12 inline bytes or prefix, buffer 0, offset
    views = np.zeros((len(starts), 4), np.int32)
    views[:, 0] = lengths
    inline = views.view(np.uint8).reshape(-1, 16)
    for k in range(4):  # the first 4 bytes: the prefix of a long line, the start of a short one
        inline[:, 4 + k] = buf[np.minimum(starts + k, len(buf) - 1)] * (lengths > k)
    views[:, 3] = starts
    short = np.flatnonzero(lengths <= 12)
    inline[short, 12:] = 0
    for k in range(4, 12):
        at = short[lengths[short] > k]
        inline[at, 4 + k] = buf[starts[at] + k]
    raw = pa.Array.from_buffers(pa.string_view(), len(starts),
                                [None, pa.py_buffer(views), pa.py_buffer(data)])
    try:
        raw.validate(full=True)  # UTF-8 line by line, the text not decoded into a copy
    except pa.ArrowInvalid:
        decode_utf8(path, data)  # raises, naming the line of the first bad byte
        raise
    raw = pl.from_arrow(raw).alias("raw")
    return pl.DataFrame([raw]).with_row_index("line_no", offset=1).with_columns(
        pl.col("line_no").cast(pl.Int32))


def _columns(tokens: pl.DataFrame) -> pl.DataFrame:
    """Add ``ncol`` (the number of whitespace-separated columns), ``field`` (the last one) and
    ``word`` (the 4th of 5 or more, else the 1st) to the token lines; lines of TAB-separated
    columns are read directly, the others (e.g. space-aligned files) after their whitespace runs
    became TABs. The two columns are extracted, not split: no list of all columns is built."""
    raw = pl.col("raw")
    spaced = raw.str.contains(r"[^\t\S]|\t\t|^\t|\t$")
    cols = raw
    if tokens.select(spaced.any()).item():  # both branches run on every row, so only when needed
        cols = (pl.when(spaced).then(raw.str.strip_chars().str.replace_all(r"\s+", "\t"))
                .otherwise(raw))
    ncol = (cols.str.count_matches("\t", literal=True) + 1).cast(pl.Int32)
    return tokens.with_columns(ncol.alias("ncol"), cols.str.extract(r"([^\t]*)$").alias("field"),
                               pl.when(ncol >= 5)
                               .then(cols.str.extract(r"^(?:[^\t]*\t){3}([^\t]*)"))
                               .otherwise(cols.str.extract(r"^([^\t]*)")).alias("word"))


def _documents(frame: pl.DataFrame, candidates: list) -> pl.DataFrame:
    """One row per ``#begin document`` line: ``doc_idx``, ``doc`` (name[/part]) and ``genre``;
    header syntax, nesting, unended and repeated documents are added to ``candidates``."""
    kind = pl.col("kind")
    header = pl.col("raw").str.extract_groups(BEGIN_DOCUMENT)
    name = pl.coalesce(header.struct.field("1"), header.struct.field("2"))
    docs = frame.filter(kind == _BEGIN).with_columns(name.alias("name"),
                                                     header.struct.field("3").alias("part"))
    ends = frame.filter(kind == _END).group_by("doc_idx").agg(
        pl.col("line_no").first().alias("end_line"))
    docs = docs.join(ends, on="doc_idx", how="left").sort("doc_idx").with_columns(
        pl.when(pl.col("part").is_null()).then(pl.col("name"))
        .otherwise(pl.format("{}/{}", "name", "part")).alias("doc"),
        pl.col("line_no").shift(1).alias("previous"),
        pl.when(pl.col("name").str.contains("/")).then(pl.col("name").str.extract(r"^([^/]*)/"))
        .otherwise(pl.lit("")).alias("genre"))
    for row in docs.filter(pl.col("name").is_null()).head(1).iter_rows(named=True):
        candidates.append((row["line_no"], "a header '#begin document (name); part NNN'",
                           shorten(row["raw"])))
    for row in docs.filter(pl.col("open_before") == 1).head(1).iter_rows(named=True):
        candidates.append((row["line_no"],
                           f"'#end document' before a new document (the one begun on line "
                           f"{row['previous']} is still open)", shorten(row["raw"])))
    for row in docs.tail(1).filter(pl.col("end_line").is_null()).iter_rows(named=True):
        candidates.append((row["line_no"], "'#end document' closing the document begun here",
                           f"the end of the file (line {frame['line_no'][-1]})"))
    again = docs.filter(pl.col("doc").is_not_null() & ~pl.col("doc").is_first_distinct()).head(1)
    for row in again.iter_rows(named=True):
        first = docs.filter(pl.col("doc") == row["doc"])["line_no"][0]
        candidates.append((row["line_no"], "a new document",
                           f"{row['doc']!r} again (first begun on line {first})"))
    return docs.select("doc_idx", "doc", "genre", "line_no", "end_line").rename(
        {"line_no": "begin_line"})


def pair_brackets(events: pl.DataFrame, docs: pl.DataFrame | None,
                  path: Path | None) -> pl.DataFrame:
    """Match openings and closings (``kind``) of each (``doc_idx``, ``cluster``) last-opened
    first-closed, in reading order (line, openings before closings, position in the field).
    Gives the multi-token mentions ``doc_idx, start, end, cluster, line_no, kind, pos``; with a
    ``path``, a closing without opening or an opening never closed raises :class:`InputError`."""
    key = ["doc_idx", "cluster"]
    opening = pl.col("kind") == OPEN_MARK
    events = events.sort("doc_idx", "tok", "kind", "pos").with_columns(
        pl.when(opening).then(1).otherwise(-1).cum_sum().over(key).alias("depth"))
    candidates: list[tuple[int, str, str]] = []
    stray = events.filter(pl.col("depth") < 0)
    for row in stray.head(1).iter_rows(named=True):
        doc = docs.filter(pl.col("doc_idx") == row["doc_idx"])["doc"][0]
        candidates.append((row["line_no"],
                           f"an open mention '({row['cluster']}' before '{row['cluster']})'",
                           f"'{row['cluster']})' with no open mention of cluster {row['cluster']} "
                           f"in document {doc!r}"))
    events = events.with_columns(pl.when(opening).then(pl.col("depth"))
                                 .otherwise(pl.col("depth") + 1).alias("level"))
    events = events.with_columns(pl.int_range(pl.len()).over(*key, "level").alias("rank"),
                                 pl.len().over(*key, "level").alias("count"))
    # a group that went below 0 flags its unclosed openings only after its first stray closing
    unclosed = events.filter(opening & (pl.col("rank") == pl.col("count") - 1)
                             & (pl.col("count") % 2 == 1))
    if path is not None:
        for row in unclosed.sort("line_no").head(1).iter_rows(named=True):
            end = docs.filter(pl.col("doc_idx") == row["doc_idx"])["end_line"][0]
            candidates.append((row["line_no"],
                               f"'{row['cluster']})' closing the mention opened here before "
                               f"'#end document' (line {end})",
                               f"'({row['cluster']}' never closed"))
        first_error(candidates, path)
    events = events.sort(*key, "level", "tok", "kind", "pos")
    opens, closes = events.filter(opening), events.filter(~opening)
    return opens.select("doc_idx", pl.col("tok").alias("start"), closes["tok"].alias("end"),
                        "cluster", "line_no", "kind", "pos")


def _span_text(words: pl.Series, first: pl.Series, last: pl.Series) -> pl.Series:
    """The words ``first..last`` (global token indices) of each mention, joined by spaces."""
    index = pl.select(pl.int_ranges(first, last + 1, dtype=pl.Int64).explode()).to_series()
    offsets = pa.array(np.r_[0, np.cumsum((last - first + 1).to_numpy())], pa.int64())
    spans = pa.LargeListArray.from_arrays(offsets, words.gather(index).to_arrow())
    return pl.from_arrow(pc.binary_join(spans, pa.scalar(" ", spans.type.value_type)))


def read_coref_jsonl(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read a coreference JSON-lines file into the mentions table (:data:`SCHEMA`): per document
    line, the mention set E and its partition (``clusters``; ``cluster`` is the class index as a
    string), with ``category`` from ``categories`` and ``text`` from ``tokens`` (else null)."""
    return _read_jsonl(Path(path), data)[0]


def read_coref_links(path: str | Path, data: bytes | None = None,
                     format: str = "jsonl") -> pa.Table:
    """The typed links between key classes (:data:`LINKS_SCHEMA`: ``doc``, ``from_cluster``,
    ``to_cluster`` as class indices, ``type`` such as ``part-of``) of a JSON-lines file, in file
    order, each link once; CoNLL-2012 (``format="conll2012"``) has none: an empty table."""
    if format == "conll2012":
        return LINKS_SCHEMA.empty_table()
    if format != "jsonl":
        raise ValueError(f"format must be 'jsonl' or 'conll2012'; got {format!r}")
    return _read_jsonl(Path(path), data)[1]


def _read_jsonl(path: Path, data: bytes | None) -> tuple[pa.Table, pa.Table]:
    """Both tables of a JSON-lines file; :class:`InputError` names the first bad line."""
    rows: list[tuple] = []
    links: dict[tuple, None] = {}
    seen: dict[str, int] = {}
    for number, raw in enumerate(
            decode_utf8(path, read_bytes(path) if data is None else data).split("\n"), 1):
        if raw.strip():
            _jsonl_document(path, number, raw, seen, rows, links)
    if not seen:
        raise InputError(path, None, "a JSON object per document", "an empty file")
    columns = list(zip(*rows)) or [[] for _ in SCHEMA]
    link_columns = list(zip(*links)) or [[] for _ in LINKS_SCHEMA]
    return (pa.table(dict(zip(SCHEMA.names, columns)), schema=SCHEMA),
            pa.table(dict(zip(LINKS_SCHEMA.names, link_columns)), schema=LINKS_SCHEMA))


def _jsonl_document(path: Path, number: int, raw: str, seen: dict, rows: list, links: dict) -> None:
    """Check one document line and add its mention rows and links."""
    def fail(expected: str, value: object = None, text: str | None = None) -> None:
        raise InputError(path, number, expected, _show(value) if text is None else text)

    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as err:
        fail("a JSON object", text=f"invalid JSON ({err.msg}, column {err.colno})")
    if not isinstance(obj, dict):
        fail("a JSON object", obj)
    doc, genre, tokens, clusters = (obj.get(key) for key in ("doc", "genre", "tokens", "clusters"))
    if not isinstance(doc, str) or not doc:
        fail('a non-empty string "doc"', doc, None if "doc" in obj else 'no "doc"')
    if doc in seen:
        fail("a new document", text=f"{doc!r} again (first on line {seen[doc]})")
    seen[doc] = number
    genre = "" if genre is None else genre
    if not isinstance(genre, str):
        fail('a string "genre"', genre)
    if tokens is not None and not (isinstance(tokens, list)
                                   and all(isinstance(t, str) for t in tokens)):
        fail('"tokens": a list of strings', tokens)
    if not isinstance(clusters, list):
        fail('"clusters": a list of clusters, each a list of [start, end]', clusters,
             None if "clusters" in obj else 'no "clusters"')
    for key in ("categories", "links"):
        if not isinstance(obj.get(key) or [], list):
            fail(f'"{key}": a list', obj[key])
    bound = "0 <= start <= end" + (f" < {len(tokens)} (the number of tokens)"
                                   if tokens is not None else "")

    def span(value: object) -> tuple[int, int]:
        if not (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)
                and 0 <= value[0] <= value[1] and (tokens is None or value[1] < len(tokens))):
            fail(f"a mention [start, end] of integers with {bound}", value)
        return value[0], value[1]

    mentions: dict[tuple[int, int, str], None] = {}  # each (span, cluster) once, in file order
    for index, cluster in enumerate(clusters):
        if not isinstance(cluster, list) or not cluster:
            fail(f"cluster {index}: a non-empty list of [start, end]", cluster)
        mentions.update(((*span(m), str(index)), None) for m in cluster)
    spans = {(start, end) for start, end, _ in mentions}
    categories: dict[tuple[int, int], str] = {}
    for value in obj.get("categories") or []:
        if not (isinstance(value, list) and len(value) == 3 and isinstance(value[2], str)
                and value[2]):
            fail("a category [start, end, name] (name a non-empty string)", value)
        key = span(value[:2])
        if key not in spans:
            fail('a category for the span of a mention in "clusters"', value)
        if key in categories:
            fail("one category per span", text=f"{_show(value)} (already {categories[key]!r})")
        categories[key] = value[2]
    rows += [(doc, genre, start, end, cluster, categories.get((start, end)),
              None if tokens is None else " ".join(tokens[start:end + 1]), number)
             for start, end, cluster in mentions]
    if not mentions:  # the document still exists: its response mentions are scored against none
        rows.append((doc, genre, None, None, None, None, None, number))
    links.update(((doc, *_link(value, len(clusters), fail)), None)
                 for value in obj.get("links") or [])


def _link(value: object, n_clusters: int, fail) -> tuple[str, str, str]:
    """``(from_cluster, to_cluster, type)`` of one ``links`` entry, checked."""
    ok = (isinstance(value, dict) and isinstance(value.get("type"), str) and value["type"]
          and all(isinstance(value.get(k), int) and not isinstance(value.get(k), bool)
                  and 0 <= value[k] < n_clusters for k in ("from", "to"))
          and value["from"] != value["to"])
    if not ok:
        fail(f'a link {{"from": i, "to": j, "type": name}} between two clusters (0 <= i != j < '
             f'{n_clusters})', value)
    return str(value["from"]), str(value["to"]), value["type"]


def _show(value: object) -> str:
    """A JSON value quoted in an error message."""
    return shorten(json.dumps(value, ensure_ascii=False))
