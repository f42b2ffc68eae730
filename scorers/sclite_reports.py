"""sclite's report files from a WER alignment, in sclite's layout, so that the scripts that parse
``sclite -o sum pra dtl`` output keep working on scorehouse's (``scorehouse wer --report DIR``).

* ``.sys``: the system summary by speaker (sclite's ``sum``): per speaker ``# Snt # Wrd`` and the
  percentages ``Corr Sub Del Ins Err S.Err`` of the words, then ``Sum/Avg``, ``Mean``, ``S.D.``
  and ``Median`` over the speakers;
* ``.pra``: every utterance's alignment, speaker by speaker (``id:``, ``Scores: (#C #S #D #I)``,
  ``REF:``, ``HYP:``, ``Eval:`` lines, columns padded to the longer word, ``*`` on the gap side);
* ``.dtl``: the detailed report: sentence and word performance, then the confusion pairs, the
  inserted, deleted, substituted and falsely recognised words with their counts.

An utterance's speaker is its STM speaker, else (trn) the part of its id before the first ``_``
or ``-``, as ``sclite -i spu_id`` reads it. Scores are the case-sensitive layout of ``sclite -s``
(error words are not upper-cased). Pure functions over the aligned rows: ``id``, ``speaker``,
``ref`` and ``hyp`` (aligned token lists, None on the gap side) and ``ops`` (C, S, D, I).
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter


def speaker_of(utt_id: str) -> str:
    """sclite's ``spu_id`` speaker of a trn id: the part before the first ``_`` or ``-``."""
    return re.split(r"[_-]", utt_id, maxsplit=1)[0]


def _counts(rows: list[dict]) -> dict[str, int]:
    ops = Counter("".join(r["ops"] for r in rows))
    return {"snt": len(rows), "C": ops["C"], "S": ops["S"], "D": ops["D"], "I": ops["I"],
            "N": ops["C"] + ops["S"] + ops["D"],
            "serr": sum(1 for r in rows if set(r["ops"]) - {"C"})}


