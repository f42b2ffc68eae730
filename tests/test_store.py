"""The unit store (warehouse/store.py): unit outputs saved as Parquet under the unit's key, read
back as they were saved, never taken for complete when cut short; a run on a fresh warehouse
with a full store computes no unit and gives the same tables; ``--force`` computes again; an
S3-compatible server (moto's, started here on 127.0.0.1) gives the same results as a folder, with
units computed in worker processes that write to it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from click.testing import CliRunner
from helpers import tables

from scorehouse.warehouse import resident
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.store import (
    Store,
    StoredInput,
    StoreError,
    default_location,
    unit_key,
)


def test_outputs_read_back_as_saved(tmp_path):
    store = Store(str(tmp_path / "s"))
    frame = pl.DataFrame({"a": [1, None, 3], "b": ["x", "é", None], "c": [[1.5], [], None],
                          "d": pl.Series([0.1, 0.2, 0.30000000000000004])})
    arrow = pa.table({"n": pa.array([1, 2], pa.int32()), "s": ["p", "q"]})
    key = unit_key("c", "t", "corpus", "sys", "state")
    assert not store.has(key)
    store.save(key, {"z_first": arrow, "frame": frame, "none": None, "empty": frame.head(0)})
    back = store.load(key)
    assert list(back) == ["z_first", "frame", "none", "empty"]  # the saved order, not sorted
    assert back["z_first"].equals(arrow) and isinstance(back["z_first"], pa.Table)
    assert back["frame"].equals(frame) and back["frame"].schema == frame.schema
    assert back["none"] is None and back["empty"].schema == frame.schema


def test_a_saved_table_is_cut_into_row_groups_a_range_query_can_skip(tmp_path):
    """A unit's big table (a POS unit's cases, sorted by reference unit) is saved in row groups
    of ROW_GROUP rows, each with its numbers' statistics: a query keeping a range of reference
    units (the consensus tally, a slice at a time) reads the groups of that range, not the file.
    Its strings and lists of tags, never a range, are written without them (a quarter of the
    write)."""
    import pyarrow.parquet as pq

    from scorehouse.warehouse.store import ROW_GROUP

    store = Store(str(tmp_path / "s"))
    key = unit_key("c", "t", "corpus", "sys", "state")
    n = 2 * ROW_GROUP + 5
    cases = pa.table({"ref_unit": np.arange(n, dtype=np.int64), "system": ["sys"] * n,
                      "projected": [["NC", "NP"]] * n})
    store.save(key, {"cases": cases})
    path = store.files(key, store.manifest(key))["cases"]
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 3
    assert [meta.row_group(i).column(0).statistics.max for i in range(3)] == [
        ROW_GROUP - 1, 2 * ROW_GROUP - 1, n - 1]
    assert [meta.row_group(0).column(i).is_stats_set for i in range(3)] == [True, False, False]
    assert store.load(key)["cases"].equals(cases)


def test_an_output_cut_short_is_not_complete(tmp_path):
    store = Store(str(tmp_path / "s"))
    key = unit_key("c", "t", "corpus", "sys", "state")
    store.save(key, {"t": pa.table({"x": [1]})})
    manifest = next((tmp_path / "s").rglob("manifest.json"))
    manifest.write_text(manifest.read_text()[:10])  # a kill while the manifest was written
    assert not store.has(key)
    manifest.unlink()
    assert not store.has(key)
    with pytest.raises(StoreError, match="no complete output"):
        store.load(key)


def test_keys_and_locations(tmp_path):
    assert unit_key("c", "t", "a", "s", "x") != unit_key("c", "t", "a", "s2", "x")
    assert default_location(tmp_path / "w.duckdb") == str(tmp_path / "w.store")
    assert default_location(None) is None
    with pytest.raises(StoreError, match="cannot use the store"):
        Store(str(tmp_path / "file") if (tmp_path / "file").write_text("x") else "")
    with pytest.raises(StoreError, match="cannot use the store"):
        Store("nosuchscheme://bucket/x")


@pytest.fixture(scope="module")
def campaign(scored_once) -> Path:
    return scored_once[0]


@pytest.mark.slow
def test_a_fresh_warehouse_takes_every_unit_from_the_store(scored_once, tmp_path):
    campaign, first, scored = scored_once  # scored once, its store the default: beside it
    store = first.with_suffix(".store")
    assert scored > 20 and (store / "units").is_dir()
    # the warehouse is lost; the store is kept: every unit is committed from it, none computed
    # (the score step alone with worker processes: none is started, nothing is left to compute)
    assert run(campaign, tmp_path / "b.duckdb", None, ("load",), quiet=True).exit_code == 0
    second = run(campaign, tmp_path / "b.duckdb", None, ("score",), quiet=True, store=str(store),
                 workers=2)
    reused = sum(int(n.split(": ")[1].split(" ")[0]) for n in second.notes if "from the store" in n)
    assert second.scored == scored == reused
    assert tables(tmp_path / "b.duckdb") == tables(first)
    # forced: every unit computed again though the store holds it (a copy: the shared one is
    # read by other tests)
    shutil.copytree(store, tmp_path / "copy")
    forced = run(campaign, tmp_path / "c.duckdb", None, quiet=True, force=True,
                 store=str(tmp_path / "copy"))
    assert forced.scored == scored
    assert not any("from the store" in n for n in forced.notes)
    assert tables(tmp_path / "c.duckdb") == tables(first)


def test_an_unusable_store_is_one_line(campaign, tmp_path):
    (tmp_path / "taken").write_text("a file, not a folder")
    result = CliRunner().invoke(main, ["run", str(campaign), "--db", str(tmp_path / "w.duckdb"),
                                       "--store", str(tmp_path / "taken"), "-q"])
    assert result.exit_code == 1 and "cannot use the store" in result.output
    assert "Traceback" not in result.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def s3(monkeypatch):
    """An S3-compatible server (moto) on 127.0.0.1, its bucket, and the store URL for it."""
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p",
                               str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(key, "testing")
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        yield (f"s3://scores/nightly?endpoint_override=127.0.0.1:{port}&scheme=http"
               "&region=us-east-1&allow_bucket_creation=true")
    finally:
        server.kill()
        server.wait()


@pytest.mark.slow
def test_an_s3_store_gives_the_folder_store_results(scored_once, tmp_path, s3):
    campaign, local, scored = scored_once  # scored with the folder store beside the warehouse
    remote = run(campaign, tmp_path / "s3.duckdb", None, quiet=True, store=s3, workers=2)
    assert remote.exit_code == 0 and remote.scored == scored
    expected = tables(local)
    assert tables(tmp_path / "s3.duckdb") == expected
    again = run(campaign, tmp_path / "s3-again.duckdb", None, quiet=True, store=s3)
    assert any("from the store s3://scores/nightly," in n for n in again.notes)
    assert all("testing" not in n and "endpoint" not in n for n in again.notes)
    assert tables(tmp_path / "s3-again.duckdb") == expected
    assert os.environ["AWS_ACCESS_KEY_ID"] == "testing"


@pytest.mark.slow
def test_a_store_that_cannot_be_written_costs_a_note_not_the_night(scored_once, tmp_path,
                                                                   monkeypatch):
    from scorehouse.warehouse import store as store_module
    from scorehouse.warehouse.executors import compute_chunk

    campaign, expected, scored = scored_once

    def full(self, key, tables):
        raise StoreError(f"cannot write to the store {self.label}: No space left on device")

    monkeypatch.setattr(store_module.Store, "save", full)
    result = run(campaign, tmp_path / "b.duckdb", None, quiet=True, store=str(tmp_path / "t"))
    assert result.exit_code == 0 and result.scored == scored
    assert sum("units are committed but not kept in the store" in n for n in result.notes) >= 1
    assert tables(tmp_path / "b.duckdb") == tables(expected)
    con = duckdb.connect(str(tmp_path / "b.duckdb"), read_only=True)  # rows inserted instead
    assert con.execute("SELECT count(*) FROM int_pos_case_rows").fetchone()[0] > 0
    assert con.execute("SELECT count(*) FROM cat_unit_file").fetchone()[0] == 0
    con.close()
    # a worker whose save fails sends the rows back the direct way
    rows = compute_chunk(str(tmp_path / "t"), lambda ids, n: {"t": pa.table({"n": [n]})},
                         [("k", ({}, 7))])
    assert rows[0]["t"]["n"][0].as_py() == 7


def test_inputs_go_to_the_workers_through_the_store_once(tmp_path):
    from scorehouse.warehouse.store import StoredInput, resolved

    store = Store(str(tmp_path / "s"))
    frame = pl.DataFrame({"tok": [1, 2], "form": ["le", "chat"]})
    ref = store.put_input(frame)
    assert isinstance(ref, StoredInput) and store.put_input(frame.clone()) == ref  # by content
    assert len(list((tmp_path / "s" / "inputs").rglob("*.arrows"))) == 1
    assert resolved(ref).equals(frame) and resolved(7) == 7
    arrow = pa.table({"n": [1, 2, 3]})
    assert resolved(store.put_input(arrow)).equals(arrow)


class _Gated:
    """A store's file system whose first output stream, once open, waits for ``go``; and whose
    moves fail while ``failing`` is set."""

    def __init__(self, fs):
        self.fs, self.failing = fs, False
        self.opened, self.go = threading.Event(), threading.Event()

    def __getattr__(self, name):
        return getattr(self.fs, name)

    def open_output_stream(self, path):
        stream = self.fs.open_output_stream(path)
        if not self.opened.is_set():
            self.opened.set()
            self.go.wait(30)
        return stream

    def move(self, src, dest):
        if self.failing:
            raise OSError("no space left on device")
        return self.fs.move(src, dest)


def test_two_writers_of_one_input_at_once_both_succeed_and_leave_no_partial_file(tmp_path):
    """Two runs may keep the same input at the same moment (a shared store): each writes a
    partial file of its own and moves it into place, so the one that opened first and wrote
    last neither fails nor mixes bytes; a write that fails leaves no partial file behind."""
    from scorehouse.warehouse.store import resolved

    frame = pl.DataFrame({"tok": list(range(1000)), "form": ["f"] * 1000})
    first, second = Store(str(tmp_path / "s")), Store(str(tmp_path / "s"))
    first.fs = _Gated(first.fs)
    with ThreadPoolExecutor(1) as pool:
        slow = pool.submit(first.put_input, frame)
        try:
            assert first.fs.opened.wait(30)
            ref = second.put_input(frame)  # all of it while the first writer holds its file open
        finally:
            first.fs.go.set()
        assert slow.result() == ref
    assert resolved(ref).equals(frame)
    files = [p for p in (tmp_path / "s").rglob("*") if p.is_file()]
    assert [p.suffix for p in files] == [".arrows"]
    failing = Store(str(tmp_path / "f"))
    failing.fs = _Gated(failing.fs)
    failing.fs.opened.set()
    failing.fs.failing = True
    with pytest.raises(StoreError, match="no space left"):
        failing.put_input(frame)
    assert not [p for p in (tmp_path / "f").rglob("*") if p.is_file()]


def test_a_unit_saved_again_while_it_is_read_is_read_whole(tmp_path):
    """A unit's output saved a second time (a Dask task run twice, two warehouses on one store)
    while a reader reads the first: the second writer's files are its own until moved into
    place, so the reader finds every file whole, never one the second writer has just opened."""
    tables = {"a": pa.table({"n": list(range(5000))}), "b": pl.DataFrame({"s": ["x"] * 300})}
    Store(str(tmp_path / "s")).save("0123abcd", tables)
    again = Store(str(tmp_path / "s"))
    again.fs = _Gated(again.fs)
    with ThreadPoolExecutor(1) as pool:
        saving = pool.submit(again.save, "0123abcd", tables)
        try:
            assert again.fs.opened.wait(30)  # a file of the second save open, nothing written
            read = Store(str(tmp_path / "s")).load("0123abcd")
        finally:
            again.fs.go.set()
        saving.result()
    assert read["a"].equals(tables["a"]) and read["b"].equals(tables["b"])
    assert Store(str(tmp_path / "s")).load("0123abcd")["a"].equals(tables["a"])
    files = [p for p in (tmp_path / "s").rglob("*") if p.is_file()]
    assert sorted(p.name for p in files) == ["0.parquet", "1.parquet", "manifest.json"]


def test_a_query_input_is_streamed_to_the_store_by_duckdb_once_per_content(tmp_path):
    from scorehouse.warehouse.store import resolved

    store = Store(str(tmp_path / "s"))
    con = duckdb.connect()
    con.execute("CREATE TABLE tok AS SELECT range AS tok, 'f' || range AS form, "
                "['T' || range] AS tags, range % 2 AS sha FROM range(10)")
    sql = "SELECT tok, form, tags FROM tok WHERE sha = ? ORDER BY tok DESC"
    ref = store.put_query(con, sql, (1,))
    assert store.put_query(con, sql, (1,)) == ref  # the same rows, the same file
    assert store.put_query(con, sql, (0,)) != ref
    assert resolved(ref).equals(con.sql(sql, params=[1]).pl())  # rows, types and order kept
    files = list((tmp_path / "s" / "inputs").rglob("*"))
    assert sorted(p.suffix for p in files if p.is_file()) == [".parquet", ".parquet"]  # no partial


def test_a_versioned_query_is_copied_once_while_its_file_is_kept(tmp_path):
    """A query whose rows a version fixes (a family's code version: a reference's derived
    units) is not run again for the same parameters and version; another version, other
    parameters or a lost file run it again, with the same rows."""
    import duckdb

    from scorehouse.warehouse.store import Store, resolved

    store = Store(str(tmp_path / "s"))
    con = duckdb.connect()
    con.execute("CREATE TABLE tok AS SELECT range AS tok, range % 2 AS sha FROM range(10)")
    sql = "SELECT tok FROM tok WHERE sha = ? ORDER BY tok"
    ref = store.put_query(con, sql, (1,), "v1")
    con.execute("UPDATE tok SET tok = tok + 100")  # what a second run of the query would see
    assert store.put_query(con, sql, (1,), "v1") == ref  # kept: not run again
    assert resolved(ref)["tok"].to_list() == [1, 3, 5, 7, 9]
    assert resolved(store.put_query(con, sql, (1,), "v2"))["tok"].to_list()[0] == 101
    assert store.put_query(con, sql, (1,)) != ref  # without a version: run every time
    for path in (tmp_path / "s" / "inputs").rglob(f"{ref.key}.parquet"):
        path.unlink()
    assert resolved(store.put_query(con, sql, (1,), "v1"))["tok"].to_list()[0] == 101


def test_a_query_whose_pointer_cannot_be_written_leaves_no_partial_file(tmp_path, monkeypatch):
    """A versioned query's pointer to its file that cannot be written (a full disk) is a
    StoreError, and leaves no partial file behind; the next try writes it."""
    from scorehouse.warehouse import store as store_module
    from scorehouse.warehouse.store import Store, StoreError, resolved

    store = Store(str(tmp_path / "s"))
    con = duckdb.connect()
    con.execute("CREATE TABLE tok AS SELECT range AS tok FROM range(10)")
    replace = os.replace

    def full(source, target):
        if "queries" in str(target):
            raise OSError(28, "No space left on device")
        replace(source, target)
    monkeypatch.setattr(store_module.os, "replace", full)
    with pytest.raises(StoreError, match="No space left on device"):
        store.put_query(con, "SELECT tok FROM tok", (), "v1")
    assert not [p for p in (tmp_path / "s").rglob("*") if p.name.endswith(".partial")]
    monkeypatch.setattr(store_module.os, "replace", replace)
    assert resolved(store.put_query(con, "SELECT tok FROM tok", (), "v1"))["tok"].len() == 10
    assert len(list((tmp_path / "s" / "inputs" / "queries").iterdir())) == 1  # the pointer


def _frames_held(campaign: Path, db: Path, monkeypatch) -> tuple[list, list]:
    """A serial run of ``campaign``: the query inputs the runner read as frames, and how many of
    the frames read before (by the runner, or by the parsing family itself) are still alive at
    each read."""
    import weakref

    from scorehouse.warehouse import runner
    from scorehouse.warehouse import store as store_module
    from scorehouse.warehouse.families import parsing

    reads, refs, alive = [], [], []
    real = runner.frame

    def counted(con, sql, params=(), by_runner=True):
        # counted without a collection (one per read: 7 s of the suite's CPU): a frame kept
        # alive only by a cycle counts as held, as it holds its memory until one runs
        alive.append(sum(r() is not None for r in refs))
        out = real(con, sql, params)
        if by_runner:
            reads.append((sql, tuple(params)))
        refs.append(weakref.ref(out))
        return out

    def read_in_place(location, key, polars, fmt, columns=None, folder="inputs"):
        # a file's staged rows the store keeps, read there (a reference once: then kept)
        alive.append(sum(r() is not None for r in refs))
        out = real_input(location, key, polars, fmt, columns, folder)
        reads.append((f"{folder}/{key}", ()))
        refs.append(weakref.ref(out))
        return out

    real_input = store_module._input
    monkeypatch.setattr(runner, "frame", counted)
    monkeypatch.setattr(store_module, "_input", read_in_place)
    monkeypatch.setattr(parsing, "frame", lambda *a: counted(*a, by_runner=False))
    assert run(campaign, db, None, quiet=True, workers=1).exit_code == 0
    monkeypatch.undo()
    return reads, alive


@pytest.mark.slow
def test_a_serial_run_holds_a_reference_and_one_submission_not_the_last_four(scored_once,
                                                                              tmp_path,
                                                                              monkeypatch):
    """In one process a unit's query inputs are read as frames: a corpus's reference once for
    all its units, and at most it and one submission alive when the next is read (a POS or
    EASY submission is a big frame; four were kept before). POS here, EASY below."""
    campaign, expected, scored = scored_once
    reads, alive = _frames_held(campaign, tmp_path / "b.duckdb", monkeypatch)
    assert len(reads) > 4 and len(reads) == len(set(reads))  # the references read once
    assert 1 <= max(alive) <= 2, alive
    assert tables(tmp_path / "b.duckdb") == tables(expected)


@pytest.mark.slow
def test_easy_inputs_travel_as_queries_when_big_as_frames_when_small(tmp_path, monkeypatch):
    """A small EASY file goes to the workers with its task (nothing copied into the store); from
    QUERY_ROWS items, as a query, which a serial run reads holding the corpus's reference and one
    submission at most; both give the same tables."""
    from scorehouse.demo.campaign import write_demo_campaign
    from scorehouse.warehouse.families import parsing

    campaign = write_demo_campaign(tmp_path / "campaign", scale=0.03, pos=False, coref=False,
                                   terms=False, calls=False).parent
    small = run(campaign, tmp_path / "a.duckdb", None, quiet=True, workers=2,
                store=str(tmp_path / "a.store"))
    assert small.exit_code == 0
    assert not [p for p in (tmp_path / "a.store").rglob("inputs/**/*") if p.is_file()]
    monkeypatch.setattr(parsing, "QUERY_ROWS", 1)  # every EASY file a query
    reads, alive = _frames_held(campaign, tmp_path / "b.duckdb", monkeypatch)
    easy = [r for r in reads if "stg_parsing_easy_item" in r[0]]  # small files: in the warehouse
    assert len(easy) > 4 and len(easy) == len(set(easy))  # the references read once
    assert max(alive) == 2, alive
    assert tables(tmp_path / "b.duckdb") == tables(tmp_path / "a.duckdb")


@pytest.mark.slow
def test_easy_items_scored_again_are_found_in_the_store_not_copied(tmp_path, monkeypatch):
    """An EASY file's items copied into the store for the workers are named by the family's
    code version: when its units are scored again (``--force``, a reference changed), the copy
    is found, not made again (a forced re-score of the EASY bench on two workers: the units
    step 42.0 -> 29.9 s), and the tables are the same. A corpus's reference is kept by the
    workers, a submission (one unit's input) let go (the EASY bench from scratch on two
    workers: its workers 734-739 -> 460 MiB, bench/parsing_easy_bench.py)."""
    from scorehouse.demo.campaign import write_demo_campaign
    from scorehouse.warehouse.catalog import fingerprint
    from scorehouse.warehouse.families import parsing
    from scorehouse.warehouse.store import Query

    prepared, real_run_units = [], parsing.run_units
    monkeypatch.setattr(parsing, "run_units", lambda ctx, label, todo, prepare, *a: (
        real_run_units(ctx, label, todo, lambda u: (prepared.append((u, prepare(u))),
                                                    prepared[-1][1])[1], *a)))

    campaign = write_demo_campaign(tmp_path / "campaign", scale=0.03, pos=False, coref=False,
                                   terms=False, calls=False).parent
    monkeypatch.setattr(parsing, "QUERY_ROWS", 1)  # every EASY file a query
    found, put_query = [], Store.put_query

    def spied(self, con, sql, params, version=""):
        if "stg_parsing_easy_item" in sql:
            named = f"{self.root}/inputs/queries/" + fingerprint(
                {"sql": sql, "params": list(params), "version": version})
            found.append(bool(version) and os.path.isfile(named))
        return put_query(self, con, sql, params, version)

    monkeypatch.setattr(Store, "put_query", spied)
    # staged items the warehouse holds itself (a store that could not take them when they were
    # staged): the units' inputs are copies of them (else the staged files are read in place)
    monkeypatch.setattr(Store, "put_rows", lambda *_: (_ for _ in ()).throw(StoreError("full")))
    db, store = tmp_path / "w.duckdb", str(tmp_path / "w.store")
    assert run(campaign, db, None, quiet=True, workers=2, store=store).exit_code == 0
    def results() -> dict:  # a forced run adds its history rows: the rest is the same
        return {t: rows for t, rows in tables(db).items()
                if not t.startswith("hist_") and not t.endswith("_changes")}

    easy = [(u, arguments) for u, arguments in prepared if not arguments[0]]  # not CoNLL-U
    assert {(q.params[0], q.kept) for _, arguments in easy for q in arguments
            if isinstance(q, Query)} == {(u.inputs[role], role == "reference")
                                         for u, _ in easy for role in ("reference", "submissions")}
    first, found[:] = results(), []
    assert run(campaign, db, None, quiet=True, workers=2, store=store,
               force=True).exit_code == 0
    assert len(found) > 4 and all(found), found
    assert results() == first


@pytest.mark.slow
def test_a_run_whose_inputs_all_travel_by_the_store_gives_the_same_tables(scored_once, tmp_path,
                                                                         monkeypatch):
    from scorehouse.warehouse import runner

    campaign, expected, scored = scored_once
    monkeypatch.setattr(runner, "INPUT_ROWS", 1)  # every table argument, however small
    copied = []  # each query input is copied into the store once (a corpus's reference too)
    put_query = Store.put_query
    monkeypatch.setattr(Store, "put_query", lambda self, con, sql, params, version="": (
        copied.append((sql, params)), put_query(self, con, sql, params, version))[1])
    result = run(campaign, tmp_path / "b.duckdb", None, quiet=True, store=str(tmp_path / "t"),
                 workers=2)
    assert result.exit_code == 0 and result.scored == scored
    assert list((tmp_path / "t" / "inputs").rglob("*.arrows"))
    assert copied and len(copied) == len(set(copied))
    assert tables(tmp_path / "b.duckdb") == tables(expected)


@pytest.mark.slow
def test_a_worker_keeps_shared_inputs_and_lets_a_units_own_go(scored_once, tmp_path,
                                                             monkeypatch):
    """A stored input read by several units (a corpus's reference) is read once per worker and
    kept; one marked ``kept=False`` (a submission's tokens: one unit's) is read for its unit and
    not held for the next ones (three 1M-token submissions held beside the reference made a
    full re-score's worker peak); the POS family marks its submissions so, not its reference."""
    import dataclasses

    from scorehouse.warehouse import runner
    from scorehouse.warehouse.families import pos
    from scorehouse.warehouse.store import Query, resolved

    store = Store(str(tmp_path / "s"))
    con = duckdb.connect()
    con.execute("CREATE TABLE tok AS SELECT range AS tok, range % 2 AS sha FROM range(10)")
    ref = store.put_query(con, "SELECT tok FROM tok WHERE sha = ? ORDER BY tok", (1,))
    assert ref.kept and resolved(ref) is resolved(ref)
    once = dataclasses.replace(ref, kept=False)
    assert resolved(once).equals(resolved(ref)) and resolved(once) is not resolved(once)
    monkeypatch.setattr(resident, "STAGED_ROWS", 1)  # every file's tokens kept in the store
    stored, prepared = [], []  # the POS units' queries, and what the runner sends for them
    real_run_units = pos.run_units
    monkeypatch.setattr(runner, "replace", lambda query, **changes: (
        stored.append(dataclasses.replace(query, **changes)), stored[-1])[1])
    monkeypatch.setattr(pos, "run_units", lambda ctx, label, todo, prepare, *a: real_run_units(
        ctx, label, todo, lambda u: (prepared.append(prepare(u)), prepared[-1])[1], *a))
    result = run(scored_once[0], tmp_path / "b.duckdb", None, quiet=True,
                 store=str(tmp_path / "t"), workers=2)
    assert result.exit_code == 0
    queries = {a for arguments in prepared for a in arguments if isinstance(a, Query)}
    assert {q.sql: q.kept for q in queries} == {pos._REFERENCE: True}
    assert sorted(a.kept for a in stored) == sorted(q.kept for q in queries)
    # the submissions' tokens, staged into the store, are read there in place (resident.py)
    in_place = [a for arguments in prepared for a in arguments if isinstance(a, StoredInput)]
    assert len(in_place) >= 3 and not any(a.kept for a in in_place)


def test_a_copy_duckdb_cannot_write_is_a_store_error(tmp_path, monkeypatch):
    """DuckDB's own write failing (its IOException: a full disk, a folder it may not write) is
    a StoreError like an OSError, for a unit's input copied out and for a file's staged rows
    (the callers then keep the rows in the warehouse), and no partial file stays."""
    from scorehouse.warehouse import store as store_module

    store, con = Store(str(tmp_path / "s")), duckdb.connect()
    monkeypatch.setattr(store_module.os, "makedirs", lambda *a, **k: None)
    monkeypatch.setattr(store, "root", "/dev/full")  # DuckDB cannot open a file under it
    with pytest.raises(StoreError, match="cannot write to the store"):
        store.put_query(con, "SELECT range AS n FROM range(3)", ())
    with pytest.raises(StoreError, match="cannot write to the store"):
        store.put_rows(con, "SELECT range AS n FROM range(3)", {}, "k" * 32)
    assert con.execute("SELECT 42").fetchall() == [(42,)]  # the connection goes on


def test_a_file_is_written_whole_or_not_at_all(tmp_path):
    """``whole_file``: the block's partial file moved into place when it ends; a block that
    fails leaves what was at the path, and no partial file; the folder is made."""
    from scorehouse.warehouse.store import whole_file

    target = tmp_path / "a" / "b.bin"
    with whole_file(target) as partial:
        Path(partial).write_bytes(b"first")
        assert not target.exists()  # not before the block ends
    assert target.read_bytes() == b"first"
    with pytest.raises(RuntimeError), whole_file(target) as partial:
        Path(partial).write_bytes(b"half")
        raise RuntimeError("the disk is full")
    assert target.read_bytes() == b"first"
    assert sorted(p.name for p in target.parent.iterdir()) == ["b.bin"]
