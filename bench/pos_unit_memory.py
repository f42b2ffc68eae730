"""Peak memory of a run's worker process computing POS units, one after the other, as the unit
runner sends them (``warehouse/runner.py``): each unit's inputs through a unit store (the
reference kept by the worker, a submission read for its unit alone), the run's pool of worker
processes (``warehouse/executors.py`` ``ProcessPools``: its initializer and settings), the
worker's resident memory read every 5 ms from ``/proc``.

It reads the warehouse ``bench/pos_bench.py`` leaves (run that first), read-only, and writes
the store into a temporary folder. Usage (from the repository root)::

    .venv/bin/python bench/pos_bench.py --skip-peer --skip-serial --workdir /tmp/pos8g
    .venv/bin/python bench/pos_unit_memory.py /tmp/pos8g/campaign.duckdb \\
        tagger-02 tagger-01 tagger-04 tagger-01

Prints, per unit, its wall time, the worker's peak during it and its resident memory once the
unit is done (what the next unit starts from); issue 27's target is every process < 1 GiB.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import duckdb

import scorehouse.warehouse.coordinator  # noqa: F401  (the run's settings, its workers' too)
from scorehouse.warehouse.db import frame, one
from scorehouse.warehouse.executors import ProcessPools, compute_chunk
from scorehouse.warehouse.families import pos
from scorehouse.warehouse.store import opened

MIB = 2**20


def rss(pid: int) -> float:
    """Resident memory of process ``pid``, MiB."""
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * 4096 / MIB


def inputs(con, store, system: str, ref_sha: str, signatures: dict) -> tuple:
    """The unit of ``system`` as ``warehouse/families/pos.py`` ``score`` prepares it."""
    sub = one(con, "SELECT sha256 FROM cat_input_current WHERE system = ? AND role = "
              "'submissions'", [system])[0]
    tab = one(con, "SELECT sha256 FROM cat_input_current WHERE system = ? AND role = 'table'",
              [system])
    table = None if tab is None else frame(
        con, "SELECT tag, pivot_tag AS pivot FROM stg_pos_tagtable WHERE sha256 = ?", [tab[0]])
    reference = store.put_query(con, pos._REFERENCE, (ref_sha,), "memory-bench")
    submission = replace(store.put_query(con, pos._SYS_TOKENS, (sub,), "memory-bench"),
                         kept=False)
    ids = {"campaign": "memory-bench", "task": "pos", "corpus": "bench", "system": system}
    return (ids, ref_sha, reference, True, submission, table, ("absolute", "relative"),
            signatures, f"memory-bench/{system}")  # the unit's state: its kappa vector's key


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", help="the warehouse bench/pos_bench.py left (read-only)")
    parser.add_argument("systems", nargs="+", help="the units to compute, in this order")
    args = parser.parse_args()
    if not Path(args.db).is_file():
        parser.error(f"{args.db}: no such warehouse (run bench/pos_bench.py first)")
    con = duckdb.connect(args.db, read_only=True)
    found = one(con, "SELECT sha256 FROM cat_input_current WHERE system = '' AND role = "
                "'reference'")
    systems = {s for (s,) in con.execute("SELECT system FROM cat_input_current WHERE role = "
                                         "'submissions'").fetchall()}
    if found is None or set(args.systems) - systems:
        parser.error(f"{args.db}: no POS reference, or no submission of "
                     f"{', '.join(sorted(set(args.systems) - systems)) or 'its units'} "
                     f"(its systems: {', '.join(sorted(systems)) or 'none'})")
    ref_sha = found[0]
    folder = tempfile.mkdtemp(prefix="pos-unit-memory-")
    store = opened(folder)
    variants = [f"{e}/{g}" for e in ("absolute", "relative") for g in ("full", "category")]
    signatures = {"key": variants, "value": ["memory-bench"] * len(variants)}
    jobs = [(system, inputs(con, store, system, ref_sha, signatures))
            for system in args.systems]
    con.close()
    pools = ProcessPools()
    try:
        pool = pools.get(1)  # one worker, its share of the cores that of a run of two
        pool.submit(int, 0).result()  # started: its imports are not a unit's
        pid = next(iter(pool._processes))
        peak, done = [0.0], threading.Event()

        def watch() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], rss(pid))
                time.sleep(0.005)

        threading.Thread(target=watch, daemon=True).start()
        print(f"worker started: {rss(pid):,.0f} MiB")
        print(f"{'unit':12s} {'wall s':>7s} {'peak MiB':>9s} {'after MiB':>10s}")
        for k, (system, arguments) in enumerate(jobs):
            peak[0] = 0.0
            began = time.perf_counter()
            pool.submit(compute_chunk, folder, pos.compute_unit,
                        [(f"{k}-{system}", arguments)], 1).result()
            print(f"{system:12s} {time.perf_counter() - began:7.2f} {peak[0]:9,.0f} "
                  f"{rss(pid):10,.0f}")
        done.set()
    finally:
        pools.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
