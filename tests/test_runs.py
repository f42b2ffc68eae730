"""Runs accounted for (warehouse/runs.py, `scorehouse runs`): each step's duration recorded; a
run killed part-way is seen as abandoned, then marked so by the next run, which resumes its
number; the history in the `sql` command's formats."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess

import duckdb
import pytest
from click.testing import CliRunner
from helpers import SCOREHOUSE, run

from scorehouse.demo.campaign import write_demo_campaign
from scorehouse.warehouse.cli import main


def history(db, fmt: str = "json"):
    out = CliRunner().invoke(main, ["runs", "--db", str(db), "--format", fmt])
    assert out.exit_code == 0, out.output
    return json.loads(out.output) if fmt == "json" else out.output


@pytest.mark.slow
def test_runs_are_accounted_for(tmp_path):
    camp = write_demo_campaign(tmp_path / "campaign", scale=0.03, pos=False, parsing=False,
                               coref=False, terms=False, calls=False).parent
    db, out = tmp_path / "w.duckdb", tmp_path / "bulletins"
    assert run(camp, db, out).returncode == 0
    first = history(db)
    assert [(r["run"], r["status"], r["rejected"]) for r in first] == [(1, "ok", 0)]
    assert first[0]["loaded"] > 0 and first[0]["scored"] > 0 and first[0]["seconds"] >= 0
    con = duckdb.connect(str(db), read_only=True)
    steps = json.loads(con.execute("SELECT steps FROM cat_run").fetchone()[0])
    con.close()
    assert list(steps) == ["load", "score", "reduce", "report"]
    assert all(seconds >= 0 for seconds in steps.values())
    # forced, killed at its third boundary (its declarations, its units, a reduce)
    killed = subprocess.run([SCOREHOUSE, "run", str(camp), "--db", str(db), "--out", str(out),
                             "-q", "--force"], env={**os.environ, "SCOREHOUSE_KILL_AT": "3"},
                            capture_output=True, timeout=600)
    assert killed.returncode == -9
    seen = history(db)[-1]  # not marked yet (read-only), but no run holds the warehouse
    assert (seen["run"], seen["status"]) == (2, "abandoned")
    assert seen["note"].startswith("stopped in the score step after 0 file(s) loaded")
    again = run(camp, db, out)
    assert again.returncode == 0 and again.stderr.startswith("run 2:"), again.stderr
    runs = history(db)
    assert [(r["run"], r["status"]) for r in runs] == [(1, "ok"), (2, "abandoned"), (2, "ok")]
    assert runs[1]["note"] == seen["note"] and runs[2]["note"] == ""
    rows = list(csv.DictReader(io.StringIO(history(db, "csv"))))
    assert [r["status"] for r in rows] == ["ok", "abandoned", "ok"]
    table = history(db, "table").splitlines()
    assert table[0].split()[:3] == ["run", "command", "status"] and len(table) == 5
