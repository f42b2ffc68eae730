"""``scorehouse wer REF HYP`` on small inputs, without the warehouse: the same figures, signature
and output bytes as the pipeline's (:mod:`warehouse.families.wer_oneshot`), in plain Python, so
that the command loads none of NumPy, Arrow, Polars and DuckDB (issue 27: under 0.3 s).

Small means: two trn or JSON lines files of at most :data:`SMALL_BYTES` bytes together, whose
utterances need at most :data:`SMALL_CELLS` cells of alignment (the sum over utterances of
(R + 1) x (H + 1), R and H the units aligned), scored with ``--method none``, sclite's separators
and no ``--report``. Anything else (a bigger input, another format, method or option, an input
the readers would reject or an id the reference lacks, an empty reference, with ``--case unicode``
a character Python's Unicode database does not know yet, which Polars may fold) goes to the
pipeline, whose answer, figures or error, is the reference.

Every step is the warehouse's own, read from one place: the file as :func:`etl.text.prepared`
gives it, the rows of :func:`etl.plain.small_rows` (``etl/trn.py``'s pattern and limits, the
JSON lines reader's own loop), the words of :func:`scorers.wer_rules.plain_words` (method
``none``, thesis section 4.4.1), the alignment of :func:`scorers.edit.align_pair` (the batched
one's definition, sclite's costs and ties), the counts of ``sql/wer/fct_wer_utterance.sql`` (C,
S, D, I from the ops, N = C + S + D) and the micro average of ``mart_wer_scores.sql``
(WER = (S + D + I) / N, the thesis's), the signature of :func:`scorers.wer_rules.signature`,
printed by ``wer_oneshot``'s renderers. ``tests/test_wer_small.py`` checks both paths give the
same bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

from scorehouse.etl.errors import InputError
from scorehouse.etl.plain import format_of, small_rows
from scorehouse.etl.text import prepared, read_bytes
from scorehouse.scorers.edit import COSTS, NULL, align_pair
from scorehouse.scorers.wer_rules import (
    Markers,
    known_to_python,
    plain_units,
    plain_words,
    signature,
)
from scorehouse.warehouse.families.wer_oneshot import _json, _text
from scorehouse.warehouse.oneshot import Result, is_path, label
from scorehouse.warehouse.versions import code_version

SMALL_BYTES = 64 * 1024  # the two files together
SMALL_CELLS = 200_000  # alignment cells, all utterances together (~0.1 s in plain Python)
FAMILY = f"{__package__}.wer"  # the module whose code version the signatures carry


def score(reference, hypothesis, *, method: str = "none", case: str = "insensitive",
          separators: str = "sclite", costs: str = "sclite", unit: str = "word",
          format: str = "auto", id_field: str = "id", text_field: str = "text",
          report: str | None = None) -> Result | None:
    """The one-shot's result for small inputs (the module docstring says which), else None."""
    if (method != "none" or separators != "sclite" or report is not None or not id_field
            or not text_field or costs not in COSTS or format not in ("auto", "trn", "jsonl")):
        return None
    if not (is_path(reference) and is_path(hypothesis)):
        return None
    sides = [_rows(path, format, id_field, text_field)
             for path in _small_files(reference, hypothesis)]
    if len(sides) != 2 or None in sides or not sides[0]:
        return None
    ref_rows, hyp_rows = sides
    if case == "unicode" and not all(known_to_python(text) for _, _, text in ref_rows + hyp_rows):
        return None  # a character newer than Python's Unicode: Polars may fold it, Python not
    hyp_text = {utt: text for _, utt, text in hyp_rows}
    if not hyp_text.keys() <= {utt for _, utt, _ in ref_rows}:
        return None  # the pipeline rejects the hypotheses, naming the unknown ids
    pairs = [(utt, plain_units(plain_words(text, case), unit),
              plain_units(plain_words(hyp_text.get(utt), case), unit), utt not in hyp_text)
             for _, utt, text in ref_rows]
    if sum((len(r) + 1) * (len(h) + 1) for _, r, h, _ in pairs) > SMALL_CELLS:
        return None
    items, missing = [], []
    for utt, ref, hyp, absent in pairs:
        ops = align_pair(ref, hyp, COSTS[costs], NULL)
        items.append({"id": utt, **{k: ops.count(k) for k in "CSDI"}, "ops": ops})
        if absent:
            missing.append(utt)
    totals = {k: sum(row[k] for row in items) for k in "CSDI"}
    n = totals["C"] + totals["S"] + totals["D"]
    totals |= {"N": n, "wer": (totals["S"] + totals["D"] + totals["I"]) / n if n else None}
    sig = signature(method, case, Markers(), COSTS[costs], code_version("wer", FAMILY), unit,
                    separators)
    header = {"signature": sig, "totals": totals, "missing": missing}
    return Result("wer", sig, [totals], items, header, [], (label(reference), label(hypothesis)),
                  render=_text, render_json=_json)


def _small_files(*paths) -> list[Path]:
    """The paths, when they are regular files of at most :data:`SMALL_BYTES` together."""
    try:
        sizes = [os.stat(p).st_size for p in paths if Path(p).is_file()]
    except OSError:
        return []
    return [Path(p) for p in paths] if len(sizes) == len(paths) and sum(sizes) <= SMALL_BYTES \
        else []


def _rows(path: Path, declared: str, id_field: str, text_field: str
          ) -> list[tuple[int, str, str]] | None:
    """A transcript's rows as the pipeline stages them, or None (Kaldi, STM or CTM, a file the
    pipeline rejects)."""
    try:
        return small_rows(path, prepared(path, read_bytes(path)), format_of(path, declared),
                          id_field, text_field)
    except (OSError, InputError):
        return None
