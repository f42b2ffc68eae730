"""Where units are computed: in this process, in worker processes, or on the workers of a Dask
distributed scheduler (``--executor tcp://HOST:8786``), with the same results bit for bit.

:func:`warehouse.runner.run_units` decides what to compute and commits it; this module moves the
work: small units grouped into tasks (:func:`chunks`), the worker side of a task
(:func:`compute_chunk`: compute, save into the unit store, send back what the coordinator needs),
the bounded window of tasks in flight (:func:`stream`), the thread that writes the store while
the next unit computes in this process (:class:`Saver`), and the code-version check every Dask
worker makes (:func:`_guarded`; the run's Dask client is :mod:`warehouse.cluster`'s).
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool as BrokenExecutor
from contextlib import contextmanager
from functools import cache
from multiprocessing import get_context
from typing import Callable

import polars as pl
import pyarrow as pa

from scorehouse.etl.errors import InputError
from scorehouse.warehouse import __version__
from scorehouse.warehouse.catalog import fingerprint, package_files
from scorehouse.warehouse.cores import cores, setting
from scorehouse.warehouse.store import Query, StoreError, opened, resolved


class ExecutorError(Exception):
    """The executor cannot run the units: a bad worker count, no scheduler at the address, or a
    worker whose scorehouse code differs from the coordinator's. One line, exit 1."""


def workers_default() -> int:
    """``SCOREHOUSE_WORKERS`` if set, else 1 (in this process).

    Not every core: on two cores a run in one process already keeps 1.6 of them busy (DuckDB's
    and Polars' threads), and two workers add the coordinator's copies of their inputs and
    their own lean memory setting (:mod:`warehouse.coordinator`): from scratch, two workers ran
    the one-million-token POS benchmark in 86.7 s against 84.5 s in one process, and the EASY
    benchmark in 160.5-170.7 s against 167.1 s (bench/README.md, round eleven). What they bring
    on two cores is memory spread over processes (POS: 2,065 MiB in one process; with two, the
    coordinator 1,021 MiB and each worker 1,045-1,130 MiB); more cores were not measured."""
    return setting("SCOREHOUSE_WORKERS") or 1


@cache
def package_version() -> str:
    """The scorehouse code a unit runs: the package version and a hash of every module and SQL
    file of the project. A Dask worker must have the coordinator's, or it refuses the unit."""
    parts = {package: package_files(package, (".py", ".sql"))
             for package in ("scorehouse.scorers", "scorehouse.etl", "scorehouse.warehouse",
                            "scorehouse.sql")}
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


CHUNK_UNITS = 16  # units sent to a worker as one task, at most...


CHUNK_ROWS = 100_000  # ... unless their input rows reach this many first


