"""The stat cache of the loading (``cat_input_stat``, warehouse/staging.py): an input file whose
size, modification time and inode are those it had when last hashed is not read again; a changed
size or time is seen without reading the unchanged files; ``--rehash`` reads every file, and so
finds a file rewritten with its size and modification time restored."""

from __future__ import annotations

import os
import time
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from scorehouse.warehouse import staging
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run


@pytest.fixture()
def campaign(speech_campaign) -> Path:
    """The speech campaign with every file written an hour ago (a file modified within the last
    two seconds is hashed again at every run: the stat cache would not hold it)."""
    past = time.time_ns() - 3600 * 10**9
    for path in speech_campaign.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(past, past))
    return speech_campaign


@pytest.fixture()
def reads(monkeypatch) -> list[Path]:
    """The files the loading reads from now on."""
    seen: list[Path] = []
    real = staging._bytes

    def counted(path):
        seen.append(Path(path))
        return real(path)
    monkeypatch.setattr(staging, "_bytes", counted)
    return seen


def same_size_edit(path: Path, keep_time: bool) -> None:
    """Change one letter of ``path`` in place (same size, same inode); ``keep_time``: with its
    modification time restored."""
    before = path.stat()
    data = bytearray(path.read_bytes())
    at = next(i for i, b in enumerate(data) if chr(b).isalpha())
    data[at] = ord("x" if chr(data[at]) != "x" else "y")
    path.write_bytes(bytes(data))
    if keep_time:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_ino) == (before.st_size, before.st_ino)
    assert (after.st_mtime_ns == before.st_mtime_ns) == keep_time


def loaded(campaign: Path, db: Path, rehash: bool = False) -> int:
    return run(campaign, db, None, steps=("load",), quiet=True, rehash=rehash).loaded


def test_unchanged_files_are_not_read_again(campaign, tmp_path, reads):
    db = tmp_path / "w.duckdb"
    assert loaded(campaign, db) > 0
    files = len(set(reads))
    assert len(reads) == files  # a file never loaded is read once: hashed as it is parsed
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM cat_input_stat").fetchone()[0] == files
    reads.clear()
    assert loaded(campaign, db) == 0
    assert reads == []
    assert loaded(campaign, db, rehash=True) == 0
    assert len(reads) == files


@pytest.mark.parametrize("change", ["size", "time"])
def test_a_changed_size_or_time_is_seen_without_rehash(campaign, tmp_path, reads, change):
    db = tmp_path / "w.duckdb"
    loaded(campaign, db)
    hyp = campaign / "submissions" / "gamma-asr" / "Test_I.trn"
    if change == "size":
        before = hyp.stat()
        hyp.write_text("facture " + hyp.read_text(encoding="utf-8"), encoding="utf-8")
        os.utime(hyp, ns=(before.st_atime_ns, before.st_mtime_ns))
    else:
        same_size_edit(hyp, keep_time=False)
    reads.clear()
    assert loaded(campaign, db) == 1
    assert hyp in reads and len(set(reads)) == 1  # hashed, then read again to be parsed


