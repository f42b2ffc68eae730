"""The ``parsing`` task family in the warehouse: EASY constituents and relations, and CoNLL-U
dependency evaluation (CoNLL 2018 shared task metrics).

A task is either an **EASY** task (corpora in ``format = "easy"`` (EASY XML) or ``"tsv"``) or a
**dependency** task (``format = "conllu"``). Per corpus: ``reference`` (the annotated part), an
optional ``full`` (the whole corpus given to participants: paper tables 2 and 3, and the base
text of the combined treebank), options ``genre`` and ``provider``. Per system:
``submissions = { corpus = path }``, option ``format`` (default: the corpus's). Task options
(EASY): ``modes`` (HYP, DEFHYP, REF), ``functions`` (EQUAL, FUZZY, INCLUDE, INTERSECTION,
BARYCENTER), ``majority`` (share of submissions a unit of the combined treebank needs, default
0.5), ``consensus`` (default true); (CoNLL-U): ``recover`` (default false: a submission whose text
differs from the reference's is rejected, as the official script stops; true: scored in recovery
mode, see scorers/ud.py), ``empty_nodes`` (``drop``, the default, or ``collapse``: how ELAS and
EULAS read the empty nodes of enhanced graphs, see scorers/ud_enhanced.py); both: ``intervals``
(default true).

The CoNLL-U side (staged words, the same-text check, a unit's CoNLL 2018 scoring) is in
``warehouse/families/parsing_ud.py``; the bootstrap intervals and paired tests of both kinds in
``warehouse/families/parsing_intervals.py``.
"""

from __future__ import annotations

from functools import cache, lru_cache

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from scorehouse.etl.easy import read_easy_xml
from scorehouse.etl.easy_tsv import read_easy_tsv
from scorehouse.etl.errors import holding
from scorehouse.etl.text import SIGNATURE as TEXT
from scorehouse.etl.ud import read_ud
from scorehouse.scorers import easy as easy_scorer
from scorehouse.scorers import ud as ud_scorer
from scorehouse.warehouse import resident
from scorehouse.warehouse.artifacts import pending, reduce
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
from scorehouse.warehouse.db import build, frame, insert_arrow, keyed, one, written
from scorehouse.warehouse.families import parsing_ud as ud
from scorehouse.warehouse.families.parsing_intervals import intervals
from scorehouse.warehouse.published import published_ids
from scorehouse.warehouse.runner import (
    INPUT_ROWS,
    Query,
    Target,
    Unit,
    run_units,
    stale,
    unit_input,
)
from scorehouse.warehouse.staging import Slot, StagedRows, StageJob, stage_files
from scorehouse.warehouse.store import StoredInput

SQL_FOLDER = "parsing"
CAMPAIGN_KEYS = {  # the keys campaign.toml may give a parsing task (campaign.check_keys)
    "task": ("modes", "functions", "majority", "recover", "empty_nodes", "consensus",
             "intervals"),
    "corpus": ("reference", "full", "format", "genre", "provider"),
    "system": ("submissions", "format"),
}
FORMATS = ("easy", "tsv", "conllu")
MODES = easy_scorer.MODES
FUNCTIONS = easy_scorer.FUNCTIONS
_EASY_TABLES = ("int_parsing_form_alignment", "int_parsing_range", "int_parsing_candidate",
                "fct_parsing_sentence", "fct_parsing_type", "fct_parsing_sentence_total")
ITEM_COLUMNS = ["sent_no", "sent", "line_no", "kind", "item", "type", "form_no", "form",
                 "parent", "role", "role_no", "target", "attr"]


@cache
def code_version() -> str:
    """Package version plus a hash of the family's scoring code and SQL: a change re-scores."""
    return catalog_code_version(SQL_FOLDER, __name__)


def signature(kind: str, mode: str | None = None, function: str | None = None,
              recover: bool = False, empty_nodes: str = "drop") -> str:
    """sacrebleu-style signature of a parsing variant."""
    if kind == "conllu":
        return (f"parsing|conll18|recover:{'yes' if recover else 'no'}|empty-nodes:{empty_nodes}"
                f"|{TEXT}|version:{code_version()}")
    return (f"parsing|easy|mode:{mode}|function:{function}|matching:one-to-one|{TEXT}"
            f"|version:{code_version()}")


def is_dependency(task: Task) -> bool:
    """A dependency (CoNLL-U) task, as opposed to an EASY one."""
    return task.corpora[0].options.get("format", "easy") == "conllu" if task.corpora else False


