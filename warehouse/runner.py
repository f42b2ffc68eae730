"""The unit runner shared by every family: what is stale, where it runs, how it is committed.

A family declares its units (:class:`Unit`: corpus, system, the content hashes of its inputs and
its state fingerprint), where their rows go (:class:`Target`: its SQL folder, the tables a unit
fills, its history table) and two functions:

- ``prepare(unit)``, in the coordinator: the unit's inputs as Arrow / Polars tables (read from the
  warehouse) and whatever else ``compute`` needs, as a tuple of picklable arguments;
- ``compute(key, *arguments)``, anywhere: a pure function of the unit's key (campaign, task,
  corpus, system) and its arguments returning the unit's rows, ``{table: Arrow table}``, for the
  target's tables. It never touches the warehouse: it writes its rows and runs the ``-- @build``
  statements of its counts in the worker's private in-memory DuckDB (:func:`warehouse.db.written`),
  so that the SQL stays the single definition of a count wherever the unit runs.

:func:`run_units` runs ``compute`` on an executor and commits the results as they arrive, in a
bounded window, so the coordinator never holds every unit's output at once. Small units are
committed in batches (one transaction for up to :data:`BATCH_UNITS` units or
:data:`BATCH_ROWS` rows): each unit's rows replace its previous ones, its history rows are built
and its state recorded in the same transaction. A unit rejected by its compute (an
:class:`etl.errors.InputError`) is recorded as a rejection; the other units go on.

Executors: ``workers == 1`` (the default) computes in this process; ``workers > 1`` uses that
many worker processes (``--workers`` or ``SCOREHOUSE_WORKERS``); ``--executor tcp://HOST:8786``
sends the units to the workers of a running Dask distributed scheduler (``dask scheduler``,
``dask worker tcp://HOST:8786``, or dask-jobqueue on Slurm), each of which refuses a unit unless
it runs the coordinator's scorehouse code (:func:`package_version`). Results are the same bit for
bit whichever is used: a compute depends on its arguments only, and the tables do not depend on
the order in which units are committed (``tests/test_runner.py``).
"""

from __future__ import annotations

import os
import uuid
from collections import OrderedDict, deque
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache, partial
from multiprocessing import get_context
from typing import Any, Callable

import polars as pl
import pyarrow as pa
from rich.console import Console
from rich.progress import Progress

from etl.errors import InputError
from scorers import lcs
from warehouse import __version__, resident
from warehouse.catalog import (
    RunContext,
    fingerprint,
    package_files,
    record_scorings,
    transaction,
)
from warehouse.db import insert_arrow
from warehouse.store import StoreError, opened, resolved, unit_key


@dataclass(frozen=True)
class Unit:
    """One (corpus, system) unit of a task: ``inputs`` role -> content hash, ``state`` its
    fingerprint, ``extra`` whatever the family's prepare and commit need (not fingerprinted)."""

    corpus: Any
    system: str
    inputs: dict
    state: str
    extra: dict = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Target:
    """Where a family's unit rows go: its SQL folder, the tables a unit fills (its rows there are
    replaced whole), and the history table whose ``-- @build`` closes a unit's scoring."""

    folder: str
    tables: tuple[str, ...]
    hist: str


BATCH_UNITS = 64  # units committed in one transaction at most
BATCH_ROWS = 500_000  # ... unless their rows reach this many first


class ExecutorError(Exception):
    """The executor cannot run the units: a bad worker count, no scheduler at the address, or a
    worker whose scorehouse code differs from the coordinator's. One line, exit 1."""


def workers_default() -> int:
    """``SCOREHOUSE_WORKERS`` if set, else 1 (in this process).

    Not every core yet: the coordinator's commits (inserts and the SQL builds of the counts)
    take about as much CPU as the computes, so on two cores two workers ran the one-million-token
    POS benchmark in 97 s instead of 82 s, with 2.9 GB instead of 2.1 GB (bench/pos_bench.py).
    Worker processes pay when the computes dominate and there are cores to spare."""
    value = os.environ.get("SCOREHOUSE_WORKERS")
    if value is None:
        return 1
    if not value.isdigit() or int(value) < 1:
        raise ExecutorError(f"SCOREHOUSE_WORKERS must be a positive integer, not {value!r}")
    return int(value)


