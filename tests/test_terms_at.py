"""The table macro ``mart_terms_at`` (sql/terms/mart_terms_at.sql), which finds each reference
term's smallest distance once and compares it with every sigma, gives the same bits as the
Termometer paper's partition P(S) built at each sigma (Termometer paper §6.1: output terms with
d(e) <= sigma grouped by their nearest reference term r(e), every other term a part alone;
Pert(p) = max over p of 1 - d(e)), written here as the definition reads, on generated alignments:
distances on and beside the sigmas (within the 1e-9 tolerance and just outside it), no
distance at all (an empty reference slice), several output terms sharing a nearest term,
cut-offs, slices with no output term."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorehouse.warehouse.db import sql_files

# the definition: P(S) grouped at each sigma (the macro's statement before it found each r's
# smallest distance once)
BY_DEFINITION = """
WITH grid AS (
    SELECT f.*, t.top::INTEGER AS top, s.sigma::DOUBLE AS sigma
    FROM fct_terms_slice f, (SELECT unnest($tops) AS top) t, (SELECT unnest($sigmas) AS sigma) s
), terms AS (
    SELECT g.campaign, g.task, g.corpus, g.system, g.reference, g.slice, g.top, g.sigma, a.term,
           a.nearest, a.dt, a.exact, coalesce(a.dt <= g.sigma + 1e-9, false) AS aligned
    FROM grid g
    JOIN int_terms_alignment a USING (campaign, task, corpus, system, reference, slice)
    WHERE g.top = 0 OR a.rank <= g.top
), parts AS (
    SELECT campaign, task, corpus, system, reference, slice, top, sigma,
           max(CASE WHEN aligned THEN 1 - dt ELSE 0 END) AS pert, count(*) AS n,
           bool_or(aligned) AS aligned, count(*) FILTER (WHERE exact) AS matches
    FROM terms
    GROUP BY campaign, task, corpus, system, reference, slice, top, sigma,
             CASE WHEN aligned THEN 'r' || nearest ELSE 'e' || term END
), totals AS (
    SELECT campaign, task, corpus, system, reference, slice, top, sigma, count(*) AS parts,
           sum(pert::DECIMAL(38, 18))::DOUBLE AS pert, sum(n) AS output_terms,
           coalesce(sum(n) FILTER (WHERE aligned), 0) AS aligned_terms, sum(matches) AS matches
    FROM parts
    GROUP BY campaign, task, corpus, system, reference, slice, top, sigma
)
SELECT g.campaign, g.task, g.corpus, g.system, g.reference, g.slice, g.top, g.sigma,
       coalesce(t.output_terms, 0)::INTEGER, g.reference_terms,
       coalesce(t.aligned_terms, 0)::INTEGER, coalesce(t.parts, 0)::INTEGER,
       coalesce(t.pert, 0), coalesce(t.matches, 0)::INTEGER
FROM grid g LEFT JOIN totals t USING (campaign, task, corpus, system, reference, slice, top, sigma)
ORDER BY ALL
"""


def _f(a: float, b: float) -> float:
    """The harmonic mean 2ab / (a + b), 0 when a + b is 0."""
    return 2 * a * b / (a + b) if a + b > 0 else 0.0


def by_definition(con: duckdb.DuckDBPyConnection, params: dict) -> list[tuple]:
    """The macro's rows as the paper defines them: TP = sum Pert / |P(S)|, TR = sum Pert / |R|,
    their F; the classical P = matches / |output|, R = matches / |R|, their F."""
    rows = []
    for *key, output, reference, aligned, parts, pert, matches in con.execute(
            BY_DEFINITION, params).fetchall():
        tp, tr = pert / parts if parts else 0.0, pert / reference if reference else 0.0
        p, r = matches / output if output else 0.0, matches / reference if reference else 0.0
        rows.append((*key, output, reference, aligned, parts, tp, tr, _f(tp, tr), p, r, _f(p, r)))
    return rows

SIGMAS = [round(0.05 * k, 2) for k in range(21)]
# distances on a sigma, within the tolerance above it, on its edge, just beyond it, and between
DISTANCES = st.one_of(st.none(), st.sampled_from(
    [s + d for s in SIGMAS for d in (0.0, 5e-10, 1e-9, 2e-9)] + [1 / 3, 2 / 7, 0.999]))
TERM = st.tuples(DISTANCES, st.sampled_from(["r1", "r2", "r3", "r4"]), st.booleans())
# rows of fct_terms_slice sharing their slice's name across systems and reference kinds, so that
# a join missing one of the keys mixes them
SLICE = st.tuples(st.sampled_from(["s1", "s2"]), st.sampled_from(["reference", "validated"]),
                  st.sampled_from(["all", "label:a"]), st.integers(0, 6),
                  st.lists(TERM, max_size=10))


def _warehouse(slices) -> duckdb.DuckDBPyConnection:
    """An in-memory database with the terms tables, the macro and the given slices."""
    con = duckdb.connect()
    for name, text in sql_files("terms").items():
        if name in ("fct_terms_slice", "int_terms_alignment", "mart_terms_at"):
            con.execute(text.split("-- @build")[0])
    con.executemany("INSERT INTO fct_terms_slice VALUES ('c', 't', 'k', ?, ?, ?, ?, ?)",
                    [[*key, size, len(terms)] for *key, size, terms in slices])
    rows = [[*key, f"e{rank}", rank, None if dt is None else nearest, dt, exact]
            for *key, _, terms in slices for rank, (dt, nearest, exact) in enumerate(terms, 1)]
    if rows:
        con.executemany("INSERT INTO int_terms_alignment VALUES ('c', 't', 'k', ?, ?, ?, ?, ?, "
                        "NULL, ?, NULL, ?, NULL, NULL, ?)", rows)
    return con


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(slices=st.lists(SLICE, min_size=1, max_size=4, unique_by=lambda s: s[:3]),
       tops=st.lists(st.integers(1, 8), max_size=2, unique=True))
def test_the_macro_gives_the_partitions_bits_at_every_sigma(slices, tops):
    con = _warehouse(slices)
    try:
        params = {"sigmas": SIGMAS, "tops": [0, *tops]}
        got = con.execute("SELECT * FROM mart_terms_at($sigmas, $tops) ORDER BY ALL",
                          params).fetchall()
        want = by_definition(con, params)
    finally:
        con.close()
    assert len(got) == len(want) == len(slices) * (1 + len(tops)) * len(SIGMAS)
    assert [tuple(map(repr, row)) for row in got] == [tuple(map(repr, row)) for row in want]


def test_a_sigma_or_cut_off_given_twice_counts_once():
    """Ad hoc calls may repeat a sigma or a cut-off, or give a cut-off as a fraction: each
    (cut-off, sigma) gets one row, its figures those of the plain call; a cut-off is cast to an
    integer first, and filters as it is labelled."""
    terms = [(0.1, "r1", True), (0.2, "r1", False), (0.35, "r2", False), (None, "r1", False)]
    con = _warehouse([("s1", "reference", "all", 3, terms)])
    try:
        plain = con.execute("SELECT * FROM mart_terms_at([0.3], [0, 3]) ORDER BY ALL").fetchall()
        twice = con.execute("SELECT * FROM mart_terms_at([0.3, 0.3], [0, 0, 3, 2.6]) "
                            "ORDER BY ALL").fetchall()
    finally:
        con.close()
    assert twice == plain
    assert [(row[6], row[8], row[11]) for row in plain] == [(0, 4, 3), (3, 3, 2)]
