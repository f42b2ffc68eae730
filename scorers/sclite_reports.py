"""sclite's report files from a WER alignment, in sclite's layout, so that the scripts that parse
``sclite -o sum pra dtl`` output keep working on scorehouse's (``scorehouse wer --report DIR``).

* ``.sys``: the system summary by speaker (sclite's ``sum``: scorers/sclite_sys.py);
* ``.pra``: every utterance's alignment, speaker by speaker (``id:``, ``Scores: (#C #S #D #I)``,
  ``REF:``, ``HYP:``, ``Eval:`` lines, columns padded to the longer word in bytes, ``*`` on the
  gap side, an alignment longer than 1,000 bytes continued on ``>> REF:`` lines);
* ``.dtl``: the detailed report: sentence and word performance, then the confusion pairs, the
  inserted, deleted, substituted and falsely recognised words with their counts.

An utterance's speaker is its STM speaker, else (trn) the part of its id before the first ``-``,
or before the first ``_`` when there is no ``-``, as ``sclite -i spu_id`` reads it. Speakers and
utterances come in the order of the rows (the caller gives the hypothesis file's, as sclite
lists them). The layout is ``sclite -s``'s, or, for a case-insensitive alignment, sclite's
default (``pra_report(sensitive=False)``: an error's words upper-cased, no ``Attributes`` line;
the caller folds the ids). Percentages are rounded as sclite rounds them (``f_round``). Pure
functions (:func:`reports`) over the aligned rows, a Polars frame: ``id``, ``speaker``, ``ref``
and ``hyp`` (aligned token lists, None on the gap side) and ``ops`` (C, S, D, I). The counts are
Polars aggregations; the ``.pra`` is made a batch of utterances at a time, for its file to be
written as it is made (200,000 utterances, ``bench/wer_bench.py --with-sclite``: the whole
``scorehouse wer --report`` 17.4 -> 7.9 s and 953 -> 684 MiB, the same bytes but a corrected
``.dtl`` total; sclite 36.4 s and 6.2 GB).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

import polars as pl

from scorehouse.scorers import sclite_sys
from scorehouse.scorers.sclite_sys import f_round, pct


def speaker_of(utt_id: str) -> str:
    """sclite's ``spu_id`` speaker of a trn id: the part before the first ``-`` when there is
    one, else before the first ``_`` (``extract_speaker`` in SCTK's align.c: ``ab_1-1`` is
    speaker ``ab_1``)."""
    return utt_id.split("-", 1)[0] if "-" in utt_id else utt_id.split("_", 1)[0]


def reports(rows: pl.DataFrame, name: str, sensitive: bool = True,
            chars: bool = False) -> dict[str, Iterable[str]]:
    """The three reports of the system ``name`` (``suffix -> its text, in pieces``: the
    ``.pra`` is made as it is written) from ``rows``: ``id``, ``ref``, ``hyp`` and ``ops``, and
    optionally an STM segment's ``speaker``, ``Labels``, ``File`` and ``Channel``, in the
    hypothesis file's order (:func:`by_speaker` groups them); ``sensitive``: ``sclite -s``'s
    layout, else sclite's default; ``chars``: CER (``sclite -c``)."""
    rows = rows.with_columns(pl.lit(None, pl.String).alias(field)
                             for field in ("speaker", "Labels", "File", "Channel")
                             if field not in rows.columns)
    speaker = pl.col("speaker")  # an STM segment's, else the trn id's (sclite -i spu_id)
    rows = by_speaker(rows.with_columns(pl.when(speaker.is_null() | (speaker == ""))
                                        .then(speaker_expr(pl.col("id"))).otherwise(speaker)
                                        .alias("speaker")))
    speakers = speaker_counts(rows)
    return {"sys": [sys_report(speakers, name, chars)],
            "pra": pra_report(rows, speakers, name, sensitive), "dtl": [dtl_report(rows, name)]}


def speaker_expr(ids: pl.Expr) -> pl.Expr:
    """:func:`speaker_of` of every id of a Polars column."""
    return (pl.when(ids.str.contains("-", literal=True)).then(ids.str.split("-").list.first())
            .otherwise(ids.str.split("_").list.first()))


def by_speaker(rows: pl.DataFrame) -> pl.DataFrame:
    """The rows speaker by speaker, each speaker's in their order, the speakers in the order of
    their first row (sclite's: the hypothesis file's)."""
    return (rows.with_row_index("_row").sort(pl.col("_row").min().over("speaker"), "_row")
            .drop("_row"))


def _op_counts() -> list[pl.Expr]:
    """The sentences (``snt``), the ops (``C``, ``S``, ``D``, ``I``) and the sentences with an
    error (``serr``) of a group of utterances."""
    ops = pl.col("ops")
    return [pl.len().alias("snt"),
            *(ops.str.count_matches(op, literal=True).sum().alias(op) for op in "CSDI"),
            ops.str.contains("[^C]").sum().alias("serr")]


