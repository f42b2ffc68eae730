"""The ``pos`` task family in the warehouse (GRACE): load, re-align, project, judge, score.

Per corpus: ``reference`` (GRACE token-per-line, or CoNLL-U with ``format = "conllu"`` and
``tag = "upos" | "xpos" | "upos+feats"``) and optional ``training`` (same format: feeds the
built-in baselines). Per system: ``submissions = { corpus = path }``, option ``table`` (a
correspondence table; identity when absent), options ``format`` / ``tag`` for CoNLL-U.
Task options: ``evaluations`` (absolute, relative), ``granularities`` (full, category: shown in
bulletins; both are always in the warehouse), ``baselines`` (default true when a training corpus
is given). The bootstrap intervals and paired tests of every corpus: ``pos_intervals.py``.
"""

from __future__ import annotations

from functools import cache, partial
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa

from scorehouse.etl.conllu import read_conllu
from scorehouse.etl.grace import read_grace_reference, read_grace_submission
from scorehouse.etl.tagtable import read_tag_table
from scorehouse.etl.text import SIGNATURE as TEXT
from scorehouse.scorers import lcs
from scorehouse.scorers import pos as scorer
from scorehouse.scorers import pos_judgement as judgement
from scorehouse.warehouse import resident
from scorehouse.warehouse.artifacts import reduce
from scorehouse.warehouse.campaign import CampaignError, Task, resolve_file
from scorehouse.warehouse.catalog import (
    RunContext,
    current_inputs,
    drop_undeclared,
    fingerprint,
    scoring_state,
)
from scorehouse.warehouse.catalog import code_version as catalog_code_version
from scorehouse.warehouse.db import build, frame, insert_arrow, keyed, written
from scorehouse.warehouse.families.pos_baselines import (
    BASELINES,
    declare,  # noqa: F401  (the family's hook)
    load_baselines,
)
from scorehouse.warehouse.families.pos_consensus import consensus, line_prefixes
from scorehouse.warehouse.families.pos_intervals import intervals
from scorehouse.warehouse.families.pos_kappa import kappa_pairs, unit_vector
from scorehouse.warehouse.published import published_ids
from scorehouse.warehouse.runner import Query, Target, Unit, run_units, stale, unit_input
from scorehouse.warehouse.staging import Slot, StagedRows, StageJob, stage_files

SQL_FOLDER = "pos"
LEAN_WORKERS = True  # a unit holds a million-token corpus (coordinator.py workers_allocator)
CAMPAIGN_KEYS = {  # the keys campaign.toml may give a pos task (campaign.check_keys)
    "task": ("evaluations", "granularities", "baselines", "intervals"),
    "corpus": ("reference", "training", "format", "tag"),
    "system": ("submissions", "table", "format", "tag"),
    "system_paths": ("table",),  # checked with the other files when the campaign is read
}
EVALUATIONS = ("absolute", "relative")
GRANULARITIES = judgement.GRANULARITIES  # full tags, their first letter
# a unit's tables: its own sums by slice, kappa, unknown tags and residual forms too, so that a
# page reads small tables and a changed submission costs its own rows
_UNIT_TABLES = ("int_pos_sys_unit", "int_pos_case", "int_pos_residual_form",
                "fct_pos_sentence", "fct_pos_slice", "fct_pos_kappa", "fct_pos_unknown_tag",
                "int_pos_kappa_vector")
_UNIT_BUILDS = ("int_pos_residual_form", "fct_pos_kappa",
                "fct_pos_unknown_tag")  # with the unit's keys; then fct_pos_slice, without
_TOKEN_COLUMNS = ["tok", "line_no", "doc", "genre", "sent", "form", "tags", "loc", "loc_tags"]


@cache
def code_version() -> str:
    """Package version plus a hash of the family's scoring code and SQL: a change re-scores."""
    return catalog_code_version(SQL_FOLDER, __name__)


def signature(task: Task, evaluation: str, granularity: str) -> str:
    """sacrebleu-style signature of a POS variant."""
    return (f"pos|eval:{evaluation}|granularity:{granularity}|units:minimal|align:lcs"
            f"|{TEXT}|version:{code_version()}")


