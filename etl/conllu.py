"""CoNLL-U files (Universal Dependencies), read as tagged words for the POS family.

UTF-8 (a leading BOM is dropped), ``\\n`` or ``\\r\\n`` line ends. Lines are:

* **blank** (empty or only whitespace): sentence boundaries;
* **comments**, starting with ``#``. Three are read, in the form ``# key = value``:
  ``# newdoc id = X`` starts document X, ``# genre = X`` sets the genre of the current document
  (as in GRACE files: document-wide; two different genres in one document are rejected) and
  ``# sent_id = X`` names the sentence that follows. A bare ``# newdoc`` (without id) is ignored;
  every other comment (``# text = ...``, ``# global.columns = ...``) is ignored.
* **word lines**: exactly 10 TAB-separated fields ``ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS
  MISC``. ID is an integer (a syntactic word), a range ``a-b`` (a multiword token: its surface form,
  e.g. ``du``, covering the words a..b, e.g. ``de`` + ``le``) or a decimal ``a.b`` (an empty node).

A sentence is a maximal run of word lines (blank and comment lines both separate sentences); its
integer IDs must be 1, 2, ..., n in order. A multiword range must start at the ID of the word that
follows it, and end at or after it. Defaults: the document is the file stem until a
``# newdoc id``; genre ``""``; a sentence without ``# sent_id`` is ``<doc>-s<N>`` (N counting
the document's sentences from 1). Document ids must be unique in the file, sentence ids unique
within their document.

One row per syntactic word: ranges and empty nodes are not rows, but each word carries
``token_form`` (the surface form of the multiword token it belongs to, else its own form) and
``token_id`` (0-based index of its surface token in the file; the words of a multiword token share
it). ``tags`` holds one tag chosen by ``tag``: ``upos``, ``xpos`` or ``upos+feats`` (``UPOS`` when
FEATS is ``_``, else ``UPOS+FEATS``, e.g. ``NOUN+Gender=Masc|Number=Plur``); a ``_`` where the
chosen tag should be is rejected.

Errors are :class:`etl.errors.InputError` ``file:line: expected X, found Y``: line-level problems
(field count, ID syntax, a missing tag) first, the earliest in the file; then structural ones (ID
order, ranges, duplicate ids, genres), the earliest; a file without any word is rejected last.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError, shorten
from scorehouse.etl.lines import first_error, name_sentences
from scorehouse.etl.lines import lines as read_lines

TAGS = ("upos", "xpos", "upos+feats")
_FIELDS = ("id", "form", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc")
_COMMENT_LINE = r"^#\s*(newdoc id|genre|sent_id)\s*=\s*(.*)$"

_BLANK, _COMMENT, _DOC, _GENRE, _SENT, _WORD, _RANGE, _EMPTY = range(8)

_SCHEMA = pa.schema([
    ("tok", pa.int32()), ("line_no", pa.int32()), ("doc", pa.string()), ("genre", pa.string()),
    ("sent", pa.string()), ("form", pa.string()), ("tags", pa.list_(pa.string())),
    ("upos", pa.string()), ("xpos", pa.string()), ("feats", pa.string()), ("head", pa.string()),
    ("deprel", pa.string()), ("token_form", pa.string()), ("token_id", pa.int32()),
])


def read_conllu(path: str | Path, data: bytes | None = None, tag: str = "upos") -> pa.Table:
    """Read a CoNLL-U file (``data``: its bytes, if already read) into one row per syntactic word.

    Columns: ``tok`` (int32, 0-based word order), ``line_no`` (int32), ``doc``, ``genre``,
    ``sent``, ``form``, ``tags`` (list<str> of one tag, chosen by ``tag``: ``"upos"``,
    ``"xpos"`` or ``"upos+feats"``), ``upos``, ``xpos``, ``feats``, ``head``, ``deprel`` (the
    fields as written), ``token_form`` and ``token_id`` (int32; the surface token, shared by the
    words of a multiword token). Raises :class:`ValueError` for an unknown ``tag`` and
    :class:`InputError` naming the bad line.
    """
    if tag not in TAGS:
        raise ValueError(f"tag must be one of {', '.join(TAGS)}; got {tag!r}")
    path = Path(path)
    raw = pl.col("raw")
    key = raw.str.extract(_COMMENT_LINE, 1)
    frame = read_lines(path, data).with_columns(
        pl.when(raw.str.strip_chars() == "").then(pl.lit(_BLANK))
        .when(raw.str.starts_with("#")).then(
            pl.when(key == "newdoc id").then(pl.lit(_DOC))
            .when(key == "genre").then(pl.lit(_GENRE))
            .when(key == "sent_id").then(pl.lit(_SENT))
            .otherwise(pl.lit(_COMMENT)))
        .otherwise(pl.lit(_WORD)).cast(pl.Int8).alias("kind"),
        raw.str.extract(_COMMENT_LINE, 2).str.strip_chars().replace("", None).alias("value"),
    )
    kind = pl.col("kind")
    lines = frame.filter(kind == _WORD)
    _line_errors(path, lines, tag)
    parts = raw.str.split_exact("\t", 9)
    lines = lines.with_columns(*(parts.struct.field(f"field_{i}").alias(name)
                                 for i, name in enumerate(_FIELDS)))
    ident = pl.col("id")
    frame = frame.join(
        lines.select("line_no", *_FIELDS), on="line_no", how="left", maintain_order="left",
    ).with_columns(
        pl.when(ident.str.contains("-")).then(pl.lit(_RANGE, pl.Int8))
        .when(ident.str.contains(r"\.")).then(pl.lit(_EMPTY, pl.Int8))
        .otherwise(kind).alias("kind"),
    )
    if frame.filter(kind == _WORD).height == 0:
        empty = frame.filter(kind != _BLANK).height == 0
        raise InputError(path, None, "at least one word line",
                         "an empty file" if empty else "no word line")

    candidates: list[tuple[int, str, str]] = []
    is_line = kind.is_in([_WORD, _RANGE, _EMPTY])
    frame = frame.with_columns(
        pl.when(kind == _DOC).then(pl.col("value")).forward_fill().fill_null(path.stem)
        .alias("doc"),
        pl.when(kind == _SENT).then(pl.col("value")).when(is_line).then(pl.lit(""))
        .shift(1).forward_fill().alias("pending"),
        pl.when(kind == _SENT).then(pl.col("line_no")).shift(1).forward_fill()
        .alias("pending_line"),
        (is_line & ~is_line.shift(1).fill_null(False)).alias("new_sent"),
    ).with_columns(pl.col("new_sent").cum_sum().cast(pl.Int32).alias("sent_idx"))

    # documents and genres
    docs = frame.filter(kind == _DOC)
    again = docs.filter(~pl.col("value").is_first_distinct()).head(1)
    if again.height:
        row = again.row(0, named=True)
        first = docs.filter(pl.col("value") == row["value"])["line_no"][0]
        candidates.append((row["line_no"], "a new document id",
                           f"{row['value']!r} again (first on line {first})"))
    genres = frame.filter(kind == _GENRE).select("line_no", "doc", pl.col("value").alias("genre"))
    conflict = genres.filter(pl.col("genre") != pl.col("genre").first().over("doc")).head(1)
    if conflict.height:
        row = conflict.row(0, named=True)
        first = genres.filter(pl.col("doc") == row["doc"]).row(0, named=True)
        expected = (f"one genre per document ('{row['doc']}' has genre {first['genre']!r} from "
                    f"line {first['line_no']})")
        candidates.append((row["line_no"], expected, f"{row['genre']!r}"))
    genre_of = genres.group_by("doc", maintain_order=True).agg(pl.col("genre").first())

    # sentences
    sentences = name_sentences(frame, candidates)

    # IDs 1..n, ranges
    body = frame.filter(kind.is_in([_WORD, _RANGE])).with_columns(
        pl.when(kind == _WORD).then(ident.cast(pl.Int64)).alias("n_id"),
        pl.when(kind == _RANGE).then(ident.str.extract(r"^(\d+)-", 1).cast(pl.Int64))
        .alias("start"),
        pl.when(kind == _RANGE).then(ident.str.extract(r"-(\d+)$", 1).cast(pl.Int64)).alias("end"),
    ).with_columns(
        (pl.col("n_id").is_not_null().cast(pl.Int64).cum_sum().over("sent_idx"))
        .alias("expected_id"),
        pl.col("n_id").shift(-1).alias("next_id"),
        pl.col("sent_idx").shift(-1).alias("next_sent"),
    )
    disorder = body.filter((kind == _WORD) & (pl.col("n_id") != pl.col("expected_id"))).head(1)
    if disorder.height:
        row = disorder.row(0, named=True)
        candidates.append((row["line_no"],
                           f"ID {row['expected_id']} (word IDs run 1, 2, ... n in each sentence)",
                           f"{row['id']!r}"))
    bad_range = body.filter((kind == _RANGE) & (
        (pl.col("next_sent") != pl.col("sent_idx")).fill_null(True)
        | (pl.col("next_id") != pl.col("start")).fill_null(True)
        | (pl.col("end") < pl.col("start")))).head(1)
    if bad_range.height:
        row = bad_range.row(0, named=True)
        candidates.append((row["line_no"], "a range a-b (a <= b) just before word a",
                           f"{row['id']!r}"))
    first_error(candidates, path)

    # surface tokens: a range, or a word no range covers
    body = body.with_columns(
        pl.col("start").forward_fill().over("sent_idx").alias("r_start"),
        pl.col("end").forward_fill().over("sent_idx").alias("r_end"),
        pl.when(kind == _RANGE).then(pl.col("form")).forward_fill().alias("r_form"),
    ).with_columns(
        ((kind == _WORD) & (pl.col("n_id") >= pl.col("r_start"))
         & (pl.col("n_id") <= pl.col("r_end")))
        .fill_null(False).alias("covered"),
    ).with_columns(
        (pl.col("covered").not_().cum_sum() - 1).cast(pl.Int32).alias("token_id"),
        pl.when(pl.col("covered")).then(pl.col("r_form")).otherwise(pl.col("form"))
        .alias("token_form"),
    )
    words = body.filter(kind == _WORD)
    upos, xpos, feats = pl.col("upos"), pl.col("xpos"), pl.col("feats")
    chosen = {"upos": upos, "xpos": xpos,
              "upos+feats": pl.when(feats == "_").then(upos)
                            .otherwise(pl.format("{}+{}", upos, feats))}[tag]
    table = (
        words.join(sentences.select("sent_idx", "sent"), on="sent_idx", how="left",
                   maintain_order="left")
        .join(genre_of, on="doc", how="left", maintain_order="left")
        .select(
            pl.int_range(pl.len(), dtype=pl.Int32).alias("tok"),
            "line_no", "doc", pl.col("genre").fill_null(""), "sent", "form",
            pl.concat_list(chosen).alias("tags"),
            "upos", "xpos", "feats", "head", "deprel", "token_form", "token_id",
        )
        .to_arrow()
    )
    return table.cast(_SCHEMA)


def _line_errors(path: Path, lines: pl.DataFrame, tag: str) -> None:
    """Reject the first word line malformed on its own: field count, ID syntax, missing tag."""
    candidates: list[tuple[int, str, str]] = []
    raw = pl.col("raw")
    fields = raw.str.count_matches("\t") + 1
    bad = lines.filter(fields != 10).head(1)
    if bad.height:
        row = bad.row(0, named=True)
        count = row["raw"].count("\t") + 1
        candidates.append((row["line_no"],
                           "10 TAB-separated fields (ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL "
                           "DEPS MISC)",
                           f"{count} field{'s' if count > 1 else ''}: {shorten(row['raw'])}"))
    parts = raw.str.split_exact("\t", 9)
    ok = lines.filter(fields == 10).with_columns(
        parts.struct.field("field_0").alias("id"),
        parts.struct.field("field_3").alias("upos"),
        parts.struct.field("field_4").alias("xpos"),
    )
    bad_id = ok.filter(~pl.col("id").str.contains(r"^(\d+|\d+-\d+|\d+\.\d+)$")).head(1)
    if bad_id.height:
        row = bad_id.row(0, named=True)
        candidates.append((row["line_no"], "an integer ID (or a range 1-2, or an empty node 1.1)",
                           shorten(row["id"])))
    column = "xpos" if tag == "xpos" else "upos"
    missing = ok.filter(pl.col("id").str.contains(r"^\d+$")
                        & (pl.col(column).is_in(["_", ""]))).head(1)
    if missing.height:
        row = missing.row(0, named=True)
        article = "an" if column == "xpos" else "a"
        candidates.append((row["line_no"], f"{article} {column.upper()} tag (tag={tag!r})",
                           repr(row[column])))
    first_error(candidates, path)
