"""Small helpers shared by the test modules (files on disk, error messages, generated trees,
builds made once per test run)."""

from __future__ import annotations

import html
import os
import pathlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from filelock import FileLock


def run_root(tmp_path_factory) -> pathlib.Path:
    """The folder of this test run that every pytest-xdist worker sees (each worker's own
    temporary folder sits in it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory, name: str, build) -> pathlib.Path:
    """The folder ``name`` of this test run, made by ``build(folder)`` by whichever worker
    asks first while the others wait for it. Its users only read it: a test that changes what
    it holds copies it first."""
    root = run_root(tmp_path_factory) / name
    with FileLock(f"{root}.lock"):
        if not (root / ".built").exists():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir(parents=True)
            build(root)
            (root / ".built").touch()
    return root


def copy_warehouse(db: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    """A copy of the warehouse ``db`` (closed) and of the unit store beside it
    (``<name>.store``) as ``dest`` and ``dest``'s store, the copy's resident and staged tables
    reading the copied store's files (``cat_unit_file`` and ``cat_staged_file``,
    warehouse/resident.py, record them by absolute path): what a first run of the campaign into
    ``dest`` leaves, as a run of the copy on the same files finds nothing changed (the
    warehouse knows its inputs by their content); the original is never read or written
    through the copy. Returns ``dest``."""
    from scorehouse.warehouse import resident

    assert not db.with_name(f"{db.name}.wal").exists(), f"{db} is open"
    old, new = db.with_suffix(".store"), dest.with_suffix(".store")
    shutil.copyfile(db, dest)
    shutil.copytree(old, new)
    con = duckdb.connect(str(dest))
    try:
        files = []
        for catalog in ("cat_unit_file", "cat_staged_file"):  # units' rows, staged inputs
            files += con.execute(f"SELECT DISTINCT store, \"table\" FROM {catalog}").fetchall()
            con.execute(f"UPDATE {catalog} SET path = $new || substr(path, length(store) + 1), "
                        "store = $new", {"new": str(new.resolve())})
        assert {pathlib.Path(s).resolve() for s, _ in files} <= {old.resolve()}, files
        for table in sorted({t for _, t in files}):
            resident.refresh(con, table)
    finally:
        con.close()
    return dest


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


# ------------------------------------------- running a campaign and reading what it left

SCOREHOUSE = str(Path(sys.executable).parent / "scorehouse")
VOLATILE = (
    "run_id",
    "previous_run_id",
    "scored_at",
    "loaded_at",
    "started_at",
    "finished_at",
    "created_at",
)


def run(campaign: Path, db: Path, out: Path, *options: str, **env) -> subprocess.CompletedProcess:
    """``scorehouse run CAMPAIGN --db DB --out OUT -q OPTIONS`` with ``env`` added."""
    environment = {**os.environ, **{k: str(v) for k, v in env.items()}}
    return subprocess.run(
        [SCOREHOUSE, "run", str(campaign), "--db", str(db), "--out", str(out), "-q", *options],
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def tables(db: Path, run_ids: bool = False) -> dict[str, Rows]:
    """Every result table's and view's rows (:class:`Rows`), sorted, without timestamps and
    (unless ``run_ids``) run ids. A resident
    table is compared through its view: whether a unit's rows sit in ``<table>_rows`` or in
    the store's files depends on how it was committed, not on what it holds."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE regexp_matches(table_name, "
                "'^(int|fct|mart|hist)_') AND NOT suffix(table_name, '_rows') ORDER BY table_name"
            ).fetchall()
        ]
        columns: dict[str, list[str]] = {name: [] for name in names}
        for name, column in con.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE list_contains(?, table_name) ORDER BY ordinal_position", [names]
        ).fetchall():
            if (column not in VOLATILE or run_ids and column.endswith("run_id")) and not (
                    column.endswith("_at")):
                columns[name].append(column)
        out = {}
        for name in names:
            quoted = ", ".join(f'"{c}"' for c in columns[name])
            out[name] = Rows(con.sql(f"SELECT {quoted} FROM {name} ORDER BY ALL")
                             .to_arrow_table())
        return out
    finally:
        con.close()