def task_options(task: Task) -> dict:
    o = task.options
    modes, functions = tuple(o.get("modes", MODES)), tuple(o.get("functions", FUNCTIONS))
    if not modes or set(modes) - set(MODES):
        raise CampaignError(f"task {task.id}: modes: expected some of {MODES}, found {list(modes)}")
    if not functions or set(functions) - set(FUNCTIONS):
        raise CampaignError(f"task {task.id}: functions: expected some of {FUNCTIONS}, "
                            f"found {list(functions)}")
    majority = o.get("majority", 0.5)
    if not isinstance(majority, (int, float)) or not 0 <= majority < 1:
        raise CampaignError(f"task {task.id}: majority: expected a share in [0, 1), "
                            f"found {majority!r}")
    empty_nodes = o.get("empty_nodes", "drop")
    if empty_nodes not in ud_scorer.EMPTY_NODES:
        raise CampaignError(f"task {task.id}: empty_nodes: expected one of "
                            f"{', '.join(ud_scorer.EMPTY_NODES)}, found {empty_nodes!r}")
    dependency = is_dependency(task)
    if "empty_nodes" in o and not dependency:
        raise CampaignError(f"task {task.id}: empty_nodes: enhanced graphs exist in CoNLL-U "
                            "tasks only (format = \"conllu\")")
    for corpus in task.corpora:
        fmt = corpus.options.get("format", "easy")
        if fmt not in FORMATS:
            raise CampaignError(f"task {task.id}: corpus {corpus.id}: format: expected one of "
                                f"{FORMATS}, found {fmt!r}")
        if (fmt == "conllu") != dependency:
            raise CampaignError(f"task {task.id}: corpus {corpus.id}: format: expected every "
                                "corpus of the task in CoNLL-U or every one in EASY (easy, tsv), "
                                f"found {fmt!r}")
        if "reference" not in corpus.files:
            raise CampaignError(f"task {task.id}: corpus {corpus.id}: expected a 'reference' file")
    for system in task.systems:
        fmt = system.options.get("format")
        if fmt is not None and (fmt not in FORMATS or (fmt == "conllu") != dependency):
            raise CampaignError(f"task {task.id}: system {system.id}: format: expected "
                                f"{'conllu' if dependency else 'easy or tsv'}, found {fmt!r}")
    return {"modes": modes, "functions": functions, "majority": float(majority),
            "recover": bool(o.get("recover", False)), "empty_nodes": empty_nodes,
            "dependency": dependency}


def _salt(fmt: str) -> str:
    """The staging salt of a format: CoNLL-U files staged before DEPS was read are re-read."""
    return f"parsing|{fmt}" + ("|deps" if fmt == "conllu" else "")


def _reader(fmt: str):
    return {"easy": read_easy_xml, "tsv": read_easy_tsv, "conllu": read_ud}[fmt]


def _stager(fmt: str):
    if fmt == "conllu":
        def stage(con, sha: str, rows: pa.Table) -> None:
            insert_arrow(con, "stg_parsing_ud_word", rows,
                         "$sha, " + ", ".join(f'"{c}"' for c in ud.UD_COLUMNS), {"sha": sha})
        return stage

    # an EASY file's items, in the order its units read them (:data:`_STAGED`): kept in a local
    # store, a big file's unit reads the staged file itself
    return StagedRows("stg_parsing_easy_item", _item_select, _ITEM_ORDER)


def _item_select(columns: tuple[str, ...]) -> str:
    """The staged items of a file's items table (:class:`warehouse.staging.StagedRows`)."""
    return f"SELECT $sha AS sha256, {_ITEM_SELECT} FROM arrow_rows"


# ---------------------------------------------------------------- load

