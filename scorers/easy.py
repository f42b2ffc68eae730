"""EASY parsing evaluation: constituents and relations as word-form address ranges.

Paroubek, Robba, Vilnat, Ayache, *Data, Annotations and Measures in EASY, the Evaluation Campaign
for Parsers of French*, LREC 2006; precise statement: docs/metrics/parsing.md. Every constituent
and every relation argument is mapped onto a range of word-form addresses of the reference (the
paper's "unique representation made of word form address ranges"); a hypothesis range H is
compared with a reference range R by one of the five range equality functions of the paper's
table 5 (EQUAL, FUZZY, INCLUDE, INTERSECTION, BARYCENTER), under one of the three constituent modes
of its footnote 17 (HYP, DEFHYP, REF): 3 modes x 5 functions = the paper's 15 ways of computing
relation precision and recall. Matching is one-to-one inside a sentence (a maximum bipartite
matching), so a relaxed function never counts an item twice.

Inputs are EASY items tables (one row per form, group and relation role;
:data:`etl.easy_items.SCHEMA`) as Polars frames. Everything is joins and expressions over the
whole corpus at once; the only Python loops run over the 5 functions and the 3 modes. The combined
treebank (votes of the submissions, the consensus items) is in :mod:`scorers.easy_consensus`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from scorehouse.scorers.codes import numbered
from scorehouse.scorers.lcs import align, encode

FUNCTIONS = ("EQUAL", "FUZZY", "INCLUDE", "INTERSECTION", "BARYCENTER")
MODES = ("HYP", "DEFHYP", "REF")
RANGE_COLUMNS = ("kind", "sent", "item", "type", "role_no", "first", "last", "attr", "empty")
POSITION = pl.Int32  # the dtype of word-form positions (also in scorers.easy_consensus)
_F = [f.lower() for f in FUNCTIONS]
_M = [f"m_{f}" for f in _F]


def align_forms(base: pl.DataFrame, hyp: pl.DataFrame) -> pl.DataFrame:
    """Re-align a submission's word forms onto the base forms, sentence by sentence.

    Sentences are paired by ``sent`` id (hyp sentences absent from ``base`` are ignored). The form
    sequences of the whole file are aligned at once by LCS (``scorers.lcs.align`` on
    ``encode`` codes), a distinct sentinel code opening every sentence; a pair that would still join
    two different sentences (an LCS of equal length may skip a sentinel) is dropped. Then the forms
    of a gap between two aligned forms (or a sentence edge) are paired position by position when
    both sides of the gap hold the same number of forms (a typo'd form).

    Returns ``sent, hyp_form_no, base_form_no`` (null: unaligned) ``, hyp_form, base_form``: one row
    per hyp form of a paired sentence, in base sentence order then hyp form order.
    """
    sents = (base.filter(pl.col("kind") == "form").select("sent").unique(maintain_order=True)
             .with_row_index("k").with_columns(pl.col("k").cast(pl.Int64)))
    b = _sequence(base, sents)
    h = _sequence(hyp, sents)
    b_codes, h_codes = encode(b["form"], h["form"])
    # sentence k's sentinel: a code after every form's, so that the codes stay small
    # non-negative numbers, which the LCS counts without sorting them (scorers.lcs._ranks)
    after = int(max(b_codes.max(initial=-1), h_codes.max(initial=-1))) + 1
    b_codes = np.where(b["form_no"].to_numpy() == 0, after + b["k"].to_numpy(), b_codes)
    h_codes = np.where(h["form_no"].to_numpy() == 0, after + h["k"].to_numpy(), h_codes)
    partner = align(b_codes, h_codes)
    base_of_hyp = np.full(len(h_codes), -1, dtype=np.int64)
    base_of_hyp[partner[partner >= 0]] = np.flatnonzero(partner >= 0)
    b_k, b_no = b["k"].to_numpy(), b["form_no"].to_numpy()
    paired = base_of_hyp >= 0
    same = np.zeros(len(h_codes), dtype=bool)
    same[paired] = b_k[base_of_hyp[paired]] == h["k"].to_numpy()[paired]
    lcs = np.where(same, b_no[np.maximum(base_of_hyp, 0)], 0)
    n_base = b.group_by("k").agg((pl.len() - 1).alias("n_base"))
    out = (h.with_columns(pl.Series("lcs", lcs).replace(0, None).cast(POSITION))
           .filter(pl.col("form_no") > 0)
           .join(n_base, on="k", how="left", maintain_order="left")
           .with_columns(pl.when(pl.col("lcs").is_not_null()).then(pl.col("form_no")).alias("a_h"))
           .with_columns(pl.col("a_h").fill_null(strategy="forward").over("k").fill_null(0)
                         .alias("prev_h"),
                         pl.col("lcs").fill_null(strategy="forward").over("k").fill_null(0)
                         .alias("prev_b"),
                         pl.col("a_h").fill_null(strategy="backward").over("k").alias("next_h"),
                         pl.col("lcs").fill_null(strategy="backward").over("k").alias("next_b"),
                         pl.col("form_no").max().over("k").alias("n_hyp"))
           .with_columns(pl.col("next_h").fill_null(pl.col("n_hyp") + 1),
                         pl.col("next_b").fill_null(pl.col("n_base") + 1))
           .with_columns(pl.when(pl.col("lcs").is_not_null()).then(pl.col("lcs"))
                         .when(pl.col("next_h") - pl.col("prev_h")
                               == pl.col("next_b") - pl.col("prev_b"))
                         .then(pl.col("prev_b") + pl.col("form_no") - pl.col("prev_h"))
                         .cast(POSITION).alias("base_form_no")))
    base_forms = (b.filter(pl.col("form_no") > 0)
                  .select("sent", pl.col("form_no").alias("base_form_no"),
                          pl.col("form").alias("base_form")))
    return (out.join(base_forms, on=["sent", "base_form_no"], how="left", maintain_order="left")
            .select("sent", pl.col("form_no").alias("hyp_form_no"), "base_form_no",
                    pl.col("form").alias("hyp_form"), "base_form"))


def _sequence(items: pl.DataFrame, sents: pl.DataFrame) -> pl.DataFrame:
    """Forms of the paired sentences in base sentence order, a sentinel row (form_no 0) first."""
    forms = items.filter(pl.col("kind") == "form").select("sent", pl.col("form_no").cast(POSITION),
                                                            "form")
    forms = _by_sentence(forms, sents.select("sent", "k"), "k").drop_nulls("k")
    opening = sents.select("sent", pl.lit(0, POSITION).alias("form_no"), pl.lit("").alias("form"),
                           "k")
    return pl.concat([opening, forms]).sort("k", "form_no")


def _by_sentence(rows: pl.DataFrame, per_sentence: pl.DataFrame, column: str) -> pl.DataFrame:
    """``rows`` with ``column`` of ``per_sentence`` (one row per ``sent``; null for a sentence
    it lacks), in their order: the left join on ``sent``, made once per run of rows of one
    sentence (an items table comes sentence by sentence: a 372,000-row submission has 10,000
    runs) and spread by position, where a join hashed every row's sentence id (0.057 -> 0.01 s
    of CPU that submission)."""
    start = (pl.col("sent") != pl.col("sent").shift()).fill_null(True)
    run = rows.select(start.cum_sum().alias("run") - 1)["run"]
    firsts = rows.filter(start).select("sent").join(per_sentence, on="sent", how="left",
                                                    maintain_order="left")
    return rows.with_columns(firsts[column].gather(run))


def _forms(items: pl.DataFrame) -> pl.DataFrame:
    return (items.filter(pl.col("kind") == "form")
            .select("sent", "item", pl.col("form_no").cast(POSITION), "parent"))


def _group_ranges(items: pl.DataFrame, form_pos: pl.DataFrame) -> pl.DataFrame:
    """``sent, item, type, first, last``: [min, max] of the base positions (``pos``) of a group's
    forms; null when none of them has a position."""
    spans = (form_pos.drop_nulls("parent").group_by("sent", "parent")
             .agg(pl.col("pos").min().alias("first"), pl.col("pos").max().alias("last")))
    return (items.filter(pl.col("kind") == "group").select("sent", "item", "type")
            .join(spans, left_on=["sent", "item"], right_on=["sent", "parent"], how="left",
                  maintain_order="left"))


def _cover(groups: pl.DataFrame) -> pl.DataFrame:
    """``sent, pos, c_first, c_last``: the group covering each base position (group ranges)."""
    return (groups.drop_nulls("first")
            .select("sent", pl.int_ranges("first", pl.col("last") + 1, dtype=POSITION).alias("pos"),
                    pl.col("first").alias("c_first"), pl.col("last").alias("c_last"))
            .explode("pos").unique(["sent", "pos"], keep="first", maintain_order=True))


def _assemble(items: pl.DataFrame, groups: pl.DataFrame, targets: pl.DataFrame) -> pl.DataFrame:
    """Constituent rows from ``groups``; relation role rows whose ``target`` is resolved through
    ``targets`` (``sent, target, first, last``)."""
    constituents = groups.select(pl.lit("constituent").alias("kind"), "sent", "item", "type",
                                 pl.lit(0, pl.Int8).alias("role_no"), "first", "last",
                                 pl.lit(None, pl.String).alias("attr"),
                                 pl.lit(False).alias("empty"))
    relations = (items.filter(pl.col("kind") == "relation")
                 .select("sent", "item", "type", pl.col("role_no").cast(pl.Int8), "target", "attr")
                 .join(targets, on=["sent", "target"], how="left", maintain_order="left")
                 .select(pl.lit("relation").alias("kind"), "sent", "item", "type", "role_no",
                         "first", "last", "attr", pl.col("target").is_null().alias("empty")))
    return pl.concat([constituents, relations]).with_columns(pl.col("first", "last").cast(POSITION))


def _targets(groups: pl.DataFrame, forms: pl.DataFrame) -> pl.DataFrame:
    return pl.concat([groups.select("sent", pl.col("item").alias("target"), "first", "last"),
                      forms.select("sent", pl.col("item").alias("target"), "first", "last")])


def reference_ranges(ref: pl.DataFrame) -> pl.DataFrame:
    """Ranges R of the reference: one row per constituent and per relation role.

    A constituent covers [first, last] of its forms' positions; a relation argument naming a group
    is that group's range, one naming a form is the reference group containing the form, else the
    form alone; an empty role (COORD's coord-g) has null ``first``/``last`` and ``empty`` true.
    Columns: ``kind, sent, item, type, role_no, first, last, attr, empty``.
    """
    forms = _forms(ref).with_columns(pl.col("form_no").alias("pos"))
    groups = _group_ranges(ref, forms)
    cover = _cover(groups)
    forms = (forms.join(cover, on=["sent", "pos"], how="left", maintain_order="left")
             .select("sent", "item", pl.coalesce("c_first", "pos").alias("first"),
                     pl.coalesce("c_last", "pos").alias("last")))
    return _assemble(ref, groups, _targets(groups, forms))


def hypothesis_ranges(hyp: pl.DataFrame, alignment: pl.DataFrame, ref: pl.DataFrame,
                      mode: str) -> pl.DataFrame:
    """Ranges H of a submission, on the base positions of ``alignment`` (:func:`align_forms`).

    Only sentences of ``ref`` count. A hyp constituent's range is [min, max] of the base positions
    of its aligned forms: a hyp form left unaligned (deleted) inside that interval is thus covered;
    null when none of its forms is aligned. Constituent ranges do not depend on ``mode``; a relation
    argument naming a form becomes (paper, footnote 17):

    - HYP: the hyp group containing the form, else the form alone;
    - DEFHYP: the hyp group containing it, else the reference group containing its aligned form,
      else the form alone;
    - REF: the reference group containing its aligned form, else the form alone;

    one naming a group is the group's range (REF: the reference group containing the group's first
    aligned form, else the group's own range). An unaligned form alone is a null range
    (``empty`` false: it matches nothing). Columns as :func:`reference_ranges`.
    """
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {MODES}, found {mode!r}")
    return _mode_ranges(_prepare(hyp, alignment, ref), mode)


def _prepare(hyp: pl.DataFrame, alignment: pl.DataFrame, ref: pl.DataFrame) -> tuple:
    """What every mode shares: the hyp items of ref sentences, the hyp group ranges, the ref group
    cover, and each hyp form with its base position ``pos``, its hyp group's range ``h_first,
    h_last`` and the range ``c_first, c_last`` of the ref group covering ``pos``."""
    hyp = _by_sentence(hyp, ref.select("sent").unique().with_columns(kept=True), "kept")
    hyp = hyp.filter(pl.col("kept").is_not_null()).drop("kept")
    pos = alignment.select("sent", pl.col("hyp_form_no").cast(POSITION).alias("form_no"),
                           pl.col("base_form_no").cast(POSITION).alias("pos"))
    forms = _forms(hyp).join(pos, on=["sent", "form_no"], how="left", maintain_order="left")
    groups = _group_ranges(hyp, forms)
    cover = _cover(_group_ranges(ref, _forms(ref).with_columns(pl.col("form_no").alias("pos"))))
    own = groups.select("sent", pl.col("item").alias("parent"), pl.col("first").alias("h_first"),
                        pl.col("last").alias("h_last"))
    forms = (forms.join(own, on=["sent", "parent"], how="left", maintain_order="left")
             .join(cover, on=["sent", "pos"], how="left", maintain_order="left"))
    return hyp, groups, cover, forms


def _mode_ranges(prepared: tuple, mode: str) -> pl.DataFrame:
    hyp, groups, cover, forms = prepared
    in_hyp, in_ref = pl.col("parent").is_not_null(), pl.col("c_first").is_not_null()
    ends = []
    for end in ("first", "last"):
        if mode == "HYP":
            value = pl.when(in_hyp).then(pl.col(f"h_{end}")).otherwise(pl.col("pos"))
        elif mode == "DEFHYP":
            value = (pl.when(in_hyp).then(pl.col(f"h_{end}")).when(in_ref).then(pl.col(f"c_{end}"))
                     .otherwise("pos"))
        else:
            value = pl.when(in_ref).then(pl.col(f"c_{end}")).otherwise(pl.col("pos"))
        ends.append(value.alias(end))
    group_targets = groups
    if mode == "REF":
        group_targets = (groups.join(cover, left_on=["sent", "first"], right_on=["sent", "pos"],
                                     how="left", maintain_order="left")
                         .with_columns(pl.coalesce("c_first", "first").alias("first"),
                                       pl.coalesce("c_last", "last").alias("last")))
    return _assemble(hyp, groups, _targets(group_targets, forms.select("sent", "item", *ends)))


def candidates(hyp_ranges: pl.DataFrame, ref_ranges: pl.DataFrame) -> pl.DataFrame:
    """Every (hyp item, ref item) pair of one sentence, kind and type for which some function holds.

    Role by role (``role_no``), with H = [hf, hl] and R = [rf, rl] and |H ∩ R| = max(0, min(hl, rl)
    - max(hf, rf) + 1): EQUAL H = R; FUZZY |H| + |R| - 2|H ∩ R| <= 1 (symmetric difference);
    INCLUDE H ⊆ R; INTERSECTION |H ∩ R| > 0; BARYCENTER 2|H ∩ R| / (|H| + |R|) > 0.25 (computed as
    8|H ∩ R| > |H| + |R|, exact). An empty role matches only an empty role; a null (unaligned) hyp
    range matches nothing. A pair holds a function when it holds for every role and both items
    have the same roles. Columns: [``mode``,] ``kind, sent, type, hyp_item, ref_item, equal, fuzzy,
    include, intersection, barycenter`` (``mode`` when ``hyp_ranges`` has one).
    """
    keys = (["mode"] if "mode" in hyp_ranges.columns else []) + ["kind", "sent", "type"]
    h = hyp_ranges.select(*keys, pl.col("item").alias("hyp_item"), "role_no",
                          pl.col("first").alias("hf"), pl.col("last").alias("hl"),
                          pl.col("empty").alias("he"),
                          pl.len().over(*keys, "item").alias("h_roles"))
    r = ref_ranges.select("kind", "sent", "type", pl.col("item").alias("ref_item"), "role_no",
                          pl.col("first").alias("rf"), pl.col("last").alias("rl"),
                          pl.col("empty").alias("re"),
                          pl.len().over("kind", "sent", "item").alias("r_roles"))
    inter = pl.max_horizontal(pl.min_horizontal("hl", "rl") - pl.max_horizontal("hf", "rf") + 1, 0)
    size = (pl.col("hl") - pl.col("hf") + 1) + (pl.col("rl") - pl.col("rf") + 1)
    tests = {"equal": (pl.col("hf") == pl.col("rf")) & (pl.col("hl") == pl.col("rl")),
             "fuzzy": size - 2 * inter <= 1,
             "include": (pl.col("hf") >= pl.col("rf")) & (pl.col("hl") <= pl.col("rl")),
             "intersection": inter > 0,
             "barycenter": 8 * inter > size}
    both_empty = pl.col("he") & pl.col("re")
    # Every function implies INTERSECTION on non-empty ranges: role pairs failing both it and
    # "both empty" cannot belong to a pair, so they are dropped before grouping (fewer rows).
    roles = (h.lazy().join(r.lazy(), on=["kind", "sent", "type", "role_no"])
             .filter(both_empty
                     | (~pl.col("he") & ~pl.col("re") & tests["intersection"]).fill_null(False))
             .with_columns([(both_empty | (~pl.col("he") & ~pl.col("re") & test).fill_null(False))
                            .alias(name) for name, test in tests.items()]))
    pairs = (roles.group_by(*keys, "hyp_item", "ref_item")
             .agg(pl.len().alias("n"), pl.col("h_roles").first(), pl.col("r_roles").first(),
                  *[pl.col(f).all() for f in _F])
             .filter((pl.col("n") == pl.col("h_roles")) & (pl.col("n") == pl.col("r_roles")))
             .collect())
    return pairs.select(*keys, "hyp_item", "ref_item", *_F).sort(*keys, "hyp_item", "ref_item")


def one_to_one(cands: pl.DataFrame) -> pl.DataFrame:
    """Add ``m_equal ... m_barycenter``: the pair belongs to the maximum one-to-one matching for
    that function (``scipy.sparse.csgraph.maximum_bipartite_matching``, Hopcroft-Karp, on one sparse
    matrix per function, rows = hyp items, columns = ref items). Edges only join items of one
    sentence, kind and type (and mode), so the global maximum is the union of the per-sentence
    maxima. The input is sorted first, so the result is deterministic."""
    # imported here: a run with nothing to score does not pay scipy's import (0.4 s)
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    keys = (["mode"] if "mode" in cands.columns else []) + ["kind", "sent", "type"]
    out = cands.sort(*keys, "hyp_item", "ref_item", nulls_last=True)
    ids = []
    for side in ("hyp_item", "ref_item"):
        ids.append(numbered(out.select(*keys, side))[1].to_numpy().astype(np.int64))
    rows, cols = ids
    n_rows = int(rows.max()) + 1 if len(rows) else 0
    n_cols = int(cols.max()) + 1 if len(cols) else 0
    flags = []
    for f, m in zip(_F, _M):
        edge = out[f].to_numpy()
        graph = csr_matrix((np.ones(int(edge.sum()), dtype=np.int8), (rows[edge], cols[edge])),
                           shape=(n_rows, n_cols))
        match = (maximum_bipartite_matching(graph, perm_type="column") if n_rows
                 else np.empty(0, np.int64))
        flags.append(pl.Series(m, edge & (match[rows] == cols) if len(rows) else edge))
    return out.with_columns(flags)


def sentence_counts(hyp_ranges: pl.DataFrame, ref_ranges: pl.DataFrame,
                    matched: pl.DataFrame) -> pl.DataFrame:
    """Additive counts, one mode at a time: one row per (sent, kind, type) present on either side
    with ``hyp`` (hyp items), ``ref`` (ref items) and ``matched_equal ... matched_barycenter``
    (pairs of the one-to-one matching; ``matched`` is :func:`one_to_one`'s output)."""
    keys = ["sent", "kind", "type"]
    hyp = (hyp_ranges.select(*keys, "item").unique().group_by(keys)
           .agg(pl.len().cast(pl.Int64).alias("hyp")))
    ref = (ref_ranges.select(*keys, "item").unique().group_by(keys)
           .agg(pl.len().cast(pl.Int64).alias("ref")))
    pairs = matched.group_by(keys).agg([pl.col(m).sum().cast(pl.Int64).alias(f"matched_{f}")
                                        for f, m in zip(_F, _M)])
    counts = (ref.join(hyp, on=keys, how="full", coalesce=True)
              .join(pairs, on=keys, how="left"))
    return (counts.with_columns(pl.exclude(keys).fill_null(0))
            .select(*keys, "hyp", "ref", *[f"matched_{f}" for f in _F]).sort(keys))


@dataclass
class Scoring:
    """Everything :func:`score` computes. ``ranges``: hyp ranges with ``mode`` (null for the
    constituents, computed once; one set of relation rows per mode); ``ref_ranges``: the reference
    ranges; ``candidates``: :func:`one_to_one` output with ``mode`` (constituent pairs once, mode
    null); ``counts``: :func:`sentence_counts` with ``mode``, the constituent rows repeated under
    every mode so that each mode has complete counts."""
    alignment: pl.DataFrame
    ranges: pl.DataFrame
    ref_ranges: pl.DataFrame
    candidates: pl.DataFrame
    counts: pl.DataFrame


def score(ref: pl.DataFrame, hyp: pl.DataFrame, modes: tuple[str, ...] = MODES) -> Scoring:
    """Score one submission against the reference in the given modes, for all five functions."""
    if not modes or set(modes) - set(MODES):
        raise ValueError(f"modes: expected some of {MODES}, found {modes!r}")
    alignment = align_forms(ref, hyp)
    ref_ranges = reference_ranges(ref)
    is_cons = pl.col("kind") == "constituent"
    prepared = _prepare(hyp, alignment, ref)
    per_mode = {m: _mode_ranges(prepared, m) for m in modes}
    mode_col = pl.lit(None, pl.String).alias("mode")
    first = next(iter(per_mode.values()))
    ranges = pl.concat([first.filter(is_cons).with_columns(mode_col)]
                       + [r.filter(~is_cons).with_columns(pl.lit(m).alias("mode"))
                          for m, r in per_mode.items()])
    matched = one_to_one(candidates(ranges, ref_ranges))
    cons_counts = sentence_counts(ranges.filter(is_cons), ref_ranges.filter(is_cons),
                                  matched.filter(is_cons))
    rel_ref = ref_ranges.filter(~is_cons)
    counts = pl.concat([
        pl.concat([cons_counts, sentence_counts(ranges.filter(pl.col("mode") == m), rel_ref,
                                                matched.filter(pl.col("mode") == m))])
        .sort("sent", "kind", "type").with_columns(pl.lit(m).alias("mode")) for m in modes])
    return Scoring(alignment, ranges, ref_ranges, matched,
                   counts.select("mode", pl.exclude("mode")))


def f_measure(matched, hyp, ref):
    """P = matched / hyp, R = matched / ref, F = 2PR / (P + R), i.e. the paper's footnote 16 with
    alpha = 0.5. Numbers or arrays (numpy, Polars series); a ratio with a zero denominator is 0
    (no hyp item: P = 0; no ref item: R = 0; P + R = 0: F = 0). Returns (P, R, F)."""
    m, h, r = (np.asarray(x, dtype=np.float64) for x in (matched, hyp, ref))
    p = np.divide(m, h, out=np.zeros(np.broadcast(m, h).shape), where=h > 0)
    rc = np.divide(m, r, out=np.zeros(np.broadcast(m, r).shape), where=r > 0)
    f = np.divide(2 * p * rc, p + rc, out=np.zeros(np.broadcast(p, rc).shape), where=(p + rc) > 0)
    if p.ndim == 0:
        return float(p), float(rc), float(f)
    return p, rc, f
