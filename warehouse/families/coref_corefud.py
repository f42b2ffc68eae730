"""``scorehouse coref KEY RESPONSE --format corefud``: CorefUD files scored as the official
CorefUD scorer (version 1.2) scores them (:mod:`scorers.corefud`), for the corpus and per
document. Files are read by :mod:`etl.corefud` and checked to hold the same sentences; a key
document the response lacks is a rejection (the official scorer stops on an assertion).

Žabokrtský et al., "Findings of the Second Shared Task on Multilingual Coreference Resolution"
(CRAC 2023), section 4. The campaign side (CorefUD corpora in a coreference task) is not there
yet: a task's corpora and submissions are CoNLL-2012 or JSON lines.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from scorehouse.etl.corefud import CorefUD, check_aligned, read_corefud
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
