"""The judgement of a GRACE case and its counts per sentence, without SQL.

Paper: Adda, Mariani, Paroubek, Rajman and Lecomte, "Métrique et premiers résultats de
l'évaluation GRACE des étiqueteurs morphosyntaxiques pour le français" (TALN 1999), section 3.
With k the size of a case's projected set and c how many of its tags the reference accepts:
k = 1 is **OK** if c = 1, else **ERR**; k > 1 is a silence, **SIL_ok** if c = k, **SIL_err** if
c = 0, else **SIL_sil**, and each silence adds c/k to **SILOK_moy**. At the granularity
``category`` a tag is its first character, the sets those of the distinct categories.

The same rule is the view ``int_pos_judgement`` (``sql/pos/``), which users query; a unit counts
here, once per distinct pair of tag lists (a tagger emits a few thousand), then gathered to
its cases (a 1M-token unit's sentence counts: 1.0-1.7 s in SQL, about 0.4 s here, by hand).
An empty projected set (k = 0) is SIL_ok and adds nothing to SILOK_moy (the view's c/k is NaN
there); :mod:`scorers.pos` makes none (a case without a known tag is NONEVAL).
The tests hold the two equal, edge cases (empty and null lists, null tags) included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import polars as pl

from scorehouse.scorers.codes import numbered
from scorehouse.scorers.pos import NONEVAL_REASONS

GRANULARITIES = ("full", "category")
JUDGEMENTS = ("OK", "ERR", "SIL_ok", "SIL_err", "SIL_sil")
# the columns of a sentence's counts, in fct_pos_sentence's order (SILOK_moy after them)
COUNTS = ("nbCas", "NONEVAL", *(f"noneval_{r}" for r in NONEVAL_REASONS), *JUDGEMENTS)
# a case's code: its NONEVAL reason's index, one more for another reason, then its judgement's
_JUDGED = len(NONEVAL_REASONS) + 1
_CODES = _JUDGED + len(JUDGEMENTS)


def _first(tag: str | None) -> str | None:
    return None if tag is None else tag[:1]


def _sets(p: list | None, a: list | None, category: bool) -> tuple[list | None, list | None]:
    """The projected and acceptable sets judged at a granularity (a null list stays null; a
    category list of several tags drops its null ones, as SQL's ``list_distinct`` does)."""
    if not category:
        return p, a
    if p is not None:
        p = [_first(p[0])] if len(p) == 1 else sorted({_first(t) for t in p} - {None})
    if a is not None:
        a = [_first(a[0])] if len(a) == 1 else list({_first(t) for t in a} - {None})
    return p, a


def judge(p: list | None, a: list | None, category: bool) -> tuple[int, Fraction | None]:
    """A case's judgement (its index in :data:`JUDGEMENTS`) and what it adds to SILOK_moy (c/k
    for a silence; None else, or where c is unknown or k is 0 or unknown), from its projected
    (``p``) and acceptable (``a``) tags, as ``int_pos_judgement`` judges them, nulls included:
    a null projected list makes k and c unknown, a null acceptable list c = 0; an unknown k or
    c makes no OK, no SIL_ok and no SIL_err."""
    p, a = _sets(p, a, category)
    k = None if p is None else len(p)
    if p is None:
        c = None
    elif len(p) == 1 and a is not None and len(a) == 1:
        c = None if p[0] is None or a[0] is None else int(p[0] == a[0])
    else:  # SQL's list_intersect with a null list of acceptable tags: empty
        c = len((set(p) & set(a or ())) - {None})
    if k == 1:
        return (0 if c == 1 else 1), None
    code = 2 if k is not None and c == k else 3 if c == 0 else 4
    return code, (Fraction(c, k) if c is not None and k else None)


@dataclass(frozen=True)
class Coded:
    """One evaluation's cases as their counts read them (a few bytes a case, no list): the
    distinct pairs of tag lists (``projected``, ``acceptable``), and per case, its pair's
    number, its NONEVAL reason's (-1: evaluable; ``len(NONEVAL_REASONS)``: another reason)
    and its sentence's."""

    pairs: pl.DataFrame
    pair: np.ndarray
    noneval: np.ndarray
    sentence: np.ndarray


def coded(cases: pl.DataFrame, units: np.ndarray, sentence: np.ndarray) -> Coded:
    """The ``cases`` (``ref_unit``, ``projected``, ``acceptable``, ``noneval``) of one
    evaluation, each in the sentence of its ``ref_unit`` (the reference's ``units``, sorted,
    in the sentences :func:`sentence_numbers` gave them); a case whose unit is not the
    reference's is counted nowhere."""
    if len(units) > 1 and not (units[1:] > units[:-1]).all():  # found by bisection below
        raise ValueError("the reference's units must be sorted and distinct")
    wanted = cases["ref_unit"].to_numpy()
    at = np.minimum(np.searchsorted(units, wanted), max(len(units) - 1, 0))
    found = units[at] == wanted if len(units) else np.zeros(len(wanted), dtype=bool)
    if not found.all():
        cases, at = cases.filter(pl.Series(found)), at[found]
    pairs, pair = numbered(cases.select("projected", "acceptable"), "_pair")
    reason = pl.col("noneval")
    noneval = cases.select(
        pl.when(reason.is_null()).then(-1)
        .otherwise(reason.replace_strict({r: i for i, r in enumerate(NONEVAL_REASONS)},
                                         default=len(NONEVAL_REASONS), return_dtype=pl.Int8))
    ).to_series().to_numpy()
    return Coded(pairs.drop("_pair"), pair.to_numpy().astype(np.int32), noneval.astype(np.int8),
                 sentence[at].astype(np.int32))


def sentence_counts(cases: Coded, sentences: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per granularity, the counts of one evaluation's ``cases`` by sentence (a row per
    sentence, 0 to ``sentences`` - 1; a column per :data:`COUNTS`) and their SILOK_moy, the
    double nearest its exact sum of c/k: the same bits in any order of the cases."""
    evaluable = cases.noneval < 0
    sentence = cases.sentence.astype(np.int64)
    out = {}
    for granularity in GRANULARITIES:
        judged = [judge(p, a, granularity == "category") for p, a in zip(
            cases.pairs["projected"].to_list(), cases.pairs["acceptable"].to_list(), strict=True)]
        code = np.where(evaluable,
                        np.array([j for j, _ in judged], dtype=np.int64)[cases.pair] + _JUDGED,
                        cases.noneval)
        by_code = np.bincount(sentence * _CODES + code, minlength=sentences * _CODES).reshape(
            sentences, _CODES)
        counts = np.column_stack([by_code.sum(axis=1), by_code[:, :_JUDGED].sum(axis=1),
                                  by_code[:, :_JUDGED - 1], by_code[:, _JUDGED:]])
        out[granularity] = counts, _silok([s for _, s in judged], cases.pair, sentence,
                                          evaluable, sentences)
    return out


def _silok(added: list[Fraction | None], at: np.ndarray, sentence: np.ndarray,
           evaluable: np.ndarray, sentences: int) -> np.ndarray:
    """Each sentence's sum of what its evaluable cases add to SILOK_moy (``added``, per
    distinct pair), exact, then rounded once to the nearest double."""
    denominators = {f.denominator for f in added if f is not None}
    common = math.lcm(*denominators) if denominators else 1
    if common * (len(sentence) + 1) < 2**53:  # every partial sum an exact double
        weight = np.array([0 if f is None else f.numerator * (common // f.denominator)
                           for f in added], dtype=np.float64)
        total = np.bincount(sentence[evaluable], weights=weight[at][evaluable],
                            minlength=sentences)
        return total / common  # exact over exact: one rounding
    exact = [Fraction(0)] * sentences  # denominators too many to share one: per sentence
    hit = evaluable & np.array([f is not None for f in added], dtype=bool)[at]
    keys, times = np.unique(sentence[hit] * len(added) + at[hit], return_counts=True)
    for key, n in zip(keys.tolist(), times.tolist(), strict=True):
        exact[key // len(added)] += added[key % len(added)] * n
    return np.array([float(f) for f in exact], dtype=np.float64)


def sentence_numbers(reference: pl.DataFrame) -> tuple[np.ndarray, pl.DataFrame]:
    """The number of each reference unit's sentence (``doc``, ``genre``, ``sent``; units of one
    sentence apart from each other are one sentence still), and each sentence's keys, by
    number: the runs of units are numbered, not a million keys hashed."""
    keys = ["doc", "genre", "sent"]
    runs = reference.select(pl.struct(keys).rle_id()).to_series()
    heads, of_run = numbered(reference.select(keys).filter(runs.is_first_distinct()), "_sent")
    return of_run.to_numpy()[runs.to_numpy()], heads.drop("_sent")


def sentence_frame(cases: Coded, heads: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Per granularity, the counts and SILOK_moy of one evaluation's ``cases`` by sentence
    (``heads``: each sentence's keys, by number): ``doc``, ``genre``, ``sent``,
    :data:`COUNTS`, ``SILOK_moy``, a row per sentence holding a case, in sentence order."""
    out = {}
    for granularity, (counts, silok) in sentence_counts(cases, heads.height).items():
        held = counts[:, 0] > 0
        out[granularity] = pl.concat([
            heads.filter(pl.Series(held)),
            pl.DataFrame(counts[held], schema=list(COUNTS), orient="row"),
            pl.DataFrame({"SILOK_moy": silok[held]})], how="horizontal")
    return out
