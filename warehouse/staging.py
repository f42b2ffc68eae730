"""Staging: an input file becomes staged rows once per content.

Each file of a campaign has a slot (task, corpus, system, role). A file is hashed with its role
and its reader's settings; an unchanged hash costs nothing more. A changed file is parsed by its
family's reader (in worker processes, or on the run's Dask workers, when several change) and its
rows are staged in one transaction with the catalog row that records the version; a file that
cannot be read or parsed is recorded as rejected, with its message, and leaves the staged data
and the results untouched: one bad file costs that file, never the night.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import time
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import duckdb
import pyarrow as pa

from scorehouse.etl import text
from scorehouse.etl.errors import InputError, shorten
from scorehouse.warehouse import logs, resident
from scorehouse.warehouse.catalog import RunContext, now, transaction
from scorehouse.warehouse.cores import cores
from scorehouse.warehouse.db import insert_rows, one


@dataclass(frozen=True)
class Slot:
    """Where an input file belongs: a reference-side file has ``system == ''``."""

    task: str
    corpus: str
    system: str
    role: str


@dataclass(frozen=True)
class StagedRows:
    """A family's staging of a file's rows into the staged ``table``: ``select(columns)`` (a
    module-level function of the rows' column names) is the SQL query of ``arrow_rows`` that
    names the table's columns, ``$sha`` the content hash; ``order`` sorts them, if they do
    not come so. Called as a job's ``stage``; a worker process that parsed a big file writes
    its rows into a local store itself (:func:`warehouse.resident.write_staged`)."""

    table: str
    select: Callable[[tuple[str, ...]], str]
    order: str = ""

    def __call__(self, con, sha: str, rows) -> None:
        kept = isinstance(rows, resident.KeptRows)
        resident.keep_staged(con, _STORE.get(), self.table, sha, rows,
                             "" if kept else self.select(tuple(rows.column_names)),
                             {"sha": sha}, self.order)


@dataclass(frozen=True)
class StageJob:
    """One input file to stage: where it belongs, its reader, its staging function, an optional
    check against other inputs, and the salt of its content hash (see :func:`stage_file`)."""

    slot: Slot
    path: Path
    read: Callable[[Path, bytes], pa.Table]
    stage: Callable[[duckdb.DuckDBPyConnection, str, pa.Table], None]
    check: Callable[[pa.Table], None] | None = None
    salt: str = ""


def stage_file(ctx: RunContext, slot: Slot, path: Path, read: Callable[[Path, bytes], pa.Table],
               stage: Callable[[duckdb.DuckDBPyConnection, str, pa.Table], None],
               check: Callable[[pa.Table], None] | None = None, salt: str = "") -> bool:
    """Load one input file if its content is new for its slot. Returns True when it changed.

    ``read(path, data)`` parses (raising :class:`InputError`), ``check(table)`` validates against
    other inputs, ``stage(con, sha256, table)`` inserts the staged rows. A rejected file is
    recorded with its message and leaves the staged data and the results untouched. ``salt``
    names whatever besides the bytes and the role shapes the staged rows (reader options, a
    default document id taken from the file name): it is hashed with the role and the content."""
    return stage_files(ctx, [StageJob(slot, path, read, stage, check, salt)], workers=1)[0]


def stage_files(ctx: RunContext, jobs: list[StageJob], workers: int | None = None) -> list[bool]:
    """:func:`stage_file` for several files, in order, the changed ones parsed ahead in up to
    ``workers`` processes (default: ``SCOREHOUSE_WORKERS``, else one per CPU when the changed files
    weigh more than 32 MB; a lone changed file in this process): parsing is the slow part of a
    load, staging stays sequential (one transaction per file). A worker process reads the file
    itself, and writes a big file's :class:`StagedRows` into a local store itself.
    Readers must then be module-level functions (they are pickled)."""
    todo, changed = [], []
    known = {tuple(row[:4]): tuple(row[4:]) for row in ctx.con.execute(
        "SELECT task, corpus, system, role, sha256, status, error FROM cat_input_latest "
        "WHERE campaign = ? AND list_contains(?, task)",
        [ctx.campaign.id, sorted({job.slot.task for job in jobs})]).fetchall()}
    cached = {} if ctx.rehash else _stat_cache(ctx.con, jobs)
    seen: list[list] = []  # new rows of the stat cache
    parsed: list[list] = []  # those of the files hashed as they were parsed

    deferred: dict[int, tuple] = {}  # id(job) -> (where, stat, time): hashed where parsed

    def hashed(job: StageJob) -> tuple[str | None, int | None, str]:
        """A file's content key, size and why it is unreadable: the key the stat cache holds
        for a file ``stat`` finds as it was, else its bytes hashed and let go (read again when
        submitted: every changed file's bytes at once were the coordinator's peak, 1.4 GB of
        EASY XML). A file of a slot never loaded is changed whatever its bytes: no key here
        (its parse hashes it; 64 EASY submissions of 23 MB hashed here first: 0.5 s before
        the workers had a file)."""
        where = (os.path.abspath(job.path), json.dumps(_salt(job).split("\0")))
        before = _stat(job.path)
        if before is not None and (job.slot.task, job.slot.corpus, job.slot.system,
                                       job.slot.role) not in known:
            deferred[id(job)] = (where, before, time.time_ns())
            return None, before[0], ""
        hit = cached.get(where)
        if before is not None and hit is not None and hit[0] == before:
            return hit[1], before[0], ""
        read_at = time.time_ns()
        data, unreadable = _bytes(job.path)
        sha = _content_key(_salt(job), data)
        if data is not None and before is not None and before == _stat(job.path) and (
                before[1] < read_at - RACY_NS):
            seen.append([*where, *before, sha])
        return sha, None if data is None else len(data), unreadable

    # reading and hashing release the GIL: the files are hashed on every core
    with ThreadPoolExecutor(max(1, min(len(jobs), cores()))) as threads:
        keys = list(threads.map(hashed, jobs))
    if seen:
        insert_rows(ctx.con, "INSERT OR REPLACE INTO cat_input_stat VALUES (?,?,?,?,?,?)", seen)
    lost = resident.lost_staged(ctx.con)  # staged rows gone from the store: parsed again
    for job, (sha, size, unreadable) in zip(jobs, keys):
        latest = known.get((job.slot.task, job.slot.corpus, job.slot.system, job.slot.role))
        same = latest is not None and latest[0] == sha and sha not in lost
        todo.append((job, unreadable, sha, same, latest))
        if not same and size is not None:
            changed.append((job, size))
    size = sum(n for _, n in changed)
    from scorehouse.warehouse import executors  # the SCOREHOUSE_WORKERS check lives there

    configured = ctx.workers or (executors.workers_default() if os.environ.get("SCOREHOUSE_WORKERS")
                                 else None)
    workers = workers or configured or (min(cores(), len(changed)) if size > 32 * 2**20 else 1)
    # a lone changed file is parsed here: a worker would start first (0.5 s), then send its
    # table back (a POS bench change: the load step 1.7 -> 1.0 s); a worker for its units starts
    # as it is parsed, and imports the run's families (1 s of CPU) while this process parses and
    # stages it (a rejected file costs that start, on the other core)
    ahead = workers if len(changed) == 1 and ctx.executor is None else 1
    workers = 1 if len(changed) <= 1 else workers  # nothing to parse: no pool made for it
    changed.reverse()  # popped from the end, in file order: submitted bytes are not held twice

    def submit(job: StageJob) -> None:
        reader.submit(job, _keeps(ctx, job))

    with _Reader(workers, ctx.executor if len(changed) > 1 else None, ctx.pools) as reader:
        for _ in range(min(2 * workers, len(changed))):
            submit(changed.pop()[0])
        if ahead > 1 and ctx.pools is not None:
            ctx.pools.start(ahead, tuple(sorted({
                f"scorehouse.warehouse.families.{task.family}" for task in ctx.campaign.tasks})))
        out = []
        for job, unreadable, sha, same, latest in todo:
            if same:
                if latest[1] == "rejected":
                    ctx.reject(latest[2])
                out.append(False)
                continue
            if not unreadable and changed:
                submit(changed.pop()[0])
            try:
                if not unreadable:  # what is parsed is what is hashed: read again since (a
                    # rejection too is recorded under the content that was parsed)
                    sha, unreadable, table = reader.result(job)
                    if id(job) in deferred and not unreadable:
                        parsed += _unchanged(deferred[id(job)], job.path, sha)
                if unreadable:
                    raise InputError(job.path, None, "a readable file", unreadable)
                if isinstance(table, tuple):  # an InputError, sent back as its parts
                    raise InputError(*table)
                if job.check is not None:
                    outcome = _guarded(lambda _, t: job.check(t), job.path, table)
                    if isinstance(outcome, tuple):
                        raise InputError(*outcome)
            except InputError as err:
                _record(ctx.con, ctx, job.slot, job.path, sha, None, "rejected", str(err))
                ctx.reject(str(err))
            else:
                _accept(ctx, job.slot, str(job.path), sha, table, job.stage)
                del table  # not alive while the next file is parsed
            out.append(True)
    if parsed:  # the files hashed as they were parsed
        insert_rows(ctx.con, "INSERT OR REPLACE INTO cat_input_stat VALUES (?, ?, ?, ?, ?, ?)",
                    parsed)
    return out


def _unchanged(deferred: tuple, path: Path, sha: str) -> list[list]:
    """The stat cache's row of a file hashed where it was parsed (``deferred``: where, its stat
    and the time before it was submitted), when ``stat`` finds it as it was then and it had
    not been modified for :data:`RACY_NS` by then: the parse read those bytes."""
    where, before, submitted_at = deferred
    return [[*where, *before, sha]] if before == _stat(path) and (
        before[1] < submitted_at - RACY_NS) else []


RACY_NS = 2 * 10**9  # a file modified this recently (ns) when read is hashed again next run:
# a rewrite of its size within the file system's timestamp resolution could keep its time


def _stat(path: Path) -> tuple[int, int, int] | None:
    """What the stat cache compares of a regular file: size, modification time (ns), inode."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def _stat_cache(con, jobs: list[StageJob]) -> dict[tuple[str, str], tuple[tuple, str]]:
    """(path, salt) -> ((size, mtime_ns, inode), content key) of ``jobs``' files as last hashed
    (``cat_input_stat``)."""
    rows = con.execute("SELECT path, salt, size, mtime_ns, inode, sha256 FROM cat_input_stat "
                       "WHERE list_contains(?, path)",
                       [sorted({os.path.abspath(job.path) for job in jobs})]).fetchall()
    return {(path, salt): ((size, mtime, inode), sha)
            for path, salt, size, mtime, inode, sha in rows}


