"""The ``wer`` task family in the warehouse: load trn files, score units, compute intervals.

Inputs per corpus: ``reference`` (NIST trn) and optional ``metadata`` (TSV: utt_id, speaker,
category, interpretation, interpretation_comments, any other column). Per system and corpus:
``hypotheses`` (trn) and optional ``interpretations`` (TSV: utt_id, interpretation).
Task options: ``methods`` (default m1-m4), ``case``, ``[tasks.markers]``, ``costs``
(``sclite`` or ``levenshtein``), ``intervals`` (default true: bootstrap intervals and paired
tests). System option: ``comment_detection``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache, lru_cache, partial

import numpy as np
import polars as pl
import pyarrow as pa

from scorehouse.etl import transcripts
from scorehouse.etl.errors import holding
from scorehouse.etl.stm import read_ctm, read_stm
from scorehouse.etl.text import SIGNATURE as TEXT
from scorehouse.etl.tsv import read_tsv
from scorehouse.scorers.alignment import Costs
from scorehouse.scorers.edit import COSTS, NULL
from scorehouse.scorers.wer import (
    CASES,
    METHODS,
    SEPARATORS,
    UNITS,
    Markers,
    align_tokens,
    normalise,
    signature,
    units,
)
from scorehouse.warehouse.artifacts import reduce
from scorehouse.warehouse.campaign import CampaignError, Task
from scorehouse.warehouse.catalog import (
    RunContext,
    current_inputs,
    drop_undeclared,
    fingerprint,
    scoring_state,
)
from scorehouse.warehouse.catalog import code_version as catalog_code_version
from scorehouse.warehouse.db import (
    build,
    constant,
    frame,
    insert_arrow,
    insert_rows,
    keyed,
    written,
)
from scorehouse.warehouse.families.wer_checks import check_ids, say_missing
from scorehouse.warehouse.families.wer_intervals import intervals
from scorehouse.warehouse.runner import Target, Unit, run_units, stale
from scorehouse.warehouse.staging import Slot, StageJob, stage_files

# the one-shot's own queries read its unit table by table (wer_oneshot.py): its staged rows may
# spill beyond a small DuckDB buffer (warehouse/buffer.py one_shot_limit)
ONE_SHOT_SPILLS = True
SQL_FOLDER = "wer"
CAMPAIGN_KEYS = {  # the keys campaign.toml may give a wer task (campaign.check_keys)
    "task": ("methods", "case", "markers", "costs", "intervals", "format", "id_field",
             "text_field", "unit", "separators", "headline_method"),
    "corpus": ("reference", "metadata"),
    "system": ("hypotheses", "interpretations", "comment_detection"),
}
_UNIT_TABLES = ("int_wer_aligned_utterance", "fct_wer_utterance", "fct_ier_utterance")


@cache
def code_version() -> str:
    """Package version plus a hash of the family's scoring code and SQL: a change re-scores."""
    return catalog_code_version(SQL_FOLDER, __name__)


def official_method(options: dict, methods: list[str], headline: str) -> str:
    """A WER system's official method: M4 for a run with comment detection (option
    ``comment_detection``), else the task's headline method (M3): Méthode 3 "dans les évaluations
    où la détection des commentaires n'est pas réalisée et la Méthode 4 dans le cas contraire"
    (the thesis on the deployed dialogue service, section 4.4)."""
    return "m4" if options.get("comment_detection") and "m4" in methods else headline


def wer_methods(options: dict) -> tuple[list[str], str]:
    """A WER task's normalisation methods and its headline method (``headline_method``, else M3,
    else its last method)."""
    methods = list(options.get("methods", ["m1", "m2", "m3", "m4"]))
    default = "m3" if "m3" in methods or not methods else methods[-1]
    return methods, options.get("headline_method", default)


