"""The query surface: ``scorehouse sql`` over a warehouse opened read-only and locked.

The warehouse file is opened read-only, then DuckDB's access to anything outside it is switched
off (``enable_external_access = false``: no ``read_csv``, ``COPY ... TO``, ``glob``, ``ATTACH`` of
another file, extension loading or web access) and the configuration is locked
(``lock_configuration = true``: a query cannot switch it back). A query sees the warehouse's own
tables and views and nothing else. An organiser who wants local files in a query names the
folders (``--allow-files DIR``): DuckDB may then read and write under them (its
``allowed_directories``); that trusts the query, so it is never the default.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import polars as pl

from scorehouse.warehouse import resident
from scorehouse.warehouse.db import insert_rows
from scorehouse.warehouse.dbfile import SchemaError, refuse_foreign, unreadable
from scorehouse.warehouse.locks import in_use


class QueryError(Exception):
    """The query or the warehouse cannot be used: one line, exit 1."""


def open_locked(db: str | Path, allow: tuple[str, ...] = ()) -> duckdb.DuckDBPyConnection:
    """The warehouse ``db`` read-only, external access off (but under ``allow``), locked."""
    if not isinstance(db, (str, os.PathLike)):
        raise TypeError(f"a warehouse is a path to a DuckDB file, not {type(db).__name__}")
    path = Path(db)
    if path.is_dir():
        raise QueryError(f"{db}: is a folder, not a warehouse file")
    if not path.is_file():
        raise QueryError(f"{db}: no such warehouse file (create one with scorehouse run)")
    try:
        refuse_foreign(db)
        con = duckdb.connect(str(path), read_only=True)
    except SchemaError as err:
        raise QueryError(str(err)) from None
    except duckdb.Error as err:
        clear = unreadable(db, err) if isinstance(err, duckdb.IOException) else None
        raise QueryError(str(clear) if clear else in_use(err)
                         or f"{db}: cannot open the warehouse: {err}") from None
    if con.execute("SELECT current_setting('lock_configuration')").fetchall()[0][0]:
        return con  # open already in this process (one DuckDB instance per file): locked as is
    _GONE[id(con)] = resident.read_only(con)  # the store's files, read here, never by a query
    if allow:
        folders = [str(Path(a).resolve()) + "/" for a in allow]
        con.execute("SET allowed_directories = $folders", {"folders": folders})
    con.execute("SET enable_external_access = false")
    con.execute("SET enable_progress_bar = false")  # stdout carries the query's result only
    con.execute("SET lock_configuration = true")
    return con


def answer(con: duckdb.DuckDBPyConnection, query: str) -> pl.DataFrame:
    """The query's result; a DuckDB error (a refused file access included) is a QueryError."""
    try:
        relation = con.sql(query)
        return relation.pl() if relation is not None else pl.DataFrame()
    except duckdb.Error as err:
        message = one_line(str(err))
        if "file system operations are disabled" in message:  # what to give, on purpose
            message += " (a query reads the warehouse's tables only; --allow-files DIR lets it " \
                       "read and write files under DIR)"
        raise QueryError(resident.gone_message(_GONE.get(id(con), {}), str(err))
                         or message) from None


def one_line(message: str) -> str:
    """A DuckDB error in one line: its first, and its hints (``Did you mean "mart_wer_scores"?``,
    ``Candidate bindings: ...``), which name only what the query may read anyway."""
    lines = message.splitlines()
    return " ".join([lines[0], *(line.strip() for line in lines[1:]
                                 if line.startswith(("Did you mean", "Candidate bindings")))]
                    if lines else [message])


_GONE: dict[int, dict[str, str]] = {}  # id(connection) -> the gone files of its resident tables


