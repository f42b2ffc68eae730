"""CoNLL-U files read for dependency evaluation, as the CoNLL 2018 shared task's scorer reads them.

Zeman et al., "CoNLL 2018 Shared Task: Multilingual Parsing from Raw Text to Universal
Dependencies", section 2, and its script ``conll18_ud_eval.py`` (the parsing family's dependency
side; its EASY side is :mod:`etl.easy`): a file is a sequence of **tokens** (surface forms) laid
end to end on one character stream, each token holding one **syntactic word** or, for a multiword
token (ID ``a-b``, e.g. ``du`` = ``de`` + ``le``), the words ``a..b``. Every word has its HEAD and
DEPREL, which make one tree per sentence.

The file is read line by line exactly as the official loader does:

* comment lines (``#``) are allowed only *before* a sentence (right after a blank line or at
  the start of the file); three are read, ``# newdoc id = X`` (the document, default the file
  stem), ``# genre = X`` (document-wide, the first one counts) and ``# sent_id = X`` (default
  ``<doc>-s<N>``); sentence and document ids are not checked for repeats (the official script
  ignores them);
* a sentence is the run of lines up to the next line that is empty (a line of spaces is not
  empty); every other line must have 10 TAB-separated fields ``ID FORM LEMMA UPOS XPOS FEATS
  HEAD DEPREL DEPS MISC``; ID ``n`` is a word, ``a-b`` a multiword token, ``n.m`` an empty node
  (skipped, as in the official script);
* FORMs lose their Unicode ``Zs`` characters (spaces) for the character stream; ``tok_start`` and
  ``tok_end`` are a token's character offsets in that stream (the concatenation of every token's
  form over the whole file).

Rejected, as :class:`etl.errors.InputError` ``file:line: expected X, found Y`` (the official
script rejects all of these except the checks marked *, where this reader is stricter): a comment
inside a sentence, a field count other than 10, an ID that is not ``n``, ``a-b`` or ``n.m``
(* signed numbers such as ``+1``, ``1.x``, a range ending before it starts), word IDs not running
1..n (* also inside a multiword token), a range that does not start at the next word (*) or that
the sentence does not finish, an empty FORM (after removing spaces), a HEAD that is not a
non-negative integer (* ``+0``) or points outside the sentence, a sentence without a root or with
several, a cycle, a sentence of 0 words (e.g. two blank lines in a row), a last sentence without
its closing blank line, and (* the official script does not read DEPS) a DEPS other than ``_`` or
``head:relation`` items joined by ``|``, or with a head outside the sentence (an empty node it
lacks). Line-level problems come first, then the structure of sentences, then their trees.

Departures from the official loader, which reads with Python's universal newlines and plain
``utf-8``: a leading BOM is dropped (the official script rejects it), and only ``\\n`` and
``\\r\\n`` end lines (a lone ``\\r`` stays inside the line).

How: numpy finds the lines in the file's bytes (their ends and first byte); the file is read in
chunks of about 20,000 lines cut after blank lines (sentences never straddle two), each handed to
Polars as one Arrow string array (no Python string per line, unlike ``etl.lines.lines``), whose
fields Polars counts, cuts and checks. Errors keep their order over the whole file: the first
line-level problem is raised at once, a structural or tree problem (checked in
``etl/ud_checks.py``) only once the rest of the file has no line-level one. DEPS is kept as
written and, in sentences with empty nodes, collapsed (``etl/ud_enhanced.py``).

Memory: the output is in Polars's own layouts, so ``pl.from_arrow`` copies no string: FORM, LEMMA
and the token's form are Arrow ``string_view`` (one chunk per chunk of lines); the columns with
few distinct values (``doc``, ``genre``, ``sent``, ``upos``, ``xpos``, ``feats``, ``deprel``) are
dictionary arrays (int32 indices, one dictionary per column: its values in order of first
appearance, so the table does not depend on the chunking), Categorical in Polars: 4 bytes a word
instead of a 16-byte view each. Measured on the 200,000-word benchmark file (12.5 MB), after
Polars's one-time set-up (about 50 MB: thread pool, regex engines): about 0.35 s, a table of 25 MB
(15.5 MB as a Polars frame) and about 65 MB of peak memory above the set-up, the file's bytes
included (20,000-line chunks measured best: 10,000 and 40,000 both peak higher).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError, decode_utf8, shorten
from scorehouse.etl.lines import first_error, name_sentences
from scorehouse.etl.text import read_bytes
from scorehouse.etl.ud_checks import (
    BAD_COMMENT,
    BLANK,
    COMMENT,
    EMPTY,
    RANGE,
    WORD,
    sentence_errors,
    tree_errors,
)
from scorehouse.etl.ud_enhanced import DEPS, MAX_PATHS, TooManyPaths, collapsed_column

ZS = r"\p{Zs}"  # the characters the official script deletes from FORMs (Unicode category Zs)
CHUNK_LINES = 20_000
_COMMENT_LINE = r"^#\s*(newdoc id|genre|sent_id)\s*=\s*(.*)$"
# MISC is not read
_FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps")
_STRINGS = ("form", "lemma", "upos", "xpos", "feats", "deprel")

_TEXT = pa.string_view()  # Polars's own string layout: handed over without a copy either way
# few distinct values: 4 bytes a word, Categorical in Polars
_CODED = pa.dictionary(pa.int32(), _TEXT)
_PER_SENTENCE = ("doc", "genre", "sent")
_TAGS = ("upos", "xpos", "feats", "deprel")
SCHEMA = pa.schema([
    ("word", pa.int32()), ("line_no", pa.int32()), ("doc", _CODED), ("genre", _CODED),
    ("sent_no", pa.int32()), ("sent", _CODED), ("word_id", pa.int32()), ("form", _TEXT),
    ("lemma", _TEXT), ("upos", _CODED), ("xpos", _CODED), ("feats", _CODED),
    ("head", pa.int32()), ("deprel", _CODED), ("tok", pa.int32()), ("tok_form", _TEXT),
    ("tok_start", pa.int64()), ("tok_end", pa.int64()), ("multiword", pa.bool_()),
    ("deps", _TEXT), ("deps_collapsed", _TEXT),
])


def without_spaces(expr: pl.Expr) -> pl.Expr:
    """``expr`` (a string column) with its ``Zs`` characters removed, as the official script
    removes them from FORMs before building the character stream."""
    return expr.str.replace_all(ZS, "")


def read_ud(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read a CoNLL-U file (``data``: its bytes, if already read) into one row per syntactic word.

    Columns (see :data:`SCHEMA`): ``word`` (int32, 0-based in the file), ``line_no``, ``doc``,
    ``genre``, ``sent_no`` (0-based sentence index), ``sent`` (``# sent_id`` or
    ``<doc>-s<N>``), ``word_id`` (1-based in the sentence), ``form``, ``lemma``, ``upos``,
    ``xpos``, ``feats``, ``head`` (int32, 0 = root), ``deprel`` (as written), ``tok`` (0-based
    surface token), ``tok_form`` (its form as written), ``tok_start`` / ``tok_end`` (int64
    character offsets of the token in the space-free stream of all token forms), ``multiword``
    (the word belongs to a multiword token), ``deps`` (DEPS as written, ``_`` when empty) and
    ``deps_collapsed`` (DEPS with empty nodes collapsed, :mod:`etl.ud_enhanced`; null in a
    sentence without them). Strings are Arrow ``string_view``, ``doc``, ``genre``, ``sent`` and
    the four tag columns dictionary arrays (module docstring). Raises :class:`InputError` naming
    the first offending line.
    """
    path = Path(path)
    text = _Text(path, read_bytes(path) if data is None else data)
    structure: list[tuple[int, str, str]] = []
    trees: list[tuple[int, str, str]] = []
    parts, starts, comments = [], [], []
    at = {"segment": 0, "sent": 0, "word": 0, "tok": 0, "char": 0}
    for lo, hi in _chunks(text):
        lines = _classify(text, lo, hi, at)
        body = _fields(path, text, lines)  # raises the first line-level problem
        starts.append(lines.filter(pl.col("new_sent"))
                      .select("line_no", "segment", pl.col("sent_no").alias("sent_idx")))
        comments.append(_comments(text, lines))
        if structure:
            continue
        sentences = sentence_errors(text, lines, body, structure)
        if structure or trees:
            continue
        words = _words(body, at)
        tree_errors(words, sentences, trees)
        if not trees:
            try:
                parts.append(_columns(lines, lo, words, at["word"]))
            except TooManyPaths as err:
                raise InputError(path, err.line, f"empty nodes linked by at most {MAX_PATHS:,} "
                                 "paths in a sentence", "more (too dense to collapse)") from None
            at["word"] += parts[-1].height
    first_error(structure or trees, path)
    return _table(path, parts, pl.concat(starts), pl.concat(comments))


