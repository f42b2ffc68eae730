"""Dask faults are visible and bounded (warehouse/cluster.py), with a real ``dask scheduler`` and
``dask worker`` processes on 127.0.0.1: a worker killed mid-run is named in the run's notes and
costs a retry; all workers killed, or the scheduler killed, stop the run after the configured
wait (2 s here) with exit 1 and one line, the warehouse as a kill would leave it: a plain run
afterwards gives the uninterrupted run's tables, its run number included.
"""

from __future__ import annotations

import json
import logging
import time

import pytest
from click.testing import CliRunner
from helpers import tables
from test_runner import dask_cluster

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse import runner
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """A speech campaign of 15 units, and its tables scored in this process."""
    root = tmp_path_factory.mktemp("faults")
    camp = write_demo_campaign(root / "campaign", scale=0.3, pos=False, parsing=False,
                               coref=False, terms=False, calls=False).parent
    assert run(camp, root / "one.duckdb", None, quiet=True, workers=1).scored == 15
    return camp, tables(root / "one.duckdb", run_ids=True)


def kill_at_first_result(monkeypatch, victims):
    """Kill the processes ``victims()`` when the first unit's result arrives (units are still
    running on the workers then)."""
    commit, killed = runner._Batch.add, []

    def add(*args):
        if not killed:
            for proc in victims():
                proc.kill()
                proc.wait()
            killed.append(True)
        commit(*args)

    monkeypatch.setattr(runner._Batch, "add", add)
    return killed


def worker_address(address: str, pid: int) -> str:
    import os

    from distributed import Client

    with Client(address, timeout="10s") as client:
        return next(w for w, p in client.run(os.getppid).items() if p == pid)  # its nanny


@pytest.mark.slow
def test_a_lost_worker_is_named_in_the_notes(expected, tmp_path, monkeypatch):
    camp, rows = expected
    with dask_cluster(2) as (address, procs):
        lost = worker_address(address, procs[2].pid)
        killed = kill_at_first_result(monkeypatch, lambda: [procs[2]])
        done = run(camp, tmp_path / "w.duckdb", None, quiet=True, executor=address)
        from distributed import Client

        with Client(address, timeout="10s") as client:
            events = client.get_events("all")
    # one client for the run, its files parsed and its units computed on the cluster (the
    # others: dask_cluster's, worker_address's and the one just above)
    assert [e["action"] for _, e in events].count("add-client") == 4
    assert killed and done.exit_code == 0 and done.scored == 15
    assert [n for n in done.notes if lost in n] == [
        f"the Dask worker {lost} was lost during the run: its tasks were retried on the other "
        "workers"]
    assert tables(tmp_path / "w.duckdb", run_ids=True) == rows


def stopped_then_resumed(camp, rows, db, address, message: str, caplog):
    """Run through the CLI (exit 1, one line naming ``message``), then resume in this process:
    the uninterrupted run's tables, run number included; both attempts listed by `runs`."""
    out = CliRunner().invoke(main, ["run", str(camp), "--db", str(db), "--executor",
                                    address, "--executor-wait", "2", "--quiet"])
    errors = [line for line in out.output.splitlines() if line.startswith("Error")]
    assert out.exit_code == 1 and len(errors) == 1 and message in errors[0], out.output
    assert "run again to resume" in errors[0] and "Traceback" not in out.output
    # the wait is said (on stderr, through the "scorehouse" logger) before it starts, even
    # with --quiet
    assert "waiting up to 2 s for " in out.output
    again = run(camp, db, None, quiet=True, workers=1)
    # the same run number; the units computed before the stop come from the store
    assert again.run_id == 1 and any("committed from the store" in n for n in again.notes)
    assert tables(db, run_ids=True) == rows
    listed = CliRunner().invoke(main, ["runs", "--db", str(db), "--format", "json"])
    history = json.loads(listed.output)
    assert [(r["run"], r["status"]) for r in history] == [(1, "failed"), (1, "ok")]
    assert message in history[0]["note"]


@pytest.mark.slow
def test_no_worker_left_stops_the_run_after_the_wait(expected, tmp_path, monkeypatch, caplog):
    camp, rows = expected
    with dask_cluster(2) as (address, procs):
        killed = kill_at_first_result(monkeypatch, lambda: procs[1:])
        stopped_then_resumed(camp, rows, tmp_path / "w.duckdb", address,
                             f"no Dask worker left at {address}: none came back within 2 s", caplog)
    assert killed


@pytest.mark.slow
def test_the_scheduler_killed_stops_the_run_after_the_wait(expected, tmp_path, monkeypatch, caplog):
    camp, rows = expected
    with dask_cluster(2) as (address, procs):
        killed = kill_at_first_result(monkeypatch, lambda: procs[:1])
        stopped_then_resumed(camp, rows, tmp_path / "w.duckdb", address,
                             f"the Dask scheduler at {address} is gone: it did not come back "
                             "within 2 s", caplog)
    assert killed


