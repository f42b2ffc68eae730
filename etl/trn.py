"""NIST trn transcripts: one utterance per line, ``text (utterance_id)``.

The format of SCTK's sclite ``-r FILE trn``. The id is the last parenthesised group of the line;
the text before it may be empty (an empty transcription). Lines made only of whitespace
(sclite's separators, :data:`etl.text.BLANKS`) are skipped, as sclite does, and so are its
comment lines, those that start with ``;;`` or ``**`` (SCTK's ``TEXT_is_comment`` and
``TEXT_is_comment_info``); any other line
without an id, a duplicate id or bytes that are not UTF-8 reject the file with its line number.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError, decode_utf8, shorten
from scorehouse.etl.plain import COMMENT
from scorehouse.etl.plain import ID_SUFFIX as _ID_SUFFIX
from scorehouse.etl.text import (
    ALTERNATION,
    BLANKS,
    NO_ALTERNATION,
    alternation_word,
    check_lines,
    read_bytes,
)


def read_trn(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read a trn file into an Arrow table ``(line_no int32, utt_id str, text str)``.

    ``text`` is the transcription as written (whitespace-trimmed); tokenisation belongs to the
    normalisation methods. Raises :class:`InputError` naming the first bad line.
    """
    path = Path(path)
    lines = split_lines(text_column(path, read_bytes(path) if data is None else data))
    frame = (
        pl.DataFrame([lines])
        .with_row_index("line_no", offset=1)
        .filter((pl.col("raw").str.strip_chars(BLANKS) != "")
                & ~pl.col("raw").str.contains(COMMENT))
        .with_columns(pl.col("raw").str.extract(_ID_SUFFIX, 1).alias("utt_id"),
                      pl.col("raw").str.replace(_ID_SUFFIX, "").alias("text"))
    )
    try:
        return utterances(path, frame, TRN_LINE)
    except InputError as err:  # a Kaldi file given as trn: say which format it looks like
        if err.expected != TRN_LINE or not _KALDI_LINE.match(err.found):
            raise
        raise InputError(err.path, err.line, f"{TRN_LINE} (a line 'id text' is Kaldi's: "
                         "format = \"kaldi\" in the task, --format kaldi)", err.found) from None


TRN_LINE = "'text (utterance_id)'"
_KALDI_LINE = re.compile(r"^['\"][^\s()'\"]*\d[^\s()'\"]*\s+[^\s]")  # 'spk1-0001 bonjour'


def text_column(path: Path, data: bytes) -> pl.Series:
    """``data`` decoded as :func:`etl.errors.decode_utf8` decodes it (a leading BOM dropped, the
    line limit, the line of the first bad byte named), as a String Series of one value: Polars
    checks the UTF-8 without a Python string of the whole file (20 times faster)."""
    check_lines(path, data)
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    try:
        return pl.Series("raw", [data], dtype=pl.Binary).cast(pl.String)
    except pl.exceptions.ComputeError:
        decode_utf8(path, data)  # raises the InputError that names the line
        raise


def split_lines(text: str | pl.Series) -> pl.Series:
    """The lines of ``text`` (or of a String Series' one value) as the String Series ``raw`` (a
    final line end gives a last empty line), split by Polars: no Python string per line (twice
    as fast as ``str.split``)."""
    column = pl.Series("raw", [text], dtype=pl.String) if isinstance(text, str) else text
    return column.str.split("\n").explode().str.strip_suffix("\r")


def utterances(path: Path, frame: pl.DataFrame, expected_id: str) -> pa.Table:
    """The ``(line_no int32, utt_id, text)`` table of a transcript's non-blank lines (``frame``:
    ``line_no``, ``raw``, ``utt_id``, null where the line has none, and ``text``), shared by every
    transcript reader: the first line without an id (``expected_id`` says what one looks like)
    or repeating one rejects the file, and so does a line holding an sclite alternation
    (:func:`etl.text.alternation_word`)."""
    no_id = frame.filter(pl.col("utt_id").is_null() | (pl.col("utt_id") == "")).head(1)
    again = frame.filter(pl.col("utt_id").is_not_null()
                         & ~pl.col("utt_id").is_first_distinct()).head(1)
    if no_id.height and (not again.height or no_id["line_no"][0] < again["line_no"][0]):
        row = no_id.row(0, named=True)
        raise InputError(path, row["line_no"], expected_id, shorten(row["raw"]))
    if again.height:
        row = again.row(0, named=True)
        first = frame.filter(pl.col("utt_id") == row["utt_id"])["line_no"][0]
        raise InputError(path, row["line_no"], "a new utterance id",
                         f"{row['utt_id']!r} again (first on line {first})")
    alternation = frame.filter(pl.col("text").str.contains(ALTERNATION, literal=True)).head(1)
    if alternation.height:
        row = alternation.row(0, named=True)
        raise InputError(path, row["line_no"], NO_ALTERNATION,
                         shorten(alternation_word(row["text"])))
    return frame.select(pl.col("line_no").cast(pl.Int32), "utt_id",
                        pl.col("text").str.strip_chars(BLANKS)).to_arrow()
