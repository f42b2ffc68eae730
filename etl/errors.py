"""The one error type every reader raises: ``file:line: expected X, found Y``."""

from __future__ import annotations

from pathlib import Path


class InputError(ValueError):
    """A rejected input file, with the place and the reason a person can act on."""

    def __init__(self, path: str | Path, line: int | None, expected: str, found: str):
        self.path = str(path)
        self.line = line
        self.expected = _capped(expected)
        self.found = _capped(found)  # a message never echoes a file: at most MESSAGE_CHARS
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: expected {self.expected}, found {self.found}")

    def __reduce__(self):  # picklable: a unit computed in a worker process reports it as it is
        return type(self), (self.path, self.line, self.expected, self.found)


MESSAGE_CHARS = 300


def _capped(text: str) -> str:
    text = str(text)
    return (text if len(text) <= MESSAGE_CHARS
            else f"{text[:MESSAGE_CHARS - 1]}… ({len(text):,} characters)")


def decode_utf8(path: Path, data: bytes) -> str:
    """Decode ``data`` as UTF-8 (a leading BOM is dropped), naming the line of the first bad byte;
    a line longer than the readers' limit is refused (:func:`etl.text.check_lines`)."""
    from scorehouse.etl.text import check_lines

    check_lines(path, data)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(path, line, "UTF-8 text",
                         f"the undecodable byte 0x{data[err.start]:02x}") from None


def shorten(text: str, width: int = 60) -> str:
    """A line quoted in an error message, cut to a readable width with its length said
    (``'abc…' (1,234 characters)``)."""
    if len(text) <= width:
        return repr(text)
    return f"{text[: width - 1] + '…'!r} ({len(text):,} characters)"


def holding(path: str | Path, expected: str):
    """A staging check (``warehouse.staging.StageJob.check``) that rejects a reference holding
    nothing to score, its table without rows: an empty file, comments only. An empty CoNLL-U
    reference was scored to no figure at all, exit 0, its corpus gone from its page unexplained;
    rejected, its page says why. (A term list or a coreference key without a term or a mention
    has defined figures: its family's convention for 0/0.)"""

    def check(table) -> None:
        if table.num_rows == 0:
            raise InputError(path, None, expected, "none (an empty file, or comments only)")

    return check