@dataclass(frozen=True)
class Options:
    """A task's scoring options, checked. ``tokens`` (not a campaign.toml key): whether
    ``int_wer_aligned_utterance`` keeps the aligned tokens; a one-shot that writes no sclite
    report reads only the ops and the counts, so its throw-away warehouse does without them
    (empty lists: the figures are the same)."""

    methods: tuple[str, ...]
    case: str
    markers: Markers
    costs: Costs
    unit: str = "word"
    separators: str = "sclite"
    tokens: bool = True

    @classmethod
    def of(cls, task: Task) -> "Options":
        o = task.options
        methods = tuple(wer_methods(o)[0])
        bad = [m for m in methods if m not in METHODS]
        if bad or not methods:
            raise CampaignError(f"task {task.id}: methods: expected some of {METHODS}, "
                                f"found {list(methods)}")
        if wer_methods(o)[1] not in methods:
            raise CampaignError(f"task {task.id}: headline_method: expected one of the task's "
                                f"methods {list(methods)}, found {o['headline_method']!r}")
        case = o.get("case", "sensitive")
        if case not in CASES:
            raise CampaignError(f"task {task.id}: case: expected one of {CASES}, found {case!r}")
        costs = o.get("costs", "sclite")
        if costs not in COSTS:
            raise CampaignError(f"task {task.id}: costs: expected one of {sorted(COSTS)}, "
                                f"found {costs!r}")
        try:
            markers = Markers.from_mapping(o.get("markers"))
        except ValueError as err:
            raise CampaignError(f"task {task.id}: markers: {err}") from None
        unit = o.get("unit", "word")
        if unit not in UNITS:
            raise CampaignError(f"task {task.id}: unit: expected one of {UNITS}, found {unit!r}")
        separators = o.get("separators", "sclite")
        if separators not in SEPARATORS:
            raise CampaignError(f"task {task.id}: separators: expected one of "
                                f"{sorted(SEPARATORS)}, found {separators!r}")
        fmt = o.get("format", "auto")
        if fmt not in ("auto", *transcripts.FORMATS):
            raise CampaignError(f"task {task.id}: format: expected one of "
                                f"{['auto', *transcripts.FORMATS]}, found {fmt!r}")
        for field in ("id_field", "text_field"):
            if not isinstance(o.get(field, "x"), str) or not o.get(field, "x"):
                raise CampaignError(f"task {task.id}: {field}: expected a field name, "
                                    f"found {o.get(field)!r}")
        for corpus in task.corpora:
            if "reference" not in corpus.files:
                raise CampaignError(f"task {task.id}: corpus {corpus.id}: "
                                    "expected a 'reference' file")
        return cls(methods, case, markers, COSTS[costs], unit, separators,
                   bool(o.get("alignment_tokens", True)))

    def signature(self, method: str) -> str:
        return signature(method, self.case, self.markers, self.costs, code_version(), self.unit,
                         self.separators)

    def ier_signature(self) -> str:
        """sacrebleu-style signature of the interpretation error rates."""
        return (f"ier|reject:{self.markers.reject_label}|comment:{self.markers.comment_label}"
                f"|{TEXT}|version:{code_version()}")


def check_options(task: Task) -> None:
    """The task's option values, checked before the run loads anything (a CampaignError)."""
    Options.of(task)


# ---------------------------------------------------------------- load

