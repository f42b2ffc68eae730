"""The WER bulletin page: thesis tables 4.1, 4.9/4.10, 4.11-4.13, breakdowns, intervals, tests.

Only published systems appear (withheld ones are left out, anonymous ones under their code);
organiser systems are shown apart. Every table carries the signature of its figures. The same
tables are written as CSV, Parquet, Markdown and LaTeX next to the page.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from scorehouse.reports import ranks
from scorehouse.reports.charts import grouped_bars
from scorehouse.reports.i18n import N_, Language, sort_collated
from scorehouse.reports.render import rejected_inputs, stored_signature
from scorehouse.reports.tables import export_tables
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.families.wer import Options, code_version, official_method, wer_methods
from scorehouse.warehouse.published import visible_systems

TOP_ERRORS = 10
EVALUATIONS = (N_("with comments"), N_("without comments"))  # IER rows, shown translated


def page_data(con, campaign, task, out: Path) -> dict:
    """Everything the ``wer.html`` template shows, and the exported files."""
    key = [campaign.id, task.id]
    systems = sort_collated(con, frame(con, "SELECT system, options FROM cat_system "
                                            "WHERE campaign = ? AND task = ?", key)
                            .join(visible_systems(con, *key), on="system"), "label",
                            campaign.language, "organiser")
    methods, headline = wer_methods(task.options)
    official = {r["system"]: official_method(json.loads(r["options"] or "{}"), methods, headline)
                for r in systems.iter_rows(named=True)}
    visible = systems.select("system", "label", "organiser").with_row_index("_order")

    def published(query: str, params=key, on="system") -> pl.DataFrame:
        # a total order: same bytes
        rows = frame(con, f"SELECT * FROM ({query}) ORDER BY ALL", params)
        return rows.join(visible, left_on=on, right_on="system", how="inner",
                         maintain_order="left") if rows.height else rows

    scores = published(
        "SELECT s.corpus, s.system, s.method, s.utterances, s.missing, s.N, s.wer, s.c_rate, "
        "s.i_rate, s.s_rate, s.d_rate, i.ci_low, i.ci_high, s.signature FROM mart_wer_scores s "
        "LEFT JOIN mart_wer_interval i USING (campaign, task, corpus, system, method) "
        "WHERE s.campaign = ? AND s.task = ?")
    scores = ranks.with_ranks(scores, frame(
        con, "SELECT corpus, method, system_a, system_b, delta, p_value FROM mart_wer_paired "
             "WHERE campaign = ? AND task = ?", key), ["corpus", "method"], "wer",
        higher_is_better=False)
    if scores.height:
        scores = scores.with_columns(
            pl.struct("system", "method")
            .map_elements(lambda r: official[r["system"]] == r["method"], return_dtype=pl.Boolean)
            .alias("official"),
            pl.col("method").replace_strict({m: i for i, m in enumerate(methods)},
                                            default=99).alias("_m"),
        ).sort("corpus", "_order", "_m").drop("_m")
    corpora = frame(con, "SELECT m.corpus, c.phase, m.utterances, m.reference_words, m.mean_length "
                         "FROM mart_wer_corpus m JOIN cat_corpus c USING (campaign, task, corpus) "
                         "WHERE m.campaign = ? AND m.task = ? ORDER BY m.corpus", key)
    ier = published("SELECT corpus, system, evaluation, interpretable, ier, c_rate, "
                    "fr / interpretable AS fr_rate, sub / interpretable AS sub_rate, "
                    "fa / interpretable AS fa_rate, signature "
                    "FROM mart_ier_scores WHERE campaign = ? AND task = ? ORDER BY corpus, system")
    by_field = published("SELECT corpus, system, field, value, utterances, N, wer "
                         "FROM mart_wer_by_metadata WHERE campaign = ? AND task = ? AND method = ? "
                         "AND field IN ('category', 'speaker')", [*key, headline])
    paired = frame(con, "SELECT corpus, system_a, system_b, wer_a, wer_b, delta, ci_low, ci_high, "
                        "p_value FROM mart_wer_paired "
                        "WHERE campaign = ? AND task = ? AND method = ? ORDER BY corpus",
                   [*key, headline])
    labels = dict(zip(visible["system"], visible["label"]))
    if paired.height:
        paired = paired.filter(pl.col("system_a").is_in(list(labels))
                               & pl.col("system_b").is_in(list(labels)))
        order = dict(zip(visible["system"], visible["_order"]))
        paired = paired.with_columns(
            pl.col("system_a").replace_strict(labels).alias("label_a"),
            pl.col("system_b").replace_strict(labels).alias("label_b"),
        ).sort("corpus", pl.col("system_a").replace_strict(order),
               pl.col("system_b").replace_strict(order))  # the page's order: the same bytes
    errors = published(
        "SELECT corpus, system, op, ref_token, hyp_token, n FROM ("
        " SELECT *, row_number() OVER (PARTITION BY corpus, system, op"
        " ORDER BY n DESC, ref_token, hyp_token) AS rn"
        " FROM mart_wer_confusions WHERE campaign = ? AND task = ? AND method = ?) WHERE rn <= ?",
        [*key, headline, TOP_ERRORS])
    rejected = rejected_inputs(con, campaign, task, labels)

    options = Options.of(task)
    boot = (f"boot|unit:utterance|resamples:{campaign.bootstrap}|seed:{campaign.seed}"
            "|interval:percentile-95")
    head = scores.filter(pl.col("method") == headline)["signature"] if scores.height else []
    signatures = {  # of scores: as stored with them; what the code would store if none is shown
        "headline": stored_signature(head, options.signature(headline)),
        "bootstrap": boot,
        "corpus": f"corpus|markers:{options.markers.digest}|version:{code_version()}",
        "ier": stored_signature(ier["signature"], options.ier_signature()),
    }
    ier = ier.drop("signature")  # shown under the tables, not exported per row
    files = export_tables(out, {
        "wer_scores": scores, "ier_scores": ier,
        "wer_by_category": by_field.filter(pl.col("field") == "category") if by_field.height
        else by_field,
        "wer_paired": paired, "wer_corpora": corpora},
        drop=("system", "organiser", "system_a", "system_b", "_order"))
    per_corpus = []
    for corpus in corpora["corpus"].to_list():
        sc = scores.filter(pl.col("corpus") == corpus) if scores.height else scores
        per_corpus.append({
            "id": corpus,
            "chart": _chart(sc, methods, corpus, Language(campaign.language)) if sc.height else "",
            "groups": _apart(sc),
            "signatures": sorted(set(sc["signature"].to_list())) if sc.height else [],
            "ier": _apart(ier.filter(pl.col("corpus") == corpus).sort("_order", maintain_order=True)
                          if ier.height else ier),
            "categories": _categories(by_field, corpus),
            "speakers": _speakers(by_field, corpus),
            "paired": paired.filter(pl.col("corpus") == corpus).to_dicts() if paired.height else [],
            "errors": _errors(errors, corpus),
        })
    return {"task": task, "methods": methods, "headline": headline, "corpora": corpora.to_dicts(),
            "sig": signatures,
            "per_corpus": per_corpus, "rejected": rejected, "files": files,
            "resamples": campaign.bootstrap, "seed": campaign.seed}


def _apart(rows: pl.DataFrame) -> list[tuple[str, list[dict]]]:
    """``rows`` (one corpus's) as the page's groups: the participants', then the organisers'
    systems, shown apart (the non-empty groups)."""
    return [(title, part.to_dicts()) for title, org in ((N_("Participants"), False),
                                                         (N_("Organisers (shown apart)"), True))
            if rows.height and (part := rows.filter(pl.col("organiser") == org)).height]


def _chart(scores: pl.DataFrame, methods: list[str], corpus: str, language: Language) -> str:
    _ = language._
    present = [m for m in methods if m in set(scores["method"])]
    series, low, high = {}, {}, {}
    for label in scores["label"].unique(maintain_order=True).to_list():
        rows = {r["method"]: r
                for r in scores.filter(pl.col("label") == label).iter_rows(named=True)}
        pct = lambda v: None if v is None else 100 * v  # noqa: E731
        series[label] = [pct(rows.get(m, {}).get("wer")) for m in present]
        low[label] = [pct(rows.get(m, {}).get("ci_low")) for m in present]
        high[label] = [pct(rows.get(m, {}).get("ci_high")) for m in present]
    return grouped_bars([m.upper() for m in present], series, low, high, _("WER (%)"),
                        _("{corpus}: WER per method and system, 95% bootstrap intervals")
                        .format(corpus=corpus), language)


def _categories(by_field: pl.DataFrame, corpus: str) -> dict:
    rows = (by_field.filter((pl.col("corpus") == corpus) & (pl.col("field") == "category"))
            if by_field.height else by_field)
    if not rows.height:
        return {}
    values = sorted(rows["value"].unique().to_list())
    table = {}
    for r in rows.sort("_order").iter_rows(named=True):
        table.setdefault(r["label"], {})[r["value"]] = r
    return {"values": values, "rows": table}


def _speakers(by_field: pl.DataFrame, corpus: str) -> list[dict]:
    rows = (by_field.filter((pl.col("corpus") == corpus) & (pl.col("field") == "speaker"))
            if by_field.height else by_field)
    if not rows.height:
        return []
    return (rows.filter(pl.col("N") > 0).group_by("label", "_order")
            .agg(pl.len().alias("speakers"), pl.col("wer").quantile(0.25).alias("q1"),
                 pl.col("wer").median().alias("median"), pl.col("wer").quantile(0.75).alias("q3"),
                 pl.col("value").sort_by(["wer", "value"], descending=[True, False]).first()
                 .alias("worst"),
                 pl.col("wer").max().alias("worst_wer"))
            .sort("_order").to_dicts())


def _errors(errors: pl.DataFrame, corpus: str) -> list[dict]:
    rows = errors.filter(pl.col("corpus") == corpus) if errors.height else errors
    out = []
    for label in (rows.sort("_order")["label"].unique(maintain_order=True).to_list()
                  if rows.height else []):
        mine = rows.filter(pl.col("label") == label).sort(["n", "ref_token", "hyp_token"],
                                                          descending=[True, False, False],
                                                          nulls_last=True)
        out.append({"label": label,
                    **{op: mine.filter(pl.col("op") == op).to_dicts() for op in "SDI"}})
    return out