def _options(task: Task) -> dict:
    o = task.options
    evaluations = tuple(o.get("evaluations", EVALUATIONS))
    granularities = tuple(o.get("granularities", GRANULARITIES))
    if not evaluations or set(evaluations) - set(EVALUATIONS):
        raise CampaignError(f"task {task.id}: evaluations: expected some of {EVALUATIONS}, "
                            f"found {list(evaluations)}")
    if not granularities or set(granularities) - set(GRANULARITIES):
        raise CampaignError(f"task {task.id}: granularities: expected some of {GRANULARITIES}, "
                            f"found {list(granularities)}")
    for corpus in task.corpora:
        if "reference" not in corpus.files:
            raise CampaignError(f"task {task.id}: corpus {corpus.id}: expected a 'reference' file")
        if corpus.options.get("format", "grace") not in ("grace", "conllu"):
            raise CampaignError(f"task {task.id}: corpus {corpus.id}: format: "
                                "expected grace or conllu")
    return {"evaluations": evaluations, "granularities": granularities}


def _reader(options: dict, reference: bool):
    """The reader for a file of this format: (path, data) -> Arrow table of _TOKEN_COLUMNS."""
    if options.get("format", "grace") == "conllu":
        return partial(read_conllu, tag=options.get("tag", "upos"))  # picklable: parsed anywhere
    return read_grace_reference if reference else read_grace_submission


def _salt(fmt: dict, path: Path, reference: bool) -> str:
    """What shapes the staged tokens besides the bytes: the reader, its tag option, and the file
    stem (the default document id)."""
    return (f"pos|{fmt['format']}|{fmt['tag']}|{'reference' if reference else 'submission'}"
            f"|{Path(path).stem}")


def _token_select(columns: tuple[str, ...]) -> str:
    """A file's tokens as ``stg_pos_token`` holds them (a column its reader does not give:
    null), in token order as every reader gives them (and as its unit reads them: kept in a
    local store, the unit reads the staged file itself)."""
    select = ", ".join(c if c in columns else f"NULL AS {c}" for c in _TOKEN_COLUMNS)
    return f"SELECT $sha AS sha256, {select} FROM arrow_rows"


_stage_tokens = StagedRows("stg_pos_token", _token_select)


def _stage_table(con, sha: str, table: pa.Table) -> None:
    insert_arrow(con, "stg_pos_tagtable", table, '$sha, tag, "pivot", line_no', {"sha": sha})


# ---------------------------------------------------------------- load

def load(ctx: RunContext, task: Task) -> None:
    """Stage every changed reference, training corpus, correspondence table and submission;
    build the baselines' outputs when the reference or the training corpus changed."""
    _options(task)  # fail early on bad task options
    root = ctx.campaign.root
    stage_files(ctx, [
        StageJob(Slot(task.id, "", system.id, "table"),
                 resolve_file(ctx.campaign.roots or (root,), system.options["table"],
                              f"task {task.id}: system {system.id}.table", root / "campaign.toml"),
                 read_tag_table, _stage_table)
        for system in task.systems if "table" in system.options])
    for corpus in task.corpora:  # a corpus's files are parsed together, on every worker
        fmt = {"format": corpus.options.get("format", "grace"),
               "tag": corpus.options.get("tag", "upos")}
        jobs = [StageJob(Slot(task.id, corpus.id, "", role), corpus.files[role],
                         _reader(fmt, True), _stage_tokens,
                         salt=_salt(fmt, corpus.files[role], True))
                for role in ("reference", "training") if role in corpus.files]
        for system in task.systems:
            if corpus.id in system.files.get("submissions", {}):
                sys_fmt = {"format": system.options.get("format", fmt["format"]),
                           "tag": system.options.get("tag", fmt["tag"])}
                path = system.files["submissions"][corpus.id]
                jobs.append(StageJob(Slot(task.id, corpus.id, system.id, "submissions"), path,
                                     _reader(sys_fmt, False), _stage_tokens,
                                     salt=_salt(sys_fmt, path, False)))
        stage_files(ctx, jobs)
        if task.options.get("baselines", True) and "training" in corpus.files:
            load_baselines(ctx, task, corpus.id, _stage_tokens)


# ---------------------------------------------------------------- score

def _systems(ctx: RunContext, task: Task) -> list[tuple[str, dict]]:
    """Declared systems and the built-in baselines: (system id, options)."""
    out = [(s.id, s.options) for s in task.systems]
    if task.options.get("baselines", True) and any("training" in c.files for c in task.corpora):
        out += [(sid, {}) for sid in BASELINES]
    return out


