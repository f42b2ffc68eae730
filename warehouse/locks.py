"""The warehouse's and the publication folder's locks, said alike.

DuckDB locks a warehouse file: a second process is refused, and :func:`in_use` says so in one
line naming the holder's PID. The publication folder: one process publishes into an ``--out`` at
a time (:func:`publication_lock`).

Two warehouses publishing into one folder would swap editions under each other; the second waits
for nothing and stops with one line naming the holder, as a warehouse in use does. The lock is an
advisory ``flock`` on ``.<out>.lock`` beside the folder, released when the process ends however
it ends (a killed run leaves no stale lock: the file stays, the lock does not).
"""

from __future__ import annotations

import fcntl
import os
import re
from contextlib import contextmanager
from pathlib import Path


class FolderBusy(Exception):
    """Another process holds the publication folder: one line, exit 1."""


def in_use(err: BaseException) -> str | None:
    """The one line for DuckDB's refusal to open a warehouse another process holds (whichever
    command met it: run, report, sql), else None."""
    text = str(err)
    if not re.search(r"Could not set lock|Conflicting lock", text):
        return None
    holder = re.search(r"held in (.+?) \(PID (\d+)\)", text)
    who = f" (PID {holder.group(2)}, {holder.group(1)})" if holder else ""
    return f"the warehouse is in use by another process{who}: wait for it, or use another --db"


@contextmanager
def publication_lock(out: Path):
    """Hold the lock of the publication folder ``out`` for the block, or raise FolderBusy."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    path = out.parent / f".{out.name}.lock"
    handle = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            pid = handle.read().strip()
            who = f" (PID {pid})" if pid.isdigit() else ""
            raise FolderBusy(f"the bulletin folder {out} is being published by another "
                             f"process{who}: wait for it, or use another --out") from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        yield
    finally:
        handle.close()
