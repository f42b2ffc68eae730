"""Resident tables (warehouse/resident.py): a unit committed from a local store leaves its big
POS rows in the store's Parquet files under a warehouse view, with the same rows as a unit whose
rows were inserted; a deleted store makes the next run recompute those units; the query surface
reads the files without any folder becoming open to queries; an older warehouse's whole table
becomes the rows table under the view; a system no longer declared leaves the view."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from helpers import copy_warehouse, tables

from scorehouse.warehouse import resident
from scorehouse.warehouse.cli import main
from scorehouse.warehouse.db import apply_schema
from scorehouse.warehouse.families import sql_folders
from scorehouse.warehouse.pipeline import run


@pytest.fixture(scope="module")
def campaign(scored_once) -> Path:
    return scored_once[0]


def counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("int_pos_case_rows", "int_pos_sys_unit_rows", "cat_unit_file")}
    finally:
        con.close()


@pytest.mark.slow
def test_resident_rows_stay_in_the_store_and_read_the_same(scored_once, tmp_path):
    assert resident.declared() == {"int_pos_case", "int_pos_sys_unit",  # and EASY's:
                                   "int_parsing_form_alignment", "int_parsing_range",
                                   "int_parsing_candidate", "fct_parsing_sentence"}
    campaign, kept, _ = scored_once  # scored with the store beside the warehouse
    files = counts(kept)
    assert files["int_pos_case_rows"] == files["int_pos_sys_unit_rows"] == 0
    assert files["cat_unit_file"] > 0
    con = duckdb.connect(str(kept), read_only=True)
    n = con.execute("SELECT count(*) FROM int_pos_case").fetchone()[0]
    con.close()
    assert n > 0
    # a second warehouse from the same store: every unit from the store, files recorded again
    again = run(campaign, tmp_path / "b.duckdb", None, quiet=True,
                store=str(kept.with_suffix(".store")))
    assert any("committed from the store" in note for note in again.notes)
    assert tables(tmp_path / "b.duckdb") == tables(kept)


@pytest.mark.slow
def test_a_deleted_store_is_recomputed_not_an_error(scored_once, tmp_path):
    campaign, scored, _ = scored_once
    db = copy_warehouse(scored, tmp_path / "w.duckdb")  # the campaign scored, its own store
    expected = tables(db)
    assert counts(db)["cat_unit_file"] > 0  # the POS rows in the store's files
    shutil.rmtree(tmp_path / "w.store")
    result = run(campaign, db, None, quiet=True)
    assert result.exit_code == 0 and result.scored > 0
    assert any("gone from the store: they are recomputed" in n for n in result.notes)

    def results(found: dict) -> dict:  # a recomputed unit adds a history row, same scores
        return {t: rows for t, rows in found.items() if not t.startswith("hist_")
                and not t.endswith("_changes")}
    assert results(tables(db)) == results(expected)
    assert run(campaign, db, None, quiet=True).scored == 0  # and then nothing is stale


def test_the_query_surface_reads_the_files_but_opens_no_folder(scored_once):
    db = scored_once[1]  # its rows in the store beside it
    unit_file = next(db.with_suffix(".store").rglob("*.parquet"))
    ok = CliRunner().invoke(main, ["sql", "--db", str(db), "--format", "csv",
                                   "SELECT count(*) AS n FROM int_pos_judgement"])
    assert ok.exit_code == 0, ok.output
    assert int(ok.output.split()[1]) > 0
    for probe in (f"SELECT * FROM read_parquet('{unit_file}')",
                  f"COPY (SELECT 1) TO '{unit_file.parent}/poison.parquet'"):
        refused = CliRunner().invoke(main, ["sql", "--db", str(db), probe])
        assert refused.exit_code == 1, refused.output
    assert not (unit_file.parent / "poison.parquet").exists()


def test_an_older_warehouse_table_becomes_the_rows_under_the_view(tmp_path):
    con = duckdb.connect(str(tmp_path / "old.duckdb"))
    con.execute("CREATE TABLE int_pos_sys_unit (campaign VARCHAR NOT NULL, task VARCHAR NOT NULL, "
                "corpus VARCHAR NOT NULL, system VARCHAR NOT NULL, unit BIGINT NOT NULL, "
                "tok BIGINT NOT NULL, unit_form VARCHAR NOT NULL, ref_unit BIGINT)")
    con.execute("INSERT INTO int_pos_sys_unit VALUES ('c', 't', 'k', 's', 0, 0, 'le', 0)")
    apply_schema(con, sql_folders())
    assert con.execute("SELECT unit_form FROM int_pos_sys_unit").fetchall() == [("le",)]
    assert con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = "
                       "'int_pos_sys_unit'").fetchone() == ("VIEW",)
    con.close()


@pytest.mark.slow
def test_a_system_no_longer_declared_leaves_the_view(campaign, tmp_path):
    copy = tmp_path / "campaign"
    shutil.copytree(campaign, copy)
    db = tmp_path / "d.duckdb"
    run(copy, db, None, quiet=True)
    con = duckdb.connect(str(db), read_only=True)
    system = con.execute("SELECT min(system) FROM cat_unit_file WHERE system NOT LIKE 'baseline%'"
                         ).fetchone()[0]
    con.close()
    toml = (copy / "campaign.toml").read_text()
    assert f'[[tasks.systems]]\nid = "{system}"' in toml
    # drop the system's declaration from the POS task
    head, tail = toml.split(f'[[tasks.systems]]\nid = "{system}"', 1)
    rest = tail.split("\n[[", 1)
    (copy / "campaign.toml").write_text(head + ("[[" + rest[1] if len(rest) > 1 else ""))
    result = run(copy, db, None, quiet=True)
    assert any(f"{system}: no longer declared" in n for n in result.notes), result.notes
    con = duckdb.connect(str(db), read_only=True)
    for table in ("int_pos_case", "int_pos_sys_unit", "cat_unit_file"):
        assert con.execute(f"SELECT count(*) FROM {table} WHERE system = ?", [system]
                           ).fetchone()[0] == 0
    con.close()


@pytest.mark.slow
@pytest.mark.parametrize("workers", (1, 2))
def test_a_store_deleted_during_a_run_is_recomputed_not_an_error(scored_once, tmp_path,
                                                                monkeypatch, workers):
    """The same loss as between runs, in the middle of one: right after the first POS units are
    committed with their rows in the store, the store is deleted. The run recomputes what it
    lost and says so; its tables are an undisturbed run's."""
    from scorehouse.warehouse import runner

    campaign, expected, _ = scored_once  # an undisturbed run
    db = tmp_path / "w.duckdb"
    flush, deleted = runner._Batch.flush, []

    def flush_then_delete(batch):
        flush(batch)
        if not deleted and batch.label == "pos":
            shutil.rmtree(tmp_path / "w.store")
            deleted.append(True)

    monkeypatch.setattr(runner._Batch, "flush", flush_then_delete)
    done = run(campaign, db, None, quiet=True, workers=workers)
    assert deleted and done.exit_code == 0
    assert any("gone from the store" in note for note in done.notes), done.notes
    assert tables(db, run_ids=True) == tables(expected, run_ids=True)


def test_row_types_are_the_schemas_names_and_types():
    """``row_types`` (read through ``pragma_table_info``, the cheaper form) gives, for every
    table kept in the store, the columns and types ``information_schema`` lists for its rows
    table: the types a file's rows are cast to when the view reads them."""
    con = duckdb.connect()
    apply_schema(con, sql_folders())
    kept = sorted(resident._kept())  # the resident tables and the staged ones
    assert len(kept) >= 6
    for table in kept:
        listed = con.execute("SELECT column_name, data_type FROM information_schema.columns "
                             "WHERE table_name = $t ORDER BY ordinal_position",
                             {"t": resident.rows_table(table)}).fetchall()
        assert len(listed) >= 4 and resident.row_types(con, table) == tuple(listed), table
    con.close()
