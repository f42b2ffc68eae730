"""The catalog: runs, campaign declarations, input versions and scoring states.

Shared by every family. A family stages its files through :func:`stage_file`, which hashes the
content, skips what is already the latest version, parses with the family's reader, and records
the file as accepted or rejected (with the reader's ``file:line`` message) in one transaction.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import duckdb
import pyarrow as pa

from scorehouse.warehouse import resident
from scorehouse.warehouse.campaign import Campaign
from scorehouse.warehouse.db import insert_rows, registered
from scorehouse.warehouse.faults import checkpoint
from scorehouse.warehouse.versions import (  # noqa: F401  (the code versions live there)
    code_version,
    fingerprint,
    imported_sources,
    package_files,
)


@dataclass
class RunContext:
    """What every step of one run shares: the connection, the campaign, the run id, counters."""

    con: duckdb.DuckDBPyConnection
    campaign: Campaign
    run_id: int
    quiet: bool = False
    loaded: int = 0  # files loaded (a file staged in several roles counts once)
    loaded_files: set = field(default_factory=set)
    scored: int = 0
    rejections: list[str] = field(default_factory=list)  # add with reject(): each file once
    notes: list[str] = field(default_factory=list)
    workers: int | None = None  # unit computations at once (None: warehouse.runner's default)
    executor: Any = None  # the run's Dask cluster (warehouse.cluster.Cluster), or None
    pools: Any = None  # the run's worker processes (warehouse.executors.ProcessPools), or None
    store: Any = None  # the unit store (warehouse.store.Store), None for an in-memory warehouse
    # run once, in a thread, when the run first waits for worker processes or a cluster to
    # compute its units (warehouse/runner.py): the report step's imports (warehouse/pipeline.py)
    on_wait: Any = None
    force: bool = False  # recompute every unit, even one whose output is in the store
    rehash: bool = False  # read and hash every input file, even one its stat finds unchanged
    # the run took over the number of one that did not finish, or recomputes units it committed
    # (a unit store lost mid-run): a unit's history rows of this run are replaced, not added
    resumed: bool = False
    steps: dict[str, float] = field(default_factory=dict)  # seconds per step (warehouse/runs.py)
    timing: list[float] = field(default_factory=list)  # the steps being timed

    def reject(self, message: str) -> None:
        """Record a rejected input, once: a file staged in several roles or tables (a
        coreference file in JSON lines) is rejected by each of them with the same message."""
        if message not in self.rejections:
            self.rejections.append(message)


def start_run(con: duckdb.DuckDBPyConnection, campaign: Campaign, command: str,
              quiet: bool = False) -> RunContext:
    """Open a run row (or resume the number of the campaign's run that did not finish:
    :mod:`warehouse.runs`) and record the campaign's declarations (participants, systems,
    corpora)."""
    from scorehouse.warehouse.runs import open_run

    with transaction(con):
        run_id, resumed = open_run(con, campaign.id, command, now())
        _declare(con, campaign, run_id)
    ctx = RunContext(con, campaign, run_id, quiet)
    ctx.resumed = resumed
    return ctx


def finish_run(ctx: RunContext, status: str | None = None, message: str = "") -> str:
    """Close the run row; the status is ``rejected-inputs`` when any input was rejected."""
    status = status or ("rejected-inputs" if ctx.rejections else "ok")
    ctx.con.execute("UPDATE cat_run SET finished_at = ?, status = ?, loaded = ?, scored = ?, "
                    "rejected = ?, message = ?, steps = ? WHERE run_id = ?",
                    [now(), status, ctx.loaded, ctx.scored, len(ctx.rejections), message,
                     json.dumps(ctx.steps), ctx.run_id])
    return status


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection):
    """One transaction on ``con``: committed when the block ends, rolled back if it raises.
    Nested blocks join the outermost one, so a step that commits its rows together with the
    record that they are done (a reduce, a page) may call helpers that open their own block."""
    depth = _DEPTH.get(id(con), 0)
    if depth == 0:
        con.begin()
    _DEPTH[id(con)] = depth + 1
    try:
        yield con
    except BaseException:
        _DEPTH[id(con)] = depth
        if depth == 0:
            try:
                con.rollback()
            except duckdb.Error:
                pass  # the failure (a full disk, say) already ended the transaction: report it
        raise
    _DEPTH[id(con)] = depth
    if depth == 0:
        con.commit()
        checkpoint("commit")


_DEPTH: dict[int, int] = {}  # id(connection) -> depth of open transaction blocks


def _declare(con, campaign: Campaign, run_id: int) -> None:
    with transaction(con):
        c = campaign.id
        con.execute("DELETE FROM cat_campaign WHERE campaign = ?", [c])
        con.execute("INSERT INTO cat_campaign VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [c, campaign.name, campaign.description, str(campaign.root), campaign.bootstrap,
                     campaign.seed, run_id])
        con.execute("DELETE FROM cat_participant WHERE campaign = ?", [c])
        insert_rows(con, "INSERT INTO cat_participant VALUES (?, ?, ?, ?, ?, ?)",
                        [[c, p.id, p.name, p.publication, p.organiser, campaign.code(p.id)]
                         for p in campaign.participants.values()])
        for table in ("cat_system", "cat_corpus"):
            con.execute(f"DELETE FROM {table} WHERE campaign = ?", [c])
        for task in campaign.tasks:
            insert_rows(con, "INSERT INTO cat_system VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            [[c, task.id, s.id, s.participant, campaign.label(s),
                              campaign.participants[s.participant].organiser, False,
                              s.description, json.dumps(s.options)] for s in task.systems])
            insert_rows(con, "INSERT INTO cat_corpus VALUES (?, ?, ?, ?, ?)",
                            [[c, task.id, task.family, k.id, k.phase] for k in task.corpora])


def declare_baselines(ctx: RunContext, task, labels: dict[str, str], origin: str) -> None:
    """Declare a task's built-in baselines in ``cat_system`` (system id -> its label; ``origin``:
    what they are built from, their description): participant ``baseline``, not organisers',
    flagged as baselines, no options."""
    insert_rows(ctx.con, "INSERT OR REPLACE INTO cat_system VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [[ctx.campaign.id, task.id, sid, "baseline", label, False, True,
                  f"built-in, from {origin}", "{}"] for sid, label in labels.items()])


def current_inputs(con, campaign: str, task: str) -> dict[tuple[str, str, str], str]:
    """(corpus, system, role) -> sha256 of the latest accepted version."""
    rows = con.execute("SELECT corpus, system, role, sha256 FROM cat_input_current "
                       "WHERE campaign = ? AND task = ?",
                       [campaign, task]).fetchall()
    return {(c, s, r): sha for c, s, r, sha in rows}


def scoring_state(con, campaign: str, task: str) -> dict[tuple[str, str], str]:
    """(corpus, system) -> state fingerprint of the current results."""
    rows = con.execute("SELECT corpus, system, state FROM cat_scoring "
                       "WHERE campaign = ? AND task = ?",
                       [campaign, task]).fetchall()
    return {(c, s): st for c, s, st in rows}


def drop_undeclared(ctx: RunContext, task: str, declared: set[tuple[str, str]],
                    tables: tuple[str, ...]) -> set[str]:
    """Remove from ``tables`` (and ``cat_scoring``) the results of (corpus, system) units no
    longer declared in campaign.toml, and forget the recorded reduces of their corpora (a
    corpus declared again is reduced again, though its units' states are those it had);
    return the corpora touched (their intervals are stale)."""
    gone = sorted(set(scoring_state(ctx.con, ctx.campaign.id, task)) - declared)
    if not gone:
        return set()
    keys = pa.Table.from_pylist([{"campaign": ctx.campaign.id, "task": task, "corpus": corpus,
                                  "system": system} for corpus, system in gone])
    with transaction(ctx.con):
        with registered(ctx.con, undeclared=keys):
            for table in (*tables, "cat_scoring"):
                resident.forget(ctx.con, table, "undeclared")
                if table in resident.declared():
                    resident.refresh(ctx.con, table)
        for corpus in {corpus for corpus, _ in gone}:
            ctx.con.execute("DELETE FROM cat_artifact WHERE campaign = ? AND kind = 'reduce' "
                            "AND starts_with(key, ?)", [ctx.campaign.id, f"{task}/{corpus}/"])
    ctx.notes += [f"{task}/{corpus}/{system}: no longer declared, results removed"
                  for corpus, system in gone]
    return {corpus for corpus, _ in gone}


def drop_undeclared_corpora(ctx: RunContext, task: str, corpora: list[str]) -> None:
    """Remove what the reduces of a task's corpora no longer declared wrote (``corpora``: those
    declared) from every table keyed by corpus (a consensus, intervals, a corpus's description,
    a reference's derived tables, the rows a reduce wrote into a resident table's rows table,
    as a reference's ranges) and forget those reduces, in one transaction: the warehouse then
    holds what one built from scratch holds. The corpora are those of the recorded reduces
    (a small table: nothing is scanned while every corpus stays declared), so this runs before
    :func:`drop_undeclared`, which forgets them; that one removes the units' own rows. The
    history (``hist_``), the catalog, the staged files and the task-wide scopes (``*``) stay."""
    gone = sorted({key.split("/")[1] for (key,) in ctx.con.execute(
        "SELECT key FROM cat_artifact WHERE campaign = ? AND kind = 'reduce' "
        "AND starts_with(key, ?)", [ctx.campaign.id, f"{task}/"]).fetchall()}
        - {*corpora, "", "*"})
    if not gone:
        return
    tables = [t for (t,) in ctx.con.execute(
        "SELECT c.table_name FROM duckdb_columns() c JOIN duckdb_tables() t "
        "ON t.table_name = c.table_name AND t.schema_name = c.schema_name "
        "AND t.database_name = c.database_name WHERE c.database_name = current_database() "
        "AND c.schema_name = 'main' AND c.column_name IN ('campaign', 'task', 'corpus') "
        "GROUP BY ALL HAVING count(*) = 3 ORDER BY 1").fetchall()
        if t.split("_")[0] in ("int", "fct", "mart")]  # a resident table's own rows too
    with transaction(ctx.con):
        for t in tables:
            ctx.con.execute(f"DELETE FROM {t} WHERE campaign = ? AND task = ? "
                            "AND list_contains(?, corpus)", [ctx.campaign.id, task, gone])
        for corpus in gone:
            ctx.con.execute("DELETE FROM cat_artifact WHERE campaign = ? AND kind = 'reduce' "
                            "AND starts_with(key, ?)", [ctx.campaign.id, f"{task}/{corpus}/"])


def replace_rows(con, key: dict, tables: tuple[str, ...], body) -> None:
    """Replace the rows of ``tables`` that match every column of ``key`` by what ``body()``
    inserts, in one transaction: a unit's results (key campaign, task, corpus, system), a
    corpus's (campaign, task, corpus) or a task's (campaign, task)."""
    where = " AND ".join(f"{column} = ${column}" for column in key)
    with transaction(con):
        for t in tables:
            con.execute(f"DELETE FROM {t} WHERE {where}", key)
        body()


def record_scorings(ctx: RunContext, folder: str, hist: str, units: list[tuple[dict, dict, str]]
                    ) -> None:
    """Close the scoring of a batch of units, inside its transaction: append their corpus
    scores to the family's history table ``hist`` (the ``-- @build`` of
    ``sql/<folder>/<hist>.sql``, which reads the batch as ``unit_batch``) and record their
    states in ``cat_scoring``. Each unit is (key: campaign, task, corpus and system; its inputs;
    its state)."""
    from scorehouse.warehouse.db import build

    batch = pa.Table.from_pylist([{**key, "inputs": json.dumps(inputs), "state": state}
                                  for key, inputs, state in units])
    with registered(ctx.con, unit_batch=batch):
        if ctx.resumed:  # a unit scored already under this run number: one history row per run
            on = " AND ".join(f"h.{c} = b.{c}" for c in ("campaign", "task", "corpus", "system"))
            ctx.con.execute(f"DELETE FROM {hist} h USING unit_batch b WHERE h.run_id = $r AND {on}",
                            {"r": ctx.run_id})
        build(ctx.con, folder, hist, run_id=ctx.run_id)
        ctx.con.execute("INSERT OR REPLACE INTO cat_scoring SELECT campaign, task, corpus, system, "
                        "state, inputs, $run_id, now()::TIMESTAMP FROM unit_batch",
                        {"run_id": ctx.run_id})


def now() -> datetime:
    """The time a run or an input version is recorded at, to the second."""
    return datetime.now().replace(microsecond=0)
