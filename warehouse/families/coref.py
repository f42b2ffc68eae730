"""The ``coref`` task family in the warehouse: mentions, contingency tables, every partition
measure per document, corpus scores, baselines and intervals (docs/metrics/coref.md).

Per corpus: ``key`` (CoNLL-2012, or JSON lines with ``format = "jsonl"``), optional
``categories`` (a TSV of mention categories, see docs/formats_coref.md), option ``genre`` (the
default genre of documents that name none). Per system: ``submissions = { corpus = path }``,
option ``format`` (default: the corpus's). Task options: ``conventions`` (``conll``: the CoNLL
reference scorer's, 0/0 = 0; ``paper``: the paper's, a zero denominator gives 1; default both),
``singletons`` (list of booleans: singletons counted or removed; default ``[true]``),
``baselines`` (all-singletons, all-merged and random-profile responses built from the key,
default true), ``draws`` (random-profile draws averaged, default 10), ``categories`` (mention
categories to score apart, each its own subset ``category:<c>``, default none), ``link_types``
(typed links of JSON lines files whose super-class partitions are scored as ``link:<type>``,
default none), ``pronoun_category`` (the category counted by pronoun/antecedent scoring, default
``pronoun``), ``intervals`` (default true). Every variant (convention x singletons x subset) is in
every table. A task whose corpora are CorefUD files (``format = "corefud"``, every corpus and
submission) is scored as the official CorefUD scorer scores them, with the options ``match``,
``zeros`` and ``singletons`` (``warehouse/families/coref_corefud.py``).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from scorehouse.etl.coref import read_conll2012, read_coref_jsonl, read_coref_links
from scorehouse.etl.coref_categories import read_mention_categories
from scorehouse.etl.text import SIGNATURE as TEXT
from scorehouse.reports.i18n import N_
from scorehouse.scorers import coref as scorer
from scorehouse.scorers.coref_aggregation import CONVENTIONS
from scorehouse.warehouse.artifacts import reduce
from scorehouse.warehouse.campaign import CampaignError, Task
from scorehouse.warehouse.catalog import (
    RunContext,
    current_inputs,
    declare_baselines,
    drop_undeclared,
    fingerprint,
    scoring_state,
)
from scorehouse.warehouse.catalog import code_version as catalog_code_version
from scorehouse.warehouse.db import frame, insert_arrow, written
from scorehouse.warehouse.families import coref_corefud as corefud
from scorehouse.warehouse.families.coref_intervals import intervals
from scorehouse.warehouse.runner import Target, Unit, run_units, stale
from scorehouse.warehouse.staging import Slot, StageJob, stage_files

SQL_FOLDER = "coref"
CAMPAIGN_KEYS = {  # the keys campaign.toml may give a coref task (campaign.check_keys)
    "task": ("conventions", "singletons", "baselines", "draws", "categories", "link_types",
             "pronoun_category", "intervals", "match", "zeros"),
    "corpus": ("key", "categories", "format", "genre"),
    "system": ("submissions", "format"),
}
FORMATS = ("conll2012", "jsonl", "corefud")
BASELINES = {"baseline-singletons": ("all_singletons", N_("Baseline: all singletons")),
             "baseline-merged": ("all_merged", N_("Baseline: all merged")),
             "baseline-random": ("random_profile", N_("Baseline: random, key profile"))}
# (the labels are stored in English and translated where a page shows them)
UNIT_TABLES = ("int_coref_mention", "int_coref_contingency", "fct_coref_document")
_MENTION_COLUMNS = ["doc", "genre", "start", "end", "cluster", "category", "text", "line_no"]


@cache
def code_version() -> str:
    """Package version plus a hash of the family's scoring code and SQL: a change re-scores."""
    return catalog_code_version(SQL_FOLDER, __name__)


def signature(convention: str, singletons: bool) -> str:
    """sacrebleu-style signature of a coreference variant."""
    return (f"coref|convention:{convention}|singletons:{'yes' if singletons else 'no'}"
            f"|mentions:exact-span|aggregation:micro|{TEXT}|version:{code_version()}")


