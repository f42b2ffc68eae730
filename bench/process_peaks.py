"""The peak memory of every process of a run: imported by the command a benchmark measures
(``bench/measure.py`` ``COORDINATOR``), it watches the process's descendants (worker processes
of the loading and of the units) from a thread and, at exit, prints one line per process:

    PROCESS_PEAK_KIB coordinator <pid> <kib>   (its own getrusage peak: exact)
    PROCESS_PEAK_KIB worker <pid> <kib>        (each descendant's VmHWM, read every 50 ms)
    PROCESS_PEAK_KIB workers-max 0 <kib>       (getrusage of the waited-for children: exact;
                                                absent while a worker is still ending)

A descendant's VmHWM is its peak so far; read until it ends, it misses only what the process
would add in its last 50 ms. Linux only (``/proc``); elsewhere the workers' lines are absent."""

from __future__ import annotations

import atexit
import os
import re
import resource
import sys
import threading
import time

_HWM = re.compile(r"VmHWM:\s+(\d+) kB")


def _children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def _peak_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            found = _HWM.search(f.read())
    except OSError:
        return None
    return int(found.group(1)) if found else None


def watch(every: float = 0.05) -> dict[int, int]:
    """Start watching this process's descendants; the returned dict (pid -> peak KiB) fills as
    they run, and is printed at exit with this process's own peak."""
    peaks: dict[int, int] = {}
    me = os.getpid()

    def sample() -> None:
        while True:
            todo = _children(me)
            while todo:
                pid = todo.pop()
                todo += _children(pid)
                kib = _peak_kib(pid)
                if kib is not None:
                    peaks[pid] = max(peaks.get(pid, 0), kib)
            time.sleep(every)

    def report() -> None:
        write = sys.stderr.write
        write(f"PROCESS_PEAK_KIB coordinator {me} "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\n")
        for pid, kib in sorted(peaks.items()):
            write(f"PROCESS_PEAK_KIB worker {pid} {kib}\n")
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        import multiprocessing

        # exact only once every worker process has been waited for (a run ending at once may
        # leave its workers ending: their sampled peaks above stand)
        if children and not multiprocessing.active_children():
            write(f"PROCESS_PEAK_KIB workers-max 0 {children}\n")
    threading.Thread(target=sample, daemon=True, name="process-peaks").start()
    atexit.register(report)
    # scorehouse's script ends a run with os._exit (scorehouse/__main__.py): no atexit then
    real_exit = os._exit

    def report_then_exit(code: int) -> None:
        report()
        sys.stderr.flush()
        real_exit(code)
    os._exit = report_then_exit
    return peaks
