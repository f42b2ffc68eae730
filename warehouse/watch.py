"""A submission window: ``scorehouse watch`` runs the nightly job whenever the campaign's files
change.

The campaign folder is watched with ``watchfiles`` (inotify; changes grouped over its debounce).
A change does not start a run at once: the campaign's files are listed with their sizes and
modification times until two listings ``stable`` seconds apart agree, so a file still being
copied in is not read half-way unless its copy pauses longer than that (docs/guide.md: upload
under a hidden name, then rename). Then the job runs as ``scorehouse run`` would, with the same
summary and exit code per run; a run that cannot be done (a ``campaign.toml`` saved half-edited)
is reported in one line and the window stays open. SIGINT and SIGTERM end the window between
runs: a run under way finishes first. Changes made during a run start the next one.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Callable

from scorehouse.warehouse import logs


def listing(root: Path, ignored: Callable[[Path], bool]) -> dict[str, tuple[int, int]]:
    """path -> (size, modification time in ns) of every file under ``root`` not ``ignored``."""
    out = {}
    for path in root.rglob("*"):
        try:
            if path.is_file() and not ignored(path):
                stat = path.stat()
                out[str(path)] = (stat.st_size, stat.st_mtime_ns)
        except OSError:
            continue  # gone meanwhile: the next listing says so
    return out


def settle(root: Path, ignored: Callable[[Path], bool], stable: float,
           stop: threading.Event) -> dict | None:
    """The campaign's files once they stopped changing for ``stable`` seconds; None if
    stopped."""
    before = listing(root, ignored)
    while not stop.wait(stable):
        now = listing(root, ignored)
        if now == before:
            return now
        before = now
    return None


DONE = (0, 2)  # a run's exit codes when it was done (2: a file rejected, the rest scored)


def watch(root: Path, run_once: Callable[[], int], ignored: Callable[[Path], bool],
          stable: float = 2.0, debounce_ms: int = 1600, retry: float = 30.0) -> int:
    """Run ``run_once`` (the job; its exit code) now, then after every settled change under
    ``root``, until SIGINT or SIGTERM; the last run's exit code. A run that could not be done
    (an exit code not in :data:`DONE`: the warehouse in use by another process, a
    ``campaign.toml`` saved half-edited) is tried again ``retry`` seconds later, changes or
    not: the changes it could not read are not lost."""
    import watchfiles

    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    code = 0
    try:
        seen = settle(root, ignored, stable, stop)
        if seen is not None:
            code = run_once()
        logs.event("watch", f"watching {root} (SIGINT or SIGTERM to stop)", state="watching")
        waited = 0.0  # seconds since the last run, while it is to be tried again
        for changes in watchfiles.watch(root, stop_event=stop, debounce=debounce_ms,
                                        raise_interrupt=False, yield_on_timeout=True,
                                        rust_timeout=min(1000, int(retry * 1000)),
                                        watch_filter=lambda _, p: not ignored(Path(p))):
            again = code not in DONE
            if not changes:  # a timeout: time to try a failed run again?
                waited += min(1.0, retry)
                if not again or waited < retry:
                    continue
            now = settle(root, ignored, stable, stop)
            if now is None:
                break
            if now == seen and not again:  # changes the last run has read already
                continue
            paths = sorted({p for _, p in changes})
            if paths:
                logs.event("watch", f"changed: {', '.join(paths[:3])}"
                           f"{f' and {len(paths) - 3} more' if len(paths) > 3 else ''}",
                           state="changed", paths=paths)
            else:
                logs.event("watch", f"the last run could not be done: trying again after "
                           f"{retry:g} s", state="retrying")
            seen, code, waited = now, run_once(), 0.0
            if stop.is_set():
                break
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    logs.event("watch", f"stopped watching {root}", state="stopped")
    return code


def outside(*kept: Path | None) -> Callable[[Path], bool]:
    """Whether a path is ignored: one of ``kept`` (the warehouse, its write-ahead log, the unit
    store, the bulletins and their editions) or under one, or a hidden file (an editor's swap
    file, a partial download)."""
    roots = [Path(k).resolve() for k in kept if k is not None]

    def ignored(path: Path) -> bool:
        path = Path(path).resolve()
        if path.name.startswith(".") or path.name.endswith("~"):
            return True
        return any(path == r or r in path.parents or path.name.startswith(f"{r.name}.")
                   and path.parent == r.parent for r in roots)
    return ignored
