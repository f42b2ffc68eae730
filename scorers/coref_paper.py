"""Coreference: the paper's own measures and generalisations (Popescu-Belis, Évaluation numérique
de la résolution de la référence).

Measures over the contingency cells of one or more documents, every partition completed by
singletons (DÉF.17), so that P_K and P_R partition the same set E of each document:

- **C** (kernels, DÉF.10-13): c(K) the largest projection of K on P_R;
  CRS = (Σ_K |c(K)| - |P_K|) / (|E| - |P_K|), CPS symmetric.
- **XC** (exclusive kernels, §4.5): key classes by decreasing size take the free response class
  that meets them most; XRS = Σ_K |K ∩ xc*(K)| / |E|, XPS = 1 - Σ_K (|xc*(K)| - |K ∩ xc*(K)|) / |E|.
- **kappa** (Passonneau, §4.2) from the MUC link counts.
- **RCVT** and **D-error** (§4.6) from the class-size profiles sorted decreasingly.
- **H** (§4.7, DÉF.14-16): entropies H(P_K), H(P_R), H(P_K|P_R), H(P_R|P_K).

Each returns per-document additive counts (numpy arrays indexed by document code); the caller
(:mod:`scorers.coref`) lays them out as statistics. The "cells" argument is any object with the
arrays ``d, k, r, n`` (document, key class, response class, |K ∩ R|), ``ndocs``, and per class
``kdoc, ksize, kfirst`` / ``rdoc, rsize, rfirst``, with no missing side (already completed).

Generalisations (§5) over mention tables: :func:`restrict` (§5.4), :func:`pronoun_antecedent`
(§5.4, Mitkov), :func:`superclass_partition` (§5.5) and :func:`baseline` (§5.1).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from scorehouse.scorers.assignment import connected_components

BASELINES = ("all_singletons", "all_merged", "random_profile")
SPAN = ["doc", "start", "end"]


def per_doc(values: np.ndarray, doc: np.ndarray, ndocs: int) -> np.ndarray:
    """Σ of ``values`` per document code (float64, length ``ndocs``)."""
    return np.bincount(doc, weights=np.asarray(values, dtype=np.float64), minlength=ndocs)


def kernel(c) -> tuple[np.ndarray, ...]:
    """C measure (DÉF.12-13): (Σ_K |c(K)| - |P_K|, |E_K| - |P_K|, Σ_R |c(R)| - |P_R|,
    |E_R| - |P_R|) per document, with c(K) = the largest K ∩ R_j (DÉF.10). E_K = E_R = E on
    completed partitions; a side without its singleton classes (§5.2) leaves their mentions
    twinless, in no intersection."""
    m = (c.k >= 0) & (c.r >= 0)
    kmax = np.zeros(len(c.ksize))
    np.maximum.at(kmax, c.k[m], c.n[m])
    rmax = np.zeros(len(c.rsize))
    np.maximum.at(rmax, c.r[m], c.n[m])
    nk = np.bincount(c.kdoc, minlength=c.ndocs)
    nr = np.bincount(c.rdoc, minlength=c.ndocs)
    return (per_doc(kmax, c.kdoc, c.ndocs) - nk, per_doc(c.ksize, c.kdoc, c.ndocs) - nk,
            per_doc(rmax, c.rdoc, c.ndocs) - nr, per_doc(c.rsize, c.rdoc, c.ndocs) - nr)


def exclusive_kernel(c) -> tuple[np.ndarray, ...]:
    """XC measure (§4.5): (Σ_K |K ∩ xc*(K)|, |E_K|, |E_R| - Σ_K (|xc*(K)| - |K ∩ xc*(K)|),
    |E_R|), E_K = E_R = E on completed partitions (twinless mentions, left by §5.2's removal of
    one side's singletons, are in no intersection).

    Key classes are taken by decreasing |K| (ties: earliest first mention, then class code); each
    takes as xc*(K) the free response class with the largest |K ∩ R| (ties: the response class
    whose first mention is earliest). The greedy choice is sequential: one Python pass over the
    cells sorted in that order (measured: 0.02 s for 78,000 cells, 500 documents)."""
    rank = np.empty(len(c.ksize), dtype=np.int64)
    rank[np.lexsort((np.arange(len(c.ksize)), c.kfirst, -c.ksize,
                     c.kdoc))] = np.arange(len(c.ksize))
    both = np.flatnonzero((c.k >= 0) & (c.r >= 0))
    order = both[np.lexsort((c.r[both], c.rfirst[c.r[both]], -c.n[both], rank[c.k[both]]))]
    taken = bytearray(len(c.rsize))
    done = bytearray(len(c.ksize))
    gain = np.zeros(len(c.ksize))
    chosen = np.full(len(c.ksize), -1, dtype=np.int64)
    for kk, rr, nn in zip(c.k[order].tolist(), c.r[order].tolist(), c.n[order].tolist()):
        if done[kk] or taken[rr]:
            continue
        done[kk] = taken[rr] = 1
        gain[kk] = nn
        chosen[kk] = rr
    e_k, e_r = per_doc(c.ksize, c.kdoc, c.ndocs), per_doc(c.rsize, c.rdoc, c.ndocs)
    has = chosen >= 0
    wrong = per_doc(c.rsize[chosen[has]] - gain[has], c.kdoc[has], c.ndocs)
    return per_doc(gain, c.kdoc, c.ndocs), e_k, e_r - wrong, e_r


def kappa_counts(c) -> tuple[np.ndarray, ...]:
    """Passonneau's link counts (§4.2): a = |E| - Σ_K |π(K)| (links in both), key links
    |E| - |P_K|, response links |E| - |P_R|, N = |E| - 1."""
    e = per_doc(c.ksize, c.kdoc, c.ndocs)
    a = e - np.bincount(c.d, minlength=c.ndocs)
    return (a, e - np.bincount(c.kdoc, minlength=c.ndocs),
            e - np.bincount(c.rdoc, minlength=c.ndocs), e - 1)


def kappa(a, key_links, response_links, n, zero: float) -> np.ndarray:
    """kappa = (po - pe) / (1 - pe), po = (a + d) / N, pe = ((a+b)(a+c) + (c+d)(b+d)) / N², with
    b = key links - a, c = response links - a, d = N - a - b - c; ``zero`` where N = 0 or pe = 1."""
    a, kl, rl, n = (np.asarray(x, dtype=np.float64) for x in (a, key_links, response_links, n))
    b, c = kl - a, rl - a
    d = n - a - b - c
    agree = (a + b) * (a + c) + (c + d) * (b + d)  # pe * N², exact in float64 for counts < 2**26
    ok = (n > 0) & (agree != n * n)
    safe = np.where(ok, n, 1.0)
    po, pe = (a + d) / safe, agree / (safe * safe)
    return np.where(ok, (po - pe) / np.where(ok, 1 - pe, 1.0), zero)


def profile(c) -> tuple[np.ndarray, ...]:
    """RCVT and D-error (§4.6) on the class sizes sorted decreasingly, padded with zeros to the
    same length L: returns (RCVT = 1 - Σ_i abs(|K_i| - |R_i|) / (2|E|) (NaN when |E| = 0),
    Σ_A w x, Σ_A w, Σ_B w x, Σ_B w), A = positions with |K_i| >= |R_i|, B the others,
    w = abs(|K_i| - |R_i|), x = i / (L - 1) the position scaled to [0, 1] (ours: the paper gives
    no formula), so that mA - mB is the |mA - mB| / (L - 1) of docs/metrics/coref.md and sums
    pool over documents."""
    nd = c.ndocs
    nk, nr = np.bincount(c.kdoc, minlength=nd), np.bincount(c.rdoc, minlength=nd)
    length = np.maximum(nk, nr)
    offset = np.cumsum(length) - length
    total = int(length.sum())
    key, resp = np.zeros(total), np.zeros(total)
    for sizes, docs, vec in ((c.ksize, c.kdoc, key), (c.rsize, c.rdoc, resp)):
        order = np.lexsort((-sizes, docs))
        sdoc = docs[order]
        within = np.arange(len(order)) - np.searchsorted(sdoc, sdoc, side="left")
        vec[offset[sdoc] + within] = sizes[order]
    doc = np.repeat(np.arange(nd), length)
    x = (np.arange(total) - offset[doc]) / np.maximum(length - 1, 1)[doc]
    diff = key - resp
    w = np.abs(diff)
    a = diff >= 0
    e = per_doc(c.ksize, c.kdoc, nd)
    with np.errstate(invalid="ignore", divide="ignore"):
        rcvt = np.where(e > 0, 1 - per_doc(w, doc, nd) / (2 * e), np.nan)
    return (rcvt, per_doc(w * x * a, doc, nd), per_doc(w * a, doc, nd),
            per_doc(w * x * ~a, doc, nd), per_doc(w * ~a, doc, nd))


def d_error(awx, aw, bwx, bw) -> tuple[np.ndarray, list]:
    """D-error (§4.6) from the sums of :func:`profile`: magnitude |mA - mB| and direction, mA < mB
    a recall D-error (response classes too small), otherwise precision; none (value 0) when no
    position differs."""
    awx, aw, bwx, bw = (np.asarray(x, dtype=np.float64) for x in (awx, aw, bwx, bw))
    some = (aw > 0) & (bw > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ma, mb = awx / np.where(some, aw, 1), bwx / np.where(some, bw, 1)
    value = np.where(some, np.abs(ma - mb), 0.0)
    direction = [None if not s else ("recall" if x < y else "precision")
                 for s, x, y in zip(some, ma, mb)]
    return value, direction


def entropy_terms(c) -> tuple[np.ndarray, ...]:
    """|E| times H(P_K), H(P_R), H(P_K|P_R), H(P_R|P_K) (DÉF.14-15, natural log) per document:
    |E| H(P_K) = Σ_K |K| log(|E|/|K|), |E| H(P_K|P_R) = Σ_ij n_ij log(|R_j| / n_ij), and so on."""
    e = per_doc(c.ksize, c.kdoc, c.ndocs)
    hk = per_doc(c.ksize * np.log(e[c.kdoc] / c.ksize), c.kdoc, c.ndocs)
    hr = per_doc(c.rsize * np.log(e[c.rdoc] / c.rsize), c.rdoc, c.ndocs)
    hk_r = per_doc(c.n * np.log(c.rsize[c.r] / c.n), c.d, c.ndocs)
    hr_k = per_doc(c.n * np.log(c.ksize[c.k] / c.n), c.d, c.ndocs)
    return hk, hr, hk_r, hr_k


# --- generalisations over mention tables (§5) -------------------------------------------------

def as_frame(mentions) -> pl.DataFrame:
    return mentions if isinstance(mentions, pl.DataFrame) else pl.from_arrow(mentions)


def unique_spans(mentions) -> pl.DataFrame:
    """The mentions with duplicate spans (doc, start, end) dropped, the first kept (file order).
    A document's row with a null span (a document without any mention) is not a mention."""
    frame = as_frame(mentions).filter(pl.col("start").is_not_null())
    return frame.filter(pl.struct(SPAN).is_first_distinct())  # unique() needs more memory


def in_documents(response, key) -> pl.DataFrame:
    """The ``response`` rows of the key's documents, those without any mention included: the
    CoNLL reference scorer v8.01 scores the key's documents, so a response document absent from
    the key is ignored, while every response mention of a key document counts."""
    return as_frame(response).filter(pl.col("doc").is_in(as_frame(key)["doc"].unique().implode()))


def with_documents(subset: pl.DataFrame, mentions) -> pl.DataFrame:
    """``subset`` of ``mentions`` keeping every document of ``mentions``: a document whose
    mentions all fell out of the subset keeps a row with a null span (it is still scored)."""
    lost = as_frame(mentions).select("doc").unique(maintain_order=True).join(
        subset.select("doc").unique(), on="doc", how="anti", maintain_order="left")
    return pl.concat([subset, lost], how="diagonal_relaxed")


def restrict(key, response, category: str,
             column: str = "category") -> tuple[pl.DataFrame, pl.DataFrame]:
    """§5.4: rebuild E, P_K and P_R on one mention category. A key mention keeps its key
    category; a response mention takes the key's category when its span is in the key, else its
    own. Returns the two restricted mention tables (give them to ``contingency``)."""
    every, key, response = key, unique_spans(key), unique_spans(response)
    known = key.select(*SPAN, pl.col(column).alias("_key_cat"))
    resp = (response.join(known, on=SPAN, how="left", maintain_order="left")
            .filter(pl.coalesce("_key_cat", column) == category).drop("_key_cat"))
    return with_documents(key.filter(pl.col(column) == category), every), resp


def pronoun_antecedent(key, response, category: str = "pronoun",
                       column: str = "category") -> pl.DataFrame:
    """Pronoun / antecedent counting (§5.4, Mitkov): a pronoun's response antecedent is the closest
    preceding mention (by start, then end) of its response class; a success when both are in the
    same key class. Recall = successes / key pronouns that have a preceding mention in their key
    class; precision = successes / response pronouns that have an antecedent (resolved). A
    response mention is a pronoun by the key's category when its span is in the key, else its own.
    Returns statistics rows (``metric`` = "pronoun_antecedent") that ``scores`` aggregates."""
    docs = as_frame(key).select("doc").unique()
    key, response = unique_spans(key), unique_spans(in_documents(response, docs))
    order = ["doc", "cluster", "start", "end"]
    prev = pl.col("cluster").shift(1).over("doc")
    key_side = (key.sort(order).with_columns(
        (pl.col("cluster") == prev).fill_null(False).alias("has_prev"))
        .select(*SPAN, pl.col("cluster").alias("kc"), pl.col(column).alias("kcat"), "has_prev"))
    recall_den = (key_side.filter((pl.col("kcat") == category) & pl.col("has_prev"))
                  .group_by("doc").len("rd"))
    resp = (response.select(*SPAN, "cluster", pl.col(column).alias("rcat"))
            .join(key_side.select(*SPAN, "kc", "kcat"), on=SPAN, how="left")
            .sort(order)
            .with_columns(pl.col("kc").shift(1).over("doc", "cluster").alias("ante_kc"),
                          pl.col("start").shift(1).over("doc", "cluster").alias("ante"))
            .filter((pl.coalesce("kcat", "rcat") == category) & pl.col("ante").is_not_null()))
    counts = resp.group_by("doc").agg(pl.len().alias("pd"),
                                      (pl.col("kc") == pl.col("ante_kc")).fill_null(False).sum()
                                      .alias("ok"))
    out = (docs.join(recall_den, on="doc", how="left").join(counts, on="doc", how="left")
           .fill_null(0).sort("doc"))
    f = pl.Float64
    return out.select("doc", pl.lit("pronoun_antecedent").alias("metric"),
                      pl.col("ok").cast(f).alias("recall_num"),
                      pl.col("rd").cast(f).alias("recall_den"),
                      pl.col("ok").cast(f).alias("precision_num"),
                      pl.col("pd").cast(f).alias("precision_den"),
                      pl.lit(None, f).alias("value"), pl.lit(None, pl.String).alias("direction"),
                      pl.lit(None, pl.Int64).alias("mentions"))


def superclass_partition(mentions, links, type: str) -> pl.DataFrame:
    """§5.5: the partition into super-classes for one link type: classes joined (transitively) by
    links of that type (``doc, from_cluster, to_cluster, type``) are merged; a super-class is named
    after its class that comes first in the table. Score it like identity (key and response
    each with their own links). Raises ValueError for a link to a class absent from ``mentions``."""
    mentions, links = as_frame(mentions), as_frame(links)
    classes = (mentions.filter(pl.col("start").is_not_null()).select("doc", "cluster")
               .unique(maintain_order=True).with_row_index("node"))
    chosen = links.filter(pl.col("type") == type).select(
        "doc", pl.col("from_cluster").cast(pl.String), pl.col("to_cluster").cast(pl.String))
    ends = (chosen.join(classes.rename({"cluster": "from_cluster", "node": "a"}),
                        on=["doc", "from_cluster"], how="left")
            .join(classes.rename({"cluster": "to_cluster", "node": "b"}), on=["doc", "to_cluster"],
                  how="left"))
    bad = ends.filter(pl.col("a").is_null() | pl.col("b").is_null())
    if len(bad):
        row = bad.row(0, named=True)
        raise ValueError(f"link {row['from_cluster']} -> {row['to_cluster']} in document "
                         f"{row['doc']!r} names a class absent from the mentions")
    count = len(classes)
    label = connected_components(count, ends["a"].to_numpy(), ends["b"].to_numpy())
    first = np.full(label.max() + 1 if count else 0, count, dtype=np.int64)
    np.minimum.at(first, label, np.arange(count))
    names = classes.with_columns(pl.Series("super", classes["cluster"].to_numpy()[first[label]]))
    return (mentions.join(names.select("doc", "cluster", "super"), on=["doc", "cluster"],
                          how="left", maintain_order="left")
            .with_columns(pl.col("super").alias("cluster")).drop("super"))


def baseline(key, kind: str, seed: int = 0, draw: int = 0) -> pl.DataFrame:
    """Differential evaluation (§5.1): a response over the key's mentions. ``all_singletons``
    (no resolution, |P_R| = |E|), ``all_merged`` (P_R = {E}), ``random_profile`` (a random
    partition with the key's class-size profile: the key's class labels shuffled among the
    mentions of each document, reproducible from ``(seed, draw)``; average over draws)."""
    if kind not in BASELINES:
        raise ValueError(f"baseline kind must be one of {', '.join(BASELINES)}, not {kind!r}")
    key = unique_spans(key)
    if kind == "all_singletons":
        label = pl.int_range(pl.len()).over("doc").cast(pl.String)
    elif kind == "all_merged":
        label = pl.lit("0")
    else:
        rng = np.random.default_rng([seed, draw])
        doc = key["doc"].rank("dense").to_numpy()
        by_doc = np.argsort(doc, kind="stable")
        shuffled = np.lexsort((rng.random(len(key)), doc))
        labels = np.empty(len(key), dtype=object)
        labels[shuffled] = key["cluster"].to_numpy()[by_doc]
        label = pl.Series("cluster", labels, dtype=pl.String)
    return key.with_columns(label.alias("cluster"))