def plain_table(frame: pl.DataFrame, max_rows: int) -> tuple[str, int]:
    """An aligned plain-text table of at most ``max_rows`` rows (strings never cut or wrapped,
    nulls shown empty) and the number of rows left out."""
    shown = frame.head(max_rows)
    cells = [[_cell(v) for v in row] for row in shown.iter_rows()]
    header = [str(c) for c in frame.columns]
    widths = [max([len(h), *(len(r[i]) for r in cells)]) for i, h in enumerate(header)]
    numeric = [dtype.is_numeric() for dtype in frame.dtypes]

    def line(values: list[str]) -> str:
        return "  ".join((v.rjust(w) if n else v.ljust(w)) for v, w, n in
                         zip(values, widths, numeric)).rstrip()
    rows = [line(header), line(["-" * w for w in widths]), *(line(r) for r in cells)]
    return "\n".join(rows), frame.height - shown.height


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def public_database(bulletins: str | Path, out: str | Path) -> list[str]:
    """Write ``out``, a DuckDB file holding only what a bulletin edition published: one table per
    published Parquet table (``<page>__<table>``, e.g. ``asr__wer_scores``) and
    ``published_tables`` listing them. Withheld systems are absent and anonymous ones appear under
    their codes, as on the pages, because the tables are the pages' own. Returns the table
    names."""
    from scorehouse.warehouse.publish import edition_audience

    root = Path(bulletins).resolve()
    if edition_audience(root.name) != "public":
        raise QueryError(f"{bulletins}: is the {edition_audience(root.name)} edition, not for "
                         "publication: public-db reads the public bulletins")
    files = sorted(root.glob("*/*.parquet"))
    if not files:
        raise QueryError(f"{bulletins}: no published tables (expected a bulletin folder written "
                         "by scorehouse run or report)")
    target = Path(out)
    if target.exists() and not _public_database(target):
        raise QueryError(f"{out}: exists and is not a public database written by "
                         "scorehouse public-db; name another file")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    con = duckdb.connect(str(partial))
    names = []
    try:
        for file in files:
            name = f"{file.parent.name}__{file.stem}".replace("-", "_")
            con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM read_parquet($file)',
                        {"file": str(file)})
            names.append((name, file.parent.name, str(file.relative_to(root))))
        con.execute("CREATE TABLE published_tables (name VARCHAR, page VARCHAR, file VARCHAR)")
        insert_rows(con, "INSERT INTO published_tables VALUES (?, ?, ?)", names)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    partial.rename(target)
    return [n for n, _, _ in names]


def _public_database(path: Path) -> bool:
    """Whether ``path`` is a public database (the only file public-db replaces)."""
    if not path.is_file():
        return False
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return False
    try:
        found = con.execute("SELECT count(*) FROM information_schema.tables "
                            "WHERE table_name = 'published_tables'").fetchall()[0][0]
        kinds = con.execute("SELECT count(*) FROM information_schema.tables "
                            "WHERE table_name LIKE 'cat\\_%' ESCAPE '\\'").fetchall()[0][0]
    finally:
        con.close()
    return found == 1 and kinds == 0


class Warehouse:
    """A warehouse file opened read-only, as ``scorehouse sql`` opens it (:func:`open_locked`):
    ``scorehouse.open(db)``. Use it as a context manager, or call :meth:`close`."""

    def __init__(self, db: str | Path, allow: tuple[str, ...] = ()):
        self.path = Path(db)
        self.con = open_locked(db, allow)

    def sql(self, query: str) -> pl.DataFrame:
        """The result of a query over the warehouse's tables and views."""
        return answer(self.con, query)

    def tasks(self) -> pl.DataFrame:
        """The tasks of the warehouse's campaigns: campaign, task, family, corpora."""
        return self.sql("SELECT campaign, task, family, count(*) AS corpora FROM cat_corpus "
                        "GROUP BY ALL ORDER BY ALL")

    def scores(self, task: str, campaign: str | None = None) -> pl.DataFrame:
        """The scores table of a task's family (``mart_<family>_scores``), for that task; a
        KeyError names the tasks there are."""
        from scorehouse.warehouse.families import SCORES

        tasks = self.tasks()
        mine = tasks.filter((pl.col("task") == task) & (
            pl.col("campaign") == campaign if campaign else pl.lit(True)))
        if mine.is_empty():
            raise KeyError(f"no task {task!r} in {self.path}; tasks: "
                           f"{sorted(set(tasks['task']))}")
        family = mine["family"][0]
        for table in SCORES[family]:  # parsing: EASY's table, else CoNLL-U's
            rows = self.con.sql(f"SELECT * FROM {table} WHERE task = $task"
                                + (" AND campaign = $campaign" if campaign else ""),
                                params={"task": task, **({"campaign": campaign} if campaign
                                                         else {})}).pl()
            if not rows.is_empty():
                break
        return rows

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Warehouse:
        return self

    def __exit__(self, *_) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<scorehouse warehouse {self.path} (read-only)>"
