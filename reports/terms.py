"""The terminology bulletin page (docs/metrics/terms.md; the Termometer paper, sections 5-7): each
system's term list S against the corpus reference R, with the graded term precision TP and recall
TR of the paper next to the classical P(S) and R(S) of exact matching.

For an output term e, d(e) is its distance dt = (dch + dtc) / 2 to the nearest reference term
r(e); pert(e) = 1 - d(e) when d(e) <= sigma, else 0. The aligned terms are grouped by r(e) into
the partition P(S) (every other term a part alone), Pert(p) = max pert over the part, and
TP = sum Pert / |P(S)|, TR = sum Pert / |R|. Per corpus the page shows:

1. the main table at the declared sigma: TP, TR, F with 95 % bootstrap intervals, classical P,
   R, F, the output terms, the parts |P(S)| and the aligned terms;
2. TermEval 2020 style classical P, R, F with and without named entities (slices ``all`` and
   ``without:<label>``);
3. TR and R per reference label (slices ``label:<L>``) with the label's reference size;
4. the cut-offs (the first N terms of a ranked list);
5. the sigma sweep of the paper's figure 3: TP, TR and the aligned terms for sigma = 0 .. 1;
6. the closest aligned non-exact pairs to check by hand (the smallest dt, and those nearest sigma);
7. variants and relations: classical P, R, F against the reference links restricted to the
   terms each system returned;
8. the validation effort and TP / TR of the raw output against its validated version;
9. CoRReCT: the incremental reference's versions and each system scored against it;
10. the changes since the previous scoring run; 11. the input lists.

Sections whose tables are empty are left out. Only published systems appear (withheld ones are
left out, anonymous ones under their code); organisers' systems are shown apart. Every table and
chart carries the signature of its figures; the main tables are written as CSV, Parquet,
Markdown and LaTeX next to the page, with labels instead of internal system ids.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from scorehouse.reports import ranks
from scorehouse.reports.charts import way_lines
from scorehouse.reports.i18n import N_, Language
from scorehouse.reports.render import rejected_inputs, stored_signature
from scorehouse.reports.systems import grouped, only_published, published_systems
from scorehouse.reports.tables import export_tables
from scorehouse.warehouse.db import frame

METRICS = ("tp", "tr", "f", "precision", "recall", "f_exact")
PAIRS = 12  # closest pairs shown per system and kind (smallest dt; nearest the threshold)
TOLERANCE = 1e-9  # d(e) <= sigma up to float error (docs/metrics/terms.md)
REFERENCES = {"reference": N_("corpus reference"), "validated": N_("own validated list"),
              "incremental": N_("incremental reference (CoRReCT)")}  # shown translated
LISTS = (N_("reference"), N_("terms"), N_("variants"), N_("relations"), N_("validated"))  # roles
WITHHELD = "(withheld system)"


_FRONT = ("corpus", "label", "organiser", "reference", "slice", "top", "sigma", "kind", "type")


def page_data(con, campaign, task, out: Path) -> dict:
    """Everything the ``terms.html`` template shows (TP, TR, P(S), R(S) at the declared sigma, the
    sigma sweep, pairs, links, validation, CoRReCT, changes), and the exported files."""
    from scorehouse.warehouse.families import terms as family

    key = [campaign.id, task.id]
    systems = published_systems(con, key, language=campaign.language)
    labels = dict(zip(systems["system"], systems["label"]))
    groups = dict(zip(systems["system"], systems["group"]))
    scores = only_published(_scores(con, key), systems)
    options = family.options(task)
    sigma, case = options["sigma"], options["case"]
    head = stored_signature(scores["signature"], family.signature(sigma, case))
    version = family.code_version()
    boot = frame(con, "SELECT DISTINCT resamples, seed FROM mart_terms_interval "
                      "WHERE campaign = ? AND task = ?", key).to_dicts()
    boot_n, boot_seed = ((boot[0]["resamples"], boot[0]["seed"]) if len(boot) == 1
                         else (campaign.bootstrap, campaign.seed))
    links = only_published(frame(con, """
        SELECT corpus, system, kind, type, matched, reference_links, system_links, precision,
               recall, f1, signature
        FROM mart_terms_link_scores WHERE campaign = ? AND task = ?
        ORDER BY corpus, kind DESC, type""", key), systems)
    links_sig = stored_signature(links["signature"],
                                 family.link_signature(options["symmetric_relations"], case))
    links = links.drop("signature")  # shown under the tables only
    sig = {"head": head,
           "bootstrap": f"boot|resample:output-parts(TP),reference-terms(TR,R),output-terms(P),"
                        f"paired(F)|resamples:{boot_n}|seed:{boot_seed}|interval:percentile-95",
           "sweep": head.replace(f"sigma:{sigma:g}|", "sigma:0..1/0.05|"),
           "pairs": f"pairs|reference:reference|slice:all|exact:no|dt<=sigma"
                    f"|shown:{PAIRS}+{PAIRS}|{head}",
           "links": links_sig,
           "validation": f"validation|effort:(modified+deleted+added)/raw|{head}",
           "build": f"correct|order:declaration|reference:union-of-earlier-validated-lists|{head}",
           "changes": f"changes|top:0|slice:all|{head}",
           "lists": f"lists|case:{case}|normalisation:NFC|duplicates:counted-once"
                    f"|version:{version}"}
    sweep = only_published(frame(con, """
        SELECT corpus, system, sigma, output_terms, aligned_terms, parts, tp, tr, f, precision,
               recall, f_exact
        FROM mart_terms_sweep
        WHERE campaign = ? AND task = ? AND reference = 'reference' AND slice = 'all' AND top = 0
        ORDER BY corpus, system, sigma""", key), systems)
    pairs = only_published(frame(con, f"""
        WITH aligned AS (
            SELECT corpus, system, term, rank, nearest, nearest_label, dch, dtc, dt,
                   row_number() OVER (PARTITION BY corpus, system ORDER BY dt, rank, term) AS up,
                   row_number() OVER (PARTITION BY corpus, system
                                      ORDER BY dt DESC, rank, term) AS down,
                   count(*) OVER (PARTITION BY corpus, system) AS total
            FROM int_terms_alignment
            WHERE campaign = ? AND task = ? AND reference = 'reference' AND slice = 'all'
              AND NOT exact AND dt <= ? + {TOLERANCE})
        SELECT *, CASE WHEN up <= {PAIRS} THEN 'closest' ELSE 'threshold' END AS kind
        FROM aligned WHERE up <= {PAIRS} OR down <= {PAIRS}
        ORDER BY corpus, kind, CASE WHEN up <= {PAIRS} THEN up ELSE down END""", [*key, sigma]),
        systems)
    validation = only_published(frame(con, """
        SELECT v.corpus, v.system, v.raw_terms, v.validated_terms, v.kept, v.modified,
               v.deleted, v.added, v.effort, s.tp, s.tr, s.f, s.precision, s.recall, s.f_exact
        FROM mart_terms_validation v
        LEFT JOIN mart_terms_scores s
          ON s.campaign = v.campaign AND s.task = v.task AND s.corpus = v.corpus
         AND s.system = v.system AND s.reference = 'validated' AND s.slice = 'all' AND s.top = 0
        WHERE v.campaign = ? AND v.task = ? ORDER BY ALL""", key), systems)
    build = frame(con, """
        SELECT corpus, version, any_value(contributor) AS contributor, count(*) AS added
        FROM int_terms_reference_build WHERE campaign = ? AND task = ? GROUP BY corpus, version
        ORDER BY corpus, version""", key)
    if build.height:
        build = build.with_columns(
            pl.col("contributor").replace_strict({"": "corpus reference", **labels},
                                                 default=WITHHELD).alias("label"),
            pl.col("contributor").replace_strict(groups, default="participant").alias("group"),
            pl.col("added").cum_sum().over("corpus").alias("size"))
    changes = _changes(con, key, systems)
    lists = _lists(con, key, systems, campaign.root)
    rejected = rejected_inputs(con, campaign, task, labels)
    corpora = _corpora(con, key, task, scores)

    order = [s.id for s in task.systems]
    tests = frame(con, "SELECT corpus, system_a, system_b, delta, p_value FROM mart_terms_paired "
                       "WHERE campaign = ? AND task = ? AND metric = 'tr'", key)
    sections, language, ranked = [], Language(campaign.language), [scores.clear()]
    for corpus in corpora["corpus"].to_list():
        mine = scores.filter(pl.col("corpus") == corpus)
        ref = mine.filter(pl.col("reference") == "reference")
        whole = ref.filter((pl.col("slice") == "all") & (pl.col("top") == 0))
        whole = ranks.with_ranks(whole, tests, ["corpus"], "tr")  # by TR among the shown systems
        ranked.append(whole)
        slices = sorted(s for s in set(ref["slice"]) if s.startswith("without:"))
        label_slices = sorted(s for s in set(ref["slice"]) if s.startswith("label:"))
        incremental = mine.filter((pl.col("reference") == "incremental")
                                  & (pl.col("slice") == "all") & (pl.col("top") == 0))
        incremental = incremental.with_columns(pl.col("system").replace_strict(
            {s: i for i, s in enumerate(order)}, default=len(order),
            return_dtype=pl.Int32).alias("_d")).sort("_d", maintain_order=True).drop("_d")
        curves = sweep.filter(pl.col("corpus") == corpus)
        sections.append({
            "id": corpus,
            "main": grouped(whole.to_dicts()),
            "termeval": grouped(_by_slice(ref.filter(pl.col("top") == 0), ["all", *slices]))
            if slices else [],
            "slices": [(s, _slice_title(s, language._), _size(ref, s)) for s in ["all", *slices]],
            "labels": [(s.split(":", 1)[1], _size(ref, s)) for s in label_slices],
            "by_label": grouped(_by_slice(ref.filter(pl.col("top") == 0), label_slices))
            if label_slices else [],
            "cutoffs": grouped(_cutoffs(ref.filter(pl.col("slice") == "all"))),
            "charts": _charts(corpus, curves, sigma, language) if curves.height else {},
            "pairs": _pair_blocks(pairs.filter(pl.col("corpus") == corpus)),
            "links": grouped(links.filter(pl.col("corpus") == corpus).to_dicts()),
            "validation": grouped(validation.filter(pl.col("corpus") == corpus).to_dicts()),
            "build": build.filter(pl.col("corpus") == corpus).to_dicts() if build.height else [],
            "incremental": incremental.to_dicts(),
            "changes": changes.filter((pl.col("corpus") == corpus) & pl.col("moved")).to_dicts()
            if changes.height else [],
            "unchanged": changes.filter((pl.col("corpus") == corpus) & ~pl.col("moved")).height
            if changes.height else 0,
            "lists": lists.filter(pl.col("corpus") == corpus).to_dicts() if lists.height else [],
        })
    files = export_tables(out, drop=("system", "group", "total", "baseline"), front=_FRONT, tables={
        "terms_corpora": corpora,
        "terms_scores": ranks.ranks_onto(scores.filter(pl.col("top") == 0), pl.concat(
            ranked, how="diagonal_relaxed"), ["corpus", "system", "reference", "slice", "top"]),
        "terms_cutoffs": scores.filter((pl.col("top") > 0) & (pl.col("reference") == "reference")
                                       & (pl.col("slice") == "all")),
        "terms_sweep": sweep,
        "terms_links": links,
        "terms_validation": validation,
        "terms_reference_build": build.drop("contributor", "group") if build.height else build,
    })
    return {"task": task, "sigma": sigma, "case": case, "corpora": corpora.to_dicts(),
            "sections": sections, "sig": sig, "resamples": boot_n, "seed": boot_seed,
            "rejected": rejected, "files": files, "references": REFERENCES, "pairs_shown": PAIRS}


# ---------------------------------------------------------------- systems and rows

def _scores(con, key: list) -> pl.DataFrame:
    """mart_terms_scores (declared sigma) with the bootstrap interval of each metric
    (``<metric>_low``, ``<metric>_high``; NULL where none: cut-offs, or intervals = false)."""
    bounds = ", ".join(f"max(i.low) FILTER (WHERE i.metric = '{m}') AS {m}_low, "
                       f"max(i.high) FILTER (WHERE i.metric = '{m}') AS {m}_high" for m in METRICS)
    return frame(con, f"""
        SELECT s.corpus, s.system, s.reference, s.slice, s.top, s.sigma, s.output_terms,
               s.reference_terms, s.aligned_terms, s.parts, s.tp, s.tr, s.f, s.precision,
               s.recall, s.f_exact, {bounds}, s.signature
        FROM mart_terms_scores s
        LEFT JOIN mart_terms_interval i
          ON s.top = 0 AND i.campaign = s.campaign AND i.task = s.task AND i.corpus = s.corpus
         AND i.system = s.system AND i.reference = s.reference AND i.slice = s.slice
        WHERE s.campaign = ? AND s.task = ?
        GROUP BY ALL ORDER BY s.corpus, s.reference, s.slice, s.top""", key)


def _size(ref: pl.DataFrame, slice_: str) -> int | None:
    """|R| of a slice of the corpus reference (the same for every system)."""
    sizes = ref.filter(pl.col("slice") == slice_)["reference_terms"]
    return int(sizes.max()) if sizes.len() else None


def _slice_title(slice_: str, _) -> str:
    kind, _sep, label = slice_.partition(":")
    return {"all": _("All terms"), "without": _("Without {label}").format(label=label),
            "label": label}.get(kind, slice_)


def _by_slice(rows: pl.DataFrame, slices: list[str]) -> list[dict]:
    """One dict per system (page order) with ``cells``: its scores in each slice (None if
    absent)."""
    out: dict[str, dict] = {}
    for r in rows.iter_rows(named=True):
        out.setdefault(r["system"], {"label": r["label"], "group": r["group"],
                                     "by": {}})["by"][r["slice"]] = r
    return [{**r, "cells": [r["by"].get(s) for s in slices]} for r in out.values()]


def _cutoffs(rows: pl.DataFrame) -> list[dict]:
    """Per system (page order) its scores at each cut-off N (the first N terms of its ranked
    list), the whole list (top = 0) last; empty when no cut-off is declared."""
    if not rows.filter(pl.col("top") > 0).height:
        return []
    out: dict[str, dict] = {}
    for r in rows.iter_rows(named=True):
        out.setdefault(r["system"], {"label": r["label"], "group": r["group"],
                                     "rows": []})["rows"].append(r)
    for block in out.values():
        block["rows"].sort(key=lambda r: (r["top"] == 0, r["top"]))
    return list(out.values())


def _charts(corpus: str, curves: pl.DataFrame, sigma: float, language) -> dict[str, str]:
    """The paper's figure 3 per corpus: TP, TR and the aligned output terms against sigma, one
    line per system (the declared sigma is named in the title)."""
    sigmas = sorted(set(curves["sigma"]))
    ticks, _ = [language.numbers.num(s, 2) for s in sigmas], language._
    series: dict[str, dict[str, list]] = {"tp": {}, "tr": {}, "aligned_terms": {}}
    for (label,), part in curves.group_by("label", maintain_order=True):
        at = {r["sigma"]: r for r in part.iter_rows(named=True)}
        for metric in series:
            series[metric][label] = [at[s][metric] if s in at else None for s in sigmas]
    where = {"corpus": corpus, "sigma": language.numbers.tick(sigma)}
    return {"tp": way_lines(ticks, series["tp"], "TP (%)", _(
                "{corpus}: term precision TP against σ (declared σ = {sigma})").format(**where),
                language=language),
            "tr": way_lines(ticks, series["tr"], "TR (%)", _(
                "{corpus}: term recall TR against σ (declared σ = {sigma})").format(**where),
                language=language),
            "aligned": way_lines(ticks, series["aligned_terms"], _("# aligned output terms"), _(
                "{corpus}: output terms aligned to the reference against σ (declared σ = "
                "{sigma})").format(**where), scale=1.0, language=language)}


def _pair_blocks(pairs: pl.DataFrame) -> list[dict]:
    """Per system (page order): its aligned non-exact pairs, the smallest dt first (``closest``)
    and those nearest the threshold sigma (``threshold``, the largest dt first), and their count."""
    out: dict[str, dict] = {}
    for r in pairs.iter_rows(named=True):
        block = out.setdefault(r["system"], {"label": r["label"], "group": r["group"],
                                             "total": r["total"], "closest": [],
                                             "threshold": []})
        block[r["kind"]].append(r)
    return list(out.values())


# ---------------------------------------------------------------- changes, lists, corpora

def _flat(value, prefix: str = "") -> dict:
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    return {prefix.rstrip("."): value}


def _input_change(inputs, previous) -> str:
    """The inputs (JSON fingerprints) that differ between two scorings, by name; '' when none."""
    def load(text):
        try:
            return _flat(json.loads(text)) if text else {}
        except (TypeError, ValueError):
            return {}

    now, before = load(inputs), load(previous)
    return ", ".join(k for k in sorted(set(now) | set(before)) if now.get(k) != before.get(k))


def _changes(con, key: list, systems: pl.DataFrame) -> pl.DataFrame:
    """The rows of mart_terms_changes of the latest scoring run of a published system that
    replaced a previous value (slice ``all``), with the inputs that changed and ``moved``:
    whether TR (the official measure), TP or the exact F did."""
    shown = systems["system"].to_list()
    rows = only_published(frame(con, """
        SELECT corpus, system, reference, slice, run_id, previous_run_id, tr, previous_tr,
               tr - previous_tr AS delta_tr, tp, previous_tp, delta_tp, f_exact,
               previous_f_exact, inputs::VARCHAR AS inputs,
               previous_inputs::VARCHAR AS previous_inputs
        FROM mart_terms_changes
        WHERE campaign = ? AND task = ? AND slice = 'all' AND previous_run_id IS NOT NULL
         AND run_id = (SELECT max(run_id) FROM hist_terms_scores WHERE campaign = ? AND task = ?
                       AND list_contains(?, system))
        ORDER BY corpus, system, reference""", [*key, *key, shown]), systems)
    if not rows.height:
        return rows
    return rows.with_columns(pl.struct("inputs", "previous_inputs").map_elements(
        lambda r: _input_change(r["inputs"], r["previous_inputs"]),
        return_dtype=pl.String).alias("changed"),
        (pl.col("f_exact") - pl.col("previous_f_exact")).alias("delta_f_exact")).with_columns(
        ((pl.col("delta_tr").abs() > 1e-12) | (pl.col("delta_tp").abs() > 1e-12)
         | (pl.col("delta_f_exact").abs() > 1e-12)).fill_null(True).alias("moved"))


def _lists(con, key: list, systems: pl.DataFrame, root: Path) -> pl.DataFrame:
    """mart_terms_list of the corpus references and the published systems, paths relative to the
    campaign directory; an anonymous system's path is left out (it often names the system)."""
    rows = frame(con, "SELECT corpus, system, role, path, lines, terms, duplicates "
                      "FROM mart_terms_list WHERE campaign = ? AND task = ? "
                      "ORDER BY corpus, system, role", key)
    reference = rows.filter(pl.col("system") == "").with_columns(
        pl.lit("reference").alias("label"), pl.lit(False).alias("organiser"),
        pl.lit("reference").alias("group"))
    rows = pl.concat([reference, only_published(rows.filter(pl.col("system") != ""), systems)],
                     how="diagonal_relaxed")

    def relative(path: str) -> str:
        try:
            return Path(path).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return Path(path).name
    anonymous = set(systems.filter(pl.col("publication") == "anonymous")["system"])
    return rows.with_columns(
        pl.when(pl.col("system").is_in(list(anonymous))).then(None)
        .otherwise(pl.col("path").map_elements(relative, return_dtype=pl.String)).alias("path"))