class Rows:
    """A table's rows as :func:`tables` reads them, sorted: as Arrow columns, which two tables of
    the same shape compare without making a Python object per value (a demo warehouse's 280,000
    rows: 1.4 s of CPU read as tuples); read as a list of tuples (DuckDB's own conversion, as
    ``fetchall``) when iterated, indexed, shown, or compared with what is not Arrow-equal (equal
    Arrow columns make equal tuples; anything else is settled on the tuples)."""

    __slots__ = ("arrow", "_rows")
    __hash__ = None

    def __init__(self, arrow):
        self.arrow, self._rows = arrow, None

    @property
    def rows(self) -> list[tuple]:
        if self._rows is None:
            con = duckdb.connect()
            try:
                self._rows = con.from_arrow(self.arrow).fetchall()
            finally:
                con.close()
        return self._rows

    def __eq__(self, other) -> bool:
        if isinstance(other, Rows):
            return self.arrow.equals(other.arrow) or self.rows == other.rows
        return self.rows == other

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return self.arrow.num_rows

    def __getitem__(self, index):
        return self.rows[index]

    def __repr__(self) -> str:
        return repr(self.rows)


def page_text(path: Path) -> str:
    """A page's text as a reader reads it (styles and charts dropped, tags dropped, entities
    read, whitespace runs, no-break spaces included, one space)."""
    page = re.sub(r"<(style|svg)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def published(out: Path) -> dict[str, bytes]:
    root = out.resolve()
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


# ------------------------------------------- killing a run at a step boundary and resuming it


def boundaries(log: Path) -> list[str]:
    """The step boundaries' names, in order, of the ``SCOREHOUSE_CHECKPOINT_LOG`` ``log``."""
    return [line.split("\t")[1] for line in log.read_text().splitlines()]


def kill_point(names: list[str], point: str) -> int:
    """The 1-based boundary of an uninterrupted run's log (``names``) named by ``point``: the
    first commit, a third in, two thirds in, the last commit (of the commits: a staged file, a
    unit, a reduce), a page (halfway through the pages), the edition written or published."""
    commits = [i + 1 for i, n in enumerate(names) if n == "commit"]
    pages = [i + 1 for i, n in enumerate(names) if n.startswith("page ")]
    return {
        "first commit": commits[0],
        "a third in": commits[len(commits) // 3],
        "two thirds in": commits[2 * len(commits) // 3],
        "last commit": commits[-1],
        "a page": pages[len(pages) // 2],
        "edition written": names.index("edition written") + 1,
        "edition published": names.index("edition published") + 1,
    }[point]


def killed_then_resumed(uninterrupted, tmp_path: Path, point: str) -> None:
    """A run of ``uninterrupted``'s campaign (``(folder, campaign folder, boundaries, tables,
    published files)``, conftest.py ``uninterrupted``) killed with SIGKILL at ``point``
    (:func:`kill_point`), then run plainly, gives its every table and published file; a reader
    after the kill sees one whole edition; a third run finds nothing changed."""
    _, campaign, names, expected_tables, expected_files = uninterrupted
    at = kill_point(names, point)
    db, out = tmp_path / "b.duckdb", tmp_path / "b" / "bulletins"
    killed = run(campaign, db, out, SCOREHOUSE_KILL_AT=at)
    assert killed.returncode == -9, (
        f"not killed at boundary {at} ({names[at - 1]}): {killed.stderr}"
    )
    if out.exists():  # whatever a reader sees after the kill is one whole edition
        assert (out / "index.html").exists()
    again = run(campaign, db, out)
    assert again.returncode == 0, again.stderr
    got = tables(db)
    assert got.keys() == expected_tables.keys()
    for name in got:
        assert got[name] == expected_tables[name], (
            f"{name} differs after a kill at {at} ({names[at - 1]})"
        )
    assert published(out) == expected_files
    third = run(campaign, db, out)
    said = third.stdout + third.stderr
    assert "nothing changed" in said and "up to date" in said, said