class _Text:
    """The file's bytes and its lines: ``starts`` / ``ends`` (byte offsets, the line end and a
    ``\r`` before it excluded), first byte. A leading BOM is dropped; there is no line after a
    final line end."""

    def __init__(self, path: Path, data: bytes):
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        try:  # UTF-8 check without a copy
            pa.LargeStringArray.from_buffers(1,
                                             pa.py_buffer(np.array([0, len(data)], dtype=np.int64)),
                                             pa.py_buffer(data)).validate(full=True)
        except pa.ArrowInvalid:
            decode_utf8(path, data)  # raises, naming the line of the first bad byte
            raise
        self.data = data
        buf = np.frombuffer(data, dtype=np.uint8)
        newline = np.flatnonzero(buf == 10)
        starts = np.concatenate([[0], newline + 1])
        self.starts = starts[:-1] if starts[-1] == len(buf) else starts
        n = len(self.starts)
        ends = np.append(newline, len(buf))[:n]
        self.ends = (ends - ((ends > self.starts) & (buf[np.maximum(ends - 1, 0)] == 13))
                     if n else ends)
        self.first = np.where(self.ends > self.starts,
                              buf[np.minimum(self.starts, max(len(buf) - 1, 0))], 0) \
            if n else self.ends

    def line(self, line_no: int) -> str:
        """A line quoted for an error message."""
        return shorten(self.data[self.starts[line_no - 1]:self.ends[line_no - 1]].decode("utf-8"))

    def strings(self, lines: np.ndarray) -> pa.LargeStringArray:
        """The text of ``lines`` (0-based indices, increasing) as one Arrow array: the bytes from
        the first line's start to the last one's end, less those outside the lines (line ends, lines
        not asked for), picked by a mask (2 bytes of scratch per byte, not an index per byte)."""
        starts, ends = self.starts[lines], self.ends[lines]
        offsets = np.concatenate([[0], np.cumsum(ends - starts)]).astype(np.int64)
        if not len(lines):
            return pa.LargeStringArray.from_buffers(0, pa.py_buffer(offsets), pa.py_buffer(b""))
        base = int(starts[0])
        # +1 at a line's start, -1 at its end
        inside = np.zeros(int(ends[-1]) - base + 1, dtype=np.int8)
        inside[starts - base] += 1
        inside[ends - base] -= 1
        keep = np.cumsum(inside[:-1], dtype=np.int8).view(np.bool_)
        chunk = np.frombuffer(self.data, dtype=np.uint8)[base:int(ends[-1])][keep]
        return pa.LargeStringArray.from_buffers(len(lines), pa.py_buffer(offsets),
                                                pa.py_buffer(chunk))


