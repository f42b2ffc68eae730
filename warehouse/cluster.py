"""The run's Dask cluster (``--executor tcp://HOST:8786``): one client per run, its faults visible
and bounded.

A run opens one client, at its first use (a run with nothing to parse or compute never connects),
shared by staging (files parsed on the workers) and scoring (units computed there), and closes it
at its end. Every task is sent with the coordinator's code version (:func:`on_dask`), and its
result waited for in short slices (:meth:`Cluster.result`), between which the cluster is watched:

- a worker lost mid-run (a killed process, a lost machine) costs a retry, as Dask does it, and is
  named in the run's notes (the scheduler's ``remove-worker`` events since the client joined);
- with no worker left, the run waits for one at most ``wait`` seconds (``--executor-wait``, or
  ``[campaign].executor_wait``; default :data:`WAIT`), says so on stderr, then stops with an
  :class:`ExecutorError` (one line, exit 1);
- the scheduler gone (its tasks are then cancelled), the run waits at most as long for it to
  answer again, sends the tasks in flight again, or stops the same way.

A stopped run leaves the warehouse as a kill would: every unit committed stays, the run is marked
``failed``, and the next run resumes it (:mod:`warehouse.runs`).
"""

from __future__ import annotations

import logging
import uuid
from concurrent.futures import CancelledError
from time import monotonic, sleep
from typing import Callable

from scorehouse.warehouse.campaign import EXECUTOR_WAIT as WAIT  # seconds (default)
from scorehouse.warehouse.executors import ExecutorError, _guarded, package_version

POLL = 1.0  # seconds between two looks at the cluster while a result is awaited
log = logging.getLogger("scorehouse")


def dask_client(address: str, timeout: float = 10):
    """A client of the Dask scheduler at ``address``, or an :class:`ExecutorError`."""
    try:
        from distributed import Client
    except ImportError:
        raise ExecutorError(
            "--executor needs Dask distributed: pip install 'scorehouse[dask]'"
        ) from None
    try:
        return Client(address, timeout=f"{max(1.0, timeout)}s")
    except (OSError, ValueError, RuntimeError) as err:  # refused, timed out, not an address,
        # or a client of a scheduler just gone still closing ("IOLoop is closed")
        raise ExecutorError(f"no Dask scheduler answers at {address}: {err}") from None


def on_dask(client, function: Callable, *arguments):
    """Submit ``function(*arguments)`` to a Dask worker that runs the coordinator's code (the
    task is named after ``function`` on the dashboard: ``_read-...``, ``compute_chunk-...``)."""
    return client.submit(_guarded, package_version(), function, *arguments, retries=2,
                         key=f"{function.__name__.strip('_')}-{uuid.uuid4().hex}")


class Pending:
    """A task sent to the cluster; :meth:`result` waits for it (see :meth:`Cluster.result`)."""

    def __init__(self, cluster: "Cluster", function: Callable, arguments: tuple):
        self.cluster, self.function, self.arguments = cluster, function, arguments
        self.future = on_dask(cluster.client(), function, *arguments)

    def result(self):
        return self.cluster.result(self)