def _options(task: Task) -> dict:
    o = task.options
    formats = {c.options.get("format", "conll2012") for c in task.corpora} | {
        s.options["format"] for s in task.systems if "format" in s.options}
    if "corefud" in formats:
        if formats != {"corefud"}:
            raise CampaignError(f"task {task.id}: format: expected every corpus and submission "
                                f"in CorefUD or none, found {sorted(formats)}")
        return corefud.options(task)
    for name in ("match", "zeros"):
        if name in o:
            raise CampaignError(f"task {task.id}: {name}: needs CorefUD corpora (format = "
                                "\"corefud\"); CoNLL-2012 and JSON lines match exact spans")
    conventions = tuple(o.get("conventions", CONVENTIONS))
    if not conventions or set(conventions) - set(CONVENTIONS):
        raise CampaignError(f"task {task.id}: conventions: expected some of {CONVENTIONS}, "
                            f"found {list(conventions)}")
    singletons = corefud.singleton_settings(task, [True])
    draws = o.get("draws", 10)
    if not isinstance(draws, int) or isinstance(draws, bool) or draws < 1:
        raise CampaignError(f"task {task.id}: draws: expected a positive integer, found {draws!r}")
    for key in ("categories", "link_types"):
        if (not isinstance(o.get(key, []), list)
                or not all(isinstance(v, str) for v in o.get(key, []))):
            raise CampaignError(f"task {task.id}: {key}: expected a list of names, "
                                f"found {o.get(key)!r}")
    for system in task.systems:
        if system.options.get("format", "conll2012") not in FORMATS:
            raise CampaignError(f"task {task.id}: system {system.id}: format: expected one of "
                                f"{FORMATS}, found {system.options.get('format')!r}")
    for corpus in task.corpora:
        if "key" not in corpus.files:
            raise CampaignError(f"task {task.id}: corpus {corpus.id}: expected a 'key' file")
        if corpus.options.get("format", "conll2012") not in FORMATS:
            raise CampaignError(f"task {task.id}: corpus {corpus.id}: format: "
                                f"expected one of {FORMATS}")
    return {"conventions": conventions, "singletons": singletons,
            "baselines": bool(o.get("baselines", True)),
            "draws": draws, "categories": tuple(o.get("categories", ())),
            "link_types": tuple(o.get("link_types", ())),
            "pronoun_category": str(o.get("pronoun_category", "pronoun"))}


def _reader(fmt: str):
    return read_coref_jsonl if fmt == "jsonl" else read_conll2012


def _stage(con, sha: str, table: pa.Table) -> None:
    """The mentions into ``stg_coref_mention``, the documents without any (null span) into
    ``stg_coref_empty_document``."""
    empty = pc.is_null(table["start"])
    insert_arrow(con, "stg_coref_mention", table.filter(pc.invert(empty)),
                 "$sha, " + ", ".join(f'"{c}"' for c in _MENTION_COLUMNS), {"sha": sha})
    insert_arrow(con, "stg_coref_empty_document", table.filter(empty), "$sha, doc, genre, line_no",
                 {"sha": sha})


def _stage_links(con, sha: str, table: pa.Table) -> None:
    insert_arrow(con, "stg_coref_link", table, "$sha, doc, from_cluster, to_cluster, type",
                 {"sha": sha})


def _stage_categories(con, sha: str, table: pa.Table) -> None:
    insert_arrow(con, "stg_coref_category", table, '$sha, doc, start, "end", category',
                 {"sha": sha})


def _jobs(slot: Slot, path: Path, fmt: str) -> list[StageJob]:
    """A mentions file, and its typed links when it is JSON lines (role ``<role>-links``)."""
    jobs = [StageJob(slot, path, _reader(fmt), _stage, salt=f"coref|{fmt}|empty-documents")]
    if fmt == "jsonl":
        links = Slot(slot.task, slot.corpus, slot.system, f"{slot.role}-links")
        jobs.append(StageJob(links, path, read_coref_links, _stage_links, salt="coref|links"))
    return jobs


