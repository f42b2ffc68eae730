"""The unit runner (warehouse/runner.py): the same campaign computed in this process and in
worker processes gives the same tables and the same published bytes; a unit rejected inside a
worker is a rejection like any other, and the rest is scored.

The campaign is the demo's at a small scale, holding every family. Run ids and timestamps aside,
every int_, fct_, mart_ and hist_ table is compared row for row, and every published file byte
for byte.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from test_kill_resume import published, tables

from warehouse.demo import write_demo_campaign
from warehouse.pipeline import run
from warehouse.runner import workers_default


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    return write_demo_campaign(tmp_path_factory.mktemp("runner") / "campaign", scale=0.1).parent


@pytest.mark.slow
def test_workers_give_identical_results(campaign, tmp_path):
    results = {}
    for workers in (1, 2):
        db, out = tmp_path / f"w{workers}.duckdb", tmp_path / f"w{workers}" / "bulletins"
        done = run(campaign, db, out, quiet=True, workers=workers)
        assert done.exit_code == 0 and done.scored > 50
        results[workers] = tables(db), published(out)
    assert results[1][0].keys() == results[2][0].keys()
    for name in results[1][0]:
        assert results[1][0][name] == results[2][0][name], name
    assert results[1][1] == results[2][1]


def test_a_unit_rejected_in_a_worker_is_a_rejection(tmp_path):
    source = write_demo_campaign(
        tmp_path / "src", scale=0.03, pos=False, parsing=False, coref=False, terms=False
    ).parent
    camp = tmp_path / "campaign"
    shutil.copytree(source, camp)
    db = tmp_path / "w.duckdb"
    first = run(camp, db, None, quiet=True, workers=2)
    assert first.exit_code == 0
    # the reference loses an utterance: the unchanged hypotheses now name an id it lacks, which
    # the unit's compute (in a worker) finds
    reference = camp / "references" / "Test_I.trn"
    lines = reference.read_text(encoding="utf-8").splitlines(keepends=True)
    dropped = lines[-1].rsplit("(", 1)[1].split(")")[0]
    reference.write_text("".join(lines[:-1]), encoding="utf-8")
    second = run(camp, db, None, quiet=True, workers=2)
    having = [
        p for p in (camp / "submissions").glob("*/Test_I.trn") if f"({dropped})" in p.read_text()
    ]
    assert second.exit_code == 2 and len(second.rejections) == len(having) > 0
    assert all(dropped in r and "utterance ids of the reference" in r for r in second.rejections)
    assert second.scored == 0  # the other corpora's units are not stale; Test_I's are rejected


def test_workers_setting(monkeypatch):
    monkeypatch.delenv("SCOREHOUSE_WORKERS", raising=False)
    assert workers_default() == 1
    monkeypatch.setenv("SCOREHOUSE_WORKERS", "3")
    assert workers_default() == 3
    monkeypatch.setenv("SCOREHOUSE_WORKERS", "all")
    with pytest.raises(ValueError, match="SCOREHOUSE_WORKERS must be a positive integer"):
        workers_default()
