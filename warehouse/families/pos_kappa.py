"""Cohen's kappa between every two systems of a POS corpus (``int_pos_kappa_pair``, shown by
``mart_pos_kappa_pairs``), a corpus reduce kept between runs: each pair records the unit states
of its two systems, so after a changed submission only the pairs of the changed system are
computed again (the others are the same rows, from the same cases).

kappa = (p_o - p_e) / (1 - p_e) on the reference units both systems tag strictly (absolute
evaluation, one projected tag): p_o the share of those units on which they agree, p_e the sum
over tags of the product of their two counts over the square of the units (Cohen, "A
Coefficient of Agreement for Nominal Scales", 1960). Each system's strict tags are read once, as
integer codes per reference unit (in one pass over their cases, a batch at a time: the
coordinator never holds every system's cases), and the pairs are counted in NumPy (one
comparison and two bincounts a pair), not by joining every system's cases with every
other's."""

from __future__ import annotations

import numpy as np
import polars as pl

from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext
from scorehouse.warehouse.db import insert_rows

_KEY = "campaign = $campaign AND task = $task AND corpus = $corpus"
# the systems' strict cases: the one tag each projects on a reference unit
_STRICT = f"""
    SELECT system, ref_unit, projected[1] AS tag
    FROM int_pos_case
    WHERE evaluation = 'absolute' AND noneval IS NULL AND len(projected) = 1 AND {_KEY}"""
BATCH = 1_000_000  # strict cases read at a time


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
        codes: dict[str, int] = {}
        vectors = tag_codes(con.sql(_STRICT, params=key).to_arrow_reader(BATCH), codes)
        rows = [[*key.values(), a, b, states.get(a), states.get(b), *figures]
                for a, b, figures in pairs(vectors, changed, len(codes))]
        insert_rows(con, "INSERT INTO int_pos_kappa_pair VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rows)
    return changed


def tag_codes(batches, codes: dict[str, int]) -> dict[str, np.ndarray]:
    """Each system's tag code on each reference unit (-1: not a strict case) from batches of
    strict cases (system, ref_unit, tag); ``codes`` gives each tag its code, new tags added."""
    vectors: dict[str, np.ndarray] = {}
    for batch in batches:
        rows = pl.from_arrow(batch)
        for tag in rows["tag"].unique().sort().to_list():
            codes.setdefault(tag, len(codes))
        rows = rows.with_columns(pl.col("tag").replace_strict(codes, return_dtype=pl.Int32))
        for (system,), part in rows.partition_by("system", as_dict=True).items():
            units = part["ref_unit"].to_numpy()
            vector = vectors.get(system, np.empty(0, dtype=np.int32))
            if units.max() >= len(vector):
                vector = np.concatenate([vector, np.full(units.max() + 1 - len(vector), -1,
                                                         dtype=np.int32)])
            vector[units] = part["tag"].to_numpy()
            vectors[system] = vector
    return vectors


def pairs(vectors: dict[str, np.ndarray], systems: list[str],
          tags: int) -> list[tuple[str, str, tuple]]:
    """``(system_a, system_b, (cases, p_o, p_e, kappa))`` of every pair (a < b) with a system of
    ``systems`` and at least one reference unit both tag strictly; ``vectors``: each system's
    :func:`tag_codes` (``tags`` codes in all). The figures are DuckDB's for the same sums:
    integer counts, then each ratio of two doubles (kappa None when p_e = 1)."""
    out = []
    for a, b in sorted({tuple(sorted((s, o))) for s in systems if s in vectors
                        for o in vectors if o != s}):
        n = min(len(vectors[a]), len(vectors[b]))
        both = (vectors[a][:n] >= 0) & (vectors[b][:n] >= 0)
        x, y = vectors[a][:n][both], vectors[b][:n][both]
        cases = len(x)
        if not cases:
            continue
        p_o = float(np.count_nonzero(x == y)) / float(cases)
        expected = int(np.dot(np.bincount(x, minlength=tags), np.bincount(y, minlength=tags)))
        p_e = float(expected) / float(cases * cases)
        kappa = (p_o - p_e) / (1 - p_e) if 1 - p_e != 0 else None
        out.append((a, b, (cases, p_o, p_e, kappa)))
    return out