def score(ctx: RunContext, task: Task, force: bool = False) -> None:
    """Recompute every (corpus, system) unit whose inputs or code changed, then the consensus, the
    kappa between systems and the intervals of every corpus whose units, seed or options changed
    since they were last computed (:func:`warehouse.artifacts.reduce`)."""
    options = _options(task)
    con, campaign = ctx.con, ctx.campaign.id
    inputs = current_inputs(con, campaign, task.id)
    states = scoring_state(con, campaign, task.id)
    declared = {(c.id, s) for c in task.corpora for s, _ in _systems(ctx, task)}
    drop_undeclared(ctx, task.id, declared, _UNIT_TABLES)
    units = []
    for corpus in task.corpora:
        for system, sys_options in _systems(ctx, task):
            unit = {"reference": inputs.get((corpus.id, "", "reference")),
                    "submissions": inputs.get((corpus.id, system, "submissions")),
                    "table": inputs.get(("", system, "table"))}
            if unit["reference"] is None or unit["submissions"] is None:
                continue
            if "table" in sys_options and unit["table"] is None:
                continue  # its correspondence table was rejected: nothing to project with
            state = fingerprint({"inputs": unit, "version": code_version(),
                                 "evaluations": options["evaluations"],
                                 "split": corpus.options.get("format", "grace") != "conllu"})
            units.append(Unit(corpus, system, unit, state))
    signatures = _signatures(task, options)

    def prepare(u: Unit) -> tuple:
        table = None if u.inputs["table"] is None else frame(
            con, "SELECT tag, pivot_tag AS pivot FROM stg_pos_tagtable WHERE sha256 = ?",
            [u.inputs["table"]])
        sha = u.inputs["reference"]
        # the reference's derived rows and the staged tokens are those of the hash and code
        version = f"{code_version()}|split:{_split(u.corpus)}"
        submission = u.inputs["submissions"]  # read in place when the store keeps it
        return (sha, Query(_REFERENCE, (sha,), version), _split(u.corpus),
                resident.staged_input(con, ctx.store, "stg_pos_token", submission, _SYS_COLUMNS)
                or Query(_SYS_TOKENS, (submission,), version, kept=False), table,
                options["evaluations"],
                signatures, u.state)

    todo = stale(units, states, force)
    for first in {u.corpus.id: u for u in todo}.values():  # the units read what is derived
        sha, split = first.inputs["reference"], _split(first.corpus)  # from the reference alone
        reduce(ctx, task, first.corpus.id, "reference",
               lambda r=sha, s=split: derive_reference(con, r, s), code_version(), force,
               {"reference": sha, "split": split}, of_units=False)
    run_units(ctx, task.id, todo, prepare, compute_unit,
              Target(SQL_FOLDER, _UNIT_TABLES, "hist_pos_scores"))
    for corpus in task.corpora:
        reduce(ctx, task, corpus.id, "consensus",
               lambda c=corpus.id: consensus(ctx, task, c, force), code_version(), force,
               {"published": published_ids(ctx.con, ctx.campaign.id, task.id)})
        reduce(ctx, task, corpus.id, "kappa_pairs",
               lambda c=corpus.id: kappa_pairs(ctx, task, c, force), code_version(), force)
        if task.options.get("intervals", True):
            reduce(ctx, task, corpus.id, "intervals", lambda c=corpus.id: intervals(ctx, task, c),
                   code_version(), force)
    # the kept tallies' few updated rows are written out now (DuckDB checkpoints by itself only
    # after 16 MB of changes): the pages' queries over those tables then stay in the buffer
    ctx.con.execute("CHECKPOINT")


_TOKENS = ("SELECT tok, doc, genre, sent, form, tags, loc, loc_tags FROM stg_pos_token "
           "WHERE sha256 = ? ORDER BY tok")  # a staged reference's tokens, as a unit reads them
_SYS_COLUMNS = ("tok", "doc", "sent", "form", "tags")  # a submission's tokens, as a unit reads them
_SYS_TOKENS = (f"SELECT {', '.join(_SYS_COLUMNS)} FROM stg_pos_token WHERE sha256 = ? "
               "ORDER BY tok")
# a reference's units as a unit reads them, each with the spans it begins (derive_reference)
_REFERENCE = ("SELECT unit, tok, unit_form, doc, genre, sent, spans FROM int_pos_ref_unit "
              "WHERE sha256 = ? ORDER BY unit")


