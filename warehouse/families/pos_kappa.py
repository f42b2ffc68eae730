"""Cohen's kappa between every two systems of a POS corpus (``int_pos_kappa_pair``, shown by
``mart_pos_kappa_pairs``), a corpus reduce kept between runs: each pair records the unit states
of its two systems, so after a changed submission only the pairs of the changed system are
computed again (the others are the same rows, from the same cases)."""

from __future__ import annotations

from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext
from scorehouse.warehouse.db import build

_KEY = "campaign = $campaign AND task = $task AND corpus = $corpus"


def kappa_pairs(ctx: RunContext, task: Task, corpus: str, force: bool = False) -> list[str]:
    """Bring the pairs of a corpus up to date (inside the reduce's transaction); returns the
    systems whose pairs were computed again."""
    con = ctx.con
    key = {"campaign": ctx.campaign.id, "task": task.id, "corpus": corpus}
    states = dict(con.execute(f"SELECT system, state FROM cat_scoring WHERE {_KEY}",
                              key).fetchall())
    kept = {(a, b): (sa, sb) for a, b, sa, sb in con.execute(
        f"SELECT system_a, system_b, state_a, state_b FROM int_pos_kappa_pair WHERE {_KEY}",
        key).fetchall()}
    seen: dict[str, set] = {}
    for (a, b), (sa, sb) in kept.items():
        seen.setdefault(a, set()).add(sa)
        seen.setdefault(b, set()).add(sb)
    # a system is changed unless every pair of it holds its current state
    changed = sorted(s for s in states if force or seen.get(s) != {states[s]})
    gone = sorted(set(seen) - set(states))
    if changed or gone:
        con.execute(f"DELETE FROM int_pos_kappa_pair WHERE {_KEY} AND (list_contains($drop, "
                    "system_a) OR list_contains($drop, system_b))", {**key, "drop": changed + gone})
    if changed:
        build(con, "pos", "int_pos_kappa_pair", systems=changed, **key)
    return changed