def _chunks(text: _Text) -> list[tuple[int, int]]:
    """Line ranges of about :data:`CHUNK_LINES` lines, each but the last ending with a blank
    line."""
    n = len(text.starts)
    blank = np.flatnonzero(text.ends == text.starts)
    cuts = blank[np.searchsorted(blank, np.arange(CHUNK_LINES, n, CHUNK_LINES))[:-1]] + 1 \
        if len(blank) and n > CHUNK_LINES else np.array([], dtype=np.int64)
    bounds = np.unique(np.concatenate([[0], cuts, [n]]))
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist())) or [(0, 0)]


def _classify(text: _Text, lo: int, hi: int, at: dict) -> pl.DataFrame:
    """Lines ``lo..hi-1``, one row each: ``line_no``, ``kind``, ``segment`` (blank lines end
    segments), ``sent_no`` (from the first line of a segment that is not a comment to the blank
    line closing it), ``new_sent``, ``fields`` (TAB count + 1) and the first 8 fields, cut by
    Polars (one row per line; a missing field reads as null). Advances the segment and sentence
    counters in ``at``."""
    raw = pl.Series(text.strings(np.arange(lo, hi)), dtype=pl.String)
    fields = raw.str.split_exact("\t", 8).struct.unnest()
    blank = text.ends[lo:hi] == text.starts[lo:hi]
    lines = pl.DataFrame([
        pl.Series("line_no", np.arange(lo + 1, hi + 1, dtype=np.int32)), pl.Series("blank", blank),
        pl.Series("comment", text.first[lo:hi] == ord("#")),
        (raw.str.count_matches("\t", literal=True).cast(pl.Int32) + 1).alias("fields"),
        *fields.rename(dict(zip(fields.columns, _FIELDS))).get_columns(),
    ]).with_columns(
        (pl.col("blank").cast(pl.Int32).cum_sum().shift(1, fill_value=0) + at["segment"])
        .alias("segment"),
    ).with_columns(
        ((~pl.col("comment")).cast(pl.Int32).cum_sum().over("segment") > 0).alias("body"),
    )
    body = pl.col("body")
    new_sent = body & ~body.shift(1).fill_null(False).over("segment")
    ident = pl.col("id").fill_null("")
    lines = lines.with_columns(
        pl.when("blank").then(pl.lit(BLANK))
        .when(pl.col("comment") & ~body).then(pl.lit(COMMENT))
        .when("comment").then(pl.lit(BAD_COMMENT))
        .when(ident.str.contains(r"^\d+-")).then(pl.lit(RANGE))
        .when(ident.str.contains(r"^\d+\.")).then(pl.lit(EMPTY))
        .otherwise(pl.lit(WORD)).cast(pl.Int8).alias("kind"),
        new_sent.alias("new_sent"),
        pl.when(body).then(new_sent.cast(pl.Int32).cum_sum() - 1 + at["sent"]).alias("sent_no"),
    ).drop("blank", "comment", "body")
    at["segment"] += int(blank.sum())
    at["sent"] += int(lines["new_sent"].sum())
    return lines