def _salt(job: StageJob) -> str:
    """What is hashed with a file's bytes besides them: its role, reader settings, text
    preparation."""
    return f"{job.slot.role}\0{job.salt}\0{text.VERSION}"


def _content_key(salt: str, data: bytes | None) -> str:
    """The content hash of a file's bytes in its role ("" when unreadable). The role is hashed
    with the content: one file given in two roles (the same file as reference and hypothesis) is
    two inputs, each staged once, never the same rows twice; so is the way every reader prepares
    the bytes (etl/text.py)."""
    if data is None:
        return ""
    digest = hashlib.sha256(salt.encode() + b"\0")
    digest.update(data)  # not salt + data: a copy of every file's bytes
    return digest.hexdigest()


def _keeps(ctx: RunContext, job: StageJob) -> tuple | None:
    """What a worker process needs to write a big file's staged rows into the run's local store
    itself (:func:`warehouse.resident.write_staged`'s first arguments), or None: the job's
    rows go back to this process (its stage is not a :class:`StagedRows`, its rows are
    checked here first, or the store does not keep them)."""
    rows = job.stage
    if not isinstance(rows, StagedRows) or job.check is not None or not resident.keeps_staged(
            ctx.store, rows.table):
        return None
    return (ctx.store.location, rows.table, resident.row_types(ctx.con, rows.table),
            resident.STAGED_ROWS, rows.select, rows.order)


