"""Recovery mode of the CoNLL-U evaluation (:mod:`scorers.ud`): a system whose character
stream differs from the gold one is scored in gold offsets.

The official script of the CoNLL 2018 shared task (``conll18_ud_eval.py``, Zeman et al. 2018)
aligns the two files through the character offsets of one common text and stops when the two
streams differ, so recovery gives its result wherever it gives one (equal streams: nothing
changes) and, elsewhere, keeps every unchanged character where it is.

* The two **character** streams are aligned, never the tokens: an LCS of their characters
  (:func:`scorers.lcs.align`, Myers' diff) keeps the most characters in place. A token LCS would
  pair equal forms wherever they are: against gold ``a b c db``, the system ``a z c d b`` (a
  typo, a split) had its last ``b`` paired with the gold ``b``, and the unchanged ``c`` fell
  into a differing stretch.
* A deletion and an insertion at most :data:`SLIDE` paired characters apart are realigned so
  that they face each other (a typo in a run of one letter: ``aaa`` against ``aax``; the LCS may
  have kept the second and third ``a`` and called the first deleted), by a weighted edit
  distance over that stretch that keeps as many characters.
* Between two kept characters, the leftover characters of both sides face each other in order
  (substitutions map onto their gold position); the rest of the longer side maps nowhere.
* A system token takes the gold span from its first to its last mapped character (an empty
  span, matching nothing, when none maps): a token with a substituted letter, or a letter more
  or less inside it, counts as the token it spells over.
* Every stretch of differing characters is listed in the ``differences`` table
  (:data:`scorers.ud_align.DIFFERENCES`: gold and system line, gold and system text).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl

from scorehouse.scorers.lcs import align
from scorehouse.scorers.ud_align import DIFFERENCES, Side, token_line


def recover_spans(g: Side, s: Side, g_text: str, s_text: str) -> tuple[Side, pl.DataFrame]:
    """System token spans in gold offsets, and the differing stretches (module docstring)."""
    s_start, s_end = s.t_start, s.t_end
    # the characters themselves are aligned, never the tokens: a token LCS pairs equal forms
    # wherever they are, and a form repeated further on drags unchanged characters out of place
    partner = align(_code_points(g_text), _code_points(s_text))
    gp = np.flatnonzero(partner >= 0)
    gp, sp = _regroup(g_text, s_text, gp, partner[gp])
    # gaps between consecutive paired characters: gold [ga, gb), system [sa, sb); no character
    # of a gold gap equals one of its system gap (else the LCS would be longer)
    ga, gb = np.concatenate([[0], gp + 1]), np.concatenate([gp, [len(g_text)]])
    sa, sb = np.concatenate([[0], sp + 1]), np.concatenate([sp, [len(s_text)]])
    # the character map: each paired character onto its partner, then in each gap the first
    # characters of both sides in order (substitutions); the rest of the longer side maps nowhere
    mapping = np.full(len(s_text) + 1, -1, dtype=np.int64)
    mapping[sp] = gp
    paired = np.minimum(gb - ga, sb - sa)
    offset = np.arange(paired.sum()) - np.repeat(np.cumsum(paired) - paired, paired)
    mapping[np.repeat(sa, paired) + offset] = np.repeat(ga, paired) + offset
    runs = np.stack([ga, gb, sa, sb], axis=1)[(gb > ga) | (sb > sa)]
    mapping[len(s_text)] = len(g_text)
    # system token spans: first to last mapped character; none mapped: an empty span at the next one
    big = np.iinfo(np.int64).max
    inner = mapping[:-1]
    first = (np.minimum.reduceat(np.where(inner >= 0, inner, big), s_start) if len(s_start)
             else s_start)
    last = np.maximum.reduceat(inner, s_start) if len(s_start) else s_start
    following = np.minimum.accumulate(np.where(mapping >= 0, mapping, big)[::-1])[::-1]
    start = np.where(last < 0, following[s_end], first)
    end = np.where(last < 0, start, last + 1)
    differences = pl.DataFrame({
        "gold_line": token_line(g, np.minimum(runs[:, 0], max(len(g_text) - 1, 0))),
        "system_line": token_line(s, np.minimum(runs[:, 2], max(len(s_text) - 1, 0))),
        "gold_text": [g_text[a:b] for a, b in runs[:, :2]],
        "system_text": [s_text[a:b] for a, b in runs[:, 2:]],
    }, schema=DIFFERENCES)
    return replace(s, t_start=start, t_end=end), differences


SLIDE = 32  # paired characters a deletion and an insertion may lie apart and still be regrouped


def _regroup(g_text: str, s_text: str, gp: np.ndarray, sp: np.ndarray):
    """The paired characters ``gp``/``sp`` of an LCS, with each deletion and insertion that lie
    at most :data:`SLIDE` paired characters apart (the LCS put them there, in a run of one letter,
    say ``aaa`` against ``aax``) realigned so that the leftover characters face each other: among
    the alignments of the stretch that keep as many characters, one that leaves the most of them
    facing (substitutions), by :func:`_most_facing`."""
    ga, gb = np.concatenate([[0], gp + 1]), np.concatenate([gp, [len(g_text)]])
    sa, sb = np.concatenate([[0], sp + 1]), np.concatenate([sp, [len(s_text)]])
    gap = np.flatnonzero((gb > ga) | (sb > sa))  # gap k lies between pairs k - 1 and k
    deleted, inserted = (sb[gap] == sa[gap]), (gb[gap] == ga[gap])
    near = np.flatnonzero(((deleted[:-1] & inserted[1:]) | (inserted[:-1] & deleted[1:]))
                          & (np.diff(gap) <= SLIDE))
    if not len(near):
        return gp, sp
    keep = np.ones(len(gp), dtype=bool)
    extra, taken = [], -2
    for j in near.tolist():
        if j == taken + 1:  # its first gap closes the stretch before
            continue
        k, k2 = int(gap[j]), int(gap[j + 1])
        g0, g1, s0, s1 = int(ga[k]), int(gb[k2]), int(sa[k]), int(sb[k2])
        pairs = _most_facing(g_text[g0:g1], s_text[s0:s1])
        if _facing(pairs, g1 - g0, s1 - s0):  # else the gaps stay (the second may pair on)
            taken = j
            keep[k:k2] = False  # the pairs between the two gaps
            extra += [(g0 + x, s0 + y) for x, y in pairs]
    both = np.array(extra, dtype=np.int64).reshape(-1, 2)
    gp, sp = np.concatenate([gp[keep], both[:, 0]]), np.concatenate([sp[keep], both[:, 1]])
    order = np.argsort(gp, kind="stable")
    return gp[order], sp[order]


def _facing(pairs: list[tuple[int, int]], n: int, m: int) -> int:
    """The characters left facing across the gaps between ``pairs`` (of two strings of lengths
    ``n`` and ``m``): the substitutions."""
    ends = [(-1, -1), *pairs, (n, m)]
    return sum(min(x1 - x0, y1 - y0) - 1 for (x0, y0), (x1, y1) in zip(ends, ends[1:]))


def _most_facing(a: str, b: str) -> list[tuple[int, int]]:
    """Pairs of equal characters of ``a`` and ``b``: as many as an LCS, and among those, pairs
    that leave the most characters facing across the gaps between them (a weighted edit
    distance: a deletion or an insertion costs w, a substitution 2w - 1, w longer than both
    strings). Read from the front of the table of suffix costs, preferring a pair, then a
    deletion."""
    n, m = len(a), len(b)
    w = n + m + 1
    cost = [[0] * (m + 1) for _ in range(n + 1)]
    for x in range(n, -1, -1):
        row = cost[x]
        for y in range(m, -1, -1):
            if x == n or y == m:
                row[y] = w * ((n - x) + (m - y))
                continue
            row[y] = min(cost[x + 1][y + 1] + (0 if a[x] == b[y] else 2 * w - 1),
                         cost[x + 1][y] + w, row[y + 1] + w)
    pairs, x, y = [], 0, 0
    while x < n and y < m:
        if a[x] == b[y] and cost[x][y] == cost[x + 1][y + 1]:
            pairs.append((x, y))
            x, y = x + 1, y + 1
        elif cost[x][y] == cost[x + 1][y + 1] + 2 * w - 1:
            x, y = x + 1, y + 1
        elif cost[x][y] == cost[x + 1][y] + w:
            x += 1
        else:
            y += 1
    return pairs


def _code_points(text: str) -> np.ndarray:
    """The characters of ``text`` as integers (their code points)."""
    return np.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(np.int64)