def _split(corpus) -> bool:
    """Whether tokens are cut into minimal units: GRACE files yes, CoNLL-U words no."""
    return corpus.options.get("format", "grace") != "conllu"


def derive_reference(con, sha: str, split: bool) -> None:
    """What the units of a reference need from it alone (the corpus's reduce 'reference', run
    again when the reference or the code changes): its ``int_pos_ref_unit`` rows, each with
    the segmentations it offers that begin at that unit (:func:`scorers.pos.reference_spans`),
    and the beginnings of its consensus lines (``int_pos_ref_line``)."""
    tokens = frame(con, _TOKENS, [sha])
    units = scorer.units(tokens, split=split)

    def replace(table: str, derived: pl.DataFrame) -> None:
        # the hash as a parameter: not 64 bytes on each of a million rows held here
        con.execute(f"DELETE FROM {table} WHERE sha256 = ?", [sha])
        insert_arrow(con, table, derived.to_arrow(), "$sha256 AS sha256, *", {"sha256": sha},
                     by_name=True)

    # one derived table at a time (a 1 M-token reference: each is hundreds of MB as Polars and
    # Arrow columns), the tokens let go before the spans are grouped
    replace("int_pos_ref_line", line_prefixes(tokens, units))
    spans = scorer.reference_spans(tokens, units)
    placed = units.join(tokens.select(pl.col("tok").cast(pl.Int64), "doc", "genre", "sent"),
                        on="tok")
    del tokens
    spans = (spans.group_by("first")
             .agg(pl.struct("last", "acceptable", "kind").sort_by("last").alias("spans")))
    replace("int_pos_ref_unit", placed.join(spans, left_on="unit", right_on="first", how="left")
            .sort("unit").select("unit", "tok", "unit_form", "doc", "genre", "sent", "spans"))


def reference_parts(sha: str, reference: pl.DataFrame) -> tuple[pl.DataFrame, pa.Table]:
    """A reference as :data:`_REFERENCE` reads it, apart: the segmentations it offers
    (``first``, ``last``, ``acceptable``, ``kind``) and its ``int_pos_ref_unit`` rows."""
    offered = (reference.select(pl.col("unit").alias("first"), "spans").explode("spans")
               .drop_nulls("spans").unnest("spans"))
    rows = reference.select("unit", "tok", "unit_form", "doc", "genre", "sent").to_arrow(
        compat_level=_VIEWS)
    # the hash once, as a one-entry dictionary: not 64 bytes on each of a million rows
    return offered, keyed({"sha256": sha}, rows, rows.column_names)


def compute_unit(ids: dict, ref_sha: str, reference: pl.DataFrame, split: bool,
                 sys_tokens: pl.DataFrame, table: pl.DataFrame | None, evaluations: tuple,
                 signatures: dict, state: str) -> dict[str, pa.Table]:
    """One unit (``ids``: campaign, task, corpus, system), a pure function: the submission's
    minimal units re-aligned with the reference's units (LCS), its tokens judged against the
    segmentations the reference offers (:func:`derive_reference`, stored when the reference
    or the code changed, read with its units: ``reference``), the cases of each evaluation
    and their counts by sentence (:mod:`scorers.pos_judgement`), then in SQL their sums by
    slice, its kappa against the reference, its unknown tags and its residual forms, and its
    strict tags as the kappa between systems reads them, kept under its ``state``: the rows
    of every table it fills."""
    ref_units, rows = _judged(ids, ref_sha, reference, split, sys_tokens, table, evaluations,
                              dict(zip(signatures["key"], signatures["value"], strict=True)))
    rows["int_pos_kappa_vector"] = unit_vector(ids, state, rows["int_pos_case"])

    def write(con) -> None:  # the cases and the reference's units are registered: no copy
        sha = {"reference_sha": ref_sha if ref_units.num_rows else ""}
        for table in _UNIT_BUILDS:
            build(con, SQL_FOLDER, table, **ids, **(sha if table == "int_pos_residual_form"
                                                    else {}))
        build(con, SQL_FOLDER, "fct_pos_slice")  # by slice: this database holds its rows only
    return written(SQL_FOLDER, _UNIT_TABLES, write, {"int_pos_ref_unit": ref_units}, rows)


