"""Terminology acquisition: graded term precision and recall (TP, TR), the classical measures, the
variant and relation links, and the validation effort (the Termometer paper §6;
docs/metrics/terms.md).

Everything here starts from the alignment table of :func:`scorers.terms.nearest`: one row per
distinct output term e with its nearest reference term r(e) and d(e) = dt(e, r(e)). For a
threshold sigma:

- pert(e) = 1 - d(e) if d(e) <= sigma (with a 1e-9 tolerance) else 0;
- the partition P(S): the output terms with d(e) <= sigma grouped by r(e), every other output term
  a part of its own; Pert(p) = max over e in p of pert(e) = 1 - min over e in p of d(e);
- TP = Σ_p Pert(p) / |P(S)|, TR = Σ_p Pert(p) / |R|, F = 2 TP TR / (TP + TR).

A sigma sweep therefore needs, per reference term r, only the smallest d among the output terms
aligned to it and, per output term, d(e): :func:`sweep` evaluates every sigma from those two
vectors (numpy), without recomputing a distance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import polars as pl

from scorehouse.scorers.assignment import connected_components, linear_sum_assignment
from scorehouse.scorers.terms import SLACK, within

SIGMAS = tuple(round(0.05 * k, 2) for k in range(21))
SWEEP_SCHEMA = {"sigma": pl.Float64, "TP": pl.Float64, "TR": pl.Float64, "F": pl.Float64,
                "parts": pl.Int64, "aligned_terms": pl.Int64}
LINK_SCHEMA = {"term1": pl.String, "type": pl.String, "term2": pl.String, "status": pl.String}
LINK_SCORE_SCHEMA = {"type": pl.String, "matched": pl.Int64, "reference_links": pl.Int64,
                     "system_links": pl.Int64, "precision": pl.Float64, "recall": pl.Float64,
                     "f1": pl.Float64}
EDIT_SCHEMA = {"edit": pl.String, "raw_term": pl.String, "validated_term": pl.String,
               "dt": pl.Float64}


def _ratio(num, den):
    return num / den if den else 0.0


def f_score(p, r) -> np.ndarray:
    """F = 2 P R / (P + R), 0 where P + R = 0 (scalars or arrays, elementwise)."""
    p, r = np.asarray(p, dtype=np.float64), np.asarray(r, dtype=np.float64)
    den = p + r
    return np.divide(2 * p * r, den, out=np.zeros_like(den, dtype=np.float64), where=den > 0)


# ------------------------------------------------------------------------------------ TP, TR

def sweep(alignment: pl.DataFrame, reference_size: int,
          sigmas: Sequence[float] = SIGMAS) -> pl.DataFrame:
    """TP, TR, F, |P(S)| (``parts``) and the number of output terms with d(e) <= sigma
    (``aligned_terms``) for each sigma, from a :func:`scorers.terms.nearest` table (columns
    ``term``, ``nearest``, ``dt``; a term listed twice counts once, a null ``dt`` (empty
    reference) is never aligned). Paper figure 3."""
    frame = alignment.unique("term", keep="first", maintain_order=True)
    d = frame["dt"].fill_null(np.inf).to_numpy().astype(np.float64)
    per_reference = (frame.filter(pl.col("dt").is_not_null()).group_by("nearest")
                     .agg(pl.col("dt").min())["dt"].to_numpy().astype(np.float64))
    s = np.asarray(sigmas, dtype=np.float64)[:, None] + SLACK
    aligned = (d[None, :] <= s).sum(axis=1)
    open_parts = per_reference[None, :] <= s                 # reference terms with an aligned part
    total = np.where(open_parts, 1.0 - per_reference[None, :], 0.0).sum(axis=1)   # Σ_p Pert(p)
    parts = open_parts.sum(axis=1) + (len(d) - aligned)
    tp = np.divide(total, parts, out=np.zeros_like(total), where=parts > 0)
    tr = total / reference_size if reference_size else np.zeros_like(total)
    return pl.DataFrame({"sigma": np.asarray(sigmas, dtype=np.float64), "TP": tp, "TR": tr,
                         "F": f_score(tp, tr), "parts": parts, "aligned_terms": aligned},
                        schema=SWEEP_SCHEMA)


def graded(alignment: pl.DataFrame, reference_size: int, sigma: float) -> dict:
    """Graded term precision and recall at one sigma (paper §6.1.2-6.1.3): ``{"sigma", "TP", "TR",
    "F", "parts", "aligned_terms"}`` with parts = |P(S)|, aligned_terms = |{e : d(e) <= sigma}|.
    An empty output gives TP = TR = F = 0 and parts = 0; an empty reference TR = 0."""
    return sweep(alignment, reference_size, (sigma,)).row(0, named=True)


def classical(output: Sequence[str], reference: Sequence[str]) -> dict:
    """Classical precision P = |S ∩ R| / |S| and recall R = |S ∩ R| / |R| by exact match (after
    normalisation), duplicates counted once: ``{"P", "R", "F_exact", "matches"}`` (0 for an empty
    denominator). Equal to TP and TR at sigma = 0."""
    s, r = set(output), set(reference)
    matches = len(s & r)
    p, rec = _ratio(matches, len(s)), _ratio(matches, len(r))
    return {"P": p, "R": rec, "F_exact": _ratio(2 * p * rec, p + rec), "matches": matches}


# ------------------------------------------------------------------------------------ links

def link_pairs(groups: pl.DataFrame) -> pl.DataFrame:
    """Classes of variants (``group_id``, ``term``) to their unordered pairs (paper §6.2): ``term1``
    < ``term2`` (lexicographic), unique over all classes."""
    g = groups.select("group_id", "term").unique()
    return (g.join(g, on="group_id", suffix="_2").filter(pl.col("term") < pl.col("term_2"))
            .select(term1="term", term2="term_2").unique().sort("term1", "term2"))


def _oriented(links: pl.DataFrame, symmetric: Callable[[str], bool] | None) -> pl.DataFrame:
    """Links as unique (term1, type, term2); a symmetric link (type "" = variant pair, or
    ``symmetric(type)``) is stored with term1 <= term2."""
    frame = links.select("term1",
                         pl.col("type") if "type" in links.columns else pl.lit("").alias("type"),
                         "term2").cast(pl.String)
    types = frame["type"].unique().to_list()
    sym = [t for t in types if t == "" or (symmetric is not None and symmetric(t))]
    swap = pl.col("type").is_in(sym) & (pl.col("term1") > pl.col("term2"))
    return frame.with_columns(term1=pl.when(swap).then("term2").otherwise("term1"),
                              term2=pl.when(swap).then("term1").otherwise("term2")).unique()


def link_scores(reference: pl.DataFrame, system: pl.DataFrame, returned: Sequence[str],
                symmetric: Callable[[str], bool] | None = None
                ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Variant pairs (``term1``, ``term2``, ``type`` = "") or relation triples (``term1``, ``type``,
    ``term2``) against the reference restricted to the links whose two terms the system returned
    (reference "2 bis", paper §6.2-6.3). Symmetric links (every variant pair; relation types with
    ``symmetric(type)`` true) are unordered. Returns ``links`` (term1, type, term2, status in both |
    missed | spurious) and ``scores`` (type: "" for all types, then one row per non-empty type;
    matched, reference_links, system_links, precision, recall, f1; 0 for empty denominators)."""
    kept = pl.Series("t", list(returned), dtype=pl.String).implode()
    ref = _oriented(reference, symmetric).filter(pl.col("term1").is_in(kept)
                                                 & pl.col("term2").is_in(kept))
    proposed = _oriented(system, symmetric)
    key = ["term1", "type", "term2"]
    links = (ref.with_columns(in_ref=pl.lit(True))
             .join(proposed.with_columns(in_sys=pl.lit(True)), on=key, how="full", coalesce=True)
             .select(*key, status=pl.when(pl.col("in_ref") & pl.col("in_sys")).then(pl.lit("both"))
                     .when(pl.col("in_ref")).then(pl.lit("missed")).otherwise(pl.lit("spurious")))
             .sort("type", "term1", "term2"))
    counts = [pl.len().alias("n"), (pl.col("status") == "both").sum().alias("matched"),
              (pl.col("status") != "spurious").sum().alias("reference_links"),
              (pl.col("status") != "missed").sum().alias("system_links")]
    overall = links.select(counts).with_columns(type=pl.lit(""))
    per_type = links.filter(pl.col("type") != "").group_by("type").agg(counts).sort("type")
    table = pl.concat([overall, per_type], how="diagonal").cast(
        {"matched": pl.Int64, "reference_links": pl.Int64, "system_links": pl.Int64})
    p = table["matched"].to_numpy() / np.maximum(table["system_links"].to_numpy(), 1)
    r = table["matched"].to_numpy() / np.maximum(table["reference_links"].to_numpy(), 1)
    scores = table.select("type", "matched", "reference_links", "system_links").with_columns(
        precision=pl.Series(p, dtype=pl.Float64), recall=pl.Series(r, dtype=pl.Float64),
        f1=pl.Series(f_score(p, r), dtype=pl.Float64))
    return links.cast(LINK_SCHEMA), scores.cast(LINK_SCORE_SCHEMA)


