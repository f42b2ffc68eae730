"""Part-of-speech tagging (GRACE): minimal units, re-alignment, cases and their projections.

Paper: Adda, Mariani, Paroubek, Rajman and Lecomte, "Métrique et premiers résultats de
l'évaluation GRACE des étiqueteurs morphosyntaxiques pour le français" (TALN 1999). The reference and every
submission are cut into **minimal units** (maximal runs of word characters; every other
non-space character is a unit of its own). The two unit sequences are aligned with a
longest-common-subsequence diff (:func:`scorers.lcs.align`); reference units left without a
partner are **residual forms**.
A participant token is evaluable only when its units map onto a contiguous span that the
reference offers as a segmentation: one unit with its own tags, a multi-unit reference token (an
implicit locution), or a double-marked locution. Each case (a reference unit in the absolute
evaluation) then carries the participant's tags, their projection through the correspondence
table, and the reference's acceptable tags; the judgement (OK, ERR, SIL_ok, SIL_err, SIL_sil,
c/k) is counted in SQL (``sql/pos/``).

Everything is vectorised (numpy / Polars), with no Python loop per token.
"""

from __future__ import annotations

import numpy as np
import polars as pl

UNIT = r"\w+|[^\w\s]"
NONEVAL_REASONS = ("residual", "segmentation", "unknown_tag", "no_inverse_image")


def units(tokens: pl.DataFrame, form: str = "form", split: bool = True) -> pl.DataFrame:
    """Minimal units of a token table: one row per unit with ``unit`` (0-based), ``tok`` and
    ``unit_form``, in order. With ``split=False`` (CoNLL-U words) each token is one unit."""
    if not split:
        return tokens.select(pl.int_range(pl.len(), dtype=pl.Int64).alias("unit"),
                             pl.col("tok").cast(pl.Int64), pl.col(form).alias("unit_form"))
    return (tokens.select(pl.col("tok").cast(pl.Int64), pl.col(form).str.extract_all(UNIT).alias("unit_form"))
            .explode("unit_form").drop_nulls("unit_form")
            .with_row_index("unit").with_columns(pl.col("unit").cast(pl.Int64)))


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
