"""Resident tables: big per-unit tables whose rows stay in the unit store, as Parquet files.

A one-million-token POS unit fills 3.6 million rows (``int_pos_case``, ``int_pos_sys_unit``)
that only the corpus reduces and ad-hoc queries read. Copying them into the warehouse file cost
the coordinator more time than computing them (bench/pos_bench.py). So a table is *resident*
when its SQL file declares its rows as ``<table>_rows`` and ``<table>`` as a view:

- a unit committed from a local unit store (:mod:`warehouse.store`) leaves its rows in its
  Parquet file there, and the commit records the file in ``cat_unit_file``;
- a unit computed without a local store (an in-memory warehouse, an object store, a store that
  could not be written) has its rows inserted into ``<table>_rows`` as before;
- ``<table>`` is rebuilt, in the same transaction, as the view over both (:func:`refresh`), so
  every query, mart and page reads one table whatever the unit's path was.

The warehouse then needs its store folder: a run first checks that every recorded file is still
there (:func:`check`); the units whose files were lost are recomputed by that run.
``scorehouse sql`` reads them without opening any folder to queries (:func:`read_only`).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from pathlib import Path

import duckdb
import pyarrow as pa

from scorehouse.warehouse.db import sql_files

_UNIT = ("campaign", "task", "corpus", "system")


@cache
def declared() -> frozenset[str]:
    """Every resident table of ``sql/``: a view ``T`` whose file also creates ``T_rows``."""
    folders = [e.name for e in resources.files("scorehouse.sql").iterdir() if e.is_dir()
               and not e.name.startswith("_")]
    return frozenset(name for folder in folders for name, text in sql_files(folder).items()
                     if name in _ROWS_TABLE.findall(text))


_ROWS_TABLE = re.compile(r"CREATE TABLE IF NOT EXISTS (\w+)_rows\b")  # one pattern, compiled once


def rows_table(table: str) -> str:
    """Where the warehouse's own rows of ``table`` go: ``T_rows`` for a resident table."""
    return f"{table}_rows" if table in declared() else table


def forget(con, table: str, keys: str) -> None:
    """Remove the rows of the units in the relation ``keys`` (campaign, task, corpus, system)
    from ``table``: its own rows and, for a resident table, its recorded files."""
    on = " AND ".join(f"t.{c} = k.{c}" for c in _UNIT)
    con.execute(f"DELETE FROM {rows_table(table)} t USING {keys} k WHERE {on}")
    if table in declared():
        con.execute(f"DELETE FROM cat_unit_file t USING {keys} k WHERE {on} AND t.\"table\" = $t",
                    {"t": table})


def record(con, table: str, store: str, files: list[tuple[dict, str]]) -> None:
    """Record the Parquet ``files`` (unit key, path) holding units' rows of ``table``."""
    if files:
        rows = pa.Table.from_pylist([{**key, "table": table, "store": store, "path": path}
                                     for key, path in files])
        con.register("unit_files", rows)
        try:
            con.execute("INSERT OR REPLACE INTO cat_unit_file BY NAME SELECT * FROM unit_files")
        finally:
            con.unregister("unit_files")


def refresh(con, table: str) -> None:
    """Rebuild the view ``table`` over ``T_rows`` and the recorded files, in a stable order.
    The files' columns are cast to the rows table's types, so the view has the same columns
    and types whichever way a unit was committed."""
    files = _files(con, table)
    con.execute(f"CREATE OR REPLACE VIEW {table} AS "
                f"{_union(con, table, _read(files) if files else None)}")


def _files(con, table: str) -> list[str]:
    return [p for (p,) in con.execute(
        "SELECT path FROM cat_unit_file WHERE \"table\" = $t ORDER BY ALL", {"t": table}
    ).fetchall()]