def speaker_counts(rows: pl.DataFrame) -> list[tuple[str, dict[str, int]]]:
    """Each speaker's sentences (``snt``), ops (``C``, ``S``, ``D``, ``I``), reference words
    (``N``) and sentences with an error (``serr``), in the order of :func:`by_speaker`."""
    counts = rows.group_by("speaker", maintain_order=True).agg(_op_counts())
    return [(row.pop("speaker"), {**row, "N": row["C"] + row["S"] + row["D"]})
            for row in counts.rows(named=True)]


def _percent(part: int, whole: int, width: int) -> str:
    return f"{f_round(pct(part, whole), 1):{width}.1f}%"


def sys_report(speakers: list[tuple[str, dict[str, int]]], name: str, chars: bool = False) -> str:
    """The ``.sys`` summary (sclite ``-o sum``: scorers/sclite_sys.py; ``chars``: CER) of the
    :func:`speaker_counts`."""
    return sclite_sys.sys_report(speakers, name, chars)


LINE_BYTES = 1000  # sclite's alignment line width (-l): longer alignments go on >> lines
_GAP = "*" * 40  # sclite's gap: at most 40 stars, then blank padding


def _passes(widths: list[int]) -> list[tuple[int, int]]:
    """The (from, to) word ranges of each printed pass (``PATH_n_print``) of columns
    ``widths`` wide: words are added while the line is under :data:`LINE_BYTES` bytes, the one
    that crossed it starting the next pass."""
    out, used = [], 0
    while used < len(widths):
        length, i = (9 if used else 6), used
        while length < LINE_BYTES and i < len(widths):
            length += 1 + widths[i]
            i += 1
        end = max(i - (1 if i < len(widths) else 0), used + 1)
        out.append((used, end))
        used = end
    return out


ASCII_LOWER, ASCII_UPPER = list("abcdefghijklmnopqrstuvwxyz"), list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_UPPER = str.maketrans("".join(ASCII_LOWER), "".join(ASCII_UPPER))  # sclite's, ASCII letters


def _alignment(refs: list, hyps: list, ops: str, sensitive: bool = True) -> list[str]:
    """The ``REF:``, ``HYP:`` and ``Eval:`` lines of one utterance (its aligned words, None on
    the gap side, and ops), columns padded to the wider word in bytes, ``*`` on the gap side, cut
    in passes (:func:`_passes`) continued on ``>>`` lines; without ``-s`` (``sensitive`` false)
    the ASCII letters of an error's words are upper-cased."""
    ref_cells, hyp_cells, eval_cells, widths = [], [], [], []
    for ref, hyp, op in zip(refs, hyps, ops):
        # sclite pads by bytes: été is 5 wide
        r = 0 if ref is None else len(ref) if ref.isascii() else len(ref.encode("utf-8"))
        h = 0 if hyp is None else len(hyp) if hyp.isascii() else len(hyp.encode("utf-8"))
        ref_width, hyp_width = (1 if ref is None else r), (1 if hyp is None else h)
        width = ref_width if ref_width > hyp_width else hyp_width
        ref_cell = ref + " " * (width - r) if ref is not None else _GAP[:h].ljust(width)
        hyp_cell = hyp + " " * (width - h) if hyp is not None else _GAP[:r].ljust(width)
        if op == "C":
            eval_cells.append(" " * width)
        else:
            eval_cells.append(op + " " * (width - 1))
            if not sensitive:
                ref_cell, hyp_cell = ref_cell.translate(_UPPER), hyp_cell.translate(_UPPER)
        ref_cells.append(ref_cell)
        hyp_cells.append(hyp_cell)
        widths.append(width)
    lines = []
    for start, end in _passes(widths):
        more = ">> " if start else ""
        lines += ([""] if start else []) + [
            f"{more}REF:  " + " ".join(ref_cells[start:end]) + " ",
            f"{more}HYP:  " + " ".join(hyp_cells[start:end]) + " ",
            f"{more}Eval: " + " ".join(eval_cells[start:end]) + " "]
    return lines


_COLUMNS = ("speaker", "id", "ref", "hyp", "ops", "Labels", "File", "Channel")


def pra_report(rows: pl.DataFrame, speakers: list[tuple[str, dict[str, int]]], name: str,
               sensitive: bool = True, batch: int = 20_000) -> Iterator[str]:
    """The ``.pra`` alignments (sclite ``-o pra``) of ``rows`` (ordered :func:`by_speaker`,
    counted by :func:`speaker_counts`), in pieces of ``batch`` utterances (a file written as it
    is made): with ``-s`` when ``sensitive``, else sclite's default layout (no ``Attributes``
    line, errors upper-cased)."""
    out = ["", "", "\t\tDUMP OF SYSTEM ALIGNMENT STRUCTURE", "", f"System name:   {name}", "",
           "Speakers: "]
    out += [f"   {i:2d}:  {speaker}" for i, (speaker, _) in enumerate(speakers)]
    out.append("")
    numbers = {speaker: (i, counts["snt"]) for i, (speaker, counts) in enumerate(speakers)}
    current = None
    for piece in rows.select(_COLUMNS).iter_slices(batch):
        for speaker, utt, refs, hyps, ops, *fields in piece.iter_rows():
            if speaker != current:
                current, (i, utts) = speaker, numbers[speaker]
                out.append(f"Speaker sentences{i:4d}:  {speaker}   #utts: {utts}")
            out.append(f"id: ({utt})")
            out += [f"{k}: {v}" for k, v in zip(("Labels", "File", "Channel"), fields) if v]
            out.append(f"Scores: (#C #S #D #I) {ops.count('C')} {ops.count('S')} "
                       f"{ops.count('D')} {ops.count('I')}")
            out += ["Attributes: Case_sensitve "] if sensitive else []
            out += _alignment(refs, hyps, ops, sensitive)  # none for an empty pair, as sclite
            out.append("")
        yield "".join(line + "\n" for line in out)
        out = []
    yield "".join(line + "\n" for line in out) + "\n"


