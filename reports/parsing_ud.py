"""The CoNLL-U side of the parsing bulletin page: the CoNLL 2018 shared task table and, for
enhanced graphs, the IWPT metrics.

Zeman et al., "CoNLL 2018 Shared Task: Multilingual Parsing from Raw Text to Universal
Dependencies", section 3 (the metrics), and Bouma, Seddah and Zeman, "Overview of the IWPT 2020
Shared Task on Parsing into Enhanced Universal Dependencies", section 4 (ELAS, EULAS): per scope
(the task, each corpus, each genre) one row per system with each metric's P, R, F1, aligned
accuracy and F1 interval, systems ranked by LAS; LAS per deprel and UPOS accuracy per tag; the
confusion of deprels among words whose head is right; the text differences of recovery mode.
ELAS and EULAS appear only when the task's reference has enhanced graphs. ``reports/parsing.py``
builds the rest of the page and calls :func:`ud_view`.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.reports import ranks
from scorehouse.reports.charts import label_bars
from scorehouse.reports.i18n import Language
from scorehouse.reports.render import stored_signature
from scorehouse.reports.systems import front, grouped, in_order, only_published
from scorehouse.reports.tables import export_tables
from scorehouse.scorers.ud import ALL_METRICS, METRICS
from scorehouse.warehouse.db import frame

TOP_CONFUSIONS = 10


def ud_view(con, campaign, task, out: Path, systems: pl.DataFrame, corpora: pl.DataFrame) -> dict:
    """The CoNLL-U part of what ``parsing.html`` shows, and its exported files: per scope (task,
    corpus, genre) the metrics table of every published system (``systems``: page order) ranked
    by LAS, LAS per deprel and UPOS accuracy per tag (with the deprel chart), the top deprel
    confusions, the recovery-mode text differences and the signatures; ``corpora`` in page
    order. :func:`reports.parsing.page_data` adds the corpus description and the bootstrap
    signature."""
    from scorehouse.warehouse.families.parsing import code_version, signature

    key = [campaign.id, task.id]
    corpus_ids = corpora["corpus"].to_list()
    scope = corpus_ids[0] if len(corpus_ids) == 1 else "*"
    scores = frame(con, """
        SELECT s.slice, s.corpus, s.genre, s.system, s.metric, s.correct, s.gold_total,
               s.system_total, s.aligned_total, s.precision, s.recall, s.f1,
               s.aligned_accuracy, i.ci_low AS f1_low, i.ci_high AS f1_high, s.signature
        FROM mart_parsing_ud_scores s
        LEFT JOIN mart_parsing_ud_interval i
          ON i.campaign = s.campaign AND i.task = s.task AND i.system = s.system
         AND i.metric = s.metric
         AND i.corpus = CASE s.slice WHEN 'corpus' THEN s.corpus WHEN 'task' THEN $scope END
        WHERE s.campaign = $campaign AND s.task = $task ORDER BY s.slice, s.corpus, s.genre""",
                   {"campaign": campaign.id, "task": task.id, "scope": scope})
    # page order, then metric order: the 13 CoNLL 2018 metrics, and ELAS and EULAS when the
    # reference has enhanced graphs
    present = set(scores["metric"])
    metrics = [m for m in ALL_METRICS if m in METRICS or m in present]
    scores = only_published(in_order(scores, "metric", metrics), systems)
    sig_ud = stored_signature(scores["signature"],
                              signature("conllu", recover=bool(task.options.get("recover", False)),
                                        empty_nodes=task.options.get("empty_nodes", "drop")))
    scores = scores.drop("signature")  # shown under the tables only
    genres = sorted(set(scores.filter(pl.col("slice") == "genre")["genre"].drop_nulls()))
    tests = frame(con, "SELECT corpus, system_a, system_b, delta, p_value FROM "
                       "mart_parsing_ud_paired WHERE campaign = ? AND task = ? AND metric = 'LAS'",
                  key)
    las = scores.filter(pl.col("metric") == "LAS")
    las = pl.concat([  # ranked by LAS in the whole task ('*' or its only corpus), in each corpus
        ranks.with_ranks(las.filter(pl.col("slice") == "task").with_columns(corpus=pl.lit(scope)),
                         tests, ["corpus"], "f1").with_columns(  # a task row has no corpus
                             corpus=pl.lit(None, las.schema["corpus"])),
        ranks.with_ranks(las.filter(pl.col("slice") == "corpus"), tests, ["corpus"], "f1")])
    language = Language(campaign.language)
    _ = language._
    scopes = [("task", None, _("Whole task") if len(corpus_ids) > 1
               else _("Corpus {corpus}").format(corpus=scope))]
    scopes += ([("corpus", c, _("Corpus {corpus}").format(corpus=c)) for c in corpus_ids]
               if len(corpus_ids) > 1 else [])
    scopes += ([("genre", g, _("Genre {genre}").format(genre=g)) for g in genres]
               if len(genres) > 1 else [])
    tables = []
    for slice_, value, title in scopes:
        rows = scores.filter(pl.col("slice") == slice_)
        if value is not None:
            rows = rows.filter(pl.col(slice_) == value)
        per_system = [(s["label"], s["group"],
                       rows.filter(pl.col("system") == s["system"]).to_dicts())
                      for s in systems.to_dicts()]
        per_system = [p for p in per_system if p[2]]
        ranked = las.filter(pl.col("slice") == slice_)
        if value is not None:
            ranked = ranked.filter(pl.col(slice_) == value)
        rank_of = {r["label"]: r for r in ranked.to_dicts()}
        overview = [{"label": label, "group": group, **{c: rank_of.get(label, {}).get(c)
                                                        for c in ("rank_best", "rank_worst")},
                     "cells": [next((r for r in mine if r["metric"] == m), None)
                               for m in metrics]}
                    for label, group, mine in per_system]
        tables.append({"title": title, "slice": slice_, "overview": grouped(overview),
                       "systems": per_system})
    by_label = only_published(frame(con, """
        SELECT system, breakdown, label AS value, gold_total, system_total, correct, precision,
               recall, f1, uas_recall
        FROM mart_parsing_ud_by_label_task WHERE campaign = ? AND task = ?
        ORDER BY breakdown, value, system""", key), systems)
    columns = [s for s in systems.to_dicts() if s["system"] in set(by_label["system"])]
    breakdowns = {b: label_rows(by_label.filter(pl.col("breakdown") == b), columns)
                  for b in ("deprel", "upos")}
    deprels = breakdowns["deprel"]
    chart = label_bars([r["value"] for r in deprels], {
        s["label"]: [c["f1"] if c else None for c in (r["cells"][i] for r in deprels)]
        for i, s in enumerate(columns)}, _("LAS F1 (%)"),
        _("LAS F1 per dependency relation (reference frequency order)"),
        language=language) if deprels else ""
    confusion = only_published(frame(con, """
        WITH cells AS (
            SELECT system, gold_deprel, system_deprel, sum(words)::BIGINT AS words
            FROM mart_parsing_ud_confusion
            WHERE campaign = ? AND task = ? AND scope = 'head_correct' GROUP BY ALL),
        shares AS (
            SELECT *, words / sum(words) OVER (PARTITION BY system, gold_deprel) AS share
            FROM cells)
        SELECT * FROM shares WHERE gold_deprel IS DISTINCT FROM system_deprel
        QUALIFY row_number() OVER (PARTITION BY system
                                   ORDER BY words DESC, gold_deprel, system_deprel) <= ?
        ORDER BY words DESC, gold_deprel, system_deprel""", [*key, TOP_CONFUSIONS]), systems)
    differences = frame(con, "SELECT corpus, system, gold_line, system_line, gold_text, "
                             "system_text FROM int_parsing_ud_difference "
                             "WHERE campaign = ? AND task = ? ORDER BY corpus, gold_line", key)
    differences = only_published(differences, systems)
    version = code_version()
    sig = {"head": sig_ud, "corpus": f"corpus|conllu|units:syntactic-words|version:{version}",
           "confusion": f"confusion|scope:head_correct|top:{TOP_CONFUSIONS}|{sig_ud}"}
    files = export_tables(out, drop=("system", "group", "baseline"), tables={
        "parsing_ud_corpora": corpora.select("corpus", "phase", "genre", "annotated_sentences",
                                             "annotated_words"),
        "parsing_ud_scores": front(ranks.ranks_onto(scores, las, [
            "slice", "corpus", "genre", "system", "metric"])),
        "parsing_ud_by_label": front(by_label),
        "parsing_ud_confusion": front(confusion),
        "parsing_ud_differences": front(differences),
    })
    return {"metrics": metrics, "empty_nodes": task.options.get("empty_nodes", "drop"),
            "scopes": tables, "label_columns": columns,
            "breakdowns": breakdowns, "deprel_chart": chart,
            "confusion": [(s["label"], s["group"],
                           confusion.filter(pl.col("system") == s["system"]).to_dicts())
                          for s in systems.to_dicts()
                          if confusion.filter(pl.col("system") == s["system"]).height],
            "differences": differences.to_dicts(), "top_confusions": TOP_CONFUSIONS, "sig": sig,
            "files": files}


def label_rows(rows: pl.DataFrame, columns: list[dict]) -> list[dict]:
    """One dict per label (most frequent in the reference first): ``gold`` reference words and
    ``cells``, each system's row (or None) in ``columns`` order."""
    gold = (rows.group_by("value").agg(pl.col("gold_total").max().alias("gold"))
            .sort(["gold", "value"], descending=[True, False]))
    out = []
    for value, count in gold.iter_rows():
        mine = {r["system"]: r for r in rows.filter(pl.col("value") == value).to_dicts()}
        out.append({"value": value, "gold": count,
                    "cells": [mine.get(s["system"]) for s in columns]})
    return out
