"""What a warehouse file is: a DuckDB database this DuckDB can read. A file that is not one (a
CSV given as ``--db``), or one another DuckDB wrote in a storage format this one cannot read, is a
:class:`SchemaError` that says what to do, never a traceback or a run writing nowhere."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb


class SchemaError(Exception):
    """The warehouse file holds a table this version of scorehouse cannot use as it is."""


def _header(path: str | Path, size: int) -> bytes | None:
    """The first ``size`` bytes of a file, or None when it cannot be read (absent, a folder)."""
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except OSError:
        return None


def is_duckdb(header: bytes | None) -> bool:
    """Whether a file header is a DuckDB database's (``DUCK`` at byte 8)."""
    return header is not None and header[8:12] == b"DUCK"


def written_by(path: str | Path) -> str | None:
    """The DuckDB version that created a database file, as its header records it (DuckDB 0.10
    and later), else None."""
    header = _header(path, 84)
    if not is_duckdb(header) or len(header) < 84:
        return None
    version = header[52:84].split(b"\0")[0].decode("ascii", "replace")
    return version or None


_NOT_A_WAREHOUSE = ("{path}: not a DuckDB warehouse file (give the .duckdb file that scorehouse "
                    "run created, or a new file name)")


def refuse_foreign(path: str | Path) -> None:
    """A :class:`SchemaError` for an existing, non-empty file that is not a DuckDB database (no
    ``DUCK`` in its header): DuckDB would open a CSV or Parquet file as a view in an in-memory
    database, and a run would write nowhere."""
    header = _header(path, 12)  # None: absent (created), or a folder: DuckDB says what is wrong
    if header and not is_duckdb(header):
        raise SchemaError(_NOT_A_WAREHOUSE.format(path=path))


def database_path(con: duckdb.DuckDBPyConnection) -> str:
    """The file of ``con``'s database, as it was opened."""
    return con.execute("SELECT path FROM duckdb_databases() "
                       "WHERE database_name = current_database()").fetchall()[0][0]


def refuse_other_tables(con: duckdb.DuckDBPyConnection, tables: set[str], known: set[str]
                        ) -> None:
    """A :class:`SchemaError` for a DuckDB file whose tables (``tables``) are not a warehouse's:
    the public database (``scorehouse public-db``: its ``published_tables``), or another
    program's, none of its tables one a warehouse has (``known``: those scorehouse's SQL makes,
    and their names before they became resident). Given as ``--db``, it was made a warehouse by
    the run, which wrote every system into it, the withheld ones too, beside the public tables
    it kept."""
    if not tables or ("published_tables" not in tables and tables & known):
        return
    path = database_path(con)
    if "published_tables" in tables:
        raise SchemaError(f"{path}: a public database (written by scorehouse public-db), not a "
                          "warehouse: give the --db that scorehouse run created")
    shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
    raise SchemaError(f"{path}: a DuckDB database of other tables ({shown}), not a scorehouse "
                      "warehouse: give the --db that scorehouse run created, or a new file name")


def unreadable(path, err: duckdb.Error) -> SchemaError | None:
    """A clear error for a --db file this DuckDB cannot read, or None for another error."""
    text = str(err)
    if "not a valid DuckDB database file" in text:
        return SchemaError(_NOT_A_WAREHOUSE.format(path=path))
    found = re.search(r"storage version(?: number)? (\d+)", text) or re.search(
        r"version number (\d+)", text)
    if found is None:
        return None
    readable = re.search(r"between (\d+) and (\d+)", text)
    made = re.search(r"created with DuckDB version ([^\n]+?)\.?\n", text)
    writer = written_by(path) or (made.group(1) if made else "another DuckDB")
    return SchemaError(
        f"{path}: this warehouse was written by DuckDB {writer} (storage version "
        f"{found.group(1)}); this scorehouse runs DuckDB {duckdb.__version__}"
        + (f", which reads storage versions {readable.group(1)} to {readable.group(2)}"
           if readable else ", which cannot read it")
        + ": open it with the DuckDB that wrote it and EXPORT DATABASE, then IMPORT DATABASE "
        "here, or score into a new --db file")
