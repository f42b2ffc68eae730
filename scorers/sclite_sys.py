"""sclite's ``.sys`` summary by speaker (``sclite -o sum``), laid out as SCTK lays it out: a port
of the table generator sclite prints it with (``rpg.c``: column widths from the widest cell of
every row sharing the column count, the spare width spread over the columns, the table centred
on 80 columns) and of the figures ``print_system_summary`` puts in it (``scores.c``).

The classes of layout this gets right, each checked against the binary
(``tests/test_sclite_layouts.py``): a speaker id of any length widens the first column; counts of
any size widen theirs (``# Wrd`` at 1,000 words and more, 10,000 sentences); percentages of any
sign and size (accuracy at -100 % or below, error at 1,000 % and above) widen theirs; a system
name wider than the table widens the whole table; widths are in bytes, so a UTF-8 name is padded
and centred by its bytes; a speaker without reference words shows raw counts marked ``*`` and is
left out of the Mean, S.D. and Median (marked ``+``), with sclite's footnote. Figures are rounded
as sclite's ``F_ROUND`` rounds ``num / den * 100``: half away from zero on the binary double, so
23 / 80 prints ``28.7`` (``0.2875 * 100`` is just below 28.75).
"""

from __future__ import annotations

import math

PAGE = 80  # sclite's SCREEN_WIDTH


def f_round(value: float, places: int) -> float:
    """sclite's ``F_ROUND``: ``(float)(int)(v * 10^p ± 0.5) / 10^p``."""
    scale = 10.0 ** places
    return float(int(value * scale + (0.5 if value > 0.0 else -0.5))) / scale


def pct(num: float, den: float) -> float:
    """sclite's ``pct``: ``num / den * 100`` in that order, 0 when ``den`` is 0."""
    return 0.0 if den == 0 else num / den * 100.0


def center(text: str, width: int) -> str:
    """sclite's ``center`` (pad.c): the extra space goes to the right; widths in bytes."""
    size = len(text.encode("utf-8"))
    front = (width - size) // 2
    return " " * max(front, 0) + text + " " * max(width - (size + front), 0)


