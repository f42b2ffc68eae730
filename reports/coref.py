"""The coreference bulletin page (docs/metrics/coref.md; Popescu-Belis, Évaluation numérique de
la résolution de la référence): comparing the key partition P_K and each system's response
partition P_R of the mentions.

For each corpus and each declared variant (zero-denominator convention ``conll`` first, then
``paper``; singletons counted or removed, as the task declares them):

1. the paper's table 2: recall and precision of MUC (MRS, MPS), B3 (BRS, BPS), the kernels C
   (CRS, CPS) and exclusive kernels XC (XRS, XPS), the D-error (magnitude and direction), RCVT
   (the paper's RVT) and the entropy measure H (HRS, HPS);
2. the paper's table 3: F of MUC, B3, C, XC and H with kappa (Passonneau's K);
3. today's CoNLL table: mention detection, MUC, B3, CEAF-m, CEAF-e, BLANC and LEA (R, P, F) and
   the CoNLL average (MUC F + B3 F + CEAF-e F) / 3, with 95 % bootstrap intervals (documents
   resampled, mart_coref_interval);
4. per genre: the CoNLL average and the F of MUC, B3 and CEAF-e;
5. the built-in baselines (all singletons, all merged, random partition with the key's class-size
   profile) and the differential view: each system's score minus the best baseline's, per measure;
6. where the measures agree (the paper's conclusion: trust a ranking when the measures are
   covariant): Kendall's tau-b between measures across the systems (a heatmap), each system's F
   under each measure (a line chart), and the pairs of systems every measure orders the same way;

and per corpus the mention statistics of int_coref_mention (matched by exact span: both / missed /
spurious). Only published systems appear (withheld ones are left out, anonymous ones under their
code); organisers' systems are shown apart, the built-in baselines as their own group. Every table
and chart carries the signature of its figures; the main tables are written as CSV, Parquet,
Markdown and LaTeX next to the page, with labels instead of internal system ids.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from scorehouse.reports import ranks
from scorehouse.reports.charts import correlation_heatmap, way_lines
from scorehouse.reports.coref_corefud import corpus_stats, is_corefud, mention_counts
from scorehouse.reports.i18n import N_, Language
from scorehouse.reports.render import rejected_inputs, stored_signature
from scorehouse.reports.systems import grouped, only_published, published_systems
from scorehouse.reports.tables import export_tables
from scorehouse.scorers import coref_compare as compare
from scorehouse.warehouse.db import frame

CONVENTION_ORDER = ("conll", "paper", "corefud")
# (metric, the paper's prefix of its recall / precision names) in the paper's table 2 order.
TABLE2 = (("muc", "M"), ("bcub", "B"), ("kernel", "C"), ("exclusive_kernel", "X"))
TABLE2_TAIL = (("entropy", "H"),)  # after D-err and RVT, as in the paper
TABLE3 = ("muc", "bcub", "kappa", "kernel", "exclusive_kernel", "entropy")
CONLL_TABLE = ("mentions", "muc", "bcub", "ceafm", "ceafe", "blanc", "lea")
# the official CorefUD scorer's measures, in its order (a CorefUD task's only variant)
COREFUD_TABLE = ("muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "mor", "zero")
GENRE_MEASURES = ("conll", "muc", "bcub", "ceafe")
SUBSET_MEASURES = ("muc", "bcub", "ceafe", "conll", "kernel", "exclusive_kernel", "entropy",
                   "kappa")
# Measures compared across systems (F, or the value of kappa and RCVT).
MEASURES = ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "conll", "kernel", "exclusive_kernel",
            "entropy", "kappa", "rcvt")
VALUE_MEASURES = ("kappa", "rcvt", "d_error")
NAMES = {"mentions": N_("Mentions"), "muc": "MUC", "bcub": "B³", "ceafm": "CEAF-m",
         "ceafe": "CEAF-e", "blanc": "BLANC", "lea": "LEA", "conll": "CoNLL", "kernel": "C",
         "exclusive_kernel": "XC", "entropy": "H", "kappa": "κ", "rcvt": "RCVT",
         "d_error": "D-error", "pronoun_antecedent": N_("Pronoun / antecedent"),
         "mor": N_("MOR (mention overlap)"), "zero": N_("Zero anaphors")}  # shown translated
# the baselines are systems of the rank correlation (the paper's 2a, 2b, 3a, 3b)
AGREEMENT_BASELINES = True
_FIELDS = ("recall", "precision", "f1", "value", "direction", "ci_low", "ci_high", "rank_best",
           "rank_worst")
_EMPTY = dict.fromkeys(_FIELDS)


_FRONT = ("corpus", "convention", "singletons", "slice", "genre", "label", "organiser", "baseline")


def page_data(con, campaign, task, out: Path) -> dict:
    """Everything the ``coref.html`` template shows, and the exported files."""
    from scorehouse.warehouse.families.coref import BASELINES, code_version, signature

    key = [campaign.id, task.id]
    systems = published_systems(con, key, BASELINES if task.options.get("baselines", True) else {},
                                language=campaign.language)
    labels = dict(zip(systems["system"], systems["label"]))
    rejected = rejected_inputs(con, campaign, task, labels)
    boot = frame(con, "SELECT DISTINCT resamples, seed FROM mart_coref_interval "
                      "WHERE campaign = ? AND task = ?", key).to_dicts()
    boot_n, boot_seed = ((boot[0]["resamples"], boot[0]["seed"]) if len(boot) == 1
                         else (campaign.bootstrap, campaign.seed))
    scores = only_published(frame(con, """
        SELECT s.corpus, s.system, s.convention, s.singletons, s.subset, s.slice,
               coalesce(s.genre, '') AS genre, s.metric, s.recall, s.precision, s.f1, s.value,
               s.direction, i.ci_low, i.ci_high, s.signature
        FROM mart_coref_scores s
        LEFT JOIN mart_coref_interval i
          ON s.slice = 'corpus' AND i.campaign = s.campaign AND i.task = s.task
         AND i.corpus = s.corpus AND i.system = s.system AND i.convention = s.convention
         AND i.singletons = s.singletons AND i.subset = s.subset AND i.metric = s.metric
        WHERE s.campaign = ? AND s.task = ? ORDER BY ALL""", key), systems)
    scores = ranks.with_ranks(scores, frame(
        con, "SELECT corpus, convention, singletons, subset, metric, system_a, system_b, delta, "
             "p_value FROM mart_coref_paired WHERE campaign = ? AND task = ?", key),
        ["corpus", "convention", "singletons", "subset", "metric"], "f1",
        where=pl.col("slice") == "corpus")
    corefud = is_corefud(task)
    corpora = _corpora(con, campaign, task, corefud)
    mentions = only_published(mention_counts(con, key) if corefud else frame(con, """
        SELECT corpus, system, coalesce(category, '') AS category,
               count(*) FILTER (WHERE status <> 'response') AS key_mentions,
               count(*) FILTER (WHERE status <> 'key') AS response_mentions,
               count(*) FILTER (WHERE status = 'both') AS "both",
               count(*) FILTER (WHERE status = 'key') AS missed,
               count(*) FILTER (WHERE status = 'response') AS spurious
        FROM int_coref_mention WHERE campaign = ? AND task = ? GROUP BY ALL ORDER BY ALL""",
                                                                  key),
                              systems.filter(~pl.col("baseline")))
    declared = [c for c in CONVENTION_ORDER
                if c in task.options.get("conventions", CONVENTION_ORDER)]
    present = (set(scores.select("convention", "singletons").unique().iter_rows()) if scores.height
               else set())
    variants = [(c, s) for c in declared for s in task.options.get("singletons", [True, False])
                if (c, s) in present]
    version = code_version()
    draws = int(task.options.get("draws", 10))
    sig = {"corpus": f"corpus|coref|units:key-mentions|duplicates:dropped|version:{version}",
           "bootstrap": f"boot|unit:document|resamples:{boot_n}|seed:{boot_seed}"
                        "|interval:percentile-95",
           "mentions": f"mentions|matching:exact-{'nodes' if corefud else 'span'}"
                       f"|duplicates:dropped|baselines:excluded"
                       f"|version:{version}"}
    sections, exported = [], {"scores": [], "differential": [], "agreement": [], "pairs": []}
    for corpus in corpora["corpus"].to_list():
        mine = scores.filter(pl.col("corpus") == corpus)
        genres = sorted(set(mine.filter(pl.col("slice") == "genre")["genre"]))
        views = []
        for convention, singletons in variants:
            part = mine.filter((pl.col("convention") == convention)
                               & (pl.col("singletons") == singletons))
            if not part.height:
                continue
            head = stored_signature(part["signature"], signature(convention, singletons))
            views.append(_variant(corpus, convention, singletons, head, part, genres, draws,
                                  exported, Language(campaign.language)))
        counts = mentions.filter(pl.col("corpus") == corpus)
        categories = sorted(c for c in set(counts["category"]) if c)
        sections.append({"id": corpus, "genres": genres, "variants": views,
                         "mentions": grouped(_mention_totals(counts).to_dicts()),
                         "categories": categories,
                         "by_category": _mention_categories(counts, categories) if categories
                         else []})
    files = export_tables(out, front=_FRONT, tables={
        "coref_corpora": corpora,
        "coref_scores": _concat(exported["scores"]),
        "coref_differential": _concat(exported["differential"]),
        "coref_agreement": _concat(exported["agreement"]),
        "coref_pairs": _concat(exported["pairs"]),
        "coref_mentions": _mention_totals(mentions).select(
            "corpus", "label", "organiser", "key_mentions", "response_mentions", "both", "missed",
            "spurious"),
        "coref_mentions_by_category": mentions.filter(pl.col("category") != "").select(
            "corpus", "label", "organiser", "category", "key_mentions", "response_mentions", "both",
            "missed", "spurious"),
    })
    return {"task": task, "corpora": corpora.to_dicts(), "sections": sections, "variants": variants,
            "corefud": corefud,
            "rejected": rejected, "resamples": boot_n, "seed": boot_seed, "draws": draws,
            "names": NAMES, "table2": TABLE2, "table2_tail": TABLE2_TAIL, "table3": TABLE3,
            "conll_table": CONLL_TABLE, "genre_measures": GENRE_MEASURES,
            "subset_measures": SUBSET_MEASURES,
            "pronoun_category": str(task.options.get("pronoun_category", "pronoun")),
            "sig": sig, "files": files}


# ---------------------------------------------------------------- systems and rows

def _system_rows(part: pl.DataFrame) -> list[dict]:
    """One dict per system (page order): ``system, label, group`` and ``m``: metric -> its
    recall, precision, f1, value, direction, ci_low, ci_high (None when absent)."""
    out: dict[str, dict] = {}
    for r in part.iter_rows(named=True):
        row = out.setdefault(r["system"], {"system": r["system"], "label": r["label"],
                                           "group": r["group"],
                                           "m": {m: dict(_EMPTY) for m in NAMES}})
        row["m"][r["metric"]] = {f: r[f] for f in _FIELDS}
    return list(out.values())


def _score(row: dict, metric: str) -> float | None:
    """A system's score under a measure: F, or the value of kappa and RCVT."""
    return row["m"][metric]["value" if metric in VALUE_MEASURES else "f1"]