def stale(units: list[Unit], states: dict, force: bool) -> list[Unit]:
    """The units whose recorded state differs from their fingerprint (all with ``force``)."""
    return [u for u in units if force or states.get((u.corpus.id, u.system)) != u.state]


@cache
def package_version() -> str:
    """The scorehouse code a unit runs: the package version and a hash of every module and SQL
    file of the project. A Dask worker must have the coordinator's, or it refuses the unit."""
    parts = {package: package_files(package, (".py", ".sql"))
             for package in ("scorers", "etl", "warehouse", "sql")}
    version = os.environ.get("SCOREHOUSE_TEST_CODE_VERSION")  # tests: a worker with other code
    return version or f"{__version__}+{fingerprint(parts)[:12]}"


def _guarded(expected: str, compute: Callable, *arguments) -> dict:
    """Run ``compute`` on a worker after checking that the worker runs the coordinator's code."""
    mine = package_version()
    if mine != expected:
        raise ExecutorError(
            f"this worker runs scorehouse {mine}, the coordinator {expected}: "
            "install the same version on every worker"
        )
    return compute(*arguments)


def run_units(
    ctx: RunContext,
    label: str,
    units: list[Unit],
    prepare: Callable[[Unit], tuple],
    compute: Callable[..., dict],
    target: Target,
    notes: Callable[[Unit, dict], list[str]] | None = None,
    workers: int | None = None,
) -> None:
    """Compute and commit ``units`` (already known stale), ``workers`` at a time. With a store
    (:mod:`warehouse.store`), a unit whose output is stored under its key is committed from there
    without being computed (unless the run is forced), and a computed unit's output is saved
    there, by the worker that computed it, before it is committed. ``notes(unit, rows)`` gives
    the run notes a committed unit deserves."""
    workers = workers or ctx.workers or workers_default()
    store = ctx.store
    keys = {id(u): unit_key(ctx.campaign.id, label, u.corpus.id, u.system, u.state) for u in units}
    # resident tables stay in a local store's files (warehouse/resident.py)
    kept = tuple(t for t in target.tables if t in resident.declared()
                 ) if store is not None and store.local else ()
    batch = _Batch(ctx, label, target, notes)

    def from_store(key: str, manifest: dict | None = None) -> tuple[dict, dict]:
        """A stored unit's rows, but the files of its resident tables in place of their rows."""
        manifest = manifest or store.manifest(key)
        files = {t: f for t, f in store.files(key, manifest).items() if t in kept} if (
            manifest is not None) else {}
        return store.load(key, manifest, skip=kept), files
    # progress on stderr: stdout stays for results (nothing at all from a nightly run)
    with Progress(transient=True, disable=ctx.quiet, console=Console(stderr=True)) as progress:
        bar = progress.add_task(f"scoring {label}", total=len(units))

        def done(unit: Unit, result: Callable[[], tuple[dict, dict]]) -> None:
            """Add a unit to the batch: ``result()`` gives its (rows, resident files)."""
            try:
                batch.add(unit, *result())
            except InputError as err:
                ctx.rejections.append(str(err))
            progress.advance(bar)

        if store is not None and not ctx.force:
            manifests = {id(u): store.manifest(keys[id(u)]) for u in units}  # one read each
            stored = [u for u in units if manifests[id(u)] is not None]
            for unit in stored:
                done(unit, lambda u=unit: from_store(keys[id(u)], manifests[id(u)]))
            if stored:
                ctx.notes.append(f"{label}: {len(stored)} unit(s) committed from the store "
                                 f"{store.label}, computed before and not again")
            reused = {id(u) for u in stored}
            units = [u for u in units if id(u) not in reused]

        def outcome(unit: Unit, result) -> Callable[[], tuple[dict, dict]]:
            """A unit's result as a worker sent it back: its rows, None (saved in the store by
            the worker) or the InputError that rejected it."""
            def rows() -> tuple[dict, dict]:
                if isinstance(result, InputError):
                    raise result
                return from_store(keys[id(unit)]) if result is None else (result, {})
            return rows

        def done_chunk(chunk: list[Unit], results: Callable[[], list]) -> None:
            for unit, result in zip(chunk, results()):
                done(unit, outcome(unit, result))

        # id(table) -> (table, its StoredInput), the last few: a table held here keeps its id
        kept_inputs: OrderedDict[int, tuple] = OrderedDict()

        def by_store(argument):
            """A big input table travels through the store, once (the corpus's reference
            serves all its units); the rest with the task."""
            if store is None or _rows(argument) < INPUT_ROWS or not isinstance(
                    argument, (pl.DataFrame, pa.Table)):
                return argument
            if id(argument) not in kept_inputs:
                try:
                    kept_inputs[id(argument)] = (argument, store.put_input(argument))
                except StoreError:
                    return argument
                if len(kept_inputs) > 4:
                    kept_inputs.popitem(last=False)
            return kept_inputs[id(argument)][1]

        def jobs(chunk: list[tuple[Unit, tuple]]) -> list[tuple[str, tuple]]:
            return [(keys[id(unit)], tuple(by_store(a) for a in arguments))
                    for unit, arguments in chunk]

        prepared = ((u, (_key(ctx, label, u), *prepare(u))) for u in units)
        location = None if store is None else store.location
        if ctx.executor:
            _run_dask(ctx.executor, lambda w: _chunks(prepared, len(units), w), location,
                      compute, jobs, done_chunk)
        elif workers <= 1 or len(units) <= 1:
            # the store is written by a thread (Parquet encoding releases the GIL) while the
            # next unit computes; a kill before it finishes leaves no manifest, nothing stale
            with _Saver(store, ctx.notes) as saver:
                for unit, arguments in prepared:
                    try:
                        tables = compute(*arguments)
                    except InputError as err:
                        done(unit, partial(_raise, err))
                        continue
                    if kept:  # committed once saved: its resident rows are read from the store
                        saver.save(keys[id(unit)], tables, partial(
                            lambda u, rows, key, saved: done(u, lambda: from_store(key) if saved
                                                             else (rows, {})),
                            unit, tables, keys[id(unit)]))
                    else:
                        saver.save(keys[id(unit)], tables)
                        done(unit, lambda rows=tables: (rows, {}))
        else:
            n = min(workers, len(units))
            with ProcessPoolExecutor(n, mp_context=get_context("spawn"), initializer=_share_cores,
                                     initargs=(max(1, (os.cpu_count() or 1) // n),)) as pool:
                _stream(_chunks(prepared, len(units), workers),
                        lambda c: pool.submit(compute_chunk, location, compute, jobs(c)),
                        done_chunk, 2 * workers)
        batch.flush()


INPUT_ROWS = 100_000  # a table argument this big goes to the workers through the store
CHUNK_UNITS = 16  # units sent to a worker as one task, at most...
CHUNK_ROWS = 100_000  # ... unless their input rows reach this many first


def _chunks(prepared, n: int, workers: int = 2):
    """Group prepared units into tasks: small units travel together (a worker's round trip costs
    milliseconds), big ones alone; at most a quarter of the units per worker in one task, so that
    every worker has work until the end."""
    limit = max(1, min(CHUNK_UNITS, n // (4 * workers)))
    chunk, rows = [], 0
    for unit, arguments in prepared:
        chunk.append((unit, arguments))
        rows += sum(_rows(a) for a in arguments)
        if len(chunk) >= limit or rows >= CHUNK_ROWS:
            yield chunk
            chunk, rows = [], 0
    if chunk:
        yield chunk


def _rows(argument) -> int:
    """The rows an argument of a compute holds (tables, and tables in a dict or a tuple)."""
    if isinstance(argument, (pl.DataFrame, pa.Table)):
        return argument.shape[0]
    if isinstance(argument, dict):
        return sum(_rows(v) for v in argument.values())
    if isinstance(argument, (tuple, list)):
        return sum(_rows(v) for v in argument)
    return 0


def compute_chunk(location: str | None, compute: Callable, jobs: list[tuple[str, tuple]]) -> list:
    """Worker side: compute each unit of a task (its big inputs read from the store, see
    :class:`warehouse.store.StoredInput`); each result is the unit's rows, or None once saved
    into the store at ``location`` (the rows themselves if the store cannot be written), or
    the InputError that rejected the unit (the other units of the task go on)."""
    out = []
    for key, arguments in jobs:
        try:
            tables = compute(*(resolved(a) for a in arguments))
        except InputError as err:
            out.append(err)
            continue
        if location is None:
            out.append(tables)
        else:
            try:
                opened(location).save(key, tables)
                out.append(None)
            except StoreError:  # the store is a cache: the rows come back the direct way
                out.append(tables)
    return out


def _key(ctx: RunContext, label: str, unit: Unit) -> dict:
    """The columns every row of a unit carries: campaign, task, corpus, system."""
    return {"campaign": ctx.campaign.id, "task": label, "corpus": unit.corpus.id,
            "system": unit.system}


class _Batch:
    """Units whose rows wait to be committed together: one transaction for many small units."""

    def __init__(self, ctx: RunContext, label: str, target: Target, notes):
        self.ctx, self.label, self.target, self.notes = ctx, label, target, notes
        self.units: list[tuple[Unit, dict]] = []
        self.rows = 0

    def add(self, unit: Unit, rows: dict, files: dict) -> None:
        """Wait to commit ``unit``: its ``rows`` ({table: Arrow rows}) and ``files`` (resident
        table -> its Parquet file in the local store, for the tables not among ``rows``)."""
        self.units.append((unit, rows, files))
        self.rows += sum(t.num_rows for t in rows.values() if t is not None)
        if len(self.units) >= BATCH_UNITS or self.rows >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        """Commit the waiting units: their old rows out, their new rows in (one insert per
        table), their history rows and states recorded, in one transaction."""
        if not self.units:
            return
        ctx, target, con = self.ctx, self.target, self.ctx.con
        keys = [_key(ctx, self.label, unit) for unit, _, _ in self.units]
        with transaction(con):
            con.register("unit_keys", pa.Table.from_pylist(keys))
            try:
                for table in target.tables:
                    resident.forget(con, table, "unit_keys")
            finally:
                con.unregister("unit_keys")
            for table in target.tables:
                parts = [rows[table] for _, rows, _ in self.units if rows.get(table) is not None
                         and rows[table].num_rows]
                if parts:
                    insert_arrow(con, resident.rows_table(table),
                                 pa.concat_tables(parts, promote_options="permissive"), "*",
                                 by_name=True)
                if table in resident.declared():
                    files = [(key, files[table]) for key, (_, _, files) in zip(keys, self.units)
                             if table in files]
                    if files:
                        resident.record(con, table, ctx.store.root, files)
                    resident.refresh(con, table)
            record_scorings(ctx, target.folder, target.hist, [
                (key, unit.inputs, unit.state) for key, (unit, _, _) in zip(keys, self.units)])
        for unit, rows, _ in self.units:
            ctx.scored += 1
            if self.notes is not None:
                ctx.notes.extend(self.notes(unit, rows))
        self.units, self.rows = [], 0


@contextmanager
def unit_input(ids: dict, counted: str):
    """Inside a unit's compute: two texts too different to align within the diff's budget
    (:class:`scorers.lcs.TooDifferent`) reject the unit ``ids`` as an input error, not the
    run; ``counted`` names what the diff counts (minimal units, forms, tokens)."""
    try:
        yield
    except lcs.TooDifferent as err:
        raise InputError(f"{ids['task']}/{ids['corpus']}/{ids['system']}", None,
                         *err.describe(counted)) from None


def _share_cores(threads: int) -> None:
    """A worker process's start: its private DuckDB (:func:`warehouse.db.private`) takes its
    share of the cores, not all of them, so that the workers do not fight over them."""
    os.environ["SCOREHOUSE_UNIT_THREADS"] = str(threads)


def _raise(err: Exception):
    raise err


class _Saver:
    """Saves unit outputs into the store in a thread, one at a time, while the next unit
    computes. The store is a cache: a save that fails (a full or unreachable store) becomes one
    run note, never a failed night; the units are committed all the same. ``then(saved)``, if
    given, runs in the caller's thread once the save is over (``saved``: it succeeded)."""

    def __init__(self, store, notes: list[str]):
        self.store, self.pending, self.notes, self.failed = store, None, notes, False
        self.pool = ThreadPoolExecutor(1) if store is not None else None

    def save(self, key: str, tables: dict, then: Callable[[bool], None] | None = None) -> None:
        self.wait()
        if self.store is not None:
            self.pending = (self.pool.submit(self.store.save, key, tables), then)
        elif then is not None:
            then(False)

    def wait(self) -> None:
        if self.pending is not None:
            (pending, then), self.pending = self.pending, None
            saved = True
            try:
                pending.result()
            except StoreError as err:
                saved = False
                if not self.failed:
                    self.failed = True
                    self.notes.append(f"{err}: units are committed but not kept in the store")
            if then is not None:
                then(saved)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            try:
                self.wait()
            finally:
                self.pool.shutdown()


def _stream(chunks, submit: Callable[[list], Future], done, width: int) -> None:
    """Submit the tasks in order and commit the oldest result whenever ``width`` are in flight:
    results are committed as they come, and the coordinator holds at most ``width`` of them."""
    window: deque[tuple[list, Future]] = deque()
    for chunk in chunks:
        window.append(([unit for unit, _ in chunk], submit(chunk)))
        if len(window) >= width:
            first, future = window.popleft()
            done(first, future.result)
    while window:
        first, future = window.popleft()
        done(first, future.result)


def dask_client(address: str):
    """A client of the Dask scheduler at ``address``, or an :class:`ExecutorError`."""
    try:
        from distributed import Client
    except ImportError:
        raise ExecutorError(
            "--executor needs Dask distributed: pip install 'scorehouse[dask]'"
        ) from None
    try:
        return Client(address, timeout="10s")
    except (OSError, ValueError) as err:  # refused, timed out, or not an address at all
        raise ExecutorError(f"no Dask scheduler answers at {address}: {err}") from None


def on_dask(client, function: Callable, *arguments):
    """Submit ``function(*arguments)`` to a Dask worker that runs the coordinator's code (the
    task is named after ``function`` on the dashboard: ``_read-...``, ``compute_chunk-...``)."""
    return client.submit(_guarded, package_version(), function, *arguments, retries=2,
                         key=f"{function.__name__.strip('_')}-{uuid.uuid4().hex}")


def _run_dask(address: str, chunks: Callable, location, compute, jobs, done) -> None:
    """Send the units to the workers of the Dask scheduler at ``address`` (``tcp://HOST:8786``),
    a bounded window of tasks at a time (``chunks(workers)`` cuts them for the workers the
    scheduler has); a worker lost mid-run costs a retry, not the run."""
    client = dask_client(address)
    try:
        workers = max(1, len(client.scheduler_info()["workers"]))
        _stream(chunks(workers),
                lambda c: on_dask(client, compute_chunk, location, compute, jobs(c)), done,
                4 * workers)
    finally:
        client.close()
