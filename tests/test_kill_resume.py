"""A run killed with SIGKILL at a step boundary, then run again plainly, gives exactly what an
uninterrupted run gives: every int_, fct_, mart_ and hist_ table (run ids and timestamps aside)
and every published file, byte for byte; and readers never see a bulletin mixing two editions
(tests/helpers.py ``killed_then_resumed``).

The campaign is the demo's at a small scale (every family). ``SCOREHOUSE_CHECKPOINT_LOG`` lists
the step boundaries of an uninterrupted run (each committed transaction: a staged file, a unit, a
reduce; each page rendered; the edition written; the edition published); ``SCOREHOUSE_KILL_AT``
kills a run at one of them (warehouse/faults.py). Killing at every one of the ~190 boundaries
would take two hours, so this file kills at the first commit (a staged file), a third and two
thirds in (staging, units and reduces of several families) and the last commit;
tests/test_kill_resume_publish.py kills while the edition is published (a page, both sides of the
edition swap), tests/test_kill_resume_nights.py in a second night's run (its run number). Three
files: pytest-xdist hands out a file whole, and the kills are the suite's longest file else.
"""

from __future__ import annotations

import pytest
from helpers import killed_then_resumed

POINTS = ("first commit", "a third in", "two thirds in", "last commit")


@pytest.mark.slow
def test_there_are_boundaries_to_kill_at(uninterrupted):
    _, _, names, _, _ = uninterrupted
    assert names.count("edition published") == 1 and len(names) > 100


@pytest.mark.slow
@pytest.mark.parametrize("point", POINTS)
def test_a_killed_run_resumes_to_the_same_result(uninterrupted, tmp_path, point):
    killed_then_resumed(uninterrupted, tmp_path, point)
