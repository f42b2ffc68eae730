"""``scorehouse.terms(...)`` and ``scorehouse terms REF OUTPUT``: one term list scored against a
reference list through the terminology family's pipeline (:mod:`warehouse.oneshot`), as
Termometer scores it."""

from __future__ import annotations

from pathlib import Path  # noqa: F401  (option types are read from the annotations)
from typing import Annotated, Literal

import polars as pl

from scorehouse.warehouse import oneshot
from scorehouse.warehouse.db import frame
from scorehouse.warehouse.families.terms import signature
from scorehouse.warehouse.oneshot import OptionError, Result, Source

_REPORT = ("sigma", "TP", "TR", "F", "P", "R", "F_exact", "parts", "aligned_terms")


@oneshot.checked
def terms(reference: Source, output: Source, *,
          sigma: Annotated[float, "Output terms within this distance dt of a reference term are "
                                  "aligned to it (0 to 1)."] = 0.4,
          case: Annotated[Literal["keep", "lower"],
                          "Case policy of the normalisation (NFC and whitespace always)."] = "keep",
          top: Annotated[int | None, "Score only the first N terms of a ranked OUTPUT."] = None,
          sweep: Annotated[bool, "Scores for sigma = 0, 0.05, ..., 1 (the paper's figure 3)."]
          = False) -> Result:
    """Score a term list OUTPUT (one term per line, optionally term<TAB>score) against a
    REFERENCE list (term or term<TAB>label) as Termometer does: graded term precision TP and
    recall TR (an output term counts 1 - dt when its nearest reference term is within sigma;
    output terms sharing their nearest reference term count once), their F, and the classical
    exact-match P, R, F.
    \f
    In Python, ``reference`` and ``output`` are paths, lists of strings, or tables with a
    ``term`` column (and ``label``, for a reference; ``score``, for an output). ``scores``: one
    row (or one per sigma with ``sweep``); ``items``: each distinct output term with its rank,
    nearest reference term and distance dt.
    """
    if not 0 <= sigma <= 1:
        raise OptionError(f"sigma must be between 0 and 1, not {sigma}")
    if top is not None and top < 1:
        raise OptionError(f"top must be at least 1, not {top}")
    con, campaign, notes = oneshot.score(
        "terms", reference, output, {"sigma": sigma, "case": case, "top": [top] if top else [],
                                     "intervals": False},
        roles=("reference", "terms"),
        writers={"reference": _lines(("term", "label")), "terms": _lines(("term", "score"))})
    try:
        table = "mart_terms_sweep" if sweep else "mart_terms_scores"
        rows = frame(con, "SELECT sigma, tp, tr, f, precision, recall, f_exact, parts, "
                          f"aligned_terms FROM {table} WHERE system = 'sys' "
                          "AND reference = 'reference' AND slice = 'all' AND top = ? "
                          "ORDER BY sigma", [top or 0])
        items = frame(con, "SELECT term, rank, score, nearest, nearest_label, dt, exact "
                           "FROM int_terms_alignment WHERE system = 'sys' "
                           "AND reference = 'reference' AND slice = 'all' ORDER BY rank, term")
    finally:
        con.close()
    report = [dict(zip(_REPORT, row)) for row in rows.iter_rows()]
    return Result("terms", signature(sigma, case), pl.DataFrame(report), items,
                  {"rows": report} if sweep else report[0], notes,
                  (oneshot.label(reference), oneshot.label(output)), render=_text,
                  render_json=_json)


def _lines(columns: tuple[str, str]):
    def write(data) -> tuple[str, str]:
        rows = oneshot.rows_of(data, columns, "term list", forbid="\n\r\t")
        return "".join(term + ("" if extra is None else f"\t{extra}") + "\n"
                       for term, extra in rows), ".tsv"
    return write


def _rows(result: Result) -> list[dict]:
    return result.report["rows"] if "rows" in result.report else [result.report]


def _json(result: Result) -> str:
    import json

    return json.dumps(_rows(result) if "rows" in result.report else result.report,
                      ensure_ascii=False)


def _text(result: Result) -> str:
    out = [f"{'sigma':>5} {'TP':>6} {'TR':>6} {'F':>6} {'P':>6} {'R':>6} {'F_exact':>7} "
           f"{'parts':>6} {'aligned':>7}"]
    for r in _rows(result):
        out.append(f"{r['sigma']:5.2f} {100 * r['TP']:6.2f} {100 * r['TR']:6.2f} "
                   f"{100 * r['F']:6.2f} {100 * r['P']:6.2f} {100 * r['R']:6.2f} "
                   f"{100 * r['F_exact']:7.2f} {r['parts']:6d} {r['aligned_terms']:7d}")
    return "\n".join(out)
