"""Start-up benchmark: ``import scorehouse`` and ``scorehouse wer`` on a 10-utterance pair, against
``jiwer``'s command line on the same sentences, each the median of ``--repeat`` fresh processes.

    .venv/bin/python bench/startup_bench.py [--repeat 7]

Targets (issue 15): ``import scorehouse`` under 0.3 s, ``scorehouse wer`` under 0.6 s wall.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
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


def median_of(label: str, cmd: list[str], repeat: int) -> tuple[float, int, int]:
    runs = [measure(label, cmd) for _ in range(repeat + 1)][1:]  # the first warms the disk cache
    failed = next((m.rc for m in runs if m.rc != 0), 0)
    return (statistics.median(m.wall for m in runs), max(m.peak_kib or 0 for m in runs) // 1024,
            failed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="fresh processes per command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "ref.trn").write_text("".join(f"{t} (u{i:02d})\n" for i, t in
                                                enumerate(REFERENCE, 1)), encoding="utf-8")
        (folder / "hyp.trn").write_text("".join(f"{t} (u{i:02d})\n" for i, t in
                                                enumerate(HYPOTHESIS, 1)), encoding="utf-8")
        (folder / "ref.txt").write_text("\n".join(REFERENCE) + "\n", encoding="utf-8")
        (folder / "hyp.txt").write_text("\n".join(HYPOTHESIS) + "\n", encoding="utf-8")
        rows = [
            ("python -c 'import scorehouse'", [sys.executable, "-c", "import scorehouse"], 0.3),
            ("python -c 'import jiwer'", [sys.executable, "-c", "import jiwer"], None),
            ("scorehouse wer REF HYP", [str(BIN / "scorehouse"), "wer", str(folder / "ref.trn"),
                                        str(folder / "hyp.trn")], 0.6),
            ("scorehouse wer REF HYP --json", [str(BIN / "scorehouse"), "wer",
                                               str(folder / "ref.trn"), str(folder / "hyp.trn"),
                                               "--json"], 0.6),
            ("jiwer -r REF -h HYP (peer)", [str(BIN / "jiwer"), "-r", str(folder / "ref.txt"),
                                            "-h", str(folder / "hyp.txt")], None),
        ]
        print("\n".join(machine(("duckdb", "polars", "pyarrow", "jiwer"))))
        print(f"median of {args.repeat} fresh processes each, after one warm-up\n")
        print(f"{'command':34} {'wall s':>7} {'peak MiB':>9}  target")
        for label, cmd, target in rows:
            wall, peak, failed = median_of(label, cmd, args.repeat)
            verdict = "" if target is None else (
                f"< {target} s: {'OK' if wall < target and not failed else 'MISSED'}")
            exit_note = f" (exit {failed})" if failed else ""
            print(f"{label:34} {wall:7.3f} {peak:9,}  {verdict}{exit_note}")


if __name__ == "__main__":
    main()
