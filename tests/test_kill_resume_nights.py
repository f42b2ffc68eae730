"""A killed run's number is the resumed run's: night 1 scores a campaign, night 2's run (the
terminology reference revised) is killed at a step boundary and run again plainly, and the
warehouse numbers its rows as one uninterrupted night 2 would, its tables (run ids included) and
published files those of the uninterrupted nights; the killed attempt is listed apart
(tests/test_kill_resume.py kills a first run).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from helpers import boundaries, built_once, copy_warehouse, kill_point, published, run, tables

from scorehouse.demo.campaign import write_demo_campaign


@pytest.fixture(scope="module")
def two_nights(tmp_path_factory):
    """Night 1 scores a campaign (speech and terminology): its warehouse ``n1.duckdb`` and its
    bulletins' folder ``n1/`` are kept; night 2, in a copy of them, finds the terminology
    reference revised (ACTER v1.0 -> v1.1, as the demo's second run) and re-scores it,
    uninterrupted, its boundaries logged (built once per test run). A test starts its own night 2
    from a copy of night 1 (:func:`after_night_one`) instead of scoring night 1 again."""
    from scorehouse.demo.terms import revise_terms_reference

    def build(root: Path) -> None:
        first = write_demo_campaign(root / "night1", scale=0.05, pos=False, parsing=False,
                                    coref=False, calls=False).parent
        shutil.copytree(first, root / "night2")
        revise_terms_reference(root / "night2")
        assert run(first, root / "n1.duckdb", root / "n1" / "bulletins").returncode == 0
        db, out = after_night_one(root, root / "a.duckdb")
        done = run(root / "night2", db, out, SCOREHOUSE_CHECKPOINT_LOG=root / "checkpoints.log")
        assert done.returncode == 0, done.stderr

    root = built_once(tmp_path_factory, "two-nights", build)
    return (root, root / "night1", root / "night2", boundaries(root / "checkpoints.log"),
            tables(root / "a.duckdb", run_ids=True), published(root / "a" / "bulletins"))


def after_night_one(root: Path, db: Path) -> tuple[Path, Path]:
    """A copy of night 1's warehouse as ``db`` and of its bulletins' folder (the editions and
    the link to the published one) beside it: ``(db, its bulletins)``, as night 1 run into
    ``db`` leaves them."""
    copy_warehouse(root / "n1.duckdb", db)
    shutil.copytree(root / "n1", db.with_suffix(""), symlinks=True)
    return db, db.with_suffix("") / "bulletins"


@pytest.mark.slow
@pytest.mark.parametrize("point", ("a third in", "two thirds in"))
def test_a_killed_run_leaves_no_gap_in_the_run_numbers(two_nights, tmp_path, point):
    root, _, second, names, expected_tables, expected_files = two_nights
    changes = expected_files["terms/index.html"].decode()
    assert "1 → 2" in changes  # the page's changes since the previous scoring
    db, out = after_night_one(root, tmp_path / "b.duckdb")
    at = kill_point(names, point)
    assert run(second, db, out, SCOREHOUSE_KILL_AT=at).returncode == -9
    again = run(second, db, out)
    assert again.returncode == 0 and again.stderr.startswith("run 2:"), again.stderr
    got = tables(db, run_ids=True)
    for name in got:  # run ids included: the resumed run took the killed run's number
        assert got[name] == expected_tables[name], f"{name} differs after a kill at {at}"
    assert published(out) == expected_files
    con = duckdb.connect(str(db), read_only=True)
    try:
        runs = con.execute("SELECT run_id, status FROM cat_run ORDER BY run_id").fetchall()
        attempts = con.execute("SELECT run_id, status, boundary FROM cat_run_attempt").fetchall()
    finally:
        con.close()
    assert runs == [(1, "ok"), (2, "ok")]
    assert [a[:2] for a in attempts] == [(2, "abandoned")]
    assert attempts[0][2].startswith("stopped in the ") and "unit(s) scored" in attempts[0][2]
