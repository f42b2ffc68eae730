"""Start-up benchmark: ``import scorehouse`` and ``scorehouse wer`` on a 10-utterance pair, against
``jiwer``'s command line on the same sentences in the same run, each the median of ``--repeat``
fresh processes; then where the one-shot's time goes (the small path's imports and call, then the
pipeline's imports, its first and second ``scorehouse.wer`` call in one process) and
``scorehouse wer --pairs`` on ``--pairs`` pairs in one process.

    .venv/bin/python bench/startup_bench.py [--repeat 7] [--pairs 20]

Targets (issue 27): ``scorehouse wer`` on 2 utterances under 0.3 s wall (the small path,
``warehouse/families/wer_small.py``; ``--method m1`` runs the pipeline, for contrast). The
children run with Python's bytecode cache on (``PYTHONDONTWRITEBYTECODE`` removed from their
environment), as an installed package has it; the first process of each command warms the cache
and is not counted.
The machine may be shared: compare rows within one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from measure import machine, measure  # noqa: E402

BIN = Path(sys.executable).parent
REFERENCE = [
    "je voudrais un billet pour paris", "quel est le prix du trajet", "merci beaucoup",
    "à quelle heure part le train", "est-ce qu'il y a une correspondance", "oui s'il vous plaît",
    "non merci", "je voudrais une place côté fenêtre", "combien de temps dure le voyage",
    "au revoir",
]
HYPOTHESIS = [
    "je voudrais un billet pour paris", "quel est le prix trajet", "merci beaucoup beaucoup",
    "à quelle heure part le train", "est-ce qu'il y a une correspondance", "oui s'il vous plaît",
    "non merci", "je voudrais une place côté fenêtres", "combien de temps dure le voyage",
    "au revoir",
]


BREAKDOWN = """
import sys, time, json
t = [("python started", time.perf_counter())]
import click
t.append(("import click", time.perf_counter()))
import scorehouse.warehouse.cli
from scorehouse.warehouse.families import one_shot
wer = one_shot("wer")
from scorehouse.warehouse.families.wer_small import score
t.append(("import the command, wer's small path", time.perf_counter()))
score(sys.argv[1], sys.argv[2])
t.append(("small path: the call", time.perf_counter()))
import numpy
t.append(("pipeline: import numpy", time.perf_counter()))
import scorehouse.warehouse.coordinator  # pyarrow, then Polars with the memory settings
t.append(("pipeline: import pyarrow + polars", time.perf_counter()))
import duckdb
t.append(("pipeline: import duckdb", time.perf_counter()))
import scorehouse.warehouse.pipeline, scorehouse.warehouse.families.wer
t.append(("pipeline: import scorehouse's modules", time.perf_counter()))
wer(sys.argv[1], sys.argv[2])  # the Python API: always the pipeline
t.append(("pipeline: first scorehouse.wer call", time.perf_counter()))
wer(sys.argv[1], sys.argv[2])
t.append(("pipeline: second call, same process", time.perf_counter()))
print(json.dumps([(label, b - a) for (_, a), (label, b) in zip(t, t[1:])]))
"""


def breakdown(ref: Path, hyp: Path, repeat: int) -> list[tuple[str, float]]:
    """The median of each step's seconds over ``repeat`` fresh processes (after one warm-up)."""
    runs = []
    for _ in range(repeat + 1):
        done = subprocess.run([sys.executable, "-c", BREAKDOWN, str(ref), str(hyp)],
                              capture_output=True, text=True, check=True, env=ENV)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    runs = runs[1:]
    return [(label, statistics.median(r[i][1] for r in runs)) for i, (label, _) in
            enumerate(runs[0])]


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def median_of(label: str, cmd: list[str], repeat: int) -> tuple[float, float, int, int]:
    """Median wall and CPU seconds (user + system; NaN without /usr/bin/time), peak MiB, and the
    first non-zero exit code of ``repeat`` runs."""
    # the first warms the disk cache and the bytecode cache
    runs = [measure(label, cmd, env=ENV) for _ in range(repeat + 1)][1:]
    failed = next((m.rc for m in runs if m.rc != 0), 0)
    return (statistics.median(m.wall for m in runs),
            statistics.median(m.extra.get("cpu", float("nan")) for m in runs),
            max(m.peak_kib or 0 for m in runs) // 1024, failed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="fresh processes per command")
    parser.add_argument("--pairs", type=int, default=20, help="pairs in the --pairs list")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "ref.trn").write_text("".join(f"{t} (u{i:02d})\n" for i, t in
                                                enumerate(REFERENCE, 1)), encoding="utf-8")
        (folder / "hyp.trn").write_text("".join(f"{t} (u{i:02d})\n" for i, t in
                                                enumerate(HYPOTHESIS, 1)), encoding="utf-8")
        (folder / "ref2.trn").write_text("".join(f"{t} (u{i:02d})\n" for i, t in
                                                 enumerate(REFERENCE[:2], 1)), encoding="utf-8")
        (folder / "hyp2.trn").write_text("".join(f"{t} (u{i:02d})\n" for i, t in
                                                 enumerate(HYPOTHESIS[:2], 1)), encoding="utf-8")
        (folder / "pairs.tsv").write_text("ref.trn\thyp.trn\n" * args.pairs, encoding="utf-8")
        (folder / "ref.txt").write_text("\n".join(REFERENCE) + "\n", encoding="utf-8")
        (folder / "hyp.txt").write_text("\n".join(HYPOTHESIS) + "\n", encoding="utf-8")
        rows = [
            ("python -c 'import scorehouse'", [sys.executable, "-c", "import scorehouse"], 0.3),
            ("python -c 'import jiwer'", [sys.executable, "-c", "import jiwer"], None),
            ("scorehouse wer REF HYP", [str(BIN / "scorehouse"), "wer", str(folder / "ref.trn"),
                                        str(folder / "hyp.trn")], 0.3),
            ("scorehouse wer REF HYP --json", [str(BIN / "scorehouse"), "wer",
                                               str(folder / "ref.trn"), str(folder / "hyp.trn"),
                                               "--json"], 0.3),
            ("scorehouse wer (2 utterances)", [str(BIN / "scorehouse"), "wer",
                                               str(folder / "ref2.trn"), str(folder / "hyp2.trn"),
                                               "--json"], 0.3),
            ("jiwer -r REF -h HYP (peer)", [str(BIN / "jiwer"), "-r", str(folder / "ref.txt"),
                                            "-h", str(folder / "hyp.txt")], None),
            ("scorehouse wer --method m1 (pipeline)", [str(BIN / "scorehouse"), "wer",
                                                       str(folder / "ref2.trn"),
                                                       str(folder / "hyp2.trn"), "--json",
                                                       "--method", "m1"], None),
        ]
        print("\n".join(machine(("duckdb", "polars", "pyarrow", "numpy", "jiwer"))))
        print(f"median of {args.repeat} fresh processes each, after one warm-up; one run "
              "(compare rows within it only)\n")
        print(f"{'command':38} {'wall s':>7} {'CPU s':>6} {'peak MiB':>9}  target")
        walls = {}
        for label, cmd, target in rows:
            wall, cpu, peak, failed = median_of(label, cmd, args.repeat)
            walls[label] = wall
            verdict = "" if target is None else (
                f"< {target} s: {'OK' if wall < target and not failed else 'MISSED'}")
            exit_note = f" (exit {failed})" if failed else ""
            print(f"{label:38} {wall:7.3f} {cpu:6.3f} {peak:9,}  {verdict}{exit_note}")
        peer = walls["jiwer -r REF -h HYP (peer)"]
        print(f"\nscorehouse wer (2 utterances) / jiwer CLI: "
              f"{walls['scorehouse wer (2 utterances)'] / peer:.1f}x; the pipeline / jiwer CLI: "
              f"{walls['scorehouse wer --method m1 (pipeline)'] / peer:.1f}x")
        print(f"\nwhere `scorehouse wer` spends its time on 2 utterances, by the small path, then "
              f"by the pipeline (median of {args.repeat} processes, each step after the "
              "previous one):")
        steps = breakdown(folder / "ref2.trn", folder / "hyp2.trn", args.repeat)
        for label, seconds in steps:
            print(f"  {label:38} {seconds:7.3f} s")
        imports = sum(s for label, s in steps if label.startswith("pipeline: import"))
        print(f"  {'pipeline: imports (sum)':38} {imports:7.3f} s")
        t0 = time.perf_counter()
        done = subprocess.run([str(BIN / "scorehouse"), "wer", "--pairs",
                               str(folder / "pairs.tsv")], capture_output=True, text=True, env=ENV)
        wall = time.perf_counter() - t0
        lines = len(done.stdout.splitlines())
        print(f"\nscorehouse wer --pairs: {lines} pairs in one process {wall:.2f} s "
              f"({wall / max(lines, 1):.3f} s per pair, exit {done.returncode}); "
              f"{args.pairs} processes of `scorehouse wer REF HYP --json`: "
              f"~{args.pairs * walls['scorehouse wer REF HYP --json']:.2f} s")


if __name__ == "__main__":
    main()
