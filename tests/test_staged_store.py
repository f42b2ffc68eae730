"""Staged tables kept in the store (warehouse/resident.py): with a local unit store, each big POS
file's tokens are written once, when the file is staged, as a Parquet file of the store, which its
unit reads in place (every file here: the threshold is lowered); ``stg_pos_token`` then reads the
same rows, and the runs give the same tables, as a warehouse holding the rows itself; a lost
file is parsed again by the next load, its units left as they are; ``scorehouse sql`` reads the
staged tokens with no folder open to queries."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from helpers import tables

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse import resident
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.pipeline import run
from scorehouse.warehouse.store import Store, StoreError


@pytest.fixture(autouse=True)
def every_file_kept(monkeypatch):
    """Every file's rows kept in the store, not only those of STAGED_ROWS rows or more."""
    monkeypatch.setattr(resident, "STAGED_ROWS", 1)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    """The demo's speech and POS tasks (scale 0.03)."""
    root = tmp_path_factory.mktemp("staged")
    return write_demo_campaign(root / "campaign", scale=0.03, parsing=False, coref=False,
                               terms=False, calls=False).parent


@pytest.fixture(scope="module")
def plain(campaign, tmp_path_factory) -> Path:
    """The campaign scored once with every staged row in the warehouse (no file kept in the
    store): what each run here must give. Never changed."""
    db = tmp_path_factory.mktemp("plain") / "w.duckdb"
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(resident, "STAGED_ROWS", 10**12)
        assert run(campaign, db, None, quiet=True).exit_code == 0
    return db


def staged(db: Path) -> dict:
    """The warehouse's own staged token rows, its staged files, the contents staged, and every
    token as ``stg_pos_token`` reads it."""
    with duckdb.connect(str(db), read_only=True) as con:
        return {
            "rows": con.execute("SELECT count(*) FROM stg_pos_token_rows").fetchall()[0][0],
            "files": dict(con.execute("SELECT sha256, path FROM cat_staged_file "
                                      "WHERE \"table\" = 'stg_pos_token'").fetchall()),
            "contents": {s for (s,) in con.execute(
                "SELECT DISTINCT sha256 FROM cat_input_current WHERE task = 'pos' "
                "AND role <> 'table' AND status = 'accepted'").fetchall()},
            "tokens": con.sql("SELECT * FROM stg_pos_token ORDER BY ALL").to_arrow_table()}


@pytest.mark.slow
def test_staged_tokens_live_in_the_store_and_read_as_the_warehouses_own(campaign, plain,
                                                                         tmp_path):
    kept, own = tmp_path / "kept.duckdb", plain
    assert run(campaign, kept, None, quiet=True).exit_code == 0
    k, o = staged(kept), staged(own)
    # every POS content (reference, training corpus, submissions, built-in baselines) a file
    assert k["rows"] == 0 and set(k["files"]) == k["contents"] and len(k["contents"]) > 4
    assert o["rows"] == k["tokens"].num_rows and o["files"] == {}
    assert k["tokens"].equals(o["tokens"])
    assert tables(kept) == tables(own)
    for path in k["files"].values():  # in token order, as its unit reads it
        tok = pq.read_table(path, columns=["tok"])["tok"].to_pylist()
        assert tok == sorted(tok) and str(kept.with_suffix(".store")) in path


@pytest.mark.slow
def test_worker_processes_stage_the_files_they_parse(campaign, plain, tmp_path, monkeypatch):
    """With worker processes and a local store, each file's staged rows are written into the
    store by the worker that parsed it, as this process would write them: this process writes
    only the built-in baselines' (computed here, not parsed), and the run gives the staged
    tokens and tables of a run holding every row itself. A worker that cannot write them
    (the store's staged folder is a file) sends the rows back, and they are staged here."""
    written, put_rows = [], Store.put_rows
    monkeypatch.setattr(Store, "put_rows", lambda self, *a, **k: (
        written.append(a[-1]), put_rows(self, *a, **k))[1])
    kept = tmp_path / "kept.duckdb"
    assert run(campaign, kept, None, quiet=True, workers=2).exit_code == 0
    k, o = staged(kept), staged(plain)
    assert k["rows"] == 0 and set(k["files"]) == k["contents"]
    assert k["tokens"].equals(o["tokens"]) and tables(kept) == tables(plain)
    with duckdb.connect(str(kept), read_only=True) as con:
        baselines = {s for (s,) in con.execute(
            "SELECT sha256 FROM cat_input_current WHERE task = 'pos' "
            "AND starts_with(system, 'baseline')").fetchall()}
    assert baselines and sorted(written) == sorted(
        resident.staged_key("stg_pos_token", s) for s in baselines)
    refused = tmp_path / "refused.duckdb"
    refused.with_suffix(".store").mkdir()
    (refused.with_suffix(".store") / "staged").write_text("not a folder")
    assert run(campaign, refused, None, quiet=True, workers=2).exit_code == 0
    r = staged(refused)
    assert r["files"] == {} and r["rows"] == o["rows"] and r["tokens"].equals(o["tokens"])
    assert tables(refused) == tables(plain)


