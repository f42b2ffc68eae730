"""Part-of-speech tagging (GRACE): minimal units, re-alignment, cases and their projections.

Paper: ``seeds/000`` (GRACE); precise statement: ``spec/pos.md``. The reference and every
submission are cut into **minimal units** (maximal runs of word characters; every other
non-space character is a unit of its own). The two unit sequences are aligned with a
longest-common-subsequence diff; reference units left without a partner are **residual forms**.
A participant token is evaluable only when its units map onto a contiguous span that the
reference offers as a segmentation: one unit with its own tags, a multi-unit reference token (an
implicit locution), or a double-marked locution. Each case (a reference unit in the absolute
evaluation) then carries the participant's tags, their projection through the correspondence
table, and the reference's acceptable tags; the judgement (OK, ERR, SIL_ok, SIL_err, SIL_sil,
c/k) is counted in SQL (``sql/pos/``).

Everything is vectorised (numpy / Polars); the only Python loop runs over the stretches where
the two tokenisations differ, each aligned with rapidfuzz's LCS (Indel) opcodes.
"""

from __future__ import annotations

import bisect

import numpy as np
import polars as pl
from rapidfuzz.distance import Indel

UNIT = r"\w+|[^\w\s]"
NONEVAL_REASONS = ("residual", "segmentation", "unknown_tag", "no_inverse_image")
_ANCHOR = 4  # k-gram length of the alignment anchors


def units(tokens: pl.DataFrame, form: str = "form", split: bool = True) -> pl.DataFrame:
    """Minimal units of a token table: one row per unit with ``unit`` (0-based), ``tok`` and
    ``unit_form``, in order. With ``split=False`` (CoNLL-U words) each token is one unit."""
    if not split:
        return tokens.select(pl.int_range(pl.len(), dtype=pl.Int64).alias("unit"),
                             pl.col("tok").cast(pl.Int64), pl.col(form).alias("unit_form"))
    return (tokens.select(pl.col("tok").cast(pl.Int64), pl.col(form).str.extract_all(UNIT).alias("unit_form"))
            .explode("unit_form").drop_nulls("unit_form")
            .with_row_index("unit").with_columns(pl.col("unit").cast(pl.Int64)))


def align_units(ref: np.ndarray, hyp: np.ndarray) -> np.ndarray:
    """LCS alignment of two integer sequences; returns, for each ``ref`` position, the ``hyp``
    position it is paired with, or -1.

    k-grams that occur exactly once on each side are anchors; a monotone chain of anchors cuts
    both sequences into stretches; stretches of equal content are paired position by position
    (vectorised), the others with rapidfuzz's Indel (LCS) opcodes.
    """
    ref = np.asarray(ref, dtype=np.int64)
    hyp = np.asarray(hyp, dtype=np.int64)
    partner = np.full(len(ref), -1, dtype=np.int64)
    a_ref, a_hyp = _anchors(ref, hyp)
    starts_r = np.concatenate([[0], a_ref])
    starts_h = np.concatenate([[0], a_hyp])
    ends_r = np.concatenate([a_ref, [len(ref)]])
    ends_h = np.concatenate([a_hyp, [len(hyp)]])
    length = ends_r - starts_r
    same_len = length == ends_h - starts_h
    # Fast path: stretches of equal length whose contents are equal.
    idx = np.flatnonzero(same_len & (length > 0))
    if len(idx):
        seg = np.repeat(idx, length[idx])
        offset = np.arange(len(seg)) - np.repeat(np.cumsum(length[idx]) - length[idx], length[idx])
        r_pos, h_pos = starts_r[seg] + offset, starts_h[seg] + offset
        differs = np.zeros(len(starts_r), dtype=bool)
        np.logical_or.at(differs, seg, ref[r_pos] != hyp[h_pos])
        ok = ~differs[seg]
        partner[r_pos[ok]] = h_pos[ok]
        slow = np.flatnonzero(~same_len | differs)
    else:
        slow = np.flatnonzero(~same_len)
    for s in slow:
        r0, r1, h0, h1 = starts_r[s], ends_r[s], starts_h[s], ends_h[s]
        if r0 == r1 or h0 == h1:
            continue
        for op in Indel.opcodes(ref[r0:r1].tolist(), hyp[h0:h1].tolist()):
            if op.tag == "equal":
                partner[r0 + op.src_start:r0 + op.src_end] = np.arange(h0 + op.dest_start, h0 + op.dest_end)
    return partner