def _listing(title: str, counts: Counter, note: str = "") -> list[str]:
    out = [f"{title:<33}Total                 ({len(counts)})",
           f"{'':33}With >=  1 occurrences ({len(counts)})", ""]
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    out += [f"{i:4d}: {n:4d}  ->  {item}" for i, (item, n) in enumerate(ranked, 1)]
    out += ["     -------", f"     {sum(counts.values()):5d}", "", ""]  # sclite: 5 + %5d
    return out + ([note, ""] if note else []) + [""]


def _errors(rows: pl.DataFrame) -> pl.DataFrame:
    """One row per substitution, insertion and deletion of ``rows``: ``(ref, hyp, ops)``."""
    return (rows.filter(pl.col("ops") != "").select("ref", "hyp", pl.col("ops").str.split(""))
            .explode("ref", "hyp", "ops").filter(pl.col("ops") != "C"))


def _counter(errors: pl.DataFrame, op: str, word: pl.Expr) -> Counter:
    return Counter(dict(errors.filter(pl.col("ops") == op).group_by(word.alias("w")).len().rows()))


def dtl_report(rows: pl.DataFrame, name: str, batch: int = 200_000) -> str:
    """The ``.dtl`` detailed report (sclite ``-o dtl``) of ``rows`` (their errors gathered
    ``batch`` utterances at a time)."""
    ops = pl.col("ops")
    total = rows.select(
        *_op_counts(),
        *(ops.str.contains(op, literal=True).sum().alias(f"with_{op}") for op in "SDI"),
        ops.str.len_chars().sum().alias("aligned")).row(0, named=True)
    total["N"] = total["C"] + total["S"] + total["D"]
    snt, with_s, with_d, with_i = total["snt"], total["with_S"], total["with_D"], total["with_I"]
    wrong = pl.concat([_errors(piece) for piece in rows.iter_slices(batch)])
    ref, hyp = pl.col("ref"), pl.col("hyp")
    pairs = _counter(wrong, "S", pl.format("{} ==> {}", ref, hyp))
    substituted, false = _counter(wrong, "S", ref), _counter(wrong, "S", hyp)
    inserted, deleted = _counter(wrong, "I", hyp), _counter(wrong, "D", ref)
    n, errors = total["N"], total["S"] + total["D"] + total["I"]
    hyp_words = total["C"] + total["S"] + total["I"]

    def sentences(label: str, part: int) -> str:
        return f"{label:<40}{_percent(part, snt, 5)}   ({part:4d})"

    def word(label: str, part: int) -> str:  # sclite prints UNDEF without reference words
        figure = _percent(part, n, 5) if n else "UNDEF%"
        return f"{label:<26}=  {figure}   ({part:4d})"
    accuracy = f"{f_round(100.0 - pct(errors, n), 1):5.1f}%" if n else "UNDEF%"
    out = [f"DETAILED OVERALL REPORT FOR THE SYSTEM: {name}", "",
           "SENTENCE RECOGNITION PERFORMANCE", "", f" sentences{'':40}{snt:4d}",
           sentences(" with errors", total["serr"]), "",
           sentences("   with substitions", with_s), sentences("   with deletions", with_d),
           sentences("   with insertions", with_i), "", "",
           "WORD RECOGNITION PERFORMANCE", "",
           word("Percent Total Error", errors), "", word("Percent Correct", total["C"]), "",
           word("Percent Substitution", total["S"]), word("Percent Deletions", total["D"]),
           word("Percent Insertions", total["I"]),
           f"Percent Word Accuracy     =  {accuracy}", "", "",
           f"Ref. words                =           ({n:4d})",
           f"Hyp. words                =           ({hyp_words:4d})",
           f"Aligned words             =           ({total['aligned']:4d})", ""]
    out += _listing("CONFUSION PAIRS", pairs)
    out += _listing("INSERTIONS", inserted)
    out += _listing("DELETIONS", deleted)
    out += _listing("SUBSTITUTIONS", substituted,
                    "* NOTE: The 'Substitution' words are those reference words\n"
                    "        for which the recognizer supplied an incorrect word.")
    out += _listing("FALSELY RECOGNIZED", false,
                    "* NOTE: The 'Falsely Recognized' words are those hypothesis words\n"
                    "        which the recognizer incorrectly substituted for a reference word.")
    return "\n".join(out[:-1]) + "\n"