def chunks(prepared, n: int, workers: int = 2):
    """Group prepared units into tasks: small units travel together (a worker's round trip costs
    milliseconds), big ones alone; at most a quarter of the units per worker in one task, so that
    every worker has work until the end."""
    limit = max(1, min(CHUNK_UNITS, n // (4 * workers)))
    chunk, rows = [], 0
    for unit, arguments in prepared:
        chunk.append((unit, arguments))
        rows += sum(rows_of(a) for a in arguments)
        if len(chunk) >= limit or rows >= CHUNK_ROWS:
            yield chunk
            chunk, rows = [], 0
    if chunk:
        yield chunk


def rows_of(argument) -> int:
    """The rows an argument of a compute holds (tables, and tables in a dict or a tuple)."""
    if isinstance(argument, (pl.DataFrame, pa.Table)):
        return argument.shape[0]
    if isinstance(argument, Query):  # read where it is used: counted as big, it travels alone
        return CHUNK_ROWS
    if isinstance(argument, dict):
        return sum(rows_of(v) for v in argument.values())
    if isinstance(argument, (tuple, list)):
        return sum(rows_of(v) for v in argument)
    return 0


def compute_chunk(location: str | None, compute: Callable, jobs: list[tuple[str, tuple]],
                  threads: int | None = None) -> list:
    """Worker side: compute each unit of a task (its big inputs read from the store, see
    :class:`warehouse.store.StoredInput`); each result is the unit's rows, or None once saved
    into the store at ``location`` (the rows themselves if the store cannot be written), or
    the InputError that rejected the unit (the other units of the task go on). ``threads``:
    the task's share of the cores (:func:`share_cores`), if given."""
    if threads is not None:
        share_cores(threads)
    out = []
    for key, arguments in jobs:
        try:
            tables = compute(*(resolved(a) for a in arguments))
        except InputError as err:
            out.append(err)
        else:
            if location is None:
                out.append(tables)
            else:
                try:
                    opened(location).save(key, tables)
                    out.append(None)
                except StoreError:  # the store is a cache: the rows come back the direct way
                    out.append(tables)
            del tables
        # what Arrow's pool kept of the unit, computed or rejected, goes back before the next
        # one (a POS worker between 1M-token units 430-475 -> 375-410 MiB, its peak in each
        # 897-1,015 -> 825-943 MiB: bench/pos_unit_memory.py)
        pa.default_memory_pool().release_unused()
    return out


def share_cores(threads: int) -> None:
    """A worker process's share of the cores, which its private DuckDB takes
    (:func:`warehouse.db.private`): set as the worker starts (the cores over the pool's
    workers, so that they do not fight over them) and by each task of the unit runner (the
    cores over the units computed at once: a lone changed unit takes them all)."""
    os.environ["SCOREHOUSE_UNIT_THREADS"] = str(threads)


def _worker_starts(threads: int, parent: int | None = None) -> None:
    """A worker process's settings: its share of the cores (:func:`share_cores`), glibc's big
    blocks kept mapped, as in the coordinator (:mod:`warehouse.coordinator`), and, given the
    run's process id ``parent``, an end of its own once that process is gone
    (:func:`_orphaned`)."""
    from scorehouse.warehouse.coordinator import big_blocks_mapped

    share_cores(threads)
    big_blocks_mapped()
    if parent is not None:
        threading.Thread(target=_orphaned, args=(parent,), daemon=True,
                         name="scorehouse-parent").start()


def _orphaned(parent: int, every: float = 0.5) -> None:
    """End this worker process once the run's process ``parent`` is gone (killed, by a cron
    timeout or an operator): nothing would take its units, and a worker waiting for tasks held
    its memory for good (a killed POS run left two, 360-400 MiB each)."""
    while os.getppid() == parent:
        time.sleep(every)
    os._exit(1)


def _imported(modules: tuple[str, ...]) -> int:
    """Import ``modules`` in a worker process (its units' code, before its first unit)."""
    for name in modules:
        importlib.import_module(name)
    return os.getpid()


class ProcessPools:
    """The run's worker processes, started when a step first needs them and kept for the next
    steps (parsing the changed files, computing each task's units): a spawned process imports
    the families' modules (1-2 s of CPU), which a pool per step paid again at every step (a
    small campaign on two workers took 2.8 times the CPU of one). A step asking for ``n``
    processes gets the smallest pool of at least ``n``; :meth:`close` at the run's end."""

    def __init__(self, units_follow: bool = False, lean: bool = True) -> None:
        self._pools: dict[int, ProcessPoolExecutor] = {}
        # the workers hand freed memory back soon (warehouse/coordinator.py workers_allocator)
        self.lean = lean
        self._ending: list[threading.Thread] = []  # shutting pools down, not waited for
        self.units_follow = units_follow  # the run computes units in worker processes
        self._ahead = False  # a process was started ahead (:meth:`start`)

    def start(self, n: int, modules: tuple[str, ...] = ()) -> None:
        """When units follow, once, a process of the run's pool (one of ``n`` made if none)
        started now: it imports ``modules`` (the run's families) while this process goes on. The
        pool starts its other processes when tasks wait for them (one changed unit needs one).
        A pool an earlier step made without starting a process (it had nothing to parse) gets
        one too."""
        if self.units_follow and not self._ahead:
            self._ahead = True
            self.get(n).submit(_imported, modules)

    def get(self, n: int) -> ProcessPoolExecutor:
        fits = [size for size in self._pools if size >= n]
        if fits:
            return self._pools[min(fits)]
        share = max(1, cores() // n)
        # the allocator setting the pool's processes read, when this process applied the
        # command's (importing the module here would apply them to a caller, e.g. the API's)
        if (coordinator := sys.modules.get("scorehouse.warehouse.coordinator")) is not None:
            coordinator.workers_allocator(self.lean)
        self._pools[n] = ProcessPoolExecutor(n, mp_context=get_context("spawn"),
                                             initializer=_worker_starts,
                                             initargs=(share, os.getpid()))
        return self._pools[n]

    def discard(self, pool: ProcessPoolExecutor) -> None:
        """Forget a broken pool (a worker process died): the next step starts a new one."""
        for size, kept in list(self._pools.items()):
            if kept is pool:
                del self._pools[size]
        self._end(pool)

    def close(self, wait: bool = True) -> None:
        """Shut the processes down; ``wait`` False: told to end, not waited for (they end
        while this process goes on: 0.09 s of a one-change run's report step). A close that
        waits also waits for those told before: a run ends its process at once
        (scorehouse/__main__.py), and a pool still ending then left its queues' semaphores to
        multiprocessing's tracker, which warned of them on stderr (a loaded machine's run)."""
        for pool in self._pools.values():
            if wait:
                pool.shutdown(wait=True, cancel_futures=True)
            else:
                self._end(pool)
        self._pools.clear()
        if wait:
            # bounded, for them all: an idle worker ends at once; one that does not is ended by
            # its own watch once this process is gone (:func:`_orphaned`)
            deadline = time.monotonic() + ENDING_WAIT
            for thread in self._ending:
                thread.join(max(0.0, deadline - time.monotonic()))
            self._ending.clear()

    def _end(self, pool: ProcessPoolExecutor) -> None:
        """Shut ``pool`` down in a thread of its own, joined by the next close that waits."""
        thread = threading.Thread(target=pool.shutdown, name="scorehouse-pool-end",
                                  kwargs={"wait": True, "cancel_futures": True})
        thread.start()  # kept once started: a later close joins only what runs
        self._ending.append(thread)


ENDING_WAIT = 30  # seconds a run's end waits for the workers it told to end before
WORKER_LOST = ("a worker process of the run ended abruptly (killed, or out of memory); the units "
               "committed are kept: run again to resume")


@contextmanager
def processes(pools: ProcessPools | None, n: int):
    """``n`` worker processes: the run's (``pools``, kept for its next steps), or without them
    a pool of this step alone, shut down after it."""
    own = ProcessPools() if pools is None else None
    kept = pools if own is None else own
    pool = kept.get(n)
    try:
        yield pool
    except BrokenExecutor:  # a worker killed (by an operator, or the kernel out of memory)
        kept.discard(pool)
        raise ExecutorError(WORKER_LOST) from None
    finally:
        if own is not None:
            own.close()


class Saver:
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


def stream(chunks, submit: Callable[[list], Future], done, width: int) -> None:
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
