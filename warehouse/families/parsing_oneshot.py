"""``scorehouse.parsing(...)`` and ``scorehouse parsing REF SYS``: one reference and one parsed
system scored through the parsing family's pipeline (:mod:`warehouse.oneshot`): EASY's
constituents and relations, or the 13 metrics of the CoNLL 2018 shared task and, for enhanced
graphs, ELAS and EULAS (IWPT 2020 and 2021)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import polars as pl

from scorehouse.scorers import ud as ud_scorer
from scorehouse.warehouse import oneshot
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.families.parsing import FUNCTIONS, MODES, is_dependency, signature
from scorehouse.warehouse.oneshot import Result, Source

_UD = ("precision", "recall", "f1", "aligned_accuracy", "correct", "gold_total", "system_total",
       "aligned_total")


@oneshot.checked
def parsing(reference: Source, system: Source, *,
            format: Annotated[Literal["easy", "tsv", "conllu"] | None,
                              "Input format; default from the REFERENCE's extension (.conllu, "
                              ".tsv, else EASY XML)."] = None,
            mode: Annotated[Literal["hyp", "defhyp", "ref", "all"],
                            "EASY: how a relation argument naming a form becomes a range."] = "all",
            function: Annotated[Literal["equal", "fuzzy", "include", "intersection", "barycenter",
                                        "all"], "EASY: the range equality function."] = "all",
            recover: Annotated[bool, "CoNLL-U: score a system whose text differs from the "
                                     "reference's (reported), instead of stopping."] = False,
            empty_nodes: Annotated[Literal["drop", "collapse"],
                                   "CoNLL-U, ELAS and EULAS: drop the edges headed by empty nodes "
                                   "(udeval on the files as given) or collapse the paths through "
                                   "them (the IWPT shared tasks' preprocessing)."] = "drop",
            ) -> Result:
    """Score a parsed SYSTEM file against a REFERENCE.

    EASY (XML or TSV): precision, recall and F of constituents and relations over word-form
    ranges, for each mode (HYP, DEFHYP, REF) and function (EQUAL, FUZZY, INCLUDE, INTERSECTION,
    BARYCENTER), with one-to-one matching; system forms are re-aligned onto the reference's.
    CoNLL-U: the 13 metrics of the CoNLL 2018 shared task, with the counts of the official
    conll18_ud_eval.py; when the reference has enhanced graphs (DEPS), also ELAS and EULAS, as
    the IWPT 2020/2021 script (udeval) computes them.
    \f
    In Python, ``reference`` and ``system`` are paths or, for CoNLL-U, the file's lines (a list
    of strings) or a table of words with the ten CoNLL-U columns (``ID``, ``FORM``, ... ``MISC``;
    absent ones are ``_``) and ``sent_id`` (a new value starts a sentence). ``scores``: CoNLL-U,
    one row per metric (precision, recall, f1, aligned_accuracy and their counts); EASY, one row
    per kind x type x mode x function. ``items``: CoNLL-U, the places where the texts differ;
    EASY, the same rows as ``scores`` per relation or constituent type.
    """
    fmt = format or ("conllu" if not oneshot.is_path(reference) else {
        ".conllu": "conllu", ".tsv": "tsv"}.get(Path(reference).suffix.lower(), "easy"))
    if fmt != "conllu" and empty_nodes != "drop":
        raise oneshot.OptionError("empty_nodes: enhanced graphs exist in CoNLL-U files only "
                                  "(--format conllu)")
    options = {"intervals": False, "consensus": False, "recover": recover,
               **({"empty_nodes": empty_nodes} if fmt == "conllu" else {}),
               "modes": list(MODES) if mode == "all" else [mode.upper()],
               "functions": list(FUNCTIONS) if function == "all" else [function.upper()]}
    con, campaign, notes = oneshot.score("parsing", reference, system, options,
                                         roles=("reference", "submissions"),
                                         corpus_options={"format": fmt},
                                         writers={} if fmt != "conllu" else {
                                             "reference": _conllu, "submissions": _conllu})
    try:
        out = report(con, campaign)
    finally:
        con.close()
    labels = (oneshot.label(reference), oneshot.label(system))
    if "metrics" in out:
        notes = [*notes, *(f"text differs: reference line {d['gold_line']} {d['gold_text']!r}, "
                           f"system line {d['system_line']} {d['system_text']!r}"
                           for d in out["differences"])]
        scores = pl.DataFrame([{"metric": m, **v} for m, v in out["metrics"].items()])
        return Result("parsing", out["signature"], scores, pl.DataFrame(out["differences"]), out,
                      notes, labels, render=_ud_text)
    wanted = [r for r in out["scores"]
              if r["mode"] in options["modes"] and r["function"] in options["functions"]]
    out = {"scores": wanted}
    scores = pl.DataFrame(wanted, infer_schema_length=None)
    return Result("parsing", signature("easy", mode.upper(), function.upper()),
                  scores.filter(pl.col("type").is_null()),
                  scores.filter(pl.col("type").is_not_null()), out, notes, labels,
                  render=_easy_text)


_CONLLU = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


def _conllu(data) -> tuple[str, str]:
    if isinstance(data, list) and all(isinstance(x, str) for x in data):
        if any("\n" in x or "\r" in x for x in data):
            raise TypeError("CoNLL-U lines: one line per string, without line breaks")
        end = "\n" if data and data[-1] else ""  # a sentence ends with a blank line
        return "".join(f"{line}\n" for line in data) + end, ".conllu"
    import polars as pl

    try:
        frame = pl.DataFrame(data) if isinstance(data, (list, dict)) else (
            data if isinstance(data, pl.DataFrame) else pl.from_arrow(data))
    except Exception as err:  # noqa: BLE001 - whatever it is, it is not a table of words
        raise TypeError("CoNLL-U: expected a path, the file's lines (a list of strings) or a "
                        f"table of words, not {type(data).__name__}") from err
    if "sent_id" not in frame.columns or "FORM" not in frame.columns:
        raise TypeError(f"a table of words needs 'sent_id' and the CoNLL-U columns ('ID', "
                        f"'FORM', ...); found {frame.columns}")
    lines, sent = [], None
    for row in frame.iter_rows(named=True):
        if row["sent_id"] != sent:
            lines += ([""] if sent is not None else []) + [f"# sent_id = {row['sent_id']}"]
            sent = row["sent_id"]
        lines.append("\t".join("_" if row.get(c) is None else str(row[c]) for c in _CONLLU))
    return "".join(f"{line}\n" for line in lines) + "\n", ".conllu"


def report(con, campaign) -> dict:
    """``scorehouse parsing --json``: for CoNLL-U, ``{"metrics": {name: {precision, recall, f1,
    aligned_accuracy, correct, gold_total, system_total, aligned_total}}}`` (the 13 CoNLL 2018
    metrics, with ELAS and EULAS after LAS for enhanced graphs); for EASY, ``{"scores": [{kind,
    type, mode, function, precision, recall, f1, matched, hyp, ref}]}`` (type NULL: every type
    of the kind)."""
    task = campaign.tasks[0]
    if is_dependency(task):
        rows = frame(con, "SELECT * FROM mart_parsing_ud_scores WHERE slice = 'task' "
                          "AND campaign = ?", [campaign.id])
        by_metric = {r["metric"]: r for r in rows.iter_rows(named=True)}
        metrics = {m: {k: by_metric[m][k] for k in _UD}
                   for m in ud_scorer.ALL_METRICS if m in by_metric}
        differences = frame(con, "SELECT gold_line, system_line, gold_text, system_text "
                                 "FROM int_parsing_ud_difference WHERE campaign = ?",
                            [campaign.id])
        return {"metrics": metrics, "differences": differences.to_dicts(),
                "signature": signature("conllu", recover=bool(task.options.get("recover")),
                                       empty_nodes=task.options.get("empty_nodes", "drop"))}
    rows = frame(con, "SELECT kind, type, mode, function, precision, recall, f1, matched, hyp, "
                      "ref FROM mart_parsing_scores WHERE slice IN ('task', 'type') "
                      "AND campaign = ? ORDER BY kind, type NULLS FIRST, mode, function",
                 [campaign.id])
    return {"scores": rows.to_dicts()}


def _ud_text(result: Result) -> str:
    out = ["Metric     | Precision |    Recall |  F1 Score | AligndAcc",
            "-----------+-----------+-----------+-----------+-----------"]
    for name, m in result.report["metrics"].items():
        acc = "" if m["aligned_accuracy"] is None else f"{100 * m['aligned_accuracy']:10.2f}"
        out.append(f"{name:11}|{100 * m['precision']:10.2f} |{100 * m['recall']:10.2f} "
                   f"|{100 * m['f1']:10.2f} |{acc}")
    return "\n".join(out)


def _easy_text(result: Result) -> str:
    def pct(v):
        return "  n/a" if v is None else f"{100 * v:5.1f}"
    out = [f"{'kind':12} {'type':7} {'mode':7} {'function':13} {'P':>5} {'R':>5} {'F':>5} "
           f"{'matched':>8} {'hyp':>7} {'ref':>7}"]
    for r in result.report["scores"]:
        out.append(f"{r['kind']:12} {r['type'] or 'all':7} {r['mode']:7} {r['function']:13} "
                   f"{pct(r['precision'])} {pct(r['recall'])} {pct(r['f1'])} {r['matched']:>8} "
                   f"{r['hyp']:>7} {r['ref']:>7}")
    return "\n".join(out)
