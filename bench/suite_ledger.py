"""A pytest plugin for ``bench/suite_bench.py --ledger``: the CPU time of every test.

For each test (its setup, call and teardown, so a shared build lands on the first test that asks
for it), one JSON line in ``$SUITE_LEDGER/<pid>.jsonl``: its node id, its wall seconds, the CPU
seconds of the process that ran it (an xdist worker: the test's own code and every run it made
in process) and of that process's children it waited for (``scorehouse`` commands run as
subprocesses, a run's worker processes, Dask schedulers and workers, sclite, the browser's
driver), ``getrusage`` before and after. A test's wall time, which ``--junitxml`` gives, counts
the time its worker waited for a core while the other worker ran; its CPU does not.
"""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path

import pytest


def _cpu(who: int) -> float:
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    folder = os.environ.get("SUITE_LEDGER")
    if not folder:
        yield
        return
    wall, own, children = (time.perf_counter(), _cpu(resource.RUSAGE_SELF),
                           _cpu(resource.RUSAGE_CHILDREN))
    yield
    row = {"test": item.nodeid, "wall": time.perf_counter() - wall,
           "own": _cpu(resource.RUSAGE_SELF) - own,
           "children": _cpu(resource.RUSAGE_CHILDREN) - children}
    with open(Path(folder) / f"{os.getpid()}.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")
