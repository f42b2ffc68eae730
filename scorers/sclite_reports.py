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
functions over the aligned rows: ``id``, ``speaker``, ``ref`` and ``hyp`` (aligned token lists,
None on the gap side) and ``ops`` (C, S, D, I).
"""

from __future__ import annotations

from collections import Counter

from scorehouse.scorers import sclite_sys
from scorehouse.scorers.sclite_sys import f_round, pct


def speaker_of(utt_id: str) -> str:
    """sclite's ``spu_id`` speaker of a trn id: the part before the first ``-`` when there is
    one, else before the first ``_`` (``extract_speaker`` in SCTK's align.c: ``ab_1-1`` is
    speaker ``ab_1``)."""
    return utt_id.split("-", 1)[0] if "-" in utt_id else utt_id.split("_", 1)[0]


def _counts(rows: list[dict]) -> dict[str, int]:
    ops = Counter("".join(r["ops"] for r in rows))
    return {"snt": len(rows), "C": ops["C"], "S": ops["S"], "D": ops["D"], "I": ops["I"],
            "N": ops["C"] + ops["S"] + ops["D"],
            "serr": sum(1 for r in rows if set(r["ops"]) - {"C"})}


def _by_speaker(rows: list[dict]) -> dict[str, list[dict]]:
    """The rows speaker by speaker, in the order of the rows (sclite's: the hypothesis file's)."""
    out: dict[str, list[dict]] = {}
    for row in rows:
        out.setdefault(row["speaker"], []).append(row)
    return out


def _percent(part: int, whole: int, width: int) -> str:
    return f"{f_round(pct(part, whole), 1):{width}.1f}%"


def sys_report(rows: list[dict], name: str, chars: bool = False) -> str:
    """The ``.sys`` summary (sclite ``-o sum``: scorers/sclite_sys.py; ``chars``: CER)."""
    return sclite_sys.sys_report([(speaker, _counts(mine))
                                  for speaker, mine in _by_speaker(rows).items()], name, chars)


LINE_BYTES = 1000  # sclite's alignment line width (-l): longer alignments go on >> lines
_GAP = "*" * 40  # sclite's gap: at most 40 stars, then blank padding


def _size(word: str | None) -> int:
    return len((word or "").encode("utf-8"))  # sclite pads by bytes: été is 5 wide


def _pad(word: str, width: int) -> str:
    return word + " " * (width - _size(word))


def _passes(row: dict) -> list[tuple[int, int]]:
    """The (from, to) word ranges of each printed pass (``PATH_n_print``): words are added while
    the line is under :data:`LINE_BYTES` bytes, the one that crossed it starting the next pass."""
    widths = [max(_size(ref) if ref is not None else 1, _size(hyp) if hyp is not None else 1)
              for ref, hyp in zip(row["ref"], row["hyp"])]
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


_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """sclite's case folding without ``-s``: ASCII letters only (C ``tolower``)."""
    return text.translate(_LOWER)


def _alignment(row: dict, sensitive: bool = True) -> list[str]:
    """The ``REF:``, ``HYP:`` and ``Eval:`` lines, columns padded to the wider word in bytes,
    ``*`` on the gap side, cut in passes (:func:`_passes`) continued on ``>>`` lines; without
    ``-s`` (``sensitive`` false) the ASCII letters of an error's words are upper-cased."""
    lines = []
    for start, end in _passes(row):
        refs, hyps, evals = [], [], []
        for ref, hyp, op in zip(row["ref"][start:end], row["hyp"][start:end],
                                row["ops"][start:end]):
            width = max(_size(ref) if ref is not None else 1, _size(hyp) if hyp is not None else 1)
            refs.append(_pad(ref if ref is not None else _GAP[:_size(hyp)], width))
            hyps.append(_pad(hyp if hyp is not None else _GAP[:_size(ref)], width))
            evals.append(_pad("" if op == "C" else op, width))
            if not sensitive and op != "C":
                refs[-1], hyps[-1] = refs[-1].translate(_UPPER), hyps[-1].translate(_UPPER)
        more = ">> " if start else ""
        lines += ([""] if start else []) + [f"{more}REF:  " + " ".join(refs) + " ",
                                            f"{more}HYP:  " + " ".join(hyps) + " ",
                                            f"{more}Eval: " + " ".join(evals) + " "]
    return lines


def pra_report(rows: list[dict], name: str, sensitive: bool = True) -> str:
    """The ``.pra`` alignments (sclite ``-o pra``), speaker by speaker: with ``-s`` when
    ``sensitive``, else sclite's default layout (no ``Attributes`` line, errors upper-cased)."""
    speakers = _by_speaker(rows)
    out = ["", "", "\t\tDUMP OF SYSTEM ALIGNMENT STRUCTURE", "", f"System name:   {name}", "",
           "Speakers: "]
    out += [f"   {i:2d}:  {speaker}" for i, speaker in enumerate(speakers)]
    out.append("")
    for i, (speaker, mine) in enumerate(speakers.items()):
        out.append(f"Speaker sentences{i:4d}:  {speaker}   #utts: {len(mine)}")
        for row in mine:
            c = _counts([row])
            out += [f"id: ({row['id']})"]
            out += [f"{k}: {row[k]}" for k in ("Labels", "File", "Channel") if row.get(k)]
            out += [f"Scores: (#C #S #D #I) {c['C']} {c['S']} {c['D']} {c['I']}"]
            out += ["Attributes: Case_sensitve "] if sensitive else []
            out += _alignment(row, sensitive)  # sclite shows no alignment for an empty pair
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
