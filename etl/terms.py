"""Terminology acquisition (Termometer): the readers of the three elementary tasks' files.

A term list is the paper's output S or reference R of term extraction (possibly ranked, possibly
labelled like ACTER's ``term<TAB>Specific_Term``); variant groups are the classes of variants whose
unordered pairs are scored by classical P/R; relations are the triples (t1, type, t2). Terms are
compared after :func:`normalise` (Unicode NFC, stripped, internal whitespace runs collapsed, then a
case policy), the form on which dch, dtc and dt are computed; duplicates in S count once, so the
term-list reader flags them (``duplicate_of``) rather than dropping them.

UTF-8 (a leading BOM is dropped), ``\\n`` or ``\\r\\n`` line ends, blank lines skipped, fields
separated by TABs, no quoting, no comment lines. Every reader works column-wise over the file's
lines (Polars), with no Python loop per line, and raises :class:`etl.errors.InputError`
(``file:line: expected X, found Y``) at the earliest bad line. The format is in
``docs/formats_terms.md``.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError, shorten
from scorehouse.etl.lines import first_error, lines

MAX_TERM_CHARS = 1_000  # a field longer than this is an error in the list, not a term

CASES = ("keep", "lower")

TERMS_SCHEMA = pa.schema([
    ("line_no", pa.int32()), ("term", pa.string()), ("raw", pa.string()), ("label", pa.string()),
    ("score", pa.float64()), ("rank", pa.int32()), ("duplicate_of", pa.int32()),
])
GROUPS_SCHEMA = pa.schema([("line_no", pa.int32()), ("group_id", pa.string()),
                           ("term", pa.string())])
RELATIONS_SCHEMA = pa.schema([
    ("line_no", pa.int32()), ("term1", pa.string()), ("type", pa.string()), ("term2", pa.string()),
])


def _check_case(case: str) -> None:
    if case not in CASES:
        raise ValueError(f"unknown case policy {case!r}: expected one of "
                         f"{', '.join(map(repr, CASES))}")


def _normalised(expr: pl.Expr, case: str) -> pl.Expr:
    """The expression form of :func:`normalise` (``case`` already checked)."""
    expr = expr.str.normalize("NFC").str.strip_chars().str.replace_all(r"\s+", " ")
    return expr.str.to_lowercase() if case == "lower" else expr


def normalise(series: pl.Series, case: str = "keep") -> pl.Series:
    """The form in which terms are compared (the t of dch(t1, t2), dtc and dt; what makes two
    elements of S or R the same term): Unicode NFC, surrounding whitespace stripped, every run of
    internal whitespace (Unicode White_Space: spaces, TABs, no-break spaces) collapsed to one space,
    then the case policy: ``"keep"`` (the default, docs/metrics/terms.md) or ``"lower"``. Nulls
    stay null; the series keeps its name. Raises ValueError for another case policy."""
    _check_case(case)
    return series.to_frame("t").select(_normalised(pl.col("t"), case))["t"].alias(series.name)


def _rows(path: Path, data: bytes | None) -> pl.DataFrame:
    """The file's non-blank lines ``(line_no, raw, fields, n)``: TAB-split fields and their
    count."""
    frame = lines(path, data).filter(pl.col("raw").str.strip_chars() != "")
    frame = frame.with_columns(pl.col("raw").str.split("\t").alias("fields")).with_columns(
        pl.col("fields").list.len().cast(pl.Int32).alias("n"))
    longest = (frame.with_columns(pl.col("fields").list.eval(pl.element().str.len_chars())
                                  .list.max().alias("longest"))
               .filter(pl.col("longest") > MAX_TERM_CHARS))
    if longest.height:
        row = longest.row(0, named=True)
        raise InputError(path, row["line_no"], f"terms of at most {MAX_TERM_CHARS:,} characters",
                         f"a field of {row['longest']:,} characters: {shorten(row['raw'])}")
    return frame


def _field(index: int) -> pl.Expr:
    return pl.col("fields").list.get(index, null_on_oob=True)


def _plural(n: int) -> str:
    return f"{n} tab-separated field{'' if n == 1 else 's'}"


def _first_row(frame: pl.DataFrame, condition: pl.Expr) -> dict | None:
    rows = frame.filter(condition).head(1).rows(named=True)
    return rows[0] if rows else None


def _control_characters(rows: pl.DataFrame) -> list[tuple[int, str, str]]:
    """The first line holding a control character but TAB, as a candidate error: a binary
    file read as terms (every line a "term", or a field of one) was scored, exit 0."""
    row = _first_row(rows, pl.col("raw").str.contains(r"[\x00-\x08\x0B-\x1F\x7F]"))
    return [(row["line_no"], "fields of text",
             f"a control character: {shorten(row['raw'])}")] if row else []



def read_term_list(path: str | Path, data: bytes | None = None, case: str = "keep") -> pa.Table:
    """Read a list of terms (the paper's S or R), one per line: ``term``, ``term<TAB>label`` or
    ``term<TAB>score`` (a ranked list, whose first N terms may be cut off), into
    :data:`TERMS_SCHEMA`, one row per non-blank line in file order: ``term`` normalised
    (:func:`normalise` with ``case``), ``raw`` the term as written, ``label`` / ``score`` from the
    second field (null without one), ``rank`` 1..n over the distinct terms (score descending, ties
    in line order, in a scored file; else line order), ``duplicate_of`` the line of the term's
    first occurrence. Duplicates (equal after normalisation) are kept but flagged: ``rank`` null,
    ``duplicate_of`` set; so that S counts each term once in P(S), TP and TR. ``data``: the file's
    bytes if already read. Raises :class:`etl.errors.InputError` naming the earliest bad line;
    ValueError for an unknown ``case``."""
    _check_case(case)
    path = Path(path)
    rows = _rows(path, data).with_columns(
        _field(0).alias("raw_term"), _field(1).str.strip_chars().alias("second"))
    rows = rows.with_columns(
        _normalised(pl.col("raw_term"), case).alias("term"),
        pl.col("second").cast(pl.Float64, strict=False).alias("number"),
    ).with_columns(pl.col("number").is_finite().fill_null(False).alias("numeric"))
    candidates: list[tuple[int, str, str]] = []
    row = _first_row(rows, pl.col("n") > 2)
    if row:
        candidates.append((row["line_no"], "term or term<TAB>label or term<TAB>score",
                           _plural(row["n"])))
    rows = rows.filter(pl.col("n") <= 2)
    row = _first_row(rows, pl.col("term") == "")
    if row:
        candidates.append((row["line_no"], "a term before the TAB",
                           f"an empty term: {shorten(row['raw'])}"))
    candidates += _control_characters(rows)
    row = _first_row(rows, pl.col("second") == "")
    if row:
        candidates.append((row["line_no"], "a label or a score after the TAB",
                           f"an empty field: {shorten(row['raw'])}"))
    decider = _first_row(rows, pl.col("second").is_not_null() & (pl.col("second") != ""))
    scored = bool(decider and decider["numeric"])
    if decider:
        kind = "a score" if scored else "a label"
        row = _first_row(rows, pl.col("second").is_null()
                               | ((pl.col("second") != "") & (pl.col("numeric") != scored)))
        if row:
            found = (f"none: {shorten(row['raw'])}" if row["second"] is None
                     else shorten(row["second"]))
            candidates.append((row["line_no"], f"{kind} like line {decider['line_no']}", found))
    first_error(candidates, path)

    first = pl.col("line_no").first().over("term")
    key = pl.col("number") if scored else pl.col("line_no")
    table = rows.select(
        "line_no", "term", pl.col("raw_term").alias("raw"),
        pl.lit(None, pl.String).alias("label") if scored else pl.col("second").alias("label"),
        pl.col("number").alias("score") if scored else pl.lit(None, pl.Float64).alias("score"),
        pl.when(pl.col("line_no") == first).then(key).rank("ordinal", descending=scored)
        .alias("rank"),
        pl.when(pl.col("line_no") != first).then(first).alias("duplicate_of"),
    )
    return table.to_arrow().cast(TERMS_SCHEMA)


def read_variant_groups(path: str | Path, data: bytes | None = None,
                        case: str = "keep") -> pa.Table:
    """Read classes of variants (task 2, each class scored as its set of unordered pairs (t1, t2)),
    one ``group_id<TAB>term`` per line, into :data:`GROUPS_SCHEMA`: ``group_id`` stripped, ``term``
    normalised (:func:`normalise` with ``case``), in file order. A class is a set: the same (group,
    term) again is dropped silently; a term in two groups is an error. Raises
    :class:`etl.errors.InputError` naming the earliest bad line; ValueError for an unknown
    ``case``."""
    _check_case(case)
    path = Path(path)
    rows = _rows(path, data).with_columns(
        _field(0).str.strip_chars().alias("group_id"), _normalised(_field(1), case).alias("term"))
    candidates = _control_characters(rows)
    row = _first_row(rows, pl.col("n") != 2)
    if row:
        candidates.append((row["line_no"], "group_id<TAB>term", _plural(row["n"])))
    rows = rows.filter(pl.col("n") == 2)
    for column, expected in (("group_id", "a group id before the TAB"),
                             ("term", "a term after the TAB")):
        row = _first_row(rows, pl.col(column) == "")
        if row:
            candidates.append((row["line_no"], expected, f"an empty field: {shorten(row['raw'])}"))
    rows = rows.filter((pl.col("group_id") != "") & (pl.col("term") != ""))
    rows = rows.filter(pl.struct("group_id", "term").is_first_distinct()).with_columns(
        pl.col("group_id").first().over("term").alias("first_group"),
        pl.col("line_no").first().over("term").alias("first_line"))
    row = _first_row(rows, pl.col("group_id") != pl.col("first_group"))
    if row:
        found = (f"{shorten(row['term'])} in groups {shorten(row['first_group'])} (line "
                 f"{row['first_line']}) and {shorten(row['group_id'])} (line {row['line_no']})")
        candidates.append((row["line_no"], "each term in one group", found))
    first_error(candidates, path)
    return rows.select("line_no", "group_id", "term").to_arrow().cast(GROUPS_SCHEMA)


def read_relations(path: str | Path, data: bytes | None = None, case: str = "keep") -> pa.Table:
    """Read relations between terms (task 3: synonymy, hypernymy, ..., scored with classical P/R
    overall and per type), one ``term1<TAB>type<TAB>term2`` per line, into
    :data:`RELATIONS_SCHEMA`: terms normalised (:func:`normalise` with ``case``), ``type`` stripped
    and otherwise as written, in file order; the same triple again is dropped. Raises
    :class:`etl.errors.InputError` naming the earliest bad line; ValueError for an unknown
    ``case``."""
    _check_case(case)
    path = Path(path)
    rows = _rows(path, data).with_columns(
        _normalised(_field(0), case).alias("term1"), _field(1).str.strip_chars().alias("type"),
        _normalised(_field(2), case).alias("term2"))
    candidates = _control_characters(rows)
    row = _first_row(rows, pl.col("n") != 3)
    if row:
        candidates.append((row["line_no"], "term1<TAB>type<TAB>term2", _plural(row["n"])))
    rows = rows.filter(pl.col("n") == 3)
    for column in ("term1", "type", "term2"):
        row = _first_row(rows, pl.col(column) == "")
        if row:
            candidates.append((row["line_no"], f"a non-empty {column}",
                               f"an empty field: {shorten(row['raw'])}"))
    first_error(candidates, path)
    rows = rows.filter(pl.struct("term1", "type", "term2").is_first_distinct())
    return rows.select("line_no", "term1", "type", "term2").to_arrow().cast(RELATIONS_SCHEMA)
