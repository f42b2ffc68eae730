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

A *staged* table (``stg_*``: the parsed input files, by content hash) declared the same way is
kept in the store too: a file's rows are written once, when it is staged, as a Parquet input
file of the store (:func:`keep_staged`, recorded in ``cat_staged_file``), which its units read
in place (:func:`staged_input`) instead of the warehouse copying them out for each unit. A lost
staged file is parsed again by the next load (:func:`lost_staged`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa

from scorehouse.warehouse.db import registered, sql_files

_UNIT = ("campaign", "task", "corpus", "system")


@cache
def _kept() -> frozenset[str]:
    """Every table of ``sql/`` kept in the store: a view ``T`` whose file also creates
    ``T_rows``."""
    folders = [e.name for e in resources.files("scorehouse.sql").iterdir() if e.is_dir()
               and not e.name.startswith("_")]
    return frozenset(name for folder in folders for name, text in sql_files(folder).items()
                     if name in _ROWS_TABLE.findall(text))


def declared() -> frozenset[str]:
    """Every resident table of ``sql/``, its rows kept per unit (not a staged table)."""
    return frozenset(t for t in _kept() if not t.startswith("stg_"))


_ROWS_TABLE = re.compile(r"CREATE TABLE IF NOT EXISTS (\w+)_rows\b")  # one pattern, compiled once


def rows_table(table: str) -> str:
    """Where the warehouse's own rows of ``table`` go: ``T_rows`` for a table kept in the
    store (resident or staged)."""
    return f"{table}_rows" if table in _kept() else table


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
        with registered(con, unit_files=rows):
            con.execute("INSERT OR REPLACE INTO cat_unit_file BY NAME SELECT * FROM unit_files")


def refresh(con, table: str) -> None:
    """Rebuild the view ``table`` over ``T_rows`` and the recorded files, in a stable order.
    The files' columns are cast to the rows table's types, so the view has the same columns
    and types whichever way a unit was committed."""
    files = _files(con, table)
    con.execute(f"CREATE OR REPLACE VIEW {table} AS "
                f"{_union(con, table, _read(files) if files else None)}")


def _files(con, table: str) -> list[str]:
    catalog = "cat_staged_file" if table.startswith("stg_") else "cat_unit_file"
    return [p for (p,) in con.execute(
        f"SELECT path FROM {catalog} WHERE \"table\" = $t AND path IS NOT NULL ORDER BY ALL",
        {"t": table}).fetchall()]


def _recorded(con) -> list[str]:
    """The tables some of whose rows are recorded as files (unit or staged)."""
    try:
        return [t for (t,) in con.execute(
            "SELECT DISTINCT \"table\" FROM cat_unit_file UNION SELECT DISTINCT \"table\" "
            "FROM cat_staged_file WHERE path IS NOT NULL ORDER BY 1").fetchall()]
    except duckdb.Error:  # a warehouse made before resident or staged files: none
        return []


def _union(con, table: str, files: str | None) -> str:
    """``T_rows`` and, if any, the rows of the relation ``files`` cast to ``T_rows``' types."""
    body = f"SELECT * FROM {table}_rows"
    if files is not None:
        body += f" UNION ALL {_cast(con, table, files)}"
    return body


def _cast(con, table: str, files: str) -> str:
    """The rows of the relation ``files`` cast to ``T_rows``' column types."""
    return _cast_to(row_types(con, table), files)


def row_types(con, table: str) -> tuple[tuple[str, str], ...]:
    """``T_rows``' columns and their types, in order: ``pragma_table_info``, the same names and
    types as ``information_schema`` (1.4 ms a call in a small run against 4.3: its views over
    DuckDB's catalog functions; bench/statements_bench.py)."""
    return tuple(con.execute("SELECT name, type FROM pragma_table_info($t) ORDER BY cid",
                             {"t": f"{table}_rows"}).fetchall())


def _cast_to(types: tuple[tuple[str, str], ...], files: str) -> str:
    select = ", ".join(f'"{c}"::{kind} AS "{c}"' for c, kind in types)
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
    states are dropped, so the run recomputes them; and the staged contents whose files are gone
    (:func:`lost_staged`). Returns a note per task, or nothing. Call it inside a transaction."""
    return _check_staged(con) + _check_units(con)


def _check_units(con) -> list[str]:
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
    with registered(con, lost_units=keys):
        for table in tables:
            forget(con, table, "lost_units")
            refresh(con, table)
        on = " AND ".join(f"s.{c} = k.{c}" for c in _UNIT)
        con.execute(f"DELETE FROM cat_scoring s USING lost_units k WHERE {on}")
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

    gone = {}
    lost = lost_current(con)
    for table in sorted(set(_recorded(con)) | set(lost)):
        if table in lost:  # its rows would be read without those files': a clear error instead
            message = (f"the staged rows of {lost[table]} input file(s) of {table} are gone from "
                       "the unit store: run `scorehouse run` to parse them again")
            con.execute(f"CREATE TEMP VIEW {table} AS SELECT * FROM {table}_rows "
                        f"WHERE (SELECT error('{message}')) IS NULL")  # no quote in it
            continue
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


def _check_staged(con) -> list[str]:
    """Mark the staged files that are gone as lost (their path NULL): the next load parses
    those contents again (:func:`lost_staged`)."""
    try:
        rows = con.execute("SELECT sha256, \"table\", path FROM cat_staged_file "
                           "WHERE path IS NOT NULL").fetchall()
    except duckdb.CatalogException:  # a warehouse made before staged files
        return []
    lost = [(sha, table) for sha, table, path in rows if not _whole_parquet(path)]
    for sha, table in lost:
        con.execute("UPDATE cat_staged_file SET path = NULL WHERE sha256 = $s AND \"table\" = $t",
                    {"s": sha, "t": table})
    for table in sorted({t for _, t in lost}):
        refresh(con, table)
    if not lost:
        return []
    current = sum(lost_current(con).values())
    return [f"the staged rows of {len(lost)} input file(s) are gone from the store (or cut "
            f"short): the {current} still current are parsed again by the next load"]


def _whole_parquet(path: str) -> bool:
    """Whether ``path`` is there and ends as a Parquet file does (a file cut short or
    overwritten is not: it is parsed again, like a lost one)."""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
            f.seek(-4, 2)
            return head == b"PAR1" and f.read(4) == b"PAR1"
    except OSError:  # gone, or shorter than its marks
        return False


def lost_current(con, campaign: str | None = None) -> dict[str, int]:
    """Staged table -> how many current input files' staged rows are lost (their path NULL),
    of ``campaign`` (None: of any campaign)."""
    try:
        return dict(con.execute(
            "SELECT s.\"table\", count(DISTINCT s.sha256) FROM cat_staged_file s "
            "JOIN cat_input_current c USING (sha256) WHERE s.path IS NULL "
            "AND ($c IS NULL OR c.campaign = $c) GROUP BY ALL", {"c": campaign}).fetchall())
    except duckdb.CatalogException:
        return {}


def lost_staged(con) -> set[str]:
    """The content hashes whose staged rows were kept in the store and found gone: staged
    again by the next load, whatever their file's hash says."""
    try:
        return {s for (s,) in con.execute(
            "SELECT sha256 FROM cat_staged_file WHERE path IS NULL").fetchall()}
    except duckdb.CatalogException:
        return set()


def staged_key(table: str, sha: str) -> str:
    """The store input key of the staged rows of content ``sha`` in ``table``."""
    return hashlib.blake2b(f"{table}\0{sha}".encode(), digest_size=16).hexdigest()


STAGED_ROWS = 100_000  # a file staged with this many rows or more is kept in a local store


def keep_staged(con, store, table: str, sha: str, rows: pa.Table, select: str, params: dict,
                order: str = "") -> None:
    """Stage the Arrow ``rows`` of content ``sha`` into the staged ``table`` (``stg_*``, kept
    in the store when declared so, ``store`` is local and they are :data:`STAGED_ROWS` or
    more: a small file costs less inserted than written as a file): ``select`` gives them with
    the table's column names (``sha256`` among them), reading them as ``arrow_rows``;
    ``order``, if they do not come in the order their units read them, sorts them (else they
    keep theirs: the warehouse preserves insertion order). Kept: written as the store's staged
    file :func:`staged_key`, in the types of ``T_rows``, recorded in ``cat_staged_file``; else
    (or when the store cannot take them: a full disk, a read-only folder) inserted into the
    warehouse's own rows of the table. ``rows`` may be the file a worker process wrote
    (:class:`KeptRows`): then it is recorded."""
    if isinstance(rows, KeptRows):  # written into the store by the worker that parsed them
        _record_staged(con, table, sha, store, rows.path)
        return
    query = _staged_query(rows, select, order)
    if keeps_staged(store, table) and rows.num_rows >= STAGED_ROWS:
        from scorehouse.warehouse.store import StoreError

        # written by a connection of its own: a failed write leaves this one's transaction whole
        writer = con.cursor()
        writer.register("arrow_rows", rows)
        try:
            path = store.put_rows(writer, _cast(con, table, f"({query})"), params,
                                  staged_key(table, sha))
        except StoreError:
            path = None
        finally:
            writer.close()
        if path is not None:
            _record_staged(con, table, sha, store, path)
            return
    with registered(con, arrow_rows=rows):
        con.execute(f"INSERT INTO {rows_table(table)} BY NAME {query}", params)
    if table in _kept():  # no longer lost: in the warehouse's own rows now
        con.execute("DELETE FROM cat_staged_file WHERE sha256 = $s AND \"table\" = $t",
                    {"s": sha, "t": table})


def keeps_staged(store, table: str) -> bool:
    """Whether the staged ``table``'s big files are kept in ``store`` (declared so, and the
    store local)."""
    return table in _kept() and store is not None and store.local


def _staged_query(rows: pa.Table, select: str, order: str) -> str:
    """The staged rows of ``rows`` (registered as ``arrow_rows``): ``select`` of them, sorted on
    ``order`` unless they come so."""
    if order and in_order(rows, [column.strip() for column in order.split(",")]):
        order = ""  # a sort of 0.1 s of CPU a 370,000-row EASY file, for nothing
    return f"SELECT * FROM ({select})" + (f" ORDER BY {order}" if order else "")


def _record_staged(con, table: str, sha: str, store, path: str) -> None:
    con.execute("INSERT OR REPLACE INTO cat_staged_file VALUES ($s, $t, $store, $p)",
                {"s": sha, "t": table, "store": store.root, "p": path})
    refresh(con, table)


@dataclass(frozen=True)
class KeptRows:
    """A file's staged rows written into the store by the worker process that parsed them
    (:func:`write_staged`), in place of the rows: the file and how many rows it holds."""

    path: str
    num_rows: int


def write_staged(location: str, table: str, types: tuple, min_rows: int, select,
                 order: str, sha: str, rows: pa.Table) -> KeptRows | None:
    """Worker side of :func:`keep_staged`: write the staged rows of ``rows`` (the query
    ``select(column names)`` of them, sorted on ``order``, cast to ``types``: ``T_rows``'
    columns) as the store's staged file, as the coordinator would; None when they are fewer
    than ``min_rows`` or the store cannot take them (then the rows go back to the coordinator,
    which stages them). Saves the coordinator receiving the rows and writing them (an EASY
    submission of 370,000 rows: 0.2 s of CPU for the write alone)."""
    from scorehouse.warehouse.store import StoreError, opened

    if rows.num_rows < min_rows:
        return None
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET threads = 1")  # every worker parses: a core each
        con.register("arrow_rows", rows)
        query = _staged_query(rows, select(tuple(rows.column_names)), order)
        query = _cast_to(types, f"({query})")
        path = opened(location).put_rows(con, query, {"sha": sha}, staged_key(table, sha))
    except StoreError:
        return None
    finally:
        con.close()
    return KeptRows(path, rows.num_rows)


def in_order(rows: pa.Table, columns: list[str]) -> bool:
    """Whether ``rows`` come sorted on ``columns`` as SQL's ``ORDER BY`` sorts them (ascending,
    nulls last; rows equal on them in any order): then they need no sort, and keep the order
    they came in among equals."""
    frame = pl.from_arrow(rows.select(columns))
    after = pl.lit(True)  # the row does not sort before the previous one on the later columns
    for column in reversed(columns):  # lexicographic: the first column decides first
        value, previous = pl.col(column), pl.col(column).shift(1)
        after = (pl.when(value.is_null()).then(previous.is_not_null() | after)
                 .when(previous.is_null()).then(pl.lit(False))
                 .otherwise((value > previous) | ((value == previous) & after)))
    return bool(frame.select((after | (pl.int_range(pl.len()) == 0)).all()).item())


def staged_input(con, store, table: str, sha: str, columns: tuple[str, ...],
                 kept: bool = False):
    """The staged rows of content ``sha`` as a unit's input read in place from the store
    (a :class:`~warehouse.store.StoredInput` of ``columns``; ``kept``: kept by a worker for its
    next units, as a corpus's reference), or None when they are the warehouse's own rows (or
    the file is not in ``store``)."""
    if store is None or not store.local:
        return None
    found = con.execute("SELECT path FROM cat_staged_file WHERE sha256 = $s AND \"table\" = $t "
                        "AND store = $root AND path IS NOT NULL",
                        {"s": sha, "t": table, "root": store.root}).fetchall()
    if not found:
        return None
    from scorehouse.warehouse.store import StoredInput

    return StoredInput(store.location, staged_key(table, sha), True, "parquet", kept=kept,
                       columns=columns, folder="staged")
