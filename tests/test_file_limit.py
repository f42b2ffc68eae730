"""The readers' file size limit (``SCOREHOUSE_MAX_FILE_BYTES``) holds before a byte past it is
read, wherever a file comes from: a campaign's submission larger than the limit was read whole
into memory before it was refused (a 30 GB file could end the night's process), and a one-shot
given an endless device (``/dev/zero``, a pipe that never closes) copied it into the temporary
folder until the disk was full."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from scorehouse.warehouse.cli import EXIT_REJECTED

REF = "a b c (u1)\nd e (u2)\n"


# runs the command (its stderr and exit code passed on), then prints the peak memory of the
# processes it ran in KiB: the command's own, whatever this test's process ran before
PEAK = ("import resource, subprocess, sys; code = subprocess.run(sys.argv[1:]).returncode; "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(code)")


def _one_shot(tmp_path: Path, hypothesis: str, limit: int) -> tuple[int, str, int]:
    """``scorehouse wer ref.trn HYPOTHESIS`` with the given limit and its own temporary folder:
    its exit code, its stderr and its peak memory in KiB (a hang is an error: the old copy of
    ``/dev/zero`` ran until the disk was full)."""
    (tmp_path / "ref.trn").write_text(REF)
    (tmp_path / "tmp").mkdir()
    env = {**os.environ, "SCOREHOUSE_MAX_FILE_BYTES": str(limit), "TMPDIR": str(tmp_path / "tmp")}
    done = subprocess.run([sys.executable, "-c", PEAK, sys.executable, "-m", "scorehouse", "wer",
                           "ref.trn", hypothesis], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    return done.returncode, done.stderr, int(done.stdout.split()[-1])


def test_an_endless_device_given_to_a_one_shot_is_rejected_at_the_limit(tmp_path):
    code, stderr, _ = _one_shot(tmp_path, "/dev/zero", 1_000_000)
    assert code == EXIT_REJECTED, stderr
    assert stderr == ("rejected: /dev/zero: expected a file of at most 1,000,000 bytes "
                           "(SCOREHOUSE_MAX_FILE_BYTES), found more than 1,000,000 bytes\n")
    assert not list((tmp_path / "tmp").iterdir())  # the copy's folder removed


def test_a_file_past_the_limit_is_refused_without_reading_it(tmp_path):
    """A sparse file of 3 GB (nothing on disk) scored as a hypothesis, the limit at 1 MB: the run
    rejects it by its size, its process never near the file's size in memory (it was read
    whole, then refused: 3 GB of memory)."""
    with open(tmp_path / "hyp.trn", "wb") as hyp:
        hyp.truncate(3 * 10**9)
    code, stderr, peak_kib = _one_shot(tmp_path, "hyp.trn", 1_000_000)
    assert code == EXIT_REJECTED, stderr
    assert stderr == ("rejected: hyp.trn: expected a readable file, found 3,000,000,000 bytes, "
                      "not a file of at most 1,000,000 bytes (SCOREHOUSE_MAX_FILE_BYTES)\n")
    assert peak_kib < 2**20, peak_kib  # under 1 GiB