def load(ctx: RunContext, task: Task) -> None:
    """Stage every changed reference, full corpus and submission (parsed in parallel worker
    processes when they are big). A CoNLL-U submission whose text differs from the reference's is
    rejected unless the task sets ``recover = true``."""
    options, references = task_options(task), []
    for corpus in task.corpora:
        fmt = corpus.options.get("format", "easy")
        references += [StageJob(Slot(task.id, corpus.id, "", role), corpus.files[role],
                                _reader(fmt), _stager(fmt), salt=_salt(fmt),
                                check=holding(corpus.files[role], "reference sentences"))
                       for role in ("reference", "full") if role in corpus.files]
    stage_files(ctx, references)
    submissions = []
    for corpus in task.corpora:
        for system in task.systems:
            if corpus.id not in system.files.get("submissions", {}):
                continue
            fmt = system.options.get("format", corpus.options.get("format", "easy"))
            path = system.files["submissions"][corpus.id]
            check, salt = None, _salt(fmt)
            if options["dependency"] and not options["recover"]:
                # accepted or rejected against this reference: a revised reference re-checks it
                reference = current_inputs(ctx.con, ctx.campaign.id, task.id).get(
                    (corpus.id, "", "reference"))
                check, salt = (ud.same_text_check(ctx, task, corpus.id, path),
                               f"{salt}|same-text-as:{reference}")
            submissions.append(StageJob(Slot(task.id, corpus.id, system.id, "submissions"), path,
                                        _reader(fmt), _stager(fmt), check, salt))
    stage_files(ctx, submissions)


# ---------------------------------------------------------------- score

def score(ctx: RunContext, task: Task, force: bool = False) -> None:
    """Recompute every (corpus, system) unit whose inputs or code changed; then each reduce whose
    units, seed or options changed since it last completed (:func:`warehouse.artifacts.reduce`):
    per corpus its description and combined treebank (EASY), and the task's intervals."""
    from scorehouse.warehouse.families.parsing_consensus import consensus as votes_of
    from scorehouse.warehouse.families.parsing_consensus import kept_ahead

    options = task_options(task)
    con, campaign = ctx.con, ctx.campaign.id
    inputs = current_inputs(con, campaign, task.id)
    states = scoring_state(con, campaign, task.id)
    declared = {(c.id, s.id) for c in task.corpora for s in task.systems}
    tables = ud.UD_TABLES if options["dependency"] else _EASY_TABLES
    drop_undeclared(ctx, task.id, declared, tables)
    units = []
    for corpus in task.corpora:
        for system in task.systems:
            unit = {"reference": inputs.get((corpus.id, "", "reference")),
                    "submissions": inputs.get((corpus.id, system.id, "submissions"))}
            if unit["reference"] is None or unit["submissions"] is None:
                continue
            chosen = {k: options[k] for k in ("recover", "empty_nodes")}
            state = fingerprint({"inputs": unit, "version": code_version(),
                                 "genre": ud.corpus_genre(corpus),
                                 "options": {"modes": options["modes"], **chosen}})
            units.append(Unit(corpus, system.id, unit, state, chosen))
    dependency = options["dependency"]

    @lru_cache(maxsize=1)  # units come corpus by corpus: one reference in memory
    def reference(sha: str) -> pl.DataFrame:
        return staged(con, sha, dependency)

    def prepare(u: Unit) -> tuple:
        if dependency:
            ref = reference(u.inputs["reference"])
            hyp = staged(con, u.inputs["submissions"], dependency)
            return True, ref, hyp, {k: options[k] for k in ("recover", "empty_nodes")}, \
                ud.corpus_genre(u.corpus)
        return (False, items(u.inputs["reference"], True), items(u.inputs["submissions"], False),
                options["modes"], ud.corpus_genre(u.corpus))

    def items(sha: str, shared: bool) -> pl.DataFrame | Query | StoredInput:
        """A unit's EASY items: a big file's as the store keeps them, read in place
        (warehouse/resident.py; not counted first: counting reads every staged file's footer),
        else as a query (with workers, DuckDB copies it to the store as it reads it, and the
        coordinator never holds it: warehouse/runner.py); a small one as a frame (sent with the
        task, small units together); a corpus's reference as the same frame for all its units.
        A submission is one unit's input, let go by its worker once the unit is computed."""
        in_place = resident.staged_input(con, ctx.store, "stg_parsing_easy_item", sha,
                                         tuple(ITEM_COLUMNS), kept=shared)
        if in_place is not None:
            return in_place
        if size(sha) >= QUERY_ROWS:  # a content's staged items change with the code alone
            # (found in the store when copied there before)
            return Query(_STAGED, (sha,), code_version(), kept=shared)
        return reference(sha) if shared else staged(con, sha, False)

    @lru_cache(maxsize=2)  # a corpus's reference (and the last submission): counted once
    def size(sha: str) -> int:
        return one(con, "SELECT count(*) FROM stg_parsing_easy_item WHERE sha256 = ?", [sha])[0]

    todo = stale(units, states, force)
    if dependency:
        target = Target(SQL_FOLDER, ud.UD_TABLES, "hist_parsing_ud_scores")
    else:
        target = Target(SQL_FOLDER, _EASY_TABLES, "hist_parsing_scores")
        _ranges_of(ctx, task, {u.corpus.id: u.inputs["reference"] for u in units}, reference,
                   force)
        reference.cache_clear()  # a big reference is read by the units themselves (queries)
    run_units(ctx, task.id, todo, prepare, compute_unit, target,
              (lambda u, rows: ud.notes(task.id, u, rows)) if dependency else None)
    voting = not options["dependency"] and task.options.get("consensus", True)
    # what a corpus's description and consensus read besides units
    read = {c.id: {role: inputs.get((c.id, "", role)) for role in ("reference", "full")}
            for c in task.corpora}
    published = published_ids(con, campaign, task.id)
    voters = {c.id: {**read[c.id], "published": published} for c in task.corpora}
    # the submissions of the consensus reduces that will run, aligned on the workers while
    # this process counts each corpus in turn
    ahead = kept_ahead(ctx, task, [c for c in task.corpora if pending(
        ctx, task, c.id, "consensus", code_version(), force, voters[c.id])]) if voting else {}
    try:
        for corpus in task.corpora:
            reduce(ctx, task, corpus.id, "corpus",
                   lambda c=corpus: _describe_corpus(ctx, task, c, options["dependency"]),
                   code_version(), force, read[corpus.id])
            if voting:
                reduce(ctx, task, corpus.id, "consensus",
                       lambda c=corpus: votes_of(ctx, task, c, options["majority"], force,
                                                 ahead.get(c.id)),
                       code_version(), force, voters[corpus.id])
    finally:
        for started in ahead.values():  # a consensus that did not need them all
            started.cancel()
    if task.options.get("intervals", True):  # each corpus's, then the whole task's
        for corpus in [*(c.id for c in task.corpora), None]:
            reduce(ctx, task, corpus, "intervals",
                   lambda c=corpus: intervals(ctx, task, options["dependency"], c),
                   code_version(), force)


