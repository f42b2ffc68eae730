"""What every reader gets: the file's bytes within the documented limits, with its line ends
made LF and its text in Unicode NFC, whatever the format.

- **Line ends**: CR LF and a lone CR (old Mac files) become LF, so a CR-only file is read line by
  line instead of as one huge line.
- **Normalisation**: text is put in NFC (canonical composition), so that ``é`` typed as ``e`` +
  combining acute (NFD, as some tools and macOS file systems write it) equals the precomposed
  ``é`` of the reference: without it one NFD word is a substitution in WER and a segmentation
  mismatch in POS. Every family's signature records it (``text:nfc``).
- **Limits**: a file of at most :data:`MAX_FILE_BYTES` bytes (``SCOREHOUSE_MAX_FILE_BYTES``),
  refused before it is read (:func:`read_bytes`, :func:`copy_bytes`: a sparse 3 GB file took
  3 GB of memory, ``/dev/zero`` given to a one-shot filled the disk, before the limit was
  checked);
  line-based formats check lines of at most :data:`MAX_LINE_CHARS` characters
  (:func:`check_lines`), so that no single line can make an alignment take minutes.

Bytes that are not UTF-8 are left as they are: the reader's decoding names the line of the first
bad byte.

- **Word separators**: words and fields are split where sclite splits them, on the C library's
  ``isspace`` bytes (:data:`BLANKS`: space, TAB, LF, VT, FF, CR) and nowhere else: a no-break space
  (U+00A0), an ideographic space (U+3000), any other character of Unicode's ``Zs`` class, NEL or
  the separators U+001C-U+001F stay inside the word, as in ``sclite -e utf-8`` and jiwer.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import unicodedata
from pathlib import Path

from scorehouse.etl.errors import InputError

VERSION = "text:lf,nfc,blanks"  # in every staged input's hash: a change here re-reads the files
SIGNATURE = "text:nfc"  # in every family's signature
MAX_FILE_BYTES = int(os.environ.get("SCOREHOUSE_MAX_FILE_BYTES", 4 * 2**30))
MAX_LINE_CHARS = 100_000
BLANKS = " \t\n\v\f\r"  # sclite's word separators: isspace() in the C locale
WORD = r"[^ \t\n\x0B\x0C\r]+"  # a word between sclite's separators (a Polars/Rust pattern)
# what str.split() splits on and sclite does not (looked for one by one: 100 times a regex's speed)
_OTHER_SPACES = [c for c in map(chr, range(0x3001)) if c.isspace() and c not in BLANKS]
_BLANK_RUN = re.compile(r"[ \t\n\v\f\r]+")
_BELOW_U0100 = bytes(range(0xC4))  # the bytes of no UTF-8 sequence from U+0100 on


def blank_lines(text: str):
    """``(line number, line, fields)`` for each line of ``text`` that is not blank: the line
    stripped and split at sclite's separators (:data:`BLANKS`) only; through ``str.strip`` and
    ``str.split`` (the fastest) when ``text`` holds no other whitespace."""
    plain = not any(space in text for space in _OTHER_SPACES)
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip() if plain else raw.strip(BLANKS)
        if line:
            yield number, line, line.split() if plain else fields(line)


def fields(line: str) -> list[str]:
    """The words of ``line`` between sclite's separators (:data:`BLANKS`), and nowhere else."""
    return [f for f in _BLANK_RUN.split(line) if f]


def _too_large(path: str | Path, found: str) -> InputError:
    return InputError(path, None, f"a file of at most {MAX_FILE_BYTES:,} bytes "
                      "(SCOREHOUSE_MAX_FILE_BYTES)", found)


def _limited(source, size: int | None):
    """The chunks of the open file ``source`` (``size``: its size if it is a regular file),
    InputError as soon as it has more than :data:`MAX_FILE_BYTES` bytes: a regular file by its
    size, before a byte is read; a pipe or a device once it has given one byte more."""
    if size is not None and size > MAX_FILE_BYTES:
        raise _too_large(source.name, f"{size:,} bytes")
    if size is not None:
        yield source.read()
        return
    given = 0
    while chunk := source.read(shutil.COPY_BUFSIZE):
        given += len(chunk)
        if given > MAX_FILE_BYTES:
            raise _too_large(source.name, f"more than {MAX_FILE_BYTES:,} bytes")
        yield chunk