class _Reader:
    """Parse files in worker processes, on the workers of the run's Dask cluster (``cluster``,
    :mod:`warehouse.cluster`), or in this process (one worker); results in order, each as
    ``(content key, why unreadable, table)``. A worker process reads the file itself (this
    process does not send its bytes) and may stage a big file's rows itself
    (:func:`_read_file`); the other ways, this process reads the file again and sends it."""

    def __init__(self, workers: int, cluster=None, pools=None):
        from scorehouse.warehouse.executors import processes

        self.cluster = cluster
        self.processes = processes(pools, workers) if workers > 1 and cluster is None else None
        self.pool = None
        self.pending: dict[int, object] = {}
        self.read: dict[int, tuple[str, str]] = {}  # id(job) -> (content key, why unreadable)

    def __enter__(self):
        if self.processes is not None:  # the run's worker processes (warehouse/executors.py)
            self.pool = self.processes.__enter__()
        return self

    def __exit__(self, *exc):
        if self.processes is not None:
            self.processes.__exit__(*exc)

    def submit(self, job: StageJob, keep: tuple | None = None) -> None:
        """Start parsing ``job``'s file (``keep``: see :func:`_keeps`)."""
        if self.pool is not None:
            self.pending[id(job)] = self.pool.submit(_read_file, job.read, job.path, _salt(job),
                                                     keep)
            return
        data, unreadable = _bytes(job.path)
        self.read[id(job)] = (_content_key(_salt(job), data), unreadable)
        if data is None:
            self.pending[id(job)] = None
        elif self.cluster is not None:
            self.pending[id(job)] = self.cluster.submit(_read, job.read, job.path, data)
        else:
            self.pending[id(job)] = data

    def result(self, job: StageJob) -> tuple[str, str, pa.Table | resident.KeptRows | tuple]:
        """``job``'s content key, why its file is unreadable (""), and what :func:`_read` gave:
        its table (or the file of its staged rows a worker kept), or the parts of the
        InputError that rejects it."""
        pending = self.pending.pop(id(job))
        if self.pool is not None:
            return pending.result()
        sha, unreadable = self.read.pop(id(job))
        return sha, unreadable, None if pending is None else (
            pending.result() if self.cluster else _read(job.read, job.path, pending))


