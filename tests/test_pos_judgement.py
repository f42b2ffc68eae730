"""The GRACE judgement counted by sentence without SQL (``scorers/pos_judgement.py``) against the
same rule in SQL, the view ``int_pos_judgement`` that users query, grouped as the unit used to
group it: generated cases with the edge cases SQL's list functions and nulls decide (empty and
null lists, null tags, empty tags, several-character categories, cases of no reference unit,
a sentence's units in two runs), every count equal and SILOK_moy the double nearest the exact
sum of the sentence's c/k, in any order of the cases."""

from __future__ import annotations

import math
from fractions import Fraction

import duckdb
import numpy as np
import polars as pl
import pytest

from scorehouse.scorers import pos_judgement as judgement
from scorehouse.scorers.pos import NONEVAL_REASONS, TAGS
from scorehouse.warehouse.db import sql_files

_TAGS = ["Ncms", "Ncfs", "Np", "Vmip", "Afp", "Sp", "", "éT", "ÉX", "N", "e\u0301X"]


def _tags(rng, most: int) -> list | None:
    roll = rng.random()
    if roll < 0.03:
        return None
    if roll < 0.06:
        return []
    size = 1 if rng.random() < 0.6 else int(rng.integers(1, most + 1))
    picked = [_TAGS[i] for i in rng.integers(0, len(_TAGS), size)]
    if rng.random() < 0.03:
        picked[int(rng.integers(0, size))] = None
    return picked


def generated(seed: int, n: int = 3000, most: int = 4) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Cases of one evaluation and a reference's units (sentence ``s1`` of ``d0`` in two runs)."""
    rng = np.random.default_rng(seed)
    units = 400
    sent = np.repeat(np.arange(40), 10)
    sent[300:310] = 1  # a sentence's units apart: one sentence still
    reference = pl.DataFrame({
        "unit": np.arange(units, dtype=np.int64) * 2,  # not every number a unit
        "doc": [f"d{s % 3}" for s in sent], "genre": [f"g{s % 2}" for s in sent],
        "sent": [f"s{s}" for s in sent]})
    reasons = [None] * 12 + list(NONEVAL_REASONS) + ["another"]
    cases = pl.DataFrame({
        "ref_unit": rng.integers(-2, units * 2 + 3, n).astype(np.int64),
        "projected": [_tags(rng, most) for _ in range(n)],
        "acceptable": [_tags(rng, most) for _ in range(n)],
        "noneval": [reasons[i] for i in rng.integers(0, len(reasons), n)]},
        schema={"ref_unit": pl.Int64, "projected": pl.List(pl.String),
                "acceptable": pl.List(pl.String), "noneval": pl.String})
    return cases, reference


_GROUPED = """
SELECT j.granularity, u.doc, u.genre, u.sent, count(*) AS nbCas,
       count(*) FILTER (WHERE j.noneval IS NOT NULL) AS NONEVAL,
       {reasons},
       {judgements},
       list(j.c ORDER BY j."case")
           FILTER (WHERE j.judgement LIKE 'SIL%' AND j.c IS NOT NULL AND j.k > 0) AS c,
       list(j.k ORDER BY j."case")
           FILTER (WHERE j.judgement LIKE 'SIL%' AND j.c IS NOT NULL AND j.k > 0) AS k
FROM int_pos_judgement j JOIN int_pos_ref_unit u ON u.unit = j.ref_unit
GROUP BY j.granularity, u.doc, u.genre, u.sent
""".format(
    reasons=", ".join(f"count(*) FILTER (WHERE j.noneval = '{r}') AS noneval_{r}"
                      for r in NONEVAL_REASONS),
    judgements=", ".join(f"count(*) FILTER (WHERE j.judgement = '{t}') AS {t}"
                         for t in judgement.JUDGEMENTS))


def by_sql(cases: pl.DataFrame, reference: pl.DataFrame) -> pl.DataFrame:
    """The counts as the view ``int_pos_judgement`` judges the cases, SILOK_moy summed exactly
    over the silences with a c/k: not those of an empty projected set (k = 0, SIL_ok), whose
    c/k is NaN in the view and nothing in the unit's sum (:func:`judgement.judge`)."""
    con = duckdb.connect()
    int_pos_case = cases.with_row_index("case").with_columns(  # noqa: F841  (read by DuckDB)
        pl.lit("c").alias("campaign"), pl.lit("t").alias("task"), pl.lit("k").alias("corpus"),
        pl.lit("s").alias("system"), pl.lit("absolute").alias("evaluation"),
        pl.lit(None, pl.Int64).alias("sys_tok"), pl.lit(None, pl.List(pl.String)).alias("sys_tags"),
        pl.lit(None, pl.String).alias("span"))
    int_pos_ref_unit = reference  # noqa: F841  (read by DuckDB)
    con.execute(sql_files("pos")["int_pos_judgement"])
    grouped = con.sql(_GROUPED).pl()
    silok = [float(sum((Fraction(c, k) for c, k in zip(cs or [], ks or [], strict=True)),
                       Fraction(0)))
             for cs, ks in zip(grouped["c"].to_list(), grouped["k"].to_list(), strict=True)]
    return grouped.drop("c", "k").with_columns(pl.Series("SILOK_moy", silok, pl.Float64))