def staged(con, sha: str, dependency: bool) -> pl.DataFrame:
    if dependency:
        return ud.staged_words(con, sha)
    return frame(con, _STAGED, [sha])


QUERY_ROWS = INPUT_ROWS  # EASY items from this many rows go to the units as queries
_ITEM_SELECT = ", ".join(f'"{c}"' for c in ITEM_COLUMNS)
_ITEM_ORDER = "sent_no, line_no, role_no"  # as a unit reads a file's items
_STAGED = (f"SELECT {_ITEM_SELECT} FROM stg_parsing_easy_item WHERE sha256 = ? "
           f"ORDER BY {_ITEM_ORDER}")


def _ranges_of(ctx: RunContext, task: Task, references: dict[str, str], reference,
               force: bool) -> None:
    """The reference ranges the units of each corpus are matched with (``references``: the
    reference of each corpus with units; ``reference(sha)``: its items), a reduce of the
    reference alone: derived again when it or the code changed; none for a corpus without
    units (as in a warehouse built from scratch)."""
    for corpus in task.corpora:
        sha = references.get(corpus.id)
        reduce(ctx, task, corpus.id, "ranges",
               lambda c=corpus.id, r=sha: _reference_ranges(ctx, task, c, r and reference(r)),
               code_version(), force, {"reference": sha}, of_units=False)


def _reference_ranges(ctx: RunContext, task: Task, corpus: str, ref: pl.DataFrame | None
                      ) -> None:
    key = {"campaign": ctx.campaign.id, "task": task.id, "corpus": corpus, "system": ""}
    ranges = None if ref is None else easy_scorer.reference_ranges(ref)
    table = resident.rows_table("int_parsing_range")  # the reference's rows: not a unit's
    replace_rows(ctx.con, key, (table,), lambda: ranges is None or insert_arrow(
        ctx.con, table, ranges.to_arrow(),
        "$campaign, $task, $corpus, $system, NULL, kind, sent, item, type, role_no, first, last, "
        "attr, empty", key))


