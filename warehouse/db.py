"""The DuckDB warehouse: open it, apply every table and view of ``sql/``, run build statements.

Each ``sql/<folder>/<table>.sql`` file holds the DDL of one table or view and, after a
``-- @build`` line, the statement that fills it for one unit (named parameters ``$campaign``,
``$task``, ...). Files are read with importlib.resources, so a non-editable install works.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from contextlib import contextmanager, suppress
from functools import cache
from importlib import resources
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa

from scorehouse.warehouse.buffer import one_shot_limit
from scorehouse.warehouse.cores import configured
from scorehouse.warehouse.dbfile import SchemaError, refuse_foreign, refuse_other_tables, unreadable

_LAYERS = ("cat", "stg", "int", "fct", "hist", "mart")
_BUILD = "-- @build"
_BACKFILL = "-- @backfill"  # see _backfill


def connect(path: str | Path | None = None, spills: bool = False) -> duckdb.DuckDBPyConnection:
    """Open (or create) the warehouse file, or an in-memory warehouse when ``path`` is None (a
    one-shot's: ``spills``, see :func:`warehouse.buffer.one_shot_limit`). A file this DuckDB
    cannot read (another DuckDB's storage format, or not a DuckDB file at all) is a
    :class:`SchemaError` that says so, never a traceback."""
    if path is not None:
        refuse_foreign(path)
    try:
        con = duckdb.connect(":memory:" if path is None else str(path))
    except duckdb.IOException as err:
        raise unreadable(path, err) or err from None
    con.execute("SET preserve_insertion_order = true")
    _threads(con)
    # DuckDB draws a progress bar on stdout for queries over 2 s: stdout is for results (a
    # nightly run prints nothing there), and scorehouse shows its own progress on stderr
    con.execute("SET enable_progress_bar = false")
    # A checkpoint rewrites the tables a commit touched; at DuckDB's default (16 MB of WAL) each
    # small unit transaction triggers one, dearer as the tables grow (commit 0.15 s -> 0.5 s
    # over 16 EASY units). One per GB of WAL (and at close) keeps every commit at ~0.1 s.
    con.execute("SET checkpoint_threshold = '1GB'")
    # DuckDB takes up to 80 % of the RAM by default; a bounded buffer makes big queries spill to
    # disk instead. DuckDB fills it with cached blocks and the rows not yet checkpointed, so the
    # limit is the process's floor once a run has written enough: 256 MB leave the run's Polars
    # reduces room under 1 GiB (the EASY benchmark's coordinator: 1,106 MiB at 512 MB, 858 at
    # 256, the same CPU). Big queries use operators that spill (aggregates, not windows over a
    # corpus, the POS consensus in slices). The units' own DuckDBs have their own limit (below).
    in_memory = path is None or str(path) == ":memory:"
    limit = os.environ.get("SCOREHOUSE_MEMORY_LIMIT") or (
        one_shot_limit(con, spills) if in_memory else "256MB")
    con.execute(f"SET memory_limit = '{limit}'")
    if in_memory:  # DuckDB would spill into .tmp in the working folder: the user's
        con.execute("SET temp_directory = $dir", {"dir": tempfile.gettempdir()})
    return con


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, **views):
    """The Arrow tables (or frames) ``views`` readable by the block's statements under their
    names, unregistered after it. When the block fails, its error is the one raised: DuckDB
    refuses to unregister in a transaction a failed statement aborted, and that refusal hid
    the failure (a full buffer said as "internal error (TransactionException ...)")."""
    for name, rows in views.items():
        con.register(name, rows)
    try:
        yield con
    except BaseException:
        for name in views:
            with suppress(duckdb.Error):
                con.unregister(name)
        raise
    for name in views:
        con.unregister(name)


@cache
def sql_files(folder: str) -> dict[str, str]:
    """The .sql files of one folder of the ``sql`` package, by table name, in layer order."""
    files = {entry.name[:-4]: entry.read_text(encoding="utf-8")
             for entry in resources.files("scorehouse.sql").joinpath(folder).iterdir()
             if entry.name.endswith(".sql")}
    ordered = sorted(files, key=lambda name: (_LAYERS.index(name.split("_")[0]), name))
    # within a layer, a view reading another of the layer comes after it (comments aside)
    # (the words of each file, comments aside: a name is read when it is one of them)
    words = {name: set(re.findall(r"\w+", re.sub(r"--[^\n]*", "", text)))
             for name, text in files.items()}
    done: list[str] = []
    while ordered:
        layer = ordered[0].split("_")[0]
        pending = [n for n in ordered if n.split("_")[0] == layer]
        ready = next((n for n in pending if not any(
            other != n and other in words[n] for other in pending)), pending[0])
        done.append(ready)
        ordered.remove(ready)
    return {name: files[name] for name in done}


def apply_schema(con: duckdb.DuckDBPyConnection, folders: list[str],
                 in_memory: bool = False) -> None:
    """Create every table and view of the given folders (idempotent). A table of a warehouse
    made by an earlier version gains the columns this version added (null in its old rows: a
    unit whose code changed is recomputed anyway, history keeps what it knew); a column removed
    or retyped is a :class:`SchemaError` naming it, never a silent mismatch. Statements whose
    digest ``cat_schema`` records, on tables and views still of the shape they left, are not
    applied again (a fifth of a second of every run). ``in_memory``: ``con`` is a new
    in-memory warehouse (a one-shot's), which no later run opens: the statements are applied
    without checking or recording their digest and shape (a sixth of a one-shot's time)."""
    ddl = _ddl(folders)
    if in_memory:
        con.execute(ddl)
        return
    digest = hashlib.sha256(ddl.encode()).hexdigest()
    if _applied(con, folders, digest):
        return
    existing = _base_tables(con)
    tables = {table: text.split(_BUILD)[0]
              for folder in folders for name, text in sql_files(folder).items()
              for table in re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", text)}
    views = {view for folder in folders for text in sql_files(folder).values()
             for view in re.findall(r"CREATE OR REPLACE VIEW (\w+)", text)}
    # a warehouse's tables, by this version or an earlier one (a table now resident, or a view)
    refuse_other_tables(con, existing,
                        {t.removesuffix("_rows") for t in tables} | set(tables) | views)
    if not existing:  # a new warehouse: nothing to bring up to date; its statements in one
        from scorehouse.warehouse.catalog import transaction  # (catalog's rows need this module)

        with transaction(con):  # one write (one per statement: 0.5 s)
            con.execute(ddl)
            _record_schema(con, folders, digest)
        return
    # a table an earlier version kept whole, now resident (warehouse/resident.py): its rows
    # become the rows table under the view
    for table in tables:
        base = table.removesuffix("_rows")
        if table != base and base in existing and table not in existing:
            con.execute(f"ALTER TABLE {base} RENAME TO {table}")
    # a table an earlier version kept, now a view over other tables: its rows were derived
    for table in views & _base_tables(con):
        con.execute(f"DROP TABLE {table}")
    existing = _base_tables(con)
    if existing & set(tables):
        _add_columns(con, {t: ddl for t, ddl in tables.items() if t in existing})
    con.execute(ddl)
    _backfill(con, folders, set(tables) - existing)
    _record_schema(con, folders, digest)


def _applied(con, folders: list[str], digest: str) -> bool:
    """Whether the statements of ``folders`` (SHA-256 ``digest``) are those last applied and the
    tables, views and columns are as it left them (one dropped or altered by hand is mended)."""
    try:
        found = con.execute("SELECT digest, shape FROM cat_schema WHERE folders = ?",
                            [",".join(folders)]).fetchone()
    except duckdb.Error:  # a warehouse from before cat_schema (or its columns), or a new one
        return False
    return found is not None and found == (digest, _shape(con))


def _shape(con) -> str:
    """A digest of every table and view of ``con``, its kind, and its columns with their
    types, of every view's statement (but the resident views', which list the store's files
    and change with them: warehouse/resident.py) and of every macro's definition: a view or
    macro redefined by hand, or by another version, is applied again. Read from DuckDB's
    catalog functions: information_schema's rows, the whole shape 31 -> 27 ms
    (bench/small_ops_bench.py, bench/README.md round thirty-six)."""
    rows = con.execute("SELECT c.table_name, CASE WHEN v.view_name IS NOT NULL THEN 'VIEW' WHEN "
                       "c.database_name = 'temp' THEN 'LOCAL TEMPORARY' ELSE 'BASE TABLE' END, "
                       "c.column_name, c.data_type FROM duckdb_columns() c LEFT JOIN "
                       "duckdb_views() v ON (v.database_name, v.schema_name, v.view_name) = "
                       "(c.database_name, c.schema_name, c.table_name) WHERE NOT c.internal "
                       "ORDER BY ALL").fetchall()
    defined = con.execute("""
        SELECT view_name, sql FROM duckdb_views() v
        WHERE NOT internal AND NOT temporary AND NOT EXISTS (
            SELECT 1 FROM duckdb_tables() t WHERE t.table_name = v.view_name || '_rows')
        UNION ALL
        SELECT function_name, macro_definition FROM duckdb_functions()
        WHERE NOT internal AND function_type IN ('macro', 'table_macro')
        ORDER BY ALL""").fetchall()
    # DuckDB writes a view's EXCLUDE list in no fixed order from one process to the next
    rows += [(name, _EXCLUDE.sub(lambda m: ", ".join(sorted(m.group(1).split(", "))), text))
             for name, text in defined]
    return hashlib.sha256(repr(rows).encode()).hexdigest()


_EXCLUDE = re.compile(r"(?<=EXCLUDE \()([^()]*)(?=\))")


def _record_schema(con, folders: list[str], digest: str) -> None:
    con.execute("INSERT OR REPLACE INTO cat_schema VALUES (?, ?, ?)",
                [",".join(folders), digest, _shape(con)])


def _backfill(con, folders: list[str], created: set[str]) -> None:
    """Fill the tables just ``created`` in a warehouse made by an earlier version whose SQL file
    says ``-- @backfill``: their build statement, run once over the whole warehouse (a table
    derived from others, which the units' builds fill from then on)."""
    for folder in folders:
        for name, text in sql_files(folder).items():
            if name in created and _BACKFILL in text.split(_BUILD)[0]:
                build(con, folder, name)


def _ddl(folders: list[str]) -> str:
    """Every table and view statement of ``folders``, in order, as one script: DuckDB runs it
    in one call (a third of the time of one call per file, which a one-shot pays every time)."""
    return "\n;\n".join(text.split(_BUILD)[0] for folder in folders
                         for text in sql_files(folder).values())


def _base_tables(con) -> set[str]:
    found = con.execute("SELECT table_name FROM duckdb_tables() WHERE NOT temporary")
    return {name for (name,) in found.fetchall()}


def _columns(con) -> dict[str, dict[str, str]]:
    """table -> {column: type} of every table of ``con``."""
    out: dict[str, dict[str, str]] = {}
    for table, column, kind in con.execute("SELECT table_name, column_name, data_type FROM "
                                           "information_schema.columns ORDER BY table_name, "
                                           "ordinal_position").fetchall():
        out.setdefault(table, {})[column] = kind
    return out


def _add_columns(con, ddl: dict[str, str]) -> None:
    """Bring the existing tables named in ``ddl`` to its columns by adding the missing ones (the
    expected columns come from running every DDL once in a scratch in-memory database)."""
    scratch = duckdb.connect(":memory:")
    try:
        for text in ddl.values():
            scratch.execute(text)
        expected = _columns(scratch)
    finally:
        scratch.close()
    found = _columns(con)
    for table in ddl:
        wanted, have = expected[table], found[table]
        changed = [f"column {c} is {have[c]} here, {t} expected" for c, t in wanted.items()
                   if c in have and have[c] != t]
        changed += [f"column {c} is no longer used" for c in have if c not in wanted]
        if changed:
            raise SchemaError(f"table {table} of this warehouse was made by another version of "
                              f"scorehouse ({'; '.join(changed)}): score into a new --db file, or "
                              "remove the table to rebuild it")
        for column, kind in wanted.items():
            if column not in have:
                con.execute(f'ALTER TABLE {table} ADD COLUMN "{column}" {kind}')


def build(con: duckdb.DuckDBPyConnection, folder: str, table: str, **params) -> None:
    """Run the ``-- @build`` statement of ``sql/<folder>/<table>.sql`` with named parameters."""
    text = sql_files(folder)[table]
    if _BUILD not in text:
        raise KeyError(f"sql/{folder}/{table}.sql has no build statement")
    con.execute(text.split(_BUILD)[1], params)


_PRIVATE: dict[str, duckdb.DuckDBPyConnection] = {}  # sql folder -> its private database


def private(folder: str) -> duckdb.DuckDBPyConnection:
    """This process's private in-memory DuckDB holding the tables and views of ``sql/<folder>``
    (and the catalog's): where a unit's rows are written and its ``-- @build`` counts run,
    wherever the unit is computed, so that the SQL stays the single definition of a count
    (but POS's sentence counts, made in numpy by the rule of a view the tests hold them to:
    scorers/pos_judgement.py)."""
    if folder in _PRIVATE:
        return _PRIVATE[folder]
    con = _PRIVATE[folder] = duckdb.connect(":memory:")
    con.execute("SET preserve_insertion_order = true")
    con.execute("SET enable_progress_bar = false")
    # a unit's builds are small aggregates; the warehouse keeps the big buffer
    con.execute(f"SET memory_limit = '{os.environ.get('SCOREHOUSE_UNIT_MEMORY_LIMIT', '256MB')}'")
    con.execute("SET temp_directory = $dir", {"dir": tempfile.gettempdir()})  # spills, not in cwd
    _threads(con)
    con.execute(_ddl(["catalog", folder]))
    return con


def _threads(con: duckdb.DuckDBPyConnection) -> None:
    """DuckDB's threads as ``SCOREHOUSE_THREADS`` says (:mod:`warehouse.cores`); else its
    default, every core."""
    if threads := configured():
        con.execute(f"SET threads = {threads}")


def _take_share(con: duckdb.DuckDBPyConnection) -> None:
    """In a worker process, the private DuckDB takes the share of the cores its current task
    was given (``SCOREHOUSE_UNIT_THREADS``, :func:`warehouse.executors.share_cores`): one
    core each when every worker computes, all of them for a lone unit (a changed 1M-token POS
    unit's counts 1.6 -> 0.9 s). Elsewhere DuckDB's default, every core."""
    if threads := os.environ.get("SCOREHOUSE_UNIT_THREADS"):
        con.execute(f"SET threads = {int(threads)}")  # 0.1 ms


def written(folder: str, tables: tuple[str, ...], write, context: dict | None = None,
            rows: dict | None = None) -> dict:
    """A unit's rows of ``tables``, made in this process's private database (:func:`private`):
    ``rows`` are complete rows that need no SQL (see :func:`keyed`), ``context`` (table name ->
    Arrow rows) what the builds read besides (a reference's units, staged metadata); both are
    registered under their table's name, so the statements read them without a copy. Then
    ``write(con)`` inserts the other rows and runs the builds. Returns ``{table: Arrow rows}``;
    the private tables are emptied afterwards (the database closed, after a big unit)."""
    con = private(folder)
    _take_share(con)
    given = {**(context or {}), **(rows or {})}
    try:
        with registered(con, **given):
            write(con)
            return {table: (rows or {}).get(table) if table in (rows or {}) else
                    con.sql(f"SELECT * FROM {table}").to_arrow_table() for table in tables}
    finally:
        if any(t.num_rows >= 100_000 for t in given.values()):
            # closed, a new one made for the next unit (0.04 s): DuckDB kept a big unit's memory
            # after its rows were deleted and checkpointed (a POS worker between 1M-token units:
            # 560 MiB, 400 MiB after the close)
            del _PRIVATE[folder]
            con.close()
        else:
            for table in tables:
                if table not in given:
                    con.execute(f"DELETE FROM {table}")


def keyed(ids: dict, table: pa.Table, columns: list[str], **constants) -> pa.Table:
    """``table``'s ``columns`` after the unit's ids (campaign, task, corpus, system) and the
    given constant columns: the complete rows of a table the unit fills without SQL."""
    head = {name: constant(value, table.num_rows) for name, value in {**ids, **constants}.items()}
    return pa.table({**head, **{c: table[c] for c in columns}})


def constant(value, n: int) -> pa.Array:
    """``value`` ``n`` times, as a one-entry dictionary: no string per row. Its indices stay
    32-bit: a table of many such chunks written to Parquet keeps one dictionary per column,
    which narrower indices could not number when read back (one byte: 127 chunks)."""
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, dtype=np.int32)), pa.array([value]))


def frame(con: duckdb.DuckDBPyConnection, query: str, params=None) -> pl.DataFrame:
    """Run a query and return its result as a Polars frame (through Arrow, no copy per row)."""
    return con.sql(query, params=params).pl()


def one(con: duckdb.DuckDBPyConnection, query: str, params=None) -> tuple | None:
    """The first row of a query, or None; the result is read to its end so that the
    connection is free for the next statement."""
    rows = con.execute(query, params or []).fetchall()
    return rows[0] if rows else None


_VALUES = re.compile(r"^\s*INSERT (OR REPLACE )?INTO (\w+) VALUES \(\?(?:, \?)*\)\s*$",
                     re.IGNORECASE)


def insert_rows(con: duckdb.DuckDBPyConnection, statement: str, rows: list) -> None:
    """``executemany`` that accepts no rows (DuckDB refuses an empty list): an empty campaign, a
    task without systems, a corpus without markers insert nothing. ``INSERT [OR REPLACE] INTO t
    VALUES (?, ...)`` of every column goes through one Arrow table of ``t``'s column types (the
    same values: thousands of intervals in milliseconds, not one statement per row, which costs
    DuckDB 1.5 ms: a new campaign's 123 files were 0.2 s of stat-cache rows); a value Arrow will
    not convert to its column's type falls back to ``executemany``. ``OR REPLACE`` needs the
    table's primary key: of the rows of one key, the last is the one kept."""
    if not rows:
        return
    found = _VALUES.match(statement)
    if found is not None:
        replace, target = found.group(1) is not None, found.group(2)
        schema = con.sql(f"SELECT * FROM {target} LIMIT 0").to_arrow_table().schema
        if len(schema) == statement.count("?") and all(len(r) == len(schema) for r in rows):
            try:
                table = pa.table([pa.array([r[k] for r in rows], type=f.type)
                                  for k, f in enumerate(schema)], schema=schema)
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError,
                    TypeError, ValueError, OverflowError):
                table = None
            if table is not None and replace:
                key = _primary_key(con, target)
                if key is None:  # no key to replace by: as the statement says, row by row
                    table = None
                elif len(rows) > 1:
                    # one statement keeps the first row of a key given twice, executemany the
                    # last: the last one is inserted
                    last = {tuple(r[k] for k in key): i for i, r in enumerate(rows)}
                    table = table.take(sorted(last.values()))
            if table is not None:
                insert_arrow(con, target, table, "*", replace=replace)
                return
    con.executemany(statement, rows)


def _primary_key(con: duckdb.DuckDBPyConnection, table: str) -> list[int] | None:
    """The column positions of ``table``'s primary key, or None (0.4 ms; 1.85 through
    duckdb_constraints(), which lists every table's: bench/small_ops_bench.py)."""
    found = con.execute("SELECT cid FROM pragma_table_info(?) WHERE pk ORDER BY cid", [table])
    return [cid for (cid,) in found.fetchall()] or None


def insert_arrow(con: duckdb.DuckDBPyConnection, target: str, rows, select: str, params=None,
                 by_name: bool = False, replace: bool = False) -> None:
    """``INSERT [OR REPLACE] INTO target SELECT <select> FROM rows`` for an Arrow table
    ``rows``, which the statement reads as the view ``arrow_rows`` (``by_name``: columns
    matched by name)."""
    with registered(con, arrow_rows=rows):
        con.execute(f"INSERT {'OR REPLACE ' if replace else ''}INTO {target} "
                    f"{'BY NAME ' if by_name else ''}SELECT {select} FROM arrow_rows", params)