# ------------------------------------------------------------------------------------ validation

def validation_edits(raw: Sequence[str], validated: Sequence[str], sigma: float) -> pl.DataFrame:
    """The expert's validation effort from a raw output to its validated version (the Termometer
    paper's scenario 2, section 4, figure 1; docs/metrics/terms.md): ``kept`` (in both),
    ``modified`` (a raw-only term edited into a validated-only one), ``deleted`` (raw-only),
    ``added`` (validated-only). Modifications: a minimum-cost assignment (scipy
    ``linear_sum_assignment``) between raw-only and validated-only terms where a pair costs its dt
    when dt <= sigma, and 1 otherwise (as much as a deletion plus an addition, so it is never
    kept): the effort Σ dt(modified) + (deleted + added) / 2 is minimal. Solved on each connected
    component of the graph of pairs with dt <= sigma (:func:`scorers.terms.within`, no all-pairs
    matrix). Columns ``edit``, ``raw_term`` (null for
    added), ``validated_term`` (null for deleted), ``dt`` (0 for kept, dt for modified, else null);
    rows kept, modified, deleted (raw order), added (validated order)."""
    raw, validated = list(dict.fromkeys(raw)), list(dict.fromkeys(validated))
    in_validated, in_raw = set(validated), set(raw)
    kept = [t for t in raw if t in in_validated]
    raw_only = [t for t in raw if t not in in_validated]
    val_only = [t for t in validated if t not in in_raw]
    pairs = within(raw_only, val_only, sigma)
    i, j, d = (pairs[c].to_numpy() for c in ("output_pos", "reference_pos", "dt"))
    chosen = np.zeros(len(i), dtype=bool)
    if len(i):
        m = len(raw_only)
        label = connected_components(m + len(val_only), i, m + j)
        component = label[i]
        order = np.argsort(component, kind="stable")
        bounds = np.flatnonzero(np.diff(component[order])) + 1
        for edges in np.split(order, bounds):
            if len(edges) == 1:
                chosen[edges] = True
                continue
            rows, ri = np.unique(i[edges], return_inverse=True)
            cols, ci = np.unique(j[edges], return_inverse=True)
            cost = np.ones((len(rows), len(cols)))
            cost[ri, ci] = d[edges]
            index = np.full(cost.shape, -1)
            index[ri, ci] = edges
            a, b = linear_sum_assignment(cost)
            picked = index[a, b]
            chosen[picked[picked >= 0]] = True
    mi, mj, md = i[chosen], j[chosen], d[chosen]
    order = np.argsort(mi, kind="stable")
    mi, mj, md = mi[order], mj[order], md[order]
    paired_raw, paired_val = set(mi.tolist()), set(mj.tolist())
    deleted = [t for k, t in enumerate(raw_only) if k not in paired_raw]
    added = [t for k, t in enumerate(val_only) if k not in paired_val]
    return pl.DataFrame({
        "edit": (["kept"] * len(kept) + ["modified"] * len(mi) + ["deleted"] * len(deleted)
                 + ["added"] * len(added)),
        "raw_term": kept + [raw_only[k] for k in mi] + deleted + [None] * len(added),
        "validated_term": kept + [val_only[k] for k in mj] + [None] * len(deleted) + added,
        "dt": [0.0] * len(kept) + md.tolist() + [None] * (len(deleted) + len(added))},
        schema=EDIT_SCHEMA)
