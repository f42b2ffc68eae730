"""What the small one-shot path reads in plain Python (no Polars or Arrow): a transcript's format
from its name (:func:`format_of`, which the readers' dispatch uses too), the rows of JSON lines
(:func:`jsonl_rows`, which :func:`etl.transcripts.read_jsonl` reads them with) and of a small
trn file, exactly the rows :func:`etl.trn.read_trn` gives, from the same pattern
(:data:`ID_SUFFIX`) and the same limits (:func:`etl.text.check_lines`): :func:`small_rows`. A
file the reader would reject gives None there: its error is the reader's to give."""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path

from scorehouse.etl.errors import InputError, decode_utf8, shorten
from scorehouse.etl.text import BLANKS, alternation_word, check_lines

FORMATS = ("trn", "kaldi", "jsonl")
# a trn line's id: the last parenthesised group, between sclite's separators (etl/text.py)
ID_SUFFIX = r"[ \t\x0B\x0C\r]*\(([^() \t\x0B\x0C\r]+)\)[ \t\x0B\x0C\r]*$"
COMMENT = r"^(;;|\*\*)"  # a trn comment line (sclite's TEXT_is_comment, TEXT_is_comment_info)
# the same leftmost match in Python, but tried at the start of a run of separators only: Python's
# backtracking tried every position of a run (a line of 32,000 blanks then a word took 2 s; Rust's
# regex, which the reader uses, is linear and has no look-behind)
_ID = re.compile(r"(?<![ \t\x0B\x0C\r])" + ID_SUFFIX)


def format_of(path: str | Path, declared: str = "auto") -> str:
    """The format of a transcript file: ``declared``, or from its name when ``auto``: ``.jsonl``
    and ``.json`` are JSON lines, ``.kaldi`` and a file named ``text`` (Kaldi's data folders) are
    Kaldi, ``.stm`` and ``.ctm`` NIST's time-marked pair, anything else trn. STM and CTM are
    known by their names only: a declared format names the other files' format."""
    suffix = Path(path).suffix.lower()
    if suffix in (".stm", ".ctm"):
        return suffix[1:]
    if declared != "auto":
        return declared
    if suffix in (".jsonl", ".json"):
        return "jsonl"
    return "kaldi" if suffix == ".kaldi" or Path(path).name == "text" else "trn"


def jsonl_rows(path: str | Path, text: str, id_field: str = "id",
               text_field: str = "text") -> list[tuple[int, str, str]]:
    """``(line_no, utt_id, text)`` of each JSON line of ``text`` (blank lines skipped), the id
    and the text read from the fields named: :func:`etl.transcripts.read_jsonl`'s rows before
    its table's checks. A line that is not an object with those fields is an InputError."""
    rows = []
    for number, raw in enumerate(text.split("\n"), 1):
        if not raw.strip(BLANKS):
            continue
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):
            raise InputError(path, number, "a JSON object", shorten(raw)) from None
        if not isinstance(record, dict):
            raise InputError(path, number, "a JSON object", type(record).__name__)
        for field, kinds in ((id_field, (str, int)), (text_field, (str,))):
            value = record.get(field)
            if not isinstance(value, kinds) or isinstance(value, bool):
                names = " or ".join("a string" if k is str else "an integer" for k in kinds)
                found = "no such field" if field not in record else (
                    f"{type(value).__name__} {shorten(json.dumps(value))}")
                raise InputError(path, number, f"{names} in field {field!r}", found)
        rows.append((number, str(record[id_field]), record[text_field]))
    return rows


def small_rows(path: str | Path, data: bytes, fmt: str, id_field: str = "id",
               text_field: str = "text") -> list[tuple[int, str, str]] | None:
    """``(line_no, utt_id, text)`` of a trn or JSON lines file's ``data`` (as
    :func:`etl.text.prepared` gives them), the rows its reader gives (the text trimmed of
    sclite's separators); None when the reader would reject the file (a line too long, a byte
    that is not UTF-8, a line without an id, an id twice, a line that is not a JSON object with
    the fields, a lone surrogate, an sclite alternation) or for another format."""
    try:
        if fmt == "trn":
            rows = _trn_rows(path, data)
        elif fmt == "jsonl":
            rows = jsonl_rows(path, decode_utf8(path, data), id_field, text_field)
        else:
            return None
    except InputError:
        return None
    if rows is None or len({utt for _, utt, _ in rows}) < len(rows) or not all(
            utt for _, utt, _ in rows) or any(alternation_word(text) for _, _, text in rows):
        return None
    try:  # ids and texts as the reader's table holds them: UTF-8, which a lone surrogate is not
        for _, utt, text in rows:
            utt.encode("utf-8"), text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return [(number, utt, text.strip(BLANKS)) for number, utt, text in rows]


def _trn_rows(path: str | Path, data: bytes) -> list[tuple[int, str, str]] | None:
    """A trn file's rows as :func:`etl.trn.read_trn` reads them (blank lines skipped, the id the
    last parenthesised group, the text before it, not yet trimmed); None for a line without an
    id. Bytes that are not UTF-8 or a line too long raise the InputError."""
    check_lines(path, data)
    try:
        text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
    except UnicodeDecodeError:
        return None
    rows = []
    for number, raw in enumerate(text.split("\n"), 1):
        raw = raw.removesuffix("\r")
        if not raw.strip(BLANKS) or raw.startswith((";;", "**")):  # COMMENT
            continue
        found = _ID.search(raw)
        if found is None:
            return None
        rows.append((number, found.group(1), raw[:found.start()] + raw[found.end():]))
    return rows