def _size(source) -> int | None:
    info = os.fstat(source.fileno())
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def read_bytes(path: str | Path) -> bytes:
    """The bytes of the file at ``path`` (a path, a pipe, a device), refused (InputError) past
    :data:`MAX_FILE_BYTES` before they are read (:func:`_limited`)."""
    with open(path, "rb") as source:
        data = b"".join(_limited(source, _size(source)))
    if len(data) > MAX_FILE_BYTES:  # a file that grew while it was read
        raise _too_large(path, f"{len(data):,} bytes")
    return data


def copy_bytes(path: str | Path, copy: str | Path) -> None:
    """The file at ``path`` (a pipe, a device) copied to ``copy``, refused as by
    :func:`read_bytes` (a one-shot reads a pipe into a regular file first)."""
    with open(path, "rb") as source, open(copy, "wb") as target:
        for chunk in _limited(source, _size(source)):
            target.write(chunk)


def prepared(path: str | Path, data: bytes) -> bytes:
    """``data`` with LF line ends and NFC text (see the module docstring)."""
    if len(data) > MAX_FILE_BYTES:
        raise _too_large(path, f"{len(data):,} bytes")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if _below_u0100(data):  # in NFC, whether it is UTF-8 or not (the reader names a bad byte)
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data  # the reader names the first bad byte
    if not text.isascii() and not latin1(text) and not unicodedata.is_normalized("NFC", text):
        data = unicodedata.normalize("NFC", text).encode("utf-8")
    return data


def _below_u0100(data: bytes) -> bool:
    """Whether no UTF-8 sequence of ``data`` can encode a character from U+0100 on: no byte is
    0xC4 or above (U+0100 is 0xC4 0x80; every other byte of a sequence is below 0xC0). One pass
    of NumPy's maximum, where decoding and checking took 40 times as long; such a text is in NFC
    (:func:`latin1`)."""
    np = sys.modules.get("numpy")  # loaded already by the readers' pyarrow and Polars
    if np is None:  # a small one-shot, which loads none: bytes.translate, a tenth of its speed
        return not data.translate(None, _BELOW_U0100)
    return not data or int(np.frombuffer(data, dtype=np.uint8).max()) < 0xC4


def latin1(text: str) -> bool:
    """Whether every character of ``text`` is below U+0100: such a text is in NFC (no Latin-1
    character decomposes to more than a letter and one mark that recomposes it, and none is a
    mark), and Python answers by copying the text's own one-byte storage, where the NFC check
    reads every character (a tenth of a French trn file's reading time)."""
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


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


ALTERNATION = "{"  # opens sclite's alternation "{ a / b }" (inside a word: sclite cannot read it)
NO_ALTERNATION = "words, not sclite's alternation '{ a / b / @ }' (not scored: keep one of them)"


def alternation_word(text: str) -> str | None:
    """The first sclite alternation of ``text`` (from the word holding a ``{`` to the matching
    ``}``: SCTK's ``find_next_TEXT_token`` reads one starting a word as a network of choices,
    and cannot read a line with one inside a word), or None. scorehouse aligns words, not
    networks: every transcript reader refuses such a line, so that no figure counts braces and
    slashes as words where sclite would not."""
    found = text.find(ALTERNATION)
    if found < 0:
        return None
    start = max(text.rfind(blank, 0, found) for blank in BLANKS) + 1  # its word's first
    rest, depth = text[start:], 0
    opened = False
    for end, char in enumerate(rest, 1):  # up to the matching "}", as sclite reads it
        depth += (char == "{") - (char == "}")
        opened = opened or char == "{"
        if opened and depth <= 0:
            return rest[:end]
    return rest