def _corpora(con, key: list, task, scores: pl.DataFrame) -> pl.DataFrame:
    """One row per corpus (task order): phase, genre, reference terms |R| and per-label sizes."""
    sizes = frame(con, """
        SELECT corpus, slice, max(reference_terms) AS terms FROM fct_terms_slice
        WHERE campaign = ? AND task = ? AND reference = 'reference' GROUP BY corpus, slice""", key)
    rows = []
    for c in task.corpora:
        mine = {r["slice"]: r["terms"]
                for r in sizes.filter(pl.col("corpus") == c.id).iter_rows(named=True)}
        by_label = ", ".join(f"{s.split(':', 1)[1]} {n}" for s, n in sorted(mine.items())
                             if s.startswith("label:"))
        rows.append({"corpus": c.id, "phase": c.phase, "genre": str(c.options.get("genre", "")),
                     "reference_terms": mine.get("all"), "labels": by_label,
                     "systems": scores.filter((pl.col("corpus") == c.id)
                                              & (pl.col("reference") == "reference")
                                              )["system"].n_unique() if scores.height else 0})
    return pl.DataFrame(rows, schema={"corpus": pl.String, "phase": pl.String, "genre": pl.String,
                                      "reference_terms": pl.Int64, "labels": pl.String,
                                      "systems": pl.Int64})


# ---------------------------------------------------------------- export
