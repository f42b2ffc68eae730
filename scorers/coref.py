"""Coreference (reference resolution): comparing two partitions of mentions.

Popescu-Belis, Évaluation numérique de la résolution de la référence; statement:
docs/metrics/coref.md. Everything derives from the **contingency table** n_ij = |K_i ∩ R_j| of the
key partition P_K and the response partition P_R of each document, plus the twinless mentions
(key-only, response-only): :func:`contingency`. :func:`statistics` turns it into per-document
additive counts for every measure (long form), which :func:`scores` sums over documents (micro
average) and :func:`macro` averages per document.

Measures: mention detection; MUC (DÉF.6-7), B3 (DÉF.9), CEAF-m, CEAF-e, BLANC and LEA exactly as
the CoNLL reference scorer v8.01 (LEA from its LEA branch) computes them; the paper's kappa, C,
XC, RCVT, D-error and H (:mod:`scorers.coref_paper`).

Two conventions (docs/metrics/coref.md, "Zero denominators"), named in every signature:

- ``"conll"`` (the reference scorer): recall over key mentions, precision over response mentions,
  response-only mentions kept with no credit, 0/0 = 0.
- ``"paper"``: E = E_K ∪ E_R, each partition completed by singletons for the mentions it lacks
  (DÉF.17), and a zero denominator gives 1 (100 %).

The paper's measures (kappa, C, XC, RCVT, D-error, H) need one set E: they are always computed
on the completed partitions (DÉF.17); under ``"conll"`` only their zero-denominator rule differs.
MUC and C are unchanged by the completion (§5.3). Singletons removed: under ``"conll"`` from both
sides; under ``"paper"`` as §5.2 says (:func:`statistics`, docs/metrics/coref.md).

Aggregation over documents (:func:`scores`, :func:`document_scores`, :func:`macro`, and how
kappa, RCVT, D-error, H and BLANC are pooled) is in :mod:`scorers.coref_aggregation`, with the
names of the conventions; its public names are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from scorehouse.scorers import coref_paper as paper
from scorehouse.scorers.assignment import (
    connected_components,
    linear_sum_assignment,
    sparse_assignment,
)
from scorehouse.scorers.coref_aggregation import (  # noqa: F401 (re-exported)
    CONVENTIONS,
    SCORE_ORDER,
    document_scores,
    macro,
    scores,
    zero_value,
)
from scorehouse.scorers.coref_paper import (  # noqa: F401 (re-exported)
    BASELINES,
    baseline,
    pronoun_antecedent,
    restrict,
    superclass_partition,
    unique_spans,
)

RATIO_METRICS = ("mentions", "muc", "bcub", "ceafm", "ceafe", "lea", "kernel", "exclusive_kernel",
                 "entropy")
METRICS = ("mentions", "muc", "bcub", "ceafm", "ceafe", "blanc_coref", "blanc_noncoref", "lea",
           "kernel", "exclusive_kernel", "entropy", "kappa", "rcvt", "d_error")
_DENSE_LIMIT = 4_000_000  # cells of a dense CEAF matrix before switching to the sparse solver


def matched_mentions(key, response) -> pl.DataFrame:
    """Key and response mentions matched by exact span, with the rules of :func:`contingency`
    (duplicates dropped, response documents absent from the key ignored): ``doc, start, end,
    status`` (both | key: missed | response: spurious), ``key_cluster, response_cluster``, and
    the ``category`` and ``text`` of the key mention (else the response's)."""
    extra = ["category", "text"]

    def side(mentions, name):
        frame = unique_spans(mentions)
        return frame.select(*paper.SPAN, pl.col("cluster").alias(f"{name}_cluster"),
                            *(pl.col(c).alias(f"{name}_{c}") if c in frame.columns else
                              pl.lit(None, dtype=pl.String).alias(f"{name}_{c}") for c in extra))
    key_side = side(key, "key")
    resp = side(paper.in_documents(response, key), "response")
    both = key_side.join(resp, on=paper.SPAN, how="full", coalesce=True)
    return both.select(
        *paper.SPAN,
        pl.when(pl.col("key_cluster").is_null()).then(pl.lit("response"))
        .when(pl.col("response_cluster").is_null()).then(pl.lit("key")).otherwise(pl.lit("both"))
        .alias("status"),
        "key_cluster", "response_cluster",
        *(pl.coalesce(f"key_{c}", f"response_{c}").alias(c) for c in extra)).sort(*paper.SPAN)


def contingency(key, response) -> pl.DataFrame:
    """The contingency table n_ij = |K_i ∩ R_j| with the twinless mentions: one row per
    (doc, key_class, response_class) with ``n`` mentions; ``key_class`` null for response-only
    mentions, ``response_class`` null for key-only mentions; ``first`` = the smallest start of the
    cell's mentions (for tie-breaking in XC).

    Mentions match by exact span (doc, start, end). Duplicate spans are dropped, the first kept
    (v8.01 drops repeated response mentions). A key document absent from the response has all
    its mentions key-only; a key document without any mention (a row with a null span) has all
    the response's mentions response-only, so they count in every precision denominator.
    Response documents absent from the key are ignored, as v8.01 does (it loops over the key's
    documents): :func:`stray_documents` names them. A key document without any mention on
    either side keeps one row with both classes null and ``n`` = 0, so that it is scored: every
    measure 0/0 (0 under "conll", as v8.01 prints for it; 1 under "paper")."""
    docs = paper.as_frame(key).select("doc").unique(maintain_order=True)
    resp = unique_spans(paper.in_documents(response, key)).select(
        *paper.SPAN, pl.col("cluster").alias("response_class"))
    key = unique_spans(key).select(*paper.SPAN, pl.col("cluster").alias("key_class"))
    both = key.join(resp, on=paper.SPAN, how="full", coalesce=True)
    cells = (both.group_by("doc", "key_class", "response_class")
             .agg(pl.len().cast(pl.Int64).alias("n"),
                  pl.col("start").min().cast(pl.Int64).alias("first")))
    empty = docs.join(cells.select("doc"), on="doc", how="anti").select(
        "doc", pl.lit(None, pl.String).alias("key_class"),
        pl.lit(None, pl.String).alias("response_class"), pl.lit(0, pl.Int64).alias("n"),
        pl.lit(0, pl.Int64).alias("first"))
    return (pl.concat([cells, empty], how="vertical_relaxed")
            .sort("doc", "first", "key_class", "response_class", nulls_last=True))


def stray_documents(key, response) -> list[str]:
    """The response's documents absent from the key, which every score ignores (as the CoNLL
    reference scorer does), sorted: a misnamed document is worth a warning."""
    known = paper.as_frame(key)["doc"].unique().implode()
    return (paper.as_frame(response).filter(~pl.col("doc").is_in(known))["doc"].unique().sort()
            .to_list())


@dataclass
class _Cells:
    """Integer-coded contingency cells: ``d, k, r, n, f`` per cell (-1: no class on that side) and
    per class its document, size and first mention."""

    ndocs: int
    d: np.ndarray
    k: np.ndarray
    r: np.ndarray
    n: np.ndarray
    f: np.ndarray

    def __post_init__(self):
        self.k, self.kdoc, self.ksize, self.kfirst = self._classes(self.k)
        self.r, self.rdoc, self.rsize, self.rfirst = self._classes(self.r)

    def _classes(self, c):
        has = c >= 0
        _, inv = np.unique(c[has], return_inverse=True)
        code = np.full(len(c), -1, dtype=np.int64)
        code[has] = inv
        count = int(inv.max()) + 1 if len(inv) else 0
        size = np.bincount(inv, weights=self.n[has], minlength=count).astype(np.int64)
        doc = np.zeros(count, dtype=np.int64)
        doc[inv] = self.d[has]
        first = np.full(count, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first, inv, self.f[has])
        return code, doc, size, first

    def without_singletons(self, sides: str = "both") -> _Cells:
        """Key classes of one mention (``sides`` "both" or "key") and response classes of one
        mention ("both" or "response") removed: their mentions become twinless on the other side
        (or vanish)."""
        k, r = self.k.copy(), self.r.copy()
        if sides in ("both", "key"):
            k[k >= 0] = np.where(self.ksize[k[k >= 0]] == 1, -1, k[k >= 0])
        if sides in ("both", "response"):
            r[r >= 0] = np.where(self.rsize[r[r >= 0]] == 1, -1, r[r >= 0])
        keep = (k >= 0) | (r >= 0)
        return _Cells(self.ndocs, self.d[keep], k[keep], r[keep], self.n[keep], self.f[keep])

    def completed(self) -> _Cells:
        """DÉF.17: each mention missing from one side becomes a singleton class there."""
        lone = (self.k < 0) | (self.r < 0)
        rep = np.where(lone, self.n, 1)
        d, k, r, f = (np.repeat(a, rep) for a in (self.d, self.k, self.r, self.f))
        n = np.where(np.repeat(lone, rep), 1, np.repeat(self.n, rep))
        for side, count in ((k, len(self.ksize)), (r, len(self.rsize))):
            miss = np.flatnonzero(side < 0)
            side[miss] = count + np.arange(len(miss))
        return _Cells(self.ndocs, d, k, r, n, f)


def _encode(table: pl.DataFrame) -> tuple[list[str], _Cells]:
    table = table if isinstance(table, pl.DataFrame) else pl.from_arrow(table)
    sep = pl.lit("\x00")
    coded = table.select(
        (pl.col("doc").rank("dense") - 1).cast(pl.Int64).alias("d"),
        (pl.concat_str("doc", sep, "key_class").rank("dense") - 1).fill_null(-1).cast(pl.Int64)
        .alias("k"),
        (pl.concat_str("doc", sep, "response_class").rank("dense") - 1).fill_null(-1)
        .cast(pl.Int64).alias("r"),
        pl.col("n").cast(pl.Int64),
        (pl.col("first") if "first" in table.columns else pl.lit(0)).cast(pl.Int64).alias("f"))
    docs = table["doc"].unique().sort().to_list()
    a = {name: coded[name].to_numpy() for name in coded.columns}
    return docs, _Cells(len(docs), a["d"], a["k"], a["r"], a["n"], a["f"])


def _pairs(x):
    x = np.asarray(x, dtype=np.float64)
    return x * (x - 1) / 2


def _reference(c: _Cells) -> dict[str, tuple]:
    """The v8.01 counts per document: (recall_num, recall_den, precision_num, precision_den)."""
    nd = c.ndocs
    m = (c.k >= 0) & (c.r >= 0)
    n, d, k, r = c.n[m].astype(np.float64), c.d[m], c.k[m], c.r[m]
    ks, rs = c.ksize[k].astype(np.float64), c.rsize[r].astype(np.float64)
    s = paper.per_doc
    e_k, e_r = s(c.ksize, c.kdoc, nd), s(c.rsize, c.rdoc, nd)
    p_k, p_r = np.bincount(c.kdoc, minlength=nd), np.bincount(c.rdoc, minlength=nd)
    matched = s(n, d, nd)
    correct = s(n - 1, d, nd)
    c_kr = s(_pairs(n), d, nd)
    c_k, c_r = s(_pairs(c.ksize), c.kdoc, nd), s(_pairs(c.rsize), c.rdoc, nd)
    in_k = np.bincount(k, weights=n, minlength=len(c.ksize))  # matched mentions of each key class
    in_r = np.bincount(r, weights=n, minlength=len(c.rsize))
    n_kr = _pairs(matched) - s(_pairs(in_k), c.kdoc, nd) - s(_pairs(in_r), c.rdoc, nd) + c_kr
    with np.errstate(invalid="ignore", divide="ignore"):
        lea_r = np.where(ks > 1, ks * _pairs(n) / np.where(ks > 1, _pairs(ks), 1), rs == 1)
        lea_p = np.where(rs > 1, rs * _pairs(n) / np.where(rs > 1, _pairs(rs), 1), ks == 1)
    ceafm, ceafe = _ceaf(c, n, d, k, r, n), _ceaf(c, n, d, k, r, 2 * n / (ks + rs))
    return {
        "mentions": (matched, e_k, matched, e_r),
        "muc": (correct, e_k - p_k, correct, e_r - p_r),
        "bcub": (s(n * n / ks, d, nd), e_k, s(n * n / rs, d, nd), e_r),
        "ceafm": (ceafm, e_k, ceafm, e_r),
        "ceafe": (ceafe, p_k, ceafe, p_r),
        "blanc_coref": (c_kr, c_k, c_kr, c_r),
        "blanc_noncoref": (n_kr, _pairs(e_k) - c_k, n_kr, _pairs(e_r) - c_r),
        "lea": (s(lea_r, d, nd), e_k, s(lea_p, d, nd), e_r),
    }


def _ceaf(c: _Cells, n, d, k, r, phi) -> np.ndarray:
    """Σ φ over the optimal one-to-one alignment of key and response classes, per document.

    The alignment decomposes over the connected components of the graph of classes that meet: a
    component with one key or one response class takes its best cell (vectorised); the others go
    to ``linear_sum_assignment`` (dense), or LAPJVsp when the dense matrix would be large."""
    nd = c.ndocs
    if len(n) == 0:
        return np.zeros(nd)
    uk, ki = np.unique(k, return_inverse=True)
    ur, ri = np.unique(r, return_inverse=True)
    nk = len(uk)
    label = connected_components(nk + len(ur), ki, nk + ri)
    comp = label[ki]
    rows = np.bincount(label[:nk], minlength=label.max() + 1)
    cols = np.bincount(label[nk:], minlength=label.max() + 1)
    trivial = (rows[comp] == 1) | (cols[comp] == 1)
    best = np.zeros(label.max() + 1)
    np.maximum.at(best, comp[trivial], phi[trivial])
    comp_doc = np.zeros(label.max() + 1, dtype=np.int64)
    comp_doc[comp] = d
    total = paper.per_doc(best, comp_doc, nd)
    hard = np.flatnonzero(~trivial)
    if len(hard):
        hard = hard[np.argsort(comp[hard], kind="stable")]
        bounds = np.flatnonzero(np.diff(comp[hard])) + 1
        for cells in np.split(hard, bounds):
            total[d[cells[0]]] += _assign(ki[cells], ri[cells], phi[cells])
    return total


def _assign(rows, cols, phi) -> float:
    """Maximum Σ φ of a one-to-one assignment within one component."""
    _, rows = np.unique(rows, return_inverse=True)
    _, cols = np.unique(cols, return_inverse=True)
    nr, nc = rows.max() + 1, cols.max() + 1
    if nr * nc <= _DENSE_LIMIT:
        sim = np.zeros((nr, nc))
        sim[rows, cols] = phi
        a, b = linear_sum_assignment(sim, maximize=True)
        return float(sim[a, b].sum())
    # Sparse: every row may also take its own dummy column (unassigned); costs C - φ > 0.
    top = float(phi.max()) + 1
    a, b = sparse_assignment((np.concatenate([top - phi, np.full(nr, top)]),
                              np.concatenate([rows, np.arange(nr)]),
                              np.concatenate([cols, nc + np.arange(nr)])), (nr, nc + nr))
    real = b < nc
    lookup = np.argsort(rows * nc + cols)
    where = np.searchsorted((rows * nc + cols)[lookup], a[real] * nc + b[real])
    return float(phi[lookup[where]].sum())


def statistics(table: pl.DataFrame, convention: str = "conll",
               singletons: bool = True) -> pl.DataFrame:
    """Per-document additive statistics of every measure, long form: ``doc, metric, recall_num,
    recall_den, precision_num, precision_den, value, direction, mentions``.

    ``metric``: mentions, muc, bcub, ceafm, ceafe, blanc_coref and blanc_noncoref (BLANC's
    coreference and non-coreference link counts, in closed form from sums of C(n, 2)), lea, kernel
    (C), exclusive_kernel (XC), entropy (H: numerators |E| I(P_K; P_R), denominators |E| H(P_R)
    for recall and |E| H(P_K) for precision), kappa (a, key links, a, response links; ``value`` the
    document's kappa), rcvt (``value``), d_error (recall_* = Σ_A w x, Σ_A w; precision_* = Σ_B w x,
    Σ_B w; ``value`` = |mA - mB|, ``direction`` "recall" or "precision", null when the profiles
    agree). ``mentions`` = |E| = |E_K ∪ E_R| of the document (under "conll" after singleton
    removal; under "paper" the whole E, on which kappa and RCVT are computed).

    ``convention``: "conll" or "paper" (module docstring). ``singletons=False``: under "conll",
    the key and response classes of one mention are removed first, from both sides (the
    CoNLL-2012 setting); under "paper", section 5.2's rule on the completed partitions: every
    recall is computed without the key's singleton classes but with the response's, every
    precision without the response's but with the key's, and kappa, H, RCVT and D-error keep
    both partitions whole (:func:`_paper_singletons`)."""
    zero = zero_value(convention)
    docs, cells = _encode(table)
    if convention == "paper":
        full = cells.completed()
        recall_side = precision_side = full
        if not singletons:
            recall_side = full.without_singletons("key")
            precision_side = full.without_singletons("response")
        counts = _paper_singletons(recall_side, precision_side)
    else:
        if not singletons:
            cells = cells.without_singletons()
        full = cells.completed()
        counts = _reference(cells)
        counts["kernel"] = paper.kernel(full)
        counts["exclusive_kernel"] = paper.exclusive_kernel(full)
    hk, hr, hk_r, hr_k = paper.entropy_terms(full)
    counts["entropy"] = (np.maximum(hr - hr_k, 0), hr, np.maximum(hk - hk_r, 0), hk)
    a, kl, rl, n = paper.kappa_counts(full)
    counts["kappa"] = (a, kl, a, rl)
    rcvt, awx, aw, bwx, bw = paper.profile(full)
    counts["d_error"] = (awx, aw, bwx, bw)
    size = paper.per_doc(full.ksize, full.kdoc, full.ndocs).astype(np.int64)
    nd = len(docs)
    none = np.full(nd, np.nan)
    d_value, direction = paper.d_error(awx, aw, bwx, bw)
    values = {"kappa": paper.kappa(a, kl, rl, n, zero), "rcvt": np.where(size > 0, rcvt, zero),
              "d_error": d_value}
    # one frame of every metric's rows (a frame per metric cost a tenth of a small unit)
    sides = [counts.get(metric, (none, none, none, none)) for metric in METRICS]
    columns = {name: np.concatenate([np.asarray(side[k], dtype=np.float64) for side in sides])
               for k, name in enumerate(("recall_num", "recall_den", "precision_num",
                                         "precision_den"))}
    return pl.DataFrame({
        "doc": list(docs) * len(METRICS), "metric": [m for m in METRICS for _ in range(nd)],
        **columns,
        "value": np.concatenate([np.asarray(values.get(m, none), dtype=np.float64)
                                 for m in METRICS]),
        "direction": [d for m in METRICS
                      for d in (list(direction) if m == "d_error" else [None] * nd)],
        "mentions": np.tile(size, len(METRICS)),
    }, schema=_SCHEMA, nan_to_null=True).sort("doc", maintain_order=True)


def _paper_singletons(recall_side: _Cells, precision_side: _Cells) -> dict[str, tuple]:
    """Popescu-Belis, section 5.2: "il faut toujours [compter] les singletons de R dans le calcul
    du rappel et ceux de K dans le calcul de la précision". The recall counts of every
    recall/precision measure (the reference scorer's and C, XC) from ``recall_side`` (P²_K
    against the whole P_R), the precision counts from ``precision_side`` (P²_R against the whole
    P_K); equal sides when singletons are kept. MUC and C come out unchanged (PROP.13)."""
    def measures(c: _Cells) -> dict[str, tuple]:
        out = _reference(c)
        out["kernel"] = paper.kernel(c)
        out["exclusive_kernel"] = paper.exclusive_kernel(c)
        return out
    rec = measures(recall_side)
    if precision_side is recall_side:
        return rec
    pre = measures(precision_side)
    return {m: (rec[m][0], rec[m][1], pre[m][2], pre[m][3]) for m in rec}


_SCHEMA = {"doc": pl.String, "metric": pl.String, "recall_num": pl.Float64,
           "recall_den": pl.Float64, "precision_num": pl.Float64, "precision_den": pl.Float64,
           "value": pl.Float64, "direction": pl.String, "mentions": pl.Int64}


def entropies(table: pl.DataFrame, singletons: bool = True) -> pl.DataFrame:
    """H(P_K), H(P_R), H(P_K|P_R), H(P_R|P_K) per document (DÉF.14-15, natural log, partitions
    completed by DÉF.17): ``doc, h_key, h_response, h_key_given_response, h_response_given_key``."""
    docs, cells = _encode(table)
    if not singletons:
        cells = cells.without_singletons()
    full = cells.completed()
    e = paper.per_doc(full.ksize, full.kdoc, full.ndocs)
    safe = np.where(e > 0, e, 1)
    hk, hr, hk_r, hr_k = (x / safe for x in paper.entropy_terms(full))
    return pl.DataFrame({"doc": docs, "h_key": hk, "h_response": hr, "h_key_given_response": hk_r,
                         "h_response_given_key": hr_k})
