"""The POS bulletin page (GRACE, Adda et al., TALN 1999): operating zones, precision / decision
tables, relative evaluation, granularity, NONEVAL, unknown tags and dropped alternatives, kappa,
consensus and residual forms.

Only published systems appear (withheld ones are left out, anonymous ones under their code);
built-in baselines are marked, organiser systems are shown apart. Every table and chart carries
the signature of its figures. The main tables are written as CSV, Parquet, Markdown and LaTeX
next to the page, with labels instead of internal system ids, and the consensus annotation of
every corpus as ``consensus_<corpus>.grace``.

Undefined scores (P when OK + ERR = 0, the others when nothing is evaluable) are NULL in the
warehouse and printed "–".
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.reports import ranks
from scorehouse.reports.chart_cache import aside
from scorehouse.reports.charts import operating_zones
from scorehouse.reports.i18n import N_, Language
from scorehouse.reports.render import rejected_inputs, stored_signature
from scorehouse.reports.systems import grouped, published_systems
from scorehouse.reports.tables import export_tables
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.families.pos import (
    EVALUATIONS,
    GRANULARITIES,
    code_version,
    signature,
)
from scorehouse.warehouse.families.pos_consensus import write_consensus

RESIDUAL_EXAMPLES = 10
NONEVAL_REASONS = ("residual", "segmentation", "unknown_tag", "no_inverse_image")
_COUNTS = ["nbCas", "NONEVAL", "OK", "ERR", "SIL_ok", "SIL_err", "SIL_sil", "SIL", "SILOK_moy"]
_SCORES = ["P", "D", "Pmin", "Pmoy", "Pmax", "pct_noneval"]


def _with_ranks(con, key: list, scores: pl.DataFrame) -> pl.DataFrame:
    """Each shown system's rank range by P among the shown systems of its corpus and variant
    (corpus rows only), from the paired tests of mart_pos_paired (reports/ranks.py)."""
    tests = frame(con, "SELECT corpus, evaluation, granularity, system_a, system_b, delta, p_value "
                       "FROM mart_pos_paired WHERE campaign = ? AND task = ? "
                       "AND measure = 'P'", key)
    return ranks.with_ranks(scores, tests, ["corpus", "evaluation", "granularity"], "P",
                            where=pl.col("slice") == "corpus")


def page_data(con, campaign, task, out: Path) -> dict:
    """Everything the ``pos.html`` template shows, and the exported files."""
    key = [campaign.id, task.id]
    evaluations = [e for e in EVALUATIONS if e in task.options.get("evaluations", EVALUATIONS)]
    granularities = [g for g in GRANULARITIES
                     if g in task.options.get("granularities", GRANULARITIES)]
    systems = published_systems(con, key, language=campaign.language)
    order = {s: i for i, s in enumerate(systems["system"])}
    visible = systems.select("system", "label", "organiser", "baseline", "group")

    def published(query: str, params=key) -> pl.DataFrame:
        # a total order: same bytes
        rows = frame(con, f"SELECT * FROM ({query}) ORDER BY ALL", params)
        if not rows.height:
            return rows
        return (rows.join(visible, on="system", how="inner", maintain_order="left")
                .with_columns(pl.col("system").replace_strict(order, return_dtype=pl.Int64)
                              .alias("_order"))
                .sort("corpus", "_order", maintain_order=True).drop("_order"))

    scores = published(
        "SELECT s.corpus, s.system, s.evaluation, s.granularity, s.slice, s.genre, "
        + ", ".join(f"s.{c}" for c in _COUNTS + _SCORES) + ", "
        + ", ".join(f"s.noneval_{r}" for r in NONEVAL_REASONS) + ", "
        "ip.ci_low AS P_low, ip.ci_high AS P_high, id.ci_low AS D_low, id.ci_high AS D_high, "
        "im.ci_low AS Pmoy_low, im.ci_high AS Pmoy_high, s.signature "
        "FROM mart_pos_scores s "
        "LEFT JOIN mart_pos_interval ip ON ip.measure = 'P' AND s.slice = 'corpus' "
        " AND ip.campaign = s.campaign AND ip.task = s.task AND ip.corpus = s.corpus"
        " AND ip.system = s.system "
        " AND ip.evaluation = s.evaluation AND ip.granularity = s.granularity "
        "LEFT JOIN mart_pos_interval id ON id.measure = 'D' AND s.slice = 'corpus' "
        " AND id.campaign = s.campaign AND id.task = s.task AND id.corpus = s.corpus"
        " AND id.system = s.system "
        " AND id.evaluation = s.evaluation AND id.granularity = s.granularity "
        "LEFT JOIN mart_pos_interval im ON im.measure = 'Pmoy' AND s.slice = 'corpus' "
        " AND im.campaign = s.campaign AND im.task = s.task AND im.corpus = s.corpus"
        " AND im.system = s.system "
        " AND im.evaluation = s.evaluation AND im.granularity = s.granularity "
        "WHERE s.campaign = ? AND s.task = ? AND s.slice IN ('corpus', 'genre')")
    scores = _with_ranks(con, key, scores)
    stored = {}  # "evaluation/granularity" -> the signatures stored with its scores
    if scores.height:
        for (evaluation, granularity), rows in scores.group_by("evaluation", "granularity"):
            stored[f"{evaluation}/{granularity}"] = rows["signature"]

    def variant_sig(evaluation: str, granularity: str) -> str:
        return stored_signature(stored.get(f"{evaluation}/{granularity}", []),
                                signature(task, evaluation, granularity))
    if scores.height:
        scores = scores.filter(pl.col("evaluation").is_in(evaluations)
                               & pl.col("granularity").is_in(granularities))
    corpora = frame(con, """
        SELECT c.corpus, c.phase, count(DISTINCT u.doc) AS documents,
               count(DISTINCT u.genre) AS genres, count(DISTINCT (u.doc, u.sent)) AS sentences,
               count(u.unit) AS units
        FROM cat_corpus c
        LEFT JOIN cat_input_current i
          ON i.campaign = c.campaign AND i.task = c.task AND i.corpus = c.corpus
         AND i.system = '' AND i.role = 'reference'
        LEFT JOIN int_pos_ref_unit u ON u.sha256 = i.sha256
        WHERE c.campaign = ? AND c.task = ? GROUP BY ALL ORDER BY c.corpus""", key)
    language = Language(campaign.language)
    # The headline variant: absolute evaluation on full tags, unless the task shows neither.
    he = "absolute" if "absolute" in evaluations else evaluations[0]
    hg = "full" if "full" in granularities else granularities[0]
    heads = {corpus: scores.filter((pl.col("corpus") == corpus) & (pl.col("evaluation") == he)
                                   & (pl.col("granularity") == hg) & (pl.col("slice") == "corpus"))
             for corpus in corpora["corpus"].to_list()} if scores.height else {}
    # each corpus's chart drawn aside while the page reads the rest
    charts = {corpus: aside(_chart, head, corpus, he, hg, language)
              for corpus, head in heads.items() if head.height}
    resamples = frame(con, "SELECT DISTINCT resamples, seed FROM mart_pos_interval "
                           "WHERE campaign = ? AND task = ?", key).to_dicts()
    boot_n, boot_seed = ((resamples[0]["resamples"], resamples[0]["seed"]) if len(resamples) == 1
                         else (campaign.bootstrap, campaign.seed))
    unknown = published(
        "SELECT corpus, system, tag, "
        + ", ".join(f"coalesce(sum({c}) FILTER (WHERE evaluation = '{e}'), 0)::BIGINT AS {e}_{c}"
                    for e in evaluations for c in ("cases", "dropped"))
        + " FROM mart_pos_unknown_tags WHERE campaign = ? AND task = ? GROUP BY ALL")
    dropped = frame(con, "SELECT corpus, system, evaluation, sum(dropped)::BIGINT AS dropped "
                         "FROM mart_pos_unknown_tags WHERE campaign = ? AND task = ? "
                         "GROUP BY ALL", key)
    kappa = published("SELECT corpus, system, cases, p_o, p_e, kappa FROM mart_pos_kappa "
                      "WHERE campaign = ? AND task = ?")
    pairs = frame(con, "SELECT corpus, system_a, system_b, cases, p_o, p_e, kappa "
                       "FROM mart_pos_kappa_pairs "
                       "WHERE campaign = ? AND task = ? ORDER BY corpus", key)
    labels = dict(zip(visible["system"], visible["label"]))
    groups = dict(zip(visible["system"], visible["group"]))
    if pairs.height:
        rows = []
        both = pl.col("system_a").is_in(list(labels)) & pl.col("system_b").is_in(list(labels))
        for r in pairs.filter(both).to_dicts():
            a, b = sorted((r["system_a"], r["system_b"]), key=order.get)  # page order, A before B
            rows.append({**r, "system_a": a, "system_b": b, "label_a": labels[a],
                         "label_b": labels[b], "group_a": groups[a], "group_b": groups[b],
                         "_1": order[a], "_2": order[b]})
        pairs = (pl.DataFrame(rows, infer_schema_length=None).sort("corpus", "_1", "_2")
                 .drop("_1", "_2") if rows else pairs.clear())
    # the units counted apart from the votes: both hold one row per reference unit of the
    # current reference (the consensus votes on the current units' cases), and the join of a
    # million units with a million votes cost the one-change run's page 0.15-0.2 s
    consensus = frame(con, """
        WITH units AS (
            SELECT c.corpus, count(u.unit) AS units
            FROM cat_corpus c
            JOIN cat_input_current i
              ON i.campaign = c.campaign AND i.task = c.task AND i.corpus = c.corpus
             AND i.system = '' AND i.role = 'reference'
            JOIN int_pos_ref_unit u ON u.sha256 = i.sha256
            WHERE c.campaign = $campaign AND c.task = $task GROUP BY ALL
        ), voted AS (
            SELECT corpus, count(*) AS with_consensus,
                   -- exact sum: same bits every run
                   avg(agreement::DECIMAL(38, 18))::DOUBLE AS mean_agreement,
                   avg((agreement >= 1 - 1e-9)::INTEGER) AS share_full,
                   avg((agreement >= 0.5)::INTEGER) AS share_half,
                   avg((agreement < 0.5)::INTEGER) AS share_low
            FROM mart_pos_consensus WHERE campaign = $campaign AND task = $task GROUP BY ALL
        )
        SELECT u.corpus, u.units, coalesce(v.with_consensus, 0) AS with_consensus,
               v.mean_agreement, v.share_full, v.share_half, v.share_low
        FROM units u LEFT JOIN voted v USING (corpus) ORDER BY u.corpus""",
                      {"campaign": campaign.id, "task": task.id})
    residual = published(
        "SELECT corpus, system, unit, unit_form, left_context, right_context, doc, sent, "
        "total FROM ("
        " SELECT *, row_number() OVER (PARTITION BY corpus, system ORDER BY unit) AS rn,"
        " count(*) OVER (PARTITION BY corpus, system) AS total"
        " FROM int_pos_residual WHERE campaign = ? AND task = ?) WHERE rn <= ?",
        [*key, RESIDUAL_EXAMPLES])
    rejected = rejected_inputs(con, campaign, task, labels)

    version = code_version()
    head_sig = variant_sig(he, hg)
    strict_sig = variant_sig("absolute", "full")  # kappa and consensus: fixed by their SQL
    sig = {
        "head": head_sig,
        "variants": {f"{e}/{g}": variant_sig(e, g) for e in evaluations for g in granularities},
        "bootstrap": f"boot|unit:sentence|resamples:{boot_n}|seed:{boot_seed}"
                     "|interval:percentile-95",
        "corpus": f"corpus|units:minimal|version:{version}",
        "zone": f"zone|exact:slice-band|points:400|{head_sig}",
        "absolute": strict_sig,  # views computed on the absolute evaluation (residual forms)
        "kappa": f"kappa|cohen|cases:strict|{strict_sig}",
        "consensus": f"consensus|vote:1/k|ties:alphabetical|baselines:excluded|{strict_sig}",
    }
    files = []
    per_corpus = []
    for corpus in corpora["corpus"].to_list():
        consensus_file = None
        if consensus.filter((pl.col("corpus") == corpus) & (pl.col("with_consensus") > 0)).height:
            path = write_consensus(con, campaign.id, task.id, corpus,
                                   out / f"consensus_{corpus}.grace")
            consensus_file = path.name
            files.append(path.name)
        sc = scores.filter(pl.col("corpus") == corpus) if scores.height else scores

        def variant(evaluation, granularity, slice_="corpus", genre=None, frame_=sc):
            if not frame_.height:
                return frame_
            rows = frame_.filter((pl.col("evaluation") == evaluation)
                                 & (pl.col("granularity") == granularity)
                                 & (pl.col("slice") == slice_))
            return rows.filter(pl.col("genre") == genre) if genre is not None else rows

        head = variant(he, hg)
        genres = (sorted(sc.filter(pl.col("slice") == "genre")["genre"].unique().to_list())
                  if sc.height else [])
        per_corpus.append({
            "id": corpus,
            "chart": charts[corpus]() if corpus in charts else "",
            "scores": grouped(head.to_dicts()),
            "genres": [(g or language._("(no genre)"),
                        grouped(variant(he, hg, "genre", g).to_dicts()))
                       for g in genres],
            "relative": _side_by_side(variant("absolute", hg), variant("relative", hg))
            if len(evaluations) == 2 else [],
            "category": _side_by_side(variant(he, "full"), variant(he, "category"))
            if len(granularities) == 2 else [],
            "noneval": _noneval(sc, hg, order, dropped.filter(pl.col("corpus") == corpus)),
            "unknown": _rows(unknown, corpus, f"{he}_cases"),
            "kappa": grouped(_rows(kappa, corpus)),
            "pairs": pairs.filter(pl.col("corpus") == corpus).to_dicts() if pairs.height else [],
            "consensus": consensus.filter(pl.col("corpus") == corpus).to_dicts(),
            "consensus_file": consensus_file,
            "residual": _residual(residual, corpus),
        })
    files += export_tables(out, {"pos_scores": scores}, front=(
        "corpus", "slice", "genre", "label", "organiser", "baseline", "evaluation", "granularity"))
    files += export_tables(out, {
        "pos_unknown_tags": unknown, "pos_kappa": kappa,
        "pos_kappa_pairs": pairs.select("corpus", "label_a", "label_b", "cases", "p_o", "p_e",
                                        "kappa") if pairs.height else pairs,
        "pos_consensus": consensus, "pos_corpora": corpora})
    return {"task": task, "evaluations": evaluations, "granularities": granularities,
            "head_evaluation": he, "head_granularity": hg,
            "corpora": corpora.to_dicts(), "sig": sig, "per_corpus": per_corpus,
            "rejected": rejected, "files": files, "resamples": boot_n, "seed": boot_seed,
            "residual_examples": RESIDUAL_EXAMPLES}


def _noneval(sc: pl.DataFrame, granularity: str, order: dict, dropped: pl.DataFrame) -> list:
    """NONEVAL by reason per system and evaluation (corpus slice), with the alternatives dropped
    for a tag missing from the table (``dropped``), grouped, in page order."""
    if not sc.height:
        return []
    rank = {e: i for i, e in enumerate(EVALUATIONS)}
    rows = (sc.filter((pl.col("slice") == "corpus") & (pl.col("granularity") == granularity))
            .join(dropped.drop("corpus"), on=["system", "evaluation"], how="left")
            .with_columns(pl.col("dropped").fill_null(0),
                          _e=pl.col("evaluation").replace_strict(rank, return_dtype=pl.Int32),
                          _s=pl.col("system").replace_strict(order, return_dtype=pl.Int64)))
    return grouped(rows.sort("_s", "_e").drop("_e", "_s").to_dicts())


def _rows(table: pl.DataFrame, corpus: str, sort: str | None = None) -> list[dict]:
    rows = table.filter(pl.col("corpus") == corpus) if table.height else table
    if sort and rows.height:
        rows = rows.sort(sort, descending=True, maintain_order=True)
    return rows.to_dicts()


def _side_by_side(left: pl.DataFrame, right: pl.DataFrame) -> list[tuple[str, list[dict]]]:
    """One row per system with P, D, Pmoy of two variants (columns suffixed _a and _b)."""
    if not left.height and not right.height:
        return []
    cols = ["P", "D", "Pmoy", "pct_noneval"]
    a = left.select("system", "label", "group", *[pl.col(c).alias(f"{c}_a") for c in cols])
    b = right.select("system", *[pl.col(c).alias(f"{c}_b") for c in cols])
    return grouped(a.join(b, on="system", how="left", maintain_order="left").to_dicts())


def _residual(residual: pl.DataFrame, corpus: str) -> list[dict]:
    rows = residual.filter(pl.col("corpus") == corpus) if residual.height else residual
    out = []
    for label in (rows["label"].unique(maintain_order=True).to_list() if rows.height else []):
        mine = rows.filter(pl.col("label") == label)
        out.append({"label": label, "group": mine["group"][0], "total": mine["total"][0],
                    "examples": mine.sort("unit").to_dicts()})
    return out


# How the page names the evaluations and granularities (translated where shown).
WORDS = (N_("absolute"), N_("relative"), N_("absolute evaluation"), N_("relative evaluation"))


def _chart(head: pl.DataFrame, corpus: str, evaluation: str, granularity: str,
           language: Language) -> str:
    _ = language._
    systems = [{**r, "baseline": r["group"] == "baseline"} for r in head.to_dicts()]
    systems = [{**r, "label": _(r["label"])} if r["baseline"] else r for r in systems]
    tags = _("full tags") if granularity == "full" else _("category letters")
    return operating_zones(systems, _("{corpus}: operating zones ({evaluation}, {tags})").format(
        corpus=corpus, evaluation=_(f"{evaluation} evaluation"), tags=tags), language=language)