def _union(con, table: str, files: str | None) -> str:
    """``T_rows`` and, if any, the rows of the relation ``files`` cast to ``T_rows``' types."""
    body = f"SELECT * FROM {table}_rows"
    if files is not None:
        body += f" UNION ALL {_cast(con, table, files)}"
    return body


def _cast(con, table: str, files: str) -> str:
    """The rows of the relation ``files`` cast to ``T_rows``' column types."""
    columns = con.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_name = $t ORDER BY ordinal_position", {"t": f"{table}_rows"}).fetchall()
    select = ", ".join(f'"{c}"::{kind} AS "{c}"' for c, kind in columns)
    return f"SELECT {select} FROM {files}"


def file_rows(con, table: str, paths: list[str]) -> str:
    """A query of the rows of the resident ``table`` held in the Parquet ``paths`` (unit
    outputs in a local store, recorded or not), with the view's column types."""
    return _cast(con, table, _read(paths))


def _read(paths: list[str]) -> str:
    quoted = ", ".join("'" + p.replace("'", "''") + "'" for p in paths)
    return f"read_parquet([{quoted}])"


def check(con) -> list[str]:
    """Forget the units whose recorded files are gone (a deleted or moved store): their
    states are dropped, so the run recomputes them. Returns a note per task, or nothing. Call
    it inside a transaction."""
    try:
        rows = con.execute("SELECT DISTINCT campaign, task, corpus, system, path "
                           "FROM cat_unit_file").fetchall()
    except duckdb.CatalogException:  # a new warehouse, or one made before resident tables
        return []
    lost = sorted({r[:4] for r in rows if not Path(r[4]).is_file()})
    if not lost:
        return []
    keys = pa.Table.from_pylist([dict(zip(_UNIT, unit)) for unit in lost])
    tables = [t for (t,) in con.execute("SELECT DISTINCT \"table\" FROM cat_unit_file").fetchall()]
    con.register("lost_units", keys)
    try:
        for table in tables:
            forget(con, table, "lost_units")
            refresh(con, table)
        on = " AND ".join(f"s.{c} = k.{c}" for c in _UNIT)
        con.execute(f"DELETE FROM cat_scoring s USING lost_units k WHERE {on}")
    finally:
        con.unregister("lost_units")
    by_task: dict[str, int] = {}
    for unit in lost:
        by_task[unit[1]] = by_task.get(unit[1], 0) + 1
    return [f"{task}: the stored rows of {n} unit(s) are gone from the store: they are "
            "recomputed" for task, n in sorted(by_task.items())]


def read_only(con) -> dict[str, str]:
    """Make the resident tables readable on a connection that will have no file access (the
    query surface, warehouse/query.py): each becomes a temporary view over its files opened
    here as an Arrow dataset, so DuckDB itself never opens a file, and no folder, the store's
    included, becomes readable or writable by a query. Returns the files of the tables whose
    files are gone (a deleted store; the next run recomputes them): path -> table."""
    import pyarrow.dataset as ds

    try:
        tables = [t for (t,) in con.execute(
            "SELECT DISTINCT \"table\" FROM cat_unit_file ORDER BY 1").fetchall()]
    except duckdb.Error:  # a warehouse made before resident tables: none
        return {}
    gone = {}
    for table in tables:
        files = _files(con, table)
        try:
            con.register(f"{table}__files", ds.dataset(files, format="parquet"))
        except (OSError, pa.ArrowException):
            gone |= {path: table for path in files}
            continue
        con.execute(f"CREATE TEMP VIEW {table} AS {_union(con, table, f'{table}__files')}")
    return gone


def gone_message(gone: dict[str, str], error: str) -> str | None:
    """What to say when a query failed on a resident table whose files are gone (DuckDB says
    only that it may not open a file), else None."""
    found = re.search(r'Cannot access file "([^"]+)"', error)
    if not found or found.group(1) not in gone:
        return None
    return (f"the unit store's files for {gone[found.group(1)]} are gone: run `scorehouse run` "
            "to recompute them")
