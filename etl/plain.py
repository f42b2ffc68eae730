"""What the small one-shot path reads in plain Python (no Polars or Arrow): a transcript's format
from its name (:func:`format_of`, which the readers' dispatch uses too) and the rows of a small
trn file (:func:`trn_rows`), exactly the rows :func:`etl.trn.read_trn` gives, from the same
pattern (:data:`ID_SUFFIX`) and the same limits (:func:`etl.text.check_lines`). A file
:func:`etl.trn.read_trn` would reject gives None here: its error is the reader's to give."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from scorehouse.etl.errors import InputError
from scorehouse.etl.text import BLANKS, check_lines

FORMATS = ("trn", "kaldi", "jsonl")
# a trn line's id: the last parenthesised group, between sclite's separators (etl/text.py)
ID_SUFFIX = r"[ \t\x0B\x0C\r]*\(([^() \t\x0B\x0C\r]+)\)[ \t\x0B\x0C\r]*$"
_ID = re.compile(ID_SUFFIX)


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
    path = Path(path)
    if path.suffix.lower() in (".jsonl", ".json"):
        return "jsonl"
    if path.suffix.lower() in (".stm", ".ctm"):  # NIST's time-marked pair (etl/stm.py)
        return path.suffix.lower()[1:]
    return "kaldi" if path.suffix.lower() == ".kaldi" or path.name == "text" else "trn"



def trn_rows(path: str | Path, data: bytes) -> list[tuple[int, str, str]] | None:
    """``(line_no, utt_id, text)`` of each utterance of a trn file's ``data`` (as
    :func:`etl.text.prepared` gives them), as :func:`etl.trn.read_trn` reads them: blank lines
    skipped, the id the last parenthesised group, the text before it trimmed. None when
    :func:`etl.trn.read_trn` would reject the file (too long a line, a byte that is not UTF-8, a
    line without an id, an id twice)."""
    try:
        check_lines(path, data)
        text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
    except (InputError, UnicodeDecodeError):
        return None
    rows, seen = [], set()
    for number, raw in enumerate(text.split("\n"), 1):
        raw = raw.removesuffix("\r")
        if not raw.strip(BLANKS):
            continue
        found = _ID.search(raw)
        if found is None or found.group(1) in seen:
            return None
        seen.add(found.group(1))
        rows.append((number, found.group(1),
                     (raw[:found.start()] + raw[found.end():]).strip(BLANKS)))
    return rows
