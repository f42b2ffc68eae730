"""Published bytes do not depend on the order a warehouse's tables hold their rows in.

An incremental run appends a changed unit's rows after the others; a fresh run writes them in
the units' order: the same results, rows in another physical order. Every page and every table
the pages export must be the same either way, so every query behind them must order its rows
totally (a page's query ordered by corpus alone listed a corpus's paired tests in whatever order
the table held them). The demo build (every family) is rendered, the rows of each result and
catalog table of the warehouse file are then rewritten in two other orders, and the bulletins
are rendered again. (Rows kept in the unit store's files, and staged rows, are not reordered.)"""

from __future__ import annotations

import duckdb
import pytest
from helpers import published

from scorehouse.warehouse.pipeline import run


def _rewrite_rows(db, order: str) -> int:
    """Every result table's rows deleted and inserted again in ``order`` (a SQL ORDER BY on the
    row's hash): the same rows, stored in another order. Returns the number of tables."""
    con = duckdb.connect(str(db))
    try:
        names = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' "
            "AND regexp_matches(table_name, '^(int|fct|mart|hist|cat)_') ORDER BY 1").fetchall()]
        for name in names:
            con.execute(f'CREATE TEMP TABLE _rows AS SELECT * FROM "{name}"')
            con.execute(f'DELETE FROM "{name}"')
            con.execute(f'INSERT INTO "{name}" SELECT * FROM _rows t ORDER BY {order}')
            con.execute("DROP TABLE _rows")
        return len(names)
    finally:
        con.close()


@pytest.mark.slow
def test_pages_and_exports_do_not_follow_the_tables_row_order(demo_copy):
    campaign, db = demo_copy / "campaign", demo_copy / "w.duckdb"
    first = demo_copy / "first"
    assert run(campaign, db, first, steps=("report",), quiet=True).exit_code == 0
    expected = published(first)
    assert any(name.endswith("wer_paired.csv") for name in expected)
    for k, order in enumerate(("hash(t) DESC", "hash(t::VARCHAR || 'x')")):
        assert _rewrite_rows(db, order) > 20
        out = demo_copy / f"again{k}"
        assert run(campaign, db, out, steps=("report",), quiet=True).exit_code == 0
        again = published(out)
        assert sorted(again) == sorted(expected)
        assert [n for n in expected if again[n] != expected[n]] == [], order
