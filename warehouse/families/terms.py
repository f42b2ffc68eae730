"""The ``terms`` task family in the warehouse: terminology acquisition scored as in Termometer
(docs/metrics/terms.md; the Termometer paper): graded term precision TP and recall TR at a declared
sigma and over the sigma sweep, classical exact-match P, R, F (TermEval 2020 style, with and without
named entities), variant pairs and relation triples, the validation effort, and CoRReCT's
incremental reference.

Per corpus: ``reference`` (``term<TAB>label`` lines, labels optional; optional when the task is
``incremental``), optional ``reference_without_nes`` (the reference's list without named entities,
ACTER's ``*_terms.tsv``: the slice ``without:Named_Entity``), optional ``variants``
(``group_id<TAB>term``) and ``relations`` (``term1<TAB>type<TAB>term2``), option ``genre``. Per
system: ``terms = { corpus = path }`` (``term`` or ``term<TAB>score`` lines: a ranked list),
optional ``variants``, ``relations`` and ``validated`` (the output after expert validation). Task
options: ``case`` (``keep``, default, or ``lower``), ``sigma`` (default 0.4), ``top`` (cut-offs of
ranked lists, default none), ``exclude_labels`` (a slice ``without:<label>`` for each, default
``["Named_Entity"]``, when the reference has that label), ``incremental`` (CoRReCT, default false),
``symmetric_relations`` (default ``["synonym"]``), ``intervals`` (default true). The formats are in
docs/formats_terms.md.

Every distance is computed once, into ``int_terms_alignment`` (one row per output term x
reference kind x slice: its nearest reference term r(e) and d(e)); every score, at any sigma and
any cut-off, is SQL over that table (the macro ``mart_terms_at``).
"""

from __future__ import annotations

from functools import cache, partial
from pathlib import Path

import numpy as np
import polars as pl

from scorehouse.etl.terms import read_relations, read_term_list, read_variant_groups
from scorehouse.etl.text import SIGNATURE as TEXT
from scorehouse.scorers import bootstrap, ranking
from scorehouse.scorers import terms_measures as measures
from scorehouse.scorers import terms_slices as slicing
from scorehouse.warehouse.artifacts import reduce
from scorehouse.warehouse.campaign import CampaignError, Task
from scorehouse.warehouse.catalog import (
    RunContext,
    current_inputs,
    drop_undeclared,
    fingerprint,
    replace_rows,
    scoring_state,
)
from scorehouse.warehouse.catalog import code_version as catalog_code_version
from scorehouse.warehouse.db import build, frame, insert_arrow, insert_rows, one, written
from scorehouse.warehouse.families import terms_intervals
from scorehouse.warehouse.families import terms_references as refs
from scorehouse.warehouse.runner import Target, Unit, run_units, stale
from scorehouse.warehouse.staging import Slot, StageJob, stage_files

SQL_FOLDER = "terms"
CASES = ("keep", "lower")
CORPUS_ROLES = ("reference", "reference_without_nes", "variants", "relations")
SYSTEM_ROLES = ("terms", "variants", "relations", "validated")
CAMPAIGN_KEYS = {  # the keys campaign.toml may give a terms task (campaign.check_keys)
    "task": ("case", "sigma", "top", "incremental", "symmetric_relations", "exclude_labels",
             "intervals"),
    "corpus": (*CORPUS_ROLES, "genre"),
    "system": SYSTEM_ROLES,
}
REFERENCES = ("reference", "validated", "incremental")
_READERS = {"reference": read_term_list, "terms": read_term_list, "validated": read_term_list,
            "reference_without_nes": read_term_list,
            "variants": read_variant_groups, "relations": read_relations}
_UNIT_TABLES = ("int_terms_alignment", "fct_terms_slice", "mart_terms_sweep", "mart_terms_scores",
                "int_terms_link", "mart_terms_link_scores", "int_terms_validation_edit",
                "mart_terms_validation")


@cache
def code_version() -> str:
    """Package version plus a hash of the family's scoring code and SQL: a change re-scores."""
    return catalog_code_version(SQL_FOLDER, __name__)