@pytest.mark.parametrize("value, wait", [("", 180), ("executor_wait = 5\n", 5),
                                         ('executor_wait = "3m"\n', None),
                                         ("executor_wait = -1\n", None)])
def test_the_wait_is_a_strictly_checked_campaign_setting(tmp_path, value, wait):
    import tomllib

    import jsonschema

    from scorehouse.warehouse.campaign import CampaignError, load_campaign
    from scorehouse.warehouse.campaign_schema import schema

    toml = tmp_path / "campaign.toml"
    toml.write_text(f'[campaign]\nid = "c"\n{value}', encoding="utf-8")
    document = tomllib.loads(toml.read_text(encoding="utf-8"))
    if wait is None:
        with pytest.raises(CampaignError, match=r"\[campaign\]\.executor_wait: expected an "
                                                r"integer from 0 to 86,400"):
            load_campaign(toml)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(document, schema())
    else:
        assert load_campaign(toml).executor_wait == wait
        jsonschema.validate(document, schema())


def test_a_scheduler_gone_between_two_tasks_is_waited_for(caplog):
    """The workers are counted before each task's units are cut: a scheduler gone then is the
    wait and its one-line stop (it was a KeyError, exit 70), and one back in time is used."""
    from scorehouse.warehouse.cluster import Cluster
    from scorehouse.warehouse.executors import ExecutorError

    with dask_cluster(1) as (address, procs):
        cluster = Cluster(address, wait=2)
        assert cluster.workers() == 1
        procs[0].kill()
        procs[0].wait()
        deadline = time.monotonic() + 30  # until the client has seen it go, as between tasks
        while "workers" in cluster.client().scheduler_info() and time.monotonic() < deadline:
            time.sleep(0.1)
        with pytest.raises(ExecutorError, match=f"the Dask scheduler at {address} is gone: it "
                                                "did not come back within 2 s"):
            cluster.workers()
        cluster.close()
    assert "is gone: waiting up to 2 s" in caplog.text
    assert not [r for r in caplog.records if r.name.startswith("distributed.client")
                and r.levelname in ("ERROR", "WARNING")]


class _Future:
    """A Dask future's part :meth:`Cluster.result` uses: its client, and a result or an error."""

    def __init__(self, client, value=None, error=None):
        self.client, self.value, self.error = client, value, error

    def result(self, timeout=None):
        if self.error is not None:
            raise self.error
        return self.value


def test_a_task_sent_through_a_closed_client_is_sent_again(monkeypatch):
    """A scheduler lost while one task was awaited: the run waits for it, then carries on with a
    new client. Another task still held a future of the old client, whose result raised
    "RuntimeError: IOLoop is closed": exit 70 in 2 of 5 trials of an operator's. It is sent
    again through the new client; a closed loop under the current client is the scheduler lost
    (the wait, then the task again); any other RuntimeError is not swallowed."""
    from types import SimpleNamespace

    from scorehouse.warehouse import cluster as module
    from scorehouse.warehouse.cluster import Cluster, Pending

    old, new = SimpleNamespace(status="closed"), SimpleNamespace(status="running")
    sent = []
    monkeypatch.setattr(module, "on_dask", lambda client, f, *a: sent.append(client)
                        or _Future(client, value=f(*a)))
    cluster = Cluster("tcp://127.0.0.1:1", wait=1)
    cluster._client = new
    pending = Pending.__new__(Pending)
    pending.cluster, pending.function, pending.arguments = cluster, lambda x: x + 1, (41,)
    pending.future = _Future(old, error=RuntimeError("IOLoop is closed"))
    assert cluster.result(pending) == 42 and sent == [new]

    lost = []
    monkeypatch.setattr(Cluster, "_reconnect", lambda self: lost.append(True))
    new.status = "closed"  # the current client's loop closed: the scheduler lost
    pending.future = _Future(new, error=RuntimeError("IOLoop is closed"))
    assert cluster.result(pending) == 42 and lost == [True] and sent == [new, new]

    new.status = "running"  # a live client: the task's own error, raised, not retried
    for message in ("something else", "Event loop is closed"):
        pending.future = _Future(new, error=RuntimeError(message))
        with pytest.raises(RuntimeError, match=message):
            cluster.result(pending)
    assert lost == [True]


def test_dask_s_client_logs_stay_quiet_in_a_fresh_process():
    """In a run's process, Dask is first imported when the run connects: its import set its
    loggers' levels from its config after the run had lowered them, and a lost scheduler put
    Dask's tracebacks on stderr (cron mailed them) though the run says it in one line."""
    import subprocess
    import sys

    code = ("import logging; from scorehouse.warehouse import cluster; cluster._quiet_dask(); "
            "import distributed; "  # as cluster.dask_client then imports it
            "print(logging.getLogger('distributed.client').getEffectiveLevel())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split() == [str(logging.CRITICAL)], done.stderr
