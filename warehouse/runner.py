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
  so that the SQL stays the single definition of a count wherever the unit runs (POS's
  sentence counts are made in numpy by the rule of the view ``int_pos_judgement``, which the
  tests hold them to: :mod:`scorers.pos_judgement`).

:func:`run_units` runs ``compute`` on an executor and commits the results as they arrive, in a
bounded window, so the coordinator never holds every unit's output at once. Small units are
committed in batches (one transaction for up to :data:`BATCH_UNITS` units or
:data:`BATCH_ROWS` rows): each unit's rows replace its previous ones, its history rows are built
and its state recorded in the same transaction. A unit rejected by its compute (an
:class:`etl.errors.InputError`) is recorded as a rejection; the other units go on.

Executors (:mod:`warehouse.executors`): ``workers == 1`` (the default) computes in this process;
``workers > 1`` uses that many worker processes (``--workers`` or ``SCOREHOUSE_WORKERS``);
``--executor tcp://HOST:8786`` sends the units to the workers of a running Dask distributed
scheduler (``dask scheduler``, ``dask worker tcp://HOST:8786``, or dask-jobqueue on Slurm), each
of which refuses a unit unless it runs the coordinator's scorehouse code
(:func:`package_version`). Results are the same bit for bit whichever is used: a compute depends
on its arguments only, and the tables do not depend on the order in which units are committed
(``tests/test_runner.py``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Callable

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError
from scorehouse.scorers import lcs
from scorehouse.warehouse import logs, resident
from scorehouse.warehouse.catalog import (
    RunContext,
    record_scorings,
    transaction,
)
from scorehouse.warehouse.cores import cores
from scorehouse.warehouse.db import frame, insert_arrow, registered
from scorehouse.warehouse.executors import (  # noqa: F401  (ExecutorError, package_version: re-exported)
    ExecutorError,
    Saver,
    chunks,
    compute_chunk,
    package_version,
    processes,
    rows_of,
    stream,
    workers_default,
)
from scorehouse.warehouse.store import (  # noqa: F401  (Query: re-exported)
    Query,
    StoredInput,
    StoreError,
    resolved,
    unit_key,
)


class _Silent:
    """The progress bar of a quiet run (a one-shot command): nothing drawn, rich not imported."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def add_task(self, *args, **kwargs) -> int:
        return 0

    def advance(self, *args) -> None:
        return None


def _progress(quiet: bool):
    """rich's progress bar on stderr, imported only when it is drawn (on a terminal, without
    --quiet: :func:`warehouse.logs.progress_shown`)."""
    if not logs.progress_shown(quiet):
        return _Silent()
    from rich.console import Console
    from rich.progress import Progress

    return Progress(transient=True, console=Console(stderr=True))


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


def stale(units: list[Unit], states: dict, force: bool) -> list[Unit]:
    """The units whose recorded state differs from their fingerprint (all with ``force``)."""
    return [u for u in units if force or states.get((u.corpus.id, u.system)) != u.state]


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
    with _progress(ctx.quiet) as progress:
        bar = progress.add_task(f"scoring {label}", total=len(units))

        def done(unit: Unit, result: Callable[[], tuple[dict, dict]]) -> None:
            """Add a unit to the batch: ``result()`` gives its (rows, resident files)."""
            try:
                batch.add(unit, *result())
            except InputError as err:
                ctx.reject(str(err))
            progress.advance(bar)

        if store is not None and not ctx.force:
            manifests = {id(u): store.manifest(keys[id(u)]) for u in units}  # one read each
            for unit in units:
                if manifests[id(unit)] is None:
                    continue
                try:
                    rows = from_store(keys[id(unit)], manifests[id(unit)])
                except (StoreError, OSError, pa.ArrowException):  # lost since: computed again
                    manifests[id(unit)] = None
                    continue
                done(unit, lambda r=rows: r)
            stored = [u for u in units if manifests[id(u)] is not None]
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

        # the last few big inputs, least recently used first: a corpus's reference, used by
        # every unit of the corpus, stays while its submissions come and go
        # id(table) -> (table, its StoredInput): a table held here keeps its id
        kept_inputs: OrderedDict[int, tuple] = OrderedDict()
        queried: OrderedDict[tuple, Any] = OrderedDict()  # (Query, remote) -> read or stored

        def read(query: Query | StoredInput, remote: bool):
            """A query argument: stored (``remote``: for a worker) when the store is local, else
            a frame; a stored one (a staged file the store keeps), in this process, read as a
            frame and held as a query's is."""
            key = (query, remote and store is not None and store.local)
            if key in queried:
                queried.move_to_end(key)
                return queried[key]
            if isinstance(query, StoredInput):  # gone: the run's store was lost (pipeline.py)
                queried[key] = resolved(replace(query, kept=False))
            else:
                try:
                    queried[key] = replace(store.put_query(ctx.con, query.sql, query.params,
                                                           query.version), kept=query.kept) \
                        if key[1] else frame(ctx.con, query.sql, list(query.params))
                except StoreError:
                    queried[key] = frame(ctx.con, query.sql, list(query.params))
            read_here = [k for k in queried if not isinstance(queried[k], StoredInput)]
            if len(queried) > KEPT_INPUTS or len(read_here) > KEPT_FRAMES:
                # frames held here cost memory: the reference and the unit being computed
                queried.pop(read_here[0] if len(read_here) > KEPT_FRAMES else next(iter(queried)))
            return queried[key]

        def by_store(argument):
            """A big input table travels through the store, once (the corpus's reference
            serves all its units); the rest with the task."""
            if isinstance(argument, Query):
                argument = read(argument, True)
            if store is None or rows_of(argument) < INPUT_ROWS or not isinstance(
                    argument, (pl.DataFrame, pa.Table)):
                return argument
            if id(argument) in kept_inputs:
                kept_inputs.move_to_end(id(argument))
                return kept_inputs[id(argument)][1]
            try:
                kept_inputs[id(argument)] = (argument, store.put_input(argument))
            except StoreError:
                return argument
            if len(kept_inputs) > KEPT_INPUTS:
                kept_inputs.popitem(last=False)
            return kept_inputs[id(argument)][1]

        def jobs(chunk: list[tuple[Unit, tuple]]) -> list[tuple[str, tuple]]:
            return [(keys[id(unit)], tuple(by_store(a) for a in arguments))
                    for unit, arguments in chunk]

        prepared = ((u, (_key(ctx, label, u), *prepare(u))) for u in units)
        location = None if store is None else store.location
        if ctx.executor:  # the run's Dask cluster (warehouse/cluster.py), a window per worker
            cluster, n = ctx.executor, ctx.executor.workers()
            if units:
                _meanwhile(ctx)
            stream(chunks(prepared, len(units), n),
                   lambda c: cluster.submit(compute_chunk, location, compute, jobs(c)),
                   done_chunk, 4 * n)
        elif workers <= 1:  # with workers, a lone unit too: the coordinator holds the warehouse
            # the store is written by a thread (Parquet encoding releases the GIL) while the
            # next unit computes; a kill before it finishes leaves no manifest, nothing stale
            with Saver(store, ctx.notes) as saver:
                for unit, arguments in prepared:
                    try:
                        tables = compute(*(read(a, False) if isinstance(a, (Query, StoredInput))
                                           else a for a in arguments))
                        arguments = None  # its inputs may go while the unit is committed
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
        elif units:  # none left when every stale unit was committed from the store
            n = min(workers, len(units))
            share = max(1, cores() // max(1, n))  # the cores over the units
            with processes(ctx.pools, n) as pool:
                _meanwhile(ctx)
                stream(chunks(prepared, len(units), workers),
                        lambda c: pool.submit(compute_chunk, location, compute, jobs(c), share),
                        done_chunk, 2 * workers)
        batch.flush()


def _meanwhile(ctx: RunContext) -> None:
    """Start the run's :attr:`RunContext.on_wait` in a thread, once: this process is about to
    wait for the workers' units (its own work there is committing them as they come)."""
    if ctx.on_wait is not None:
        threading.Thread(target=ctx.on_wait, name="scorehouse-on-wait", daemon=True).start()
        ctx.on_wait = None


INPUT_ROWS = 100_000  # a table argument this big goes to the workers through the store
KEPT_INPUTS = 4  # big inputs the coordinator keeps stored or read, least recently used out
KEPT_FRAMES = 2  # of which read as frames: a corpus's reference and the unit being computed


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
            with registered(con, unit_keys=pa.Table.from_pylist(keys)):
                for table in target.tables:
                    resident.forget(con, table, "unit_keys")
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


def _raise(err: Exception):
    raise err