def signature(sigma: float, case: str) -> str:
    """sacrebleu-style signature of the Termometer scores."""
    return (f"terms|sigma:{sigma:g}|case:{case}|distance:dt=(dch+dtc)/2|ties:first-in-reference"
            f"|resample:output-parts(TP),reference-terms(TR)|{TEXT}|version:{code_version()}")


def link_signature(symmetric_relations, case: str) -> str:
    """sacrebleu-style signature of the variant-pair and relation-triple scores."""
    symmetric = ",".join(symmetric_relations) or "none"
    return (f"links|reference:restricted-to-system-terms|variants:unordered-pairs"
            f"|symmetric:{symmetric}|case:{case}|{TEXT}|version:{code_version()}")


def options(task: Task) -> dict:
    """The task's options, checked (errors name the key)."""
    o = task.options
    case = o.get("case", "keep")
    if case not in CASES:
        raise CampaignError(f"task {task.id}: case: expected one of {CASES}, found {case!r}")
    sigma = o.get("sigma", 0.4)
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or not 0 <= sigma <= 1:
        raise CampaignError(f"task {task.id}: sigma: expected a number in [0, 1], found {sigma!r}")
    top = o.get("top", [])
    if (not isinstance(top, list)
            or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in top)):
        raise CampaignError(f"task {task.id}: top: expected a list of positive integers, "
                            f"found {top!r}")
    for key in ("exclude_labels", "symmetric_relations"):
        value = o.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise CampaignError(f"task {task.id}: {key}: expected a list of names, found {value!r}")
    incremental = o.get("incremental", False)
    if not isinstance(incremental, bool):
        raise CampaignError(f"task {task.id}: incremental: expected true or false, "
                            f"found {incremental!r}")
    for corpus in task.corpora:
        unknown = sorted(set(corpus.files) - set(CORPUS_ROLES))
        if unknown:
            raise CampaignError(f"task {task.id}: corpus {corpus.id}: expected files among "
                                f"{CORPUS_ROLES}, found {unknown}")
        if "reference_without_nes" in corpus.files and (
                slicing.LISTED not in o.get("exclude_labels", [slicing.LISTED])
                or "reference" not in corpus.files):
            raise CampaignError(f"task {task.id}: corpus {corpus.id}: reference_without_nes: "
                                "expected a 'reference' and Named_Entity in exclude_labels")
        if "reference" not in corpus.files and not incremental:
            raise CampaignError(f"task {task.id}: corpus {corpus.id}: expected a 'reference' file "
                                "(or incremental = true)")
    for system in task.systems:
        unknown = sorted(set(system.files) - set(SYSTEM_ROLES))
        if unknown:
            raise CampaignError(f"task {task.id}: system {system.id}: expected files among "
                                f"{SYSTEM_ROLES}, found {unknown}")
    return {"case": case, "sigma": float(sigma), "top": sorted(set(top)),
            "exclude_labels": tuple(o.get("exclude_labels", ["Named_Entity"])),
            "symmetric_relations": tuple(o.get("symmetric_relations", ["synonym"])),
            "incremental": incremental, "intervals": bool(o.get("intervals", True))}


# ---------------------------------------------------------------- load

def _stage_terms(con, sha: str, table) -> None:
    insert_arrow(con, "stg_terms_term", table,
                 "$sha, line_no, term, raw, label, score, rank, duplicate_of", {"sha": sha})


def _stage_variants(con, sha: str, table) -> None:
    insert_arrow(con, "stg_terms_variant", table, "$sha, line_no, group_id, term", {"sha": sha})


def _stage_relations(con, sha: str, table) -> None:
    insert_arrow(con, "stg_terms_relation", table, "$sha, line_no, term1, type, term2",
                 {"sha": sha})


_STAGE = {"reference": _stage_terms, "terms": _stage_terms, "validated": _stage_terms,
          "reference_without_nes": _stage_terms,
          "variants": _stage_variants, "relations": _stage_relations}