@pytest.mark.slow
def test_a_lost_staged_file_is_parsed_again_and_its_units_left_alone(campaign, tmp_path):
    db = tmp_path / "w.duckdb"
    assert run(campaign, db, None, quiet=True).exit_code == 0
    before, results = staged(db), tables(db)
    with duckdb.connect(str(db), read_only=True) as con:
        ((submission, baseline),) = con.execute(
            "SELECT min(sha256) FILTER (WHERE NOT starts_with(system, 'baseline')), "
            "min(sha256) FILTER (WHERE starts_with(system, 'baseline')) FROM cat_input_current "
            "WHERE task = 'pos' AND role = 'submissions'").fetchall()
    for lost, loaded, how in ((submission, 1, "gone"), (baseline, 0, "cut")):  # a baseline is
        if how == "gone":  # made, not loaded; a file cut short counts as gone
            Path(before["files"][lost]).unlink()
        else:
            Path(before["files"][lost]).write_bytes(Path(before["files"][lost]).read_bytes()[:99])
        again = run(campaign, db, None, quiet=True)
        assert again.exit_code == 0, again.summary()
        assert (again.loaded, again.scored) == (loaded, 0)
        assert any("staged rows of 1 input file(s) are gone" in n for n in again.notes)
        after = staged(db)
        assert after["files"] == before["files"] and Path(after["files"][lost]).is_file()
        assert after["tokens"].equals(before["tokens"])
        assert tables(db) == results
    quiet = run(campaign, db, None, quiet=True)
    assert (quiet.loaded, quiet.scored) == (0, 0) and not quiet.notes


@pytest.mark.slow
def test_the_query_surface_reads_the_staged_tokens_and_says_when_they_are_gone(campaign,
                                                                               tmp_path):
    db = tmp_path / "w.duckdb"
    assert run(campaign, db, None, quiet=True).exit_code == 0
    tokens = staged(db)["tokens"].num_rows

    def sql(query: str):
        return CliRunner().invoke(main, ["sql", "--db", str(db), "--format", "csv", query])

    ok = sql("SELECT count(*) AS n FROM stg_pos_token")
    assert ok.exit_code == 0 and int(ok.output.split()[1]) == tokens, ok.output
    path = next(iter(staged(db)["files"].values()))
    refused = sql(f"SELECT count(*) FROM read_parquet('{path}')")
    assert refused.exit_code == 1, refused.output
    Path(path).unlink()
    gone = sql("SELECT count(*) FROM stg_pos_token")
    assert gone.exit_code == 1 and "run `scorehouse run`" in gone.output, gone.output
    # found lost by a run that does not load (nothing parsed again): still a clear error, never
    # the rows of the other files alone
    with pytest.raises(StoreError, match=r"gone from the store \S+: run the load step first"):
        run(campaign, db, None, steps=("score",), quiet=True)
    refused = sql("SELECT count(*) FROM stg_pos_token")
    assert refused.exit_code == 1 and "parse them again" in refused.output, refused.output
    assert run(campaign, db, None, quiet=True).loaded == 1
    assert int(sql("SELECT count(*) AS n FROM stg_pos_token").output.split()[1]) == tokens


