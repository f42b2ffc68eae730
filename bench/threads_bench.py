"""A small campaign's run at each number of threads (``SCOREHOUSE_THREADS``, warehouse/cores.py):
the demo campaign (every family) written at each of ``--scales``, then ``scorehouse run`` from
scratch in a fresh process, in turns (1 thread, every core, 1, every core, ...), the charts drawn
once before (a shared chart folder, as the test suite has it); CPU and wall time of each, and the
median. Two scales show what a run pays whatever its size.

    .venv/bin/python bench/threads_bench.py [--scales 0.01] [--repeat 3]

Why it matters: the test suite runs one test per core, each a small campaign's run; a small run's
queries are too small to share out between threads, whose pools then spend CPU handing work
over. No peer: the comparison is between the two settings, in one run of this script.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import machine, measure  # noqa: E402

BIN = Path(sys.executable).parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="0.01", help="comma-separated demo scales")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print("\n".join(machine(("duckdb", "polars"))))
    from scorehouse.demo.campaign import write_demo_campaign

    every = str(os.cpu_count() or 1)
    scales = [float(x) for x in args.scales.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        campaigns = {scale: write_demo_campaign(root / f"campaign-{scale}", scale=scale).parent
                     for scale in scales}
        base = {k: v for k, v in os.environ.items()
                if k not in ("SCOREHOUSE_THREADS", "POLARS_MAX_THREADS", "_RJEM_MALLOC_CONF")}
        base["SCOREHOUSE_CHART_CACHE"] = str(root / "charts")
        figures: dict[tuple[float, str], list[tuple[float, float]]] = {
            (scale, threads): [] for scale in scales for threads in ("1", every)}
        for k in range(args.repeat + 1):  # the first turn draws the charts: not counted
            for scale, threads in figures:
                env = {**base, "SCOREHOUSE_THREADS": threads}
                name = f"{k}-{scale}-{threads}"
                m = measure(f"{threads} threads", [str(BIN / "scorehouse"), "run",
                            str(campaigns[scale]), "--db", str(root / f"w{name}.duckdb"),
                            "--out", str(root / f"out{name}"), "-q"], env=env)
                assert m.rc == 0, m.stderr
                if k:
                    figures[scale, threads].append((m.extra["cpu"], m.wall))
                    print(f"  turn {k}: scale {scale}, {threads} thread(s): "
                          f"{m.extra['cpu']:.2f} s of CPU, {m.wall:.2f} s wall", flush=True)
    print(f"demo campaign, every family, `scorehouse run` from scratch (median of {args.repeat}):")
    for (scale, threads), runs in figures.items():
        print(f"  scale {scale}, SCOREHOUSE_THREADS={threads}: "
              f"{statistics.median(c for c, _ in runs):.2f} s of CPU, "
              f"{statistics.median(w for _, w in runs):.2f} s wall")

if __name__ == "__main__":
    main()