def load(ctx: RunContext, task: Task) -> None:
    """Stage every changed term list, variants file and relations file (normalised with the
    task's case policy, which is part of each file's content hash)."""
    case = options(task)["case"]
    jobs = []

    def job(slot: Slot, path: Path) -> StageJob:
        return StageJob(slot, path, partial(_READERS[slot.role], case=case), _STAGE[slot.role],
                        salt=f"terms|{case}")
    for corpus in task.corpora:
        jobs += [job(Slot(task.id, corpus.id, "", role), path)
                 for role, path in corpus.files.items()]
        for system in task.systems:
            jobs += [job(Slot(task.id, corpus.id, system.id, role), files[corpus.id])
                     for role, files in system.files.items() if corpus.id in files]
    loaded = {(j.slot.corpus, j.slot.system, j.slot.role)
              for j, changed in zip(jobs, stage_files(ctx, jobs)) if changed}
    lists = frame(ctx.con, "SELECT corpus, system, role, path, duplicates FROM mart_terms_list "
                           "WHERE campaign = ? AND task = ? AND duplicates > 0 ORDER BY ALL",
                  [ctx.campaign.id, task.id])
    for corpus, system, role, path, duplicates in lists.iter_rows():
        # said once, when loaded; mart_terms_list keeps the count
        if (corpus, system, role) in loaded:
            ctx.notes.append(f"{task.id}/{corpus}/{system or role}: {path}: {duplicates} duplicate "
                             "term(s), counted once")


# ---------------------------------------------------------------- score

def score(ctx: RunContext, task: Task, force: bool = False) -> None:
    """Recompute every (corpus, system) unit whose inputs, options or code changed, then the
    paired tests and rank ranges of every corpus whose units changed (:func:`paired`)."""
    o = options(task)
    con, campaign = ctx.con, ctx.campaign.id
    inputs = current_inputs(con, campaign, task.id)
    states = scoring_state(con, campaign, task.id)
    declared = {(c.id, s.id) for c in task.corpora for s in task.systems}
    drop_undeclared(ctx, task.id, declared, (*_UNIT_TABLES, "mart_terms_interval"))
    if not o["incremental"]:  # a task that no longer builds its reference keeps no stale build
        con.execute("DELETE FROM int_terms_reference_build WHERE campaign = ? AND task = ?",
                    [campaign, task.id])
    units = []
    for corpus in task.corpora:
        build_, before = (refs.incremental(con, task, corpus, inputs) if o["incremental"]
                          else (None, {}))
        if build_ is not None:
            refs.store_build(ctx, task, corpus.id, build_)
        for system in task.systems:
            unit = {role: inputs.get((corpus.id, "", role)) for role in CORPUS_ROLES}
            unit |= {f"system_{role}": inputs.get((corpus.id, system.id, role))
                     for role in SYSTEM_ROLES}
            if unit["system_terms"] is None:
                continue
            if unit["reference_without_nes"] is not None:
                try:
                    refs.reference(con, unit)
                except ValueError as err:
                    raise CampaignError(f"task {task.id}: corpus {corpus.id}: "
                                        f"reference_without_nes: {err}") from None
            incremental = None
            if build_ is not None:
                version, shas = before[system.id]
                incremental = build_.filter(pl.col("version") <= version)
                unit["incremental"] = shas
            # no seed, no bootstrap: the intervals are a reduce of the corpus (terms_intervals)
            state = fingerprint({"inputs": unit, "version": code_version(), "options": o})
            units.append(Unit(corpus, system.id, unit, state, {"incremental": incremental}))
    run_units(ctx, task.id, stale(units, states, force), lambda u: _prepare(ctx, o, u),
              compute_unit, Target(SQL_FOLDER, _UNIT_TABLES, "hist_terms_scores"))
    for corpus in task.corpora:
        mine = [u for u in units if u.corpus.id == corpus.id]
        reduce(ctx, task, corpus.id, "intervals", partial(
            terms_intervals.intervals, ctx, task.id, corpus.id, o, mine,
            lambda u: _references(ctx.con, u)), code_version(), force)
        reduce(ctx, task, corpus.id, "paired", partial(paired, ctx, task, corpus.id, o),
               code_version(), force)


