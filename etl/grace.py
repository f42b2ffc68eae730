"""GRACE token-per-line files: POS references and submissions (the GRACE campaign's layout).

UTF-8 (a leading BOM is dropped), one line per token, ``\\n`` or ``\\r\\n`` line ends. Every line
is one of:

* **blank** (empty, or only spaces and TABs): ends the current sentence; several blank lines are
  one boundary, and the file need not end with one.
* **metadata** ``# key = value`` with key ``doc`` (starts a document; ends the current sentence),
  ``genre`` (the genre of the current document) or ``sent`` (names the next sentence; ends the
  current sentence). A line is a metadata line when it starts with ``#`` and a space and its
  first word (up to a space, ``=`` or ``:``) is one of these three keys; it must then read exactly
  ``# key = value`` (``# doc =d1``, ``# doc: d1`` are rejected). The value is trimmed; ``doc`` and
  ``sent`` values must be non-empty, an empty ``genre`` means "no genre".
* **comment**: any other line starting with ``# `` (or a line that is just ``#``); ignored, and not
  a sentence boundary. (``#<TAB>Wp`` is a token line: the form ``#``.)
* **token**: ``FORM<TAB>TAGS`` or, in a reference only, ``FORM<TAB>TAGS<TAB>LOC``.

  - FORM is the token as written, kept verbatim; it must contain a non-whitespace character and
    may contain spaces (a participant's multi-word token ``pomme de terre``).
  - TAGS is one tag or alternatives separated by ``|`` (reference: the set of acceptable tags;
    submission: the tag, or the ambiguous list of alternatives). No tag may be empty (``a|``,
    ``|a``, ``a||b``, an empty field) or contain whitespace. Alternatives are kept as written, in
    order.
  - LOC (reference only) marks a double-marked compound (a *locution*): ``B=<TAGS>`` on its first
    line (the locution's acceptable tags, same syntax as TAGS) and ``I`` on each following line.
    An empty LOC field means "no locution". A locution has at least two lines, lies within one
    sentence, and an ``I`` line must follow a ``B=`` or ``I`` line (comment lines between them are
    allowed).

Defaults: tokens before any ``# doc`` line belong to the document named after the file stem;
a document's genre is ``""`` unless a ``# genre`` line in it says otherwise (a ``# genre`` line
anywhere in a document sets the genre of the whole document; two different genres in one document
are rejected); a sentence without a ``# sent`` line is named ``<doc>-s<N>``, N counting the
document's sentences from 1 (named ones included). Document ids must be unique in the file
(two ``# doc = d1`` lines are rejected) and sentence ids unique within their document; a
``# sent`` line must be followed by tokens (not by another ``# sent``/``# doc`` line or the end
of the file).

Errors are :class:`etl.errors.InputError` ``file:line: expected X, found Y``. Line-level errors
(field count, empty form or tag, whitespace in a tag, a bad LOC field, a malformed metadata line)
are reported first, the earliest in the file; then structural ones (locutions, sentence and
document ids, genres), again the earliest; a file without any token line is rejected last
(``file: expected at least one token, found an empty file``).

Reading is vectorised with Polars (no Python loop over lines): a million tokens read in under a
second.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError, shorten
from scorehouse.etl.lines import first_error, lines, name_sentences

_META_KEYS = ("doc", "genre", "sent")
_META_LINE = r"^# (doc|genre|sent) = (.*)$"

# line kinds
_BLANK, _COMMENT, _DOC, _GENRE, _SENT, _TOKEN = range(6)
# LOC kinds
_NO_LOC, _LOC_B, _LOC_I = 0, 1, 2

_REFERENCE_SCHEMA = pa.schema([
    ("tok", pa.int32()), ("line_no", pa.int32()), ("doc", pa.string()), ("genre", pa.string()),
    ("sent", pa.string()), ("form", pa.string()), ("tags", pa.list_(pa.string())),
    ("loc", pa.int32()), ("loc_tags", pa.list_(pa.string())),
])
_SUBMISSION_SCHEMA = pa.schema([field for field in _REFERENCE_SCHEMA
                                if field.name not in ("loc", "loc_tags")])


def read_grace_reference(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read a GRACE reference (``data``: its bytes, if already read) into an Arrow table.

    Columns: ``tok`` (int32, 0-based token order in the file), ``line_no`` (int32), ``doc``,
    ``genre``, ``sent``, ``form`` (str), ``tags`` (list<str>, the acceptable tags), ``loc``
    (int32, 0-based id of the locution the token belongs to in file order, null if none) and
    ``loc_tags`` (list<str>, the locution's acceptable tags on every token of the locution, null
    otherwise). Raises :class:`InputError` naming the bad line.
    """
    return _read_grace(Path(path), data, reference=True)


