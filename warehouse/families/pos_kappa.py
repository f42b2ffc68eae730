"""Cohen's kappa between every two systems of a POS corpus (``int_pos_kappa_pair``, shown by
``mart_pos_kappa_pairs``), a corpus reduce kept between runs: each pair records the unit states
of its two systems, so after a changed submission only the pairs of the changed system are
computed again (the others are the same rows, from the same cases).

kappa = (p_o - p_e) / (1 - p_e) on the reference units both systems tag strictly (absolute
evaluation, one projected tag): p_o the share of those units on which they agree, p_e the sum
over tags of the product of their two counts over the square of the units (Cohen, "A
Coefficient of Agreement for Nominal Scales", 1960). Each system's strict tags are integer
codes per reference unit, kept (``int_pos_kappa_vector``) under the unit state they come from:
each unit writes its own as it is computed, from its cases in memory (:func:`unit_vector`).
The pairs are counted in NumPy (one comparison and two bincounts a pair), not by joining every
system's cases with every other's. Under ``--force``, or for a vector missing or of another
state, the reduce reads the system's strict cases instead, in one pass, a batch at a time (the
coordinator never holds every system's cases). The figures depend on which units carry equal
tags, not on the codes."""

from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa

from scorehouse.warehouse.campaign import Task
from scorehouse.warehouse.catalog import RunContext
from scorehouse.warehouse.db import insert_rows, keyed

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
    _forget(con, key, [s for (s,) in con.execute(
        f"SELECT system FROM int_pos_kappa_vector WHERE {_KEY}", key).fetchall()
        if s not in states])  # the kept vectors of systems no longer scored
    if changed:
        codes: dict[str, int] = {}
        vectors = _vectors(con, key, states, force, codes)
        rows = [[*key.values(), a, b, states.get(a), states.get(b), *figures]
                for a, b, figures in pairs(vectors, changed, len(codes))]
        insert_rows(con, "INSERT INTO int_pos_kappa_pair VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    rows)
    return changed


def _vectors(con, key: dict, states: dict[str, str], force: bool,
             codes: dict[str, int]) -> dict[str, np.ndarray]:
    """Every system's :func:`tag_codes` vector (``codes`` filled): those kept under the
    system's current unit state read back, the others from their cases and kept (each in its
    own sorted tags, so the kept rows are those of a run from scratch)."""
    rows = con.execute(f"SELECT system, state, tags, codes FROM int_pos_kappa_vector "
                       f"WHERE {_KEY} ORDER BY system", key).fetchall()
    kept = {s: (tags, blob) for s, state, tags, blob in rows
            if not force and states.get(s) == state}
    vectors = {}
    for system, (tags, blob) in kept.items():  # their tags coded first, in a fixed order
        vector = _read_own(tags, blob)
        if len(vector):
            index = np.array([codes.setdefault(t, len(codes)) for t in tags], dtype=np.int32)
            vectors[system] = np.where(vector >= 0, index[np.maximum(vector, 0)], -1
                                       ).astype(np.int32)
    read = sorted(set(states) - set(kept))
    if read:
        vectors |= tag_codes(con.sql(_STRICT + " AND list_contains($systems, system)",
                                     params={**key, "systems": read}).to_arrow_reader(BATCH),
                             codes)
    _forget(con, key, [s for s, *_ in rows if s not in kept])
    tag_of = np.array(sorted(codes, key=codes.get), dtype=object)
    insert_rows(con, "INSERT INTO int_pos_kappa_vector VALUES (?, ?, ?, ?, ?, ?, ?)",
                [[*key.values(), system, states[system], *_own(vectors.get(system), tag_of)]
                 for system in read])
    return vectors


def _forget(con, key: dict, systems: list[str]) -> None:
    """Drop the kept vectors of ``systems``."""
    if systems:
        con.execute(f"DELETE FROM int_pos_kappa_vector WHERE {_KEY} AND list_contains($drop, "
                    "system)", {**key, "drop": systems})


def _stored(tags: list[str]) -> np.dtype:
    """How a kept vector over ``tags`` stores each unit's code plus one (0: not a strict case):
    the smallest unsigned little-endian integer that holds them, one byte for a tagset of
    fewer than 256 tags (a 1M-unit vector: 1 MB, not 4; rewriting a changed system's vector
    took the warehouse's checkpoint 0.15 s, by hand)."""
    return np.dtype(np.min_scalar_type(len(tags))).newbyteorder("<")


def _read_own(tags: list[str], blob: bytes) -> np.ndarray:
    """A kept vector (:func:`_own`) as codes into ``tags`` (-1: not a strict case)."""
    return np.frombuffer(blob, dtype=_stored(tags)).astype(np.int32) - 1


def _own(vector: np.ndarray | None, tag_of: np.ndarray) -> tuple[list[str], bytes]:
    """A vector in its own tags, sorted (``tag_of``: the tag of each code): (tags, its codes
    plus one as :func:`_stored` bytes); None (no strict case) gives none."""
    if vector is None:
        return [], b""
    used = np.unique(vector[vector >= 0])
    tags = sorted(tag_of[used].tolist())
    rank = {t: i for i, t in enumerate(tags)}
    index = np.full(len(tag_of), -1, dtype=np.int32)
    index[used] = [rank[t] for t in tag_of[used].tolist()]
    own = np.where(vector >= 0, index[np.maximum(vector, 0)], -1) + 1
    return tags, own.astype(_stored(tags)).tobytes()


def unit_vector(ids: dict, state: str, cases: pa.Table) -> pa.Table:
    """A unit's row of ``int_pos_kappa_vector`` (``ids``: campaign, task, corpus, system; its
    unit ``state``), made from its own ``cases`` (``int_pos_case``'s columns) where they are
    computed, on the worker: the strict cases of :data:`_STRICT`, as :func:`_own` keeps them
    (a system without one: no tag, no code). The reduce then finds every vector kept under
    its unit's state and reads no case again (the POS bench's kappa reduce 1.6 -> 0.6 s)."""
    rows = pl.from_arrow(cases.select(["evaluation", "ref_unit", "projected", "noneval"]))
    strict = rows.filter((pl.col("evaluation") == "absolute") & pl.col("noneval").is_null()
                         & (pl.col("projected").list.len() == 1))
    tags = strict["projected"].list.first().cast(pl.String)
    names = sorted(tags.unique().to_list())
    codes = b""
    if names:
        units = strict["ref_unit"].to_numpy()
        own = np.zeros(int(units.max()) + 1, dtype=_stored(names))
        own[units] = tags.replace_strict(names, list(range(1, len(names) + 1)),
                                         return_dtype=pl.Int64).to_numpy()
        codes = own.tobytes()
    return keyed(ids, pa.table({"state": [state], "tags": pa.array([names], pa.list_(pa.string())),
                                "codes": pa.array([codes], pa.binary())}),
                 ["state", "tags", "codes"])


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