def _comments(text: _Text, lines: pl.DataFrame) -> pl.DataFrame:
    """The ``# newdoc id``, ``# genre`` and ``# sent_id`` comments: ``line_no``, ``segment``,
    ``key``, ``value``."""
    rows = lines.filter(pl.col("kind") == COMMENT).select("line_no", "segment")
    raw = pl.Series(text.strings(rows["line_no"].to_numpy() - 1), dtype=pl.String)
    return rows.with_columns(raw.str.extract(_COMMENT_LINE, 1).alias("key"),
                             raw.str.extract(_COMMENT_LINE, 2).str.strip_chars().alias("value"))


def _fields(path: Path, text: _Text, lines: pl.DataFrame) -> pl.DataFrame:
    """Word and range lines (empty nodes dropped): ``line_no``, ``kind``, ``sent_no``,
    ``form`` and the numbers ``n_id``, ``n_head``, ``r_first``, ``r_last``, after rejecting the
    first line malformed on its own: a comment inside a sentence, the field count, the ID
    syntax, a HEAD that is not a non-negative integer, an empty FORM."""
    kind = pl.col("kind")
    candidates: list[tuple[int, str, str]] = []
    bad = lines.filter(kind == BAD_COMMENT).head(1)
    if bad.height:
        line = bad["line_no"][0]
        candidates.append((line, "a word line (comments go before a sentence, after a blank line)",
                           text.line(line)))
    content = kind.is_in([WORD, RANGE, EMPTY])
    bad = lines.filter(content & (pl.col("fields") != 10)).head(1)
    if bad.height:
        line, count = bad["line_no"][0], bad["fields"][0]
        candidates.append((line, "10 TAB-separated fields (ID FORM LEMMA UPOS XPOS FEATS HEAD "
                                 "DEPREL DEPS MISC)",
                           f"{count} field{'s' if count > 1 else ''}: {text.line(line)}"))
    ok = content & (pl.col("fields") == 10)
    field = {name: pl.col(name).fill_null("") for name in ("id", "form", "head", "deps")}
    for where, expected, column in (
        (~field["id"].str.contains(r"^(\d+|\d+-\d+|\d+\.\d+)$"),
         "an ID n, a-b (multiword token) or n.m (empty node)", "id"),
        ((kind == WORD) & ~field["head"].str.contains(r"^\d+$"),
         "a HEAD that is a non-negative integer", "head"),
        (kind.is_in([WORD, RANGE]) & (without_spaces(field["form"]) == ""),
         "a FORM that is not empty (spaces are removed)", "form"),
        (kind.is_in([WORD, EMPTY]) & ~field["deps"].str.contains(DEPS.pattern),
         "DEPS: _ or head:relation items joined by | (a head is a word ID, 0 or an empty node "
         "n.m)", "deps"),
    ):
        bad = lines.filter(ok & where).head(1)
        if bad.height:
            candidates.append((bad["line_no"][0], expected, shorten(bad[column][0] or "")))
    first_error(candidates, path)
    return lines.filter(kind.is_in([WORD, RANGE])).select(
        "line_no", "kind", "sent_no", pl.col("form").fill_null(""),
        # numbers too large for int64 become -1 (a wrong ID or range) or 2**62 (a HEAD outside)
        pl.when(kind == WORD).then(pl.col("id").cast(pl.Int64, strict=False).fill_null(-1))
        .alias("n_id"),
        pl.when(kind == WORD).then(pl.col("head").cast(pl.Int64, strict=False).fill_null(2 ** 62))
        .alias("n_head"),
        *(pl.when(kind == RANGE)
          .then(pl.col("id").str.extract(pattern, 1).cast(pl.Int64, strict=False).fill_null(-1))
          .alias(name) for name, pattern in (("r_first", r"^(\d+)-"), ("r_last", r"-(\d+)$"))),
    )