def load(ctx: RunContext, task: Task) -> None:
    """Stage every changed input file of the task (references first, so hypotheses are checked
    against the reference they will be scored on)."""
    options = Options.of(task)
    con = ctx.con
    segments_of = {}  # corpus -> its STM reference's sha and segments, read once

    def job(slot: Slot, path, **check) -> StageJob:  # a transcript, in its format
        fmt = transcripts.format_of(path, task.options.get("format", "auto"))
        if fmt == "stm":
            return StageJob(slot, path, read_stm, _stage_stm, salt="stm", **check)
        if fmt == "ctm":  # its words go to the reference's segments: staged per reference
            if slot.corpus not in segments_of:
                segments_of[slot.corpus] = _reference_segments(ctx, task.id, slot.corpus)
            sha, segments = segments_of[slot.corpus]
            return StageJob(slot, path, partial(read_ctm, segments=segments), _stage_trn,
                            salt=f"ctm:{sha}", **check)
        fields = (task.options.get("id_field", "id"), task.options.get("text_field", "text"))
        return StageJob(slot, path, transcripts.reader(fmt, *fields), _stage_trn,
                        salt=transcripts.salt(fmt, *fields), **check)
    con.execute("DELETE FROM stg_wer_markers WHERE campaign = ? AND task = ?",
                [ctx.campaign.id, task.id])
    insert_rows(con, "INSERT INTO stg_wer_markers VALUES (?, ?, ?, ?)",
                    [[ctx.campaign.id, task.id, r["meaning"], r["token"]]
                     for r in options.markers.rows()])
    for corpus in task.corpora:  # the reference side first: the hypotheses are checked on it
        metadata = [StageJob(Slot(task.id, corpus.id, "", "metadata"), corpus.files["metadata"],
                             read_tsv, _stage_metadata)] if "metadata" in corpus.files else []
        reference = corpus.files["reference"]
        stage_files(ctx, [job(Slot(task.id, corpus.id, "", "reference"), reference,
                              check=holding(reference, "reference utterances")), *metadata])
        ref_ids = _reference_ids(ctx, task.id, corpus.id)
        jobs = []
        for system in task.systems:
            if corpus.id in system.files.get("hypotheses", {}):
                path = system.files["hypotheses"][corpus.id]
                jobs.append(job(Slot(task.id, corpus.id, system.id, "hypotheses"), path,
                                check=lambda t, p=path: check_ids(t, ref_ids, p)))
            if corpus.id in system.files.get("interpretations", {}):
                jobs.append(StageJob(Slot(task.id, corpus.id, system.id, "interpretations"),
                                     system.files["interpretations"][corpus.id],
                                     partial(read_tsv, required=("interpretation",)),
                                     _stage_interpretations))
        loaded = stage_files(ctx, jobs)  # parsed together, on the run's workers
        say_missing(ctx, task.id, corpus.id, [j.slot.system for j, new in zip(jobs, loaded)
                                              if new and j.slot.role == "hypotheses"])


def _reference_ids(ctx: RunContext, task: str, corpus: str) -> pl.Series | None:
    sha = current_inputs(ctx.con, ctx.campaign.id, task).get((corpus, "", "reference"))
    if sha is None:
        return None
    return frame(ctx.con, "SELECT utt_id FROM stg_wer_trn WHERE sha256 = ?", [sha])["utt_id"]


def _stage_trn(con, sha: str, table: pa.Table) -> None:
    insert_arrow(con, "stg_wer_trn", table, "$sha, line_no, utt_id, text", {"sha": sha})


def _stage_stm(con, sha: str, table: pa.Table) -> None:
    """An STM reference: its scored segments as utterances, every segment (for the CTM's
    words), and each scored segment's speaker, file, channel and labels as metadata."""
    segments = pl.from_arrow(table)
    scored = segments.filter(pl.col("utt_id").is_not_null())
    _stage_trn(con, sha, scored.select("line_no", "utt_id", "text").to_arrow())
    insert_arrow(con, "stg_wer_segment", segments.drop("text").to_arrow(),
                 '$sha, seq, line_no, utt_id, file, channel, speaker, "begin", "end", labels, '
                 "ignore", {"sha": sha})
    labels = (scored.select("utt_id", pl.col("labels").str.split(",").alias("value"))
              .explode("value").filter(pl.col("value") != "")
              .select("utt_id", pl.lit("label").alias("field"), "value"))  # one row per subset
    _insert_metadata(con, sha, pl.concat([_long(scored.select("utt_id", "speaker", "file",
                                                              "channel")), labels]))


def _reference_segments(ctx: RunContext, task: str, corpus: str) -> tuple[str, pa.Table | None]:
    """The current STM reference of a corpus and its segments (None when it is not STM)."""
    sha = current_inputs(ctx.con, ctx.campaign.id, task).get((corpus, "", "reference"))
    if sha is None:
        return "", None
    segments = frame(ctx.con, 'SELECT seq, line_no, utt_id, file, channel, speaker, "begin", '
                              '"end", labels, ignore, \'\' AS text FROM stg_wer_segment '
                              "WHERE sha256 = ? ORDER BY seq", [sha])
    return sha, segments.to_arrow() if segments.height else None


