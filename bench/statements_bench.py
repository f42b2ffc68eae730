"""The DuckDB statements of a small campaign's run, counted and timed where the code makes them.

The demo campaign (every family) at ``--scale`` (0.01) is run from scratch in this process with
one thread, as the suite's workers run it (``SCOREHOUSE_THREADS=1``), its charts drawn by a first
run (a shared chart folder, as the suite has it); the second run is measured: its CPU and wall
time, then every call of a DuckDB connection's ``execute``, ``executemany``, ``sql`` (and the
reads of its relation, which run the statement ``sql`` bound: ``sql: rows``), ``register`` and
``unregister`` made during it, by kind and by the line of scorehouse that made
it (calls, seconds, milliseconds each; a statement of a helper of warehouse/db.py at the line
calling the helper, named after it), the costliest first.

    .venv/bin/python bench/statements_bench.py [--scale 0.01] [--lines 30]

Why: a small run costs about what a run ten times bigger costs (bench/threads_bench.py
``--scales``): it pays per statement, not per row. A statement that costs a few milliseconds
where a cheaper form of it costs one (a catalog lookup through ``information_schema``, an
``INSERT OR REPLACE`` of one row) is paid at every unit, every run, in every test of the suite.
The counting wraps ``duckdb.connect``: the figures include the wrapper's own microseconds. No
peer: the comparison is between two versions of the code, each run of this script.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ["SCOREHOUSE_THREADS"] = "1"  # before Polars is imported (warehouse/cores.py)

import duckdb  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import machine  # noqa: E402

KINDS = ("execute", "executemany", "sql", "register", "unregister")
READS = ("pl", "to_arrow_table", "arrow", "fetchall", "fetchone", "fetchmany", "fetchnumpy",
         "df", "to_df", "execute")
ROOT = str(Path(__file__).resolve().parents[1]) + os.sep
HELPERS = os.path.join("warehouse", "db.py")  # its helpers' statements: counted at their caller


class Ledger:
    """Calls and seconds of DuckDB statements, by kind and by the scorehouse line that made
    them, while :attr:`on`."""

    def __init__(self) -> None:
        self.on = False
        self.calls: Counter = Counter()
        self.seconds: Counter = Counter()

    def add(self, kind: str, seconds: float) -> None:
        frame, helper = sys._getframe(2), None
        while frame is not None and (not frame.f_code.co_filename.startswith(ROOT)
                                     or frame.f_code.co_filename.endswith(HELPERS)):
            if frame.f_code.co_filename.endswith(HELPERS) and helper is None:
                helper = frame.f_code.co_name
            frame = frame.f_back
        line = ("elsewhere" if frame is None else
                f"{frame.f_code.co_filename[len(ROOT):]}:{frame.f_lineno}"
                + (f" ({helper})" if helper else ""))
        for key in (("kind", kind), ("line", line)):
            self.calls[key] += 1
            self.seconds[key] += seconds


def _timed(call, kind: str, ledger: Ledger, relation: bool = False):
    """``call``, its time added to ``ledger`` under ``kind`` at the line calling it; with
    ``relation``, what it returns is a relation whose rows are read later (``con.sql`` binds the
    statement, the relation's ``pl``, ``to_arrow_table``, ``fetchall``... run it): those reads
    are counted too, as ``sql: rows``."""

    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            found = call(*args, **kwargs)
        finally:
            ledger.add(kind, time.perf_counter() - started)
        return Rows(found, ledger) if relation else found
    return timed


class Rows:
    """A relation whose reads (:data:`READS`) the :class:`Ledger` counts."""

    def __init__(self, relation, ledger: Ledger) -> None:
        self._relation, self._ledger = relation, ledger

    def __getattr__(self, name):
        found = getattr(self._relation, name)
        return _timed(found, "sql: rows", self._ledger) if name in READS else found


class Counted:
    """A DuckDB connection whose statements the :class:`Ledger` counts; anything else is the
    connection's own."""

    def __init__(self, con, ledger: Ledger) -> None:
        object.__setattr__(self, "_con", con)
        object.__setattr__(self, "_ledger", ledger)

    def __getattr__(self, name):
        found = getattr(self._con, name)
        if name not in KINDS or not self._ledger.on:
            return found
        return _timed(found, name, self._ledger, name == "sql")

    def __setattr__(self, name, value) -> None:
        setattr(self._con, name, value)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.01)
    parser.add_argument("--lines", type=int, default=30, help="call sites shown")
    args = parser.parse_args()
    print("\n".join(machine(("duckdb", "polars"))))
    ledger, connect = Ledger(), duckdb.connect
    duckdb.connect = lambda *a, **k: Counted(connect(*a, **k), ledger)

    from scorehouse.demo.campaign import write_demo_campaign
    from scorehouse.warehouse.pipeline import run

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        os.environ["SCOREHOUSE_CHART_CACHE"] = str(root / "charts")
        campaign = write_demo_campaign(root / "campaign", scale=args.scale).parent
        for k in range(2):  # the first draws the charts and warms the imports: not counted
            ledger.on = k == 1
            cpu, wall = time.process_time(), time.perf_counter()
            done = run(campaign, root / f"w{k}.duckdb", root / f"out{k}", quiet=True, workers=1)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            assert done.exit_code == 0, done.summary()
    total = sum(s for (what, _), s in ledger.seconds.items() if what == "kind")
    print(f"demo campaign at scale {args.scale}, every family, one thread, charts drawn before: "
          f"{done.scored} units, {cpu:.2f} s of CPU, {wall:.2f} s wall; DuckDB statements "
          f"{total:.2f} s ({100 * total / wall:.0f} % of the wall time)")
    for what, title in (("kind", "by kind"), ("line", "by line, costliest first")):
        rows = sorted(((s, key) for (w, key), s in ledger.seconds.items() if w == what),
                      reverse=True)[:args.lines]
        print(f"  {title}:")
        for seconds, key in rows:
            calls = ledger.calls[what, key]
            each = 1000 * seconds / calls
            print(f"    {key:62} {calls:5d} calls {seconds:6.2f} s {each:6.2f} ms")


if __name__ == "__main__":
    main()