def _by_speaker(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for row in rows:
        out.setdefault(row["speaker"], []).append(row)
    return out


def _percent(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def _half_up(value: float) -> float:
    """sclite rounds a printed figure half up: 77 / 80 = 96.25 % prints 96.3."""
    return math.floor(value * 10 + 0.5) / 10


def sys_report(rows: list[dict], name: str) -> str:
    """The ``.sys`` summary (sclite ``-o sum``)."""
    speakers = _by_speaker(rows)
    table = []
    for speaker, mine in speakers.items():
        c = _counts(mine)
        table.append((speaker, c, [_percent(c[k], c["N"]) for k in ("C", "S", "D", "I")]
                      + [_percent(c["S"] + c["D"] + c["I"], c["N"]), _percent(c["serr"],
                                                                             c["snt"])]))
    total = _counts(rows)
    sums = [_percent(total[k], total["N"]) for k in ("C", "S", "D", "I")] + [
        _percent(total["S"] + total["D"] + total["I"], total["N"]),
        _percent(total["serr"], total["snt"])]
    width = max(64, len(name))  # a longer system name widens the box (not sclite's columns)
    rule = "|" + "-" * width + "|"

    def line(label: str, snt, wrd, values) -> str:
        figures = f"{_half_up(values[0]):5.1f}" + "".join(f"{_half_up(v):7.1f}"
                                                          for v in values[1:])
        sizes = "".join(f"{v:{w}d}" if isinstance(v, int) else f"{_half_up(v):{w}.1f}"
                        for v, w in ((snt, 5), (wrd, 7)))
        return f"| {label:<7}|{sizes} |{figures} |"
    out = [f"{'SYSTEM SUMMARY PERCENTAGES by SPEAKER':^80}", "",
           "," + "-" * width + ".", f"|{name:^{width}}|", rule,
           "| SPKR   | # Snt # Wrd | Corr    Sub    Del    Ins    Err  S.Err |",
           "|--------+-------------+-----------------------------------------|"]
    for i, (speaker, c, values) in enumerate(table):
        out.append(line(speaker, c["snt"], c["N"], values))
        out.append(rule.replace("-" * width, "--------+-------------+" + "-" * 41)
                   if i < len(table) - 1 else "|" + "=" * width + "|")
    out.append(line("Sum/Avg", total["snt"], total["N"], sums))
    out.append("|" + "=" * width + "|")
    columns = list(zip(*[[c["snt"], c["N"], *values] for _, c, values in table])) or [[0]] * 8
    for label, f in (("Mean", statistics.fmean),
                     ("S.D.", lambda v: statistics.stdev(v) if len(v) > 1 else 0.0),
                     ("Median", statistics.median)):
        figures = [float(f(list(col))) for col in columns]
        out.append(line(f"{label:^6}" if label != "Median" else label, figures[0], figures[1],
                        figures[2:]))
    out.append("`" + "-" * width + "'")
    out = [f"|{o[1:-1]:<{width}}|" if o.startswith("|") else o for o in out]
    pad = " " * max((80 - width - 2) // 2, 0)  # sclite centres the table on 80 columns
    return "\n\n\n" + "\n".join([out[0], out[1], *(pad + o for o in out[2:])]) + "\n"


def _size(word: str | None) -> int:
    return len((word or "").encode("utf-8"))  # sclite pads by bytes: été is 5 wide


def _columns(row: dict) -> tuple[str, str, str]:
    refs, hyps, evals = [], [], []
    for ref, hyp, op in zip(row["ref"], row["hyp"], row["ops"]):
        width = max(_size(ref), _size(hyp))
        refs.append(ref + " " * (width - _size(ref)) if ref is not None else "*" * width)
        hyps.append(hyp + " " * (width - _size(hyp)) if hyp is not None else "*" * width)
        evals.append(("" if op == "C" else op).ljust(width))
    return (" ".join(refs) + " ", " ".join(hyps) + " ", " ".join(evals) + " ")


def pra_report(rows: list[dict], name: str) -> str:
    """The ``.pra`` alignments (sclite ``-o pra``), speaker by speaker."""
    speakers = _by_speaker(rows)
    out = ["", "", "\t\tDUMP OF SYSTEM ALIGNMENT STRUCTURE", "", f"System name:   {name}", "",
           "Speakers: "]
    out += [f"{i:5d}:  {speaker}" for i, speaker in enumerate(speakers)]
    out.append("")
    for i, (speaker, mine) in enumerate(speakers.items()):
        out.append(f"Speaker sentences {i:3d}:  {speaker}   #utts: {len(mine)}")
        for row in mine:
            c = _counts([row])
            ref, hyp, evals = _columns(row)
            out += [f"id: ({row['id']})"]
            out += [f"{k}: {row[k]}" for k in ("Labels", "File", "Channel") if row.get(k)]
            out += [f"Scores: (#C #S #D #I) {c['C']} {c['S']} {c['D']} {c['I']}",
                    "Attributes: Case_sensitve "]
            if row["ops"]:  # sclite shows no alignment for an empty pair
                out += [f"REF:  {ref}", f"HYP:  {hyp}", f"Eval: {evals}"]
            out.append("")
    return "\n".join(out) + "\n\n"


def _listing(title: str, counts: Counter, note: str = "") -> list[str]:
    out = [f"{title:<33}Total                 ({len(counts)})",
           f"{'':33}With >=  1 occurrences ({len(counts)})", ""]
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    out += [f"{i:4d}: {n:4d}  ->  {item}" for i, (item, n) in enumerate(ranked, 1)]
    out += ["     -------", f"{sum(counts.values()):10d}", "", ""]
    return out + ([note, ""] if note else []) + [""]


def dtl_report(rows: list[dict], name: str) -> str:
    """The ``.dtl`` detailed report (sclite ``-o dtl``)."""
    total = _counts(rows)
    snt = total["snt"]
    pairs, inserted, deleted, substituted, false = (Counter() for _ in range(5))
    with_s = with_d = with_i = 0
    for row in rows:
        ops = set(row["ops"])
        with_s, with_d, with_i = with_s + ("S" in ops), with_d + ("D" in ops), with_i + ("I" in ops)
        for ref, hyp, op in zip(row["ref"], row["hyp"], row["ops"]):
            if op == "S":
                pairs[f"{ref} ==> {hyp}"] += 1
                substituted[ref] += 1
                false[hyp] += 1
            elif op == "I":
                inserted[hyp] += 1
            elif op == "D":
                deleted[ref] += 1
    n, errors = total["N"], total["S"] + total["D"] + total["I"]
    hyp_words = total["C"] + total["S"] + total["I"]

    def pct(part: int, whole: int, width: int = 5) -> str:
        return f"{_half_up(_percent(part, whole)):{width}.1f}%"

    def sentences(label: str, part: int) -> str:
        return f"{label:<40}{pct(part, snt)}   ({part:4d})"
    out = [f"DETAILED OVERALL REPORT FOR THE SYSTEM: {name}", "",
           "SENTENCE RECOGNITION PERFORMANCE", "", f" sentences{snt:>44}",
           sentences(" with errors", total["serr"]), "",
           sentences("   with substitions", with_s), sentences("   with deletions", with_d),
           sentences("   with insertions", with_i), "", "",
           "WORD RECOGNITION PERFORMANCE", "",
           f"Percent Total Error       = {pct(errors, n, 6)}   ({errors:4d})", "",
           f"Percent Correct           = {pct(total['C'], n, 6)}   ({total['C']:4d})", "",
           f"Percent Substitution      = {pct(total['S'], n, 6)}   ({total['S']:4d})",
           f"Percent Deletions         = {pct(total['D'], n, 6)}   ({total['D']:4d})",
           f"Percent Insertions        = {pct(total['I'], n, 6)}   ({total['I']:4d})",
           f"Percent Word Accuracy     = {pct(n - errors, n, 6)}", "", "",
           f"Ref. words                =           ({n:4d})",
           f"Hyp. words                =           ({hyp_words:4d})",
           f"Aligned words             =           ({sum(len(r['ops']) for r in rows):4d})", ""]
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