# ---------------------------------------------------------------- load

def load(ctx: RunContext, task: Task) -> None:
    """Stage every changed key and submission."""
    if _options(task).get("corefud"):
        corefud.load(ctx, task)
        return
    jobs = []
    for corpus in task.corpora:
        fmt = corpus.options.get("format", "conll2012")
        jobs += _jobs(Slot(task.id, corpus.id, "", "key"), corpus.files["key"], fmt)
        if "categories" in corpus.files:
            jobs.append(StageJob(Slot(task.id, corpus.id, "", "categories"),
                                 corpus.files["categories"], read_mention_categories,
                                 _stage_categories, salt="coref|categories"))
        for system in task.systems:
            if corpus.id in system.files.get("submissions", {}):
                jobs += _jobs(Slot(task.id, corpus.id, system.id, "submissions"),
                              system.files["submissions"][corpus.id],
                              system.options.get("format", fmt))
    stage_files(ctx, jobs)


def declare(ctx: RunContext, task: Task) -> None:
    """Declare the built-in baselines in the catalog (every run, whatever its steps)."""
    if _options(task)["baselines"]:
        declare_baselines(ctx, task, {sid: label for sid, (_, label) in BASELINES.items()},
                          "the key")


# ---------------------------------------------------------------- score

def _mentions(con, sha: str, genre: bool = True) -> pl.DataFrame:
    """The staged mentions the scorers use (not ``line_no``; ``genre`` for the key only)."""
    columns = [c for c in _MENTION_COLUMNS if c != "line_no" and (genre or c != "genre")]
    empty = ", ".join(f'"{c}"' if c in ("doc", "genre") else f'NULL AS "{c}"' for c in columns)
    return frame(con, "SELECT " + ", ".join(f'"{c}"' for c in columns)
                      + " FROM stg_coref_mention WHERE sha256 = ? "
                        f"UNION ALL SELECT {empty} FROM stg_coref_empty_document WHERE sha256 = ?",
                 [sha, sha])


def score(ctx: RunContext, task: Task, force: bool = False) -> None:
    """Recompute every (corpus, system) unit whose inputs, options or code changed (the built-in
    baselines are units whose input is the key), then the intervals of every corpus whose units,
    seed or options changed since they were last computed (:func:`warehouse.artifacts.reduce`)."""
    options = _options(task)
    if options.get("corefud"):
        drop_undeclared(ctx, task.id, {(c.id, s.id) for c in task.corpora for s in task.systems},
                        UNIT_TABLES)
        run_units(ctx, task.id, stale(corefud.units(ctx, task, options, code_version()),
                                      scoring_state(ctx.con, ctx.campaign.id, task.id), force),
                  lambda u: corefud.prepare(ctx, options, u), corefud.compute_unit,
                  Target(SQL_FOLDER, UNIT_TABLES, "hist_coref_scores"))
        _intervals(ctx, task, force)
        return
    con, campaign = ctx.con, ctx.campaign.id
    inputs = current_inputs(con, campaign, task.id)
    states = scoring_state(con, campaign, task.id)
    systems = [s.id for s in task.systems] + (list(BASELINES) if options["baselines"] else [])
    declared = {(c.id, s) for c in task.corpora for s in systems}
    drop_undeclared(ctx, task.id, declared, UNIT_TABLES)
    units = []
    for corpus in task.corpora:
        for system in systems:
            key_sha = inputs.get((corpus.id, "", "key"))
            sub = key_sha if system in BASELINES else inputs.get((corpus.id, system, "submissions"))
            if key_sha is None or sub is None:
                continue
            unit = {"key": key_sha, "submissions": sub,
                    "categories": inputs.get((corpus.id, "", "categories")),
                    "key_links": inputs.get((corpus.id, "", "key-links")),
                    "links": None if system in BASELINES
                             else inputs.get((corpus.id, system, "submissions-links"))}
            # the seed draws the random baseline's responses; no other unit depends on it
            seed = ctx.campaign.seed if BASELINES.get(system, ("",))[0] == "random_profile" \
                else None
            state = fingerprint({"inputs": unit, "version": code_version(), "seed": seed,
                                 "options": {k: options[k] for k in (
                                     "conventions", "singletons", "draws", "categories",
                                     "link_types", "pronoun_category")},
                                 "genre": corpus.options.get("genre", "")})
            units.append(Unit(corpus, system, unit, state))
    run_units(ctx, task.id, stale(units, states, force), lambda u: _prepare(ctx, task, options, u),
              compute_unit, Target(SQL_FOLDER, UNIT_TABLES, "hist_coref_scores"))
    _intervals(ctx, task, force)


