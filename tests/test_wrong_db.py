"""A wrong ``--db`` is an error, never a silent takeover. Found by a new organiser:

- ``run --db pub.duckdb`` on the public database (``scorehouse public-db``) made it a warehouse:
  every system went into it, the withheld ones and the anonymous ones' ids included, beside its
  public tables (and any DuckDB file of other tables the same);
- a mistyped ``--db`` (a new, empty warehouse) published its own edition over the bulletins of
  the right warehouse, which then said "bulletins are up to date" and left them so.
"""

from __future__ import annotations

import subprocess

import duckdb
import pytest
from helpers import SCOREHOUSE, published, run

from scorehouse.warehouse.cli import EXIT_FAILURE


def _contents(db) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [n for (n,) in con.execute("SELECT table_name FROM information_schema.tables "
                                           "ORDER BY ALL").fetchall()]
        return {n: con.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        con.close()


@pytest.mark.slow
def test_a_public_database_or_a_foreign_one_is_not_made_a_warehouse(speech_campaign, tmp_path):
    from click.testing import CliRunner

    from scorehouse.warehouse.cli import main

    db, out = tmp_path / "w.duckdb", tmp_path / "bulletins"
    assert run(speech_campaign, db, out).returncode == 0
    public = tmp_path / "public.duckdb"
    assert CliRunner().invoke(main, ["public-db", str(out), str(public)]).exit_code == 0
    other = tmp_path / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE results AS SELECT 1 AS x")
    for given, said in ((public, "a public database (written by scorehouse public-db), not a "
                                 "warehouse"),
                        (other, "a DuckDB database of other tables (results), not a "
                                "scorehouse warehouse")):
        before = _contents(given)
        done = run(speech_campaign, given, tmp_path / f"out-{given.stem}")
        assert done.returncode == EXIT_FAILURE, done.stderr
        assert done.stderr == f"Error: {given}: {said}: give the --db that scorehouse run " \
                              f"created{', or a new file name' if given == other else ''}\n"
        assert _contents(given) == before  # not one table added, not one row
        assert not (tmp_path / f"{given.stem}.store").exists()


@pytest.mark.slow
def test_another_warehouse_is_refused_at_the_bulletins_of_one(speech_campaign, tmp_path):
    db, out = tmp_path / "w.duckdb", tmp_path / "bulletins"
    assert run(speech_campaign, db, out).returncode == 0
    pages = published(out)
    typo = tmp_path / "w2.duckdb"
    done = run(speech_campaign, typo, out)
    assert done.returncode == EXIT_FAILURE, done.stderr
    assert done.stderr == (f"Error: {out}: holds the bulletins of another warehouse than "
                           f"{typo}; give the --db that published them, or --force to publish "
                           "this warehouse's edition there instead\n")
    assert published(out) == pages and not typo.exists()  # nothing published, nothing made
    assert not (tmp_path / "w2.store").exists()
    assert run(speech_campaign, db, out).returncode == 0  # the right one: up to date

    # taken over on purpose (--force), the first warehouse is refused in turn, and puts its own
    # edition back with --force: the pages it published first, byte for byte
    assert run(speech_campaign, typo, out, "--force").returncode == 0
    done = run(speech_campaign, db, out)
    assert done.returncode == EXIT_FAILURE and f"another warehouse than {db};" in done.stderr
    assert run(speech_campaign, db, out, "--force").returncode == 0
    assert published(out) == pages

    # an edition for the participants (always rendered whole) is as much the warehouse's own
    adjudication = tmp_path / "adjudication"
    assert _report(speech_campaign, db, adjudication).returncode == 0
    done = _report(speech_campaign, typo, adjudication)
    assert done.returncode == EXIT_FAILURE and f"another warehouse than {typo};" in done.stderr


def _report(campaign, db, out):
    return subprocess.run([SCOREHOUSE, "report", str(campaign), "--db", str(db), "--out",
                           str(out), "--audience", "participants", "-q"], capture_output=True,
                          text=True, timeout=600)


def test_the_demo_takes_its_own_bulletins_back(tmp_path):
    """``scorehouse demo`` names its warehouse and bulletins itself, never mistyped: with its
    warehouse deleted to start afresh, it was refused its own bulletins (and told to use a
    --force it does not have). Its folder's token is dropped before it runs."""
    from scorehouse.demo.campaign import demo_folder
    from scorehouse.warehouse.publish import owner_file

    owner = owner_file(tmp_path / "bulletins")
    owner.write_text("0" * 32, encoding="ascii")  # a deleted demo warehouse's
    toml = demo_folder(tmp_path, 0.02, "en")
    assert toml == tmp_path / "campaign" / "campaign.toml" and toml.is_file()
    assert not owner.exists()