@pytest.mark.slow
def test_a_change_with_its_time_restored_is_found_by_rehash(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    loaded(campaign, db)
    same_size_edit(campaign / "submissions" / "gamma-asr" / "Test_I.trn", keep_time=True)
    assert loaded(campaign, db) == 0  # what stat sees is what was hashed: not read
    result = CliRunner().invoke(main, ["load", str(campaign), "--db", str(db), "--rehash",
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT loaded FROM cat_run ORDER BY run_id DESC LIMIT 1"
                           ).fetchone()[0] == 1
    assert loaded(campaign, db) == 0
    # the staged file is the edited one: the same as loading it into a fresh warehouse
    fresh = tmp_path / "fresh.duckdb"
    loaded(campaign, fresh)
    latest = ("SELECT corpus, system, role, sha256 FROM cat_input_latest ORDER BY ALL")
    with duckdb.connect(str(db), read_only=True) as a, \
            duckdb.connect(str(fresh), read_only=True) as b:
        assert a.execute(latest).fetchall() == b.execute(latest).fetchall()


def test_a_file_just_written_is_hashed_again(speech_campaign, tmp_path, reads):
    """A file modified within two seconds of its reading is not recorded: a rewrite of the same
    size within the file system's timestamp resolution could keep its time. (Here the files'
    time is a minute ahead, so that no load, however slow, reads them two seconds later.)"""
    ahead = time.time_ns() + 60 * 10**9
    for path in speech_campaign.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(ahead, ahead))
    db = tmp_path / "w.duckdb"
    loaded(speech_campaign, db)
    files = len(set(reads))
    reads.clear()
    loaded(speech_campaign, db)
    assert len(reads) == files


def test_a_file_replaced_by_a_rename_is_seen_by_its_inode(campaign, tmp_path):
    """A file replaced by another (written beside it, renamed over it: a new inode) with the
    same size and modification time is read again without --rehash."""
    db = tmp_path / "w.duckdb"
    loaded(campaign, db)
    hyp = campaign / "submissions" / "gamma-asr" / "Test_I.trn"
    copy = hyp.with_name("copy.tmp")
    copy.write_bytes(hyp.read_bytes())
    same_size_edit(copy, keep_time=False)
    before = hyp.stat()
    os.utime(copy, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(copy, hyp)
    after = hyp.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert after.st_ino != before.st_ino
    assert loaded(campaign, db) == 1


@pytest.mark.slow
def test_run_rehash_on_the_command_line(campaign, tmp_path):
    """``scorehouse run --rehash`` (the guide's nightly form) finds the change stat cannot."""
    db = tmp_path / "w.duckdb"
    loaded(campaign, db)
    same_size_edit(campaign / "submissions" / "gamma-asr" / "Test_I.trn", keep_time=True)
    plain = CliRunner().invoke(main, ["run", str(campaign), "--db", str(db), "--out",
                                      str(tmp_path / "out"), "--quiet"])
    assert plain.exit_code == 0, plain.output
    result = CliRunner().invoke(main, ["run", str(campaign), "--db", str(db), "--out",
                                       str(tmp_path / "out"), "--rehash", "--quiet"])
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT loaded FROM cat_run ORDER BY run_id DESC LIMIT 2"
                           ).fetchall() == [(1,), (0,)]


@pytest.mark.parametrize("workers", (1, 2))
def test_a_file_rewritten_before_it_is_parsed_is_judged_on_what_was_parsed(campaign, tmp_path,
                                                                          monkeypatch, workers):
    """A file hashed, then rewritten into a bad one before it is parsed (found by a review, in
    this process and on worker processes, which read the file themselves): its rejection is
    recorded under the content parsed, not the content hashed; so the next load, the good file
    back, accepts it rather than keeping the rejection of what it no longer holds."""
    path = sorted((campaign).rglob("*.trn"))[-1]
    good = path.read_bytes()
    real, real_cache, armed = staging.resident.lost_staged, staging._stat_cache, []

    def cache(con, jobs):  # called before a load's files are hashed: is ``path`` among them?
        armed[:] = [any(Path(job.path) == path for job in jobs)]
        return real_cache(con, jobs)

    def rewritten(con):  # called after they are hashed, before any is parsed
        if armed == [True] and path.read_bytes() == good:
            path.write_bytes(b"\xff\xfe not UTF-8 (x)\n")
        return real(con)
    monkeypatch.setattr(staging, "_stat_cache", cache)
    monkeypatch.setattr(staging.resident, "lost_staged", rewritten)
    db = tmp_path / "w.duckdb"
    first = run(campaign, db, None, steps=("load",), quiet=True, workers=workers)
    assert len(first.rejections) == 1 and path.name in first.rejections[0]
    assert "undecodable byte 0xff" in first.rejections[0]
    monkeypatch.setattr(staging.resident, "lost_staged", real)
    path.write_bytes(good)
    again = run(campaign, db, None, steps=("load",), quiet=True, workers=workers)
    assert again.rejections == [] and again.loaded == 1
