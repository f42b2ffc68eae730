"""Benchmark of the LCS re-alignment (scorers/lcs.py) against its peer, GNU ``diff --minimal``.

Usage (from the repository root, with the project's virtual environment)::

    .venv/bin/python bench/lcs_bench.py                  # 1,000,000 units, 0.1 % / 1 % / 5 % edited
    .venv/bin/python bench/lcs_bench.py --units 200000   # a quick run

Each text is a random sequence of unit codes (a 50,000-unit vocabulary); the other side is the
same text with a share of its units deleted and new ones inserted (D = the number of differing
units). Both tools must find the same LCS length; the script prints it, the time of each (diff
reads and writes one unit per line, which it is given as files) and D. Myers' algorithm costs
O((N+M)D): the time grows with D, for both.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from scorehouse.scorers.lcs import align  # noqa: E402


def edited(rng, ref: np.ndarray, share: float) -> np.ndarray:
    n = int(len(ref) * share / 2)
    hyp = np.delete(ref, rng.choice(len(ref), n, replace=False))
    return np.insert(hyp, rng.integers(0, len(hyp), n), rng.integers(50_000, 60_000, n))


def gnu_diff(folder: Path, ref: np.ndarray, hyp: np.ndarray) -> tuple[int, float]:
    a, b = folder / "ref", folder / "hyp"
    a.write_text("\n".join(map(str, ref.tolist())) + "\n")
    b.write_text("\n".join(map(str, hyp.tolist())) + "\n")
    start = time.perf_counter()
    out = subprocess.run(["diff", "--minimal", str(a), str(b)], capture_output=True, text=True)
    wall = time.perf_counter() - start
    return len(ref) - sum(line.startswith("< ") for line in out.stdout.splitlines()), wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--units", type=int, default=1_000_000)
    args = parser.parse_args()
    rng = np.random.default_rng(20261126)
    ref = rng.integers(0, 50_000, args.units)
    print(f"{'edited':>7} {'D':>9} {'scorehouse s':>13} {'diff --minimal s':>17} {'LCS':>10}"
          "  equal")
    with tempfile.TemporaryDirectory() as tmp:
        for share in (0.001, 0.01, 0.05):
            hyp = edited(rng, ref, share)
            start = time.perf_counter()
            ours = int((align(ref, hyp) >= 0).sum())
            mine = time.perf_counter() - start
            theirs, wall = gnu_diff(Path(tmp), ref, hyp)
            d = len(ref) + len(hyp) - 2 * ours
            print(f"{share:>7.1%} {d:>9,} {mine:>13.2f} {wall:>17.2f} {ours:>10,}  "
                  f"{'EQUAL' if ours == theirs else f'DIFFERENT ({theirs:,})'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