# ---------------------------------------------------------------- one corpus x variant

def _variant(corpus: str, convention: str, singletons: bool, sig: str, part: pl.DataFrame,
             genres: list[str], draws: int, exported: dict, language: Language) -> dict:
    """The tables and charts of one corpus under one variant; their long forms go to
    ``exported``."""
    keys = {"corpus": corpus, "convention": convention, "singletons": singletons}
    whole = part.filter(pl.col("subset") == "all")
    head = whole.filter(pl.col("slice") == "corpus")
    rows = _system_rows(head)
    per_genre = []
    if len(genres) > 1:
        by_genre = {(r["system"], g): r for g in genres
                    for r in _system_rows(whole.filter((pl.col("slice") == "genre")
                                                       & (pl.col("genre") == g)))}
        per_genre = [{**r, "cells": [by_genre.get((r["system"], g),
                                                  {"m": {m: dict(_EMPTY) for m in NAMES}})["m"]
                                     for g in genres]} for r in rows]
    baselines = [r for r in rows if r["group"] == "baseline"]
    # the measures this variant scores (CorefUD has no kernels, entropy, kappa nor RCVT)
    measures = [m for m in MEASURES if any(_score(r, m) is not None for r in rows)]
    best, differential = _differential(rows, baselines, measures)
    agreement_rows = [r for r in rows if AGREEMENT_BASELINES or r["group"] != "baseline"]
    tau, p_value, used = _agreement(agreement_rows, measures)
    pairs = _pairs([r for r in rows if r["group"] != "baseline"], measures)
    _ = language._
    title = _variant_title(convention, singletons, _)
    baseline_labels = {r["label"] for r in rows if r["group"] == "baseline"}
    shown_used = [_(u) if u in baseline_labels else u for u in used]  # baselines: translated
    sigs = {"head": sig,
            "differential": f"differential|against:best-baseline|baselines:all_singletons,"
                            f"all_merged,random_profile(draws:{draws})|{sig}",
            "agreement": f"agreement|rank:kendall-tau-b|systems:{len(used)}|baselines:"
                         f"{'included' if AGREEMENT_BASELINES else 'excluded'}"
                         f"|scores:F,kappa,RCVT|{sig}",
            "pairs": f"pairs|order:strict|measures:{len(measures)}|baselines:excluded|{sig}"}
    names = [NAMES[m] for m in measures]
    short = f"{corpus}, {title}"
    heat = (correlation_heatmap(tau, names, _("{variant}: Kendall's tau between measures over {n} "
                                              "systems").format(variant=short, n=len(used)),
                                language=language) if len(used) >= 3 else "")
    f_measures = [m for m in measures if m not in VALUE_MEASURES]
    dots = way_lines([NAMES[m] for m in f_measures],
                     {_(r["label"]) if r["group"] == "baseline" else r["label"]:
                      [_score(r, m) for m in f_measures] for r in rows},
                     _("F (%)"), _("{variant}: F under each measure").format(variant=short),
                     language=language) if rows else ""
    subsets = [(name, _subset_title(name, _), grouped(_system_rows(rows_)))
               for (name,), rows_ in part.filter((pl.col("subset") != "all")
                                                 & (pl.col("slice") == "corpus"))
               .sort("subset", maintain_order=True).group_by("subset", maintain_order=True)]
    exported["scores"].append(part.select(
        "label", "organiser", "baseline", "corpus", "convention", "singletons", "subset", "slice",
        "genre", "metric", "recall", "precision", "f1", "value", "direction", "ci_low", "ci_high",
        *ranks.COLUMNS, "signature"))
    if differential:
        exported["differential"].append(pl.DataFrame([
            {**keys, "label": r["label"], "organiser": r["group"] == "organiser", "metric": m,
             "score": _score(r, m), "best_baseline": best[m]["label"],
             "best_baseline_score": best[m]["score"], "difference": r["diff"][m]}
            for r in differential for m in measures], infer_schema_length=None))
    if used:
        exported["agreement"].append(pl.DataFrame([
            {**keys, "measure_a": NAMES[a], "measure_b": NAMES[b], "tau": tau[i][j],
             "p_value": p_value[i][j], "systems": len(used)}
            for i, a in enumerate(measures) for j, b in enumerate(measures)],
            infer_schema_length=None))
    if pairs:
        exported["pairs"].append(pl.DataFrame(
            [{**keys, **{k: v for k, v in p.items() if k not in ("groups", "winner")}}
             for p in pairs],
            infer_schema_length=None))
    corefud = convention == "corefud"
    # what the variant's fold-out holds, in page order (the template names them)
    holds = [h for h, shown in (("table2", not corefud), ("table3", not corefud), ("today", True),
                                ("genre", per_genre), ("subsets", subsets),
                                ("baselines", baselines), ("agreement", True))
             if shown]
    return {"convention": convention, "singletons": singletons, "title": title,
            "measures": measures, "holds": holds,
            "corefud": corefud,
            "conll_table": COREFUD_TABLE if convention == "corefud" else CONLL_TABLE,
            "anchor": f"{corpus}-{convention}-{'singletons' if singletons else 'no-singletons'}",
            "sig": sigs, "rows": grouped(rows), "genres": grouped(per_genre),
            "baselines": baselines, "best": best, "differential": grouped(differential),
            "heatmap": heat, "dots": dots, "agreement_systems": shown_used, "tau": tau,
            "pairs": pairs,
            "uniform": sum(p["verdict"] != "measures disagree" for p in pairs), "subsets": subsets}


