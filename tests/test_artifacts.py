"""Reduces and pages are fingerprinted by what they are computed from (warehouse/artifacts.py,
warehouse/publish.py), and each family's code version follows its imports.

- a seed change recomputes the intervals and no unit, and the intervals carry the new seed;
- a participant turned from public to withheld re-renders its pages: it leaves the page and the
  exported tables; the other pages are kept as they were (hard links to the same files);
- a run whose only event is a rejection re-renders the page that shows it;
- the bulletin path is a link swapped to a whole new edition, and two runs of the same campaign
  publish the same bytes;
- the code version of a family covers every module its scoring imports, however indirectly,
  and no module it does not.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest
from helpers import tables

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.campaign import CampaignError
from scorehouse.warehouse.catalog import imported_sources
from scorehouse.warehouse.families import NAMES
from scorehouse.warehouse.pipeline import run


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    return write_demo_campaign(
        tmp_path_factory.mktemp("demo") / "campaign",
        scale=0.03,
        pos=False,
        parsing=False,
        coref=False,
        terms=False,
    ).parent


@pytest.fixture()
def campaign(pristine, tmp_path) -> Path:
    shutil.copytree(pristine, tmp_path / "campaign")
    return tmp_path / "campaign"


def query(db: Path, sql: str, params=()) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.slow
def test_a_seed_change_recomputes_the_intervals_and_no_unit(campaign, tmp_path):
    db, out = tmp_path / "w.duckdb", tmp_path / "bulletins"
    run(campaign, db, out, quiet=True)
    before = query(
        db, "SELECT system, method, ci_low, ci_high, seed FROM mart_wer_interval ORDER BY ALL"
    )
    edit(campaign / "campaign.toml", "seed = 20261125", "seed = 7")
    second = run(campaign, db, out, quiet=True)
    assert second.scored == 0 and second.bulletins  # no unit, but the page shows new intervals
    after = query(
        db, "SELECT system, method, ci_low, ci_high, seed FROM mart_wer_interval ORDER BY ALL"
    )
    assert {r[-1] for r in after} == {7} and [r[:4] for r in after] != [r[:4] for r in before]
    assert "seed 7" in (out / "asr" / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_withholding_a_participant_re_renders_its_pages(campaign, tmp_path):
    db, out = tmp_path / "w.duckdb", tmp_path / "bulletins"
    run(campaign, db, out, quiet=True)
    assert "parole-sud-base" in (out / "asr" / "index.html").read_text(encoding="utf-8")
    assert "Laboratoire Parole Sud" in (out / "index.html").read_text(encoding="utf-8")
    edition = out.resolve()
    before_rows = "".join(p.read_text(encoding="utf-8") for p in (out / "asr").glob("*.csv")).count(
        "\n"
    )
    edit(
        campaign / "campaign.toml",
        'name = "Laboratoire Parole Sud (fictif)"\npublication = "public"',
        'name = "Laboratoire Parole Sud (fictif)"\npublication = "withheld"',
    )
    second = run(campaign, db, out, quiet=True)
    assert second.scored == 0 and out.resolve() != edition
    assert "parole-sud" not in (out / "asr" / "index.html").read_text(encoding="utf-8")
    assert "Laboratoire Parole Sud" not in (out / "index.html").read_text(encoding="utf-8")
    exported = "".join(p.read_text(encoding="utf-8") for p in (out / "asr").glob("*.csv"))
    assert "parole-sud" not in exported and "Parole Sud" not in exported
    assert exported.count("\n") < before_rows  # its rows left the exported tables


@pytest.mark.slow
def test_a_rejection_alone_is_published(campaign, tmp_path):
    db, out = tmp_path / "w.duckdb", tmp_path / "bulletins"
    run(campaign, db, out, quiet=True)
    hyp = next((campaign / "submissions").glob("*/Test_II.trn"))
    hyp.write_bytes(hyp.read_bytes() + b"a line without any id\n")
    second = run(campaign, db, out, quiet=True)
    assert second.scored == 0 and second.rejections and second.bulletins
    page = (out / "asr" / "index.html").read_text(encoding="utf-8")
    assert "a line without any id" in page or "expected" in page


@pytest.mark.slow
def test_editions_are_swapped_whole_and_reproducible(campaign, tmp_path):
    first_out, second_out = tmp_path / "a" / "bulletins", tmp_path / "b" / "bulletins"
    run(campaign, tmp_path / "a.duckdb", first_out, quiet=True)
    run(campaign, tmp_path / "b.duckdb", second_out, quiet=True)
    assert first_out.is_symlink() and first_out.resolve().parent.name == ".bulletins.editions"

    def files(out: Path) -> dict[str, bytes]:
        root = out.resolve()
        return {
            str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
        }

    assert files(first_out) == files(second_out)
    # every value, bit for bit
    assert tables(tmp_path / "a.duckdb") == tables(tmp_path / "b.duckdb")
    assert not re.search(
        r"\b20\d\d-\d\d-\d\d \d\d:\d\d\b", (first_out / "index.html").read_text(encoding="utf-8")
    )
    third = run(campaign, tmp_path / "a.duckdb", first_out, quiet=True)
    assert third.bulletins == [] and "up to date" in third.summary()


@pytest.mark.slow
def test_a_folder_of_other_files_is_never_replaced_by_an_edition(campaign, tmp_path):
    """A real folder at --out (an older layout, a web root) is not scorehouse's to replace: it
    was moved into the editions and pruned with them. Refused, kept; once emptied, published."""
    out = tmp_path / "bulletins"
    out.mkdir()
    (out / "stale.html").write_text("old layout")
    with pytest.raises(CampaignError, match="folder of files scorehouse did not publish"):
        run(campaign, tmp_path / "w.duckdb", out, quiet=True)
    assert (out / "stale.html").read_text() == "old layout"
    (out / "stale.html").unlink()
    run(campaign, tmp_path / "w.duckdb", out, quiet=True)
    assert out.is_symlink() and (out / "index.html").exists()


@pytest.mark.parametrize(
    "family, reaches, not_reached",
    [
        (
            "parsing",
            [
                "scorehouse.scorers.lcs",
                "scorehouse.scorers.ud_align",
                "scorehouse.scorers.bootstrap",
                "scorehouse.warehouse.families.parsing_ud",
                "scorehouse.warehouse.families.parsing_intervals",
                "scorehouse.scorers.ud_enhanced",  # split modules count too
                "scorehouse.scorers.easy_consensus",
                "scorehouse.etl.ud_checks",
                "scorehouse.etl.ud_enhanced",
                "scorehouse.etl.easy_items",
            ],
            ["scorehouse.scorers.pos", "scorehouse.scorers.wer",
             "scorehouse.warehouse.families.pos"],
        ),
        (
            "pos",
            ["scorehouse.scorers.lcs", "scorehouse.scorers.pos", "scorehouse.etl.grace",
             "scorehouse.scorers.bootstrap", "scorehouse.warehouse.families.pos_intervals"],
            ["scorehouse.scorers.easy", "scorehouse.scorers.wer"],
        ),
        (
            "wer",
            ["scorehouse.scorers.alignment", "scorehouse.scorers.wer",
             "scorehouse.scorers.bootstrap"],
            ["scorehouse.scorers.lcs", "scorehouse.scorers.pos"],
        ),
        ("coref", ["scorehouse.scorers.coref", "scorehouse.scorers.coref_paper",
                   "scorehouse.scorers.coref_aggregation", "scorehouse.etl.coref_categories",
                   "scorehouse.scorers.bootstrap"], ["scorehouse.scorers.lcs"]),
        (
            "terms",
            ["scorehouse.scorers.terms", "scorehouse.scorers.terms_measures",
             "scorehouse.scorers.terms_slices"],
            ["scorehouse.scorers.lcs"],
        ),
    ],
)
def test_code_versions_follow_the_imports(family, reaches, not_reached):
    found = {name for name, _ in imported_sources(f"scorehouse.warehouse.families.{family}")}
    assert set(reaches) <= found and not set(not_reached) & found
    # pages are not scoring code
    assert not any(name.startswith("scorehouse.reports") for name in found)


def _imported_by_ast(module: str) -> set[str]:
    """The same walk as ``imported_sources``, reading each module with ``ast`` (the reference)."""
    import ast
    import importlib.util

    def is_module(name: str) -> bool:
        try:
            return importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            return False

    packages = ("scorehouse.scorers.", "scorehouse.etl.", "scorehouse.warehouse.families.")
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        spec = importlib.util.find_spec(name) if name not in seen else None
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            continue
        seen.add(name)
        for node in ast.walk(ast.parse(Path(spec.origin).read_text(encoding="utf-8"))):
            found = []
            if isinstance(node, ast.Import):
                found = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                inner = [f"{node.module}.{alias.name}" for alias in node.names]
                found = [f for f in inner if is_module(f)] or [node.module]
            todo += [f for f in found if f.startswith(packages) and is_module(f)]
    return seen


@pytest.mark.parametrize("module", [f"scorehouse.warehouse.families.{name}{suffix}"
                                    for name in NAMES for suffix in ("", "_oneshot")])
def test_the_import_scan_reads_what_ast_reads(module):
    """The code version's line scan of import statements finds the modules a parse finds."""
    assert {name for name, _ in imported_sources(module)} == _imported_by_ast(module)


