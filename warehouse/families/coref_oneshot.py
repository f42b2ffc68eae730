"""``scorehouse.coref(...)`` and ``scorehouse coref KEY RESPONSE``: one key and one response
scored through the coreference family's pipeline (:mod:`warehouse.oneshot`): the CoNLL reference
scorer's metrics and the paper's, per document and for the corpus; CorefUD files are scored as
the official CorefUD scorer scores them (:mod:`scorers.corefud`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import polars as pl

from scorehouse.scorers import coref as scorer
from scorehouse.warehouse import oneshot
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.families.coref import signature
from scorehouse.warehouse.oneshot import Result, Source

_VALUE_METRICS = ("rcvt", "kappa")
_QUERY = ("SELECT * FROM {table} WHERE system = 'sys' AND convention = ? AND singletons = ? "
          "AND subset = 'all'")


@oneshot.checked
def coref(key: Source, response: Source, *,
          format: Annotated[Literal["conll2012", "jsonl", "corefud"] | None,
                            "Input format; default from the KEY's extension (.jsonl, .conllu "
                            "for CorefUD, else CoNLL-2012)."] = None,
          convention: Annotated[Literal["conll", "paper"],
                                "Zero denominators: 0 as the CoNLL reference scorer, or 1 (100 %) "
                                "as the paper."] = "conll",
          singletons: Annotated[bool | None, "Count singleton classes, or remove them from key "
                                             "and response first (paper convention: the key's "
                                             "from recall, the response's from precision, as "
                                             "its section 5.2; default: counted, removed for "
                                             "CorefUD as its scorer does)."] = None,
          match: Annotated[Literal["head", "exact", "partial"] | None,
                           "Mention matching (default: head for CorefUD; CoNLL-2012 and JSON "
                           "lines: exact spans only)."] = None,
          zeros: Annotated[Literal["dependent", "linear"] | None,
                           "CorefUD: align zero mentions by their dependencies (the default) or "
                           "by their positions."] = None) -> Result:
    """Score a coreference RESPONSE against a KEY: mention detection, MUC, B3, CEAF-m, CEAF-e,
    BLANC, LEA and the CoNLL average (as the CoNLL reference scorer v8.01), and the paper's C, XC,
    H, kappa, RCVT and D-error, per document and for the corpus (micro average). CorefUD
    (CoNLL-U with Entity= in MISC): as the official CorefUD scorer 1.2, mentions matched by head,
    exactly or partially, zeros aligned by their dependencies; MUC, B3, CEAF-e, CEAF-m, BLANC,
    LEA, MOR, zero and the CoNLL score.
    \f
    In Python, ``key`` and ``response`` are paths, or documents in memory as the JSON-lines
    format has them: a list of dicts (or a table) with ``doc``, ``tokens`` and ``clusters``.
    ``scores``: the corpus rows of ``mart_coref_scores`` (one per metric); ``items``: the same
    per document.
    """
    fmt = format or ("jsonl" if not oneshot.is_path(key)
                     or Path(key).suffix.lower() in (".jsonl", ".json") else
                     "corefud" if Path(key).suffix.lower() == ".conllu" else "conll2012")
    if fmt == "corefud":
        from scorehouse.warehouse.families.coref_corefud import corefud
        return corefud(key, response, match or "head", bool(singletons), zeros or "dependent")
    if zeros is not None:
        raise oneshot.OptionError("zeros: zero mentions exist in CorefUD files only (--format "
                                  "corefud)")
    if match not in (None, "exact"):
        raise oneshot.OptionError(f"match: {match} matching needs CorefUD files (--format "
                                  "corefud); CoNLL-2012 and JSON lines match exact spans")
    singletons = True if singletons is None else singletons
    con, campaign, notes = oneshot.score(
        "coref", key, response, {"conventions": [convention], "singletons": [singletons],
                                 "baselines": False, "intervals": False},
        roles=("key", "submissions"), corpus_options={"format": fmt},
        writers={"key": _jsonl, "submissions": _jsonl})
    try:
        corpus = frame(con, _QUERY.format(table="mart_coref_scores") + " AND slice = 'corpus'",
                       [convention, singletons])
        rank = {m: i for i, m in enumerate(scorer.SCORE_ORDER)}  # the view has no order
        corpus = corpus.sort(pl.col("metric").replace_strict(rank, default=len(rank)), "metric")
        stats = frame(con, _QUERY.format(table="fct_coref_document"), [convention, singletons])
    finally:
        con.close()
    order = {m: i for i, m in enumerate(scorer.SCORE_ORDER)}  # the view's rows come unordered
    corpus = corpus.sort(pl.col("metric").replace_strict(order, default=len(order)), "metric")
    per_doc = scorer.document_scores(stats, convention=convention)
    documents = {doc: _metrics(rows)
                 for (doc,), rows in per_doc.group_by("doc", maintain_order=True)}
    out = {"corpus": _metrics(corpus), "documents": documents,
           "signature": signature(convention, singletons)}
    keep = [c for c in ("metric", "recall", "precision", "f1", "value", "direction")
            if c in corpus.columns]
    return Result("coref", out["signature"], corpus.select(keep),
                  per_doc.select(["doc", *[c for c in keep if c in per_doc.columns]]), out, notes,
                  (oneshot.label(key), oneshot.label(response)), render=_text,
                  render_json=_json)


def _jsonl(data) -> tuple[str, str]:
    import json

    rows = oneshot.rows_of(data, ("doc", "tokens", "clusters"), "documents", required=3)
    for number, (_, tokens, clusters) in enumerate(rows, 1):
        if not isinstance(tokens, (list, tuple)) or not all(isinstance(t, str) for t in tokens):
            raise TypeError(f"the documents: row {number}: 'tokens' must be a list of strings")
        if not isinstance(clusters, (list, tuple)) or not all(
                isinstance(c, (list, tuple)) and all(isinstance(m, (list, tuple)) and len(m) == 2
                                                     for m in c) for c in clusters):
            raise TypeError(f"the documents: row {number}: 'clusters' must be a list of lists "
                            "of [start, end] mentions")
    return "".join(json.dumps({"doc": d, "tokens": list(t), "clusters": [
        [list(m) for m in c] for c in k]}, ensure_ascii=False) + "\n"
        for d, t, k in rows), ".jsonl"


def _metrics(rows: pl.DataFrame) -> dict:
    """``{metric: {recall, precision, f1}}`` for the ratio measures, ``{f1}`` for ``conll``,
    ``{value}`` for rcvt and kappa, ``{direction, value}`` for d_error."""
    out = {}
    for r in rows.iter_rows(named=True):
        m = r["metric"]
        if m in ("blanc_coref", "blanc_noncoref", "pronoun_antecedent"):
            continue  # BLANC's two parts, pronoun/antecedent counts: in the warehouse only
        if m == "conll":
            out[m] = {"f1": r["f1"]}
        elif m in _VALUE_METRICS:
            out[m] = {"value": r["value"]}
        elif m == "d_error":
            out[m] = {"direction": r["direction"], "value": r["value"]}
        else:
            out[m] = {"recall": r["recall"], "precision": r["precision"], "f1": r["f1"]}
    return out


def _text(result: Result) -> str:
    out = [f"signature: {result.signature}", f"{'metric':18} {'R':>7} {'P':>7} {'F':>7}"]
    for name, m in result.report["corpus"].items():
        if "recall" in m:
            out.append(f"{name:18} {100 * m['recall']:7.2f} {100 * m['precision']:7.2f} "
                       f"{100 * m['f1']:7.2f}")
        elif name == "conll":
            out.append(f"{name:18} {'':7} {'':7} {100 * m['f1']:7.2f}")
        elif name == "d_error":
            out.append(f"{name:18} {m['direction']} {m['value']:.4f}")
        else:
            out.append(f"{name:18} {m['value']:7.4f}")
    return "\n".join(out)


def _json(result: Result) -> str:
    import json

    return json.dumps({k: result.report[k] for k in ("corpus", "documents", "signature")},
                      ensure_ascii=False)