def paired(ctx: RunContext, task: Task, corpus: str, o: dict) -> None:
    """Paired bootstrap tests and rank ranges of a corpus's systems by graded term recall TR at
    the task's sigma (whole lists, corpus reference): each reference term's credit is the Pert
    of the part aligned to it (1 - dt of its nearest output terms within sigma, 0 when none), TR
    their mean, and every system is scored on the same resamples of the reference terms
    (mart_terms_paired, mart_terms_rank). Reference terms no system reaches count 0 for all."""
    con, campaign = ctx.con, ctx.campaign
    key = [campaign.id, task.id, corpus]
    tables = ("mart_terms_paired", "mart_terms_rank")
    where = ("campaign = ? AND task = ? AND corpus = ? AND reference = 'reference' "
             "AND slice = 'all'")
    size = one(con, f"SELECT max(reference_terms) FROM fct_terms_slice WHERE {where}", key)[0]
    systems = [r[0] for r in con.execute(f"SELECT DISTINCT system FROM fct_terms_slice WHERE "
                                         f"{where} ORDER BY system", key).fetchall()]
    rows, pairs = [], []
    if o["intervals"] and size and systems:
        credits = con.execute(f"SELECT system, nearest, max(1 - dt) FROM int_terms_alignment "
                              f"WHERE {where} AND dt <= ? GROUP BY ALL",
                              [*key, o["sigma"] + 1e-9]).fetchall()
        terms = _term_rows(con, campaign.id, task.id, corpus, {t for _, t, _ in credits})
        column = {s: j for j, s in enumerate(systems)}
        matrix = np.zeros((size, len(systems)))
        for system, term, credit in credits:
            matrix[terms[term], column[system]] = credit
        samples = bootstrap.ratio_samples(matrix, np.ones_like(matrix), campaign.bootstrap,
                                          campaign.seed, stream=f"{task.id}/{corpus}/tr")
        point = matrix.sum(axis=0) / size
        tested, ranks = ranking.rank_variants([(s,) for s in systems], point, samples)
        stamp = [campaign.bootstrap, campaign.seed]
        pairs = [[*key, o["sigma"], "tr", a, b, *map(bootstrap.finite, figures), *stamp]
                 for _, a, b, figures in tested]
        rows = [[*key, s, o["sigma"], "tr", bootstrap.finite(point[j]), *ranks[j], *stamp]
                for j, s in enumerate(systems)]

    def write() -> None:
        insert_rows(con, f"INSERT INTO mart_terms_paired VALUES ({', '.join('?' * 15)})", pairs)
        insert_rows(con, f"INSERT INTO mart_terms_rank VALUES ({', '.join('?' * 11)})", rows)
    replace_rows(con, dict(zip(("campaign", "task", "corpus"), key)), tables, write)


def _term_rows(con, campaign: str, task: str, corpus: str, reached: set) -> dict[str, int]:
    """Each reference term's row in the paired bootstrap: its place in the sorted corpus reference,
    whoever reaches it, so that a pair's test depends on the pair alone (DESIGN principle 11: the
    draws are keyed by what they resample, never by which other systems are present)."""
    inputs = current_inputs(con, campaign, task)
    shas = {role: inputs.get((corpus, "", role)) for role in ("reference", "reference_without_nes")}
    listed = (sorted(set(refs.reference(con, shas)["term"].to_list()))
              if shas["reference"] is not None else [])
    listed += sorted(reached - set(listed))
    return {t: i for i, t in enumerate(listed)}


def _prepare(ctx, o: dict, unit: Unit) -> tuple:
    """A unit's inputs, read in the coordinator: the output list, the reference lists by kind,
    and the variant classes and relations of both sides."""
    con, shas = ctx.con, unit.inputs
    output = refs.staged_terms(con, shas["system_terms"])
    references = _references(con, unit)
    sides = {}
    for role, sql in (("variants", "SELECT group_id, term FROM stg_terms_variant WHERE sha256 = ? "
                                   "ORDER BY line_no"),
                      ("relations", "SELECT term1, type, term2 FROM stg_terms_relation "
                                    "WHERE sha256 = ? ORDER BY line_no")):
        if shas[role] is not None and shas[f"system_{role}"] is not None:
            sides[role] = (frame(con, sql, [shas[role]]), frame(con, sql, [shas[f"system_{role}"]]))
    return output, references, sides, o


