"""A run killed with SIGKILL while it publishes its edition (halfway through the pages, the
edition written, the edition published: both sides of the swap), then run again plainly, gives
exactly what an uninterrupted run gives, tables and published bytes alike; a reader after the kill
sees one whole edition (tests/helpers.py ``killed_then_resumed``; tests/test_kill_resume.py kills
while the demo is scored).

Every one of these kills comes after the last commit, so the killed run scores the whole campaign
first: the campaign is the demo's speech, time-marked speech and POS tasks (three pages and the
front page; 5 s of CPU a run instead of the whole demo's 20), built uninterrupted once per test
run, its boundaries logged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import boundaries, built_once, killed_then_resumed, published, run, tables

from scorehouse.demo.campaign import write_demo_campaign

POINTS = ("a page", "edition written", "edition published")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """The campaign run uninterrupted, as conftest.py ``uninterrupted``."""

    def build(root: Path) -> None:
        campaign = write_demo_campaign(root / "campaign", scale=0.05, parsing=False,
                                       coref=False, terms=False).parent
        done = run(campaign, root / "w.duckdb", root / "out",
                   SCOREHOUSE_CHECKPOINT_LOG=root / "checkpoints.log")
        assert done.returncode == 0, done.stderr

    root = built_once(tmp_path_factory, "publish-kills", build)
    return (root, root / "campaign", boundaries(root / "checkpoints.log"),
            tables(root / "w.duckdb"), published(root / "out"))


@pytest.mark.slow
def test_there_are_pages_to_kill_between(uninterrupted):
    _, _, names, _, files = uninterrupted
    assert sum(n.startswith("page ") for n in names) >= 3 and "index.html" in files


@pytest.mark.slow
@pytest.mark.parametrize("point", POINTS)
def test_a_run_killed_while_publishing_resumes_to_the_same_result(uninterrupted, tmp_path, point):
    killed_then_resumed(uninterrupted, tmp_path, point)