@pytest.mark.slow
def test_easy_items_are_staged_into_the_store_in_the_order_their_units_read_them(tmp_path,
                                                                                monkeypatch):
    """The EASY items too: a big file's units read its staged file in place (nothing copied
    out of the warehouse for them; a corpus's reference kept by the workers, a submission let
    go), sorted as a unit reads them, with the tables of a warehouse holding the items itself."""
    from scorehouse.warehouse.families import parsing
    from scorehouse.warehouse.store import StoredInput

    campaign = write_demo_campaign(tmp_path / "campaign", scale=0.03, pos=False, coref=False,
                                   terms=False, calls=False).parent
    monkeypatch.setattr(parsing, "QUERY_ROWS", 1)  # every EASY file as big
    prepared, real_run_units = [], parsing.run_units
    monkeypatch.setattr(parsing, "run_units", lambda ctx, label, todo, prepare, *a: (
        real_run_units(ctx, label, todo, lambda u: (prepared.append((u, prepare(u))),
                                                    prepared[-1][1])[1], *a)))
    copied, put_query = [], Store.put_query
    monkeypatch.setattr(Store, "put_query", lambda self, con, sql, *a: (
        copied.append(sql), put_query(self, con, sql, *a))[1])
    kept, own = tmp_path / "kept.duckdb", tmp_path / "own.duckdb"
    assert run(campaign, kept, None, quiet=True, workers=2).exit_code == 0
    easy = [(u, arguments) for u, arguments in prepared if not arguments[0]]  # not CoNLL-U
    assert easy and not [sql for sql in copied if "stg_parsing_easy_item" in sql]
    assert {(a.key, a.kept, a.folder) for _, arguments in easy for a in arguments
            if isinstance(a, StoredInput)} == {
        (resident.staged_key("stg_parsing_easy_item", u.inputs[role]), role == "reference",
         "staged") for u, _ in easy for role in ("reference", "submissions")}
    with duckdb.connect(str(kept), read_only=True) as con:
        paths = [p for (p,) in con.execute("SELECT path FROM cat_staged_file WHERE \"table\" = "
                                           "'stg_parsing_easy_item'").fetchall()]
        assert con.execute("SELECT count(*) FROM stg_parsing_easy_item_rows").fetchall() == [(0,)]
    for path in paths:
        keys = pq.read_table(path, columns=["sent_no", "line_no", "role_no"]).to_pylist()
        order = [(k["sent_no"], k["line_no"], -1 if k["role_no"] is None else k["role_no"])
                 for k in keys]
        assert order == sorted(order), path
    prepared.clear()
    monkeypatch.setattr(Store, "put_rows", lambda self, *_: (_ for _ in ()).throw(
        StoreError(f"cannot write to the store {self.label}: No space left on device")))
    assert run(campaign, own, None, quiet=True, workers=2).exit_code == 0
    assert tables(kept) == tables(own)


@pytest.mark.slow
@pytest.mark.parametrize("workers", (1, 2))
def test_a_store_deleted_during_a_run_is_parsed_again_not_an_error(campaign, plain, tmp_path,
                                                                    monkeypatch, workers):
    """The store deleted right after the first POS units are committed: the units still to come
    would read their staged files there. The run loads again what the store lost, recomputes
    what it must and says so; its tables are an undisturbed run's."""
    from scorehouse.warehouse import runner

    expected = plain
    flush, deleted = runner._Batch.flush, []

    def flush_then_delete(batch):
        flush(batch)
        if not deleted and batch.label == "pos":
            while (tmp_path / "w.store").exists():  # a worker may be writing into it meanwhile
                shutil.rmtree(tmp_path / "w.store", ignore_errors=True)
            deleted.append(True)

    monkeypatch.setattr(runner._Batch, "flush", flush_then_delete)
    monkeypatch.setattr(runner, "BATCH_UNITS", 1)  # the POS units committed one by one
    done = run(campaign, tmp_path / "w.duckdb", None, quiet=True, workers=workers)
    assert deleted and done.exit_code == 0, done.summary()
    assert any("lost files during the run" in note for note in done.notes), done.notes
    assert any("staged rows of" in n and "parsed again" in n for n in done.notes), done.notes
    assert tables(tmp_path / "w.duckdb", run_ids=True) == tables(expected, run_ids=True)
    assert staged(tmp_path / "w.duckdb")["tokens"].equals(staged(expected)["tokens"])
    assert staged(tmp_path / "w.duckdb")["files"]  # kept in the store again


@pytest.mark.slow
def test_dask_workers_read_the_staged_files_in_place(campaign, plain, tmp_path):
    """On a Dask cluster (its workers on this machine, sharing the store folder) the units read
    the staged files as the worker processes do: the same tables as one process."""
    from distributed import Client, LocalCluster

    one, dask = plain, tmp_path / "dask.duckdb"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0") as cluster, Client(cluster):
        done = run(campaign, dask, None, quiet=True, executor=cluster.scheduler_address)
    assert done.exit_code == 0, done.summary()
    assert staged(dask)["files"] and staged(dask)["rows"] == 0
    assert tables(dask) == tables(one)


def test_an_older_warehouses_staged_tokens_become_the_rows_under_the_view(tmp_path):
    from scorehouse.warehouse.db import apply_schema
    from scorehouse.warehouse.families import sql_folders

    con = duckdb.connect(str(tmp_path / "old.duckdb"))
    con.execute("CREATE TABLE stg_pos_token (sha256 VARCHAR NOT NULL, tok INTEGER NOT NULL, "
                "line_no INTEGER NOT NULL, doc VARCHAR NOT NULL, genre VARCHAR NOT NULL, "
                "sent VARCHAR NOT NULL, form VARCHAR NOT NULL, tags VARCHAR[] NOT NULL, "
                "loc INTEGER, loc_tags VARCHAR[])")
    con.execute("INSERT INTO stg_pos_token VALUES ('s', 0, 1, 'd', 'g', 'd-1', 'le', ['DET'], "
                "NULL, NULL)")
    apply_schema(con, sql_folders())
    assert con.execute("SELECT form, tags FROM stg_pos_token").fetchall() == [("le", ["DET"])]
    assert con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = "
                       "'stg_pos_token'").fetchall() == [("VIEW",)]
    con.close()


