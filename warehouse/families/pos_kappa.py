"""Cohen's kappa between every two systems of a POS corpus (``int_pos_kappa_pair``, shown by
``mart_pos_kappa_pairs``), a corpus reduce kept between runs: each pair records the unit states
of its two systems, so after a changed submission only the pairs of the changed system are
computed again (the others are the same rows, from the same cases).

kappa = (p_o - p_e) / (1 - p_e) on the reference units both systems tag strictly (absolute
evaluation, one projected tag): p_o the share of those units on which they agree, p_e the sum
over tags of the product of their two counts over the square of the units (Cohen, "A
Coefficient of Agreement for Nominal Scales", 1960). Each system's strict tags are read once, as
integer codes per reference unit, and the pairs are counted in NumPy (one comparison and two
bincounts a pair), not by joining every system's cases with every other's."""

from __future__ import annotations

import numpy as np
import polars as pl

from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext
from scorehouse.warehouse.db import frame, insert_rows

_KEY = "campaign = $campaign AND task = $task AND corpus = $corpus"
# each system's strict cases: the one tag it projects on a reference unit
_STRICT = f"""
    SELECT system, ref_unit, projected[1] AS tag
    FROM int_pos_case
    WHERE evaluation = 'absolute' AND noneval IS NULL AND len(projected) = 1 AND {_KEY}"""


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
        rows = [[*key.values(), a, b, states.get(a), states.get(b), *figures]
                for a, b, figures in pairs(frame(con, _STRICT, key), changed)]
        insert_rows(con, "INSERT INTO int_pos_kappa_pair VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rows)
    return changed


def pairs(strict: pl.DataFrame, systems: list[str]) -> list[tuple[str, str, tuple]]:
    """``(system_a, system_b, (cases, p_o, p_e, kappa))`` of every pair (a < b) with a system of
    ``systems`` and at least one reference unit both tag strictly; ``strict``: (system,
    ref_unit, tag), one row per system and unit. The figures are DuckDB's for the same sums:
    integer counts, then each ratio of two doubles (kappa None when p_e = 1)."""
    if not strict.height:
        return []
    units = int(strict["ref_unit"].max()) + 1
    coded = strict.select("system", "ref_unit",
                          pl.col("tag").cast(pl.Categorical).to_physical().alias("code"))
    tags = int(coded["code"].max()) + 1
    vectors = {}  # system -> its tag code on each reference unit (-1: not strict)
    for (system,), rows in coded.partition_by("system", as_dict=True).items():
        vector = np.full(units, -1, dtype=np.int32)
        vector[rows["ref_unit"].to_numpy()] = rows["code"].to_numpy()
        vectors[system] = vector
    out = []
    for a, b in sorted({tuple(sorted((s, o))) for s in systems if s in vectors
                        for o in vectors if o != s}):
        both = (vectors[a] >= 0) & (vectors[b] >= 0)
        x, y = vectors[a][both], vectors[b][both]
        cases = len(x)
        if not cases:
            continue
        p_o = float(np.count_nonzero(x == y)) / float(cases)
        expected = int(np.dot(np.bincount(x, minlength=tags), np.bincount(y, minlength=tags)))
        p_e = float(expected) / float(cases * cases)
        kappa = (p_o - p_e) / (1 - p_e) if 1 - p_e != 0 else None
        out.append((a, b, (cases, p_o, p_e, kappa)))
    return out
