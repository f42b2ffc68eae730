"""The query surface (``scorehouse sql``, warehouse/query.py) is read-only and locked: the probes
of an adversary (read a file, write a file, list a folder, attach the warehouse read-write,
switch the lock off, load an extension) are refused with one line and exit 1, and the warehouse is
unchanged; ``--allow-files`` opens one folder on purpose. The table output is plain, aligned,
never cuts a string, and caps its rows with a note.
"""

from __future__ import annotations

import duckdb
import pytest
from click.testing import CliRunner

from scorehouse.warehouse.cli import main


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE mart_x AS SELECT range AS n, 'wer|method:m3|case:sensitive|"
                "align:sclite-3-3-4|markers:1db18e96|version:0.1.0+abcdef' AS signature, "
                "range / 3 AS ratio FROM range(250)")
    con.close()
    return path


def sql(db, *args):
    return CliRunner().invoke(main, ["sql", "--db", str(db), *args])


SECRET = "not for the query"


@pytest.mark.parametrize("query", [
    "SELECT * FROM read_csv('{secret}')",
    "SELECT * FROM read_text('{secret}')",
    "SELECT * FROM glob('{folder}/*')",
    "COPY mart_x TO '{folder}/stolen.csv'",
    "ATTACH '{db}' AS rw (READ_WRITE)",
    "ATTACH '{folder}/other.duckdb' AS other",
    "SET enable_external_access = true",
    "SET lock_configuration = false",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SELECT * FROM 'https://example.org/x.csv'",
    "DROP TABLE mart_x",
    "DELETE FROM mart_x",
    "CREATE TABLE y AS SELECT 1",
    "EXPORT DATABASE '{folder}/dump'",
])
def test_the_adversary_is_refused(db, tmp_path, query):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    before = db.read_bytes()
    result = sql(db, query.format(secret=secret, folder=tmp_path, db=db))
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and SECRET not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert db.read_bytes() == before
    assert not (tmp_path / "stolen.csv").exists() and not (tmp_path / "dump").exists()


@pytest.mark.parametrize("query, hint", [
    ("SELECT * FROM mart_y", 'Did you mean "mart_x"?'),
    ("SELECT m FROM mart_x", 'Candidate bindings: "n"'),
])
def test_a_mistyped_name_gets_duckdbs_hint_in_its_one_line(db, query, hint):
    result = sql(db, query)
    assert result.exit_code == 1, result.output
    [line] = result.output.strip().splitlines()
    assert hint in line and line.startswith("Error: "), line


def test_allow_files_opens_a_folder_on_purpose(db, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "extra.csv").write_text("n,label\n1,one\n")
    query = f"SELECT label FROM read_csv('{shared}/extra.csv') JOIN mart_x USING (n)"
    assert sql(db, query).exit_code == 1
    allowed = sql(db, "--allow-files", str(shared), "--format", "csv", query)
    assert allowed.exit_code == 0 and allowed.output == "label\none\n"
    outside = sql(db, "--allow-files", str(shared), f"SELECT * FROM read_text('{db}')")
    assert outside.exit_code == 1


def test_a_missing_warehouse_is_an_error_not_an_empty_one(tmp_path):
    result = sql(tmp_path / "nope.duckdb", "SELECT 1")
    assert result.exit_code == 1 and "no such warehouse file" in result.output
    assert not (tmp_path / "nope.duckdb").exists()


def test_the_table_is_plain_aligned_and_capped(db):
    result = sql(db, "SELECT n, signature, ratio FROM mart_x ORDER BY n")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["n", "signature", "ratio"]
    assert len(lines) == 2 + 100  # header, rule, the first 100 rows
    assert "wer|method:m3|case:sensitive|align:sclite-3-3-4|markers:1db18e96|version:0.1.0+abcdef" \
        in lines[2]  # never cut nor wrapped
    assert "shape" not in result.stdout and "i64" not in result.stdout  # no Polars decorations
    assert "150 more row(s) not shown" in result.stderr
    assert len({len(line) for line in lines[:3]}) == 1  # aligned columns
    everything = sql(db, "--max-rows", "1000", "SELECT n FROM mart_x")
    assert len(everything.stdout.splitlines()) == 252 and "more row" not in everything.stderr


@pytest.mark.slow
def test_the_public_database_holds_only_what_was_published(tmp_path):
    from scorehouse.demo.campaign import write_demo_campaign
    from scorehouse.warehouse.pipeline import run

    camp = write_demo_campaign(tmp_path / "campaign", scale=0.03, parsing=False, coref=False,
                               terms=False, calls=False).parent
    out = tmp_path / "bulletins"
    assert run(camp, tmp_path / "w.duckdb", out, quiet=True).exit_code == 0
    public = tmp_path / "public.duckdb"
    result = CliRunner().invoke(main, ["public-db", str(out), str(public)])
    assert result.exit_code == 0, result.output
    con = duckdb.connect(str(public), read_only=True)
    try:
        names = [n for (n,) in con.execute("SELECT name FROM published_tables").fetchall()]
        assert "pos__pos_scores" in names
        text = " ".join(str(row) for name in names
                        for row in con.execute(f'SELECT * FROM "{name}"').fetchall())
    finally:
        con.close()
    assert "morpho-w" not in text  # withheld: not published, not exported
    assert "morpho-c" not in text and "P-" in text  # anonymous: under its code only
    # the rule of every command that writes an output (docs/guide.md): a previous output of its
    # own kind is replaced, anything else (the warehouse itself) is refused
    again = CliRunner().invoke(main, ["public-db", str(out), str(public)])
    assert again.exit_code == 0, again.output
    warehouse = (tmp_path / "w.duckdb").read_bytes()
    refused = CliRunner().invoke(main, ["public-db", str(out), str(tmp_path / "w.duckdb")])
    assert refused.exit_code == 1 and "not a public database" in refused.output
    assert (tmp_path / "w.duckdb").read_bytes() == warehouse