class Cluster:
    """The Dask scheduler at ``address`` for one run; ``notes``: the run's notes, where lost
    workers are named; ``wait``: seconds to wait for a worker or the scheduler to come back."""

    def __init__(self, address: str, wait: float = WAIT, notes: list[str] | None = None):
        self.address, self.wait = address, wait
        self.notes = notes if notes is not None else []
        self._client = None
        self._empty_since: float | None = None  # since when no worker is left
        self._noted: set[str] = set()  # workers named in the notes already

    def client(self):
        if self._client is None:  # the first connection waits 10 s, or ``wait`` if shorter
            _quiet_dask()
            self._client = dask_client(self.address, min(10, self.wait))
        return self._client

    def workers(self) -> int:
        """The workers the scheduler has now (at least 1: the tasks are cut for them); a
        scheduler gone is waited for as while a result is awaited (:meth:`_reconnect`)."""
        while True:
            client = self.client()
            try:  # the client's copy of the scheduler's identity: empty once it is gone
                info = client.scheduler_info() if client.status == "running" else {}
            except (OSError, TimeoutError):
                info = {}
            if "workers" in info:
                return max(1, len(info["workers"]))
            self._reconnect()

    def submit(self, function: Callable, *arguments) -> Pending:
        return Pending(self, function, arguments)

    def result(self, pending: Pending):
        """``pending``'s result, the cluster watched while it is awaited (module docstring). A
        task that killed its workers again and again is an :class:`ExecutorError` too."""
        from distributed.scheduler import KilledWorker

        while True:
            if self._client is not None and pending.future.client is not self._client:
                # sent through a client closed since (the scheduler was lost while another
                # task was awaited): its future can only fail ("IOLoop is closed")
                pending.future = on_dask(self.client(), pending.function, *pending.arguments)
            try:
                return pending.future.result(timeout=POLL)
            except TimeoutError:
                self._watch()
            except (CancelledError, RuntimeError) as err:  # the scheduler went away: its tasks
                if isinstance(err, RuntimeError) and getattr(  # are forgotten (a RuntimeError
                        pending.future.client, "status", "running") == "running":  # of a live
                    raise  # client is the task's own, or a bug: never retried for ever)
                self._reconnect()
                pending.future = on_dask(self.client(), pending.function, *pending.arguments)
            except KilledWorker as err:
                raise ExecutorError(f"a task stopped the Dask workers that ran it ({err}): "
                                    "see the workers' logs") from None

    def _watch(self) -> None:
        """Name the workers lost since the last look; stop the run once no worker has been left
        for longer than the wait."""
        try:
            workers = self.client().scheduler_info()["workers"]
        except (OSError, TimeoutError):
            return  # the scheduler is going away: the cancelled tasks say so next
        self._note_lost(self.client())
        if workers:
            self._empty_since = None
            return
        if self._empty_since is None:
            self._empty_since = monotonic()
            log.warning("no Dask worker left at %s: waiting up to %s s for one "
                        "(--executor-wait)", self.address, _seconds(self.wait))
        elif monotonic() - self._empty_since > self.wait:
            raise ExecutorError(
                f"no Dask worker left at {self.address}: none came back within "
                f"{_seconds(self.wait)} s (--executor-wait); the units committed are kept: "
                "run again to resume")

    def _note_lost(self, client) -> None:
        """A run note for each worker the scheduler removed since ``client`` joined."""
        try:
            events = client.get_events("all")
        except (OSError, TimeoutError):
            return
        joined = next((t for t, e in events if isinstance(e, dict) and e.get("action") ==
                       "add-client" and e.get("client") == client.id), None)
        for stamp, event in events:
            worker = event.get("worker") if isinstance(event, dict) else None
            if (event.get("action") if isinstance(event, dict) else None) == "remove-worker" \
                    and joined is not None and stamp >= joined and worker not in self._noted:
                self._noted.add(worker)
                how = "left" if event.get("expected") else "was lost"
                self.notes.append(f"the Dask worker {worker} {how} during the run: its tasks "
                                  "were retried on the other workers")

    def _reconnect(self) -> None:
        """Wait for the scheduler to answer again, at most the wait, then carry on with a new
        client (the old one's tasks were cancelled), or stop the run."""
        log.warning("the Dask scheduler at %s is gone: waiting up to %s s for it "
                    "(--executor-wait)", self.address, _seconds(self.wait))
        self.notes.append(f"the Dask scheduler at {self.address} was lost during the run: the "
                          "tasks in flight were sent again")
        deadline = monotonic() + self.wait
        self.close()
        while True:
            try:
                self._client = dask_client(self.address, min(10, deadline - monotonic()))
                return
            except ExecutorError:
                if monotonic() >= deadline:
                    raise ExecutorError(
                        f"the Dask scheduler at {self.address} is gone: it did not come back "
                        f"within {_seconds(self.wait)} s (--executor-wait); the units committed "
                        "are kept: run again to resume") from None
                sleep(min(POLL, max(0.0, deadline - monotonic())))

    def close(self) -> None:
        """Name the workers lost, then close the client (if one was opened)."""
        if self._client is None:
            return
        client, self._client = self._client, None
        try:
            if client.status == "running":
                self._note_lost(client)
            client.close(timeout=5)
        except (OSError, TimeoutError):  # a scheduler gone: nothing more to close
            pass


def _seconds(value: float) -> str:
    return f"{value:g}"


def _quiet_dask() -> None:
    """Dask's client logs a lost scheduler or worker with its tracebacks on stderr: the run says
    it once, in its own lines and notes (one line per event, the machine log's too), so the
    client's own messages are kept for what the run cannot say (critical ones)."""
    import distributed  # noqa: F401  (first: its import sets its loggers' levels from its config)

    for name in ("distributed.client", "distributed.utils", "distributed.core",
                 "distributed.comm"):
        logging.getLogger(name).setLevel(logging.CRITICAL)

