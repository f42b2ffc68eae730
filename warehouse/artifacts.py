"""Fingerprinted artifacts beyond the units: per-corpus (or per-task) reduces.

A unit records what it was computed from in ``cat_scoring``, in the transaction that writes its
rows. A reduce (intervals, paired tests, consensus, corpus tables) is computed from the units of
its corpus, the campaign's seed and resample count, the task's options and the family's code: it
records that fingerprint in ``cat_artifact`` in the transaction that writes its output. So a
run decides what is stale from what is recorded, never from what it did itself: a run killed
between a unit and its corpus's reduce, then run again, recomputes the reduce; a seed change
recomputes every reduce and no unit; nothing changed, nothing runs.
"""

from __future__ import annotations

import logging
from time import perf_counter
from typing import Callable

from scorehouse.warehouse import logs
from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext, fingerprint, transaction


def artifact_states(con, campaign: str, kind: str) -> dict[str, str]:
    """key -> recorded state of every artifact of ``kind`` ('reduce' or 'page')."""
    rows = con.execute(
        "SELECT key, state FROM cat_artifact WHERE campaign = ? AND kind = ?", [campaign, kind]
    )
    return dict(rows.fetchall())


def record_artifact(ctx: RunContext, kind: str, key: str, state: str) -> None:
    """Record an artifact as done; call it inside the transaction that writes its output. Its
    old row deleted, then the new one inserted: an ``INSERT OR REPLACE`` of one row cost 6.1 ms
    in a small run, the two statements 3.0 (DuckDB's conflict check; bench/statements_bench.py)."""
    ids = [ctx.campaign.id, kind, key]
    ctx.con.execute("DELETE FROM cat_artifact WHERE campaign = ? AND kind = ? AND key = ?", ids)
    ctx.con.execute("INSERT INTO cat_artifact VALUES (?, ?, ?, ?, ?)", [*ids, state, ctx.run_id])


def unit_states(
    con, campaign: str, task: str, corpus: str | None = None
) -> list[tuple[str, str, str]]:
    """``(corpus, system, state)`` of the current units of a task (of one corpus when given),
    sorted: what a reduce over them is computed from."""
    rows = con.execute(
        "SELECT corpus, system, state FROM cat_scoring WHERE campaign = ? AND task = ? "
        "AND (corpus = ? OR ? IS NULL) ORDER BY corpus, system",
        [campaign, task, corpus, corpus],
    )
    return rows.fetchall()


def _reduce_state(ctx: RunContext, task: Task, corpus: str | None, name: str, code: str,
                  extra: dict | None, of_units: bool) -> tuple[str, str]:
    """A reduce's key and the fingerprint of what it is computed from (:func:`reduce`)."""
    recorded = {
        "units": unit_states(ctx.con, ctx.campaign.id, task.id, corpus),
        "name": name,
        "seed": ctx.campaign.seed,
        "resamples": ctx.campaign.bootstrap,
        "code": code,
        "options": task.options,
        "extra": extra or {},
    }
    if not of_units:  # nor drawn from the seed
        recorded = {k: v for k, v in recorded.items() if k not in ("units", "seed", "resamples")}
    return f"{task.id}/{'' if corpus is None else corpus}/{name}", fingerprint(recorded)


def pending(ctx: RunContext, task: Task, corpus: str | None, name: str, code: str,
            force: bool = False, extra: dict | None = None, of_units: bool = True) -> bool:
    """Whether :func:`reduce` with these arguments would run now (what it is computed from
    changed since it last completed, or ``force``): for work started ahead of it."""
    key, state = _reduce_state(ctx, task, corpus, name, code, extra, of_units)
    return force or artifact_states(ctx.con, ctx.campaign.id, "reduce").get(key) != state


def reduce(
    ctx: RunContext,
    task: Task,
    corpus: str | None,
    name: str,
    compute: Callable[[], None],
    code: str,
    force: bool = False,
    extra: dict | None = None,
    of_units: bool = True,
) -> bool:
    """Run ``compute`` (which replaces the reduce's rows) when what the reduce ``name`` of
    ``task`` and ``corpus`` (None: the whole task) is computed from changed since it last
    completed, and record its new state in the same transaction. ``code``: the family's code
    version; ``extra``: anything else it depends on; ``of_units`` False: a table derived from
    the inputs ``extra`` names alone (a reference's ranges), which neither a changed unit nor
    the seed touches. Returns whether it ran, and logs (a debug event ``reduce``: in
    ``--log-json``) how long it took."""
    key, state = _reduce_state(ctx, task, corpus, name, code, extra, of_units)
    if not force and artifact_states(ctx.con, ctx.campaign.id, "reduce").get(key) == state:
        return False
    from scorehouse.warehouse.runs import step

    start = perf_counter()
    with step(ctx, "reduce"), transaction(ctx.con):
        compute()
        record_artifact(ctx, "reduce", key, state)
    seconds = round(perf_counter() - start, 3)
    where = f"{task.id}/{name}" if corpus is None else key  # the whole task's: no corpus
    logs.event("reduce", f"reduced {where} ({seconds:.1f} s)", logging.DEBUG, task=task.id,
               corpus=corpus or "", reduce=name, seconds=seconds)
    return True
