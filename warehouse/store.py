"""The unit store: every unit's output as Parquet files, addressed by the unit's fingerprint.

A worker that computes a unit writes its tables here (``units/<key[:2]>/<key>/<i>.parquet`` and,
last, ``manifest.json``) and the coordinator commits them into the warehouse from here, so a
remote worker's output never has to travel through the coordinator's memory as one message, and
a unit whose output is already stored under its fingerprint is not computed again: a retry, a
run killed between a unit's compute and its commit, an identical resubmission.

The store lives wherever a pyarrow filesystem reaches: a local folder (``--store DIR``; by
default the folder beside the ``--db`` file, ``<db stem>.store``) or an object store URL such as
``s3://bucket/prefix`` (credentials from the usual ``AWS_*`` variables; ``?endpoint_override=``
for an S3-compatible server). DuckDB stays the catalog and the query surface: every table a unit
fills is committed into the warehouse, except the big *resident* tables (``int_pos_case``,
``int_pos_sys_unit``), which a local store keeps as the units' Parquet files under a warehouse
view (:mod:`warehouse.resident`). The store may be deleted at any time: the next run recomputes
what it needs, the units whose resident rows were there included.

A unit's key (:func:`unit_key`) is the fingerprint of its campaign, task, corpus, system and
state: the state already names its inputs' content hashes, options and code version.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from scorehouse.warehouse.catalog import fingerprint
from scorehouse.warehouse.cores import cores

_FORMAT = 1
# rows per Parquet row group of a saved table: a query over the resident files that keeps a
# range of reference units (the POS consensus counted a slice at a time) reads the row groups
# whose statistics overlap it, not the whole file (pyarrow's default, 1M rows, made each of the
# 42 slices of the bench's tally read every case file whole: 31.6 s of CPU, 15.4 s with these)
ROW_GROUP = 65_536


def _ranged(schema: pa.Schema) -> list[str]:
    """The columns whose row groups keep statistics: the numbers a range query keeps (reference
    units, tokens, sentences). A unit's strings and lists of tags are never a range, and their
    minima and maxima cost a quarter of the time to write a 1M-token POS unit's cases (0.58 ->
    0.43 s, by hand)."""
    return [field.name for field in schema
            if pa.types.is_integer(field.type) or pa.types.is_floating(field.type)]


class StoreError(Exception):
    """The store cannot be opened or written: one line naming it and the reason, exit 1."""


def unit_key(campaign: str, task: str, corpus: str, system: str, state: str) -> str:
    """The store key of one unit's output."""
    return fingerprint({"campaign": campaign, "task": task, "corpus": corpus, "system": system,
                        "state": state})


def default_location(db: str | Path | None) -> str | None:
    """The folder beside the warehouse file (None for an in-memory warehouse)."""
    if db is None or str(db) == ":memory:":
        return None
    path = Path(db).resolve()
    return str(path.with_name(f"{path.stem}.store"))


