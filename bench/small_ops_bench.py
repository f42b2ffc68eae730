"""What one small operation costs: the floor under a small campaign's run, and so under the test
suite (~2,000 tests, most of them small runs, bench/suite_bench.py).

A run of the demo campaign costs about the same CPU at scale 0.01 as at 0.05
(bench/threads_bench.py ``--scales``): what it pays is its number of operations, not their size.
This prints, one thread as the suite's workers have it (``SCOREHOUSE_THREADS=1``):

- Polars eager operations on a 100-row frame: CPU and wall microseconds each, and the voluntary
  context switches each makes (``getrusage``): those that hand their work to Polars' thread pool
  wait for it, even with one thread in the pool;
- the same five operations as one lazy query (one ``collect``) against five eager calls;
- DuckDB: a connection, a one-row statement, and what opening a warehouse costs (in memory with
  one family's tables, as a one-shot; a new file; an existing file), with the catalog reads that
  check its shape.

    .venv/bin/python bench/small_ops_bench.py [--repeat 3000]

No peer: these are the parts a run is made of, each measured alone.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

os.environ["SCOREHOUSE_THREADS"] = "1"  # before Polars is imported (warehouse/cores.py)

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import machine  # noqa: E402


def timed(label: str, call, repeat: int) -> None:
    """``call`` ``repeat`` times after a warm-up: microseconds of CPU and wall time each, and
    voluntary context switches each."""
    for _ in range(max(1, repeat // 10)):
        call()
    switches = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        call()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    switches = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw - switches
    print(f"  {label:44s} {cpu / repeat * 1e6:9.0f} {wall / repeat * 1e6:9.0f} "
          f"{switches / repeat:9.1f}")


def polars_ops(repeat: int) -> None:
    import polars as pl

    df = pl.DataFrame({"a": range(100), "b": [i % 7 for i in range(100)]})
    other = pl.DataFrame({"b": range(7), "c": range(7)})
    print("Polars, a 100-row frame          CPU us/op  wall us/op  switches/op")
    timed("select a column", lambda: df.select("a"), repeat)
    timed("with_columns a + 1", lambda: df.with_columns(d=pl.col("a") + 1), repeat)
    timed("sort", lambda: df.sort("a"), repeat)
    timed("filter", lambda: df.filter(pl.col("a") > 50), repeat)
    timed("group_by agg", lambda: df.group_by("b").agg(pl.len()), repeat)
    timed("unique", lambda: df.unique(), repeat)
    timed("join (left, 7 keys)", lambda: df.join(other, on="b", how="left"), repeat)
    timed("Series.filter", lambda: df["a"].filter(df["a"] > 50), repeat)

    def chain(frame):
        return (frame.filter(pl.col("a") > 10)
                .join(other.lazy() if isinstance(frame, pl.LazyFrame) else other, on="b",
                      how="left", maintain_order="left")
                .with_columns(d=pl.col("a") + pl.col("c")).filter(pl.col("d") > 20)
                .group_by("b", maintain_order=True).agg(pl.col("d").sum()))

    assert chain(df).equals(chain(df.lazy()).collect())
    timed("five operations, eager", lambda: chain(df), repeat // 5)
    timed("the same five, one lazy collect", lambda: chain(df.lazy()).collect(), repeat // 5)


def duckdb_ops(repeat: int) -> None:
    import duckdb

    from scorehouse.warehouse import db
    from scorehouse.warehouse.pipeline import open_warehouse

    n = max(10, repeat // 100)
    print("DuckDB                           CPU us/op  wall us/op  switches/op")
    timed("duckdb.connect(':memory:')", lambda: duckdb.connect(":memory:").close(), n)
    con = duckdb.connect(":memory:")
    timed("SELECT 1", lambda: con.execute("SELECT 1").fetchall(), repeat // 10)
    timed("open a one-shot's warehouse (WER tables)",
          lambda: open_warehouse(None, families=("wer",)).close(), n)
    with tempfile.TemporaryDirectory() as folder:
        files = iter(range(10**6))
        timed("open a new warehouse file", lambda: open_warehouse(
            Path(folder) / f"new{next(files)}.duckdb").close(), n)
        existing = Path(folder) / "new0.duckdb"
        timed("open an existing warehouse file", lambda: open_warehouse(existing).close(), n)
        con = db.connect(existing)
        timed("  of which: its shape (tables, views, macros)", lambda: db._shape(con), n)
        timed("  a table's primary key", lambda: db._primary_key(con, "cat_corpus"), n)
        con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3000)
    args = parser.parse_args()
    print("\n".join(machine(("duckdb", "polars"))))
    polars_ops(args.repeat)
    duckdb_ops(args.repeat)


if __name__ == "__main__":
    main()
