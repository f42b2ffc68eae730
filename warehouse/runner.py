"""The unit runner shared by every family: what is stale, where it runs, how it is committed.

A family declares its units (:class:`Unit`: corpus, system, the content hashes of its inputs and
its state fingerprint) and three functions:

- ``prepare(unit)``, in the coordinator: the unit's inputs as Arrow / Polars tables (read from the
  warehouse) and whatever else ``compute`` needs, as a tuple of picklable arguments;
- ``compute(*arguments)``, anywhere: a pure function returning ``{table name: table}``; it never
  touches the warehouse, so it may run in this process or in a worker process;
- ``commit(ctx, unit, tables)``, in the coordinator: writes the tables, the history row and the
  state in one transaction (``catalog.replace_rows`` and ``catalog.record_scoring``).

:func:`run_units` keeps only the stale units, runs ``compute`` on an executor, and commits each
unit's results as they arrive, in a bounded window, so the coordinator never holds every unit's
output at once. A unit rejected by its compute (an :class:`etl.errors.InputError`) is recorded as
a rejection; the other units go on.

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
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from multiprocessing import get_context
from typing import Any, Callable

from rich.progress import Progress

from etl.errors import InputError
from warehouse import __version__
from warehouse.catalog import RunContext, fingerprint, package_files


@dataclass(frozen=True)
class Unit:
    """One (corpus, system) unit of a task: ``inputs`` role -> content hash, ``state`` its
    fingerprint, ``extra`` whatever the family's prepare and commit need (not fingerprinted)."""

    corpus: Any
    system: str
    inputs: dict
    state: str
    extra: dict = field(default_factory=dict, compare=False)


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
    commit: Callable[[RunContext, Unit, dict], None],
    workers: int | None = None,
) -> None:
    """Compute and commit ``units`` (already known stale), ``workers`` at a time."""
    workers = workers or ctx.workers or workers_default()
    with Progress(transient=True, disable=ctx.quiet) as progress:
        bar = progress.add_task(f"scoring {label}", total=len(units))

        def done(unit: Unit, result: Callable[[], dict]) -> None:
            try:
                tables = result()
            except InputError as err:
                ctx.rejections.append(str(err))
            else:
                commit(ctx, unit, tables)
                ctx.scored += 1
            progress.advance(bar)

        if ctx.executor:
            _run_dask(ctx.executor, units, prepare, compute, done)
            return
        if workers <= 1 or len(units) <= 1:
            for unit in units:
                arguments = prepare(unit)
                done(unit, lambda: compute(*arguments))
            return
        with ProcessPoolExecutor(min(workers, len(units)), mp_context=get_context("spawn")) as pool:
            _stream(units, lambda u: pool.submit(compute, *prepare(u)), done, 2 * workers)


def _stream(units: list[Unit], submit: Callable[[Unit], Future], done, width: int) -> None:
    """Submit the units in order and commit the oldest result whenever ``width`` are in flight:
    results are committed as they come, and the coordinator holds at most ``width`` of them."""
    window: deque[tuple[Unit, Future]] = deque()
    for unit in units:
        window.append((unit, submit(unit)))
        if len(window) >= width:
            first, future = window.popleft()
            done(first, future.result)
    while window:
        first, future = window.popleft()
        done(first, future.result)


def _run_dask(address: str, units: list[Unit], prepare, compute, done) -> None:
    """Send the units to the workers of the Dask scheduler at ``address`` (``tcp://HOST:8786``),
    a bounded window at a time; a worker lost mid-run costs a retry, not the run."""
    try:
        from distributed import Client
    except ImportError:
        raise ExecutorError(
            "--executor needs Dask distributed: pip install 'scorehouse[dask]'"
        ) from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, ValueError) as err:  # refused, timed out, or not an address at all
        raise ExecutorError(f"no Dask scheduler answers at {address}: {err}") from None
    try:
        workers = max(1, len(client.scheduler_info()["workers"]))
        expected = package_version()
        _stream(units, lambda u: client.submit(_guarded, expected, compute, *prepare(u), pure=False,
                                               retries=2), done, 2 * workers)
    finally:
        client.close()