class Store:
    """A folder or an object-store prefix holding unit outputs (see the module docstring)."""

    def __init__(self, location: str):
        self.location = location
        self.label = location.split("?")[0]  # for messages: no credentials from a URL's query
        try:
            if "://" in location:
                self.fs, self.root = pafs.FileSystem.from_uri(location)
            else:
                self.fs, self.root = pafs.LocalFileSystem(), str(Path(location).resolve())
            self.fs.create_dir(f"{self.root}/units", recursive=True)
            # resident tables (warehouse/resident.py) are read in place from a local folder
            self.local = isinstance(self.fs, pafs.LocalFileSystem)
        except (OSError, ValueError, pa.ArrowException) as err:
            raise StoreError(f"cannot use the store {self.label}: {err}") from None

    def _folder(self, key: str) -> str:
        return f"{self.root}/units/{key[:2]}/{key}"

    def manifest(self, key: str) -> dict | None:
        """The manifest of a complete output under ``key``, or None (absent, or cut short)."""
        try:
            with self.fs.open_input_stream(f"{self._folder(key)}/manifest.json") as f:
                manifest = json.loads(f.read())
        except (OSError, ValueError, pa.ArrowException):
            return None
        return manifest if manifest.get("format") == _FORMAT else None

    def has(self, key: str) -> bool:
        return self.manifest(key) is not None

    def save(self, key: str, tables: dict) -> None:
        """Write a unit's ``{name: Arrow table | Polars frame | None}``, each file whole or
        absent (:func:`whole_file`: two writers of one unit never cut each other's files short
        under a reader); the manifest goes last, so an output cut short by a kill is never
        taken for a complete one."""
        kinds = [[name, _kind(name, table)] for name, table in tables.items()]  # file order
        folder = self._folder(key)

        def write(i: int, table) -> None:
            arrow = table.to_arrow() if isinstance(table, pl.DataFrame) else table
            with whole_file(f"{folder}/{i}.parquet", self.fs) as partial, \
                    self.fs.open_output_stream(partial) as f:
                pq.write_table(arrow, f, compression="lz4", row_group_size=ROW_GROUP,
                               write_statistics=_ranged(arrow.schema))
        try:
            self.fs.create_dir(folder, recursive=True)
            # the files encoded at once, on every core (pyarrow lets go of the GIL): a lone
            # 1M-token POS unit's 0.7 s of Parquet written in 0.5 s
            with ThreadPoolExecutor(cores()) as threads:
                for done in [threads.submit(write, i, table)
                             for i, table in enumerate(tables.values()) if table is not None]:
                    done.result()
            manifest = json.dumps({"format": _FORMAT, "tables": kinds}, sort_keys=True)
            with whole_file(f"{folder}/manifest.json", self.fs) as partial, \
                    self.fs.open_output_stream(partial) as f:
                f.write(manifest.encode())
        except (OSError, pa.ArrowException) as err:
            raise StoreError(f"cannot write to the store {self.label}: {err}") from None

    def load(self, key: str, manifest: dict | None = None, skip=()) -> dict:
        """A unit's tables, as they were saved (Arrow tables, Polars frames and Nones), except
        those named in ``skip``; ``manifest``: the one already read for ``key``, if any (one
        read less per unit)."""
        manifest = manifest or self.manifest(key)
        if manifest is None:
            raise StoreError(f"the store {self.label} has no complete output {key}")
        out = {}
        for i, (name, kind) in enumerate(manifest["tables"]):
            if name in skip:
                continue
            if kind is None:
                out[name] = None
                continue
            with self.fs.open_input_file(f"{self._folder(key)}/{i}.parquet") as f:
                table = pq.read_table(f)
            out[name] = pl.from_arrow(table) if kind == "polars" else table
        return out


    def files(self, key: str, manifest: dict) -> dict[str, str]:
        """The Parquet file of each non-empty table of a complete output (local stores)."""
        return {name: f"{self._folder(key)}/{i}.parquet"
                for i, (name, kind) in enumerate(manifest["tables"]) if kind is not None}


    def put_input(self, table) -> "StoredInput":
        """Keep a unit's input table (Arrow or Polars) under its content hash, once: the
        workers read it from here instead of receiving it through the coordinator."""
        arrow = table.to_arrow() if isinstance(table, pl.DataFrame) else table
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, arrow.schema) as writer:
            writer.write_table(arrow)
        data = sink.getvalue()
        key = hashlib.blake2b(data, digest_size=16).hexdigest()
        path = self.input_path(key, "arrows")
        try:
            if self.fs.get_file_info(path).type == pafs.FileType.NotFound:
                self.fs.create_dir(path.rsplit("/", 1)[0], recursive=True)
                with whole_file(path, self.fs) as partial, self.fs.open_output_stream(
                        partial) as f:
                    f.write(data)
        except (OSError, pa.ArrowException) as err:
            raise StoreError(f"cannot write to the store {self.label}: {err}") from None
        return StoredInput(self.location, key, isinstance(table, pl.DataFrame))

    def put_rows(self, con, sql: str, params: dict, name: str, folder: str = "staged") -> str:
        """Keep the rows of a warehouse query (a local store only) as the Parquet file ``name``
        (a key: the same name, the same rows) of ``folder``, written by DuckDB as it streams,
        whole or absent. Returns the file's path (:meth:`input_path`)."""
        path = self.input_path(name, folder=folder)
        with self._failing(), whole_file(path) as partial:
            _copy(con, sql, params, partial)
        return path

    @contextmanager
    def _failing(self):
        """A write that fails (the disk full, a folder that may not be written: an OSError, or
        DuckDB's own IOException for a COPY) is a :class:`StoreError`."""
        try:
            yield
        except (OSError, duckdb.Error) as err:
            raise StoreError(f"cannot write to the store {self.label}: {err}") from None

    @contextmanager
    def _writing(self, partial: str):
        """A file written as ``partial`` in its folder, which the block moves into place: a
        write that fails is a :class:`StoreError` (:meth:`_failing`), and no partial file
        stays."""
        try:
            with self._failing():
                os.makedirs(os.path.dirname(partial), exist_ok=True)
                yield
        finally:
            if os.path.exists(partial):
                os.remove(partial)

    def input_path(self, key: str, fmt: str = "parquet", folder: str = "inputs") -> str:
        """Where the input ``key`` lives (:class:`StoredInput`): ``inputs/`` for the tables
        kept for units, ``staged/`` for the staged rows of input files (warehouse/resident.py)."""
        return f"{self.root}/{folder}/{key[:2]}/{key}.{fmt}"

    def put_query(self, con, sql: str, params: tuple, version: str = "") -> "StoredInput":
        """Keep the result of a warehouse query (a local store only) under its content hash,
        written by DuckDB as it streams: the rows never become a frame in this process. With a
        ``version`` (:class:`Query`), the file found for the same query, parameters and version
        is kept without running the query again (a reference's 1.1M units: 0.8-1.1 s of CPU
        each run)."""
        folder = f"{self.root}/inputs"
        named = (f"{folder}/queries/" + fingerprint({"sql": sql, "params": list(params),
                                                     "version": version})) if version else None
        if named is not None:
            try:
                with open(named, encoding="utf-8") as f:
                    key = f.read().strip()
                if key and os.path.isfile(self.input_path(key)):
                    return StoredInput(self.location, key, True, "parquet")
            except OSError:  # not kept yet (or unreadable): the query runs
                pass
        partial = f"{folder}/.{uuid.uuid4().hex}.parquet.partial"
        with self._writing(partial):
            _copy(con, sql, list(params), partial)
            digest = hashlib.blake2b(digest_size=16)
            with open(partial, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
            key = digest.hexdigest()
            path = self.input_path(key)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.replace(partial, path)  # whole or absent; the same rows give the same file
        if named is not None:
            # the pointer to it likewise, from a partial file of this writer's own, removed when
            # the write fails (a full disk): no stray partial, no pointer half written
            with self._failing(), whole_file(named) as pointer:
                with open(pointer, "w", encoding="utf-8") as f:
                    f.write(key)
        return StoredInput(self.location, key, True, "parquet")


@contextmanager
def whole_file(path: str | Path, fs=None):
    """Write the file ``path`` whole or not at all: the block writes the partial file it is
    given (a name of this writer's own beside ``path``), moved into place when the block ends;
    when the block fails, or a kill ends it, no file is at ``path`` but what was there, and the
    partial file is removed (but after a kill). Two writers of the same ``path`` never mix their
    bytes, nor fail on each other's move. ``fs``: the pyarrow file system to write in (the
    caller makes the folder), else the local one (the folder made)."""
    path = os.fspath(path)
    partial = f"{path}.{uuid.uuid4().hex}.partial"
    move, remove = (os.replace, os.remove) if fs is None else (fs.move, fs.delete_file)
    if fs is None:
        os.makedirs(os.path.dirname(partial) or ".", exist_ok=True)
    try:
        yield partial
        move(partial, path)
    except BaseException:
        with suppress(OSError, pa.ArrowException):
            remove(partial)
        raise


def _copy(con, sql: str, params, path: str) -> None:
    """DuckDB writes the rows of ``sql`` to the Parquet file ``path`` as it streams them."""
    con.execute(f"COPY ({sql}) TO '{path.replace(chr(39), chr(39) * 2)}' "
                "(FORMAT parquet, COMPRESSION lz4)", params)


@dataclass(frozen=True)
class StoredInput:
    """A reference to an input table kept in the store (:meth:`Store.put_input`), sent to a
    worker in place of the table and read there (:func:`resolved`)."""

    location: str
    key: str
    polars: bool
    format: str = "arrows"  # Arrow IPC (put_input) or Parquet (put_query, put_rows)
    kept: bool = True  # kept by the worker for its next units (:func:`resolved`)
    columns: tuple[str, ...] | None = None  # the columns read (Parquet; None: every one)
    folder: str = "inputs"  # or "staged": an input file's staged rows (put_rows)


@dataclass(frozen=True)
class Query:
    """A unit's input given as a query over the warehouse, its parameters content hashes (so one
    query always reads the same rows). With worker processes or Dask and a local store, DuckDB
    copies its rows to the store as it streams them, once, and the workers read that file; the
    coordinator never holds them. Otherwise it is read here as a Polars frame."""

    sql: str
    params: tuple = ()
    # the rows of (sql, params) never change under this version (a family's code version: a
    # reference's derived rows): a local store then keeps them once, not at every run
    version: str = ""
    # read by several units (a corpus's reference): a worker keeps the last few it read; False:
    # one unit's input (a submission), let go once that unit is computed (three 1M-token
    # submissions kept beside the reference were a full re-score's worker peak)
    kept: bool = True


@lru_cache(maxsize=4)  # the corpus's reference, shared by its units, is read once per worker
def _kept_input(location: str, key: str, polars: bool, fmt: str = "arrows", columns=None,
                folder: str = "inputs"):
    return _input(location, key, polars, fmt, columns, folder)


def _input(location: str, key: str, polars: bool, fmt: str = "arrows", columns=None,
           folder: str = "inputs"):
    store = opened(location)
    columns = None if columns is None else list(columns)
    try:
        path = store.input_path(key, fmt, folder)
        if fmt == "parquet" and polars:  # read by Polars: no Arrow copy held beside the frame
            with store.fs.open_input_file(path) as f:
                return pl.read_parquet(f, columns=columns)
        if fmt == "parquet":
            with store.fs.open_input_file(path) as f:
                table = pq.read_table(f, columns=columns)
        else:
            with store.fs.open_input_stream(path) as f:
                table = pa.ipc.open_stream(f).read_all()
    except (OSError, pa.ArrowException, pl.exceptions.PolarsError) as err:
        raise StoreError(f"cannot read input {key} from the store {store.label}: {err}") from None
    return pl.from_arrow(table) if polars else table


def resolved(argument):
    """A compute's argument as the worker uses it: a :class:`StoredInput` read from the store
    (kept for the next units when :attr:`StoredInput.kept`)."""
    if isinstance(argument, StoredInput):
        read = _kept_input if argument.kept else _input
        return read(argument.location, argument.key, argument.polars, argument.format,
                    argument.columns, argument.folder)
    return argument


def _kind(name: str, table) -> str | None:
    if table is None:
        return None
    if isinstance(table, pl.DataFrame):
        return "polars"
    if isinstance(table, pa.Table):
        return "arrow"
    raise TypeError(f"a unit's output {name!r} must be an Arrow table, a Polars frame or None, "
                    f"not {type(table).__name__}")


@cache
def opened(location: str) -> Store:
    """One :class:`Store` per location and process (a worker reuses its filesystem)."""
    return Store(location)
