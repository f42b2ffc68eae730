"""``scorehouse coref KEY RESPONSE --format corefud``: CorefUD files scored as the official
CorefUD scorer (version 1.2) scores them (:mod:`scorers.corefud`), for the corpus and per
document. Files are read by :mod:`etl.corefud` and checked to hold the same sentences; a key
document the response lacks is a rejection (the official scorer stops on an assertion).

In a campaign, a coreference task whose corpora are in ``format = "corefud"``: each file is
staged into ``stg_coref_corefud`` (:func:`read_table`, :func:`stage`), a submission whose
sentences differ from its key's, or that lacks one of the key's documents, is rejected at load
(:func:`same_sentences_check`), and a unit's per-document counts go to ``fct_coref_document``
under the convention ``corefud`` (:func:`compute_unit`), so the view ``mart_coref_scores`` and
the intervals read them as every other coreference score.

Žabokrtský et al., "Findings of the Second Shared Task on Multilingual Coreference Resolution"
(CRAC 2023), section 4.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow as pa

from scorehouse.etl.corefud import CorefUD, Mention, Sentence, check_aligned, read_corefud
from scorehouse.etl.errors import InputError
from scorehouse.etl.text import SIGNATURE as TEXT
from scorehouse.scorers import corefud as scorer
from scorehouse.warehouse import oneshot
from scorehouse.warehouse.oneshot import Result, Source


def signature(match: str, singletons: bool, zeros: str) -> str:
    """sacrebleu-style signature of a CorefUD variant."""
    from scorehouse.warehouse.families.coref import code_version

    return (f"coref|corefud|match:{match}|singletons:{'yes' if singletons else 'no'}"
            f"|zeros:{zeros}|aggregation:micro|{TEXT}|version:{code_version()}")


def corefud(key: Source, response: Source, match: str, singletons: bool, zeros: str) -> Result:
    """Score a CorefUD RESPONSE against a KEY (paths, or the files' lines as lists of strings).
    ``scores``: one row per measure (recall, precision, f1; ``conll`` its f1 only, a share);
    ``items``: the same per document. Raises :class:`warehouse.oneshot.Rejected` for a bad
    file or a key document the response lacks."""
    try:
        k, r = _read(key, "key"), _read(response, "response")
        check_aligned(k, r, oneshot.label(key), oneshot.label(response))
        corpus, documents = scorer.evaluate(k, r, match, singletons, zeros)
    except InputError as err:
        raise oneshot.Rejected([str(err)]) from None
    except scorer.MissingDocument as err:
        raise oneshot.Rejected([f"{oneshot.label(response)}: expected the key's document "
                                f"{err.args[0]!r}, found no such document (the response ends "
                                "before it)"]) from None
    sig = signature(match, singletons, zeros)
    report = {"corpus": _named(corpus), "documents": {d: _named(s) for d, s in documents.items()},
              "signature": sig}
    rows = [{"metric": m, **v} for m, v in report["corpus"].items()]
    items = [{"doc": d, "metric": m, **v} for d, s in report["documents"].items()
             for m, v in s.items()]
    schema = {"metric": pl.String, "recall": pl.Float64, "precision": pl.Float64,
              "f1": pl.Float64}
    return Result("coref", sig, pl.DataFrame(rows, schema=schema),
                  pl.DataFrame(items, schema={"doc": pl.String, **schema}), report, [],
                  (oneshot.label(key), oneshot.label(response)), render=_text,
                  render_json=_json)


def _read(data: Source, role: str) -> CorefUD:
    if oneshot.is_path(data):
        return read_corefud(Path(data))
    if isinstance(data, list) and all(isinstance(x, str) for x in data):
        if any("\n" in x or "\r" in x for x in data):
            raise TypeError("CorefUD lines: one line per string, without line breaks")
        text = "".join(f"{line}\n" for line in data)
        return read_corefud(Path(f"in-memory {role}"), text.encode("utf-8"))
    raise TypeError(f"CorefUD: expected a path or the file's lines (a list of strings), not "
                    f"{type(data).__name__}")


def _named(scores: dict) -> dict:
    """``{measure: {recall, precision, f1}}``, ``conll`` as ``{f1}`` (a share, like the rest)."""
    out = {m: {"recall": v[0], "precision": v[1], "f1": v[2]} for m, v in scores.items()
           if m != "conll"}
    out["conll"] = {"recall": None, "precision": None, "f1": scores["conll"][0] / 100}
    return out


def _text(result: Result) -> str:
    """The official scorer's figures (percentages, two decimals), one measure a line."""
    out = [f"signature: {result.signature}", f"{'metric':8} {'R':>7} {'P':>7} {'F':>7}"]
    for name, m in result.report["corpus"].items():
        if name == "conll":
            out.append(f"{name:8} {'':7} {'':7} {100 * m['f1']:7.2f}")
        else:
            out.append(f"{name:8} {100 * m['recall']:7.2f} {100 * m['precision']:7.2f} "
                       f"{100 * m['f1']:7.2f}")
    return "\n".join(out)


def _json(result: Result) -> str:
    import json

    return json.dumps({k: result.report[k] for k in ("corpus", "documents", "signature")},
                      ensure_ascii=False)


# ---------------------------------------------------------------- the campaign side

TABLE = pa.schema([
    ("row_no", pa.int32()), ("kind", pa.string()), ("doc", pa.string()), ("sent", pa.int32()),
    ("eid", pa.string()), ("nodes", pa.list_(pa.float64())), ("head", pa.float64()),
    ("zero", pa.bool_()), ("head_deps", pa.string()), ("sent_id", pa.string()),
    ("forms", pa.list_(pa.string())), ("line_no", pa.int32()), ("text", pa.string()),
])
COLUMNS = TABLE.names
METRICS = ("muc", "bcub", "ceafe", "ceafm", "lea", "blanc_coref", "blanc_noncoref", "mor",
           "zero")


def read_table(path: Path, data: bytes) -> pa.Table:
    """A CorefUD file as the staged table: its sentences, then its mentions."""
    read = read_corefud(path, data)
    rows = [{"kind": "sentence", "doc": s.doc, "sent": k, "sent_id": s.sent_id,
             "forms": list(s.forms), "line_no": s.line_no}
            for k, s in enumerate(read.sentences, 1)]
    rows += [{"kind": "mention", "doc": m.doc, "sent": m.nodes[0][0], "eid": m.eid,
              "nodes": [n for _, n in m.nodes], "head": m.head[1], "zero": m.zero,
              "head_deps": "|".join(f"{p!r}:{rel}" for (_, p), rel in m.head_deps),
              "line_no": m.line_no, "text": m.text} for m in read.mentions]
    return pa.Table.from_pylist([{"row_no": i, **r} for i, r in enumerate(rows)], schema=TABLE)


def from_table(table: pl.DataFrame) -> CorefUD:
    """The staged rows back as :func:`etl.corefud.read_corefud` gave them."""
    out = CorefUD()
    for r in table.sort("row_no").iter_rows(named=True):
        if r["kind"] == "sentence":
            out.sentences.append(Sentence(r["doc"], r["sent_id"], tuple(r["forms"]),
                                          r["line_no"]))
            continue
        sent = r["sent"]
        deps = tuple(((sent, float(p)), rel) for p, rel in (
            item.split(":", 1) for item in (r["head_deps"] or "").split("|") if item))
        out.mentions.append(Mention(r["doc"], r["eid"], tuple((sent, n) for n in r["nodes"]),
                                    (sent, r["head"]), r["zero"], deps, r["line_no"],
                                    r["text"] or ""))
    return out


def same_sentences_check(key_table, path: Path, key_path: str):
    """A load check rejecting a CorefUD submission whose sentences are not its key's, or which
    lacks one of the key's documents (``key_table()``: the key's staged rows, None when the
    key is not staged)."""
    def check(table: pa.Table) -> None:
        key = key_table()
        if key is None:
            return
        key, response = from_table(key), from_table(pl.from_arrow(table))
        check_aligned(key, response, key_path, path)
        docs = {s.doc for s in response.sentences}
        missing = [s for s in key.sentences if s.doc not in docs]
        if missing:
            raise InputError(path, None, f"the key's document {missing[0].doc!r} "
                             f"({key_path}:{missing[0].line_no})", "no such document")
    return check


def singleton_settings(task, default: list) -> tuple[bool, ...]:
    """A coreference task's ``singletons`` option (every task of the family): a non-empty list
    of booleans, singletons counted (true) or removed (false)."""
    from scorehouse.warehouse.campaign import CampaignError

    value = task.options.get("singletons", default)
    if (not isinstance(value, list) or not value
            or not all(isinstance(x, bool) for x in value)):
        raise CampaignError(f"task {task.id}: singletons: expected a list of booleans, "
                            f"found {value!r}")
    return tuple(value)


def options(task) -> dict:
    """A CorefUD task's options: ``match`` (head, exact, partial; default head), ``zeros``
    (dependent, linear; default dependent), ``singletons`` (list of booleans, default
    ``[false]``: removed, as the official scorer); the family's options that need exact spans or
    the paper's measures (categories, link types, baselines, conventions) are errors here."""
    from scorehouse.warehouse.campaign import CampaignError

    o = task.options
    for name in ("conventions", "categories", "link_types", "draws", "pronoun_category"):
        if name in o:
            raise CampaignError(f"task {task.id}: {name}: not available for CorefUD corpora "
                                "(scored as the official CorefUD scorer)")
    if o.get("baselines"):
        raise CampaignError(f"task {task.id}: baselines: not available for CorefUD corpora")
    choices = {"match": (scorer.MATCHES, "head"), "zeros": (scorer.ZEROS, "dependent")}
    chosen = {}
    for name, (allowed, default) in choices.items():
        chosen[name] = o.get(name, default)
        if chosen[name] not in allowed:
            raise CampaignError(f"task {task.id}: {name}: expected one of "
                                f"{', '.join(allowed)}, found {chosen[name]!r}")
    return {"corefud": True, "conventions": ("corefud",),
            "singletons": singleton_settings(task, [False]),
            "baselines": False, "draws": 1, "categories": (), "link_types": (),
            "pronoun_category": "pronoun", **chosen}


def load(ctx, task) -> None:
    """Stage a CorefUD task: every key, then every submission checked against its corpus's
    current key (staged first, so that its version is known: a revised key re-checks them)."""
    from scorehouse.warehouse.staging import Slot, StageJob, stage_files

    stage_files(ctx, [StageJob(Slot(task.id, c.id, "", "key"), c.files["key"], read_table,
                               stage, salt="coref|corefud") for c in task.corpora])
    stage_files(ctx, submission_jobs(ctx, task))


def submission_jobs(ctx, task) -> list:
    """The staging jobs of a CorefUD task's submissions."""
    from scorehouse.warehouse.catalog import current_inputs
    from scorehouse.warehouse.db import frame
    from scorehouse.warehouse.staging import Slot, StageJob

    jobs = []
    for corpus in task.corpora:
        for system in task.systems:
            if corpus.id not in system.files.get("submissions", {}):
                continue
            path = system.files["submissions"][corpus.id]

            def key_table(corpus=corpus.id):
                sha = current_inputs(ctx.con, ctx.campaign.id, task.id).get((corpus, "", "key"))
                return None if sha is None else staged(ctx.con, sha, frame)
            key_sha = current_inputs(ctx.con, ctx.campaign.id, task.id).get((corpus.id, "", "key"))
            jobs.append(StageJob(Slot(task.id, corpus.id, system.id, "submissions"), path,
                                 read_table, stage,
                                 same_sentences_check(key_table, path, str(corpus.files["key"])),
                                 salt=f"coref|corefud|same-as:{key_sha}"))
    return jobs


def stage(con, sha: str, table: pa.Table) -> None:
    from scorehouse.warehouse.db import insert_arrow

    insert_arrow(con, "stg_coref_corefud", table,
                 "$sha, " + ", ".join(f'"{c}"' for c in COLUMNS), {"sha": sha})


def staged(con, sha: str, frame) -> pl.DataFrame:
    return frame(con, "SELECT " + ", ".join(f'"{c}"' for c in COLUMNS)
                 + " FROM stg_coref_corefud WHERE sha256 = ? ORDER BY row_no", [sha])


def units(ctx, task, chosen: dict, version: str) -> list:
    """The (corpus, system) units of a CorefUD task, fingerprinted by inputs, options, code."""
    from scorehouse.warehouse.catalog import current_inputs, fingerprint
    from scorehouse.warehouse.runner import Unit

    inputs = current_inputs(ctx.con, ctx.campaign.id, task.id)
    out = []
    for corpus in task.corpora:
        for system in task.systems:
            unit = {"key": inputs.get((corpus.id, "", "key")),
                    "submissions": inputs.get((corpus.id, system.id, "submissions"))}
            if None in unit.values():
                continue
            state = fingerprint({"inputs": unit, "version": version,
                                 "options": {k: chosen[k] for k in ("match", "zeros",
                                                                    "singletons")},
                                 "genre": corpus.options.get("genre", "")})
            out.append(Unit(corpus, system.id, unit, state))
    return out


def prepare(ctx, chosen: dict, unit) -> tuple:
    """A unit's inputs, read in the coordinator."""
    from scorehouse.warehouse.db import frame

    return (staged(ctx.con, unit.inputs["key"], frame),
            staged(ctx.con, unit.inputs["submissions"], frame), chosen,
            str(unit.corpus.options.get("genre", "")))


def compute_unit(ids: dict, key: pl.DataFrame, response: pl.DataFrame, options: dict,
                 genre: str) -> dict:
    """One unit, a pure function: the rows of ``fct_coref_document`` (:func:`document_rows`)."""
    from scorehouse.warehouse.db import insert_arrow, written
    from scorehouse.warehouse.families.coref import SQL_FOLDER, UNIT_TABLES

    rows = document_rows(key, response, options, genre)

    def write(con) -> None:
        insert_arrow(con, "fct_coref_document", rows.to_arrow(),
                     "$campaign, $task, $corpus, $system, convention, singletons, subset, genre, "
                     "doc, metric, recall_num, recall_den, precision_num, precision_den, value, "
                     "direction, mentions, signature", ids)
    return written(SQL_FOLDER, UNIT_TABLES, write)


def document_rows(key: pl.DataFrame, response: pl.DataFrame, options: dict,
                  genre: str) -> pl.DataFrame:
    """One unit's rows of ``fct_coref_document``: every document's counts of every measure
    (BLANC as its two parts), for each singletons setting of the task, under the convention
    ``corefud`` (a zero denominator gives 0, as the official scorer)."""
    k, r = from_table(key), from_table(response)
    rows = []
    for singletons in options["singletons"]:
        sig = signature(options["match"], singletons, options["zeros"])
        for doc, counts in scorer.document_counts(k, r, options["match"], singletons,
                                                  options["zeros"]).items():
            for metric in METRICS:
                c = counts[metric]
                rows.append(["corefud", singletons, "all", genre, doc, metric, c.r_num,
                             c.r_den, c.p_num, c.p_den, None, None, None, sig])
    return pl.DataFrame(rows, schema={
        "convention": pl.String, "singletons": pl.Boolean, "subset": pl.String,
        "genre": pl.String, "doc": pl.String, "metric": pl.String, "recall_num": pl.Float64,
        "recall_den": pl.Float64, "precision_num": pl.Float64, "precision_den": pl.Float64,
        "value": pl.Float64, "direction": pl.String, "mentions": pl.Float64,
        "signature": pl.String}, orient="row")
