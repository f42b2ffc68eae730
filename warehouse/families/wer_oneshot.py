"""``scorehouse.wer(...)`` and ``scorehouse wer REF HYP``: one reference and one hypothesis
scored through the WER family's pipeline (:mod:`warehouse.oneshot`). The command scores small
inputs without the warehouse (``warehouse/families/wer_small.py``, same output): this module
loads Polars and DuckDB only when the pipeline runs."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from scorehouse.warehouse import oneshot
from scorehouse.warehouse.oneshot import Result, Source

if TYPE_CHECKING:
    import polars as pl


@oneshot.checked
def wer(reference: Source, hypothesis: Source, *,
        method: Annotated[Literal["none", "m1", "m2", "m3", "m4"],
                          "Normalisation method (docs/metrics/wer.md); none scores the tokens "
                          "as they are."] = "none",
        case: Annotated[Literal["sensitive", "insensitive", "unicode"],
                        "insensitive: fold ASCII letters as sclite does by default; sensitive: "
                        "as written (sclite -s); unicode: Unicode lower case (not sclite)."
                        ] = "insensitive",
        separators: Annotated[Literal["sclite", "unicode"],
                              "Split words where sclite does (space, TAB, VT, FF, CR), or on "
                              "every Unicode space (no-break spaces too)."] = "sclite",
        costs: Annotated[Literal["sclite", "levenshtein"],
                         "sclite: weights 0/3/3/4 and sclite's tie-breaking; levenshtein: unit "
                         "costs."] = "sclite",
        unit: Annotated[Literal["word", "char"],
                        "Align words (WER), or their characters (CER, as sclite -c: spaces are "
                        "never counted)."] = "word",
        format: Annotated[Literal["auto", "trn", "kaldi", "jsonl"],
                          "Transcript format; auto: .jsonl/.json are JSON lines, .kaldi or a file "
                          "named text Kaldi, else trn."] = "auto",
        id_field: Annotated[str, "JSON lines: the utterance id's field."] = "id",
        text_field: Annotated[str, "JSON lines: the transcript's field."] = "text",
        report: Annotated[str | None, "Also write sclite's .sys, .pra and .dtl reports into this "
                                      "folder (created if absent)."] = None) -> Result:
    """Score a HYPOTHESIS transcript against a REFERENCE through the warehouse pipeline.

    Formats (docs/formats_wer.md): NIST trn (`text (utterance_id)` per line), Kaldi text
    (`utterance_id text` per line), JSON lines (`{"id": ..., "text": ...}` per line, field
    names as given), and an STM reference with a CTM hypothesis (.stm, .ctm: scored as sclite
    scores them, per speaker too). A reference utterance with no hypothesis is scored as an
    empty hypothesis and reported as missing. Exit code 2 when the hypothesis file is rejected.
    \f
    In Python, ``reference`` and ``hypothesis`` are paths, lists of strings (utterance ids
    ``u1``, ``u2``, ... in order) or tables with ``text`` and ``id`` columns. ``scores``: one
    row (C, S, D, I, N, wer); ``items``: one row per utterance in reference order (id, C, S, D,
    I, ops); ``report["missing"]``: the reference ids without a hypothesis.
    """
    import polars as pl

    options = {"methods": [method], "case": case, "costs": costs, "intervals": False, "unit": unit,
               "format": format, "id_field": id_field, "text_field": text_field,
               "separators": separators, "alignment_tokens": report is not None}
    write = partial(_transcript, format, id_field, text_field)
    con, campaign, notes = oneshot.score("wer", reference, hypothesis, options,
                                         roles=("reference", "hypotheses"),
                                         writers={"reference": write, "hypotheses": write})
    try:
        header, utterances = summary(con, campaign)
        if report is not None:
            header["reports"] = [str(p) for p in sclite_reports(
                con, {"campaign": campaign.id, "task": campaign.tasks[0].id, "corpus": "ref",
                      "system": "sys", "method": method}, Path(report),
                oneshot.label(hypothesis))]
    finally:
        con.close()
    return Result("wer", header["signature"], pl.DataFrame([header["totals"]]), utterances,
                  header, notes, (oneshot.label(reference), oneshot.label(hypothesis)),
                  render=_text, render_json=_json)


def _transcript(fmt: str, id_field: str, text_field: str, data) -> tuple[str, str]:
    """In-memory transcripts written in the declared format (trn for auto)."""
    rows = oneshot.rows_of(data, ("text", "id"), "transcript")
    pairs = [(text, f"u{i}" if utt is None else str(utt)) for i, (text, utt) in enumerate(rows, 1)]
    if fmt == "kaldi":
        return "".join(f"{utt} {text}\n" for text, utt in pairs), ".kaldi"
    if fmt == "jsonl":
        return "".join(json.dumps({id_field: utt, text_field: text}, ensure_ascii=False) + "\n"
                       for text, utt in pairs), ".jsonl"
    return "".join(f"{text} ({utt})\n" for text, utt in pairs), ".trn"


def sclite_reports(con, unit: dict, folder: Path, name: str) -> list[Path]:
    """Write ``<file name>.sys``, ``.pra`` and ``.dtl`` (scorers/sclite_reports.py) into
    ``folder`` from the alignment of one unit and method (``unit``: campaign, task, corpus,
    system, method): a one-shot's, or any of a warehouse's (``scorehouse sclite``); ``name``
    names the system inside them, as sclite names it after the hypothesis file."""
    import polars as pl

    from scorehouse.scorers import sclite_reports as layout
    from scorehouse.warehouse.catalog import current_inputs
    from scorehouse.warehouse.db import frame

    inputs = current_inputs(con, unit["campaign"], unit["task"])
    reference = inputs.get((unit["corpus"], "", "reference"))
    staged = partial(_staged, con)
    rows = (frame(con, f"""
        SELECT utt_id AS id, ref_tokens AS ref, hyp_tokens AS hyp, ops, signature
        FROM int_wer_aligned_utterance {_UNIT} AND method = $method""", unit)
            .join(staged("stg_wer_trn", "line_no AS ref_line", reference), on="id")
            .join(staged("stg_wer_segment", """speaker, file AS "File", channel AS "Channel",
                         CASE WHEN labels <> '' THEN '<' || labels || '>' END AS "Labels",
                         true AS segment""", reference), on="id", how="left")
            .join(staged("stg_wer_trn", "line_no AS hyp_line",
                         inputs.get((unit["corpus"], unit["system"], "hypotheses"))),
                  on="id", how="left")
            # sclite's order: a trn hypothesis file's (then the missing utterances), an STM's
            .with_columns(pl.when(pl.col("segment").is_null()).then("hyp_line").alias("hyp_line"))
            .sort("hyp_line", "ref_line", nulls_last=True)
            .drop("hyp_line", "ref_line", "segment"))
    if not rows.height:
        raise oneshot.OptionError(
            f"no alignment of system {unit['system']} on {unit['task']}/{unit['corpus']} with "
            f"method {unit['method']}")
    rows_signature = rows["signature"][0]
    sensitive = "|case:sensitive|" in rows_signature
    if not sensitive:  # sclite without -s folds ids (and the speakers read from them) too
        rows = rows.with_columns(pl.col("speaker", "id", "File", "Channel", "Labels").str
                                 .replace_many(layout.ASCII_UPPER, layout.ASCII_LOWER))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise oneshot.OptionError(f"report: cannot create {folder}: {err.strerror}") from None
    written = []
    made = layout.reports(rows, name, sensitive, chars="|unit:char|" in rows_signature)
    for suffix, pieces in made.items():
        path = folder / f"{Path(name).name if not name.startswith('<') else 'hypotheses'}.{suffix}"
        with path.open("w", encoding="utf-8") as out:
            out.writelines(pieces)
        written.append(path)
    return written


# A one-shot reads its unit's rows table by table and joins and sorts them with Polars: DuckDB's
# joins and sorts of a million utterances need more than a one-shot's buffer (warehouse/buffer.py
# one_shot_limit), its scans do not.
_UNIT = ("WHERE campaign = $campaign AND task = $task AND corpus = $corpus "
         "AND system = $system")


def _staged(con, table: str, columns: str, sha: str | None) -> pl.DataFrame:
    """``utt_id AS id`` and ``columns`` of the staged rows of one input (none for None)."""
    from scorehouse.warehouse.db import frame

    return frame(con, f"SELECT utt_id AS id, {columns} FROM {table} "
                      "WHERE sha256 = ? AND utt_id IS NOT NULL", [sha])


def summary(con, campaign) -> tuple[dict, pl.DataFrame]:
    """The header (signature, totals, missing ids) and one row per utterance (id, C, S, D, I,
    ops) in reference order."""
    import polars as pl

    from scorehouse.warehouse.catalog import current_inputs
    from scorehouse.warehouse.db import frame, one

    task = campaign.tasks[0]
    totals = one(con, "SELECT C, S, D, I, N, wer, signature FROM mart_wer_scores "
                      "WHERE campaign = ? AND task = ?", [campaign.id, task.id])
    key = {"campaign": campaign.id, "task": task.id, "corpus": task.corpora[0].id,
           "system": task.systems[0].id}
    reference = current_inputs(con, campaign.id, task.id)[(key["corpus"], "", "reference")]
    rows = (frame(con, f"SELECT method, utt_id AS id, C, S, D, I, missing FROM fct_wer_utterance "
                       f"{_UNIT}", key)
            .join(frame(con, f"SELECT method, utt_id AS id, ops FROM int_wer_aligned_utterance "
                             f"{_UNIT}", key), on=["method", "id"])
            .join(_staged(con, "stg_wer_trn", "line_no", reference), on="id")
            .sort("line_no").select("id", "C", "S", "D", "I", "ops", "missing"))
    c, s, d, i, n, wer_, sig = totals if totals else (0, 0, 0, 0, 0, None, "")
    header = {"signature": sig, "totals": {"C": c, "S": s, "D": d, "I": i, "N": n, "wer": wer_},
              "missing": rows.filter(pl.col("missing"))["id"].to_list()}
    speakers = frame(con, "SELECT value AS speaker, C, S, D, I, N FROM mart_wer_by_metadata "
                          "WHERE campaign = ? AND task = ? AND field = 'speaker' ORDER BY value",
                     [campaign.id, task.id])
    if speakers.height:  # an STM reference: sclite's per-speaker counts
        header["speakers"] = speakers.to_dicts()
    return header, rows.drop("missing")


def _small(reference: Source, hypothesis: Source, **options) -> Result | None:
    """The command's small path (``warehouse/families/wer_small.py``): the result, or None
    when the inputs or options are not for it."""
    from scorehouse.warehouse.families.wer_small import score

    return score(reference, hypothesis, **options)


wer.small = _small  # tried first by the command (warehouse/oneshot.py)


def _json(result: Result) -> str:
    # the warehouse's utterance rows are serialised by Polars: 200,000 of them in a blink; the
    # small path's (a list of dicts) as Polars writes them
    items = result.items
    items = (json.dumps(items, ensure_ascii=False, separators=(",", ":"))
             if isinstance(items, list) else items.write_json())
    head = json.dumps({"signature": result.signature, "totals": result.report["totals"]},
                      ensure_ascii=False)
    speakers = ("" if "speakers" not in result.report else ', "speakers": '
                + json.dumps(result.report["speakers"], ensure_ascii=False))
    return (head[:-1] + ', "utterances": ' + items + ', "missing": '
            + json.dumps(result.report["missing"], ensure_ascii=False) + speakers + "}")


def _text(result: Result) -> str:
    """A readable summary in the spirit of sclite's sum report."""
    t, utterances = result.report["totals"], result.items
    n = t["N"]
    rate = (lambda k: f"{100 * t[k] / n:>6.1f}") if n else (lambda k: f"{'n/a':>6}")
    err = f"{100 * t['wer']:>6.1f}" if n else f"{'n/a':>6}"
    missing = len(result.report["missing"])
    if isinstance(utterances, list):  # the small path's rows
        count = len(utterances)
        sentence_errors = sum(1 for u in utterances if u["S"] + u["D"] + u["I"])
    else:
        count = utterances.height
        sentence_errors = int(((utterances["S"] + utterances["D"] + utterances["I"]) > 0).sum())
    rows = [
        f"reference:  {result.sources[0]}",
        f"hypothesis: {result.sources[1]}",
        f"signature:  {result.signature}",
        "",
        f"{'# Snt':>7} {'# Wrd':>8} | {'Corr':>6} {'Sub':>6} {'Del':>6} {'Ins':>6} {'Err':>6} | "
        f"{'S.Err':>6}",
        f"{count:>7} {t['N']:>8} | {rate('C')} {rate('S')} {rate('D')} {rate('I')} "
        f"{err} | {100 * sentence_errors / max(count, 1):>6.1f}",
        "",
        f"{'CER' if '|unit:char|' in result.signature else 'WER'} = (S + D + I) / N = "
        f"({t['S']} + {t['D']} + {t['I']}) / {t['N']} = "
        + (f"{100 * t['wer']:.2f} %" if t["wer"] is not None else "undefined (N = 0)"),
    ]
    if missing:
        rows.append(f"{missing} reference utterance(s) had no hypothesis (scored as empty)")
    for s in result.report.get("speakers", []):
        rows.append(f"speaker {s['speaker']}: C {s['C']} S {s['S']} D {s['D']} I {s['I']} "
                    f"N {s['N']}")
    return "\n".join(rows)