def _stage_metadata(con, sha: str, table: pa.Table) -> None:
    _insert_metadata(con, sha, _long(pl.from_arrow(table)))


def _long(wide: pl.DataFrame) -> pl.DataFrame:
    """Metadata columns as ``(utt_id, field, value)`` rows: any column is a breakdown."""
    return wide.unpivot(index="utt_id", variable_name="field", value_name="value")


def _insert_metadata(con, sha: str, long: pl.DataFrame) -> None:
    insert_arrow(con, "stg_wer_metadata", long.to_arrow(), "$sha, utt_id, field, value",
                 {"sha": sha})


def _stage_interpretations(con, sha: str, table: pa.Table) -> None:
    insert_arrow(con, "stg_wer_interpretation", table, "$sha, utt_id, interpretation", {"sha": sha})


# ---------------------------------------------------------------- score

def score(ctx: RunContext, task: Task, force: bool = False) -> None:
    """Recompute every (corpus, system) unit whose inputs, options or code changed (through
    :mod:`warehouse.runner`: :func:`compute_unit` may run in worker processes), then each
    corpus's bootstrap intervals and paired tests when what they depend on changed."""
    options = Options.of(task)
    con, campaign = ctx.con, ctx.campaign.id
    inputs = current_inputs(con, campaign, task.id)
    drop_undeclared(ctx, task.id, {(c.id, s.id) for c in task.corpora for s in task.systems},
                    _UNIT_TABLES)
    units = []
    for corpus in task.corpora:
        for system in task.systems:
            unit = {role: inputs.get((corpus.id, side, role)) for side, role in (
                ("", "reference"), ("", "metadata"), (system.id, "hypotheses"),
                (system.id, "interpretations"))}
            if unit["reference"] is None or unit["hypotheses"] is None:
                continue
            comments = bool(system.options.get("comment_detection", False))
            if comments and unit["metadata"] and unit["interpretations"] and not con.execute(
                    "SELECT 1 FROM stg_wer_metadata WHERE sha256 = ? AND field = "
                    "'interpretation_comments' LIMIT 1", [unit["metadata"]]).fetchone():
                raise CampaignError(
                    f"task {task.id}: system {system.id} has comment_detection, but corpus "
                    f"{corpus.id}'s metadata has no interpretation_comments column (the "
                    "reference interpretation with comments replaced, thesis 4.5)")
            state = fingerprint({"inputs": unit,
                                 "options": [options.signature(m) for m in options.methods],
                                 "comment_detection": comments})
            units.append(Unit(corpus, system.id, unit, state, {"comment_detection": comments}))
    # units come corpus by corpus: one normalised reference in memory at a time
    reference = lru_cache(maxsize=1)(lambda sha: _normalised_reference(con, sha, options))

    def prepare(u: Unit) -> tuple:
        hyp = frame(con, "SELECT line_no, utt_id, text FROM stg_wer_trn WHERE sha256 = ?",
                    [u.inputs["hypotheses"]])
        path = paths[(u.corpus.id, u.system)]
        ier = None
        if u.inputs["metadata"] and u.inputs["interpretations"]:
            ier = {"stg_wer_metadata": metadata(u.inputs["metadata"]),
                   "stg_wer_interpretation": frame(
                       con, "SELECT * FROM stg_wer_interpretation WHERE sha256 = ?",
                       [u.inputs["interpretations"]]).to_arrow(),
                   "comment_detection": u.extra["comment_detection"]}
        normalised = reference(u.inputs["reference"])
        users[u.inputs["reference"]] -= 1
        if not users[u.inputs["reference"]]:  # the corpus's last unit: not kept any longer
            reference.cache_clear()
        return normalised, hyp, options, path, ier

    todo = stale(units, scoring_state(con, campaign, task.id), force)
    users = Counter(u.inputs["reference"] for u in todo)  # units still to prepare, per reference
    paths = {(c, s): p for c, s, p in con.execute(
        "SELECT corpus, system, path FROM cat_input_current WHERE campaign = ? AND task = ? "
        "AND role = 'hypotheses'", [campaign, task.id]).fetchall()}
    metadata = lru_cache(maxsize=1)(lambda sha: frame(
        con, "SELECT * FROM stg_wer_metadata WHERE sha256 = ?", [sha]).to_arrow())
    run_units(ctx, task.id, todo, prepare, compute_unit,
              Target(SQL_FOLDER, _UNIT_TABLES, "hist_wer_scores"))
    if task.options.get("intervals", True):
        for corpus in task.corpora:
            reduce(ctx, task, corpus.id, "intervals",
                   lambda c=corpus.id: intervals(ctx, task, c),
                   code_version(), force)


