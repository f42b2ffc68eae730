"""Runs accounted for: each run's number, its steps' durations, and the runs that did not finish.

A run's number (``cat_run.run_id``) keys everything it writes: its staged input versions
(``cat_input``), its units' states (``cat_scoring``) and history rows (``hist_*``), its reduces
and pages (``cat_artifact``), its edition folder. A run killed part-way (``kill -9``, a lost
machine, a cluster gone) has committed some of that under its number, and the next plain run
finishes the work. So that the result is the uninterrupted run's everywhere, run numbers included
(the terminology page's "changes since the previous scoring" says ``1 → 2``, not ``1 → 3``), the
next run of the campaign **resumes the number** of a run that stopped before finishing:

- a run still ``running`` when the next one starts is dead (the next one holds the warehouse's
  lock): it is marked ``abandoned``, with where it stopped (:func:`boundary`: its step, what it
  had committed, its last commit's time);
- if the campaign's latest run is ``abandoned`` or ``failed``, its row moves to
  ``cat_run_attempt`` (the attempts of a number that did not finish) and the new run takes its
  number; otherwise the new run takes the next number.

Each run records how long each step took (``cat_run.steps``: load, score, reduce, report, in
seconds; a reduce's time is counted in ``reduce``, not in the ``score`` step that runs it), step by
step, so an abandoned run shows how far it got. ``scorehouse runs`` lists the history
(:func:`history`).
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from time import perf_counter

import duckdb
import polars as pl

from scorehouse.warehouse import __version__
from scorehouse.warehouse.db import frame, one

UNFINISHED = ("abandoned", "failed")


def open_run(con: duckdb.DuckDBPyConnection, campaign: str, command: str, started) -> tuple[
        int, bool]:
    """Mark the dead runs ``abandoned`` and open this run's row: ``(run_id, resumed)``,
    ``resumed`` when it takes over the number of the campaign's unfinished latest run. Call it
    inside a transaction."""
    for (dead,) in con.execute("SELECT run_id FROM cat_run WHERE status = 'running'").fetchall():
        loaded, scored, rejected = _committed(con, dead)
        con.execute("UPDATE cat_run SET status = 'abandoned', loaded = ?, scored = ?, "
                    "rejected = ?, boundary = ? WHERE run_id = ?",
                    [loaded, scored, rejected, boundary(con, dead), dead])
    latest = one(con, "SELECT run_id, status FROM cat_run WHERE campaign = ? "
                      "ORDER BY run_id DESC LIMIT 1", [campaign])
    values = [command, __version__, started, duckdb.__version__]
    if latest is not None and latest[1] in UNFINISHED:
        con.execute("INSERT INTO cat_run_attempt BY NAME SELECT * FROM cat_run WHERE run_id = ?",
                    [latest[0]])
        con.execute("UPDATE cat_run SET command = ?, code_version = ?, started_at = ?, "
                    "duckdb_version = ?, finished_at = NULL, status = 'running', loaded = 0, "
                    "scored = 0, rejected = 0, message = NULL, steps = NULL, boundary = NULL "
                    "WHERE run_id = ?", [*values, latest[0]])
        return latest[0], True
    run_id = one(con, "SELECT coalesce(max(run_id), 0) + 1 FROM cat_run")[0]
    con.execute("INSERT INTO cat_run (run_id, campaign, command, code_version, started_at, status, "
                "duckdb_version) VALUES (?, ?, ?, ?, ?, 'running', ?)",
                [run_id, campaign, command, __version__, started, duckdb.__version__])
    return run_id, False


def _committed(con, run_id: int) -> tuple[int, int, int]:
    """What a run committed before it stopped: files loaded, units scored, files rejected."""
    loaded, rejected = one(con, "SELECT count(*) FILTER (status = 'accepted'), "
                                "count(*) FILTER (status = 'rejected') FROM cat_input "
                                "WHERE run_id = ?", [run_id])
    scored = one(con, "SELECT count(*) FROM cat_scoring WHERE run_id = ?", [run_id])[0]
    return loaded, scored, rejected


def boundary(con, run_id: int) -> str:
    """Where a run that did not finish stopped: its step, what it had committed, and when."""
    steps = json.loads(one(con, "SELECT coalesce(steps::VARCHAR, '{}') FROM cat_run "
                                "WHERE run_id = ?", [run_id])[0])
    step = next((name for name, seconds in steps.items() if seconds is None), None)
    loaded, scored, rejected = _committed(con, run_id)
    reduces, pages = one(con, "SELECT count(*) FILTER (kind = 'reduce'), "
                              "count(*) FILTER (kind = 'page') FROM cat_artifact "
                              "WHERE run_id = ?", [run_id])
    last = one(con, "SELECT date_trunc('second', max(t)) FROM (SELECT max(seen_at) AS t "
                    "FROM cat_input WHERE run_id = $r UNION ALL SELECT max(scored_at) "
                    "FROM cat_scoring WHERE run_id = $r)",
               {"r": run_id})[0]
    done = (f"{loaded} file(s) loaded, {rejected} rejected, {scored} unit(s) scored, "
            f"{reduces} reduce(s) and {pages} page(s) committed")
    return (f"stopped {f'in the {step} step' if step else 'before its first step'} after "
            f"{done}" + (f"; last commit at {last}" if last else ""))


@contextmanager
def step(ctx, name: str):
    """Time the step ``name`` of the run ``ctx`` into ``ctx.steps`` (seconds). A step inside
    another (a reduce within the score step) counts in its own name, not in the outer one's. A
    top-level step is recorded in ``cat_run.steps`` as it starts (with no duration yet) and as
    it ends, so a run killed in it says where it was."""
    top = not ctx.timing
    ctx.timing.append(0.0)  # time spent in inner steps
    ctx.steps.setdefault(name, 0.0)  # steps listed in the order they started
    if top:
        _record(ctx, {**ctx.steps, name: None})
    start = perf_counter()
    try:
        yield
    finally:
        elapsed = perf_counter() - start
        inner = ctx.timing.pop()
        ctx.steps[name] = round(ctx.steps.get(name, 0.0) + elapsed - inner, 3)
        if ctx.timing:
            ctx.timing[-1] += elapsed
        else:
            _record(ctx, ctx.steps)


def _record(ctx, steps: dict) -> None:
    if ctx.con is not None:
        ctx.con.execute("UPDATE cat_run SET steps = ? WHERE run_id = ?",
                        [json.dumps(steps), ctx.run_id])


def history(con) -> pl.DataFrame:
    """Every run, and every attempt of a number that did not finish, oldest first: number,
    command, status (a run still marked ``running`` when the warehouse can be opened is dead:
    ``abandoned``), start, duration, files loaded, units scored, files rejected, step durations
    and, for a run that did not finish, where it stopped or why it failed."""
    try:
        rows = frame(con, "SELECT *, 1 AS final FROM cat_run UNION ALL BY NAME "
                          "SELECT *, 0 AS final FROM cat_run_attempt ORDER BY run_id, final, "
                          "started_at")
    except duckdb.CatalogException:  # a warehouse made before cat_run_attempt
        rows = frame(con, "SELECT *, 1 AS final FROM cat_run ORDER BY run_id")
    out = []
    for r in rows.iter_rows(named=True):
        status, note = r["status"], r.get("boundary") or r["message"] or ""
        if status == "running":
            status, note = "abandoned", boundary(con, r["run_id"])
            r = {**r, **dict(zip(("loaded", "scored", "rejected"), _committed(con, r["run_id"])))}
        finished, started = r["finished_at"], r["started_at"]
        steps = json.loads(r["steps"]) if r.get("steps") else {}
        out.append({
            "run": r["run_id"], "command": r["command"], "status": status,
            "started": str(started),
            "seconds": (finished - started).total_seconds() if finished else None,
            "loaded": r["loaded"], "scored": r["scored"], "rejected": r["rejected"],
            "steps": ", ".join(f"{k} {v:.1f}s" for k, v in steps.items() if v is not None),
            "note": note})
    schema = {"run": pl.Int64, "command": pl.String, "status": pl.String, "started": pl.String,
              "seconds": pl.Float64, "loaded": pl.Int64, "scored": pl.Int64,
              "rejected": pl.Int64, "steps": pl.String, "note": pl.String}
    return pl.DataFrame(out, schema=schema)
