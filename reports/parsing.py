"""The parsing bulletin page (docs/metrics/parsing.md): EASY constituents and relations, or the
CoNLL 2018 dependency metrics of a CoNLL-U task.

EASY (Paroubek, Robba, Vilnat, Ayache, *Data, Annotations and Measures in EASY, the Evaluation
Campaign for Parsers of French*, LREC 2006): the corpus description of tables 2 and 3 and the
reference relations per type of table 6; P, R and F = 2PR/(P+R) (alpha = 0.5, footnote 16) of
constituents and relations in the task's default way (its first mode x first function, HYP-EQUAL
unless it declares others) with 95 % bootstrap intervals; figure 2 (F per genre x relation type,
one heatmap per system); figure 3 (F averaged over the genres for each of the 15 mode x function
ways); the per-type tables with their macro average; the combined treebank (votes, consensus,
EASY XML file). CoNLL-U: the CoNLL 2018 shared task table (13 metrics, with ELAS and EULAS for
enhanced graphs) and its breakdowns, built by :func:`reports.parsing_ud.ud_view`.

Only published systems appear (withheld ones are left out, anonymous ones under their code);
organiser systems are shown apart. Every table and chart carries the signature of its figures; the
main tables are written as CSV, Parquet, Markdown and LaTeX next to the page, with labels instead
of internal system ids. Undefined scores are NULL in the warehouse and printed "–".
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.reports import ranks
from scorehouse.reports.chart_cache import kept_file
from scorehouse.reports.charts import heatmap, way_lines
from scorehouse.reports.i18n import N_, Language
from scorehouse.reports.parsing_ud import ud_view
from scorehouse.reports.render import rejected_inputs, stored_signature
from scorehouse.reports.systems import front, grouped, in_order, only_published, published_systems
from scorehouse.reports.tables import export_tables
from scorehouse.warehouse.db import frame

KINDS = (("constituent", N_("Constituents")), ("relation", N_("Relations")))
# what one row of the EASY scores is (the exported scores take the page's ranks by it)
_ROW = ["slice", "corpus", "genre", "type", "system", "kind", "mode", "function"]
# the paper's order (section 4): nominal, adjectival, ... prepositional-verbal
CONSTITUENT_TYPES = ("GN", "GA", "GP", "GR", "NV", "PV")
RELATION_TYPES = ("SUJ-V", "AUX-V", "COD-V", "CPL-V", "MOD-V", "COMP", "ATB-SO", "MOD-N", "MOD-A",
                  "MOD-R", "MOD-P", "COORD", "APPOS", "JUXT")
_SCORE_COLUMNS = ["hyp", "ref", "matched", "precision", "recall", "f1"]


def page_data(con, campaign, task, out: Path) -> dict:
    """Everything the ``parsing.html`` template shows, and the exported files, for an EASY task
    or a CoNLL-U one (``is_dependency(task)``)."""
    from scorehouse.warehouse.families.parsing import is_dependency

    key = [campaign.id, task.id]
    systems = published_systems(con, key, language=campaign.language)
    labels = dict(zip(systems["system"], systems["label"]))
    rejected = rejected_inputs(con, campaign, task, labels)
    boot = frame(con, "SELECT DISTINCT resamples, seed FROM (SELECT resamples, seed "
                      "FROM mart_parsing_interval WHERE campaign = ? AND task = ? UNION ALL "
                      "SELECT resamples, seed FROM mart_parsing_ud_interval "
                      "WHERE campaign = ? AND task = ?)", key + key).to_dicts()
    boot_n, boot_seed = ((boot[0]["resamples"], boot[0]["seed"]) if len(boot) == 1
                         else (campaign.bootstrap, campaign.seed))
    dependency = is_dependency(task)
    corpora = _corpora(con, campaign, task, dependency)
    if dependency:
        view = ud_view(con, campaign, task, out, systems, corpora)
    else:
        view = _easy(con, campaign, task, out, systems, corpora)
    view["sig"]["bootstrap"] = (f"boot|unit:sentence|resamples:{boot_n}|seed:{boot_seed}"
                                "|interval:percentile-95")
    totals = {c: None if corpora[c].null_count() == corpora.height else int(corpora[c].sum())
              for c in ("sentences", "words", "annotated_sentences", "annotated_words")}
    return {"task": task, "dependency": dependency, "corpora": corpora.to_dicts(), "totals": totals,
            "rejected": rejected, "resamples": boot_n, "seed": boot_seed, **view}


def _corpora(con, campaign, task, dependency: bool) -> pl.DataFrame:
    """Every declared corpus in the campaign's order: its scored description
    (mart_parsing_corpus), else the sizes of its files as loaded (not scored yet), else null
    (shown "–": no reference accepted)."""
    from scorehouse.warehouse.families.parsing import corpus_sizes
    from scorehouse.warehouse.families.parsing_ud import corpus_genre

    scored = {r["corpus"]: r for r in frame(
        con, "SELECT m.corpus, c.phase, m.genre, m.provider, m.sentences, m.words, "
             "m.annotated_sentences, m.annotated_words FROM mart_parsing_corpus m "
             "LEFT JOIN cat_corpus c USING (campaign, task, corpus) "
             "WHERE m.campaign = ? AND m.task = ?", [campaign.id, task.id]).iter_rows(named=True)}
    phases = dict(con.execute("SELECT corpus, phase FROM cat_corpus WHERE campaign = ? AND "
                              "task = ?", [campaign.id, task.id]).fetchall())
    rows = []
    for corpus in task.corpora:
        if corpus.id in scored:
            rows.append(scored[corpus.id])
            continue
        (sentences, words), (annotated_sentences, annotated_words) = corpus_sizes(
            con, campaign.id, task, corpus, dependency)
        rows.append({"corpus": corpus.id, "phase": phases.get(corpus.id),
                     "genre": corpus_genre(corpus),
                     "provider": str(corpus.options.get("provider", "")),
                     "sentences": sentences, "words": words,
                     "annotated_sentences": annotated_sentences,
                     "annotated_words": annotated_words})
    return pl.DataFrame(rows, schema={"corpus": pl.String, "phase": pl.String,
                                      "genre": pl.String, "provider": pl.String,
                                      **dict.fromkeys(("sentences", "words", "annotated_sentences",
                                                       "annotated_words"), pl.Int64)})


def _ordered_types(present, kind: str) -> list[str]:
    known = CONSTITUENT_TYPES if kind == "constituent" else RELATION_TYPES
    present = set(present)
    return [t for t in known if t in present] + sorted(present - set(known))


# ---------------------------------------------------------------- EASY

def _easy(con, campaign, task, out: Path, systems: pl.DataFrame, corpora: pl.DataFrame) -> dict:
    from scorehouse.warehouse.families.parsing import (
        FUNCTIONS,
        MODES,
        code_version,
        signature,
    )
    from scorehouse.warehouse.families.parsing_consensus import consensus_xml

    key = [campaign.id, task.id]
    modes = [m for m in task.options.get("modes", MODES)]
    functions = [f for f in task.options.get("functions", FUNCTIONS)]
    mode, function = modes[0], functions[0]
    corpus_ids = corpora["corpus"].to_list()
    genres = list(dict.fromkeys(corpora["genre"].to_list()))
    scope = corpus_ids[0] if len(corpus_ids) == 1 else "*"  # the interval of the whole task
    scores = frame(con, """
        WITH i AS (
            SELECT corpus, system, kind, mode, function,
                   max(ci_low) FILTER (WHERE measure = 'P') AS P_low,
                   max(ci_high) FILTER (WHERE measure = 'P') AS P_high,
                   max(ci_low) FILTER (WHERE measure = 'R') AS R_low,
                   max(ci_high) FILTER (WHERE measure = 'R') AS R_high,
                   max(ci_low) FILTER (WHERE measure = 'F') AS F_low,
                   max(ci_high) FILTER (WHERE measure = 'F') AS F_high
            FROM mart_parsing_interval WHERE campaign = $campaign AND task = $task GROUP BY ALL)
        SELECT s.slice, s.corpus, s.genre, s.type, s.system, s.kind, s.mode, s.function,
               s.hyp, s.ref, s.matched, s.precision, s.recall, s.f1,
               i.P_low, i.P_high, i.R_low, i.R_high, i.F_low, i.F_high, s.signature
        FROM mart_parsing_scores s
        LEFT JOIN i
          ON i.system = s.system AND i.kind = s.kind AND i.mode = s.mode AND i.function = s.function
         AND i.corpus = CASE s.slice WHEN 'corpus' THEN s.corpus WHEN 'task' THEN $scope END
        WHERE s.campaign = $campaign AND s.task = $task
        ORDER BY s.slice, s.corpus, s.genre, s.kind, s.type, s.mode, s.function""",
                   {"campaign": campaign.id, "task": task.id, "scope": scope})
    scores = only_published(scores.filter(pl.col("mode").is_in(modes)
                                          & pl.col("function").is_in(functions)), systems)
    scores = scores.with_columns(pl.col("corpus")
                                 .replace_strict({c: i for i, c in enumerate(corpus_ids)},
                                                 default=None, return_dtype=pl.Int64).alias("_c"))
    # A system may produce constituents only or relations only: a kind it never produced is not
    # evaluated.
    produced = (scores.filter(pl.col("slice") == "task").group_by("system", "kind")
                .agg(pl.col("hyp").max() > 0))
    produced = produced.filter(pl.col("hyp")).select("system", "kind")
    absent = {kind: [s["label"] for s in systems.to_dicts()
                     if not produced.filter((pl.col("system") == s["system"])
                                            & (pl.col("kind") == kind)).height]
              for kind, _ in KINDS}
    scores = scores.join(produced, on=["system", "kind"], how="semi", maintain_order="left")
    head = scores.filter((pl.col("mode") == mode) & (pl.col("function") == function))
    tests = frame(con, "SELECT kind, mode, function, system_a, system_b, delta, p_value "
                       "FROM mart_parsing_paired WHERE campaign = ? AND task = ? AND corpus = ?",
                  [*key, scope])  # the whole task's tests (its only corpus, or '*')
    head = ranks.with_ranks(head, tests, ["kind", "mode", "function"], "f1",
                            where=pl.col("slice") == "task")
    head_sig = stored_signature(head["signature"], signature("easy", mode, function))
    scores, head = scores.drop("signature"), head.drop("signature")  # shown under the tables only

    def part(slice_: str, kind: str, frame_=head) -> pl.DataFrame:
        return frame_.filter((pl.col("slice") == slice_) & (pl.col("kind") == kind))

    genre_table = len(genres) != len(corpus_ids) and len(set(head["genre"].drop_nulls())) > 1
    genre_means = frame(con, "SELECT system, kind, mode, function, mean_f1, genres FROM "
                             "mart_parsing_scores_genre_mean WHERE campaign = ? AND task = ?", key)
    results, per_corpus, per_genre, ways, types = {}, {}, {}, {}, {}
    way_names = [f"{m}-{f}" for m in modes for f in functions]
    language = Language(campaign.language)
    for kind, _ in KINDS:
        results[kind] = grouped(part("task", kind).to_dicts())
        per_corpus[kind] = grouped(_spread(part("corpus", kind), "corpus", corpus_ids))
        per_genre[kind] = (grouped(_spread(part("genre", kind), "genre", genres)) if genre_table
                           else [])
        evaluated = part("genre", kind, scores).select("system").unique()  # on this kind
        mean = only_published(
            genre_means.filter(pl.col("kind") == kind).join(evaluated, on="system", how="semi")
            .with_columns(pl.format("{}-{}", "mode", "function").alias("way"))
            .sort(pl.col("way").replace_strict({w: i for i, w in enumerate(way_names)},
                                               return_dtype=pl.Int64)), systems)
        by_way = {(r["system"], r["way"]): r["mean_f1"]
                  for r in mean.select("system", "way", "mean_f1").to_dicts()}
        columns = [{**s, "values": [by_way.get((s["system"], w)) for w in way_names]}
                   for s in systems.to_dicts()]
        columns = [c for c in columns if any(v is not None for v in c["values"])]
        ways[kind] = {"columns": columns, "frame": mean,
                      "rows": [{"mode": w.split("-", 1)[0], "function": w.split("-", 1)[1],
                                "values": [c["values"][i] for c in columns]}
                               for i, w in enumerate(way_names)],
                      "chart": way_lines(way_names, {c["label"]: c["values"] for c in columns},
                                         language._("mean F over genres (%)"),
                                         language._("{kind}: F averaged over the genres, per "
                                                    "mode x function way").format(
                                             kind=language._(dict(KINDS)[kind])),
                                         language=language) if columns else ""}
        by_type = part("type", kind)
        present = _ordered_types(by_type.filter(pl.col("ref") + pl.col("hyp") > 0)["type"], kind)
        by_type = (in_order(by_type.filter(pl.col("type").is_in(present)), "type", present)
                   .sort("_c", maintain_order=True))
        per_system = {k[0]: g.to_dicts()
                      for k, g in by_type.partition_by("system", as_dict=True).items()}
        types[kind] = [(s["label"], s["group"], per_system[s["system"]]) for s in systems.to_dicts()
                       if s["system"] in per_system]
    macro = frame(con, "SELECT system, kind, mode, function, slice, corpus, genre, types, "
                       "macro_precision, macro_recall, macro_f1 FROM mart_parsing_scores_macro "
                       "WHERE campaign = ? AND task = ? "
                       "ORDER BY slice, corpus, genre, kind, mode, function", key)
    macro = macro.filter(pl.col("mode").is_in(modes) & pl.col("function").is_in(functions))
    macro = only_published(macro.join(produced, on=["system", "kind"], how="semi",
                                      maintain_order="left"), systems)
    macro_head = {(r["system"], r["kind"]): r for r in macro.filter(
        (pl.col("slice") == "task") & (pl.col("mode") == mode)
        & (pl.col("function") == function)).to_dicts()}
    heatmaps = _heatmaps(part("genre_type", "relation"), systems, genres, mode, function,
                         language)
    reference = frame(con, "SELECT corpus, kind, type, items FROM mart_parsing_relation_types "
                           "WHERE campaign = ? AND task = ?", key)
    reference_types = {kind: _reference_types(reference.filter(pl.col("kind") == kind), kind,
                                              corpus_ids) for kind, _ in KINDS}
    majority = float(task.options.get("majority", 0.5))
    consensus = in_order(frame(con, """
        SELECT corpus, count(*) FILTER (WHERE kind = 'constituent') AS constituents,
               count(*) FILTER (WHERE kind = 'constituent' AND consensus) AS constituents_consensus,
               count(*) FILTER (WHERE kind = 'relation') AS relations,
               count(*) FILTER (WHERE kind = 'relation' AND consensus) AS relations_consensus
        FROM mart_parsing_consensus WHERE campaign = ? AND task = ? GROUP BY corpus""", key),
        "corpus", corpus_ids)
    files, links = [], {}
    hashes = dict(frame(con, "SELECT corpus, sha256 FROM mart_parsing_consensus_file "
                             "WHERE campaign = ? AND task = ?", key).iter_rows())
    for r in consensus.to_dicts():
        if r["constituents_consensus"] + r["relations_consensus"]:
            path, corpus = out / f"consensus_{r['corpus']}.xml", r["corpus"]
            sha = hashes.get(corpus)  # the same bytes: linked from the last edition's file
            if kept_file(("easy consensus", sha) if sha else None,
                         lambda c=corpus: consensus_xml(con, campaign, task, c), path):
                links[corpus] = path.name
                files.append(path.name)
    version = code_version()
    sig = {"head": head_sig,
           "ways": signature("easy", ",".join(modes), ",".join(functions)),
           "corpus": f"corpus|easy|units:word-forms|version:{version}",
           "consensus": f"consensus|vote:share>{majority:g}|mode:HYP|submissions:published"
                        f"|version:{version}"}
    files += export_tables(out, drop=("system", "group", "baseline"), tables={
        "parsing_corpora": corpora,
        "parsing_reference_types": reference.sort("kind", "corpus", "type"),
        "parsing_scores": front(ranks.ranks_onto(
            scores.filter(pl.col("slice").is_in(["task", "corpus", "genre"])), head, _ROW)
                                .sort("slice", "_c", "genre", maintain_order=True)
                                .drop("type", "_c")),
        "parsing_scores_by_type": front(scores.filter((pl.col("slice") == "type") | (
            pl.col("slice").is_in(["corpus_type", "genre_type"]) & (pl.col("mode") == mode)
            & (pl.col("function") == function))).sort("slice", "_c", "genre", maintain_order=True)
            .drop("_c", *[c for c in scores.columns if c.endswith(("_low", "_high"))])),
        "parsing_scores_macro": front(macro),
        "parsing_ways": front(
            pl.concat([ways[k]["frame"].with_columns(pl.lit(k).alias("kind")) for k, _ in KINDS])
            .select("label", "organiser", "kind", "way", "mode", "function", "mean_f1", "genres")
            if any(ways[k]["frame"].height for k, _ in KINDS) else pl.DataFrame()),
        "parsing_consensus": consensus,
    })
    for kind, _ in KINDS:
        del ways[kind]["frame"]
    return {"modes": modes, "functions": functions, "mode": mode, "function": function,
            "genres": genres, "corpus_ids": corpus_ids, "results": results,
            "per_corpus": per_corpus, "per_genre": per_genre, "genre_table": genre_table,
            "absent": absent, "heatmaps": heatmaps, "way_names": way_names, "ways": ways,
            "types": types, "macro": macro_head, "reference_types": reference_types,
            "consensus": consensus.to_dicts(), "consensus_links": links, "majority": majority,
            "sig": sig, "files": files}


def _genres(rows: pl.DataFrame, genres: list[str]) -> list[str]:
    present = set(rows["genre"].drop_nulls())
    return [g for g in genres if g in present] + sorted(present - set(genres))


def _spread(rows: pl.DataFrame, column: str, values: list[str]) -> list[dict]:
    """One dict per system with ``cells``: its row (or None) for each value of ``column``."""
    out = []
    for system in rows["system"].unique(maintain_order=True).to_list():
        mine = {r[column]: r for r in rows.filter(pl.col("system") == system).to_dicts()}
        first = next(iter(mine.values()))
        out.append({"label": first["label"], "group": first["group"],
                    "cells": [mine.get(v) for v in values]})
    return out


def _heatmaps(rows: pl.DataFrame, systems: pl.DataFrame, genres: list[str], mode: str,
              function: str, language: Language) -> list[dict]:
    """Paper figure 2: F per genre x relation type of one way, one heatmap per published system."""
    out = []
    columns = _ordered_types(rows.filter(pl.col("ref") + pl.col("hyp") > 0)["type"], "relation")
    row_names = _genres(rows, genres)
    for s in systems.to_dicts():
        mine = {(r["genre"], r["type"]): r["f1"]
                for r in rows.filter(pl.col("system") == s["system"]).to_dicts()}
        if not mine:
            continue
        values = [[mine.get((g, t)) for t in columns] for g in row_names]
        out.append({"label": s["label"], "group": s["group"],
                    "svg": heatmap(values, row_names, columns, language._(
                        "{system}: relation F (%) per genre x type, {way}").format(
                        system=s["label"], way=f"{mode}-{function}"), language=language)})
    return out


def _reference_types(rows: pl.DataFrame, kind: str, corpus_ids: list[str]) -> list[dict]:
    """Paper table 6: reference items per type, one count per corpus and the total."""
    out = []
    for t in _ordered_types(rows["type"], kind):
        mine = dict(zip(*rows.filter(pl.col("type") == t).select("corpus", "items")))
        out.append({"type": t, "counts": [mine.get(c, 0) for c in corpus_ids],
                    "total": sum(mine.values())})
    if out:
        out.append({"type": "total",
                    "counts": [sum(r["counts"][i] for r in out) for i in range(len(corpus_ids))],
                    "total": sum(r["total"] for r in out)})
    return out