def _words(body: pl.DataFrame, at: dict) -> pl.DataFrame:
    """The word and range lines with each word's surface token (a range, or the word itself):
    ``multiword``, ``tok``, ``tok_line`` (the token's line), ``tok_start`` / ``tok_end`` (the
    words of a multiword token take the offsets of its range line, just before them), counted on
    from ``at`` (which advances)."""
    kind = pl.col("kind")
    own = ~pl.col("multiword")
    body = body.with_columns(
        ((kind == WORD)
         & (pl.col("n_id") <= pl.col("r_last").forward_fill().over("sent_no")).fill_null(False))
        .alias("multiword"),
    ).with_columns(
        (own.cast(pl.Int32).cum_sum() - 1 + at["tok"]).alias("tok"),
        pl.when(own).then(without_spaces(pl.col("form")).str.len_chars().cast(pl.Int64))
        .otherwise(0).alias("length"),
    ).with_columns(
        (pl.col("length").cum_sum() + at["char"]).alias("tok_end"),
    ).with_columns(
        pl.when(own).then(pl.col("tok_end") - pl.col("length")).forward_fill().alias("tok_start"),
        pl.when(own).then(pl.col("tok_end")).forward_fill().alias("tok_end"),
        pl.when(own).then(pl.col("line_no")).forward_fill().alias("tok_line"),
    ).drop("length", "r_first", "r_last")
    if body.height:
        at["tok"] = int(body["tok"][-1]) + 1
        at["char"] = int(body["tok_end"][-1])
    return body