def _judged(ids: dict, ref_sha: str, reference: pl.DataFrame, split: bool,
            sys_tokens: pl.DataFrame, table: pl.DataFrame | None, evaluations: tuple,
            signatures: dict[str, str]) -> tuple[pa.Table, dict[str, pa.Table]]:
    """:func:`compute_unit`'s rows made without SQL, and the reference's units its builds
    read; the frames made on the way (the judged tokens, the offered spans) are freed on
    return, before the builds run (the 1M-token unit's peak: 1.19 -> 1.1 GiB)."""
    sentence, heads = judgement.sentence_numbers(reference)
    offered, ref_units = reference_parts(ref_sha, reference)
    sys_units = scorer.units(sys_tokens, split=split)
    ref_codes, sys_codes = lcs.encode(pl.Series(ref_units["unit_form"]), sys_units["unit_form"])
    with unit_input(ids, "minimal units"):
        partner = lcs.align(ref_codes, sys_codes)
    del ref_codes, sys_codes
    tokens = scorer.judge_tokens(offered, sys_tokens, sys_units, partner, table)
    del offered
    ref_of_sys = np.full(sys_units.height, -1, dtype=np.int64)
    ref_of_sys[partner[partner >= 0]] = np.flatnonzero(partner >= 0)
    units = sys_units.with_columns(pl.Series("ref_unit", ref_of_sys).replace(-1, None)).to_arrow(
        compat_level=_VIEWS)
    cases, counted, ref_unit = [], [], reference["unit"].to_numpy()
    for evaluation in evaluations:
        judged = (scorer.absolute_cases(tokens, sys_units, partner) if evaluation == "absolute"
                  else scorer.relative_cases(tokens))
        counted.append((evaluation, judgement.coded(judged, ref_unit, sentence)))
        cases.append(keyed(ids, _coded(judged), _CASE_COLUMNS, evaluation=evaluation))
        del judged
    del tokens, sys_units, partner  # not needed by the counts: let go before them
    sentences = [
        keyed(ids, counts.to_arrow(compat_level=_VIEWS), _SENTENCE_COLUMNS,
              evaluation=evaluation, granularity=granularity,
              signature=signatures[f"{evaluation}/{granularity}"])
        for evaluation, coded in counted
        for granularity, counts in judgement.sentence_frame(coded, heads).items()]
    return ref_units, {
        "int_pos_sys_unit": keyed(ids, units, ["unit", "tok", "unit_form", "ref_unit"]),
        "int_pos_case": pa.concat_tables(cases),
        "fct_pos_sentence": pa.concat_tables(sentences).select(_SENTENCE_ORDER)}


# a unit's frames become Arrow with their strings as Polars holds them (string views): no copy
# of every string (a coarse 1M-token unit's cases: 345 MiB copied, its worker's peak 1,232 ->
# 1,113 MiB, by hand)
_VIEWS = pl.CompatLevel.newest()
_SENTENCE_COLUMNS = ["doc", "genre", "sent", *judgement.COUNTS, "SILOK_moy"]
_SENTENCE_ORDER = ["campaign", "task", "corpus", "system", "evaluation", "granularity",
                   *_SENTENCE_COLUMNS, "signature"]  # fct_pos_sentence's
_CASE_COLUMNS = ["case", "ref_unit", "sys_tok", "sys_tags", "projected", "acceptable", "span",
                 "noneval", "unknown_tags"]


def _coded(cases: pl.DataFrame) -> pa.Table:
    """A unit's cases as Arrow: the lists of tags and the few words of ``span`` and
    ``noneval`` as dictionaries (Arrow's Parquet writer takes no dictionary of string views;
    words as views: 16 bytes a case, 68 MiB of a 1M-token unit's cases), the other strings
    as views (no copy)."""
    cases = cases.with_columns(pl.col(c).cast(pl.Categorical) for c in ("span", "noneval")
                               if c in cases.columns)
    tags = [c for c, t in cases.schema.items() if t in (scorer.TAGS, pl.Categorical)]
    coded = cases.select(tags).to_arrow(compat_level=pl.CompatLevel.oldest())
    rest = cases.drop(tags).to_arrow(compat_level=_VIEWS)
    return pa.table({c: coded[c] if c in tags else rest[c] for c in cases.columns})


def _signatures(task: Task, options: dict) -> dict:
    """The signature of every variant a unit stores, as a DuckDB MAP parameter keyed
    ``evaluation/granularity`` (both granularities are always stored)."""
    variants = [(e, g) for e in options["evaluations"] for g in GRANULARITIES]
    return {"key": [f"{e}/{g}" for e, g in variants],
            "value": [signature(task, e, g) for e, g in variants]}
