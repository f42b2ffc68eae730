"""A run killed with SIGKILL at a step boundary, then run again plainly, gives exactly what an
uninterrupted run gives: every int_, fct_, mart_ and hist_ table (run ids and timestamps aside)
and every published file, byte for byte; and readers never see a bulletin mixing two editions.

The campaign is the demo's at a small scale (every family). ``SCOREHOUSE_CHECKPOINT_LOG`` lists
the step boundaries of an uninterrupted run (each committed transaction: a staged file, a unit, a
reduce; each page rendered; the edition written; the edition published); ``SCOREHOUSE_KILL_AT``
kills a run at one of them (warehouse/faults.py). Killing at every one of the ~190 boundaries
would take two hours, so the test kills at the first commit (a staged file), a third and two
thirds in (staging, units and reduces of several families), the last commit, a page, and both
sides of the edition swap.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from helpers import built_once, published, run, tables

from scorehouse.demo.campaign import write_demo_campaign

POINTS = (
    "first commit",
    "a third in",
    "two thirds in",
    "last commit",
    "a page",
    "edition written",
    "edition published",
)


def kill_point(names: list[str], point: str) -> int:
    """The 1-based boundary of the uninterrupted run's log named by ``point``."""
    commits = [i + 1 for i, n in enumerate(names) if n == "commit"]
    pages = [i + 1 for i, n in enumerate(names) if n.startswith("page ")]
    return {
        "first commit": commits[0],
        "a third in": commits[len(commits) // 3],
        "two thirds in": commits[2 * len(commits) // 3],
        "last commit": commits[-1],
        "a page": pages[len(pages) // 2],
        "edition written": names.index("edition written") + 1,
        "edition published": names.index("edition published") + 1,
    }[point]


def test_there_are_boundaries_to_kill_at(uninterrupted):
    _, _, names, _, _ = uninterrupted
    assert names.count("edition published") == 1 and len(names) > 100


@pytest.mark.slow
@pytest.mark.parametrize("point", POINTS)
def test_a_killed_run_resumes_to_the_same_result(uninterrupted, tmp_path, point):
    root, campaign, names, expected_tables, expected_files = uninterrupted
    at = kill_point(names, point)
    db, out = tmp_path / "b.duckdb", tmp_path / "b" / "bulletins"
    killed = run(campaign, db, out, SCOREHOUSE_KILL_AT=at)
    assert killed.returncode == -9, (
        f"not killed at boundary {at} ({names[at - 1]}): {killed.stderr}"
    )
    if out.exists():  # whatever a reader sees after the kill is one whole edition
        assert (out / "index.html").exists()
    again = run(campaign, db, out)
    assert again.returncode == 0, again.stderr
    got = tables(db)
    assert got.keys() == expected_tables.keys()
    for name in got:
        assert got[name] == expected_tables[name], (
            f"{name} differs after a kill at {at} ({names[at - 1]})"
        )
    assert published(out) == expected_files
    third = run(campaign, db, out)
    said = third.stdout + third.stderr
    assert "nothing changed" in said and "up to date" in said, said


# ------------------------------------------------ a killed run's number is the resumed run's


@pytest.fixture(scope="module")
def two_nights(tmp_path_factory):
    """Night 1 scores a campaign (speech and terminology); night 2 finds the terminology
    reference revised (ACTER v1.0 -> v1.1, as the demo's second run) and re-scores it,
    uninterrupted, its boundaries logged (built once per test run)."""
    from scorehouse.demo.terms import revise_terms_reference

    def build(root: Path) -> None:
        first = write_demo_campaign(root / "night1", scale=0.05, pos=False, parsing=False,
                                    coref=False, calls=False).parent
        shutil.copytree(first, root / "night2")
        revise_terms_reference(root / "night2")
        db, out = root / "a.duckdb", root / "a" / "bulletins"
        assert run(first, db, out).returncode == 0
        done = run(root / "night2", db, out, SCOREHOUSE_CHECKPOINT_LOG=root / "checkpoints.log")
        assert done.returncode == 0, done.stderr

    root = built_once(tmp_path_factory, "two-nights", build)
    names = [line.split("\t")[1] for line in (root / "checkpoints.log").read_text().splitlines()]
    return (root, root / "night1", root / "night2", names,
            tables(root / "a.duckdb", run_ids=True), published(root / "a" / "bulletins"))


@pytest.mark.slow
@pytest.mark.parametrize("point", ("a third in", "two thirds in"))
def test_a_killed_run_leaves_no_gap_in_the_run_numbers(two_nights, tmp_path, point):
    root, first, second, names, expected_tables, expected_files = two_nights
    changes = expected_files["terms/index.html"].decode()
    assert "1 → 2" in changes  # the page's changes since the previous scoring
    db, out = tmp_path / "b.duckdb", tmp_path / "b" / "bulletins"
    assert run(first, db, out).returncode == 0
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