@pytest.mark.slow
def test_a_score_step_without_its_load_stops_on_lost_staged_rows(campaign, tmp_path):
    """``scorehouse score`` (no load) cannot parse again what the store lost: it says so in one
    line instead of scoring units on rows that are gone; the next full run mends it."""
    from scorehouse.warehouse.store import StoreError

    db = tmp_path / "w.duckdb"
    assert run(campaign, db, None, quiet=True).exit_code == 0
    Path(next(iter(staged(db)["files"].values()))).unlink()
    with pytest.raises(StoreError, match=r"staged rows of 1 input file\(s\) are gone .* load"):
        run(campaign, db, None, steps=("score",), quiet=True, force=True)
    again = run(campaign, db, None, quiet=True)
    assert again.exit_code == 0 and again.loaded == 1
    assert run(campaign, db, None, steps=("score",), quiet=True).exit_code == 0


@pytest.mark.slow
def test_a_store_whose_disk_refuses_the_staged_file_costs_the_insert(campaign, plain, tmp_path,
                                                                      monkeypatch):
    """DuckDB's own write of a staged file failing (a full disk, a folder it may not write: its
    IOException, not an OSError) leaves the load's transaction whole: the rows are inserted into
    the warehouse instead, and the run gives the tables of a run without the store."""
    from scorehouse.warehouse import store as store_module

    expected = plain
    monkeypatch.setattr(store_module.os, "makedirs", lambda *a, **k: None)
    monkeypatch.setattr(Store, "input_path", lambda self, key, fmt="parquet", folder="inputs": (
        f"/dev/full/{key}.{fmt}" if folder == "staged" else f"{self.root}/{folder}/{key}.{fmt}"))
    done = run(campaign, tmp_path / "w.duckdb", None, quiet=True)
    assert done.exit_code == 0, done.summary()
    got = staged(tmp_path / "w.duckdb")
    assert got["files"] == {} and got["rows"] == got["tokens"].num_rows > 0
    assert tables(tmp_path / "w.duckdb") == tables(expected)


@pytest.mark.parametrize("seed", range(30))
def test_in_order_is_sql_order_by_nulls_last(seed):
    """``resident.in_order`` (whether a staged file's rows need their sort) against its
    definition: each row's key not before the previous one's, nulls after every value."""
    import random

    import pyarrow as pa

    rng = random.Random(seed)
    n = rng.randint(0, 12)
    values = lambda: [rng.choice([None, 0, 1, 2]) for _ in range(n)]  # noqa: E731
    columns = {"a": values(), "b": values(), "c": values()}
    if rng.random() < 0.5:  # sorted often enough to see both answers
        rows = sorted(zip(*columns.values()),
                      key=lambda r: tuple((v is None, v or 0) for v in r))
        columns = {k: [r[i] for r in rows] for i, k in enumerate(columns)}
    table = pa.table({k: pa.array(v, pa.int32()) for k, v in columns.items()})
    keys = [tuple((v is None, v or 0) for v in r) for r in zip(*columns.values())]
    expected = all(x <= y for x, y in zip(keys, keys[1:]))
    assert resident.in_order(table, ["a", "b", "c"]) == expected
    key_ab = [k[:2] for k in keys]
    assert resident.in_order(table, ["a", "b"]) == all(x <= y for x, y in zip(key_ab, key_ab[1:]))


def test_staged_rows_are_sorted_only_when_they_come_out_of_order(tmp_path):
    """Rows out of order are written sorted; rows in order are written as they came, equal
    keys in their order (DuckDB's sort would not promise that)."""
    import pyarrow as pa

    con = duckdb.connect()
    con.execute("CREATE TABLE stg_t (sha256 VARCHAR, k INTEGER, v VARCHAR)")
    for given, written in (([2, 1, 3], [1, 2, 3]), ([1, 1, 2], [1, 1, 2])):
        rows = pa.table({"k": pa.array(given, pa.int32()),
                         "v": [f"{k}-{i}" for i, k in enumerate(given)]})
        resident.keep_staged(con, None, "stg_t", "s", rows, "SELECT $sha AS sha256, k, v "
                             "FROM arrow_rows", {"sha": "s"}, order="k")
        got = con.execute("SELECT k, v FROM stg_t").fetchall()
        con.execute("DELETE FROM stg_t")
        assert [k for k, _ in got] == written
        if given == written:
            assert [v for _, v in got] == ["1-0", "1-1", "2-2"]