@pytest.mark.slow
def test_a_warehouse_from_an_earlier_version_gains_new_columns(campaign, tmp_path):
    """A column added to a table's DDL is added to an existing warehouse (null in old rows); a
    column that changed type is a clear error, not a silent mismatch."""
    db = tmp_path / "w.duckdb"
    run(campaign, db, None, quiet=True)
    with duckdb.connect(str(db)) as con:
        con.execute(
            "ALTER TABLE hist_wer_scores DROP COLUMN signature"
        )  # as an older version made it
    run(campaign, db, None, quiet=True)
    assert query(
        db,
        "SELECT count(*) FROM information_schema.columns WHERE table_name = 'hist_wer_scores' "
        "AND column_name = 'signature'",
    ) == [(1,)]
    with duckdb.connect(str(db)) as con:
        con.execute("ALTER TABLE cat_scoring ALTER state TYPE INTEGER USING 0")
    from scorehouse.warehouse.dbfile import SchemaError

    with pytest.raises(
        SchemaError, match=r"table cat_scoring .*column state is INTEGER here, VARCHAR expected"
    ):
        run(campaign, db, None, quiet=True)


@pytest.mark.slow
def test_a_schema_applied_is_not_applied_again_unless_it_changed(campaign, tmp_path,
                                                                monkeypatch):
    """The statements ``cat_schema`` records as applied, on tables of the shape they left, are
    not run again when the warehouse is opened; a table altered by hand is mended."""
    from scorehouse.warehouse import db as warehouse_db
    from scorehouse.warehouse.pipeline import open_warehouse

    path = tmp_path / "w.duckdb"
    run(campaign, path, None, quiet=True)
    applied = []
    real = warehouse_db._base_tables
    monkeypatch.setattr(warehouse_db, "_base_tables", lambda con: applied.append(1) or real(con))
    open_warehouse(path).close()
    assert applied == []
    with duckdb.connect(str(path)) as con:
        con.execute("ALTER TABLE hist_wer_scores DROP COLUMN signature")
    open_warehouse(path).close()
    assert applied
    assert query(path, "SELECT count(*) FROM information_schema.columns WHERE table_name = "
                       "'hist_wer_scores' AND column_name = 'signature'") == [(1,)]
    applied.clear()
    open_warehouse(path).close()
    assert applied == []
    # a view redefined by hand with the same columns (no rows): its statement is applied again
    with duckdb.connect(str(path)) as con:
        (sql,) = con.execute("SELECT sql FROM duckdb_views() "
                             "WHERE view_name = 'mart_wer_scores'").fetchone()
        body = sql.split(" AS ", 1)[1].rstrip().rstrip(";")
        con.execute(f"CREATE OR REPLACE VIEW mart_wer_scores AS SELECT * FROM ({body}) "
                    "WHERE false")
    open_warehouse(path).close()
    assert applied
    assert query(path, "SELECT count(*) FROM mart_wer_scores") != [(0,)]


def test_a_table_an_earlier_version_kept_becomes_the_view_this_one_declares(tmp_path):
    """mart_coref_scores was a table filled by the units; it is now a view over the per-document
    counts: an existing warehouse's table is replaced by the view (its rows were derived)."""
    from scorehouse.warehouse.db import apply_schema

    db = tmp_path / "w.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("CREATE TABLE mart_coref_scores (campaign VARCHAR, f1 DOUBLE)")
        con.execute("INSERT INTO mart_coref_scores VALUES ('old', 0.5)")
        apply_schema(con, ["catalog", "coref"])
        kind = con.execute("SELECT table_type FROM information_schema.tables "
                           "WHERE table_name = 'mart_coref_scores'").fetchall()
        assert kind == [("VIEW",)]
        assert con.execute("SELECT count(*) FROM mart_coref_scores").fetchone() == (0,)
        apply_schema(con, ["catalog", "coref"])  # and again: idempotent