def _references(con, unit: Unit) -> dict[str, pl.DataFrame]:
    """A unit's reference lists by kind (term, label): the corpus reference, the system's
    validated list, CoRReCT's incremental reference."""
    shas = unit.inputs
    references = {}
    if shas["reference"] is not None:
        references["reference"] = refs.reference(con, shas)
    if shas["system_validated"] is not None:
        references["validated"] = refs.staged_terms(con, shas["system_validated"]).select(
            "term", "label")
    incremental = unit.extra["incremental"]
    if incremental is not None and incremental.height:
        references["incremental"] = incremental.select("term", "label")
    return references


def compute_unit(ids, output, references, sides, o) -> dict:
    """One unit (``ids``: campaign, task, corpus, system), a pure function: the alignment of the
    output list with every reference kind and slice, their sizes, the matched variant pairs and
    relation triples, the validation edits, and the scores SQL builds from them: the rows of
    every table the unit fills. Its bootstrap intervals are a reduce of the corpus
    (:mod:`warehouse.families.terms_intervals`): a new seed recomputes them, not the unit."""
    aligned, sizes, searched = [], [], {}
    for kind, reference in references.items():
        table, size = slicing.alignment(output, reference, o["exclude_labels"], searched)
        aligned.append(table.with_columns(pl.lit(kind).alias("reference")))
        sizes.append(size.with_columns(pl.lit(kind).alias("reference")))
    aligned = pl.concat(aligned) if aligned else None
    sizes = pl.concat(sizes) if sizes else None
    edits = (measures.validation_edits(output["term"].to_list(),
                                       references["validated"]["term"].to_list(), o["sigma"])
             if "validated" in references else None)
    links = _links(o, sides, output)

    def write(con) -> None:
        if aligned is not None:
            insert_arrow(con, "int_terms_alignment", aligned.to_arrow(),
                         "$campaign, $task, $corpus, $system, reference, slice, term, rank, score, "
                         "nearest, nearest_label, dt, dch, dtc, exact", ids)
            insert_arrow(con, "fct_terms_slice", sizes.to_arrow(),
                         "$campaign, $task, $corpus, $system, reference, slice, reference_terms, "
                         "output_terms", ids)
        tops = [0, *o["top"]]
        build(con, SQL_FOLDER, "mart_terms_sweep", **ids, sigmas=list(measures.SIGMAS), tops=tops)
        build(con, SQL_FOLDER, "mart_terms_scores", **ids, sigmas=[o["sigma"]], tops=tops,
              signature=signature(o["sigma"], o["case"]))
        if links is not None and links.height:
            insert_arrow(con, "int_terms_link", links.to_arrow(),
                         "$campaign, $task, $corpus, $system, kind, term1, type, term2, status",
                         ids)
            build(con, SQL_FOLDER, "mart_terms_link_scores", **ids,
                  signature=link_signature(o["symmetric_relations"], o["case"]))
        if edits is not None:
            insert_arrow(con, "int_terms_validation_edit", edits.to_arrow(),
                         "$campaign, $task, $corpus, $system, edit, raw_term, validated_term, dt",
                         ids)
            build(con, SQL_FOLDER, "mart_terms_validation", **ids)
    return written(SQL_FOLDER, _UNIT_TABLES, write)


def _links(o: dict, sides: dict, output: pl.DataFrame) -> pl.DataFrame | None:
    """The variant pairs and relation triples of the unit, matched (int_terms_link without keys):
    scored when both the corpus and the system have the file (``sides``: role -> (reference,
    system) rows). The terms the system returned: its term list and the terms of its own variant
    classes (or relations)."""
    parts = []
    if "variants" in sides:
        groups, mine = sides["variants"]
        returned = set(output["term"]) | set(mine["term"])
        reference = measures.link_pairs(groups).with_columns(pl.lit("").alias("type"))
        system = measures.link_pairs(mine).with_columns(pl.lit("").alias("type"))
        links, _ = measures.link_scores(reference, system, sorted(returned), None)
        parts.append(links.with_columns(pl.lit("variant").alias("kind")))
    if "relations" in sides:
        triples, mine = sides["relations"]
        returned = set(output["term"]) | set(mine["term1"]) | set(mine["term2"])
        symmetric = set(o["symmetric_relations"])
        links, _ = measures.link_scores(triples, mine, sorted(returned), lambda t: t in symmetric)
        parts.append(links.with_columns(pl.lit("relation").alias("kind")))
    return pl.concat(parts, how="diagonal_relaxed") if parts else None
