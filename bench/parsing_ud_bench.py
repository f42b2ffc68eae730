"""Benchmark of the CoNLL-U dependency evaluation (``etl/ud.py`` + ``scorers/ud.py``) against
the official CoNLL 2018 script (``udtools.udeval``, the IWPT update of ``conll18_ud_eval.py``).

Usage (from the repository root, with the project's virtual environment and ``udtools``)::

    .venv/bin/python bench/parsing_ud_bench.py                 # 200,000 gold words
    .venv/bin/python bench/parsing_ud_bench.py --words 50000   # a quick run
    .venv/bin/python bench/parsing_ud_bench.py --repeat 3      # fastest of 3 runs each

Target (project issue): 200,000 words, both files read and evaluated, at least 4 times faster
than the official script and under 300 MB peak memory. The command-line path is timed too, for
the record (no target: it also stages both files in an in-memory DuckDB warehouse and reads them
back, as the nightly job does).

Data: UD French GSD test (bundled) repeated with renamed sentence ids
(``demo.ud.bigger_treebank``) up to at least ``--words`` gold words, and a system made
from it by ``demo.ud.noisy_system`` (default noise: tags, heads, labels, tokenisation,
multiword tokens, sentence boundaries) with a fixed seed: the same arguments give the same bytes.

Each tool runs in a fresh process (``bench/measure.py``: wall time around the whole process,
imports included; peak RSS from ``/usr/bin/time -v`` or ``getrusage``): (a) a tiny runner that
loads both files with ``udeval.load_conllu_file(path, {})`` and calls ``udeval.evaluate``;
(b) a tiny runner that calls ``read_ud`` on both files, ``pl.from_arrow`` and ``evaluate``;
(c) ``scorehouse parsing --format conllu --json GOLD SYSTEM`` (the executable next to this
Python, else ``python -m scorehouse``). Each prints the 13 metrics' counts as JSON; the script
checks they are equal (``MISMATCH`` otherwise).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from measure import MIB, Measure, fmt_peak, machine, measure, tail

ROOT = Path(__file__).resolve().parent.parent
GSD = ROOT / "demo" / "data" / "UD_French-GSD" / "fr_gsd-ud-test.conllu"
SEED = 20260502
METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS",
           "LAS", "CLAS", "MLAS", "BLEX")


def worker(tool: str, gold: str, system: str) -> None:
    """One measured run: evaluate ``system`` against ``gold`` with ``tool`` and print the counts."""
    t0 = time.perf_counter()
    if tool == "official":
        from udtools import udeval
        found = udeval.evaluate(udeval.load_conllu_file(gold, {}),
                                udeval.load_conllu_file(system, {}))
        counts = {m: [found[m].correct, found[m].gold_total, found[m].system_total,
                      found[m].aligned_total]
                  for m in METRICS}
    else:
        import polars as pl

        from scorehouse.etl.ud import read_ud
        from scorehouse.scorers.ud import evaluate
        found = evaluate(pl.from_arrow(read_ud(gold)), pl.from_arrow(read_ud(system))).counts()
        counts = {m: [c["correct"], c["gold_total"], c["system_total"], c["aligned_total"]]
                  for m, c in found.items()}
    json.dump({"counts": counts, "seconds_inside": time.perf_counter() - t0}, sys.stdout)


def generate(workdir: Path, words: int, seed: int) -> tuple[Path, Path, dict]:
    """The gold and system files, and a few facts about them."""
    from scorehouse.demo.ud import bigger_treebank, noisy_system

    text = GSD.read_text(encoding="utf-8")
    per_copy = sum(1 for line in text.split("\n") if line[:1].isdigit() and "\t" in line
                   and line.split("\t", 1)[0].isdigit())
    copies = max(1, math.ceil(words / per_copy))
    t0 = time.perf_counter()
    gold = bigger_treebank(text, copies)
    t1 = time.perf_counter()
    system = noisy_system(gold, seed)
    t2 = time.perf_counter()
    gold_path, system_path = workdir / "gold.conllu", workdir / "system.conllu"
    gold_path.write_text(gold, encoding="utf-8")
    system_path.write_text(system, encoding="utf-8")
    return gold_path, system_path, {"copies": copies, "words": copies * per_copy,
                                    "bigger_s": t1 - t0, "noisy_s": t2 - t1,
                                    "gold_mib": gold_path.stat().st_size / MIB,
                                    "system_mib": system_path.stat().st_size / MIB}


def cli_command(gold: Path, system: Path) -> list[str]:
    """``scorehouse parsing --format conllu --json GOLD SYSTEM``, run by the executable next to
    this Python (else ``python -m scorehouse``)."""
    exe = Path(sys.executable).parent / "scorehouse"
    head = [str(exe)] if exe.exists() else [sys.executable, "-m", "scorehouse"]
    return [*head, "parsing", "--format", "conllu", "--json", str(gold), str(system)]


def read_result(text: str) -> dict:
    """A runner's JSON; the command line's ``{"metrics": ...}`` as ``{"counts": ...}``."""
    found = json.loads(text)
    if "metrics" in found:
        return {"counts": {m: [c["correct"], c["gold_total"], c["system_total"], c["aligned_total"]]
                           for m, c in found["metrics"].items()}}
    return found


def best(label: str, cmd: list[str], out: Path, repeat: int) -> tuple[Measure, dict | None]:
    """The fastest of ``repeat`` runs, with the JSON it printed."""
    runs = []
    for _ in range(repeat):
        m = measure(label, cmd, out)
        result = read_result(out.read_text()) if m.rc == 0 else None
        runs.append((m, result))
        if m.rc:
            break
    return min(runs, key=lambda r: (r[0].rc != 0, r[0].wall))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--words", type=int, default=200_000,
                        help="gold words at least (default 200000)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"noise seed (default {SEED})")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each tool K times, report the fastest (default 1)")
    parser.add_argument("--workdir", type=Path, default=ROOT / "bench" / "out" / "parsing_ud",
                        help="folder for the generated files (default bench/out/parsing_ud)")
    args = parser.parse_args(argv)
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)

    print(f"generating {args.words:,}+ gold words into {workdir} ...", flush=True)
    gold, system, facts = generate(workdir, args.words, args.seed)
    print(f"  {facts['words']:,} gold words ({facts['copies']} copies of GSD test, "
          f"{facts['gold_mib']:.1f} MiB); system {facts['system_mib']:.1f} MiB; "
          f"generated in {facts['bigger_s'] + facts['noisy_s']:.1f} s "
          f"(noise {facts['noisy_s']:.1f} s)", flush=True)

    rows = []
    for tool, label in (("official", "official udtools.udeval (CoNLL 2018)"),
                        ("ours", "scorehouse read_ud + evaluate"),
                        ("cli", "scorehouse parsing --format conllu")):
        print(f"timing {label} ...", flush=True)
        cmd = cli_command(gold, system) if tool == "cli" else [sys.executable, __file__, "--worker",
                                                                tool, str(gold), str(system)]
        rows.append(best(label, cmd, workdir / f"{tool}.json", args.repeat))
    (official_m, official_r), (ours_m, ours_r), (cli_m, cli_r) = rows

    print()
    print(f"== CoNLL-U dependency evaluation: {facts['words']:,} gold words, one system ==")
    for line in machine(("scorehouse", "polars", "pyarrow", "numpy", "rapidfuzz", "udtools")):
        print(line)
    print()
    head = f"{'tool':<40} {'wall s':>8} {'peak MiB':>9} {'speed-up':>9}  {'exit':>4}"
    print(head)
    print("-" * len(head))
    for m, _ in rows:
        speed = f"{official_m.wall / m.wall:.1f}x" if m.rc == 0 and official_m.rc == 0 else ""
        print(f"{m.label:<40} {m.wall:>8.2f} {fmt_peak(m):>9} {speed:>9}  {m.rc:>4}")
    print()
    for m, result in rows:
        if m.rc:
            print(f"{m.label} FAILED (exit {m.rc}):\n{tail(m.stderr)}")
        elif result and "seconds_inside" in result:
            print(f"{m.label}: {result['seconds_inside']:.2f} s inside the process "
                  "(imports and start-up excluded)")
    differ = []
    if official_r:
        for name, result in (("ours", ours_r), ("cli", cli_r)):
            if result is None:
                continue
            found = [m for m in METRICS if official_r["counts"][m] != result["counts"][m]]
            differ += found
            for metric in found:
                print(f"MISMATCH {metric}: official {official_r['counts'][metric]} "
                      f"{name} {result['counts'][metric]}")
        if ours_r and not differ:
            both = " (both scorehouse paths)" if cli_r else ""
            print(f"counts: EQUAL for the 13 metrics x (correct, gold, system, aligned){both}; "
                  f"LAS {ours_r['counts']['LAS'][0]:,} / {ours_r['counts']['LAS'][1]:,}")
    if official_m.rc == 0 and ours_m.rc == 0:
        fast = official_m.wall / ours_m.wall >= 4
        small = ours_m.peak_kib is not None and ours_m.peak_kib * 1024 < 300e6
        print(f"target: >= 4x faster: {'OK' if fast else 'MISSED'}; "
              f"< 300 MB peak: {'OK' if small else 'MISSED'} "
              f"({(ours_m.peak_kib or 0) * 1024 / 1e6:.0f} MB)")
    if official_m.rc == 0 and cli_m.rc == 0 and cli_m.peak_kib and official_m.peak_kib:
        print(f"command line (no target): {official_m.wall / cli_m.wall:.1f}x faster than the "
              f"official script, {cli_m.peak_kib * 1024 / 1e6:.0f} MB peak "
              f"(official {official_m.peak_kib * 1024 / 1e6:.0f} MB)")
    return 0 if official_r and ours_r and cli_r and not differ else 1


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--worker":
        worker(*sys.argv[2:])
    else:
        sys.exit(main())
