"""Benchmark of CorefUD scoring (``etl/corefud.py`` + ``scorers/corefud.py``) against the official
CorefUD scorer 1.2 (ufal/corefud-scorer, not on the package index: give its checkout).

Usage (from the repository root, with the project's virtual environment)::

    .venv/bin/python bench/corefud_bench.py --scorer /path/to/corefud-scorer
    .venv/bin/python bench/corefud_bench.py --scorer ... --scale 4   # a bigger key
    .venv/bin/python bench/corefud_bench.py                          # ours only

Data: the demo's CorefUD task (``demo.corefud.write_corefud_task``: generated documents with
discontinuous mentions and zeros, four simulated systems) at ``--scale`` (1.0: 8 documents,
about 3,900 words, 800 key mentions), the same bytes for the same arguments. Each tool runs in a
fresh process (``bench/measure.py``: wall time around the whole process, imports included; peak
RSS) on every system, in the default mode (head match, singletons removed, zeros by their
dependencies): (a) the official ``corefud-scorer.py KEY RESPONSE`` (udapi, in this Python); (b)
``scorehouse coref --format corefud KEY RESPONSE``. The script checks that the CoNLL scores are
equal to two decimals (``MISMATCH`` otherwise). No target: CorefUD files are small next to the
CoNLL-2012 corpora of ``bench/coref_bench.py``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from measure import fmt_peak, machine, measure

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scorer", type=Path, help="a checkout of ufal/corefud-scorer (1.2)")
    parser.add_argument("--scale", type=float, default=1.0, help="demo task scale (default 1)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from scorehouse.demo.corefud import write_corefud_task

    print("\n".join(machine(("polars", "numpy", "scipy", "udapi"))))
    work = Path(tempfile.mkdtemp(prefix="corefud_bench_"))
    write_corefud_task(work, args.scale)
    key = work / "corefud" / "key.conllu"
    systems = sorted(p for p in (work / "corefud").glob("*.conllu") if p.name != "key.conllu")
    words = sum(1 for line in key.read_text(encoding="utf-8").splitlines()
                if re.match(r"^\d+\t", line))
    print(f"\nkey: {words:,} words, {len(systems)} systems (scale {args.scale})\n")
    print(f"{'system':12} {'tool':24} {'wall s':>8} {'peak MiB':>9} {'CoNLL':>7}")
    ours_exe = Path(sys.executable).with_name("scorehouse")
    mismatches = 0
    for system in systems:
        found = {}
        runs = [("scorehouse coref", [str(ours_exe), "coref", "--format", "corefud", str(key),
                                      str(system)], None)]
        if args.scorer:
            runs.insert(0, ("official corefud-scorer", [sys.executable, "corefud-scorer.py",
                                                        str(key), str(system)], args.scorer))
        for label, cmd, cwd in runs:
            out = work / f"{system.stem}.{label.split()[0]}.txt"
            m = measure(label, cmd, out, cwd=cwd)
            text = out.read_text(encoding="utf-8", errors="replace")
            score = re.search(r"(?:CoNLL score:|^conll)\s+([\d.]+)", text, re.MULTILINE)
            found[label] = score.group(1) if score else "?"
            print(f"{system.stem:12} {label:24} {m.wall:8.2f} {fmt_peak(m):>9} "
                  f"{found[label]:>7}")
        if len(set(found.values())) > 1:
            mismatches += 1
            print(f"MISMATCH on {system.stem}: {found}")
    print("\nCoNLL scores: " + ("EQUAL for every system" if args.scorer and not mismatches
                                else "not compared (no --scorer)" if not args.scorer
                                else f"{mismatches} MISMATCH(ES)"))


if __name__ == "__main__":
    main()
