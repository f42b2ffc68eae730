"""``scorehouse.pos(...)`` and ``scorehouse pos REF SYS``: one reference and one tagged system
scored through the POS family's pipeline (:mod:`warehouse.oneshot`): GRACE's precision P and
decision D, with Pmin, Pmoy and Pmax, under both evaluations and granularities."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import polars as pl

from scorehouse.scorers import pos as scorer
from scorehouse.warehouse import oneshot
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.families.pos import signature
from scorehouse.warehouse.oneshot import Result, Source

_COUNTS = ("nbCas", "NONEVAL", "OK", "ERR", "SIL_ok", "SIL_err", "SILOK_moy", "SIL", "SIL_sil")
_SCORES = ("P", "D", "Pmin", "Pmoy", "Pmax")


@oneshot.checked
def pos(reference: Source, system: Source, *,
        table: Annotated[str | Path | None,
                         "Correspondence table (TSV: participant tag, pivot tag); identity "
                         "when absent."] = None,
        format: Annotated[Literal["grace", "conllu"], "Input format."] = "grace",
        tag: Annotated[Literal["upos", "xpos", "upos+feats"],
                       "CoNLL-U: the column(s) that make the tag."] = "upos") -> Result:
    """Score a POS-tagged SYSTEM file against a REFERENCE (GRACE precision / decision).

    Both files are GRACE token-per-line files (or CoNLL-U with --format conllu, where the units
    are the reference's syntactic words). The system's tokenisation may differ: it is re-aligned
    on minimal units, and what cannot be aligned is reported as residual forms.
    \f
    In Python, ``reference`` and ``system`` are paths or (GRACE) tables with ``form`` and
    ``tags`` columns (a string, alternatives separated by ``|``, or a list) and optionally
    ``sent`` (a new value starts a sentence). ``scores``: one row per evaluation x granularity
    (the seven counts and P, D, Pmin, Pmoy, Pmax); ``items``: the counts per sentence of the
    absolute evaluation with full tags; ``report``: what ``--json`` prints.
    """
    con, campaign, notes = oneshot.score(
        "pos", reference, system, {"evaluations": ["absolute", "relative"], "intervals": False},
        roles=("reference", "submissions"), corpus_options={"format": format, "tag": tag},
        system_options={"table": str(Path(table).resolve())} if table else {},
        writers={"reference": _grace, "submissions": _grace})
    try:
        out = report(con, campaign)
        scores = frame(con, "SELECT evaluation, granularity, " + ", ".join(_COUNTS + _SCORES)
                       + " FROM mart_pos_scores WHERE slice = 'corpus' AND campaign = ? "
                       "ORDER BY evaluation, granularity", [campaign.id])
        items = frame(con, "SELECT doc, genre, sent, nbCas, NONEVAL, OK, ERR, SIL_ok, SIL_err, "
                           "SIL_sil, SILOK_moy FROM fct_pos_sentence WHERE campaign = ? "
                           "AND evaluation = 'absolute' AND granularity = 'full' "
                           "ORDER BY doc, sent", [campaign.id])
    finally:
        con.close()
    return Result("pos", out["signature"], scores, items, out, notes,
                  (oneshot.label(reference), oneshot.label(system)), render=_text)


def _grace(data) -> tuple[str, str]:
    lines, sent = [], None
    for form, tags, sentence in oneshot.rows_of(data, ("form", "tags", "sent"), "tagged text",
                                                 required=2, forbid="\n\r\t"):
        if sentence != sent and lines:
            lines.append("")
        sent = sentence
        if isinstance(tags, (list, tuple)):
            if not tags or not all(isinstance(t, str) and t and not set(t) & set("\t\n\r|")
                                   for t in tags):
                raise TypeError(f"the tagged text: {form!r} has tags {tags!r}: expected "
                                "non-empty strings without '|', TAB or line breaks")
            tags = "|".join(tags)
        lines.append(f"{form}\t{tags}")
    return "".join(f"{line}\n" for line in lines), ".grace"


def report(con, campaign) -> dict:
    """``scorehouse pos --json``: the seven counts (absolute evaluation, full tags), the NONEVAL
    reasons, the five scores, and the same for every evaluation x granularity under ``variants``;
    ``unknown_tags`` (tag -> absolute cases made NONEVAL) and ``dropped_alternatives`` (tag ->
    absolute cases it was dropped from as an alternative)."""
    rows = frame(con, "SELECT * FROM mart_pos_scores WHERE slice = 'corpus' AND campaign = ? "
                      "ORDER BY evaluation, granularity", [campaign.id])
    variants = {}
    for r in rows.iter_rows(named=True):
        counts = {k: r[k] for k in _COUNTS}
        counts["NONEVAL_by_reason"] = {reason: r[f"noneval_{reason}"]
                                       for reason in scorer.NONEVAL_REASONS}
        variants[f"{r['evaluation']}/{r['granularity']}"] = {
            "counts": counts, "scores": {k: r[k] for k in _SCORES},
            "signature": signature(campaign.tasks[0], r["evaluation"], r["granularity"])}
    head = variants.get("absolute/full", {"counts": {}, "scores": {}, "signature": ""})
    unknown = frame(con, "SELECT tag, cases, dropped FROM mart_pos_unknown_tags "
                         "WHERE campaign = ? AND evaluation = 'absolute'", [campaign.id])

    def by_tag(column: str) -> dict:
        rows = unknown.filter(pl.col(column) > 0).sort([column, "tag"], descending=[True, False])
        return dict(zip(rows["tag"], rows[column]))
    return {**head, "unknown_tags": by_tag("cases"), "dropped_alternatives": by_tag("dropped"),
            "variants": variants}


def _text(result: Result) -> str:
    report_ = result.report
    out = [f"signature: {report_['signature']}"]

    def pct(v):
        return "  n/a" if v is None else f"{100 * v:5.1f}"
    for name, variant in report_["variants"].items():
        c, sc = variant["counts"], variant["scores"]
        out.append(f"{name:18} nbCas {c['nbCas']:>7}  NONEVAL {c['NONEVAL']:>6}  OK {c['OK']:>7}  "
                   f"ERR {c['ERR']:>6}  SIL {c['SIL']:>6} | P {pct(sc['P'])}  D {pct(sc['D'])}  "
                   f"Pmin {pct(sc['Pmin'])}  Pmoy {pct(sc['Pmoy'])}  Pmax {pct(sc['Pmax'])}")
    reasons = report_["counts"].get("NONEVAL_by_reason", {})
    out.append("NONEVAL by reason: " + ", ".join(f"{k} {v}" for k, v in reasons.items()))
    if report_["unknown_tags"]:
        out.append("tags missing from the table: " + ", ".join(
            f"{k} ({v})" for k, v in report_["unknown_tags"].items()))
    return "\n".join(out)
