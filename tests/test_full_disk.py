"""A full disk (a small tmpfs mounted by the test, which needs root, as in CI): the run fails in
one line naming the cause ("No space left on device"), exit 1; once space is back, the warehouse
opens, holds exactly what it held before the failed run, and a plain run completes as an
uninterrupted one would.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from helpers import tables

from scorehouse.demo.campaign import write_demo_campaign


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def scorehouse(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorehouse", *map(str, args)],
                          capture_output=True, text=True)


@pytest.mark.slow
def test_a_full_disk_fails_in_one_line_and_changes_nothing(small_disk, tmp_path):
    camp = write_demo_campaign(tmp_path / "campaign", scale=0.03, pos=False, parsing=False,
                               coref=False, terms=False, calls=False).parent
    db = small_disk / "w.duckdb"
    first = scorehouse("run", camp, "--db", db, "--store", tmp_path / "store", "-q",
                       "--out", tmp_path / "b")
    assert first.returncode == 0, first.stderr
    before = tables(db)
    # a revised reference re-scores every unit; the disk is filled first
    reference = camp / "references" / "Test_I.trn"
    reference.write_text(reference.read_text().replace(" ", "  ", 50))
    filler = small_disk / "filler"
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 2**20)
        except OSError:
            pass
    failed = scorehouse("run", camp, "--db", db, "--store", tmp_path / "store", "-q",
                        "--out", tmp_path / "b")
    assert failed.returncode == 1, failed.stderr
    assert "No space left on device" in failed.stderr and "Traceback" not in failed.stderr
    assert len(failed.stderr.strip().splitlines()) == 1
    filler.unlink()
    for wal in small_disk.glob("*.wal"):
        assert wal.stat().st_size >= 0  # a write-ahead log may remain: DuckDB replays it
    assert tables(db) == before  # nothing of the failed run was committed
    again = scorehouse("run", camp, "--db", db, "--store", tmp_path / "store", "-q",
                       "--out", tmp_path / "b")
    assert again.returncode == 0, again.stderr
    expected_db = tmp_path / "expected.duckdb"
    shutil.copytree(camp, tmp_path / "copy")
    assert scorehouse("run", tmp_path / "copy", "--db", expected_db, "-q",
                      "--out", tmp_path / "c").returncode == 0
    got, expected = tables(db), tables(expected_db)
    assert got.keys() == expected.keys()
    for name in got:  # history (and the changes read from it) keeps the first run's rows too
        if not name.startswith("hist_") and not name.endswith("_changes"):
            assert got[name] == expected[name], name
