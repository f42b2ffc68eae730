"""The unit runner (warehouse/runner.py): the same campaign computed in this process, in worker
processes, on a Dask LocalCluster and on a real ``dask scheduler`` with ``dask worker`` processes
started here on 127.0.0.1 gives the same tables and the same published bytes; a unit rejected
inside a worker is a rejection like any other; a worker running other code refuses the units; a
worker killed mid-run costs a retry, not the run.

The campaign is the demo's at a small scale, holding every family. Run ids and timestamps aside,
every int_, fct_, mart_ and hist_ table is compared row for row, and every published file byte
for byte.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest
from helpers import published, tables

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.cores import cores
from scorehouse.warehouse.executors import ExecutorError, workers_default
from scorehouse.warehouse.pipeline import run


@pytest.fixture(scope="module")
def campaign(uninterrupted) -> Path:
    """The demo campaign at scale 0.05, every family (conftest.py, demo_build)."""
    return uninterrupted[1]


@pytest.mark.slow
def test_workers_give_identical_results(uninterrupted, tmp_path, monkeypatch):
    """Two worker processes give the tables and bytes the command gave in one process; they
    are started once for the whole run (parsing the files, then every task's units), not once
    per step."""
    from scorehouse.warehouse import executors

    started = []
    pool = executors.ProcessPoolExecutor
    monkeypatch.setattr(executors, "ProcessPoolExecutor",
                        lambda *a, **k: started.append(a[:1]) or pool(*a, **k))
    _, campaign, _, expected_tables, expected_files = uninterrupted
    db, out = tmp_path / "w2.duckdb", tmp_path / "w2" / "bulletins"
    done = run(campaign, db, out, quiet=True, workers=2)
    assert done.exit_code == 0 and done.scored > 50
    assert started == [(2,)]
    got = tables(db)
    assert got.keys() == expected_tables.keys()
    for name in got:
        assert got[name] == expected_tables[name], name
    assert published(out) == expected_files


def _wer_campaign(tmp_path: Path) -> Path:
    """The demo's WER task alone, small, in a campaign folder of its own."""
    source = write_demo_campaign(
        tmp_path / "src", scale=0.03, pos=False, parsing=False, coref=False, terms=False,
        calls=False
    ).parent
    camp = tmp_path / "campaign"
    shutil.copytree(source, camp)
    return camp


@pytest.mark.slow
def test_a_unit_rejected_in_a_worker_is_a_rejection(tmp_path):
    camp = _wer_campaign(tmp_path)
    db = tmp_path / "w.duckdb"
    first = run(camp, db, None, quiet=True, workers=2)
    assert first.exit_code == 0
    # the reference loses an utterance: the unchanged hypotheses now name an id it lacks, which
    # the unit's compute (in a worker) finds
    reference = camp / "references" / "Test_I.trn"
    lines = reference.read_text(encoding="utf-8").splitlines(keepends=True)
    dropped = lines[-1].rsplit("(", 1)[1].split(")")[0]
    reference.write_text("".join(lines[:-1]), encoding="utf-8")
    second = run(camp, db, None, quiet=True, workers=2)
    having = [
        p for p in (camp / "submissions").glob("*/Test_I.trn") if f"({dropped})" in p.read_text()
    ]
    assert second.exit_code == 2 and len(second.rejections) == len(having) > 0
    assert all(dropped in r and "utterance ids of the reference" in r for r in second.rejections)
    assert second.scored == 0  # the other corpora's units are not stale; Test_I's are rejected



@pytest.mark.slow
def test_the_report_imports_its_charts_while_the_workers_compute(tmp_path, monkeypatch):
    """A run that will publish imports its charts' modules (``reports.charts.warm``) in a
    thread while it waits for its workers' units, once; a run that computes no unit, or
    publishes nothing, or computes its units itself, does not; an import that fails there
    prints no traceback (the report step says its own error)."""
    import threading

    from scorehouse.reports import charts

    warmed = []
    monkeypatch.setattr(charts, "warm", lambda: warmed.append(threading.current_thread().name))

    def runs(*args, **options) -> list[str]:
        warmed.clear()
        assert run(*args, quiet=True, **options).exit_code == 0
        for thread in threading.enumerate():
            if thread.name == "scorehouse-on-wait":
                thread.join(30)
        return list(warmed)

    camp = _wer_campaign(tmp_path)
    db, out = tmp_path / "w.duckdb", tmp_path / "bulletins"
    assert runs(camp, db, out, workers=2) == ["scorehouse-on-wait"]
    assert runs(camp, db, out, workers=2) == []  # nothing changed: no unit to wait for
    assert runs(camp, tmp_path / "w2.duckdb", None, workers=2) == []  # no report step
    assert runs(camp, tmp_path / "w3.duckdb", tmp_path / "b3", workers=1) == []  # no worker

    def broken():
        warmed.append("broken")
        raise RuntimeError("matplotlib cannot start")

    escaped = []  # what a thread lets escape goes to threading.excepthook: a traceback
    monkeypatch.setattr(threading, "excepthook", escaped.append)
    monkeypatch.setattr(charts, "warm", broken)
    assert runs(camp, tmp_path / "w4.duckdb", tmp_path / "b4", workers=2) == ["broken"]
    assert escaped == []


@pytest.mark.slow
def test_a_lone_changed_unit_computes_in_a_worker(tmp_path, monkeypatch):
    """With workers, one changed unit computes in a worker process too, not in the
    coordinator (which holds the warehouse's buffer: a 1M-token POS unit there took its peak
    from 0.8 to 1.4 GiB), and takes every core: the workers share them when all compute. Its
    lone changed file is parsed in the coordinator, while a worker starts and imports the run's
    families (changed files are parsed on the workers)."""
    from scorehouse.warehouse import executors, runner, staging

    shares, real = [], runner.processes
    parsed, started, submit, start = [], [], staging._Reader.submit, executors.ProcessPools.start
    monkeypatch.setattr(staging._Reader, "submit", lambda self, job, data: parsed.append(
        (job.path, self.pool is None)) or submit(self, job, data))  # (file, parsed here)
    monkeypatch.setattr(executors.ProcessPools, "start", lambda self, n, modules=(): (
        started.append((n, modules)) or start(self, n, modules)))

    @contextmanager
    def recorded(pools, n):
        with real(pools, n) as pool:
            class Pool:
                def submit(self, *args):
                    shares.append(args[-1])
                    return pool.submit(*args)
            yield Pool()
    monkeypatch.setattr(runner, "processes", recorded)
    camp = _wer_campaign(tmp_path)
    db = tmp_path / "w.duckdb"
    assert run(camp, db, None, quiet=True, workers=2).exit_code == 0
    assert set(shares) == {max(1, cores() // 2)}  # the run's cores (warehouse/cores.py)
    assert {here for _, here in parsed} == {False} and started == []  # on the workers
    parsed.clear()
    changed = sorted((camp / "submissions").glob("*/Test_I.trn"))[0]
    before = changed.read_text(encoding="utf-8")
    changed.write_text(before.replace(" ", "  ", 1), encoding="utf-8")

    def here(*args, **kwargs):
        raise AssertionError("a unit computed in the coordinator")
    monkeypatch.setattr(runner, "Saver", here)
    shares.clear()
    second = run(camp, db, None, quiet=True, workers=2)
    assert second.exit_code == 0 and second.scored == 1
    assert shares == [cores()]
    assert parsed == [(changed, True)]  # the worker started ahead imports the run's family
    assert started == [(2, ("scorehouse.warehouse.families.wer",))]
    changed.write_text(before, encoding="utf-8")  # back: its unit is in the store, none computed
    shares.clear()
    third = run(camp, db, None, quiet=True, workers=2)
    assert third.exit_code == 0 and third.scored == 1 and shares == []
    # rejected: the worker started as it was parsed computes nothing (started before the
    # verdict, so that it has imported by the time a unit comes)
    changed.write_text("a line without its id\n", encoding="utf-8")
    started.clear()
    fourth = run(camp, db, None, quiet=True, workers=2)
    assert fourth.exit_code == 2 and fourth.scored == 0 and shares == []
    assert started == [(2, ("scorehouse.warehouse.families.wer",))]


def _unit_threads() -> int:
    """The threads of this process's private DuckDB once a unit has written through it."""
    from scorehouse.warehouse.db import private, written

    written("wer", (), lambda con: None)
    return int(private("wer").execute("SELECT current_setting('threads')").fetchall()[0][0])


def test_a_tasks_share_of_the_cores_is_its_units_duckdb_threads(monkeypatch):
    """A task's share of the cores becomes the threads of the private DuckDB its units write
    through; the next task's share replaces it."""
    from scorehouse.warehouse.executors import compute_chunk

    monkeypatch.setenv("SCOREHOUSE_UNIT_THREADS", "3")  # the process's own, back after the test
    assert [compute_chunk(None, _unit_threads, [("k", ())], threads=n)[0]
            for n in (1, 2, 1)] == [1, 2, 1]
    compute_chunk(None, _unit_threads, [("k", ())], threads=cores())  # as it was


def test_a_big_units_private_database_is_closed_and_its_rows_stay(monkeypatch):
    """After a unit that registered 100,000 rows or more, its private DuckDB is closed (its
    memory goes back; the next unit gets a new one, with its share of the cores); the rows it
    returned are whole."""
    import pyarrow as pa

    from scorehouse.warehouse.db import private, written

    monkeypatch.setenv("SCOREHOUSE_UNIT_THREADS", "1")
    first = private("wer")
    big = pa.table({"n": pa.array(range(100_000), pa.int64())})
    rows = written("wer", ("counted",), lambda con: con.execute(
        "CREATE OR REPLACE TEMP TABLE counted AS SELECT count(*) AS n, sum(n) AS s FROM big"),
                   {"big": big})
    assert rows["counted"].to_pylist() == [{"n": 100_000, "s": 4_999_950_000}]
    assert private("wer") is not first
    assert _unit_threads() == 1  # the new database took the task's share
    small = written("wer", (), lambda con: None, {"few": big.slice(0, 10)})
    assert small == {} and private("wer").execute("SELECT 1").fetchall() == [(1,)]


def test_workers_setting(monkeypatch):
    monkeypatch.delenv("SCOREHOUSE_WORKERS", raising=False)
    assert workers_default() == 1
    monkeypatch.setenv("SCOREHOUSE_WORKERS", "3")
    assert workers_default() == 3
    for value in ("all", "0", "²"):  # a superscript is no number of processes
        monkeypatch.setenv("SCOREHOUSE_WORKERS", value)
        with pytest.raises(ExecutorError, match="SCOREHOUSE_WORKERS must be a positive integer"):
            workers_default()


# ---------------------------------------------------------------- Dask distributed


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def dask_cluster(workers: int = 2, env: dict | None = None):
    """A real ``dask scheduler`` and ``dask worker`` processes on 127.0.0.1, stopped by pid."""
    port, dask = free_port(), str(Path(sys.executable).parent / "dask")
    address = f"tcp://127.0.0.1:{port}"
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    procs = [
        subprocess.Popen(
            [
                dask,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--dashboard-address",
                ":0",
                "--no-show",
            ],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        for _ in range(workers):
            procs.append(
                subprocess.Popen(
                    [
                        dask,
                        "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--nworkers",
                        "1",
                        "--no-dashboard",
                        "--host",
                        "127.0.0.1",
                    ],
                    env={**environment, **(env or {})},
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(workers, timeout=60)
        yield address, procs
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()


def wer_campaign(tmp_path: Path) -> Path:
    return write_demo_campaign(
        tmp_path / "campaign", scale=0.05, pos=False, parsing=False, coref=False, terms=False,
        calls=False
    ).parent


@pytest.mark.slow
def test_a_dask_local_cluster_gives_identical_results(uninterrupted, tmp_path):
    from distributed import Client, LocalCluster, get_task_stream

    _, campaign, _, expected_tables, expected_files = uninterrupted
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster, Client(cluster) as client, get_task_stream(client) as stream:
        db, out = tmp_path / "dask.duckdb", tmp_path / "dask" / "bulletins"
        assert run(campaign, db, out, quiet=True, executor=cluster.scheduler_address).exit_code == 0
    # the files were parsed on the workers too, not only the units computed there
    assert {task["key"].split("-")[0] for task in stream.data} == {"read", "compute_chunk"}
    got = tables(db)
    assert got.keys() == expected_tables.keys() and all(got[t] == expected_tables[t] for t in got)
    assert published(out) == expected_files


@pytest.mark.slow
def test_a_real_scheduler_and_workers_give_identical_results(tmp_path):
    camp = wer_campaign(tmp_path)
    db1, db2 = tmp_path / "one.duckdb", tmp_path / "dask.duckdb"
    assert run(camp, db1, None, quiet=True, workers=1).scored == 15
    with dask_cluster(2) as (address, _):
        assert run(camp, db2, None, quiet=True, executor=address).scored == 15
    first, second = tables(db1), tables(db2)
    assert all(first[t] == second[t] for t in first)


@pytest.mark.slow
def test_a_worker_with_other_code_refuses_the_units(tmp_path):
    camp = wer_campaign(tmp_path)
    with dask_cluster(1, env={"SCOREHOUSE_TEST_CODE_VERSION": "0.0.0+other"}) as (address, _):
        with pytest.raises(ExecutorError, match=r"this worker runs scorehouse 0\.0\.0\+other"):
            run(camp, tmp_path / "w.duckdb", None, quiet=True, executor=address)


def test_no_scheduler_is_a_clear_error(tmp_path, monkeypatch):
    from scorehouse.warehouse import cluster

    camp, waits = wer_campaign(tmp_path), []
    connect = cluster.dask_client

    def counted(address, timeout=10, really=True):
        waits.append(timeout)
        return connect(address, timeout) if really else None

    monkeypatch.setattr(cluster, "dask_client", counted)
    with pytest.raises(ExecutorError, match="no Dask scheduler answers at tcp://127.0.0.1"):
        run(camp, tmp_path / "w.duckdb", None, quiet=True,
            executor=f"tcp://127.0.0.1:{free_port()}", executor_wait=1)
    # the first connection waits 10 s, or --executor-wait if shorter
    monkeypatch.setattr(cluster, "dask_client", partial(counted, really=False))
    cluster.Cluster("tcp://127.0.0.1:1").client()
    assert waits == [1, 10]


@pytest.mark.slow
def test_a_worker_killed_mid_run_costs_a_retry(tmp_path, monkeypatch):
    camp = write_demo_campaign(
        tmp_path / "campaign", scale=0.3, pos=False, parsing=False, coref=False, terms=False,
        calls=False
    ).parent
    expected_db = tmp_path / "one.duckdb"
    run(camp, expected_db, None, quiet=True, workers=1)
    from scorehouse.warehouse import runner

    commit, killed = runner._Batch.add, []

    def kill_a_worker_first(*args):  # when the first result arrives, units are still running
        if not killed:
            procs[2].kill()
            procs[2].wait()
            killed.append(True)
        commit(*args)

    monkeypatch.setattr(runner._Batch, "add", kill_a_worker_first)
    with dask_cluster(2) as (address, procs):
        done = run(camp, tmp_path / "dask.duckdb", None, quiet=True, executor=address)
    assert killed and done.exit_code == 0 and done.scored == 15
    first, second = tables(expected_db), tables(tmp_path / "dask.duckdb")
    assert all(first[t] == second[t] for t in first)


def test_bad_executor_settings_are_one_line_and_exit_1(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from scorehouse.warehouse.cli import main

    camp, db = wer_campaign(tmp_path), str(tmp_path / "w.duckdb")
    monkeypatch.setenv("SCOREHOUSE_WORKERS", "all")
    out = CliRunner().invoke(main, ["run", str(camp), "--db", db, "-q"])
    assert out.exit_code == 1 and "SCOREHOUSE_WORKERS must be a positive integer" in out.output
    monkeypatch.delenv("SCOREHOUSE_WORKERS")
    out = CliRunner().invoke(main, ["run", str(camp), "--db", db, "-q", "--executor", "nonsense"])
    assert out.exit_code == 1 and "no Dask scheduler answers at nonsense" in out.output
    assert "Traceback" not in out.output


def test_small_units_travel_together_and_big_ones_alone():
    import polars as pl

    from scorehouse.warehouse.executors import CHUNK_ROWS, CHUNK_UNITS, chunks

    small = [(f"u{i}", ({"k": 1}, pl.DataFrame({"x": [1, 2]}))) for i in range(200)]
    sizes = [len(c) for c in chunks(iter(small), len(small), workers=2)]
    assert sum(sizes) == 200 and max(sizes) == CHUNK_UNITS
    # a handful of units: each worker still gets several tasks
    assert [len(c) for c in chunks(iter(small[:8]), 8, workers=2)] == [1] * 8
    big = [(f"b{i}", ({"k": 1}, pl.DataFrame({"x": range(CHUNK_ROWS)}))) for i in range(40)]
    assert [len(c) for c in chunks(iter(big), len(big), workers=2)] == [1] * 40


def test_a_rejected_unit_does_not_cost_its_task_companions(tmp_path):
    from scorehouse.etl.errors import InputError
    from scorehouse.warehouse.executors import compute_chunk
    from scorehouse.warehouse.store import Store

    def compute(ids, n):
        if n == 2:
            raise InputError("sys2.trn", 3, "an utterance id", "nothing")
        return {"t": __import__("pyarrow").table({"n": [n]})}

    out = compute_chunk(None, compute, [(f"k{n}", ({}, n)) for n in range(4)])
    assert [r["t"]["n"][0].as_py() for r in (out[0], out[1], out[3])] == [0, 1, 3]
    assert isinstance(out[2], InputError) and "sys2.trn:3" in str(out[2])
    stored = compute_chunk(str(tmp_path / "s"), compute, [(f"k{n}", ({}, n)) for n in range(4)])
    assert stored[:2] == [None, None] and isinstance(stored[2], InputError)
    assert Store(str(tmp_path / "s")).load("k3")["t"]["n"][0].as_py() == 3



def test_a_worker_hands_back_what_arrows_pool_kept_after_each_unit(tmp_path, monkeypatch):
    """A worker computes unit after unit: after each, saved or not, what Arrow's memory pool
    kept of it goes back to the system (``release_unused``) before the next unit computes, a
    rejected unit's too."""
    import pyarrow as pa

    from scorehouse.etl.errors import InputError
    from scorehouse.warehouse import executors

    events = []

    class Pool:  # the pool the worker's Arrow allocates from, as executors sees it
        def release_unused(self):
            events.append("released")

    def compute(ids, n):
        events.append(f"unit {n}")
        if n == 1:
            raise InputError("sys1.trn", 3, "an utterance id", "nothing")
        return {"t": pa.table({"n": [n]})}

    monkeypatch.setattr(executors.pa, "default_memory_pool", Pool)
    for location in (None, str(tmp_path / "s")):
        events.clear()
        executors.compute_chunk(location, compute, [(f"k{n}", ({}, n)) for n in range(3)])
        assert events == ["unit 0", "released", "unit 1", "released", "unit 2", "released"]


def test_a_broken_worker_pool_is_replaced_for_the_next_step():
    """The run keeps its worker processes between steps (warehouse/executors.py); a worker that
    dies breaks its pool: one line saying so (exit 1 from the command, as every ExecutorError),
    not multiprocessing's internal error, and the next step must start a new pool rather than
    fail too."""
    from scorehouse.warehouse.executors import WORKER_LOST, ProcessPools, processes

    pools = ProcessPools()
    try:
        with pytest.raises(ExecutorError) as lost:
            with processes(pools, 1) as pool:
                pool.submit(os._exit, 3).result()
        assert str(lost.value) == WORKER_LOST and "run again to resume" in WORKER_LOST
        with processes(pools, 1) as pool:
            assert pool.submit(abs, -4).result() == 4
    finally:
        pools.close()
    with pytest.raises(ExecutorError) as lost:  # a step's own pool (no run's pools) alike
        with processes(None, 1) as pool:
            pool.submit(os._exit, 3).result()
    assert str(lost.value) == WORKER_LOST


@pytest.mark.slow
def test_a_worker_killed_mid_run_stops_it_in_one_line_and_the_next_run_resumes(tmp_path,
                                                                                monkeypatch):
    """A worker process of a ``--workers`` run killed while units are still running (as the
    kernel's out-of-memory killer would): the command says so in one line and exits 1, the run
    is listed as failed, no worker of it is left, and the next plain run gives the tables of an
    uninterrupted one (docs/guide.md)."""
    import multiprocessing
    import signal

    from click.testing import CliRunner

    from scorehouse.warehouse import runner
    from scorehouse.warehouse.cli import main
    from scorehouse.warehouse.executors import WORKER_LOST

    camp = write_demo_campaign(tmp_path / "campaign", scale=0.3, pos=False, parsing=False,
                               coref=False, terms=False, calls=False).parent
    assert run(camp, tmp_path / "one.duckdb", None, quiet=True, workers=1).scored == 15
    commit, killed = runner._Batch.add, []

    def kill_a_worker_first(*args):  # when the first result arrives, units are still running
        if not killed:
            victim = multiprocessing.active_children()[0]
            os.kill(victim.pid, signal.SIGKILL)
            victim.join()
            killed.append(victim.pid)
        commit(*args)

    monkeypatch.setattr(runner._Batch, "add", kill_a_worker_first)
    db = tmp_path / "w.duckdb"
    out = CliRunner().invoke(main, ["run", str(camp), "--db", str(db), "--workers", "2",
                                    "--quiet"])
    assert killed and out.exit_code == 1, out.output
    errors = [line for line in out.output.splitlines() if line.strip()]
    assert errors == [f"Error: {WORKER_LOST}"] and "Traceback" not in out.output
    assert multiprocessing.active_children() == []  # the other worker ended with the run
    monkeypatch.setattr(runner._Batch, "add", commit)
    listed = CliRunner().invoke(main, ["runs", "--db", str(db), "--format", "json"])
    assert [(r["run"], r["status"]) for r in json.loads(listed.output)] == [(1, "failed")]
    again = run(camp, db, None, quiet=True, workers=2)
    assert again.exit_code == 0 and again.run_id == 1
    assert tables(db) == tables(tmp_path / "one.duckdb")


ENDED_AT_ONCE = """
import os, sys
from scorehouse.warehouse.executors import ProcessPools

if __name__ == "__main__":
    pools = ProcessPools()
    pools.get(2).submit(abs, -1).result()
    pools.close(wait=False)  # after the units: told to end while the pages are rendered
    pools.close()  # the run's end (warehouse/pipeline.py run)
    sys.stderr.flush()
    os._exit(0)  # the run's process ends at once (scorehouse/__main__.py)
"""


def test_workers_told_to_end_are_waited_for_before_the_process_ends(tmp_path):
    """The workers a run tells to end without waiting (before its report step) are waited for
    at its end: a process that then ends at once leaves multiprocessing nothing to warn of (a
    pool still ending left its queues' semaphores to the tracker, which said so on stderr:
    a run on a loaded machine, in the test suite)."""
    script = tmp_path / "ended.py"
    script.write_text(ENDED_AT_ONCE, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_a_pool_is_started_ahead_only_for_units_and_only_once():
    """``ProcessPools.start`` (a lone changed file's run, warehouse/staging.py): nothing when no
    units follow (``scorehouse load``, a Dask executor); else one pool, whose first process is
    started and then serves the units; a second call starts none; a pool an earlier step made
    without starting any process (it had no file to parse) gets its first process too."""
    from scorehouse.warehouse.executors import ProcessPools

    idle = ProcessPools(units_follow=False)
    idle.start(2)
    assert idle._pools == {}
    pools = ProcessPools(units_follow=True)
    try:
        pools.start(2)
        pools.start(2)
        assert list(pools._pools) == [2]
        assert len(pools._pools[2]._processes) == 1  # one process ahead, not the whole pool
        pool = pools.get(1)  # the units step's lone unit: the started pool
        assert pool is pools._pools[2] and pool.submit(os.getpid).result() != os.getpid()
    finally:
        pools.close()
    made = ProcessPools(units_follow=True)
    try:
        made.get(2)  # an earlier step's pool, no process started
        assert len(made._pools[2]._processes) == 0
        made.start(2)
        assert list(made._pools) == [2] and len(made._pools[2]._processes) == 1
    finally:
        made.close()


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_killed_runs_workers_end_with_it():
    """The run's process killed (SIGKILL: a cron timeout, an operator), its worker processes end
    too, instead of waiting for tasks for good with their memory; a worker of a living run
    stays."""
    import subprocess
    import sys
    import time

    code = ("import os, signal, sys, time\n"
            "from scorehouse.warehouse.executors import ProcessPools\n"
            "pools = ProcessPools(units_follow=True)\n"
            "pool = pools.get(2)\n"
            "print(pool.submit(os.getpid).result(), flush=True)\n"
            "time.sleep(float(sys.argv[1]))\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n")
    child = subprocess.Popen([sys.executable, "-c", code, "3"], stdout=subprocess.PIPE,
                             text=True)
    try:
        worker = int(child.stdout.readline())
        time.sleep(1.5)
        assert _running(worker)  # the run lives: its worker waits for tasks
        child.wait(timeout=60)
        assert child.returncode == -9
        deadline = time.monotonic() + 30
        while _running(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(worker), "a killed run's worker is still there"
    finally:
        child.kill()