def compute_unit(ids: dict, dependency: bool, reference: pl.DataFrame, hyp: pl.DataFrame, option,
                 genre) -> dict:
    """One unit (``ids``: campaign, task, corpus, system), a pure function: the CoNLL 2018 and
    IWPT evaluation (``dependency``; ``option``: ``recover`` and ``empty_nodes``) or the EASY
    scores (``option``: the modes) of ``hyp`` against ``reference``, as the rows of the tables
    the unit fills; ``genre`` is the corpus's default genre."""
    if dependency:
        return ud.compute_unit(ids, reference, hyp, option["recover"], genre,
                               option["empty_nodes"])
    with unit_input(ids, "forms"):
        result = easy_scorer.score(reference, hyp, modes=option)
    counts = result.counts.to_arrow()
    # the unit's complete rows, with no SQL (warehouse/db.py keyed): the resident tables
    # (warehouse/resident.py), which a local store keeps as the unit's files
    rows = {
        "int_parsing_form_alignment": keyed(
            ids, result.alignment.rename({"base_form_no": "ref_form_no"}).to_arrow(),
            ["sent", "hyp_form_no", "ref_form_no"]),
        "int_parsing_range": keyed(ids, result.ranges.to_arrow(), _RANGE_COLUMNS),
        "int_parsing_candidate": keyed(ids, result.candidates.to_arrow(), _CANDIDATE_COLUMNS),
        "fct_parsing_sentence": _with_signatures(keyed(ids, counts, _COUNT_COLUMNS,
                                                       genre=genre))}

    def write(con) -> None:
        build(con, SQL_FOLDER, "fct_parsing_type")  # the page's sums, per type
        build(con, SQL_FOLDER, "fct_parsing_sentence_total")  # the intervals' units
    return written(SQL_FOLDER, _EASY_TABLES, write, rows=rows)


_RANGE_COLUMNS = ["mode", "kind", "sent", "item", "type", "role_no", "first", "last", "attr",
                  "empty"]
_CANDIDATE_COLUMNS = ["mode", "kind", "sent", "type", "hyp_item", "ref_item",
                      *(f.lower() for f in FUNCTIONS), *(f"m_{f.lower()}" for f in FUNCTIONS)]
_COUNT_COLUMNS = ["sent", "kind", "type", "mode", "hyp", "ref",
                  *(f"matched_{f.lower()}" for f in FUNCTIONS)]


def _with_signatures(counts: pa.Table) -> pa.Table:
    """``counts`` with ``signature_<function>`` (:func:`signature` of the row's mode and the
    function), each column a dictionary of the modes' signatures: no string per row."""
    where = pc.index_in(counts["mode"], value_set=pa.array(MODES)).combine_chunks()
    for f in FUNCTIONS:
        counts = counts.append_column(f"signature_{f.lower()}", pa.DictionaryArray.from_arrays(
            where, pa.array([signature("easy", m, f) for m in MODES])))
    return counts


# ---------------------------------------------------------------- per corpus

def _describe_corpus(ctx: RunContext, task: Task, corpus, dependency: bool) -> None:
    """Paper tables 2 and 3: sentences and words of the full part and of the annotated part; no
    row for a corpus without an accepted reference (the page shows "–", not 0)."""
    full, annotated = corpus_sizes(ctx.con, ctx.campaign.id, task, corpus, dependency)
    key = [ctx.campaign.id, task.id, corpus.id]
    ctx.con.execute("DELETE FROM mart_parsing_corpus WHERE campaign = ? AND task = ? "
                    "AND corpus = ?", key)
    if annotated[0] is not None:
        ctx.con.execute("INSERT INTO mart_parsing_corpus VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [*key, ud.corpus_genre(corpus), str(corpus.options.get("provider", "")),
                         *full, *annotated])


def corpus_sizes(con, campaign: str, task: Task, corpus, dependency: bool) -> tuple:
    """(sentences, words) of a corpus's full part and of its annotated part (the reference),
    from the latest accepted files as loaded, scored or not; (None, None) without an accepted
    reference (the full part is the reference when no ``full`` file was accepted)."""
    inputs = current_inputs(con, campaign, task.id)
    table = "stg_parsing_ud_word" if dependency else "stg_parsing_easy_item"
    where = "" if dependency else " AND kind = 'form'"

    def size(sha):
        if sha is None:
            return (None, None)
        return one(con, f"SELECT count(DISTINCT sent_no), count(*) FROM {table} "
                        f"WHERE sha256 = ?{where}", [sha])
    annotated = size(inputs.get((corpus.id, "", "reference")))
    full = (size(inputs.get((corpus.id, "", "full"))) if (corpus.id, "", "full") in inputs
            else annotated)
    return full, annotated