def _intervals(ctx: RunContext, task: Task, force: bool) -> None:
    if task.options.get("intervals", True):
        for corpus in task.corpora:
            reduce(ctx, task, corpus.id, "intervals", lambda c=corpus.id: intervals(ctx, task, c),
                   code_version(), force)


def _with_genre(mentions: pl.DataFrame, corpus) -> pl.DataFrame:
    default = str(corpus.options.get("genre", ""))
    return mentions.with_columns(pl.when(pl.col("genre") != "").then(pl.col("genre"))
                                 .otherwise(pl.lit(default)).alias("genre"))


def unit_statistics(key: pl.DataFrame, response: pl.DataFrame | None, options: dict,
                    system: str, seed: int,
                    key_links: pl.DataFrame | None = None, links: pl.DataFrame | None = None
                    ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """(matched mentions, contingency table, statistics of every variant) of one unit; a baseline
    ``system`` builds its response from the key (the random profile averaged over draws). The
    subsets: all mentions, each of ``options["categories"]`` (scorers.coref.restrict), and the
    super-class partitions of each of ``options["link_types"]``."""
    kind = BASELINES.get(system, (None,))[0]
    draws = [scorer.baseline(key, kind, seed, d)
             for d in range(options["draws"] if kind == "random_profile" else 1)] \
        if kind else [response]
    subsets = [("all", lambda r: (key, r))]
    subsets += [(f"category:{c}", lambda r, c=c: scorer.restrict(key, r, c))
                for c in options["categories"]]
    for t in options["link_types"]:
        def superclasses(r, t=t):
            return (scorer.superclass_partition(key, _links(key_links), t),
                    r if kind else scorer.superclass_partition(r, _links(links), t))
        subsets.append((f"link:{t}", superclasses))
    stats, contingency = [], None
    for subset, pair in subsets:
        # a draw's contingency table and pronoun counts are those of every convention and
        # singletons setting: made once (the demo's speech and coreference tasks at scale 0.2
        # scored again, --force: the score step 3.0-3.2 -> 2.4-2.6 s)
        tables = [scorer.contingency(*pair(r)) for r in draws]
        pronouns = ([scorer.pronoun_antecedent(key, r, options["pronoun_category"])
                     for r in draws] if subset == "all" else [None] * len(draws))
        contingency = tables[0] if subset == "all" else contingency
        for convention in options["conventions"]:
            for singletons in options["singletons"]:
                per_draw = []
                for table, pronoun in zip(tables, pronouns):
                    s = scorer.statistics(table, convention=convention, singletons=singletons)
                    if pronoun is not None:
                        s = pl.concat([s, pronoun], how="diagonal_relaxed")
                    per_draw.append(s)
                s = per_draw[0] if len(per_draw) == 1 else _mean_statistics(per_draw)
                stats.append(s.with_columns(pl.lit(convention).alias("convention"),
                                            pl.lit(singletons).alias("singletons"),
                                            pl.lit(subset).alias("subset")))
    return (scorer.matched_mentions(key, draws[0]), contingency,
            pl.concat(stats, how="diagonal_relaxed"))


def _links(links: pl.DataFrame | None) -> pl.DataFrame:
    return links if links is not None else pl.DataFrame(schema={
        "doc": pl.String, "from_cluster": pl.String, "to_cluster": pl.String, "type": pl.String})


def _mean_statistics(per_draw: list[pl.DataFrame]) -> pl.DataFrame:
    """The random-profile baseline: numerators, denominators and values averaged over draws."""
    numeric = ["recall_num", "recall_den", "precision_num", "precision_den", "value", "mentions"]
    return (pl.concat(per_draw, how="diagonal_relaxed")
            .group_by("doc", "metric", maintain_order=True)
            .agg(*(pl.col(c).mean() for c in numeric), pl.col("direction").mode().first()))


def _prepare(ctx, task, options, unit: Unit) -> tuple:
    """A unit's inputs, read in the coordinator: the key (genres, side categories), the response
    (None for a baseline) and both link tables. Names the response documents the key lacks."""
    con, system = ctx.con, unit.system
    key = _with_genre(_mentions(con, unit.inputs["key"]), unit.corpus)
    if unit.inputs["categories"] is not None:
        side = frame(con, 'SELECT doc, start, "end", category AS side FROM stg_coref_category '
                          'WHERE sha256 = ?', [unit.inputs["categories"]])
        key = (key.join(side, on=["doc", "start", "end"], how="left", maintain_order="left")
               .with_columns(pl.coalesce("side", "category").alias("category")).drop("side"))
    response = (None if system in BASELINES
                else _mentions(con, unit.inputs["submissions"], genre=False))

    def links(sha):
        return None if sha is None else frame(con, "SELECT doc, from_cluster, to_cluster, type "
                                                   "FROM stg_coref_link WHERE sha256 = ?", [sha])
    stray = [] if response is None else scorer.stray_documents(key, response)
    if stray:
        shown = ", ".join(stray[:5]) + (", ..." if len(stray) > 5 else "")
        ctx.notes.append(f"{task.id}/{unit.corpus.id}/{system}: {len(stray)} response document(s) "
                         "absent from the key, ignored as the CoNLL reference scorer ignores "
                         f"them: {shown}")
    return (key, response, options, system, ctx.campaign.seed, links(unit.inputs["key_links"]),
            links(unit.inputs["links"]))


def compute_unit(ids, key, response, options, system, seed, key_links, links) -> dict:
    """One unit (``ids``: campaign, task, corpus, system), a pure function: matched mentions,
    contingency table and the per-document statistics of every variant (:func:`unit_statistics`),
    with the variant's signature, as the rows of the tables it fills; the scores are the view
    ``mart_coref_scores`` over them."""
    matched, table, stats = unit_statistics(key, response, options, system, seed, key_links, links)
    genres = key.select("doc", "genre").unique("doc")
    signatures = pl.DataFrame(
        [(c, s, signature(c, s)) for c in options["conventions"] for s in options["singletons"]],
        schema={"convention": pl.String, "singletons": pl.Boolean, "signature": pl.String},
        orient="row")
    stats = (stats.join(genres, on="doc", how="left", maintain_order="left")
             .with_columns(pl.col("genre").fill_null(""))
             .join(signatures, on=["convention", "singletons"], how="left", maintain_order="left"))

    def write(con) -> None:
        insert_arrow(con, "int_coref_mention", matched.to_arrow(),
                     '$campaign, $task, $corpus, $system, doc, start, "end", status, key_cluster, '
                     "response_cluster, category, text", ids)
        insert_arrow(con, "int_coref_contingency", table.to_arrow(),
                     "$campaign, $task, $corpus, $system, doc, key_class, response_class, n", ids)
        insert_arrow(con, "fct_coref_document", stats.to_arrow(),
                     "$campaign, $task, $corpus, $system, convention, singletons, subset, genre, "
                     "doc, metric, recall_num, recall_den, precision_num, precision_den, value, "
                     "direction, mentions, signature", ids)
    return written(SQL_FOLDER, UNIT_TABLES, write)