def _read_file(read, path: Path, salt: str, keep: tuple | None):
    """Worker process side of :class:`_Reader`: the file read here, its content key, why it is
    unreadable (""), and what :func:`_read` gives of it; with ``keep``, a table of a family's
    big staged rows written into the local store here (:func:`warehouse.resident.write_staged`:
    not sent back, not written by the run's process) and given back as the file it wrote."""
    data, unreadable = _bytes(path)
    sha = _content_key(salt, data)
    if data is None:
        return sha, unreadable, None
    outcome = _read(read, path, data)
    del data
    if keep is not None and isinstance(outcome, pa.Table):
        outcome = resident.write_staged(*keep, sha, outcome) or outcome
    return sha, "", outcome


def _bytes(path: Path) -> tuple[bytes | None, str]:
    """A file's bytes, or None and why it cannot be read (a named pipe would block the run on
    its opening until a writer came, beyond a cron job's ``timeout``; a device never ends)."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            return None, ("a folder" if stat.S_ISDIR(mode) else "a named pipe (FIFO)"
                          if stat.S_ISFIFO(mode) else "a device or socket")
        return text.read_bytes(path), ""
    except InputError as err:  # too large: refused before it is read
        return None, f"{err.found}, not {err.expected}"
    except FileNotFoundError:
        return None, "nothing (missing file)"
    except OSError as err:
        return None, f"a file it cannot read ({err.strerror or type(err).__name__})"


def _read(read, path: Path, data: bytes):
    """Parse one file (in a worker process or in this one): the table, or the parts of the
    InputError that rejects the file. Whatever a reader did not foresee (a file nested too deep,
    a number too long for Python, a bug) rejects that file, never the run."""
    return _guarded(lambda p, d: read(p, text.prepared(p, d)), path, data)


def _guarded(step, path: Path, *arguments):
    """``step(path, *arguments)``, or the parts of the InputError that rejects the file."""
    try:
        return step(path, *arguments)
    except InputError as err:
        return (err.path, err.line, err.expected, err.found)
    except RecursionError:
        return (str(path), None, "a file nested less deeply", "nesting too deep to read")
    except MemoryError:
        return (str(path), None, "a file that fits in memory once read", "too large a file")
    except Exception as err:  # noqa: BLE001 - one bad file costs that file, never the night
        return (str(path), None, "a file its reader can parse",
                f"an error the reader did not foresee ({type(err).__name__}: "
                f"{shorten(str(err), 120)})")


def stage_table(ctx: RunContext, slot: Slot, label: str, sha: str, table: pa.Table,
                stage: Callable[[duckdb.DuckDBPyConnection, str, pa.Table], None]) -> bool:
    """Stage a table the warehouse computed itself (e.g. a built-in baseline's output) as the
    content ``sha`` of ``slot``, like a file; ``label`` stands for its path in the catalog."""
    con = ctx.con
    latest = one(con, "SELECT sha256 FROM cat_input_latest WHERE campaign = ? AND task = ? "
                      "AND corpus = ? AND system = ? AND role = ?",
                 [ctx.campaign.id, slot.task, slot.corpus, slot.system, slot.role])
    if latest is not None and latest[0] == sha and sha not in resident.lost_staged(con):
        return False
    _accept(ctx, slot, label, sha, table, stage, counted=False)
    return True


def _accept(ctx: RunContext, slot: Slot, path: str, sha: str, table: pa.Table, stage,
            counted: bool = True) -> None:
    """In one transaction: stage the rows (unless this content is staged already for this role,
    and not lost from the store since) and catalogue the version as accepted; ``counted``: a
    file (not a computed table) loaded."""
    con = ctx.con
    with transaction(con):
        if sha in resident.lost_staged(con) or not one(
                con, "SELECT 1 FROM cat_input WHERE sha256 = ? AND status = 'accepted' "
                "AND role = ? LIMIT 1", [sha, slot.role]):
            kept = _STORE.set(ctx.store)
            try:
                stage(con, sha, table)
            finally:
                _STORE.reset(kept)
        _record(con, ctx, slot, path, sha, table.num_rows, "accepted", None)
    if counted and str(path) not in ctx.loaded_files:  # a file staged in two roles counts once
        ctx.loaded_files.add(str(path))
        ctx.loaded += 1
        logs.event("file", f"loaded {path}", logging.DEBUG, path=str(path), task=slot.task,
                   corpus=slot.corpus, system=slot.system, role=slot.role)


# the run's unit store while a file's rows are staged: a staged table kept in the store
# (warehouse/resident.py) writes them there (:class:`StagedRows`)
_STORE: ContextVar = ContextVar("scorehouse_staging_store", default=None)


def _record(con, ctx, slot, path, sha, rows, status, error):
    con.execute("INSERT INTO cat_input VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [ctx.campaign.id, slot.task, slot.corpus, slot.system, slot.role, sha, str(path),
                 rows, status, error, ctx.run_id, now()])
