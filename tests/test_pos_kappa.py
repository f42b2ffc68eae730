"""Cohen's kappa of the POS family on a worked example (Cohen, "A Coefficient of Agreement for
Nominal Scales", 1960: kappa = (p_o - p_e) / (1 - p_e)), in both places it is computed: a unit
against the reference in SQL (``sql/pos/fct_pos_kappa.sql``) and every two systems in NumPy
(``warehouse/families/pos_kappa.py`` ``pairs``).

The example is the usual two-rater, two-category table: 50 items, both say A on 20, both B on
15, the first A and the second B on 5, the first B and the second A on 10. p_o = 35/50 = 0.7; the
first says A 25 times, the second 30: p_e = (25 x 30 + 25 x 20) / 50^2 = 0.5; kappa = 0.4.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from scorehouse.warehouse.db import build, written
from scorehouse.warehouse.families.pos_kappa import _own, _read_own, pairs

FIRST = ["A"] * 20 + ["B"] * 15 + ["A"] * 5 + ["B"] * 10
SECOND = ["A"] * 20 + ["B"] * 15 + ["B"] * 5 + ["A"] * 10
IDS = {"campaign": "c", "task": "pos", "corpus": "k", "system": "s"}


def test_kappa_between_two_systems_on_the_worked_example():
    codes = {"A": 0, "B": 1}
    vectors = {"x": np.array([codes[t] for t in FIRST] + [-1, 0], dtype=np.int32),
               "y": np.array([codes[t] for t in SECOND] + [1, -1], dtype=np.int32)}
    (a, b, (cases, p_o, p_e, kappa)), = pairs(vectors, ["y"], 2)  # -1: not a strict case
    assert (a, b, cases) == ("x", "y", 50)
    assert (p_o, p_e) == pytest.approx((0.7, 0.5)) and kappa == pytest.approx(0.4)


@pytest.mark.parametrize("tags", [0, 1, 3, 255, 256, 70_000])
def test_a_kept_vector_reads_back_its_tags_whatever_the_tagset(tags):
    """A system's codes are kept in its own sorted tags, one byte a unit for fewer than 256
    tags, more for more: read back, each unit has its tag again, and no strict case none."""
    rng = np.random.default_rng(tags)
    tag_of = np.array([f"t{k:06d}" for k in rng.permutation(max(tags, 1))], dtype=object)
    vector = rng.integers(-1, tags, 5_000).astype(np.int32) if tags else np.full(9, -1, np.int32)
    vector[:tags] = np.arange(min(tags, len(vector)))  # every tag used when it fits
    own, blob = _own(vector, tag_of)
    assert own == sorted(tag_of[np.unique(vector[vector >= 0])].tolist())
    back = _read_own(own, blob)
    assert len(blob) == len(vector) * (1 if len(own) < 256 else 2 if len(own) < 65_536 else 4)
    assert ((back >= 0) == (vector >= 0)).all()
    assert (np.array(own, dtype=object)[back[back >= 0]] == tag_of[vector[vector >= 0]]).all()


def _cases(system: list[str], reference: list[str], extra: list[dict]) -> pa.Table:
    rows = [{"evaluation": "absolute", "projected": [h], "acceptable": [r], "noneval": None}
            for h, r in zip(system, reference, strict=True)] + extra
    n = len(rows)
    return pa.table({
        **{k: [v] * n for k, v in IDS.items()},
        "evaluation": [r["evaluation"] for r in rows], "case": list(range(n)),
        "ref_unit": list(range(n)), "sys_tok": list(range(n)),
        "sys_tags": [r["projected"] for r in rows], "projected": [r["projected"] for r in rows],
        "acceptable": [r["acceptable"] for r in rows], "span": ["unit"] * n,
        "noneval": [r["noneval"] for r in rows], "unknown_tags": [[] for _ in rows]})


def test_kappa_against_the_reference_on_the_worked_example():
    """The unit's own build counts strict cases only: a NONEVAL case, an ambiguous projection or
    reference, and a relative case are left out."""
    outside = [{"evaluation": "absolute", "projected": ["A"], "acceptable": ["B"],
                "noneval": "segmentation"},
               {"evaluation": "absolute", "projected": ["A", "B"], "acceptable": ["B"],
                "noneval": None},
               {"evaluation": "absolute", "projected": ["B"], "acceptable": ["A", "B"],
                "noneval": None},
               {"evaluation": "relative", "projected": ["B"], "acceptable": ["A"],
                "noneval": None}]
    out = written("pos", ("fct_pos_kappa",), lambda con: build(con, "pos", "fct_pos_kappa", **IDS),
                  rows={"int_pos_case": _cases(FIRST, SECOND, outside)})
    (row,) = out["fct_pos_kappa"].to_pylist()
    assert row["cases"] == 50
    assert (row["p_o"], row["p_e"], row["kappa"]) == pytest.approx((0.7, 0.5, 0.4))


def test_kappa_is_null_when_chance_agreement_is_total():
    """One tag on both sides: p_e = 1, kappa undefined (null), not a division error."""
    out = written("pos", ("fct_pos_kappa",), lambda con: build(con, "pos", "fct_pos_kappa", **IDS),
                  rows={"int_pos_case": _cases(["A"] * 4, ["A"] * 4, [])})
    (row,) = out["fct_pos_kappa"].to_pylist()
    assert (row["p_o"], row["p_e"], row["kappa"]) == (1.0, 1.0, None)
    vectors = {"x": np.zeros(4, dtype=np.int32), "y": np.zeros(4, dtype=np.int32)}
    assert pairs(vectors, ["x"], 1)[0][2][3] is None


NONEVAL = [None, None, None, None, "residual", "segmentation", "unknown_tag", "no_inverse_image"]


def _random_cases(seed: int, tags: int | None = None):
    """Cases of both evaluations on up to 300 reference units (some skipped, out of order):
    projected sets of 0 to 3 tags among ``tags`` (random: 1-299), every kind of NONEVAL."""
    import polars as pl

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300)) if tags is None else tags
    names = [f"T{k}" for k in range(int(rng.integers(1, 300)) if tags is None else tags)]
    rows = []
    for unit in rng.permutation(n + int(rng.integers(0, 5))).tolist()[:n]:
        for evaluation in ("absolute", "relative"):
            size = 1 if tags is not None else int(rng.choice([0, 1, 1, 1, 2, 3]))
            rows.append({"evaluation": evaluation, "projected": [
                names[k] for k in rng.choice(len(names), min(size, len(names)), replace=False)],
                "noneval": None if tags is not None else NONEVAL[int(rng.integers(8))],
                "ref_unit": unit})
    if tags is not None:  # each tag on one unit: every one of them strict
        rows = [{**r, "projected": [names[k // 2]]} for k, r in enumerate(rows)]
    return pl.DataFrame(rows, schema={"evaluation": pl.String, "projected": pl.List(pl.String),
                                      "noneval": pl.String, "ref_unit": pl.Int64})


@pytest.mark.slow
def test_a_units_vector_is_the_one_the_reduce_reads_from_its_cases():
    """:func:`unit_vector` (made where the unit is computed, from its cases in memory) is the
    row the kappa reduce makes from the same cases read back by ``_STRICT`` (``tag_codes``,
    then ``_own``): on random cases (both evaluations, every kind of NONEVAL, projected sets of
    0 to 3 tags, reference units skipped and out of order), with the tags as a unit's cases
    hold them (``pos._coded``: lists of categoricals) or as plain strings, on 300 strict tags
    (two bytes a unit), and on units without a strict case."""
    import duckdb
    import polars as pl

    from scorehouse.warehouse.families import pos
    from scorehouse.warehouse.families.pos_kappa import _STRICT, tag_codes, unit_vector

    tables = [_random_cases(seed) for seed in range(40)] + [_random_cases(7, tags=300)]
    tables += [tables[0].with_columns(noneval=pl.lit("residual")), tables[0].clear()]
    widths = set()
    for k, cases in enumerate(tables):
        cases = cases.with_columns(**{c: pl.lit(v) for c, v in IDS.items()},
                                   case=pl.int_range(pl.len()))
        for arrow in (cases.to_arrow(), pos._coded(cases.with_columns(
                pl.col("projected").cast(pl.List(pl.Categorical))))):
            mine = unit_vector(IDS, "st", arrow).to_pylist()
            con = duckdb.connect()
            con.register("int_pos_case", cases.to_arrow())
            key = {c: IDS[c] for c in ("campaign", "task", "corpus")}
            codes: dict[str, int] = {}
            vectors = tag_codes(con.sql(_STRICT, params=key).to_arrow_reader(7), codes)
            tag_of = np.array(sorted(codes, key=codes.get), dtype=object)
            own, blob = _own(vectors.get("s"), tag_of)
            assert mine == [{**IDS, "state": "st", "tags": own, "codes": blob}], k
            widths.add(len(blob) // max(len(_read_own(own, blob)), 1) if own else 0)
    assert widths == {0, 1, 2}  # no strict case, one byte a unit, two
