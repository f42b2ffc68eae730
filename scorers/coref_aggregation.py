"""Coreference: aggregating per-document statistics over documents into scores.

Popescu-Belis, *Évaluation numérique de la résolution de la référence : critiques et
propositions*, section 4 (the measures), and the CoNLL reference scorer v8.01 (BLANC from its two
link counts, the CoNLL average). The input is the long-form per-document statistics of
:func:`scorers.coref.statistics`; :func:`scores` sums them over documents (micro average),
:func:`document_scores` scores each document on its own and :func:`macro` averages those per
document. ``convention`` is one of :data:`CONVENTIONS`, as :mod:`scorers.coref` describes them
("conll": a zero denominator gives 0; "paper": 1; :func:`zero_value`).

Aggregation over documents (ours, documented): ratio measures sum numerators and denominators.
H is summed as |E_d| H_d (entropies conditional on the document, mention-weighted), so the
corpus HRS = Σ_d |E_d| I_d / Σ_d |E_d| H_d(P_R). kappa is recomputed from the summed link counts
a, key links, response links and N = Σ_d (|E_d| - 1). RCVT is the mention-weighted mean of the
documents' values, i.e. 1 - Σ_d Σ_i abs(|K_i| - |R_i|) / (2 Σ_d |E_d|). D-error pools the
weighted scaled positions of A and B over documents. BLANC sums its link counts, as the
reference scorer does.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from scorehouse.scorers import coref_paper as paper

CONVENTIONS = ("conll", "paper")
SCORE_ORDER = ("mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "blanc_coref",
               "blanc_noncoref", "lea", "conll", "kernel", "exclusive_kernel", "entropy", "kappa",
               "rcvt", "d_error")


def zero_value(convention: str) -> float:
    """The value of a ratio with a zero denominator under ``convention`` (0 for "conll", 1 for
    "paper"); ValueError for a convention not in :data:`CONVENTIONS`."""
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {', '.join(CONVENTIONS)}, not {convention!r}")
    return 1.0 if convention == "paper" else 0.0


def _ratio(num, den, zero):
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), zero)


def _f1(r, p):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((r > 0) & (p > 0), 2 * r * p / np.where(r + p > 0, r + p, 1), 0.0)


def _finish(sums: pl.DataFrame, zero: float) -> pl.DataFrame:
    """Scores of summed statistics: one row per (group, metric) in ``sums`` (columns group,
    metric, rn, rd, pn, pd, links = Σ(|E|-1), weight = Σ|E|, weighted = Σ|E| value)."""
    out = []
    by = {m: frame for (m,), frame in sums.partition_by("metric", as_dict=True).items()}
    null = pl.lit(None, pl.Float64)
    for metric, f in by.items():
        rn, rd, pn, pd = (f[c].to_numpy().astype(np.float64) for c in ("rn", "rd", "pn", "pd"))
        if metric == "kappa":
            cols = {"value": paper.kappa(rn, rd, pd, f["links"].to_numpy(), zero)}
        elif metric == "rcvt":
            w = f["weight"].to_numpy().astype(np.float64)
            cols = {"value": _ratio(f["weighted"].to_numpy(), w, zero)}
        elif metric == "d_error":
            value, direction = paper.d_error(rn, rd, pn, pd)
            cols = {"value": value, "direction": direction}
        elif metric in ("blanc_coref", "blanc_noncoref"):
            continue
        else:
            r, p = _ratio(rn, rd, zero), _ratio(pn, pd, zero)
            cols = {"recall": r, "precision": p, "f1": _f1(r, p)}
        out.append(f.select("group", pl.lit(metric).alias("metric")).with_columns(
            *(pl.Series(name, v, dtype=pl.String if name == "direction" else pl.Float64)
              for name, v in cols.items())))
    if "blanc_coref" in by and "blanc_noncoref" in by:
        out.extend(_blanc(by["blanc_coref"], by["blanc_noncoref"], zero))
    scored = pl.concat(out, how="diagonal_relaxed") if out else pl.DataFrame(
        schema={"group": sums.schema["group"], "metric": pl.String})
    for name, dtype in (("recall", pl.Float64), ("precision", pl.Float64), ("f1", pl.Float64),
                        ("value", pl.Float64), ("direction", pl.String)):
        if name not in scored.columns:
            scored = scored.with_columns(null.cast(dtype).alias(name))
    f1 = scored.filter(pl.col("metric").is_in(["muc", "bcub", "ceafe"]))
    if f1["metric"].n_unique() == 3:  # added in a fixed order: the same bits on every run
        wide = f1.pivot(on="metric", index="group", values="f1")
        conll = wide.select("group",
                            ((pl.col("muc") + pl.col("bcub") + pl.col("ceafe")) / 3).alias("f1"))
        scored = pl.concat([scored, conll.with_columns(pl.lit("conll").alias("metric"))],
                           how="diagonal_relaxed")
    rank = {m: i for i, m in enumerate(SCORE_ORDER)}
    return (scored
            .with_columns(pl.col("metric").replace_strict(rank, default=len(rank)).alias("_o"))
            .sort("group", "_o", "metric").drop("_o")
            .select("group", "metric", "recall", "precision", "f1", "value", "direction"))


def _blanc(coref: pl.DataFrame, non: pl.DataFrame, zero: float) -> list[pl.DataFrame]:
    """BLANC as v8.01: R = (Rc + Rn)/2, P = (Pc + Pn)/2, F = (Fc + Fn)/2; only the non-coreference
    part when the key has no coreference link, only the coreference part when the key has no
    non-coreference link, ``zero`` when it has neither."""
    coref, non = coref.sort("group"), non.sort("group")
    parts, out = {}, []
    for name, f in (("blanc_coref", coref), ("blanc_noncoref", non)):
        r = _ratio(f["rn"].to_numpy(), f["rd"].to_numpy(), zero)
        p = _ratio(f["pn"].to_numpy(), f["pd"].to_numpy(), zero)
        parts[name] = (r, p, _f1(r, p), f["rd"].to_numpy() > 0)
        out.append(f.select("group", pl.lit(name).alias("metric")).with_columns(
            pl.Series("recall", r), pl.Series("precision", p), pl.Series("f1", parts[name][2])))
    (rc, pc, fc, kc), (rn, pn, fn, kn) = parts["blanc_coref"], parts["blanc_noncoref"]
    pick = [np.where(kc & kn, (a + b) / 2, np.where(kc, a, np.where(kn, b, zero)))
            for a, b in ((rc, rn), (pc, pn), (fc, fn))]
    out.append(coref.select("group", pl.lit("blanc").alias("metric")).with_columns(
        pl.Series("recall", pick[0]), pl.Series("precision", pick[1]), pl.Series("f1", pick[2])))
    return out


def _sums(stats: pl.DataFrame, group) -> pl.DataFrame:
    return stats.group_by(group, "metric").agg(
        pl.col("recall_num").sum().alias("rn"), pl.col("recall_den").sum().alias("rd"),
        pl.col("precision_num").sum().alias("pn"), pl.col("precision_den").sum().alias("pd"),
        (pl.col("mentions") - 1).clip(lower_bound=0).sum().alias("links"),
        pl.col("mentions").sum().alias("weight"),
        (pl.col("mentions") * pl.col("value")).sum().alias("weighted"))


def scores(stats: pl.DataFrame, convention: str = "conll") -> pl.DataFrame:
    """Corpus scores, micro-averaged over the documents in ``stats`` (sums of numerators over
    sums of denominators; a zero denominator gives 0 under "conll", 1 under "paper"):
    ``metric, recall, precision, f1, value, direction``. Adds ``blanc`` (from its two link
    counts, as v8.01) and ``conll`` = (MUC F + B3 F + CEAF-e F) / 3 (``f1`` only); kappa, rcvt
    and d_error give ``value`` (and ``direction``), aggregated as the module docstring says."""
    zero = zero_value(convention)
    return _finish(_sums(stats, pl.lit(0).alias("group")), zero).drop("group")


def document_scores(stats: pl.DataFrame, convention: str = "conll") -> pl.DataFrame:
    """:func:`scores` of each document on its own, in one pass: ``doc`` + the columns of
    :func:`scores`."""
    return (_finish(_sums(stats.rename({"doc": "group"}), "group"), zero_value(convention))
            .rename({"group": "doc"}))


def macro(stats: pl.DataFrame, convention: str = "conll") -> pl.DataFrame:
    """Macro view: each document scored on its own (as :func:`scores`), then recall, precision,
    F and value averaged over documents (same columns as :func:`scores`). The D-error direction is
    the sign of the mean signed value (recall +, precision -)."""
    per = document_scores(stats, convention)
    signed = pl.when(pl.col("direction") == "recall").then(pl.col("value")).when(
        pl.col("direction") == "precision").then(-pl.col("value")).otherwise(pl.col("value"))
    out = (per.with_columns(pl.when(pl.col("metric") == "d_error").then(signed)
                            .otherwise(pl.col("value")).alias("value"))
           .group_by("metric", maintain_order=True)
           .agg(pl.col("recall").mean(), pl.col("precision").mean(), pl.col("f1").mean(),
                pl.col("value").mean()))
    is_d = pl.col("metric") == "d_error"
    return out.with_columns(
        pl.when(is_d & (pl.col("value") > 0)).then(pl.lit("recall"))
        .when(is_d & (pl.col("value") < 0)).then(pl.lit("precision"))
        .otherwise(pl.lit(None, pl.String)).alias("direction"),
        pl.when(is_d).then(pl.col("value").abs()).otherwise(pl.col("value")).alias("value"))