def by_unit(cases: pl.DataFrame, reference: pl.DataFrame) -> pl.DataFrame:
    sentence, heads = judgement.sentence_numbers(reference)
    frames = judgement.sentence_frame(
        judgement.coded(cases, reference["unit"].to_numpy(), sentence), heads)
    return pl.concat([f.select(pl.lit(g).alias("granularity"), pl.all())
                      for g, f in frames.items()])


def same(a: pl.DataFrame, b: pl.DataFrame) -> None:
    key = ["granularity", "doc", "genre", "sent"]
    a, b = a.sort(key), b.select(a.columns).sort(key)
    assert a.height == b.height and a.height > 0
    assert a.equals(b), a.join(b, on=key, suffix="_unit").head(5)


@pytest.mark.parametrize("seed", range(6))
def test_sentence_counts_equal_the_sql_judgement(seed):
    cases, reference = generated(seed)
    same(by_sql(cases, reference), by_unit(cases, reference))


def test_tags_as_the_units_hold_them_count_the_same():
    """The cases' tags as codes into the tagset (``scorers.pos.TAGS``), as a unit holds them."""
    cases, reference = generated(5)
    coded = cases.with_columns(pl.col("projected", "acceptable").cast(TAGS))
    same(by_sql(cases, reference), by_unit(coded, reference))


def test_no_case_no_row_and_an_unsorted_reference_refused():
    cases, reference = generated(1)
    sentence, heads = judgement.sentence_numbers(reference)
    assert all(f.height == 0 for f in judgement.sentence_frame(
        judgement.coded(cases.head(0), reference["unit"].to_numpy(), sentence), heads).values())
    with pytest.raises(ValueError, match="sorted"):
        judgement.coded(cases, reference["unit"].to_numpy()[::-1], sentence)


def test_many_denominators_summed_exactly_per_sentence():
    """Lists of up to 40 tags: no common denominator of every c/k fits a double's exact
    integers, so each sentence is summed on its own; still the double nearest the exact sum."""
    global _TAGS
    tags, _TAGS = _TAGS, [f"T{i}" for i in range(45)] + [f"U{i}" for i in range(45)]
    try:
        cases, reference = generated(11, n=4000, most=40)
    finally:
        _TAGS = tags
    added = [judgement.judge(p, a, False)[1] for p, a in zip(
        cases["projected"].to_list(), cases["acceptable"].to_list(), strict=True)]
    assert math.lcm(*{f.denominator for f in added if f is not None}) * len(cases) >= 2**53
    same(by_sql(cases, reference), by_unit(cases, reference))


def test_any_order_of_the_cases_gives_the_same_bits():
    cases, reference = generated(3)
    expected = by_unit(cases, reference)
    for seed in range(3):
        shuffled = cases.sample(fraction=1.0, shuffle=True, seed=seed)
        same(expected, by_unit(shuffled, reference))


def test_judge_follows_grace_section_3():
    """Adda et al. (1999), section 3: k = 1 is OK or ERR; k > 1 a silence adding c/k."""
    ok, err, sil_ok, sil_err, sil_sil = range(5)
    assert judgement.judge(["Ncms"], ["Ncms"], False) == (ok, None)
    assert judgement.judge(["Ncms"], ["Ncfs"], False) == (err, None)
    assert judgement.judge(["Ncms"], ["Ncfs"], True) == (ok, None)  # both of category N
    assert judgement.judge(["Ncms", "Ncfs"], ["Ncms", "Ncfs", "Np"], False) == (
        sil_ok, Fraction(1))
    assert judgement.judge(["Ncms", "Vmip"], ["Afp"], False) == (sil_err, Fraction(0))
    assert judgement.judge(["Ncms", "Vmip", "Afp"], ["Afp"], False) == (
        sil_sil, Fraction(1, 3))
    assert judgement.judge(["Ncms", "Ncfs"], ["Np"], True) == (ok, None)  # one category: N
    assert judgement.judge([], ["Np"], False) == (sil_ok, None)  # k = 0: c = k, no c/k