def _columns(lines: pl.DataFrame, lo: int, body: pl.DataFrame, word0: int) -> pl.DataFrame:
    """The chunk's output columns in the output types (all but ``doc``, ``genre``, ``sent``,
    which are filled in for the whole file; the tags are Categorical)."""
    words = body.filter(pl.col("kind") == WORD)
    at, tok_at = words["line_no"] - lo - 1, words["tok_line"] - lo - 1
    frame = pl.DataFrame([
        pl.Series("word", np.arange(word0, word0 + words.height, dtype=np.int32)), words["line_no"],
        words["sent_no"], words["n_id"].alias("word_id"), words["n_head"].alias("head"),
        *(lines[name].gather(at).fill_null("") for name in _STRINGS),
        words["tok"], lines["form"].gather(tok_at).alias("tok_form"), words["tok_start"],
        words["tok_end"], words["multiword"], lines["deps"].gather(at).fill_null("_"),
        collapsed_column(lines, words["line_no"]),
    ])
    return frame.cast({name: pl.Categorical if SCHEMA.field(name).type == _CODED else
                       pl.from_arrow(pa.array([], SCHEMA.field(name).type)).dtype
                       for name in frame.columns})


def _coded(values: pl.Series, codes: np.ndarray | None = None) -> pa.DictionaryArray:
    """``values`` as one Arrow dictionary array whose dictionary is their distinct values in order
    of first appearance (the same whatever the chunking); with ``codes``, ``values[codes]``."""
    distinct = values.unique(maintain_order=True).cast(pl.String)
    index = values.cast(pl.Enum(distinct)).to_physical().cast(pl.Int32).to_numpy()
    return pa.DictionaryArray.from_arrays(index if codes is None else index[codes],
                                          distinct.to_arrow(compat_level=pl.CompatLevel.newest()))


def _table(path: Path, parts: list[pl.DataFrame], starts: pl.DataFrame,
           comments: pl.DataFrame) -> pa.Table:
    """Documents (the last ``# newdoc id`` before), genres (a document's first ``# genre``) and
    sentence ids (the segment's last ``# sent_id``, else ``<doc>-s<N>``), then the table: one
    Arrow chunk per chunk of lines, one for each dictionary column."""
    docs = comments.filter((pl.col("key") == "newdoc id") & (pl.col("value") != "")).select(
        "line_no", pl.col("value").alias("doc"))
    ids = comments.filter(pl.col("key") == "sent_id").group_by("segment").agg(
        pl.col("value").last().alias("pending"), pl.col("line_no").last().alias("pending_line"))

    def with_doc(frame):
        return frame.join_asof(docs, on="line_no", strategy="backward").with_columns(
            pl.col("doc").fill_null(path.stem))

    starts = (with_doc(starts).join(ids, on="segment", how="left", maintain_order="left")
              .with_columns(pl.lit(True).alias("new_sent")))
    sentences = name_sentences(starts, [])  # repeated ids are not an error for the official script
    genres = (with_doc(comments.filter(pl.col("key") == "genre")
                       .select("line_no", pl.col("value").alias("genre")))
              .group_by("doc", maintain_order=True).agg(pl.col("genre").first()))
    sentences = sentences.sort("sent_idx").select(
        "doc", "sent",
        pl.col("doc").replace_strict(genres["doc"], genres["genre"], default="").alias("genre"))
    sent_no = (np.concatenate([part["sent_no"].to_numpy() for part in parts]) if parts
               else np.zeros(0, np.int32))
    plain = [part.drop(_TAGS).to_arrow(compat_level=pl.CompatLevel.newest()) for part in parts]
    columns = {}
    for field in SCHEMA:
        if field.name in _PER_SENTENCE:
            chunks = [_coded(sentences[field.name], sent_no)]
        elif field.name in _TAGS:
            chunks = [_coded(pl.concat([part[field.name] for part in parts]))] if parts else []
        else:
            chunks = [a for table in plain for a in table[field.name].chunks]
        columns[field.name] = pa.chunked_array(chunks, type=field.type)
    return pa.table(columns, schema=SCHEMA)