def _bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def table(rows: list[tuple[str, str, list[str]]]) -> list[str]:
    """The lines ``Desc_dump_report`` prints for ``rows``: (separations before the row, format
    such as ``l|cc|cccccc``, cell values). Formats use ``l``, ``c``, ``r`` and ``|`` only."""
    defs = {}
    for _, fmt, _ in rows:
        if fmt not in defs:
            just = [ch for ch in fmt if ch in "lcr"]
            inter = [(fmt[i + 1] if i + 1 < len(fmt) and fmt[i + 1] == "|" else " ")
                     for i, ch in enumerate(fmt) if ch in "lcr"]
            defs[fmt] = (just, inter)
    sizes: dict[int, list[int]] = {}  # per column count, shared by every format with that count
    for _, fmt, values in rows:
        count = len(defs[fmt][0])
        mine = sizes.setdefault(count, [0] * count)
        for c, value in enumerate(values):
            mine[c] = max(mine[c], _bytes(value))
    minimum = {fmt: 2 + sum(sizes[len(j)]) + len(j) - 1 for fmt, (j, _) in defs.items()}
    width = max(minimum.values())
    pad = " " * ((PAGE - width) // 2) if width < PAGE else ""
    out = [pad + "," + "-" * (width - 2) + "."]
    previous = None
    for separations, fmt, values in rows:
        just, inter = defs[fmt]
        count = len(just)
        text_sizes = sizes[count]
        under, added, column_sizes = width - minimum[fmt], 0, []
        for c in range(count):
            if c != count - 1:
                adjust = int(f_round(under / count * (c + 1), 0)) - added
                added += adjust
            else:
                adjust = under - added
            column_sizes.append(text_sizes[c] + adjust)
        for sep in separations:
            line = "|"
            for c in range(count):
                line += sep * column_sizes[c]
                if c != count - 1:
                    above = defs[previous][1] if previous else []
                    mark, before = inter[c], (above[c] if c < len(above) else "")
                    line += ("+" if mark == "|" and sep == "-" and before == "|" else sep)
            out.append(pad + line + "|")
        line = "|"
        for c in range(count):
            size, text = column_sizes[c], text_sizes[c]
            value = values[c] if c < len(values) else ""
            cell = (center(value, text) if just[c] == "c" else
                    value + " " * (text - _bytes(value)) if just[c] == "l" else
                    " " * (text - _bytes(value)) + value)
            line += " " * ((size - text) // 2) + cell + " " * (size - text - (size - text) // 2)
            if c != count - 1:
                line += inter[c]
        out.append(pad + line + "|")
        previous = fmt
    return out + [pad + "`" + "-" * (width - 2) + "'"]


def _stats(values: list[float]) -> tuple[float, float, float]:
    """``calc_mean_var_std_dev_Zstat``: mean, standard deviation (n - 1), median."""
    if not values:
        return 0.0, 0.0, 0.0
    mean = sum(values) / len(values)
    ranked, half = sorted(values), len(values) // 2
    median = ranked[half] if len(values) % 2 else (ranked[half] + ranked[half - 1]) / 2
    spread = sum((v - mean) * (v - mean) for v in values)
    return mean, (math.sqrt(spread / (len(values) - 1)) if spread != 0.0 else 0.0), median


def sys_report(speakers: list[tuple[str, dict]], name: str, chars: bool = False) -> str:
    """The ``.sys`` text from each speaker's counts (``snt``, ``serr``, ``C``, ``S``, ``D``,
    ``I``), in sclite's speaker order; ``chars``: a character alignment (``-c``: ``# Chr``)."""
    columns = ("C", "S", "D", "I", "E")
    arrays = {k: [] for k in columns}
    snts, words, serrs, zero = [], [], [], 0
    rows = [("", "c", [name]),
            ("-", "l|cc|cccccc", [" SPKR", " # Snt", "# Chr" if chars else "# Wrd", "Corr",
                                  " Sub", " Del", " Ins", " Err", "S.Err"])]
    total = dict.fromkeys(["snt", "serr", "C", "S", "D", "I"], 0)
    for speaker, c in speakers:
        c = {**c, "E": c["S"] + c["D"] + c["I"]}
        n = c["C"] + c["S"] + c["D"]
        for k in columns:
            arrays[k].append(float(c[k]) if n == 0 else pct(c[k], n))
        serrs.append(pct(c["serr"], c["snt"]))
        snts.append(c["snt"])
        words.append(n)
        if n:
            figures = [f"{f_round(arrays[k][-1], 1):5.1f} " for k in columns]
        else:
            figures = [f"{f_round(arrays[k][-1], 0):5.0f}*" for k in columns]
            zero += 1
        rows.append(("-", "l|cc|cccccc", [f" {speaker} ", f"{c['snt']:5d}", f"{n:5d}", *figures,
                                          f"{f_round(serrs[-1], 1):5.1f} "]))
        for k in total:
            total[k] += c[k]
    n = total["C"] + total["S"] + total["D"]
    errors = total["S"] + total["D"] + total["I"]
    rows.append(("=", "l|cc|cccccc", [
        " Sum/Avg", f"{total['snt']:5d}", f"{n:5d}",
        *(f"{f_round(pct(v, n), 1):5.1f} " for v in (total["C"], total["S"], total["D"],
                                                    total["I"], errors)),
        f"{f_round(pct(total['serr'], total['snt']), 1):5.1f} "]))
    for spkr, words_of in enumerate(words):  # sclite's shift, quirks included
        if words_of == 0:
            for k in columns:
                arrays[k][spkr:] = arrays[k][spkr + 1:] + [-1000.0]
    kept = len(words) - zero
    mark = "+" if zero else " "
    stats = {k: _stats(arrays[k][:kept]) for k in columns}
    whole = [_stats([float(v) for v in snts]), _stats([float(v) for v in words]), _stats(serrs)]
    for i, label in enumerate((" Mean ", " S.D. ", "Median")):
        rows.append(("=" if i == 0 else "", "c|cc|cccccc", [
            label, f"{f_round(whole[0][i], 1):5.1f} ", f"{f_round(whole[1][i], 1):5.1f} ",
            *(f"{f_round(stats[k][i], 1):5.1f}{mark}" for k in columns),
            f"{f_round(whole[2][i], 1):5.1f} "]))
    text = "\n\n\n" + center("SYSTEM SUMMARY PERCENTAGES by SPEAKER", PAGE) + "\n\n"
    text += "\n".join(table(rows)) + "\n"
    if zero:
        text += ("\n* No Reference words for this/these speaker(s).  Word counts supplied\n"
                 "  rather than percents.\n"
                 "# No Reference words for this/these speaker(s).  NCE not computable.\n"
                 "+ Speaker(s) with no reference data is ignored\n")
    return text
