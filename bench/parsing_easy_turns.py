"""Two checkouts of scorehouse taking turns on the same EASY change: the before/after figures
of one changed submission in one sitting (the machine's load moves; turns share it).

    .venv/bin/python bench/parsing_easy_turns.py --campaign W/campaign \\
        --side OLD=/path/to/old/checkout:/tmp/easyOld --side NEW=.:/tmp/easyNew --rounds 4

Each side is ``LABEL=CHECKOUT:WORKDIR``: the checkout's ``.venv/bin/python`` scores into
``WORKDIR/easy.duckdb`` (made beforehand by ``bench/parsing_easy_bench.py --workdir WORKDIR``
of that checkout, on the same campaign; a code change re-scores every unit at its first run, so
run each side once before measuring). Each round changes one form of
``data/sys00.litterature.xml`` (as the bench's one-change run does), then runs every side once,
in alternating order; each line is a run's wall and CPU time, its processes' peaks and steps.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from measure import COORDINATOR, fmt_processes, fmt_steps, measure, summary_line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--campaign", type=Path, required=True)
    parser.add_argument("--side", action="append", required=True,
                        help="LABEL=CHECKOUT:WORKDIR (twice or more)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    sides = []
    for side in args.side:
        label, _, rest = side.partition("=")
        checkout, _, workdir = rest.partition(":")
        sides.append((label, Path(checkout).resolve(), Path(workdir)))
    changed = args.campaign / "data" / "sys00.litterature.xml"
    failed = 0
    for r in range(args.rounds):
        changed.write_text(changed.read_text(encoding="utf-8").replace(">m1<", ">m1x<", 1),
                           encoding="utf-8")
        for label, checkout, workdir in (sides if r % 2 == 0 else sides[::-1]):
            log = workdir / "turns.log.jsonl"
            log.unlink(missing_ok=True)
            load = os.getloadavg()[0]
            coordinator = COORDINATOR.replace(str(Path(__file__).resolve().parent),
                                              str(checkout / "bench"))
            m = measure(label, [str(checkout / ".venv" / "bin" / "python"), "-c", coordinator,
                                "run", str(args.campaign), "--db", str(workdir / "easy.duckdb"),
                                "--out", str(workdir / "bulletins"), "--quiet", "--log-json",
                                str(log)])
            failed += m.rc != 0
            cpu = m.extra.get("cpu")
            print(f"{label} one change {m.wall:6.2f} s  CPU "
                  f"{'?' if cpu is None else f'{cpu:.1f}'} s  {fmt_processes(m)}  "
                  f"load {load:.1f}  rc {m.rc} {summary_line(m.stderr)}")
            print(f"{label}    steps: {fmt_steps(m, log)}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