def _anchors(ref: np.ndarray, hyp: np.ndarray, k: int = _ANCHOR) -> tuple[np.ndarray, np.ndarray]:
    """Start positions of k-grams unique on both sides, as a chain increasing on both sides."""
    if len(ref) < k or len(hyp) < k:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    rh, hh = _kgram_hash(ref, k), _kgram_hash(hyp, k)
    r_vals, r_first, r_count = np.unique(rh, return_index=True, return_counts=True)
    h_vals, h_first, h_count = np.unique(hh, return_index=True, return_counts=True)
    r_vals, r_first = r_vals[r_count == 1], r_first[r_count == 1]
    h_vals, h_first = h_vals[h_count == 1], h_first[h_count == 1]
    _, ia, ib = np.intersect1d(r_vals, h_vals, assume_unique=True, return_indices=True)
    a_ref, a_hyp = r_first[ia], h_first[ib]
    order = np.argsort(a_ref)
    a_ref, a_hyp = a_ref[order], a_hyp[order]
    return _chain(a_ref, a_hyp)


def _chain(a_ref: np.ndarray, a_hyp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep a chain of anchors increasing on both sides.

    Consecutive anchors with the same offset (``a_hyp - a_ref``) form runs: the stretches where
    the two texts agree. Runs of fewer than three anchors are dropped (a phrase repeated
    elsewhere gives isolated anchors with an odd offset); then a longest increasing subsequence
    over the remaining runs (a Python loop over runs, i.e. over the places where the texts
    differ, not over tokens) removes the runs that cross the others.
    """
    if len(a_ref) == 0:
        return a_ref, a_hyp
    offset = a_hyp - a_ref
    starts = np.flatnonzero(np.concatenate([[True], offset[1:] != offset[:-1]]))
    lengths = np.diff(np.concatenate([starts, [len(offset)]]))
    runs = starts[lengths >= 3]
    run_len = lengths[lengths >= 3]
    if len(runs) == 0:
        return a_ref[:0], a_hyp[:0]
    first_h, last_h = a_hyp[runs], a_hyp[runs + run_len - 1]
    # Longest chain of runs with increasing hyp positions (patience sorting on the first anchor;
    # a run follows another only if it starts after the other ends).
    tails: list[int] = []  # last hyp position of the best chain of each length
    tail_run: list[int] = []
    previous = np.full(len(runs), -1)
    for i in range(len(runs)):
        j = bisect.bisect_left(tails, first_h[i])
        if j > 0:
            previous[i] = tail_run[j - 1]
        if j == len(tails):
            tails.append(last_h[i])
            tail_run.append(i)
        elif last_h[i] < tails[j]:
            tails[j] = last_h[i]
            tail_run[j] = i
    chosen = []
    i = tail_run[-1]
    while i >= 0:
        chosen.append(i)
        i = previous[i]
    chosen.reverse()
    keep = np.concatenate([np.arange(runs[i], runs[i] + run_len[i]) for i in chosen])
    return a_ref[keep], a_hyp[keep]


def _kgram_hash(codes: np.ndarray, k: int) -> np.ndarray:
    """Polynomial hash of every k-gram (uint64 arithmetic, wrapping)."""
    h = np.zeros(len(codes) - k + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):
            h = h * np.uint64(1_000_003) + codes[j:len(codes) - k + 1 + j].astype(np.uint64)
    return h


def encode(*columns: pl.Series) -> list[np.ndarray]:
    """Integer codes of string columns, consistent across them (equal strings, equal codes)."""
    joined = pl.concat([c.cast(pl.String) for c in columns])
    codes = joined.cast(pl.Categorical).to_physical().to_numpy().astype(np.int64)
    out, start = [], 0
    for c in columns:
        out.append(codes[start:start + len(c)])
        start += len(c)
    return out


def reference_spans(ref_tokens: pl.DataFrame, ref_units: pl.DataFrame) -> pl.DataFrame:
    """The segmentations the reference offers: ``(first, last, acceptable, kind)`` unit spans.

    - ``unit``: a token made of one minimal unit, with the token's tags;
    - ``token``: a token made of several units (an implicit locution such as ``aujourd'hui``);
      its units have no reading of their own;
    - ``locution``: a double-marked compound over several tokens, with its locution tags.
    """
    bounds = ref_units.group_by("tok").agg(pl.col("unit").min().alias("first"), pl.col("unit").max().alias("last"),
                                           pl.len().alias("n"))
    tok = ref_tokens.select(pl.col("tok").cast(pl.Int64), "tags", "loc", "loc_tags").join(bounds, on="tok")
    single = tok.select("first", "last", pl.col("tags").alias("acceptable"),
                        pl.when(pl.col("n") == 1).then(pl.lit("unit")).otherwise(pl.lit("token")).alias("kind"))
    locutions = (tok.filter(pl.col("loc").is_not_null()).group_by("loc")
                 .agg(pl.col("first").min(), pl.col("last").max(), pl.col("loc_tags").first().alias("acceptable"))
                 .select("first", "last", "acceptable", pl.lit("locution").alias("kind")))
    return pl.concat([single, locutions]).unique(subset=["first", "last"], keep="last", maintain_order=True)


def judge_tokens(offered: pl.DataFrame, sys_tokens: pl.DataFrame, sys_units: pl.DataFrame, partner: np.ndarray,
                 table: pl.DataFrame | None) -> pl.DataFrame:
    """One row per participant token: the reference span it matches (``first``, ``last``,
    ``span`` kind, ``acceptable`` tags; null when its units are unpaired or do not form a span
    the reference offers), its tags ``sys_tags``, their pivot images ``projected``, the tags
    missing from the table ``unknown_tags``, and ``acceptable_own``: the acceptable tags brought
    into the participant's tagset through the inverse table (relative evaluation).
    ``offered`` is :func:`reference_spans` of the reference. ``table`` maps participant ``tag``
    to ``pivot`` (one row per image); None is the identity."""
    ref_of_hyp = np.full(sys_units.height, -1, dtype=np.int64)
    ref_of_hyp[partner[partner >= 0]] = np.flatnonzero(partner >= 0)
    spans = (sys_units.select("tok").with_columns(pl.Series("ref_unit", ref_of_hyp)).group_by("tok")
             .agg(pl.col("ref_unit").min().alias("first"), pl.col("ref_unit").max().alias("last"),
                  (pl.col("ref_unit") < 0).any().alias("unpaired"), pl.len().alias("n"))
             .with_columns(((~pl.col("unpaired")) & (pl.col("last") - pl.col("first") + 1 == pl.col("n")))
                           .alias("contiguous")))
    tokens = (spans.join(offered, on=["first", "last"], how="left")
              .join(sys_tokens.select(pl.col("tok").cast(pl.Int64), pl.col("tags").alias("sys_tags")), on="tok")
              .with_columns(pl.when(pl.col("contiguous")).then(pl.col("acceptable")).alias("acceptable"),
                            pl.when(pl.col("contiguous")).then(pl.col("kind")).alias("span"))
              .drop("kind", "unpaired", "n", "contiguous"))
    return _inverse(_project(tokens, table), table)


def absolute_cases(tokens: pl.DataFrame, sys_units: pl.DataFrame, partner: np.ndarray) -> pl.DataFrame:
    """Absolute evaluation (reference segmentation, pivot tagset): one case per reference unit,
    judged by the participant token covering it; its ``noneval`` reason when it cannot be."""
    covering = np.where(partner >= 0, sys_units["tok"].to_numpy()[np.maximum(partner, 0)], -1)
    frame = pl.DataFrame({"case": np.arange(len(partner), dtype=np.int64),
                          "ref_unit": np.arange(len(partner), dtype=np.int64),
                          "sys_tok": pl.Series(covering).replace(-1, None)})
    frame = frame.join(tokens.select(pl.col("tok").alias("sys_tok"), "sys_tags", "projected", "acceptable",
                                     "span", "unknown_tags"), on="sys_tok", how="left", maintain_order="left")
    return frame.with_columns(
        pl.when(pl.col("sys_tok").is_null()).then(pl.lit("residual"))
        .when(pl.col("acceptable").is_null()).then(pl.lit("segmentation"))
        .when(pl.col("unknown_tags").list.len() > 0).then(pl.lit("unknown_tag"))
        .alias("noneval"))


def relative_cases(tokens: pl.DataFrame, sys_units: pl.DataFrame, partner: np.ndarray) -> pl.DataFrame:
    """Relative evaluation (participant segmentation and tagset): one case per participant unit;
    the participant's own tags against the reference's tags brought into its tagset by the
    inverse table. ``ref_unit`` is the paired reference unit, or the last paired one before it
    (which places an unpaired unit in a sentence)."""
    ref_of_hyp = np.full(sys_units.height, -1, dtype=np.int64)
    ref_of_hyp[partner[partner >= 0]] = np.flatnonzero(partner >= 0)
    nearest = np.maximum.accumulate(np.where(ref_of_hyp >= 0, ref_of_hyp, -1)) if len(ref_of_hyp) else ref_of_hyp
    frame = pl.DataFrame({"case": np.arange(sys_units.height, dtype=np.int64),
                          "ref_unit": np.maximum(nearest, 0), "paired": ref_of_hyp >= 0,
                          "sys_tok": sys_units["tok"]})
    frame = frame.join(tokens.select(pl.col("tok").alias("sys_tok"), "sys_tags",
                                     pl.col("sys_tags").list.unique().list.sort().alias("projected"),
                                     pl.col("acceptable_own").alias("acceptable"), "span", "unknown_tags",
                                     pl.col("acceptable").is_null().alias("no_span")),
                       on="sys_tok", how="left", maintain_order="left")
    return frame.with_columns(
        pl.when(~pl.col("paired")).then(pl.lit("residual"))
        .when(pl.col("no_span")).then(pl.lit("segmentation"))
        .when(pl.col("acceptable").list.len() == 0).then(pl.lit("no_inverse_image"))
        .alias("noneval")).drop("paired", "no_span")


def _project(tokens: pl.DataFrame, table: pl.DataFrame | None) -> pl.DataFrame:
    """Add ``projected`` (union of the images of ``sys_tags``) and ``unknown_tags``. Computed
    once per distinct tag list (a tagger emits a few hundred), then joined back to the tokens."""
    if table is None:
        return tokens.with_columns(pl.col("sys_tags").list.unique().list.sort().alias("projected"),
                                   pl.lit([], dtype=pl.List(pl.String)).alias("unknown_tags"))
    images = table.group_by("tag").agg(pl.col("pivot").unique().sort().alias("image"))
    keyed = tokens.with_columns(pl.col("sys_tags").list.join("\x1f").alias("_key"))
    long = (keyed.select("_key", "sys_tags").unique("_key").explode("sys_tags")
            .join(images, left_on="sys_tags", right_on="tag", how="left"))
    unknown = long.group_by("_key").agg(
        pl.col("sys_tags").filter(pl.col("image").is_null()).unique().sort().alias("unknown_tags"))
    projected = (long.select("_key", "image").explode("image", keep_nulls=False)
                 .group_by("_key").agg(pl.col("image").unique().sort().alias("projected")))
    return (keyed.join(unknown, on="_key", how="left").join(projected, on="_key", how="left")
            .with_columns(pl.col("projected").fill_null(pl.lit([], dtype=pl.List(pl.String))))
            .drop("_key"))


def _inverse(tokens: pl.DataFrame, table: pl.DataFrame | None) -> pl.DataFrame:
    """Add ``acceptable_own``: every participant tag whose image contains an acceptable tag
    (once per distinct acceptable set, joined back)."""
    if table is None:
        return tokens.with_columns(pl.col("acceptable").alias("acceptable_own"))
    inverse = table.select("pivot", "tag").unique()
    keyed = tokens.with_columns(pl.col("acceptable").list.join("\x1f").alias("_key"))
    own = (keyed.select("_key", "acceptable").drop_nulls("acceptable").unique("_key").explode("acceptable")
           .join(inverse, left_on="acceptable", right_on="pivot", how="left")
           .group_by("_key").agg(pl.col("tag").drop_nulls().unique().sort().alias("acceptable_own")))
    return keyed.join(own, on="_key", how="left").drop("_key")
