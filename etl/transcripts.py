"""Transcripts beside NIST trn: Kaldi ``text`` files and JSON lines (Hugging Face and NeMo
manifests). Each reader gives the table :func:`etl.trn.read_trn` gives, ``(line_no int32, utt_id
str, text str)``, so the WER family scores them alike; docs/formats_wer.md has examples.

* **Kaldi** ``text``: one utterance per line, ``utt_id word word ...``: the id is the first
  field (fields and words are separated as sclite separates them, :data:`etl.text.BLANKS`),
  the text the rest (it may be empty).
* **JSON lines**: one JSON object per line with an id field and a text field (``id`` and
  ``text`` by default; NeMo's manifests key the utterance by ``audio_filepath``, Hugging Face
  datasets often by ``id`` and ``sentence``). The id may be a string or an integer.

UTF-8; blank lines are skipped, as sclite skips them in trn; a duplicate id, a line without an id
or a value of the wrong type rejects the file with its line number.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import decode_utf8
from scorehouse.etl.plain import FORMATS, format_of, jsonl_rows  # noqa: F401  (named there)
from scorehouse.etl.text import BLANKS, WORD, read_bytes
from scorehouse.etl.trn import read_trn, split_lines, utterances

_BLANK = r" \t\x0B\x0C\r"  # etl.text.BLANKS in a pattern (no line end within a line)


def reader(fmt: str, id_field: str = "id", text_field: str = "text"):
    """The ``read(path, data)`` of a format (a picklable function, for the loading workers)."""
    if fmt == "kaldi":
        return read_kaldi
    if fmt == "jsonl":
        return partial(read_jsonl, id_field=id_field, text_field=text_field)
    return read_trn


def salt(fmt: str, id_field: str = "id", text_field: str = "text") -> str:
    """What besides the bytes shapes the staged rows (warehouse/staging.py): empty for trn."""
    return {"trn": "", "kaldi": "kaldi"}.get(fmt, f"jsonl:{id_field}:{text_field}")


def read_kaldi(path: str | Path, data: bytes | None = None) -> pa.Table:
    """Read a Kaldi ``text`` file (``utt_id word word ...``) into ``(line_no, utt_id, text)``."""
    path = Path(path)
    text = decode_utf8(path, read_bytes(path) if data is None else data)
    lines = split_lines(text)
    frame = (pl.DataFrame([lines]).with_row_index("line_no", offset=1)
             .filter(pl.col("raw").str.strip_chars(BLANKS) != "")
             .with_columns(pl.col("raw").str.strip_chars(BLANKS).alias("line"))
             .with_columns(pl.col("line").str.extract(f"^({WORD})", 1).alias("utt_id"),
                           pl.col("line").str.replace(f"^{WORD}[{_BLANK}]*", "").alias("text")))
    return utterances(path, frame, "an utterance id")


def read_jsonl(path: str | Path, data: bytes | None = None, id_field: str = "id",
               text_field: str = "text") -> pa.Table:
    """Read JSON lines (``{"id": ..., "text": ...}`` per line, field names as given) into
    ``(line_no, utt_id, text)``."""
    path = Path(path)
    text = decode_utf8(path, read_bytes(path) if data is None else data)
    rows = jsonl_rows(path, text, id_field, text_field)
    frame = pl.DataFrame(rows, schema={"line_no": pl.UInt32, "utt_id": pl.String,
                                       "text": pl.String}, orient="row")
    return utterances(path, frame.with_columns(raw=pl.col("text")), "an utterance id")