def _subset_title(subset: str, _) -> str:
    kind, _sep, name = subset.partition(":")
    return {"category": _("Mentions of category {name} only"),
            "link": _("Super-classes joined by {name} links")}.get(kind, subset).format(name=name)


def variant_title(variant: str, _) -> str:
    """The page's name of a variant ``convention/singletons`` or ``convention/no-singletons``
    (its section's heading, and the front page's board caption: one name for one variant)."""
    convention, _sep, singletons = variant.partition("/")
    return _variant_title(convention, singletons == "singletons", _)


def _variant_title(convention: str, singletons: bool, _) -> str:
    scorer = {"conll": _("CoNLL scorer convention"), "paper": _("paper convention"),
              "corefud": _("official CorefUD scorer")}[convention]
    return (_("{scorer}, singletons counted") if singletons
            else _("{scorer}, singletons removed")).format(scorer=scorer)


def _matrix(rows: list[dict], measures) -> np.ndarray:
    """The systems' scores under each of ``measures`` (NaN where absent): the comparisons'
    input (scorers/coref_compare.py)."""
    return np.array([[math.nan if _score(r, m) is None else _score(r, m) for m in measures]
                     for r in rows], dtype=float).reshape(len(rows), len(measures))


def _number(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _differential(rows: list[dict], baselines: list[dict],
                  measures) -> tuple[dict, list[dict]]:
    """The best baseline per measure (``{metric: {"label", "score"}}``) and, per non-baseline
    system, ``diff``: its score minus the best baseline's (compare.differential)."""
    others = [r for r in rows if r["group"] != "baseline"]
    best, top, diff = compare.differential(_matrix(others, measures),
                                           _matrix(baselines, measures))
    by_measure = {m: {"score": _number(top[j]),
                      "label": baselines[best[j]]["label"] if best[j] >= 0 else None}
                  for j, m in enumerate(measures)}
    if not baselines:
        return by_measure, []
    return by_measure, [{**r, "diff": {m: _number(diff[i, j]) for j, m in enumerate(measures)}}
                        for i, r in enumerate(others)]


def _agreement(rows: list[dict], measures) -> tuple[list[list], list[list], list[str]]:
    """Kendall's tau-b (and its p-value) between every two of ``measures`` over the systems
    scored under each (compare.agreement), and the labels of those systems."""
    found = compare.agreement(_matrix(rows, measures))
    return found.tau, found.p_value, [rows[i]["label"] for i in found.used]


def _pairs(rows: list[dict], measures) -> list[dict]:
    """Every two systems (page order) with the number of measures that score each one strictly
    higher, and the verdict: better under every measure (the paper's covariant responses) or not
    (compare.pairs)."""
    out = []
    for p in compare.pairs(_matrix(rows, measures)):
        a, b = rows[p.a], rows[p.b]
        winner = {"a": a, "b": b}.get(p.covariant)
        out.append({"system_a": a["label"], "system_b": b["label"],
                    "groups": (a["group"], b["group"]), "a_better": p.a_better,
                    "b_better": p.b_better, "ties": p.ties, "measures": p.measures,
                    "winner": winner["label"] if winner else None,
                    "verdict": f"{winner['label']} better under every measure" if winner
                    else "measures disagree"})
    return out


# ---------------------------------------------------------------- corpora and mentions

def _corpora(con, campaign, task, corefud: bool) -> pl.DataFrame:
    """One row per corpus (task order): phase, documents, genres, key mentions (distinct spans),
    key classes, singleton classes, the largest class and mentions per class (the paper's
    table 4, |E| / |P_K|); for CorefUD files (from their staging), the zero mentions too."""
    order = [c.id for c in task.corpora]
    stats = corpus_stats(con, [campaign.id, task.id]) if corefud else frame(con, """
        WITH spans AS (
            SELECT i.corpus, m.doc, arg_min(m.cluster, m.line_no) AS cluster
            FROM cat_input_current i JOIN stg_coref_mention m ON m.sha256 = i.sha256
            WHERE i.campaign = ? AND i.task = ? AND i.system = '' AND i.role = 'key'
            GROUP BY i.corpus, m.doc, m.start, m."end"),
        classes AS (SELECT corpus, doc, cluster, count(*) AS size FROM spans GROUP BY ALL),
        empty AS (
            SELECT i.corpus, count(*) AS empty_documents
            FROM cat_input_current i JOIN stg_coref_empty_document d ON d.sha256 = i.sha256
            WHERE i.campaign = ? AND i.task = ? AND i.system = '' AND i.role = 'key'
            GROUP BY i.corpus)
        SELECT corpus, count(DISTINCT doc) + coalesce(any_value(empty_documents), 0) AS documents,
               sum(size)::BIGINT AS key_mentions,
               count(*) AS key_classes, count(*) FILTER (WHERE size = 1) AS singleton_classes,
               max(size) AS largest_class, sum(size) / count(*) AS mentions_per_class
        FROM classes LEFT JOIN empty USING (corpus) GROUP BY corpus""", [campaign.id, task.id] * 2)
    genres = frame(con, "SELECT corpus, count(DISTINCT genre) AS genres FROM mart_coref_scores "
                        "WHERE campaign = ? AND task = ? AND slice = 'genre' GROUP BY corpus",
                   [campaign.id, task.id])
    base = pl.DataFrame({"corpus": order, "phase": [c.phase for c in task.corpora]},
                        schema={"corpus": pl.String, "phase": pl.String})
    return (base.join(stats, on="corpus", how="left", maintain_order="left")
            .join(genres, on="corpus", how="left", maintain_order="left")
            .select("corpus", "phase", "documents", "genres", "key_mentions", "key_classes",
                    "singleton_classes", "largest_class", "mentions_per_class",
                    *(["zeros"] if corefud else [])))


_COUNTS = ("key_mentions", "response_mentions", "both", "missed", "spurious")


def _mention_totals(counts: pl.DataFrame) -> pl.DataFrame:
    """Mention counts summed over the categories, one row per corpus x system (page order)."""
    return (counts.group_by("corpus", "system", "label", "organiser", "group", maintain_order=True)
            .agg(*(pl.col(c).sum() for c in _COUNTS)))


def _mention_categories(counts: pl.DataFrame, categories: list[str]) -> list[dict]:
    """Per system: for each category, its both / missed / spurious counts (None when absent)."""
    out = []
    for r in _mention_totals(counts).to_dicts():
        mine = {c["category"]: c for c in counts.filter(pl.col("system") == r["system"]).to_dicts()}
        out.append({**r, "cells": [mine.get(c) for c in categories]})
    return out


# ---------------------------------------------------------------- export

def _concat(parts: list[pl.DataFrame]) -> pl.DataFrame:
    return pl.concat(parts, how="diagonal_relaxed") if parts else pl.DataFrame()