def read_grace_submission(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read a GRACE submission (``data``: its bytes, if already read) into an Arrow table.

    Columns: ``tok`` (int32, 0-based token order in the file), ``line_no`` (int32), ``doc``,
    ``genre``, ``sent``, ``form`` (str) and ``tags`` (list<str>: one tag, or the ambiguous
    alternatives in the order written). A third (LOC) field is rejected. Raises
    :class:`InputError` naming the bad line.
    """
    return _read_grace(Path(path), data, reference=False)


def _classify(frame: pl.DataFrame) -> pl.DataFrame:
    raw = pl.col("raw")
    is_comment = (raw == "#") | raw.str.starts_with("# ")
    key = raw.str.extract(r"^# +([^\s=:]+)", 1)
    return frame.with_columns(
        pl.when(raw.str.strip_chars() == "").then(pl.lit(_BLANK))
        .when(is_comment & (key == "doc")).then(pl.lit(_DOC))
        .when(is_comment & (key == "genre")).then(pl.lit(_GENRE))
        .when(is_comment & (key == "sent")).then(pl.lit(_SENT))
        .when(is_comment).then(pl.lit(_COMMENT))
        .otherwise(pl.lit(_TOKEN)).cast(pl.Int8).alias("kind")
    )


def _tags_problem(column: str) -> pl.Expr:
    """What is wrong with a TAGS-like field (empty, whitespace, alternative), null when it is
    fine."""
    value = pl.col(column)
    return (
        pl.when(value == "").then(pl.lit("empty"))
        .when(value.str.contains(r"\s")).then(pl.lit("whitespace"))
        .when(value.str.starts_with("|") | value.str.ends_with("|")
              | value.str.contains("||", literal=True))
        .then(pl.lit("alternative"))
    )


def _tag_found(problem: str, what: str, value: str) -> str:
    if problem == "empty":
        return f"an empty {what} field"
    if problem == "whitespace":
        return f"whitespace inside {what} {shorten(value)}"
    return f"an empty alternative in {what} {shorten(value)}"


def _line_errors(path: Path, tokens: pl.DataFrame, meta: pl.DataFrame, reference: bool) -> None:
    """Reject the first line that is malformed on its own (fields, form, tags, LOC, metadata)."""
    candidates: list[tuple[int, str, str]] = []
    shape = "FORM<TAB>TAGS or FORM<TAB>TAGS<TAB>LOC" if reference else "FORM<TAB>TAGS"
    fields = pl.col("fields")
    bad = tokens.filter((fields > 3) | (fields < 2)
                        | ((fields == 3) & pl.lit(not reference))).head(1)
    if bad.height:
        row = bad.row(0, named=True)
        count = row["raw"].count("\t") + 1
        found = f"{count} field{'s' if count > 1 else ''}: {shorten(row['raw'])}"
        if count == 3 and not reference:
            found += " (a LOC column is for references only)"
        candidates.append((row["line_no"], shape, found))

    checked = tokens.filter((fields == 2) | ((fields == 3) & pl.lit(reference)))
    if checked.height:
        empty_form = checked.filter(pl.col("form").str.strip_chars() == "").head(1)
        if empty_form.height:
            row = empty_form.row(0, named=True)
            candidates.append((row["line_no"], "a non-empty FORM before the TAB",
                               f"an empty form: {shorten(row['raw'])}"))
        tags = (checked.with_columns(_tags_problem("tags").alias("problem"))
                .filter(pl.col("problem").is_not_null()).head(1))
        if tags.height:
            row = tags.row(0, named=True)
            candidates.append((row["line_no"], "TAGS = one tag or alternatives 'a|b', non-empty, "
                                               "without whitespace",
                               _tag_found(row["problem"], "TAGS", row["tags"])))
        if reference:
            loc = pl.col("loc_field")
            bad_loc = checked.filter((loc != "") & (loc != "I")
                                     & ~loc.str.starts_with("B=")).head(1)
            if bad_loc.height:
                row = bad_loc.row(0, named=True)
                candidates.append((row["line_no"], "LOC = 'B=<TAGS>', 'I' or nothing",
                                   shorten(row["loc_field"])))
            b_tags = (checked.filter(loc.str.starts_with("B="))
                      .with_columns(loc.str.slice(2).alias("b_tags"))
                      .with_columns(_tags_problem("b_tags").alias("problem"))
                      .filter(pl.col("problem").is_not_null()).head(1))
            if b_tags.height:
                row = b_tags.row(0, named=True)
                candidates.append((row["line_no"],
                                   "'B=' followed by the locution's tags, "
                                   "non-empty, without whitespace",
                                   _tag_found(row["problem"], "locution TAGS", row["b_tags"])))

    malformed = meta.filter(~pl.col("raw").str.contains(_META_LINE)).head(1)
    if malformed.height:
        row = malformed.row(0, named=True)
        key = ("doc", "genre", "sent")[row["kind"] - _DOC]
        candidates.append((row["line_no"], f"a metadata line '# {key} = <value>'",
                           shorten(row["raw"])))
    meta_value = pl.col("raw").str.extract(_META_LINE, 2).str.strip_chars()
    empty_value = meta.filter((pl.col("kind") != _GENRE) & (meta_value == "")).head(1)
    if empty_value.height:
        row = empty_value.row(0, named=True)
        what = "a document id" if row["kind"] == _DOC else "a sentence id"
        candidates.append((row["line_no"], f"{what} after ' = '",
                           f"nothing: {shorten(row['raw'])}"))
    first_error(candidates, path)


def _read_grace(path: Path, data: bytes | None, reference: bool) -> pa.Table:
    parts = pl.col("raw").str.split_exact("\t", 2)
    frame = _classify(lines(path, data)).with_columns(
        (pl.col("raw").str.count_matches("\t", literal=True) + 1).alias("fields"),
        parts.struct.field("field_0").alias("form"),
        parts.struct.field("field_1").alias("tags"),
        parts.struct.field("field_2").fill_null("").alias("loc_field"),
    )
    kind = pl.col("kind")
    _line_errors(path, frame.filter(kind == _TOKEN),
                 frame.filter(kind.is_in([_DOC, _GENRE, _SENT])), reference)
    if not frame.select((kind == _TOKEN).any()).item():
        empty = frame.filter(kind != _BLANK).height == 0
        raise InputError(path, None, "at least one token",
                         "an empty file" if empty
                         else "no token line (only comments and blank lines)")

    # --- the skeleton: token lines, sentence boundaries and metadata, in file order; each
    # frame below keeps only the columns read after it (a line's text only on '# sent' lines,
    # for their message), and is let go once read (a 1M-token file's reading: 534 -> 221 MB
    # above its start at the peak, by hand)
    value = pl.col("value")
    skeleton = frame.filter(kind != _COMMENT).select(
        "line_no", "kind", "form", "tags", "loc_field",
        pl.col("raw").str.extract(_META_LINE, 2).str.strip_chars().alias("value"),
        pl.when(kind == _SENT).then(pl.col("raw")).alias("raw"),
    ).with_columns(
        pl.when(kind == _DOC).then(value).forward_fill().fill_null(path.stem).alias("doc"),
    )
    del frame
    candidates: list[tuple[int, str, str]] = []

    # documents: unique ids; one genre each
    docs = skeleton.filter(kind == _DOC)
    again = docs.filter(~value.is_first_distinct()).head(1)
    if again.height:
        row = again.row(0, named=True)
        first = docs.filter(value == row["value"])["line_no"][0]
        candidates.append((row["line_no"], "a new document id",
                           f"{row['value']!r} again (first on line {first})"))
    genres = skeleton.filter(kind == _GENRE).select("line_no", "doc", value.alias("genre"))
    conflict = genres.filter(pl.col("genre") != pl.col("genre").first().over("doc")).head(1)
    if conflict.height:
        row = conflict.row(0, named=True)
        first = genres.filter(pl.col("doc") == row["doc"]).row(0, named=True)
        expected = (f"one genre per document ('{row['doc']}' has genre {first['genre']!r} from "
                    f"line {first['line_no']})")
        candidates.append((row["line_no"], expected, f"{row['genre']!r}"))
    genre_of = genres.group_by("doc", maintain_order=True).agg(pl.col("genre").first())

    # '# sent' lines must be followed by tokens
    named = skeleton.filter(kind != _BLANK).select(
        "kind", "line_no", "raw",
        kind.shift(-1).alias("next_kind"), pl.col("line_no").shift(-1).alias("next_line"))
    next_kind = pl.col("next_kind")
    orphan = named.filter((kind == _SENT)
                          & (next_kind.is_null() | next_kind.is_in([_DOC, _SENT]))).head(1)
    del named
    if orphan.height:
        row = orphan.row(0, named=True)
        if row["next_kind"] is None:
            found = "the end of the file"
        else:
            found = (f"a '# {'doc' if row['next_kind'] == _DOC else 'sent'}' line "
                     f"(line {row['next_line']})")
        candidates.append((row["line_no"], f"token lines after {shorten(row['raw'])}", found))

    # sentences: a maximal run of token lines (genre lines are transparent)
    tokens = skeleton.filter(kind != _GENRE).select(
        "line_no", "kind", "doc", "form", "tags", "loc_field",
        pl.when(kind == _SENT).then(value).when(kind.is_in([_TOKEN, _DOC])).then(pl.lit(""))
        .shift(1).forward_fill().alias("pending"),
        pl.when(kind == _SENT).then(pl.col("line_no")).shift(1).forward_fill()
        .alias("pending_line"),
        ((kind == _TOKEN) & (kind.shift(1) != _TOKEN).fill_null(True)).alias("new_sent"),
    ).filter(kind == _TOKEN).with_columns(
        pl.col("new_sent").cum_sum().cast(pl.Int32).alias("sent_idx"))
    del skeleton
    sentences = name_sentences(tokens, candidates)

    # locutions
    loc_field = pl.col("loc_field")
    tokens = tokens.with_columns(
        pl.when(loc_field.str.starts_with("B=")).then(pl.lit(_LOC_B))
        .when(loc_field == "I").then(pl.lit(_LOC_I)).otherwise(pl.lit(_NO_LOC))
        .cast(pl.Int8).alias("lk"),
    ).with_columns(
        pl.col("lk").shift(1).alias("prev_lk"),
        pl.col("lk").shift(-1).alias("next_lk"),
        pl.col("sent_idx").shift(1).alias("prev_sent"),
        pl.col("line_no").shift(-1).alias("next_line"),
        pl.when(pl.col("lk") == _LOC_B).then(pl.col("line_no")).forward_fill().alias("b_line"),
    )
    lk = pl.col("lk")
    if reference:
        stray = tokens.filter((lk == _LOC_I) & (pl.col("prev_lk").is_null()
                                                | (pl.col("prev_lk") == _NO_LOC))).head(1)
        if stray.height:
            row = stray.row(0, named=True)
            found = ("'I' on the file's first token" if row["prev_lk"] is None
                     else "'I' after a token outside any locution")
            candidates.append((row["line_no"], "'I' only after a 'B=' or 'I' line", found))
        crossing = tokens.filter((lk == _LOC_I) & (pl.col("prev_lk") != _NO_LOC)
                                 & (pl.col("prev_sent") != pl.col("sent_idx"))).head(1)
        if crossing.height:
            row = crossing.row(0, named=True)
            candidates.append((row["line_no"], "a locution within one sentence",
                               "'I' in a new sentence (the locution begins on line "
                               f"{row['b_line']})"))
        single = tokens.filter((lk == _LOC_B)
                               & (pl.col("next_lk").fill_null(_NO_LOC) != _LOC_I)).head(1)
        if single.height:
            row = single.row(0, named=True)
            if row["next_lk"] is None:
                after = "the end of the file"
            elif row["next_lk"] == _LOC_B:
                after = f"another 'B=' (line {row['next_line']})"
            else:
                after = f"a token outside the locution (line {row['next_line']})"
            candidates.append((row["line_no"], "a locution of at least two lines ('B=' then 'I')",
                               f"a one-line locution followed by {after}"))
    first_error(candidates, path)

    # --- the table
    tag_list = pl.col("tags").str.split("|")
    columns = [
        pl.int_range(pl.len(), dtype=pl.Int32).alias("tok"),
        pl.col("line_no"),
        pl.col("doc"),
        pl.col("genre").fill_null(""),
        pl.col("sent"),
        pl.col("form"),
        tag_list.alias("tags"),
    ]
    result = (
        tokens.select("line_no", "doc", "sent_idx", "form", "tags", "loc_field", "lk")
        .join(sentences.select("sent_idx", "sent"), on="sent_idx", how="left",
              maintain_order="left")
        .join(genre_of, on="doc", how="left", maintain_order="left")
    )
    if reference:
        starts = (lk == _LOC_B)
        b_tags = pl.when(starts).then(pl.col("loc_field").str.slice(2).str.split("|"))
        columns += [
            pl.when(lk != _NO_LOC).then(starts.cum_sum().cast(pl.Int32) - 1).alias("loc"),
            pl.when(lk != _NO_LOC).then(b_tags.forward_fill()).alias("loc_tags"),
        ]
    table = result.select(columns).to_arrow()
    return table.cast(_REFERENCE_SCHEMA if reference else _SUBMISSION_SCHEMA)