def _normalised_reference(con, sha: str, options: Options) -> dict:
    ref = frame(con, "SELECT utt_id, text FROM stg_wer_trn WHERE sha256 = ? ORDER BY line_no",
                [sha])
    return {"utt_id": ref["utt_id"],
            **{m: units(normalise(ref, m, options.markers, options.case,
                                         options.separators)["tokens"], options.unit)
               for m in options.methods}}


def compute_unit(ids: dict, reference: dict, hyp: pl.DataFrame, options: Options, path: str,
                 ier: dict | None) -> dict[str, pa.Table]:
    """One unit (``ids``: campaign, task, corpus, system), a pure function: the hypotheses
    ``hyp`` (line_no, utt_id, text) aligned with the normalised ``reference`` under every
    method, and the counts built from them by
    ``fct_wer_utterance`` (and ``fct_ier_utterance`` when the unit has interpretations: ``ier``
    holds the staged metadata and interpretation rows): the unit's rows of every table it fills.
    An utterance id the reference lacks is an :class:`InputError` naming ``path``."""
    ref_ids = pl.DataFrame({"utt_id": reference["utt_id"]})
    extra = hyp.join(ref_ids, on="utt_id", how="anti").sort("line_no")
    if extra.height:
        check_ids(extra.to_arrow(), pl.Series("utt_id", [], pl.String), path)
    matched = ref_ids.join(hyp, on="utt_id", how="left", maintain_order="left")
    missing = matched["line_no"].is_null()
    hyp_texts = matched.select("utt_id", "text")
    aligned = []
    for method in options.methods:
        hyp_tokens = units(normalise(hyp_texts, method, options.markers, options.case,
                                         options.separators)["tokens"],
                           options.unit)
        pairs = align_tokens(reference[method], hyp_tokens, options.costs, options.tokens,
                             NULL)
        n = len(reference["utt_id"])
        none = pa.ListArray.from_arrays(pa.array(np.zeros(n + 1, dtype=np.int32)),
                                        pa.array([], pa.string()))  # tokens not kept
        aligned.append(pa.table({
            "method": constant(method, n), "utt_id": reference["utt_id"].to_arrow(),
            "missing": missing.to_arrow(),
            "ref_tokens": pairs["ref_tokens"] if options.tokens else none,
            "hyp_tokens": pairs["hyp_tokens"] if options.tokens else none, "ops": pairs["ops"],
            "signature": constant(options.signature(method), n),
        }))

    rows = {"int_wer_aligned_utterance": keyed(ids, pa.concat_tables(aligned), [
        "method", "utt_id", "missing", "ref_tokens", "hyp_tokens", "ops", "signature"])}

    def write(con) -> None:  # the alignments (and the IER inputs) are registered: no copy
        build(con, SQL_FOLDER, "fct_wer_utterance", **ids)
        if ier is not None:
            build(con, SQL_FOLDER, "fct_ier_utterance", **ids,
                  metadata_sha=_sha(ier["stg_wer_metadata"]),
                  interpretation_sha=_sha(ier["stg_wer_interpretation"]),
                  reject=options.markers.reject_label, comment=options.markers.comment_label,
                  comment_detection=ier["comment_detection"],
                  signature=options.ier_signature())
    context = None if ier is None else {t: ier[t] for t in ("stg_wer_metadata",
                                                             "stg_wer_interpretation")}
    return written(SQL_FOLDER, _UNIT_TABLES, write, context, rows)


def _sha(staged: pa.Table) -> str:
    """The content hash of staged rows (their ``sha256`` column; '' when there are none)."""
    return staged["sha256"][0].as_py() if staged.num_rows else ""
