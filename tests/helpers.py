"""Small helpers shared by the test modules (files on disk, error messages, generated trees)."""

from __future__ import annotations

import pathlib
import re

import pytest


def write(tmp_path: pathlib.Path, name: str, data: bytes | str) -> pathlib.Path:
    """Write ``data`` (UTF-8 if text) to ``tmp_path / name`` and return the path."""
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def assert_message(err: pytest.ExceptionInfo, path, line: int | None) -> str:
    """The reader's error is exactly ``path:line: expected X, found Y`` (``path: ...`` without a
    line)."""
    message = str(err.value)
    where = re.escape(str(path)) + (f":{line}" if line is not None else "")
    assert re.fullmatch(rf"{where}: expected .+, found .+", message), message
    assert err.value.line == line
    return message


def tree(root: pathlib.Path) -> dict[str, bytes]:
    """Every file under ``root``, by relative path, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def text_lines(path: pathlib.Path) -> list[str]:
    """The lines of a generated text file, which must end with one LF and contain no CR."""
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n") and "\r" not in text, path
    return text[:-1].split("\n")


# Participants of every publication kind (public, anonymous, withheld, organiser), for the bulletin
# tests' campaign.toml: a page must show alpha, beta under its code, never gamma, orga apart.
PUBLICATION_PARTICIPANTS = """[[participants]]
id = "alpha"
name = "Alpha Lab"

[[participants]]
id = "beta"
name = "Beta Team"
publication = "anonymous"

[[participants]]
id = "gamma"
name = "Gamma Hidden Institute"
publication = "withheld"

[[participants]]
id = "orga"
name = "The Organisers"
organiser = true
"""
