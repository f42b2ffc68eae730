"""What every reader gets: the file's bytes within the documented limits, with its line ends
made LF and its text in Unicode NFC, whatever the format.

- **Line ends**: CR LF and a lone CR (old Mac files) become LF, so a CR-only file is read line by
  line instead of as one huge line.
- **Normalisation**: text is put in NFC (canonical composition), so that ``é`` typed as ``e`` +
  combining acute (NFD, as some tools and macOS file systems write it) equals the precomposed
  ``é`` of the reference: without it one NFD word is a substitution in WER and a segmentation
  mismatch in POS. Every family's signature records it (``text:nfc``).
- **Limits**: a file of at most :data:`MAX_FILE_BYTES` bytes (``SCOREHOUSE_MAX_FILE_BYTES``);
  line-based formats check lines of at most :data:`MAX_LINE_CHARS` characters
  (:func:`check_lines`), so that no single line can make an alignment take minutes.

Bytes that are not UTF-8 are left as they are: the reader's decoding names the line of the first
bad byte.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from scorehouse.etl.errors import InputError

VERSION = "text:lf,nfc"  # part of every staged input's hash: a change here re-reads the files
SIGNATURE = "text:nfc"  # in every family's signature
MAX_FILE_BYTES = int(os.environ.get("SCOREHOUSE_MAX_FILE_BYTES", 4 * 2**30))
MAX_LINE_CHARS = 100_000


def prepared(path: str | Path, data: bytes) -> bytes:
    """``data`` with LF line ends and NFC text (see the module docstring)."""
    if len(data) > MAX_FILE_BYTES:
        raise InputError(path, None, f"a file of at most {MAX_FILE_BYTES:,} bytes",
                         f"{len(data):,} bytes")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data  # the reader names the first bad byte
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        data = unicodedata.normalize("NFC", text).encode("utf-8")
    return data


def check_lines(path: str | Path, data: bytes | str) -> None:
    """Refuse a line longer than :data:`MAX_LINE_CHARS` (bytes: a line of more bytes than that
    is checked in characters before it is refused).

    The scan jumps a window of ``MAX_LINE_CHARS + 1`` bytes at a time to the window's last line
    end (a ``memrchr``), so it costs a small fraction of parsing whatever the lines' lengths."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    limit, size, start = MAX_LINE_CHARS, len(raw), 0
    while size - start > limit:  # ``start`` is always a line's first byte
        last_end = raw.rfind(b"\n", start, start + limit + 1)
        if last_end >= 0:  # every line starting in the window ends in it: short enough
            start = last_end + 1
            continue
        end = raw.find(b"\n", start)
        end = size if end < 0 else end
        chars = len(raw[start:end].decode("utf-8", errors="replace"))
        if chars > limit:
            raise InputError(path, raw.count(b"\n", 0, start) + 1,
                             f"lines of at most {limit:,} characters",
                             f"a line of {chars:,} characters")
        start = end + 1
